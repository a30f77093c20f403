// Dequantize whole matrices on the GPU into a dense float type, for the prefill GEMM path (cuBLAS reads the dense
// copy). out is [rows, cols] row-major with leading dimension cols. Pure launcher.
// Supported sources: F32, F16, BF16, Q8_0, Q4_K, Q5_K, Q6_K, MXFP4 (17-byte blocks at any byte alignment) and
// quant_decode.cuh's decode-only types.
// Targets: F32, F16, BF16.
// convert_f32: n floats to BF16/F16 (activations for the GEMM).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "ref/dtype.h"

namespace ft::kernels::cuda {

bool dequantize_supported(DType src);
cudaError_t dequantize_rows(DType src, const void* w, std::size_t row_bytes, std::int64_t rows, std::int64_t cols,
                            DType dst, void* out, cudaStream_t stream);
cudaError_t convert_f32(const float* x, std::int64_t n, DType dst, void* out, cudaStream_t stream);

}  // namespace ft::kernels::cuda
