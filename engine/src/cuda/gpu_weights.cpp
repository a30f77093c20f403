#include "cuda/gpu_weights.h"

#include <cstdlib>

#include <spdlog/fmt/fmt.h>

#include "ft/error.h"

namespace ft::gpu {

namespace kc = kernels::cuda;

DeviceWeights::DeviceWeights(const model::Weights& w, VramBudget& vram, cudaStream_t stream,
                             std::function<void(std::uint64_t, std::uint64_t)> on_upload, std::uint64_t total,
                             const std::atomic<bool>* cancel)
    : w_(w), vram_(vram), uploader_(std::make_unique<Uploader>(stream)), on_upload_(std::move(on_upload)), total_(total),
      cancel_(cancel) {}

DeviceWeights::~DeviceWeights() = default;

std::shared_ptr<void> DeviceWeights::alloc(std::size_t bytes, const std::string& what) {
    auto p = vram_.alloc(bytes, VramUse::weights, what);
    keep_.push_back(p);
    return p;
}

void DeviceWeights::uploaded() {
    if (cancel_ && cancel_->load()) throw Error(ErrorCode::cancelled, "the load was cancelled");
    if (!on_upload_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_progress_ < std::chrono::milliseconds(100)) return;
    last_progress_ = now;
    on_upload_(uploader_->bytes(), total_);
}

bool gpu_reads(kernels::DType t) { return kc::gemv_supported(t); }

DeviceMatrix DeviceWeights::matrix(const model::TensorView& t) {
    if (auto it = matrices_.find(t.data); it != matrices_.end()) return it->second;  // a tied LM head: the embedding
    const std::string name(t.name);
    if (!gpu_reads(t.type))
        throw Error(ErrorCode::unsupported,
                    fmt::format("{}: tensor {} is {}, which the GPU kernels do not read yet", w_.path().string(), name,
                                kernels::dtype_info(t.type).name),
                    "use --device cpu, or a file quantized as F32/F16/BF16/Q8_0/Q4_K/Q5_K/Q6_K");
    auto p = alloc(t.bytes(), name);
    uploader_->copy(p.get(), t.data, t.bytes());
    uploaded();
    const DeviceMatrix m{t.type, p.get(), t.row_bytes, t.rows, t.cols};
    matrices_.emplace(t.data, m);
    return m;
}

const float* DeviceWeights::vector(const model::TensorView* t) {
    if (!t) return nullptr;
    if (auto it = vectors_.find(t->data); it != vectors_.end()) return it->second;
    const std::vector<float> f = model::vector_f32(*t);
    auto p = alloc(f.size() * sizeof(float), std::string(t->name));
    check(cudaMemcpy(p.get(), f.data(), f.size() * sizeof(float), cudaMemcpyHostToDevice), "upload");
    const float* d = static_cast<const float*>(p.get());
    vectors_.emplace(t->data, d);
    return d;
}

const std::int32_t* DeviceWeights::table(const model::TensorView* t) {
    if (!t) return nullptr;
    if (t->type != kernels::DType::I32) throw Error(ErrorCode::internal, std::string(t->name) + ": not an i32 table");
    auto p = alloc(t->bytes(), std::string(t->name));
    check(cudaMemcpy(p.get(), t->data, t->bytes(), cudaMemcpyHostToDevice), "upload");
    return static_cast<const std::int32_t*>(p.get());
}

const float* DeviceWeights::ones(std::int64_t n) {
    if (n > n_ones_) {
        const std::vector<float> f(std::size_t(n), 1.f);
        ones_ = alloc(f.size() * sizeof(float), "ones");
        check(cudaMemcpy(ones_.get(), f.data(), f.size() * sizeof(float), cudaMemcpyHostToDevice), "upload");
        n_ones_ = n;
    }
    return static_cast<const float*>(ones_.get());
}

DeviceMatrix DeviceWeights::stacked(const model::TensorView& q, const model::TensorView& k, const model::TensorView& v,
                                    const std::string& name) {
    if (!(q.type == k.type && k.type == v.type && q.cols == k.cols && k.cols == v.cols && gpu_reads(q.type)))
        return {};
    auto p = alloc(q.bytes() + k.bytes() + v.bytes(), name);
    auto* d = static_cast<std::uint8_t*>(p.get());
    uploader_->copy(d, q.data, q.bytes());
    uploader_->copy(d + q.bytes(), k.data, k.bytes());
    uploader_->copy(d + q.bytes() + k.bytes(), v.data, v.bytes());
    uploaded();
    // The parts stay addressable inside the stack (the prefill path may run them separately).
    matrices_.emplace(q.data, DeviceMatrix{q.type, d, q.row_bytes, q.rows, q.cols});
    matrices_.emplace(k.data, DeviceMatrix{k.type, d + q.bytes(), k.row_bytes, k.rows, k.cols});
    matrices_.emplace(v.data, DeviceMatrix{v.type, d + q.bytes() + k.bytes(), v.row_bytes, v.rows, v.cols});
    return {q.type, d, q.row_bytes, q.rows + k.rows + v.rows, q.cols};
}

const float* DeviceWeights::stacked_vector(std::initializer_list<const model::TensorView*> parts, const std::string& name) {
    std::vector<float> all;
    bool any = false;
    for (const model::TensorView* t : parts) {
        if (!t) continue;
        any = true;
        const std::vector<float> f = model::vector_f32(*t);
        all.insert(all.end(), f.begin(), f.end());
    }
    if (!any) return nullptr;
    for (const model::TensorView* t : parts)
        if (!t) throw Error(ErrorCode::unsupported, w_.path().string() + ": " + name + ": biases on some of q/k/v only");
    auto p = alloc(all.size() * sizeof(float), name);
    check(cudaMemcpy(p.get(), all.data(), all.size() * sizeof(float), cudaMemcpyHostToDevice), "upload");
    return static_cast<const float*>(p.get());
}

ExpertSet DeviceWeights::experts(int il) {
    const std::string prefix = "blk." + std::to_string(il) + ".";
    auto stack = [&](auto get, const char* what) {
        const model::TensorView& e0 = get(w_.expert(il, 0));
        const std::size_t one = e0.bytes();
        const std::uint32_t n = w_.desc().moe.n_expert;
        if (!gpu_reads(e0.type))
            throw Error(ErrorCode::unsupported,
                        fmt::format("{}: {} is {}, which the GPU kernels do not read yet", w_.path().string(),
                                    prefix + what, kernels::dtype_info(e0.type).name),
                        "use --device cpu");
        auto p = alloc(one * n, prefix + what);
        for (std::uint32_t e = 0; e < n; ++e) {
            const model::TensorView& t = get(w_.expert(il, int(e)));
            uploader_->copy(static_cast<std::uint8_t*>(p.get()) + e * one, t.data, one);
        }
        uploaded();
        kc::ExpertMatrix m;
        m.type = e0.type;
        m.base = p.get();
        m.slot_stride = one;
        m.row_bytes = e0.row_bytes;
        m.rows = e0.rows;
        m.k = e0.cols;
        return m;
    };
    ExpertSet s;
    s.gate = stack([](const model::ExpertView& v) -> const model::TensorView& { return v.gate; }, "ffn_gate_exps.weight");
    s.up = stack([](const model::ExpertView& v) -> const model::TensorView& { return v.up; }, "ffn_up_exps.weight");
    s.down = stack([](const model::ExpertView& v) -> const model::TensorView& { return v.down; }, "ffn_down_exps.weight");
    return s;
}

ExpertBiases DeviceWeights::expert_biases(int il) {
    const model::TensorView* g = w_.find_layer(il, "ffn_gate_exps.bias");
    if (!g) return {};
    return {vector(g), vector(&w_.get("blk." + std::to_string(il) + ".ffn_up_exps.bias")),
            vector(&w_.get("blk." + std::to_string(il) + ".ffn_down_exps.bias"))};
}

void DeviceWeights::finish() {
    if (!uploader_) return;
    uploader_->finish();
    bytes_ = uploader_->bytes();
    uploader_.reset();  // its pinned staging buffers and events go now, while the stream still exists
    if (on_upload_) on_upload_(bytes_, bytes_);
}

std::uint64_t DeviceWeights::bytes() const { return uploader_ ? uploader_->bytes() : bytes_; }

}  // namespace ft::gpu
