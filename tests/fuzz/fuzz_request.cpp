// libFuzzer target for request_one_input (built with -DFT_FUZZ=ON and clang; see tests/fuzz/README.md).
#include "fuzz_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    ft::fuzz::request_one_input(data, size);
    return 0;
}
