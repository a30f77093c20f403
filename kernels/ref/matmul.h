// Scalar reference: C[m, n] = sum_k A[m, k] * B[n, k]  (row-major A [m, k]; B stored as [n, k], i.e. weights
// laid out like GGUF/llama.cpp matrices, one row per output). Accumulates in double.
#pragma once

#include <cstdint>

namespace ft::kernels::ref {

void matmul_f32(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n, std::int64_t k);

}  // namespace ft::kernels::ref
