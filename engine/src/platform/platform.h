// Platform seams: the only place with OS-specific code. Each function has a POSIX and a Win32 implementation
// (platform_posix.cpp / platform_win32.cpp); CMake compiles the one that applies.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ft::platform {

// Per-user data folder before FT_DATA_DIR is considered: XDG on Linux, %LOCALAPPDATA%\FreeToken on Windows.
std::filesystem::path default_data_dir();

// The running executable's absolute path; empty if unknown.
std::filesystem::path executable_path();

// Installed physical memory in bytes (0 if unknown).
std::uint64_t physical_memory_bytes();

// Host memory a GPU may page-lock by the OS's rule (the GPU expert store's --pin-budget default); 0: no cap below
// the RAM. Windows (WDDM) lets the GPU lock about half of physical memory, and registering past it fails or starves
// the system: half the RAM there. Linux: 0 (CUDA's page-locking is not bound by RLIMIT_MEMLOCK).
std::uint64_t pinnable_memory_bytes();

// An environment variable naming a folder or file; empty when unset or empty. Windows reads the UTF-16 environment
// (getenv would give the ANSI code page's version, with '?' for what it lacks).
std::filesystem::path env_path(const char* name);

// Windows' 260-character path limit: file APIs take longer paths only when the executable's manifest declares
// longPathAware (resources/windows/freetoken.manifest) and the system's LongPathsEnabled policy is on. nullopt on
// POSIX, which has no such limit.
struct LongPathSupport {
    bool declared = false;  // this executable's manifest (RT_MANIFEST 1) says longPathAware true
    bool enabled = false;   // HKLM\SYSTEM\CurrentControlSet\Control\FileSystem LongPathsEnabled = 1
};
std::optional<LongPathSupport> long_path_support();

// ft/utf8.h: the command line as UTF-8, and standard output/error as raw bytes shown as UTF-8.
std::vector<std::string> command_line_utf8(int argc, char** argv);
void stdio_binary_utf8();

// Sleeping on a 32-bit word, as the CPU worker pool's threads do between jobs. wait_on_word returns once `word` no
// longer holds `expected`, and may return early (callers check again); wake_word_all wakes every thread waiting on
// `word`. Linux: a futex. Windows: WaitOnAddress / WakeByAddressAll, which need no kernel object (under Wine they are
// futexes too, where std::condition_variable of MinGW — winpthreads' events — waits through wineserver).
void wait_on_word(std::atomic<std::uint32_t>& word, std::uint32_t expected);
void wake_word_all(std::atomic<std::uint32_t>& word);

}  // namespace ft::platform
