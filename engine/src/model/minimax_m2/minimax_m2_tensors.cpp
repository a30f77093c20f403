// MiniMax-M2 / M2.1 / M2.5 (MiniMaxM2ForCausalLM; GGUF "minimax-m2" with llama.cpp's names): pre-norm decoder, GQA
// attention without biases whose q and k norms each span all heads of the token (attn_q_norm [n_head·head_dim],
// attn_k_norm [n_head_kv·head_dim]); every layer MoE with the selection-only correction bias and no shared expert.
// Hugging Face names as MiniMax publishes them and transformers' save_pretrained writes them back
// (model.layers.N.block_sparse_moe.{gate.weight, e_score_correction_bias, experts.E.w1/w2/w3.weight}); transformers'
// in-memory names (mlp.gate, mlp.e_score_correction_bias, the 3-D mlp.experts.gate_up_proj / down_proj) are read when
// those are absent. The MTP modules of the released checkpoints are not listed (the engine never runs them).
#include "model/model_tensors.h"

namespace ft::model {

std::vector<TensorSpec> minimax_m2_tensors(const ModelDesc& d) {
    using R = TensorRole;
    const std::uint64_t e = d.n_embd, q = std::uint64_t(d.attn.n_head) * d.attn.head_dim,
                        kv = std::uint64_t(d.attn.n_head_kv) * d.attn.head_dim;
    std::vector<TensorSpec> t;
    t.push_back({"token_embd.weight", {e, d.n_vocab}, R::token_embd, -1, {"model.embed_tokens.weight"}});
    for (std::uint32_t il = 0; il < d.n_layer; ++il) {
        const std::string b = "blk." + std::to_string(il) + ".";
        const std::string h = "model.layers." + std::to_string(il) + ".";
        const int l = static_cast<int>(il);
        t.push_back({b + "attn_norm.weight", {e}, R::attn_norm, l, {h + "input_layernorm.weight"}});
        t.push_back({b + "attn_q.weight", {e, q}, R::attn_q, l, {h + "self_attn.q_proj.weight"}});
        t.push_back({b + "attn_k.weight", {e, kv}, R::attn_k, l, {h + "self_attn.k_proj.weight"}});
        t.push_back({b + "attn_v.weight", {e, kv}, R::attn_v, l, {h + "self_attn.v_proj.weight"}});
        t.push_back({b + "attn_output.weight", {q, e}, R::attn_output, l, {h + "self_attn.o_proj.weight"}});
        t.push_back({b + "attn_q_norm.weight", {q}, R::attn_q_norm, l, {h + "self_attn.q_norm.weight"}});
        t.push_back({b + "attn_k_norm.weight", {kv}, R::attn_k_norm, l, {h + "self_attn.k_norm.weight"}});
        t.push_back({b + "ffn_norm.weight", {e}, R::ffn_norm, l, {h + "post_attention_layernorm.weight"}});
        std::vector<TensorSpec> ffn = moe_ffn_tensors(d, il);
        with_fused_experts(d, il, ffn);
        for (TensorSpec& s : ffn) {
            const char* w = s.role == R::ffn_gate_exps ? "w1" : s.role == R::ffn_up_exps ? "w3" : "w2";
            if (s.is_expert()) {
                for (std::size_t x = 0; x < s.hf_names.size(); ++x)
                    s.hf_names[x] = h + "block_sparse_moe.experts." + std::to_string(x) + "." + w + ".weight";
            } else if (s.role == R::ffn_gate_inp) {
                s.hf_alt = s.hf_names.at(0);  // mlp.gate.weight
                s.hf_names = {h + "block_sparse_moe.gate.weight"};
            } else if (s.role == R::ffn_exp_probs_b) {
                s.hf_names = {h + "block_sparse_moe.e_score_correction_bias"};
                s.hf_alt = h + "mlp.e_score_correction_bias";
            }
            t.push_back(std::move(s));
        }
    }
    t.push_back({"output_norm.weight", {e}, R::output_norm, -1, {"model.norm.weight"}});
    if (!d.tied_embeddings) t.push_back({"output.weight", {e, d.n_vocab}, R::output, -1, {"lm_head.weight"}});
    return t;
}

}  // namespace ft::model
