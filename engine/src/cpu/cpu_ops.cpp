#include "cpu/cpu_ops.h"

#include <algorithm>

#include "cpu/matmul.h"
#include "cpu/rms_norm.h"

namespace ft::cpu {

void linear(WorkerPool& pool, const model::TensorView& w, const float* x, std::int64_t m, float* y) {
    // Row blocks: enough tasks per thread for balance, large enough to amortise the task claim.
    const std::int64_t n = w.rows;
    const std::int64_t per = std::max<std::int64_t>(8, n / (std::int64_t(pool.size()) * 8));
    const std::int64_t tasks = (n + per - 1) / per;
    pool.parallel_for(tasks, [&](std::int64_t t, int) {
        const std::int64_t r0 = t * per, r1 = std::min(n, r0 + per);
        if (m == 1) kernels::cpu::matvec_rows(w.type, w.data, w.row_bytes, w.cols, x, y, r0, r1);
        else kernels::cpu::matmul_rows(w.type, w.data, w.row_bytes, w.cols, x, w.cols, m, y, n, r0, r1);
    });
}

void add_rows(const std::vector<float>& b, float* y, std::int64_t m) {
    const std::int64_t n = std::int64_t(b.size());
    for (std::int64_t r = 0; r < m; ++r)
        for (std::int64_t c = 0; c < n; ++c) y[r * n + c] += b[std::size_t(c)];
}

void rms_norm_rows(WorkerPool& pool, const float* x, const std::vector<float>& w, float eps, std::int64_t n_rows,
                   float* y) {
    const std::int64_t cols = std::int64_t(w.size());
    if (n_rows * cols < 65536) {
        kernels::cpu::rms_norm_f32(x, w.data(), y, n_rows, cols, eps);
        return;
    }
    const std::int64_t per = std::max<std::int64_t>(1, n_rows / (std::int64_t(pool.size()) * 4));
    pool.parallel_for((n_rows + per - 1) / per, [&](std::int64_t t, int) {
        const std::int64_t r0 = t * per, r1 = std::min(n_rows, r0 + per);
        kernels::cpu::rms_norm_f32(x + r0 * cols, w.data(), y + r0 * cols, r1 - r0, cols, eps);
    });
}

}  // namespace ft::cpu
