#include "cuda/gated_delta.cuh"

#include <algorithm>

namespace ft::kernels::cuda {

namespace {

constexpr unsigned kFull = 0xffffffffu;
constexpr int kMaxKernel = 8;
constexpr int kConvBlock = 256;
constexpr int kMaxGridY = 65535;
constexpr int kDeltaThreads = 64;
constexpr int kTile = 16;  // prefill tokens staged at once
constexpr int kNormWarps = 8;

__device__ __forceinline__ float silu(float u) { return u / (1.f + expf(-u)); }

__device__ __forceinline__ float warp_sum(float v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(kFull, v, off);
    return v;
}

// grid (channel blocks, tokens).
__global__ void conv_decode_kernel(const float* __restrict__ x, std::int64_t ldx, int C, int K,
                                   const float* __restrict__ w, const std::int32_t* __restrict__ seq,
                                   float* __restrict__ states, float* __restrict__ y, std::int64_t ldy) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const std::int64_t t = blockIdx.y;
    const int s = seq[t];
    if (c >= C || s < 0) return;
    const int H = K - 1;
    float* st = states + (std::int64_t(s) * C + c) * H;
    const float* wc = w + std::int64_t(c) * K;
    const float xt = x[t * ldx + c];
    float acc = wc[H] * xt;
    for (int i = 0; i < H; ++i) acc = fmaf(wc[i], st[i], acc);
    for (int i = 0; i + 1 < H; ++i) st[i] = st[i + 1];
    st[H - 1] = xt;
    y[t * ldy + c] = silu(acc);
}

// grid (channel blocks, min(tokens, 65535)); reads the state as it was before the call.
__global__ void conv_prefill_kernel(const float* __restrict__ x, std::int64_t ldx, std::int64_t T, int C, int K,
                                    const float* __restrict__ w, const float* __restrict__ state,
                                    float* __restrict__ y, std::int64_t ldy) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= C) return;
    const int H = K - 1;
    const float* wc = w + std::int64_t(c) * K;
    for (std::int64_t t = blockIdx.y; t < T; t += gridDim.y) {
        float acc = 0.f;
        for (int i = 0; i < K; ++i) {
            const std::int64_t j = t + i;  // row of xx: the state's H rows, then x
            acc = fmaf(wc[i], j < H ? state[std::int64_t(c) * H + j] : x[(j - H) * ldx + c], acc);
        }
        y[t * ldy + c] = silu(acc);
    }
}

// After conv_prefill_kernel: state[c, :] = xx[T .. T + H - 1, c].
__global__ void conv_state_kernel(const float* __restrict__ x, std::int64_t ldx, std::int64_t T, int C, int K,
                                  float* __restrict__ state) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= C) return;
    const int H = K - 1;
    float* st = state + std::int64_t(c) * H;
    float next[kMaxKernel - 1];
#pragma unroll
    for (int i = 0; i < kMaxKernel - 1; ++i)
        if (i < H) next[i] = T + i < H ? st[T + i] : x[(T + i - H) * ldx + c];
#pragma unroll
    for (int i = 0; i < kMaxKernel - 1; ++i)
        if (i < H) st[i] = next[i];
}

// grid (sequences, n_heads, column slices). Lane l of a warp holds column l / G of the slice and rows r·G + l % G
// (r < 32) of it: the G lanes of a column are adjacent, so their partial sums meet over shuffles, and their reads of
// a staged q or k row hit G consecutive banks. Sequence b runs tokens [b·tps, (b + 1)·tps) on the state of slot[b]
// (slot null: on states itself).
template <int G>
__global__ void __launch_bounds__(kDeltaThreads)
gated_delta_kernel(GatedDeltaParams p, const float* __restrict__ q, const float* __restrict__ k,
                   const float* __restrict__ v, const float* __restrict__ g, const float* __restrict__ beta,
                   std::int64_t tps, const std::int32_t* __restrict__ slot, float* __restrict__ states,
                   float* __restrict__ out) {
    constexpr int DK = 32 * G, kCols = kDeltaThreads / G;
    __shared__ float qs[kTile][DK], ks[kTile][DK], sa[kTile], sb[kTile], skq[kTile];
    const int s = slot ? slot[blockIdx.x] : 0;
    if (s < 0) return;
    const int h = blockIdx.y, hk = p.k_head(h), gi = threadIdx.x % G;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int col = blockIdx.z * kCols + threadIdx.x / G;
    const bool active = col < p.dv;
    float* S = states + (std::int64_t(s) * p.n_heads + h) * DK * p.dv + col;  // row i of the column at S[i·dv]
    float st[32];
#pragma unroll
    for (int r = 0; r < 32; ++r) st[r] = active ? S[std::int64_t(r * G + gi) * p.dv] : 0.f;
    const float scale = rsqrtf(float(DK));
    const std::int64_t t0 = std::int64_t(blockIdx.x) * tps, t1 = t0 + tps;
    for (std::int64_t base = t0; base < t1; base += kTile) {
        const int n = t1 - base < kTile ? int(t1 - base) : kTile;
        __syncthreads();
        // Stage q̂ (normalized, scaled), k̂, k̂·q̂, e^g and beta of n tokens: a warp per token.
        for (int r = warp; r < n; r += kDeltaThreads / 32) {
            const std::int64_t t = base + r;
            const float* qr = q + t * p.ldq + std::int64_t(hk) * DK;
            const float* kr = k + t * p.ldk + std::int64_t(hk) * DK;
            float qv[G], kv[G], qq = 0.f, kk = 0.f;
#pragma unroll
            for (int m = 0; m < G; ++m) {
                qv[m] = qr[lane + 32 * m];
                kv[m] = kr[lane + 32 * m];
                qq = fmaf(qv[m], qv[m], qq);
                kk = fmaf(kv[m], kv[m], kk);
            }
            qq = warp_sum(qq);
            kk = warp_sum(kk);
            const float qsc = p.l2norm_qk ? scale * rsqrtf(qq + kGatedDeltaNormEps) : scale;
            const float ksc = p.l2norm_qk ? rsqrtf(kk + kGatedDeltaNormEps) : 1.f;
            float kq = 0.f;
#pragma unroll
            for (int m = 0; m < G; ++m) {
                qs[r][lane + 32 * m] = qv[m] * qsc;
                ks[r][lane + 32 * m] = kv[m] * ksc;
                kq = fmaf(qv[m] * qsc, kv[m] * ksc, kq);
            }
            kq = warp_sum(kq);
            if (lane == 0) {
                sa[r] = expf(g[t * p.n_heads + h]);
                sb[r] = beta[t * p.n_heads + h];
                skq[r] = kq;
            }
        }
        __syncthreads();
        for (int r = 0; r < n; ++r) {
            const std::int64_t t = base + r;
            const float vj = active ? v[t * p.ldv + std::int64_t(h) * p.dv + col] : 0.f;
            // Sᵀk and Sᵀq of the state before this token, in two partial sums each (shorter dependency chains).
            float kv0 = 0.f, kv1 = 0.f, sq0 = 0.f, sq1 = 0.f;
#pragma unroll
            for (int i = 0; i < 32; i += 2) {
                kv0 = fmaf(st[i], ks[r][i * G + gi], kv0);
                sq0 = fmaf(st[i], qs[r][i * G + gi], sq0);
                kv1 = fmaf(st[i + 1], ks[r][(i + 1) * G + gi], kv1);
                sq1 = fmaf(st[i + 1], qs[r][(i + 1) * G + gi], sq1);
            }
            float kv = kv0 + kv1, sq = sq0 + sq1;
#pragma unroll
            for (int off = 1; off < G; off <<= 1) {
                kv += __shfl_xor_sync(kFull, kv, off);
                sq += __shfl_xor_sync(kFull, sq, off);
            }
            const float a = sa[r], d = sb[r] * (vj - a * kv);
#pragma unroll
            for (int i = 0; i < 32; ++i) st[i] = fmaf(ks[r][i * G + gi], d, st[i] * a);
            if (active && gi == 0) out[(t * p.n_heads + h) * p.dv + col] = fmaf(skq[r], d, a * sq);
        }
    }
    if (active) {
#pragma unroll
        for (int r = 0; r < 32; ++r) S[std::int64_t(r * G + gi) * p.dv] = st[r];
    }
}

// grid (ceil(n_rows / kNormWarps)): a warp per row.
__global__ void gated_rms_norm_kernel(const float* __restrict__ x, const float* __restrict__ z,
                                      const float* __restrict__ w, float* __restrict__ y, std::int64_t n_rows,
                                      std::int64_t n_cols, float eps) {
    const std::int64_t row = std::int64_t(blockIdx.x) * kNormWarps + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (row >= n_rows) return;
    const float* xr = x + row * n_cols;
    const float* zr = z + row * n_cols;
    float ss = 0.f;
    for (std::int64_t c = lane; c < n_cols; c += 32) ss = fmaf(xr[c], xr[c], ss);
    const float inv = rsqrtf(warp_sum(ss) / float(n_cols) + eps);
    for (std::int64_t c = lane; c < n_cols; c += 32) y[row * n_cols + c] = xr[c] * inv * w[c] * silu(zr[c]);
}

bool conv_ok(std::int64_t ldx, std::int64_t n_tokens, int channels, int kernel, std::int64_t ldy) {
    return channels >= 1 && kernel >= 2 && kernel <= kMaxKernel && n_tokens >= 0 && ldx >= channels && ldy >= channels;
}

unsigned blocks(std::int64_t n, int per) { return unsigned((n + per - 1) / per); }

template <int G>
void launch_delta(dim3 grid, const GatedDeltaParams& p, const float* q, const float* k, const float* v, const float* g,
                  const float* beta, std::int64_t tps, const std::int32_t* slot, float* states, float* out,
                  cudaStream_t stream) {
    gated_delta_kernel<G><<<grid, kDeltaThreads, 0, stream>>>(p, q, k, v, g, beta, tps, slot, states, out);
}

// Checks the shape, resolves the strides and launches n_seqs sequences of tps tokens.
cudaError_t delta(GatedDeltaParams p, const float* q, const float* k, const float* v, const float* g,
                  const float* beta, std::int64_t n_seqs, std::int64_t tps, const std::int32_t* slot, float* states,
                  float* out, cudaStream_t stream) {
    if (p.n_heads < 1 || p.n_heads > kMaxGridY || p.n_k_heads < 1 || p.n_heads % p.n_k_heads || p.dv < 1 ||
        (p.dk != 32 && p.dk != 64 && p.dk != 128 && p.dk != 256))
        return cudaErrorInvalidValue;
    p.ldq = p.q_stride();
    p.ldk = p.k_stride();
    p.ldv = p.v_stride();
    if (p.ldq < std::int64_t(p.n_k_heads) * p.dk || p.ldk < std::int64_t(p.n_k_heads) * p.dk ||
        p.ldv < std::int64_t(p.n_heads) * p.dv || n_seqs < 0 || n_seqs > 0x7fffffff)
        return cudaErrorInvalidValue;
    if (n_seqs == 0 || tps == 0) return cudaSuccess;
    const int G = p.dk / 32;
    const dim3 grid(unsigned(n_seqs), unsigned(p.n_heads), blocks(p.dv, kDeltaThreads / G));
    switch (G) {
        case 1: launch_delta<1>(grid, p, q, k, v, g, beta, tps, slot, states, out, stream); break;
        case 2: launch_delta<2>(grid, p, q, k, v, g, beta, tps, slot, states, out, stream); break;
        case 4: launch_delta<4>(grid, p, q, k, v, g, beta, tps, slot, states, out, stream); break;
        default: launch_delta<8>(grid, p, q, k, v, g, beta, tps, slot, states, out, stream); break;
    }
    return cudaGetLastError();
}

}  // namespace

cudaError_t causal_conv1d_silu_decode(const float* x, std::int64_t ldx, std::int64_t n_tokens, int channels, int kernel,
                                      const float* w, const std::int32_t* seq, float* states, float* y,
                                      std::int64_t ldy, cudaStream_t stream) {
    if (!conv_ok(ldx, n_tokens, channels, kernel, ldy) || n_tokens > kMaxGridY) return cudaErrorInvalidValue;
    if (n_tokens == 0) return cudaSuccess;
    const dim3 grid(blocks(channels, kConvBlock), unsigned(n_tokens));
    conv_decode_kernel<<<grid, kConvBlock, 0, stream>>>(x, ldx, channels, kernel, w, seq, states, y, ldy);
    return cudaGetLastError();
}

cudaError_t causal_conv1d_silu_prefill(const float* x, std::int64_t ldx, std::int64_t n_tokens, int channels,
                                       int kernel, const float* w, float* state, float* y, std::int64_t ldy,
                                       cudaStream_t stream) {
    if (!conv_ok(ldx, n_tokens, channels, kernel, ldy)) return cudaErrorInvalidValue;
    if (n_tokens == 0) return cudaSuccess;
    const dim3 grid(blocks(channels, kConvBlock), unsigned(std::min<std::int64_t>(n_tokens, kMaxGridY)));
    conv_prefill_kernel<<<grid, kConvBlock, 0, stream>>>(x, ldx, n_tokens, channels, kernel, w, state, y, ldy);
    conv_state_kernel<<<blocks(channels, kConvBlock), kConvBlock, 0, stream>>>(x, ldx, n_tokens, channels, kernel,
                                                                              state);
    return cudaGetLastError();
}

cudaError_t gated_delta_decode(const GatedDeltaParams& p, const float* q, const float* k, const float* v,
                               const float* g, const float* beta, std::int64_t n_tokens, const std::int32_t* slot,
                               float* states, float* out, cudaStream_t stream) {
    if (!slot) return cudaErrorInvalidValue;
    return delta(p, q, k, v, g, beta, n_tokens, 1, slot, states, out, stream);
}

cudaError_t gated_delta_prefill(const GatedDeltaParams& p, const float* q, const float* k, const float* v,
                                const float* g, const float* beta, std::int64_t n_tokens, float* state, float* out,
                                cudaStream_t stream) {
    if (n_tokens < 0) return cudaErrorInvalidValue;
    return delta(p, q, k, v, g, beta, 1, n_tokens, nullptr, state, out, stream);
}

cudaError_t gated_rms_norm_f32(const float* x, const float* z, const float* w, float* y, std::int64_t n_rows,
                               std::int64_t n_cols, float eps, cudaStream_t stream) {
    if (n_rows < 0 || n_cols < 1 || (n_rows + kNormWarps - 1) / kNormWarps > 0x7fffffff) return cudaErrorInvalidValue;
    if (n_rows == 0) return cudaSuccess;
    gated_rms_norm_kernel<<<blocks(n_rows, kNormWarps), kNormWarps * 32, 0, stream>>>(x, z, w, y, n_rows, n_cols, eps);
    return cudaGetLastError();
}

namespace {

__global__ void gates_kernel(const float* __restrict__ ba, std::int64_t ld, std::int64_t n, int n_heads, int group,
                             const float* __restrict__ dt_bias, const float* __restrict__ a_neg, float* __restrict__ beta,
                             float* __restrict__ g) {
    const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n * n_heads) return;
    const std::int64_t t = i / n_heads;
    const int h = int(i % n_heads);
    const int ib = group ? (h / group) * 2 * group + h % group : h, ia = group ? ib + group : n_heads + h;
    const float b = ba[t * ld + ib], u = ba[t * ld + ia] + dt_bias[h];
    beta[i] = 1.f / (1.f + expf(-b));
    g[i] = a_neg[h] * (u > 20.f ? u : log1pf(expf(u)));
}

__global__ void reset_kernel(const std::int32_t* __restrict__ pos, const std::int32_t* __restrict__ slot,
                             std::int64_t n_tokens, float* conv, std::int64_t conv_floats, float* delta,
                             std::int64_t delta_floats) {
    for (std::int64_t t = blockIdx.y; t < n_tokens; t += gridDim.y) {
        if (pos[t] != 0 || slot[t] < 0) continue;
        float* c = conv + std::int64_t(slot[t]) * conv_floats;
        float* d = delta + std::int64_t(slot[t]) * delta_floats;
        for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < conv_floats + delta_floats;
             i += std::int64_t(gridDim.x) * blockDim.x)
            (i < conv_floats ? c[i] : d[i - conv_floats]) = 0.f;
    }
}

}  // namespace

cudaError_t gated_delta_gates(const float* ba, std::int64_t ld, std::int64_t n_tokens, int n_heads, int group,
                              const float* dt_bias, const float* a_neg, float* beta, float* g, cudaStream_t stream) {
    if (n_tokens < 0 || n_heads < 1 || group < 0 || (group && n_heads % group) || ld < 2 * n_heads) return cudaErrorInvalidValue;
    if (n_tokens == 0) return cudaSuccess;
    gates_kernel<<<blocks(n_tokens * n_heads, 256), 256, 0, stream>>>(ba, ld, n_tokens, n_heads, group, dt_bias, a_neg,
                                                                     beta, g);
    return cudaGetLastError();
}

cudaError_t gated_delta_reset(const std::int32_t* pos, const std::int32_t* slot, std::int64_t n_tokens, float* conv,
                              std::int64_t conv_floats, float* delta, std::int64_t delta_floats, cudaStream_t stream) {
    if (n_tokens < 0 || conv_floats < 0 || delta_floats < 0) return cudaErrorInvalidValue;
    if (n_tokens == 0) return cudaSuccess;
    const unsigned rows = unsigned(std::min<std::int64_t>(n_tokens, kMaxGridY));
    reset_kernel<<<dim3(64, rows), 256, 0, stream>>>(pos, slot, n_tokens, conv, conv_floats, delta, delta_floats);
    return cudaGetLastError();
}

}  // namespace ft::kernels::cuda
