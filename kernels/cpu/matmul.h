// CPU matrix-vector and small matrix-matrix products that read weights in their stored (quantized) layout and
// dequantize in registers (Highway SIMD, runtime dispatch to the best ISA of this CPU).
//
// W is a row-major matrix of n rows × k columns in type `wt`: row r starts at `w + r * row_bytes` and holds k
// elements (k a multiple of the type's block size). Only rows [row_begin, row_end) are computed, so callers split
// work by row ranges across threads. Results are written, not accumulated.
//   matvec_rows: y[r] = dot(W[r, :], x)
//   matmul_rows: y[i * ldy + r] = dot(W[r, :], x[i * ldx : +k]) for i < m (each weight row is decoded once)
// Supported: every type ref::dequant_supported lists — F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, Q4_K,
// Q5_K, Q6_K, IQ4_NL, IQ4_XS, MXFP4, FT_FP8, FT_NVFP4 with SIMD decoders; the lattice and ternary types (IQ2_XXS, IQ2_XS, IQ2_S,
// IQ3_XXS, IQ3_S, IQ1_S, IQ1_M, TQ1_0, TQ2_0) unpacked per block to 8-bit codes (scalar) then scaled in SIMD.
// Decoded weights are bit-identical to ref::dequantize_row. Accumulation in f32 per SIMD lane.
// matvec_rows uses integer dot products for Q4_K, Q5_K and Q6_K where the CPU has VPDPBUSD (AVX512-VNNI or AVX-VNNI;
// GCC/Clang x86-64 builds): x is rounded to int8 per 32 elements (nmse of the product ≈ 1.5e-5, see
// cpu/matmul_int8.h). Otherwise, and for Q8_0 always, Q4_K and Q8_0 round x to int16 per 32 (relative error ≤ 2^-15
// per element) and Q5_K/Q6_K decode to f32. The weight codes multiply exactly; block scales apply in f32.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cpu/matmul_int8.h"
#include "ref/dtype.h"

namespace ft::kernels::cpu {

bool matmul_supported(DType wt);

void matvec_rows(DType wt, const void* w, std::size_t row_bytes, std::int64_t k, const float* x, float* y,
                 std::int64_t row_begin, std::int64_t row_end);

// One x prepared for many matvec_rows_prepared calls over it (the CPU expert executor splits an expert's rows over
// many tasks): where matvec_rows would take the int8 path for `wt`, x is quantized here once instead of in every
// call. x must stay valid while the input is used (the types without an int8 path read it).
struct MatvecInput {
    const float* x = nullptr;
    std::int64_t k = 0;
    bool int8 = false;
    Int8Activation q;
};
void matvec_prepare(DType wt, const float* x, std::int64_t k, MatvecInput& out);
// matvec_rows(wt, w, row_bytes, x.k, x.x, y, row_begin, row_end), with the same results, for a weight type of any
// kind: one the input was not prepared for takes matvec_rows' own path.
void matvec_rows_prepared(DType wt, const void* w, std::size_t row_bytes, const MatvecInput& x, float* y,
                          std::int64_t row_begin, std::int64_t row_end);

void matmul_rows(DType wt, const void* w, std::size_t row_bytes, std::int64_t k, const float* x, std::int64_t ldx,
                 std::int64_t m, float* y, std::int64_t ldy, std::int64_t row_begin, std::int64_t row_end);

// Dequantizes one row of k elements into f32 (the SIMD decoders of the products above).
void dequantize_row(DType wt, const void* src, float* dst, std::int64_t k);

}  // namespace ft::kernels::cpu
