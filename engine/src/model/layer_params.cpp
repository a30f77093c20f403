#include "model/layer_params.h"

namespace ft::model {

kernels::RopeParams rope_params(const ModelDesc& d) {
    kernels::RopeParams r;
    r.head_dim = int(d.attn.head_dim);
    r.n_rot = int(d.rope.n_rot ? d.rope.n_rot : d.attn.head_dim);
    r.neox = d.rope.type == RopeType::neox;
    r.theta = float(d.rope.theta);
    r.attn_factor = float(d.rope.attn_factor);
    if (d.rope.scaling == RopeScaling::linear) r.freq_scale = float(1.0 / d.rope.factor);
    if (d.rope.scaling == RopeScaling::yarn) {
        r.freq_scale = float(1.0 / d.rope.factor);
        r.ext_factor = 1.f;
        r.beta_fast = float(d.rope.yarn_beta_fast);
        r.beta_slow = float(d.rope.yarn_beta_slow);
        r.orig_ctx = int(d.rope.original_context);
        r.truncate = d.rope.yarn_truncate;
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
    }
    return p;
}

}  // namespace ft::model
