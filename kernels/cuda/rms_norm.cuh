// CUDA RMSNorm, f32 in/out, one block per row. Same contract as ref/rms_norm.h. Pure launcher: no state.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

namespace ft::kernels::cuda {

cudaError_t rms_norm_f32(const float* x, const float* w, float* y, std::int64_t n_rows, std::int64_t n_cols, float eps,
                         cudaStream_t stream);

}  // namespace ft::kernels::cuda
