// The architecture registry. An architecture is its folder under model/ (model/<name>/): there it defines its
// registry entry `const Arch& <name>_arch()` — its names, the hyper-parameters it reads beyond the shared ones (from
// config.json and GGUF keys), its tensor table (model_tensors.h), its forward pass as a ModelGraph of shared blocks
// (graph.h), its conversion rules and its `ft synth` presets — and one line of arch_list.h registers it. Every list
// of architectures, Hugging Face classes, GGUF names and presets in messages and `--help` is generated from here.
// Nothing outside model/ names an architecture: the engine asks this registry.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/graph.h"
#include "model/model_desc.h"
#include "model/model_tensors.h"
#include "ref/dtype.h"

namespace ft::model {

class HfConfig;
class GgufKeys;
class GgufKeyWriter;

// A Hugging Face class an architecture reads: config.json's architectures[0], or its model_type when that is absent.
struct HfClass {
    std::string_view class_name, model_type;
};

// An `ft synth` preset: a released model's hyper-parameters (the overrides of `ft synth` change sizes and keep
// the rest).
struct SynthPreset {
    std::string_view name;  // "qwen3-30b-a3b"
    ModelDesc (*desc)();
};

struct Arch {
    ArchId id;
    std::string_view name;       // ours: "qwen3_moe"
    std::string_view gguf_name;  // GGUF general.architecture (llama.cpp's): "qwen3moe"
    std::vector<HfClass> hf;
    // false: a dense architecture, a graph without MoE blocks (every layer a dense FFN; no expert keys, expert_count
    // 0). true: expert_count must be at least 1.
    bool moe = true;
    // Hyper-parameters beyond the shared keys, which hf_config.cpp / gguf_desc.cpp read first (d.arch is set).
    void (*read_hf)(const HfConfig& cfg, ModelDesc& d) = nullptr;
    void (*read_gguf)(const GgufKeys& keys, ModelDesc& d) = nullptr;
    // What only a GGUF file's tensors tell (after the shared refinements of desc_from_gguf(Reader)).
    void (*refine_gguf)(const gguf::Reader& file, ModelDesc& d) = nullptr;
    // Keys written after the shared ones (desc_to_gguf).
    void (*write_gguf)(const ModelDesc& d, GgufKeyWriter& keys) = nullptr;
    std::vector<TensorSpec> (*tensors)(const ModelDesc&) = nullptr;  // null: described only
    ModelGraph (*graph)(const Weights&) = nullptr;                    // null: no forward pass yet
    // `ft convert`: a tensor this architecture's GGUF layout reorders (applies → rewrite, on its f32 values in GGUF
    // layout, rows of dims[0]).
    bool (*convert_rewrites)(const ModelDesc& d, const TensorSpec& s) = nullptr;
    void (*convert_rewrite)(const ModelDesc& d, const TensorSpec& s, std::vector<float>& x) = nullptr;
    // `ft synth`: the presets, what follows from the size overrides (layer patterns, rotated dims), and the weight
    // types of the released files (matrices; routed experts, nullopt: as the matrices).
    std::vector<SynthPreset> presets;
    void (*synth_fit)(ModelDesc& d) = nullptr;
    kernels::DType synth_weights = kernels::DType::Q4_K;
    std::optional<kernels::DType> synth_expert_weights = std::nullopt;
};

// The entries, each defined in its folder.
#define FT_ARCH_ENTRY(name) const Arch& name##_arch();
FT_ARCHITECTURES(FT_ARCH_ENTRY)
#undef FT_ARCH_ENTRY

// Every registered architecture, in arch_list.h's order.
std::span<const Arch* const> arch_registry();
// The entry of an architecture (every ArchId has one).
const Arch& arch_of(ArchId id);
// The architecture of a Hugging Face class name, GGUF general.architecture, or synth preset; nullptr when none.
const Arch* arch_of_hf_class(std::string_view class_name);
const Arch* arch_of_hf_model_type(std::string_view model_type);
const Arch* arch_of_gguf_name(std::string_view gguf_name);
const Arch* arch_of_preset(std::string_view preset);

// Whether the engine runs models of this architecture (it has a forward pass), and if not, why (one line for the
// UI and `ft inspect`).
bool arch_runs(ArchId id);
std::optional<std::string> arch_unsupported_reason(ArchId id);
// Lists for messages, generated from the registry: the architectures that run, by our names ("qwen3_moe,
// qwen3_5_moe, …"), by GGUF names, by Hugging Face classes; every preset.
std::string runnable_arch_names();
std::string runnable_gguf_names();
std::string runnable_hf_classes();
std::string synth_preset_names();

// Shared pieces the builders use.
// The common pre-norm decoder: token embedding; per layer the attention block (`attention`, default GQA) under
// "attn_norm", then the FFN block the architecture chooses for the layer under the norm named `ffn_norm`
// ("ffn_norm.weight", "post_attention_norm.weight"); final norm and LM head.
ModelGraph pre_norm_decoder(const Weights& w, const char* ffn_norm, const std::function<BlockBody(int il)>& ffn,
                            const std::function<BlockBody(int il)>& attention = {});
AttentionBlock gqa_attention(const Weights& w, int il);  // q/k/v/o (+ biases, q/k norms, sinks when present)
MlaAttentionBlock mla_attention(const Weights& w, int il);  // DeepSeek's latent attention
GatedDeltaNetBlock gated_delta_net(const Weights& w, int il, int rs_layer);  // linear attention (Qwen3-Next, 3.5)
FfnBlock dense_ffn(const Weights& w, int il);             // ffn_gate/up/down (+ biases when present)
MoeBlock moe_ffn(const Weights& w, int il);               // router, selection bias, routing, activation
NormRef norm_of(const Weights& w, const std::string& name);
// The routed experts' activation, and the kernels' signed limit argument for it (graph.h swiglu_limit_arg).
Activation activation(const ModelDesc& d);
float swiglu_limit_arg(const ModelDesc& d);
// Fills the geometry maxima of a finished graph (graph.h) and checks that the attention blocks share one KV layout.
void finish_graph(ModelGraph& g, const Weights& w);

}  // namespace ft::model
