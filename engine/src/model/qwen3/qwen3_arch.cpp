// Dense Qwen3's registry entry (Qwen3ForCausalLM, GGUF "qwen3"): Qwen3-MoE's attention with a dense SwiGLU FFN on
// every layer — a graph without MoE blocks — and the `ft synth` presets.
#include "model/arch.h"
#include "model/gguf_keys.h"
#include "model/hf_fields.h"

namespace ft::model {

std::vector<TensorSpec> qwen3_tensors(const ModelDesc& d);
ModelGraph qwen3_graph(const Weights& w);

namespace {

void read_hf(const HfConfig& f, ModelDesc& d) {
    d.attn.qk_norm = true;
    d.n_ff = f.req_u32("intermediate_size");
    // transformers' Qwen3: with use_sliding_window, the layers from max_window_layers on attend a window (the
    // released models have it off).
    if (f.opt_bool("use_sliding_window", false)) {
        d.attn.sliding_window = f.req_u32("sliding_window");
        const std::uint32_t from = f.opt_u32("max_window_layers", d.n_layer);
        d.attn.swa_layers.assign(d.n_layer, false);
        for (std::uint32_t il = from; il < d.n_layer; ++il) d.attn.swa_layers[il] = true;
    }
}

// llama.cpp hard-codes the per-head q/k norms.
void read_gguf(const GgufKeys&, ModelDesc& d) { d.attn.qk_norm = true; }

ModelDesc qwen3_common() {
    ModelDesc d;
    d.arch = ArchId::qwen3;
    d.n_vocab = 151936;  // Qwen3's embedding rows (the tokenizer's 151669 tokens, padded)
    d.norm_eps = 1e-6;
    d.n_ctx_train = 40960;
    d.rope.type = RopeType::neox;
    d.rope.theta = 1e6;
    d.attn.qk_norm = true;
    return d;
}

// tiny: 4 layers, hidden 256, FFN 768, 4/2 heads of 64, vocab 151936.
ModelDesc tiny() {
    ModelDesc d = qwen3_common();
    d.n_layer = 4, d.n_embd = 256, d.n_ctx_train = 4096, d.n_ff = 768;
    d.attn.n_head = 4, d.attn.n_head_kv = 2, d.attn.head_dim = 64;
    return d;
}

// Qwen3-32B (Qwen/Qwen3-32B config.json): 64 layers, hidden 5120, FFN 25600, 64/8 heads of 128, untied head.
ModelDesc qwen3_32b() {
    ModelDesc d = qwen3_common();
    d.n_layer = 64, d.n_embd = 5120, d.n_ff = 25600;
    d.attn.n_head = 64, d.attn.n_head_kv = 8, d.attn.head_dim = 128;
    return d;
}

// Qwen3-8B (Qwen/Qwen3-8B config.json): 36 layers, hidden 4096, FFN 12288, 32/8 heads of 128, untied head.
ModelDesc qwen3_8b() {
    ModelDesc d = qwen3_common();
    d.n_layer = 36, d.n_embd = 4096, d.n_ff = 12288;
    d.attn.n_head = 32, d.attn.n_head_kv = 8, d.attn.head_dim = 128;
    return d;
}

}  // namespace

const Arch& qwen3_arch() {
    static const Arch a{
        .id = ArchId::qwen3,
        .name = "qwen3",
        .gguf_name = "qwen3",
        .hf = {{"Qwen3ForCausalLM", "qwen3"}},
        .moe = false,
        .read_hf = &read_hf,
        .read_gguf = &read_gguf,
        .tensors = &qwen3_tensors,
        .graph = &qwen3_graph,
        .presets = {{"qwen3-dense-tiny", &tiny}, {"qwen3-8b", &qwen3_8b}, {"qwen3-32b", &qwen3_32b}},
    };
    return a;
}

}  // namespace ft::model
