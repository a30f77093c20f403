// MiniMax-M2 (MiniMaxM2ForCausalLM, GGUF "minimax-m2"): per layer GQA attention whose q and k are each RMS-normalised
// over all their heads at once (AttentionBlock::qk_norm_whole), then NeoX RoPE on the first n_rot dims of each head,
// and the MoE FFN on every layer: sigmoid router, the correction bias in the choice only, top-k renormalised, SwiGLU
// experts, no shared expert.
#include "model/arch.h"

namespace ft::model {

ModelGraph minimax_m2_graph(const Weights& w) {
    return pre_norm_decoder(
        w, "ffn_norm.weight", [&w](int il) -> BlockBody { return moe_ffn(w, il); },
        [&w](int il) -> BlockBody {
            AttentionBlock a = gqa_attention(w, il);
            a.qk_norm_whole = true;
            return a;
        });
}

}  // namespace ft::model
