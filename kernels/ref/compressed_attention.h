// Scalar reference: DeepSeek-V4's compressed attention pieces (model/graph.h CompressedAttentionBlock).
//   compress_entry_f32: one compressed entry, out[c] = Σ_s softmax_s(gate[s][c]) · kv[s][c] over the window's
//                       slots (gate with its position bias already added; a softmax per channel).
//   index_topk_f32:     the lightning indexer's pick: of n entries, the topk best by Σ_h w[h] · relu(q[h] · key) ·
//                       scale; ties go to the lower entry; ids ascending.
//   shared_kv_attention_f32: attention of one token's heads over rows that are key and value at once (shared-KV
//                       MQA), with a sink logit per head in the softmax: out[h] = Σ_r p_r · row_r,
//                       p = softmax([scale · q[h] · row_r]_r, sink[h]) without the sink's share.
#pragma once

#include <cstdint>

namespace ft::kernels::ref {

// kv, gate: n_slots rows of dim values at stride ld.
void compress_entry_f32(const float* kv, const float* gate, int n_slots, int dim, std::int64_t ld, float* out);
// q [n_heads, dim], w [n_heads]; keys[e]: dim values. Writes min(topk, n) ids to out; returns that count.
int index_topk_f32(const float* q, const float* w, int n_heads, int dim, float scale, const float* const* keys, int n,
                   int topk, std::int32_t* out);
// The pick alone, from the n scores: the topk best (ties to the lower entry), ids ascending; returns the count.
int index_select(const double* score, int n, int topk, std::int32_t* out);
// q [n_heads, dim], sinks [n_heads] (null: none), rows[r]: dim values; out [n_heads, dim].
void shared_kv_attention_f32(const float* q, int n_heads, int dim, float scale, const float* sinks,
                             const float* const* rows, int n_rows, float* out);

}  // namespace ft::kernels::ref
