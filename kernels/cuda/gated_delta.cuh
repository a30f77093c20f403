// CUDA Gated DeltaNet kernels (Qwen3-Next / Qwen3.5-MoE linear attention): the contracts of ref/gated_delta.h, in
// f32. Pure launchers: no allocation, no sync. Every pointer is device memory. The decode launchers read each
// token's state index from device memory, so a CUDA graph replays them as the batch's sequences change.
//
// causal_conv1d_silu_decode: one token per sequence: token t (row t of x, stride ldx) steps the conv state
//   states + seq[t]·C·(K-1) of a pool [n_states, C, K-1] (each state as ref: [C, K-1], oldest input first) and
//   writes y[t] (row stride ldy). seq[t] < 0: padding, skipped (state and y untouched); the others distinct.
//   One thread per (token, channel). n_tokens ≤ 65535.
// causal_conv1d_silu_prefill: one sequence's n_tokens on its state [C, K-1]: one thread per (token, channel) for y,
//   then a second launch moves the state on.
// Both: 2 ≤ K ≤ 8.
//
// gated_delta_decode: one token per sequence: token t steps the state states + slot[t]·p.state_size() of a pool
//   [n_states, n_heads, dk, dv]; slot[t] < 0: padding (state and out rows untouched); the others distinct.
// gated_delta_prefill: one sequence's n_tokens on its state [n_heads, dk, dv], in order (the recurrent form).
//   Both: a block of 64 threads takes one sequence, one value head and a slice of 64·32/dk state columns, held in
//   registers (each thread 32 rows of one column; dk/32 threads share a column and sum over shuffles). Per token:
//   δ = b·(v − a·Sᵀk), out = a·Sᵀq + (k·q)·δ from the state before the update, then S = a·S + k·δᵀ. Prefill stages
//   the normalized q and k of 16 tokens at a time in shared memory. dk ∈ {32, 64, 128, 256}, any dv ≥ 1; q, k, v
//   with the row strides of p, g / beta / out packed as in ref.
//
// gated_rms_norm_f32: ref::gated_rms_norm_f32, one warp per row.
// gated_delta_gates: ref::gated_delta_gates_f32 (in float; within rounding), one thread per (token, head).
// gated_delta_reset: for each token t with pos[t] == 0 and slot[t] ≥ 0 (a sequence's first position), zeroes its
//   conv window (conv + slot·conv_floats) and its delta state (delta + slot·delta_floats): the step that starts a
//   sequence starts from an empty history, decided on the device (a captured decode step may start one).
//
// Errors: cudaErrorInvalidValue for sizes outside those ranges, n_heads not a multiple of n_k_heads, or strides
// shorter than a row; otherwise the launch error, if any.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

#include "ref/gated_delta.h"

namespace ft::kernels::cuda {

cudaError_t causal_conv1d_silu_decode(const float* x, std::int64_t ldx, std::int64_t n_tokens, int channels, int kernel,
                                      const float* w, const std::int32_t* seq, float* states, float* y,
                                      std::int64_t ldy, cudaStream_t stream);
cudaError_t causal_conv1d_silu_prefill(const float* x, std::int64_t ldx, std::int64_t n_tokens, int channels,
                                       int kernel, const float* w, float* state, float* y, std::int64_t ldy,
                                       cudaStream_t stream);

cudaError_t gated_delta_decode(const GatedDeltaParams& p, const float* q, const float* k, const float* v,
                               const float* g, const float* beta, std::int64_t n_tokens, const std::int32_t* slot,
                               float* states, float* out, cudaStream_t stream);
cudaError_t gated_delta_prefill(const GatedDeltaParams& p, const float* q, const float* k, const float* v,
                                const float* g, const float* beta, std::int64_t n_tokens, float* state, float* out,
                                cudaStream_t stream);

cudaError_t gated_rms_norm_f32(const float* x, const float* z, const float* w, float* y, std::int64_t n_rows,
                               std::int64_t n_cols, float eps, cudaStream_t stream);

cudaError_t gated_delta_gates(const float* ba, std::int64_t ld, std::int64_t n_tokens, int n_heads, int group,
                              const float* dt_bias, const float* a_neg, float* beta, float* g, cudaStream_t stream);
cudaError_t gated_delta_reset(const std::int32_t* pos, const std::int32_t* slot, std::int64_t n_tokens, float* conv,
                              std::int64_t conv_floats, float* delta, std::int64_t delta_floats, cudaStream_t stream);

}  // namespace ft::kernels::cuda
