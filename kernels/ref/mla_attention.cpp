#include "ref/mla_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace ft::kernels::ref {

void mla_attention_f32(const MlaParams& p, const float* q, const std::int32_t* pos, const float* kv,
                       const std::int32_t* page_table, float* out, std::int64_t task_begin, std::int64_t task_end) {
    const int D = p.kv_dim();
    std::vector<double> s;
    for (std::int64_t task = task_begin; task < task_end; ++task) {
        const std::int64_t t = task / p.n_head;
        const float* qv = q + task * D;
        const std::int64_t last = pos[t];
        auto row = [&](std::int64_t j) {
            return kv + (std::int64_t(page_table[j / p.page_size]) * p.page_size + j % p.page_size) * D;
        };
        s.assign(std::size_t(last + 1), 0.0);
        double mx = -std::numeric_limits<double>::infinity();
        for (std::int64_t j = 0; j <= last; ++j) {
            const float* r = row(j);
            double dot = 0;
            for (int d = 0; d < D; ++d) dot += double(qv[d]) * double(r[d]);
            s[std::size_t(j)] = dot * p.scale;
            mx = std::max(mx, s[std::size_t(j)]);
        }
        double sum = 0;
        for (auto& x : s) sum += (x = std::exp(x - mx));
        float* o = out + task * p.kv_lora;
        for (int d = 0; d < p.kv_lora; ++d) {
            double acc = 0;
            for (std::int64_t j = 0; j <= last; ++j) acc += s[std::size_t(j)] * double(row(j)[d]);
            o[d] = float(acc / sum);
        }
    }
}

void mla_kv_row(const MlaParams& p, const float* kva, const float* norm_w, float eps, float* row) {
    double ss = 0;
    for (int d = 0; d < p.kv_lora; ++d) ss += double(kva[d]) * double(kva[d]);
    const float inv = float(1.0 / std::sqrt(ss / p.kv_lora + double(eps)));
    for (int d = 0; d < p.kv_lora; ++d) row[d] = kva[d] * inv * norm_w[d];
    for (int d = p.kv_lora; d < p.kv_dim(); ++d) row[d] = kva[d];
}

}  // namespace ft::kernels::ref
