// Grouped expert GEMMs for prefill (moe_gemm.cuh). A block computes a 64 (weight rows) × 64 (rows of one expert)
// tile over the whole k, 32 columns at a time: every thread decodes two 8-element groups of each weight tile and
// loads two 8-element groups of the x tile into registers while the tensor cores work on the tile before (two
// shared-memory buffers, one barrier per step). 4 warps, each 32 × 32 of the tile = 2 × 4 mma.sync m16n8k16 per 16
// columns (and as many again for the up matrix in gate_up). grid.x runs over the weight rows, grid.y over the row
// tiles of all experts (an upper bound: ⌈P / 64⌉ + n_expert; blocks past the last tile return at once). Each block
// finds its expert from the offsets with one warp's prefix sum over the experts' tile counts.
#include "cuda/moe_gemm.cuh"

#include <cuda_bf16.h>

#include "cuda/mma.cuh"
#include "cuda/quant_decode.cuh"

namespace ft::kernels::cuda {

namespace {

constexpr int kBM = 64, kBN = 64, kBK = 32;
constexpr int kLds = kBK + 8;  // shared-memory row stride (elements): 80 bytes, conflict-free ldmatrix rows
constexpr int kThreads = 128;
constexpr unsigned kFull = 0xffffffffu;

struct Args {
    const std::uint8_t* w;
    const std::uint8_t* u;
    std::size_t w_stride, u_stride, row_bytes;
    int rows, k, n_expert;
    const std::int32_t* offsets;
    const std::uint16_t* x;
    void* y;
    const float* bias;
    const float* up_bias;
    float limit;
};

__device__ __forceinline__ std::uint32_t pack_bf16(float lo, float hi) {
    return std::uint32_t(__bfloat16_as_ushort(__float2bfloat16_rn(lo))) |
           (std::uint32_t(__bfloat16_as_ushort(__float2bfloat16_rn(hi))) << 16);
}

__device__ __forceinline__ std::uint32_t byte_of(uint4 v, int i) {
    const std::uint32_t w = i < 4 ? v.x : i < 8 ? v.y : i < 12 ? v.z : v.w;
    return (w >> (8 * (i & 3))) & 0xFFu;
}

// Weights [e0, e0 + 8) of a row as 8 BF16 values. FAST (Q4_K with 16-byte aligned blocks): the block's header in one
// 16-byte load and the 8 code bytes in one 8-byte load; the arithmetic is quant::decode8's.
template <DType T, bool FAST>
__device__ __forceinline__ uint4 load_w8(const std::uint8_t* row, int e0) {
    float v[8];
    if constexpr (FAST && T == DType::Q4_K) {
        const std::uint8_t* blk = row + (e0 / 256) * 144;
        const uint4 hdr = __ldg(reinterpret_cast<const uint4*>(blk));  // d, dmin, scales[12]
        const int e = e0 % 256, j = e / 32, c = e / 64, w = e % 64;
        const uint2 q = __ldg(reinterpret_cast<const uint2*>(blk + 16 + 32 * c + w % 32));
        std::uint32_t sc, mn;
        if (j < 4) {
            sc = byte_of(hdr, 4 + j) & 63;
            mn = byte_of(hdr, 8 + j) & 63;
        } else {
            sc = (byte_of(hdr, 8 + j) & 0xF) | ((byte_of(hdr, j) >> 6) << 4);
            mn = (byte_of(hdr, 8 + j) >> 4) | ((byte_of(hdr, 4 + j) >> 6) << 4);
        }
        const float ds = __fmul_rn(quant::h2f(hdr.x & 0xFFFFu), float(sc));
        const float dm = __fmul_rn(quant::h2f(hdr.x >> 16), float(mn));
        const int shift = w < 32 ? 0 : 4;
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            const std::uint32_t b = ((i < 4 ? q.x : q.y) >> (8 * (i & 3))) & 0xFFu;
            v[i] = __fsub_rn(__fmul_rn(ds, float((b >> shift) & 0xF)), dm);
        }
    } else {
        quant::decode8<T>(row, e0, 8, v);
    }
    return make_uint4(pack_bf16(v[0], v[1]), pack_bf16(v[2], v[3]), pack_bf16(v[4], v[5]), pack_bf16(v[6], v[7]));
}

// As ref::swiglu (and ops.cu's swiglu_kernel).
__device__ __forceinline__ float swiglu(float g, float u, float limit) {
    if (limit > 0.f) {
        const float gx = limit < g ? limit : g;
        const float ux = u < -limit ? -limit : (limit < u ? limit : u);
        return gx / (1.f + expf(-1.702f * gx)) * (ux + 1.f);
    }
    if (limit < 0.f) {  // DeepSeek-V4: silu(min(g, -limit)) · clamp(u, ±limit)
        const float gx = -limit < g ? -limit : g;
        const float ux = u < limit ? limit : (-limit < u ? -limit : u);
        return gx / (1.f + expf(-gx)) * ux;
    }
    return g / (1.f + expf(-g)) * u;
}

template <DType T, bool FAST, bool GU>
__global__ void __launch_bounds__(kThreads) moe_gemm_kernel(const Args a) {
    constexpr int NM = GU ? 2 : 1;  // weight matrices
    __shared__ __align__(16) std::uint16_t sw[2][NM][kBM * kLds];
    __shared__ __align__(16) std::uint16_t sx[2][kBN * kLds];
    __shared__ int s_e, s_r0, s_n;
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;

    // This block's expert and rows: tile blockIdx.y of the experts' ⌈count / kBN⌉ tiles, in expert order.
    if (warp == 0) {
        if (lane == 0) s_e = -1;
        __syncwarp();
        const int tile = int(blockIdx.y);
        int before = 0;
        for (int e0 = 0; e0 < a.n_expert && before <= tile; e0 += 32) {
            const int e = e0 + lane;
            int lo = 0, cnt = 0;
            if (e < a.n_expert) {
                lo = a.offsets[e];
                cnt = a.offsets[e + 1] - lo;
            }
            const int nt = cnt > 0 ? (cnt + kBN - 1) / kBN : 0;
            int incl = nt;
#pragma unroll
            for (int d = 1; d < 32; d <<= 1) {
                const int v = __shfl_up_sync(kFull, incl, d);
                if (lane >= d) incl += v;
            }
            const int first = before + incl - nt;
            if (tile >= first && tile < first + nt) {
                s_e = e;
                s_r0 = lo + (tile - first) * kBN;
                s_n = min(kBN, cnt - (tile - first) * kBN);
            }
            before += __shfl_sync(kFull, incl, 31);
        }
    }
    __syncthreads();
    const int e = s_e;
    if (e < 0) return;
    const int r0 = s_r0, nrows = s_n, m0 = int(blockIdx.x) * kBM;
    const std::uint8_t* wb = a.w + std::size_t(e) * a.w_stride;
    const std::uint8_t* ub = GU ? a.u + std::size_t(e) * a.u_stride : nullptr;

    // Loads: rows ld_row and ld_row + 32 of each tile, 8 columns from ld_col.
    const int ld_row = tid / 4, ld_col = (tid % 4) * 8;
    const uint4 zero = make_uint4(0, 0, 0, 0);
    uint4 rw[NM][2], rx[2];
    auto load = [&](int k0) {
#pragma unroll
        for (int i = 0; i < 2; ++i) {
            const int r = ld_row + 32 * i;
            const bool wok = m0 + r < a.rows;
            rw[0][i] = wok ? load_w8<T, FAST>(wb + std::size_t(m0 + r) * a.row_bytes, k0 + ld_col) : zero;
            if constexpr (GU) rw[1][i] = wok ? load_w8<T, FAST>(ub + std::size_t(m0 + r) * a.row_bytes, k0 + ld_col) : zero;
            rx[i] = r < nrows ? __ldg(reinterpret_cast<const uint4*>(a.x + std::size_t(r0 + r) * std::size_t(a.k) + k0 + ld_col))
                              : zero;
        }
    };
    auto store = [&](int buf) {
#pragma unroll
        for (int i = 0; i < 2; ++i) {
            const int at = (ld_row + 32 * i) * kLds + ld_col;
#pragma unroll
            for (int m = 0; m < NM; ++m) *reinterpret_cast<uint4*>(&sw[buf][m][at]) = rw[m][i];
            *reinterpret_cast<uint4*>(&sx[buf][at]) = rx[i];
        }
    };

    const int wm = warp / 2, wn = warp % 2;  // this warp's 32 × 32: weight rows wm·32.., x rows wn·32..
    float acc[NM][2][4][4];
#pragma unroll
    for (int m = 0; m < NM; ++m)
#pragma unroll
        for (int i = 0; i < 2; ++i)
#pragma unroll
            for (int j = 0; j < 4; ++j)
#pragma unroll
                for (int c = 0; c < 4; ++c) acc[m][i][j][c] = 0.f;

    const int nk = a.k / kBK;
    load(0);
    store(0);
    __syncthreads();
    for (int kt = 0; kt < nk; ++kt) {
        const int buf = kt & 1;
        if (kt + 1 < nk) load((kt + 1) * kBK);
#pragma unroll
        for (int kk = 0; kk < kBK; kk += 16) {
            unsigned b[4][2];
#pragma unroll
            for (int nj = 0; nj < 4; nj += 2) {
                // Tiles (x rows 0-7, k 0-7), (0-7, 8-15), (8-15, 0-7), (8-15, 8-15): two B fragments.
                unsigned r[4];
                const int n = wn * 32 + nj * 8 + (lane / 16) * 8 + lane % 8;
                ldsm_x4(r, &sx[buf][n * kLds + kk + ((lane / 8) % 2) * 8]);
                b[nj][0] = r[0];
                b[nj][1] = r[1];
                b[nj + 1][0] = r[2];
                b[nj + 1][1] = r[3];
            }
#pragma unroll
            for (int m = 0; m < NM; ++m)
#pragma unroll
                for (int mi = 0; mi < 2; ++mi) {
                    unsigned af[4];
                    ldsm_x4(af, &sw[buf][m][(wm * 32 + mi * 16 + lane % 16) * kLds + kk + (lane / 16) * 8]);
#pragma unroll
                    for (int nj = 0; nj < 4; ++nj) mma_bf16(acc[m][mi][nj], af, b[nj][0], b[nj][1]);
                }
        }
        if (kt + 1 < nk) store(buf ^ 1);
        __syncthreads();
    }

    // Epilogue: c0 c1 at (weight row g, x rows 2q, 2q+1), c2 c3 at weight row g + 8.
    const int g = lane / 4, q = lane % 4;
#pragma unroll
    for (int mi = 0; mi < 2; ++mi)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int m = m0 + wm * 32 + mi * 16 + g + 8 * h;
            if (m >= a.rows) continue;
            const float bg = a.bias ? a.bias[std::size_t(e) * std::size_t(a.rows) + m] : 0.f;
            const float bu = GU && a.up_bias ? a.up_bias[std::size_t(e) * std::size_t(a.rows) + m] : 0.f;
#pragma unroll
            for (int nj = 0; nj < 4; ++nj)
#pragma unroll
                for (int c = 0; c < 2; ++c) {
                    const int n = wn * 32 + nj * 8 + 2 * q + c;
                    if (n >= nrows) continue;
                    const std::size_t at = std::size_t(r0 + n) * std::size_t(a.rows) + std::size_t(m);
                    const float v = acc[0][mi][nj][2 * h + c] + bg;
                    if constexpr (GU) {
                        const float uv = acc[NM - 1][mi][nj][2 * h + c] + bu;
                        static_cast<__nv_bfloat16*>(a.y)[at] = __float2bfloat16_rn(swiglu(v, uv, a.limit));
                    } else {
                        static_cast<float*>(a.y)[at] = v;
                    }
                }
        }
}

__global__ void gather_bf16_kernel(const float* __restrict__ x, std::int64_t cols, const std::int32_t* __restrict__ order,
                                   int k, std::int64_t pairs, uint4* __restrict__ out) {
    const std::int64_t groups = cols / 8, n = pairs * groups;
    for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x) {
        const std::int64_t r = i / groups, c = (i - r * groups) * 8;
        const std::int32_t o = order[r];
        uint4 v = make_uint4(0, 0, 0, 0);
        if (o >= 0) {
            const float4* src = reinterpret_cast<const float4*>(x + std::int64_t(o / k) * cols + c);
            const float4 a = __ldg(src), b = __ldg(src + 1);
            v = make_uint4(pack_bf16(a.x, a.y), pack_bf16(a.z, a.w), pack_bf16(b.x, b.y), pack_bf16(b.z, b.w));
        }
        out[i] = v;
    }
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

template <DType T, bool GU>
cudaError_t launch_type(const Args& a, bool fast, dim3 grid, cudaStream_t stream) {
    if constexpr (T == DType::Q4_K) {
        if (fast) {
            moe_gemm_kernel<T, true, GU><<<grid, kThreads, 0, stream>>>(a);
            return cudaGetLastError();
        }
    }
    moe_gemm_kernel<T, false, GU><<<grid, kThreads, 0, stream>>>(a);
    return cudaGetLastError();
}

template <bool GU>
cudaError_t launch(const MoeGemmParams& p, cudaStream_t stream) {
    const ExpertMatrix& w = p.w;
    if (!moe_gemm_supported(w.type, w.k) || w.rows < 1 || w.rows > 0x7fffffff || p.n_expert < 1 || p.n_rows < 0 ||
        !p.offsets || !p.x || !p.y || !w.base || !aligned16(p.x))
        return cudaErrorInvalidValue;
    const auto need = dtype_bytes(w.type, std::uint64_t(w.k));
    if (!need || w.row_bytes < *need) return cudaErrorInvalidValue;
    if (GU && (!p.up.base || p.up.type != w.type || p.up.rows != w.rows || p.up.k != w.k || p.up.row_bytes != w.row_bytes))
        return cudaErrorInvalidValue;
    if (!GU && p.up_bias) return cudaErrorInvalidValue;
    const std::int64_t row_tiles = (p.n_rows + kBN - 1) / kBN + p.n_expert;
    if (row_tiles > 65535) return cudaErrorInvalidValue;
    if (p.n_rows == 0) return cudaSuccess;
    Args a{};
    a.w = static_cast<const std::uint8_t*>(w.base);
    a.u = GU ? static_cast<const std::uint8_t*>(p.up.base) : nullptr;
    a.w_stride = w.slot_stride;
    a.u_stride = GU ? p.up.slot_stride : 0;
    a.row_bytes = w.row_bytes;
    a.rows = int(w.rows);
    a.k = int(w.k);
    a.n_expert = p.n_expert;
    a.offsets = p.offsets;
    a.x = static_cast<const std::uint16_t*>(p.x);
    a.y = p.y;
    a.bias = p.bias;
    a.up_bias = p.up_bias;
    a.limit = p.swiglu_limit;
    const bool fast = aligned16(a.w) && a.row_bytes % 16 == 0 && a.w_stride % 16 == 0 &&
                      (!GU || (aligned16(a.u) && a.u_stride % 16 == 0));
    const dim3 grid(unsigned((w.rows + kBM - 1) / kBM), unsigned(row_tiles));
    switch (w.type) {
        case DType::F32: return launch_type<DType::F32, GU>(a, fast, grid, stream);
        case DType::F16: return launch_type<DType::F16, GU>(a, fast, grid, stream);
        case DType::BF16: return launch_type<DType::BF16, GU>(a, fast, grid, stream);
        case DType::Q8_0: return launch_type<DType::Q8_0, GU>(a, fast, grid, stream);
        case DType::Q4_K: return launch_type<DType::Q4_K, GU>(a, fast, grid, stream);
        case DType::Q5_K: return launch_type<DType::Q5_K, GU>(a, fast, grid, stream);
        case DType::Q6_K: return launch_type<DType::Q6_K, GU>(a, fast, grid, stream);
        case DType::MXFP4: return launch_type<DType::MXFP4, GU>(a, fast, grid, stream);
#define FT_X(T) case DType::T: return launch_type<DType::T, GU>(a, fast, grid, stream);
        FT_CUDA_DECODE_ONLY_TYPES(FT_X)
#undef FT_X
        default: return cudaErrorInvalidValue;
    }
}

}  // namespace

bool moe_gemm_supported(DType type, std::int64_t k) {
    switch (type) {
        case DType::F32: case DType::F16: case DType::BF16: case DType::Q8_0:
        case DType::Q4_K: case DType::Q5_K: case DType::Q6_K: case DType::MXFP4:
            break;
        default:
            if (!quant::decode_only(type)) return false;
    }
    const auto blk = std::int64_t(dtype_info(type).block_elems);
    return k > 0 && k % kBK == 0 && k % blk == 0 && k <= 0x7fffffff;
}

cudaError_t moe_gemm_gate_up(const MoeGemmParams& p, cudaStream_t stream) { return launch<true>(p, stream); }
cudaError_t moe_gemm_down(const MoeGemmParams& p, cudaStream_t stream) { return launch<false>(p, stream); }

cudaError_t moe_gather_bf16(const float* x, std::int64_t cols, const std::int32_t* order, int k, std::int64_t pairs,
                            void* out, cudaStream_t stream) {
    if (cols <= 0 || cols % 8 || k < 1 || pairs < 0 || !aligned16(x) || !aligned16(out)) return cudaErrorInvalidValue;
    if (pairs == 0) return cudaSuccess;
    if (!x || !order || !out) return cudaErrorInvalidValue;
    const std::int64_t n = pairs * (cols / 8);
    const unsigned grid = unsigned(std::min<std::int64_t>((n + 255) / 256, 65536));
    gather_bf16_kernel<<<grid, 256, 0, stream>>>(x, cols, order, k, pairs, static_cast<uint4*>(out));
    return cudaGetLastError();
}

}  // namespace ft::kernels::cuda
