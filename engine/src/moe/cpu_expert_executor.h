// The CPU expert executor: computes routed experts (SwiGLU FFNs, with gpt-oss's biases when the expert has them) for groups of token rows on the worker pool,
// reading each expert's weights in their stored (quantized) layout. Work is split by (expert, row block) so that
// all cores finish together whatever the number of experts or tokens; each weight row is read once per call. One
// pool job per call: an expert's down rows start as soon as its own gate/up rows are done (no barrier between the
// two products), and a single token's input is quantized once per product, not once per row block.
// Used for every expert on the CPU path and for the misses the hybrid split assigns to the CPU.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "cpu/matmul.h"
#include "cpu/worker_pool.h"
#include "model/weights.h"

namespace ft::moe {

struct ExpertJob {
    const model::ExpertView* expert = nullptr;
    const float* x = nullptr;   // [m, n_embd] token rows routed to this expert
    std::int64_t m = 0;
    float* out = nullptr;       // [m, n_embd] expert output (unweighted)
};

class CpuExpertExecutor {
public:
    explicit CpuExpertExecutor(cpu::WorkerPool& pool) : pool_(pool) {}

    // Runs every job; blocks until done. swiglu_limit: gpt-oss clamp (0: plain SwiGLU).
    void run(std::span<const ExpertJob> jobs, float swiglu_limit = 0.f);

    // Bytes of expert weights read so far (for bandwidth figures).
    std::uint64_t bytes_read() const { return bytes_read_.load(std::memory_order_relaxed); }

    // Where a call's time goes (totals over the calls so far, ns): from the call to the first job's input prepared,
    // from there to the last job's h ready (every gate/up row done), and from there to the end (the down rows).
    struct PhaseTimes {
        std::uint64_t calls = 0, to_input_ns = 0, gate_up_ns = 0, down_ns = 0;
    };
    PhaseTimes phase_times() const { return phases_; }

private:
    // Per job of a call: its input ready, gate/up blocks done, h ready for the down rows.
    struct alignas(64) JobSync {
        std::atomic<int> x_ready{0}, blocks_done{0}, h_ready{0};
    };

    cpu::WorkerPool& pool_;
    std::vector<float> h_;  // scratch: [sum m, n_ff] activations between the two products
    std::vector<kernels::cpu::MatvecInput> in_x_, in_h_;  // per job with one token row: x and h prepared once
    std::unique_ptr<JobSync[]> sync_;
    std::size_t sync_size_ = 0;
    std::atomic<bool> failed_{false};  // a task threw: the tasks waiting on it give up
    std::atomic<std::uint64_t> bytes_read_{0};
    std::atomic<std::int64_t> input_at_{0}, h_at_{0};  // steady-clock ns of the current call's phase ends
    PhaseTimes phases_;
};

}  // namespace ft::moe
