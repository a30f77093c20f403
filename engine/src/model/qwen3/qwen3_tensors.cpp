// Dense Qwen3 (Qwen3ForCausalLM, GGUF "qwen3"): pre-norm decoder, GQA attention with per-head RMSNorm on q and k, no
// biases, a dense SwiGLU FFN (ffn_gate/up/down) on every layer; the LM head tied in the small models.
#include "model/model_tensors.h"

namespace ft::model {

std::vector<TensorSpec> qwen3_tensors(const ModelDesc& d) {
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
        t.push_back({b + "attn_q_norm.weight", {d.attn.head_dim}, R::attn_q_norm, l, {h + "self_attn.q_norm.weight"}});
        t.push_back({b + "attn_k_norm.weight", {d.attn.head_dim}, R::attn_k_norm, l, {h + "self_attn.k_norm.weight"}});
        t.push_back({b + "ffn_norm.weight", {e}, R::ffn_norm, l, {h + "post_attention_layernorm.weight"}});
        const auto ffn = dense_ffn_tensors(d, il);
        t.insert(t.end(), ffn.begin(), ffn.end());
    }
    t.push_back({"output_norm.weight", {e}, R::output_norm, -1, {"model.norm.weight"}});
    if (!d.tied_embeddings) t.push_back({"output.weight", {e, d.n_vocab}, R::output, -1, {"lm_head.weight"}});
    return t;
}

}  // namespace ft::model
