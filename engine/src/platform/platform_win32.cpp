// Win32 implementation of platform.h. Not compiled on Linux CI: keep it small and reviewed.
#include <windows.h>
#include <fcntl.h>
#include <io.h>
#include <shellapi.h>
#include <shlobj.h>
#include <synchapi.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "platform/platform.h"

namespace ft::platform {

std::filesystem::path default_data_dir() {
    PWSTR raw = nullptr;
    std::filesystem::path base;
    if (SUCCEEDED(SHGetKnownFolderPath(FOLDERID_LocalAppData, KF_FLAG_CREATE, nullptr, &raw))) base = raw;
    CoTaskMemFree(raw);
    if (base.empty()) base = std::filesystem::temp_directory_path();
    return base / L"FreeToken";
}

std::filesystem::path executable_path() {
    std::wstring buf(32768, L'\0');
    const DWORD n = GetModuleFileNameW(nullptr, buf.data(), static_cast<DWORD>(buf.size()));
    if (n == 0 || n >= buf.size()) return {};
    buf.resize(n);
    return std::filesystem::path(buf);
}

std::uint64_t physical_memory_bytes() {
    MEMORYSTATUSEX st{};
    st.dwLength = sizeof(st);
    return GlobalMemoryStatusEx(&st) ? std::uint64_t(st.ullTotalPhys) : 0;
}

std::uint64_t pinnable_memory_bytes() { return physical_memory_bytes() / 2; }

std::filesystem::path env_path(const char* name) {
    std::wstring wname;
    for (const char* c = name; *c; ++c) wname += wchar_t(static_cast<unsigned char>(*c));  // names are ASCII
    std::wstring value(32767, L'\0');  // the largest environment value Windows allows
    const DWORD n = GetEnvironmentVariableW(wname.c_str(), value.data(), static_cast<DWORD>(value.size()));
    if (n == 0 || n >= value.size()) return {};
    value.resize(n);
    return std::filesystem::path(value);
}

std::optional<LongPathSupport> long_path_support() {
    LongPathSupport s;
    // The manifest Windows read when it started this executable: RT_MANIFEST (24), id 1.
    if (const HRSRC res = FindResourceW(nullptr, MAKEINTRESOURCEW(1), MAKEINTRESOURCEW(24))) {
        const HGLOBAL h = LoadResource(nullptr, res);
        const void* data = h ? LockResource(h) : nullptr;
        if (data) {
            const std::string_view m(static_cast<const char*>(data), SizeofResource(nullptr, res));
            const size_t tag = m.find("<longPathAware");
            const size_t open = tag == m.npos ? m.npos : m.find('>', tag);
            const size_t close = open == m.npos ? m.npos : m.find('<', open);
            if (close != m.npos) {
                std::string_view v = m.substr(open + 1, close - open - 1);
                while (!v.empty() && (v.front() == ' ' || v.front() == '\n' || v.front() == '\r' || v.front() == '\t')) v.remove_prefix(1);
                while (!v.empty() && (v.back() == ' ' || v.back() == '\n' || v.back() == '\r' || v.back() == '\t')) v.remove_suffix(1);
                s.declared = v == "true";
            }
        }
    }
    DWORD value = 0, size = sizeof(value);
    s.enabled = RegGetValueW(HKEY_LOCAL_MACHINE, L"SYSTEM\\CurrentControlSet\\Control\\FileSystem", L"LongPathsEnabled",
                             RRF_RT_REG_DWORD, nullptr, &value, &size) == ERROR_SUCCESS && value == 1;
    return s;
}

std::vector<std::string> command_line_utf8(int argc, char** argv) {
    std::vector<std::string> fallback(argv, argv + argc);
    int n = 0;
    LPWSTR* wargv = CommandLineToArgvW(GetCommandLineW(), &n);
    if (!wargv) return fallback;
    std::vector<std::string> out;
    for (int i = 0; i < n; ++i) {
        const int bytes = WideCharToMultiByte(CP_UTF8, 0, wargv[i], -1, nullptr, 0, nullptr, nullptr);
        std::string s(bytes > 0 ? size_t(bytes) : 1u, '\0');
        if (bytes > 0) WideCharToMultiByte(CP_UTF8, 0, wargv[i], -1, s.data(), bytes, nullptr, nullptr);
        s.resize(s.size() - 1);  // the terminating NUL
        out.push_back(std::move(s));
    }
    LocalFree(wargv);
    // The C runtime split argv by its own rules; should CommandLineToArgvW split differently (odd quoting), argv wins.
    return n == argc ? out : fallback;
}

namespace {
UINT g_console_cp = 0, g_console_input_cp = 0;
void restore_console_cp() {
    if (g_console_cp) SetConsoleOutputCP(g_console_cp);
    if (g_console_input_cp) SetConsoleCP(g_console_input_cp);
}
}  // namespace

void stdio_binary_utf8() {
    std::fflush(stdout);
    std::fflush(stderr);
    _setmode(_fileno(stdout), _O_BINARY);
    _setmode(_fileno(stderr), _O_BINARY);
    // A console decodes what it is given in its output code page: UTF-8 for as long as this process runs (the
    // console is shared with the shell that started it, so the old pages come back at exit).
    DWORD mode = 0;
    if (GetConsoleMode(GetStdHandle(STD_OUTPUT_HANDLE), &mode) || GetConsoleMode(GetStdHandle(STD_ERROR_HANDLE), &mode)) {
        g_console_cp = GetConsoleOutputCP();
        g_console_input_cp = GetConsoleCP();
        SetConsoleOutputCP(CP_UTF8);
        SetConsoleCP(CP_UTF8);
        std::atexit(restore_console_cp);
    }
}

static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t) && std::atomic<std::uint32_t>::is_always_lock_free);

// Synchronization.lib (api-ms-win-core-synch-l1-2-0.dll), Windows 8 and later.
void wait_on_word(std::atomic<std::uint32_t>& word, std::uint32_t expected) {
    ::WaitOnAddress(reinterpret_cast<volatile std::uint32_t*>(&word), &expected, sizeof expected, INFINITE);
}

void wake_word_all(std::atomic<std::uint32_t>& word) { ::WakeByAddressAll(reinterpret_cast<std::uint32_t*>(&word)); }

}  // namespace ft::platform
