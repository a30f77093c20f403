// The fuzz harness functions, shared by the libFuzzer targets (clang, -DFT_FUZZ=ON) and the CI smoke test (any
// compiler): parse untrusted bytes, then touch everything the parse produced. Only ft::Error may escape the parsers;
// the harnesses swallow it and let anything else through (libFuzzer reports it as a crash).
#pragma once

#include <cstddef>
#include <cstdint>

namespace ft::fuzz {

// Returns 1 when the input parsed as a valid file, 0 when it was rejected with ft::Error.
int gguf_one_input(const std::uint8_t* data, std::size_t size);
int safetensors_one_input(const std::uint8_t* data, std::size_t size);

}  // namespace ft::fuzz
