#include "cuda/hyper_connection.cuh"

#include <algorithm>
#include <cmath>

namespace ft::kernels::cuda {

namespace {

constexpr int kMaxStreams = 16;  // hyper-connection streams a block handles

__device__ double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

// ---- hyper-connections ----

__global__ void hc_pre_kernel(const float* __restrict__ mix, std::int64_t mix_ld, const float* __restrict__ scale,
                              const float* __restrict__ base, const float* __restrict__ x, int n, std::int64_t E,
                              int iters, float eps, bool head, float* __restrict__ out, float* __restrict__ post,
                              float* __restrict__ comb) {
    __shared__ float pre_s[kMaxStreams];
    const std::int64_t t = blockIdx.x;
    const float* m = mix + t * mix_ld;
    if (threadIdx.x == 0) {
        // As ref::hc_weights, in double.
        for (int j = 0; j < n; ++j) pre_s[j] = float(sigmoid(double(m[j]) * scale[0] + base[j]) + eps);
        if (!head) {
            for (int j = 0; j < n; ++j) post[t * n + j] = float(2.0 * sigmoid(double(m[n + j]) * scale[1] + base[n + j]));
            double c[kMaxStreams * kMaxStreams];
            for (int j = 0; j < n; ++j) {
                double mx = -INFINITY;
                for (int k = 0; k < n; ++k) {
                    const int i = 2 * n + j * n + k;
                    c[j * n + k] = double(m[i]) * scale[2] + base[i];
                    mx = fmax(mx, c[j * n + k]);
                }
                double sum = 0;
                for (int k = 0; k < n; ++k) sum += (c[j * n + k] = exp(c[j * n + k] - mx));
                for (int k = 0; k < n; ++k) c[j * n + k] = c[j * n + k] / sum + eps;
            }
            for (int it = 0; it < iters; ++it) {
                if (it > 0)
                    for (int j = 0; j < n; ++j) {  // rows
                        double s = 0;
                        for (int k = 0; k < n; ++k) s += c[j * n + k];
                        for (int k = 0; k < n; ++k) c[j * n + k] /= s + eps;
                    }
                for (int k = 0; k < n; ++k) {  // columns
                    double s = 0;
                    for (int j = 0; j < n; ++j) s += c[j * n + k];
                    for (int j = 0; j < n; ++j) c[j * n + k] /= s + eps;
                }
            }
            for (int i = 0; i < n * n; ++i) comb[t * n * n + i] = float(c[i]);
        }
    }
    __syncthreads();
    const float* xs = x + t * n * E;
    for (std::int64_t i = threadIdx.x; i < E; i += blockDim.x) {
        float s = 0.f;
        for (int j = 0; j < n; ++j) s = fmaf(pre_s[j], xs[j * E + i], s);
        out[t * E + i] = s;
    }
}

__global__ void hc_post_kernel(const float* __restrict__ post, const float* __restrict__ comb, const float* __restrict__ y,
                               int n, std::int64_t E, std::int64_t n_tokens, float* __restrict__ x) {
    const std::int64_t idx = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= n_tokens * E) return;
    const std::int64_t t = idx / E, i = idx % E;
    float* xs = x + t * n * E;
    float in[kMaxStreams];
    for (int j = 0; j < n; ++j) in[j] = xs[j * E + i];
    const float* c = comb + t * n * n;
    const float yv = y[t * E + i];
    for (int k = 0; k < n; ++k) {
        float s = post[t * n + k] * yv;
        for (int j = 0; j < n; ++j) s = fmaf(c[j * n + k], in[j], s);
        xs[k * E + i] = s;
    }
}

__global__ void hc_spread_kernel(const float* __restrict__ e, int n, std::int64_t E, std::int64_t n_tokens,
                                 float* __restrict__ x) {
    const std::int64_t idx = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= n_tokens * n * E) return;
    const std::int64_t t = idx / (n * E), i = idx % E;
    x[idx] = e[t * E + i];
}

unsigned grid_of(std::int64_t n, int per) { return static_cast<unsigned>((n + per - 1) / per); }

}  // namespace

cudaError_t hc_pre(const float* mix, std::int64_t mix_ld, const float* scale, const float* base, const float* x, int n,
                   std::int64_t n_embd, int sinkhorn_iters, float eps, bool head, std::int64_t n_tokens, float* out,
                   float* post, float* comb, cudaStream_t stream) {
    if (n < 1 || n > kMaxStreams || n_embd < 1 || n_tokens < 0 || n_tokens > 0x7fffffff || (!head && (!post || !comb)))
        return cudaErrorInvalidValue;
    if (n_tokens == 0) return cudaSuccess;
    hc_pre_kernel<<<unsigned(n_tokens), 256, 0, stream>>>(mix, mix_ld, scale, base, x, n, n_embd, sinkhorn_iters, eps,
                                                         head, out, post, comb);
    return cudaGetLastError();
}

cudaError_t hc_post(const float* post, const float* comb, const float* y, int n, std::int64_t n_embd,
                    std::int64_t n_tokens, float* x, cudaStream_t stream) {
    if (n < 1 || n > kMaxStreams || n_embd < 1 || n_tokens < 0) return cudaErrorInvalidValue;
    if (n_tokens == 0) return cudaSuccess;
    hc_post_kernel<<<grid_of(n_tokens * n_embd, 256), 256, 0, stream>>>(post, comb, y, n, n_embd, n_tokens, x);
    return cudaGetLastError();
}

cudaError_t hc_spread(const float* e, int n, std::int64_t n_embd, std::int64_t n_tokens, float* x, cudaStream_t stream) {
    if (n < 1 || n_embd < 1 || n_tokens < 0) return cudaErrorInvalidValue;
    if (n_tokens == 0) return cudaSuccess;
    hc_spread_kernel<<<grid_of(n_tokens * n * n_embd, 256), 256, 0, stream>>>(e, n, n_embd, n_tokens, x);
    return cudaGetLastError();
}

}  // namespace ft::kernels::cuda
