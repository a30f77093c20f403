#include "moe/cpu_expert_executor.h"

#include <algorithm>

#include "cpu/matmul.h"
#include "cpu/swiglu.h"

namespace ft::moe {

namespace {

void rows(const model::TensorView& w, const float* x, std::int64_t m, float* y, std::int64_t ldy, std::int64_t r0,
          std::int64_t r1) {
    if (m == 1) kernels::cpu::matvec_rows(w.type, w.data, w.row_bytes, w.cols, x, y, r0, r1);
    else kernels::cpu::matmul_rows(w.type, w.data, w.row_bytes, w.cols, x, w.cols, m, y, ldy, r0, r1);
}

}  // namespace

void CpuExpertExecutor::run(std::span<const ExpertJob> jobs, float swiglu_limit) {
    if (jobs.empty()) return;
    const std::int64_t n_ff = jobs[0].expert->gate.rows;
    const std::int64_t n_embd = jobs[0].expert->down.rows;
    std::vector<std::int64_t> h_off(jobs.size() + 1, 0);
    std::uint64_t bytes = 0;
    for (std::size_t j = 0; j < jobs.size(); ++j) {
        h_off[j + 1] = h_off[j] + jobs[j].m * n_ff;
        bytes += jobs[j].expert->bytes();
    }
    if (h_.size() < std::size_t(h_off.back())) h_.resize(std::size_t(h_off.back()));
    const std::int64_t threads = pool_.size();
    // Phase 1: gate and up rows of a block, then SwiGLU of that block for all of the expert's tokens.
    const std::int64_t gb = std::clamp<std::int64_t>(n_ff * std::int64_t(jobs.size()) / (threads * 4), 16, 256) / 16 * 16;
    const std::int64_t g_blocks = (n_ff + gb - 1) / gb;
    pool_.parallel_for(std::int64_t(jobs.size()) * g_blocks, [&](std::int64_t task, int) {
        const ExpertJob& job = jobs[std::size_t(task / g_blocks)];
        const std::int64_t r0 = (task % g_blocks) * gb, r1 = std::min(n_ff, r0 + gb), nr = r1 - r0;
        thread_local std::vector<float> g, u, y;
        g.resize(std::size_t(job.m * n_ff));
        u.resize(std::size_t(job.m * n_ff));
        rows(job.expert->gate, job.x, job.m, g.data(), n_ff, r0, r1);
        rows(job.expert->up, job.x, job.m, u.data(), n_ff, r0, r1);
        if (job.expert->has_bias()) {  // gpt-oss: F32 bias rows, added before the activation
            const auto* bg = reinterpret_cast<const float*>(job.expert->gate_bias.data);
            const auto* bu = reinterpret_cast<const float*>(job.expert->up_bias.data);
            for (std::int64_t i = 0; i < job.m; ++i)
                for (std::int64_t r = r0; r < r1; ++r) {
                    g[std::size_t(i * n_ff + r)] += bg[r];
                    u[std::size_t(i * n_ff + r)] += bu[r];
                }
        }
        float* h = h_.data() + h_off[std::size_t(task / g_blocks)];
        for (std::int64_t i = 0; i < job.m; ++i)
            kernels::cpu::swiglu_f32(g.data() + i * n_ff + r0, u.data() + i * n_ff + r0, h + i * n_ff + r0, nr, swiglu_limit);
    });
    // Phase 2: down rows of a block for all of the expert's tokens.
    const std::int64_t db = std::clamp<std::int64_t>(n_embd * std::int64_t(jobs.size()) / (threads * 4), 16, 512) / 16 * 16;
    const std::int64_t d_blocks = (n_embd + db - 1) / db;
    pool_.parallel_for(std::int64_t(jobs.size()) * d_blocks, [&](std::int64_t task, int) {
        const std::size_t j = std::size_t(task / d_blocks);
        const ExpertJob& job = jobs[j];
        const std::int64_t r0 = (task % d_blocks) * db, r1 = std::min(n_embd, r0 + db);
        rows(job.expert->down, h_.data() + h_off[j], job.m, job.out, n_embd, r0, r1);
        if (job.expert->has_bias()) {
            const auto* bd = reinterpret_cast<const float*>(job.expert->down_bias.data);
            for (std::int64_t i = 0; i < job.m; ++i)
                for (std::int64_t r = r0; r < r1; ++r) job.out[i * n_embd + r] += bd[r];
        }
    });
    bytes_read_.fetch_add(bytes, std::memory_order_relaxed);
}

}  // namespace ft::moe
