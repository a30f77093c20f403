// Kernel parameter structs derived from a model description, shared by every device's forward pass so the CPU and
// GPU runners cannot disagree on RoPE scaling or routing rules.
#pragma once

#include "model/model_desc.h"
#include "ref/moe_router.h"
#include "ref/rope.h"

namespace ft::model {

kernels::RopeParams rope_params(const ModelDesc& d);
kernels::RopeParams rope_params(const RopeDesc& rope, int head_dim);
// bias is left null: the per-layer selection bias (exp_probs_b) is the caller's to attach.
kernels::RouterParams router_params(const ModelDesc& d);

}  // namespace ft::model
