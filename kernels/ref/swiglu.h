// Scalar reference: SwiGLU activation y[i] = silu(g[i]) · u[i], silu(x) = x / (1 + e^-x), for n elements.
// limit > 0 (gpt-oss): g is clamped to at most limit and u to [-limit, limit] first, and the gate uses
// x·sigmoid(alpha·x) with alpha = 1.702 and y = silu_a(g) · (u + 1).
// limit < 0 (DeepSeek-V4): g clamped to at most -limit and u to [limit, -limit], y = silu(g) · u.
#pragma once

#include <cstdint>

namespace ft::kernels::ref {

void swiglu_f32(const float* g, const float* u, float* y, std::int64_t n, float limit = 0.f);

}  // namespace ft::kernels::ref
