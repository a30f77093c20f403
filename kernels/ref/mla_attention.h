// Multi-head latent attention (DeepSeek-V2/V3 MLA) in its absorbed form, over a paged latent cache. Scalar
// reference.
//
// Each cached position holds one row of kv_dim = kv_lora + rope_dim floats: the normalized latent c (kv_lora) then
// the rotated key part shared by all heads, k_pe (rope_dim). Query head h of token t is already absorbed:
// q[t, h] = [W_UKᵀ·q_nope (kv_lora) ; rope(q_pe) (rope_dim)]. Its logit for position j is scale · (q[t, h] · row_j)
// and its output the softmax-weighted sum of the rows' latent parts (the value is the latent, W_UV comes after):
//   out[t, h, :] = Σ_{j ≤ pos[t]} softmax_j(scale · q[t, h] · row_j) · row_j[0 : kv_lora]
// Layout: the row of position j is at kv + (page_table[j / page_size] * page_size + j % page_size) * kv_dim.
// q: [n_tokens, n_head, kv_dim]; out: [n_tokens, n_head, kv_lora]. Causal: token t reads positions 0 .. pos[t],
// which must be in the cache. Work is split by task = t * n_head + h, for tasks [task_begin, task_end).
//
// mla_kv_row: the row one token writes: c = RMSNorm(kva[0 : kv_lora]) · norm_w, then kva[kv_lora : kv_dim] (its
// k_pe, already rotated) copied: row = [c ; k_pe].
#pragma once

#include <cstdint>

namespace ft::kernels {

struct MlaParams {
    int n_head = 0;
    int kv_lora = 0;     // latent width (DeepSeek-V3: 512)
    int rope_dim = 0;    // rotated key part (64)
    int page_size = 0;
    float scale = 1.f;   // 1/sqrt(nope + rope_dim), times YaRN's mscale² where the model says so
    int kv_dim() const { return kv_lora + rope_dim; }
};

}  // namespace ft::kernels

namespace ft::kernels::ref {

void mla_attention_f32(const MlaParams& p, const float* q, const std::int32_t* pos, const float* kv,
                       const std::int32_t* page_table, float* out, std::int64_t task_begin, std::int64_t task_end);

void mla_kv_row(const MlaParams& p, const float* kva, const float* norm_w, float eps, float* row);

}  // namespace ft::kernels::ref
