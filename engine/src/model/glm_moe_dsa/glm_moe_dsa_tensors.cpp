// GLM-5 / 5.1 (GlmMoeDsaForCausalLM; GGUF "glm-dsa" with llama.cpp's names): DeepSeek-V3's tensors — the low-rank
// query, the compressed KV, k_b / v_b split from kv_b_proj, the output; dense FFN in the first first_k_dense layers,
// else the router with its selection bias, the routed experts (per-expert tensors, or transformers' 3-D
// gate_up_proj / down_proj) and the shared expert — plus each layer's sparse-attention indexer: its query from the
// low rank (indexer.attn_q_b), its key projection (indexer.attn_k) with a LayerNorm (weight and bias), and the
// per-head weights (indexer.proj). The MTP layers after n_layer are not listed (the engine never runs them).
#include "model/model_tensors.h"

namespace ft::model {

std::vector<TensorSpec> deepseek_v3_tensors(const ModelDesc& d);

std::vector<TensorSpec> glm_moe_dsa_tensors(const ModelDesc& d) {
    using R = TensorRole;
    const AttentionDesc& at = d.attn;
    const std::uint64_t e = d.n_embd, ih = at.index_n_heads, id = at.index_head_dim, ql = at.q_lora_rank;
    std::vector<TensorSpec> t;
    for (TensorSpec& s : deepseek_v3_tensors(d)) {
        const int l = s.layer;
        const bool attn_end = s.role == R::attn_output;
        if (s.is_expert()) {  // also readable in the 3-D form transformers' save_pretrained writes
            std::vector<TensorSpec> one{std::move(s)};
            with_fused_experts(d, std::uint32_t(l), one);
            t.push_back(std::move(one[0]));
            continue;
        }
        t.push_back(std::move(s));
        if (!attn_end) continue;
        const std::string b = "blk." + std::to_string(l) + ".indexer.";
        const std::string h = "model.layers." + std::to_string(l) + ".self_attn.indexer.";
        t.push_back({b + "attn_q_b.weight", {ql, ih * id}, R::attn_idx_q_b, l, {h + "wq_b.weight"}});
        t.push_back({b + "attn_k.weight", {e, id}, R::attn_idx_kv, l, {h + "wk.weight"}});
        t.push_back({b + "k_norm.weight", {id}, R::attn_idx_norm, l, {h + "k_norm.weight"}});
        t.push_back({b + "k_norm.bias", {id}, R::attn_idx_norm_bias, l, {h + "k_norm.bias"}});
        t.push_back({b + "proj.weight", {e, ih}, R::attn_idx_weights, l, {h + "weights_proj.weight"}});
    }
    return t;
}

}  // namespace ft::model
