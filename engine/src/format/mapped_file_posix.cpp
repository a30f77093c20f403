// POSIX implementation of MappedFile (mmap). The Win32 one is in mapped_file_win32.cpp.
#if !defined(_WIN32)

#include "format/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "ft/error.h"
#include "ft/utf8.h"

namespace ft {

std::shared_ptr<const MappedFile> MappedFile::open(const std::filesystem::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        const int err = errno;
        if (err == ENOENT)
            throw Error(ErrorCode::not_found, path_to_utf8(path) + ": no such file", "check the path")
                .keyed("file_missing", {path_to_utf8(path)});
        throw Error(ErrorCode::io, path_to_utf8(path) + ": cannot open: " + std::strerror(err));
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        throw Error(ErrorCode::io, path_to_utf8(path) + ": not a regular file", "pass the path of a model file");
    }
    std::shared_ptr<MappedFile> m(new MappedFile());
    m->path_ = path;
    m->size_ = static_cast<std::size_t>(st.st_size);
    if (m->size_ > 0) {
        void* p = ::mmap(nullptr, m->size_, PROT_READ, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED) {
            const int err = errno;
            ::close(fd);
            throw Error(ErrorCode::io, path_to_utf8(path) + ": cannot map the file: " + std::strerror(err));
        }
        m->data_ = static_cast<const std::byte*>(p);
    }
    ::close(fd);  // the mapping stays valid without the descriptor
    return m;
}

MappedFile::~MappedFile() {
    if (data_) ::munmap(const_cast<std::byte*>(data_), size_);
}

void MappedFile::advise_sequential() const noexcept {
    if (data_) ::madvise(const_cast<std::byte*>(data_), size_, MADV_SEQUENTIAL);
}

void MappedFile::populate(std::size_t offset, std::size_t length) const noexcept {
    if (!data_ || offset >= size_) return;
    length = std::min(length, size_ - offset);
    const std::size_t page = std::size_t(::sysconf(_SC_PAGESIZE));
    const std::uintptr_t begin = reinterpret_cast<std::uintptr_t>(data_ + offset) & ~(std::uintptr_t(page) - 1);
    const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(data_ + offset + length);
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22  // Linux 5.14; older kernels answer EINVAL and we touch the pages instead
#endif
    // Mapped pages still cost their first read in this process (measured on the dev machine's VM: `ft bench cpu-moe
    // --rounds 5` read experts at 3.9 GB/s on pages only populated, 30 on pages also read once): one byte per page
    // now takes that at load. Where MADV_POPULATE_READ is missing the same loop faults the pages in.
    ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_READ);
    volatile std::uint8_t sink = 0;
    for (std::uintptr_t p = begin; p < end; p += page) sink = sink + *reinterpret_cast<const volatile std::uint8_t*>(p);
}

}  // namespace ft

#endif
