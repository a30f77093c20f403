// CUDA causal attention (GQA) over the paged KV cache, layout and semantics exactly ref/attention.h
// (page p holds page_size positions × n_head_kv heads × dim). The cache's elements are f32 or f16
// (DevicePagedKv::type); with f16 every kernel reads the f16 values as they are (f16 → f32 is exact) and computes as
// with f32, so the result equals ref::attention_f32 on the K/V rounded to f16 (within each path's tolerance).
// Pure launchers: no allocation, no sync.
// Row strides (ldq) are in floats; out is packed [n_tokens, n_head, v_head_dim]. Errors: cudaErrorInvalidValue for
// shapes the kernels cannot take (n_head not a multiple of n_head_kv, a head dim over 256, ldq < n_head·head_dim,
// decode: head_dim not a multiple of 16, v_head_dim not a multiple of 4, more than 64 query heads per KV head,
// no or misaligned workspace; a KV type other than F32 or F16); otherwise the launch error, if any. p.sinks, when
// set, is a DEVICE pointer.
//
// attention_prefill: the tokens of ONE sequence at consecutive positions pos0 .. pos0 + n_tokens − 1, whose K/V are
//   already in the cache (page-table row seq_row); q [n_tokens, n_head, head_dim] (row stride ldq),
//   out [n_tokens, n_head, v_head_dim].
//   Fast path when head_dim == v_head_dim ∈ {32, 64, 128, 256} and q, out, k, v are 16-byte aligned with
//   ldq % 4 == 0: flash-attention-2 on tensor cores (mma.sync m16n8k16; Q·scale, K, V, P rounded to FP16 — unit
//   roundoff 2^-11 — with f32 accumulation and softmax). A block of 8 warps takes 128 query rows: Hb query heads of
//   one GQA group (the largest power of two dividing n_head / n_head_kv, at most 8) × 128 / Hb consecutive tokens,
//   so each K/V tile (64 keys; 32 for head_dim 256) is read once for all of them; the next tile is fetched with
//   cp.async while the current one is used. An f32 cache is converted f32 → f16 once per tile in shared memory; an
//   f16 cache is copied into the (double-buffered) f16 tiles directly, with no conversion.
//   Q·scale must fit FP16 (|q·scale| < 65504).
//   Otherwise a plain f32 kernel: one warp per (query, head), keys one at a time with an online softmax.
//   Neither reads page-table entries of positions outside a query tile's [window start, last position].
// attention_prefill_exact: same contract, always the f32 kernel (the engine's exact mode).
// attention_decode: one query token per sequence (n_tokens sequences), positions pos[t] and page-table rows seq[t]
//   read from DEVICE memory (so a CUDA graph replays it as the context grows); requires 0 ≤ pos[t] < max_ctx.
//   Split-K: each token's window [max(0, pos[t] − window + 1), pos[t]] is cut on device into chunks of whole tiles;
//   a block reads its chunk's K and V rows once for up to 8 query heads of one KV head and writes a partial (max,
//   sum, unnormalized output) to the workspace; blocks past the last chunk exit. A second kernel merges the partials
//   (+ the sink) into out. Two partial kernels:
//   - f16 cache, head_dim == v_head_dim ∈ {32, 64, 128, 256}, k / v 16-byte and q 8-byte aligned, ldq even: tensor
//     cores (mma.sync m16n8k16) with q and the probabilities each split into two f16 halves (hi + lo), so the
//     products are f32-accurate (|q·scale| must fit f16, as for prefill); 16-position tiles streamed per warp through
//     a 3-deep cp.async ring; as many chunks per (token, KV head, 8 heads) as fill the device once with blocks,
//     at most min(ceil(max_ctx / kDecodeChunk), 128) — fixed at capture — and at least a tile per warp each.
//   - otherwise (f32 cache, other head dims): f32 arithmetic on CUDA cores, min(ceil(max_ctx / kDecodeChunk), 128)
//     chunks of whole kDecodeChunk-position tiles.
//   workspace: attention_decode_workspace() bytes, 16-byte aligned, no initialization.
//   Launched as a programmatic dependent (launch.cuh), it reads pos, seq, the page tables and the K / V rows of
//   positions before pos[t] before its wait: the kernel launched just before it may write the rows at pos[t]
//   (the KV write of this step) and q, nothing else it reads.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "ref/attention.h"
#include "ref/dtype.h"

namespace ft::kernels::cuda {

constexpr int kDecodeChunk = 64;  // the f32 decode kernel's tile (positions); sizes the workspace's chunk count

struct DevicePagedKv {
    const void* k = nullptr;  // elements of `type`
    const void* v = nullptr;
    const std::int32_t* page_tables = nullptr;  // [n_seq_rows, pages_stride]
    int pages_stride = 0;
    DType type = DType::F32;  // F32 or F16
};

// head_dim, v_head_dim ≤ 256 (multiples of 16 for the fast paths); n_head a multiple of n_head_kv.
cudaError_t attention_prefill(const AttentionParams& p, const float* q, std::int64_t ldq, std::int64_t n_tokens,
                              std::int64_t pos0, int seq_row, const DevicePagedKv& kv, float* out, cudaStream_t stream);
cudaError_t attention_prefill_exact(const AttentionParams& p, const float* q, std::int64_t ldq, std::int64_t n_tokens,
                                    std::int64_t pos0, int seq_row, const DevicePagedKv& kv, float* out,
                                    cudaStream_t stream);

std::size_t attention_decode_workspace(const AttentionParams& p, std::int64_t n_tokens, std::int64_t max_ctx);
cudaError_t attention_decode(const AttentionParams& p, const float* q, std::int64_t ldq, std::int64_t n_tokens,
                             const std::int32_t* pos, const std::int32_t* seq, std::int64_t max_ctx,
                             const DevicePagedKv& kv, float* out, void* workspace, cudaStream_t stream);

}  // namespace ft::kernels::cuda
