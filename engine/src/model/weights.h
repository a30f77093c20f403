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
#include <string_view>
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
struct QuantConfig;
}

namespace ft::model {

// A matrix of `rows` rows × `cols` elements (GGUF ne0 = cols), or a vector (rows = 1).
struct TensorView {
    kernels::DType type = kernels::DType::F32;
    std::int64_t cols = 0;
    std::int64_t rows = 0;
    std::size_t row_bytes = 0;
    const std::byte* data = nullptr;
    std::string_view name;  // the GGUF tensor name (non-expert tensors of a Weights; empty elsewhere)
    const std::byte* row(std::int64_t r) const { return data + std::size_t(r) * row_bytes; }
    std::size_t bytes() const { return std::size_t(rows) * row_bytes; }
};

// One routed expert of one layer: gate and up are [n_ff rows × n_embd], down is [n_embd rows × n_ff].
// gpt-oss's experts also have biases: F32 vectors (rows = 1; cols n_ff, n_ff, n_embd), each the expert's row of the
// layer's stacked "ffn_{gate,up,down}_exps.bias" tensor (find_layer(il, "ffn_gate_exps.bias"): rows = n_expert,
// F32, expert e at row e). data == nullptr when the model has none (ModelDesc::moe.expert_bias).
struct ExpertView {
    TensorView gate, up, down;
    TensorView gate_bias, up_bias, down_bias;
    std::size_t bytes() const { return gate.bytes() + up.bytes() + down.bytes(); }  // the weights, not the biases
    bool has_bias() const { return down_bias.data != nullptr; }
};

// Load-time hooks: bytes mapped so far (called on the opening thread, a few times a second) and a flag that stops
// the load (open() then throws ft::Error(cancelled)).
struct LoadMonitor {
    std::function<void(std::uint64_t done, std::uint64_t total)> on_bytes;
    const std::atomic<bool>* cancel = nullptr;
    bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
};

// A tensor's values as f32 (norm scales, biases, sinks: small 1-D tensors converted once at load).
std::vector<float> vector_f32(const TensorView& v);

class Weights {
public:
    // path: a .gguf file (of a split model: its first part, name-00001-of-0000N.gguf, the others are found next to
    // it), or a folder with config.json + safetensors (or a .safetensors file inside such a folder).
    // Throws ft::Error naming the file and the tensor (not_found, invalid_file, unsupported).
    static std::unique_ptr<Weights> open(const std::filesystem::path& path, const LoadMonitor& monitor = {});
    // The tensors a model of this description has, as views with their dimensions and no data (type F32, row_bytes
    // 0): what a graph's geometry needs without a file (the VRAM planner and fit predictor on a description,
    // memory/planner.h). Throws ft::Error(unsupported) for an architecture without a tensor table.
    static std::unique_ptr<Weights> shapes(const ModelDesc& d);
    ~Weights();

    const ModelDesc& desc() const { return desc_; }
    const std::filesystem::path& path() const { return path_; }
    bool is_gguf() const { return gguf_ != nullptr; }
    const gguf::Reader* gguf() const { return gguf_.get(); }

    // Non-expert tensors by GGUF name; nullptr when absent (optional tensors). Bias and sink vectors
    // (TensorSpec::is_vector: attn_{q,k,v,output}.bias, attn_sinks.weight, ffn_gate_inp.bias, exp_probs_b.bias,
    // ffn_*_exps.bias) are always F32, converted at open when the file stores them otherwise. Tensors of GLM's MTP
    // layers (TensorSpec::unused) are not indexed.
    const TensorView* find(const std::string& name) const;
    const TensorView& get(const std::string& name) const;  // throws not_found naming the file
    const TensorView& layer(int il, const char* suffix) const { return get("blk." + std::to_string(il) + "." + suffix); }
    const TensorView* find_layer(int il, const char* suffix) const { return find("blk." + std::to_string(il) + "." + suffix); }

    // Routed expert e of MoE layer il (views into the stacked GGUF tensors or the per-expert safetensors).
    const ExpertView& expert(int il, int e) const { return experts_[std::size_t(il)][std::size_t(e)]; }
    bool layer_has_experts(int il) const { return !experts_[std::size_t(il)].empty(); }

    // The host memory the views point into (base, size): the memory-mapped files, then the page-aligned buffers of
    // tensors repacked at open (a Hugging Face gpt-oss checkpoint's fused experts, converted vectors). What the GPU
    // path registers as pinned host memory.
    std::vector<std::pair<const std::byte*, std::size_t>> mapped_files() const;

    std::uint64_t expert_bytes() const { return expert_bytes_; }  // the routed expert pool
    std::uint64_t other_bytes() const { return other_bytes_; }    // everything else

private:
    Weights() = default;
    // Maps every page of the files into the process up front (MappedFile::populate): decode then takes no page
    // faults, which otherwise dominate — each step touches experts not used before.
    void populate(const LoadMonitor& monitor) const;
    void index(const std::vector<TensorSpec>& specs);
    // A Hugging Face FP8 / NVFP4 weight (format/hf_quant.h) is repacked once into FT_FP8 / FT_NVFP4 rows in owned
    // memory, the view then points there.
    TensorView view_of(const std::string& name, const std::vector<std::uint64_t>& want_dims, bool expert_slice,
                       std::uint64_t slice);
    // Hugging Face fused layouts (TensorSpec::hf_layout), repacked into owned GGUF-layout memory.
    TensorView repack_fused_experts(const TensorSpec& s);
    TensorView repack_fused_bias(const TensorSpec& s);
    // HfLayout::mla_k_b / mla_v_b from a kv_b matrix [n_head·(nope + v) rows, kv_lora] (F32, F16 or BF16).
    TensorView repack_mla(const TensorSpec& s, const TensorView& kv_b, const std::string& kv_b_name);
    TensorView owned_f32(const TensorView& v, const std::string& name);
    // An integer table (DeepSeek-V4's tid2eid: expert ids per token) as owned I32 [dims[1] rows, dims[0]], every
    // value checked to be an expert id.
    TensorView index_table(const TensorSpec& s);
    // HfLayout::rows (a copy in the stored type) and the value transforms norm_plus_one / neg_exp (f32).
    TensorView gather_rows(const TensorSpec& s);
    TensorView transformed_f32(const TensorSpec& s);
    // A checkpoint tensor's name as stored: `name`, or under the multimodal wrapper's "model.language_model." in
    // place of "model." (Qwen3.5's checkpoints); `name` when neither is present.
    std::string hf_name(const std::string& name) const;
    std::byte* allocate(std::size_t bytes);

    struct Owned {
        std::byte* p = nullptr;
        std::size_t n = 0;
        Owned(std::byte* p_, std::size_t n_) : p(p_), n(n_) {}
        Owned(Owned&& o) noexcept : p(o.p), n(o.n) { o.p = nullptr; }
        Owned& operator=(Owned&&) = delete;
        ~Owned();
    };

    std::filesystem::path path_;
    ModelDesc desc_;
    std::unique_ptr<gguf::Reader> gguf_;
    std::unique_ptr<safetensors::Checkpoint> hf_;
    std::map<std::string, TensorView, std::less<>> tensors_;
    std::vector<std::vector<ExpertView>> experts_;  // [layer][expert]; empty for dense layers
    std::vector<Owned> owned_;                      // repacked / converted tensors (page-aligned)
    std::unique_ptr<safetensors::QuantConfig> hf_quant_;              // a Hugging Face folder's quantization_config
    std::map<std::string, const std::byte*, std::less<>> repacked_;   // quantized HF weight → its FT_FP8/FT_NVFP4 rows
    std::uint64_t expert_bytes_ = 0, other_bytes_ = 0;
};

}  // namespace ft::model
