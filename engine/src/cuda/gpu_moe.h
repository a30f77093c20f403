// The FFN blocks on the GPU: the dense gated FFN (model::FfnBlock) and the MoE entry point (model::MoeBlock):
// router (+ bias) → top-k (selection bias, groups, scaling) → routed experts → weighted sum into the residual, plus
// shared experts. Where the routed experts run is decided here: resident in VRAM (grouped expert kernels for decode,
// grouped tensor-core GEMMs over every expert for prefill), or through ExpertOffload (expert cache, q* split, streamed prefill).
// Engine-internal; CUDA builds only.
#pragma once

#include <cstdint>
#include <vector>

#include "cuda/expert_offload.h"
#include "cuda/gpu_context.h"
#include "cuda/gpu_weights.h"
#include "model/graph.h"

namespace ft::gpu {

// Decode steps and short passes up to this many tokens use the grouped expert kernels (and the expert cache);
// larger passes group tokens by expert and run a matrix product per expert.
constexpr std::int64_t kGroupedMaxTokens = kernels::cuda::kGemvMaxM;
// Up to this many tokens (decode batches) a MoE block's input norm runs fused with its router.
constexpr std::int64_t kFusedNormMaxTokens = 8;

class GpuFfn {
public:
    GpuFfn() = default;
    GpuFfn(const model::FfnBlock& b, DeviceWeights& dw);
    explicit operator bool() const { return gate_.data != nullptr; }
    // x += ffn(xn) for T tokens (scratch g/u hold [T, width]); with gate_logits ([T], device), token t's output
    // times sigmoid(gate_logits[t]) (Qwen's gated shared expert).
    void forward(GpuContext& c, std::int64_t T, const float* gate_logits = nullptr) const;
    std::uint64_t decode_bytes() const;
    std::int64_t width() const { return gate_.rows; }

private:
    DeviceMatrix gate_, up_, down_;
    const float *gate_bias_ = nullptr, *up_bias_ = nullptr, *down_bias_ = nullptr;
    float limit_ = 0.f;
};

class GpuMoe {
public:
    // resident: upload the layer's routed experts (else they stay with ExpertOffload).
    GpuMoe(const model::MoeBlock& b, DeviceWeights& dw, bool resident);
    // x += moe(xn) for T tokens. offload: the expert cache of the offload-family backends (null: resident).
    void forward(GpuContext& c, std::int64_t T, bool decode, ExpertOffload* offload) const;
    // Whether forward() can compute the block's input norm (weights `norm`) fused with the router for these T tokens
    // (decode, an F32 router, no shared experts reading xn first): then the runner leaves the norm to it.
    bool fuses_input_norm(const GpuContext& c, std::int64_t T, const float* norm) const;
    std::uint64_t decode_bytes() const;  // router + k experts + shared experts: weight bytes one decode token reads
    const model::MoeBlock& block() const { return b_; }

private:
    bool grouped_gemm_ok(const GpuContext& c, const ExpertSet& ex) const;
    void prefill_grouped(GpuContext& c, const ExpertSet& ex, std::int64_t T, std::int64_t P) const;
    void prefill_per_expert(GpuContext& c, const ExpertSet& ex, std::int64_t T, std::int64_t P) const;
    void combine(GpuContext& c, const std::int32_t* where, std::int64_t T) const;

    model::MoeBlock b_;
    DeviceMatrix router_;
    const float* router_bias_ = nullptr;
    const std::int32_t* hash_ = nullptr;  // DeepSeek-V4's hash layers: [n_vocab, k] experts by token id
    kernels::RouterParams route_;  // with the selection bias's device pointer
    ExpertSet experts_;            // resident only
    ExpertBiases biases_;          // gpt-oss: every expert's biases, resident whatever the backend
    GpuFfn shared_;
    DeviceMatrix shared_gate_;     // [1, n_embd]: the shared expert's sigmoid gate (Qwen), or empty
    mutable std::vector<std::int32_t> host_offsets_;
};

}  // namespace ft::gpu
