// ModelDesc <-> GGUF metadata, with llama.cpp's key names (`<arch>.block_count`, `<arch>.expert_count`, …) and
// value types (counts u32, floats f32, flags bool) so that files we write load in llama.cpp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "format/gguf.h"
#include "ft/error.h"
#include "model/model_desc.h"

namespace ft::model {

namespace {

class KeyReader {
public:
    KeyReader(const gguf::Metadata& md, std::string arch) : md_(md), prefix_(std::move(arch) + ".") {}

    std::string key(std::string_view k) const { return prefix_ + std::string(k); }

    // A count that llama.cpp allows to be a per-layer array: an array gives its largest element.
    std::optional<std::uint64_t> opt_count(std::string_view k) const {
        const std::string full = key(k);
        const gguf::Value* v = md_.find(full);
        if (!v) return std::nullopt;
        if (v->is_array()) {
            const auto items = v->as_u64_array({md_.source(), full});
            if (items.empty()) return std::nullopt;
            return *std::max_element(items.begin(), items.end());
        }
        return v->as_u64({md_.source(), full});
    }
    std::uint32_t req_u32(std::string_view k) const {
        const auto v = opt_count(k);
        if (!v)
            throw Error(ErrorCode::not_found, md_.source() + ": missing key (" + key(k) + ")",
                        "the file lacks a hyper-parameter this architecture needs; re-convert it with a current converter");
        return to_u32(k, *v);
    }
    std::uint32_t opt_u32(std::string_view k, std::uint32_t fallback) const {
        const auto v = opt_count(k);
        return v ? to_u32(k, *v) : fallback;
    }
    double opt_f64(std::string_view k, double fallback) const {
        const auto v = md_.opt_f64(key(k));
        return v ? *v : fallback;
    }
    double req_f64(std::string_view k) const { return md_.get_f64(key(k)); }
    std::optional<bool> opt_bool(std::string_view k) const { return md_.opt_bool(key(k)); }
    std::optional<std::string_view> opt_string(std::string_view k) const { return md_.opt_string(key(k)); }

private:
    std::uint32_t to_u32(std::string_view k, std::uint64_t v) const {
        if (v > std::numeric_limits<std::uint32_t>::max())
            throw Error(ErrorCode::invalid_file, md_.source() + ": value " + std::to_string(v) + " too large (" + key(k) + ")");
        return static_cast<std::uint32_t>(v);
    }
    const gguf::Metadata& md_;
    std::string prefix_;
};

// attention.sliding_window_pattern as llama.cpp reads it: a period n (layer il uses the window when
// il % n < n - 1; n = 0: every layer; default 2, gpt-oss's alternation starting with a windowed layer) or one bool
// per layer.
void swa_pattern(const KeyReader& k, const gguf::Metadata& md, ModelDesc& d) {
    auto& swa = d.attn.swa_layers;
    swa.assign(d.n_layer, false);
    const std::string key = k.key("attention.sliding_window_pattern");
    const gguf::Value* v = md.find(key);
    if (v && v->is_array()) {
        if (v->array_type() != gguf::ValueType::boolean || v->array_size() < d.n_layer)
            throw Error(ErrorCode::invalid_file, md.source() + ": expected " + std::to_string(d.n_layer) +
                                                     " booleans or one period (" + key + ")");
        const auto raw = v->array_raw({md.source(), key});
        for (std::uint32_t il = 0; il < d.n_layer; ++il) swa[il] = raw[il] != std::byte{0};
        return;
    }
    const std::uint64_t n = v ? v->as_u64({md.source(), key}) : 2;
    for (std::uint32_t il = 0; il < d.n_layer; ++il) swa[il] = n == 0 || il % n < n - 1;
}

}  // namespace

ModelDesc desc_from_gguf(const gguf::Metadata& md) {
    const std::string arch_str(md.get_string("general.architecture"));
    KeyReader k(md, arch_str);
    ModelDesc d;
    d.source = md.source();
    if (arch_str == "llama" && k.opt_u32("expert_count", 0) > 0) {
        d.arch = ArchId::mixtral;
    } else {
        const auto a = arch_from_name(arch_str);
        if (!a || *a == ArchId::mixtral)
            throw Error(ErrorCode::unsupported,
                        md.source() + ": architecture \"" + arch_str + "\" is not supported (general.architecture)",
                        "supported: qwen3moe, qwen35moe, qwen3next, deepseek2, deepseek4, glm4moe, gpt-oss, olmoe, llama with experts (Mixtral)");
        d.arch = *a;
    }
    if (auto n = md.opt_string("general.name")) d.name = std::string(*n);

    // block_count counts GLM's MTP layers too (llama.cpp: n_layer = block_count - nextn_predict_layers).
    d.nextn_predict_layers = k.opt_u32("nextn_predict_layers", 0);
    d.n_layer = k.req_u32("block_count");
    if (d.nextn_predict_layers >= d.n_layer)
        throw Error(ErrorCode::invalid_file,
                    md.source() + ": " + std::to_string(d.nextn_predict_layers) + " MTP layers of " +
                        std::to_string(d.n_layer) + " blocks leave no decoder layer (" + k.key("nextn_predict_layers") + ")",
                    "the file's hyper-parameters are inconsistent; re-convert it");
    d.n_layer -= d.nextn_predict_layers;
    d.n_embd = k.req_u32("embedding_length");
    d.n_ctx_train = k.opt_u32("context_length", 0);
    d.n_ff = k.opt_u32("feed_forward_length", 0);
    if (auto v = k.opt_count("vocab_size")) {
        d.n_vocab = static_cast<std::uint32_t>(std::min<std::uint64_t>(*v, std::numeric_limits<std::uint32_t>::max()));
    } else if (const gguf::Value* toks = md.find("tokenizer.ggml.tokens"); toks && toks->is_array()) {
        d.n_vocab = static_cast<std::uint32_t>(std::min<std::uint64_t>(toks->array_size(), std::numeric_limits<std::uint32_t>::max()));
    } else {
        throw Error(ErrorCode::not_found, md.source() + ": missing key (" + k.key("vocab_size") + ")",
                    "neither the vocab size nor tokenizer.ggml.tokens is present");
    }
    d.norm_eps = k.req_f64("attention.layer_norm_rms_epsilon");

    auto& at = d.attn;
    at.n_head = k.req_u32("attention.head_count");
    at.n_head_kv = k.opt_u32("attention.head_count_kv", at.n_head);
    at.head_dim = k.opt_u32("attention.key_length", at.n_head ? d.n_embd / at.n_head : 0);
    at.v_head_dim = k.opt_u32("attention.value_length", at.head_dim);
    at.q_lora_rank = k.opt_u32("attention.q_lora_rank", 0);
    at.kv_lora_rank = k.opt_u32("attention.kv_lora_rank", 0);
    at.sliding_window = k.opt_u32("attention.sliding_window", 0);

    auto& r = d.rope;
    r.theta = k.opt_f64("rope.freq_base", 10000.0);
    r.n_rot = k.opt_u32("rope.dimension_count", at.head_dim);
    if (auto s = k.opt_string("rope.scaling.type")) {
        if (*s == "yarn") r.scaling = RopeScaling::yarn;
        else if (*s == "linear") r.scaling = RopeScaling::linear;
        else if (*s == "none" || s->empty()) r.scaling = RopeScaling::none;
        else
            throw Error(ErrorCode::unsupported, md.source() + ": rope scaling \"" + std::string(*s) + "\" (" +
                                                    k.key("rope.scaling.type") + ")");
    }
    r.factor = k.opt_f64("rope.scaling.factor", 1.0);
    if (r.factor == 0) r.factor = 1.0;
    r.original_context = k.opt_u32("rope.scaling.original_context_length", 0);
    r.yarn_log_multiplier = k.opt_f64("rope.scaling.yarn_log_multiplier", 0.0);
    r.yarn_beta_fast = k.opt_f64("rope.scaling.yarn_beta_fast", 32.0);
    r.yarn_beta_slow = k.opt_f64("rope.scaling.yarn_beta_slow", 1.0);
    r.attn_factor = k.opt_f64("rope.scaling.attn_factor", 1.0);

    auto& m = d.moe;
    m.n_expert = k.req_u32("expert_count");
    m.n_expert_used = k.req_u32("expert_used_count");
    m.n_ff_exp = k.opt_u32("expert_feed_forward_length", d.n_ff);
    if (m.n_ff_exp == 0) m.n_ff_exp = k.req_u32("expert_feed_forward_length");
    m.n_shared_expert = k.opt_u32("expert_shared_count", 0);
    m.n_ff_shexp = k.opt_u32("expert_shared_feed_forward_length", m.n_ff_exp * m.n_shared_expert);
    m.first_k_dense = k.opt_u32("leading_dense_block_count", 0);
    m.moe_every = std::max<std::uint32_t>(1, k.opt_u32("moe_every_n_layers", 1));
    m.routed_scaling_factor = k.opt_f64("expert_weights_scale", 1.0);
    if (m.routed_scaling_factor == 0) m.routed_scaling_factor = 1.0;
    m.n_group = k.opt_u32("expert_group_count", 0);
    m.topk_group = k.opt_u32("expert_group_used_count", 0);

    // Architecture conventions that llama.cpp hard-codes rather than stores.
    switch (d.arch) {
        case ArchId::qwen3_moe:
            at.qk_norm = true;
            m.norm_topk_prob = true;
            break;
        case ArchId::mixtral:
            r.type = RopeType::norm;
            m.norm_topk_prob = true;
            break;
        case ArchId::olmoe:
            at.qk_norm = true;
            break;
        case ArchId::qwen3_5_moe:
        case ArchId::qwen3_next: {
            at.qk_norm = true;
            at.output_gate = true;
            m.norm_topk_prob = true;
            m.n_shared_expert = m.n_ff_shexp ? 1 : 0;
            m.shared_gate = m.n_shared_expert != 0;
            if (const gguf::Value* v = md.find(k.key("rope.dimension_sections")); v && v->is_array())
                for (std::uint64_t x : v->as_u64_array({md.source(), k.key("rope.dimension_sections")}))
                    if (x) r.sections.push_back(std::uint32_t(x));
            auto& la = d.linear;
            la.conv_kernel = k.req_u32("ssm.conv_kernel");
            la.k_head_dim = k.req_u32("ssm.state_size");
            la.n_k_heads = k.req_u32("ssm.group_count");
            la.n_v_heads = k.req_u32("ssm.time_step_rank");
            const std::uint32_t inner = k.req_u32("ssm.inner_size");
            if (la.n_v_heads == 0 || inner % la.n_v_heads != 0)
                throw Error(ErrorCode::invalid_file, md.source() + ": " + k.key("ssm.inner_size") + " " + std::to_string(inner) +
                                                         " is not a multiple of the value heads (" + k.key("ssm.time_step_rank") + ")");
            la.v_head_dim = inner / la.n_v_heads;
            // llama.cpp's qwen35moe converter reorders the value heads from grouped to tiled (see LinearAttnDesc).
            la.v_tiled = d.arch == ArchId::qwen3_5_moe;
            const std::string rk = k.key("attention.recurrent_layers");
            if (const gguf::Value* v = md.find(rk); v && v->is_array()) {
                if (v->array_type() != gguf::ValueType::boolean || v->array_size() < d.n_layer)
                    throw Error(ErrorCode::invalid_file, md.source() + ": expected " + std::to_string(d.n_layer) + " booleans (" + rk + ")");
                const auto raw = v->array_raw({md.source(), rk});
                for (std::uint32_t il = 0; il < d.n_layer; ++il) la.layers.push_back(raw[il] != std::byte{0});
            } else {
                const std::uint32_t every = k.opt_u32("full_attention_interval", 4);
                if (every == 0)
                    throw Error(ErrorCode::invalid_file, md.source() + ": " + k.key("full_attention_interval") + " is 0");
                for (std::uint32_t il = 0; il < d.n_layer; ++il) la.layers.push_back((il + 1) % every != 0);
            }
            break;
        }
        case ArchId::deepseek_v3:
            r.type = RopeType::norm;
            m.gating = Gating::sigmoid;
            m.correction_bias = true;
            if (auto kl = k.opt_count("attention.key_length_mla")) at.head_dim = static_cast<std::uint32_t>(*kl);
            if (auto vl = k.opt_count("attention.value_length_mla")) at.v_head_dim = static_cast<std::uint32_t>(*vl);
            at.qk_rope_head_dim = r.n_rot;
            at.qk_nope_head_dim = at.head_dim > r.n_rot ? at.head_dim - r.n_rot : 0;
            at.n_head_kv = 1;  // one latent row per position (older files say n_head: the same model)
            // llama.cpp runs DeepSeek's YaRN with cos/sin of magnitude 1 (its attn_factor_scaled cancels YaRN's
            // 0.1·ln(factor) + 1) and puts the temperature on the logits (yarn_log_multiplier).
            if (r.scaling == RopeScaling::yarn && r.factor > 1.0) r.attn_factor = 1.0 / (0.1 * std::log(r.factor) + 1.0);
            break;
        case ArchId::deepseek_v4: {
            // Our keys for the architecture (named after llama.cpp's deepseek4 hyper-parameters; see
            // docs/architectures.md): the hyper-connections, the per-layer compress ratios, the indexer, the grouped
            // output, hash routing and the compressed branches' RoPE.
            r.type = RopeType::norm;
            m.gating = Gating::sqrtsoftplus;
            m.correction_bias = true;
            m.norm_topk_prob = true;
            at.n_head_kv = 1;
            at.sinks = true;
            d.swiglu_limit = k.opt_f64("swiglu_limit", 0.0);
            d.swiglu_alpha = 0.0;
            auto& v = d.v4;
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
            const gguf::Value* ratios = md.find(rk);
            if (!ratios || !ratios->is_array())
                throw Error(ErrorCode::not_found, md.source() + ": missing key (" + rk + ")");
            for (std::uint64_t x : ratios->as_u64_array({md.source(), rk})) {
                if (x == 0) v.layers.push_back(V4LayerKind::sliding);
                else if (x == v.csa_ratio) v.layers.push_back(V4LayerKind::csa);
                else if (x == v.hca_ratio) v.layers.push_back(V4LayerKind::hca);
                else
                    throw Error(ErrorCode::invalid_file, md.source() + ": compress ratio " + std::to_string(x) +
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
            break;
        }
        case ArchId::glm4_moe:
            // q/k/v biases, no output bias; per-head q/k norms only in the 355B models (decided by the tensors:
            // desc_from_gguf(Reader)); llama.cpp's default gating for glm4moe is sigmoid.
            m.gating = Gating::sigmoid;
            m.correction_bias = true;
            at.qkv_bias = true;
            break;
        case ArchId::gpt_oss:
            m.gating = Gating::softmax_weight;
            m.router_bias = true;
            m.expert_bias = true;
            at.qkv_bias = true;
            at.o_bias = true;
            at.sinks = true;
            d.swiglu_limit = 7.0;
            d.swiglu_alpha = 1.702;
            r.yarn_truncate = false;  // the reference (and HF's config, truncate: false) keeps the exact ramp ends
            if (at.sliding_window) swa_pattern(k, md, d);
            break;
    }
    if (auto g = k.opt_count("expert_gating_func")) {
        switch (*g) {
            case 1: m.gating = Gating::softmax; break;
            case 2: m.gating = Gating::sigmoid; break;
            case 3: m.gating = Gating::softmax_weight; break;
            case 4: m.gating = Gating::sqrtsoftplus; break;  // ours (DeepSeek-V4)
            default:
                throw Error(ErrorCode::unsupported, md.source() + ": gating function " + std::to_string(*g) + " (" +
                                                        k.key("expert_gating_func") + ")");
        }
    }
    if (auto b = k.opt_bool("expert_weights_norm")) m.norm_topk_prob = *b;
    validate(d);
    return d;
}

ModelDesc desc_from_gguf(const gguf::Reader& file) {
    ModelDesc d = desc_from_gguf(file.metadata());
    if (file.tensors().empty()) return d;
    d.tied_embeddings = file.find_tensor("output.weight") == nullptr;
    bool bias = false;
    for (const auto& t : file.tensors()) bias = bias || t.name.find(".exp_probs_b") != std::string::npos;
    d.moe.correction_bias = bias;  // the selection bias is a tensor, not a key (DeepSeek-V2's softmax router has none)
    for (std::uint32_t il = 0; il < d.n_layer; ++il) {
        const std::string b = "blk." + std::to_string(il) + ".";
        if (d.layer_is_moe(il) && !file.find_tensor(b + "ffn_gate_inp.weight") && file.find_tensor(b + "ffn_down.weight"))
            d.moe.dense_layers.push_back(il);
    }
    if (d.arch == ArchId::glm4_moe) {
        // GLM-4.5/4.6/4.7 (355B) have per-head q/k norms, GLM-4.5-Air has none: no key says so, the tensors do.
        d.attn.qk_norm = file.find_tensor("blk.0.attn_q_norm.weight") != nullptr;
        d.attn.qkv_bias = file.find_tensor("blk.0.attn_q.bias") != nullptr;
    }
    validate(d);
    return d;
}

void desc_to_gguf(const ModelDesc& d, gguf::Metadata& md) {
    using gguf::Value;
    const std::string a(arch_gguf_name(d.arch));
    auto u32 = [&](std::string_view k, std::uint32_t v) { md.set(a + "." + std::string(k), Value::u32(v)); };
    auto f32 = [&](std::string_view k, double v) { md.set(a + "." + std::string(k), Value::f32(static_cast<float>(v))); };
    md.set("general.architecture", Value::string(a));
    if (!d.name.empty()) md.set("general.name", Value::string(d.name));
    u32("vocab_size", d.n_vocab);
    u32("context_length", d.n_ctx_train);
    u32("embedding_length", d.n_embd);
    u32("block_count", d.n_layer + d.nextn_predict_layers);
    if (d.n_ff) u32("feed_forward_length", d.n_ff);
    u32("attention.head_count", d.attn.n_head);
    if (d.attn.is_mla()) {
        // llama.cpp's layout since its MLA rework (attn_k_b / attn_v_b): one KV head of the latent + rope key.
        u32("attention.head_count_kv", 1);
        u32("attention.key_length", d.attn.kv_lora_rank + d.attn.qk_rope_head_dim);
        u32("attention.value_length", d.attn.kv_lora_rank);
        u32("attention.key_length_mla", d.attn.qk_nope_head_dim + d.attn.qk_rope_head_dim);
        u32("attention.value_length_mla", d.attn.v_head_dim);
    } else {
        u32("attention.head_count_kv", d.attn.n_head_kv);
        u32("attention.key_length", d.attn.head_dim);
        u32("attention.value_length", d.attn.v_head_dim);
    }
    f32("attention.layer_norm_rms_epsilon", d.norm_eps);
    if (d.attn.is_mla()) {
        if (d.attn.q_lora_rank) u32("attention.q_lora_rank", d.attn.q_lora_rank);
        u32("attention.kv_lora_rank", d.attn.kv_lora_rank);
    }
    if (d.attn.sliding_window) {
        u32("attention.sliding_window", d.attn.sliding_window);
        // llama.cpp's default (gpt-oss) is period 2 from a windowed layer 0; anything else is written out.
        const auto& swa = d.attn.swa_layers;
        bool period2 = swa.size() == d.n_layer;
        for (std::uint32_t il = 0; il < swa.size() && period2; ++il) period2 = swa[il] == (il % 2 == 0);
        if (!swa.empty() && !period2) {
            std::vector<bool> flags(swa.begin(), swa.end());
            std::unique_ptr<bool[]> arr(new bool[flags.size()]);
            for (size_t i = 0; i < flags.size(); ++i) arr[i] = flags[i];
            md.set(a + ".attention.sliding_window_pattern", Value::bool_array({arr.get(), flags.size()}));
        }
    }
    f32("rope.freq_base", d.rope.theta);
    u32("rope.dimension_count", d.rope.n_rot);
    if (d.rope.scaling != RopeScaling::none) {
        md.set(a + ".rope.scaling.type", Value::string(std::string(rope_scaling_name(d.rope.scaling))));
        f32("rope.scaling.factor", d.rope.factor);
        if (d.rope.original_context) u32("rope.scaling.original_context_length", d.rope.original_context);
        if (d.rope.scaling == RopeScaling::yarn) {
            if (d.rope.yarn_log_multiplier != 0) f32("rope.scaling.yarn_log_multiplier", d.rope.yarn_log_multiplier);
            f32("rope.scaling.yarn_beta_fast", d.rope.yarn_beta_fast);
            f32("rope.scaling.yarn_beta_slow", d.rope.yarn_beta_slow);
        }
        // DeepSeek's magnitude is llama.cpp's convention for the architecture (set when read), not a key.
        if (d.rope.attn_factor != 1.0 && d.arch != ArchId::deepseek_v3) f32("rope.scaling.attn_factor", d.rope.attn_factor);
    }
    u32("expert_count", d.moe.n_expert);
    u32("expert_used_count", d.moe.n_expert_used);
    u32("expert_feed_forward_length", d.moe.n_ff_exp);
    if (d.moe.n_shared_expert) {
        u32("expert_shared_count", d.moe.n_shared_expert);
        u32("expert_shared_feed_forward_length", d.moe.n_ff_shexp);
    }
    if (d.moe.first_k_dense) u32("leading_dense_block_count", d.moe.first_k_dense);
    if (d.moe.moe_every > 1) u32("moe_every_n_layers", d.moe.moe_every);
    md.set(a + ".expert_weights_norm", Value::boolean(d.moe.norm_topk_prob));
    if (d.moe.routed_scaling_factor != 1.0) f32("expert_weights_scale", d.moe.routed_scaling_factor);
    u32("expert_gating_func", d.moe.gating == Gating::softmax          ? 1u
                              : d.moe.gating == Gating::sigmoid        ? 2u
                              : d.moe.gating == Gating::softmax_weight ? 3u
                                                                       : 4u);
    if (d.moe.n_group) {
        u32("expert_group_count", d.moe.n_group);
        u32("expert_group_used_count", d.moe.topk_group);
    }
    if (d.nextn_predict_layers) u32("nextn_predict_layers", d.nextn_predict_layers);
    if (d.linear.any()) {
        const LinearAttnDesc& la = d.linear;
        u32("ssm.conv_kernel", la.conv_kernel);
        u32("ssm.state_size", la.k_head_dim);
        u32("ssm.group_count", la.n_k_heads);
        u32("ssm.time_step_rank", la.n_v_heads);
        u32("ssm.inner_size", la.value_dim());
        // llama.cpp's rule: layer il is full attention when (il + 1) % interval == 0; any other pattern per layer.
        std::uint32_t every = 0;
        for (std::uint32_t n = 1; n <= d.n_layer && !every; ++n) {
            bool ok = true;
            for (std::uint32_t il = 0; il < d.n_layer && ok; ++il) ok = la.is_linear(il) == ((il + 1) % n != 0);
            if (ok) every = n;
        }
        if (every) {
            u32("full_attention_interval", every);
        } else {
            std::unique_ptr<bool[]> arr(new bool[d.n_layer]);
            for (std::uint32_t il = 0; il < d.n_layer; ++il) arr[il] = la.is_linear(il);
            md.set(a + ".attention.recurrent_layers", Value::bool_array({arr.get(), d.n_layer}));
        }
    }
    if (d.v4.any()) {
        const V4Desc& v = d.v4;
        u32("hyper_connection.count", v.hc_mult);
        u32("hyper_connection.sinkhorn_iterations", v.hc_sinkhorn_iters);
        f32("hyper_connection.epsilon", v.hc_eps);
        u32("attention.q_lora_rank", d.attn.q_lora_rank);
        u32("attention.output_group_count", v.o_groups);
        u32("attention.output_lora_rank", v.o_lora_rank);
        if (v.index_n_heads) {
            u32("attention.indexer.head_count", v.index_n_heads);
            u32("attention.indexer.key_length", v.index_head_dim);
            u32("attention.indexer.top_k", v.index_topk);
        }
        u32("hash_layer_count", v.n_hash_layers);
        u32("attention.compress_ratio_csa", v.csa_ratio);
        u32("attention.compress_ratio_hca", v.hca_ratio);
        std::vector<std::uint32_t> ratios;
        for (std::uint32_t il = 0; il < d.n_layer; ++il) ratios.push_back(v.ratio(il));
        md.set(a + ".attention.compress_ratios", Value::u32_array(ratios));
        if (d.swiglu_limit > 0) f32("swiglu_limit", d.swiglu_limit);
        const RopeDesc& c = v.compress_rope;
        f32("rope.compress.freq_base", c.theta);
        if (c.scaling == RopeScaling::yarn) {
            md.set(a + ".rope.compress.scaling.type", Value::string("yarn"));
            f32("rope.compress.scaling.factor", c.factor);
            u32("rope.compress.scaling.original_context_length", c.original_context);
            f32("rope.compress.scaling.yarn_beta_fast", c.yarn_beta_fast);
            f32("rope.compress.scaling.yarn_beta_slow", c.yarn_beta_slow);
            f32("rope.compress.scaling.attn_factor", c.attn_factor);
        }
    }
    if (d.arch == ArchId::qwen3_5_moe) {
        // llama.cpp's qwen35moe loader requires the M-RoPE sections (4 entries; Qwen's default 11, 11, 10).
        std::vector<std::uint32_t> sec = d.rope.sections.empty() ? std::vector<std::uint32_t>{11, 11, 10} : d.rope.sections;
        sec.resize(4, 0);
        md.set(a + ".rope.dimension_sections", Value::u32_array(sec));
    }
}

}  // namespace ft::model
