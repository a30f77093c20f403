// DeepSeek-V2 / V3 / R1 / V3.1 (DeepseekV3ForCausalLM, GGUF "deepseek2"): the pre-norm decoder with multi-head
// latent attention (MlaAttentionBlock) in every layer; the first first_k_dense layers a dense SwiGLU FFN, the rest
// the MoE block (sigmoid or softmax router, the selection-only correction bias, grouped top-k, routed scaling)
// with the shared experts.
#include "model/arch.h"

namespace ft::model {

ModelGraph deepseek_v3_graph(const Weights& w) {
    return pre_norm_decoder(
        w, "ffn_norm.weight",
        [&w](int il) -> BlockBody {
            if (w.desc().layer_is_moe(std::uint32_t(il))) return moe_ffn(w, il);
            return dense_ffn(w, il);
        },
        [&w](int il) -> BlockBody { return mla_attention(w, il); });
}

}  // namespace ft::model
