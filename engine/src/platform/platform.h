// Platform seams: the only place with OS-specific code. Each function has a POSIX and a Win32 implementation
// (platform_posix.cpp / platform_win32.cpp); CMake compiles the one that applies.
#pragma once

#include <cstdint>
#include <filesystem>

namespace ft::platform {

// Per-user data folder before FT_DATA_DIR is considered: XDG on Linux, %LOCALAPPDATA%\FreeToken on Windows.
std::filesystem::path default_data_dir();

// The running executable's absolute path; empty if unknown.
std::filesystem::path executable_path();

// Installed physical memory in bytes (0 if unknown).
std::uint64_t physical_memory_bytes();

}  // namespace ft::platform
