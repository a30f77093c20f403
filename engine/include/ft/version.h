// Build identity of the engine, for --version, logs and the About box.
#pragma once

#include <string>

namespace ft {

const char* version();             // "0.1.0"
std::string build_description();   // "0.1.0 (Release, CUDA 13.0 sm 90, AVX2/AVX-512 dispatch)"
bool built_with_cuda();

}  // namespace ft
