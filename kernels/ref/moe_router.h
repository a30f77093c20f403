// MoE routing: from router logits [n_expert] of one token to k (expert id, weight) pairs.
//   softmax:        p = softmax(logits); top-k of p; weights = p (renormalized to sum 1 if norm_topk)  — Qwen3-MoE
//   sigmoid:        s = sigmoid(logits); choice by s + bias (optional grouped top-k: keep the topk_group groups
//                   with the best sum of their 2 best s + bias, then top-k inside them); weights = s of the chosen,
//                   renormalized if norm_topk                                                         — DeepSeek-V3
//   softmax_weight: top-k of logits; weights = softmax over the k chosen logits                       — gpt-oss
//   sqrtsoftplus:   s = sqrt(softplus(logits)); choice by s + bias; weights = s of the chosen, renormalized if
//                   norm_topk                                                                        — DeepSeek-V4
// Weights are multiplied by `scale` (routed_scaling_factor) last. Ties go to the lower expert id. ids/weights
// hold k entries, ordered by decreasing selection score.
#pragma once

#include <cstdint>

namespace ft::kernels {

enum class RouterGating { softmax, sigmoid, softmax_weight, sqrtsoftplus };

struct RouterParams {
    int n_expert = 0;
    int k = 0;
    RouterGating gating = RouterGating::softmax;
    bool norm_topk = false;
    float scale = 1.f;
    const float* bias = nullptr;  // sigmoid: selection bias per expert (e_score_correction_bias), optional
    int n_group = 0, topk_group = 0;  // grouped top-k (sigmoid only); 0: off
};

}  // namespace ft::kernels

namespace ft::kernels::ref {

void moe_route(const RouterParams& p, const float* logits, std::int32_t* ids, float* weights);
// The same weights for k experts chosen beforehand (DeepSeek-V4's hash layers: ids from the token): weights[i] =
// the gating score of ids[i], renormalized over the k if norm_topk, times scale.
void moe_route_fixed(const RouterParams& p, const float* logits, const std::int32_t* ids, float* weights);

}  // namespace ft::kernels::ref
