#include "model/convert_hf.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <thread>
#include <nlohmann/json.hpp>

#include "format/gguf.h"
#include "format/safetensors.h"
#include "format/hf_quant.h"
#include "ft/error.h"
#include "model/arch.h"
#include "model/model_desc.h"
#include "model/model_tensors.h"
#include "model/tokenizer_meta.h"
#include "ref/quant.h"
#include "ft/utf8.h"

namespace ft::model {

namespace {

using kernels::DType;
namespace ref = kernels::ref;

bool target_supported(DType t) {
    return t == DType::F32 || t == DType::F16 || t == DType::BF16 || t == DType::Q8_0 || t == DType::Q4_0 ||
           t == DType::Q4_K || t == DType::Q5_K || t == DType::Q6_K;
}

std::uint32_t file_type(DType t) {
    switch (t) {
        case DType::F32: return 0;
        case DType::F16: return 1;
        case DType::Q4_0: return 2;
        case DType::Q8_0: return 7;
        case DType::Q4_K: return 14;
        case DType::Q5_K: return 16;
        case DType::Q6_K: return 18;
        case DType::BF16: return 32;
        default: return 0;
    }
}

// Source row → f32.
void to_f32(safetensors::DType st, const std::byte* src, float* dst, std::uint64_t n) {
    switch (st) {
        case safetensors::DType::F32: std::memcpy(dst, src, n * 4); break;
        case safetensors::DType::F16:
            for (std::uint64_t i = 0; i < n; ++i) {
                std::uint16_t h;
                std::memcpy(&h, src + 2 * i, 2);
                dst[i] = ref::f16_to_f32(h);
            }
            break;
        case safetensors::DType::BF16:
            for (std::uint64_t i = 0; i < n; ++i) {
                std::uint16_t h;
                std::memcpy(&h, src + 2 * i, 2);
                dst[i] = ref::bf16_to_f32(h);
            }
            break;
        default: break;  // rejected before
    }
}

}  // namespace

ConvertResult convert_hf_to_gguf(const std::filesystem::path& dir, const ConvertOptions& opt) {
    const auto t0 = std::chrono::steady_clock::now();
    if (!target_supported(opt.type))
        throw Error(ErrorCode::unsupported,
                    "convert: target type " + std::string(kernels::dtype_info(opt.type).name) + " is not supported (--type)",
                    "use f32, f16, bf16, q8_0, q4_0, q4_k, q5_k or q6_k");
    ModelDesc desc = desc_from_hf_dir(dir);
    nlohmann::json config;
    {
        std::ifstream in(dir / "config.json");
        config = nlohmann::json::parse(in, nullptr, false);
    }
    const auto ck = safetensors::Checkpoint::open(dir);
    // config.json may omit tie_word_embeddings while the checkpoint has no lm_head: tie then.
    if (!ck.find("lm_head.weight")) desc.tied_embeddings = true;
    const auto specs = arch_tensors(desc);

    // Check every source before writing anything: presence, dtype and shape.
    struct Planned {
        const TensorSpec* spec;
        DType type;
        std::vector<const safetensors::Checkpoint::Entry*> src;
        std::uint64_t n_bytes;
        bool fused3d = false;  // src[0] is Qwen3.5's 3-D expert tensor [n_expert, hf_fused_rows, in]
        std::vector<safetensors::QuantizedTensor> quant;  // FP8 / NVFP4 sources (format/hf_quant.h), one per src
    };
    const safetensors::QuantConfig qc = safetensors::read_quant_config(dir);
    std::vector<Planned> plan;
    const std::string where = path_to_utf8(dir);
    // Qwen3.5's multimodal checkpoints keep the language model under "model.language_model.".
    auto find = [&ck](const std::string& n) {
        const auto* e = ck.find(n);
        if (!e && n.rfind("model.", 0) == 0) e = ck.find("model.language_model." + n.substr(6));
        return e;
    };
    // The architecture's own reordering of tensors into its GGUF layout (qwen35moe's tiled value heads).
    const Arch& arch = arch_of(desc.arch);
    auto rewrites = [&](const TensorSpec& s) { return arch.convert_rewrites && arch.convert_rewrites(desc, s); };
    for (const auto& s : specs) {
        const bool mla = s.hf_layout == HfLayout::mla_k_b || s.hf_layout == HfLayout::mla_v_b;
        const bool transformed = s.hf_layout == HfLayout::rows || s.hf_layout == HfLayout::norm_plus_one ||
                                 s.hf_layout == HfLayout::neg_exp;
        if (s.hf_layout != HfLayout::direct && !mla && !transformed)
            throw Error(ErrorCode::unsupported,
                        where + ": convert does not repack " + std::string(arch_name(desc.arch)) + "'s " + s.hf_names.at(0) +
                            " into " + s.name + " yet",
                        "the engine loads this folder directly; or convert it with llama.cpp's convert_hf_to_gguf.py");
        Planned p{&s, DType::F32, {}, 0};
        if (s.role == TensorRole::ffn_hash_table) {  // DeepSeek-V4's tid2eid: integers, written as i32
            const auto* e = find(s.hf_names.at(0));
            if (!e) throw Error(ErrorCode::not_found, where + ": missing tensor " + s.hf_names.at(0) + " (for " + s.name + ")");
            if ((e->info->dtype != safetensors::DType::I64 && e->info->dtype != safetensors::DType::I32) ||
                e->info->shape != std::vector<std::uint64_t>(s.dims.rbegin(), s.dims.rend()))
                throw Error(ErrorCode::invalid_file, where + ": tensor " + s.hf_names.at(0) + " is not an i32/i64 [" +
                                                         std::to_string(s.dims[1]) + ", " + std::to_string(s.dims[0]) + "] table");
            p.src.push_back(e);
            p.type = DType::I32;
            p.n_bytes = s.n_elements() * 4;
            plan.push_back(std::move(p));
            continue;
        }
        if (s.is_expert() && !s.hf_fused.empty() && !find(s.hf_names.at(0)) && find(s.hf_fused)) {
            // Qwen3.5's 3-D experts: this tensor's rows are rows hf_offset .. + dims[1] of each expert.
            const auto* e = find(s.hf_fused);
            const std::vector<std::uint64_t> want3{s.dims[2], s.hf_fused_rows, s.dims[0]};
            if (e->info->shape != want3 || !safetensors::dtype_supported_for_compute(e->info->dtype))
                throw Error(ErrorCode::invalid_file, where + ": tensor " + s.hf_fused + " is not a [" +
                                                         std::to_string(s.dims[2]) + ", " + std::to_string(s.hf_fused_rows) +
                                                         ", " + std::to_string(s.dims[0]) + "] F32/F16/BF16 tensor (shape)");
            p.src.push_back(e);
            p.fused3d = true;
        }
        // Each source is one [out, in] matrix (or a vector): its HF shape is the GGUF dims reversed, without the
        // expert dim for stacked experts.
        std::vector<std::uint64_t> want(s.dims.rbegin(), s.dims.rend());
        if (s.hf_names.size() > 1) want.erase(want.begin());
        // DeepSeek's kv_b_proj [n_head · (nope + v), kv_lora], split into attn_k_b / attn_v_b as it is written.
        if (mla) want = {s.dims[2] * s.hf_step, s.hf_layout == HfLayout::mla_k_b ? s.dims[1] : s.dims[0]};
        std::vector<std::string> names = p.fused3d ? std::vector<std::string>{} : s.hf_names;
        if (!s.hf_alt.empty() && names.size() == 1 && !find(names[0]) && find(s.hf_alt)) names[0] = s.hf_alt;
        for (const auto& hn : names) {
            // An FP8 / NVFP4 weight is written in the engine's matching type (FT_FP8 / FT_NVFP4), exactly as stored;
            // DeepSeek's quantized kv_b_proj is decoded and split into attn_k_b / attn_v_b in F32, as the loader does.
            // (compressed-tensors stores a quantized "….weight" as "….weight_packed")
            auto held = [&](const std::string& n) { return ck.find(n) || (n.ends_with(".weight") && ck.find(n + "_packed")); };
            const std::string prefixed = hn.rfind("model.", 0) == 0 ? "model.language_model." + hn.substr(6) : hn;
            const std::string stored = held(hn) || !held(prefixed) ? hn : prefixed;
            if (auto q = safetensors::find_quantized(ck, stored, qc)) {
                if ((s.hf_layout != HfLayout::direct && !mla) || rewrites(s) || s.keep_f32())
                    throw Error(ErrorCode::unsupported,
                                where + ": tensor " + hn + " is " + std::string(kernels::dtype_info(q->type).name) +
                                    "; convert writes quantized checkpoint tensors only where they are copied as they are "
                                    "or split as DeepSeek's kv_b_proj",
                                "the engine loads this folder directly");
                auto squeezed = [](std::vector<std::uint64_t> v) {
                    std::erase(v, std::uint64_t(1));
                    return v;
                };
                if (squeezed(q->shape) != squeezed(want))
                    throw Error(ErrorCode::invalid_file, where + ": tensor " + hn + " does not have the shape config.json implies (shape)");
                if (!p.quant.empty() && p.quant.front().type != q->type)
                    throw Error(ErrorCode::unsupported, where + ": tensor " + hn + " is quantized unlike the others of " + s.name);
                p.quant.push_back(std::move(*q));
                continue;
            }
            if (!p.quant.empty())
                throw Error(ErrorCode::unsupported, where + ": tensor " + hn + " is not quantized like the others of " + s.name);
            const auto* e = find(hn);
            if (!e)
                throw Error(ErrorCode::not_found, where + ": missing tensor " + hn + " (for " + s.name + ")",
                            "the checkpoint does not match config.json");
            if (e->info->dtype != safetensors::DType::F32 && e->info->dtype != safetensors::DType::F16 &&
                e->info->dtype != safetensors::DType::BF16)
                throw Error(ErrorCode::unsupported,
                            where + ": tensor " + hn + " has dtype " + std::string(safetensors::dtype_name(e->info->dtype)) +
                                " (dtype)",
                            "convert reads F32, F16 and BF16 checkpoints");
            // 1-dims do not count (conv1d's [channels, 1, kernel]); a row gather takes any multiple of its groups.
            auto squeeze = [](std::vector<std::uint64_t> v) {
                std::erase(v, std::uint64_t(1));
                return v;
            };
            const bool rows_ok = s.hf_layout == HfLayout::rows && e->info->shape.size() == 2 && e->info->shape[1] == s.dims[0] &&
                                 e->info->shape[0] % s.hf_step == 0;
            if (!rows_ok && squeeze(e->info->shape) != squeeze(want)) {
                auto str = [](const std::vector<std::uint64_t>& v) {
                    std::string r = "[";
                    for (size_t i = 0; i < v.size(); ++i) r += (i ? ", " : "") + std::to_string(v[i]);
                    return r + "]";
                };
                throw Error(ErrorCode::invalid_file,
                            where + ": tensor " + hn + " has shape " + str(e->info->shape) + ", config.json implies " + str(want) + " (shape)");
            }
            p.src.push_back(e);
        }
        if (!p.quant.empty()) {
            p.type = mla ? DType::F32 : p.quant.front().type;  // the split's values exactly
        } else if (s.keep_f32()) {
            p.type = DType::F32;
        } else {
            p.type = opt.type;
            const auto row = s.dims[0];
            if (row % kernels::dtype_info(p.type).block_elems != 0) p.type = row % 32 == 0 ? DType::Q8_0 : DType::F32;
        }
        p.n_bytes = *kernels::dtype_bytes(p.type, s.n_elements());
        plan.push_back(std::move(p));
    }

    gguf::SplitWriter w(opt.out, {opt.split_max_tensors, opt.split_max_bytes});
    auto& md = w.metadata();
    md.set("general.architecture", gguf::Value::string(std::string(arch_gguf_name(desc.arch))));
    md.set("general.type", gguf::Value::string("model"));
    if (!desc.name.empty()) md.set("general.name", gguf::Value::string(desc.name));
    md.set("general.file_type", gguf::Value::u32(file_type(opt.type)));
    md.set("general.quantization_version", gguf::Value::u32(2));
    desc_to_gguf(desc, md);
    hf_tokenizer_to_gguf(hf_tokenizer_source(dir), desc.n_vocab, config.is_object() ? &config : nullptr, md);
    hf_sampling_to_gguf(dir, md);

    std::uint64_t total = 0;
    for (const auto& p : plan) {
        w.add_tensor(p.spec->name, p.type, p.spec->dims);
        total += p.n_bytes;
    }
    w.write_header();

    // Rows are converted in blocks of about 4 MiB of f32.
    const unsigned n_threads = std::max(1u, std::thread::hardware_concurrency());
    std::vector<float> f32;
    std::vector<std::byte> out;
    std::uint64_t done = 0;
    for (const auto& p : plan) {
        w.begin_tensor(p.spec->name);
        const std::uint64_t row = p.spec->dims[0];
        const std::uint64_t row_out = *kernels::dtype_bytes(p.type, row);
        const std::uint64_t rows_per_block = std::max<std::uint64_t>(1, (1u << 20) / row);
        const TensorSpec& spec = *p.spec;
        if (p.type == DType::I32) {
            const auto* e = p.src.at(0);
            const bool wide = e->info->dtype == safetensors::DType::I64;
            out.resize(spec.n_elements() * 4);
            for (std::uint64_t i = 0; i < spec.n_elements(); ++i) {
                std::int64_t x = 0;
                if (wide) {
                    std::memcpy(&x, e->data().data() + i * 8, 8);
                } else {
                    std::int32_t y = 0;
                    std::memcpy(&y, e->data().data() + i * 4, 4);
                    x = y;
                }
                const std::int32_t y = std::int32_t(x);
                std::memcpy(out.data() + i * 4, &y, 4);
            }
            w.write(out);
            done += out.size();
            if (opt.progress) opt.progress(done, total);
            w.end_tensor();
            continue;
        }
        if (!p.quant.empty() && spec.hf_layout == HfLayout::direct) {
            for (const auto& q : p.quant) {
                for (std::uint64_t r0 = 0; r0 < q.rows(); r0 += rows_per_block) {
                    const std::uint64_t nr = std::min(rows_per_block, q.rows() - r0);
                    out.resize(nr * row_out);
                    safetensors::repack_rows(q, r0, r0 + nr, out.data());
                    w.write(out);
                }
                done += q.rows() * row_out;
                if (opt.progress) opt.progress(done, total);
            }
            w.end_tensor();
            continue;
        }
        if (spec.hf_layout != HfLayout::direct || (rewrites(spec))) {
            // Small (a few MiB per layer): the whole tensor in f32, then converted as one block.
            const TensorSpec& s = spec;
            std::vector<float> src;
            if (!p.quant.empty()) {  // a quantized kv_b_proj: its rows decoded as the loader decodes them
                const auto& q = p.quant.front();
                const std::uint64_t cols = q.cols(), rb = *kernels::dtype_bytes(q.type, cols);
                std::vector<std::byte> packed(q.rows() * rb);
                safetensors::repack_rows(q, 0, q.rows(), packed.data());
                src.resize(q.rows() * cols);
                for (std::uint64_t r = 0; r < q.rows(); ++r)
                    ref::dequantize_row(q.type, packed.data() + r * rb, src.data() + r * cols, std::int64_t(cols));
            } else {
                const auto* e = p.src.at(0);
                src.resize(e->info->n_elements);
                to_f32(e->info->dtype, e->data().data(), src.data(), src.size());
            }
            f32.assign(s.n_elements(), 0.f);
            if (s.hf_layout == HfLayout::mla_k_b || s.hf_layout == HfLayout::mla_v_b) {
                const bool k = s.hf_layout == HfLayout::mla_k_b;
                const std::uint64_t lora = k ? s.dims[1] : s.dims[0], width = k ? s.dims[0] : s.dims[1], nh = s.dims[2];
                for (std::uint64_t h = 0; h < nh; ++h)
                    for (std::uint64_t i = 0; i < width; ++i)
                        for (std::uint64_t c = 0; c < lora; ++c) {
                            const float v = src[(h * s.hf_step + (k ? 0 : s.hf_offset) + i) * lora + c];
                            if (k) f32[(h * lora + c) * width + i] = v;  // [h][c][i]: transposed
                            else f32[(h * width + i) * lora + c] = v;    // [h][i][c]
                        }
            } else if (s.hf_layout == HfLayout::rows) {
                const std::uint64_t groups = src.size() / row / s.hf_step;
                std::uint64_t r = 0;
                for (const auto& [offset, count] : s.hf_segments)
                    for (std::uint64_t g = 0; g < groups; ++g, r += count)
                        std::copy_n(src.data() + (g * s.hf_step + offset) * row, count * row, f32.data() + r * row);
            } else {
                for (std::size_t i = 0; i < f32.size(); ++i)
                    f32[i] = s.hf_layout == HfLayout::norm_plus_one ? 1.f + src[i]
                             : s.hf_layout == HfLayout::neg_exp    ? -std::exp(src[i])
                                                                   : src[i];
            }
            if (rewrites(s)) arch.convert_rewrite(desc, s, f32);
            const std::uint64_t rows = s.n_elements() / row;
            out.resize(rows * row_out);
            for (std::uint64_t r = 0; r < rows; ++r)
                ref::quantize_row(p.type, f32.data() + r * row, out.data() + r * row_out, static_cast<std::int64_t>(row));
            w.write(out);
            done += rows * row_out;
            if (opt.progress) opt.progress(done, total);
            w.end_tensor();
            continue;
        }
        if (p.fused3d) {
            const auto* e = p.src.at(0);
            const std::size_t in_elem = safetensors::dtype_size(e->info->dtype);
            const std::uint64_t rows = spec.dims[1];
            f32.resize(rows * row);
            out.resize(rows * row_out);
            for (std::uint64_t x = 0; x < spec.dims[2]; ++x) {
                const std::byte* src = e->data().data() + (x * spec.hf_fused_rows + spec.hf_offset) * row * in_elem;
                to_f32(e->info->dtype, src, f32.data(), rows * row);
                for (std::uint64_t r = 0; r < rows; ++r)
                    ref::quantize_row(p.type, f32.data() + r * row, out.data() + r * row_out, static_cast<std::int64_t>(row));
                w.write(out);
                done += rows * row_out;
            }
            if (opt.progress) opt.progress(done, total);
            w.end_tensor();
            continue;
        }
        for (const auto* e : p.src) {
            const auto data = e->data();
            const std::uint64_t rows = e->info->n_elements / row;
            const std::size_t in_elem = safetensors::dtype_size(e->info->dtype);
            // Same bits in and out: copy.
            const bool same = (p.type == DType::F32 && e->info->dtype == safetensors::DType::F32) ||
                              (p.type == DType::BF16 && e->info->dtype == safetensors::DType::BF16) ||
                              (p.type == DType::F16 && e->info->dtype == safetensors::DType::F16);
            for (std::uint64_t r0 = 0; r0 < rows; r0 += rows_per_block) {
                const std::uint64_t nr = std::min(rows_per_block, rows - r0);
                const std::byte* src = data.data() + r0 * row * in_elem;
                if (same) {
                    w.write({src, static_cast<std::size_t>(nr * row * in_elem)});
                    continue;
                }
                f32.resize(nr * row);
                to_f32(e->info->dtype, src, f32.data(), nr * row);
                out.resize(nr * row_out);
                // Rows are independent: split them across the cores (the reference quantizers are scalar).
                auto quantize = [&](std::uint64_t a, std::uint64_t b) {
                    for (std::uint64_t r = a; r < b; ++r)
                        ref::quantize_row(p.type, f32.data() + r * row, out.data() + r * row_out, static_cast<std::int64_t>(row));
                };
                const std::uint64_t workers = std::min<std::uint64_t>(n_threads, nr);
                std::vector<std::thread> pool;
                for (std::uint64_t i = 1; i < workers; ++i)
                    pool.emplace_back(quantize, nr * i / workers, nr * (i + 1) / workers);
                quantize(0, nr / std::max<std::uint64_t>(1, workers));
                for (auto& th : pool) th.join();
                w.write(out);
            }
            done += rows * row_out;
            if (opt.progress) opt.progress(done, total);
        }
        w.end_tensor();
    }
    w.finish();
    ConvertResult r;
    r.files = w.paths();
    r.file_bytes = w.expected_size();
    r.tensors = plan.size();
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

}  // namespace ft::model
