// Scalar reference: SwiGLU activation y[i] = silu(g[i]) · u[i], silu(x) = x / (1 + e^-x), for n elements.
// limit > 0 (gpt-oss): g is clamped to at most limit and u to [-limit, limit] first, and the gate uses
// x·sigmoid(alpha·x) with alpha = 1.702 and y = silu_a(g) · (u + 1).
#pragma once

#include <cstdint>

namespace ft::kernels::ref {

void swiglu_f32(const float* g, const float* u, float* y, std::int64_t n, float limit = 0.f);

}  // namespace ft::kernels::ref
