// Qwen3-MoE (Qwen3MoeForCausalLM, GGUF "qwen3moe"): pre-norm decoder layers of GQA attention with per-head RMSNorm
// on q and k and NeoX RoPE, then the MoE FFN (softmax router over all experts, top-k, optional renormalisation,
// SwiGLU experts) — or a dense SwiGLU FFN on the layers listed in mlp_only_layers; final RMSNorm and LM head.
#include "model/arch.h"

namespace ft::model {

ModelGraph qwen3_moe_graph(const Weights& w) {
    return pre_norm_decoder(w, "ffn_norm.weight", [&w](int il) -> BlockBody {
        if (w.desc().layer_is_moe(std::uint32_t(il)) && w.layer_has_experts(il)) return moe_ffn(w, il);
        return dense_ffn(w, il);
    });
}

}  // namespace ft::model
