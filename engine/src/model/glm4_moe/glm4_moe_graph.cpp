// GLM-4.5 / 4.6 / 4.7 MoE (Glm4MoeForCausalLM, GGUF "glm4moe"): GQA attention with q/k/v biases, partial NeoX RoPE
// (half the head) and optional per-head q/k RMSNorm; the first first_k_dense_replace layers have a dense SwiGLU FFN,
// the rest the MoE FFN (sigmoid router with the selection-only correction bias, grouped top-k, renormalised, routed
// scaling) plus a shared expert on every token. The pre-FFN norm is GGUF "post_attention_norm". The MTP (nextn)
// layers after n_layer stay in the file and are not run.
#include "model/arch.h"

namespace ft::model {

ModelGraph glm4_moe_graph(const Weights& w) {
    return pre_norm_decoder(w, "post_attention_norm.weight", [&w](int il) -> BlockBody {
        if (w.desc().layer_is_moe(std::uint32_t(il))) return moe_ffn(w, il);
        return dense_ffn(w, il);
    });
}

}  // namespace ft::model
