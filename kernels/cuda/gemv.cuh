// CUDA matrix-vector product for decode, reading weights in their stored (quantized) layout and dequantizing in
// registers: y[r] = dot(W[r, :], x) for r < rows. Same contract as kernels/cpu/matmul.h's matvec_rows (W rows of
// k elements at `w + r * row_bytes`, k a multiple of the type's block size). Pure launcher: no state.
// Supported: F32, F16, BF16, Q8_0, Q4_K. One warp per row; x (f32, k ≤ 16384) is staged in shared memory.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "ref/dtype.h"

namespace ft::kernels::cuda {

struct GemvParams {
    DType type = DType::F32;
    const void* w = nullptr;
    std::size_t row_bytes = 0;
    std::int64_t rows = 0;
    std::int64_t k = 0;
    const float* x = nullptr;  // [k]
    float* y = nullptr;        // [rows]
};

bool gemv_supported(DType type);
// cudaErrorInvalidValue for an unsupported type, k over 16384 or not a whole number of blocks.
cudaError_t gemv(const GemvParams& p, cudaStream_t stream);

}  // namespace ft::kernels::cuda
