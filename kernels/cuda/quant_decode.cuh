// Device-side decoding of the quantized weight formats into floats, 8 consecutive elements of a row at a time (the
// unit every format keeps inside one block and, for the K-quants, one sub-block: one scale). Values are computed as
// the reference does (kernels/ref/quant.cpp: same operation order, no fused multiply-add), so they are bit-identical
// to ref::dequantize_row. Used by the whole-matrix dequantization (dequant.cu) and the grouped expert GEMM
// (moe_gemm.cu). Formats: F32, F16, BF16, Q8_0, Q4_K, Q5_K, Q6_K, MXFP4 (byte loads: any alignment).
#pragma once

#include <cstdint>

#include <cuda_fp16.h>

#include "ref/dtype.h"

namespace ft::kernels::cuda::quant {

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

}  // namespace ft::kernels::cuda::quant
