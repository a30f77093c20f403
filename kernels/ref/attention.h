// Causal multi-head attention (GQA) of query tokens over a paged KV cache. Scalar reference.
//
// Cache layout (one layer): page p holds page_size consecutive positions, each with n_head_kv heads:
//   k[((p * page_size + slot) * n_head_kv + h) * head_dim + d], v likewise with v_head_dim.
// page_table[j / page_size] is the page of position j. Query token t at position pos[t] attends to positions
// max(0, pos[t] - window + 1) .. pos[t] (window 0: all), which must already be in the cache.
// q: [n_tokens, n_head, head_dim]; out: [n_tokens, n_head, v_head_dim]. Query head h reads KV head
// h / (n_head / n_head_kv). sinks (optional, n_head values): an extra logit per head in the softmax denominator
// (gpt-oss). Work is split by task = t * n_head + h, for tasks [task_begin, task_end).
#pragma once

#include <cstdint>

namespace ft::kernels {

struct AttentionParams {
    int n_head = 0, n_head_kv = 0, head_dim = 0, v_head_dim = 0;
    int page_size = 0;
    float scale = 1.f;        // usually 1/sqrt(head_dim)
    int window = 0;           // sliding window in positions (0: none)
    const float* sinks = nullptr;
};

struct PagedKvView {
    const float* k = nullptr;
    const float* v = nullptr;
    const std::int32_t* page_table = nullptr;
};

}  // namespace ft::kernels

namespace ft::kernels::ref {

void attention_f32(const AttentionParams& p, const float* q, const std::int32_t* pos, const PagedKvView& kv,
                   float* out, std::int64_t task_begin, std::int64_t task_end);

}  // namespace ft::kernels::ref
