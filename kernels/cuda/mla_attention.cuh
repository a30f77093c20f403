// CUDA multi-head latent attention (DeepSeek MLA, absorbed form) over the paged latent cache: the contract of
// ref/mla_attention.h. The cache's rows are f32 or f16 (widened exactly as they are read; f16 rows are the f32 ones
// rounded to nearest even by mla_kv_write). Pure launchers: no allocation, no sync. Every pointer is device memory.
//
// mla_attention: q [n_tokens, n_head, kv_dim] (packed), positions pos[t] and page-table rows seq[t] on the device
//   (so a CUDA graph replays it as the context grows), out [n_tokens, n_head, kv_lora]. A block of 8 warps takes
//   one token, 8 query heads (one warp each) and a run of positions; each 16-row tile of the cache is read into
//   shared memory once for the 8 heads; f32 online softmax. max_ctx = 0: one run over all positions per
//   (token, head block), written normalized (prefill: many tokens give the parallelism). max_ctx > 0 (decode):
//   the positions of each token are cut on the device into mla_decode_splits(max_ctx) runs of whole tiles, fixed
//   at capture; each writes a partial (max, sum, unnormalized output) to the workspace and a second kernel merges
//   them. workspace: mla_attention_workspace() bytes, 16-byte aligned (none when max_ctx = 0).
//   picks (sparse attention, GLM-5's indexer): token t reads only the count[t] positions ids[t·topk ..] (ascending),
//   as the reference reads those rows gathered in that order; a token with pos < 0 reads none.
// mla_kv_write: for token t, the row ref::mla_kv_row(kva[t]) (row stride ldkva) at position pos[t] of page-table row
//   seq[t]; tokens with pos < 0, seq < 0 or an unmapped page are skipped.
// Errors: cudaErrorInvalidValue for kv_lora not a multiple of 32 or an odd rope_dim, kv_lora > 512, kv_dim > 640,
// n_head < 1, a cache type other than F32/F16, a missing workspace; otherwise the launch error, if any.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "ref/dtype.h"
#include "ref/mla_attention.h"

namespace ft::kernels::cuda {

struct DeviceMlaCache {
    void* rows = nullptr;                       // elements of `type`, kv_dim per position
    const std::int32_t* page_tables = nullptr;  // [rows, pages_stride]
    int pages_stride = 0;
    DType type = DType::F32;
};

struct MlaPicks {
    const std::int32_t* ids = nullptr;    // [n_tokens, topk]; null: every position 0 .. pos[t]
    const std::int32_t* count = nullptr;  // [n_tokens]
    int topk = 0;
};

int mla_decode_splits(std::int64_t max_ctx);
std::size_t mla_attention_workspace(const MlaParams& p, std::int64_t n_tokens, std::int64_t max_ctx);
cudaError_t mla_attention(const MlaParams& p, const float* q, std::int64_t n_tokens, const std::int32_t* pos,
                          const std::int32_t* seq, std::int64_t max_ctx, const DeviceMlaCache& cache, float* out,
                          void* workspace, cudaStream_t stream, const MlaPicks& picks = {});
cudaError_t mla_kv_write(const MlaParams& p, const float* kva, std::int64_t ldkva, const float* norm_w, float eps,
                         const std::int32_t* pos, const std::int32_t* seq, std::int64_t n_tokens,
                         const DeviceMlaCache& cache, cudaStream_t stream);

}  // namespace ft::kernels::cuda
