// Decode matvec (one activation row) on K-quant, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, IQ4_NL, IQ4_XS, MXFP4, TQ1_0, TQ2_0,
// IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, IQ1_S, IQ1_M and FT_NVFP4 weights (every block type the engine reads but
// FT_FP8, whose E4M3 values are no integers at one scale) with 8-bit
// activations and the CPU's
// u8 × s8 → s32 dot-product instruction (VPDPBUSD, AVX512-VNNI or AVX-VNNI at 256 bits). Internal to
// kernels/cpu: matvec_rows (matmul.h) calls it first and falls back to the Highway kernels where it declines.
//
// x is quantized once per call to int8 per 32 elements (scale amax/127, round to nearest), with the f32 sum of each
// 32 (the K-quants' min term) and the int sums the unsigned-code offsets need (Q6_K's -32, Q8_0's +128, Q4_0's -8,
// TQ1_0's and TQ2_0's -1). The weight
// codes multiply exactly in int32 per 32 (or 16) elements; block scales apply in f32. Relative error of the dot
// product ≈ 1e-5 in nmse on uniform data (int16 path: ≈ 1e-9).
//
// x86-64 only, on GCC/Clang (each path compiled with its target attribute) and MSVC (no attribute needed); the CPU's
// support is read with cpuid (x86_features.h). Elsewhere every path reports unsupported and matvec_rows keeps its
// Highway int16/f32 kernels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ref/dtype.h"

namespace ft::kernels::cpu {

enum class Int8Dot { none, avx_vnni, avx512_vnni };

bool int8_dot_cpu_supports(Int8Dot path);
Int8Dot int8_dot_selected();  // what matvec_rows uses: the best this CPU supports, unless overridden
const char* int8_dot_name(Int8Dot path);
bool int8_dot_handles(DType wt);  // Q4_0 … Q6_K, Q8_0, IQ4_NL, IQ4_XS, MXFP4, TQ1_0, TQ2_0, IQ1/IQ2/IQ3, FT_NVFP4
// The types matvec_rows sends here: all those but Q8_0, which stays on the int16 path by default: its
// golden test asks the logits to match the dequantized model within 1e-3 (int8 x: max |Δlogit| 0.024 on the tiny model).
bool int8_dot_by_default(DType wt);

// For tests (like hwy::SetSupportedTargetsForTest): force the path matvec_rows takes (none = the Highway
// kernels); reset_int8_dot_for_test() restores the CPU's best. Not thread-safe against concurrent matvec calls.
void set_int8_dot_for_test(Int8Dot path);
void reset_int8_dot_for_test();

// y[r] = dot(W[r, :], x) for r in [row_begin, row_end) with the given path. Returns false and writes nothing when
// the path is none, the CPU lacks it or the type is not handled.
bool matvec_rows_int8(Int8Dot path, DType wt, const void* w, std::size_t row_bytes, std::int64_t k, const float* x,
                      float* y, std::int64_t row_begin, std::int64_t row_end);

// x quantized once for many calls over the same x (matvec_rows_int8 quantizes in every call): int8 per 32 elements
// with what the kernels' offsets need, for one path (the AVX512-VNNI path keeps a second order of q for its 512-bit
// loop).
struct Int8Activation {
    Int8Dot path = Int8Dot::none;
    std::int64_t k = 0;
    std::vector<std::int8_t> q;        // [k]: x ≈ q · scale
    std::vector<float> scale;          // [k / 32]
    std::vector<float> sum;            // [k / 32]: Σ q · scale, the K-quants' min term
    std::vector<float> qsum16;         // [k / 16]: Σ q per 16 (Q6_K's −32 offset)
    std::vector<std::int32_t> bias32;  // [k / 32]: −128 · Σ q per 32 (Q8_0's +128 offset)
    std::vector<std::int8_t> q512;     // [k]: q with each 256's 32s in the order 0 2 1 3 4 6 5 7 (AVX512-VNNI only)
    // AVX512-VNNI only, for Q4_K: x rounded again with one scale per 256 (its 32s in q512's order), so that a
    // super-block's eight sub-block products sum in int32 with the weights' 6-bit scales before one f32 step.
    std::vector<std::int8_t> q256;     // [k]
    std::vector<float> scale256;       // [k / 256]
    std::vector<float> sum256;         // [k / 32]: Σ q256 · scale256 per 32, the min term
};
// Quantizes x for `path`. False (out unchanged) when the CPU lacks the path or k is not a multiple of 32.
bool int8_quantize(Int8Dot path, const float* x, std::int64_t k, Int8Activation& out);
// matvec_rows_int8 on an x quantized by int8_quantize (its path and k; the weights' k must equal x.k). False and
// nothing written when the path cannot take the type or k.
bool matvec_rows_int8_quantized(DType wt, const void* w, std::size_t row_bytes, const Int8Activation& x, float* y,
                                std::int64_t row_begin, std::int64_t row_end);

}  // namespace ft::kernels::cpu
