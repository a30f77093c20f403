// Helpers shared by the text fuzz harnesses (fuzz_harness_tool.cpp, fuzz_harness_text.cpp).
#pragma once

#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <typeinfo>

namespace ft::fuzz {

inline std::string_view g_input;  // the input being run, for the report of a broken invariant
inline volatile std::uint64_t g_sink = 0;

// A fuzz target that found a broken invariant: abort so libFuzzer (or the smoke test's process) reports it. The
// input is also written to the temp folder, for the smoke test (libFuzzer keeps its own crash-* file).
[[noreturn]] inline void invariant_broken(const char* what) {
    const auto path = std::filesystem::temp_directory_path() / "ft-fuzz-invariant-input.bin";
    std::ofstream(path, std::ios::binary).write(g_input.data(), static_cast<std::streamsize>(g_input.size()));
    std::fprintf(stderr, "fuzz invariant broken: %s (input written to %s)\n", what, path.string().c_str());
    __builtin_trap();
}

// Anything but ft::Error escaping a parser is a bug: say what it was and keep the input, then let it through.
[[noreturn]] inline void escaped(const std::exception& e) {
    const auto path = std::filesystem::temp_directory_path() / "ft-fuzz-invariant-input.bin";
    std::ofstream(path, std::ios::binary).write(g_input.data(), static_cast<std::streamsize>(g_input.size()));
    std::fprintf(stderr, "fuzz: a %s escaped: %s (input written to %s)\n", typeid(e).name(), e.what(),
                 path.string().c_str());
    throw;
}

// The tool schemas the fuzzed parsers type XML parameters with (flags bit 3).
inline const char* kFuzzTools = R"([{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{
    "s":{"type":"string"},"n":{"type":"integer"},"b":{"type":"boolean"},"o":{"type":"object"},"a":{"type":"array"},
    "x":{"type":["number","null"]}}}}}])";


}  // namespace ft::fuzz
