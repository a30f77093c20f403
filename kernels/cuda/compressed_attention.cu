#include "cuda/compressed_attention.cuh"

#include <algorithm>
#include <cmath>

#include <cuda_fp16.h>

namespace ft::kernels::cuda {

namespace {

constexpr unsigned kFull = 0xffffffffu;
constexpr int kMaxDim = 1024;    // head / entry width

__device__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(kFull, v, o);
    return v;
}

// Block-wide sum (blockDim a multiple of 32, ≤ 1024); every thread gets the total.
__device__ float block_sum(float v, float* red) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, n_warps = blockDim.x / 32;
    v = warp_sum(v);
    __syncthreads();
    if (lane == 0) red[warp] = v;
    __syncthreads();
    float t = 0.f;
    for (int i = 0; i < n_warps; ++i) t += red[i];
    return t;
}

// ---- RoPE (interleaved pairs), angles as ref::rope_f32 in double ----

struct InterleavedRope {
    int half = 0;
    bool yarn = false;
    double theta = 10000, freq_scale = 1, ext_factor = 0, lo = 0, hi = 0, mag = 1;
};

InterleavedRope interleaved_rope_args(const RopeParams& p) {
    InterleavedRope a;
    a.half = p.n_rot / 2;
    a.yarn = p.ext_factor != 0.f;
    a.theta = p.theta;
    a.freq_scale = p.freq_scale;
    a.ext_factor = p.ext_factor;
    const RopeRamp r = rope_ramp(p);
    a.lo = r.lo;
    a.hi = r.hi;
    a.mag = r.mag;
    return a;
}

// (cos, sin) of pair i at position pos.
__device__ float2 rope_cs(const InterleavedRope& a, double pos, int i) {
    const double extrap = pos / pow(a.theta, 2.0 * i / (2 * a.half));
    double angle = extrap * a.freq_scale;
    if (a.yarn) {
        const double r = (i - a.lo) / fmax(0.001, a.hi - a.lo);
        const double mix = (1.0 - fmin(fmax(r, 0.0), 1.0)) * a.ext_factor;
        angle = angle * (1.0 - mix) + extrap * mix;
    }
    constexpr double kTwoPi = 6.283185307179586476925286766559;
    const double red = fma(-rint(angle * (1.0 / kTwoPi)), kTwoPi, angle);
    float s, c;
    sincosf(float(red), &s, &c);
    return make_float2(c * float(a.mag), s * float(a.mag));
}

__device__ void rotate(float* v, float2 k, int i) {
    const float x0 = v[2 * i], x1 = v[2 * i + 1];
    v[2 * i] = fmaf(x0, k.x, -x1 * k.y);
    v[2 * i + 1] = fmaf(x0, k.y, x1 * k.x);
}

__global__ void interleaved_rope_kernel(InterleavedRope a, float* __restrict__ x, std::int64_t ld, std::int64_t n_tokens, int n_heads,
                               int head_stride, int offset, const std::int32_t* __restrict__ pos, int sign) {
    const std::int64_t idx = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::int64_t per_token = std::int64_t(n_heads) * a.half;
    if (idx >= n_tokens * per_token) return;
    const std::int64_t t = idx / per_token;
    const int h = int(idx % per_token) / a.half, i = int(idx % per_token) % a.half;
    rotate(x + t * ld + std::int64_t(h) * head_stride + offset, rope_cs(a, double(sign) * pos[t], i), i);
}

// ---- the cache rows ----

// The element offset of position p's row in page-table row r, or -1 (no row, no position, an unmapped page).
__device__ std::int64_t row_offset(const CompressedCache& c, int r, std::int64_t p) {
    if (r < 0 || p < 0) return -1;
    const int page = c.page_tables[std::int64_t(r) * c.pages_stride + p / c.page_size];
    if (page < 0) return -1;
    return (std::int64_t(page) * c.page_size + p % c.page_size) * c.row_width;
}

__device__ float* row_at(const CompressedCache& c, int r, std::int64_t p) {
    const std::int64_t o = row_offset(c, r, p);
    return o < 0 ? nullptr : static_cast<float*>(c.rows) + o;
}

template <typename T>
__device__ const T* typed_row_at(const CompressedCache& c, int r, std::int64_t p) {
    const std::int64_t o = row_offset(c, r, p);
    return o < 0 ? nullptr : static_cast<const T*>(c.rows) + o;
}

__device__ __forceinline__ float widen(float v) { return v; }
__device__ __forceinline__ float widen(__half v) { return __half2float(v); }

template <typename T>
__global__ void compressed_kv_write_kernel(const float* __restrict__ kv, std::int64_t ldkv, int dim,
                                   const std::int32_t* __restrict__ pos, const std::int32_t* __restrict__ row, CompressedCache c) {
    const std::int64_t t = blockIdx.x;
    const std::int64_t o = row_offset(c, row[t], pos[t]);
    if (o < 0) return;
    T* dst = static_cast<T*>(c.rows) + o;
    for (int i = threadIdx.x; i < dim; i += blockDim.x) {
        if constexpr (sizeof(T) == 2) dst[i] = __float2half_rn(kv[t * ldkv + i]);
        else dst[i] = kv[t * ldkv + i];
    }
}

// One compressor's entry of window w from the ring into out (shared memory, dim values), normalized and rotated.
// Ring slot layout: [kv (width) | gate (width) | index kv (2·idx_dim) | index gate (2·idx_dim)].
__device__ void compress_entry(const CompressorArgs& a, const InterleavedRope& rope, const float* ring, std::int64_t stride,
                               std::int64_t ring_slots, std::int64_t w, int dim, int kv_off, int gate_off,
                               const float* bias, const float* norm, float* out, float* red) {
    const int m = a.ratio;
    const int width = a.csa ? 2 * dim : dim;
    for (int c = threadIdx.x; c < dim; c += blockDim.x) {
        float mx = -INFINITY, sum = 0.f, acc = 0.f;
        auto add = [&](std::int64_t q, int half) {
            const float* slot = ring + (q % ring_slots) * stride;
            const float g = slot[gate_off + half * dim + c] + bias[(q % m) * width + half * dim + c];
            const float v = slot[kv_off + half * dim + c];
            if (g > mx) {
                const float r = expf(mx - g);
                sum *= r;
                acc *= r;
                mx = g;
            }
            const float e = expf(g - mx);
            sum += e;
            acc = fmaf(e, v, acc);
        };
        if (a.csa && w > 0)
            for (int j = 0; j < m; ++j) add((w - 1) * m + j, 0);
        for (int j = 0; j < m; ++j) add(w * m + j, a.csa ? 1 : 0);
        out[c] = acc / sum;
    }
    __syncthreads();
    float ss = 0.f;
    for (int c = threadIdx.x; c < dim; c += blockDim.x) ss += out[c] * out[c];
    const float inv = rsqrtf(block_sum(ss, red) / float(dim) + a.eps);
    for (int c = threadIdx.x; c < dim; c += blockDim.x) out[c] *= inv * norm[c];
    __syncthreads();
    float* tail = out + (dim - a.rope_dim);
    for (int i = threadIdx.x; i < a.rope_dim / 2; i += blockDim.x) rotate(tail, rope_cs(rope, double(w * m), i), i);
    __syncthreads();
}

__global__ void compressor_update_kernel(CompressorArgs a, InterleavedRope rope, const std::int32_t* __restrict__ pos,
                                   const std::int32_t* __restrict__ slot, const std::int32_t* __restrict__ row,
                                   std::int64_t seg_begin, std::int64_t seg_len, CompressedCache c) {
    __shared__ float entry[kMaxDim];
    __shared__ float red[32];
    const int D = a.dim, Di = a.idx_dim, m = a.ratio;
    const int width = a.csa ? 2 * D : D;
    const std::int64_t stride = a.csa ? 4 * std::int64_t(D) + 4 * std::int64_t(Di) : 2 * std::int64_t(D);
    const std::int64_t ring_slots = a.csa ? 2 * m : m;
    const std::int64_t t0 = seg_begin + std::int64_t(blockIdx.x) * seg_len;
    for (std::int64_t t = t0; t < t0 + seg_len; ++t) {
        const std::int64_t p = pos[t];
        if (p < 0 || slot[t] < 0) continue;
        float* ring = a.state + std::int64_t(slot[t]) * a.state_floats;
        float* s = ring + (p % ring_slots) * stride;
        for (int i = threadIdx.x; i < width; i += blockDim.x) {
            s[i] = a.ck[t * width + i];
            s[width + i] = a.cg[t * width + i];
        }
        if (a.csa)
            for (int i = threadIdx.x; i < 2 * Di; i += blockDim.x) {
                s[4 * D + i] = a.ik[t * 2 * Di + i];
                s[4 * D + 2 * Di + i] = a.ig[t * 2 * Di + i];
            }
        __syncthreads();
        if ((p + 1) % m == 0) {
            float* dst = row_at(c, row[t], p);
            const std::int64_t w = p / m;
            compress_entry(a, rope, ring, stride, ring_slots, w, D, 0, width, a.bias, a.norm, entry, red);
            if (dst)
                for (int i = threadIdx.x; i < D; i += blockDim.x) dst[D + i] = entry[i];
            __syncthreads();
            if (a.csa) {
                compress_entry(a, rope, ring, stride, ring_slots, w, Di, 4 * D, 4 * D + 2 * Di, a.idx_bias, a.idx_norm,
                               entry, red);
                if (dst)
                    for (int i = threadIdx.x; i < Di; i += blockDim.x) dst[2 * D + i] = entry[i];
                __syncthreads();
            }
        }
    }
}

// ---- the lightning indexer's pick ----

__device__ unsigned order_key(float f) {  // monotonic: a > b ⇔ key(a) > key(b)
    const unsigned u = __float_as_uint(f);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

// Scores: a block of 256 entries of one token (grid: tokens × entry blocks), the token's q in shared memory.
template <typename K>
__global__ void compressed_index_scores_kernel(const float* __restrict__ q, const float* __restrict__ w, int n_heads, int dim,
                                       float scale, int m, int key_offset, const std::int32_t* __restrict__ pos,
                                       const std::int32_t* __restrict__ row, std::int64_t max_entries, CompressedCache c,
                                       float* __restrict__ ws) {
    extern __shared__ float qs[];  // [n_heads · dim]
    const std::int64_t t = blockIdx.x;
    const std::int64_t n = min(max_entries, (std::int64_t(pos[t]) + 1) / m);
    const std::int64_t e = std::int64_t(blockIdx.y) * blockDim.x + threadIdx.x;
    if (std::int64_t(blockIdx.y) * blockDim.x >= n) return;  // the whole block is past the token's entries
    const float* qt = q + t * std::int64_t(n_heads) * dim;
    for (int i = threadIdx.x; i < n_heads * dim; i += blockDim.x) qs[i] = qt[i];
    __syncthreads();
    if (e >= n) return;
    const K* key = typed_row_at<K>(c, row[t], (e + 1) * m - 1);
    float s = 0.f;
    if (key) {
        key += key_offset;
        for (int h = 0; h < n_heads; ++h) {
            float dot = 0.f;
            for (int i = 0; i < dim; ++i) dot = fmaf(qs[h * dim + i], widen(key[i]), dot);
            s = fmaf(w[t * n_heads + h], fmaxf(dot, 0.f) * scale, s);
        }
    }
    ws[t * max_entries + e] = s;
}

// The pick of each token (a block each) from its scores.
__global__ void compressed_index_select_kernel(int m, int topk, const std::int32_t* __restrict__ pos, std::int64_t max_entries,
                                       std::int32_t* __restrict__ ids, std::int32_t* __restrict__ count,
                                       const float* __restrict__ ws) {
    __shared__ int cnt;
    const std::int64_t t = blockIdx.x;
    const std::int64_t n = min(max_entries, (std::int64_t(pos[t]) + 1) / m);
    const float* sc = ws + t * max_entries;
    __syncthreads();
    std::int32_t* out = ids + t * topk;
    if (n <= topk) {
        for (std::int64_t e = threadIdx.x; e < n; e += blockDim.x) out[e] = std::int32_t(e);
        if (threadIdx.x == 0) count[t] = std::int32_t(n);
        return;
    }
    // The k-th largest key, bit by bit from the top: the largest u with |{key ≥ u}| ≥ k.
    unsigned prefix = 0;
    for (int bit = 31; bit >= 0; --bit) {
        const unsigned cand = prefix | (1u << bit);
        if (threadIdx.x == 0) cnt = 0;
        __syncthreads();
        int local = 0;
        for (std::int64_t e = threadIdx.x; e < n; e += blockDim.x) local += order_key(sc[e]) >= cand;
        atomicAdd(&cnt, local);
        __syncthreads();
        if (cnt >= topk) prefix = cand;
        __syncthreads();
    }
    if (threadIdx.x == 0) cnt = 0;
    __syncthreads();
    int local = 0;
    for (std::int64_t e = threadIdx.x; e < n; e += blockDim.x) local += order_key(sc[e]) > prefix;
    atomicAdd(&cnt, local);
    __syncthreads();
    const int quota_eq = topk - cnt;  // entries equal to the k-th taken, the lower ones first
    if (threadIdx.x >= 32) return;
    const int lane = threadIdx.x;
    const unsigned below = (1u << lane) - 1u;
    int taken_eq = 0, written = 0;
    for (std::int64_t b = 0; b < n; b += 32) {
        const std::int64_t e = b + lane;
        const unsigned k = e < n ? order_key(sc[e]) : 0u;
        const bool gt = e < n && k > prefix, eq = e < n && k == prefix;
        const unsigned m_eq = __ballot_sync(kFull, eq);
        const bool take = gt || (eq && taken_eq + __popc(m_eq & below) < quota_eq);
        const unsigned m_take = __ballot_sync(kFull, take);
        if (take) out[written + __popc(m_take & below)] = std::int32_t(e);
        taken_eq += __popc(m_eq);
        written += __popc(m_take);
    }
    if (lane == 0) count[t] = topk;
}

// ---- shared-KV attention: a block of 4 warps per (token, head), each warp an online softmax over its rows ----

constexpr int kAttWarps = 4;

__global__ void compressed_attention_kernel(CompressedAttentionArgs a, const float* __restrict__ q, const std::int32_t* __restrict__ pos,
                                    const std::int32_t* __restrict__ row, CompressedCache c, float* __restrict__ out) {
    __shared__ float qs[kMaxDim];
    __shared__ float wm[kAttWarps], wsum[kAttWarps];
    __shared__ float wacc[kAttWarps][kMaxDim];
    const std::int64_t t = blockIdx.x;
    const int h = blockIdx.y, D = a.dim, lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const float* qh = q + (t * a.n_head + h) * std::int64_t(D);
    for (int i = threadIdx.x; i < D; i += blockDim.x) qs[i] = qh[i];
    __syncthreads();
    const std::int64_t p = pos[t];
    const int r = row[t];
    const std::int64_t first = p - a.window + 1 > 0 ? p - a.window + 1 : 0;
    const std::int64_t n_win = p >= 0 ? p - first + 1 : 0;
    std::int64_t n_ent = 0;
    if (p >= 0 && a.hca) n_ent = (p + 1) / a.ratio;
    if (p >= 0 && a.csa) n_ent = a.count[t];
    constexpr int kPer = kMaxDim / 32;
    float acc[kPer];
    for (int i = 0; i < kPer; ++i) acc[i] = 0.f;
    float mx = -INFINITY, sum = 0.f;
    for (std::int64_t j = warp; j < n_win + n_ent; j += kAttWarps) {
        const float* rv;
        if (j < n_win) {
            rv = row_at(c, r, first + j);
        } else {
            const std::int64_t e = a.csa ? a.ids[t * a.topk + (j - n_win)] : j - n_win;
            rv = row_at(c, r, (e + 1) * a.ratio - 1);
            if (rv) rv += D;
        }
        if (!rv) continue;
        float dot = 0.f;
        for (int i = lane; i < D; i += 32) dot = fmaf(qs[i], rv[i], dot);
        const float l = warp_sum(dot) * a.scale;
        if (l > mx) {
            const float s = expf(mx - l);
            sum *= s;
            for (int i = 0; i < kPer; ++i) acc[i] *= s;
            mx = l;
        }
        const float e = expf(l - mx);
        sum += e;
        for (int i = 0, c2 = lane; c2 < D; ++i, c2 += 32) acc[i] = fmaf(e, rv[c2], acc[i]);
    }
    if (lane == 0) {
        wm[warp] = mx;
        wsum[warp] = sum;
    }
    for (int i = 0, c2 = lane; c2 < D; ++i, c2 += 32) wacc[warp][c2] = acc[i];
    __syncthreads();
    float M = a.sinks ? a.sinks[h] : -INFINITY;
    for (int w = 0; w < kAttWarps; ++w) M = fmaxf(M, wm[w]);
    float S = a.sinks ? expf(a.sinks[h] - M) : 0.f;
    for (int w = 0; w < kAttWarps; ++w) S += wsum[w] > 0.f ? wsum[w] * expf(wm[w] - M) : 0.f;
    float* o = out + (t * a.n_head + h) * std::int64_t(D);
    for (int i = threadIdx.x; i < D; i += blockDim.x) {
        float v = 0.f;
        for (int w = 0; w < kAttWarps; ++w)
            if (wsum[w] > 0.f) v = fmaf(wacc[w][i], expf(wm[w] - M), v);
        o[i] = S > 0.f ? v / S : 0.f;
    }
}

unsigned grid_of(std::int64_t n, int per) { return static_cast<unsigned>((n + per - 1) / per); }

}  // namespace

cudaError_t interleaved_rope(const RopeParams& p, float* x, std::int64_t ld, std::int64_t n_tokens, int n_heads,
                             int head_stride, int offset, const std::int32_t* pos, int sign, cudaStream_t stream) {
    if (n_tokens < 0 || n_heads < 1 || p.n_rot < 0 || p.n_rot % 2 || offset + p.n_rot > head_stride ||
        (p.ext_factor != 0.f && p.orig_ctx <= 0))
        return cudaErrorInvalidValue;
    if (n_tokens == 0 || p.n_rot == 0) return cudaSuccess;
    const InterleavedRope a = interleaved_rope_args(p);
    interleaved_rope_kernel<<<grid_of(n_tokens * n_heads * a.half, 256), 256, 0, stream>>>(a, x, ld, n_tokens, n_heads,
                                                                                 head_stride, offset, pos, sign);
    return cudaGetLastError();
}

cudaError_t compressed_kv_write(const float* kv, std::int64_t ldkv, int dim, const std::int32_t* pos,
                                const std::int32_t* row, std::int64_t n_tokens, const CompressedCache& cache,
                                cudaStream_t stream) {
    if (n_tokens < 0 || dim < 1 || dim > cache.row_width || (cache.type != DType::F32 && cache.type != DType::F16))
        return cudaErrorInvalidValue;
    if (n_tokens == 0) return cudaSuccess;
    if (cache.type == DType::F16)
        compressed_kv_write_kernel<__half><<<unsigned(n_tokens), 128, 0, stream>>>(kv, ldkv, dim, pos, row, cache);
    else
        compressed_kv_write_kernel<float><<<unsigned(n_tokens), 128, 0, stream>>>(kv, ldkv, dim, pos, row, cache);
    return cudaGetLastError();
}

cudaError_t compressor_update(const CompressorArgs& a, const std::int32_t* pos, const std::int32_t* slot,
                              const std::int32_t* row, std::int64_t seg_begin, std::int64_t seg_len,
                              std::int64_t n_segs, const CompressedCache& cache, cudaStream_t stream) {
    if (a.ratio < 1 || a.dim < 2 || a.dim > kMaxDim || a.rope_dim > a.dim || (a.csa && (a.idx_dim < 2 || a.idx_dim > kMaxDim ||
        a.rope_dim > a.idx_dim)) || seg_len < 0 || n_segs < 0 || n_segs > 0x7fffffff || !a.state || cache.type != DType::F32)
        return cudaErrorInvalidValue;
    if (seg_len == 0 || n_segs == 0) return cudaSuccess;
    compressor_update_kernel<<<unsigned(n_segs), 256, 0, stream>>>(a, interleaved_rope_args(a.rope), pos, slot, row, seg_begin, seg_len,
                                                            cache);
    return cudaGetLastError();
}

std::size_t compressed_index_workspace(std::int64_t n_tokens, std::int64_t max_entries) {
    return std::size_t(n_tokens) * std::size_t(max_entries) * sizeof(float);
}

cudaError_t compressed_index_topk(const float* q, const float* w, int n_heads, int dim, float scale, int ratio,
                                  int topk, int key_offset, const std::int32_t* pos, const std::int32_t* row,
                                  std::int64_t n_tokens, std::int64_t max_entries, const CompressedCache& cache,
                                  std::int32_t* ids, std::int32_t* count, void* workspace, cudaStream_t stream) {
    if (n_tokens < 0 || n_heads < 1 || dim < 1 || ratio < 1 || topk < 1 || max_entries < 0 || !workspace ||
        key_offset + dim > cache.row_width || (cache.type != DType::F32 && cache.type != DType::F16))
        return cudaErrorInvalidValue;
    if (n_tokens == 0) return cudaSuccess;
    const std::size_t smem = std::size_t(n_heads) * dim * sizeof(float);  // the token's q (V4-Flash: 32 KiB)
    if (smem > 48 * 1024) return cudaErrorInvalidValue;
    float* ws = static_cast<float*>(workspace);
    const unsigned entry_blocks = unsigned(std::max<std::int64_t>(1, (max_entries + 255) / 256));
    if (cache.type == DType::F16)
        compressed_index_scores_kernel<__half><<<dim3(unsigned(n_tokens), entry_blocks), 256, smem, stream>>>(
            q, w, n_heads, dim, scale, ratio, key_offset, pos, row, max_entries, cache, ws);
    else
        compressed_index_scores_kernel<float><<<dim3(unsigned(n_tokens), entry_blocks), 256, smem, stream>>>(
            q, w, n_heads, dim, scale, ratio, key_offset, pos, row, max_entries, cache, ws);
    compressed_index_select_kernel<<<unsigned(n_tokens), 256, 0, stream>>>(ratio, topk, pos, max_entries, ids, count, ws);
    return cudaGetLastError();
}

cudaError_t compressed_attention(const CompressedAttentionArgs& a, const float* q, const std::int32_t* pos,
                                 const std::int32_t* row, std::int64_t n_tokens, const CompressedCache& cache,
                                 float* out, cudaStream_t stream) {
    if (n_tokens < 0 || a.n_head < 1 || a.n_head > 65535 || a.dim < 1 || a.dim > kMaxDim || a.window < 1 ||
        ((a.csa || a.hca) && a.ratio < 1) || (a.csa && (!a.ids || !a.count || a.topk < 1)) || 2 * a.dim > cache.row_width ||
        cache.type != DType::F32)
        return cudaErrorInvalidValue;
    if (n_tokens == 0) return cudaSuccess;
    compressed_attention_kernel<<<dim3(unsigned(n_tokens), unsigned(a.n_head)), 32 * kAttWarps, 0, stream>>>(a, q, pos, row, cache,
                                                                                                     out);
    return cudaGetLastError();
}

}  // namespace ft::kernels::cuda
