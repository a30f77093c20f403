// DeepSeek-V4's registry entry: hyper-connections, the layer kinds (sliding / CSA / HCA), the indexer, the grouped
// output, hash routing and the compressed branches' RoPE beyond the shared hyper-parameters — from config.json and
// from our GGUF keys (named after llama.cpp's deepseek4 hyper-parameters; see docs/architectures.md) — and the
// `ft synth` preset.
#include <cmath>

#include "format/gguf.h"
#include "ft/error.h"
#include "model/arch.h"
#include "model/gguf_keys.h"
#include "model/hf_fields.h"

namespace ft::model {

std::vector<TensorSpec> deepseek_v4_tensors(const ModelDesc& d);
ModelGraph deepseek_v4_graph(const Weights& w);

namespace {

// DeepseekV4Config's defaults (V4-Flash) where config.json leaves a field out; the legacy names older checkpoints
// ship (compress_ratios, compress_rate_csa / _hca, num_hash_layers, qk_rope_head_dim) too.
void read_hf(const HfConfig& f, ModelDesc& d) {
    const nlohmann::json& cfg = f.raw();
    const std::string& source = f.source();
    auto& m = d.moe;
    auto& at = d.attn;
    auto& r = d.rope;
    auto& v = d.v4;
    at.n_head_kv = 1;  // shared-KV MQA: one K = V head
    at.head_dim = f.opt_u32("head_dim", 512);
    at.v_head_dim = at.head_dim;
    at.sinks = true;
    at.q_lora_rank = f.opt_u32("q_lora_rank", 1024);
    at.sliding_window = f.opt_u32("sliding_window", 128);
    m.n_expert = f.opt_u32("n_routed_experts", 256);
    m.n_expert_used = f.opt_u32("num_experts_per_tok", 6);
    m.n_ff_exp = f.opt_u32("moe_intermediate_size", 2048);
    m.n_shared_expert = f.opt_u32("n_shared_experts", 1);
    m.n_ff_shexp = m.n_ff_exp * m.n_shared_expert;
    m.norm_topk_prob = f.opt_bool("norm_topk_prob", true);
    m.routed_scaling_factor = f.opt_f64("routed_scaling_factor", 1.5);
    const std::string scoring = cfg.value("scoring_func", std::string("sqrtsoftplus"));
    if (scoring == "sqrtsoftplus") m.gating = Gating::sqrtsoftplus;
    else if (scoring == "sigmoid") m.gating = Gating::sigmoid;
    else if (scoring == "softmax") m.gating = Gating::softmax;
    else f.bad("scoring_func", "expected sqrtsoftplus, sigmoid or softmax, got \"" + scoring + "\"");
    m.correction_bias = true;  // e_score_correction_bias: a buffer of every top-k router
    d.swiglu_limit = f.opt_f64("swiglu_limit", 10.0);
    d.swiglu_alpha = 0.0;      // the plain clamp: silu(min(gate, limit)) · clamp(up, ±limit)
    v.hc_mult = f.opt_u32("hc_mult", 4);
    v.hc_sinkhorn_iters = f.opt_u32("hc_sinkhorn_iters", 20);
    v.hc_eps = f.opt_f64("hc_eps", 1e-6);
    v.o_groups = f.opt_u32("o_groups", 8);
    v.o_lora_rank = f.opt_u32("o_lora_rank", 1024);
    v.index_n_heads = f.opt_u32("index_n_heads", 64);
    v.index_head_dim = f.opt_u32("index_head_dim", 128);
    v.index_topk = f.opt_u32("index_topk", 512);
    if (const nlohmann::json* rates = f.object("compress_rates")) {
        HfConfig cr(*rates, source);
        v.csa_ratio = cr.opt_u32("compressed_sparse_attention", 4);
        v.hca_ratio = cr.opt_u32("heavily_compressed_attention", 128);
    }
    v.csa_ratio = f.opt_u32("compress_rate_csa", v.csa_ratio);
    v.hca_ratio = f.opt_u32("compress_rate_hca", v.hca_ratio);
    if (cfg.contains("layer_types") && cfg["layer_types"].is_array()) {
        for (const auto& t : cfg["layer_types"]) {
            if (t == "sliding_attention") v.layers.push_back(V4LayerKind::sliding);
            else if (t == "compressed_sparse_attention") v.layers.push_back(V4LayerKind::csa);
            else if (t == "heavily_compressed_attention") v.layers.push_back(V4LayerKind::hca);
            else f.bad("layer_types", "expected sliding_attention, compressed_sparse_attention or "
                                      "heavily_compressed_attention, got " + t.dump());
        }
    } else if (cfg.contains("compress_ratios") && cfg["compress_ratios"].is_array()) {
        for (const auto& t : cfg["compress_ratios"]) {
            const std::uint32_t ratio = f.to_u32("compress_ratios", t);
            if (ratio == 0) v.layers.push_back(V4LayerKind::sliding);
            else if (ratio == v.csa_ratio || ratio == 4) v.layers.push_back(V4LayerKind::csa);
            else if (ratio == v.hca_ratio || ratio == 128) v.layers.push_back(V4LayerKind::hca);
            else f.bad("compress_ratios", "expected 0, 4 or 128, got " + t.dump());
        }
    } else {  // DeepseekV4Config's default: 2 HCA layers, then HCA / CSA alternating
        for (std::uint32_t il = 0; il < d.n_layer; ++il)
            v.layers.push_back(il >= 2 && (il - 2) % 2 == 1 ? V4LayerKind::csa : V4LayerKind::hca);
    }
    if (v.layers.size() > d.n_layer) v.layers.resize(d.n_layer);  // transformers keeps the first n_layer
    if (cfg.contains("mlp_layer_types") && cfg["mlp_layer_types"].is_array()) {
        bool dense_seen = false;
        for (const auto& t : cfg["mlp_layer_types"]) {
            if (t == "hash_moe") {
                if (dense_seen) f.bad("mlp_layer_types", "hash_moe layers after a moe layer");
                ++v.n_hash_layers;
            } else if (t == "moe") {
                dense_seen = true;
            } else {
                f.bad("mlp_layer_types", "expected hash_moe or moe, got " + t.dump());
            }
        }
        v.n_hash_layers = std::min(v.n_hash_layers, d.n_layer);
    } else {
        v.n_hash_layers = std::min(f.opt_u32("num_hash_layers", 3), d.n_layer);
    }
    // RoPE: interleaved pairs on the trailing rope dims. rope_parameters {main, compress} (transformers 5), or a
    // flat one whose scaling (YaRN) applies to the compressed branches only, the main rope plain.
    double partial = f.opt_f64("partial_rotary_factor", 0.0);
    if (!(partial > 0.0)) partial = f.has("qk_rope_head_dim") ? double(f.req_u32("qk_rope_head_dim")) / at.head_dim : 64.0 / 512.0;
    if (!(partial > 0.0 && partial <= 1.0)) f.bad("partial_rotary_factor", "must be in (0, 1]");
    r = RopeDesc{};
    r.type = RopeType::norm;
    r.n_rot = static_cast<std::uint32_t>(at.head_dim * partial);
    r.theta = f.opt_f64("rope_theta", 10000.0);
    RopeDesc c = r;
    c.theta = f.opt_f64("compress_rope_theta", 160000.0);
    const nlohmann::json* rp = f.object("rope_parameters") ? f.object("rope_parameters") : f.object("rope_scaling");
    if (rp && rp->contains("main") && (*rp)["main"].is_object() && rp->contains("compress") && (*rp)["compress"].is_object()) {
        read_rope_scaling(HfConfig((*rp)["main"], source), r);
        r.theta = HfConfig((*rp)["main"], source).opt_f64("rope_theta", r.theta);
        read_rope_scaling(HfConfig((*rp)["compress"], source), c);
        c.theta = HfConfig((*rp)["compress"], source).opt_f64("rope_theta", c.theta);
    } else if (rp) {
        read_rope_scaling(HfConfig(*rp, source), c);
        // the reference does not scale cos/sin by YaRN's magnitude on the compressed branches
        if (c.scaling == RopeScaling::yarn && c.factor > 1.0 && !rp->contains("attention_factor"))
            c.attn_factor = 1.0 / (0.1 * std::log(c.factor) + 1.0);
    }
    v.compress_rope = c;
}

void read_gguf(const GgufKeys& k, ModelDesc& d) {
    auto& m = d.moe;
    auto& at = d.attn;
    auto& r = d.rope;
    auto& v = d.v4;
    r.type = RopeType::norm;
    m.gating = Gating::sqrtsoftplus;
    m.correction_bias = true;
    m.norm_topk_prob = true;
    at.n_head_kv = 1;
    at.sinks = true;
    d.swiglu_limit = k.opt_f64("swiglu_limit", 0.0);
    d.swiglu_alpha = 0.0;
    v.hc_mult = k.req_u32("hyper_connection.count");
    v.hc_sinkhorn_iters = k.opt_u32("hyper_connection.sinkhorn_iterations", 20);
    v.hc_eps = k.opt_f64("hyper_connection.epsilon", 1e-6);
    v.o_groups = k.req_u32("attention.output_group_count");
    v.o_lora_rank = k.req_u32("attention.output_lora_rank");
    v.index_n_heads = k.opt_u32("attention.indexer.head_count", 0);
    v.index_head_dim = k.opt_u32("attention.indexer.key_length", 0);
    v.index_topk = k.opt_u32("attention.indexer.top_k", 0);
    v.n_hash_layers = k.opt_u32("hash_layer_count", 0);
    v.csa_ratio = k.opt_u32("attention.compress_ratio_csa", 4);
    v.hca_ratio = k.opt_u32("attention.compress_ratio_hca", 128);
    const std::string rk = k.key("attention.compress_ratios");
    const gguf::Value* ratios = k.find("attention.compress_ratios");
    if (!ratios || !ratios->is_array()) throw Error(ErrorCode::not_found, k.source() + ": missing key (" + rk + ")");
    for (std::uint64_t x : ratios->as_u64_array({k.source(), rk})) {
        if (x == 0) v.layers.push_back(V4LayerKind::sliding);
        else if (x == v.csa_ratio) v.layers.push_back(V4LayerKind::csa);
        else if (x == v.hca_ratio) v.layers.push_back(V4LayerKind::hca);
        else
            throw Error(ErrorCode::invalid_file, k.source() + ": compress ratio " + std::to_string(x) +
                                                     " is neither 0 nor the CSA / HCA ratio (" + rk + ")");
    }
    RopeDesc c = r;
    c.theta = k.opt_f64("rope.compress.freq_base", r.theta);
    c.scaling = RopeScaling::none;
    if (auto s = k.opt_string("rope.compress.scaling.type"); s && *s == "yarn") c.scaling = RopeScaling::yarn;
    c.factor = k.opt_f64("rope.compress.scaling.factor", 1.0);
    c.original_context = k.opt_u32("rope.compress.scaling.original_context_length", 0);
    c.yarn_beta_fast = k.opt_f64("rope.compress.scaling.yarn_beta_fast", 32.0);
    c.yarn_beta_slow = k.opt_f64("rope.compress.scaling.yarn_beta_slow", 1.0);
    c.attn_factor = k.opt_f64("rope.compress.scaling.attn_factor", 1.0);
    v.compress_rope = c;
}

void write_gguf(const ModelDesc& d, GgufKeyWriter& w) {
    const V4Desc& v = d.v4;
    w.u32("hyper_connection.count", v.hc_mult);
    w.u32("hyper_connection.sinkhorn_iterations", v.hc_sinkhorn_iters);
    w.f32("hyper_connection.epsilon", v.hc_eps);
    w.u32("attention.q_lora_rank", d.attn.q_lora_rank);
    w.u32("attention.output_group_count", v.o_groups);
    w.u32("attention.output_lora_rank", v.o_lora_rank);
    if (v.index_n_heads) {
        w.u32("attention.indexer.head_count", v.index_n_heads);
        w.u32("attention.indexer.key_length", v.index_head_dim);
        w.u32("attention.indexer.top_k", v.index_topk);
    }
    w.u32("hash_layer_count", v.n_hash_layers);
    w.u32("attention.compress_ratio_csa", v.csa_ratio);
    w.u32("attention.compress_ratio_hca", v.hca_ratio);
    std::vector<std::uint32_t> ratios;
    for (std::uint32_t il = 0; il < d.n_layer; ++il) ratios.push_back(v.ratio(il));
    w.set("attention.compress_ratios", gguf::Value::u32_array(ratios));
    if (d.swiglu_limit > 0) w.f32("swiglu_limit", d.swiglu_limit);
    const RopeDesc& c = v.compress_rope;
    w.f32("rope.compress.freq_base", c.theta);
    if (c.scaling == RopeScaling::yarn) {
        w.set("rope.compress.scaling.type", gguf::Value::string("yarn"));
        w.f32("rope.compress.scaling.factor", c.factor);
        w.u32("rope.compress.scaling.original_context_length", c.original_context);
        w.f32("rope.compress.scaling.yarn_beta_fast", c.yarn_beta_fast);
        w.f32("rope.compress.scaling.yarn_beta_slow", c.yarn_beta_slow);
        w.f32("rope.compress.scaling.attn_factor", c.attn_factor);
    }
}

// The layer kinds as DeepSeek-V4-Flash lays them out, for any depth: 2 sliding, then CSA / HCA alternating.
void synth_fit(ModelDesc& d) {
    d.v4.layers.clear();
    for (std::uint32_t il = 0; il < d.n_layer; ++il)
        d.v4.layers.push_back(il < 2 ? V4LayerKind::sliding : (il - 2) % 2 == 0 ? V4LayerKind::csa : V4LayerKind::hca);
    if (d.n_layer == 43) d.v4.layers.back() = V4LayerKind::csa;  // as the released config
    d.v4.n_hash_layers = std::min(d.v4.n_hash_layers, d.n_layer);
    if (d.attn.n_head % d.v4.o_groups) d.v4.o_groups = 1;
}

// DeepSeek-V4-Flash (DeepseekV4Config's defaults, checkpoint deepseek-ai/DeepSeek-V4-Flash-Base, with the
// compress_ratios of DeepSeek-V4-Flash's config.json): 43 layers (2 sliding-window, then CSA / HCA alternating, the
// last CSA), hidden 4096, 4 hyper-connection streams, 64 heads of 512 sharing one K = V head (RoPE on 64, window
// 128, sinks), q rank 1024, grouped output 8 × 1024, CSA ratio 4 with an indexer of 64 heads of 128 (top-512), HCA
// ratio 128 (YaRN ×16 over 65536 on the compressed branches); 256 experts top-6 of 2048 + 1 shared, sqrt-softplus
// router with correction bias, hash routing in layers 0-2, SwiGLU clamped at 10; vocab 129280.
ModelDesc deepseek_v4_flash() {
    ModelDesc d;
    d.arch = ArchId::deepseek_v4;
    d.n_vocab = 129280, d.n_layer = 43, d.n_embd = 4096, d.n_ctx_train = 1048576;
    d.norm_eps = 1e-6;
    auto& at = d.attn;
    at.n_head = 64, at.n_head_kv = 1, at.head_dim = 512, at.v_head_dim = 512, at.q_lora_rank = 1024;
    at.sinks = true;
    at.sliding_window = 128;
    d.rope.type = RopeType::norm;
    d.rope.theta = 10000;
    d.rope.n_rot = 64;
    auto& m = d.moe;
    m.n_expert = 256, m.n_expert_used = 6, m.n_ff_exp = 2048, m.n_shared_expert = 1, m.n_ff_shexp = 2048;
    m.gating = Gating::sqrtsoftplus, m.correction_bias = true, m.norm_topk_prob = true;
    m.routed_scaling_factor = 1.5;
    d.swiglu_limit = 10.0;
    auto& v = d.v4;
    v.hc_mult = 4, v.hc_sinkhorn_iters = 20, v.hc_eps = 1e-6;
    v.o_groups = 8, v.o_lora_rank = 1024;
    v.index_n_heads = 64, v.index_head_dim = 128, v.index_topk = 512;
    v.n_hash_layers = 3;
    v.csa_ratio = 4, v.hca_ratio = 128;
    v.compress_rope = d.rope;
    v.compress_rope.theta = 160000;
    v.compress_rope.scaling = RopeScaling::yarn;
    v.compress_rope.factor = 16;
    v.compress_rope.original_context = 65536;
    v.compress_rope.attn_factor = 1.0 / (0.1 * std::log(16.0) + 1.0);  // cos/sin unscaled, as the reference
    return d;
}

}  // namespace

const Arch& deepseek_v4_arch() {
    static const Arch a{
        .id = ArchId::deepseek_v4,
        .name = "deepseek_v4",
        .gguf_name = "deepseek4",
        .hf = {{"DeepseekV4ForCausalLM", "deepseek_v4"}},
        .read_hf = &read_hf,
        .read_gguf = &read_gguf,
        .write_gguf = &write_gguf,
        .tensors = &deepseek_v4_tensors,
        .graph = &deepseek_v4_graph,
        .presets = {{"deepseek-v4-flash", &deepseek_v4_flash}},
        .synth_fit = &synth_fit,
    };
    return a;
}

}  // namespace ft::model
