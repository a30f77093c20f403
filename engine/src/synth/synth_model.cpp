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

namespace ft::synth {

using kernels::DType;

std::vector<std::string> synth_presets() { return {"tiny", "qwen3-30b-a3b"}; }

model::ModelDesc synth_desc(model::ArchId arch, const std::string& preset, const SynthOverrides& o) {
    if (arch != model::ArchId::qwen3_moe)
        throw Error(ErrorCode::unsupported, "synth: architecture " + std::string(model::arch_name(arch)) + " is not available yet (--arch)",
                    "use --arch qwen3_moe");
    model::ModelDesc d;
    d.arch = arch;
    d.source = "synth preset " + preset;
    d.n_vocab = 151936;  // Qwen3's embedding rows (the tokenizer's 151669 tokens, padded)
    d.norm_eps = 1e-6;
    d.rope.type = model::RopeType::neox;
    d.rope.theta = 1e6;
    d.moe.gating = model::Gating::softmax;
    d.moe.norm_topk_prob = true;
    d.attn.qk_norm = true;
    if (preset == "tiny") {
        d.n_layer = 4, d.n_embd = 256, d.n_ctx_train = 4096, d.n_ff = 768;
        d.attn.n_head = 4, d.attn.n_head_kv = 2, d.attn.head_dim = 64;
        d.moe.n_expert = 16, d.moe.n_expert_used = 4, d.moe.n_ff_exp = 256;
    } else if (preset == "qwen3-30b-a3b") {
        d.n_layer = 48, d.n_embd = 2048, d.n_ctx_train = 40960, d.n_ff = 6144;
        d.attn.n_head = 32, d.attn.n_head_kv = 4, d.attn.head_dim = 128;
        d.moe.n_expert = 128, d.moe.n_expert_used = 8, d.moe.n_ff_exp = 768;
    } else {
        throw Error(ErrorCode::invalid_argument, "synth: unknown preset \"" + preset + "\" (--preset)",
                    "presets: tiny, qwen3-30b-a3b");
    }
    if (o.layers) d.n_layer = *o.layers;
    if (o.experts) d.moe.n_expert = *o.experts;
    if (o.top_k) d.moe.n_expert_used = *o.top_k;
    if (o.hidden) d.n_embd = *o.hidden;
    if (o.expert_ff) d.moe.n_ff_exp = *o.expert_ff;
    if (o.heads) d.attn.n_head = *o.heads;
    if (o.kv_heads) d.attn.n_head_kv = *o.kv_heads;
    if (o.head_dim) d.attn.head_dim = *o.head_dim;
    if (o.context) d.n_ctx_train = *o.context;
    d.attn.v_head_dim = d.attn.head_dim;
    d.rope.n_rot = d.attn.head_dim;
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
           t == DType::Q6_K;
}

SynthPlan synth_plan(const model::ModelDesc& desc, DType weights, std::uint64_t seed) {
    if (!synth_weight_type_supported(weights))
        throw Error(ErrorCode::invalid_argument,
                    "synth: weight type " + std::string(kernels::dtype_info(weights).name) + " is not supported (--weights)",
                    "use f32, bf16, q8_0, q4_k, q5_k or q6_k");
    SynthPlan p;
    p.desc = desc;
    p.seed = seed;
    p.weights = weights;
    for (auto& spec : model::arch_tensors(desc)) {
        SynthTensor t;
        t.spec = std::move(spec);
        t.key = name_key(t.spec.name);
        const std::uint64_t row = t.spec.dims[0];
        if (t.spec.keep_f32()) {
            t.type = DType::F32;
        } else {
            // Like llama.cpp's quantizer: a row that is not a whole number of blocks falls back to Q8_0, then F32.
            t.type = weights;
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
    gguf::Writer w(opt.out);
    auto& md = w.metadata();
    using gguf::Value;
    md.set("general.architecture", Value::string(std::string(model::arch_gguf_name(plan.desc.arch))));
    md.set("general.type", Value::string("model"));
    md.set("general.name", Value::string(plan.desc.name));
    md.set("general.description", Value::string("Synthetic model written by `ft synth`: real architecture and tokenizer, "
                                                "random weights. Not a trained model."));
    md.set("general.file_type", Value::u32(file_type(plan.weights)));
    md.set("general.quantization_version", Value::u32(2));
    md.set("freetoken.synth.seed", Value::u64(plan.seed));
    model::desc_to_gguf(plan.desc, md);
    // Qwen3's config.json special ids (bos 151643, eos 151645): tokenizer_config names eos and pad but no bos.
    const nlohmann::json model_config = {{"bos_token_id", 151643}, {"eos_token_id", 151645}};
    model::HfTokenizerSource src;
    src.tokenizer_json = opt.tokenizer_dir / "tokenizer.json";
    if (std::filesystem::exists(opt.tokenizer_dir / "tokenizer_config.json"))
        src.tokenizer_config = opt.tokenizer_dir / "tokenizer_config.json";
    model::hf_tokenizer_to_gguf(src, plan.desc.n_vocab, &model_config, md);

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
    r.file_bytes = w.expected_size();
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

}  // namespace ft::synth
