// The MoE block's routed experts on the CPU (model::MoeBlock; the CPU runner, the static backend's CPU layers and
// `ft bench cpu-moe` call it): router on the CPU, experts on the CPU expert executor. The GPU runner's MoE block
// (cuda/gpu_moe.cpp) is the other implementation of the same block.
#pragma once

#include <cstdint>
#include <vector>

#include "cpu/worker_pool.h"
#include "model/graph.h"
#include "model/weights.h"
#include "moe/cpu_expert_executor.h"
#include "ref/moe_router.h"

namespace ft::moe {

struct MoeStats {
    std::uint64_t calls = 0;           // forward() calls
    std::uint64_t tokens = 0;          // token-layer routings
    std::uint64_t expert_calls = 0;    // (token, expert) pairs computed
    std::uint64_t unique_experts = 0;  // distinct experts per layer call, summed
    // Where the time goes (nanoseconds, summed over calls): router matvec + top-k, gathering token rows,
    // the expert FFNs (executor), the weighted sum.
    std::uint64_t ns_router = 0, ns_gather = 0, ns_experts = 0, ns_combine = 0;
};

class MoeLayer {
public:
    MoeLayer(cpu::WorkerPool& pool, const model::Weights& weights);

    // out[T, n_embd] = Σ_k weight_k · expert_k(x[t]) for the routed experts of block b for each token of
    // x[T, n_embd] (x already normalized). Deterministic for a given input. Shared experts are the caller's.
    // tokens[T]: the token ids, which a hash layer (b.hash) routes by; required there, unused elsewhere.
    void forward(const model::MoeBlock& b, const float* x, std::int64_t n_tokens, float* out,
                 const std::int32_t* tokens = nullptr);
    const MoeStats& stats() const { return stats_; }
    std::uint64_t cpu_expert_bytes() const { return executor_.bytes_read(); }

private:
    cpu::WorkerPool& pool_;
    const model::Weights& w_;
    struct LayerVectors {
        bool ready = false;
        std::vector<float> router_bias, selection_bias;
    };
    std::vector<LayerVectors> vectors_;  // per layer, converted at first use
    CpuExpertExecutor executor_;
    MoeStats stats_;
    // scratch
    std::vector<float> logits_, xs_, ys_, weights_;
    std::vector<std::int32_t> ids_;
    std::vector<std::vector<std::int64_t>> rows_of_;  // per expert: (token·k + slot) indices routed to it
    std::vector<ExpertJob> jobs_;
};

}  // namespace ft::moe
