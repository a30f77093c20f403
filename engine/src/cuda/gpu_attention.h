// The attention block on the GPU (model::AttentionBlock): q/k/v (one stacked GEMV/GEMM when the types allow) +
// biases, per-head q/k RMSNorm fused with RoPE, the paged KV write, split-K decode attention or flash-style prefill
// attention per sequence segment (sliding window, sinks), output projection added into the residual (+ bias).
// Engine-internal; CUDA builds only.
#pragma once

#include <cstdint>

#include "cuda/gpu_context.h"
#include "cuda/gpu_weights.h"
#include "model/block_needs.h"
#include "model/graph.h"
#include "ref/attention.h"
#include "ref/mla_attention.h"

namespace ft::gpu {

class GpuAttention {
public:
    GpuAttention(const model::AttentionBlock& b, DeviceWeights& dw);
    // x += attention(xn) for the context's batch of T tokens (decode: the captured split-K path).
    void forward(GpuContext& c, std::int64_t T, bool decode) const;
    kernels::AttentionParams params(int page_size) const;
    std::uint64_t decode_bytes() const;  // weight bytes one decode token reads
    // The packed q/k/v row width (the qkv scratch's per-token floats): with the output gate, q's rows are the query
    // then the gates (split_head_halves), 2 · qd.
    std::int64_t qkv_width() const { return model::qkv_width(b_); }

private:
    model::AttentionBlock b_;
    DeviceMatrix q_, k_, v_, o_, qkv_;
    const float* qkv_bias_ = nullptr;  // [q | k | v] biases, beside the packed rows
    const float* o_bias_ = nullptr;
    const float* q_norm_ = nullptr;
    const float* k_norm_ = nullptr;
    const float* sinks_ = nullptr;
    std::int64_t qd_ = 0, kd_ = 0, vd_ = 0;
};

// Gated DeltaNet linear attention on the GPU (model::GatedDeltaNetBlock): the projections, the gates, the causal
// conv and the delta rule on the sequences' recurrent states (the KV cache's pool of this layer: the conv windows of
// every slot, then the delta states of every slot; a sequence's slot is its KV sequence id, c.d_slot per token),
// the gated RMSNorm and out_proj added into the residual. Decode: one token per sequence through the pool-indexed
// kernels (capturable); eager: per sequence segment. A state is zeroed on the device at the sequence's position 0.
// Scratch s.lin: [qkv | conv output | z | core output | ba | beta | g], each region max_t rows.
class GpuGatedDeltaNet {
public:
    GpuGatedDeltaNet(const model::GatedDeltaNetBlock& b, DeviceWeights& dw);
    void forward(GpuContext& c, std::int64_t T, bool decode) const;
    std::uint64_t decode_bytes() const;
    // Floats per token of s.lin.
    std::int64_t scratch_width() const { return model::lin_width(b_); }

private:
    model::GatedDeltaNetBlock b_;
    DeviceMatrix qkv_, z_, beta_, alpha_, ba_, out_;
    const float* conv_ = nullptr;
    const float* dt_ = nullptr;
    const float* a_neg_ = nullptr;
    const float* norm_ = nullptr;
};

// The latent attention block on the GPU (model::MlaAttentionBlock): q (direct, or low-rank with its RMSNorm), the
// compressed KV, RoPE on the rope parts, the latent row written to the paged cache (normalized, f16 or f32), the
// absorbed query (k_b per head), latent attention (cuda/mla_attention.cuh: split over positions in decode), the
// values (v_b per head) and the output projection added into the residual. The per-head products are one grouped
// GEMV launch over (token, head) pairs for up to kGemvMaxM tokens (the captured decode step), else a cuBLAS GEMM per
// head. With the sparse-attention indexer (GLM-5): the index queries from the normalized low-rank q, the index key
// (LayerNorm with bias) and the head weights from x, RoPE on both, the key into the layer's V row (f16 or f32 as the
// cache), each token's best index_topk positions picked (cuda/compressed_attention.cuh's indexer at ratio 1, in
// chunks of kIndexChunk tokens), and the latent attention over the picks alone. Scratch: s.qkv holds [q | absorbed
// q | compressed KV | low-rank q | index q | index key | head weights] and s.att [latent outputs | values], each
// region max_t rows; s.picks [max_t, topk + 1], s.pick_scores the scores of kIndexChunk tokens.
class GpuMlaAttention {
public:
    GpuMlaAttention(const model::MlaAttentionBlock& b, DeviceWeights& dw);
    void forward(GpuContext& c, std::int64_t T, bool decode) const;
    kernels::MlaParams params(int page_size) const;
    std::uint64_t decode_bytes() const;
    std::int64_t qkv_width() const;  // floats per token of s.qkv
    std::int64_t att_width() const;  // floats per token of s.att
    int n_head() const { return b_.n_head; }
    bool has_indexer() const { return b_.idx.heads > 0; }

private:
    void index(GpuContext& c, std::int64_t T, const float* qa, float* iq, float* ik, float* iw) const;
    // y + t·ldy + h·y_head = W_h · (x + t·ldx + h·x_head) for T tokens and every head h (W_h: rows [h·rows, …)).
    // tmp: T · w.cols floats of free scratch (the GEMM path packs each head's inputs there).
    void per_head(GpuContext& c, const DeviceMatrix& w, std::int64_t rows, const float* x, std::int64_t ldx,
                  std::int64_t x_head, std::int64_t T, float* y, std::int64_t ldy, std::int64_t y_head, float* tmp) const;

    model::MlaAttentionBlock b_;
    DeviceMatrix q_, q_a_, q_b_, kv_a_, k_b_, v_b_, o_;
    DeviceMatrix idx_q_b_, idx_k_, idx_w_;
    const float* q_a_norm_ = nullptr;
    const float* kv_a_norm_ = nullptr;
    const float* idx_norm_ = nullptr;
    const float* idx_bias_ = nullptr;
    std::int64_t q_lora_ = 0;
};

// DeepSeek-V4's attention on the GPU (model::CompressedAttentionBlock; kernels in cuda/compressed_attention.cuh): the low-rank
// q with its norm and the per-head unweighted norm, the shared K = V row with its norm, RoPE on the trailing dims, the
// row into the cache (f32 rows of [kv | entry | index key]); for a CSA / HCA layer the compressor projections, the
// ring and the entries (decode: a block per token; eager: one launch per sequence segment, its tokens in order), CSA's
// indexer pick (in chunks of kIndexChunk tokens); the attention with the sinks, the conjugate RoPE, the grouped output
// (a product per group) and o_b added into x. Scratch s.compressed: regions of max_t rows (widths in region()),
// s.picks [max_t, topk + 1], s.pick_scores the indexer's scores for kIndexChunk tokens.
class GpuCompressedAttention {
public:
    static constexpr std::int64_t kIndexChunk = 256;
    GpuCompressedAttention(const model::CompressedAttentionBlock& b, int max_idx_dim, DeviceWeights& dw);
    void forward(GpuContext& c, std::int64_t T, bool decode) const;
    std::uint64_t decode_bytes() const;
    // Floats per token of s.compressed (model/block_needs.h compressed_width).
    std::int64_t scratch_width() const;
    int idx_topk() const { return b_.idx_topk; }
    int ratio() const { return b_.ratio; }
    bool csa() const { return b_.kind == model::V4LayerKind::csa; }

private:
    model::CompressedAttentionBlock b_;
    int row_ = 0;  // cache row width
    DeviceMatrix q_a_, q_b_, kv_, o_a_, o_b_, comp_kv_, comp_gate_, idx_kv_, idx_gate_, idx_q_b_, idx_w_;
    const float* q_a_norm_ = nullptr;
    const float* kv_norm_ = nullptr;
    const float* sinks_ = nullptr;
    const float* ones_ = nullptr;
    const float* comp_bias_ = nullptr;
    const float* comp_norm_ = nullptr;
    const float* idx_bias_ = nullptr;
    const float* idx_norm_ = nullptr;
};

}  // namespace ft::gpu
