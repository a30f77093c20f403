// SIMD causal GQA attention over a paged KV cache (online softmax, one pass). Same contract as ref/attention.h.
#pragma once

#include "ref/attention.h"

namespace ft::kernels::cpu {

void attention_f32(const AttentionParams& p, const float* q, const std::int32_t* pos, const PagedKvView& kv,
                   float* out, std::int64_t task_begin, std::int64_t task_end);

}  // namespace ft::kernels::cpu
