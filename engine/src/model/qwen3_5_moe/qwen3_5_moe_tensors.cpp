// Qwen3.5 / Qwen3.6-MoE (Qwen3_5MoeForCausalLM / ForConditionalGeneration, GGUF "qwen35moe") and Qwen3-Next
// (Qwen3NextForCausalLM, GGUF "qwen3next"): the hybrid decoder. Each layer mixes tokens with Gated DeltaNet linear
// attention (three layers in four) or gated full attention (every fourth: q_proj emits [query | gate] per head,
// per-head q/k RMSNorm, partial NeoX RoPE), then the MoE FFN: softmax router, top-k renormalised, SwiGLU experts and
// one shared expert scaled by sigmoid(x · shared_expert_gate). Every RMSNorm but the linear attention's gated one is
// zero-centred (HF stores w for 1 + w; GGUF stores 1 + w).
//
// GGUF names are llama.cpp's. Hugging Face: Qwen3.5's separate in_proj_qkv / in_proj_z / in_proj_b / in_proj_a;
// Qwen3-Next's fused in_proj_qkvz (per key head [q | k | v | z]) gives attn_qkv and attn_gate by row gathers and its
// in_proj_ba is GGUF's ssm_ba as it is. Routed experts per expert, or Qwen3.5's 3-D gate_up_proj / down_proj.
// A checkpoint of the multimodal Qwen3.5 (model.language_model.*) is read under the same names (Weights maps the
// prefix).
#include "model/model_tensors.h"

namespace ft::model {

std::vector<TensorSpec> qwen3_5_moe_tensors(const ModelDesc& d) {
    using R = TensorRole;
    const bool next = d.arch == ArchId::qwen3_next;
    const auto& at = d.attn;
    const auto& la = d.linear;
    const std::uint64_t e = d.n_embd, hd = at.head_dim, q2 = 2ull * at.n_head * hd, kv = std::uint64_t(at.n_head_kv) * hd,
                        ao = std::uint64_t(at.n_head) * hd;
    const std::uint64_t nk = la.n_k_heads, nv = la.n_v_heads, dk = la.k_head_dim, dv = la.v_head_dim,
                        r = nk ? nv / nk : 0, conv = la.conv_dim(), vd = la.value_dim();
    std::vector<TensorSpec> t;
    auto norm = [](TensorSpec s) {
        s.hf_layout = HfLayout::norm_plus_one;
        return s;
    };
    t.push_back({"token_embd.weight", {e, d.n_vocab}, R::token_embd, -1, {"model.embed_tokens.weight"}});
    for (std::uint32_t il = 0; il < d.n_layer; ++il) {
        const std::string b = "blk." + std::to_string(il) + ".";
        const std::string h = "model.layers." + std::to_string(il) + ".";
        const int l = static_cast<int>(il);
        t.push_back(norm({b + "attn_norm.weight", {e}, R::attn_norm, l, {h + "input_layernorm.weight"}}));
        if (la.is_linear(il)) {
            const std::string a = h + "linear_attn.";
            if (next) {
                const auto group = std::uint32_t(2 * dk + 2 * r * dv);
                TensorSpec qkv{b + "attn_qkv.weight", {e, conv}, R::ssm_qkv, l, {a + "in_proj_qkvz.weight"}};
                qkv.hf_layout = HfLayout::rows;
                qkv.hf_step = group;
                qkv.hf_segments = {{0, std::uint32_t(dk)}, {std::uint32_t(dk), std::uint32_t(dk)},
                                   {std::uint32_t(2 * dk), std::uint32_t(r * dv)}};
                t.push_back(qkv);
                TensorSpec z{b + "attn_gate.weight", {e, vd}, R::ssm_gate, l, {a + "in_proj_qkvz.weight"}};
                z.hf_layout = HfLayout::rows;
                z.hf_step = group;
                z.hf_segments = {{std::uint32_t(2 * dk + r * dv), std::uint32_t(r * dv)}};
                t.push_back(z);
                t.push_back({b + "ssm_ba.weight", {e, 2 * nv}, R::ssm_ba, l, {a + "in_proj_ba.weight"}});
            } else {
                t.push_back({b + "attn_qkv.weight", {e, conv}, R::ssm_qkv, l, {a + "in_proj_qkv.weight"}});
                t.push_back({b + "attn_gate.weight", {e, vd}, R::ssm_gate, l, {a + "in_proj_z.weight"}});
                t.push_back({b + "ssm_beta.weight", {e, nv}, R::ssm_beta, l, {a + "in_proj_b.weight"}});
                t.push_back({b + "ssm_alpha.weight", {e, nv}, R::ssm_alpha, l, {a + "in_proj_a.weight"}});
            }
            t.push_back({b + "ssm_conv1d.weight", {la.conv_kernel, conv}, R::ssm_conv1d, l, {a + "conv1d.weight"}});
            t.push_back({b + "ssm_dt.bias", {nv}, R::ssm_dt, l, {a + "dt_bias"}});
            TensorSpec A{b + "ssm_a", {nv}, R::ssm_a, l, {a + "A_log"}};
            A.hf_layout = HfLayout::neg_exp;
            t.push_back(A);
            t.push_back({b + "ssm_norm.weight", {dv}, R::ssm_norm, l, {a + "norm.weight"}});
            t.push_back({b + "ssm_out.weight", {vd, e}, R::ssm_out, l, {a + "out_proj.weight"}});
        } else {
            const std::string s = h + "self_attn.";
            t.push_back({b + "attn_q.weight", {e, q2}, R::attn_q, l, {s + "q_proj.weight"}});
            t.push_back({b + "attn_k.weight", {e, kv}, R::attn_k, l, {s + "k_proj.weight"}});
            t.push_back({b + "attn_v.weight", {e, kv}, R::attn_v, l, {s + "v_proj.weight"}});
            t.push_back({b + "attn_output.weight", {ao, e}, R::attn_output, l, {s + "o_proj.weight"}});
            t.push_back(norm({b + "attn_q_norm.weight", {hd}, R::attn_q_norm, l, {s + "q_norm.weight"}}));
            t.push_back(norm({b + "attn_k_norm.weight", {hd}, R::attn_k_norm, l, {s + "k_norm.weight"}}));
        }
        t.push_back(norm({b + "post_attention_norm.weight", {e}, R::ffn_norm, l, {h + "post_attention_layernorm.weight"}}));
        if (!d.layer_is_moe(il)) {
            const auto ffn = dense_ffn_tensors(d, il);
            t.insert(t.end(), ffn.begin(), ffn.end());
            continue;
        }
        auto ffn = moe_ffn_tensors(d, il);
        for (TensorSpec& s : ffn) {
            // Qwen's names for the shared expert (mlp.shared_expert.*).
            for (std::string& n : s.hf_names) {
                const auto p = n.find("mlp.shared_experts.");
                if (p != std::string::npos) n.replace(p, 19, "mlp.shared_expert.");
            }
        }
        with_fused_experts(d, il, ffn);  // and the 3-D routed experts of Qwen3.5
        t.insert(t.end(), ffn.begin(), ffn.end());
        if (d.moe.shared_gate)
            t.push_back({b + "ffn_gate_inp_shexp.weight", {e}, R::ffn_gate_inp_shexp, l, {h + "mlp.shared_expert_gate.weight"}});
    }
    t.push_back(norm({"output_norm.weight", {e}, R::output_norm, -1, {"model.norm.weight"}}));
    if (!d.tied_embeddings) t.push_back({"output.weight", {e, d.n_vocab}, R::output, -1, {"lm_head.weight"}});
    return t;
}

}  // namespace ft::model
