// Scalar reference quantize / dequantize of the GGUF block formats. These are the ground truth every CPU and CUDA
// kernel is tested against: simple, obviously correct, not fast.
//
// Supported: F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q5_K, Q6_K, MXFP4 (dequantize and quantize).
// n must be a multiple of the type's block_elems (dtype.h); src/dst hold dtype_bytes(type, n) bytes.
// Unsupported types return false (callers turn that into an ft::Error naming the tensor).
#pragma once

#include <cstdint>

#include "ref/dtype.h"

namespace ft::kernels::ref {

bool dequantize_row(DType type, const void* src, float* dst, std::int64_t n);
bool quantize_row(DType type, const float* src, void* dst, std::int64_t n);
bool quant_supported(DType type);

// Half-precision conversions used by the block formats (round-to-nearest-even, NaN/Inf preserved).
float f16_to_f32(std::uint16_t h);
std::uint16_t f32_to_f16(float f);
float bf16_to_f32(std::uint16_t h);
std::uint16_t f32_to_bf16(float f);

}  // namespace ft::kernels::ref
