// SIMD SwiGLU (Highway, vectorized exp). Same contract as ref/swiglu.h.
#pragma once

#include <cstdint>

namespace ft::kernels::cpu {

void swiglu_f32(const float* g, const float* u, float* y, std::int64_t n, float limit = 0.f);

}  // namespace ft::kernels::cpu
