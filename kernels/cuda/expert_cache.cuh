// CUDA form of the expert cache's per-layer decode planning step: the same contract as ref/expert_cache.h, output
// for output and state for state, as one launch of one block, so it can sit in a captured CUDA graph. Pure
// launchers: pointers and a params struct in, no allocation, no synchronisation.
//
// expert_cache_plan: every pointer of ExpertCachePlanParams is read or written by the device: the state, the
//   control block (read each launch, so the host may rewrite now / frac_q16 / max_fetch / mode between graph
//   replays; written back when advance_clock) and the outputs. cpu_ids and cpu_count may point into host-mapped
//   pinned memory: the kernel writes them last (with handoff.early: before its victim search), cpu_ids before
//   cpu_count, each followed by __threadfence_system(), then the hand-over flags (ExpertCacheHandoff).
//   Cost: one pass over usage[n_slots] plus one block reduction per fetched expert.
// qstar_fetch_counts: out[i] = q*(m[i], frac_q16[i], max_fetch[i]) by the device function the planner uses
//   (for the bit-exactness test against ref::qstar_fetch_count).
// Errors: cudaErrorInvalidValue when !expert_cache_plan_valid(p) or n < 0; otherwise the launch error.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

#include "ref/expert_cache.h"

namespace ft::kernels::cuda {

cudaError_t expert_cache_plan(const ExpertCachePlanParams& p, cudaStream_t stream);

// x[0, n) += y_cpu[0, n) (the CPU's partial sum of layer `layer`, host-mapped), and with a clock the start's stamp
// against the layer's hand-over (HandoffClock). Errors: cudaErrorInvalidValue when n < 0 or the layer is out of the
// clock's range; otherwise the launch error.
cudaError_t expert_cache_add_cpu_sum(const float* y_cpu, float* x, std::int64_t n, HandoffClock* clock, int layer,
                                     cudaStream_t stream);

cudaError_t qstar_fetch_counts(const std::int32_t* m, const std::uint32_t* frac_q16, const std::int32_t* max_fetch,
                               std::int32_t* out, int n, cudaStream_t stream);

}  // namespace ft::kernels::cuda
