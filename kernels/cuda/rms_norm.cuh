// CUDA RMSNorm, f32 in/out, one block per row. Same contract as ref/rms_norm.h. Pure launcher: no state.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

namespace ft::kernels::cuda {

cudaError_t rms_norm_f32(const float* x, const float* w, float* y, std::int64_t n_rows, std::int64_t n_cols, float eps,
                         cudaStream_t stream);
// The same on rows ldx / ldy floats apart (x == y in place): a norm over part of each row (MiniMax-M2's q and k
// inside the packed q|k|v rows).
cudaError_t rms_norm_rows_f32(const float* x, std::int64_t ldx, const float* w, float* y, std::int64_t ldy,
                              std::int64_t n_rows, std::int64_t n_cols, float eps, cudaStream_t stream);

// LayerNorm with weight and bias, f32, one block per row (GLM-5's indexer keys): y = (x − mean) / sqrt(var + eps) ·
// w + b, the variance about the mean, as torch.nn.LayerNorm (x == y in place).
cudaError_t layer_norm_f32(const float* x, const float* w, const float* b, float* y, std::int64_t n_rows,
                           std::int64_t n_cols, float eps, cudaStream_t stream);

// A MoE block's weighted sum into the residual and the next block's input norm in one launch (a block per token):
// out = moe_combine(y, where, weights, n_tokens, k, cols, out, accumulate = true), then xn = rms_norm_f32(out, w) —
// the same arithmetic and results as the two calls, which it makes instead where a row does not fit its form (cols a
// multiple of 4 up to 16,384, 16-byte aligned rows).
cudaError_t moe_combine_rms_norm(const float* y, const std::int32_t* where, const float* weights, std::int64_t n_tokens,
                                 int k, std::int64_t cols, float* out, const float* w, float eps, float* xn,
                                 cudaStream_t stream);

// A MoE block's input norm and its router in one launch, for few tokens (decode): xn = rms_norm_f32(x, w) as that
// call computes it, and logits[t, r] = Σ_c router[r, c] · xn[t, c] for F32 router rows (stride ld_router floats).
// Blocks over (router rows, tokens) each normalise their token's row (into shared memory); the first of each token
// also writes xn. Requires cols a multiple of 4 up to 16,384 and 16-byte aligned x, w, xn, router rows
// (rms_norm_router_supported); cudaErrorInvalidValue otherwise.
bool rms_norm_router_supported(const float* x, const float* w, const float* router, std::int64_t ld_router,
                               std::int64_t cols, const float* xn);
cudaError_t rms_norm_router_f32(const float* x, const float* w, float eps, std::int64_t n_tokens, std::int64_t cols,
                                const float* router, std::int64_t ld_router, int rows, float* logits, float* xn,
                                cudaStream_t stream);

}  // namespace ft::kernels::cuda
