// The attention half of a decoder layer on the CPU, shared by the architectures that use plain GQA attention
// (Qwen3-MoE, Mixtral, OLMoE, gpt-oss …): q/k/v projections (+ optional biases and per-head q/k RMSNorm), RoPE,
// K/V into the paged cache, causal attention, output projection.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cpu/worker_pool.h"
#include "kv/kv_cache.h"
#include "model/runner.h"
#include "model/weights.h"
#include "ref/rope.h"

namespace ft::model {

class CpuAttention {
public:
    CpuAttention(const Weights& w, cpu::WorkerPool& pool);
    // out[T, n_embd] = attention of x[T, n_embd] (already normalized) for layer il.
    void forward(int il, std::span<const BatchToken> batch, const float* x, kv::KvCache& kv, float* out);
    kv::KvGeometry kv_geometry(int page_size, std::int64_t n_pages) const;

private:
    const Weights& w_;
    cpu::WorkerPool& pool_;
    kernels::RopeParams rope_;
    int n_head_, n_head_kv_, head_dim_, v_head_dim_;
    float eps_;
    std::vector<std::vector<float>> q_norm_, k_norm_;  // per layer, empty when the model has none
    std::vector<float> q_, k_, v_, att_;
    std::vector<std::int32_t> pos_;
};

}  // namespace ft::model
