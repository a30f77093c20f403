// Online refinement of the hybrid split q* (docs/gpu-engine.md, "Expert offload"). B_P (PCIe fetches) and B_C (CPU expert kernel) drift
// with power states, clocks and whatever else the machine runs, so the fraction measured once (`ft bench bw`, or the
// first GPU load's profile) is refined from the decode steps themselves:
//   B_P  timing events around the fetch kernel of a few sampled MoE layers (event-record nodes in the captured
//        graph) over the experts those layers fetched in that step (their counters' delta over one step);
//   B_C  the CPU handshake's expert bytes read over its busy time.
// Both measured while the other side runs (what a hybrid step sees), smoothed by an EWMA. Their bandwidth-matched
// q_bw = B_P / (B_P + B_C) is where the search for the fastest fraction starts and what tells it to search again
// (moe::FractionSearch): the fraction in use is the one whose measured decode steps gave the most tokens per second.
// Engine-internal; CUDA builds only; the engine thread drives it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include <cuda_runtime.h>

#include "moe/fraction_search.h"

namespace ft::gpu {

struct FractionTunerOptions {
    int period = 4;                 // one measurement every `period` decode steps
    double alpha = 0.25;            // EWMA weight of a new sample
    double min_experts = 32;        // a sample needs this many experts' bytes moved (else it accumulates)
    moe::FractionSearchOptions search;  // the throughput search over q*
};

class FractionTuner {
public:
    struct Sources {
        std::function<std::vector<std::uint64_t>()> fetched;  // experts fetched so far, per layer (reads the GPU)
        std::function<std::uint64_t()> cpu_bytes;             // expert weight bytes the CPU has read so far
        std::function<double()> cpu_busy_seconds;             // seconds the CPU has spent on experts so far
    };
    // moe_layers: the layers with routed experts; expert_bytes: one expert's three matrices.
    FractionTuner(const std::vector<int>& moe_layers, std::uint64_t expert_bytes, double fraction, Sources s,
                  const FractionTunerOptions& o);
    ~FractionTuner();
    FractionTuner(const FractionTuner&) = delete;
    FractionTuner& operator=(const FractionTuner&) = delete;

    // Around layer il's fetch kernel (capturable; a no-op for layers not sampled).
    void fetch_begin(int il, cudaStream_t stream);
    void fetch_end(int il, cudaStream_t stream);
    // After a forward pass's stream finished. decode: it was a decode step, of `tokens` tokens that took `seconds`
    // (the pass's wall time). Returns the new q* when it should move.
    std::optional<double> after_step(bool decode, double seconds, int tokens);

    double fraction() const { return search_.fraction(); }
    double matched_fraction() const;                    // B_P / (B_P + B_C) from the live figures (< 0: not yet)
    const moe::FractionSearch& search() const { return search_; }
    double fetch_gbps() const { return fetch_gbps_; }  // smoothed; 0 until measured
    double cpu_gbps() const { return cpu_gbps_; }
    std::uint64_t updates() const { return updates_; }  // times q* was moved

private:
    std::vector<std::uint64_t> sampled_fetched();
    void measure();
    void log_final_comparison() const;

    std::vector<int> sampled_;             // layer ids timed
    std::vector<int> index_of_layer_;      // layer → index in sampled_ (-1: not timed)
    std::vector<cudaEvent_t> begin_, end_;
    std::uint64_t expert_bytes_ = 0;
    Sources src_;
    FractionTunerOptions o_;
    moe::FractionSearch search_;
    std::uint64_t steps_ = 0;
    bool armed_ = false;                   // the counters were read at the end of the previous decode step
    std::vector<std::uint64_t> before_;
    double fetch_bytes_ = 0, fetch_s_ = 0;  // accumulating toward one sample
    std::uint64_t cpu_bytes0_ = 0;
    double cpu_busy0_ = 0;
    double fetch_gbps_ = 0, cpu_gbps_ = 0;
    std::uint64_t updates_ = 0;
};

}  // namespace ft::gpu
