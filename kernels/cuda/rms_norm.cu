#include "cuda/rms_norm.cuh"
#include "cuda/launch.cuh"
#include "cuda/ops.cuh"

#include <algorithm>
#include <cstdint>

namespace ft::kernels::cuda {

namespace {

constexpr int kBlock = 256;  // the scalar form
constexpr int kMaxThreads = 1024;
constexpr int kPer = 4;  // float4s a thread keeps in registers in the vector form: rows up to 16,384 columns

// The sum of every thread's v, on every thread (any block size up to 1024, a multiple of 32).
__device__ __forceinline__ float block_sum(float v) {
    __shared__ float warp_sums[32];
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        float s = threadIdx.x < (blockDim.x >> 5) ? warp_sums[threadIdx.x] : 0.f;
        for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off);
        if (threadIdx.x == 0) warp_sums[0] = s;
    }
    __syncthreads();
    return warp_sums[0];
}

// Rows of n4 float4s (16-byte aligned x, w, y): each thread loads its float4s of the row at once and keeps them, so a
// row costs one round trip to memory, not one per element (a decode step's norm is a single row, latency-bound).
// The weights (which no kernel writes) load before the wait for the kernel before. x may be y (in place).
__global__ void __launch_bounds__(kMaxThreads) rms_norm_vec_kernel(const float4* x, const float4* __restrict__ w, float4* y, int n4, float eps) {
    float4 wr[kPer];
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
        const int i = int(threadIdx.x) + j * int(blockDim.x);
        if (i < n4) wr[j] = w[i];
    }
    pdl_enter();
    const std::int64_t row = blockIdx.x;
    const float4* xr = x + row * n4;
    float4* yr = y + row * n4;
    float4 xv[kPer];
    float ss = 0.f;
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
        const int i = int(threadIdx.x) + j * int(blockDim.x);
        if (i < n4) xv[j] = xr[i];
    }
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
        const int i = int(threadIdx.x) + j * int(blockDim.x);
        if (i < n4) ss += xv[j].x * xv[j].x + xv[j].y * xv[j].y + xv[j].z * xv[j].z + xv[j].w * xv[j].w;
    }
    const float scale = rsqrtf(block_sum(ss) / float(4 * n4) + eps);
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
        const int i = int(threadIdx.x) + j * int(blockDim.x);
        if (i < n4)
            yr[i] = make_float4(xv[j].x * scale * wr[j].x, xv[j].y * scale * wr[j].y, xv[j].z * scale * wr[j].z,
                                xv[j].w * scale * wr[j].w);
    }
}

// moe_combine (accumulate) of a token's row, then the vector form's norm of it: the same per-column sum (s = 0,
// s = fma(weight, y, s) over j ascending, out + s) and the same per-thread and per-block order of the squares.
__global__ void __launch_bounds__(kMaxThreads) combine_norm_vec_kernel(const float4* __restrict__ y, const std::int32_t* __restrict__ where,
                                        const float* __restrict__ weights, int k, int n4, float4* __restrict__ out,
                                        const float4* __restrict__ w, float eps, float4* __restrict__ xn) {
    float4 wr[kPer];
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
        const int i = int(threadIdx.x) + j * int(blockDim.x);
        if (i < n4) wr[j] = w[i];
    }
    pdl_enter();
    const std::int64_t t = blockIdx.x;
    float4* orow = out + t * n4;
    float4 xv[kPer];
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
        const int i = int(threadIdx.x) + j * int(blockDim.x);
        if (i < n4) xv[j] = make_float4(0.f, 0.f, 0.f, 0.f);
    }
    for (int e = 0; e < k; ++e) {
        const std::int64_t p = t * k + e;
        const std::int64_t r = where ? where[p] : p;
        if (r < 0) continue;
        const float we = weights[p];
        const float4* yr = y + r * n4;
#pragma unroll
        for (int j = 0; j < kPer; ++j) {
            const int i = int(threadIdx.x) + j * int(blockDim.x);
            if (i < n4) {
                const float4 v = yr[i];
                xv[j] = make_float4(fmaf(we, v.x, xv[j].x), fmaf(we, v.y, xv[j].y), fmaf(we, v.z, xv[j].z),
                                    fmaf(we, v.w, xv[j].w));
            }
        }
    }
    float ss = 0.f;
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
        const int i = int(threadIdx.x) + j * int(blockDim.x);
        if (i < n4) {
            const float4 o = orow[i];
            xv[j] = make_float4(o.x + xv[j].x, o.y + xv[j].y, o.z + xv[j].z, o.w + xv[j].w);
            orow[i] = xv[j];
            ss += xv[j].x * xv[j].x + xv[j].y * xv[j].y + xv[j].z * xv[j].z + xv[j].w * xv[j].w;
        }
    }
    const float scale = rsqrtf(block_sum(ss) / float(4 * n4) + eps);
    float4* nrow = xn + t * n4;
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
        const int i = int(threadIdx.x) + j * int(blockDim.x);
        if (i < n4)
            nrow[i] = make_float4(xv[j].x * scale * wr[j].x, xv[j].y * scale * wr[j].y, xv[j].z * scale * wr[j].z,
                                  xv[j].w * scale * wr[j].w);
    }
}

// The vector form's norm of token blockIdx.y's row, staged in shared memory, then a warp per router row of this
// block's rows (one per warp). Each block prefetches its router rows into L2 before the wait for the kernel before.
__global__ void __launch_bounds__(kMaxThreads)
    norm_router_kernel(const float4* __restrict__ x, const float4* __restrict__ w, float eps, int n4,
                       const float* __restrict__ router, std::int64_t ld_router, int rows, float* __restrict__ logits,
                       float4* __restrict__ xn) {
    extern __shared__ float4 xs[];  // [n4]
    const int warps = int(blockDim.x) >> 5, warp = int(threadIdx.x) >> 5, lane = int(threadIdx.x) & 31;
    const int r0 = int(blockIdx.x) * warps, r1 = min(r0 + warps, rows);
    prefetch_l2(router + std::int64_t(r0) * ld_router, std::size_t(r1 - r0) * std::size_t(ld_router) * sizeof(float));
    float4 wr[kPer];
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
        const int i = int(threadIdx.x) + j * int(blockDim.x);
        if (i < n4) wr[j] = w[i];
    }
    pdl_enter();
    const std::int64_t t = blockIdx.y;
    const float4* xr = x + t * n4;
    float4 xv[kPer];
    float ss = 0.f;
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
        const int i = int(threadIdx.x) + j * int(blockDim.x);
        if (i < n4) xv[j] = xr[i];
    }
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
        const int i = int(threadIdx.x) + j * int(blockDim.x);
        if (i < n4) ss += xv[j].x * xv[j].x + xv[j].y * xv[j].y + xv[j].z * xv[j].z + xv[j].w * xv[j].w;
    }
    const float scale = rsqrtf(block_sum(ss) / float(4 * n4) + eps);
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
        const int i = int(threadIdx.x) + j * int(blockDim.x);
        if (i < n4) {
            const float4 v = make_float4(xv[j].x * scale * wr[j].x, xv[j].y * scale * wr[j].y, xv[j].z * scale * wr[j].z,
                                         xv[j].w * scale * wr[j].w);
            xs[i] = v;
            if (blockIdx.x == 0) xn[t * n4 + i] = v;
        }
    }
    __syncthreads();
    const int r = r0 + warp;
    if (r >= r1) return;
    const float4* wrow = reinterpret_cast<const float4*>(router + std::int64_t(r) * ld_router);
    float acc = 0.f;
#pragma unroll 8
    for (int i = lane; i < n4; i += 32) {
        const float4 a = wrow[i], b = xs[i];
        acc = fmaf(a.x, b.x, fmaf(a.y, b.y, fmaf(a.z, b.z, fmaf(a.w, b.w, acc))));
    }
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
    if (lane == 0) logits[t * rows + r] = acc;
}

// Any row: two passes over x (in place allowed).
__global__ void rms_norm_f32_kernel(const float* x, std::int64_t ldx, const float* __restrict__ w, float* y,
                                    std::int64_t ldy, std::int64_t n_cols, float eps) {
    pdl_enter();
    const std::int64_t row = blockIdx.x;
    const float* xr = x + row * ldx;
    float* yr = y + row * ldy;
    float ss = 0.f;
    for (std::int64_t c = threadIdx.x; c < n_cols; c += blockDim.x) ss += xr[c] * xr[c];
    const float scale = rsqrtf(block_sum(ss) / float(n_cols) + eps);
    for (std::int64_t c = threadIdx.x; c < n_cols; c += blockDim.x) yr[c] = xr[c] * scale * w[c];
}

// LayerNorm: the mean, then the variance about it (two sums), then (x - mean) · inv · w + b (in place allowed).
__global__ void layer_norm_f32_kernel(const float* x, const float* __restrict__ w, const float* __restrict__ b, float* y,
                                      std::int64_t n_cols, float eps) {
    const std::int64_t row = blockIdx.x;
    const float* xr = x + row * n_cols;
    float* yr = y + row * n_cols;
    float s = 0.f;
    for (std::int64_t c = threadIdx.x; c < n_cols; c += blockDim.x) s += xr[c];
    const float mean = block_sum(s) / float(n_cols);
    __syncthreads();  // block_sum's shared total is read by every thread before the next sum overwrites it
    float ss = 0.f;
    for (std::int64_t c = threadIdx.x; c < n_cols; c += blockDim.x) ss += (xr[c] - mean) * (xr[c] - mean);
    const float inv = rsqrtf(block_sum(ss) / float(n_cols) + eps);
    for (std::int64_t c = threadIdx.x; c < n_cols; c += blockDim.x) yr[c] = (xr[c] - mean) * inv * w[c] + b[c];
}

bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }

bool vec_rows(std::int64_t n_cols) { return n_cols % 4 == 0 && n_cols / 4 <= std::int64_t(kMaxThreads) * kPer; }

// Two float4s per thread where the row allows: enough loads in flight, and few threads to sum over.
int vec_threads(int n4) { return std::clamp((n4 / 2 + 31) / 32 * 32, 32, kMaxThreads); }

}  // namespace

cudaError_t rms_norm_f32(const float* x, const float* w, float* y, std::int64_t n_rows, std::int64_t n_cols, float eps,
                         cudaStream_t stream) {
    if (n_rows <= 0 || n_cols <= 0) return cudaSuccess;
    if (n_rows > 0x7fffffff) return cudaErrorInvalidValue;
    const dim3 grid(static_cast<unsigned>(n_rows));
    if (vec_rows(n_cols) && aligned16(x) && aligned16(w) && aligned16(y)) {
        const int n4 = int(n_cols / 4);
        const int threads = vec_threads(n4);
        return launch_pdl(rms_norm_vec_kernel, grid, dim3(unsigned(threads)), 0, stream, reinterpret_cast<const float4*>(x),
                          reinterpret_cast<const float4*>(w), reinterpret_cast<float4*>(y), n4, eps);
    }
    return launch_pdl(rms_norm_f32_kernel, grid, dim3(kBlock), 0, stream, x, n_cols, w, y, n_cols, n_cols, eps);
}

cudaError_t rms_norm_rows_f32(const float* x, std::int64_t ldx, const float* w, float* y, std::int64_t ldy,
                              std::int64_t n_rows, std::int64_t n_cols, float eps, cudaStream_t stream) {
    if (n_rows <= 0 || n_cols <= 0) return cudaSuccess;
    if (n_rows > 0x7fffffff || ldx < n_cols || ldy < n_cols) return cudaErrorInvalidValue;
    return launch_pdl(rms_norm_f32_kernel, dim3(static_cast<unsigned>(n_rows)), dim3(kBlock), 0, stream, x, ldx, w, y,
                      ldy, n_cols, eps);
}

cudaError_t layer_norm_f32(const float* x, const float* w, const float* b, float* y, std::int64_t n_rows,
                           std::int64_t n_cols, float eps, cudaStream_t stream) {
    if (n_rows <= 0 || n_cols <= 0) return cudaSuccess;
    if (n_rows > 0x7fffffff || !w || !b) return cudaErrorInvalidValue;
    layer_norm_f32_kernel<<<static_cast<unsigned>(n_rows), kBlock, 0, stream>>>(x, w, b, y, n_cols, eps);
    return cudaGetLastError();
}

cudaError_t moe_combine_rms_norm(const float* y, const std::int32_t* where, const float* weights, std::int64_t n_tokens,
                                 int k, std::int64_t cols, float* out, const float* w, float eps, float* xn,
                                 cudaStream_t stream) {
    if (n_tokens < 0 || n_tokens > 0x7fffffff || k < 1 || cols <= 0) return cudaErrorInvalidValue;
    if (n_tokens == 0) return cudaSuccess;
    if (!vec_rows(cols) || !aligned16(y) || !aligned16(out) || !aligned16(w) || !aligned16(xn)) {
        const cudaError_t e = moe_combine(y, where, weights, n_tokens, k, cols, out, true, stream);
        return e != cudaSuccess ? e : rms_norm_f32(out, w, xn, n_tokens, cols, eps, stream);
    }
    const int n4 = int(cols / 4);
    return launch_pdl(combine_norm_vec_kernel, dim3(static_cast<unsigned>(n_tokens)), dim3(unsigned(vec_threads(n4))), 0,
                      stream, reinterpret_cast<const float4*>(y), where, weights, k, n4, reinterpret_cast<float4*>(out),
                      reinterpret_cast<const float4*>(w), eps, reinterpret_cast<float4*>(xn));
}

bool rms_norm_router_supported(const float* x, const float* w, const float* router, std::int64_t ld_router,
                               std::int64_t cols, const float* xn) {
    return vec_rows(cols) && ld_router >= cols && ld_router % 4 == 0 && aligned16(x) && aligned16(w) && aligned16(router) &&
           aligned16(xn);
}

cudaError_t rms_norm_router_f32(const float* x, const float* w, float eps, std::int64_t n_tokens, std::int64_t cols,
                                const float* router, std::int64_t ld_router, int rows, float* logits, float* xn,
                                cudaStream_t stream) {
    if (n_tokens < 0 || n_tokens > 65535 || rows < 0 || !rms_norm_router_supported(x, w, router, ld_router, cols, xn))
        return cudaErrorInvalidValue;
    if (n_tokens == 0 || rows == 0) return cudaSuccess;
    const int n4 = int(cols / 4);
    const int threads = vec_threads(n4), warps = threads / 32;
    const dim3 grid(unsigned((rows + warps - 1) / warps), unsigned(n_tokens));
    const std::size_t smem = std::size_t(n4) * sizeof(float4);
    if (smem > 48 * 1024) {
        const cudaError_t e = cudaFuncSetAttribute(norm_router_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
        if (e != cudaSuccess) return e;
    }
    return launch_pdl(norm_router_kernel, grid, dim3(unsigned(threads)), smem, stream,
                      reinterpret_cast<const float4*>(x), reinterpret_cast<const float4*>(w), eps, n4, router, ld_router,
                      rows, logits, reinterpret_cast<float4*>(xn));
}

}  // namespace ft::kernels::cuda
