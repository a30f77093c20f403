#include "moe/cpu_expert_executor.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "cpu/swiglu.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define FT_EXEC_PAUSE() _mm_pause()
#else
#define FT_EXEC_PAUSE() ((void)0)
#endif

namespace ft::moe {

namespace {

std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void rows(const model::TensorView& w, const kernels::cpu::MatvecInput* in, const float* x, std::int64_t m, float* y,
          std::int64_t ldy, std::int64_t r0, std::int64_t r1) {
    if (m == 1) kernels::cpu::matvec_rows_prepared(w.type, w.data, w.row_bytes, *in, y, r0, r1);
    else kernels::cpu::matmul_rows(w.type, w.data, w.row_bytes, w.cols, x, w.cols, m, y, ldy, r0, r1);
}

}  // namespace

void CpuExpertExecutor::run(std::span<const ExpertJob> jobs, float swiglu_limit) {
    if (jobs.empty()) return;
    const std::int64_t t0 = now_ns();
    const std::int64_t n_ff = jobs[0].expert->gate.rows;
    const std::int64_t n_embd = jobs[0].expert->down.rows;
    const std::int64_t n_jobs = std::int64_t(jobs.size());
    std::vector<std::int64_t> h_off(jobs.size() + 1, 0);
    std::uint64_t bytes = 0;
    for (std::size_t j = 0; j < jobs.size(); ++j) {
        h_off[j + 1] = h_off[j] + jobs[j].m * n_ff;
        bytes += jobs[j].expert->bytes();
    }
    if (h_.size() < std::size_t(h_off.back())) h_.resize(std::size_t(h_off.back()));
    if (in_x_.size() < jobs.size()) {
        in_x_.resize(jobs.size());
        in_h_.resize(jobs.size());
    }
    if (sync_size_ < jobs.size()) {
        sync_ = std::make_unique<JobSync[]>(jobs.size());
        sync_size_ = jobs.size();
    }
    for (std::size_t j = 0; j < jobs.size(); ++j) {
        sync_[j].x_ready.store(0, std::memory_order_relaxed);
        sync_[j].blocks_done.store(0, std::memory_order_relaxed);
        sync_[j].h_ready.store(0, std::memory_order_relaxed);
    }
    failed_.store(false, std::memory_order_relaxed);

    // Row blocks of about 2 per thread and phase (whole 16s): a block's start costs (the first rows come at full
    // memory latency, the claim is one contended atomic) more than a late block does. Measured on an H100 host with
    // 16 threads (ft bench cpu-moe, cold): 1 expert a call 47-48 µs against 52 with 8 blocks a thread, 2 experts
    // 67-70 against 73-75; the down rows of a one-expert call ran at half the speed in 16-row blocks.
    const std::int64_t threads = pool_.size();
    const std::int64_t gb = std::clamp<std::int64_t>(n_ff * n_jobs / (threads * 2), 16, 256) / 16 * 16;
    const std::int64_t db = std::clamp<std::int64_t>(n_embd * n_jobs / (threads * 2), 16, 512) / 16 * 16;
    const std::int64_t g_blocks = (n_ff + gb - 1) / gb, d_blocks = (n_embd + db - 1) / db;
    // One job for the pool (no barrier between the phases), tasks in the order they can run, each waiting only for
    // tasks before it (claimed earlier, by threads that never wait on later ones, so all finish):
    //   [0, n_jobs)              a token row's input prepared once (quantized for the int8 kernels)
    //   then n_jobs × g_blocks   gate and up rows of a block, SwiGLU of that block; the expert's last block to finish
    //                            prepares its h for the down rows
    //   then n_jobs × d_blocks   down rows of a block, once the expert's h is complete
    const std::int64_t t_gate = n_jobs, t_down = t_gate + n_jobs * g_blocks, t_end = t_down + n_jobs * d_blocks;
    // Spins (the wait is short: the task waited on is running), yielding now and then in case it is not (more
    // threads than cores).
    auto wait_for = [this](const std::atomic<int>& flag) {
        for (int spins = 1; flag.load(std::memory_order_acquire) == 0; ++spins) {
            if (failed_.load(std::memory_order_relaxed)) return false;
            if (spins % 256 == 0) std::this_thread::yield();
            else FT_EXEC_PAUSE();
        }
        return true;
    };
    pool_.parallel_for(t_end, [&](std::int64_t task, int) {
        try {
            if (task < t_gate) {
                const ExpertJob& job = jobs[std::size_t(task)];
                if (job.m == 1) kernels::cpu::matvec_prepare(job.expert->gate.type, job.x, job.expert->gate.cols, in_x_[std::size_t(task)]);
                if (task == 0) input_at_.store(now_ns(), std::memory_order_relaxed);
                sync_[std::size_t(task)].x_ready.store(1, std::memory_order_release);
            } else if (task < t_down) {
                const std::size_t j = std::size_t((task - t_gate) / g_blocks);
                const ExpertJob& job = jobs[j];
                const std::int64_t r0 = (task - t_gate) % g_blocks * gb, r1 = std::min(n_ff, r0 + gb), nr = r1 - r0;
                if (!wait_for(sync_[j].x_ready)) return;
                thread_local std::vector<float> g, u;
                g.resize(std::size_t(job.m * n_ff));
                u.resize(std::size_t(job.m * n_ff));
                rows(job.expert->gate, &in_x_[j], job.x, job.m, g.data(), n_ff, r0, r1);
                rows(job.expert->up, &in_x_[j], job.x, job.m, u.data(), n_ff, r0, r1);
                if (job.expert->has_bias()) {  // gpt-oss: F32 bias rows, added before the activation
                    const auto* bg = reinterpret_cast<const float*>(job.expert->gate_bias.data);
                    const auto* bu = reinterpret_cast<const float*>(job.expert->up_bias.data);
                    for (std::int64_t i = 0; i < job.m; ++i)
                        for (std::int64_t r = r0; r < r1; ++r) {
                            g[std::size_t(i * n_ff + r)] += bg[r];
                            u[std::size_t(i * n_ff + r)] += bu[r];
                        }
                }
                float* h = h_.data() + h_off[j];
                for (std::int64_t i = 0; i < job.m; ++i)
                    kernels::cpu::swiglu_f32(g.data() + i * n_ff + r0, u.data() + i * n_ff + r0, h + i * n_ff + r0, nr,
                                             swiglu_limit);
                // The last block of the expert sees every other block's h (acq_rel on the counter).
                if (sync_[j].blocks_done.fetch_add(1, std::memory_order_acq_rel) + 1 == g_blocks) {
                    if (job.m == 1) kernels::cpu::matvec_prepare(job.expert->down.type, h, job.expert->down.cols, in_h_[j]);
                    h_at_.store(now_ns(), std::memory_order_relaxed);  // the last job's to do so stays
                    sync_[j].h_ready.store(1, std::memory_order_release);
                }
            } else {
                const std::size_t j = std::size_t((task - t_down) / d_blocks);
                const ExpertJob& job = jobs[j];
                const std::int64_t r0 = (task - t_down) % d_blocks * db, r1 = std::min(n_embd, r0 + db);
                if (!wait_for(sync_[j].h_ready)) return;
                rows(job.expert->down, &in_h_[j], h_.data() + h_off[j], job.m, job.out, n_embd, r0, r1);
                if (job.expert->has_bias()) {
                    const auto* bd = reinterpret_cast<const float*>(job.expert->down_bias.data);
                    for (std::int64_t i = 0; i < job.m; ++i)
                        for (std::int64_t r = r0; r < r1; ++r) job.out[i * n_embd + r] += bd[r];
                }
            }
        } catch (...) {
            // Tasks waiting on this one give up; the pool rethrows the first error from parallel_for.
            failed_.store(true, std::memory_order_relaxed);
            throw;
        }
    });
    bytes_read_.fetch_add(bytes, std::memory_order_relaxed);
    const std::int64_t t1 = now_ns(), tx = input_at_.load(std::memory_order_relaxed), th = h_at_.load(std::memory_order_relaxed);
    if (tx >= t0 && th >= tx && t1 >= th) {  // the pool's join ordered the workers' stores before this read
        phases_.calls += 1;
        phases_.to_input_ns += std::uint64_t(tx - t0);
        phases_.gate_up_ns += std::uint64_t(th - tx);
        phases_.down_ns += std::uint64_t(t1 - th);
    }
}

}  // namespace ft::moe
