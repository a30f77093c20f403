// Qwen3-MoE's registry entry: hyper-parameters beyond the shared ones, and the `ft synth` presets.
#include "model/arch.h"
#include "model/gguf_keys.h"
#include "model/hf_fields.h"

namespace ft::model {

std::vector<TensorSpec> qwen3_moe_tensors(const ModelDesc& d);
ModelGraph qwen3_moe_graph(const Weights& w);

namespace {

void read_hf(const HfConfig& f, ModelDesc& d) {
    auto& m = d.moe;
    d.attn.qk_norm = true;
    d.n_ff = f.opt_u32("intermediate_size", 0);
    // transformers 5 saves num_local_experts where Qwen's own configs say num_experts.
    m.n_expert = f.has("num_local_experts") && !f.has("num_experts") ? f.req_u32("num_local_experts") : f.req_u32("num_experts");
    m.n_expert_used = f.req_u32("num_experts_per_tok");
    m.n_ff_exp = f.req_u32("moe_intermediate_size");
    m.norm_topk_prob = f.opt_bool("norm_topk_prob", false);
    m.moe_every = std::max<std::uint32_t>(1, f.opt_u32("decoder_sparse_step", 1));
    m.dense_layers = f.u32_list("mlp_only_layers");
    if (f.opt_bool("use_sliding_window", false)) d.attn.sliding_window = f.opt_u32("sliding_window", 0);
}

// llama.cpp hard-codes the per-head q/k norms and the renormalised top-k.
void read_gguf(const GgufKeys&, ModelDesc& d) {
    d.attn.qk_norm = true;
    d.moe.norm_topk_prob = true;
}

ModelDesc qwen3_common() {
    ModelDesc d;
    d.arch = ArchId::qwen3_moe;
    d.n_vocab = 151936;  // Qwen3's embedding rows (the tokenizer's 151669 tokens, padded)
    d.norm_eps = 1e-6;
    d.rope.type = RopeType::neox;
    d.rope.theta = 1e6;
    d.moe.gating = Gating::softmax;
    d.moe.norm_topk_prob = true;
    d.attn.qk_norm = true;
    return d;
}

// tiny: 4 layers, hidden 256, 16 experts top-4, expert FFN 256, 4/2 heads of 64, vocab 151936.
ModelDesc tiny() {
    ModelDesc d = qwen3_common();
    d.n_layer = 4, d.n_embd = 256, d.n_ctx_train = 4096, d.n_ff = 768;
    d.attn.n_head = 4, d.attn.n_head_kv = 2, d.attn.head_dim = 64;
    d.moe.n_expert = 16, d.moe.n_expert_used = 4, d.moe.n_ff_exp = 256;
    return d;
}

// Qwen3-30B-A3B (Qwen/Qwen3-30B-A3B config.json): 48 layers, hidden 2048, 128 experts top-8, expert FFN 768, 32/4
// heads of 128.
ModelDesc qwen3_30b_a3b() {
    ModelDesc d = qwen3_common();
    d.n_layer = 48, d.n_embd = 2048, d.n_ctx_train = 40960, d.n_ff = 6144;
    d.attn.n_head = 32, d.attn.n_head_kv = 4, d.attn.head_dim = 128;
    d.moe.n_expert = 128, d.moe.n_expert_used = 8, d.moe.n_ff_exp = 768;
    return d;
}

}  // namespace

const Arch& qwen3_moe_arch() {
    static const Arch a{
        .id = ArchId::qwen3_moe,
        .name = "qwen3_moe",
        .gguf_name = "qwen3moe",
        .hf = {{"Qwen3MoeForCausalLM", "qwen3_moe"}},
        .read_hf = &read_hf,
        .read_gguf = &read_gguf,
        .tensors = &qwen3_moe_tensors,
        .graph = &qwen3_moe_graph,
        .presets = {{"tiny", &tiny}, {"qwen3-30b-a3b", &qwen3_30b_a3b}},
    };
    return a;
}

}  // namespace ft::model
