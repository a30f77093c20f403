// SIMD RMSNorm (Highway, runtime dispatch to the best ISA of this CPU). Same contract as ref/rms_norm.h.
#pragma once

#include <cstdint>

namespace ft::kernels::cpu {

void rms_norm_f32(const float* x, const float* w, float* y, std::int64_t n_rows, std::int64_t n_cols, float eps);

}  // namespace ft::kernels::cpu
