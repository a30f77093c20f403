// The attention block on the CPU (model::AttentionBlock): q/k/v projections (+ biases), per-head q/k RMSNorm,
// RoPE (partial, YaRN), K/V into the paged cache, causal attention (sliding window, sinks), output projection
// (+ bias). One object per block holds its f32 norms, biases and sinks; the scratch is shared.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cpu/worker_pool.h"
#include "exec/runner.h"
#include "kv/kv_cache.h"
#include "model/graph.h"

namespace ft::cpu {

struct AttentionScratch {
    std::vector<float> q, k, v, att, gate;  // gate: gated attention's per-head output gates
    std::vector<float> lat, head_in, head_out;  // MLA: latent outputs, one head's rows gathered / computed
    std::vector<std::int32_t> pos;
};

class CpuAttention {
public:
    CpuAttention(const model::AttentionBlock& b, WorkerPool& pool);
    // out[T, n_embd] = attention of x[T, n_embd] (already normalized).
    void forward(std::span<const exec::BatchToken> batch, const float* x, kv::KvCache& kv, AttentionScratch& s, float* out);

private:
    const model::AttentionBlock& b_;
    WorkerPool& pool_;
    std::vector<float> q_norm_, k_norm_, q_bias_, k_bias_, v_bias_, o_bias_, sinks_;
};

// Gated DeltaNet linear attention on the CPU (model::GatedDeltaNetBlock): the projections, the causal conv and the
// delta rule per sequence segment on the sequence's recurrent state (the KV cache's pool: conv windows of every
// slot, then delta states of every slot; reset at position 0), the gated RMSNorm and out_proj.
class CpuGatedDeltaNet {
public:
    CpuGatedDeltaNet(const model::GatedDeltaNetBlock& b, WorkerPool& pool);
    void forward(std::span<const exec::BatchToken> batch, const float* x, kv::KvCache& kv, float* out);

private:
    const model::GatedDeltaNetBlock& b_;
    WorkerPool& pool_;
    std::vector<float> conv_, dt_, a_neg_, norm_;
    std::vector<float> qkv_, qkvc_, z_, ba_, tmp_, beta_, g_, o_, y_;
};

// The latent attention block on the CPU (model::MlaAttentionBlock): q (direct or low-rank with its norm), the
// compressed KV with its norm, RoPE on the rope parts, the latent row into the paged cache (one "KV head" of
// kv_lora + rope_dim), the absorbed query through k_b per head, latent attention, v_b per head, output projection.
// With the sparse-attention indexer (GLM-5): the index key of each token into the layer's V row, and a token with
// more positions than the indexer keeps attends over the ones it picks only.
class CpuMlaAttention {
public:
    CpuMlaAttention(const model::MlaAttentionBlock& b, WorkerPool& pool);
    void forward(std::span<const exec::BatchToken> batch, const float* x, kv::KvCache& kv, AttentionScratch& s, float* out);

private:
    // For every token t and head h: y + t·ldy + h·y_head [rows] = W_h · (x + t·ldx + h·x_head [W.cols]), W_h the
    // rows [h·rows, (h + 1)·rows) of w.
    void per_head(const model::TensorView& w, int rows, const float* x, std::int64_t ldx, std::int64_t x_head,
                  std::int64_t T, float* y, std::int64_t ldy, std::int64_t y_head, AttentionScratch& s);

    // The indexer: the batch's index keys into the cache, then per token the positions it reads, ascending, in
    // picks_[t] (empty: all up to its own). qr: the normalized low-rank query [T, q_lora].
    void index(std::span<const exec::BatchToken> batch, const float* x, const float* qr, kv::KvCache& kv,
               const std::int32_t* pos);

    const model::MlaAttentionBlock& b_;
    WorkerPool& pool_;
    std::vector<float> q_a_norm_, kv_a_norm_;
    std::vector<float> idx_norm_, idx_bias_, iq_, ik_, iw_, keys_, scores_, gather_;
    std::vector<std::vector<std::int32_t>> picks_;  // per token of the batch (empty: every position)
    std::vector<std::int32_t> table_;               // the gathered rows' page table: 0, 1, …
};

// DeepSeek-V4's attention on the CPU (model::CompressedAttentionBlock): the low-rank q with its per-head norm, the
// shared K = V row with its norm, RoPE on the trailing dims, the row into the cache; for a CSA / HCA layer the
// compressor (and CSA's indexer) through the sequence's window ring, an entry into the cache row of each window's last
// position; attention over the window and the entries (CSA: the indexer's pick) with the sinks; the conjugate RoPE,
// the grouped output. Tokens of a sequence are processed in position order (the rings need it).
class CpuCompressedAttention {
public:
    CpuCompressedAttention(const model::CompressedAttentionBlock& b, int max_idx_dim, WorkerPool& pool);
    void forward(std::span<const exec::BatchToken> batch, const float* x, kv::KvCache& kv, float* out);

private:
    // One closed window's entry of the compressor c (csa: with the previous window's first half) from the ring of
    // sequence `seq`, normalized and rotated, into out[c.dim].
    void entry(const model::CompressedAttentionBlock::Compressor& c, const std::vector<float>& bias,
               const std::vector<float>& norm, const float* ring, std::int64_t window, int kv_off, int gate_off,
               float* out);

    const model::CompressedAttentionBlock& b_;
    WorkerPool& pool_;
    int row_ = 0;  // cache row width
    std::vector<float> q_a_norm_, kv_norm_, sinks_, comp_bias_, comp_norm_, idx_bias_, idx_norm_;
    std::vector<float> qr_, q_, kvr_, ck_, cg_, ik_, ig_, iq_, iw_, att_, oa_, in_, tmp_, slots_kv_, slots_gate_;
    std::vector<std::int32_t> pos_, neg_pos_;
};

}  // namespace ft::cpu
