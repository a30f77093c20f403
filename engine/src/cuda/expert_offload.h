// Routed experts that do not all live in VRAM (docs/gpu-engine.md, "Expert offload"): the host expert store (the mapped model
// file; its expert ranges registered as pinned host memory so the GPU reads them directly, as far as the pin budget
// and the OS allow — experts left unpinned reach decode's fetches through a pinned bounce ring, expert_bounce.h),
// the VRAM expert cache (one slot pool of
// three banks — gate, up, down — shared by every MoE layer, with residency / owner / usage / recency tables on the
// GPU), and the per-layer decode and prefill paths of the offload-family backends:
//   offload  every miss fetched over PCIe into an LRU victim slot
//   cpu      every miss computed on the CPU (the cache holds only the prefill buffers)
//   hybrid   the misses split between PCIe and the CPU in the bandwidth-matched ratio q* (a GPU kernel per layer)
//   static   llama.cpp `--n-cpu-moe` style: as many whole layers' experts resident as the budget holds, the first
//            layers' experts always on the CPU
// Decode is fixed-shape and host-free, so the runner captures it in its CUDA graph. Prefill streams each layer's
// experts through two buffers made of the first 2 × n_expert slots (copy of layer l+1 overlaps compute of layer l);
// the layers streamed last stay in the cache for decode.
// Engine-internal; CUDA builds only. One engine thread drives it.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include "cpu/worker_pool.h"
#include "moe/fraction_search.h"
#include "cuda/cpu_moe_bridge.h"
#include "cuda/expert_bounce.h"
#include "cuda/expert_copy.cuh"
#include "cuda/fraction_tuner.h"
#include "cuda/gemv.cuh"
#include "cuda/gpu_runtime.h"
#include "exec/runner.h"
#include "model/weights.h"
#include "moe/moe_layer.h"
#include "ref/expert_cache.h"

namespace ft::gpu {

struct OffloadOptions {
    exec::MoeBackend backend = exec::MoeBackend::hybrid;  // offload, cpu, hybrid or static_layers (the others: none)
    std::uint64_t cache_bytes = 0;   // VRAM for the slot pool
    int slots = 0;                   // slots wanted (0: as many as cache_bytes holds); never more than it holds
    std::uint32_t frac_q16 = 32768;  // hybrid: fetched share of the misses (B_P / (B_P + B_C)) in Q16
    int max_fetch = -1;              // hybrid: cap on fetches per layer and step (< 0: none)
    int threads = 0;                 // CPU expert workers (0: one per physical core)
    int max_tokens = 8;              // tokens of one decode step
    bool prefill_overlap = true;     // double-buffered prefill streaming when the cache has 2 × n_expert slots
    // hybrid: after a layer's GPU work, fetch up to this many of the experts the CPU computed into the cache in the
    // background (side stream, committed at the end of the step), so they are hits next time. 0: off (the default:
    // on the H200 it restored offload's hit rate but the background copies slowed the critical path more;
    // docs/benchmarks.md).
    int hybrid_admit = 0;
    // hybrid: when the online q* search ends, bring back the cache it started from (ExpertOffload::restore_cache).
    bool restore_after_search = true;
    // Host bytes the expert store may pin in place (0: as much as the OS allows). Experts past it stay in the mapped
    // file; offload/hybrid fetch them through a pinned bounce ring (outputs unchanged, each such miss costs a host copy).
    std::uint64_t pin_budget = 0;
    // hybrid: refine frac_q16 online from the decode steps' fetch and CPU timings (cuda/fraction_tuner.h). Off when
    // the user fixed the fraction.
    bool recalibrate = false;
    // How the GPU waits for CPU work inside the graph (the hybrid/cpu/static handshake and the bounce ring): stream
    // memory operations, or host-function nodes (the fallback; forced for tests and misbehaving drivers).
    bool host_function_sync = false;
    // Benchmarks only: emulate a host link of this many GB/s (decode fetches and prefill streaming take at least
    // bytes / link_gbps; kernels/cuda/expert_copy.cuh link_throttle). 0: the real link.
    double link_gbps = 0;
};

struct OffloadLayerStats {
    std::uint64_t calls = 0, hits = 0, misses = 0, fetched = 0, cpu = 0;
};

class ExpertOffload {
public:
    ExpertOffload(const model::Weights& w, VramBudget& vram, cudaStream_t stream, const OffloadOptions& o);
    ~ExpertOffload();
    ExpertOffload(const ExpertOffload&) = delete;
    ExpertOffload& operator=(const ExpertOffload&) = delete;

    exec::MoeBackend backend() const { return o_.backend; }
    int n_slots() const { return n_slots_; }
    std::size_t slot_bytes() const { return slot_bytes_; }
    std::string describe() const;  // one line for logs

    // Decode (capturable): the routed experts of layer il for T ≤ max_tokens tokens; xn [T, n_embd] is the FFN
    // input, ids / weights [T, k] the router's choice. Adds Σ weight · expert(x) into x [T, n_embd]. h and y are
    // scratch of [T·k, n_ff] and [T·k, n_embd] floats.
    // mark(phase), when given, is called at the end of each phase (the runner's profiler records an event there).
    // biases: the layer's routed-expert biases (gpt-oss; resident in VRAM, indexed by expert id), or empty.
    void decode(int il, int T, const float* xn, const std::int32_t* ids, const float* weights, float* x, float* h,
                float* y, const ExpertBiases& biases, const std::function<void(const char*)>& mark = {});
    // Prefill: make layer il's experts readable on the GPU and return their matrices (expert e at slot e of the
    // returned bases) — or an empty optional when this layer's experts run on the CPU (static backend's CPU layers).
    // done_with(il) after the layer's expert products are enqueued.
    bool prefill_layer(int il, kernels::cuda::ExpertMatrix& gate, kernels::cuda::ExpertMatrix& up,
                       kernels::cuda::ExpertMatrix& down);
    void done_with(int il);
    // End of a forward pass (capturable): joins the background admissions of the step and commits them.
    void finish_step();
    // Prefill of a static backend's CPU layer (block b): the CPU computes it from xn on the host (rows routed by the
    // CPU copy of the router), result added to x.
    void prefill_on_cpu(const model::MoeBlock& b, std::int64_t T, const float* xn, float* x,
                        const std::int32_t* tokens = nullptr);  // tokens (host): a hash layer's routing

    // Throws when the CPU side failed during the step (call after the stream synchronised).
    void check_health();
    // Returns true when the decode graphs must be captured again (see after_step).
    bool set_fraction(std::uint32_t frac_q16, int max_fetch);
    // After a forward pass's stream finished (decode: it was a decode step of `tokens` tokens in `seconds`): the
    // online q* search, when on. Returns true when the decode graphs must be captured again (the CPU handshake
    // comes or goes with q* = 1).
    bool after_step(bool decode, double seconds, int tokens);
    double fraction() const { return double(o_.frac_q16) / 65536.0; }  // q* in use
    // hybrid at q* = 1 with no fetch cap: every miss is fetched (a slot is always free), so decode leaves the CPU
    // handshake out of the step — offload's step, which the search may find fastest.
    bool fetches_all() const;
    // Whether decode hands experts to the CPU workers now (cpu, static, hybrid below q* = 1): false for offload and
    // for hybrid while it fetches every miss (fetches_all).
    bool hands_experts_to_cpu() const { return bridge_ != nullptr && !fetches_all(); }
    bool fraction_searching() const;    // the online search is measuring candidates now
    double fraction_search_seconds() const;  // decode seconds of the last (or current) search
    int fraction_search_windows() const;     // candidates measured so far
    moe::FractionSearch::Duel fraction_search_duel() const;  // the last search's closing duel (empty: none)
    std::vector<moe::FractionSearch::Window> fraction_search_history() const;  // the windows, in order
    double live_fetch_gbps() const;  // the refinement's smoothed B_P and B_C (0: not measured or not hybrid)
    double live_cpu_gbps() const;

    std::vector<OffloadLayerStats> layer_stats() const;  // reads the GPU counters (synchronises the stream)
    std::uint64_t prefill_h2d_bytes() const { return prefill_h2d_; }  // whole layers streamed for prefill
    std::uint64_t expert_bytes() const { return mean_expert_bytes_; }  // one expert (the mean over the MoE layers)
    std::uint64_t expert_bytes(int il) const {                          // one expert of layer il
        const auto& l = layout_[std::size_t(il)];
        return l.bytes[0] + l.bytes[1] + l.bytes[2];
    }
    std::uint64_t cpu_expert_bytes() const;
    // The CPU side of the handshake (hybrid, cpu): layers served; nanoseconds busy, in the expert executor, and
    // waiting for the GPU between layers of a step. Zero without a coordinator thread.
    struct CpuSideTimes {
        std::uint64_t layers = 0, busy_ns = 0, executor_ns = 0, gap_ns = 0, gaps = 0;
        // The GPU's clock of the same handshake (HandoffClock; synchronises the stream): hand-over -> the CPU's sum
        // added, and sum added -> the next hand-over, with their counts.
        std::uint64_t gpu_answer_ns = 0, gpu_answers = 0, gpu_chain_ns = 0, gpu_chains = 0;
    };
    CpuSideTimes cpu_side_times() const;
    std::uint64_t host_pinned_bytes() const { return pinned_bytes_; }  // pinned in place (whole pages)
    std::uint64_t host_store_bytes() const { return store_bytes_; }    // every routed expert's matrices
    // Decode fetches of unpinned experts through the bounce ring: experts and bytes copied (0 when all are pinned).
    std::uint64_t bounced() const { return bounce_ ? bounce_->experts() : 0; }
    std::uint64_t bounce_bytes() const { return bounce_ ? bounce_->bytes() : 0; }
    std::uint64_t admitted() const;  // experts brought into the cache in the background (hybrid)
    // `ft bench bw`: expert fetches exactly as decode issues them (the fetch kernel reading the host store over
    // PCIe into cache slots), 8 random experts per launch, until *stop or `seconds` pass. Returns bytes moved and
    // the seconds taken.
    std::pair<std::uint64_t, double> bench_fetch(double seconds, const std::atomic<bool>* stop, std::uint64_t seed);
    // The prefill path: whole layers' expert banks by cudaMemcpyAsync from the host store. Returns GB/s.
    double bench_dma(double seconds);
    bool host_registered() const { return all_pinned_; }  // every expert pinned in place
    // Live rebuild: the cached experts' flat ids, most recently used first (synchronises the stream), and filling a
    // fresh cache with such a list (as many as fit; the rest stay misses).
    std::vector<std::int32_t> hottest() const;
    // Decode calls each (layer, expert) was active in since the cache was made (flat id order; synchronises).
    std::vector<std::uint32_t> expert_uses() const;
    void warm(const std::vector<std::int32_t>& flat_ids);
    // hybrid: the caches brought back before each candidate and at the end of a q* search (see restore_cache()): times,
    // experts copied back, seconds spent (the stream idle meanwhile).
    struct Restores {
        std::uint64_t count = 0, experts = 0;
        double seconds = 0;
    };
    Restores restores() const { return restores_; }

private:
    // The q* search measures trial fractions up to 1, whose fetches refill the cache by LRU; at the low q* it then
    // often keeps, hardly any miss is fetched, so the cache would stay that snapshot of the last windows' reuse (on
    // an H100 host 120 misses a token where the cache the search started from gave 77–84). When a search starts
    // snapshot_cache() records the slots' owners and LRU stamps; before each candidate fraction of the search, and when
    // it ends below q* = 1, restore_cache() copies back every recorded expert no longer cached (over the slots whose
    // owners were not recorded, least recently used first) with its recorded stamp. Both between decode steps; they
    // synchronise the stream.
    void snapshot_cache();
    int restore_cache();  // returns the experts copied back

    void register_host_store();
    kernels::cuda::ExpertCopyParams copy_params() const;
    void stream_layer(int il, int buffer);
    void copy_layer(int il, int first_slot, cudaStream_t stream);  // layer il's experts to slots first.. (async)
    void copy_from_store(std::uint8_t* dst, const std::uint8_t* src, std::size_t n, cudaStream_t stream, const char* what) const;
    int buffer_of(int il) const;

    const model::Weights& w_;
    VramBudget& vram_;
    cudaStream_t stream_;
    OffloadOptions o_;
    std::unique_ptr<FractionTuner> tuner_;
    int n_layer_ = 0, n_expert_ = 0, k_ = 0;
    std::int64_t n_embd_ = 0, n_ff_ = 0;
    // Each MoE layer's gate, up and down: type, row bytes, shape and one expert's bytes. They may differ between layers
    // (llama.cpp's _M recipes keep some layers' down projections in Q6_K): a slot holds any layer's expert, so each
    // bank's stride fits the largest, and the fetch kernel copies each layer's own size (d_layer_bytes_).
    struct LayerLayout {
        kernels::cuda::ExpertMatrix proto[3];
        std::size_t bytes[3] = {0, 0, 0};
    };
    std::vector<LayerLayout> layout_;           // [n_layer]; empty entries for dense layers
    std::size_t max_bytes_[3] = {0, 0, 0};      // the largest matrix of each bank over the layers
    std::size_t bank_bytes_[3] = {0, 0, 0};     // the same rounded up to 256 bytes: the slot stride of each bank
    std::size_t slot_bytes_ = 0;
    std::uint64_t mean_expert_bytes_ = 0;       // one expert, averaged over the MoE layers
    bool mixed_ = false;                        // some layer's matrices differ in size from another's
    std::shared_ptr<void> d_layer_bytes_;       // mixed_: [3][n_layer] uint32 bytes per layer, for the fetch kernel
    std::size_t mat_bytes(std::size_t flat, int b) const { return layout_[flat / std::size_t(n_expert_)].bytes[b]; }
    int n_slots_ = 0;
    std::shared_ptr<void> banks_[3];
    // Host store: every flat id's three matrices, at the device-mapped address where pinned (host_pinned_[flat]),
    // else at the mapped file's host address (cudaMemcpy reads both; the fetch kernel only the first).
    std::vector<const std::uint8_t*> host_src_[3];
    std::vector<bool> host_pinned_;
    std::vector<std::pair<std::uintptr_t, std::uintptr_t>> pinned_spans_;  // registered ranges [lo, hi), sorted
    std::shared_ptr<void> d_src_[3];          // the fetch kernel's source tables when every expert is pinned
    std::unique_ptr<ExpertBounce> bounce_;    // else: the tables and the ring for the unpinned experts
    std::vector<char> layer_bounced_;         // layers with unpinned experts (their decode calls hand over)
    // Ranges of the mapped files registered in place; unregistered however the object goes (a constructor that
    // throws included: a failed live resize builds a new store over the same file).
    struct Registrations {
        std::vector<std::pair<void*, std::size_t>> ranges;
        Registrations() = default;
        Registrations(const Registrations&) = delete;
        Registrations& operator=(const Registrations&) = delete;
        ~Registrations() {
            for (auto& [p, n] : ranges) cudaHostUnregister(p);
        }
    } registered_;
    std::uint64_t pinned_bytes_ = 0, store_bytes_ = 0;
    bool all_pinned_ = false;
    // Cache state and per-call scratch on the GPU.
    std::shared_ptr<void> d_state_, d_control_, d_counters_, d_plan_;
    std::shared_ptr<void> d_clock_;  // HandoffClock of the CPU handshake (hybrid, cpu; null otherwise)
    kernels::ExpertCacheState state_{};
    std::vector<kernels::ExpertCacheControl*> control_of_layer_;
    std::int32_t* slot_of_pair_ = nullptr;
    kernels::ExpertFetch* fetch_ = nullptr;
    std::int32_t* fetch_count_ = nullptr;
    std::uint64_t* link_t0_ = nullptr;  // [2] emulated link: decode fetch and prefill streaming start times (ns)
    std::int32_t* cpu_ids_scratch_ = nullptr;  // offload: plan outputs nobody reads
    std::int32_t* cpu_count_scratch_ = nullptr;
    // static: first slot of each resident layer (-1: CPU layer)
    std::vector<int> static_base_;
    // CPU side
    std::unique_ptr<cpu::WorkerPool> pool_;
    std::unique_ptr<CpuMoeBridge> bridge_;
    std::unique_ptr<moe::MoeLayer> cpu_moe_;  // static prefill of CPU layers
    // background admission (hybrid)
    int max_admit_ = 0;
    cudaStream_t side_ = nullptr;
    cudaEvent_t fork_ = nullptr, join_ = nullptr;
    std::shared_ptr<void> d_admit_;  // [n_layer][max_admit] ExpertFetch, then counts [n_layer], then the total
    kernels::ExpertFetch* admit_lists_ = nullptr;
    std::int32_t* admit_counts_ = nullptr;
    std::uint64_t* admit_total_ = nullptr;
    bool forked_ = false;
    // prefill streaming
    cudaStream_t copy_stream_ = nullptr;
    cudaEvent_t ready_[2] = {nullptr, nullptr}, release_[2] = {nullptr, nullptr};
    std::array<int, 2> buffer_layer_{-1, -1};
    std::uint64_t prefill_h2d_ = 0;
    std::vector<float> host_x_, host_y_;
    // the cache the q* search started from (hybrid)
    bool was_searching_ = false;
    std::vector<std::int32_t> snapshot_owner_;
    std::vector<kernels::ExpertStamp> snapshot_usage_;
    Restores restores_;
};

}  // namespace ft::gpu
