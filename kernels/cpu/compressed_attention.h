// SIMD versions (Highway, runtime dispatch) of DeepSeek-V4's ops: the contracts of ref/compressed_attention.h
// (index_topk_f32: the same pick, ref::index_select, from scores taken with SIMD dot products in f32;
// shared_kv_attention_f32: the same softmax with the sinks, SIMD dot products and accumulation; compress_entry_f32:
// the per-channel softmax across the lanes) and of ref/hyper_connection.h's collapse and expand (the weights,
// a few dozen scalars per token with the Sinkhorn iterations, stay ref::hc_weights).
#pragma once

#include <cstdint>

namespace ft::kernels::cpu {

int index_topk_f32(const float* q, const float* w, int n_heads, int dim, float scale, const float* const* keys, int n,
                   int topk, std::int32_t* out);
void shared_kv_attention_f32(const float* q, int n_heads, int dim, float scale, const float* sinks,
                             const float* const* rows, int n_rows, float* out);

void compress_entry_f32(const float* kv, const float* gate, int n_slots, int dim, std::int64_t ld, float* out);
void hc_collapse(int n, std::int64_t d, const float* pre, const float* x, float* out);
void hc_expand(int n, std::int64_t d, const float* post, const float* comb, const float* y, float* x);

}  // namespace ft::kernels::cpu
