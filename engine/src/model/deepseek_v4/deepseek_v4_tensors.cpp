// DeepSeek-V4 (DeepseekV4ForCausalLM; GGUF "deepseek4" with our names, docs/architectures.md): per layer the two
// hyper-connection mixers, the attention (low-rank q with its norm, the shared K = V projection with its norm, the
// grouped output in two stages, per-head sinks), the compressor of a CSA / HCA layer (kv, gate, position bias, norm;
// CSA's at twice the head dim for its overlapping windows) with CSA's lightning indexer (the same at the indexer's
// head dim, its q_b from the q rank, the per-head weights), and the MoE FFN: the router, the selection bias or, in
// the first n_hash_layers layers, the token → experts table, the routed experts (transformers' 3-D gate_up_proj /
// down_proj, or per-expert tensors) and the shared expert. The output hyper-connection head before the final norm.
// Hugging Face names are transformers' own (what its save_pretrained writes).
#include "model/model_tensors.h"

namespace ft::model {

std::vector<TensorSpec> deepseek_v4_tensors(const ModelDesc& d) {
    using R = TensorRole;
    const V4Desc& v = d.v4;
    const std::uint64_t e = d.n_embd, nh = d.attn.n_head, hd = d.attn.head_dim, ql = d.attn.q_lora_rank,
                        n = v.hc_mult, mix = (2 + n) * n, og = v.o_groups, ol = v.o_lora_rank,
                        ih = v.index_n_heads, id = v.index_head_dim;
    std::vector<TensorSpec> t;
    t.push_back({"token_embd.weight", {e, d.n_vocab}, R::token_embd, -1, {"model.embed_tokens.weight"}});
    for (std::uint32_t il = 0; il < d.n_layer; ++il) {
        const std::string b = "blk." + std::to_string(il) + ".";
        const std::string h = "model.layers." + std::to_string(il) + ".";
        const std::string a = h + "self_attn.";
        const int l = static_cast<int>(il);
        t.push_back({b + "hc_attn_fn.weight", {n * e, mix}, R::hc_attn_fn, l, {h + "attn_hc.fn"}});
        t.push_back({b + "hc_attn_base.weight", {mix}, R::hc_attn_base, l, {h + "attn_hc.base"}});
        t.push_back({b + "hc_attn_scale.weight", {3}, R::hc_attn_scale, l, {h + "attn_hc.scale"}});
        t.push_back({b + "attn_norm.weight", {e}, R::attn_norm, l, {h + "input_layernorm.weight"}});
        t.push_back({b + "attn_q_a.weight", {e, ql}, R::attn_q_a, l, {a + "q_a_proj.weight"}});
        t.push_back({b + "attn_q_a_norm.weight", {ql}, R::attn_q_a_norm, l, {a + "q_a_norm.weight"}});
        t.push_back({b + "attn_q_b.weight", {ql, nh * hd}, R::attn_q_b, l, {a + "q_b_proj.weight"}});
        t.push_back({b + "attn_kv.weight", {e, hd}, R::attn_kv, l, {a + "kv_proj.weight"}});
        t.push_back({b + "attn_kv_a_norm.weight", {hd}, R::attn_kv_a_norm, l, {a + "kv_norm.weight"}});
        t.push_back({b + "attn_output_a.weight", {nh * hd / og, og * ol}, R::attn_output_a, l, {a + "o_a_proj.weight"}});
        t.push_back({b + "attn_output_b.weight", {og * ol, e}, R::attn_output_b, l, {a + "o_b_proj.weight"}});
        t.push_back({b + "attn_sinks.weight", {nh}, R::attn_sinks, l, {a + "sinks"}});
        const V4LayerKind kind = v.kind(il);
        if (kind != V4LayerKind::sliding) {
            const std::uint64_t ratio = v.ratio(il), w = kind == V4LayerKind::csa ? 2 * hd : hd;
            const std::string c = a + "compressor.";
            t.push_back({b + "attn_comp_kv.weight", {e, w}, R::attn_comp_kv, l, {c + "kv_proj.weight"}});
            t.push_back({b + "attn_comp_gate.weight", {e, w}, R::attn_comp_gate, l, {c + "gate_proj.weight"}});
            t.push_back({b + "attn_comp_bias.weight", {w, ratio}, R::attn_comp_bias, l, {c + "position_bias"}});
            t.push_back({b + "attn_comp_norm.weight", {hd}, R::attn_comp_norm, l, {c + "kv_norm.weight"}});
            if (kind == V4LayerKind::csa) {
                const std::string x = c + "indexer.";
                t.push_back({b + "attn_idx_kv.weight", {e, 2 * id}, R::attn_idx_kv, l, {x + "kv_proj.weight"}});
                t.push_back({b + "attn_idx_gate.weight", {e, 2 * id}, R::attn_idx_gate, l, {x + "gate_proj.weight"}});
                t.push_back({b + "attn_idx_bias.weight", {2 * id, ratio}, R::attn_idx_bias, l, {x + "position_bias"}});
                t.push_back({b + "attn_idx_norm.weight", {id}, R::attn_idx_norm, l, {x + "kv_norm.weight"}});
                t.push_back({b + "attn_idx_q_b.weight", {ql, ih * id}, R::attn_idx_q_b, l, {x + "q_b_proj.weight"}});
                t.push_back({b + "attn_idx_weights.weight", {e, ih}, R::attn_idx_weights, l, {x + "scorer.weights_proj.weight"}});
            }
        }
        t.push_back({b + "hc_ffn_fn.weight", {n * e, mix}, R::hc_ffn_fn, l, {h + "ffn_hc.fn"}});
        t.push_back({b + "hc_ffn_base.weight", {mix}, R::hc_ffn_base, l, {h + "ffn_hc.base"}});
        t.push_back({b + "hc_ffn_scale.weight", {3}, R::hc_ffn_scale, l, {h + "ffn_hc.scale"}});
        t.push_back({b + "ffn_norm.weight", {e}, R::ffn_norm, l, {h + "post_attention_layernorm.weight"}});
        auto ffn = moe_ffn_tensors(d, il);
        if (il < v.n_hash_layers)  // a hash layer's router has no selection bias
            std::erase_if(ffn, [](const TensorSpec& s) { return s.role == R::ffn_exp_probs_b; });
        with_fused_experts(d, il, ffn);
        t.insert(t.end(), ffn.begin(), ffn.end());
        if (il < v.n_hash_layers)
            t.push_back({b + "ffn_gate_tid2eid.weight", {d.moe.n_expert_used, d.n_vocab}, R::ffn_hash_table, l, {h + "mlp.gate.tid2eid"}});
    }
    t.push_back({"output_hc_fn.weight", {n * e, n}, R::hc_head_fn, -1, {"model.hc_head.hc_fn"}});
    t.push_back({"output_hc_base.weight", {n}, R::hc_head_base, -1, {"model.hc_head.hc_base"}});
    t.push_back({"output_hc_scale.weight", {1}, R::hc_head_scale, -1, {"model.hc_head.hc_scale"}});
    t.push_back({"output_norm.weight", {e}, R::output_norm, -1, {"model.norm.weight"}});
    if (!d.tied_embeddings) t.push_back({"output.weight", {e, d.n_vocab}, R::output, -1, {"lm_head.weight"}});
    return t;
}

}  // namespace ft::model
