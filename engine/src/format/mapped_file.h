// A read-only memory mapping of a whole file: the model readers hand out tensors as views into it (no copy).
// POSIX mmap (mapped_file_posix.cpp) or Win32 CreateFileMapping (mapped_file_win32.cpp), chosen by the preprocessor.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>

namespace ft {

class MappedFile {
public:
    // Maps `path` read-only. Throws ft::Error: not_found (no such file), io (cannot open / map it, or it is a
    // folder). An empty file gives an empty span. Thread-safe to read from any thread once opened.
    static std::shared_ptr<const MappedFile> open(const std::filesystem::path& path);

    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    std::span<const std::byte> bytes() const noexcept { return {data_, size_}; }
    std::size_t size() const noexcept { return size_; }
    const std::filesystem::path& path() const noexcept { return path_; }

    // Hint that the whole file will be read front to back soon (readahead); a no-op where unsupported.
    void advise_sequential() const noexcept;
    // Maps every page of [offset, offset + length) into this process now (reading it from disk if it is not in the
    // page cache), so later reads take no page faults. Without it, each first touch of a 4 KiB page faults: decode
    // touches fresh experts every step, and many threads faulting at once serialise on the kernel's memory lock.
    // Uses MADV_POPULATE_READ where the kernel has it (Linux 5.14+), then reads one byte per page (a page's first
    // read in the process costs more than later ones even once it is mapped). Never throws.
    void populate(std::size_t offset, std::size_t length) const noexcept;

private:
    MappedFile() = default;
    std::filesystem::path path_;
    const std::byte* data_ = nullptr;
    std::size_t size_ = 0;
    void* handle_ = nullptr;  // Win32 mapping handle; unused on POSIX
};

}  // namespace ft
