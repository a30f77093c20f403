// Win32 implementation of MappedFile (CreateFileMapping + MapViewOfFile). POSIX: mapped_file_posix.cpp.
#if defined(_WIN32)

#include "format/mapped_file.h"

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>

#include <algorithm>

#include <string>

#include "ft/error.h"
#include "ft/utf8.h"

namespace ft {

std::shared_ptr<const MappedFile> MappedFile::open(const std::filesystem::path& path) {
    HANDLE file = ::CreateFileW(path.c_str(), GENERIC_READ, FILE_SHARE_READ, nullptr, OPEN_EXISTING,
                                FILE_ATTRIBUTE_NORMAL, nullptr);
    if (file == INVALID_HANDLE_VALUE) {
        const DWORD err = ::GetLastError();
        if (err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND)
            throw Error(ErrorCode::not_found, path_to_utf8(path) + ": no such file", "check the path")
                .keyed("file_missing", {path_to_utf8(path)});
        throw Error(ErrorCode::io, path_to_utf8(path) + ": cannot open (Windows error " + std::to_string(err) + ")");
    }
    LARGE_INTEGER size{};
    if (!::GetFileSizeEx(file, &size)) {
        ::CloseHandle(file);
        throw Error(ErrorCode::io, path_to_utf8(path) + ": cannot read the file size");
    }
    std::shared_ptr<MappedFile> m(new MappedFile());
    m->path_ = path;
    m->size_ = static_cast<std::size_t>(size.QuadPart);
    if (m->size_ > 0) {
        HANDLE mapping = ::CreateFileMappingW(file, nullptr, PAGE_READONLY, 0, 0, nullptr);
        if (!mapping) {
            const DWORD err = ::GetLastError();
            ::CloseHandle(file);
            throw Error(ErrorCode::io, path_to_utf8(path) + ": cannot map the file (Windows error " +
                                           std::to_string(err) + ")");
        }
        void* p = ::MapViewOfFile(mapping, FILE_MAP_READ, 0, 0, 0);
        if (!p) {
            const DWORD err = ::GetLastError();
            ::CloseHandle(mapping);
            ::CloseHandle(file);
            throw Error(ErrorCode::io, path_to_utf8(path) + ": cannot map the file (Windows error " +
                                           std::to_string(err) + ")");
        }
        m->data_ = static_cast<const std::byte*>(p);
        m->handle_ = mapping;
    }
    ::CloseHandle(file);  // the mapping keeps the file open
    return m;
}

MappedFile::~MappedFile() {
    if (data_) ::UnmapViewOfFile(data_);
    if (handle_) ::CloseHandle(static_cast<HANDLE>(handle_));
}

// PrefetchVirtualMemory needs _WIN32_WINNT >= Windows 8, which MinGW does not define by default: left out.
void MappedFile::advise_sequential() const noexcept {
}

void MappedFile::populate(std::size_t offset, std::size_t length) const noexcept {
    if (!data_ || offset >= size_) return;
    length = (std::min)(length, size_ - offset);
    volatile unsigned char sink = 0;
    for (std::size_t p = offset; p < offset + length; p += 4096) sink = sink + *reinterpret_cast<const volatile unsigned char*>(data_ + p);
}

}  // namespace ft

#endif
