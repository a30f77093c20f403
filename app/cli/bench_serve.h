// `ft bench serve` (cmd_bench_serve.cpp), called by `ft bench`: returns the results JSON (also printed).
#pragma once

#include <nlohmann/json.hpp>

#include "args.h"

namespace ft::cli {

nlohmann::json bench_serve(const Args& args);

}  // namespace ft::cli
