// A model's forward pass as a sequence of shared blocks: what an architecture declares (model/<arch>/), and what
// each device (cpu/cpu_runner.cpp, cuda/gpu_runner.cpp) executes without knowing the architecture.
//
//   x = embed(tokens)
//   for each layer, for each block:  x += block(norm(x))        (pre-norm residual blocks)
//   logits = head(norm(x))
//
// A block is one of the shared kinds below; an architecture picks the kinds and fills their variants (biases,
// q/k norms, sinks, sliding windows, partial RoPE, routing rules, shared experts, activations). Devices implement
// blocks, not architectures: a new architecture built from existing variants costs one small folder; a new
// variant is added here, to each device's block, and to the kernels.
//
// Description only: tensor views into the mapped weights and kernel parameter values. Nothing here executes.
// Threading: immutable after build; the Weights it points into must outlive it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "model/weights.h"
#include "ref/moe_router.h"
#include "ref/rope.h"

namespace ft::model {

// y = x · Wᵀ (+ b): W [rows = out, cols = in] in its stored type, b (optional) [out].
struct LinearRef {
    const TensorView* w = nullptr;
    const TensorView* b = nullptr;
    explicit operator bool() const { return w != nullptr; }
};

// RMSNorm over the row: y = x / rms(x) · w.
struct NormRef {
    const TensorView* w = nullptr;
    float eps = 1e-6f;
};

enum class Activation {
    swiglu,        // silu(g) · u
    swiglu_oai,    // gpt-oss: g clamped to ≤ limit, u to [-limit, limit], g·sigmoid(1.702·g) · (u + 1)
    swiglu_clamp,  // DeepSeek-V4: silu(min(g, limit)) · clamp(u, ±limit)
};

// The kernels' signed limit argument for an activation (ref/swiglu.h): > 0 gpt-oss's form, < 0 the plain clamp at
// -limit, 0 plain SwiGLU.
inline float swiglu_limit_arg(Activation a, float limit) {
    return a == Activation::swiglu_oai ? limit : a == Activation::swiglu_clamp ? -limit : 0.f;
}

// A hyper-connection mixer (DeepSeek-V4, ref/hyper_connection.h): fn [rows, N·n_embd] (a block's: (2 + N)·N rows
// giving pre, post and the N×N comb; the output head's: N rows, pre only), base [rows] and scale [3] ([1]) in f32.
struct HyperMixRef {
    const TensorView* fn = nullptr;
    const TensorView* base = nullptr;
    const TensorView* scale = nullptr;
    explicit operator bool() const { return fn != nullptr; }
};

// Multi-head attention with grouped K/V heads over the paged KV cache of layer `kv_layer`.
struct AttentionBlock {
    LinearRef q, k, v, o;                 // q [n_head·head_dim, n_embd] …, o [n_embd, n_head·v_head_dim]
    const TensorView* q_norm = nullptr;   // per-head RMSNorm of q and k before RoPE (Qwen3, GLM-4.5 with qk norm)
    const TensorView* k_norm = nullptr;
    // q_norm / k_norm span all heads of a token: one RMS over q's n_head·head_dim values, one over k's (MiniMax-M2).
    bool qk_norm_whole = false;
    const TensorView* sinks = nullptr;    // [n_head]: an extra logit per head in the softmax denominator (gpt-oss)
    int n_head = 0, n_head_kv = 0, head_dim = 0, v_head_dim = 0;
    int window = 0;                       // sliding window in positions (0: the whole context)
    float scale = 1.f;                    // logit scale, usually 1 / sqrt(head_dim)
    float norm_eps = 1e-6f;               // of q_norm / k_norm
    kernels::RopeParams rope;             // n_rot < head_dim: partial rotary
    int kv_layer = 0;                     // the KV cache layer this block reads and writes
    // Gated attention (Qwen3.5, Qwen3-Next): q's rows are [query (head_dim) | gate (head_dim)] per head, and the
    // attention output of each head is multiplied by sigmoid(gate) before o.
    bool output_gate = false;
};

// Gated DeltaNet linear attention (Qwen3-Next, Qwen3.5/3.6; ref/gated_delta.h for the kernels). For each token:
//   [q | k | v] = causal_conv1d_silu(qkv(x))   (a depthwise conv of conv_kernel taps over time, per channel)
//   beta = sigmoid(b(x)),  g = a_neg · softplus(a(x) + dt_bias)          (per value head; a_neg = -exp(A_log) < 0)
//   o = gated_delta(l2norm(q), l2norm(k), v, g, beta)                     (recurrent state [n_v, dk, dv] per sequence)
//   out = out_proj(rms_norm(o) · norm · silu(z(x)))                       (per value head, z: the output gate)
// The conv window and the delta state of each sequence live in the KV cache's recurrent-state pool
// (kv::KvCache::state) under rs_layer. b and a come as two projections (beta, alpha: [b | a]) or Qwen3-Next's
// fused ba, whose rows are per key head [b (R) | a (R)], R = n_v_heads / n_k_heads.
struct GatedDeltaNetBlock {
    LinearRef qkv;                        // [2·n_k·dk + n_v·dv, n_embd]
    LinearRef z;                          // [n_v·dv, n_embd]
    LinearRef beta, alpha;                // [n_v, n_embd] each (Qwen3.5), or
    LinearRef ba;                         // [2·n_v, n_embd] grouped per key head (Qwen3-Next)
    const TensorView* conv = nullptr;     // [conv_dim rows, conv_kernel] f32
    const TensorView* dt_bias = nullptr;  // [n_v] f32
    const TensorView* a_neg = nullptr;    // [n_v] f32: -exp(A_log)
    const TensorView* norm = nullptr;     // [dv]: the gated RMSNorm's weight (plain, not zero-centred)
    LinearRef out;                        // [n_embd, n_v·dv]
    int n_k_heads = 0, n_v_heads = 0, dk = 0, dv = 0, conv_kernel = 0;
    bool v_tiled = false;                 // value head h reads key head h % n_k (else h / (n_v / n_k))
    float norm_eps = 1e-6f;
    int rs_layer = 0;                     // the recurrent-state layer this block reads and writes
    int key_dim() const { return n_k_heads * dk; }
    int value_dim() const { return n_v_heads * dv; }
    int conv_dim() const { return 2 * key_dim() + value_dim(); }
    std::int64_t state_floats() const {  // per sequence: the conv window, then the delta state
        return std::int64_t(conv_dim()) * (conv_kernel - 1) + std::int64_t(n_v_heads) * dk * dv;
    }
};

// Multi-head latent attention (DeepSeek-V2/V3). The query comes directly (q) or through a low rank (q_a → q_a_norm →
// q_b), [n_head, nope + rope_dim] per token; the shared compressed KV kv_a(x) = [latent (kv_lora) | k_pe (rope_dim)].
// The cache keeps, per position, the normalized latent and the rotated k_pe — kv_lora + rope_dim values, one "KV
// head" — not per-head K/V. Run absorbed: head h's query enters the latent space through k_b[h]
// (q_lat = k_b[h] · q_nope), attention reads the latent rows (ref/mla_attention.h: the value is the latent), and
// v_b[h] takes each head's latent output to its value, then the output projection.
struct MlaAttentionBlock {
    LinearRef q;                          // q_lora 0: [n_head·(nope + rope_dim), n_embd]
    LinearRef q_a, q_b;                   // else q_a [q_lora, n_embd], q_b [n_head·(nope + rope_dim), q_lora]
    NormRef q_a_norm;
    LinearRef kv_a;                       // [kv_lora + rope_dim, n_embd]
    NormRef kv_a_norm;                    // [kv_lora]
    const TensorView* k_b = nullptr;      // n_head stacked [kv_lora, nope]
    const TensorView* v_b = nullptr;      // n_head stacked [v_head_dim, kv_lora]
    LinearRef o;                          // [n_embd, n_head·v_head_dim]
    int n_head = 0, nope = 0, rope_dim = 0, kv_lora = 0, v_head_dim = 0;
    float scale = 1.f;                    // 1/sqrt(nope + rope_dim), times YaRN's mscale² when the model says so
    kernels::RopeParams rope;             // n_rot = rope_dim over the rope part of each head (head_dim set at use)
    int kv_layer = 0;
    // DeepSeek sparse attention (GLM-5; heads 0: none, every cached position is read). A lightning indexer picks, per
    // query, the `topk` cached positions the attention reads (all of them when there are no more):
    //   qi = q_b(qr) [heads, dim] with qr the normalized low-rank query, ki = LayerNorm(k(x)) [dim] (weight and
    //   bias), RoPE on the first rope.n_rot dims of each; w = weights(x) [heads] / sqrt(heads · dim);
    //   score(j) = Σ_h w_h · relu(qi_h · ki_j), the best topk positions j ≤ pos kept.
    // The index key ki of each position is cached in the V row of the layer (the latent attention reads K only).
    struct Indexer {
        LinearRef q_b, k, weights;            // [heads·dim, q_lora], [dim, n_embd], [heads, n_embd]
        const TensorView* k_norm = nullptr;   // [dim]
        const TensorView* k_norm_bias = nullptr;
        float k_norm_eps = 1e-6f;
        int heads = 0, dim = 0, topk = 0;
        kernels::RopeParams rope;             // head_dim = dim
    };
    Indexer idx;
    int q_dim() const { return nope + rope_dim; }
    int kv_dim() const { return kv_lora + rope_dim; }
};

// DeepSeek-V4's attention (model_desc.h V4Desc; ref/compressed_attention.h for the kernels). Per token:
//   q = rms(q_b(rms_norm(q_a(x)) = qr)) per head (unweighted), kv = kv_norm(kv(x)) — one head, both key and value;
//   RoPE (interleaved pairs) on the trailing rope_dim of each; the kv row into the cache.
//   csa / hca: comp.kv(x), comp.gate(x) (csa: 2·head_dim wide, [Ca | Cb]) into the sequence's window ring; when a
//   window of `ratio` tokens closes, its entry = norm(Σ softmax(gate + bias) ⊙ kv) over the window (csa: window
//   w's Cb and window w-1's Ca, 2·ratio slots), RoPE at the window's first position, into the cache row of the
//   window's last position. csa's indexer does the same at idx.dim, and picks per query the idx_topk entries of
//   best Σ_h w_h(x) · relu(q_h · k) with q = idx_q_b(qr) (RoPE'd), w = idx_weights(x) / sqrt(idx_heads).
//   attention of q over the window's kv rows and the entries (hca: all closed; csa: the picked), plus the sink;
//   the conjugate RoPE on each head's output, o_b(o_a per group).
// The cache row of a position (one "KV head" of row_width()): [kv (head_dim) | entry (head_dim) | index key
// (idx.dim)]. The window rings live in the recurrent-state pool under rs_layer (csa: 2·ratio slots of
// [kv | gate | index kv | index gate], each 2 × head_dim and 2 × idx.dim; hca: ratio slots of [kv | gate]).
struct CompressedAttentionBlock {
    struct Compressor {
        LinearRef kv, gate;                 // [width, n_embd], width = dim (hca) or 2·dim (csa)
        const TensorView* bias = nullptr;   // [ratio rows, width] f32: added to the gate per slot of the window
        NormRef norm;                       // [dim]
        int dim = 0;
    };
    LinearRef q_a, q_b, kv, o_a, o_b;       // o_a [o_groups·o_lora, n_head·head_dim / o_groups]
    NormRef q_a_norm, kv_norm;
    const TensorView* sinks = nullptr;      // [n_head]
    int n_head = 0, head_dim = 0, rope_dim = 0, o_groups = 0, o_lora = 0, window = 0;
    float scale = 1.f, norm_eps = 1e-6f;    // logit scale 1/sqrt(head_dim); q's per-head norm
    kernels::RopeParams rope;               // of q and kv (sliding layers: the main rope; else the compressed one)
    kernels::RopeParams comp_rope;          // of the entries and the indexer's q
    V4LayerKind kind = V4LayerKind::sliding;
    int ratio = 0;                          // tokens per entry (0: sliding)
    Compressor comp, idx;                   // idx: csa only
    LinearRef idx_q_b, idx_weights;         // [idx_heads·idx.dim, q_lora], [idx_heads, n_embd]
    int idx_heads = 0, idx_topk = 0;
    int kv_layer = 0, rs_layer = -1;        // rs_layer -1: sliding (no ring)
    int row_width(int max_idx_dim) const { return 2 * head_dim + max_idx_dim; }
    std::int64_t ring_stride() const {      // floats per ring slot
        return kind == V4LayerKind::csa ? 4 * std::int64_t(head_dim) + 4 * std::int64_t(idx.dim) : 2 * std::int64_t(head_dim);
    }
    std::int64_t state_floats() const {     // per sequence
        return kind == V4LayerKind::csa ? 2 * std::int64_t(ratio) * ring_stride()
               : kind == V4LayerKind::hca ? std::int64_t(ratio) * ring_stride() : 0;
    }
};

// A dense gated FFN: down(act(gate(x), up(x))).
struct FfnBlock {
    LinearRef gate, up, down;
    Activation act = Activation::swiglu;
    float limit = 0.f;  // swiglu_oai clamp
};

// The one MoE entry point: router → top-k experts → Σ weight · expert(x), plus optional shared experts. The routed
// experts are Weights::expert(layer, e); where they run (VRAM, expert cache, CPU) is the device's business.
struct MoeBlock {
    int layer = 0;                              // the model layer (expert store key: layer · n_expert + e)
    LinearRef router;                           // [n_expert, n_embd] (+ bias: gpt-oss)
    const TensorView* selection_bias = nullptr; // [n_expert] added to the scores for the choice only (DeepSeek-V3, GLM)
    kernels::RouterParams route;                // gating, k, normalisation, groups, routed scaling (bias left null)
    Activation act = Activation::swiglu;
    float limit = 0.f;
    bool expert_biases = false;                 // each routed expert has gate/up/down biases (gpt-oss)
    FfnBlock shared;                            // shared expert(s) on every token (gate.w null: none)
    const TensorView* shared_gate = nullptr;    // [n_embd]: the shared output times sigmoid(x · shared_gate) (Qwen)
    const TensorView* hash = nullptr;           // [n_vocab rows, k] i32: the experts of each token id, in place of
                                                // the top-k (DeepSeek-V4's hash layers; the weights still gated)
};

// The kinds of block. Code that acts per kind dispatches with std::visit and one case per kind (block_visit.h), so a
// kind added here is a compile error wherever it is not handled yet.
using BlockBody =
    std::variant<AttentionBlock, MlaAttentionBlock, GatedDeltaNetBlock, CompressedAttentionBlock, FfnBlock, MoeBlock>;

// A pre-norm residual block: x += body(norm(x)); with hyper-connections (ModelGraph::hc_mult > 0) the residual is
// hc_mult streams X[N, n_embd] per token and the block X ← post ⊗ body(norm(Σ pre_j X_j)) + combᵀ X, its mixer `hc`.
struct Block {
    NormRef norm;
    BlockBody body;
    HyperMixRef hc;
};

struct Layer {
    std::vector<Block> blocks;
};

struct ModelGraph {
    const TensorView* token_embd = nullptr;  // [n_vocab rows, n_embd]
    std::vector<Layer> layers;
    NormRef output_norm;
    const TensorView* output = nullptr;      // LM head [n_vocab, n_embd] (the embedding when tied)
    std::int64_t n_embd = 0, n_vocab = 0;
    int n_kv_layers = 0;                     // KV cache layers (attention blocks)
    int n_rs_layers = 0;                     // recurrent-state layers (Gated DeltaNet blocks)
    std::int64_t rs_floats = 0;              // f32 values of one sequence's state in one such layer (the largest)
    std::int64_t rs_conv_floats = 0;         // of which the conv window (the rest is the delta-rule state)
    int max_linear_value_dim = 0;            // Gated DeltaNet: the widest out_proj input (n_v_heads · v_head_dim)
    // Hyper-connections (DeepSeek-V4): the residual streams per token (0: a plain residual), the Sinkhorn
    // iterations and epsilon of the mixers, and the output head's mixer that collapses the streams before output_norm.
    int hc_mult = 0, hc_sinkhorn_iters = 0;
    float hc_eps = 0.f;
    HyperMixRef hc_head;
    int max_idx_dim = 0;                     // DeepSeek-V4: the widest indexer head (the cache row's last part)
    bool kv_rows_f32 = false;                // some block's GPU kernels read and write f32 KV rows only
                                             // (compressed attention): no f16 KV on the GPU

    // Geometry the devices size their buffers by (maxima over the blocks). The KV layout: n_head_kv heads of
    // head_dim (K) and v_head_dim (V) per position; an MLA model's is one row of kv_lora + rope_dim and no V.
    int max_n_head = 0, max_n_head_kv = 0, max_head_dim = 0, max_v_head_dim = 0;
    std::int64_t max_ffn = 0;      // dense / shared-expert FFN width
    std::int64_t n_ff_exp = 0;     // routed expert FFN width
    int n_expert = 0, n_expert_used = 0;
};

// The model's graph, built by its architecture (model/arch.h). Throws ft::Error(unsupported) for an architecture
// that is described but has no forward pass yet, naming it.
ModelGraph build_graph(const Weights& w);

// Whether any attention block has sinks (gpt-oss, DeepSeek-V4).
bool graph_has_sinks(const ModelGraph& g);

}  // namespace ft::model
