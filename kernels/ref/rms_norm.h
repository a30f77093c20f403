// Scalar reference: RMSNorm over the last dimension. y[r, :] = x[r, :] / sqrt(mean(x[r, :]^2) + eps) * w[:]
#pragma once

#include <cstdint>

namespace ft::kernels::ref {

void rms_norm_f32(const float* x, const float* w, float* y, std::int64_t n_rows, std::int64_t n_cols, float eps);

}  // namespace ft::kernels::ref
