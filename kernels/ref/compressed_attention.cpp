#include "ref/compressed_attention.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace ft::kernels::ref {

void compress_entry_f32(const float* kv, const float* gate, int n_slots, int dim, std::int64_t ld, float* out) {
    for (int c = 0; c < dim; ++c) {
        double mx = -INFINITY;
        for (int s = 0; s < n_slots; ++s) mx = std::max(mx, double(gate[s * ld + c]));
        double sum = 0, acc = 0;
        for (int s = 0; s < n_slots; ++s) {
            const double e = std::exp(double(gate[s * ld + c]) - mx);
            sum += e;
            acc += e * kv[s * ld + c];
        }
        out[c] = float(acc / sum);
    }
}

int index_topk_f32(const float* q, const float* w, int n_heads, int dim, float scale, const float* const* keys, int n,
                   int topk, std::int32_t* out) {
    std::vector<double> score(static_cast<std::size_t>(n));
    for (int e = 0; e < n; ++e) {
        double s = 0;
        for (int h = 0; h < n_heads; ++h) {
            double dot = 0;
            for (int c = 0; c < dim; ++c) dot += double(q[h * dim + c]) * keys[e][c];
            s += double(w[h]) * std::max(0.0, dot) * scale;
        }
        score[std::size_t(e)] = s;
    }
    return index_select(score.data(), n, topk, out);
}

int index_select(const double* score, int n, int topk, std::int32_t* out) {
    std::vector<int> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    const int k = std::min(topk, n);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return score[a] > score[b]; });
    std::sort(order.begin(), order.begin() + k);
    for (int i = 0; i < k; ++i) out[i] = order[std::size_t(i)];
    return k;
}

void shared_kv_attention_f32(const float* q, int n_heads, int dim, float scale, const float* sinks,
                             const float* const* rows, int n_rows, float* out) {
    std::vector<double> logit(static_cast<std::size_t>(n_rows)), acc(static_cast<std::size_t>(dim));
    for (int h = 0; h < n_heads; ++h) {
        const float* qh = q + std::int64_t(h) * dim;
        double mx = sinks ? double(sinks[h]) : -INFINITY;
        for (int r = 0; r < n_rows; ++r) {
            double dot = 0;
            for (int c = 0; c < dim; ++c) dot += double(qh[c]) * rows[r][c];
            logit[std::size_t(r)] = dot * scale;
            mx = std::max(mx, logit[std::size_t(r)]);
        }
        double sum = sinks ? std::exp(double(sinks[h]) - mx) : 0.0;
        std::fill(acc.begin(), acc.end(), 0.0);
        for (int r = 0; r < n_rows; ++r) {
            const double e = std::exp(logit[std::size_t(r)] - mx);
            sum += e;
            for (int c = 0; c < dim; ++c) acc[std::size_t(c)] += e * rows[r][c];
        }
        for (int c = 0; c < dim; ++c) out[std::int64_t(h) * dim + c] = float(acc[std::size_t(c)] / sum);
    }
}

}  // namespace ft::kernels::ref
