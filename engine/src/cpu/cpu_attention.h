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
    std::vector<float> q, k, v, att;
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

}  // namespace ft::cpu
