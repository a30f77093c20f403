// A streaming read of memory at full SIMD width (sum of floats): the probe `ft bench` uses to measure how fast
// this machine's cores can read host memory, the ceiling of the CPU expert kernels.
#pragma once

#include <cstddef>

namespace ft::kernels::cpu {

float sum_f32(const float* p, std::size_t n);

}  // namespace ft::kernels::cpu
