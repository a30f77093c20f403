// GLM-4.5 / 4.6 / 4.7 MoE (Glm4MoeForCausalLM, GGUF "glm4moe"): pre-norm decoder; GQA attention with q/k/v biases
// (no output bias), per-head q/k RMSNorm in the 355B models only, partial RoPE (neox over the first n_rot dims);
// the first first_k_dense layers dense, the rest MoE: sigmoid router whose choice adds e_score_correction_bias
// (exp_probs_b), grouped top-k, weights normalized and scaled by routed_scaling_factor, plus a shared expert run on
// every token. The nextn_predict_layers MTP layers after the n_layer decoder layers are listed (unused) so that a
// file keeps them as llama.cpp expects; the engine never loads them. GGUF names as llama.cpp writes them (the
// pre-FFN norm is "post_attention_norm"); HF names of GLM's checkpoints (per-expert tensors).
#include "model/model_tensors.h"

namespace ft::model {

std::vector<TensorSpec> glm4_moe_tensors(const ModelDesc& d) {
    using R = TensorRole;
    const std::uint64_t e = d.n_embd, q = std::uint64_t(d.attn.n_head) * d.attn.head_dim,
                        kv = std::uint64_t(d.attn.n_head_kv) * d.attn.head_dim;
    const std::uint64_t v_out = std::uint64_t(d.attn.n_head) * d.attn.v_head_dim;
    const std::uint64_t kv_v = std::uint64_t(d.attn.n_head_kv) * d.attn.v_head_dim;
    std::vector<TensorSpec> t;
    bool unused = false;  // inside the MTP layers
    auto add = [&](std::string name, std::vector<std::uint64_t> dims, R role, int layer, std::vector<std::string> hf) {
        TensorSpec s{std::move(name), std::move(dims), role, layer, std::move(hf)};
        s.unused = unused;
        t.push_back(std::move(s));
    };
    add("token_embd.weight", {e, d.n_vocab}, R::token_embd, -1, {"model.embed_tokens.weight"});
    for (std::uint32_t il = 0; il < d.n_layer + d.nextn_predict_layers; ++il) {
        unused = il >= d.n_layer;
        const std::string b = "blk." + std::to_string(il) + ".";
        const std::string h = "model.layers." + std::to_string(il) + ".";
        const int l = static_cast<int>(il);
        add(b + "attn_norm.weight", {e}, R::attn_norm, l, {h + "input_layernorm.weight"});
        add(b + "attn_q.weight", {e, q}, R::attn_q, l, {h + "self_attn.q_proj.weight"});
        add(b + "attn_k.weight", {e, kv}, R::attn_k, l, {h + "self_attn.k_proj.weight"});
        add(b + "attn_v.weight", {e, kv_v}, R::attn_v, l, {h + "self_attn.v_proj.weight"});
        if (d.attn.qkv_bias) {
            add(b + "attn_q.bias", {q}, R::attn_q_bias, l, {h + "self_attn.q_proj.bias"});
            add(b + "attn_k.bias", {kv}, R::attn_k_bias, l, {h + "self_attn.k_proj.bias"});
            add(b + "attn_v.bias", {kv_v}, R::attn_v_bias, l, {h + "self_attn.v_proj.bias"});
        }
        add(b + "attn_output.weight", {v_out, e}, R::attn_output, l, {h + "self_attn.o_proj.weight"});
        if (d.attn.o_bias) add(b + "attn_output.bias", {e}, R::attn_output_bias, l, {h + "self_attn.o_proj.bias"});
        if (d.attn.qk_norm) {
            add(b + "attn_q_norm.weight", {d.attn.head_dim}, R::attn_q_norm, l, {h + "self_attn.q_norm.weight"});
            add(b + "attn_k_norm.weight", {d.attn.head_dim}, R::attn_k_norm, l, {h + "self_attn.k_norm.weight"});
        }
        add(b + "post_attention_norm.weight", {e}, R::ffn_norm, l, {h + "post_attention_layernorm.weight"});
        // The MTP layers are MoE layers (layer_is_moe only answers for il < n_layer).
        for (TensorSpec& f : unused || d.layer_is_moe(il) ? moe_ffn_tensors(d, il) : dense_ffn_tensors(d, il)) {
            f.unused = unused;
            t.push_back(std::move(f));
        }
        if (unused) {
            add(b + "nextn.eh_proj.weight", {2 * e, e}, R::nextn_eh_proj, l, {h + "eh_proj.weight"});
            add(b + "nextn.enorm.weight", {e}, R::nextn_enorm, l, {h + "enorm.weight"});
            add(b + "nextn.hnorm.weight", {e}, R::nextn_hnorm, l, {h + "hnorm.weight"});
            add(b + "nextn.shared_head_norm.weight", {e}, R::nextn_shared_head_norm, l, {h + "shared_head.norm.weight"});
        }
    }
    unused = false;
    add("output_norm.weight", {e}, R::output_norm, -1, {"model.norm.weight"});
    if (!d.tied_embeddings) add("output.weight", {e, d.n_vocab}, R::output, -1, {"lm_head.weight"});
    return t;
}

}  // namespace ft::model
