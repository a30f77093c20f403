#include <cstdlib>
#include <pwd.h>
#include <unistd.h>

#include "platform/platform.h"

namespace ft::platform {

std::filesystem::path default_data_dir() {
    if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "freetoken";
    const char* home = std::getenv("HOME");
    if (!home || !*home) {
        if (const passwd* pw = getpwuid(getuid())) home = pw->pw_dir;
    }
    if (!home || !*home) return std::filesystem::temp_directory_path() / "freetoken";
    return std::filesystem::path(home) / ".local" / "share" / "freetoken";
}

std::filesystem::path executable_path() {
    std::error_code ec;
    auto p = std::filesystem::read_symlink("/proc/self/exe", ec);  // Linux; other POSIX systems: unknown
    return ec ? std::filesystem::path() : p;
}

std::uint64_t physical_memory_bytes() {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : 0;
}

std::uint64_t pinnable_memory_bytes() { return 0; }

std::filesystem::path env_path(const char* name) {
    const char* v = std::getenv(name);
    return v && *v ? std::filesystem::path(v) : std::filesystem::path();
}

std::optional<LongPathSupport> long_path_support() { return std::nullopt; }

std::vector<std::string> command_line_utf8(int argc, char** argv) { return {argv, argv + argc}; }

void stdio_binary_utf8() {}  // POSIX streams carry bytes as written

}  // namespace ft::platform
