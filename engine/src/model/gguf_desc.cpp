// ModelDesc <-> GGUF metadata, with llama.cpp's key names (`<arch>.block_count`, `<arch>.expert_count`, …) and
// value types (counts u32, floats f32, flags bool) so that files we write load in llama.cpp. The keys every
// architecture shares are here; the rest, and the conventions llama.cpp hard-codes per architecture, in the
// architecture's folder (its registry entry's read_gguf / refine_gguf / write_gguf).
#include <algorithm>
#include <limits>
#include <memory>

#include "format/gguf.h"
#include "ft/error.h"
#include "model/arch.h"
#include "model/gguf_keys.h"
#include "model/model_desc.h"

namespace ft::model {

ModelDesc desc_from_gguf(const gguf::Metadata& md) {
    const std::string arch_str(md.get_string("general.architecture"));
    GgufKeys k(md, arch_str);
    ModelDesc d;
    d.source = md.source();
    const Arch* arch = arch_of_gguf_name(arch_str);
    if (!arch || !arch->graph)
        throw Error(ErrorCode::unsupported,
                    md.source() + ": architecture \"" + arch_str + "\" is not supported (general.architecture)",
                    "supported: " + runnable_gguf_names())
            .keyed("arch_unsupported", {md.source(), arch_str, runnable_gguf_names()});
    d.arch = arch->id;
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
    if (arch->moe) {
        m.n_expert = k.req_u32("expert_count");
        m.n_expert_used = k.req_u32("expert_used_count");
        m.n_ff_exp = k.opt_u32("expert_feed_forward_length", d.n_ff);
        if (m.n_ff_exp == 0) m.n_ff_exp = k.req_u32("expert_feed_forward_length");
    }
    m.n_shared_expert = k.opt_u32("expert_shared_count", 0);
    m.n_ff_shexp = k.opt_u32("expert_shared_feed_forward_length", m.n_ff_exp * m.n_shared_expert);
    m.first_k_dense = k.opt_u32("leading_dense_block_count", 0);
    m.moe_every = std::max<std::uint32_t>(1, k.opt_u32("moe_every_n_layers", 1));
    m.routed_scaling_factor = k.opt_f64("expert_weights_scale", 1.0);
    if (m.routed_scaling_factor == 0) m.routed_scaling_factor = 1.0;
    m.n_group = k.opt_u32("expert_group_count", 0);
    m.topk_group = k.opt_u32("expert_group_used_count", 0);

    // The architecture's own keys, and the conventions llama.cpp hard-codes rather than stores.
    if (arch->read_gguf) arch->read_gguf(k, d);
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
    if (const Arch& a = arch_of(d.arch); a.refine_gguf) a.refine_gguf(file, d);
    validate(d);
    return d;
}

void desc_to_gguf(const ModelDesc& d, gguf::Metadata& md) {
    using gguf::Value;
    const Arch& arch = arch_of(d.arch);
    const std::string a(arch.gguf_name);
    GgufKeyWriter w(md, a);
    auto u32 = [&](std::string_view k, std::uint32_t v) { w.u32(k, v); };
    auto f32 = [&](std::string_view k, double v) { w.f32(k, v); };
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
        if (d.rope.attn_factor != 1.0) f32("rope.scaling.attn_factor", d.rope.attn_factor);
    }
    if (arch.moe) {  // a dense architecture has no expert keys (llama.cpp's files of it have none)
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
    }
    if (d.nextn_predict_layers) u32("nextn_predict_layers", d.nextn_predict_layers);
    if (arch.write_gguf) arch.write_gguf(d, w);
}

}  // namespace ft::model
