#include "model/layer_params.h"

namespace ft::model {

kernels::RopeParams rope_params(const ModelDesc& d) { return rope_params(d.rope, int(d.attn.head_dim)); }

kernels::RopeParams rope_params(const RopeDesc& rope, int head_dim) {
    kernels::RopeParams r;
    r.head_dim = head_dim;
    r.n_rot = int(rope.n_rot ? rope.n_rot : std::uint32_t(head_dim));
    r.neox = rope.type == RopeType::neox;
    r.theta = float(rope.theta);
    r.attn_factor = float(rope.attn_factor);
    if (rope.scaling == RopeScaling::linear) r.freq_scale = float(1.0 / rope.factor);
    if (rope.scaling == RopeScaling::yarn) {
        r.freq_scale = float(1.0 / rope.factor);
        r.ext_factor = 1.f;
        r.beta_fast = float(rope.yarn_beta_fast);
        r.beta_slow = float(rope.yarn_beta_slow);
        r.orig_ctx = int(rope.original_context);
        r.truncate = rope.yarn_truncate;
    }
    return r;
}

kernels::RouterParams router_params(const ModelDesc& d) {
    kernels::RouterParams p;
    p.n_expert = int(d.moe.n_expert);
    p.k = int(d.moe.n_expert_used);
    p.norm_topk = d.moe.norm_topk_prob;
    p.scale = float(d.moe.routed_scaling_factor);
    p.n_group = int(d.moe.n_group);
    p.topk_group = int(d.moe.topk_group);
    switch (d.moe.gating) {
        case Gating::softmax: p.gating = kernels::RouterGating::softmax; break;
        case Gating::sigmoid: p.gating = kernels::RouterGating::sigmoid; break;
        case Gating::softmax_weight: p.gating = kernels::RouterGating::softmax_weight; break;
        case Gating::sqrtsoftplus: p.gating = kernels::RouterGating::sqrtsoftplus; break;
    }
    return p;
}

}  // namespace ft::model
