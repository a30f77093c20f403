// The `ft` subcommands. Each lives in its own cmd_<name>.cpp and provides a spec (options, help) and a run function;
// main.cpp holds the table. A run function returns the process exit code and throws ft::Error for user errors.
#pragma once

#include <vector>

#include "args.h"

namespace ft::cli {

struct Command {
    const CommandSpec& (*spec)();
    int (*run)(const Args& args);
};

// Defined in the cmd_*.cpp files.
#define FT_DECLARE_COMMAND(name)   \
    const CommandSpec& spec_##name(); \
    int run_##name(const Args& args);
FT_DECLARE_COMMAND(serve)
FT_DECLARE_COMMAND(chat)
FT_DECLARE_COMMAND(run)
FT_DECLARE_COMMAND(ctl)
FT_DECLARE_COMMAND(bench)
FT_DECLARE_COMMAND(inspect)
FT_DECLARE_COMMAND(convert)
FT_DECLARE_COMMAND(synth)
FT_DECLARE_COMMAND(tokenize)
FT_DECLARE_COMMAND(detokenize)
FT_DECLARE_COMMAND(template)
FT_DECLARE_COMMAND(info)
#undef FT_DECLARE_COMMAND

const std::vector<Command>& all_commands();

// For commands whose engine part has not landed yet: prints which issue brings it and returns exit code 2.
int command_unavailable(const CommandSpec& spec, const char* arrives_with);

}  // namespace ft::cli
