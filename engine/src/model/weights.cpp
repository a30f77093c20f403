#include "model/weights.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <new>
#include <thread>

#include "cpu/matmul.h"
#include "format/gguf.h"
#include "ref/quant.h"
#include "format/mapped_file.h"
#include "platform/platform.h"
#include "format/safetensors.h"
#include "format/hf_quant.h"
#include "ft/error.h"
#include "ft/utf8.h"

namespace ft::model {

namespace {

std::string dims_str(const std::vector<std::uint64_t>& d) {
    std::string s = "[";
    for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
    return s + "]";
}

bool looks_like_gguf(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    char magic[4] = {};
    return in.read(magic, 4) && std::string_view(magic, 4) == "GGUF";
}

}  // namespace

Weights::~Weights() = default;

std::unique_ptr<Weights> Weights::open(const std::filesystem::path& path, const LoadMonitor& monitor) {
    std::unique_ptr<Weights> w(new Weights());
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
        throw Error(ErrorCode::not_found, "model not found: " + path_to_utf8(path),
                    "give the path of a .gguf file or of a Hugging Face model folder")
            .keyed("file_missing", {path_to_utf8(path)});
    }
    std::filesystem::path dir = path;
    if (std::filesystem::is_regular_file(path, ec) && looks_like_gguf(path)) {
        w->path_ = path;
        w->gguf_ = std::make_unique<gguf::Reader>(gguf::Reader::open_model(path));  // every part of a split model
        w->desc_ = desc_from_gguf(*w->gguf_);
    } else {
        if (std::filesystem::is_regular_file(path, ec)) dir = path.parent_path();
        if (!std::filesystem::exists(dir / "config.json")) {
            throw Error(ErrorCode::invalid_file, path_to_utf8(path) + ": neither a GGUF file nor a Hugging Face folder",
                        "a Hugging Face model folder holds config.json and *.safetensors");
        }
        w->path_ = dir;
        w->desc_ = desc_from_hf_dir(dir);
        w->hf_ = std::make_unique<safetensors::Checkpoint>(safetensors::Checkpoint::open(dir));
        w->hf_quant_ = std::make_unique<safetensors::QuantConfig>(safetensors::read_quant_config(dir));
    }
    validate(w->desc_);
    w->index(arch_tensors(w->desc_));
    w->populate(monitor);
    return w;
}

std::unique_ptr<Weights> Weights::shapes(const ModelDesc& d) {
    std::unique_ptr<Weights> w(new Weights());
    w->path_ = std::string(arch_name(d.arch)) + " (description)";
    w->desc_ = d;
    w->experts_.assign(d.n_layer, {});
    for (const TensorSpec& s : arch_tensors(d)) {
        if (s.unused) continue;
        TensorView v;
        v.cols = std::int64_t(s.dims.at(0));
        std::uint64_t rows = 1;
        for (std::size_t i = 1; i < s.dims.size(); ++i) rows *= s.dims[i];
        if (s.is_expert()) {
            auto& layer = w->experts_.at(std::size_t(s.layer));
            layer.resize(std::size_t(s.dims.back()));
            v.rows = std::int64_t(rows / s.dims.back());
            for (ExpertView& ev : layer)
                (s.role == TensorRole::ffn_gate_exps ? ev.gate : s.role == TensorRole::ffn_up_exps ? ev.up : ev.down) = v;
            continue;
        }
        v.rows = std::int64_t(rows);
        w->tensors_.emplace(s.name, v);
    }
    if (d.tied_embeddings && !w->tensors_.count("output.weight") && w->tensors_.count("token_embd.weight"))
        w->tensors_.emplace("output.weight", w->tensors_.at("token_embd.weight"));
    for (auto& [name, v] : w->tensors_) v.name = name;
    return w;
}

std::vector<std::pair<const std::byte*, std::size_t>> Weights::mapped_files() const {
    std::vector<std::pair<const std::byte*, std::size_t>> out;
    if (gguf_)
        for (const auto& part : gguf_->parts())
            if (part.mapping) out.emplace_back(part.mapping->bytes().data(), part.mapping->size());
    if (hf_)
        for (const auto& f : hf_->files())
            if (f.mapping()) out.emplace_back(f.mapping()->bytes().data(), f.mapping()->size());
    for (const auto& o : owned_) out.emplace_back(o.p, o.n);
    return out;
}

namespace {
constexpr std::size_t kPage = 4096;
}

Weights::Owned::~Owned() {
    if (p) ::operator delete(p, std::align_val_t(kPage));
}

std::byte* Weights::allocate(std::size_t bytes) {
    const std::size_t n = std::max<std::size_t>(kPage, (bytes + kPage - 1) / kPage * kPage);
    auto* p = static_cast<std::byte*>(::operator new(n, std::align_val_t(kPage)));
    std::memset(p + bytes, 0, n - bytes);
    owned_.emplace_back(p, n);
    return p;
}

TensorView Weights::owned_f32(const TensorView& v, const std::string& name) {
    if (v.type == kernels::DType::F32) return v;
    if (v.type != kernels::DType::F16 && v.type != kernels::DType::BF16 && v.type != kernels::DType::FT_FP8 &&
        v.type != kernels::DType::FT_NVFP4)
        throw Error(ErrorCode::unsupported, path_to_utf8(path_) + ": tensor " + name + " has type " +
                                                std::string(kernels::dtype_info(v.type).name) + "; a bias or sink vector must be f32, f16 or bf16");
    TensorView out = v;
    out.type = kernels::DType::F32;
    out.row_bytes = std::size_t(v.cols) * 4;
    std::byte* dst = allocate(out.bytes());
    for (std::int64_t r = 0; r < v.rows; ++r)
        kernels::ref::dequantize_row(v.type, v.row(r), reinterpret_cast<float*>(dst + std::size_t(r) * out.row_bytes), v.cols);
    out.data = dst;
    return out;
}

TensorView Weights::index_table(const TensorSpec& s) {
    const std::string file = path_to_utf8(path_);
    std::vector<std::uint64_t> have;
    kernels::DType type = kernels::DType::F32;
    const std::byte* base = nullptr;
    if (gguf_) {
        const gguf::TensorInfo* t = gguf_->find_tensor(s.name);
        if (!t) throw Error(ErrorCode::not_found, file + ": missing tensor " + s.name, "the file is incomplete or not this architecture");
        have.assign(t->dims.begin(), t->dims.begin() + t->n_dims);
        type = t->type;
        base = gguf_->tensor_data(*t).data();
    } else {
        const auto* e = hf_->find(hf_name(s.hf_names.at(0)));
        if (!e) throw Error(ErrorCode::not_found, file + ": missing tensor " + s.hf_names.at(0), "the checkpoint is incomplete or not this architecture");
        const auto kt = safetensors::to_kernel_dtype(e->info->dtype);
        if (!kt) throw Error(ErrorCode::unsupported, file + ": tensor " + s.hf_names.at(0) + " has type " +
                                                         std::string(safetensors::dtype_name(e->info->dtype)) + "; the routing table must be integers");
        type = *kt;
        have.assign(e->info->shape.rbegin(), e->info->shape.rend());
        base = e->data().data();
    }
    if (have != s.dims)
        throw Error(ErrorCode::invalid_file, file + ": tensor " + s.name + " has shape " + dims_str(have) + ", expected " +
                                                 dims_str(s.dims) + " for this model's configuration");
    if (type != kernels::DType::I32 && type != kernels::DType::I64)
        throw Error(ErrorCode::unsupported, file + ": tensor " + s.name + " has type " + std::string(kernels::dtype_info(type).name) +
                                                "; the hash routing table must be i32 or i64");
    TensorView v;
    v.type = kernels::DType::I32;
    v.cols = std::int64_t(s.dims[0]);
    v.rows = std::int64_t(s.dims[1]);
    v.row_bytes = std::size_t(v.cols) * 4;
    std::byte* dst = allocate(v.bytes());
    const std::int64_t n = v.cols * v.rows, n_exp = desc_.moe.n_expert;
    for (std::int64_t i = 0; i < n; ++i) {
        std::int64_t x = 0;
        if (type == kernels::DType::I64) {
            std::memcpy(&x, base + i * 8, 8);
        } else {
            std::int32_t y = 0;
            std::memcpy(&y, base + i * 4, 4);
            x = y;
        }
        if (x < 0 || x >= n_exp)
            throw Error(ErrorCode::invalid_file, file + ": tensor " + s.name + " routes token " + std::to_string(i / v.cols) +
                                                     " to expert " + std::to_string(x) + " of " + std::to_string(n_exp));
        const std::int32_t y = std::int32_t(x);
        std::memcpy(dst + i * 4, &y, 4);
    }
    v.data = dst;
    return v;
}

std::string Weights::hf_name(const std::string& name) const {
    if (!hf_ || hf_->find(name) || name.rfind("model.", 0) != 0) return name;
    std::string alt = "model.language_model." + name.substr(6);
    // compressed-tensors keeps a quantized "….weight" as "….weight_packed" (format/hf_quant.h)
    return hf_->find(alt) || (alt.ends_with(".weight") && hf_->find(alt + "_packed")) ? alt : name;
}

TensorView Weights::gather_rows(const TensorSpec& s) {
    const std::string src = hf_name(s.hf_names.at(0));
    const auto* e = hf_->find(src);
    if (!e) throw Error(ErrorCode::not_found, path_to_utf8(path_) + ": missing tensor " + src, "the checkpoint is incomplete or not this architecture");
    const std::uint64_t total = e->info->shape.empty() ? 0 : e->info->shape[0], step = s.hf_step;
    std::uint64_t per_group = 0;
    for (const auto& seg : s.hf_segments) per_group += seg.second;
    if (step == 0 || total % step != 0 || per_group * (total / step) != s.dims[1])
        throw Error(ErrorCode::invalid_file, path_to_utf8(path_) + ": tensor " + src + " has " + std::to_string(total) + " rows; " +
                                                 s.name + " needs " + std::to_string(s.dims[1]) + " of them in groups of " +
                                                 std::to_string(step));
    const TensorView in = view_of(src, {s.dims[0], total}, false, 0);
    TensorView v = in;
    v.rows = std::int64_t(s.dims[1]);
    std::byte* dst = allocate(v.bytes());
    std::int64_t r = 0;
    for (const auto& [offset, count] : s.hf_segments)
        for (std::uint64_t g = 0; g < total / step; ++g) {
            std::memcpy(dst + std::size_t(r) * v.row_bytes, in.row(std::int64_t(g * step + offset)), count * v.row_bytes);
            r += count;
        }
    v.data = dst;
    return v;
}

TensorView Weights::transformed_f32(const TensorSpec& s) {
    const std::string src = hf_name(s.hf_names.at(0));
    const TensorView in = view_of(src, s.dims, false, 0);
    std::vector<float> x = vector_f32(in);
    for (float& f : x) f = s.hf_layout == HfLayout::norm_plus_one ? 1.f + f : -std::exp(f);
    TensorView v = in;
    v.type = kernels::DType::F32;
    v.row_bytes = std::size_t(v.cols) * 4;
    std::byte* dst = allocate(v.bytes());
    std::memcpy(dst, x.data(), x.size() * 4);
    v.data = dst;
    return v;
}

// HfLayout::moe_fused: spec dims {in, rows, n_expert}; source "<p>" [n_expert, in, rows·step] (element (x, i, c)),
// or the MXFP4 pair "<p>_blocks" [n_expert, rows·step, in/32, 16] + "<p>_scales" [n_expert, rows·step, in/32].
TensorView Weights::repack_fused_experts(const TensorSpec& s) {
    const std::string file = path_to_utf8(path_), p = s.hf_names.at(0);
    const std::uint64_t in = s.dims[0], rows = s.dims[1], ne = s.dims[2], cols = rows * s.hf_step;
    auto shape_error = [&](const std::string& name, const std::vector<std::uint64_t>& have, const std::vector<std::uint64_t>& want) {
        return Error(ErrorCode::invalid_file, file + ": tensor " + name + " has shape " + dims_str(have) + ", expected " +
                                                  dims_str(want) + " for this model's configuration");
    };
    std::vector<std::thread> pool;
    const unsigned n_threads = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
    auto parallel = [&](auto&& per_expert) {
        std::atomic<std::uint64_t> next{0};
        for (unsigned t = 0; t < n_threads; ++t)
            pool.emplace_back([&] {
                for (std::uint64_t x; (x = next.fetch_add(1)) < ne;) per_expert(x);
            });
        for (auto& th : pool) th.join();
        pool.clear();
    };
    TensorView v;
    v.cols = std::int64_t(in);
    v.rows = std::int64_t(rows * ne);
    if (const auto* e = hf_->find(p)) {
        const std::vector<std::uint64_t> want{ne, in, cols};
        if (e->info->shape != want) throw shape_error(p, e->info->shape, want);
        const auto kt = safetensors::to_kernel_dtype(e->info->dtype);
        if (!kt || !safetensors::dtype_supported_for_compute(e->info->dtype))
            throw Error(ErrorCode::unsupported, file + ": tensor " + p + " has type " +
                                                    std::string(safetensors::dtype_name(e->info->dtype)) + ", expected F32, F16 or BF16")
                .keyed("type_unsupported", {file, p, std::string(safetensors::dtype_name(e->info->dtype))});
        const std::size_t es = safetensors::dtype_size(e->info->dtype);
        v.type = *kt;
        v.row_bytes = in * es;
        std::byte* dst = allocate(v.bytes());
        const std::byte* src = e->data().data();
        parallel([&](std::uint64_t x) {
            // Source rows (inputs i) are read once each; every output row r takes column offset + step·r.
            const std::byte* sx = src + x * in * cols * es;
            std::byte* dx = dst + x * rows * v.row_bytes;
            for (std::uint64_t i = 0; i < in; ++i) {
                const std::byte* srow = sx + i * cols * es;
                for (std::uint64_t r = 0; r < rows; ++r)
                    std::memcpy(dx + r * v.row_bytes + i * es, srow + (s.hf_offset + s.hf_step * r) * es, es);
            }
        });
        v.data = dst;
        return v;
    }
    const auto* blocks = hf_->find(p + "_blocks");
    const auto* scales = hf_->find(p + "_scales");
    if (!blocks || !scales)
        throw Error(ErrorCode::not_found, file + ": missing tensor " + p + " (or its MXFP4 form " + p + "_blocks / " + p + "_scales)",
                    "the checkpoint is incomplete or not this architecture");
    if (in % 32 != 0) throw shape_error(p + "_blocks", blocks->info->shape, {ne, cols, in / 32, 16});
    const std::uint64_t nb = in / 32;
    if (blocks->info->shape != std::vector<std::uint64_t>{ne, cols, nb, 16} || blocks->info->dtype != safetensors::DType::U8)
        throw shape_error(p + "_blocks", blocks->info->shape, {ne, cols, nb, 16});
    if (scales->info->shape != std::vector<std::uint64_t>{ne, cols, nb} || scales->info->dtype != safetensors::DType::U8)
        throw shape_error(p + "_scales", scales->info->shape, {ne, cols, nb});
    v.type = kernels::DType::MXFP4;
    v.row_bytes = nb * sizeof(kernels::ref::BlockMxfp4);
    std::byte* dst = allocate(v.bytes());
    const auto* qb = reinterpret_cast<const std::uint8_t*>(blocks->data().data());
    const auto* sc = reinterpret_cast<const std::uint8_t*>(scales->data().data());
    parallel([&](std::uint64_t x) {
        for (std::uint64_t r = 0; r < rows; ++r) {
            const std::uint64_t srow = x * cols + s.hf_offset + s.hf_step * r;
            auto* out = reinterpret_cast<kernels::ref::BlockMxfp4*>(dst + (x * rows + r) * v.row_bytes);
            for (std::uint64_t b = 0; b < nb; ++b) {
                // HF: element 2j in the low nibble of byte j, 2j+1 in the high one; GGUF: element j low, j+16 high.
                const std::uint8_t* q = qb + (srow * nb + b) * 16;
                auto code = [&](int i) { return std::uint8_t((q[i / 2] >> (4 * (i & 1))) & 0xF); };
                out[b].e = sc[srow * nb + b];
                for (int j = 0; j < 16; ++j) out[b].qs[j] = std::uint8_t(code(j) | (code(j + 16) << 4));
            }
        }
    });
    v.data = dst;
    return v;
}

// HfLayout::moe_fused_bias: spec dims {rows, n_expert}; source [n_expert, rows·step]. F32 out.
TensorView Weights::repack_fused_bias(const TensorSpec& s) {
    const std::string file = path_to_utf8(path_), p = s.hf_names.at(0);
    const std::uint64_t rows = s.dims[0], ne = s.dims[1], cols = rows * s.hf_step;
    const auto* e = hf_->find(p);
    if (!e) throw Error(ErrorCode::not_found, file + ": missing tensor " + p, "the checkpoint is incomplete or not this architecture");
    const std::vector<std::uint64_t> want{ne, cols};
    if (e->info->shape != want)
        throw Error(ErrorCode::invalid_file, file + ": tensor " + p + " has shape " + dims_str(e->info->shape) + ", expected " +
                                                 dims_str(want) + " for this model's configuration");
    const auto kt = safetensors::to_kernel_dtype(e->info->dtype);
    if (!kt || !safetensors::dtype_supported_for_compute(e->info->dtype))
        throw Error(ErrorCode::unsupported, file + ": tensor " + p + " has type " +
                                                std::string(safetensors::dtype_name(e->info->dtype)) + ", expected F32, F16 or BF16")
            .keyed("type_unsupported", {file, p, std::string(safetensors::dtype_name(e->info->dtype))});
    const std::size_t es = safetensors::dtype_size(e->info->dtype);
    TensorView v;
    v.type = kernels::DType::F32;
    v.cols = std::int64_t(rows);
    v.rows = std::int64_t(ne);
    v.row_bytes = rows * 4;
    std::byte* dst = allocate(v.bytes());
    std::vector<float> row(cols);
    for (std::uint64_t x = 0; x < ne; ++x) {
        kernels::ref::dequantize_row(*kt, e->data().data() + x * cols * es, row.data(), std::int64_t(cols));
        auto* out = reinterpret_cast<float*>(dst + x * v.row_bytes);
        for (std::uint64_t r = 0; r < rows; ++r) out[r] = row[s.hf_offset + s.hf_step * r];
    }
    v.data = dst;
    return v;
}

TensorView Weights::repack_mla(const TensorSpec& s, const TensorView& kv_b_in, const std::string& kv_b_name) {
    // An FP8 / NVFP4 checkpoint's kv_b (DeepSeek-V3's FP8 release quantizes it): split from its exact f32 values.
    const bool hf_quantized = kv_b_in.type == kernels::DType::FT_FP8 || kv_b_in.type == kernels::DType::FT_NVFP4;
    const TensorView kv_b = hf_quantized ? owned_f32(kv_b_in, kv_b_name) : kv_b_in;
    const bool k = s.hf_layout == HfLayout::mla_k_b;
    // k_b {nope, kv_lora, n_head}; v_b {kv_lora, v, n_head}.
    const std::uint64_t lora = k ? s.dims[1] : s.dims[0], width = k ? s.dims[0] : s.dims[1], nh = s.dims[2];
    const std::uint64_t step = s.hf_step;
    if (kv_b.type != kernels::DType::F32 && kv_b.type != kernels::DType::F16 && kv_b.type != kernels::DType::BF16)
        throw Error(ErrorCode::unsupported,
                    path_to_utf8(path_) + ": tensor " + kv_b_name + " is " + std::string(kernels::dtype_info(kv_b.type).name) +
                        "; the engine splits it into " + s.name + " only from f32, f16 or bf16",
                    "re-convert the model with a current llama.cpp (it writes attn_k_b / attn_v_b) or use its "
                    "Hugging Face folder");
    if (std::uint64_t(kv_b.cols) != lora || std::uint64_t(kv_b.rows) != nh * step)
        throw Error(ErrorCode::invalid_file, path_to_utf8(path_) + ": tensor " + kv_b_name + " is [" + std::to_string(kv_b.rows) +
                                                 " x " + std::to_string(kv_b.cols) + "], expected [" +
                                                 std::to_string(nh * step) + " x " + std::to_string(lora) + "]");
    const std::size_t es = kv_b.type == kernels::DType::F32 ? 4 : 2;
    TensorView v;
    v.type = kv_b.type;
    v.cols = std::int64_t(k ? width : lora);
    v.rows = std::int64_t(k ? lora * nh : width * nh);
    v.row_bytes = std::size_t(v.cols) * es;
    std::byte* dst = allocate(v.bytes());
    for (std::uint64_t h = 0; h < nh; ++h) {
        if (k) {  // dst[h][c][i] = kv_b[h·step + i][c]
            for (std::uint64_t i = 0; i < width; ++i) {
                const std::byte* src = kv_b.row(std::int64_t(h * step + i));
                for (std::uint64_t c = 0; c < lora; ++c)
                    std::memcpy(dst + ((h * lora + c) * width + i) * es, src + c * es, es);
            }
        } else {  // dst[h][r] = kv_b[h·step + offset + r]
            for (std::uint64_t r = 0; r < width; ++r)
                std::memcpy(dst + (h * width + r) * v.row_bytes, kv_b.row(std::int64_t(h * step + s.hf_offset + r)), v.row_bytes);
        }
    }
    v.data = dst;
    return v;
}

void Weights::populate(const LoadMonitor& monitor) const {
    std::vector<const MappedFile*> maps;
    if (gguf_)
        for (const auto& part : gguf_->parts())
            if (part.mapping) maps.push_back(part.mapping.get());
    // A quantized checkpoint's weights were read into their repacked copies: mapping the files too would hold them
    // twice; the few plain tensors (embeddings, norms) fault in on first use.
    if (hf_ && repacked_.empty())
        for (const auto& f : hf_->files())
            if (f.mapping()) maps.push_back(f.mapping().get());
    const auto t0 = std::chrono::steady_clock::now();
    std::size_t total = 0;
    // Split into chunks over a few threads: page-table setup, or the disk read of a cold file, goes faster.
    constexpr std::size_t kChunk = std::size_t(256) << 20;
    std::vector<std::pair<const MappedFile*, std::size_t>> chunks;
    for (const MappedFile* m : maps) {
        total += m->size();
        for (std::size_t off = 0; off < m->size(); off += kChunk) chunks.emplace_back(m, off);
    }
    // A model that does not fit comfortably in RAM is left to map on demand: reading it all now would only evict
    // itself from the page cache.
    const std::uint64_t ram = platform::physical_memory_bytes();
    if (ram != 0 && double(total) > 0.8 * double(ram)) {
        spdlog::info("{}: {:.1f} GiB of weights on {:.1f} GiB of RAM: pages are mapped on demand", path_to_utf8(path_),
                     double(total) / (1u << 30), double(ram) / (1u << 30));
        return;
    }
    std::atomic<std::size_t> next{0}, done_bytes{0}, finished{0};
    const unsigned n_threads = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < n_threads; ++t)
        threads.emplace_back([&] {
            for (std::size_t i; !monitor.cancelled() && (i = next.fetch_add(1)) < chunks.size();) {
                const MappedFile* m = chunks[i].first;
                const std::size_t n = std::min(kChunk, m->size() - chunks[i].second);
                m->populate(chunks[i].second, n);
                done_bytes.fetch_add(n);
            }
            finished.fetch_add(1);
        });
    // This thread reports progress while the workers map.
    while (finished.load() < n_threads) {
        if (monitor.on_bytes) monitor.on_bytes(done_bytes.load(), total);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    for (auto& t : threads) t.join();
    if (monitor.cancelled()) throw Error(ErrorCode::cancelled, "loading " + path_to_utf8(path_) + " was cancelled");
    if (monitor.on_bytes) monitor.on_bytes(total, total);
    spdlog::debug("{}: mapped {:.2f} GiB into memory in {:.2f} s", path_to_utf8(path_), double(total) / (1u << 30),
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

TensorView Weights::view_of(const std::string& name, const std::vector<std::uint64_t>& want, bool expert_slice,
                            std::uint64_t slice) {
    const std::string file = path_to_utf8(path_);
    TensorView v;
    std::vector<std::uint64_t> have;
    const std::byte* base = nullptr;
    if (gguf_) {
        const gguf::TensorInfo* t = gguf_->find_tensor(name);
        if (!t) throw Error(ErrorCode::not_found, file + ": missing tensor " + name, "the file is incomplete or not this architecture");
        have.assign(t->dims.begin(), t->dims.begin() + t->n_dims);
        v.type = t->type;
        base = gguf_->tensor_data(*t).data();
    } else {
        const std::string src = hf_name(name);
        const auto q = safetensors::find_quantized(*hf_, src, *hf_quant_);
        const auto* e = hf_->find(src);
        if (!e && !q) throw Error(ErrorCode::not_found, file + ": missing tensor " + name, "the checkpoint is incomplete or not this architecture");
        if (q) {
            auto it = repacked_.find(src);
            if (it == repacked_.end()) {
                const std::size_t row_bytes = *kernels::dtype_bytes(q->type, q->cols());
                std::byte* dst = allocate(row_bytes * q->rows());
                safetensors::repack_rows(*q, 0, q->rows(), dst);
                it = repacked_.emplace(src, dst).first;
            }
            v.type = q->type;
            have.assign(q->shape.rbegin(), q->shape.rend());
            base = it->second;
        } else if (const auto kt = safetensors::to_kernel_dtype(e->info->dtype);
                   !kt || !safetensors::dtype_supported_for_compute(e->info->dtype)) {
            throw Error(ErrorCode::unsupported,
                        file + ": tensor " + name + " has type " + std::string(safetensors::dtype_name(e->info->dtype)) +
                            ", which the engine cannot compute with yet",
                        "use an F32/F16/BF16 checkpoint, or a GGUF file")
                .keyed("type_unsupported", {file, name, std::string(safetensors::dtype_name(e->info->dtype))});
        } else {
            v.type = *kt;
            have.assign(e->info->shape.rbegin(), e->info->shape.rend());  // to GGUF order
            base = e->data().data();
        }
    }
    // 1-dims are not significant (trailing ones; Hugging Face's conv1d weights [channels, 1, kernel]).
    auto trim = [](std::vector<std::uint64_t> d) {
        std::erase(d, std::uint64_t(1));
        if (d.empty()) d.push_back(1);
        return d;
    };
    if (trim(have) != trim(want)) {
        throw Error(ErrorCode::invalid_file, file + ": tensor " + name + " has shape " + dims_str(have) + ", expected " +
                                                 dims_str(want) + " for this model's configuration");
    }
    if (!kernels::cpu::matmul_supported(v.type)) {
        throw Error(ErrorCode::unsupported, file + ": tensor " + name + " has type " +
                                                std::string(kernels::dtype_info(v.type).name) + ", which the engine cannot read yet",
                    "supported: f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1, q2_K, q3_K, q4_K, q5_K, q6_K, iq4_nl, "
                    "iq4_xs, iq3_s, iq3_xxs, iq2_s, iq2_xs, iq2_xxs, iq1_m, iq1_s, tq1_0, tq2_0, mxfp4")
            .keyed("type_unsupported", {file, name, std::string(kernels::dtype_info(v.type).name)});
    }
    v.cols = std::int64_t(want[0]);
    v.row_bytes = *kernels::dtype_bytes(v.type, want[0]);
    std::uint64_t rows = 1;
    for (size_t i = 1; i < want.size(); ++i) rows *= want[i];
    if (expert_slice) {
        const std::uint64_t per = rows / want.back();
        v.rows = std::int64_t(per);
        v.data = base + slice * per * v.row_bytes;
    } else {
        v.rows = std::int64_t(rows);
        v.data = base;
    }
    return v;
}

void Weights::index(const std::vector<TensorSpec>& specs) {
    experts_.assign(desc_.n_layer, {});
    const std::string file = path_to_utf8(path_);
    for (const TensorSpec& s : specs) {
        if (s.unused) continue;
        if (s.layer >= int(desc_.n_layer))
            throw Error(ErrorCode::internal, file + ": tensor " + s.name + " is past the model's layers");
        if (s.is_expert()) {
            auto& layer = experts_[std::size_t(s.layer)];
            const std::uint64_t n_exp = s.dims.back();
            layer.resize(std::size_t(n_exp));
            // Hugging Face fused experts are repacked once into [n_expert, rows, in] and sliced like a GGUF stack.
            TensorView stacked;
            if (!gguf_ && s.hf_layout == HfLayout::moe_fused) stacked = repack_fused_experts(s);
            // Qwen3.5's 3-D experts when the per-expert tensors are absent.
            const bool fused3d = !gguf_ && s.hf_layout == HfLayout::direct && !s.hf_fused.empty() &&
                                 !hf_->find(hf_name(s.hf_names.at(0))) && hf_->find(hf_name(s.hf_fused));
            for (std::uint64_t x = 0; x < n_exp; ++x) {
                TensorView v;
                if (fused3d) {
                    v = view_of(s.hf_fused, {s.dims[0], s.hf_fused_rows, n_exp}, true, x);
                    v.rows = std::int64_t(s.dims[1]);
                    v.data += std::size_t(s.hf_offset) * v.row_bytes;
                } else if (gguf_) {
                    v = view_of(s.name, s.dims, true, x);
                } else if (s.hf_layout == HfLayout::moe_fused) {
                    v = stacked;
                    v.rows = std::int64_t(s.dims[1]);
                    v.data = stacked.data + x * std::size_t(v.rows) * v.row_bytes;
                } else {
                    v = view_of(s.hf_names.at(std::size_t(x)), {s.dims[0], s.dims[1]}, false, 0);
                }
                ExpertView& ev = layer[std::size_t(x)];
                (s.role == TensorRole::ffn_gate_exps ? ev.gate : s.role == TensorRole::ffn_up_exps ? ev.up : ev.down) = v;
                expert_bytes_ += v.bytes();
            }
            continue;
        }
        TensorView v;
        if (s.role == TensorRole::ffn_hash_table) {
            v = index_table(s);
            other_bytes_ += v.bytes();
            tensors_.emplace(s.name, v);
            continue;
        }
        const bool mla = s.hf_layout == HfLayout::mla_k_b || s.hf_layout == HfLayout::mla_v_b;
        // kv_b as stored: [n_head · (nope + v) rows, kv_lora]
        auto kv_b_dims = [&] { return std::vector<std::uint64_t>{s.hf_layout == HfLayout::mla_k_b ? s.dims[1] : s.dims[0],
                                                                 s.dims[2] * s.hf_step}; };
        if (gguf_) {
            const std::string kv_b = "blk." + std::to_string(s.layer) + ".attn_kv_b.weight";
            if (!gguf_->find_tensor(s.name) && s.role == TensorRole::output) {
                v = view_of("token_embd.weight", s.dims, false, 0);  // no separate LM head: the embedding is shared
            } else if (s.role == TensorRole::ssm_qkv && !gguf_->find_tensor(s.name) &&
                       gguf_->find_tensor("blk." + std::to_string(s.layer) + ".ssm_in.weight")) {
                throw Error(ErrorCode::unsupported,
                            file + ": this file stores blk." + std::to_string(s.layer) +
                                ".ssm_in (llama.cpp's converter before it split it into attn_qkv / attn_gate)",
                            "re-convert the model with a current llama.cpp, or load its Hugging Face folder");
            } else if (mla && !gguf_->find_tensor(s.name) && gguf_->find_tensor(kv_b)) {
                v = repack_mla(s, view_of(kv_b, kv_b_dims(), false, 0), kv_b);  // a file from before the split
            } else {
                v = view_of(s.name, s.dims, false, 0);
            }
        } else if (s.hf_layout == HfLayout::moe_fused_bias) {
            v = repack_fused_bias(s);
        } else if (mla) {
            v = repack_mla(s, view_of(s.hf_names.at(0), kv_b_dims(), false, 0), s.hf_names.at(0));
        } else if (s.hf_layout == HfLayout::rows) {
            v = gather_rows(s);
        } else if (s.hf_layout == HfLayout::norm_plus_one || s.hf_layout == HfLayout::neg_exp) {
            v = transformed_f32(s);
        } else {
            std::string src = hf_name(s.hf_names.at(0));
            if (!hf_->find(src) && !s.hf_alt.empty() && hf_->find(hf_name(s.hf_alt))) src = hf_name(s.hf_alt);
            v = view_of(!hf_->find(src) && s.role == TensorRole::output ? "model.embed_tokens.weight" : src, s.dims, false, 0);
        }
        if (s.is_norm() && v.type != kernels::DType::F32 && v.type != kernels::DType::F16 && v.type != kernels::DType::BF16) {
            throw Error(ErrorCode::unsupported, file + ": norm tensor " + s.name + " is quantized");
        }
        if (s.is_vector()) v = owned_f32(v, s.name);
        other_bytes_ += v.bytes();  // expert biases too: expert_bytes() is the pool of expert weights
        tensors_.emplace(s.name, v);
    }
    if (desc_.tied_embeddings && !tensors_.count("output.weight")) tensors_.emplace("output.weight", tensors_.at("token_embd.weight"));
    for (auto& [name, v] : tensors_) v.name = name;  // map keys: stable for the Weights' life
    // Each expert's bias views: its row of the layer's stacked bias tensors.
    for (std::uint32_t il = 0; il < desc_.n_layer; ++il) {
        auto& layer = experts_[il];
        if (layer.empty()) continue;
        const char* names[3] = {"ffn_gate_exps.bias", "ffn_up_exps.bias", "ffn_down_exps.bias"};
        for (int b = 0; b < 3; ++b) {
            const TensorView* t = find_layer(int(il), names[b]);
            if (!t) continue;
            if (t->rows != std::int64_t(layer.size()))
                throw Error(ErrorCode::invalid_file, file + ": tensor blk." + std::to_string(il) + "." + names[b] + " has " +
                                                         std::to_string(t->rows) + " rows for " + std::to_string(layer.size()) + " experts");
            for (std::size_t x = 0; x < layer.size(); ++x) {
                TensorView row = *t;
                row.rows = 1;
                row.data = t->row(std::int64_t(x));
                (b == 0 ? layer[x].gate_bias : b == 1 ? layer[x].up_bias : layer[x].down_bias) = row;
            }
        }
    }
}

std::vector<float> vector_f32(const TensorView& v) {
    std::vector<float> out(std::size_t(v.cols * v.rows));
    for (std::int64_t r = 0; r < v.rows; ++r)
        kernels::cpu::dequantize_row(v.type, v.row(r), out.data() + r * v.cols, v.cols);
    return out;
}

const TensorView* Weights::find(const std::string& name) const {
    auto it = tensors_.find(name);
    return it == tensors_.end() ? nullptr : &it->second;
}

const TensorView& Weights::get(const std::string& name) const {
    if (const TensorView* v = find(name)) return *v;
    throw Error(ErrorCode::not_found, path_to_utf8(path_) + ": missing tensor " + name);
}

}  // namespace ft::model
