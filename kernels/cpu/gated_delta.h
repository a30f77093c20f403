// SIMD Gated DeltaNet kernels (Highway, runtime dispatch): the contracts of ref/gated_delta.h, in f32.
//
// causal_conv1d_silu_f32, gated_rms_norm_f32: as the reference (SIMD over channels / columns).
// gated_delta_prefill_f32: one sequence's n_tokens on its state [n_heads, dk, dv], heads [head_begin, head_end)
//   (the task split). The recurrent form: the state's columns are independent, so a strip of 4 vectors of columns
//   stays in L1 over a block of 64 tokens; out = a·Sᵀq + (k·q)·δ comes from the state before the update, so a token
//   costs one pass over the strip (the update fused with the next token's Sᵀk and Sᵀq). On one core of the 2-core
//   Zen 5 (AVX3), 32 heads of 128/128, T = 1024: 34 µs per token, against 44 µs for a Highway version of the chunked
//   form (ref::gated_delta_chunked_f32), which needs 1.4× the flops at this size.
// gated_delta_decode_f32: one token per sequence: token t steps the state states + slot[t]·state_size() (slots
//   distinct; slot[t] < 0: padding, its state and output untouched). Tasks n_tokens · n_heads, task = t · n_heads + h,
//   for tasks [task_begin, task_end).
#pragma once

#include "ref/gated_delta.h"

namespace ft::kernels::cpu {

void causal_conv1d_silu_f32(const float* x, std::int64_t ldx, std::int64_t n_tokens, int channels, int kernel,
                            const float* w, float* state, float* y, std::int64_t ldy);

void gated_delta_prefill_f32(const GatedDeltaParams& p, const float* q, const float* k, const float* v, const float* g,
                             const float* beta, std::int64_t n_tokens, float* state, float* out, int head_begin,
                             int head_end);
void gated_delta_decode_f32(const GatedDeltaParams& p, const float* q, const float* k, const float* v, const float* g,
                            const float* beta, const std::int32_t* slot, float* states, float* out,
                            std::int64_t task_begin, std::int64_t task_end);

void gated_rms_norm_f32(const float* x, const float* z, const float* w, float* y, std::int64_t n_rows,
                        std::int64_t n_cols, float eps);

}  // namespace ft::kernels::cpu
