#include "cuda/attention.cuh"

#include <cmath>
#include <cstdlib>
#include <cstring>

#include <cuda_bf16.h>
#include <mma.h>

namespace ft::kernels::cuda {

namespace {

constexpr float kLog2e = 1.4426950408889634f;
constexpr unsigned kFull = 0xffffffffu;

__host__ __device__ constexpr std::size_t align128(std::size_t x) { return (x + 127) / 128 * 128; }

struct KvArgs {
    const float* k;
    const float* v;
    const std::int32_t* page_table;  // this sequence's row (prefill) or the table base (decode)
    int pages_stride;
    int page_size;
    int n_head_kv;
};

// Element offset of (position j, kv head hk) in a cache of rows `dim` floats wide.
__device__ __forceinline__ std::int64_t kv_row(const std::int32_t* pt, std::int64_t j, int page_size, int n_head_kv,
                                               int hk) {
    const std::int64_t slot = std::int64_t(pt[j / page_size]) * page_size + j % page_size;
    return slot * n_head_kv + hk;
}

// ---------------------------------------------------------------------------------------------------------------
// Prefill, tensor cores (WMMA bf16 16x16x16, f32 accumulation), flash-attention-2 style.
// Block = 4 warps = 64 query rows of one query head; key tiles of BK positions. Each warp owns 16 query rows: its
// Q fragments live in registers, its S/P/O rows in shared memory (the WMMA accumulator layout is opaque, so the
// per-row online-softmax rescale of O is done on the f32 copy in shared memory). Softmax in the log2 domain.
// Shared memory (bytes, row pads keep WMMA pointers 32-byte aligned and spread banks):
//   O  [64][DV+4] f32   (Q [64][DK+8] bf16 aliases it while the Q fragments are loaded)
//   K  [BK][DK+8] bf16,  V [BK][DV+8] bf16,  S [64][BK+4] f32,  P [64][BK+8] bf16
// ---------------------------------------------------------------------------------------------------------------

constexpr int kTcRows = 64, kTcWarps = 4, kTcThreads = kTcWarps * 32;

template <int DK, int DV, int BK>
struct TcLayout {
    static constexpr int kLdQ = DK + 8, kLdK = DK + 8, kLdV = DV + 8, kLdS = BK + 4, kLdP = BK + 8, kLdO = DV + 4;
    static constexpr std::size_t kBytesO =
        kTcRows * kLdO * 4 > kTcRows * kLdQ * 2 ? kTcRows * kLdO * 4 : kTcRows * kLdQ * 2;
    static constexpr std::size_t kOffO = 0;
    static constexpr std::size_t kOffK = align128(kOffO + kBytesO);
    static constexpr std::size_t kOffV = align128(kOffK + std::size_t(BK) * kLdK * 2);
    static constexpr std::size_t kOffS = align128(kOffV + std::size_t(BK) * kLdV * 2);
    static constexpr std::size_t kOffP = align128(kOffS + std::size_t(kTcRows) * kLdS * 4);
    static constexpr std::size_t kSmem = align128(kOffP + std::size_t(kTcRows) * kLdP * 2);
    static_assert(DK % 16 == 0 && DV % 16 == 0 && BK % 16 == 0, "WMMA tiles");
    static_assert(kTcThreads % (DK / 4) == 0 && kTcThreads % (DV / 4) == 0, "tile loader rows");
};

struct PrefillArgs {
    AttentionParams p;
    const float* q;
    std::int64_t ldq;
    std::int64_t n_tokens;
    std::int64_t pos0;
    KvArgs kv;
    float* out;
    int group;       // n_head / n_head_kv
    float scale_log2;  // scale · log2(e)
};

__device__ __forceinline__ void store_bf16x4(__nv_bfloat16* dst, float4 v) {
    __nv_bfloat162* d2 = reinterpret_cast<__nv_bfloat162*>(dst);
    d2[0] = __floats2bfloat162_rn(v.x, v.y);
    d2[1] = __floats2bfloat162_rn(v.z, v.w);
}

// Rows [0, BK) of a K or V tile (position kb + row), f32 → bf16. Rows outside [first, last] are zero and their page
// table entries are not read (pages before a sliding window may already be gone).
template <int DIM, int BK, int LD>
__device__ __forceinline__ void load_kv_tile(__nv_bfloat16* dst, const float* __restrict__ src, const KvArgs& kv,
                                             int hk, std::int64_t kb, std::int64_t first, std::int64_t last) {
    constexpr int kC4 = DIM / 4, kRowsPerIter = kTcThreads / kC4;
    const int c4 = int(threadIdx.x) % kC4;
    for (int r = int(threadIdx.x) / kC4; r < BK; r += kRowsPerIter) {
        const std::int64_t j = kb + r;
        float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
        if (j >= first && j <= last) {
            const std::int64_t row = kv_row(kv.page_table, j, kv.page_size, kv.n_head_kv, hk);
            v = __ldg(reinterpret_cast<const float4*>(src + row * DIM) + c4);
        }
        store_bf16x4(dst + r * LD + c4 * 4, v);
    }
}

template <int DK, int DV, int BK>
__global__ void __launch_bounds__(kTcThreads) prefill_tc_kernel(PrefillArgs a) {
    namespace wmma = nvcuda::wmma;
    using L = TcLayout<DK, DV, BK>;
    extern __shared__ __align__(128) unsigned char smem[];
    float* sO = reinterpret_cast<float*>(smem + L::kOffO);
    __nv_bfloat16* sQ = reinterpret_cast<__nv_bfloat16*>(smem + L::kOffO);
    __nv_bfloat16* sK = reinterpret_cast<__nv_bfloat16*>(smem + L::kOffK);
    __nv_bfloat16* sV = reinterpret_cast<__nv_bfloat16*>(smem + L::kOffV);
    float* sS = reinterpret_cast<float*>(smem + L::kOffS);
    __nv_bfloat16* sP = reinterpret_cast<__nv_bfloat16*>(smem + L::kOffP);

    const int h = int(blockIdx.x), hk = h / a.group;
    const std::int64_t t0 = std::int64_t(gridDim.y - 1 - blockIdx.y) * kTcRows;  // longest tiles first
    const int nq = int(a.n_tokens - t0 < kTcRows ? a.n_tokens - t0 : kTcRows);
    const int warp = int(threadIdx.x) >> 5, lane = int(threadIdx.x) & 31;
    const int window = a.p.window;

    // Q tile → bf16 (rows past n_tokens are zero) → fragments in registers.
    {
        constexpr int kC4 = DK / 4;
        for (int i = int(threadIdx.x); i < kTcRows * kC4; i += kTcThreads) {
            const int r = i / kC4, c4 = i % kC4;
            float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
            if (r < nq) v = __ldg(reinterpret_cast<const float4*>(a.q + (t0 + r) * a.ldq + std::int64_t(h) * DK) + c4);
            store_bf16x4(sQ + r * L::kLdQ + c4 * 4, v);
        }
    }
    __syncthreads();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> qf[DK / 16];
#pragma unroll
    for (int k = 0; k < DK / 16; ++k) wmma::load_matrix_sync(qf[k], sQ + warp * 16 * L::kLdQ + k * 16, L::kLdQ);
    __syncthreads();  // sO aliases sQ
    for (int i = lane; i < 16 * DV; i += 32) sO[(warp * 16 + i / DV) * L::kLdO + i % DV] = 0.f;

    // Lane pair (2r, 2r+1) owns row `row` of this warp for the softmax: columns half, half + 2, ...
    const int row = warp * 16 + (lane >> 1), half = lane & 1;
    const std::int64_t qpos = a.pos0 + t0 + row;
    float m = -INFINITY, l = 0.f;

    const std::int64_t last = a.pos0 + t0 + nq - 1;  // last key position any row of the block needs
    const std::int64_t first = window > 0 ? (a.pos0 + t0 - window + 1 > 0 ? a.pos0 + t0 - window + 1 : 0) : 0;
    const std::int64_t warp_first = a.pos0 + t0 + warp * 16, warp_last = warp_first + 15;

    for (std::int64_t kb = first / BK * BK; kb <= last; kb += BK) {
        __syncthreads();  // every warp is done with the previous K/V tile
        load_kv_tile<DK, BK, L::kLdK>(sK, a.kv.k, a.kv, hk, kb, first, last);
        load_kv_tile<DV, BK, L::kLdV>(sV, a.kv.v, a.kv, hk, kb, first, last);
        __syncthreads();
        // A warp whose 16 rows mask the whole tile (all keys in the future or all before the window) skips it.
        if (kb > warp_last || (window > 0 && kb + BK - 1 < warp_first - window + 1)) continue;

        // S = Q Kᵀ for this warp's 16 rows.
#pragma unroll
        for (int n = 0; n < BK / 16; ++n) {
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
            wmma::fill_fragment(acc, 0.f);
#pragma unroll
            for (int k = 0; k < DK / 16; ++k) {
                wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> kf;
                wmma::load_matrix_sync(kf, sK + n * 16 * L::kLdK + k * 16, L::kLdK);
                wmma::mma_sync(acc, qf[k], kf, acc);
            }
            wmma::store_matrix_sync(sS + warp * 16 * L::kLdS + n * 16, acc, L::kLdS, wmma::mem_row_major);
        }
        __syncwarp();

        // Online softmax on the row: mask, new max, P (bf16; the sum uses the rounded values P·V multiplies).
        float sv[BK / 2];
        float mx = -INFINITY;
#pragma unroll
        for (int i = 0; i < BK / 2; ++i) {
            const int c = half + 2 * i;
            const std::int64_t j = kb + c;
            const bool ok = j <= qpos && (window <= 0 || j > qpos - window);
            sv[i] = ok ? sS[row * L::kLdS + c] * a.scale_log2 : -INFINITY;
            mx = fmaxf(mx, sv[i]);
        }
        mx = fmaxf(mx, __shfl_xor_sync(kFull, mx, 1));
        const float m_new = fmaxf(m, mx);
        const float m_use = m_new == -INFINITY ? 0.f : m_new;
        const float alpha = exp2f(m - m_use);
        float sum = 0.f;
#pragma unroll
        for (int i = 0; i < BK / 2; ++i) {
            const __nv_bfloat16 pb = __float2bfloat16_rn(exp2f(sv[i] - m_use));
            sum += __bfloat162float(pb);
            sP[row * L::kLdP + half + 2 * i] = pb;
        }
        sum += __shfl_xor_sync(kFull, sum, 1);
        l = l * alpha + sum;
        m = m_new;
        if (__any_sync(kFull, alpha != 1.f))
            for (int d = half; d < DV; d += 2) sO[row * L::kLdO + d] *= alpha;
        __syncwarp();

        // O += P V
#pragma unroll
        for (int n = 0; n < DV / 16; ++n) {
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
            float* o = sO + warp * 16 * L::kLdO + n * 16;
            wmma::load_matrix_sync(acc, o, L::kLdO, wmma::mem_row_major);
#pragma unroll
            for (int k = 0; k < BK / 16; ++k) {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> pf;
                wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> vf;
                wmma::load_matrix_sync(pf, sP + warp * 16 * L::kLdP + k * 16, L::kLdP);
                wmma::load_matrix_sync(vf, sV + k * 16 * L::kLdV + n * 16, L::kLdV);
                wmma::mma_sync(acc, pf, vf, acc);
            }
            wmma::store_matrix_sync(o, acc, L::kLdO, wmma::mem_row_major);
        }
        __syncwarp();
    }
    __syncwarp();

    // out = O / (l + exp(sink − m)), computed against max(m, sink) so a large sink cannot overflow.
    float row_scale;
    if (a.p.sinks) {
        const float sk = a.p.sinks[h] * kLog2e;
        const float mf = fmaxf(m, sk);
        const float f = exp2f(m - mf);
        row_scale = f / (l * f + exp2f(sk - mf));
    } else {
        row_scale = 1.f / l;
    }
    const std::int64_t ld_out = std::int64_t(a.p.n_head) * DV;
    for (int rr = 0; rr < 16; ++rr) {
        const float sc = __shfl_sync(kFull, row_scale, 2 * rr);
        const int r = warp * 16 + rr;
        if (r >= nq) break;
        float* dst = a.out + (t0 + r) * ld_out + std::int64_t(h) * DV;
        for (int d4 = lane; d4 < DV / 4; d4 += 32) {
            float4 v = *reinterpret_cast<const float4*>(sO + r * L::kLdO + d4 * 4);
            v.x *= sc;
            v.y *= sc;
            v.z *= sc;
            v.w *= sc;
            reinterpret_cast<float4*>(dst)[d4] = v;
        }
    }
}

template <int DK, int DV, int BK>
cudaError_t launch_prefill_tc(const PrefillArgs& a, cudaStream_t stream) {
    using L = TcLayout<DK, DV, BK>;
    if (L::kSmem > 48 * 1024) {
        const cudaError_t e = cudaFuncSetAttribute(prefill_tc_kernel<DK, DV, BK>,
                                                   cudaFuncAttributeMaxDynamicSharedMemorySize, int(L::kSmem));
        if (e != cudaSuccess) return e;
    }
    const dim3 grid(unsigned(a.p.n_head), unsigned((a.n_tokens + kTcRows - 1) / kTcRows));
    prefill_tc_kernel<DK, DV, BK><<<grid, kTcThreads, L::kSmem, stream>>>(a);
    return cudaGetLastError();
}

// ---------------------------------------------------------------------------------------------------------------
// Prefill, CUDA cores, f32: one warp per (query, head), keys one at a time with an online softmax. Any head_dim and
// v_head_dim ≤ 256. The fallback and the FT_ATTN_SIMPLE=1 path.
// ---------------------------------------------------------------------------------------------------------------

constexpr int kSimpleWarps = 4;
constexpr int kMaxDim = 256, kPerLane = kMaxDim / 32;

__device__ __forceinline__ float warp_sum(float v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(kFull, v, off);
    return v;
}
__device__ __forceinline__ float warp_max(float v) {
    for (int off = 16; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(kFull, v, off));
    return v;
}

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
        const float* kr = a.kv.k + row * dk;
        const float* vr = a.kv.v + row * dv;
        float dot = 0.f;
#pragma unroll
        for (int i = 0; i < kPerLane; ++i) {
            const int d = lane + 32 * i;
            if (d < dk) dot += qr[i] * kr[d];
        }
        const float s = warp_sum(dot) * a.p.scale;
        const float m_new = fmaxf(m, s);
        const float c = expf(m - m_new), pj = expf(s - m_new);
        l = l * c + pj;
#pragma unroll
        for (int i = 0; i < kPerLane; ++i) {
            const int d = lane + 32 * i;
            if (d < dv) acc[i] = acc[i] * c + pj * vr[d];
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

bool simple_forced() {
    const char* v = std::getenv("FT_ATTN_SIMPLE");
    return v && std::strcmp(v, "1") == 0;
}

// ---------------------------------------------------------------------------------------------------------------
// Decode, split-K, f32. Partial kernel: grid (n_tokens, n_head_kv, n_chunks), 256 threads; one block reads the K and
// V rows of one chunk of kDecodeChunk positions once for all `group` query heads of its KV head.
//   K pass: 4 lanes per key row (float4 columns sl, sl+4, …), 8 rows per warp step; scores → smem s[g][row].
//   softmax: a warp per head: chunk max m, p = exp(s − m) in place, l = Σp.
//   V pass: thread (row group rg, float4 column c4) accumulates Σ p·v for up to 8 heads; row groups summed in smem.
// Workspace: ml[(t·n_head + h)·n_chunks + c] = {m, l}, then o[((t·n_head + h)·n_chunks + c)·v_head_dim + d].
// Combine kernel: grid (n_tokens, n_head), merges the chunks' partials (+ the sink) into out.
// ---------------------------------------------------------------------------------------------------------------

constexpr int kDecThreads = 256, kDecWarps = kDecThreads / 32, kDecHeadBatch = 8, kDecMaxGroup = 64;
constexpr int kDecMaxV4 = kMaxDim / 16;  // float4s of a K row per lane in the K pass

struct DecodeArgs {
    AttentionParams p;
    const float* q;
    std::int64_t ldq;
    const std::int32_t* pos;
    const std::int32_t* seq;
    KvArgs kv;
    float* ws_ml;  // [n_tokens, n_head, n_chunks, 2]
    float* ws_o;   // [n_tokens, n_head, n_chunks, v_head_dim]
    float* out;
    int n_chunks;
    int group;
};

std::size_t decode_red_floats(int dv) {
    const int nc4 = dv / 4, nrg = kDecThreads / nc4;
    return std::size_t(nrg) * kDecHeadBatch * std::size_t(dv);
}
std::size_t decode_smem(int group, int dk, int dv) {
    return (std::size_t(group) * kDecodeChunk + std::size_t(group) * dk + decode_red_floats(dv)) * sizeof(float);
}

__global__ void __launch_bounds__(kDecThreads) decode_partial_kernel(DecodeArgs a) {
    extern __shared__ __align__(16) float dsm[];
    const int t = int(blockIdx.x), hk = int(blockIdx.y), c = int(blockIdx.z);
    const int G = a.group, dk = a.p.head_dim, dv = a.p.v_head_dim, n_head = a.p.n_head;
    const int tid = int(threadIdx.x), warp = tid >> 5, lane = tid & 31;
    const std::int64_t last = a.pos[t];
    const std::int64_t first = a.p.window > 0 ? (last - a.p.window + 1 > 0 ? last - a.p.window + 1 : 0) : 0;
    const std::int64_t c0 = std::int64_t(c) * kDecodeChunk;
    const std::int64_t lo64 = first > c0 ? first - c0 : 0;
    const std::int64_t hi64 = last + 1 - c0 < kDecodeChunk ? last + 1 - c0 : kDecodeChunk;
    const std::int64_t head0 = std::int64_t(t) * n_head + std::int64_t(hk) * G;  // (t, first query head of hk)
    if (lo64 >= hi64) {  // chunk outside [first, last]: an empty partial
        for (int g = tid; g < G; g += kDecThreads) {
            float* ml = a.ws_ml + ((head0 + g) * a.n_chunks + c) * 2;
            ml[0] = -INFINITY;
            ml[1] = 0.f;
        }
        return;
    }
    const int lo = int(lo64), hi = int(hi64);
    float* s = dsm;                                // [G][kDecodeChunk]
    float* qs = s + G * kDecodeChunk;              // [G][dk]
    float* red = qs + G * dk;                      // [row groups][kDecHeadBatch][dv]
    const std::int32_t* pt = a.kv.page_table + std::int64_t(a.seq[t]) * a.kv.pages_stride;

    const float* qrow = a.q + std::int64_t(t) * a.ldq + std::int64_t(hk) * G * dk;
    for (int i = tid; i < G * dk; i += kDecThreads) qs[i] = qrow[i];
    __syncthreads();

    // K pass.
    {
        const int sub = lane >> 2, sl = lane & 3, nv4 = dk / 16;
        for (int base = lo + warp * 8; base < hi; base += kDecWarps * 8) {  // warp-uniform bound
            const int r = base + sub;
            const bool ok = r < hi;
            float4 kr[kDecMaxV4];
#pragma unroll
            for (int i = 0; i < kDecMaxV4; ++i) kr[i] = make_float4(0.f, 0.f, 0.f, 0.f);
            if (ok) {
                const std::int64_t row = kv_row(pt, c0 + r, a.kv.page_size, a.kv.n_head_kv, hk);
                const float4* kp = reinterpret_cast<const float4*>(a.kv.k + row * dk);
#pragma unroll
                for (int i = 0; i < kDecMaxV4; ++i)
                    if (i < nv4) kr[i] = __ldg(kp + sl + 4 * i);
            }
            for (int g = 0; g < G; ++g) {
                const float4* qg = reinterpret_cast<const float4*>(qs + g * dk);
                float d = 0.f;
#pragma unroll
                for (int i = 0; i < kDecMaxV4; ++i) {
                    if (i < nv4) {
                        const float4 qv = qg[sl + 4 * i];
                        d += kr[i].x * qv.x + kr[i].y * qv.y + kr[i].z * qv.z + kr[i].w * qv.w;
                    }
                }
                d += __shfl_xor_sync(kFull, d, 1);
                d += __shfl_xor_sync(kFull, d, 2);
                if (ok && sl == 0) s[g * kDecodeChunk + r] = d * a.p.scale;
            }
        }
    }
    __syncthreads();

    // Softmax within the chunk, a warp per head.
    for (int g = warp; g < G; g += kDecWarps) {
        float* sg = s + g * kDecodeChunk;
        float mx = -INFINITY;
        for (int r = lo + lane; r < hi; r += 32) mx = fmaxf(mx, sg[r]);
        mx = warp_max(mx);
        float sum = 0.f;
        for (int r = lo + lane; r < hi; r += 32) {
            const float e = expf(sg[r] - mx);
            sg[r] = e;
            sum += e;
        }
        sum = warp_sum(sum);
        if (lane == 0) {
            float* ml = a.ws_ml + ((head0 + g) * a.n_chunks + c) * 2;
            ml[0] = mx;
            ml[1] = sum;
        }
    }
    __syncthreads();

    // V pass.
    const int nc4 = dv / 4, nrg = kDecThreads / nc4, rg = tid / nc4, c4 = tid % nc4;
    for (int gb = 0; gb < G; gb += kDecHeadBatch) {
        const int gn = G - gb < kDecHeadBatch ? G - gb : kDecHeadBatch;
        if (rg < nrg) {
            float4 acc[kDecHeadBatch];
#pragma unroll
            for (int gg = 0; gg < kDecHeadBatch; ++gg) acc[gg] = make_float4(0.f, 0.f, 0.f, 0.f);
            for (int r = lo + rg; r < hi; r += nrg) {
                const std::int64_t row = kv_row(pt, c0 + r, a.kv.page_size, a.kv.n_head_kv, hk);
                const float4 v = __ldg(reinterpret_cast<const float4*>(a.kv.v + row * dv) + c4);
#pragma unroll
                for (int gg = 0; gg < kDecHeadBatch; ++gg) {
                    if (gg < gn) {
                        const float pr = s[(gb + gg) * kDecodeChunk + r];
                        acc[gg].x += pr * v.x;
                        acc[gg].y += pr * v.y;
                        acc[gg].z += pr * v.z;
                        acc[gg].w += pr * v.w;
                    }
                }
            }
#pragma unroll
            for (int gg = 0; gg < kDecHeadBatch; ++gg)
                if (gg < gn) reinterpret_cast<float4*>(red + (rg * kDecHeadBatch + gg) * dv)[c4] = acc[gg];
        }
        __syncthreads();
        for (int i = tid; i < gn * dv; i += kDecThreads) {
            const int gg = i / dv, d = i % dv;
            float sum = 0.f;
            for (int k = 0; k < nrg; ++k) sum += red[(k * kDecHeadBatch + gg) * dv + d];
            a.ws_o[((head0 + gb + gg) * a.n_chunks + c) * dv + d] = sum;
        }
        __syncthreads();  // red is reused by the next head batch
    }
}

__global__ void decode_combine_kernel(DecodeArgs a) {
    const int t = int(blockIdx.x), h = int(blockIdx.y), dv = a.p.v_head_dim;
    const std::int64_t last = a.pos[t];
    const int used = int(last / kDecodeChunk + 1 < a.n_chunks ? last / kDecodeChunk + 1 : a.n_chunks);
    const std::int64_t base = std::int64_t(t) * a.p.n_head + h;
    const float* ml = a.ws_ml + base * a.n_chunks * 2;
    const float* po = a.ws_o + base * a.n_chunks * dv;
    float mx = a.p.sinks ? a.p.sinks[h] : -INFINITY;
    for (int c = 0; c < used; ++c) mx = fmaxf(mx, ml[2 * c]);
    float den = a.p.sinks ? expf(a.p.sinks[h] - mx) : 0.f;
    for (int c = 0; c < used; ++c)
        if (ml[2 * c] != -INFINITY) den += ml[2 * c + 1] * expf(ml[2 * c] - mx);
    for (int d = int(threadIdx.x); d < dv; d += int(blockDim.x)) {
        float acc = 0.f;
        for (int c = 0; c < used; ++c)
            if (ml[2 * c] != -INFINITY) acc += expf(ml[2 * c] - mx) * po[std::int64_t(c) * dv + d];
        a.out[base * dv + d] = acc / den;
    }
}

bool shape_ok(const AttentionParams& p) {
    return p.n_head > 0 && p.n_head_kv > 0 && p.n_head % p.n_head_kv == 0 && p.head_dim > 0 && p.v_head_dim > 0 &&
           p.head_dim <= kMaxDim && p.v_head_dim <= kMaxDim && p.page_size > 0;
}

int decode_chunks(std::int64_t max_ctx) { return int((max_ctx + kDecodeChunk - 1) / kDecodeChunk); }

}  // namespace

cudaError_t attention_prefill(const AttentionParams& p, const float* q, std::int64_t ldq, std::int64_t n_tokens,
                              std::int64_t pos0, int seq_row, const DevicePagedKv& kv, float* out,
                              cudaStream_t stream) {
    if (!shape_ok(p) || n_tokens < 0 || pos0 < 0 || seq_row < 0 || ldq < std::int64_t(p.n_head) * p.head_dim)
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

    const bool aligned = reinterpret_cast<std::uintptr_t>(q) % 16 == 0 && ldq % 4 == 0 &&
                         reinterpret_cast<std::uintptr_t>(out) % 16 == 0;
    const std::int64_t qtiles = (n_tokens + kTcRows - 1) / kTcRows;
    if (!simple_forced() && aligned && p.head_dim == p.v_head_dim && qtiles <= 65535 && p.n_head <= 65535) {
        // Shared memory per block: ≤ 99 KiB on consumer GPUs (sm_86/89/120), 227 KiB on sm_90.
        int dev = 0, smem_max = 0;
        if (const cudaError_t e = cudaGetDevice(&dev); e != cudaSuccess) return e;
        if (const cudaError_t e = cudaDeviceGetAttribute(&smem_max, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
            e != cudaSuccess)
            return e;
        const auto fits = [&](std::size_t bytes) { return bytes <= std::size_t(smem_max); };
        switch (p.head_dim) {
            case 32:
                if (fits(TcLayout<32, 32, 64>::kSmem)) return launch_prefill_tc<32, 32, 64>(a, stream);
                break;
            case 64:
                if (fits(TcLayout<64, 64, 64>::kSmem)) return launch_prefill_tc<64, 64, 64>(a, stream);
                break;
            case 128:
                if (fits(TcLayout<128, 128, 64>::kSmem)) return launch_prefill_tc<128, 128, 64>(a, stream);
                break;
            case 256:
                if (fits(TcLayout<256, 256, 32>::kSmem)) return launch_prefill_tc<256, 256, 32>(a, stream);
                if (fits(TcLayout<256, 256, 16>::kSmem)) return launch_prefill_tc<256, 256, 16>(a, stream);
                break;
            default: break;
        }
    }
    const std::int64_t blocks = (n_tokens * p.n_head + kSimpleWarps - 1) / kSimpleWarps;
    if (blocks > 0x7fffffff) return cudaErrorInvalidValue;
    prefill_simple_kernel<<<unsigned(blocks), kSimpleWarps * 32, 0, stream>>>(a);
    return cudaGetLastError();
}

std::size_t attention_decode_workspace(const AttentionParams& p, std::int64_t n_tokens, std::int64_t max_ctx) {
    if (n_tokens <= 0 || max_ctx <= 0) return 0;
    const std::size_t heads = std::size_t(n_tokens) * std::size_t(p.n_head) * std::size_t(decode_chunks(max_ctx));
    return align128(heads * 2 * sizeof(float)) + heads * std::size_t(p.v_head_dim) * sizeof(float);
}

cudaError_t attention_decode(const AttentionParams& p, const float* q, std::int64_t ldq, std::int64_t n_tokens,
                             const std::int32_t* pos, const std::int32_t* seq, std::int64_t max_ctx,
                             const DevicePagedKv& kv, float* out, void* workspace, cudaStream_t stream) {
    if (!shape_ok(p) || p.head_dim % 16 != 0 || p.v_head_dim % 4 != 0 || n_tokens < 0 || max_ctx <= 0 ||
        ldq < std::int64_t(p.n_head) * p.head_dim || p.n_head / p.n_head_kv > kDecMaxGroup || n_tokens > 0x7fffffff ||
        p.n_head_kv > 65535 || p.n_head > 65535 || decode_chunks(max_ctx) > 65535)
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
    a.n_chunks = decode_chunks(max_ctx);
    a.group = p.n_head / p.n_head_kv;
    const std::size_t heads = std::size_t(n_tokens) * std::size_t(p.n_head) * std::size_t(a.n_chunks);
    a.ws_ml = static_cast<float*>(workspace);
    a.ws_o = reinterpret_cast<float*>(static_cast<unsigned char*>(workspace) + align128(heads * 2 * sizeof(float)));
    a.out = out;

    const std::size_t smem = decode_smem(a.group, p.head_dim, p.v_head_dim);
    if (smem > 48 * 1024) {
        const cudaError_t e =
            cudaFuncSetAttribute(decode_partial_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
        if (e != cudaSuccess) return e;
    }
    decode_partial_kernel<<<dim3(unsigned(n_tokens), unsigned(p.n_head_kv), unsigned(a.n_chunks)), kDecThreads, smem,
                            stream>>>(a);
    if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
    const int threads = p.v_head_dim >= 128 ? 128 : (p.v_head_dim + 31) / 32 * 32;
    decode_combine_kernel<<<dim3(unsigned(n_tokens), unsigned(p.n_head)), threads, 0, stream>>>(a);
    return cudaGetLastError();
}

}  // namespace ft::kernels::cuda
