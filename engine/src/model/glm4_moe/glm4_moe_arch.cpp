// GLM-4.5 / 4.6 / 4.7's registry entry: hyper-parameters beyond the shared ones (the per-head q/k norms of a GGUF
// file from its tensors), and the `ft synth` preset.
#include "format/gguf.h"
#include "model/arch.h"
#include "model/gguf_keys.h"
#include "model/hf_fields.h"

namespace ft::model {

std::vector<TensorSpec> glm4_moe_tensors(const ModelDesc& d);
ModelGraph glm4_moe_graph(const Weights& w);

namespace {

void read_hf(const HfConfig& f, ModelDesc& d) {
    auto& m = d.moe;
    auto& at = d.attn;
    d.n_ff = f.req_u32("intermediate_size");
    m.n_expert = f.req_u32("n_routed_experts");
    m.n_expert_used = f.req_u32("num_experts_per_tok");
    m.n_ff_exp = f.req_u32("moe_intermediate_size");
    m.n_shared_expert = f.opt_u32("n_shared_experts", 0);
    m.n_ff_shexp = m.n_ff_exp * m.n_shared_expert;
    m.first_k_dense = f.opt_u32("first_k_dense_replace", 0);
    // Glm4MoeConfig's defaults: norm_topk_prob true, n_group 1, topk_group 1 (one group: no grouping).
    m.norm_topk_prob = f.opt_bool("norm_topk_prob", true);
    m.routed_scaling_factor = f.opt_f64("routed_scaling_factor", 1.0);
    m.n_group = f.opt_u32("n_group", 1);
    m.topk_group = f.opt_u32("topk_group", 1);
    m.gating = Gating::sigmoid;
    m.correction_bias = true;  // e_score_correction_bias: always a buffer of Glm4MoeTopkRouter
    at.qk_norm = f.opt_bool("use_qk_norm", false);
    at.o_bias = false;         // o_proj has no bias whatever attention_bias says
    const double partial = f.partial_rotary_factor(1.0);
    d.rope.n_rot = static_cast<std::uint32_t>(at.head_dim * partial);  // transformers: int(head_dim * factor)
    d.nextn_predict_layers = f.opt_u32("num_nextn_predict_layers", 0);
}

// q/k/v biases, no output bias; llama.cpp's default gating for glm4moe is sigmoid.
void read_gguf(const GgufKeys&, ModelDesc& d) {
    d.moe.gating = Gating::sigmoid;
    d.moe.correction_bias = true;
    d.attn.qkv_bias = true;
}

// GLM-4.5/4.6/4.7 (355B) have per-head q/k norms, GLM-4.5-Air has none: no key says so, the tensors do.
void refine_gguf(const gguf::Reader& file, ModelDesc& d) {
    d.attn.qk_norm = file.find_tensor("blk.0.attn_q_norm.weight") != nullptr;
    d.attn.qkv_bias = file.find_tensor("blk.0.attn_q.bias") != nullptr;
}

// GLM rotates the first half of each head.
void synth_fit(ModelDesc& d) { d.rope.n_rot = d.attn.head_dim / 2; }

// GLM-4.5-Air (zai-org/GLM-4.5-Air config.json): 46 layers (+1 MTP layer), hidden 4096, layer 0 dense (FFN
// 10944), 128 experts top-8 of 1408 + 1 shared, sigmoid router with correction bias, 96/8 heads of 128, partial RoPE
// 64, vocab 151552.
ModelDesc glm45_air() {
    ModelDesc d;
    d.arch = ArchId::glm4_moe;
    d.n_vocab = 151552;
    d.n_layer = 46;
    d.nextn_predict_layers = 1;
    d.n_embd = 4096;
    d.n_ff = 10944;
    d.n_ctx_train = 131072;
    d.norm_eps = 1e-5;
    d.attn.n_head = 96, d.attn.n_head_kv = 8, d.attn.head_dim = 128;
    d.attn.qkv_bias = true;
    d.moe.n_expert = 128, d.moe.n_expert_used = 8, d.moe.n_ff_exp = 1408;
    d.moe.n_shared_expert = 1, d.moe.n_ff_shexp = 1408;
    d.moe.first_k_dense = 1;
    d.moe.gating = Gating::sigmoid;
    d.moe.correction_bias = true;
    d.moe.norm_topk_prob = true;
    d.moe.n_group = 1, d.moe.topk_group = 1;
    d.rope.type = RopeType::neox;
    d.rope.theta = 1e6;
    return d;
}

}  // namespace

const Arch& glm4_moe_arch() {
    static const Arch a{
        .id = ArchId::glm4_moe,
        .name = "glm4_moe",
        .gguf_name = "glm4moe",
        .hf = {{"Glm4MoeForCausalLM", "glm4_moe"}},
        .read_hf = &read_hf,
        .read_gguf = &read_gguf,
        .refine_gguf = &refine_gguf,
        .tensors = &glm4_moe_tensors,
        .graph = &glm4_moe_graph,
        .presets = {{"glm-4.5-air", &glm45_air}},
        .synth_fit = &synth_fit,
    };
    return a;
}

}  // namespace ft::model
