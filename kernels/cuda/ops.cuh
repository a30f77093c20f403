// Element-wise and small per-token CUDA ops of the decoder forward pass. Each is checked against kernels/ref.
// Pure launchers. Shapes are row-major; every pointer is device memory.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "ref/dtype.h"
#include "ref/moe_router.h"
#include "ref/rope.h"

namespace ft::kernels::cuda {

// Embedding lookup: y[t, :] = dequantized row ids[t] of table [n_rows, cols] (any dequantize_supported type:
// F32, F16, BF16, Q8_0, Q4_K, Q5_K, Q6_K and quant_decode.cuh's decode-only types), bit-identical to
// ref::dequantize_row. ids[t] < 0 gives a zero row (padding);
// ids ≥ n_rows are the caller's bug (not checked: the table's row count is not passed).
cudaError_t embed_rows(DType type, const void* table, std::size_t row_bytes, std::int64_t cols, const std::int32_t* ids,
                       std::int64_t n_tokens, float* y, cudaStream_t stream);

// RoPE in place on x [n_tokens, n_heads, head_dim] with row stride ld (floats between tokens; 0: n_heads*head_dim);
// positions pos[n_tokens] on the device. Angles as ref::rope_f32: pos · θ^(-2i/n_rot) (and the YaRN mix) in double —
// at position 4e4 a float angle would be 4e-3 rad off — reduced mod 2π in double; sin/cos of the reduced angle in
// float (~1e-7 absolute). n_rot ≤ 1024; ext_factor ≠ 0 needs orig_ctx > 0.
cudaError_t rope_f32(const RopeParams& p, float* x, std::int64_t n_tokens, int n_heads, std::int64_t ld,
                     const std::int32_t* pos, cudaStream_t stream);

// Decode-step fusion: per head of q [n_tokens, n_q_heads, head_dim] (row stride ldq) and k (ldk), RMSNorm over the
// head with weights q_norm / k_norm (nullptr: no norm for those heads), then RoPE as rope_f32 — equal to rms_norm_f32 per head followed
// by rope_f32 on q and on k.
cudaError_t qk_norm_rope(const RopeParams& p, float* q, std::int64_t ldq, int n_q_heads, float* k, std::int64_t ldk,
                         int n_k_heads, const float* q_norm, const float* k_norm, float eps, std::int64_t n_tokens,
                         const std::int32_t* pos, cudaStream_t stream);

// y = x + y (n floats).
cudaError_t add_f32(const float* x, float* y, std::int64_t n, cudaStream_t stream);
// y[r, c] += bias[c] for rows × cols, y with row stride ldy (0: cols).
cudaError_t add_bias_f32(float* y, std::int64_t ldy, const float* bias, std::int64_t rows, std::int64_t cols,
                         cudaStream_t stream);
// y = swiglu(g, u) (ref/swiglu.h); y may alias g.
cudaError_t swiglu_f32(const float* g, const float* u, float* y, std::int64_t n, float limit, cudaStream_t stream);

// Router: logits [n_tokens, n_expert] → ids / weights [n_tokens, k], exactly ref::moe_route per token (ties to the
// lower id, ordered by decreasing score). p.bias is a device pointer here. n_expert ≤ 1024, k ≤ 32 (≤ n_expert);
// grouped top-k needs n_group ≤ 32 dividing n_expert. One warp per token; sigmoid scores in double as the reference,
// so the choice matches it exactly; weights within float rounding. NaN logits give unspecified choices.
cudaError_t moe_route(const RouterParams& p, const float* logits, std::int64_t n_tokens, std::int32_t* ids,
                      float* weights, cudaStream_t stream);
// The weights of the k experts table[tokens[t]] (a [n_vocab, k] i32 table) for each token: ref::moe_route_fixed.
cudaError_t moe_route_fixed(const RouterParams& p, const float* logits, const std::int32_t* tokens,
                            const std::int32_t* table, std::int64_t n_tokens, std::int32_t* ids, float* weights,
                            cudaStream_t stream);

// Prefill grouping of (token, choice) pairs by expert. pairs = n_tokens * k with ids [pairs]. Outputs:
// offsets [n_expert + 1] (exclusive prefix sum of the per-expert counts), order [pairs] (pair indices sorted by
// expert, stable: ascending pair index inside an expert), where [pairs] (inverse: where[order[i]] = i).
// Deterministic. Ids outside [0, n_expert) are an error: they are counted nowhere and order gets -1 there
// (the kernel never writes out of bounds), and where[p] = -1 for them. n_expert ≤ 4096. One block (counting sort
// with warp-level ranking); pairs ≤ 2^31 - 1.
cudaError_t moe_group(const std::int32_t* ids, std::int64_t pairs, int n_expert, std::int32_t* offsets,
                      std::int32_t* order, std::int32_t* where, cudaStream_t stream);
// out[i, :] = x[order[i] / k, :] for i < pairs (gather token rows in expert order); cols floats per row.
// order[i] < 0 gives a zero row.
cudaError_t gather_rows(const float* x, std::int64_t cols, const std::int32_t* order, int k, std::int64_t pairs,
                        float* out, cudaStream_t stream);
// out[t, :] (+)= Σ_{j<k} weights[t*k + j] · y[row(t*k + j), :], j ascending; row(p) = where ? where[p] : p.
// accumulate: add into out (the residual) instead of overwriting. Exact order: s = 0; for j: s = fma(w, y, s);
// out = accumulate ? out + s : s. where[p] < 0 (a pair counted nowhere) contributes nothing.
cudaError_t moe_combine(const float* y, const std::int32_t* where, const float* weights, std::int64_t n_tokens, int k,
                        std::int64_t cols, float* out, bool accumulate, cudaStream_t stream);

// Paged KV write: for token t, K row k[t, n_head_kv*head_dim] (row stride ldk) and V row likewise go to position
// pos[t] of sequence seq[t]: page = page_tables[seq[t] * pages_stride + pos[t] / page_size], layout as
// ref/attention.h (per page: page_size positions × n_head_kv heads × dim). ldk/ldv 0: dense rows. Tokens with
// pos < 0, seq < 0 or an unmapped page (page < 0) are skipped (padding). The caches hold elements of p.type: F32
// (copied) or F16 (rounded to nearest even, as ref::f32_to_f16: overflow to ±inf, NaN stays NaN); another type is
// cudaErrorInvalidValue.
struct KvWriteParams {
    int n_head_kv = 0, head_dim = 0, v_head_dim = 0, page_size = 0;
    const std::int32_t* page_tables = nullptr;
    int pages_stride = 0;
    DType type = DType::F32;  // element type of k_cache / v_cache
};
cudaError_t kv_write(const KvWriteParams& p, const float* k, std::int64_t ldk, const float* v, std::int64_t ldv,
                     const std::int32_t* pos, const std::int32_t* seq, std::int64_t n_tokens, void* k_cache,
                     void* v_cache, cudaStream_t stream);
// qk_norm_rope on q and the kw.n_head_kv heads of k, then kv_write of each token's rotated K and its V row, in one
// launch (a block per token): the same results as the two calls.
cudaError_t qk_norm_rope_kv_write(const RopeParams& p, float* q, std::int64_t ldq, int n_q_heads, float* k,
                                  std::int64_t ldk, const float* q_norm, const float* k_norm, float eps,
                                  std::int64_t n_tokens, const std::int32_t* pos, const KvWriteParams& kw,
                                  const float* v, std::int64_t ldv, const std::int32_t* seq, void* k_cache,
                                  void* v_cache, cudaStream_t stream);

// Gated attention (Qwen3.5, Qwen3-Next). split_head_halves: each token's row (stride ld) holds n_heads heads of
// [first (head_dim) | second (head_dim)]; in place it becomes [every head's first half | every head's second half]
// (the query heads, then the gates). 2 · n_heads · head_dim ≤ 24576 (the row in shared memory, 96 KiB). mul_sigmoid_f32: y[r, c] *= sigmoid(gate[r, c])
// for rows × cols (row strides ldy, ldg). scale_rows_sigmoid_f32: y[r, c] *= sigmoid(logit[r]) (the shared
// expert's gate).
cudaError_t split_head_halves(float* x, std::int64_t ld, std::int64_t n_tokens, int n_heads, int head_dim,
                              cudaStream_t stream);
cudaError_t mul_sigmoid_f32(float* y, std::int64_t ldy, const float* gate, std::int64_t ldg, std::int64_t rows,
                            std::int64_t cols, cudaStream_t stream);
cudaError_t scale_rows_sigmoid_f32(float* y, std::int64_t ldy, std::int64_t cols, const float* logit, std::int64_t rows,
                                   cudaStream_t stream);
// Greedy sampling: out[t] = argmax of row t of x [n_rows, n] (ties → lowest index); NaN never wins (an all-NaN row
// gives 0). One block per row.
cudaError_t argmax_rows(const float* x, std::int64_t n_rows, std::int64_t n, std::int32_t* out, cudaStream_t stream);

}  // namespace ft::kernels::cuda
