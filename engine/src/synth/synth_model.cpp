#include "synth/synth_model.h"

#include <chrono>
#include <cmath>
#include <future>
#include <nlohmann/json.hpp>
#include <thread>

#include "format/gguf.h"
#include "ft/error.h"
#include "model/tokenizer_meta.h"
#include "synth/synth_rng.h"
#include "synth/synth_tokenizer.h"

namespace ft::synth {

using kernels::DType;

std::vector<std::string> synth_presets() {
    return {"tiny",        "qwen3-30b-a3b", "gpt-oss-20b",     "gpt-oss-120b",      "glm-4.5-air",
            "deepseek-v3", "deepseek-v2-lite", "deepseek-v4-flash", "qwen3.6-35b-a3b", "qwen3-next-80b-a3b"};
}

std::optional<model::ArchId> synth_preset_arch(const std::string& preset) {
    if (preset == "tiny" || preset == "qwen3-30b-a3b") return model::ArchId::qwen3_moe;
    if (preset == "gpt-oss-20b" || preset == "gpt-oss-120b") return model::ArchId::gpt_oss;
    if (preset == "glm-4.5-air") return model::ArchId::glm4_moe;
    if (preset == "deepseek-v3" || preset == "deepseek-v2-lite") return model::ArchId::deepseek_v3;
    if (preset == "deepseek-v4-flash") return model::ArchId::deepseek_v4;
    if (preset == "qwen3.6-35b-a3b") return model::ArchId::qwen3_5_moe;
    if (preset == "qwen3-next-80b-a3b") return model::ArchId::qwen3_next;
    return std::nullopt;
}

namespace {

// gpt-oss-20b / 120b (openai/gpt-oss-* config.json).
model::ModelDesc gpt_oss_desc(bool big) {
    model::ModelDesc d;
    d.arch = model::ArchId::gpt_oss;
    d.n_vocab = 201088;
    d.n_layer = big ? 36 : 24;
    d.n_embd = 2880;
    d.n_ctx_train = 131072;
    d.norm_eps = 1e-5;
    d.attn.n_head = 64, d.attn.n_head_kv = 8, d.attn.head_dim = 64;
    d.attn.qkv_bias = d.attn.o_bias = d.attn.sinks = true;
    d.attn.sliding_window = 128;
    d.moe.n_expert = big ? 128 : 32, d.moe.n_expert_used = 4, d.moe.n_ff_exp = 2880;
    d.moe.gating = model::Gating::softmax_weight;
    d.moe.router_bias = d.moe.expert_bias = true;
    d.swiglu_limit = 7.0;
    d.swiglu_alpha = 1.702;
    d.rope.type = model::RopeType::neox;
    d.rope.theta = 150000;
    d.rope.scaling = model::RopeScaling::yarn;
    d.rope.factor = 32;
    d.rope.original_context = 4096;
    d.rope.yarn_truncate = false;
    return d;
}

// GLM-4.5-Air (zai-org/GLM-4.5-Air config.json).
model::ModelDesc glm45_air_desc() {
    model::ModelDesc d;
    d.arch = model::ArchId::glm4_moe;
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
    d.moe.gating = model::Gating::sigmoid;
    d.moe.correction_bias = true;
    d.moe.norm_topk_prob = true;
    d.moe.n_group = 1, d.moe.topk_group = 1;
    d.rope.type = model::RopeType::neox;
    d.rope.theta = 1e6;
    return d;
}

// DeepSeek-V3 / R1 (deepseek-ai/DeepSeek-V3 config.json: 671B, 37B active) and DeepSeek-V2-Lite
// (deepseek-ai/DeepSeek-V2-Lite: 16B, 2.4B active; no low-rank q, softmax router, no groups).
model::ModelDesc deepseek_desc(bool v3) {
    model::ModelDesc d;
    d.arch = model::ArchId::deepseek_v3;
    d.norm_eps = 1e-6;
    d.n_ctx_train = 163840;
    auto& at = d.attn;
    at.kv_lora_rank = 512, at.qk_nope_head_dim = 128, at.qk_rope_head_dim = 64, at.v_head_dim = 128;
    at.head_dim = at.qk_nope_head_dim + at.qk_rope_head_dim;
    at.n_head_kv = 1;
    d.rope.type = model::RopeType::norm;
    d.rope.theta = 10000;
    d.rope.n_rot = at.qk_rope_head_dim;
    d.rope.scaling = model::RopeScaling::yarn;
    d.rope.factor = 40;
    d.rope.original_context = 4096;
    d.rope.attn_factor = 1.0 / (0.1 * std::log(40.0) + 1.0);  // magnitude 1, as llama.cpp runs DeepSeek
    auto& m = d.moe;
    if (v3) {
        d.n_vocab = 129280, d.n_layer = 61, d.n_embd = 7168, d.n_ff = 18432;
        at.n_head = 128, at.q_lora_rank = 1536;
        m.n_expert = 256, m.n_expert_used = 8, m.n_ff_exp = 2048, m.n_shared_expert = 1, m.first_k_dense = 3;
        m.gating = model::Gating::sigmoid, m.correction_bias = true, m.norm_topk_prob = true;
        m.routed_scaling_factor = 2.5, m.n_group = 8, m.topk_group = 4;
        d.rope.yarn_log_multiplier = 0.1;  // mscale_all_dim 1
    } else {
        d.n_vocab = 102400, d.n_layer = 27, d.n_embd = 2048, d.n_ff = 10944;
        at.n_head = 16;
        m.n_expert = 64, m.n_expert_used = 6, m.n_ff_exp = 1408, m.n_shared_expert = 2, m.first_k_dense = 1;
        m.gating = model::Gating::softmax, m.norm_topk_prob = false;
        d.rope.yarn_log_multiplier = 0.0707;  // mscale_all_dim 0.707
    }
    m.n_ff_shexp = m.n_ff_exp * m.n_shared_expert;
    return d;
}

// DeepSeek-V4-Flash (DeepseekV4Config's defaults, checkpoint deepseek-ai/DeepSeek-V4-Flash-Base, with the
// compress_ratios of DeepSeek-V4-Flash's config.json: 2 sliding-window layers, then CSA / HCA alternating, the
// last layer CSA; YaRN x16 over 65536 on the compressed branches).
model::ModelDesc deepseek_v4_desc() {
    model::ModelDesc d;
    d.arch = model::ArchId::deepseek_v4;
    d.n_vocab = 129280, d.n_layer = 43, d.n_embd = 4096, d.n_ctx_train = 1048576;
    d.norm_eps = 1e-6;
    auto& at = d.attn;
    at.n_head = 64, at.n_head_kv = 1, at.head_dim = 512, at.v_head_dim = 512, at.q_lora_rank = 1024;
    at.sinks = true;
    at.sliding_window = 128;
    d.rope.type = model::RopeType::norm;
    d.rope.theta = 10000;
    d.rope.n_rot = 64;
    auto& m = d.moe;
    m.n_expert = 256, m.n_expert_used = 6, m.n_ff_exp = 2048, m.n_shared_expert = 1, m.n_ff_shexp = 2048;
    m.gating = model::Gating::sqrtsoftplus, m.correction_bias = true, m.norm_topk_prob = true;
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
    v.compress_rope.scaling = model::RopeScaling::yarn;
    v.compress_rope.factor = 16;
    v.compress_rope.original_context = 65536;
    v.compress_rope.attn_factor = 1.0 / (0.1 * std::log(16.0) + 1.0);  // cos/sin unscaled, as the reference
    return d;
}

// Qwen3.6-35B-A3B (Qwen/Qwen3.6-35B-A3B's text_config, the qwen3_5_moe family) and Qwen3-Next-80B-A3B
// (Qwen/Qwen3-Next-80B-A3B-Instruct config.json): hybrid layers, three Gated DeltaNet to one gated attention.
model::ModelDesc qwen3_5_desc(bool next) {
    model::ModelDesc d;
    d.arch = next ? model::ArchId::qwen3_next : model::ArchId::qwen3_5_moe;
    d.n_vocab = next ? 151936 : 248320;
    d.norm_eps = 1e-6;
    d.n_ctx_train = 262144;
    d.rope.type = model::RopeType::neox;
    d.rope.theta = 1e7;
    auto& at = d.attn;
    at.n_head = 16, at.n_head_kv = 2, at.head_dim = 256, at.v_head_dim = 256;
    at.qk_norm = at.output_gate = true;
    d.rope.n_rot = 64;  // partial_rotary_factor 0.25
    if (!next) d.rope.sections = {11, 11, 10};
    auto& m = d.moe;
    m.gating = model::Gating::softmax;
    m.norm_topk_prob = true;
    m.n_shared_expert = 1;
    m.shared_gate = true;
    auto& la = d.linear;
    la.n_k_heads = 16, la.k_head_dim = 128, la.v_head_dim = 128, la.conv_kernel = 4;
    if (next) {
        d.n_layer = 48, d.n_embd = 2048;
        la.n_v_heads = 32;
        m.n_expert = 512, m.n_expert_used = 10, m.n_ff_exp = 512, m.n_ff_shexp = 512;
    } else {
        d.n_layer = 40, d.n_embd = 2048;
        la.n_v_heads = 32;
        m.n_expert = 256, m.n_expert_used = 8, m.n_ff_exp = 512, m.n_ff_shexp = 512;
    }
    return d;
}

// Qwen3-MoE: "tiny" (4 layers, hidden 256) or Qwen3-30B-A3B (Qwen/Qwen3-30B-A3B config.json).
model::ModelDesc qwen3_desc(bool big) {
    model::ModelDesc d;
    d.arch = model::ArchId::qwen3_moe;
    d.n_vocab = 151936;  // Qwen3's embedding rows (the tokenizer's 151669 tokens, padded)
    d.norm_eps = 1e-6;
    d.rope.type = model::RopeType::neox;
    d.rope.theta = 1e6;
    d.moe.gating = model::Gating::softmax;
    d.moe.norm_topk_prob = true;
    d.attn.qk_norm = true;
    if (big) {
        d.n_layer = 48, d.n_embd = 2048, d.n_ctx_train = 40960, d.n_ff = 6144;
        d.attn.n_head = 32, d.attn.n_head_kv = 4, d.attn.head_dim = 128;
        d.moe.n_expert = 128, d.moe.n_expert_used = 8, d.moe.n_ff_exp = 768;
    } else {
        d.n_layer = 4, d.n_embd = 256, d.n_ctx_train = 4096, d.n_ff = 768;
        d.attn.n_head = 4, d.attn.n_head_kv = 2, d.attn.head_dim = 64;
        d.moe.n_expert = 16, d.moe.n_expert_used = 4, d.moe.n_ff_exp = 256;
    }
    return d;
}

}  // namespace

model::ModelDesc synth_desc(model::ArchId arch, const std::string& preset, const SynthOverrides& o) {
    const auto preset_arch = synth_preset_arch(preset);
    if (!preset_arch)
        throw Error(ErrorCode::invalid_argument, "synth: unknown preset \"" + preset + "\" (--preset)",
                    "presets: tiny, qwen3-30b-a3b, gpt-oss-20b, gpt-oss-120b, glm-4.5-air, deepseek-v3, deepseek-v2-lite, "
                    "deepseek-v4-flash, qwen3.6-35b-a3b, qwen3-next-80b-a3b");
    if (*preset_arch != arch)
        throw Error(ErrorCode::invalid_argument,
                    "synth: preset " + preset + " is a " + std::string(model::arch_name(*preset_arch)) + " model, not " +
                        std::string(model::arch_name(arch)) + " (--arch)",
                    "leave --arch out: the preset decides it");
    const bool hybrid = arch == model::ArchId::qwen3_5_moe || arch == model::ArchId::qwen3_next;
    model::ModelDesc d = hybrid                             ? qwen3_5_desc(arch == model::ArchId::qwen3_next)
                         : arch == model::ArchId::deepseek_v3 ? deepseek_desc(preset == "deepseek-v3")
                         : arch == model::ArchId::deepseek_v4 ? deepseek_v4_desc()
                         : arch == model::ArchId::gpt_oss   ? gpt_oss_desc(preset == "gpt-oss-120b")
                         : arch == model::ArchId::glm4_moe  ? glm45_air_desc()
                                                            : qwen3_desc(preset == "qwen3-30b-a3b");
    d.source = "synth preset " + preset;
    if (o.layers) d.n_layer = *o.layers;
    if (o.experts) d.moe.n_expert = *o.experts;
    if (o.top_k) d.moe.n_expert_used = *o.top_k;
    if (o.hidden) d.n_embd = *o.hidden;
    if (o.expert_ff) d.moe.n_ff_exp = *o.expert_ff;
    if (o.heads) d.attn.n_head = *o.heads;
    if (o.context) d.n_ctx_train = *o.context;
    if (d.v4.any()) {
        if (o.kv_heads || o.head_dim)
            throw Error(ErrorCode::invalid_argument,
                        "synth: " + preset + " has shared-KV attention of head_dim 512: --kv-heads and --head-dim do not apply",
                        "leave them out");
        // The layer kinds as DeepSeek-V4-Flash lays them out, for any depth: 2 sliding, then CSA / HCA alternating.
        d.v4.layers.clear();
        for (std::uint32_t il = 0; il < d.n_layer; ++il)
            d.v4.layers.push_back(il < 2 ? model::V4LayerKind::sliding
                                  : (il - 2) % 2 == 0 ? model::V4LayerKind::csa : model::V4LayerKind::hca);
        if (d.n_layer == 43) d.v4.layers.back() = model::V4LayerKind::csa;  // as the released config
        d.v4.n_hash_layers = std::min(d.v4.n_hash_layers, d.n_layer);
        if (d.attn.n_head % d.v4.o_groups) d.v4.o_groups = 1;
    } else if (d.attn.is_mla()) {
        if (o.kv_heads || o.head_dim)
            throw Error(ErrorCode::invalid_argument,
                        "synth: " + preset + " has latent attention: --kv-heads and --head-dim do not apply", "leave them out");
    } else {
        if (o.kv_heads) d.attn.n_head_kv = *o.kv_heads;
        if (o.head_dim) d.attn.head_dim = *o.head_dim;
        d.attn.v_head_dim = d.attn.head_dim;
        // GLM rotates the first half of each head, Qwen3.5 / Qwen3-Next a quarter; the others all of it.
        d.rope.n_rot = arch == model::ArchId::glm4_moe ? d.attn.head_dim / 2 : hybrid ? d.attn.head_dim / 4 : d.attn.head_dim;
    }
    if (hybrid) {
        // Every fourth layer full attention (llama.cpp's full_attention_interval 4).
        d.linear.layers.clear();
        for (std::uint32_t il = 0; il < d.n_layer; ++il) d.linear.layers.push_back((il + 1) % 4 != 0);
        d.moe.n_ff_shexp = d.moe.n_ff_exp;
    } else {
        d.moe.n_ff_shexp = d.moe.n_ff_exp * d.moe.n_shared_expert;
    }
    if (d.moe.first_k_dense >= d.n_layer) d.moe.first_k_dense = d.n_layer - 1;
    if (d.moe.n_group && d.moe.n_expert % d.moe.n_group) d.moe.n_group = d.moe.topk_group = 0;
    if (d.attn.sliding_window) {
        d.attn.swa_layers.assign(d.n_layer, false);
        for (std::uint32_t il = 0; il < d.n_layer; il += 2) d.attn.swa_layers[il] = true;
    }
    d.name = "FreeToken synthetic " + std::string(model::arch_name(arch)) + " " + preset;
    try {
        model::validate(d);
    } catch (const Error& e) {
        throw Error(ErrorCode::invalid_argument, "synth: " + e.message(), "check the size overrides");
    }
    return d;
}

bool synth_weight_type_supported(DType t) {
    return t == DType::F32 || t == DType::BF16 || t == DType::Q8_0 || t == DType::Q4_K || t == DType::Q5_K ||
           t == DType::Q6_K || t == DType::MXFP4;
}

SynthPlan synth_plan(const model::ModelDesc& desc, DType weights, std::uint64_t seed, std::optional<DType> expert_weights) {
    const DType ew = expert_weights ? *expert_weights : desc.arch == model::ArchId::gpt_oss ? DType::MXFP4 : weights;
    for (DType t : {weights, ew})
        if (!synth_weight_type_supported(t))
            throw Error(ErrorCode::invalid_argument,
                        "synth: weight type " + std::string(kernels::dtype_info(t).name) + " is not supported (--weights)",
                        "use f32, bf16, q8_0, q4_k, q5_k, q6_k or mxfp4");
    SynthPlan p;
    p.desc = desc;
    p.seed = seed;
    p.weights = weights;
    p.expert_weights = ew;
    for (auto& spec : model::arch_tensors(desc)) {
        SynthTensor t;
        t.spec = std::move(spec);
        t.key = name_key(t.spec.name);
        const std::uint64_t row = t.spec.dims[0];
        if (t.spec.role == model::TensorRole::ffn_hash_table) {
            t.type = DType::I32;  // DeepSeek-V4's token → experts table (synth_fill writes valid, distinct ids)
            t.n_expert = desc.moe.n_expert;
        } else if (t.spec.keep_f32()) {
            t.type = DType::F32;
        } else {
            // Like llama.cpp's quantizer: a row that is not a whole number of blocks falls back to Q8_0, then F32.
            t.type = t.spec.is_expert() ? ew : weights;
            if (row % kernels::dtype_info(t.type).block_elems != 0) t.type = row % 32 == 0 ? DType::Q8_0 : DType::F32;
        }
        t.std = t.spec.is_norm() ? 0.f : 1.f / std::sqrt(static_cast<float>(row));
        const auto& info = kernels::dtype_info(t.type);
        t.n_bytes = *kernels::dtype_bytes(t.type, t.spec.n_elements());
        if (info.quantized) {
            t.n_units = t.spec.n_elements() / info.block_elems;
            t.unit_bytes = info.block_bytes;
        } else {
            t.n_units = (t.spec.n_elements() + 255) / 256;
            t.unit_bytes = 256ull * info.block_bytes;
        }
        p.tensors.push_back(std::move(t));
    }
    return p;
}

namespace {

// llama.cpp's general.file_type for a file whose matrices are all of one type.
std::uint32_t file_type(DType t) {
    switch (t) {
        case DType::F32: return 0;
        case DType::Q8_0: return 7;
        case DType::Q4_K: return 14;  // Q4_K_S
        case DType::Q5_K: return 16;  // Q5_K_S
        case DType::Q6_K: return 18;
        case DType::BF16: return 32;
        default: return 0;
    }
}

}  // namespace

SynthResult synth_write(const SynthPlan& plan, const SynthOptions& opt) {
    const auto t0 = std::chrono::steady_clock::now();
    gguf::SplitWriter w(opt.out, {opt.split_max_tensors, opt.split_max_bytes});
    auto& md = w.metadata();
    using gguf::Value;
    md.set("general.architecture", Value::string(std::string(model::arch_gguf_name(plan.desc.arch))));
    md.set("general.type", Value::string("model"));
    md.set("general.name", Value::string(plan.desc.name));
    md.set("general.description", Value::string("Synthetic model written by `ft synth`: real architecture and tokenizer, "
                                                "random weights. Not a trained model."));
    // llama.cpp's MXFP4_MOE (38): MXFP4 experts, Q8_0 for the rest.
    const bool mxfp4_moe = plan.expert_weights == DType::MXFP4 && plan.weights == DType::Q8_0;
    md.set("general.file_type", Value::u32(mxfp4_moe ? 38u : file_type(plan.weights)));
    md.set("general.quantization_version", Value::u32(2));
    md.set("freetoken.synth.seed", Value::u64(plan.seed));
    model::desc_to_gguf(plan.desc, md);
    // The tokenizer, cut to the model's vocabulary when it is larger (the Qwen3 tokenizer under GLM's 151552 rows),
    // and Qwen3's config.json special ids (bos <|endoftext|>, eos <|im_end|>; tokenizer_config names no bos) in its
    // numbering.
    const auto work = std::filesystem::temp_directory_path() /
                      ("ft-synth-tokenizer-" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    struct Cleanup {
        std::filesystem::path p;
        ~Cleanup() {
            std::error_code ec;
            std::filesystem::remove_all(p, ec);
        }
    } cleanup{work};
    const FittedTokenizer tok = synth_fit_tokenizer(opt.tokenizer_dir, plan.desc.n_vocab, work);
    model::HfTokenizerSource src;
    src.tokenizer_json = tok.dir / "tokenizer.json";
    if (std::filesystem::exists(tok.dir / "tokenizer_config.json")) src.tokenizer_config = tok.dir / "tokenizer_config.json";
    model::hf_tokenizer_to_gguf(src, plan.desc.n_vocab, &tok.model_config, md);

    std::uint64_t total = 0;
    for (const auto& t : plan.tensors) {
        w.add_tensor(t.spec.name, t.type, t.spec.dims);
        total += t.n_bytes;
    }
    w.write_header();

    const unsigned n_threads = opt.threads ? opt.threads : std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::byte> buf[2];
    buf[0].resize(opt.chunk_bytes + (1u << 16));
    buf[1].resize(opt.chunk_bytes + (1u << 16));
    int cur = 0;
    std::future<void> pending;  // the write of the other buffer
    std::uint64_t done = 0;
    for (const auto& t : plan.tensors) {
        const std::uint64_t per_chunk = std::max<std::uint64_t>(1, opt.chunk_bytes / t.unit_bytes);
        bool begun = false;
        for (std::uint64_t u0 = 0; u0 < t.n_units; u0 += per_chunk) {
            const std::uint64_t count = std::min(per_chunk, t.n_units - u0);
            const std::uint64_t bytes =
                std::min<std::uint64_t>(t.n_bytes - u0 * t.unit_bytes, count * t.unit_bytes);
            std::byte* out = buf[cur].data();
            // Split the chunk by units across the workers; unit offsets are exact because only the very last unit
            // of an F32/BF16 tensor can be short, and it is always last in its worker's range.
            const unsigned workers = static_cast<unsigned>(std::min<std::uint64_t>(n_threads, count));
            std::vector<std::thread> pool;
            const std::uint64_t per_worker = (count + workers - 1) / workers;
            for (unsigned i = 0; i < workers; ++i) {
                const std::uint64_t a = u0 + i * per_worker;
                if (a >= u0 + count) break;
                const std::uint64_t n = std::min(per_worker, u0 + count - a);
                std::byte* dst = out + (a - u0) * t.unit_bytes;
                if (i + 1 == workers || a + n == u0 + count) {
                    synth_fill(t, plan.seed, a, n, dst);  // the caller's thread takes the last share
                } else {
                    pool.emplace_back([&t, &plan, a, n, dst] { synth_fill(t, plan.seed, a, n, dst); });
                }
            }
            for (auto& th : pool) th.join();
            if (pending.valid()) pending.get();
            if (!begun) {
                w.begin_tensor(t.spec.name);
                begun = true;
            }
            pending = std::async(std::launch::async, [&w, out, bytes] { w.write({out, static_cast<std::size_t>(bytes)}); });
            cur ^= 1;
            done += bytes;
            if (opt.progress) opt.progress(done, total);
        }
        if (pending.valid()) pending.get();
        if (!begun) w.begin_tensor(t.spec.name);
        w.end_tensor();
    }
    w.finish();
    SynthResult r;
    r.tensor_bytes = total;
    r.files = w.paths();
    r.file_bytes = w.expected_size();
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

}  // namespace ft::synth
