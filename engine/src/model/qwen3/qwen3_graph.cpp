// Dense Qwen3 (Qwen3ForCausalLM, GGUF "qwen3"): pre-norm decoder layers of GQA attention with per-head RMSNorm on
// q and k and NeoX RoPE, then a dense SwiGLU FFN; final RMSNorm and LM head. No MoE block.
#include "model/arch.h"

namespace ft::model {

ModelGraph qwen3_graph(const Weights& w) {
    return pre_norm_decoder(w, "ffn_norm.weight", [&w](int il) -> BlockBody { return dense_ffn(w, il); });
}

}  // namespace ft::model
