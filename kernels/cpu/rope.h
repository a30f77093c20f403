// RoPE on the CPU: cos/sin computed once per token (shared by all heads), then applied to every head. Same contract
// as ref/rope.h; scalar loops over pairs (the angle computation dominates and is shared).
#pragma once

#include "ref/rope.h"

namespace ft::kernels::cpu {

void rope_f32(const RopeParams& p, float* x, std::int64_t n_tokens, int n_heads, const std::int32_t* pos);

}  // namespace ft::kernels::cpu
