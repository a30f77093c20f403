// ModelDesc from a Hugging Face config.json (the transformers field names of each supported architecture).
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "ft/error.h"
#include "model/model_desc.h"

namespace ft::model {

namespace {

using nlohmann::json;

struct HfArch {
    std::string_view class_name, model_type;
    ArchId id;
};
constexpr HfArch kHfArchs[] = {
    {"Qwen3MoeForCausalLM", "qwen3_moe", ArchId::qwen3_moe}, {"DeepseekV3ForCausalLM", "deepseek_v3", ArchId::deepseek_v3},
    {"Glm4MoeForCausalLM", "glm4_moe", ArchId::glm4_moe},    {"GptOssForCausalLM", "gpt_oss", ArchId::gpt_oss},
    {"MixtralForCausalLM", "mixtral", ArchId::mixtral},      {"OlmoeForCausalLM", "olmoe", ArchId::olmoe},
    {"Qwen3_5MoeForConditionalGeneration", "qwen3_5_moe", ArchId::qwen3_5_moe},
    {"Qwen3_5MoeForCausalLM", "qwen3_5_moe_text", ArchId::qwen3_5_moe},
    {"Qwen3NextForCausalLM", "qwen3_next", ArchId::qwen3_next},
    {"DeepseekV4ForCausalLM", "deepseek_v4", ArchId::deepseek_v4},
};

class Fields {
public:
    Fields(const json& j, const std::string& source) : j_(j), source_(source) {}

    bool has(const char* k) const { return j_.contains(k) && !j_[k].is_null(); }
    std::uint32_t req_u32(const char* k) const {
        if (!has(k))
            throw Error(ErrorCode::not_found, source_ + ": missing field (" + k + ")",
                        "config.json lacks a hyper-parameter this architecture needs");
        return to_u32(k, j_[k]);
    }
    std::uint32_t opt_u32(const char* k, std::uint32_t fallback) const { return has(k) ? to_u32(k, j_[k]) : fallback; }
    double req_f64(const char* k) const {
        if (!has(k)) throw Error(ErrorCode::not_found, source_ + ": missing field (" + k + ")");
        return to_f64(k, j_[k]);
    }
    double opt_f64(const char* k, double fallback) const { return has(k) ? to_f64(k, j_[k]) : fallback; }
    bool opt_bool(const char* k, bool fallback) const {
        if (!has(k)) return fallback;
        if (!j_[k].is_boolean()) bad(k, "expected true or false");
        return j_[k].get<bool>();
    }
    [[noreturn]] void bad(const std::string& k, const std::string& what) const {
        throw Error(ErrorCode::invalid_file, source_ + ": " + what + " (" + k + ")");
    }
    std::uint32_t to_u32(const std::string& k, const json& v) const {
        if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > std::numeric_limits<std::uint32_t>::max())
            bad(k, "expected a non-negative integer, got " + v.dump());
        return v.get<std::uint32_t>();
    }
    double to_f64(const std::string& k, const json& v) const {
        if (!v.is_number()) bad(k, "expected a number, got " + v.dump());
        return v.get<double>();
    }

private:
    const json& j_;
    const std::string& source_;
};

// The scaling part of a rope_scaling / rope_parameters object into r (type, factor, YaRN's parameters).
void read_rope_scaling(const json& rs, const std::string& source, RopeDesc& r) {
    Fields f(rs, source), rf(rs, source);
    std::string type = rs.contains("rope_type") && rs["rope_type"].is_string() ? rs["rope_type"].get<std::string>()
                       : rs.contains("type") && rs["type"].is_string()       ? rs["type"].get<std::string>()
                                                                             : "";
    if (type == "yarn") r.scaling = RopeScaling::yarn;
    else if (type == "linear") r.scaling = RopeScaling::linear;
    else if (type == "default" || type.empty()) r.scaling = RopeScaling::none;
    else f.bad("rope_scaling.type", "unsupported rope scaling \"" + type + "\"");
    r.factor = rf.opt_f64("factor", 1.0);
    r.original_context = rf.opt_u32("original_max_position_embeddings", 0);
    r.yarn_beta_fast = rf.opt_f64("beta_fast", 32.0);
    r.yarn_beta_slow = rf.opt_f64("beta_slow", 1.0);
    r.yarn_truncate = rf.opt_bool("truncate", true);
    if (rs.contains("mscale_all_dim") && rs["mscale_all_dim"].is_number())
        r.yarn_log_multiplier = 0.1 * rs["mscale_all_dim"].get<double>();
    // transformers: an explicit attention_factor replaces YaRN's 0.1·ln(factor) + 1 (attn_factor multiplies it).
    if (type == "yarn" && rf.has("attention_factor") && r.factor > 1.0)
        r.attn_factor = rf.req_f64("attention_factor") / (0.1 * std::log(r.factor) + 1.0);
}

}  // namespace

ModelDesc desc_from_hf_config(const json& cfg_in, const std::string& source) {
    if (!cfg_in.is_object()) throw Error(ErrorCode::invalid_file, source + ": not a JSON object");
    // Multimodal wrappers keep the language model's fields under text_config.
    const json& cfg = cfg_in.contains("text_config") && cfg_in["text_config"].is_object() ? cfg_in["text_config"] : cfg_in;
    Fields f(cfg, source);
    ModelDesc d;
    d.source = source;
    std::optional<ArchId> arch;
    std::string arch_label;
    if (cfg_in.contains("architectures") && cfg_in["architectures"].is_array() && !cfg_in["architectures"].empty() &&
        cfg_in["architectures"][0].is_string()) {
        arch_label = cfg_in["architectures"][0].get<std::string>();
        for (const auto& a : kHfArchs)
            if (a.class_name == arch_label) arch = a.id;
    } else if (cfg.contains("model_type") && cfg["model_type"].is_string()) {
        arch_label = cfg["model_type"].get<std::string>();
        for (const auto& a : kHfArchs)
            if (a.model_type == arch_label) arch = a.id;
    } else {
        throw Error(ErrorCode::not_found, source + ": missing field (architectures)");
    }
    if (!arch)
        throw Error(ErrorCode::unsupported, source + ": architecture \"" + arch_label + "\" is not supported (architectures)",
                    "supported: Qwen3MoeForCausalLM, Qwen3_5MoeForConditionalGeneration, Qwen3NextForCausalLM, "
                    "DeepseekV3ForCausalLM, DeepseekV4ForCausalLM, Glm4MoeForCausalLM, GptOssForCausalLM, MixtralForCausalLM, OlmoeForCausalLM");
    d.arch = *arch;

    d.n_vocab = f.req_u32("vocab_size");
    d.n_embd = f.req_u32("hidden_size");
    d.n_layer = f.req_u32("num_hidden_layers");
    d.n_ctx_train = f.opt_u32("max_position_embeddings", 0);
    d.norm_eps = f.req_f64("rms_norm_eps");
    d.tied_embeddings = f.opt_bool("tie_word_embeddings", false);

    auto& at = d.attn;
    at.n_head = f.req_u32("num_attention_heads");
    at.n_head_kv = f.opt_u32("num_key_value_heads", at.n_head);
    at.head_dim = f.opt_u32("head_dim", at.n_head ? d.n_embd / at.n_head : 0);
    at.v_head_dim = at.head_dim;
    at.qkv_bias = f.opt_bool("attention_bias", false);

    auto& r = d.rope;
    r.theta = f.opt_f64("rope_theta", 10000.0);
    r.n_rot = at.head_dim;
    // transformers 5 writes rope_parameters {rope_theta, rope_type, factor, …} in place of rope_theta/rope_scaling.
    const char* rope_key = cfg.contains("rope_scaling") && cfg["rope_scaling"].is_object() ? "rope_scaling"
                           : cfg.contains("rope_parameters") && cfg["rope_parameters"].is_object() ? "rope_parameters"
                                                                                                   : nullptr;
    if (rope_key && cfg[rope_key].contains("rope_theta")) r.theta = Fields(cfg[rope_key], source).opt_f64("rope_theta", r.theta);
    if (rope_key) read_rope_scaling(cfg[rope_key], source, r);

    auto& m = d.moe;
    switch (d.arch) {
        case ArchId::qwen3_moe: {
            at.qk_norm = true;
            d.n_ff = f.opt_u32("intermediate_size", 0);
            // transformers 5 saves num_local_experts where Qwen's own configs say num_experts.
            m.n_expert = f.has("num_local_experts") && !f.has("num_experts") ? f.req_u32("num_local_experts") : f.req_u32("num_experts");
            m.n_expert_used = f.req_u32("num_experts_per_tok");
            m.n_ff_exp = f.req_u32("moe_intermediate_size");
            m.norm_topk_prob = f.opt_bool("norm_topk_prob", false);
            m.moe_every = std::max<std::uint32_t>(1, f.opt_u32("decoder_sparse_step", 1));
            if (cfg.contains("mlp_only_layers") && cfg["mlp_only_layers"].is_array())
                for (const auto& v : cfg["mlp_only_layers"]) m.dense_layers.push_back(f.to_u32("mlp_only_layers", v));
            if (f.opt_bool("use_sliding_window", false)) at.sliding_window = f.opt_u32("sliding_window", 0);
            break;
        }
        case ArchId::deepseek_v3: {
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
            if (rope_key && r.scaling == RopeScaling::yarn && r.factor > 1.0 && !Fields(cfg[rope_key], source).has("attention_factor")) {
                const json& rs = cfg[rope_key];
                auto ms = [&](const char* k) {
                    const double m = rs.contains(k) && rs[k].is_number() ? rs[k].get<double>() : 0.0;
                    return 0.1 * m * std::log(r.factor) + 1.0;
                };
                if (rs.contains("mscale") && rs.contains("mscale_all_dim") && rs["mscale"].is_number() &&
                    rs["mscale_all_dim"].is_number() && rs["mscale"].get<double>() != 0 && rs["mscale_all_dim"].get<double>() != 0)
                    r.attn_factor = ms("mscale") / ms("mscale_all_dim") / (0.1 * std::log(r.factor) + 1.0);
            }
            break;
        }
        case ArchId::glm4_moe: {
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
            // partial_rotary_factor: top level in GLM's own configs, inside rope_parameters in transformers 5's.
            double partial = f.opt_f64("partial_rotary_factor", 1.0);
            if (rope_key && cfg[rope_key].contains("partial_rotary_factor"))
                partial = Fields(cfg[rope_key], source).opt_f64("partial_rotary_factor", partial);
            if (!(partial > 0.0 && partial <= 1.0)) f.bad("partial_rotary_factor", "must be in (0, 1]");
            r.n_rot = static_cast<std::uint32_t>(at.head_dim * partial);  // transformers: int(head_dim * factor)
            d.nextn_predict_layers = f.opt_u32("num_nextn_predict_layers", 0);
            break;
        }
        case ArchId::gpt_oss: {
            m.n_expert = f.req_u32("num_local_experts");
            m.n_expert_used = cfg.contains("num_experts_per_tok") ? f.req_u32("num_experts_per_tok") : f.req_u32("experts_per_token");
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
            break;
        }
        case ArchId::mixtral: {
            r.type = RopeType::norm;
            m.n_expert = f.req_u32("num_local_experts");
            m.n_expert_used = f.req_u32("num_experts_per_tok");
            m.n_ff_exp = f.req_u32("intermediate_size");
            d.n_ff = m.n_ff_exp;
            m.norm_topk_prob = true;
            at.sliding_window = f.opt_u32("sliding_window", 0);
            break;
        }
        case ArchId::qwen3_5_moe:
        case ArchId::qwen3_next: {
            at.qk_norm = true;
            at.output_gate = true;
            m.n_expert = f.req_u32("num_experts");
            m.n_expert_used = f.req_u32("num_experts_per_tok");
            m.n_ff_exp = f.req_u32("moe_intermediate_size");
            // Qwen3.5's router always renormalises the top-k; Qwen3-Next's follows norm_topk_prob (default true).
            m.norm_topk_prob = d.arch == ArchId::qwen3_5_moe || f.opt_bool("norm_topk_prob", true);
            m.n_ff_shexp = f.opt_u32("shared_expert_intermediate_size", 0);
            m.n_shared_expert = m.n_ff_shexp ? 1 : 0;
            m.shared_gate = m.n_shared_expert != 0;
            if (d.arch == ArchId::qwen3_next) {
                d.n_ff = f.opt_u32("intermediate_size", 0);
                m.moe_every = std::max<std::uint32_t>(1, f.opt_u32("decoder_sparse_step", 1));
                if (cfg.contains("mlp_only_layers") && cfg["mlp_only_layers"].is_array())
                    for (const auto& v : cfg["mlp_only_layers"]) m.dense_layers.push_back(f.to_u32("mlp_only_layers", v));
            }
            double partial = f.opt_f64("partial_rotary_factor", 0.25);
            if (rope_key && cfg[rope_key].contains("partial_rotary_factor"))
                partial = Fields(cfg[rope_key], source).opt_f64("partial_rotary_factor", partial);
            if (!(partial > 0.0 && partial <= 1.0)) f.bad("partial_rotary_factor", "must be in (0, 1]");
            r.n_rot = static_cast<std::uint32_t>(at.head_dim * partial);
            // Text positions are one index for all three M-RoPE sections: Qwen3.5's multimodal RoPE is plain NeoX.
            if (rope_key && cfg[rope_key].contains("mrope_section") && cfg[rope_key]["mrope_section"].is_array())
                for (const auto& v : cfg[rope_key]["mrope_section"]) r.sections.push_back(f.to_u32("mrope_section", v));
            auto& la = d.linear;
            la.n_k_heads = f.req_u32("linear_num_key_heads");
            la.n_v_heads = f.req_u32("linear_num_value_heads");
            la.k_head_dim = f.req_u32("linear_key_head_dim");
            la.v_head_dim = f.req_u32("linear_value_head_dim");
            la.conv_kernel = f.req_u32("linear_conv_kernel_dim");
            if (cfg.contains("layer_types") && cfg["layer_types"].is_array()) {
                for (const auto& t : cfg["layer_types"]) {
                    if (!t.is_string() || (t != "linear_attention" && t != "full_attention"))
                        f.bad("layer_types", "expected \"linear_attention\" or \"full_attention\", got " + t.dump());
                    la.layers.push_back(t == "linear_attention");
                }
            } else {
                const std::uint32_t every = f.opt_u32("full_attention_interval", 4);
                if (every == 0) f.bad("full_attention_interval", "must be positive");
                for (std::uint32_t il = 0; il < d.n_layer; ++il) la.layers.push_back((il + 1) % every != 0);
            }
            break;
        }
        case ArchId::deepseek_v4: {
            // DeepseekV4Config's defaults (V4-Flash) where config.json leaves a field out; the legacy names older
            // checkpoints ship (compress_ratios, compress_rate_csa / _hca, num_hash_layers, qk_rope_head_dim) too.
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
            if (cfg.contains("compress_rates") && cfg["compress_rates"].is_object()) {
                Fields cr(cfg["compress_rates"], source);
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
            // RoPE: interleaved pairs on the trailing rope dims. rope_parameters {main, compress} (transformers 5),
            // or a flat one whose scaling (YaRN) applies to the compressed branches only, the main rope plain.
            double partial = f.opt_f64("partial_rotary_factor", 0.0);
            if (!(partial > 0.0)) partial = f.has("qk_rope_head_dim") ? double(f.req_u32("qk_rope_head_dim")) / at.head_dim : 64.0 / 512.0;
            if (!(partial > 0.0 && partial <= 1.0)) f.bad("partial_rotary_factor", "must be in (0, 1]");
            r = RopeDesc{};
            r.type = RopeType::norm;
            r.n_rot = static_cast<std::uint32_t>(at.head_dim * partial);
            r.theta = f.opt_f64("rope_theta", 10000.0);
            RopeDesc c = r;
            c.theta = f.opt_f64("compress_rope_theta", 160000.0);
            const json* rp = cfg.contains("rope_parameters") && cfg["rope_parameters"].is_object() ? &cfg["rope_parameters"]
                             : cfg.contains("rope_scaling") && cfg["rope_scaling"].is_object()  ? &cfg["rope_scaling"]
                                                                                                : nullptr;
            if (rp && rp->contains("main") && (*rp)["main"].is_object() && rp->contains("compress") &&
                (*rp)["compress"].is_object()) {
                read_rope_scaling((*rp)["main"], source, r);
                r.theta = Fields((*rp)["main"], source).opt_f64("rope_theta", r.theta);
                read_rope_scaling((*rp)["compress"], source, c);
                c.theta = Fields((*rp)["compress"], source).opt_f64("rope_theta", c.theta);
            } else if (rp) {
                read_rope_scaling(*rp, source, c);
                // the reference does not scale cos/sin by YaRN's magnitude on the compressed branches
                if (c.scaling == RopeScaling::yarn && c.factor > 1.0 && !rp->contains("attention_factor"))
                    c.attn_factor = 1.0 / (0.1 * std::log(c.factor) + 1.0);
            }
            v.compress_rope = c;
            break;
        }
        case ArchId::olmoe: {
            at.qk_norm = true;
            m.n_expert = f.req_u32("num_experts");
            m.n_expert_used = f.req_u32("num_experts_per_tok");
            m.n_ff_exp = f.req_u32("intermediate_size");
            d.n_ff = m.n_ff_exp;
            m.norm_topk_prob = f.opt_bool("norm_topk_prob", false);
            break;
        }
    }
    validate(d);
    return d;
}

ModelDesc desc_from_hf_dir(const std::filesystem::path& dir) {
    const auto path = dir / "config.json";
    std::ifstream in(path);
    if (!in)
        throw Error(ErrorCode::not_found, path.string() + ": cannot open", "a Hugging Face model folder needs config.json");
    json cfg = json::parse(in, nullptr, false);
    if (cfg.is_discarded()) throw Error(ErrorCode::invalid_file, path.string() + ": not valid JSON");
    ModelDesc d = desc_from_hf_config(cfg, path.string());
    d.name = dir.filename().string();
    if (d.name.empty()) d.name = dir.parent_path().filename().string();
    return d;
}

}  // namespace ft::model
