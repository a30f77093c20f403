// Hugging Face safetensors: one file (mmap, validated header, tensors as views) and a checkpoint folder
// (single model.safetensors or shards listed in model.safetensors.index.json) as one name → tensor table.
//
// File layout: u64 little-endian N, N bytes of UTF-8 JSON {"name": {"dtype": "BF16", "shape": [..],
// "data_offsets": [begin, end]}, …, "__metadata__": {"k": "v"}}, then the data section; offsets are relative to it.
//
// Errors: ft::Error(invalid_file, "<file>: <what> (<field>)", hint) for a malformed file, not_found for a missing
// file/tensor. Threading: immutable after open; safe to read from many threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ref/dtype.h"

namespace ft {
class MappedFile;
}

namespace ft::safetensors {

inline constexpr std::uint64_t kMaxHeaderBytes = 100ull << 20;  // 100 MiB, like the reference implementation

enum class DType { BOOL, U8, I8, U16, I16, U32, I32, U64, I64, F16, BF16, F32, F64, F8_E4M3, F8_E5M2 };

std::string_view dtype_name(DType t);                     // "BF16", "F8_E4M3", …
std::optional<DType> dtype_from_name(std::string_view s);  // exact (upper-case) safetensors names
std::size_t dtype_size(DType t);                          // bytes per element
// F32, F16, BF16: the types the engine computes with. Others are readable as raw bytes only.
bool dtype_supported_for_compute(DType t);
// The kernel dtype of the same bit layout (F32/F16/BF16/F64/I8/I16/I32/I64); nullopt for the others.
std::optional<kernels::DType> to_kernel_dtype(DType t);

struct TensorInfo {
    std::string name;
    DType dtype = DType::F32;
    std::vector<std::uint64_t> shape;  // row-major, outermost first (PyTorch order); empty = scalar
    std::uint64_t begin = 0;           // data_offsets, relative to the data section
    std::uint64_t end = 0;
    std::uint64_t n_elements = 0;
    std::uint64_t n_bytes() const noexcept { return end - begin; }
};

class File {
public:
    // Maps and validates the file. Throws not_found / io / invalid_file.
    static File open(const std::filesystem::path& path);
    // Parses bytes the caller keeps alive for the File's lifetime (tests, fuzzing). `name` is used in errors.
    static File parse(std::span<const std::byte> bytes, std::string name);

    File(File&&) noexcept;
    File& operator=(File&&) noexcept;
    ~File();

    const std::string& name() const noexcept { return name_; }
    const std::filesystem::path& path() const noexcept { return path_; }  // empty for parse()
    std::uint64_t data_offset() const noexcept { return data_offset_; }     // 8 + header length
    std::span<const TensorInfo> tensors() const noexcept { return tensors_; }  // sorted by data offset
    const TensorInfo* find(std::string_view name) const;                       // nullptr when absent
    const TensorInfo& tensor(std::string_view name) const;                     // throws not_found
    // The tensor's bytes in the mapping (no copy). Not necessarily aligned to the element size.
    std::span<const std::byte> data(const TensorInfo& t) const;
    const std::map<std::string, std::string>& metadata() const noexcept { return metadata_; }  // __metadata__
    const std::shared_ptr<const MappedFile>& mapping() const noexcept { return mapping_; }

private:
    File() = default;
    std::string name_;
    std::filesystem::path path_;
    std::shared_ptr<const MappedFile> mapping_;
    std::span<const std::byte> bytes_;
    std::uint64_t data_offset_ = 0;
    std::vector<TensorInfo> tensors_;
    std::map<std::string, std::size_t, std::less<>> index_;
    std::map<std::string, std::string> metadata_;
    friend struct FileParser;
};

// A checkpoint: a folder with model.safetensors.index.json (its weight_map names the shard of each tensor) or a
// single model.safetensors (or a path to one .safetensors file). Every shard is opened and validated up front.
class Checkpoint {
public:
    struct Entry {
        const File* file = nullptr;
        const TensorInfo* info = nullptr;
        std::span<const std::byte> data() const { return file->data(*info); }
    };

    // Throws not_found (no index and no model.safetensors; a shard file missing; a tensor listed in the index
    // missing from its shard) or invalid_file (bad index JSON, bad shard, a tensor present in two shards).
    static Checkpoint open(const std::filesystem::path& dir_or_file);

    Checkpoint(Checkpoint&&) noexcept;
    Checkpoint& operator=(Checkpoint&&) noexcept;
    ~Checkpoint();

    const std::filesystem::path& path() const noexcept { return path_; }
    std::span<const File> files() const noexcept { return files_; }
    std::size_t size() const noexcept { return entries_.size(); }
    // Tensor names, sorted.
    std::vector<std::string_view> names() const;
    const Entry* find(std::string_view name) const;  // nullptr when absent
    const Entry& tensor(std::string_view name) const;  // throws not_found naming the checkpoint
    // Index metadata (e.g. "total_size"), as JSON text per key; empty without an index.
    const std::map<std::string, std::string>& index_metadata() const noexcept { return index_metadata_; }

private:
    Checkpoint() = default;
    std::filesystem::path path_;
    std::vector<File> files_;
    std::map<std::string, Entry, std::less<>> entries_;
    std::map<std::string, std::string> index_metadata_;
};

}  // namespace ft::safetensors
