// CPU matrix-vector and small matrix-matrix products that read weights in their stored (quantized) layout and
// dequantize in registers (Highway SIMD, runtime dispatch to the best ISA of this CPU).
//
// W is a row-major matrix of n rows × k columns in type `wt`: row r starts at `w + r * row_bytes` and holds k
// elements (k a multiple of the type's block size). Only rows [row_begin, row_end) are computed, so callers split
// work by row ranges across threads. Results are written, not accumulated.
//   matvec_rows: y[r] = dot(W[r, :], x)
//   matmul_rows: y[i * ldy + r] = dot(W[r, :], x[i * ldx : +k]) for i < m (each weight row is decoded once)
// Supported: F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q5_K, Q6_K, MXFP4. Accumulation in f32 per SIMD lane.
// matvec_rows uses integer dot products for Q4_K, Q5_K and Q6_K where the CPU has VPDPBUSD (AVX512-VNNI or AVX-VNNI;
// GCC/Clang x86-64 builds): x is rounded to int8 per 32 elements (nmse of the product ≈ 1.5e-5, see
// cpu/matmul_int8.h). Otherwise, and for Q8_0 always, Q4_K and Q8_0 round x to int16 per 32 (relative error ≤ 2^-15
// per element) and Q5_K/Q6_K decode to f32. The weight codes multiply exactly; block scales apply in f32.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ref/dtype.h"

namespace ft::kernels::cpu {

bool matmul_supported(DType wt);

void matvec_rows(DType wt, const void* w, std::size_t row_bytes, std::int64_t k, const float* x, float* y,
                 std::int64_t row_begin, std::int64_t row_end);

void matmul_rows(DType wt, const void* w, std::size_t row_bytes, std::int64_t k, const float* x, std::int64_t ldx,
                 std::int64_t m, float* y, std::int64_t ldy, std::int64_t row_begin, std::int64_t row_end);

// Dequantizes one row of k elements into f32 (the SIMD decoders of the products above).
void dequantize_row(DType wt, const void* src, float* dst, std::int64_t k);

}  // namespace ft::kernels::cpu
