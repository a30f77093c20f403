#include "cuda/attention.cuh"

#include <cmath>
#include <cstdlib>
#include <cstring>

#include <cuda_fp16.h>

#include "cuda/launch.cuh"
#include "cuda/mma.cuh"

namespace ft::kernels::cuda {

namespace {

constexpr float kLog2e = 1.4426950408889634f;
constexpr unsigned kFull = 0xffffffffu;

__host__ __device__ constexpr std::size_t align128(std::size_t x) { return (x + 127) / 128 * 128; }
__host__ __device__ constexpr std::size_t max_size(std::size_t a, std::size_t b) { return a > b ? a : b; }

struct KvArgs {
    const void* k;  // f32 or f16 elements (the kernels' KV16 template argument says which)
    const void* v;
    const std::int32_t* page_table;  // this sequence's row (prefill) or the table base (decode)
    int pages_stride;
    int page_size;
    int n_head_kv;
};

// Row index of (position j, kv head hk); multiply by the row width in floats. Positions are < 2^31 (32-bit division:
// the 64-bit one is a long emulated sequence and this runs per row of every tile).
__device__ __forceinline__ std::int64_t kv_row(const std::int32_t* pt, std::int64_t j, int page_size, int n_head_kv,
                                               int hk) {
    const int jj = int(j);
    const std::int64_t slot = std::int64_t(pt[jj / page_size]) * page_size + jj % page_size;
    return slot * n_head_kv + hk;
}

// One K/V element, widened to f32 (exact for f16).
template <bool KV16>
__device__ __forceinline__ float kv_load(const void* base, std::int64_t i) {
    if constexpr (KV16) return __half2float(static_cast<const __half*>(base)[i]);
    else return static_cast<const float*>(base)[i];
}

// Four consecutive K/V elements from element index i (a multiple of 4): one 16-byte (f32) or 8-byte (f16) load.
template <bool KV16>
__device__ __forceinline__ float4 kv_load4(const void* base, std::int64_t i) {
    if constexpr (KV16) {
        const uint2 u = __ldg(reinterpret_cast<const uint2*>(static_cast<const __half*>(base) + i));
        __half2 lo, hi;
        memcpy(&lo, &u.x, 4);
        memcpy(&hi, &u.y, 4);
        const float2 a = __half22float2(lo), b = __half22float2(hi);
        return make_float4(a.x, a.y, b.x, b.y);
    } else {
        return __ldg(reinterpret_cast<const float4*>(static_cast<const float*>(base) + i));
    }
}

__device__ __forceinline__ float warp_sum(float v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(kFull, v, off);
    return v;
}
__device__ __forceinline__ float warp_max(float v) {
    for (int off = 16; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(kFull, v, off));
    return v;
}

__device__ __forceinline__ unsigned pack_f16x2(float lo, float hi) {
    const __half2 h = __floats2half2_rn(lo, hi);  // .x (lo) in the low 16 bits
    unsigned u;
    memcpy(&u, &h, 4);
    return u;
}

__device__ __forceinline__ void store_f16x4(__half* dst, float4 v) {
    uint2 u;
    u.x = pack_f16x2(v.x, v.y);
    u.y = pack_f16x2(v.z, v.w);
    *reinterpret_cast<uint2*>(dst) = u;
}

// ---------------------------------------------------------------------------------------------------------------
// Prefill, tensor cores, flash-attention-2 (Q, K, V, P rounded to f16; f32 accumulation and softmax, log2 domain).
// Block = WARPS warps = ROWS = 16·WARPS query rows: Hb query heads of one GQA group × Tb consecutive tokens
// (Hb·Tb = ROWS, Tb a multiple of 16, so a warp owns 16 consecutive tokens of one head). Each K/V tile serves all
// ROWS rows. Per warp, S = Q·Kᵀ (16 × BK), the running max/sum and O (16 × D) stay in mma registers; P goes from
// the S accumulators straight into A fragments for P·V.
// Pipeline, f32 cache (KV16 false): the next tile's f32 K/V rows are fetched with cp.async into a staging buffer
// while the warps compute on the current f16 tile; then all threads convert staging → f16 (two barriers per tile).
// f16 cache (KV16): the rows are copied with cp.async straight into the other of two f16 tile buffers while the
// warps compute on the current one (one barrier per tile, no conversion, no staging).
// Shared memory: [f32: staging K, V [BK][D] f32]; K, V [BK][D+8] f16 (row pad: conflict-free ldmatrix), ×2 for
// f16; Q [ROWS][D+8] f16 (QREG: aliases the f16 tile buffer that is filled only after the Q fragments are in
// registers — the only buffer for f32, the second one for f16).
// ---------------------------------------------------------------------------------------------------------------

template <int D, int BK, int WARPS, bool QREG, bool KV16>
struct PfLayout {
    static constexpr int kRows = WARPS * 16, kThreads = WARPS * 32, kLd = D + 8;
    static constexpr int kBufs = KV16 ? 2 : 1;
    static constexpr std::size_t kBytesStage = KV16 ? 0 : std::size_t(2) * BK * D * 4;
    static constexpr std::size_t kBytesKv = align128(std::size_t(2) * BK * kLd * 2);  // one buffer: K and V tiles
    static constexpr std::size_t kBytesQ = std::size_t(kRows) * kLd * 2;
    static constexpr std::size_t kOffStage = 0;
    static constexpr std::size_t kOffKv = align128(kBytesStage);
    static constexpr std::size_t kOffQ =
        QREG ? kOffKv + (kBufs - 1) * kBytesKv : align128(kOffKv + kBufs * kBytesKv);
    static constexpr std::size_t kSmem =
        QREG ? align128(max_size(kOffKv + kBufs * kBytesKv, kOffQ + kBytesQ)) : align128(kOffQ + kBytesQ);
    static_assert(D % 16 == 0 && BK % 16 == 0, "mma tiles");
};

struct PrefillArgs {
    AttentionParams p;
    const float* q;
    std::int64_t ldq;
    std::int64_t n_tokens;
    std::int64_t pos0;
    KvArgs kv;
    float* out;
    int group;         // n_head / n_head_kv
    int hb;            // query heads per block (tensor-core path)
    int tb;            // tokens per block (tensor-core path)
    float scale_log2;  // scale · log2(e)
};

// Fetch K/V rows kb .. kb+BK−1 (f32) into the staging buffers. Rows outside [first, last] are zeroed and their
// page-table entries are not read (pages before a sliding window may already be gone).
template <int D, int BK, int THREADS>
__device__ __forceinline__ void pf_fetch(float* st_k, float* st_v, const KvArgs& kv, int hk, std::int64_t kb,
                                         std::int64_t first, std::int64_t last) {
    constexpr int kC4 = D / 4;
    for (int i = int(threadIdx.x); i < BK * kC4; i += THREADS) {
        const int r = i / kC4, c4 = i % kC4;
        const std::int64_t j = kb + r;
        float* dk = st_k + r * D + c4 * 4;
        float* dv = st_v + r * D + c4 * 4;
        if (j >= first && j <= last) {
            const std::int64_t row = kv_row(kv.page_table, j, kv.page_size, kv.n_head_kv, hk) * D + c4 * 4;
            cp_async16(dk, static_cast<const float*>(kv.k) + row);
            cp_async16(dv, static_cast<const float*>(kv.v) + row);
        } else {
            *reinterpret_cast<float4*>(dk) = make_float4(0.f, 0.f, 0.f, 0.f);
            *reinterpret_cast<float4*>(dv) = make_float4(0.f, 0.f, 0.f, 0.f);
        }
    }
    cp_async_commit();
}

// f16 cache: K/V rows kb .. kb+BK−1 straight into the f16 tiles sk, sv ([BK][D+8]); same masking as pf_fetch.
template <int D, int BK, int THREADS>
__device__ __forceinline__ void pf_fetch16(__half* sk, __half* sv, const KvArgs& kv, int hk, std::int64_t kb,
                                           std::int64_t first, std::int64_t last) {
    constexpr int kC8 = D / 8, kLd = D + 8;
    const __half* k = static_cast<const __half*>(kv.k);
    const __half* v = static_cast<const __half*>(kv.v);
    for (int i = int(threadIdx.x); i < BK * kC8; i += THREADS) {
        const int r = i / kC8, c8 = i % kC8;
        const std::int64_t j = kb + r;
        __half* dk = sk + r * kLd + c8 * 8;
        __half* dv = sv + r * kLd + c8 * 8;
        if (j >= first && j <= last) {
            const std::int64_t row = kv_row(kv.page_table, j, kv.page_size, kv.n_head_kv, hk) * D + c8 * 8;
            cp_async16(dk, k + row);
            cp_async16(dv, v + row);
        } else {
            *reinterpret_cast<uint4*>(dk) = make_uint4(0u, 0u, 0u, 0u);
            *reinterpret_cast<uint4*>(dv) = make_uint4(0u, 0u, 0u, 0u);
        }
    }
    cp_async_commit();
}

template <int D, int BK, int WARPS, bool QREG, bool KV16>
__global__ void __launch_bounds__(WARPS * 32, 1) prefill_tc_kernel(PrefillArgs a) {
    using L = PfLayout<D, BK, WARPS, QREG, KV16>;
    constexpr int kLd = L::kLd, kThreads = L::kThreads, kC4 = D / 4;
    constexpr int kNt = BK / 8;  // S n-tiles of 8 keys
    constexpr int kDt = D / 8;   // O n-tiles of 8 dims
    extern __shared__ __align__(128) unsigned char smem[];
    float* st_k = reinterpret_cast<float*>(smem + L::kOffStage);
    float* st_v = st_k + BK * D;
    // f16 tile buffer b: K [BK][kLd], then V.
    const auto tile_k = [&](int b) { return reinterpret_cast<__half*>(smem + L::kOffKv + std::size_t(b) * L::kBytesKv); };
    __half* sq = reinterpret_cast<__half*>(smem + L::kOffQ);

    const int tid = int(threadIdx.x), warp = tid >> 5, lane = tid & 31, g = lane >> 2, tq = lane & 3;
    const int hb = a.hb, tb = a.tb;
    const int h0 = int(blockIdx.x) * hb, hk = h0 / a.group;
    const std::int64_t t0 = std::int64_t(gridDim.y - 1 - blockIdx.y) * tb;  // longest tiles first
    const int nq = int(a.n_tokens - t0 < tb ? a.n_tokens - t0 : tb);
    const int window = a.p.window;

    const std::int64_t last = a.pos0 + t0 + nq - 1;  // last key position any row of the block needs
    const std::int64_t first = window > 0 ? (a.pos0 + t0 - window + 1 > 0 ? a.pos0 + t0 - window + 1 : 0) : 0;
    const std::int64_t kb0 = first / BK * BK;
    if constexpr (KV16) pf_fetch16<D, BK, kThreads>(tile_k(0), tile_k(0) + BK * kLd, a.kv, hk, kb0, first, last);
    else pf_fetch<D, BK, kThreads>(st_k, st_v, a.kv, hk, kb0, first, last);

    // Q rows (block row r = head hh·Tb + token tt), pre-scaled by scale·log2(e), → f16; rows past n_tokens zero.
    for (int i = tid; i < L::kRows * kC4; i += kThreads) {
        const int r = i / kC4, c4 = i % kC4, hh = r / tb, tt = r % tb;
        float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
        if (tt < nq) {
            v = __ldg(reinterpret_cast<const float4*>(a.q + (t0 + tt) * a.ldq + std::int64_t(h0 + hh) * D) + c4);
            v.x *= a.scale_log2;
            v.y *= a.scale_log2;
            v.z *= a.scale_log2;
            v.w *= a.scale_log2;
        }
        store_f16x4(sq + r * kLd + c4 * 4, v);
    }
    __syncthreads();

    // ldmatrix row addresses of this lane: A (Q) rows r0 + lane%16... see the fragment layouts above.
    const int wr0 = warp * 16;
    const __half* q_lane = sq + (wr0 + (lane & 7) + ((lane >> 3) & 1) * 8) * kLd + (lane >> 4) * 8;
    unsigned qa[QREG ? D / 16 : 1][4];
    if constexpr (QREG) {
#pragma unroll
        for (int kk = 0; kk < D / 16; ++kk) ldsm_x4(qa[kk], q_lane + kk * 16);
    }
    // K (non-transposed, B = Kᵀ): matrices {keys 0-7, dims 0-7}, {0-7, 8-15}, {8-15, 0-7}, {8-15, 8-15}.
    const int k_lane = ((lane & 7) + (lane >> 4) * 8) * kLd + ((lane >> 3) & 1) * 8;
    // V (transposed): matrices {keys 0-7, dims 0-7}, {8-15, 0-7}, {0-7, 8-15}, {8-15, 8-15}.
    const int v_lane = ((lane & 7) + ((lane >> 3) & 1) * 8) * kLd + (lane >> 4) * 8;

    const int hh_w = wr0 / tb, tt_w = wr0 % tb, h = h0 + hh_w;
    const bool warp_valid = tt_w < nq;
    const std::int64_t wq_first = a.pos0 + t0 + tt_w;
    const std::int64_t wq_last = wq_first + 15 < last ? wq_first + 15 : last;
    const std::int64_t qp0 = wq_first + g, qp1 = qp0 + 8;  // positions of this lane's two rows

    float o[kDt][4];
#pragma unroll
    for (int n = 0; n < kDt; ++n) o[n][0] = o[n][1] = o[n][2] = o[n][3] = 0.f;
    float m0 = -INFINITY, m1 = -INFINITY, l0 = 0.f, l1 = 0.f;  // l: this lane's columns only (summed at the end)

    int buf = 0;  // f16 cache: the tile buffer holding tile kb
    for (std::int64_t kb = kb0; kb <= last; kb += BK) {
        cp_async_wait_all();
        // f32: staging holds tile kb; f16: buffer `buf` does. Either way every warp is done with the previous tile
        // (and Q) — for f16 that is the other buffer, refilled next.
        __syncthreads();
        const __half* sk = tile_k(KV16 ? buf : 0);
        const __half* sv = sk + BK * kLd;
        if constexpr (KV16) {
            if (kb + BK <= last)
                pf_fetch16<D, BK, kThreads>(tile_k(buf ^ 1), tile_k(buf ^ 1) + BK * kLd, a.kv, hk, kb + BK, first,
                                            last);
            buf ^= 1;
        } else {
            __half* dk = tile_k(0);
            __half* dv = dk + BK * kLd;
            for (int i = tid; i < BK * kC4; i += kThreads) {
                const int r = i / kC4, c4 = i % kC4;
                store_f16x4(dk + r * kLd + c4 * 4, *reinterpret_cast<const float4*>(st_k + r * D + c4 * 4));
                store_f16x4(dv + r * kLd + c4 * 4, *reinterpret_cast<const float4*>(st_v + r * D + c4 * 4));
            }
            __syncthreads();
            if (kb + BK <= last) pf_fetch<D, BK, kThreads>(st_k, st_v, a.kv, hk, kb + BK, first, last);
        }

        // A warp whose 16 rows mask the whole tile (all keys in the future or all before the window) skips it.
        if (!warp_valid || kb > wq_last || (window > 0 && kb + BK - 1 <= wq_first - window)) continue;

        // S = Q Kᵀ (log2 domain: Q was pre-scaled).
        float s[kNt][4];
#pragma unroll
        for (int n = 0; n < kNt; ++n) s[n][0] = s[n][1] = s[n][2] = s[n][3] = 0.f;
#pragma unroll
        for (int kk = 0; kk < D / 16; ++kk) {
            unsigned qf[4];
            if constexpr (QREG) {
                qf[0] = qa[kk][0];
                qf[1] = qa[kk][1];
                qf[2] = qa[kk][2];
                qf[3] = qa[kk][3];
            } else {
                ldsm_x4(qf, q_lane + kk * 16);
            }
#pragma unroll
            for (int nn = 0; nn < BK / 16; ++nn) {
                unsigned b[4];
                ldsm_x4(b, sk + nn * 16 * kLd + k_lane + kk * 16);
                mma_f16(s[2 * nn], qf, b[0], b[1]);
                mma_f16(s[2 * nn + 1], qf, b[2], b[3]);
            }
        }

        // Mask (only tiles that cross the diagonal or the window edge).
        if (kb + BK - 1 > wq_first || (window > 0 && kb <= wq_last - window)) {
#pragma unroll
            for (int n = 0; n < kNt; ++n) {
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const std::int64_t j = kb + n * 8 + 2 * tq + (e & 1);
                    const std::int64_t qp = e < 2 ? qp0 : qp1;
                    if (j > qp || (window > 0 && j <= qp - window)) s[n][e] = -INFINITY;
                }
            }
        }

        // Online softmax: rows g (c0, c1) and g+8 (c2, c3); a quad of lanes shares a row.
        float mx0 = -INFINITY, mx1 = -INFINITY;
#pragma unroll
        for (int n = 0; n < kNt; ++n) {
            mx0 = fmaxf(mx0, fmaxf(s[n][0], s[n][1]));
            mx1 = fmaxf(mx1, fmaxf(s[n][2], s[n][3]));
        }
        mx0 = fmaxf(mx0, __shfl_xor_sync(kFull, mx0, 1));
        mx0 = fmaxf(mx0, __shfl_xor_sync(kFull, mx0, 2));
        mx1 = fmaxf(mx1, __shfl_xor_sync(kFull, mx1, 1));
        mx1 = fmaxf(mx1, __shfl_xor_sync(kFull, mx1, 2));
        const float mn0 = fmaxf(m0, mx0), mn1 = fmaxf(m1, mx1);
        const float mu0 = mn0 == -INFINITY ? 0.f : mn0, mu1 = mn1 == -INFINITY ? 0.f : mn1;
        const float al0 = exp2f(m0 - mu0), al1 = exp2f(m1 - mu1);
        m0 = mn0;
        m1 = mn1;
        float sum0 = 0.f, sum1 = 0.f;
#pragma unroll
        for (int n = 0; n < kNt; ++n) {
            s[n][0] = exp2f(s[n][0] - mu0);
            s[n][1] = exp2f(s[n][1] - mu0);
            s[n][2] = exp2f(s[n][2] - mu1);
            s[n][3] = exp2f(s[n][3] - mu1);
            sum0 += s[n][0] + s[n][1];
            sum1 += s[n][2] + s[n][3];
        }
        l0 = l0 * al0 + sum0;
        l1 = l1 * al1 + sum1;
#pragma unroll
        for (int n = 0; n < kDt; ++n) {
            o[n][0] *= al0;
            o[n][1] *= al0;
            o[n][2] *= al1;
            o[n][3] *= al1;
        }

        // O += P V; P's A fragment for keys 16kk.. is the S accumulators of n-tiles 2kk and 2kk+1.
#pragma unroll
        for (int kk = 0; kk < BK / 16; ++kk) {
            const unsigned pa[4] = {pack_f16x2(s[2 * kk][0], s[2 * kk][1]), pack_f16x2(s[2 * kk][2], s[2 * kk][3]),
                                    pack_f16x2(s[2 * kk + 1][0], s[2 * kk + 1][1]),
                                    pack_f16x2(s[2 * kk + 1][2], s[2 * kk + 1][3])};
#pragma unroll
            for (int dn = 0; dn < D / 16; ++dn) {
                unsigned b[4];
                ldsm_x4_trans(b, sv + kk * 16 * kLd + v_lane + dn * 16);
                mma_f16(o[2 * dn], pa, b[0], b[1]);
                mma_f16(o[2 * dn + 1], pa, b[2], b[3]);
            }
        }
    }
    cp_async_wait_all();  // nothing may be in flight when the block exits
    if (!warp_valid) return;

    l0 += __shfl_xor_sync(kFull, l0, 1);
    l0 += __shfl_xor_sync(kFull, l0, 2);
    l1 += __shfl_xor_sync(kFull, l1, 1);
    l1 += __shfl_xor_sync(kFull, l1, 2);
    // out = O / (l + exp(sink − m)), computed against max(m, sink) so a large sink cannot overflow.
    float sc0, sc1;
    if (a.p.sinks) {
        const float sk2 = a.p.sinks[h] * kLog2e;
        const float mf0 = fmaxf(m0, sk2), mf1 = fmaxf(m1, sk2);
        const float f0 = exp2f(m0 - mf0), f1 = exp2f(m1 - mf1);
        sc0 = f0 / (l0 * f0 + exp2f(sk2 - mf0));
        sc1 = f1 / (l1 * f1 + exp2f(sk2 - mf1));
    } else {
        sc0 = 1.f / l0;
        sc1 = 1.f / l1;
    }
    const std::int64_t ld_out = std::int64_t(a.p.n_head) * D;
    const int tt0 = tt_w + g, tt1 = tt0 + 8;
    float* dst0 = a.out + (t0 + tt0) * ld_out + std::int64_t(h) * D + 2 * tq;
    float* dst1 = a.out + (t0 + tt1) * ld_out + std::int64_t(h) * D + 2 * tq;
#pragma unroll
    for (int n = 0; n < kDt; ++n) {
        if (tt0 < nq) *reinterpret_cast<float2*>(dst0 + n * 8) = make_float2(o[n][0] * sc0, o[n][1] * sc0);
        if (tt1 < nq) *reinterpret_cast<float2*>(dst1 + n * 8) = make_float2(o[n][2] * sc1, o[n][3] * sc1);
    }
}

template <int D, int BK, int WARPS, bool QREG, bool KV16>
cudaError_t launch_prefill_tc(PrefillArgs a, cudaStream_t stream) {
    using L = PfLayout<D, BK, WARPS, QREG, KV16>;
    // Heads per block: the largest power of two dividing the group, at most 8 and at most ROWS / 16.
    int hb = 1;
    while (hb < 8 && hb * 2 <= L::kRows / 16 && a.group % (hb * 2) == 0) hb *= 2;
    a.hb = hb;
    a.tb = L::kRows / hb;
    const std::int64_t tiles = (a.n_tokens + a.tb - 1) / a.tb;
    if (tiles > 65535) return cudaErrorNotSupported;  // caller falls back to the f32 kernel
    if (L::kSmem > 48 * 1024) {
        const cudaError_t e = cudaFuncSetAttribute(prefill_tc_kernel<D, BK, WARPS, QREG, KV16>,
                                                   cudaFuncAttributeMaxDynamicSharedMemorySize, int(L::kSmem));
        if (e != cudaSuccess) return e;
    }
    const dim3 grid(unsigned(a.p.n_head / hb), unsigned(tiles));
    prefill_tc_kernel<D, BK, WARPS, QREG, KV16><<<grid, L::kThreads, L::kSmem, stream>>>(a);
    return cudaGetLastError();
}

// ---------------------------------------------------------------------------------------------------------------
// Prefill, CUDA cores, f32: one warp per (query, head), keys one at a time with an online softmax. Any head_dim and
// v_head_dim ≤ 256. The fallback, and attention_prefill_exact.
// ---------------------------------------------------------------------------------------------------------------

constexpr int kSimpleWarps = 4;
constexpr int kMaxDim = 256, kPerLane = kMaxDim / 32;

template <bool KV16>
__global__ void __launch_bounds__(kSimpleWarps * 32) prefill_simple_kernel(PrefillArgs a) {
    const int lane = int(threadIdx.x) & 31;
    const std::int64_t task = std::int64_t(blockIdx.x) * kSimpleWarps + (threadIdx.x >> 5);
    if (task >= a.n_tokens * a.p.n_head) return;  // warp-uniform
    const std::int64_t t = task / a.p.n_head;
    const int h = int(task % a.p.n_head), hk = h / a.group;
    const int dk = a.p.head_dim, dv = a.p.v_head_dim;
    const std::int64_t qpos = a.pos0 + t;
    const std::int64_t first = a.p.window > 0 ? (qpos - a.p.window + 1 > 0 ? qpos - a.p.window + 1 : 0) : 0;

    float qr[kPerLane], acc[kPerLane];
    const float* qv = a.q + t * a.ldq + std::int64_t(h) * dk;
#pragma unroll
    for (int i = 0; i < kPerLane; ++i) {
        const int d = lane + 32 * i;
        qr[i] = d < dk ? qv[d] : 0.f;
        acc[i] = 0.f;
    }
    float m = -INFINITY, l = 0.f;
    for (std::int64_t j = first; j <= qpos; ++j) {
        const std::int64_t row = kv_row(a.kv.page_table, j, a.kv.page_size, a.kv.n_head_kv, hk);
        const std::int64_t kr = row * dk, vr = row * dv;  // element offsets
        float dot = 0.f;
#pragma unroll
        for (int i = 0; i < kPerLane; ++i) {
            const int d = lane + 32 * i;
            if (d < dk) dot += qr[i] * kv_load<KV16>(a.kv.k, kr + d);
        }
        const float s = warp_sum(dot) * a.p.scale;
        const float m_new = fmaxf(m, s);
        const float c = expf(m - m_new), pj = expf(s - m_new);
        l = l * c + pj;
#pragma unroll
        for (int i = 0; i < kPerLane; ++i) {
            const int d = lane + 32 * i;
            if (d < dv) acc[i] = acc[i] * c + pj * kv_load<KV16>(a.kv.v, vr + d);
        }
        m = m_new;
    }
    float row_scale;
    if (a.p.sinks) {
        const float sk = a.p.sinks[h];
        const float mf = fmaxf(m, sk);
        const float f = expf(m - mf);
        row_scale = f / (l * f + expf(sk - mf));
    } else {
        row_scale = 1.f / l;
    }
    float* o = a.out + task * dv;
#pragma unroll
    for (int i = 0; i < kPerLane; ++i) {
        const int d = lane + 32 * i;
        if (d < dv) o[d] = acc[i] * row_scale;
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Decode, split-K, f32 arithmetic on CUDA cores (an f16 cache is widened as it is read): the kernel for f32 caches and
// the head dims the tensor-core kernel below does not take. The context [first, last] of token t is cut into at most
// n_split chunks of whole tiles of kDecodeChunk positions (n_split = min(ceil(max_ctx / kDecodeChunk), kDecMaxSplit),
// fixed at capture; the chunk length is chosen on device from pos[t]). Partial kernel: grid (n_tokens, n_head_kv ·
// head batches, n_split), 256 threads; a block takes one chunk of one KV head for up to 8 of its query heads, reads
// each K and V row once, and walks the chunk's tiles with an online softmax:
//   the tile's V rows go to shared memory by cp.async (landing during the K pass and the softmax); the first tile's
//   K and V rows except the newest position's are requested before pdl_enter() (rows of earlier steps: their
//   latency overlaps the kernel before), the newest row (this step's, written by the kernel before) after it;
//   K pass: a warp takes 8 rows, 4 lanes per row (float4 columns sl, sl+4, …) → scores s[g][row] (log2 domain);
//   softmax: warp g updates head g's running max/sum, p = exp2(s − m) in place, alpha = the rescale;
//   V pass: thread (row group rg, float4 column c4) accumulates acc[g] = acc[g]·alpha + Σ p·v.
// Row groups are summed in shared memory and the partial (max, sum, unnormalized output) goes to the workspace:
//   ml[(t·n_head + h)·n_split + c] = {m, l}, then o[((t·n_head + h)·n_split + c)·v_head_dim + d].
// Chunks past the last active one exit at once and write nothing; the combine kernel (grid (n_tokens, n_head))
// recomputes the active count from pos[t] and reads only those.
// ---------------------------------------------------------------------------------------------------------------

constexpr int kDecThreads = 256, kDecWarps = kDecThreads / 32, kDecHeads = 8, kDecMaxGroup = 64;
constexpr int kDecMaxSplit = 128, kCombThreads = 128;
static_assert(kDecodeChunk == 64 && kDecWarps * 8 == kDecodeChunk, "K pass: 8 warps × 8 rows = one tile");
static_assert(kDecHeads <= kDecWarps, "softmax: a warp per head");

struct DecodeArgs {
    AttentionParams p;
    const float* q;
    std::int64_t ldq;
    const std::int32_t* pos;
    const std::int32_t* seq;
    KvArgs kv;
    float* ws_ml;  // [n_tokens, n_head, n_split, 2]
    float* ws_o;   // [n_tokens, n_head, n_split, v_head_dim]
    float* out;
    int n_split;
    int tile;       // positions per tile: chunks are whole tiles (kDecodeChunk; the tensor-core kernel: kTcTile)
    int min_tiles;  // tiles per chunk at least (the tensor-core kernel: one per warp)
    int group;
    int n_hb;  // head batches of kDecHeads per KV head
    float scale_log2;
};

struct DecodeRange {
    std::int64_t first, last;
    int per;     // positions per chunk (a multiple of the tile)
    int active;  // chunks holding positions
};

__device__ __forceinline__ DecodeRange decode_range(const DecodeArgs& a, int t) {
    DecodeRange r;
    r.last = a.pos[t];
    r.first = a.p.window > 0 ? (r.last - a.p.window + 1 > 0 ? r.last - a.p.window + 1 : 0) : 0;
    const std::int64_t tiles = (r.last - r.first + a.tile) / a.tile;
    std::int64_t per_tiles = (tiles + a.n_split - 1) / a.n_split;
    if (per_tiles < a.min_tiles) per_tiles = a.min_tiles;
    r.per = int(per_tiles) * a.tile;
    r.active = int((tiles + per_tiles - 1) / per_tiles);
    return r;
}

std::size_t decode_smem(int dk, int dv) {
    const int nc4 = dv / 4, nrg = kDecThreads / nc4;
    const std::size_t buf = std::size_t(kDecodeChunk) * dv > std::size_t(nrg) * kDecHeads * dv
                                ? std::size_t(kDecodeChunk) * dv
                                : std::size_t(nrg) * kDecHeads * dv;
    return (std::size_t(kDecHeads) * dk + buf) * sizeof(float);
}

// KV4: float4s of a K row per lane in the K pass (head_dim ≤ 16·KV4). KV16: the cache holds f16 (the V tile in
// shared memory then too: rows of dv halves, copied 8 bytes at a time, widened in the V pass).
template <int KV4, bool KV16>
__global__ void __launch_bounds__(kDecThreads, KV4 > 8 ? 1 : 2) decode_partial_kernel(DecodeArgs a) {
    extern __shared__ __align__(16) float dsm[];  // qs [kDecHeads][dk], then V tile [64][dv] / red [rg][heads][dv]
    __shared__ float s[kDecHeads][kDecodeChunk];
    __shared__ float alpha[kDecHeads];

    // Before the wait: the step's metadata (uploaded before its first kernel) and the first tile's K and V rows
    // older than pos[t] (written by earlier steps); the newest row is this step's, written by the kernel before.
    const int t = int(blockIdx.x), hk = int(blockIdx.y) / a.n_hb, hbi = int(blockIdx.y) % a.n_hb, c = int(blockIdx.z);
    const DecodeRange rng = decode_range(a, t);
    if (c >= rng.active) return;
    const int G = a.group, g0 = hbi * kDecHeads, gn = G - g0 < kDecHeads ? G - g0 : kDecHeads;
    const int dk = a.p.head_dim, dv = a.p.v_head_dim, n_head = a.p.n_head;
    const int tid = int(threadIdx.x), warp = tid >> 5, lane = tid & 31;
    const std::int64_t c_lo = rng.first + std::int64_t(c) * rng.per;
    const std::int64_t c_hi = c_lo + rng.per < rng.last + 1 ? c_lo + rng.per : rng.last + 1;
    const std::int32_t* pt = a.kv.page_table + std::int64_t(a.seq[t]) * a.kv.pages_stride;
    const int nv4 = dk / 16;
    float* qs = dsm;
    float* sv = dsm + kDecHeads * dk;
    float* red = sv;  // after the last tile

    const int nc4 = dv / 4, nrg = kDecThreads / nc4, rg = tid / nc4, c4 = tid % nc4;
    const bool v_thread = rg < nrg;
    const int sub = lane >> 2, sl = lane & 3, krow = warp * 8 + sub;

    // A tile's K row of this thread into kr, and its V rows into the shared tile (cp.async, not committed); `skip`:
    // leave out the row at that position.
    float4 kr[KV4];
    const auto load_k = [&](std::int64_t p0, int n, std::int64_t skip) {
#pragma unroll
        for (int i = 0; i < KV4; ++i) kr[i] = make_float4(0.f, 0.f, 0.f, 0.f);
        if (krow < n && p0 + krow != skip) {
            const std::int64_t row = kv_row(pt, p0 + krow, a.kv.page_size, a.kv.n_head_kv, hk) * dk;
#pragma unroll
            for (int i = 0; i < KV4; ++i)
                if (i < nv4) kr[i] = kv_load4<KV16>(a.kv.k, row + 4 * (sl + 4 * i));
        }
    };
    const auto load_v = [&](std::int64_t p0, int n, std::int64_t skip) {
        for (int i = tid; i < n * nc4; i += kDecThreads) {
            const int r = i / nc4, cc = i % nc4;
            if (p0 + r == skip) continue;
            const std::int64_t row = kv_row(pt, p0 + r, a.kv.page_size, a.kv.n_head_kv, hk);
            if constexpr (KV16)
                cp_async8(reinterpret_cast<__half*>(sv) + r * dv + cc * 4,
                          static_cast<const __half*>(a.kv.v) + row * dv + cc * 4);
            else
                cp_async16(sv + r * dv + cc * 4, static_cast<const float*>(a.kv.v) + row * dv + cc * 4);
        }
    };
    const int n0 = int(c_hi - c_lo < kDecodeChunk ? c_hi - c_lo : kDecodeChunk);
    load_k(c_lo, n0, rng.last);
    load_v(c_lo, n0, rng.last);

    pdl_enter();
    const float* qrow = a.q + std::int64_t(t) * a.ldq + std::int64_t(hk * G + g0) * dk;
    for (int i = tid; i < gn * dk; i += kDecThreads) qs[i] = qrow[i] * a.scale_log2;
    if (rng.last < c_lo + n0) {  // the newest row is in the first tile
        const int rn = int(rng.last - c_lo);
        const std::int64_t row = kv_row(pt, rng.last, a.kv.page_size, a.kv.n_head_kv, hk);
        if (krow == rn) {
#pragma unroll
            for (int i = 0; i < KV4; ++i)
                if (i < nv4) kr[i] = kv_load4<KV16>(a.kv.k, row * dk + 4 * (sl + 4 * i));
        }
        for (int cc = tid; cc < nc4; cc += kDecThreads) {
            if constexpr (KV16)
                cp_async8(reinterpret_cast<__half*>(sv) + rn * dv + cc * 4,
                          static_cast<const __half*>(a.kv.v) + row * dv + cc * 4);
            else
                cp_async16(sv + rn * dv + cc * 4, static_cast<const float*>(a.kv.v) + row * dv + cc * 4);
        }
    }
    cp_async_commit();

    float4 acc[kDecHeads];
#pragma unroll
    for (int g = 0; g < kDecHeads; ++g) acc[g] = make_float4(0.f, 0.f, 0.f, 0.f);
    float m = -INFINITY, l = 0.f;  // head `warp`'s running max and sum (warps < gn)

    for (std::int64_t p0 = c_lo; p0 < c_hi; p0 += kDecodeChunk) {
        const int n = int(c_hi - p0 < kDecodeChunk ? c_hi - p0 : kDecodeChunk);
        const bool kok = krow < n;
        if (p0 != c_lo) {  // (after the wait: the newest row included)
            load_k(p0, n, -1);
            __syncthreads();  // s, alpha and the V tile of the previous tile consumed
            load_v(p0, n, -1);  // (cp.async: lands during the K pass and the softmax)
            cp_async_commit();
        } else {
            __syncthreads();  // qs written
        }

        // K pass.
        for (int g = 0; g < gn; ++g) {
            const float4* qg = reinterpret_cast<const float4*>(qs + g * dk);
            float d = 0.f;
#pragma unroll
            for (int i = 0; i < KV4; ++i) {
                if (i < nv4) {
                    const float4 qv = qg[sl + 4 * i];
                    d += kr[i].x * qv.x + kr[i].y * qv.y + kr[i].z * qv.z + kr[i].w * qv.w;
                }
            }
            d += __shfl_xor_sync(kFull, d, 1);
            d += __shfl_xor_sync(kFull, d, 2);
            if (sl == 0) s[g][krow] = kok ? d : -INFINITY;
        }
        __syncthreads();

        // Online softmax, a warp per head (every tile holds at least one position: the max is finite).
        if (warp < gn) {
            const float x0 = s[warp][lane], x1 = s[warp][lane + 32];
            const float mn = fmaxf(m, warp_max(fmaxf(x0, x1)));
            const float al = exp2f(m - mn);
            const float e0 = exp2f(x0 - mn), e1 = exp2f(x1 - mn);
            s[warp][lane] = e0;
            s[warp][lane + 32] = e1;
            l = l * al + warp_sum(e0 + e1);
            m = mn;
            if (lane == 0) alpha[warp] = al;
        }
        cp_async_wait_all();
        __syncthreads();

        // V pass: rows r < n only (the V tile past n holds stale data).
        if (v_thread) {
#pragma unroll
            for (int g = 0; g < kDecHeads; ++g) {
                if (g < gn) {
                    const float al = alpha[g];
                    acc[g].x *= al;
                    acc[g].y *= al;
                    acc[g].z *= al;
                    acc[g].w *= al;
                }
            }
#pragma unroll 4
            for (int r = rg; r < n; r += nrg) {
                float4 v;
                if constexpr (KV16) {
                    const uint2 u = reinterpret_cast<const uint2*>(reinterpret_cast<const __half*>(sv) + r * dv)[c4];
                    __half2 lo, hi;
                    memcpy(&lo, &u.x, 4);
                    memcpy(&hi, &u.y, 4);
                    const float2 x = __half22float2(lo), y = __half22float2(hi);
                    v = make_float4(x.x, x.y, y.x, y.y);
                } else {
                    v = reinterpret_cast<const float4*>(sv + r * dv)[c4];
                }
#pragma unroll
                for (int g = 0; g < kDecHeads; ++g) {
                    if (g < gn) {
                        const float pr = s[g][r];
                        acc[g].x += pr * v.x;
                        acc[g].y += pr * v.y;
                        acc[g].z += pr * v.z;
                        acc[g].w += pr * v.w;
                    }
                }
            }
        }
    }
    __syncthreads();  // red aliases the V tile

    // Sum the row groups; write the partial.
    if (v_thread) {
#pragma unroll
        for (int g = 0; g < kDecHeads; ++g)
            if (g < gn) reinterpret_cast<float4*>(red + (rg * kDecHeads + g) * dv)[c4] = acc[g];
    }
    __syncthreads();
    const std::int64_t head0 = std::int64_t(t) * n_head + std::int64_t(hk) * G + g0;
    for (int i = tid; i < gn * dv; i += kDecThreads) {
        const int g = i / dv, d = i % dv;
        float sum = 0.f;
        for (int k = 0; k < nrg; ++k) sum += red[(k * kDecHeads + g) * dv + d];
        a.ws_o[((head0 + g) * a.n_split + c) * dv + d] = sum;
    }
    if (warp < gn && lane == 0) {
        float* ml = a.ws_ml + ((head0 + warp) * a.n_split + c) * 2;
        ml[0] = m;
        ml[1] = l;
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Decode on tensor cores: f16 cache, head_dim == v_head_dim == D ∈ {32, 64, 128, 256}. A block (up to kTcMaxWarps
// warps) takes one chunk of whole kTcTile-position tiles of one (token, KV head, ≤ 8 query heads); warp w takes the
// chunk's tiles w, w + W, … and streams them through a ring of kTcStages tiles of its own shared memory (cp.async,
// 16-byte copies, one page-table lookup per row), with no block barrier in the loop. The 8 query heads of a GQA
// group fill the 16 rows of an m16n8k16 A operand as two f16 halves: row g = hi(q_g) = f16(q_g), row g + 8 =
// f16((q_g − hi(q_g)) · 2^11) (q pre-scaled by scale·log2 e), so a score is its column's row g plus 2^-11 × row
// g + 8: K is exact in f16, each product is exact in the f32 accumulator, and the split leaves an error of order
// 2^-22 |q| — f32 accuracy on tensor cores. P·V likewise: row g = hi(p), row g + 8 = lo(p) · 2^11 of head g's
// probabilities, O = row g + 2^-11 × row g + 8.
// Softmax per warp (online, log2 domain); the warps' (max, sum, output) are merged in shared memory and the chunk's
// partial goes to the workspace as for decode_partial_kernel (combined by decode_combine_kernel).
// Before pdl_enter(): the step's metadata, the page tables and the first kTcStages − 1 tiles of every warp except the
// row at pos[t] (this step's, written by the kernel before); that row and q after it.
// Shared memory: Q [16][D + 8] f16, then per warp kTcStages × (K, V) [kTcTile][D + 8] f16 (row pad: conflict-free
// ldmatrix); after the loop the rings hold the merge: O [W][8][D] f32, then (max, sum) [W][8].
// |q·scale·log2 e| must fit f16 (< 65504), as for the tensor-core prefill.
// ---------------------------------------------------------------------------------------------------------------

constexpr int kTcTile = 16, kTcStages = 3, kTcMaxWarps = 4;
constexpr float kTcLo = 2048.f, kTcLoInv = 1.f / 2048.f;  // the lo halves are stored scaled by 2^11 (never subnormal)

template <int D>
struct TcDecodeLayout {
    static constexpr int kLd = D + 8;
    static constexpr std::size_t kQ = std::size_t(16) * kLd * 2;
    static constexpr std::size_t kTile = std::size_t(kTcTile) * kLd * 2;  // K or V of one tile
    static constexpr std::size_t kStage = 2 * kTile;
    static constexpr std::size_t kWarp = kTcStages * kStage;
    static constexpr std::size_t smem(int warps) { return kQ + std::size_t(warps) * kWarp; }
    static_assert(kWarp >= (std::size_t(kDecHeads) * D + 2 * kDecHeads) * 4, "the merge fits a warp's ring");
    static_assert(kQ % 16 == 0 && kTile % 16 == 0, "16-byte copies");
};

template <int N>
__device__ __forceinline__ void cp_async_wait_group() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

template <int D, bool QREG>
__global__ void __launch_bounds__(kTcMaxWarps * 32) decode_tc_kernel(DecodeArgs a) {
    using L = TcDecodeLayout<D>;
    constexpr int kLd = L::kLd, kCpr = D / 8, kRowStep = 32 / kCpr, kPer = kTcTile / kRowStep;
    static_assert(kCpr <= 32 && 32 % kCpr == 0 && kPer * kRowStep == kTcTile, "a tile: whole passes of the warp");
    extern __shared__ __align__(128) unsigned char smem[];
    __half* sq = reinterpret_cast<__half*>(smem);

    const int tid = int(threadIdx.x), warp = tid >> 5, lane = tid & 31, g = lane >> 2, tq = lane & 3;
    const int W = int(blockDim.x) >> 5;
    const int t = int(blockIdx.x), hk = int(blockIdx.y) / a.n_hb, hbi = int(blockIdx.y) % a.n_hb, c = int(blockIdx.z);
    const DecodeRange rng = decode_range(a, t);
    if (c >= rng.active) return;  // (block-uniform)
    const int G = a.group, g0 = hbi * kDecHeads, gn = G - g0 < kDecHeads ? G - g0 : kDecHeads;
    const std::int64_t c_lo = rng.first + std::int64_t(c) * rng.per;
    const std::int64_t c_hi = c_lo + rng.per < rng.last + 1 ? c_lo + rng.per : rng.last + 1;
    const int n_tiles = int((c_hi - c_lo + kTcTile - 1) / kTcTile);
    const int my_tiles = n_tiles > warp ? (n_tiles - warp + W - 1) / W : 0;
    const std::int32_t* pt = a.kv.page_table + std::int64_t(a.seq[t]) * a.kv.pages_stride;
    const __half* kg = static_cast<const __half*>(a.kv.k);
    const __half* vg = static_cast<const __half*>(a.kv.v);
    unsigned char* ring = smem + L::kQ + std::size_t(warp) * L::kWarp;
    const int col = lane % kCpr, row0 = lane / kCpr;  // this lane's 16-byte column and first row of each pass
    const auto tile_pos = [&](int i) { return c_lo + std::int64_t(warp + i * W) * kTcTile; };
    const auto stage_k = [&](int i) {
        return reinterpret_cast<__half*>(ring + std::size_t(i % kTcStages) * L::kStage);
    };

    // This warp's tile i into its ring slot (cp.async, not committed): rows past the chunk zeroed, the row at
    // position `skip` left alone.
    const auto issue = [&](int i, std::int64_t skip) {
        const std::int64_t p0 = tile_pos(i);
        __half* sk = stage_k(i);
        __half* sv = sk + kTcTile * kLd;
        std::int64_t base = -1;  // lane r < kTcTile: element offset of row p0 + r; -1 past the chunk, -2 skipped
        if (lane < kTcTile) {
            const std::int64_t j = p0 + lane;
            if (j < c_hi) base = j == skip ? -2 : kv_row(pt, j, a.kv.page_size, a.kv.n_head_kv, hk) * D;
        }
#pragma unroll
        for (int jj = 0; jj < kPer; ++jj) {
            const int r = row0 + jj * kRowStep;
            const std::int64_t b = __shfl_sync(kFull, base, r);
            __half* dk = sk + r * kLd + col * 8;
            __half* dv = sv + r * kLd + col * 8;
            if (b >= 0) {
                cp_async16(dk, kg + b + col * 8);
                cp_async16(dv, vg + b + col * 8);
            } else if (b == -1) {
                *reinterpret_cast<uint4*>(dk) = make_uint4(0u, 0u, 0u, 0u);
                *reinterpret_cast<uint4*>(dv) = make_uint4(0u, 0u, 0u, 0u);
            }
        }
    };

    int deferred = -1;  // this warp's prologue tile holding the row at pos[t], loaded after the wait
#pragma unroll
    for (int i = 0; i < kTcStages - 1; ++i) {
        if (i < my_tiles) {
            issue(i, rng.last);
            if (rng.last >= tile_pos(i) && rng.last < tile_pos(i) + kTcTile) deferred = i;
        }
        cp_async_commit();
    }

    pdl_enter();
    // Q: rows g = hi, g + 8 = lo · 2^11 of head g0 + g, pre-scaled; heads past gn zero.
    const float* qrow = a.q + std::int64_t(t) * a.ldq + std::int64_t(hk * G + g0) * D;
    for (int i = tid; i < kDecHeads * (D / 2); i += int(blockDim.x)) {
        const int h = i / (D / 2), d2 = (i % (D / 2)) * 2;
        float2 x = make_float2(0.f, 0.f);
        if (h < gn) x = *reinterpret_cast<const float2*>(qrow + h * D + d2);
        x.x *= a.scale_log2;
        x.y *= a.scale_log2;
        const float2 hi = __half22float2(__floats2half2_rn(x.x, x.y));
        *reinterpret_cast<unsigned*>(sq + h * kLd + d2) = pack_f16x2(hi.x, hi.y);
        *reinterpret_cast<unsigned*>(sq + (h + 8) * kLd + d2) = pack_f16x2((x.x - hi.x) * kTcLo, (x.y - hi.y) * kTcLo);
    }
    if (deferred >= 0) {  // the newest row: the lanes that copy row rn of the tile
        const int rn = int(rng.last - tile_pos(deferred));
        const std::int64_t b = kv_row(pt, rng.last, a.kv.page_size, a.kv.n_head_kv, hk) * D;
        __half* sk = stage_k(deferred);
#pragma unroll
        for (int jj = 0; jj < kPer; ++jj) {
            if (row0 + jj * kRowStep == rn) {
                cp_async16(sk + rn * kLd + col * 8, kg + b + col * 8);
                cp_async16(sk + kTcTile * kLd + rn * kLd + col * 8, vg + b + col * 8);
            }
        }
    }
    cp_async_commit();
    __syncthreads();  // sq written

    const __half* q_lane = sq + ((lane & 7) + ((lane >> 3) & 1) * 8) * kLd + (lane >> 4) * 8;
    unsigned qa[QREG ? D / 16 : 1][4];
    if constexpr (QREG) {
#pragma unroll
        for (int kk = 0; kk < D / 16; ++kk) ldsm_x4(qa[kk], q_lane + kk * 16);
    }
    const int k_lane = ((lane & 7) + (lane >> 4) * 8) * kLd + ((lane >> 3) & 1) * 8;
    const int v_lane = ((lane & 7) + ((lane >> 3) & 1) * 8) * kLd + (lane >> 4) * 8;

    float o[D / 8][4];
#pragma unroll
    for (int n = 0; n < D / 8; ++n) o[n][0] = o[n][1] = o[n][2] = o[n][3] = 0.f;
    float m = -INFINITY, l = 0.f;  // head g's running max and this lane's part of the sum

    for (int i = 0; i < my_tiles; ++i) {
        // Tile i + kTcStages − 1 goes where tile i − 1 was (every lane is past it: the __syncwarp below).
        if (i + kTcStages - 1 < my_tiles) issue(i + kTcStages - 1, -1);
        cp_async_commit();
        if (i <= deferred) cp_async_wait_all();  // the newest row's group came after the prologue's
        else cp_async_wait_group<kTcStages - 1>();
        __syncwarp();
        const __half* sk = stage_k(i);
        const __half* sv = sk + kTcTile * kLd;
        const std::int64_t p0 = tile_pos(i);
        const int nvalid = c_hi - p0 < kTcTile ? int(c_hi - p0) : kTcTile;

        float s[2][4] = {{0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 0.f}};
#pragma unroll
        for (int kk = 0; kk < D / 16; ++kk) {
            unsigned qf[4];
            if constexpr (QREG) {
                qf[0] = qa[kk][0];
                qf[1] = qa[kk][1];
                qf[2] = qa[kk][2];
                qf[3] = qa[kk][3];
            } else {
                ldsm_x4(qf, q_lane + kk * 16);
            }
            unsigned b[4];
            ldsm_x4(b, sk + k_lane + kk * 16);
            mma_f16(s[0], qf, b[0], b[1]);
            mma_f16(s[1], qf, b[2], b[3]);
        }
        // Head g's scores of keys 8n + 2tq + e: the hi row plus the lo row · 2^-11.
        float x[2][2];
        float mx = -INFINITY;
#pragma unroll
        for (int n = 0; n < 2; ++n) {
#pragma unroll
            for (int e = 0; e < 2; ++e) {
                x[n][e] = 8 * n + 2 * tq + e < nvalid ? s[n][e] + s[n][2 + e] * kTcLoInv : -INFINITY;
                mx = fmaxf(mx, x[n][e]);
            }
        }
        mx = fmaxf(mx, __shfl_xor_sync(kFull, mx, 1));
        mx = fmaxf(mx, __shfl_xor_sync(kFull, mx, 2));
        const float mn = fmaxf(m, mx);  // finite: key p0 is in the chunk
        const float al = exp2f(m - mn);
        m = mn;
        float p[2][2], sum = 0.f;
#pragma unroll
        for (int n = 0; n < 2; ++n) {
#pragma unroll
            for (int e = 0; e < 2; ++e) {
                p[n][e] = exp2f(x[n][e] - mn);
                sum += p[n][e];
            }
        }
        l = l * al + sum;
#pragma unroll
        for (int n = 0; n < D / 8; ++n) {
            o[n][0] *= al;
            o[n][1] *= al;
            o[n][2] *= al;
            o[n][3] *= al;
        }
        // P as the A operand: row g = hi(p), row g + 8 = lo(p) · 2^11; keys 0-7 in a0-a1, 8-15 in a2-a3.
        unsigned pa[4];
#pragma unroll
        for (int n = 0; n < 2; ++n) {
            const float2 hi = __half22float2(__floats2half2_rn(p[n][0], p[n][1]));
            pa[2 * n] = pack_f16x2(hi.x, hi.y);
            pa[2 * n + 1] = pack_f16x2((p[n][0] - hi.x) * kTcLo, (p[n][1] - hi.y) * kTcLo);
        }
#pragma unroll
        for (int dn = 0; dn < D / 16; ++dn) {
            unsigned b[4];
            ldsm_x4_trans(b, sv + v_lane + dn * 16);
            mma_f16(o[2 * dn], pa, b[0], b[1]);
            mma_f16(o[2 * dn + 1], pa, b[2], b[3]);
        }
        __syncwarp();  // every lane is done with this slot before it is refilled
    }
    cp_async_wait_all();
    l += __shfl_xor_sync(kFull, l, 1);
    l += __shfl_xor_sync(kFull, l, 2);
    __syncthreads();  // every warp is done with its ring: the merge area aliases them

    float* mo = reinterpret_cast<float*>(smem + L::kQ);  // [W][8][D]
    float* mml = mo + std::size_t(W) * kDecHeads * D;    // [W][8][2]
#pragma unroll
    for (int n = 0; n < D / 8; ++n)
        *reinterpret_cast<float2*>(mo + (warp * kDecHeads + g) * D + 8 * n + 2 * tq) =
            make_float2(o[n][0] + o[n][2] * kTcLoInv, o[n][1] + o[n][3] * kTcLoInv);
    if (tq == 0) {
        mml[(warp * kDecHeads + g) * 2] = m;  // a warp without tiles: -inf, 0, 0
        mml[(warp * kDecHeads + g) * 2 + 1] = l;
    }
    __syncthreads();
    const std::int64_t head0 = std::int64_t(t) * a.p.n_head + std::int64_t(hk) * G + g0;
    for (int i = tid; i < gn * D; i += int(blockDim.x)) {
        const int h = i / D, d = i % D;
        float mx = -INFINITY;
        for (int w = 0; w < W; ++w) mx = fmaxf(mx, mml[(w * kDecHeads + h) * 2]);  // finite: warp 0 had a tile
        float acc = 0.f, sum = 0.f;
        for (int w = 0; w < W; ++w) {
            const float mw = mml[(w * kDecHeads + h) * 2];
            if (mw == -INFINITY) continue;
            const float f = exp2f(mw - mx);
            acc += f * mo[(w * kDecHeads + h) * D + d];
            sum += f * mml[(w * kDecHeads + h) * 2 + 1];
        }
        a.ws_o[((head0 + h) * a.n_split + c) * D + d] = acc;
        if (d == 0) {
            float* ml = a.ws_ml + ((head0 + h) * a.n_split + c) * 2;
            ml[0] = mx;
            ml[1] = sum;
        }
    }
}

__global__ void __launch_bounds__(kCombThreads) decode_combine_kernel(DecodeArgs a) {
    __shared__ float w[kDecMaxSplit];
    __shared__ float part[kCombThreads / 32];
    __shared__ float4 red[kCombThreads];
    const int t = int(blockIdx.x), h = int(blockIdx.y), dv = a.p.v_head_dim;
    const int tid = int(threadIdx.x), warp = tid >> 5, lane = tid & 31;
    const int active = decode_range(a, t).active;  // (the step's metadata and the sinks: read before the wait)
    const std::int64_t base = (std::int64_t(t) * a.p.n_head + h) * a.n_split;
    const float* ml = a.ws_ml + base * 2;
    const float sink = a.p.sinks ? a.p.sinks[h] * kLog2e : -INFINITY;
    pdl_enter();

    float mx = -INFINITY;
    for (int c = tid; c < active; c += kCombThreads) mx = fmaxf(mx, ml[2 * c]);
    mx = warp_max(mx);
    if (lane == 0) part[warp] = mx;
    __syncthreads();
    float gmax = sink;
    for (int i = 0; i < kCombThreads / 32; ++i) gmax = fmaxf(gmax, part[i]);
    __syncthreads();  // part is reused below
    float den = 0.f;
    for (int c = tid; c < active; c += kCombThreads) {
        const float wc = exp2f(ml[2 * c] - gmax);
        w[c] = wc;
        den += wc * ml[2 * c + 1];
    }
    den = warp_sum(den);
    if (lane == 0) part[warp] = den;
    __syncthreads();
    den = a.p.sinks ? exp2f(sink - gmax) : 0.f;
    for (int i = 0; i < kCombThreads / 32; ++i) den += part[i];
    const float inv = 1.f / den;
    // Thread (chunk group cg, float4 column c4) sums chunks cg, cg + n_cg, …; the groups are summed in shared memory
    // (independent loads in flight instead of one chain of `active` loads per column).
    const int nc4 = dv / 4, n_cg = kCombThreads / nc4, cg = tid / nc4, c4 = tid % nc4;
    const float4* po = reinterpret_cast<const float4*>(a.ws_o + base * dv);
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    if (cg < n_cg) {
#pragma unroll 4
        for (int c = cg; c < active; c += n_cg) {
            const float4 o = po[std::int64_t(c) * nc4 + c4];
            const float wc = w[c];
            acc.x += wc * o.x;
            acc.y += wc * o.y;
            acc.z += wc * o.z;
            acc.w += wc * o.w;
        }
    }
    red[tid] = acc;
    __syncthreads();
    if (cg == 0) {
        for (int k = 1; k < n_cg; ++k) {
            const float4 o = red[k * nc4 + c4];
            acc.x += o.x;
            acc.y += o.y;
            acc.z += o.z;
            acc.w += o.w;
        }
        float* dst = a.out + (std::int64_t(t) * a.p.n_head + h) * dv + c4 * 4;
        dst[0] = acc.x * inv;
        dst[1] = acc.y * inv;
        dst[2] = acc.z * inv;
        dst[3] = acc.w * inv;
    }
}

bool shape_ok(const AttentionParams& p, const DevicePagedKv& kv) {
    return (kv.type == DType::F32 || kv.type == DType::F16) && p.n_head > 0 && p.n_head_kv > 0 && p.n_head % p.n_head_kv == 0 && p.head_dim > 0 && p.v_head_dim > 0 &&
           p.head_dim <= kMaxDim && p.v_head_dim <= kMaxDim && p.page_size > 0;
}

int decode_splits(std::int64_t max_ctx) {
    const std::int64_t tiles = (max_ctx + kDecodeChunk - 1) / kDecodeChunk;
    return int(tiles < kDecMaxSplit ? tiles : kDecMaxSplit);
}

// The workspace of a launch with a.n_split chunks: (max, sum) per (token, head, chunk), then the partial outputs
// (128-byte aligned); within attention_decode_workspace(), as a.n_split ≤ decode_splits(max_ctx).
void set_workspace(DecodeArgs& a, std::int64_t n_tokens, void* workspace) {
    const std::size_t heads = std::size_t(n_tokens) * std::size_t(a.p.n_head) * std::size_t(a.n_split);
    a.ws_ml = static_cast<float*>(workspace);
    a.ws_o = reinterpret_cast<float*>(static_cast<unsigned char*>(workspace) + align128(heads * 2 * sizeof(float)));
}

// The tensor-core decode: as many warps per block (≤ kTcMaxWarps) as the device's shared memory per block takes, and
// as many chunks per (token, KV head, head batch) as fit one wave of blocks on the device (fixed at capture, like the
// grid; at least 1, at most decode_splits(max_ctx), what the workspace holds). cudaErrorNotSupported: no block fits.
template <int D, bool QREG>
cudaError_t launch_decode_tc(DecodeArgs a, std::int64_t n_tokens, std::int64_t max_ctx, void* workspace,
                             cudaStream_t stream) {
    using L = TcDecodeLayout<D>;
    int dev = 0, smem_max = 0, sms = 0;
    if (const cudaError_t e = cudaGetDevice(&dev); e != cudaSuccess) return e;
    if (const cudaError_t e = cudaDeviceGetAttribute(&smem_max, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
        e != cudaSuccess)
        return e;
    if (const cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev); e != cudaSuccess)
        return e;
    int warps = kTcMaxWarps;
    while (warps > 1 && L::smem(warps) > std::size_t(smem_max)) --warps;
    const std::size_t smem = L::smem(warps);
    if (smem > std::size_t(smem_max)) return cudaErrorNotSupported;
    const auto kernel = decode_tc_kernel<D, QREG>;
    if (smem > 48 * 1024) {
        const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
        if (e != cudaSuccess) return e;
    }
    int per_sm = 0;
    if (const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, warps * 32, smem);
        e != cudaSuccess)
        return e;
    const std::int64_t pairs = n_tokens * a.p.n_head_kv * a.n_hb;
    const std::int64_t wave = std::int64_t(per_sm > 0 ? per_sm : 1) * (sms > 0 ? sms : 1);
    const std::int64_t want = wave / pairs;  // rounded down: a second, partial wave would double the time
    const int cap = decode_splits(max_ctx);
    a.n_split = int(want < 1 ? 1 : want > cap ? cap : want);
    a.tile = kTcTile;
    a.min_tiles = warps;
    set_workspace(a, n_tokens, workspace);
    const dim3 grid(unsigned(n_tokens), unsigned(a.p.n_head_kv * a.n_hb), unsigned(a.n_split));
    if (const cudaError_t e = launch_pdl(kernel, grid, dim3(unsigned(warps * 32)), smem, stream, a); e != cudaSuccess)
        return e;
    return launch_pdl(decode_combine_kernel, dim3(unsigned(n_tokens), unsigned(a.p.n_head)), dim3(kCombThreads), 0,
                      stream, a);
}

// The tensor-core launch for a.p.head_dim with the largest tile that fits the device's shared memory;
// cudaErrorNotSupported when none does (or the head dim has no tensor-core kernel).
template <bool KV16, typename Fits>
cudaError_t prefill_tc(const PrefillArgs& a, const Fits& fits, cudaStream_t stream) {
    switch (a.p.head_dim) {
        case 32:
            if (fits(PfLayout<32, 64, 8, true, KV16>::kSmem)) return launch_prefill_tc<32, 64, 8, true, KV16>(a, stream);
            break;
        case 64:
            if (fits(PfLayout<64, 64, 8, true, KV16>::kSmem)) return launch_prefill_tc<64, 64, 8, true, KV16>(a, stream);
            break;
        case 128:
            if (fits(PfLayout<128, 64, 8, true, KV16>::kSmem))
                return launch_prefill_tc<128, 64, 8, true, KV16>(a, stream);
            if (fits(PfLayout<128, 32, 8, true, KV16>::kSmem))
                return launch_prefill_tc<128, 32, 8, true, KV16>(a, stream);
            break;
        case 256:
            if (fits(PfLayout<256, 32, 8, false, KV16>::kSmem))
                return launch_prefill_tc<256, 32, 8, false, KV16>(a, stream);
            if (fits(PfLayout<256, 16, 4, false, KV16>::kSmem))
                return launch_prefill_tc<256, 16, 4, false, KV16>(a, stream);
            break;
        default: break;
    }
    return cudaErrorNotSupported;
}

cudaError_t prefill(const AttentionParams& p, const float* q, std::int64_t ldq, std::int64_t n_tokens,
                    std::int64_t pos0, int seq_row, const DevicePagedKv& kv, float* out, cudaStream_t stream,
                    bool allow_tc) {
    if (!shape_ok(p, kv) || n_tokens < 0 || pos0 < 0 || seq_row < 0 || ldq < std::int64_t(p.n_head) * p.head_dim)
        return cudaErrorInvalidValue;
    if (n_tokens == 0) return cudaSuccess;
    PrefillArgs a{};
    a.p = p;
    a.q = q;
    a.ldq = ldq;
    a.n_tokens = n_tokens;
    a.pos0 = pos0;
    a.kv = KvArgs{kv.k, kv.v, kv.page_tables + std::int64_t(seq_row) * kv.pages_stride, kv.pages_stride, p.page_size,
                  p.n_head_kv};
    a.out = out;
    a.group = p.n_head / p.n_head_kv;
    a.scale_log2 = p.scale * kLog2e;

    const auto al16 = [](const void* ptr) { return reinterpret_cast<std::uintptr_t>(ptr) % 16 == 0; };
    const bool aligned = al16(q) && ldq % 4 == 0 && al16(out) && al16(kv.k) && al16(kv.v);
    if (allow_tc && aligned && p.head_dim == p.v_head_dim) {
        // Shared memory per block: ≤ 99 KiB on consumer GPUs (sm_86/89/120), 227 KiB on sm_90.
        int dev = 0, smem_max = 0;
        if (const cudaError_t e = cudaGetDevice(&dev); e != cudaSuccess) return e;
        if (const cudaError_t e = cudaDeviceGetAttribute(&smem_max, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
            e != cudaSuccess)
            return e;
        const auto fits = [&](std::size_t bytes) { return bytes <= std::size_t(smem_max); };
        const cudaError_t e =
            kv.type == DType::F16 ? prefill_tc<true>(a, fits, stream) : prefill_tc<false>(a, fits, stream);
        if (e != cudaErrorNotSupported) return e;
    }
    const std::int64_t blocks = (n_tokens * p.n_head + kSimpleWarps - 1) / kSimpleWarps;
    if (blocks > 0x7fffffff) return cudaErrorInvalidValue;
    if (kv.type == DType::F16) prefill_simple_kernel<true><<<unsigned(blocks), kSimpleWarps * 32, 0, stream>>>(a);
    else prefill_simple_kernel<false><<<unsigned(blocks), kSimpleWarps * 32, 0, stream>>>(a);
    return cudaGetLastError();
}

}  // namespace

cudaError_t attention_prefill(const AttentionParams& p, const float* q, std::int64_t ldq, std::int64_t n_tokens,
                              std::int64_t pos0, int seq_row, const DevicePagedKv& kv, float* out,
                              cudaStream_t stream) {
    return prefill(p, q, ldq, n_tokens, pos0, seq_row, kv, out, stream, true);
}

cudaError_t attention_prefill_exact(const AttentionParams& p, const float* q, std::int64_t ldq,
                                    std::int64_t n_tokens, std::int64_t pos0, int seq_row, const DevicePagedKv& kv,
                                    float* out, cudaStream_t stream) {
    return prefill(p, q, ldq, n_tokens, pos0, seq_row, kv, out, stream, false);
}

std::size_t attention_decode_workspace(const AttentionParams& p, std::int64_t n_tokens, std::int64_t max_ctx) {
    if (n_tokens <= 0 || max_ctx <= 0) return 0;
    const std::size_t heads = std::size_t(n_tokens) * std::size_t(p.n_head) * std::size_t(decode_splits(max_ctx));
    return align128(heads * 2 * sizeof(float)) + heads * std::size_t(p.v_head_dim) * sizeof(float);
}

cudaError_t attention_decode(const AttentionParams& p, const float* q, std::int64_t ldq, std::int64_t n_tokens,
                             const std::int32_t* pos, const std::int32_t* seq, std::int64_t max_ctx,
                             const DevicePagedKv& kv, float* out, void* workspace, cudaStream_t stream) {
    if (!shape_ok(p, kv) || p.head_dim % 16 != 0 || p.v_head_dim % 4 != 0 || n_tokens < 0 || max_ctx <= 0 ||
        ldq < std::int64_t(p.n_head) * p.head_dim || p.n_head / p.n_head_kv > kDecMaxGroup || n_tokens > 0x7fffffff ||
        p.n_head_kv > 65535 / ((kDecMaxGroup + kDecHeads - 1) / kDecHeads) || p.n_head > 65535)
        return cudaErrorInvalidValue;
    if (n_tokens == 0) return cudaSuccess;
    if (!workspace || reinterpret_cast<std::uintptr_t>(workspace) % 16 != 0) return cudaErrorInvalidValue;
    DecodeArgs a{};
    a.p = p;
    a.q = q;
    a.ldq = ldq;
    a.pos = pos;
    a.seq = seq;
    a.kv = KvArgs{kv.k, kv.v, kv.page_tables, kv.pages_stride, p.page_size, p.n_head_kv};
    a.group = p.n_head / p.n_head_kv;
    a.n_hb = (a.group + kDecHeads - 1) / kDecHeads;
    a.scale_log2 = p.scale * kLog2e;
    a.out = out;

    const auto al = [](const void* ptr, std::uintptr_t n) { return reinterpret_cast<std::uintptr_t>(ptr) % n == 0; };
    if (kv.type == DType::F16 && p.head_dim == p.v_head_dim && al(kv.k, 16) && al(kv.v, 16) && al(q, 8) &&
        ldq % 2 == 0) {
        cudaError_t e = cudaErrorNotSupported;
        switch (p.head_dim) {
            case 32: e = launch_decode_tc<32, true>(a, n_tokens, max_ctx, workspace, stream); break;
            case 64: e = launch_decode_tc<64, true>(a, n_tokens, max_ctx, workspace, stream); break;
            case 128: e = launch_decode_tc<128, true>(a, n_tokens, max_ctx, workspace, stream); break;
            case 256: e = launch_decode_tc<256, false>(a, n_tokens, max_ctx, workspace, stream); break;
            default: break;
        }
        if (e != cudaErrorNotSupported) return e;
    }

    a.n_split = decode_splits(max_ctx);
    a.tile = kDecodeChunk;
    a.min_tiles = 1;
    set_workspace(a, n_tokens, workspace);
    const dim3 grid(unsigned(n_tokens), unsigned(p.n_head_kv * a.n_hb), unsigned(a.n_split));
    const std::size_t smem = decode_smem(p.head_dim, p.v_head_dim);
    const auto launch = [&](auto kernel) {
        if (smem > 48 * 1024) {
            const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
            if (e != cudaSuccess) return e;
        }
        return launch_pdl(kernel, grid, dim3(kDecThreads), smem, stream, a);
    };
    cudaError_t e;
    const bool h = kv.type == DType::F16;
    if (p.head_dim <= 32) e = h ? launch(decode_partial_kernel<2, true>) : launch(decode_partial_kernel<2, false>);
    else if (p.head_dim <= 64) e = h ? launch(decode_partial_kernel<4, true>) : launch(decode_partial_kernel<4, false>);
    else if (p.head_dim <= 128) e = h ? launch(decode_partial_kernel<8, true>) : launch(decode_partial_kernel<8, false>);
    else e = h ? launch(decode_partial_kernel<16, true>) : launch(decode_partial_kernel<16, false>);
    if (e != cudaSuccess) return e;
    return launch_pdl(decode_combine_kernel, dim3(unsigned(n_tokens), unsigned(p.n_head)), dim3(kCombThreads), 0, stream, a);
}

}  // namespace ft::kernels::cuda
