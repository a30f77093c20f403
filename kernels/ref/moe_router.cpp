#include "ref/moe_router.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace ft::kernels::ref {

namespace {
// torch's softplus (threshold 20: x itself above it), then the square root.
double sqrt_softplus(float x) { return std::sqrt(x > 20.f ? double(x) : std::log1p(std::exp(double(x)))); }
}  // namespace

void moe_route_fixed(const RouterParams& p, const float* logits, const std::int32_t* ids, float* weights) {
    std::vector<double> w(size_t(p.k));
    double mx = logits[0], denom = 0;
    if (p.gating == RouterGating::softmax) {
        for (int e = 1; e < p.n_expert; ++e) mx = std::max(mx, double(logits[e]));
        for (int e = 0; e < p.n_expert; ++e) denom += std::exp(double(logits[e]) - mx);
    }
    double sum = 0;
    for (int i = 0; i < p.k; ++i) {
        const double x = logits[ids[i]];
        switch (p.gating) {
            case RouterGating::softmax: w[size_t(i)] = std::exp(x - mx) / denom; break;
            case RouterGating::sigmoid: w[size_t(i)] = 1.0 / (1.0 + std::exp(-x)); break;
            case RouterGating::sqrtsoftplus: w[size_t(i)] = sqrt_softplus(float(x)); break;
            case RouterGating::softmax_weight: w[size_t(i)] = std::exp(x); break;  // normalized over the k below
        }
        sum += w[size_t(i)];
    }
    const bool norm = p.gating == RouterGating::softmax_weight || p.norm_topk;
    for (int i = 0; i < p.k; ++i) weights[i] = float((norm && sum > 0 ? w[size_t(i)] / sum : w[size_t(i)]) * p.scale);
}

void moe_route(const RouterParams& p, const float* logits, std::int32_t* ids, float* weights) {
    const int n = p.n_expert;
    std::vector<double> score(static_cast<size_t>(n)), select(static_cast<size_t>(n));
    if (p.gating == RouterGating::softmax) {
        const double mx = *std::max_element(logits, logits + n);
        double sum = 0;
        for (int e = 0; e < n; ++e) sum += (score[size_t(e)] = std::exp(double(logits[e]) - mx));
        for (auto& s : score) s /= sum;
        select = score;
    } else if (p.gating == RouterGating::sigmoid) {
        for (int e = 0; e < n; ++e) {
            score[size_t(e)] = 1.0 / (1.0 + std::exp(-double(logits[e])));
            select[size_t(e)] = score[size_t(e)] + (p.bias ? double(p.bias[e]) : 0.0);
        }
        if (p.n_group > 0 && p.topk_group > 0 && p.topk_group < p.n_group) {
            const int per = n / p.n_group;
            std::vector<std::pair<double, int>> groups;
            for (int g = 0; g < p.n_group; ++g) {
                std::vector<double> v(select.begin() + g * per, select.begin() + (g + 1) * per);
                std::sort(v.begin(), v.end(), std::greater<>());
                groups.emplace_back(v[0] + (per > 1 ? v[1] : 0.0), g);
            }
            std::stable_sort(groups.begin(), groups.end(), [](auto& a, auto& b) { return a.first > b.first; });
            std::vector<bool> keep(size_t(p.n_group), false);
            for (int i = 0; i < p.topk_group; ++i) keep[size_t(groups[size_t(i)].second)] = true;
            for (int e = 0; e < n; ++e)
                if (!keep[size_t(e / per)]) select[size_t(e)] = -INFINITY;
        }
    } else if (p.gating == RouterGating::sqrtsoftplus) {
        for (int e = 0; e < n; ++e) {
            score[size_t(e)] = sqrt_softplus(logits[e]);
            select[size_t(e)] = score[size_t(e)] + (p.bias ? double(p.bias[e]) : 0.0);
        }
    } else {
        for (int e = 0; e < n; ++e) select[size_t(e)] = score[size_t(e)] = logits[e];
    }
    std::vector<int> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return select[size_t(a)] > select[size_t(b)]; });
    std::vector<double> w(size_t(p.k));
    for (int i = 0; i < p.k; ++i) {
        ids[i] = order[size_t(i)];
        w[size_t(i)] = score[size_t(order[size_t(i)])];
    }
    if (p.gating == RouterGating::softmax_weight) {
        const double mx = *std::max_element(w.begin(), w.end());
        double sum = 0;
        for (auto& x : w) sum += (x = std::exp(x - mx));
        for (auto& x : w) x /= sum;
    } else if (p.norm_topk) {
        const double sum = std::accumulate(w.begin(), w.end(), 0.0);
        for (auto& x : w) x /= sum;
    }
    for (int i = 0; i < p.k; ++i) weights[i] = float(w[size_t(i)] * p.scale);
}

}  // namespace ft::kernels::ref
