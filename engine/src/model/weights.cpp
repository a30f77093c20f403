#include "model/weights.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include "cpu/matmul.h"
#include "format/gguf.h"
#include "format/mapped_file.h"
#include "platform/platform.h"
#include "format/safetensors.h"
#include "ft/error.h"

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
        throw Error(ErrorCode::not_found, "model not found: " + path.string(),
                    "give the path of a .gguf file or of a Hugging Face model folder");
    }
    std::filesystem::path dir = path;
    if (std::filesystem::is_regular_file(path, ec) && looks_like_gguf(path)) {
        w->path_ = path;
        w->gguf_ = std::make_unique<gguf::Reader>(gguf::Reader::open(path));
        w->desc_ = desc_from_gguf(*w->gguf_);
    } else {
        if (std::filesystem::is_regular_file(path, ec)) dir = path.parent_path();
        if (!std::filesystem::exists(dir / "config.json")) {
            throw Error(ErrorCode::invalid_file, path.string() + ": neither a GGUF file nor a Hugging Face folder",
                        "a Hugging Face model folder holds config.json and *.safetensors");
        }
        w->path_ = dir;
        w->desc_ = desc_from_hf_dir(dir);
        w->hf_ = std::make_unique<safetensors::Checkpoint>(safetensors::Checkpoint::open(dir));
    }
    validate(w->desc_);
    w->index(arch_tensors(w->desc_));
    w->populate(monitor);
    return w;
}

std::vector<std::pair<const std::byte*, std::size_t>> Weights::mapped_files() const {
    std::vector<std::pair<const std::byte*, std::size_t>> out;
    if (gguf_ && gguf_->mapping()) out.emplace_back(gguf_->mapping()->bytes().data(), gguf_->mapping()->size());
    if (hf_)
        for (const auto& f : hf_->files())
            if (f.mapping()) out.emplace_back(f.mapping()->bytes().data(), f.mapping()->size());
    return out;
}

void Weights::populate(const LoadMonitor& monitor) const {
    std::vector<const MappedFile*> maps;
    if (gguf_ && gguf_->mapping()) maps.push_back(gguf_->mapping().get());
    if (hf_)
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
        spdlog::info("{}: {:.1f} GiB of weights on {:.1f} GiB of RAM: pages are mapped on demand", path_.string(),
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
    if (monitor.cancelled()) throw Error(ErrorCode::cancelled, "loading " + path_.string() + " was cancelled");
    if (monitor.on_bytes) monitor.on_bytes(total, total);
    spdlog::debug("{}: mapped {:.2f} GiB into memory in {:.2f} s", path_.string(), double(total) / (1u << 30),
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

TensorView Weights::view_of(const std::string& name, const std::vector<std::uint64_t>& want, bool expert_slice,
                            std::uint64_t slice) const {
    const std::string file = path_.string();
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
        const auto* e = hf_->find(name);
        if (!e) throw Error(ErrorCode::not_found, file + ": missing tensor " + name, "the checkpoint is incomplete or not this architecture");
        const auto kt = safetensors::to_kernel_dtype(e->info->dtype);
        if (!kt || !safetensors::dtype_supported_for_compute(e->info->dtype)) {
            throw Error(ErrorCode::unsupported,
                        file + ": tensor " + name + " has type " + std::string(safetensors::dtype_name(e->info->dtype)) +
                            ", which the engine cannot compute with yet",
                        "use an F32/F16/BF16 checkpoint, or a GGUF file");
        }
        v.type = *kt;
        have.assign(e->info->shape.rbegin(), e->info->shape.rend());  // to GGUF order
        base = e->data().data();
    }
    // Trailing 1-dims are not significant.
    auto trim = [](std::vector<std::uint64_t> d) {
        while (d.size() > 1 && d.back() == 1) d.pop_back();
        return d;
    };
    if (trim(have) != trim(want)) {
        throw Error(ErrorCode::invalid_file, file + ": tensor " + name + " has shape " + dims_str(have) + ", expected " +
                                                 dims_str(want) + " for this model's configuration");
    }
    if (!kernels::cpu::matmul_supported(v.type)) {
        throw Error(ErrorCode::unsupported, file + ": tensor " + name + " has type " +
                                                std::string(kernels::dtype_info(v.type).name) + ", which the engine cannot read yet",
                    "supported: f32, f16, bf16, q8_0, q4_0, q4_K, q5_K, q6_K, mxfp4");
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
    for (const TensorSpec& s : specs) {
        if (s.is_expert()) {
            auto& layer = experts_[std::size_t(s.layer)];
            const std::uint64_t n_exp = s.dims.back();
            layer.resize(std::size_t(n_exp));
            for (std::uint64_t x = 0; x < n_exp; ++x) {
                TensorView v;
                if (gguf_) {
                    v = view_of(s.name, s.dims, true, x);
                } else {
                    v = view_of(s.hf_names.at(std::size_t(x)), {s.dims[0], s.dims[1]}, false, 0);
                }
                ExpertView& ev = layer[std::size_t(x)];
                (s.role == TensorRole::ffn_gate_exps ? ev.gate : s.role == TensorRole::ffn_up_exps ? ev.up : ev.down) = v;
                expert_bytes_ += v.bytes();
            }
            continue;
        }
        const std::string& src = gguf_ ? s.name : s.hf_names.at(0);
        TensorView v;
        const bool present = gguf_ ? gguf_->find_tensor(src) != nullptr : hf_->find(src) != nullptr;
        if (!present && s.role == TensorRole::output) {
            // No separate LM head: the embedding is shared (llama.cpp does the same).
            v = view_of(gguf_ ? "token_embd.weight" : "model.embed_tokens.weight", s.dims, false, 0);
        } else {
            v = view_of(src, s.dims, false, 0);
        }
        if (s.is_norm() && v.type != kernels::DType::F32 && v.type != kernels::DType::F16 && v.type != kernels::DType::BF16) {
            throw Error(ErrorCode::unsupported, path_.string() + ": norm tensor " + s.name + " is quantized");
        }
        other_bytes_ += v.bytes();
        tensors_.emplace(s.name, v);
    }
    if (desc_.tied_embeddings && !tensors_.count("output.weight")) tensors_.emplace("output.weight", tensors_.at("token_embd.weight"));
}

const TensorView* Weights::find(const std::string& name) const {
    auto it = tensors_.find(name);
    return it == tensors_.end() ? nullptr : &it->second;
}

const TensorView& Weights::get(const std::string& name) const {
    if (const TensorView* v = find(name)) return *v;
    throw Error(ErrorCode::not_found, path_.string() + ": missing tensor " + name);
}

}  // namespace ft::model
