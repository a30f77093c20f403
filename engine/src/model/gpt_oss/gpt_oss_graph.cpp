// gpt-oss (GptOssForCausalLM, GGUF "gpt-oss"): every layer is GQA attention (q/k/v/o biases, a learned sink logit per
// head, YaRN RoPE; every other layer from layer 0 over a sliding window) then the MoE FFN (router with bias, top-k of
// the logits with a softmax over the k, experts with gate/up/down biases and the clamped SwiGLU). The pre-FFN norm is
// GGUF "post_attention_norm".
#include "model/arch.h"

namespace ft::model {

ModelGraph gpt_oss_graph(const Weights& w) {
    return pre_norm_decoder(w, "post_attention_norm.weight", [&w](int il) -> BlockBody { return moe_ffn(w, il); });
}

}  // namespace ft::model
