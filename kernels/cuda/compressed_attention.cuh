// CUDA kernels of compressed attention (model/graph.h CompressedAttentionBlock): the contracts of
// ref/compressed_attention.h on the layouts the GPU runner keeps. Pure launchers: no allocation, no sync; every
// pointer is device memory; token metadata (positions, state slots, page-table rows) is read on the device, so a CUDA
// graph replays them as contexts grow.
//
// The cache of a CompressedAttentionBlock layer (f32 rows of row_width: [kv | entry | index key], paged as the
// KV cache: position p of page-table row r at pages[r·pages_stride + p / page_size] · page_size + p % page_size):
//   interleaved_rope:      RoPE (interleaved pairs, as ref::rope_f32 with neox = false) on the dims [offset,
//                          offset + n_rot) of each head (stride head_stride) of x [T, ld], at position sign · pos[t]
//                          (sign -1: the conjugate rotation).
//   compressed_kv_write:   row[0, dim) of position pos[t] = kv[t] (tokens with pos < 0 or an unmapped page are
//                          skipped).
//   compressor_update:     the compressor of one layer: per block a run of seg_len consecutive tokens of one sequence
//                          from token seg_begin + blockIdx.x · seg_len, in position order: each token's projections
//                          into its sequence's window ring (state pool slot[t]), and when its window closes the entry
//                          (and for CSA the index key), written into the row of the window's last position
//                          (ref::compress_entry_f32, the norm, RoPE at the window's first position).
//   compressed_index_topk: per token the indexer's pick among its closed entries (ref::index_topk_f32; ids
//                          ascending, count[t] of them): the scores by blocks of 256 entries (the token's q,
//                          n_heads · dim ≤ 12288 floats, in shared memory) into workspace [T, max_entries] floats,
//                          then a block per token picks.
//   compressed_attention:  per (token, head) shared-KV attention (ref::shared_kv_attention_f32) over the window's rows
//                          and the entries (HCA: every closed one; CSA: the indexer's pick), with the sinks.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

#include "ref/dtype.h"
#include "ref/rope.h"

namespace ft::kernels::cuda {

struct CompressedCache {
    void* rows = nullptr;                       // elements of `type`, row_width per position
    const std::int32_t* page_tables = nullptr;  // [rows, pages_stride]
    int pages_stride = 0, page_size = 16, row_width = 0;
    // F32, or F16 for compressed_kv_write and compressed_index_topk alone (GLM-5's index keys in an f16 cache:
    // written rounded to nearest even, widened as read); the compressor and the attention take F32 rows only.
    DType type = DType::F32;
};

cudaError_t interleaved_rope(const RopeParams& p, float* x, std::int64_t ld, std::int64_t n_tokens, int n_heads,
                             int head_stride, int offset, const std::int32_t* pos, int sign, cudaStream_t stream);
cudaError_t compressed_kv_write(const float* kv, std::int64_t ldkv, int dim, const std::int32_t* pos,
                                const std::int32_t* row, std::int64_t n_tokens, const CompressedCache& cache,
                                cudaStream_t stream);

struct CompressorArgs {
    bool csa = false;
    int ratio = 0, dim = 0, idx_dim = 0, rope_dim = 0;
    const float* ck = nullptr;  // [T, width] width = dim (hca) or 2·dim (csa)
    const float* cg = nullptr;
    const float* ik = nullptr;  // csa: [T, 2·idx_dim]
    const float* ig = nullptr;
    const float* bias = nullptr;      // [ratio, width]
    const float* idx_bias = nullptr;  // [ratio, 2·idx_dim]
    const float* norm = nullptr;      // [dim]
    const float* idx_norm = nullptr;  // [idx_dim]
    float eps = 1e-6f;
    RopeParams rope;                  // of the entries (n_rot = rope_dim)
    float* state = nullptr;           // the layer's ring pool: slots of state_floats
    std::int64_t state_floats = 0;
};
cudaError_t compressor_update(const CompressorArgs& a, const std::int32_t* pos, const std::int32_t* slot,
                              const std::int32_t* row, std::int64_t seg_begin, std::int64_t seg_len,
                              std::int64_t n_segs, const CompressedCache& cache, cudaStream_t stream);

std::size_t compressed_index_workspace(std::int64_t n_tokens, std::int64_t max_entries);
// The index keys at row offset key_offset (the layer's 2 · head_dim).
cudaError_t compressed_index_topk(const float* q, const float* w, int n_heads, int dim, float scale, int ratio,
                                  int topk, int key_offset, const std::int32_t* pos, const std::int32_t* row,
                                  std::int64_t n_tokens, std::int64_t max_entries, const CompressedCache& cache,
                                  std::int32_t* ids, std::int32_t* count, void* workspace, cudaStream_t stream);

struct CompressedAttentionArgs {
    int n_head = 0, dim = 0, window = 0, ratio = 0, topk = 0;
    bool csa = false, hca = false;
    float scale = 1.f;
    const float* sinks = nullptr;
    const std::int32_t* ids = nullptr;    // csa: [T, topk] the picks, count[T] of them
    const std::int32_t* count = nullptr;
};
cudaError_t compressed_attention(const CompressedAttentionArgs& a, const float* q, const std::int32_t* pos,
                                 const std::int32_t* row, std::int64_t n_tokens, const CompressedCache& cache,
                                 float* out, cudaStream_t stream);

}  // namespace ft::kernels::cuda
