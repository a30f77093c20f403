#include "cuda/ops.cuh"
#include "cuda/launch.cuh"
#include "cuda/quant_decode.cuh"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include <cuda_fp16.h>

namespace ft::kernels::cuda {

namespace {

constexpr unsigned kFull = 0xffffffffu;
constexpr int kMaxGrid = 0x7fffffff;

unsigned blocks_for(std::int64_t n, int per_block) { return static_cast<unsigned>((n + per_block - 1) / per_block); }

// ---- row decoding for embed_rows: element i of a row, per block layout of ref/quant.h ----

__device__ inline unsigned ld_u16(const std::uint8_t* p) { return unsigned(p[0]) | (unsigned(p[1]) << 8); }
__device__ inline float ld_f16(const std::uint8_t* p) {
    return __half2float(__ushort_as_half(static_cast<unsigned short>(ld_u16(p))));
}
__device__ inline float ld_bf16(const std::uint8_t* p) { return __uint_as_float(ld_u16(p) << 16); }

// The 6-bit (scale, min) pair j of a Q4_K/Q5_K block (ref::k_scale_min_get).
__device__ inline void k_scale_min(const std::uint8_t* s, int j, int* sc, int* m) {
    if (j < 4) {
        *sc = s[j] & 63;
        *m = s[j + 4] & 63;
    } else {
        *sc = (s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4);
        *m = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
    }
}

// Products rounded as the reference rounds them (no FMA contraction), so the decoded values are bit-identical.
template <DType T>
__device__ inline float decode(const std::uint8_t* row, std::int64_t i) {
    if constexpr (T == DType::F32) {
        return reinterpret_cast<const float*>(row)[i];
    } else if constexpr (T == DType::F16) {
        return ld_f16(row + 2 * i);
    } else if constexpr (T == DType::BF16) {
        return ld_bf16(row + 2 * i);
    } else if constexpr (T == DType::Q8_0) {
        const std::uint8_t* b = row + (i / 32) * 34;
        return __fmul_rn(ld_f16(b), float(static_cast<std::int8_t>(b[2 + i % 32])));
    } else if constexpr (T == DType::Q4_K || T == DType::Q5_K) {
        constexpr int kBytes = T == DType::Q4_K ? 144 : 176;
        const std::uint8_t* b = row + (i / 256) * kBytes;
        const int e = int(i % 256), c = e / 64, w = e % 64;
        const std::uint8_t* qs = b + (T == DType::Q4_K ? 16 : 48);
        const std::uint8_t byte = qs[32 * c + w % 32];
        int q = w < 32 ? (byte & 0xF) : (byte >> 4);
        if constexpr (T == DType::Q5_K) q |= ((b[16 + w % 32] >> (2 * c + (w >= 32 ? 1 : 0))) & 1) << 4;
        int sc, m;
        k_scale_min(b + 4, e / 32, &sc, &m);
        const float ds = __fmul_rn(ld_f16(b), float(sc)), dm = __fmul_rn(ld_f16(b + 2), float(m));
        return __fsub_rn(__fmul_rn(ds, float(q)), dm);
    } else {  // Q6_K: ql[128] qh[64] scales[16] d
        static_assert(T == DType::Q6_K);
        const std::uint8_t* b = row + (i / 256) * 210;
        const int e = int(i % 256), h = e / 128, w = e % 128, k = w / 32, l = w % 32;
        const std::uint8_t lo = b[64 * h + l + 32 * (k & 1)];
        const int q = ((k < 2 ? lo & 0xF : lo >> 4) | (((b[128 + 32 * h + l] >> (2 * k)) & 3) << 4)) - 32;
        const float ds = __fmul_rn(ld_f16(b + 208), float(static_cast<std::int8_t>(b[192 + e / 16])));
        return __fmul_rn(ds, float(q));
    }
}

template <DType T>
__global__ void embed_rows_kernel(const std::uint8_t* __restrict__ table, std::size_t row_bytes, std::int64_t cols,
                                  const std::int32_t* __restrict__ ids, float* __restrict__ y) {
    pdl_enter();
    const std::int64_t t = blockIdx.x;
    const std::int32_t id = ids[t];
    float* yr = y + t * cols;
    if (id < 0) {  // padding token: a zero row
        for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = 0.f;
        return;
    }
    const std::uint8_t* row = table + std::size_t(id) * row_bytes;
    for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = decode<T>(row, c);
}

template <DType T>
cudaError_t launch_embed(const std::uint8_t* table, std::size_t row_bytes, std::int64_t cols, const std::int32_t* ids,
                         std::int64_t n_tokens, float* y, cudaStream_t stream) {
    return launch_pdl(embed_rows_kernel<T>, dim3(static_cast<unsigned>(n_tokens)), dim3(256), 0, stream, table, row_bytes,
                      cols, ids, y);
}

// The decode-only types (quant_decode.cuh): 8 elements per quant::decode8 (their blocks are 32 or 256 elements).
template <DType T>
__global__ void embed_rows8_kernel(const std::uint8_t* __restrict__ table, std::size_t row_bytes, std::int64_t cols,
                                   const std::int32_t* __restrict__ ids, float* __restrict__ y) {
    pdl_enter();
    const std::int64_t t = blockIdx.x;
    const std::int32_t id = ids[t];
    float* yr = y + t * cols;
    const std::uint8_t* row = table + std::size_t(id < 0 ? 0 : id) * row_bytes;
    for (std::int64_t c = 8 * std::int64_t(threadIdx.x); c < cols; c += 8 * std::int64_t(blockDim.x)) {
        float v[8];
        if (id < 0) {
#pragma unroll
            for (int i = 0; i < 8; ++i) v[i] = 0.f;
        } else {
            quant::decode8<T>(row, c, 8, v);
        }
#pragma unroll
        for (int i = 0; i < 8; ++i) yr[c + i] = v[i];
    }
}

template <DType T>
cudaError_t launch_embed8(const std::uint8_t* table, std::size_t row_bytes, std::int64_t cols, const std::int32_t* ids,
                          std::int64_t n_tokens, float* y, cudaStream_t stream) {
    if (cols % 8) return cudaErrorInvalidValue;  // whole blocks (dtype_bytes checked it)
    return launch_pdl(embed_rows8_kernel<T>, dim3(static_cast<unsigned>(n_tokens)), dim3(256), 0, stream, table,
                      row_bytes, cols, ids, y);
}

// ---- paged KV write ----

template <typename T>
__device__ __forceinline__ T kv_elem(float x) {
    if constexpr (sizeof(T) == 2) return __float2half_rn(x);
    else return x;
}

// The cache slot of position ps of sequence sq; -1 (nothing to write) for ps < 0, sq < 0 or an unmapped page.
__device__ __forceinline__ std::int64_t kv_slot(const KvWriteParams& p, int ps, int sq) {
    if (ps < 0 || sq < 0) return -1;
    const int page = p.page_tables[std::int64_t(sq) * p.pages_stride + ps / p.page_size];
    return page < 0 ? -1 : std::int64_t(page) * p.page_size + ps % p.page_size;
}

// Token t's K and V rows into its cache slot (by the block's threads).
template <typename T>
__device__ void kv_write_token(const KvWriteParams& p, const float* k, std::int64_t ldk, const float* v, std::int64_t ldv,
                               int ps, int sq, std::int64_t t, T* k_cache, T* v_cache) {
    const std::int64_t at = kv_slot(p, ps, sq);
    if (at < 0) return;
    const int kw = p.n_head_kv * p.head_dim, vw = p.n_head_kv * p.v_head_dim;
    for (int c = threadIdx.x; c < kw; c += blockDim.x) k_cache[at * kw + c] = kv_elem<T>(k[t * ldk + c]);
    for (int c = threadIdx.x; c < vw; c += blockDim.x) v_cache[at * vw + c] = kv_elem<T>(v[t * ldv + c]);
}

// The KV write fused into qk_norm_rope (k_cache null in the plain form).
struct KvTarget {
    KvWriteParams p;
    const float* v = nullptr;
    std::int64_t ldv = 0;
    const std::int32_t* seq = nullptr;
    void* k_cache = nullptr;
    void* v_cache = nullptr;
};

// ---- warp reductions ----

__device__ inline double warp_sum(double v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(kFull, v, off);
    return v;
}
__device__ inline float warp_sum(float v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(kFull, v, off);
    return v;
}
__device__ inline float warp_max(float v) {
    for (int off = 16; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(kFull, v, off));
    return v;
}

// ---- RoPE ----

constexpr int kRopeTokens = 8;  // tokens per block: the frequency table is built once per block
constexpr int kRopeMaxRot = 1024;

struct RopeArgs {
    int head_dim, half, n_heads;
    bool neox, yarn;
    float theta;
    double freq_scale, ext_factor, lo, hi;  // lo/hi: YaRN ramp ends (pair indices)
    float mag;                              // attn_factor × YaRN magnitude scale
    std::int64_t ld, n_tokens;
};

// Angles follow ref::rope_f32 in double (position × frequency reaches 4e4 rad: float would lose 4e-3 rad there);
// the angle is reduced mod 2π in double and only its sin/cos are taken in float (error ~1e-7).
__global__ void rope_kernel(RopeArgs a, float* __restrict__ x, const std::int32_t* __restrict__ pos) {
    extern __shared__ double rope_smem[];
    double* pw = rope_smem;                                // [half] theta^(2i/n_rot)
    double* mix = pw + a.half;                             // [half] YaRN extrapolation share of pair i
    float2* cs = reinterpret_cast<float2*>(mix + a.half);  // [kRopeTokens, half] (cos, sin)
    const int n_rot = 2 * a.half;
    for (int i = threadIdx.x; i < a.half; i += blockDim.x) {
        pw[i] = pow(double(a.theta), 2.0 * i / n_rot);
        double m = 0.0;
        if (a.yarn) {
            const double r = (i - a.lo) / fmax(0.001, a.hi - a.lo);
            m = (1.0 - fmin(fmax(r, 0.0), 1.0)) * a.ext_factor;
        }
        mix[i] = m;
    }
    __syncthreads();
    const std::int64_t t0 = std::int64_t(blockIdx.x) * kRopeTokens;
    const int nt = int(min(std::int64_t(kRopeTokens), a.n_tokens - t0));
    constexpr double kTwoPi = 6.283185307179586476925286766559;
    for (int j = threadIdx.x; j < nt * a.half; j += blockDim.x) {
        const int tl = j / a.half, i = j % a.half;
        const double extrap = double(pos[t0 + tl]) / pw[i];
        double angle = extrap * a.freq_scale;
        if (a.yarn) angle = angle * (1.0 - mix[i]) + extrap * mix[i];
        const double r = fma(-rint(angle * (1.0 / kTwoPi)), kTwoPi, angle);
        float s, c;
        sincosf(float(r), &s, &c);
        cs[j] = make_float2(c * a.mag, s * a.mag);
    }
    __syncthreads();
    const int per_token = a.n_heads * a.half;
    for (int j = threadIdx.x; j < nt * per_token; j += blockDim.x) {
        const int tl = j / per_token, rem = j % per_token, h = rem / a.half, i = rem % a.half;
        float* v = x + (t0 + tl) * a.ld + std::int64_t(h) * a.head_dim;
        const int ia = a.neox ? i : 2 * i, ib = a.neox ? i + a.half : 2 * i + 1;
        const float2 k = cs[tl * a.half + i];
        const float x0 = v[ia], x1 = v[ib];
        v[ia] = fmaf(x0, k.x, -x1 * k.y);
        v[ib] = fmaf(x0, k.y, x1 * k.x);
    }
}

// Per-head RMSNorm (weights optional) then RoPE, for q and k: the decode step's q/k post-processing in one launch.
// A warp per head (kQkWarps heads per block, blocks over heads and tokens): the head's values load at once into
// shared memory (so the rotation can pair any two elements) and each lane takes the angles of its pairs, in double as
// rope_kernel. KV (void: none) is the cache's element type when the warps of k's heads then write their rotated head
// and the same head of V into the token's cache slot.
constexpr int kQkWarps = 4;

template <typename KV>
__global__ void __launch_bounds__(kQkWarps * 32)
    qk_norm_rope_kernel(RopeArgs a, float* __restrict__ q, std::int64_t ldq, int nq, float* __restrict__ k,
                        std::int64_t ldk, int nk, const float* __restrict__ qw, const float* __restrict__ kw, float eps,
                        const std::int32_t* __restrict__ pos, KvTarget kv) {
    extern __shared__ float qk_smem[];
    pdl_enter();
    const int warp = int(threadIdx.x) >> 5, lane = int(threadIdx.x) & 31, hd = a.head_dim;
    const int h = int(blockIdx.y) * kQkWarps + warp;
    if (h >= nq + nk) return;  // whole warps: only warp-level sync below
    const std::int64_t t = blockIdx.x;
    const bool is_q = h < nq;
    float* v = is_q ? q + t * ldq + std::int64_t(h) * hd : k + t * ldk + std::int64_t(h - nq) * hd;
    const float* wn = is_q ? qw : kw;
    float* buf = qk_smem + warp * hd;
    float ss = 0.f;
    for (int base = 0; base < hd; base += 256) {
        float r[8];
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            const int i = base + lane + 32 * j;
            r[j] = i < hd ? v[i] : 0.f;
        }
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            const int i = base + lane + 32 * j;
            ss += r[j] * r[j];
            if (i < hd) buf[i] = r[j];
        }
    }
    const float scale = wn ? rsqrtf(warp_sum(ss) / float(hd) + eps) : 1.f;
    __syncwarp();

    // Where this k head goes in the cache (none: q, no cache, a position or sequence of -1, an unmapped page).
    KV* kdst = nullptr;
    KV* vdst = nullptr;
    const float* vsrc = nullptr;
    if constexpr (!std::is_void_v<KV>) {
        const std::int64_t at = is_q ? -1 : kv_slot(kv.p, pos[t], kv.seq[t]);
        if (at >= 0) {
            const int hk = h - nq;
            kdst = static_cast<KV*>(kv.k_cache) + at * kv.p.n_head_kv * hd + std::int64_t(hk) * hd;
            vdst = static_cast<KV*>(kv.v_cache) + (at * kv.p.n_head_kv + hk) * kv.p.v_head_dim;
            vsrc = kv.v + t * kv.ldv + std::int64_t(hk) * kv.p.v_head_dim;
        }
    }
    auto put = [&](int i, float x) {
        v[i] = x;
        if constexpr (!std::is_void_v<KV>)
            if (kdst) kdst[i] = kv_elem<KV>(x);
    };
    auto normed = [&](int i) { return wn ? buf[i] * scale * wn[i] : buf[i]; };
    constexpr double kTwoPi = 6.283185307179586476925286766559;
    const int n_rot = 2 * a.half;
    const double ps = double(pos[t]);
    for (int i = lane; i < a.half; i += 32) {
        const double pwi = pow(double(a.theta), 2.0 * i / n_rot);
        double m = 0.0;
        if (a.yarn) {
            const double r = (i - a.lo) / fmax(0.001, a.hi - a.lo);
            m = (1.0 - fmin(fmax(r, 0.0), 1.0)) * a.ext_factor;
        }
        const double extrap = ps / pwi;
        double angle = extrap * a.freq_scale;
        if (a.yarn) angle = angle * (1.0 - m) + extrap * m;
        const double r = fma(-rint(angle * (1.0 / kTwoPi)), kTwoPi, angle);
        float sn, cn;
        sincosf(float(r), &sn, &cn);
        const float cx = cn * a.mag, cy = sn * a.mag;
        const int ia = a.neox ? i : 2 * i, ib = a.neox ? i + a.half : 2 * i + 1;
        const float x0 = normed(ia), x1 = normed(ib);
        put(ia, fmaf(x0, cx, -x1 * cy));
        put(ib, fmaf(x0, cy, x1 * cx));
    }
    for (int i = n_rot + lane; i < hd; i += 32) put(i, normed(i));
    if constexpr (!std::is_void_v<KV>)
        if (vdst)
            for (int i = lane; i < kv.p.v_head_dim; i += 32) vdst[i] = kv_elem<KV>(vsrc[i]);
}

// ---- element-wise ----

__global__ void add_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t n) {
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += std::int64_t(gridDim.x) * blockDim.x)
        y[i] += x[i];
}

__global__ void add_bias_kernel(float* __restrict__ y, std::int64_t ldy, const float* __restrict__ b, std::int64_t rows,
                                std::int64_t cols) {
    const std::int64_t n = rows * cols;
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += std::int64_t(gridDim.x) * blockDim.x) {
        const std::int64_t r = i / cols, c = i - r * cols;
        y[r * ldy + c] += b[c];
    }
}

// y may alias g: each element is read before it is written by the same thread.
__global__ void swiglu_kernel(const float* g, const float* __restrict__ u, float* y, std::int64_t n, float limit) {
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += std::int64_t(gridDim.x) * blockDim.x) {
        const float gi = g[i], ui = u[i];
        if (limit > 0.f) {
            // Same NaN behaviour as std::min / std::clamp in the reference.
            const float gx = limit < gi ? limit : gi;
            const float ux = ui < -limit ? -limit : (limit < ui ? limit : ui);
            y[i] = gx / (1.f + expf(-1.702f * gx)) * (ux + 1.f);
        } else if (limit < 0.f) {  // DeepSeek-V4: silu(min(g, -limit)) · clamp(u, ±limit)
            const float gx = -limit < gi ? -limit : gi;
            const float ux = ui < limit ? limit : (-limit < ui ? -limit : ui);
            y[i] = gx / (1.f + expf(-gx)) * ux;
        } else {
            y[i] = gi / (1.f + expf(-gi)) * ui;
        }
    }
}

unsigned elementwise_grid(std::int64_t n) {
    const std::int64_t b = (n + 255) / 256;
    return static_cast<unsigned>(b < 65536 ? b : 65536);
}

// ---- MoE router: one warp per token ----

constexpr int kRouteWarps = 4;

struct RouteArgs {
    int n, k;
    RouterGating gating;
    bool norm_topk, grouped;
    int n_group, topk_group;
    float scale;
    const float* bias;
};

// (value, id) ordering of the router: larger value first, ties to the lower id; id == INT_MAX is "nothing".
struct Cand {
    double v;
    int id;
};
__device__ inline bool better(const Cand& b, const Cand& a) {
    return b.id != INT_MAX && (a.id == INT_MAX || b.v > a.v || (b.v == a.v && b.id < a.id));
}
__device__ inline Cand warp_best(Cand c) {
    for (int off = 16; off > 0; off >>= 1) {
        const Cand o{__shfl_xor_sync(kFull, c.v, off), __shfl_xor_sync(kFull, c.id, off)};
        if (better(o, c)) c = o;
    }
    return c;  // the same on every lane: the order is total over distinct ids
}
// torch's softplus (x itself above 20), then the square root, in double as ref::moe_route.
__device__ inline double sqrt_softplus(float x) { return sqrt(x > 20.f ? double(x) : log1p(exp(double(x)))); }

// The weight of a lane's chosen expert (lane < k; logit lk, 0 elsewhere) from the token's logits l, as ref::moe_route:
// the gating's score, renormalised over the k when norm_topk (softmax_weight: a softmax over the k chosen logits).
__device__ double chosen_weight(const RouteArgs& a, const float* l, int lane, float lk) {
    const bool mine = lane < a.k;
    double w = 0.0;
    if (a.gating == RouterGating::softmax) {
        float mx = -INFINITY;
        for (int e = lane; e < a.n; e += 32) mx = fmaxf(mx, l[e]);
        mx = warp_max(mx);
        float sum = 0.f;
        for (int e = lane; e < a.n; e += 32) sum += expf(l[e] - mx);
        sum = warp_sum(sum);
        w = mine ? double(expf(lk - mx)) / double(sum) : 0.0;
    } else if (a.gating == RouterGating::sigmoid) {
        w = mine ? 1.0 / (1.0 + exp(-double(lk))) : 0.0;
    } else if (a.gating == RouterGating::sqrtsoftplus) {
        w = mine ? sqrt_softplus(lk) : 0.0;
    } else {
        const float mx = warp_max(mine ? lk : -INFINITY);
        w = mine ? exp(double(lk) - double(mx)) : 0.0;
        w /= warp_sum(w);
    }
    if (a.gating != RouterGating::softmax_weight && a.norm_topk) w /= warp_sum(w);
    return w;
}

// Expert e's selection score from its logit x, exactly as the reference orders them. softmax: the order of the
// probabilities is the order of the logits, so the logits are compared; sigmoid: s + bias in double (as the
// reference) so near-ties break the same way.
__device__ __forceinline__ double route_score(const RouteArgs& a, float x, int e) {
    double s = x;
    if (a.gating == RouterGating::sigmoid) {
        s = 1.0 / (1.0 + exp(-s));
        if (a.bias) s += double(a.bias[e]);
    } else if (a.gating == RouterGating::sqrtsoftplus) {
        s = sqrt_softplus(x);
        if (a.bias) s += double(a.bias[e]);
    }
    return s;
}

// Ungrouped top-k in one pass, a block per token and a thread per expert: expert e's rank is the number of experts
// ahead of it in the router's order (larger score, ties to the lower id), and the k of rank < k are the choice, in
// rank order — the same choice as k rounds of an argmax, without their k dependent warp reductions (a decode step's
// router is one token: latency, not throughput). Warp 0 then weighs the k as moe_route_kernel does.
__global__ void moe_route_rank_kernel(RouteArgs a, const float* __restrict__ logits, std::int32_t* __restrict__ ids,
                                      float* __restrict__ weights) {
    extern __shared__ double route_smem[];
    double* sel = route_smem;                              // [n]
    float* lg = reinterpret_cast<float*>(sel + a.n);       // [n]
    int* chosen = reinterpret_cast<int*>(lg + a.n);        // [k]
    pdl_enter();
    const std::int64_t t = blockIdx.x;
    const int e = int(threadIdx.x);
    double s = 0.0;
    if (e < a.k) chosen[e] = -1;
    if (e < a.n) {
        const float x = logits[t * a.n + e];
        s = route_score(a, x, e);
        sel[e] = s;
        lg[e] = x;
    }
    __syncthreads();
    if (e < a.n) {
        int rank = 0;
        for (int j = 0; j < a.n; ++j) {
            const double o = sel[j];
            rank += o > s || (o == s && j < e);
        }
        if (rank < a.k) chosen[rank] = e;
    }
    __syncthreads();
    if (threadIdx.x >= 32) return;
    const int lane = int(threadIdx.x);
    const bool mine = lane < a.k;
    // Every rank below k is taken unless a score is NaN (no order): then expert `lane` stands in, a valid id.
    const int my_id = mine ? (chosen[lane] >= 0 ? chosen[lane] : lane) : 0;
    const double w = chosen_weight(a, lg, lane, mine ? lg[my_id] : 0.f);
    if (mine) {
        ids[t * a.k + lane] = my_id;
        weights[t * a.k + lane] = float(w * double(a.scale));
    }
}

// Lane l owns experts l, l + 32, … (at most 32 of them: n ≤ 1024), so a 32-bit mask marks the ones already taken.
__global__ void moe_route_kernel(RouteArgs a, const float* __restrict__ logits, std::int64_t n_tokens,
                                 std::int32_t* __restrict__ ids, float* __restrict__ weights) {
    pdl_enter();
    extern __shared__ double route_smem[];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const std::int64_t t = std::int64_t(blockIdx.x) * kRouteWarps + warp;
    if (t >= n_tokens) return;  // whole warps leave: only warp-level sync below
    double* sel = route_smem + std::size_t(warp) * a.n;
    const float* l = logits + t * a.n;

    for (int e = lane; e < a.n; e += 32) sel[e] = route_score(a, l[e], e);
    if (a.grouped) {
        __syncwarp();
        // Group g (lane g): the sum of its two best scores; keep the topk_group best groups (ties → lower group).
        const int per = a.n / a.n_group;
        Cand g{0.0, INT_MAX};
        if (lane < a.n_group) {
            double b1 = -INFINITY, b2 = -INFINITY;
            for (int e = lane * per; e < (lane + 1) * per; ++e) {
                const double v = sel[e];
                if (v > b1) {
                    b2 = b1;
                    b1 = v;
                } else if (v > b2) {
                    b2 = v;
                }
            }
            g = Cand{b1 + (per > 1 ? b2 : 0.0), lane};
        }
        unsigned keep = 0;
        for (int r = 0; r < a.topk_group; ++r) {
            const Cand best = warp_best(g);
            keep |= 1u << best.id;
            if (lane == best.id) g.id = INT_MAX;
        }
        __syncwarp();
        for (int e = lane; e < a.n; e += 32)
            if (!((keep >> (e / per)) & 1u)) sel[e] = -INFINITY;
    }

    // Top-k: k rounds of a warp argmax; round r's winner goes to lane r.
    unsigned taken = 0;
    int my_id = 0;
    for (int r = 0; r < a.k; ++r) {
        Cand c{0.0, INT_MAX};
        for (int j = 0, e = lane; e < a.n; ++j, e += 32)
            if (!((taken >> j) & 1u) && (c.id == INT_MAX || sel[e] > c.v)) c = Cand{sel[e], e};
        const Cand best = warp_best(c);
        if (best.id % 32 == lane) taken |= 1u << (best.id / 32);
        if (lane == r) my_id = best.id;
    }

    // Weights of the k chosen (lane r < k holds choice r).
    const bool mine = lane < a.k;
    const double w = chosen_weight(a, l, lane, mine ? l[my_id] : 0.f);
    if (mine) {
        ids[t * a.k + lane] = my_id;
        weights[t * a.k + lane] = float(w * double(a.scale));
    }
}

// The weights of k experts chosen by token id (DeepSeek-V4's hash layers: ids = table[token]), as
// ref::moe_route_fixed. One warp per token, lane r < k choice r.
__global__ void moe_route_fixed_kernel(RouteArgs a, const float* __restrict__ logits, const std::int32_t* __restrict__ tokens,
                                       const std::int32_t* __restrict__ table, std::int64_t n_tokens,
                                       std::int32_t* __restrict__ ids, float* __restrict__ weights) {
    pdl_enter();
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const std::int64_t t = std::int64_t(blockIdx.x) * kRouteWarps + warp;
    if (t >= n_tokens) return;
    const float* l = logits + t * a.n;
    const bool mine = lane < a.k;
    const int id = mine ? table[std::int64_t(tokens[t]) * a.k + lane] : 0;
    const double w = chosen_weight(a, l, lane, mine ? l[id] : 0.f);
    if (mine) {
        ids[t * a.k + lane] = id;
        weights[t * a.k + lane] = float(w * double(a.scale));
    }
}

// ---- MoE grouping: stable counting sort by expert, one block ----
//
// Warp w owns a contiguous chunk of pairs. cnt[w][e] first counts chunk w's pairs of expert e, then becomes the
// position where chunk w's next pair of expert e goes (expert start + pairs of e in earlier chunks). Inside a warp,
// 32 consecutive pairs are ranked with __match_any_sync; a chunk is walked in order, so the sort is stable.

constexpr int kGroupUnroll = 8;  // 32-pair steps loaded ahead (independent loads in flight)
constexpr int kGroupSmemInts = 48 * 1024 / 4;
constexpr int kGroupMaxExpert = 4096;

__device__ inline int group_key(const std::int32_t* ids, std::int64_t p, std::int64_t end, int n_expert) {
    if (p >= end) return -1;
    const int id = ids[p];
    return id >= 0 && id < n_expert ? id : -1;
}

__global__ void moe_group_kernel(const std::int32_t* __restrict__ ids, std::int64_t pairs, int n_expert,
                                 std::int32_t* __restrict__ offsets, std::int32_t* __restrict__ order,
                                 std::int32_t* __restrict__ where) {
    extern __shared__ int group_smem[];
    const int n_warps = blockDim.x / 32, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int* cnt = group_smem;                  // [n_warps, n_expert]
    int* start = cnt + n_warps * n_expert;  // [n_expert + 1]
    for (int i = threadIdx.x; i < n_warps * n_expert; i += blockDim.x) cnt[i] = 0;
    __syncthreads();

    const std::int64_t chunk = (pairs + n_warps - 1) / n_warps;
    const std::int64_t begin = min(pairs, warp * chunk), end = min(pairs, begin + chunk);
    int* my_cnt = cnt + warp * n_expert;
    const unsigned lt = (1u << lane) - 1u;

    for (std::int64_t base = begin; base < end; base += 32 * kGroupUnroll) {
        int key[kGroupUnroll];
#pragma unroll
        for (int u = 0; u < kGroupUnroll; ++u) key[u] = group_key(ids, base + 32 * u + lane, end, n_expert);
#pragma unroll
        for (int u = 0; u < kGroupUnroll; ++u) {
            const unsigned same = __match_any_sync(kFull, key[u]);
            if (key[u] >= 0 && (same & lt) == 0) my_cnt[key[u]] += __popc(same);
            __syncwarp();
        }
    }
    __syncthreads();

    // Per expert: the counts of earlier chunks become offsets inside the expert's range.
    for (int e = threadIdx.x; e < n_expert; e += blockDim.x) {
        int run = 0;
        for (int w = 0; w < n_warps; ++w) {
            const int c = cnt[w * n_expert + e];
            cnt[w * n_expert + e] = run;
            run += c;
        }
        start[e] = run;
    }
    __syncthreads();
    // Exclusive scan of the per-expert totals by warp 0: lane l scans a contiguous range of experts.
    if (warp == 0) {
        const int per = (n_expert + 31) / 32, e0 = min(n_expert, lane * per), e1 = min(n_expert, e0 + per);
        int sum = 0;
        for (int e = e0; e < e1; ++e) sum += start[e];
        int incl = sum;
        for (int off = 1; off < 32; off <<= 1) {
            const int v = __shfl_up_sync(kFull, incl, off);
            if (lane >= off) incl += v;
        }
        int run = incl - sum;
        for (int e = e0; e < e1; ++e) {
            const int c = start[e];
            start[e] = run;
            offsets[e] = run;
            run += c;
        }
        if (lane == 31) {
            start[n_expert] = incl;
            offsets[n_expert] = incl;
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < n_warps * n_expert; i += blockDim.x) cnt[i] += start[i % n_expert];
    // Positions past the valid pairs (only when some ids were out of range).
    for (std::int64_t i = start[n_expert] + threadIdx.x; i < pairs; i += blockDim.x) order[i] = -1;
    __syncthreads();

    for (std::int64_t base = begin; base < end; base += 32 * kGroupUnroll) {
        int key[kGroupUnroll];
#pragma unroll
        for (int u = 0; u < kGroupUnroll; ++u) key[u] = group_key(ids, base + 32 * u + lane, end, n_expert);
#pragma unroll
        for (int u = 0; u < kGroupUnroll; ++u) {
            const std::int64_t p = base + 32 * u + lane;
            const unsigned same = __match_any_sync(kFull, key[u]);
            int dst = -1;
            if (key[u] >= 0) {
                dst = my_cnt[key[u]] + __popc(same & lt);
                order[dst] = static_cast<std::int32_t>(p);
            }
            if (p < end) where[p] = dst;
            __syncwarp();
            if (key[u] >= 0 && (same & lt) == 0) my_cnt[key[u]] += __popc(same);
            __syncwarp();
        }
    }
}

// ---- gather / combine ----

__global__ void gather_rows_kernel(const float* __restrict__ x, std::int64_t cols,
                                   const std::int32_t* __restrict__ order, int k, float* __restrict__ out, bool vec4) {
    const std::int64_t i = blockIdx.x;
    const int src = order[i];
    float* o = out + i * cols;
    if (src < 0) {
        for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) o[c] = 0.f;
        return;
    }
    const float* s = x + std::int64_t(src / k) * cols;
    if (vec4) {
        const auto* s4 = reinterpret_cast<const float4*>(s);
        auto* o4 = reinterpret_cast<float4*>(o);
        for (std::int64_t c = threadIdx.x; c < cols / 4; c += blockDim.x) o4[c] = s4[c];
    } else {
        for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) o[c] = s[c];
    }
}

__global__ void moe_combine_kernel(const float* __restrict__ y, const std::int32_t* __restrict__ where,
                                   const float* __restrict__ weights, int k, std::int64_t cols, float* __restrict__ out,
                                   bool accumulate) {
    pdl_enter();
    const std::int64_t t = blockIdx.x;
    // Columns spread over blockIdx.y as well: a decode step has one token, and one block would leave the GPU idle.
    for (std::int64_t c = std::int64_t(blockIdx.y) * blockDim.x + threadIdx.x; c < cols; c += std::int64_t(gridDim.y) * blockDim.x) {
        float s = 0.f;
        for (int j = 0; j < k; ++j) {
            const std::int64_t p = t * k + j;
            const std::int64_t r = where ? where[p] : p;
            if (r >= 0) s = fmaf(weights[p], y[r * cols + c], s);
        }
        float* o = out + t * cols + c;
        *o = accumulate ? *o + s : s;
    }
}

// ---- paged KV write ----

template <typename T>
__global__ void kv_write_kernel(KvWriteParams p, const float* __restrict__ k, std::int64_t ldk,
                                const float* __restrict__ v, std::int64_t ldv, const std::int32_t* __restrict__ pos,
                                const std::int32_t* __restrict__ seq, T* __restrict__ k_cache, T* __restrict__ v_cache) {
    pdl_enter();
    const std::int64_t t = blockIdx.x;
    kv_write_token<T>(p, k, ldk, v, ldv, pos[t], seq[t], t, k_cache, v_cache);
}

// ---- argmax ----

constexpr int kArgmaxBlock = 1024;
constexpr int kArgmaxUnroll = 4;

// Better of (v, i) and (bv, bi): larger value, ties to the lower index; bi < 0 is "nothing yet"; NaN never enters.
__device__ inline void argmax_take(float v, int i, float& bv, int& bi) {
    if (i >= 0 && (bi < 0 || v > bv || (v == bv && i < bi))) bv = v, bi = i;
}

__global__ void argmax_rows_kernel(const float* __restrict__ x, std::int64_t n, std::int32_t* __restrict__ out,
                                   bool vec4) {
    const float* r = x + std::int64_t(blockIdx.x) * n;
    float bv = -INFINITY;
    int bi = -1;
    // Each thread visits its indices in increasing order, so a strict > keeps the lowest index of a tie. kArgmaxUnroll
    // loads are issued before they are compared (one row is latency-bound: decode samples from a single block).
    if (vec4) {
        const auto* r4 = reinterpret_cast<const float4*>(r);
        const std::int64_t nq = n / 4, step = std::int64_t(blockDim.x);
        for (std::int64_t q0 = threadIdx.x; q0 < nq; q0 += kArgmaxUnroll * step) {
            float4 f[kArgmaxUnroll];
#pragma unroll
            for (int u = 0; u < kArgmaxUnroll; ++u) {
                const std::int64_t q = q0 + u * step;
                f[u] = q < nq ? r4[q] : make_float4(NAN, NAN, NAN, NAN);  // NaN: never taken
            }
#pragma unroll
            for (int u = 0; u < kArgmaxUnroll; ++u) {
                const int i = int(4 * (q0 + u * step));
                if (f[u].x == f[u].x && (bi < 0 || f[u].x > bv)) bv = f[u].x, bi = i;
                if (f[u].y == f[u].y && (bi < 0 || f[u].y > bv)) bv = f[u].y, bi = i + 1;
                if (f[u].z == f[u].z && (bi < 0 || f[u].z > bv)) bv = f[u].z, bi = i + 2;
                if (f[u].w == f[u].w && (bi < 0 || f[u].w > bv)) bv = f[u].w, bi = i + 3;
            }
        }
    } else {
#pragma unroll 4
        for (std::int64_t i = threadIdx.x; i < n; i += blockDim.x) {
            const float f = r[i];
            if (f == f && (bi < 0 || f > bv)) bv = f, bi = int(i);
        }
    }
    for (int off = 16; off > 0; off >>= 1) {
        const float ov = __shfl_xor_sync(kFull, bv, off);
        const int oi = __shfl_xor_sync(kFull, bi, off);
        argmax_take(ov, oi, bv, bi);
    }
    __shared__ float sv[kArgmaxBlock / 32];
    __shared__ int si[kArgmaxBlock / 32];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0) sv[warp] = bv, si[warp] = bi;
    __syncthreads();
    if (warp == 0) {
        bv = -INFINITY, bi = -1;
        if (lane < blockDim.x / 32) bv = sv[lane], bi = si[lane];
        for (int off = 16; off > 0; off >>= 1) {
            const float ov = __shfl_xor_sync(kFull, bv, off);
            const int oi = __shfl_xor_sync(kFull, bi, off);
            argmax_take(ov, oi, bv, bi);
        }
        if (lane == 0) out[blockIdx.x] = bi < 0 ? 0 : bi;  // an all-NaN row gives 0
    }
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

// ---------------------------------------------------------------------------------------------------------------

cudaError_t embed_rows(DType type, const void* table, std::size_t row_bytes, std::int64_t cols, const std::int32_t* ids,
                       std::int64_t n_tokens, float* y, cudaStream_t stream) {
    if (n_tokens < 0 || cols <= 0 || n_tokens > kMaxGrid) return cudaErrorInvalidValue;
    const auto need = dtype_bytes(type, std::uint64_t(cols));
    if (!need || row_bytes < *need) return cudaErrorInvalidValue;
    if (n_tokens == 0) return cudaSuccess;
    const auto* tb = static_cast<const std::uint8_t*>(table);
    switch (type) {
        case DType::F32:
            if (row_bytes % 4 || reinterpret_cast<std::uintptr_t>(table) % 4) return cudaErrorInvalidValue;
            return launch_embed<DType::F32>(tb, row_bytes, cols, ids, n_tokens, y, stream);
        case DType::F16: return launch_embed<DType::F16>(tb, row_bytes, cols, ids, n_tokens, y, stream);
        case DType::BF16: return launch_embed<DType::BF16>(tb, row_bytes, cols, ids, n_tokens, y, stream);
        case DType::Q8_0: return launch_embed<DType::Q8_0>(tb, row_bytes, cols, ids, n_tokens, y, stream);
        case DType::Q4_K: return launch_embed<DType::Q4_K>(tb, row_bytes, cols, ids, n_tokens, y, stream);
        case DType::Q5_K: return launch_embed<DType::Q5_K>(tb, row_bytes, cols, ids, n_tokens, y, stream);
        case DType::Q6_K: return launch_embed<DType::Q6_K>(tb, row_bytes, cols, ids, n_tokens, y, stream);
#define FT_X(T) case DType::T: return launch_embed8<DType::T>(tb, row_bytes, cols, ids, n_tokens, y, stream);
        FT_CUDA_DECODE_ONLY_TYPES(FT_X)
#undef FT_X
        default: return cudaErrorInvalidValue;
    }
}

namespace {
RopeArgs rope_args(const RopeParams& p, int n_heads, std::int64_t ld, std::int64_t n_tokens) {
    RopeArgs a{};
    a.head_dim = p.head_dim;
    a.half = p.n_rot / 2;
    a.n_heads = n_heads;
    a.neox = p.neox;
    a.yarn = p.ext_factor != 0.f;
    a.theta = p.theta;
    a.freq_scale = p.freq_scale;
    a.ext_factor = p.ext_factor;
    a.ld = ld;
    a.n_tokens = n_tokens;
    const RopeRamp r = rope_ramp(p);  // the same doubles as the reference
    a.lo = r.lo;
    a.hi = r.hi;
    a.mag = float(r.mag);
    return a;
}
}  // namespace

cudaError_t rope_f32(const RopeParams& p, float* x, std::int64_t n_tokens, int n_heads, std::int64_t ld,
                     const std::int32_t* pos, cudaStream_t stream) {
    if (n_tokens < 0 || n_heads <= 0 || p.head_dim <= 0 || p.n_rot < 0 || p.n_rot % 2 || p.n_rot > p.head_dim ||
        p.n_rot > kRopeMaxRot)
        return cudaErrorInvalidValue;
    if (ld == 0) ld = std::int64_t(n_heads) * p.head_dim;
    if (ld < std::int64_t(n_heads) * p.head_dim) return cudaErrorInvalidValue;
    if (p.ext_factor != 0.f && p.orig_ctx <= 0) return cudaErrorInvalidValue;
    if (n_tokens == 0 || p.n_rot == 0) return cudaSuccess;
    if ((n_tokens + kRopeTokens - 1) / kRopeTokens > kMaxGrid) return cudaErrorInvalidValue;
    const RopeArgs a = rope_args(p, n_heads, ld, n_tokens);
    const std::size_t smem = std::size_t(a.half) * (2 * sizeof(double) + kRopeTokens * sizeof(float2));
    rope_kernel<<<blocks_for(n_tokens, kRopeTokens), 256, smem, stream>>>(a, x, pos);
    return cudaGetLastError();
}

namespace {

bool kv_params_ok(const KvWriteParams& p) {
    return p.n_head_kv > 0 && p.head_dim > 0 && p.v_head_dim > 0 && p.page_size > 0 && p.pages_stride > 0 && p.page_tables &&
           (p.type == DType::F32 || p.type == DType::F16);
}

cudaError_t launch_qk_norm_rope(const RopeParams& p, float* q, std::int64_t ldq, int n_q_heads, float* k, std::int64_t ldk,
                                int n_k_heads, const float* q_norm, const float* k_norm, float eps, std::int64_t n_tokens,
                                const std::int32_t* pos, const KvTarget& kv, cudaStream_t stream) {
    if (n_tokens < 0 || n_tokens > kMaxGrid || n_q_heads < 0 || n_k_heads < 0 || p.head_dim <= 0 || p.head_dim > 1024 ||
        p.n_rot < 0 || p.n_rot % 2 || p.n_rot > p.head_dim || (p.ext_factor != 0.f && p.orig_ctx <= 0))
        return cudaErrorInvalidValue;
    if (ldq < std::int64_t(n_q_heads) * p.head_dim || ldk < std::int64_t(n_k_heads) * p.head_dim) return cudaErrorInvalidValue;
    if (n_tokens == 0 || n_q_heads + n_k_heads == 0) return cudaSuccess;
    const RopeArgs a = rope_args(p, n_q_heads, ldq, n_tokens);
    const std::size_t smem = std::size_t(kQkWarps) * std::size_t(p.head_dim) * sizeof(float);
    const dim3 grid(static_cast<unsigned>(n_tokens), unsigned((n_q_heads + n_k_heads + kQkWarps - 1) / kQkWarps));
    const dim3 block(kQkWarps * 32);
    if (!kv.k_cache)
        return launch_pdl(qk_norm_rope_kernel<void>, grid, block, smem, stream, a, q, ldq, n_q_heads, k, ldk, n_k_heads,
                          q_norm, k_norm, eps, pos, kv);
    if (kv.p.type == DType::F16)
        return launch_pdl(qk_norm_rope_kernel<__half>, grid, block, smem, stream, a, q, ldq, n_q_heads, k, ldk, n_k_heads,
                          q_norm, k_norm, eps, pos, kv);
    return launch_pdl(qk_norm_rope_kernel<float>, grid, block, smem, stream, a, q, ldq, n_q_heads, k, ldk, n_k_heads,
                      q_norm, k_norm, eps, pos, kv);
}

}  // namespace

cudaError_t qk_norm_rope(const RopeParams& p, float* q, std::int64_t ldq, int n_q_heads, float* k, std::int64_t ldk,
                         int n_k_heads, const float* q_norm, const float* k_norm, float eps, std::int64_t n_tokens,
                         const std::int32_t* pos, cudaStream_t stream) {
    return launch_qk_norm_rope(p, q, ldq, n_q_heads, k, ldk, n_k_heads, q_norm, k_norm, eps, n_tokens, pos, KvTarget{},
                               stream);
}

cudaError_t qk_norm_rope_kv_write(const RopeParams& p, float* q, std::int64_t ldq, int n_q_heads, float* k,
                                  std::int64_t ldk, const float* q_norm, const float* k_norm, float eps,
                                  std::int64_t n_tokens, const std::int32_t* pos, const KvWriteParams& kw,
                                  const float* v, std::int64_t ldv, const std::int32_t* seq, void* k_cache,
                                  void* v_cache, cudaStream_t stream) {
    if (!kv_params_ok(kw) || kw.head_dim != p.head_dim || !v || !seq || !k_cache || !v_cache ||
        ldk < std::int64_t(kw.n_head_kv) * kw.head_dim || ldv < std::int64_t(kw.n_head_kv) * kw.v_head_dim)
        return cudaErrorInvalidValue;
    KvTarget kv;
    kv.p = kw, kv.v = v, kv.ldv = ldv, kv.seq = seq, kv.k_cache = k_cache, kv.v_cache = v_cache;
    return launch_qk_norm_rope(p, q, ldq, n_q_heads, k, ldk, kw.n_head_kv, q_norm, k_norm, eps, n_tokens, pos, kv, stream);
}

cudaError_t add_f32(const float* x, float* y, std::int64_t n, cudaStream_t stream) {
    if (n < 0) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    add_kernel<<<elementwise_grid(n), 256, 0, stream>>>(x, y, n);
    return cudaGetLastError();
}

cudaError_t add_bias_f32(float* y, std::int64_t ldy, const float* bias, std::int64_t rows, std::int64_t cols,
                         cudaStream_t stream) {
    if (rows < 0 || cols < 0 || (ldy != 0 && ldy < cols)) return cudaErrorInvalidValue;
    if (rows == 0 || cols == 0) return cudaSuccess;
    add_bias_kernel<<<elementwise_grid(rows * cols), 256, 0, stream>>>(y, ldy ? ldy : cols, bias, rows, cols);
    return cudaGetLastError();
}

cudaError_t swiglu_f32(const float* g, const float* u, float* y, std::int64_t n, float limit, cudaStream_t stream) {
    if (n < 0) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    swiglu_kernel<<<elementwise_grid(n), 256, 0, stream>>>(g, u, y, n, limit);
    return cudaGetLastError();
}

cudaError_t moe_route(const RouterParams& p, const float* logits, std::int64_t n_tokens, std::int32_t* ids,
                      float* weights, cudaStream_t stream) {
    if (n_tokens < 0 || p.n_expert < 1 || p.n_expert > 1024 || p.k < 1 || p.k > 32 || p.k > p.n_expert)
        return cudaErrorInvalidValue;
    RouteArgs a{p.n_expert, p.k, p.gating, p.norm_topk, false, p.n_group, p.topk_group, p.scale, p.bias};
    a.bias = p.gating == RouterGating::sigmoid || p.gating == RouterGating::sqrtsoftplus ? p.bias : nullptr;
    a.grouped = p.gating == RouterGating::sigmoid && p.n_group > 0 && p.topk_group > 0 && p.topk_group < p.n_group;
    if (a.grouped && (p.n_group > 32 || p.n_expert % p.n_group)) return cudaErrorInvalidValue;
    if (n_tokens == 0) return cudaSuccess;
    if (!a.grouped) {
        if (n_tokens > kMaxGrid) return cudaErrorInvalidValue;
        const std::size_t smem = std::size_t(p.n_expert) * (sizeof(double) + sizeof(float)) + std::size_t(p.k) * sizeof(int);
        return launch_pdl(moe_route_rank_kernel, dim3(static_cast<unsigned>(n_tokens)),
                          dim3(unsigned((std::max(p.n_expert, 32) + 31) / 32 * 32)), smem, stream, a, logits, ids, weights);
    }
    if ((n_tokens + kRouteWarps - 1) / kRouteWarps > kMaxGrid) return cudaErrorInvalidValue;
    const std::size_t smem = std::size_t(kRouteWarps) * p.n_expert * sizeof(double);
    return launch_pdl(moe_route_kernel, dim3(blocks_for(n_tokens, kRouteWarps)), dim3(kRouteWarps * 32), smem, stream, a,
                      logits, n_tokens, ids, weights);
}

cudaError_t moe_route_fixed(const RouterParams& p, const float* logits, const std::int32_t* tokens,
                            const std::int32_t* table, std::int64_t n_tokens, std::int32_t* ids, float* weights,
                            cudaStream_t stream) {
    if (n_tokens < 0 || p.n_expert < 1 || p.k < 1 || p.k > 32 || p.k > p.n_expert || !table || !tokens)
        return cudaErrorInvalidValue;
    if (n_tokens == 0) return cudaSuccess;
    const RouteArgs a{p.n_expert, p.k, p.gating, p.norm_topk, false, 0, 0, p.scale, nullptr};
    return launch_pdl(moe_route_fixed_kernel, dim3(blocks_for(n_tokens, kRouteWarps)), dim3(kRouteWarps * 32), 0, stream, a,
                      logits, tokens, table, n_tokens, ids, weights);
}

cudaError_t moe_group(const std::int32_t* ids, std::int64_t pairs, int n_expert, std::int32_t* offsets,
                      std::int32_t* order, std::int32_t* where, cudaStream_t stream) {
    if (pairs < 0 || pairs > 0x7fffffff || n_expert < 1 || n_expert > kGroupMaxExpert) return cudaErrorInvalidValue;
    // Warps: about 256 pairs each, at most 32, and their counters must fit 48 KiB of shared memory.
    const int fit = (kGroupSmemInts - (n_expert + 1)) / n_expert;
    const int n_warps = int(std::max<std::int64_t>(1, std::min<std::int64_t>({32, fit, (pairs + 255) / 256})));
    const std::size_t smem = (std::size_t(n_warps) * n_expert + n_expert + 1) * sizeof(int);
    moe_group_kernel<<<1, n_warps * 32, smem, stream>>>(ids, pairs, n_expert, offsets, order, where);
    return cudaGetLastError();
}

cudaError_t gather_rows(const float* x, std::int64_t cols, const std::int32_t* order, int k, std::int64_t pairs,
                        float* out, cudaStream_t stream) {
    if (cols <= 0 || k < 1 || pairs < 0 || pairs > kMaxGrid) return cudaErrorInvalidValue;
    if (pairs == 0) return cudaSuccess;
    const bool vec4 = cols % 4 == 0 && aligned16(x) && aligned16(out);
    gather_rows_kernel<<<static_cast<unsigned>(pairs), 256, 0, stream>>>(x, cols, order, k, out, vec4);
    return cudaGetLastError();
}

cudaError_t moe_combine(const float* y, const std::int32_t* where, const float* weights, std::int64_t n_tokens, int k,
                        std::int64_t cols, float* out, bool accumulate, cudaStream_t stream) {
    if (n_tokens < 0 || n_tokens > kMaxGrid || k < 1 || cols <= 0) return cudaErrorInvalidValue;
    if (n_tokens == 0) return cudaSuccess;
    const unsigned col_blocks = unsigned(std::min<std::int64_t>((cols + 127) / 128, 64));
    return launch_pdl(moe_combine_kernel, dim3(static_cast<unsigned>(n_tokens), col_blocks), dim3(128), 0, stream, y, where,
                      weights, k, cols, out, accumulate);
}

cudaError_t kv_write(const KvWriteParams& p, const float* k, std::int64_t ldk, const float* v, std::int64_t ldv,
                     const std::int32_t* pos, const std::int32_t* seq, std::int64_t n_tokens, void* k_cache,
                     void* v_cache, cudaStream_t stream) {
    if (n_tokens < 0 || n_tokens > kMaxGrid || !kv_params_ok(p)) return cudaErrorInvalidValue;
    if (ldk == 0) ldk = std::int64_t(p.n_head_kv) * p.head_dim;
    if (ldv == 0) ldv = std::int64_t(p.n_head_kv) * p.v_head_dim;
    if (ldk < std::int64_t(p.n_head_kv) * p.head_dim || ldv < std::int64_t(p.n_head_kv) * p.v_head_dim)
        return cudaErrorInvalidValue;
    if (n_tokens == 0) return cudaSuccess;
    const dim3 grid(static_cast<unsigned>(n_tokens));
    if (p.type == DType::F16)
        return launch_pdl(kv_write_kernel<__half>, grid, dim3(256), 0, stream, p, k, ldk, v, ldv, pos, seq,
                          static_cast<__half*>(k_cache), static_cast<__half*>(v_cache));
    return launch_pdl(kv_write_kernel<float>, grid, dim3(256), 0, stream, p, k, ldk, v, ldv, pos, seq,
                      static_cast<float*>(k_cache), static_cast<float*>(v_cache));
}

cudaError_t argmax_rows(const float* x, std::int64_t n_rows, std::int64_t n, std::int32_t* out, cudaStream_t stream) {
    if (n_rows < 0 || n_rows > kMaxGrid || n <= 0 || n > 0x7fffffff) return cudaErrorInvalidValue;
    if (n_rows == 0) return cudaSuccess;
    const bool vec4 = n % 4 == 0 && aligned16(x);
    argmax_rows_kernel<<<static_cast<unsigned>(n_rows), kArgmaxBlock, 0, stream>>>(x, n, out, vec4);
    return cudaGetLastError();
}

namespace {

constexpr std::int64_t kMaxSplitBytes = 96 * 1024;  // within every sm_80+ part's opt-in shared memory

// One block per token: the row's [H][2·D] through shared memory into [H·D first halves | H·D second halves].
__global__ void split_halves_kernel(float* x, std::int64_t ld, int heads, int d) {
    extern __shared__ float row[];
    float* r = x + std::int64_t(blockIdx.x) * ld;
    const int n = 2 * heads * d;
    for (int i = threadIdx.x; i < n; i += blockDim.x) row[i] = r[i];
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        const int half = i / (heads * d), j = i % (heads * d), h = j / d, c = j % d;
        r[i] = row[h * 2 * d + half * d + c];
    }
}

__global__ void mul_sigmoid_kernel(float* y, std::int64_t ldy, const float* gate, std::int64_t ldg, std::int64_t rows,
                                   std::int64_t cols) {
    for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < rows * cols;
         i += std::int64_t(gridDim.x) * blockDim.x) {
        const std::int64_t r = i / cols, c = i % cols;
        y[r * ldy + c] *= 1.f / (1.f + expf(-gate[r * ldg + c]));
    }
}

__global__ void scale_rows_sigmoid_kernel(float* y, std::int64_t ldy, std::int64_t cols, const float* logit,
                                          std::int64_t rows) {
    for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < rows * cols;
         i += std::int64_t(gridDim.x) * blockDim.x) {
        const std::int64_t r = i / cols, c = i % cols;
        y[r * ldy + c] *= 1.f / (1.f + expf(-logit[r]));
    }
}

}  // namespace

cudaError_t split_head_halves(float* x, std::int64_t ld, std::int64_t n_tokens, int n_heads, int head_dim,
                              cudaStream_t stream) {
    const std::int64_t n = 2ll * n_heads * head_dim;
    if (n_tokens < 0 || n_heads < 1 || head_dim < 1 || ld < n || n * 4 > kMaxSplitBytes || n_tokens > 0x7fffffff)
        return cudaErrorInvalidValue;
    if (n_tokens == 0) return cudaSuccess;
    // Past the default 48 KiB of dynamic shared memory a kernel must opt in (not a stream operation: fine while a
    // graph is captured). Hopper and Ampere data-centre parts allow ~227 / 163 KiB, consumer parts ~99 KiB.
    if (n * 4 > 48 * 1024) {
        const cudaError_t e = cudaFuncSetAttribute(split_halves_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(n * 4));
        if (e != cudaSuccess) return e;
    }
    split_halves_kernel<<<unsigned(n_tokens), 256, std::size_t(n) * 4, stream>>>(x, ld, n_heads, head_dim);
    return cudaGetLastError();
}

cudaError_t mul_sigmoid_f32(float* y, std::int64_t ldy, const float* gate, std::int64_t ldg, std::int64_t rows,
                            std::int64_t cols, cudaStream_t stream) {
    if (rows < 0 || cols < 0 || ldy < cols || ldg < cols) return cudaErrorInvalidValue;
    if (rows == 0 || cols == 0) return cudaSuccess;
    mul_sigmoid_kernel<<<elementwise_grid(rows * cols), 256, 0, stream>>>(y, ldy, gate, ldg, rows, cols);
    return cudaGetLastError();
}

cudaError_t scale_rows_sigmoid_f32(float* y, std::int64_t ldy, std::int64_t cols, const float* logit, std::int64_t rows,
                                   cudaStream_t stream) {
    if (rows < 0 || cols < 0 || ldy < cols) return cudaErrorInvalidValue;
    if (rows == 0 || cols == 0) return cudaSuccess;
    scale_rows_sigmoid_kernel<<<elementwise_grid(rows * cols), 256, 0, stream>>>(y, ldy, cols, logit, rows);
    return cudaGetLastError();
}

}  // namespace ft::kernels::cuda
