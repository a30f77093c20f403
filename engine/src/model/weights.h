// The weights of a loaded model, as views into the mapped file(s) in their stored types (no copy): a GGUF file or a
// Hugging Face safetensors folder, behind one interface keyed by GGUF tensor names. Every tensor the architecture
// table (model_tensors.h) lists is checked at open — present, right shape, a type the kernels read — so a bad
// file fails at load with its name and the tensor, never in the middle of a forward pass.
// open() maps the files and brings every page into the process (from the page cache, or the disk when cold).
// Threading: immutable after open(); safe to read from many threads.
#pragma once

#include <cstddef>
#include <atomic>
#include <cstdint>
#include <functional>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "model/model_desc.h"
#include "model/model_tensors.h"
#include "ref/dtype.h"

namespace ft::gguf {
class Reader;
}
namespace ft::safetensors {
class Checkpoint;
}

namespace ft::model {

// A matrix of `rows` rows × `cols` elements (GGUF ne0 = cols), or a vector (rows = 1).
struct TensorView {
    kernels::DType type = kernels::DType::F32;
    std::int64_t cols = 0;
    std::int64_t rows = 0;
    std::size_t row_bytes = 0;
    const std::byte* data = nullptr;
    const std::byte* row(std::int64_t r) const { return data + std::size_t(r) * row_bytes; }
    std::size_t bytes() const { return std::size_t(rows) * row_bytes; }
};

// One routed expert of one layer: gate and up are [n_ff rows × n_embd], down is [n_embd rows × n_ff].
struct ExpertView {
    TensorView gate, up, down;
    std::size_t bytes() const { return gate.bytes() + up.bytes() + down.bytes(); }
};

// Load-time hooks: bytes mapped so far (called on the opening thread, a few times a second) and a flag that stops
// the load (open() then throws ft::Error(cancelled)).
struct LoadMonitor {
    std::function<void(std::uint64_t done, std::uint64_t total)> on_bytes;
    const std::atomic<bool>* cancel = nullptr;
    bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
};

class Weights {
public:
    // path: a .gguf file, or a folder with config.json + safetensors (or a .safetensors file inside such a folder).
    // Throws ft::Error naming the file and the tensor (not_found, invalid_file, unsupported).
    static std::unique_ptr<Weights> open(const std::filesystem::path& path, const LoadMonitor& monitor = {});
    ~Weights();

    const ModelDesc& desc() const { return desc_; }
    const std::filesystem::path& path() const { return path_; }
    bool is_gguf() const { return gguf_ != nullptr; }
    const gguf::Reader* gguf() const { return gguf_.get(); }

    // Non-expert tensors by GGUF name; nullptr when absent (optional tensors).
    const TensorView* find(const std::string& name) const;
    const TensorView& get(const std::string& name) const;  // throws not_found naming the file
    const TensorView& layer(int il, const char* suffix) const { return get("blk." + std::to_string(il) + "." + suffix); }
    const TensorView* find_layer(int il, const char* suffix) const { return find("blk." + std::to_string(il) + "." + suffix); }

    // Routed expert e of MoE layer il (views into the stacked GGUF tensors or the per-expert safetensors).
    const ExpertView& expert(int il, int e) const { return experts_[std::size_t(il)][std::size_t(e)]; }
    bool layer_has_experts(int il) const { return !experts_[std::size_t(il)].empty(); }

    // The memory-mapped files the views point into (base, size): what the GPU path registers as pinned host memory.
    std::vector<std::pair<const std::byte*, std::size_t>> mapped_files() const;

    std::uint64_t expert_bytes() const { return expert_bytes_; }  // the routed expert pool
    std::uint64_t other_bytes() const { return other_bytes_; }    // everything else

private:
    Weights() = default;
    // Maps every page of the files into the process up front (MappedFile::populate): decode then takes no page
    // faults, which otherwise dominate — each step touches experts not used before.
    void populate(const LoadMonitor& monitor) const;
    void index(const std::vector<TensorSpec>& specs);
    TensorView view_of(const std::string& name, const std::vector<std::uint64_t>& want_dims, bool expert_slice,
                       std::uint64_t slice) const;

    std::filesystem::path path_;
    ModelDesc desc_;
    std::unique_ptr<gguf::Reader> gguf_;
    std::unique_ptr<safetensors::Checkpoint> hf_;
    std::map<std::string, TensorView, std::less<>> tensors_;
    std::vector<std::vector<ExpertView>> experts_;  // [layer][expert]; empty for dense layers
    std::uint64_t expert_bytes_ = 0, other_bytes_ = 0;
};

}  // namespace ft::model
