#include "model/cpu_ops.h"

#include <algorithm>

#include "cpu/matmul.h"
#include "cpu/rms_norm.h"

namespace ft::model {

void linear(cpu::WorkerPool& pool, const TensorView& w, const float* x, std::int64_t m, float* y) {
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

std::vector<float> vector_f32(const TensorView& v) {
    std::vector<float> out(std::size_t(v.cols * v.rows));
    for (std::int64_t r = 0; r < v.rows; ++r)
        kernels::cpu::dequantize_row(v.type, v.row(r), out.data() + r * v.cols, v.cols);
    return out;
}

void rms_norm_rows(cpu::WorkerPool& pool, const float* x, const std::vector<float>& w, float eps, std::int64_t n_rows,
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

}  // namespace ft::model
