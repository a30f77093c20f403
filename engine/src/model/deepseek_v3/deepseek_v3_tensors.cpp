// DeepSeek-V2 / V3 / R1 / V3.1 (DeepseekV3ForCausalLM, GGUF "deepseek2"): pre-norm decoder with multi-head latent
// attention — the query directly (attn_q, V2-Lite) or through a low rank (attn_q_a → attn_q_a_norm → attn_q_b),
// the compressed KV attn_kv_a_mqa [latent | rope key] with attn_kv_a_norm on the latent, and the per-head
// up-projections split as llama.cpp writes them since its MLA rework (attn_k_b transposed, attn_v_b; a Hugging Face
// checkpoint's kv_b_proj gives both, HfLayout::mla_k_b / mla_v_b). The first first_k_dense layers are dense, the
// rest MoE: sigmoid router (softmax in V2) with the selection-only correction bias (exp_probs_b), grouped top-k,
// routed scaling, plus shared experts on every token. GGUF names as llama.cpp's; HF names of DeepSeek's checkpoints
// (per-expert tensors).
#include "model/model_tensors.h"

namespace ft::model {

std::vector<TensorSpec> deepseek_v3_tensors(const ModelDesc& d) {
    using R = TensorRole;
    const auto& at = d.attn;
    const std::uint64_t e = d.n_embd, nh = at.n_head, nope = at.qk_nope_head_dim, rope = at.qk_rope_head_dim,
                        v = at.v_head_dim, lora = at.kv_lora_rank, q = nh * (nope + rope);
    std::vector<TensorSpec> t;
    t.push_back({"token_embd.weight", {e, d.n_vocab}, R::token_embd, -1, {"model.embed_tokens.weight"}});
    for (std::uint32_t il = 0; il < d.n_layer; ++il) {
        const std::string b = "blk." + std::to_string(il) + ".";
        const std::string h = "model.layers." + std::to_string(il) + ".";
        const int l = static_cast<int>(il);
        t.push_back({b + "attn_norm.weight", {e}, R::attn_norm, l, {h + "input_layernorm.weight"}});
        if (at.q_lora_rank) {
            const std::uint64_t ql = at.q_lora_rank;
            t.push_back({b + "attn_q_a.weight", {e, ql}, R::attn_q_a, l, {h + "self_attn.q_a_proj.weight"}});
            t.push_back({b + "attn_q_a_norm.weight", {ql}, R::attn_q_a_norm, l, {h + "self_attn.q_a_layernorm.weight"}});
            t.push_back({b + "attn_q_b.weight", {ql, q}, R::attn_q_b, l, {h + "self_attn.q_b_proj.weight"}});
        } else {
            t.push_back({b + "attn_q.weight", {e, q}, R::attn_q, l, {h + "self_attn.q_proj.weight"}});
        }
        t.push_back({b + "attn_kv_a_mqa.weight", {e, lora + rope}, R::attn_kv_a_mqa, l, {h + "self_attn.kv_a_proj_with_mqa.weight"}});
        t.push_back({b + "attn_kv_a_norm.weight", {lora}, R::attn_kv_a_norm, l, {h + "self_attn.kv_a_layernorm.weight"}});
        TensorSpec kb{b + "attn_k_b.weight", {nope, lora, nh}, R::attn_k_b, l, {h + "self_attn.kv_b_proj.weight"}};
        kb.hf_layout = HfLayout::mla_k_b;
        kb.hf_step = std::uint32_t(nope + v);
        t.push_back(kb);
        TensorSpec vb{b + "attn_v_b.weight", {lora, v, nh}, R::attn_v_b, l, {h + "self_attn.kv_b_proj.weight"}};
        vb.hf_layout = HfLayout::mla_v_b;
        vb.hf_offset = std::uint32_t(nope);
        vb.hf_step = std::uint32_t(nope + v);
        t.push_back(vb);
        t.push_back({b + "attn_output.weight", {nh * v, e}, R::attn_output, l, {h + "self_attn.o_proj.weight"}});
        t.push_back({b + "ffn_norm.weight", {e}, R::ffn_norm, l, {h + "post_attention_layernorm.weight"}});
        const auto ffn = d.layer_is_moe(il) ? moe_ffn_tensors(d, il) : dense_ffn_tensors(d, il);
        t.insert(t.end(), ffn.begin(), ffn.end());
    }
    t.push_back({"output_norm.weight", {e}, R::output_norm, -1, {"model.norm.weight"}});
    if (!d.tied_embeddings) t.push_back({"output.weight", {e, d.n_vocab}, R::output, -1, {"lm_head.weight"}});
    return t;
}

}  // namespace ft::model
