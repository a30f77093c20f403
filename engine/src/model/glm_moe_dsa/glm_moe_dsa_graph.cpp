// GLM-5 / 5.1 (GlmMoeDsaForCausalLM, GGUF "glm-dsa"): DeepSeek-V3's decoder — latent attention in every layer, a
// dense SwiGLU FFN in the first first_k_dense layers, then GLM's MoE (sigmoid router with the selection-only
// correction bias, top-k renormalized, routed scaling, one shared expert) — with the sparse-attention indexer on
// each attention block (MlaAttentionBlock::Indexer): the attention reads the index_topk positions it scores best.
#include <cmath>

#include "model/arch.h"
#include "model/layer_params.h"

namespace ft::model {

namespace {

std::string blk(int il, const char* suffix) { return "blk." + std::to_string(il) + ".indexer." + suffix; }

MlaAttentionBlock dsa_attention(const Weights& w, int il) {
    const ModelDesc& d = w.desc();
    MlaAttentionBlock a = mla_attention(w, il);
    MlaAttentionBlock::Indexer& x = a.idx;
    x.q_b = {&w.get(blk(il, "attn_q_b.weight")), nullptr};
    x.k = {&w.get(blk(il, "attn_k.weight")), nullptr};
    x.weights = {&w.get(blk(il, "proj.weight")), nullptr};
    x.k_norm = &w.get(blk(il, "k_norm.weight"));
    x.k_norm_bias = &w.get(blk(il, "k_norm.bias"));
    x.k_norm_eps = 1e-6f;  // transformers' nn.LayerNorm(eps=1e-6), whatever rms_norm_eps says
    x.heads = int(d.attn.index_n_heads);
    x.dim = int(d.attn.index_head_dim);
    x.topk = int(d.attn.index_topk);
    x.rope = a.rope;  // the attention's rotation, over the first rope_dim of each indexer head
    x.rope.head_dim = x.dim;
    return a;
}

}  // namespace

ModelGraph glm_moe_dsa_graph(const Weights& w) {
    return pre_norm_decoder(
        w, "ffn_norm.weight",
        [&w](int il) -> BlockBody {
            if (w.desc().layer_is_moe(std::uint32_t(il))) return moe_ffn(w, il);
            return dense_ffn(w, il);
        },
        [&w](int il) -> BlockBody { return dsa_attention(w, il); });
}

}  // namespace ft::model
