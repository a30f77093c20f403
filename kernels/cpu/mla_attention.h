// SIMD multi-head latent attention (absorbed form) over a paged latent cache: the contract of ref/mla_attention.h,
// with work split by token and block of kMlaHeads query heads (every head of a block reads each cached row once).
// Online softmax in f32.
#pragma once

#include "ref/mla_attention.h"

namespace ft::kernels::cpu {

constexpr int kMlaHeads = 8;

// Tasks: n_tokens · ceil(n_head / kMlaHeads); task = t · blocks + b covers heads [b · kMlaHeads, …).
std::int64_t mla_attention_tasks(const MlaParams& p, std::int64_t n_tokens);
void mla_attention_f32(const MlaParams& p, const float* q, const std::int32_t* pos, const float* kv,
                       const std::int32_t* page_table, float* out, std::int64_t task_begin, std::int64_t task_end);

}  // namespace ft::kernels::cpu
