#include "ref/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace ft::kernels::ref {

void attention_f32(const AttentionParams& p, const float* q, const std::int32_t* pos, const PagedKvView& kv,
                   float* out, std::int64_t task_begin, std::int64_t task_end) {
    const int group = p.n_head / p.n_head_kv;
    std::vector<double> s;
    for (std::int64_t task = task_begin; task < task_end; ++task) {
        const std::int64_t t = task / p.n_head;
        const int h = int(task % p.n_head), hk = h / group;
        const float* qv = q + task * p.head_dim;
        const std::int64_t last = pos[t];
        const std::int64_t first = p.window > 0 ? std::max<std::int64_t>(0, last - p.window + 1) : 0;
        s.assign(size_t(last - first + 1), 0.0);
        double mx = p.sinks ? double(p.sinks[h]) : -std::numeric_limits<double>::infinity();
        for (std::int64_t j = first; j <= last; ++j) {
            const std::int64_t slot = std::int64_t(kv.page_table[j / p.page_size]) * p.page_size + j % p.page_size;
            const float* kj = kv.k + (slot * p.n_head_kv + hk) * p.head_dim;
            double dot = 0;
            for (int d = 0; d < p.head_dim; ++d) dot += double(qv[d]) * double(kj[d]);
            s[size_t(j - first)] = dot * p.scale;
            mx = std::max(mx, s[size_t(j - first)]);
        }
        double sum = p.sinks ? std::exp(double(p.sinks[h]) - mx) : 0.0;
        for (auto& x : s) sum += (x = std::exp(x - mx));
        float* o = out + task * p.v_head_dim;
        for (int d = 0; d < p.v_head_dim; ++d) {
            double acc = 0;
            for (std::int64_t j = first; j <= last; ++j) {
                const std::int64_t slot = std::int64_t(kv.page_table[j / p.page_size]) * p.page_size + j % p.page_size;
                acc += s[size_t(j - first)] * double(kv.v[(slot * p.n_head_kv + hk) * p.v_head_dim + d]);
            }
            o[d] = float(acc / sum);
        }
    }
}

}  // namespace ft::kernels::ref
