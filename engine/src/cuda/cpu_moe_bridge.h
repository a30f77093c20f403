// The GPU ↔ CPU handshake of the hybrid MoE decode, inside a captured CUDA graph and without a spinning kernel.
//
// Per MoE layer there is one block of pinned, device-mapped host memory (a "slot"): the layer's normalized input
// rows, routed ids and weights, the CPU expert list, the CPU's partial sum, and two flags. In the graph, for layer l:
//   plan (one kernel: copies x / ids / weights / token count into the slot, writes the CPU list, then done=0 and
//   ready=1 — before its victim search when every fetch is sure to find a slot) → … GPU work … → wait until
//   done ≥ 1 (a stream memory operation) → add the CPU partial sum.
// A coordinator thread (pinned, one of the worker pool's cores) polls the ready flags, clears ready, computes the
// listed experts for the rows routed to them on the worker pool, writes the partial sum and sets done. A watchdog
// turns a handshake stuck for 10 s into an error (done set with err = 1) so the GPU never hangs; forward() checks.
// When the driver has no stream memory operations (Windows WDDM, vGPU) a host-function node per layer does the
// same work inline (≈ 30–50 µs more per layer).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime.h>

#include "core/failure_latch.h"
#include "cpu/worker_pool.h"
#include "model/weights.h"
#include "moe/cpu_expert_executor.h"
#include "ref/expert_cache.h"

namespace ft::gpu {

// Layout of one layer's slot (host memory, mapped into the device address space).
struct alignas(64) CpuMoeSlotHeader {
    volatile std::uint32_t ready;
    volatile std::uint32_t done;
    volatile std::uint32_t err;
    std::uint32_t pad0;
    alignas(64) std::int32_t n_tokens;  // written by the planning kernel (ExpertCacheHandoff)
    std::int32_t cpu_count;             // written by the planning kernel (last)
};

class CpuMoeBridge {
public:
    struct Options {
        int max_tokens = 8;      // tokens per decode step (batch)
        int k = 8;               // experts per token
        std::int64_t n_embd = 0;
        float swiglu_limit = 0;
        bool host_function_sync = false;  // sync through host-function nodes, not stream memory operations
    };
    // pool: the CPU workers (the coordinator thread calls it); owns nothing of it.
    CpuMoeBridge(const model::Weights& w, cpu::WorkerPool& pool, const Options& o);
    ~CpuMoeBridge();
    CpuMoeBridge(const CpuMoeBridge&) = delete;
    CpuMoeBridge& operator=(const CpuMoeBridge&) = delete;

    bool uses_memops() const { return memops_; }

    // Device-visible pointers of layer l's slot.
    float* x_dev(int l) const;            // [max_tokens, n_embd]
    std::int32_t* ids_dev(int l) const;   // [max_tokens, k]
    float* w_dev(int l) const;            // [max_tokens, k]
    std::int32_t* cpu_ids_dev(int l) const;  // [max_tokens * k]
    std::int32_t* cpu_count_dev(int l) const;
    std::int32_t* n_tokens_dev(int l) const;
    const float* y_dev(int l) const;      // [max_tokens, n_embd] the CPU partial sum

    // What the planning kernel of layer l copies to the slot (T tokens' rows x [T, n_embd], their routed weights; the
    // ids are the call's own) and, with stream memory operations, the flags it raises to hand the layer to the CPU.
    kernels::ExpertCacheHandoff handoff(int l, const float* x, const float* weights, int T) const;
    // Enqueue on `stream` (capturable), after the planning call: with host-function nodes the node that serves layer l
    // (with stream memory operations the planning kernel has handed it over: nothing to do); then the wait for its
    // answer (y_dev(l) holds it after).
    void submit(int l, cudaStream_t stream);
    void wait(int l, cudaStream_t stream);
    // After the step's stream has finished: throws ft::Error when the watchdog fired or the CPU failed.
    void check_health();

    // Totals for the stats: experts and expert weight bytes computed on the CPU, time the CPU spent.
    std::uint64_t experts_computed() const { return experts_.load(); }
    std::uint64_t bytes_read() const { return executor_.bytes_read(); }
    double cpu_busy_seconds() const { return double(busy_ns_.load()) / 1e9; }
    // Where the CPU side's time goes (memory-operation handshake only): layers served, nanoseconds in the expert
    // executor (of busy), and the coordinator's waits for the GPU between a layer's answer and the next hand-over
    // (those under 2 ms: within a step), with their count.
    std::uint64_t layers_served() const { return served_.load(); }
    std::uint64_t executor_ns() const { return exec_ns_.load(); }
    std::uint64_t gap_ns() const { return gap_ns_.load(); }
    std::uint64_t gaps() const { return gaps_.load(); }

private:
    struct Slot;
    void serve(int l);
    void coordinator();
    void watchdog();
    static void CUDART_CB host_serve(void* arg);

    const model::Weights& w_;
    cpu::WorkerPool& pool_;
    Options o_;
    int n_layer_ = 0;
    std::size_t slot_bytes_ = 0;
    std::uint8_t* host_ = nullptr;  // all slots, pinned + mapped
    std::uint8_t* dev_ = nullptr;   // the same memory, device address
    bool memops_ = false;
    void* write_fn_ = nullptr;      // cuStreamWriteValue32
    void* wait_fn_ = nullptr;       // cuStreamWaitValue32
    moe::CpuExpertExecutor executor_;
    std::vector<std::pair<CpuMoeBridge*, int>> host_args_;
    // scratch of serve()
    std::vector<float> xs_, ys_;
    std::vector<moe::ExpertJob> jobs_;
    std::vector<std::vector<std::int32_t>> rows_;
    std::atomic<bool> stop_{false};
    std::atomic<std::uint64_t> experts_{0}, busy_ns_{0}, served_{0}, exec_ns_{0}, gap_ns_{0}, gaps_{0};
    std::atomic<std::int64_t> pending_since_ns_{0};  // when the coordinator took a layer (0: idle)
    // Set by the coordinator (a CPU expert job threw) or the watchdog (no answer), read by check_health() on the
    // engine thread.
    FailureLatch failure_;
    std::thread coordinator_, watchdog_;
};

}  // namespace ft::gpu
