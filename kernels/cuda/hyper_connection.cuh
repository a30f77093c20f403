// CUDA kernels of hyper-connections (model/graph.h Block::hc, ModelGraph::hc_mult): the contracts of
// ref/hyper_connection.h on the layouts the GPU runner keeps. Pure launchers: no allocation, no sync; every pointer is
// device memory.
//
// Hyper-connections (N streams of n_embd per token, x [T, N·n_embd]):
//   hc_pre:  from mix [T, mix_ld] (the mixer's projection of the RMS-normalised streams) the block weights of
//            ref::hc_weights (head = false: pre, post [T, N] and comb [T, N·N] written) or ref::hc_head_weights
//            (head = true: pre only), and the collapsed input out [T, n_embd] = Σ_j pre_j x_j. One block per token.
//   hc_post: x[t][k] ← post[t][k] · y[t] + Σ_j comb[t][j][k] · x[t][j], in place.
//   hc_spread: x[t][j] = e[t] for every stream j (the embedding into the streams).
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

namespace ft::kernels::cuda {

cudaError_t hc_pre(const float* mix, std::int64_t mix_ld, const float* scale, const float* base, const float* x, int n,
                   std::int64_t n_embd, int sinkhorn_iters, float eps, bool head, std::int64_t n_tokens, float* out,
                   float* post, float* comb, cudaStream_t stream);
cudaError_t hc_post(const float* post, const float* comb, const float* y, int n, std::int64_t n_embd,
                    std::int64_t n_tokens, float* x, cudaStream_t stream);
cudaError_t hc_spread(const float* e, int n, std::int64_t n_embd, std::int64_t n_tokens, float* x, cudaStream_t stream);

}  // namespace ft::kernels::cuda
