// Whole-matrix dequantization for the prefill GEMM path. A thread decodes 8 consecutive elements of a row (always
// inside one quant block and, for the K-quants, one sub-block: one scale) and writes them as one 16- or 32-byte
// store, so a warp writes 512–1024 contiguous bytes. Values are computed as the reference does (kernels/ref/quant.cpp:
// same operation order, no fused multiply-add), so an F32 target is bit-identical to ref::dequantize_row.
#include "cuda/dequant.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace ft::kernels::cuda {

namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ std::uint32_t lb(const std::uint8_t* p) { return __ldg(p); }
__device__ __forceinline__ std::uint32_t lu16(const std::uint8_t* p) { return lb(p) | (lb(p + 1) << 8); }
__device__ __forceinline__ float h2f(std::uint32_t h) { return __half2float(__ushort_as_half((unsigned short)h)); }

// 8 elements [e0, e0 + 8) of a row (e0 a multiple of 8, n = how many of them exist for the plain types).
template <DType T>
__device__ void decode8(const std::uint8_t* row, std::int64_t e0, int n, float* v) {
    if constexpr (T == DType::F32) {
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            const std::uint8_t* p = row + 4 * (e0 + i);
            v[i] = i < n ? __uint_as_float(lu16(p) | (lu16(p + 2) << 16)) : 0.f;
        }
    } else if constexpr (T == DType::F16) {
#pragma unroll
        for (int i = 0; i < 8; ++i) v[i] = i < n ? h2f(lu16(row + 2 * (e0 + i))) : 0.f;
    } else if constexpr (T == DType::BF16) {
#pragma unroll
        for (int i = 0; i < 8; ++i) v[i] = i < n ? __uint_as_float(lu16(row + 2 * (e0 + i)) << 16) : 0.f;
    } else if constexpr (T == DType::Q8_0) {
        const std::uint8_t* blk = row + (e0 / 32) * 34;
        const float d = h2f(lu16(blk));
        const std::uint8_t* qs = blk + 2 + e0 % 32;
#pragma unroll
        for (int i = 0; i < 8; ++i) v[i] = __fmul_rn(d, float(std::int8_t(lb(qs + i))));
    } else if constexpr (T == DType::Q4_K || T == DType::Q5_K) {
        constexpr bool q5 = T == DType::Q5_K;
        const std::uint8_t* blk = row + (e0 / 256) * (q5 ? 176 : 144);
        const int e = int(e0 % 256), j = e / 32, c = e / 64, w = e % 64;
        const std::uint8_t* s = blk + 4;
        std::uint32_t sc, mn;
        if (j < 4) {
            sc = lb(s + j) & 63;
            mn = lb(s + j + 4) & 63;
        } else {
            sc = (lb(s + j + 4) & 0xF) | ((lb(s + j - 4) >> 6) << 4);
            mn = (lb(s + j + 4) >> 4) | ((lb(s + j) >> 6) << 4);
        }
        const float ds = __fmul_rn(h2f(lu16(blk)), float(sc)), dm = __fmul_rn(h2f(lu16(blk + 2)), float(mn));
        const std::uint8_t* qs = blk + (q5 ? 48 : 16) + 32 * c + w % 32;
        const int shift = w < 32 ? 0 : 4;
        const int hbit = 2 * c + (w < 32 ? 0 : 1);
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            int q = int((lb(qs + i) >> shift) & 0xF);
            if constexpr (q5) q |= int((lb(blk + 16 + w % 32 + i) >> hbit) & 1) << 4;
            v[i] = __fsub_rn(__fmul_rn(ds, float(q)), dm);
        }
    } else if constexpr (T == DType::MXFP4) {
        // 2^(e-128) · the doubled E2M1 value (ref::dequant_mxfp4): elements j < 16 in the low nibbles of qs[j],
        // j ≥ 16 in the high nibbles of qs[j - 16]; 8 elements never straddle the halves.
        const std::uint8_t* blk = row + (e0 / 32) * 17;
        const std::uint32_t e = lb(blk);
        const float d = __uint_as_float(e < 2 ? (0x00200000u << e) : ((e - 1) << 23));
        const int j0 = int(e0 % 32);
        const std::uint8_t* qs = blk + 1 + (j0 & 15);
        const int shift = j0 < 16 ? 0 : 4;
        constexpr float kVal[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};
#pragma unroll
        for (int i = 0; i < 8; ++i) v[i] = __fmul_rn(d, kVal[(lb(qs + i) >> shift) & 0xF]);
    } else {  // Q6_K
        const std::uint8_t* blk = row + (e0 / 256) * 210;
        const int e = int(e0 % 256), hq = e / 128, w = e % 128, kq = w / 32, l = w % 32;
        const float dsc = __fmul_rn(h2f(lu16(blk + 208)), float(std::int8_t(lb(blk + 192 + e / 16))));
        const std::uint8_t* ql = blk + 64 * hq + l + 32 * (kq & 1);
        const std::uint8_t* qh = blk + 128 + 32 * hq + l;
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            const std::uint32_t lo = lb(ql + i);
            const int q = int((kq < 2 ? (lo & 0xF) : (lo >> 4)) | (((lb(qh + i) >> (2 * kq)) & 3) << 4));
            v[i] = __fmul_rn(dsc, float(q - 32));
        }
    }
}

template <DType Dst>
__device__ __forceinline__ void store8(void* out, std::int64_t off, int n, bool vec, const float* v) {
    if constexpr (Dst == DType::F32) {
        float* o = static_cast<float*>(out) + off;
        if (vec) {
            reinterpret_cast<float4*>(o)[0] = make_float4(v[0], v[1], v[2], v[3]);
            reinterpret_cast<float4*>(o)[1] = make_float4(v[4], v[5], v[6], v[7]);
        } else {
#pragma unroll
            for (int i = 0; i < 8; ++i)
                if (i < n) o[i] = v[i];
        }
    } else {
        std::uint16_t h[8];
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            if constexpr (Dst == DType::BF16)
                h[i] = __bfloat16_as_ushort(__float2bfloat16_rn(v[i]));
            else
                h[i] = __half_as_ushort(__float2half_rn(v[i]));
        }
        std::uint16_t* o = static_cast<std::uint16_t*>(out) + off;
        if (vec) {
            uint4 p;
            p.x = h[0] | (std::uint32_t(h[1]) << 16);
            p.y = h[2] | (std::uint32_t(h[3]) << 16);
            p.z = h[4] | (std::uint32_t(h[5]) << 16);
            p.w = h[6] | (std::uint32_t(h[7]) << 16);
            *reinterpret_cast<uint4*>(o) = p;
        } else {
#pragma unroll
            for (int i = 0; i < 8; ++i)
                if (i < n) o[i] = h[i];
        }
    }
}

template <DType Src, DType Dst>
__global__ void __launch_bounds__(kThreads) dequant_kernel(const std::uint8_t* w, std::size_t row_bytes,
                                                           std::int64_t rows, std::int64_t cols, void* out, bool vec) {
    const std::int64_t groups = (cols + 7) / 8;
    const std::int64_t total = rows * groups;
    for (std::int64_t g = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; g < total;
         g += std::int64_t(gridDim.x) * kThreads) {
        const std::int64_t r = g / groups, e0 = (g - r * groups) * 8;
        const int n = int(cols - e0 < 8 ? cols - e0 : 8);
        float v[8];
        decode8<Src>(w + std::size_t(r) * row_bytes, e0, n, v);
        store8<Dst>(out, r * cols + e0, n, vec && n == 8, v);
    }
}

__global__ void __launch_bounds__(kThreads) convert_kernel(const float* x, std::int64_t n, bool bf16, void* out,
                                                           bool vec) {
    const std::int64_t groups = (n + 7) / 8;
    for (std::int64_t g = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; g < groups;
         g += std::int64_t(gridDim.x) * kThreads) {
        const std::int64_t e0 = g * 8;
        const int cnt = int(n - e0 < 8 ? n - e0 : 8);
        float v[8];
        if (vec && cnt == 8) {
            const float4 a = __ldg(reinterpret_cast<const float4*>(x + e0));
            const float4 b = __ldg(reinterpret_cast<const float4*>(x + e0) + 1);
            v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w, v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
        } else {
#pragma unroll
            for (int i = 0; i < 8; ++i) v[i] = i < cnt ? __ldg(x + e0 + i) : 0.f;
        }
        if (bf16)
            store8<DType::BF16>(out, e0, cnt, vec && cnt == 8, v);
        else
            store8<DType::F16>(out, e0, cnt, vec && cnt == 8, v);
    }
}

unsigned grid_for(std::int64_t groups) {
    std::int64_t blocks = (groups + kThreads - 1) / kThreads;
    // Enough CTAs to fill any GPU many times over; the kernels stride beyond that.
    if (blocks > 65536) blocks = 65536;
    return unsigned(blocks < 1 ? 1 : blocks);
}

template <DType Src>
cudaError_t launch_src(const void* w, std::size_t row_bytes, std::int64_t rows, std::int64_t cols, DType dst, void* out,
                       cudaStream_t stream) {
    const std::int64_t groups = rows * ((cols + 7) / 8);
    const unsigned grid = grid_for(groups);
    const auto* wb = static_cast<const std::uint8_t*>(w);
    const bool vec = cols % 8 == 0 && reinterpret_cast<std::uintptr_t>(out) % 16 == 0;
    switch (dst) {
        case DType::F32: dequant_kernel<Src, DType::F32><<<grid, kThreads, 0, stream>>>(wb, row_bytes, rows, cols, out, vec); break;
        case DType::F16: dequant_kernel<Src, DType::F16><<<grid, kThreads, 0, stream>>>(wb, row_bytes, rows, cols, out, vec); break;
        case DType::BF16: dequant_kernel<Src, DType::BF16><<<grid, kThreads, 0, stream>>>(wb, row_bytes, rows, cols, out, vec); break;
        default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

}  // namespace

bool dequantize_supported(DType src) {
    switch (src) {
        case DType::F32: case DType::F16: case DType::BF16: case DType::Q8_0:
        case DType::Q4_K: case DType::Q5_K: case DType::Q6_K: case DType::MXFP4:
            return true;
        default:
            return false;
    }
}

cudaError_t dequantize_rows(DType src, const void* w, std::size_t row_bytes, std::int64_t rows, std::int64_t cols,
                            DType dst, void* out, cudaStream_t stream) {
    if (!dequantize_supported(src) || rows < 0 || cols < 0) return cudaErrorInvalidValue;
    if (dst != DType::F32 && dst != DType::F16 && dst != DType::BF16) return cudaErrorInvalidValue;
    const auto need = dtype_bytes(src, std::uint64_t(cols));
    if (!need || row_bytes < *need) return cudaErrorInvalidValue;
    if (rows == 0 || cols == 0) return cudaSuccess;
    if (!w || !out) return cudaErrorInvalidValue;
    switch (src) {
        case DType::F32: return launch_src<DType::F32>(w, row_bytes, rows, cols, dst, out, stream);
        case DType::F16: return launch_src<DType::F16>(w, row_bytes, rows, cols, dst, out, stream);
        case DType::BF16: return launch_src<DType::BF16>(w, row_bytes, rows, cols, dst, out, stream);
        case DType::Q8_0: return launch_src<DType::Q8_0>(w, row_bytes, rows, cols, dst, out, stream);
        case DType::Q4_K: return launch_src<DType::Q4_K>(w, row_bytes, rows, cols, dst, out, stream);
        case DType::Q5_K: return launch_src<DType::Q5_K>(w, row_bytes, rows, cols, dst, out, stream);
        case DType::Q6_K: return launch_src<DType::Q6_K>(w, row_bytes, rows, cols, dst, out, stream);
        case DType::MXFP4: return launch_src<DType::MXFP4>(w, row_bytes, rows, cols, dst, out, stream);
        default: return cudaErrorInvalidValue;
    }
}

cudaError_t convert_f32(const float* x, std::int64_t n, DType dst, void* out, cudaStream_t stream) {
    if (n < 0 || (dst != DType::BF16 && dst != DType::F16)) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    if (!x || !out) return cudaErrorInvalidValue;
    const bool vec = reinterpret_cast<std::uintptr_t>(x) % 16 == 0 && reinterpret_cast<std::uintptr_t>(out) % 16 == 0;
    convert_kernel<<<grid_for((n + 7) / 8), kThreads, 0, stream>>>(x, n, dst == DType::BF16, out, vec);
    return cudaGetLastError();
}

}  // namespace ft::kernels::cuda
