// The attention block on the GPU (model::AttentionBlock): q/k/v (one stacked GEMV/GEMM when the types allow) +
// biases, per-head q/k RMSNorm fused with RoPE, the paged KV write, split-K decode attention or flash-style prefill
// attention per sequence segment (sliding window, sinks), output projection added into the residual (+ bias).
// Engine-internal; CUDA builds only.
#pragma once

#include <cstdint>

#include "cuda/gpu_context.h"
#include "cuda/gpu_weights.h"
#include "model/graph.h"
#include "ref/attention.h"

namespace ft::gpu {

class GpuAttention {
public:
    GpuAttention(const model::AttentionBlock& b, DeviceWeights& dw);
    // x += attention(xn) for the context's batch of T tokens (decode: the captured split-K path).
    void forward(GpuContext& c, std::int64_t T, bool decode) const;
    kernels::AttentionParams params(int page_size) const;
    std::uint64_t decode_bytes() const;  // weight bytes one decode token reads
    // The packed q/k/v row width (the qkv scratch's per-token floats).
    std::int64_t qkv_width() const { return qd_ + kd_ + vd_; }

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

}  // namespace ft::gpu
