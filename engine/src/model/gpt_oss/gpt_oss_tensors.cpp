// gpt-oss (GptOssForCausalLM, GGUF "gpt-oss"): pre-norm decoder; GQA attention with q/k/v/o biases and one learned
// sink logit per head, every other layer (from layer 0) over a sliding window; YaRN RoPE (neox); every layer MoE:
// router with bias, top-k on the logits then softmax over the k, experts with gate/up/down biases and the clamped
// SwiGLU (ModelDesc::swiglu_limit / swiglu_alpha). GGUF names as llama.cpp writes them (the pre-FFN norm is
// "post_attention_norm"); HF names of the transformers checkpoint, whose experts are fused 3-D parameters
// (HfLayout::moe_fused: gate_up_proj interleaves gate and up along its last dim; the MXFP4 checkpoint stores them as
// "_blocks"/"_scales").
#include "model/model_tensors.h"

namespace ft::model {

std::vector<TensorSpec> gpt_oss_tensors(const ModelDesc& d) {
    using R = TensorRole;
    const std::uint64_t e = d.n_embd, q = std::uint64_t(d.attn.n_head) * d.attn.head_dim,
                        kv = std::uint64_t(d.attn.n_head_kv) * d.attn.head_dim;
    const std::uint64_t v_out = std::uint64_t(d.attn.n_head) * d.attn.v_head_dim;
    const std::uint64_t kv_v = std::uint64_t(d.attn.n_head_kv) * d.attn.v_head_dim;
    const std::uint64_t ff = d.moe.n_ff_exp, ne = d.moe.n_expert;
    std::vector<TensorSpec> t;
    auto add = [&](std::string name, std::vector<std::uint64_t> dims, R role, int layer, std::string hf) {
        t.push_back({std::move(name), std::move(dims), role, layer, {std::move(hf)}});
    };
    auto fused = [&](std::string name, std::vector<std::uint64_t> dims, R role, int layer, std::string hf,
                     HfLayout layout, std::uint32_t offset, std::uint32_t step) {
        TensorSpec s{std::move(name), std::move(dims), role, layer, {std::move(hf)}};
        s.hf_layout = layout;
        s.hf_offset = offset;
        s.hf_step = step;
        t.push_back(std::move(s));
    };
    add("token_embd.weight", {e, d.n_vocab}, R::token_embd, -1, "model.embed_tokens.weight");
    for (std::uint32_t il = 0; il < d.n_layer; ++il) {
        const std::string b = "blk." + std::to_string(il) + ".";
        const std::string h = "model.layers." + std::to_string(il) + ".";
        const int l = static_cast<int>(il);
        add(b + "attn_norm.weight", {e}, R::attn_norm, l, h + "input_layernorm.weight");
        add(b + "attn_q.weight", {e, q}, R::attn_q, l, h + "self_attn.q_proj.weight");
        add(b + "attn_k.weight", {e, kv}, R::attn_k, l, h + "self_attn.k_proj.weight");
        add(b + "attn_v.weight", {e, kv_v}, R::attn_v, l, h + "self_attn.v_proj.weight");
        if (d.attn.qkv_bias) {
            add(b + "attn_q.bias", {q}, R::attn_q_bias, l, h + "self_attn.q_proj.bias");
            add(b + "attn_k.bias", {kv}, R::attn_k_bias, l, h + "self_attn.k_proj.bias");
            add(b + "attn_v.bias", {kv_v}, R::attn_v_bias, l, h + "self_attn.v_proj.bias");
        }
        add(b + "attn_output.weight", {v_out, e}, R::attn_output, l, h + "self_attn.o_proj.weight");
        if (d.attn.o_bias) add(b + "attn_output.bias", {e}, R::attn_output_bias, l, h + "self_attn.o_proj.bias");
        if (d.attn.sinks) add(b + "attn_sinks.weight", {d.attn.n_head}, R::attn_sinks, l, h + "self_attn.sinks");
        add(b + "post_attention_norm.weight", {e}, R::ffn_norm, l, h + "post_attention_layernorm.weight");
        add(b + "ffn_gate_inp.weight", {e, ne}, R::ffn_gate_inp, l, h + "mlp.router.weight");
        if (d.moe.router_bias) add(b + "ffn_gate_inp.bias", {ne}, R::ffn_gate_inp_bias, l, h + "mlp.router.bias");
        const std::string x = h + "mlp.experts.";
        fused(b + "ffn_gate_exps.weight", {e, ff, ne}, R::ffn_gate_exps, l, x + "gate_up_proj", HfLayout::moe_fused, 0, 2);
        fused(b + "ffn_up_exps.weight", {e, ff, ne}, R::ffn_up_exps, l, x + "gate_up_proj", HfLayout::moe_fused, 1, 2);
        fused(b + "ffn_down_exps.weight", {ff, e, ne}, R::ffn_down_exps, l, x + "down_proj", HfLayout::moe_fused, 0, 1);
        if (d.moe.expert_bias) {
            const auto bias = HfLayout::moe_fused_bias;
            fused(b + "ffn_gate_exps.bias", {ff, ne}, R::ffn_gate_exps_bias, l, x + "gate_up_proj_bias", bias, 0, 2);
            fused(b + "ffn_up_exps.bias", {ff, ne}, R::ffn_up_exps_bias, l, x + "gate_up_proj_bias", bias, 1, 2);
            fused(b + "ffn_down_exps.bias", {e, ne}, R::ffn_down_exps_bias, l, x + "down_proj_bias", bias, 0, 1);
        }
    }
    add("output_norm.weight", {e}, R::output_norm, -1, "model.norm.weight");
    if (!d.tied_embeddings) add("output.weight", {e, d.n_vocab}, R::output, -1, "lm_head.weight");
    return t;
}

}  // namespace ft::model
