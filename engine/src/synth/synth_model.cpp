#include "synth/synth_model.h"

#include <chrono>
#include <cmath>
#include <future>
#include <nlohmann/json.hpp>
#include <thread>

#include "format/gguf.h"
#include "ft/error.h"
#include "ref/quant.h"
#include "model/arch.h"
#include "model/tokenizer_meta.h"
#include "synth/synth_rng.h"
#include "synth/synth_tokenizer.h"

namespace ft::synth {

using kernels::DType;

std::vector<std::string> synth_presets() {
    std::vector<std::string> out;
    for (const model::Arch* a : model::arch_registry())
        for (const model::SynthPreset& p : a->presets) out.emplace_back(p.name);
    return out;
}

std::optional<model::ArchId> synth_preset_arch(const std::string& preset) {
    if (const model::Arch* a = model::arch_of_preset(preset)) return a->id;
    return std::nullopt;
}

model::ModelDesc synth_desc(model::ArchId arch, const std::string& preset, const SynthOverrides& o) {
    const model::Arch* preset_arch = model::arch_of_preset(preset);
    if (!preset_arch)
        throw Error(ErrorCode::invalid_argument, "synth: unknown preset \"" + preset + "\" (--preset)",
                    "presets: " + model::synth_preset_names());
    if (preset_arch->id != arch)
        throw Error(ErrorCode::invalid_argument,
                    "synth: preset " + preset + " is a " + std::string(preset_arch->name) + " model, not " +
                        std::string(model::arch_name(arch)) + " (--arch)",
                    "leave --arch out: the preset decides it");
    model::ModelDesc d;
    for (const model::SynthPreset& p : preset_arch->presets)
        if (p.name == preset) d = p.desc();
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
    } else if (d.attn.is_mla()) {
        if (o.kv_heads || o.head_dim)
            throw Error(ErrorCode::invalid_argument,
                        "synth: " + preset + " has latent attention: --kv-heads and --head-dim do not apply", "leave them out");
    } else {
        if (o.kv_heads) d.attn.n_head_kv = *o.kv_heads;
        if (o.head_dim) d.attn.head_dim = *o.head_dim;
        d.attn.v_head_dim = d.attn.head_dim;
        d.rope.n_rot = d.attn.head_dim;  // the architecture's synth_fit may rotate part of the head
    }
    d.moe.n_ff_shexp = d.moe.n_ff_exp * d.moe.n_shared_expert;
    // What follows from the sizes in the architecture's own layout (layer patterns, rotated dims).
    if (preset_arch->synth_fit) preset_arch->synth_fit(d);
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

std::optional<DType> synth_default_expert_weights(model::ArchId arch) { return model::arch_of(arch).synth_expert_weights; }

DType synth_default_weights(model::ArchId arch) { return model::arch_of(arch).synth_weights; }

bool synth_weight_type_supported(DType t) {
    // Block types: those with a reference quantizer (synth_fill generates the others' codes directly).
    return t == DType::F32 || t == DType::BF16 || (kernels::dtype_info(t).quantized && kernels::ref::quant_supported(t));
}

SynthPlan synth_plan(const model::ModelDesc& desc, DType weights, std::uint64_t seed, std::optional<DType> expert_weights) {
    const DType ew = expert_weights ? *expert_weights : synth_default_expert_weights(desc.arch).value_or(weights);
    for (DType t : {weights, ew})
        if (!synth_weight_type_supported(t))
            throw Error(ErrorCode::invalid_argument,
                        "synth: weight type " + std::string(kernels::dtype_info(t).name) + " is not supported (--weights)",
                        "use one of f32, bf16, q8_0, q4_0, q4_1, q5_0, q5_1, q2_k, q3_k, q4_k, q5_k, q6_k, iq4_nl, iq4_xs, "
                        "mxfp4, tq1_0, tq2_0, iq2_xxs, iq2_xs, iq2_s, iq3_xxs, iq3_s, iq1_s, iq1_m");
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
        case DType::Q4_0: return 2;
        case DType::Q4_1: return 3;
        case DType::Q8_0: return 7;
        case DType::Q5_0: return 8;
        case DType::Q5_1: return 9;
        case DType::Q2_K: return 10;
        case DType::Q3_K: return 11;  // Q3_K_S
        case DType::Q4_K: return 14;  // Q4_K_S
        case DType::Q5_K: return 16;  // Q5_K_S
        case DType::Q6_K: return 18;
        case DType::IQ4_NL: return 25;
        case DType::IQ2_XXS: return 19;
        case DType::IQ2_XS: return 20;
        case DType::IQ3_XXS: return 23;
        case DType::IQ3_S: return 26;
        case DType::IQ2_S: return 28;
        case DType::IQ4_XS: return 30;
        case DType::IQ1_S: return 24;
        case DType::IQ1_M: return 31;
        case DType::BF16: return 32;
        case DType::TQ1_0: return 36;
        case DType::TQ2_0: return 37;
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
