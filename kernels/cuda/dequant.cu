// Whole-matrix dequantization for the prefill GEMM path. A thread decodes 8 consecutive elements of a row (always
// inside one quant block and, for the K-quants, one sub-block: one scale) and writes them as one 16- or 32-byte
// store, so a warp writes 512–1024 contiguous bytes. Values are computed as the reference does (kernels/ref/quant.cpp:
// same operation order, no fused multiply-add), so an F32 target is bit-identical to ref::dequantize_row.
#include "cuda/dequant.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cuda/quant_decode.cuh"

namespace ft::kernels::cuda {

namespace {

using quant::decode8;
constexpr int kThreads = 256;

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
            return quant::decode_only(src);
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
#define FT_X(T) case DType::T: return launch_src<DType::T>(w, row_bytes, rows, cols, dst, out, stream);
        FT_CUDA_DECODE_ONLY_TYPES(FT_X)
#undef FT_X
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
