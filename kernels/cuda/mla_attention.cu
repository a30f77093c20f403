#include "cuda/mla_attention.cuh"

#include <cmath>

#include <cuda_fp16.h>

namespace ft::kernels::cuda {

namespace {

constexpr unsigned kFull = 0xffffffffu;
constexpr int kWarps = 8;       // query heads per block
constexpr int kTile = 16;       // cache rows per shared-memory tile
constexpr int kMaxQ = 20;       // ceil(kv_dim / 32) per lane (kv_dim ≤ 640)
constexpr int kMaxL = 16;       // kv_lora / 32 per lane (kv_lora ≤ 512)
constexpr int kMaxSplits = 32;
constexpr int kSplitMin = 256;  // positions per split before another split pays

__device__ __forceinline__ float warp_sum(float v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(kFull, v, off);
    return v;
}

template <typename T>
__device__ __forceinline__ float load_elem(const T* p, std::int64_t i) {
    if constexpr (sizeof(T) == 2) return __half2float(p[i]);
    else return p[i];
}

// grid (splits, head blocks, tokens). splits == 1: normalized output into out; else partials into ml / acc.
template <typename T>
__global__ void __launch_bounds__(kWarps * 32)
mla_kernel(MlaParams p, const float* __restrict__ q, const std::int32_t* __restrict__ pos,
           const std::int32_t* __restrict__ seq, const T* __restrict__ cache, const std::int32_t* __restrict__ pages,
           int pages_stride, MlaPicks picks, int splits, float* __restrict__ out, float* __restrict__ ml,
           float* __restrict__ acc_ws) {
    extern __shared__ float tile[];  // [kTile, kv_dim]
    const int D = (p.kv_lora + p.rope_dim), L = p.kv_lora, nl = L / 32;
    const int t = blockIdx.z, split = blockIdx.x, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int h = blockIdx.y * kWarps + warp;
    const bool active = h < p.n_head;
    // Positions read: 0 .. pos, or the token's picks (the j-th read row is position ids[j]).
    const std::int32_t* ids = picks.ids ? picks.ids + std::int64_t(t) * picks.topk : nullptr;
    const int len = ids ? (pos[t] < 0 ? 0 : picks.count[t]) : pos[t] + 1;
    const std::int32_t* pt = pages + std::int64_t(seq[t]) * pages_stride;
    // This split's positions: whole tiles.
    const int per = ((len + splits - 1) / splits + kTile - 1) / kTile * kTile;
    const int j0 = split * per, j1 = min(len, j0 + per);
    float qr[kMaxQ], acc[kMaxL];
    const float* qv = q + (std::int64_t(t) * p.n_head + (active ? h : 0)) * D;
#pragma unroll
    for (int i = 0; i < kMaxQ; ++i) qr[i] = lane + 32 * i < D ? qv[lane + 32 * i] * p.scale : 0.f;
#pragma unroll
    for (int i = 0; i < kMaxL; ++i) acc[i] = 0.f;
    float m = -INFINITY, sum = 0.f;
    for (int base = j0; base < j1; base += kTile) {
        const int n = min(kTile, j1 - base);
        __syncthreads();
        // One row per warp at a time: the page lookup once per row, the row's elements coalesced over the lanes.
        for (int r = warp; r < n; r += kWarps) {
            const int j = ids ? ids[base + r] : base + r;
            const T* src = cache + (std::int64_t(pt[j / p.page_size]) * p.page_size + j % p.page_size) * D;
            for (int c = lane; c < D; c += 32) tile[r * D + c] = load_elem(src, c);
        }
        __syncthreads();
        if (!active) continue;
        float s[kTile];
        float tmax = -INFINITY;
#pragma unroll
        for (int r = 0; r < kTile; ++r) {
            float d = 0.f;
            if (r < n) {
#pragma unroll
                for (int i = 0; i < kMaxQ; ++i)
                    if (lane + 32 * i < D) d = fmaf(qr[i], tile[r * D + lane + 32 * i], d);
                d = warp_sum(d);
                tmax = fmaxf(tmax, d);
            }
            s[r] = d;
        }
        const float mnew = fmaxf(m, tmax);
        const float c = expf(m - mnew);  // 0 on the first tile (m = -inf)
        sum *= c;
#pragma unroll
        for (int i = 0; i < kMaxL; ++i) acc[i] *= c;
#pragma unroll
        for (int r = 0; r < kTile; ++r) {
            if (r < n) {
                const float w = expf(s[r] - mnew);
                sum += w;
#pragma unroll
                for (int i = 0; i < kMaxL; ++i)
                    if (i < nl) acc[i] = fmaf(w, tile[r * D + lane + 32 * i], acc[i]);
            }
        }
        m = mnew;
    }
    if (!active) return;
    const std::int64_t th = std::int64_t(t) * p.n_head + h;
    if (splits == 1) {
        const float inv = 1.f / sum;
#pragma unroll
        for (int i = 0; i < kMaxL; ++i)
            if (i < nl) out[th * L + lane + 32 * i] = acc[i] * inv;
        return;
    }
    const std::int64_t part = th * splits + split;
    if (lane == 0) {
        ml[2 * part] = m;  // -inf and 0 for a split past the end: the merge skips it
        ml[2 * part + 1] = sum;
    }
    if (j0 < j1) {
#pragma unroll
        for (int i = 0; i < kMaxL; ++i)
            if (i < nl) acc_ws[part * L + lane + 32 * i] = acc[i];
    }
}

// grid (n_head, tokens), one warp... per (token, head): out = Σ_s acc_s e^{m_s − M} / Σ_s sum_s e^{m_s − M}.
__global__ void mla_merge_kernel(MlaParams p, int splits, const float* __restrict__ ml, const float* __restrict__ acc_ws,
                                 float* __restrict__ out) {
    const std::int64_t th = std::int64_t(blockIdx.y) * p.n_head + blockIdx.x;
    const float* m = ml + 2 * th * splits;
    float M = -INFINITY;
    for (int s = 0; s < splits; ++s)
        if (m[2 * s + 1] > 0.f) M = fmaxf(M, m[2 * s]);
    float S = 0.f;
    for (int s = 0; s < splits; ++s)
        if (m[2 * s + 1] > 0.f) S += m[2 * s + 1] * expf(m[2 * s] - M);
    const float inv = 1.f / S;
    for (int d = threadIdx.x; d < p.kv_lora; d += blockDim.x) {
        float o = 0.f;
        for (int s = 0; s < splits; ++s)
            if (m[2 * s + 1] > 0.f) o += acc_ws[(th * splits + s) * p.kv_lora + d] * expf(m[2 * s] - M);
        out[th * p.kv_lora + d] = o * inv;
    }
}

template <typename T>
__device__ __forceinline__ T to_elem(float v) {
    if constexpr (sizeof(T) == 2) return __float2half_rn(v);
    else return v;
}

template <typename T>
__global__ void mla_kv_write_kernel(MlaParams p, const float* __restrict__ kva, std::int64_t ld,
                                    const float* __restrict__ w, float eps, const std::int32_t* __restrict__ pos,
                                    const std::int32_t* __restrict__ seq, const std::int32_t* __restrict__ pages,
                                    int pages_stride, T* __restrict__ cache) {
    __shared__ float part[32];
    const std::int64_t t = blockIdx.x;
    const int ps = pos[t], sq = seq[t];
    if (ps < 0 || sq < 0) return;
    const int page = pages[std::int64_t(sq) * pages_stride + ps / p.page_size];
    if (page < 0) return;
    const float* x = kva + t * ld;
    float ss = 0.f;
    for (int c = threadIdx.x; c < p.kv_lora; c += blockDim.x) ss = fmaf(x[c], x[c], ss);
    ss = warp_sum(ss);
    if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = ss;
    __syncthreads();
    if (threadIdx.x < 32) {
        float v = threadIdx.x < blockDim.x / 32 ? part[threadIdx.x] : 0.f;
        v = warp_sum(v);
        if (threadIdx.x == 0) part[0] = v;
    }
    __syncthreads();
    const float inv = rsqrtf(part[0] / float(p.kv_lora) + eps);
    T* row = cache + (std::int64_t(page) * p.page_size + ps % p.page_size) * (p.kv_lora + p.rope_dim);
    for (int c = threadIdx.x; c < (p.kv_lora + p.rope_dim); c += blockDim.x)
        row[c] = to_elem<T>(c < p.kv_lora ? x[c] * inv * w[c] : x[c]);
}

bool shape_ok(const MlaParams& p, DType type) {
    return p.n_head >= 1 && p.kv_lora > 0 && p.rope_dim > 0 && p.kv_lora % 32 == 0 && p.rope_dim % 2 == 0 &&
           p.kv_lora <= 32 * kMaxL && (p.kv_lora + p.rope_dim) <= 32 * kMaxQ && p.page_size > 0 &&
           (type == DType::F32 || type == DType::F16);
}

std::size_t a16(std::size_t x) { return (x + 15) / 16 * 16; }

}  // namespace

int mla_decode_splits(std::int64_t max_ctx) {
    return int(std::min<std::int64_t>(kMaxSplits, std::max<std::int64_t>(1, (max_ctx + kSplitMin - 1) / kSplitMin)));
}

std::size_t mla_attention_workspace(const MlaParams& p, std::int64_t n_tokens, std::int64_t max_ctx) {
    if (max_ctx <= 0) return 0;
    const std::size_t parts = std::size_t(n_tokens) * std::size_t(p.n_head) * std::size_t(mla_decode_splits(max_ctx));
    return a16(parts * 2 * sizeof(float)) + parts * std::size_t(p.kv_lora) * sizeof(float);
}

cudaError_t mla_attention(const MlaParams& p, const float* q, std::int64_t n_tokens, const std::int32_t* pos,
                          const std::int32_t* seq, std::int64_t max_ctx, const DeviceMlaCache& cache, float* out,
                          void* workspace, cudaStream_t stream, const MlaPicks& picks) {
    if (!shape_ok(p, cache.type) || n_tokens < 0 || n_tokens > 65535 || !cache.rows || !cache.page_tables ||
        cache.pages_stride <= 0 || (picks.ids && (!picks.count || picks.topk < 1)))
        return cudaErrorInvalidValue;
    if (n_tokens == 0) return cudaSuccess;
    const int splits = max_ctx > 0 ? mla_decode_splits(max_ctx) : 1;
    float *ml = nullptr, *acc = nullptr;
    if (max_ctx > 0) {
        if (!workspace || reinterpret_cast<std::uintptr_t>(workspace) % 16) return cudaErrorInvalidValue;
        ml = static_cast<float*>(workspace);
        const std::size_t parts = std::size_t(n_tokens) * std::size_t(p.n_head) * std::size_t(splits);
        acc = reinterpret_cast<float*>(static_cast<char*>(workspace) + a16(parts * 2 * sizeof(float)));
    }
    const dim3 grid(unsigned(splits), unsigned((p.n_head + kWarps - 1) / kWarps), unsigned(n_tokens));
    const std::size_t smem = std::size_t(kTile) * std::size_t((p.kv_lora + p.rope_dim)) * sizeof(float);
    if (cache.type == DType::F16)
        mla_kernel<__half><<<grid, kWarps * 32, smem, stream>>>(p, q, pos, seq, static_cast<const __half*>(cache.rows),
                                                                cache.page_tables, cache.pages_stride, picks, splits, out, ml, acc);
    else
        mla_kernel<float><<<grid, kWarps * 32, smem, stream>>>(p, q, pos, seq, static_cast<const float*>(cache.rows),
                                                               cache.page_tables, cache.pages_stride, picks, splits, out, ml, acc);
    if (splits > 1) mla_merge_kernel<<<dim3(unsigned(p.n_head), unsigned(n_tokens)), 128, 0, stream>>>(p, splits, ml, acc, out);
    return cudaGetLastError();
}

cudaError_t mla_kv_write(const MlaParams& p, const float* kva, std::int64_t ldkva, const float* norm_w, float eps,
                         const std::int32_t* pos, const std::int32_t* seq, std::int64_t n_tokens,
                         const DeviceMlaCache& cache, cudaStream_t stream) {
    if (!shape_ok(p, cache.type) || n_tokens < 0 || n_tokens > (1 << 30) || !cache.rows || !cache.page_tables ||
        cache.pages_stride <= 0 || !norm_w)
        return cudaErrorInvalidValue;
    if (ldkva == 0) ldkva = (p.kv_lora + p.rope_dim);
    if (ldkva < (p.kv_lora + p.rope_dim)) return cudaErrorInvalidValue;
    if (n_tokens == 0) return cudaSuccess;
    if (cache.type == DType::F16)
        mla_kv_write_kernel<__half><<<unsigned(n_tokens), 256, 0, stream>>>(p, kva, ldkva, norm_w, eps, pos, seq, cache.page_tables,
                                                                           cache.pages_stride, static_cast<__half*>(cache.rows));
    else
        mla_kv_write_kernel<float><<<unsigned(n_tokens), 256, 0, stream>>>(p, kva, ldkva, norm_w, eps, pos, seq, cache.page_tables,
                                                                          cache.pages_stride, static_cast<float*>(cache.rows));
    return cudaGetLastError();
}

}  // namespace ft::kernels::cuda
