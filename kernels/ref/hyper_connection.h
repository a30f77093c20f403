// Scalar reference: manifold-constrained hyper-connections (DeepSeek-V4; Xie et al., 2026). The residual of a token
// is n streams X[n, d]. A block's mixer gives, from mix = fn · (X flattened / rms) ((2 + n)·n values):
//   pre[j]   = sigmoid(mix[j] · scale[0] + base[j]) + eps                       (collapse: block input Σ_j pre_j X_j)
//   post[k]  = 2 · sigmoid(mix[n + k] · scale[1] + base[n + k])                 (expand: the block output into k)
//   comb     = softmax over each row of (mix[2n + j·n + k] · scale[2] + base[…]) + eps, then made doubly stochastic
//              by Sinkhorn-Knopp: columns normalized, then (iters - 1) × (rows, then columns), each sum + eps
//   X'[k]    = post[k] · y + Σ_j comb[j][k] · X[j]                               (y: the block's output)
// The output head's mixer (n values) gives pre only: sigmoid(mix[j] · scale[0] + base[j]) + eps.
#pragma once

#include <cstdint>

namespace ft::kernels {

struct HyperParams {
    int n = 0;               // streams
    int sinkhorn_iters = 20;
    float eps = 1e-6f;
};

}  // namespace ft::kernels

namespace ft::kernels::ref {

// pre[n], post[n], comb[n·n] (row j, column k) of one token from its mix[(2 + n)·n].
void hc_weights(const HyperParams& p, const float* mix, const float* scale, const float* base, float* pre, float* post,
                float* comb);
// The head's pre[n] from mix[n].
void hc_head_weights(const HyperParams& p, const float* mix, const float* scale, const float* base, float* pre);
// out[d] = Σ_j pre[j] · x[j·d + i]
void hc_collapse(int n, std::int64_t d, const float* pre, const float* x, float* out);
// x[k·d + i] ← post[k] · y[i] + Σ_j comb[j·n + k] · x[j·d + i], in place.
void hc_expand(int n, std::int64_t d, const float* post, const float* comb, const float* y, float* x);

}  // namespace ft::kernels::ref
