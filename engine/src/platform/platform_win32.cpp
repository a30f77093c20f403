// Win32 implementation of platform.h. Not compiled on Linux CI: keep it small and reviewed.
#include <windows.h>
#include <shlobj.h>

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

}  // namespace ft::platform
