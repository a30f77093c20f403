// DeepSeek-V2 / V3's registry entry: latent attention, the grouped sigmoid (V3) or softmax (V2) router and
// DeepSeek's YaRN beyond the shared hyper-parameters, and the `ft synth` presets.
#include <cmath>

#include "model/arch.h"
#include "model/gguf_keys.h"
#include "model/hf_fields.h"

namespace ft::model {

std::vector<TensorSpec> deepseek_v3_tensors(const ModelDesc& d);
ModelGraph deepseek_v3_graph(const Weights& w);

namespace {

void read_hf(const HfConfig& f, ModelDesc& d) {
    auto& m = d.moe;
    auto& at = d.attn;
    auto& r = d.rope;
    const nlohmann::json& cfg = f.raw();
    // rope_interleave (default true): transformers rotates (x[2i], x[2i+1]) pairs — our "norm" — by
    // de-interleaving q and k into halves first (the logits are the same); false: halves (neox).
    r.type = f.opt_bool("rope_interleave", true) ? RopeType::norm : RopeType::neox;
    d.n_ff = f.req_u32("intermediate_size");
    m.n_expert = f.req_u32("n_routed_experts");
    m.n_expert_used = f.req_u32("num_experts_per_tok");
    m.n_ff_exp = f.req_u32("moe_intermediate_size");
    m.n_shared_expert = f.opt_u32("n_shared_experts", 0);
    m.n_ff_shexp = m.n_ff_exp * m.n_shared_expert;
    m.first_k_dense = f.opt_u32("first_k_dense_replace", 0);
    m.moe_every = std::max<std::uint32_t>(1, f.opt_u32("moe_layer_freq", 1));
    m.norm_topk_prob = f.opt_bool("norm_topk_prob", false);
    m.routed_scaling_factor = f.opt_f64("routed_scaling_factor", 1.0);
    m.n_group = f.opt_u32("n_group", 0);
    m.topk_group = f.opt_u32("topk_group", 0);
    // DeepSeek-V3's own config says scoring_func "sigmoid", topk_method "noaux_tc"; transformers 5 writes
    // neither (its DeepseekV3 router is always sigmoid with the correction bias). V2's say softmax / greedy.
    const std::string scoring = cfg.value("scoring_func", std::string("sigmoid"));
    m.gating = scoring == "sigmoid" ? Gating::sigmoid : Gating::softmax;
    m.correction_bias = cfg.value("topk_method", std::string("noaux_tc")) == "noaux_tc";
    at.q_lora_rank = f.opt_u32("q_lora_rank", 0);
    at.kv_lora_rank = f.req_u32("kv_lora_rank");
    at.qk_nope_head_dim = f.req_u32("qk_nope_head_dim");
    at.qk_rope_head_dim = f.req_u32("qk_rope_head_dim");
    at.v_head_dim = f.req_u32("v_head_dim");
    at.head_dim = at.qk_nope_head_dim + at.qk_rope_head_dim;
    at.n_head_kv = 1;  // one latent row per position
    r.n_rot = at.qk_rope_head_dim;
    // YaRN with DeepSeek's mscale / mscale_all_dim: cos/sin scaled by mscale(f, mscale) / mscale(f,
    // mscale_all_dim) (1 for V3) and the logits by mscale(f, mscale_all_dim)² (yarn_log_multiplier).
    const nlohmann::json* rope = f.rope();
    if (rope && r.scaling == RopeScaling::yarn && r.factor > 1.0 && !HfConfig(*rope, f.source()).has("attention_factor")) {
        const nlohmann::json& rs = *rope;
        auto ms = [&](const char* k) {
            const double m = rs.contains(k) && rs[k].is_number() ? rs[k].get<double>() : 0.0;
            return 0.1 * m * std::log(r.factor) + 1.0;
        };
        if (rs.contains("mscale") && rs.contains("mscale_all_dim") && rs["mscale"].is_number() &&
            rs["mscale_all_dim"].is_number() && rs["mscale"].get<double>() != 0 && rs["mscale_all_dim"].get<double>() != 0)
            r.attn_factor = ms("mscale") / ms("mscale_all_dim") / (0.1 * std::log(r.factor) + 1.0);
    }
}

void read_gguf(const GgufKeys& k, ModelDesc& d) {
    auto& at = d.attn;
    auto& r = d.rope;
    r.type = RopeType::norm;
    d.moe.gating = Gating::sigmoid;
    d.moe.correction_bias = true;
    if (auto kl = k.opt_count("attention.key_length_mla")) at.head_dim = static_cast<std::uint32_t>(*kl);
    if (auto vl = k.opt_count("attention.value_length_mla")) at.v_head_dim = static_cast<std::uint32_t>(*vl);
    at.qk_rope_head_dim = r.n_rot;
    at.qk_nope_head_dim = at.head_dim > r.n_rot ? at.head_dim - r.n_rot : 0;
    at.n_head_kv = 1;  // one latent row per position (older files say n_head: the same model)
    // llama.cpp runs DeepSeek's YaRN with cos/sin of magnitude 1 (its attn_factor_scaled cancels YaRN's
    // 0.1·ln(factor) + 1) and puts the temperature on the logits (yarn_log_multiplier).
    if (r.scaling == RopeScaling::yarn && r.factor > 1.0) r.attn_factor = 1.0 / (0.1 * std::log(r.factor) + 1.0);
}

// DeepSeek's magnitude is llama.cpp's convention for the architecture (set when read), not a key.
void write_gguf(const ModelDesc&, GgufKeyWriter& w) { w.erase("rope.scaling.attn_factor"); }

// DeepSeek-V3 / R1 (deepseek-ai/DeepSeek-V3 config.json: 671B, 37B active): 61 layers (3 dense, FFN 18432), hidden
// 7168, latent attention (128 heads, q rank 1536, KV rank 512, 128 + 64 rope, values 128), 256 experts top-8 of
// 2048 + 1 shared, sigmoid router with correction bias in 8 groups (4 kept), routed scaling 2.5, YaRN ×40 over
// 4096, vocab 129280. DeepSeek-V2-Lite (deepseek-ai/DeepSeek-V2-Lite: 16B, 2.4B active): 27 layers (1 dense, FFN
// 10944), hidden 2048, latent attention (16 heads, no q rank, KV rank 512), 64 experts top-6 of 1408 + 2 shared,
// softmax router, no groups, vocab 102400.
ModelDesc deepseek_desc(bool v3) {
    ModelDesc d;
    d.arch = ArchId::deepseek_v3;
    d.norm_eps = 1e-6;
    d.n_ctx_train = 163840;
    auto& at = d.attn;
    at.kv_lora_rank = 512, at.qk_nope_head_dim = 128, at.qk_rope_head_dim = 64, at.v_head_dim = 128;
    at.head_dim = at.qk_nope_head_dim + at.qk_rope_head_dim;
    at.n_head_kv = 1;
    d.rope.type = RopeType::norm;
    d.rope.theta = 10000;
    d.rope.n_rot = at.qk_rope_head_dim;
    d.rope.scaling = RopeScaling::yarn;
    d.rope.factor = 40;
    d.rope.original_context = 4096;
    d.rope.attn_factor = 1.0 / (0.1 * std::log(40.0) + 1.0);  // magnitude 1, as llama.cpp runs DeepSeek
    auto& m = d.moe;
    if (v3) {
        d.n_vocab = 129280, d.n_layer = 61, d.n_embd = 7168, d.n_ff = 18432;
        at.n_head = 128, at.q_lora_rank = 1536;
        m.n_expert = 256, m.n_expert_used = 8, m.n_ff_exp = 2048, m.n_shared_expert = 1, m.first_k_dense = 3;
        m.gating = Gating::sigmoid, m.correction_bias = true, m.norm_topk_prob = true;
        m.routed_scaling_factor = 2.5, m.n_group = 8, m.topk_group = 4;
        d.rope.yarn_log_multiplier = 0.1;  // mscale_all_dim 1
    } else {
        d.n_vocab = 102400, d.n_layer = 27, d.n_embd = 2048, d.n_ff = 10944;
        at.n_head = 16;
        m.n_expert = 64, m.n_expert_used = 6, m.n_ff_exp = 1408, m.n_shared_expert = 2, m.first_k_dense = 1;
        m.gating = Gating::softmax, m.norm_topk_prob = false;
        d.rope.yarn_log_multiplier = 0.0707;  // mscale_all_dim 0.707
    }
    m.n_ff_shexp = m.n_ff_exp * m.n_shared_expert;
    return d;
}

}  // namespace

const Arch& deepseek_v3_arch() {
    static const Arch a{
        .id = ArchId::deepseek_v3,
        .name = "deepseek_v3",
        .gguf_name = "deepseek2",
        .hf = {{"DeepseekV3ForCausalLM", "deepseek_v3"}},
        .read_hf = &read_hf,
        .read_gguf = &read_gguf,
        .write_gguf = &write_gguf,
        .tensors = &deepseek_v3_tensors,
        .graph = &deepseek_v3_graph,
        .presets = {{"deepseek-v3", [] { return deepseek_desc(true); }},
                    {"deepseek-v2-lite", [] { return deepseek_desc(false); }}},
    };
    return a;
}

}  // namespace ft::model
