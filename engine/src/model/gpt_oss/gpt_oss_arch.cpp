// gpt-oss's registry entry: hyper-parameters beyond the shared ones, and the `ft synth` presets (MXFP4 experts and
// BF16 matrices, as the released GGUF files have them).
#include "model/arch.h"
#include "model/gguf_keys.h"
#include "model/hf_fields.h"

namespace ft::model {

std::vector<TensorSpec> gpt_oss_tensors(const ModelDesc& d);
ModelGraph gpt_oss_graph(const Weights& w);

namespace {

void read_hf(const HfConfig& f, ModelDesc& d) {
    auto& m = d.moe;
    auto& at = d.attn;
    m.n_expert = f.req_u32("num_local_experts");
    m.n_expert_used = f.raw().contains("num_experts_per_tok") ? f.req_u32("num_experts_per_tok") : f.req_u32("experts_per_token");
    m.n_ff_exp = f.req_u32("intermediate_size");
    m.gating = Gating::softmax_weight;
    m.router_bias = true;
    m.expert_bias = true;
    at.sinks = true;
    at.qkv_bias = f.opt_bool("attention_bias", true);  // q/k/v/o_proj all take attention_bias
    at.o_bias = at.qkv_bias;
    d.swiglu_limit = f.opt_f64("swiglu_limit", 7.0);
    d.swiglu_alpha = f.opt_f64("swiglu_alpha", 1.702);  // transformers 5 config field; older: a constant
    at.sliding_window = f.opt_u32("sliding_window", 0);
    const nlohmann::json& cfg = f.raw();
    if (cfg.contains("layer_types") && cfg["layer_types"].is_array()) {
        for (const auto& t : cfg["layer_types"]) {
            if (!t.is_string() || (t != "sliding_attention" && t != "full_attention"))
                f.bad("layer_types", "expected \"sliding_attention\" or \"full_attention\", got " + t.dump());
            at.swa_layers.push_back(t == "sliding_attention");
        }
    } else if (at.sliding_window) {
        at.swa_layers.assign(d.n_layer, false);
        for (std::uint32_t il = 0; il < d.n_layer; il += 2) at.swa_layers[il] = true;
    }
}

void read_gguf(const GgufKeys& k, ModelDesc& d) {
    auto& at = d.attn;
    d.moe.gating = Gating::softmax_weight;
    d.moe.router_bias = true;
    d.moe.expert_bias = true;
    at.qkv_bias = true;
    at.o_bias = true;
    at.sinks = true;
    d.swiglu_limit = 7.0;
    d.swiglu_alpha = 1.702;
    d.rope.yarn_truncate = false;  // the reference (and HF's config, truncate: false) keeps the exact ramp ends
    if (at.sliding_window) read_swa_pattern(k, d);
}

// gpt-oss-20b / 120b (openai/gpt-oss-* config.json): 24 / 36 layers, hidden 2880, 32 / 128 experts top-4, expert
// FFN 2880, 64/8 heads of 64, vocab 201088, sliding window 128 on even layers, sinks, biases, YaRN ×32 over 4096,
// clamped SwiGLU.
ModelDesc gpt_oss_desc(bool big) {
    ModelDesc d;
    d.arch = ArchId::gpt_oss;
    d.n_vocab = 201088;
    d.n_layer = big ? 36 : 24;
    d.n_embd = 2880;
    d.n_ctx_train = 131072;
    d.norm_eps = 1e-5;
    d.attn.n_head = 64, d.attn.n_head_kv = 8, d.attn.head_dim = 64;
    d.attn.qkv_bias = d.attn.o_bias = d.attn.sinks = true;
    d.attn.sliding_window = 128;
    d.moe.n_expert = big ? 128 : 32, d.moe.n_expert_used = 4, d.moe.n_ff_exp = 2880;
    d.moe.gating = Gating::softmax_weight;
    d.moe.router_bias = d.moe.expert_bias = true;
    d.swiglu_limit = 7.0;
    d.swiglu_alpha = 1.702;
    d.rope.type = RopeType::neox;
    d.rope.theta = 150000;
    d.rope.scaling = RopeScaling::yarn;
    d.rope.factor = 32;
    d.rope.original_context = 4096;
    d.rope.yarn_truncate = false;
    return d;
}

}  // namespace

const Arch& gpt_oss_arch() {
    static const Arch a{
        .id = ArchId::gpt_oss,
        .name = "gpt_oss",
        .gguf_name = "gpt-oss",
        .hf = {{"GptOssForCausalLM", "gpt_oss"}},
        .read_hf = &read_hf,
        .read_gguf = &read_gguf,
        .tensors = &gpt_oss_tensors,
        .graph = &gpt_oss_graph,
        .presets = {{"gpt-oss-20b", [] { return gpt_oss_desc(false); }}, {"gpt-oss-120b", [] { return gpt_oss_desc(true); }}},
        .synth_weights = kernels::DType::BF16,
        .synth_expert_weights = kernels::DType::MXFP4,
    };
    return a;
}

}  // namespace ft::model
