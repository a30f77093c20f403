// SIMD versions (Highway, runtime dispatch) of DeepSeek-V4's two hot attention ops: the contracts of
// ref/compressed_attention.h (index_topk_f32: the same pick, ref::index_select, from scores taken with SIMD dot
// products in f32; shared_kv_attention_f32: the same softmax with the sinks, SIMD dot products and accumulation).
#pragma once

#include <cstdint>

namespace ft::kernels::cpu {

int index_topk_f32(const float* q, const float* w, int n_heads, int dim, float scale, const float* const* keys, int n,
                   int topk, std::int32_t* out);
void shared_kv_attention_f32(const float* q, int n_heads, int dim, float scale, const float* sinks,
                             const float* const* rows, int n_rows, float* out);

}  // namespace ft::kernels::cpu
