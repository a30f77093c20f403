#include "model/model_desc.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "ft/error.h"
#include "model/arch.h"

namespace ft::model {

std::string_view gating_name(Gating g) {
    switch (g) {
        case Gating::softmax: return "softmax";
        case Gating::sigmoid: return "sigmoid";
        case Gating::softmax_weight: return "softmax_weight";
        case Gating::sqrtsoftplus: return "sqrtsoftplus";
    }
    return "?";
}
std::string_view v4_layer_kind_name(V4LayerKind k) {
    return k == V4LayerKind::csa ? "csa" : k == V4LayerKind::hca ? "hca" : "sliding";
}
std::string_view rope_type_name(RopeType t) { return t == RopeType::norm ? "norm" : "neox"; }
std::string_view rope_scaling_name(RopeScaling s) {
    switch (s) {
        case RopeScaling::none: return "none";
        case RopeScaling::linear: return "linear";
        case RopeScaling::yarn: return "yarn";
    }
    return "?";
}

bool ModelDesc::layer_is_moe(std::uint32_t il) const {
    if (moe.n_expert == 0 || il < moe.first_k_dense) return false;
    if (moe.moe_every > 1 && (il - moe.first_k_dense) % moe.moe_every != 0) return false;
    return std::find(moe.dense_layers.begin(), moe.dense_layers.end(), il) == moe.dense_layers.end();
}

std::uint32_t ModelDesc::n_moe_layers() const {
    std::uint32_t n = 0;
    for (std::uint32_t il = 0; il < n_layer; ++il) n += layer_is_moe(il) ? 1 : 0;
    return n;
}

void validate(const ModelDesc& d) {
    auto bad = [&](const std::string& field, const std::string& what) {
        throw Error(ErrorCode::invalid_file, d.source + ": " + what + " (" + field + ")",
                    "the model's configuration is inconsistent; re-export or re-convert the model");
    };
    constexpr std::uint32_t kMax = 1u << 24;  // far above any real model; guards sizes computed from the file
    auto range = [&](const char* field, std::uint64_t v, std::uint64_t lo, std::uint64_t hi) {
        if (v < lo || v > hi)
            bad(field, "value " + std::to_string(v) + " out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    };
    range("block_count", d.n_layer, 1, 4096);
    range("embedding_length", d.n_embd, 1, kMax);
    range("vocab_size", d.n_vocab, 1, 1u << 26);
    range("attention.head_count", d.attn.n_head, 1, 65536);
    range("attention.head_count_kv", d.attn.n_head_kv, 1, d.attn.n_head);
    if (d.attn.n_head % d.attn.n_head_kv != 0) bad("attention.head_count_kv", "does not divide head_count");
    range("attention.key_length", d.attn.head_dim, 1, 65536);
    range("attention.value_length", d.attn.v_head_dim, 1, 65536);
    if (d.rope.n_rot > d.attn.head_dim && !d.attn.is_mla()) bad("rope.dimension_count", "larger than the head dim");
    if (!(d.norm_eps > 0 && d.norm_eps < 1)) bad("attention.layer_norm_rms_epsilon", "must be in (0, 1)");
    if (!(d.rope.theta > 0)) bad("rope.freq_base", "must be positive");
    if (arch_of(d.arch).moe) {
        range("expert_count", d.moe.n_expert, 1, 65536);
        range("expert_used_count", d.moe.n_expert_used, 1, d.moe.n_expert);
        range("expert_feed_forward_length", d.moe.n_ff_exp, 1, kMax);
        range("moe_every_n_layers", d.moe.moe_every, 1, d.n_layer);
    } else if (d.moe.n_expert != 0 || d.moe.n_shared_expert != 0) {
        bad("expert_count", "a dense architecture has no experts");
    }
    if (d.moe.n_group != 0) {
        if (d.moe.n_expert % d.moe.n_group != 0) bad("expert_group_count", "does not divide expert_count");
        range("expert_group_used_count", d.moe.topk_group, 1, d.moe.n_group);
    }
    if (d.moe.n_shared_expert != 0) range("expert_shared_feed_forward_length", d.moe.n_ff_shexp, 1, kMax);
    if (d.n_moe_layers() < d.n_layer) range("feed_forward_length", d.n_ff, 1, kMax);
    if (!d.attn.swa_layers.empty() && d.attn.swa_layers.size() != d.n_layer)
        bad("attention.sliding_window_pattern", "has " + std::to_string(d.attn.swa_layers.size()) + " entries for " +
                                                     std::to_string(d.n_layer) + " layers");
    if (d.attn.sliding_window == 0 && std::find(d.attn.swa_layers.begin(), d.attn.swa_layers.end(), true) != d.attn.swa_layers.end())
        bad("attention.sliding_window", "layers use a sliding window but its size is 0");
    if (d.moe.first_k_dense > d.n_layer) bad("leading_dense_block_count", "more dense layers than layers");
    if (d.swiglu_limit < 0 || (d.swiglu_limit > 0 && !(d.swiglu_alpha > 0) && !d.v4.any()))
        bad("swiglu_limit", "needs a positive limit and alpha");
    if (d.v4.any()) {
        const V4Desc& v = d.v4;
        range("hyper_connection.count", v.hc_mult, 1, 64);
        range("hyper_connection.sinkhorn_iterations", v.hc_sinkhorn_iters, 1, 1000);
        if (v.layers.size() != d.n_layer)
            bad("attention.compress_ratios", "has " + std::to_string(v.layers.size()) + " layer types for " +
                                                 std::to_string(d.n_layer) + " layers");
        range("attention.output_group_count", v.o_groups, 1, d.attn.n_head);
        if (d.attn.n_head % v.o_groups != 0) bad("attention.output_group_count", "does not divide head_count");
        range("attention.output_lora_rank", v.o_lora_rank, 1, kMax);
        range("attention.q_lora_rank", d.attn.q_lora_rank, 1, kMax);
        range("attention.sliding_window", d.attn.sliding_window, 1, 1u << 20);
        if (v.n_compressed()) {
            range("attention.compress_ratio_csa", v.csa_ratio, 1, 4096);
            range("attention.compress_ratio_hca", v.hca_ratio, 1, 4096);
        }
        bool csa = false, hca = false;
        for (V4LayerKind k : v.layers) csa = csa || k == V4LayerKind::csa, hca = hca || k == V4LayerKind::hca;
        if (csa && hca && v.csa_ratio == v.hca_ratio)
            bad("attention.compress_ratio_hca", "the CSA and HCA layers need different compress ratios");
        if (csa) {
            range("attention.indexer.head_count", v.index_n_heads, 1, 4096);
            range("attention.indexer.key_length", v.index_head_dim, 2, 4096);
            range("attention.indexer.top_k", v.index_topk, 1, 1u << 20);
            if (d.rope.n_rot > v.index_head_dim) bad("rope.dimension_count", "larger than the indexer's head");
        }
        range("hash_layer_count", v.n_hash_layers, 0, d.n_layer);
        if (d.rope.n_rot == 0 || d.rope.n_rot % 2 != 0) bad("rope.dimension_count", "must be even and positive");
    }
    if (!(d.moe.routed_scaling_factor > 0)) bad("expert_weights_scale", "must be positive");
    if (d.linear.any()) {
        const LinearAttnDesc& l = d.linear;
        if (l.layers.size() != d.n_layer)
            bad("layer_types", "has " + std::to_string(l.layers.size()) + " layer types for " +
                                               std::to_string(d.n_layer) + " layers");
        range("ssm.group_count", l.n_k_heads, 1, 4096);
        range("ssm.time_step_rank", l.n_v_heads, 1, 4096);
        if (l.n_v_heads % l.n_k_heads != 0) bad("ssm.time_step_rank", "value heads are not a multiple of the key heads");
        range("ssm.state_size", l.k_head_dim, 1, 256);
        range("ssm.inner_size", l.v_head_dim, 1, 256);
        range("ssm.conv_kernel", l.conv_kernel, 2, 16);
    }
    if (d.rope.scaling == RopeScaling::yarn) {
        if (!(d.rope.factor >= 1.0)) bad("rope.scaling.factor", "YaRN needs a factor of at least 1");
        if (d.rope.original_context == 0) bad("rope.scaling.original_context_length", "YaRN needs the original context");
    }
}

nlohmann::json desc_to_json(const ModelDesc& d) {
    using nlohmann::json;
    json dense = json::array();
    for (std::uint32_t il = 0; il < d.n_layer; ++il)
        if (!d.layer_is_moe(il)) dense.push_back(il);
    json j = {
        {"architecture", arch_name(d.arch)},
        {"gguf_architecture", arch_gguf_name(d.arch)},
        {"name", d.name},
        {"n_layer", d.n_layer},
        {"n_embd", d.n_embd},
        {"n_vocab", d.n_vocab},
        {"n_ctx_train", d.n_ctx_train},
        {"n_ff", d.n_ff},
        {"norm_eps", d.norm_eps},
        {"tied_embeddings", d.tied_embeddings},
        {"attention",
         {{"n_head", d.attn.n_head},
          {"n_head_kv", d.attn.n_head_kv},
          {"head_dim", d.attn.head_dim},
          {"v_head_dim", d.attn.v_head_dim},
          {"qk_norm", d.attn.qk_norm},
          {"qkv_bias", d.attn.qkv_bias},
          {"o_bias", d.attn.o_bias},
          {"sinks", d.attn.sinks},
          {"sliding_window", d.attn.sliding_window}}},
        {"moe",
         {{"n_expert", d.moe.n_expert},
          {"n_expert_used", d.moe.n_expert_used},
          {"n_ff_exp", d.moe.n_ff_exp},
          {"n_shared_expert", d.moe.n_shared_expert},
          {"n_ff_shexp", d.moe.n_ff_shexp},
          {"gating", gating_name(d.moe.gating)},
          {"norm_topk_prob", d.moe.norm_topk_prob},
          {"routed_scaling_factor", d.moe.routed_scaling_factor},
          {"n_group", d.moe.n_group},
          {"topk_group", d.moe.topk_group},
          {"correction_bias", d.moe.correction_bias},
          {"router_bias", d.moe.router_bias},
          {"expert_bias", d.moe.expert_bias},
          {"n_moe_layers", d.n_moe_layers()},
          {"dense_layers", dense}}},
        {"rope",
         {{"type", rope_type_name(d.rope.type)},
          {"theta", d.rope.theta},
          {"n_rot", d.rope.n_rot},
          {"scaling", rope_scaling_name(d.rope.scaling)},
          {"factor", d.rope.factor},
          {"original_context", d.rope.original_context}}},
    };
    if (d.attn.is_mla())
        j["attention"]["mla"] = {{"q_lora_rank", d.attn.q_lora_rank},
                                 {"kv_lora_rank", d.attn.kv_lora_rank},
                                 {"qk_nope_head_dim", d.attn.qk_nope_head_dim},
                                 {"qk_rope_head_dim", d.attn.qk_rope_head_dim}};
    if (d.attn.has_indexer())
        j["attention"]["indexer"] = {{"heads", d.attn.index_n_heads},
                                     {"head_dim", d.attn.index_head_dim},
                                     {"top_k", d.attn.index_topk}};
    if (d.rope.scaling == RopeScaling::yarn) {
        j["rope"]["yarn_beta_fast"] = d.rope.yarn_beta_fast;
        j["rope"]["yarn_beta_slow"] = d.rope.yarn_beta_slow;
        j["rope"]["yarn_log_multiplier"] = d.rope.yarn_log_multiplier;
        j["rope"]["attn_factor"] = d.rope.attn_factor;
        j["rope"]["yarn_truncate"] = d.rope.yarn_truncate;
    }
    if (!d.attn.swa_layers.empty()) {
        json swa = json::array();
        for (std::uint32_t il = 0; il < d.attn.swa_layers.size(); ++il)
            if (d.attn.swa_layers[il]) swa.push_back(il);
        j["attention"]["swa_layers"] = swa;
    }
    if (d.swiglu_limit > 0) j["swiglu"] = {{"limit", d.swiglu_limit}, {"alpha", d.swiglu_alpha}};
    if (d.attn.output_gate) j["attention"]["output_gate"] = true;
    if (d.moe.shared_gate) j["moe"]["shared_gate"] = true;
    if (d.linear.any()) {
        json layers = json::array();
        for (std::uint32_t il = 0; il < d.n_layer; ++il)
            if (d.linear.is_linear(il)) layers.push_back(il);
        j["linear_attention"] = {{"n_k_heads", d.linear.n_k_heads},   {"n_v_heads", d.linear.n_v_heads},
                                 {"k_head_dim", d.linear.k_head_dim}, {"v_head_dim", d.linear.v_head_dim},
                                 {"conv_kernel", d.linear.conv_kernel}, {"v_tiled", d.linear.v_tiled},
                                 {"layers", layers}};
    }
    if (d.nextn_predict_layers) j["nextn_predict_layers"] = d.nextn_predict_layers;
    if (d.v4.any()) {
        const V4Desc& v = d.v4;
        json kinds = json::array();
        for (V4LayerKind k : v.layers) kinds.push_back(v4_layer_kind_name(k));
        j["deepseek_v4"] = {{"hc_mult", v.hc_mult}, {"hc_sinkhorn_iters", v.hc_sinkhorn_iters}, {"hc_eps", v.hc_eps},
                            {"layers", kinds}, {"csa_ratio", v.csa_ratio}, {"hca_ratio", v.hca_ratio},
                            {"o_groups", v.o_groups}, {"o_lora_rank", v.o_lora_rank},
                            {"index_n_heads", v.index_n_heads}, {"index_head_dim", v.index_head_dim},
                            {"index_topk", v.index_topk}, {"n_hash_layers", v.n_hash_layers},
                            {"q_lora_rank", d.attn.q_lora_rank},
                            {"compress_rope", {{"theta", v.compress_rope.theta},
                                               {"scaling", rope_scaling_name(v.compress_rope.scaling)},
                                               {"factor", v.compress_rope.factor},
                                               {"original_context", v.compress_rope.original_context}}}};
    }
    return j;
}

TensorClass classify_tensor(std::string_view n) {
    auto has = [&](std::string_view s) { return n.find(s) != std::string_view::npos; };
    if (has("_shexp") || has("shared_expert")) return TensorClass::shared_expert;
    if (has("_exps") || has(".experts.")) return TensorClass::routed_expert;
    return TensorClass::other;
}

int tensor_layer(std::string_view n) {
    for (std::string_view prefix : {std::string_view("blk."), std::string_view("model.layers.")}) {
        if (n.substr(0, prefix.size()) != prefix) continue;
        int il = 0;
        std::size_t i = prefix.size();
        if (i >= n.size() || n[i] < '0' || n[i] > '9') return -1;
        for (; i < n.size() && n[i] >= '0' && n[i] <= '9'; ++i) il = il * 10 + (n[i] - '0');
        return i < n.size() && n[i] == '.' ? il : -1;
    }
    return -1;
}

SizeReport measure(const ModelDesc* desc, std::span<const TensorStat> tensors) {
    SizeReport r;
    std::uint64_t expert_params = 0;
    for (const auto& t : tensors) {
        if (desc && tensor_layer(t.name) >= int(desc->n_layer)) {  // GLM's MTP layers: in the file, never run
            r.unused_params += t.n_elements;
            r.unused_bytes += t.n_bytes;
            continue;
        }
        r.total_params += t.n_elements;
        if (classify_tensor(t.name) == TensorClass::routed_expert) {
            r.expert_pool_bytes += t.n_bytes;
            expert_params += t.n_elements;
        } else {
            r.non_expert_bytes += t.n_bytes;
        }
    }
    r.active_params = r.total_params - expert_params;
    if (desc && desc->moe.n_expert > 0) {
        // Each token runs n_expert_used of the n_expert routed experts of every MoE layer.
        r.active_params += static_cast<std::uint64_t>(static_cast<long double>(expert_params) * desc->moe.n_expert_used /
                                                      desc->moe.n_expert);
        const std::uint64_t slots = std::uint64_t(desc->n_moe_layers()) * desc->moe.n_expert;
        if (slots) r.expert_bytes_per_expert = r.expert_pool_bytes / slots;
    } else {
        r.active_params += expert_params;
    }
    return r;
}

}  // namespace ft::model
