#include <cstdint>
#include <cstdlib>
#include <pwd.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#endif

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

static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t) && std::atomic<std::uint32_t>::is_always_lock_free);

#ifdef __linux__
void wait_on_word(std::atomic<std::uint32_t>& word, std::uint32_t expected) {
    // EAGAIN (the word changed first) and EINTR are both "check again" for the caller.
    ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT_PRIVATE, expected, nullptr, nullptr, 0);
}

void wake_word_all(std::atomic<std::uint32_t>& word) {
    ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE_PRIVATE, INT32_MAX, nullptr, nullptr, 0);
}
#else
void wait_on_word(std::atomic<std::uint32_t>& word, std::uint32_t expected) { word.wait(expected); }
void wake_word_all(std::atomic<std::uint32_t>& word) { word.notify_all(); }
#endif

}  // namespace ft::platform
