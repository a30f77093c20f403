// The normalized model description: one value type for every supported MoE architecture, filled from a GGUF file's
// metadata (gguf_desc.cpp) or a Hugging Face config.json (hf_config.cpp), and written back as GGUF keys for files we
// produce. Architecture specifics beyond these fields live in the architecture's folder (model/<arch>/).
//
// Errors: a missing required key or field, an unknown architecture, or a value of the wrong type or out of range
// throws ft::Error naming the file and the key (invalid_file / not_found / unsupported). Threading: plain values.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "model/arch_list.h"
#include "ref/dtype.h"

namespace ft::gguf {
class Metadata;
class Reader;
}

namespace ft::model {

// Canonical architecture ids, one per line of the registry (arch_list.h); their names, GGUF and Hugging Face names
// live in each architecture's registry entry (arch.h).
#define FT_ARCH_ENUMERATOR(name) name,
enum class ArchId { FT_ARCHITECTURES(FT_ARCH_ENUMERATOR) };
#undef FT_ARCH_ENUMERATOR

enum class Gating {
    softmax,         // softmax over all experts, then top-k (Qwen3-MoE, Qwen3.5, DeepSeek-V2)
    sigmoid,         // sigmoid scores, top-k on score + correction bias (DeepSeek-V3, GLM-4.5)
    softmax_weight,  // top-k on logits, softmax over the k selected (gpt-oss)
    sqrtsoftplus,    // sqrt(softplus) scores, top-k on score + correction bias (DeepSeek-V4)
};

enum class RopeType {
    norm,  // rotate adjacent pairs (x[2i], x[2i+1]) — llama, DeepSeek (rope_interleave)
    neox,  // rotate halves (x[i], x[i + d/2]) — Qwen, GLM, gpt-oss
};

enum class RopeScaling { none, linear, yarn };

struct RopeDesc {
    RopeType type = RopeType::neox;
    double theta = 10000.0;
    std::uint32_t n_rot = 0;        // rotated dims per head (partial rotary: < head dim)
    RopeScaling scaling = RopeScaling::none;
    double factor = 1.0;
    std::uint32_t original_context = 0;  // yarn / linear: the pre-training context
    // YaRN (only meaningful when scaling == yarn)
    double yarn_beta_fast = 32.0, yarn_beta_slow = 1.0;
    double yarn_log_multiplier = 0.0;  // DeepSeek's mscale_all_dim * 0.1 (GGUF rope.scaling.yarn_log_multiplier)
    // Extra multiplier of cos/sin on top of YaRN's own 0.1·ln(factor) + 1 (GGUF rope.scaling.attn_factor; from HF
    // `attention_factor` a / (0.1·ln(factor) + 1), so that the product is a). The magnitude a runner applies with
    // YaRN is attn_factor · (0.1·ln(factor) + 1): gpt-oss 1 · 1.3466 (HF and llama.cpp agree).
    double attn_factor = 1.0;
    // YaRN's ramp ends: floor/ceil of the correction dims when true (llama.cpp always; HF unless
    // rope_scaling.truncate is false, as in gpt-oss, whose reference does not round them).
    bool yarn_truncate = true;
    // Qwen3.5's multimodal RoPE sections (pairs per position stream); text positions make it plain NeoX. Kept to
    // write llama.cpp's rope.dimension_sections.
    std::vector<std::uint32_t> sections;
};

struct AttentionDesc {
    std::uint32_t n_head = 0;
    std::uint32_t n_head_kv = 0;
    std::uint32_t head_dim = 0;   // key length per head (for MLA: qk_nope + qk_rope)
    std::uint32_t v_head_dim = 0; // value length per head
    bool qk_norm = false;         // per-head RMSNorm on q and k (Qwen3, Qwen3.5, GLM-4.5 355B)
    bool qkv_bias = false;        // gpt-oss, GLM-4.5 (q/k/v biases: attn_{q,k,v}.bias)
    bool o_bias = false;          // gpt-oss (attn_output.bias); GLM-4.5 has none
    bool sinks = false;           // gpt-oss attention sinks (attn_sinks.weight, one logit per query head)
    // Sliding window: window size and the layers that use it (empty = none). gpt-oss alternates.
    std::uint32_t sliding_window = 0;
    std::vector<bool> swa_layers;
    // Multi-head latent attention (DeepSeek-V3); zero when not MLA.
    std::uint32_t q_lora_rank = 0;
    std::uint32_t kv_lora_rank = 0;
    std::uint32_t qk_nope_head_dim = 0;
    std::uint32_t qk_rope_head_dim = 0;
    bool is_mla() const noexcept { return kv_lora_rank != 0; }
    // DeepSeek sparse attention (GLM-5, transformers' glm_moe_dsa): a lightning indexer of index_n_heads heads of
    // index_head_dim scores every cached position per query, and the latent attention reads only the index_topk
    // best. Zero heads: none.
    std::uint32_t index_n_heads = 0, index_head_dim = 0, index_topk = 0;
    bool has_indexer() const noexcept { return index_n_heads != 0; }
    // Gated attention (Qwen3.5 / Qwen3-Next): q_proj emits [query | gate] per head (2 · head_dim rows per head) and
    // the attention output is multiplied by sigmoid(gate) before o_proj.
    bool output_gate = false;
};

// Gated DeltaNet linear attention (Qwen3-Next, Qwen3.5/3.6): the layers marked in `layers` run it in place of
// softmax attention. The mixed projection gives [q (n_k_heads · k_head_dim) | k (same) | v (n_v_heads ·
// v_head_dim)], a depthwise causal conv of conv_kernel taps over those channels, then the gated delta rule with a
// recurrent state [n_v_heads, k_head_dim, v_head_dim] per sequence; the output goes through a gated RMSNorm (z)
// and out_proj. v_tiled: value head h belongs to key head h % n_k_heads (llama.cpp's qwen35moe files, whose
// converter reorders the value heads that way); else h / (n_v_heads / n_k_heads) (Hugging Face, qwen3next files).
struct LinearAttnDesc {
    std::uint32_t n_k_heads = 0, n_v_heads = 0, k_head_dim = 0, v_head_dim = 0, conv_kernel = 0;
    bool v_tiled = false;
    std::vector<bool> layers;  // [n_layer]: true for a linear-attention layer; empty: none
    bool any() const { return !layers.empty(); }
    bool is_linear(std::uint32_t il) const { return il < layers.size() && layers[il]; }
    std::uint32_t key_dim() const { return n_k_heads * k_head_dim; }
    std::uint32_t value_dim() const { return n_v_heads * v_head_dim; }
    std::uint32_t conv_dim() const { return 2 * key_dim() + value_dim(); }
    // f32 values of one sequence's recurrent state in one layer: the conv window and the delta-rule state.
    std::uint64_t state_floats() const {
        return std::uint64_t(conv_dim()) * (conv_kernel - 1) + std::uint64_t(n_v_heads) * k_head_dim * v_head_dim;
    }
    std::uint32_t n_linear() const {
        std::uint32_t n = 0;
        for (bool b : layers) n += b;
        return n;
    }
};

// DeepSeek-V4 (HF deepseek_v4): manifold-constrained hyper-connections (hc_mult residual streams, mixed in and out
// of every block by weights from a small projection, the stream mixing made doubly stochastic by Sinkhorn-Knopp),
// shared-KV multi-query attention (one K = V head of head_dim) over a sliding window, plus per layer kind:
//   sliding: the window only;
//   csa (compressed sparse attention): every csa_ratio tokens one compressed entry, a softmax-gated sum over two
//        overlapping windows (2·csa_ratio tokens), of which a lightning indexer (index_n_heads heads of
//        index_head_dim over its own compressed keys) picks the index_topk best per query;
//   hca (heavily compressed attention): every hca_ratio tokens one entry over a window of its own, all attended.
// Per-head attention sinks, partial interleaved RoPE on the trailing rope dims (plain `rope` for sliding layers,
// `compress_rope` — YaRN — for the compressed ones and their compressors), the conjugate rotation on the output,
// and a grouped low-rank output projection (o_groups groups → o_lora_rank each → n_embd). The first n_hash_layers
// MoE layers choose experts by token id (a tid2eid table), the others by sqrt(softplus) + correction bias.
enum class V4LayerKind : std::uint8_t { sliding, csa, hca };
struct V4Desc {
    std::uint32_t hc_mult = 0;  // 0: not DeepSeek-V4
    std::uint32_t hc_sinkhorn_iters = 20;
    double hc_eps = 1e-6;
    std::vector<V4LayerKind> layers;  // [n_layer]
    std::uint32_t csa_ratio = 4, hca_ratio = 128;
    std::uint32_t o_groups = 0, o_lora_rank = 0;
    std::uint32_t index_n_heads = 0, index_head_dim = 0, index_topk = 0;
    std::uint32_t n_hash_layers = 0;
    RopeDesc compress_rope;
    bool any() const noexcept { return hc_mult != 0; }
    V4LayerKind kind(std::uint32_t il) const { return il < layers.size() ? layers[il] : V4LayerKind::sliding; }
    std::uint32_t ratio(std::uint32_t il) const {
        const V4LayerKind k = kind(il);
        return k == V4LayerKind::csa ? csa_ratio : k == V4LayerKind::hca ? hca_ratio : 0;
    }
    std::uint32_t n_compressed() const {
        std::uint32_t n = 0;
        for (V4LayerKind k : layers) n += k != V4LayerKind::sliding;
        return n;
    }
};
std::string_view v4_layer_kind_name(V4LayerKind k);  // "sliding", "csa", "hca"

struct MoeDesc {
    std::uint32_t n_expert = 0;
    std::uint32_t n_expert_used = 0;     // experts per token (top-k)
    std::uint32_t n_ff_exp = 0;          // routed expert FFN size
    std::uint32_t n_shared_expert = 0;   // shared experts (DeepSeek, GLM, Qwen2-MoE style)
    std::uint32_t n_ff_shexp = 0;        // total shared-expert FFN size (n_shared_expert × per-expert size)
    Gating gating = Gating::softmax;
    bool norm_topk_prob = false;         // renormalize the k selected weights to sum 1
    double routed_scaling_factor = 1.0;
    std::uint32_t n_group = 0;           // grouped top-k (DeepSeek-V3): groups, and groups kept per token
    std::uint32_t topk_group = 0;
    bool correction_bias = false;        // e_score_correction_bias / exp_probs_b (selection only, not the weight)
    bool shared_gate = false;            // Qwen2/3.5-MoE: the shared expert's output times sigmoid(x · gate)
    bool router_bias = false;            // gpt-oss router bias (ffn_gate_inp.bias, added to the logits)
    bool expert_bias = false;            // gpt-oss: biases of the routed experts' gate, up and down projections
    // Which layers are MoE: layer il is dense when il < first_k_dense, or (il - first_k_dense) % moe_every != 0,
    // or il is listed in dense_layers.
    std::uint32_t first_k_dense = 0;
    std::uint32_t moe_every = 1;
    std::vector<std::uint32_t> dense_layers;
};

struct ModelDesc {
    ArchId arch = ArchId::qwen3_moe;
    std::string source;  // the file or folder it was read from (for messages)
    std::string name;    // general.name / folder name
    std::uint32_t n_layer = 0;
    std::uint32_t n_embd = 0;
    std::uint32_t n_vocab = 0;
    std::uint32_t n_ctx_train = 0;
    std::uint32_t n_ff = 0;  // dense FFN size (dense layers); 0 when every layer is MoE and none is given
    double norm_eps = 1e-6;
    bool tied_embeddings = false;
    // GLM-4.5 MTP layers, stored after the n_layer decoder layers (GGUF block_count = n_layer + these; HF config
    // num_hidden_layers = n_layer). Not run: their tensors are listed (layer >= n_layer) but never loaded.
    std::uint32_t nextn_predict_layers = 0;
    // Activation of the routed experts (ref/swiglu.h). swiglu_limit > 0 selects gpt-oss's form: g = min(gate, limit),
    // u = clamp(up, ±limit), out = g·σ(swiglu_alpha·g)·(u + 1); with swiglu_alpha 0 (DeepSeek-V4, its shared experts
    // too) silu(min(gate, limit))·clamp(up, ±limit). 0: plain SwiGLU silu(gate)·up.
    double swiglu_limit = 0.0;
    double swiglu_alpha = 0.0;               // gpt-oss 1.702; 0 when swiglu_limit is 0
    AttentionDesc attn;
    LinearAttnDesc linear;
    V4Desc v4;
    MoeDesc moe;
    RopeDesc rope;

    bool layer_is_moe(std::uint32_t il) const;
    std::uint32_t n_moe_layers() const;
};

// Names (from the registry, arch.h).
std::string_view arch_name(ArchId a);       // "qwen3_moe"
std::string_view arch_gguf_name(ArchId a);  // general.architecture: "qwen3moe", "deepseek2", …
std::optional<ArchId> arch_from_name(std::string_view ours);  // "qwen3_moe" (also accepts "qwen3moe")
std::string_view gating_name(Gating g);
std::string_view rope_type_name(RopeType t);
std::string_view rope_scaling_name(RopeScaling s);

// Checks internal consistency (non-zero sizes, k <= n_expert, heads divide, …). Throws invalid_file naming
// `desc.source` and the field.
void validate(const ModelDesc& desc);

// From GGUF metadata. `md.source()` names the file in errors. Throws unsupported for an architecture that is not
// registered (the message names general.architecture and lists the supported ones), not_found for a missing
// required key.
ModelDesc desc_from_gguf(const gguf::Metadata& md);
// From a GGUF file: the metadata, refined by what only the tensors tell — tied embeddings (no output.weight), dense
// layers inside the MoE stack (a block without ffn_gate_inp; GGUF has no key for Qwen3's mlp_only_layers), and the
// routing correction bias (exp_probs_b). A file without tensors (vocab-only) gives the metadata's description.
ModelDesc desc_from_gguf(const gguf::Reader& file);
// Writes general.architecture and every `<arch>.*` hyper-parameter key llama.cpp reads for this architecture.
void desc_to_gguf(const ModelDesc& desc, gguf::Metadata& md);

// From a Hugging Face folder (config.json; generation_config.json is not needed for the description) or from a
// parsed config.json. `source` names the file in errors. An architecture that is not registered throws unsupported
// naming it and listing the supported Hugging Face classes.
ModelDesc desc_from_hf_dir(const std::filesystem::path& dir);
ModelDesc desc_from_hf_config(const nlohmann::json& config, const std::string& source);

nlohmann::json desc_to_json(const ModelDesc& desc);

// Size accounting from the actual tensors of a file.
struct TensorStat {
    std::string name;                     // GGUF or HF name
    std::vector<std::uint64_t> dims;      // as stored (GGUF: innermost first; HF: outermost first)
    kernels::DType type = kernels::DType::F32;
    std::uint64_t n_elements = 0;
    std::uint64_t n_bytes = 0;
};
enum class TensorClass { routed_expert, shared_expert, other };
// Routed experts: GGUF "*_exps*" tensors; HF "*.experts.*" (not shared_experts). Shared: "*_shexp*", "shared_expert".
TensorClass classify_tensor(std::string_view name);

// The layer of a tensor from its name ("blk.3.…", "model.layers.3.…"); -1 for global tensors.
int tensor_layer(std::string_view name);

// Tensors of layers past desc->n_layer (GLM's MTP layers) are left out of every figure but unused_*.
struct SizeReport {
    std::uint64_t total_params = 0;
    std::uint64_t active_params = 0;      // non-expert + routed expert params × n_expert_used / n_expert
    std::uint64_t expert_pool_bytes = 0;  // routed experts, all layers
    std::uint64_t non_expert_bytes = 0;   // everything else (attention, norms, router, shared experts, embeddings)
    std::uint64_t expert_bytes_per_expert = 0;  // one (layer, expert): pool / (MoE layers × n_expert)
    std::uint64_t unused_params = 0, unused_bytes = 0;  // MTP layers kept in the file, never loaded
};
SizeReport measure(const ModelDesc* desc, std::span<const TensorStat> tensors);

}  // namespace ft::model
