#include "ref/hyper_connection.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ft::kernels::ref {

namespace {
double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
}  // namespace

void hc_weights(const HyperParams& p, const float* mix, const float* scale, const float* base, float* pre, float* post,
                float* comb) {
    const int n = p.n;
    for (int j = 0; j < n; ++j) {
        pre[j] = float(sigmoid(double(mix[j]) * scale[0] + base[j]) + p.eps);
        post[j] = float(2.0 * sigmoid(double(mix[n + j]) * scale[1] + base[n + j]));
    }
    std::vector<double> c(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));
    for (int j = 0; j < n; ++j) {
        double mx = -INFINITY;
        for (int k = 0; k < n; ++k) {
            const int i = 2 * n + j * n + k;
            c[std::size_t(j * n + k)] = double(mix[i]) * scale[2] + base[i];
            mx = std::max(mx, c[std::size_t(j * n + k)]);
        }
        double sum = 0;
        for (int k = 0; k < n; ++k) sum += (c[std::size_t(j * n + k)] = std::exp(c[std::size_t(j * n + k)] - mx));
        for (int k = 0; k < n; ++k) c[std::size_t(j * n + k)] = c[std::size_t(j * n + k)] / sum + p.eps;
    }
    auto columns = [&] {
        for (int k = 0; k < n; ++k) {
            double s = 0;
            for (int j = 0; j < n; ++j) s += c[std::size_t(j * n + k)];
            for (int j = 0; j < n; ++j) c[std::size_t(j * n + k)] /= s + p.eps;
        }
    };
    auto rows = [&] {
        for (int j = 0; j < n; ++j) {
            double s = 0;
            for (int k = 0; k < n; ++k) s += c[std::size_t(j * n + k)];
            for (int k = 0; k < n; ++k) c[std::size_t(j * n + k)] /= s + p.eps;
        }
    };
    columns();
    for (int it = 1; it < p.sinkhorn_iters; ++it) {
        rows();
        columns();
    }
    for (int i = 0; i < n * n; ++i) comb[i] = float(c[std::size_t(i)]);
}

void hc_head_weights(const HyperParams& p, const float* mix, const float* scale, const float* base, float* pre) {
    for (int j = 0; j < p.n; ++j) pre[j] = float(sigmoid(double(mix[j]) * scale[0] + base[j]) + p.eps);
}

void hc_collapse(int n, std::int64_t d, const float* pre, const float* x, float* out) {
    for (std::int64_t i = 0; i < d; ++i) {
        double s = 0;
        for (int j = 0; j < n; ++j) s += double(pre[j]) * x[j * d + i];
        out[i] = float(s);
    }
}

void hc_expand(int n, std::int64_t d, const float* post, const float* comb, const float* y, float* x) {
    std::vector<double> col(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < d; ++i) {
        for (int k = 0; k < n; ++k) {
            double s = double(post[k]) * y[i];
            for (int j = 0; j < n; ++j) s += double(comb[j * n + k]) * x[j * d + i];
            col[std::size_t(k)] = s;
        }
        for (int k = 0; k < n; ++k) x[k * d + i] = float(col[std::size_t(k)]);
    }
}

}  // namespace ft::kernels::ref
