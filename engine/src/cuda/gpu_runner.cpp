// The GPU runner: executes a ModelGraph's blocks (model/graph.h) with the kernels/cuda launchers. Non-expert weights
// always live in VRAM; the routed experts too with the resident backend, else in host memory behind the expert cache
// of ExpertOffload (offload / cpu / hybrid / static), which the MoE block calls. Blocks: gpu_attention.cpp,
// gpu_moe.cpp; uploads: gpu_weights.cpp. This file: the budget and buffers, batch metadata, the step loop, graphs,
// logits, profiling, counters and the live expert-cache resize.
//
// Two ways through a forward pass:
//  - decode (every token of the batch is the next token of a different sequence, all want logits, batch ≤
//    max_sequences): the whole step — embedding, every block, final norm, LM head — is captured once per batch size
//    as a CUDA graph and replayed. Everything the step reads that changes between steps (token ids, positions,
//    page tables) lives at fixed device addresses, filled by one copy before the replay.
//  - eager (prompt chunks, mixed batches, teacher-forced logits): the same blocks launched directly; attention runs
//    per sequence segment with the flash-style prefill kernel, the MoE groups tokens by expert and multiplies each
//    expert's rows with cuBLAS (offload backends stream each layer's experts in first).
#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <type_traits>
#include <variant>
#include <vector>

#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

#include "cuda/attention.cuh"
#include "cuda/compressed_attention.cuh"
#include "cuda/hyper_connection.cuh"
#include "cuda/expert_offload.h"
#include "cuda/gpu_attention.h"
#include "cuda/gpu_context.h"
#include "cuda/gpu_moe.h"
#include "cuda/gpu_runtime.h"
#include "cuda/mla_attention.cuh"
#include "cuda/gpu_weights.h"
#include "cuda/ops.cuh"
#include "cuda/rms_norm.cuh"
#include "exec/runner.h"
#include "ft/error.h"
#include "ft/gpu.h"
#include "model/block_needs.h"
#include "model/block_visit.h"
#include "platform/platform.h"

namespace ft::exec {

namespace {

namespace kc = kernels::cuda;
using gpu::check;
using gpu::DeviceMatrix;
using gpu::VramUse;
using Clock = std::chrono::steady_clock;

// Per-token batch metadata on the device: token ids, positions, page-table rows, logit rows, recurrent-state slots.
constexpr std::int64_t kMetaArrays = 5;

// A hyper-connection mixer on the device (DeepSeek-V4): fn as stored (through Linear), base and scale in f32.
struct GpuMixer {
    DeviceMatrix fn;
    const float* base = nullptr;
    const float* scale = nullptr;
};

// A block's body on the device: one alternative per kind of model::BlockBody.
using GpuBody = std::variant<std::unique_ptr<gpu::GpuAttention>, std::unique_ptr<gpu::GpuMlaAttention>,
                             std::unique_ptr<gpu::GpuGatedDeltaNet>, std::unique_ptr<gpu::GpuCompressedAttention>,
                             gpu::GpuFfn, std::unique_ptr<gpu::GpuMoe>>;

// One block, on the device: its norm, its mixer (with hyper-connections) and its body.
struct GpuBlock {
    const float* norm = nullptr;
    float eps = 1e-6f;
    GpuMixer hc;
    GpuBody body;
    // The body when it is of kind T (a unique_ptr's object), else nullptr: for the scratch sizes of one kind.
    template <class T>
    const T* as() const {
        if constexpr (std::is_same_v<T, gpu::GpuFfn>) {
            return std::get_if<gpu::GpuFfn>(&body);
        } else {
            const auto* p = std::get_if<std::unique_ptr<T>>(&body);
            return p ? p->get() : nullptr;
        }
    }
};

class GpuRunner final : public Runner {
public:
    GpuRunner(const ModelGraph& g, const Weights& w, const GpuRunnerOptions& o) : g_(g), w_(w), opt_(o) {
        const auto devices = gpu_devices();
        if (devices.empty())
            throw Error(ErrorCode::device, "no usable GPU: " + gpu_unavailable_reason(), "use --device cpu");
        if (o.device < 0 || o.device >= int(devices.size()))
            throw Error(ErrorCode::invalid_argument, fmt::format("GPU {} does not exist ({} found)", o.device, devices.size()));
        check(cudaSetDevice(o.device), "cudaSetDevice");
        gpu_name_ = devices[std::size_t(o.device)].name;
        if (!o.plan.gpu || o.plan.budget == 0)
            throw Error(ErrorCode::internal, "GPU runner without a VRAM plan (memory/planner.h makes one)");
        // Our allocations (weights, experts, KV, scratch, GEMM tiles) fit in the plan's budget less what it keeps for
        // cuBLAS's own workspace, the graphs and the reserve — the parts the CUDA libraries allocate themselves.
        const std::uint64_t outside = o.plan.graphs + o.plan.reserve + (32ull << 20);
        const std::uint64_t budget = o.plan.budget > outside ? o.plan.budget - outside : o.plan.budget;
        vram_ = std::make_unique<gpu::VramBudget>(budget);
        check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
        backend_ = o.moe;
        if (backend_ == MoeBackend::automatic)
            throw Error(ErrorCode::internal, "GPU runner: the plan must resolve the MoE backend");
        max_t_ = std::max<std::int64_t>(o.max_batch_tokens, o.max_sequences);
        c_ = std::make_unique<gpu::GpuContext>(gpu::GpuContext{opt_, *vram_, stream_});
        c_->n_embd = g.n_embd;
        c_->max_t = max_t_;
        c_->n_layer = int(g.layers.size());
        c_->sync = [this](const char* what) { sync(what); };
        upload_weights();
        allocate_scratch();
        allocate_cache_structures();
    }

    ~GpuRunner() override {
        if (stream_) cudaStreamSynchronize(stream_);
        for (auto& [b, gr] : graphs_) cudaGraphExecDestroy(gr);
        if (blocking_) cudaEventDestroy(blocking_);
        if (pinned_meta_) cudaFreeHost(pinned_meta_);
        if (pinned_logits_) cudaFreeHost(pinned_logits_);
        linear_.reset();
        offload_.reset();
        if (stream_) cudaStreamDestroy(stream_);
    }

    kv::KvGeometry kv_geometry(int page_size, std::int64_t n_pages) const override {
        // f16 rows when asked for and every block's kernels take them (compressed attention's read and write f32).
        return graph_kv_geometry(g_, page_size, n_pages, model::kv_elem_bytes(g_, opt_.kv_f16),
                                 state_slots(opt_.max_sequences));
    }

    std::unique_ptr<kv::KvCache> make_kv_cache(int page_size, std::int64_t n_pages) override {
        if (page_size != c_->page_size)
            throw Error(ErrorCode::internal, fmt::format("GPU KV cache: page size {} (planned {})", page_size, c_->page_size));
        auto alloc = [this](std::size_t bytes) { return vram_->alloc(bytes, VramUse::kv, "the KV cache"); };
        auto kv = std::make_unique<kv::KvCache>(kv_geometry(page_size, n_pages), alloc);
        spdlog::info("GPU memory on {}: {} (peak {:.2f} GiB of a {:.2f} GiB budget)", gpu_name_, vram_->summary(),
                     double(vram_->peak()) / double(1ull << 30), double(vram_->budget()) / double(1ull << 30));
        return kv;
    }

    void resize_expert_cache(int slots) override {
        if (!offload_) throw Error(ErrorCode::unsupported, "this backend has no expert cache to resize");
        check(cudaSetDevice(opt_.device), "cudaSetDevice");
        sync("before resizing the expert cache");
        invalidate_graphs();
        const std::vector<std::int32_t> hot = offload_->hottest();  // most recently used first
        {
            // Keep the totals of the cache that goes away (the counters are cumulative since load).
            std::uint64_t fetched = 0;
            for (const auto& l : offload_->layer_stats()) fetched += l.fetched;
            retired_fetch_bytes_ += double(fetched + offload_->admitted()) * double(offload_->expert_bytes());
            const std::vector<std::uint32_t> uses = offload_->expert_uses();
            retired_uses_.resize(uses.size(), 0);
            for (std::size_t i = 0; i < uses.size(); ++i) retired_uses_[i] += uses[i];
            retired_prefill_bytes_ += double(offload_->prefill_h2d_bytes());
        }
        const int old_slots = offload_->n_slots();
        offload_.reset();  // frees the old slots before the new ones are taken (the plan counted one cache)
        try {
            make_offload(slots);
        } catch (const Error& e) {
            spdlog::error("expert cache resize to {} slots failed ({}): restoring {} slots", slots, e.what(), old_slots);
            make_offload(old_slots);
            offload_->warm(hot);
            throw;
        }
        offload_->warm(hot);
        spdlog::info("expert cache: {} → {} slots, {} hottest experts kept", old_slots, slots,
                     std::min<std::size_t>(hot.size(), std::size_t(slots)));
    }

    std::vector<std::uint32_t> expert_uses() const override {
        if (!offload_) return {};
        std::vector<std::uint32_t> u = offload_->expert_uses();
        if (retired_uses_.size() == u.size())
            for (std::size_t i = 0; i < u.size(); ++i) u[i] += retired_uses_[i];
        return u;
    }

    int warm_expert_cache(const std::vector<std::int32_t>& hottest_first) override {
        if (!offload_ || offload_->backend() == MoeBackend::static_layers) return 0;
        check(cudaSetDevice(opt_.device), "cudaSetDevice");
        sync("before warming the expert cache");
        offload_->warm(hottest_first);
        warmed_ = int(std::min<std::size_t>(hottest_first.size(), std::size_t(offload_->n_slots())));
        return warmed_;
    }

    void kv_copy(void* dst, const void* src, std::size_t bytes) override {
        check(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault), "KV cache copy");
    }

    // ≤ 64 tokens left: 8-token passes through the cache (8 passes ≈ 8 decode steps, ~0.1 s on the H200 at 8 GiB)
    // instead of streaming the whole expert pool once (16 GB: 0.37 s at 44 GB/s, over a second on a laptop's link).
    int prefill_slice(std::int64_t remaining) const override {
        if (!offload_ || offload_->backend() == MoeBackend::static_layers) return 0;
        return remaining <= 8 * gpu::kGroupedMaxTokens ? int(gpu::kGroupedMaxTokens) : 0;
    }

    void invalidate_graphs() override {
        for (auto& [b, gr] : graphs_) cudaGraphExecDestroy(gr);
        graphs_.clear();
        graph_kv_ = nullptr;
    }

    std::string device_name() const override {
        return gpu_name_ + " (" + moe_backend_name(backend_) +
               (offload_ ? ", " + std::to_string(offload_->n_slots()) + " expert slots" : std::string()) + ")";
    }

    exec::RunnerCounters counters() const override;

    void forward(std::span<const BatchToken> batch, kv::KvCache& kv, float* logits) override {
        const std::int64_t T = std::int64_t(batch.size());
        if (T == 0) return;
        check(cudaSetDevice(opt_.device), "cudaSetDevice");
        const auto t0 = std::chrono::steady_clock::now();
        const bool decode = prepare(batch, kv);
        ++steps_;
        if (decode) {
            if (opt_.graphs) {
                cudaGraphExec_t gr = graph_for(T);
                check(cudaGraphLaunch(gr, stream_), "cudaGraphLaunch");
                ++replays_;
            } else {
                run_step(T, true);
            }
            read_logits(logits, 0, T);
            if (opt_.record_routing) {
                const std::size_t n = std::size_t(g_.layers.size()) * std::size_t(T) * std::size_t(g_.n_expert_used);
                const std::size_t half =
                    std::size_t(g_.layers.size()) * std::size_t(opt_.max_sequences) * std::size_t(g_.n_expert_used);
                check(cudaMemcpyAsync(host_routing_.data(), c_->s.routing.get() + half, n * 4, cudaMemcpyDeviceToHost, stream_),
                      "read routing");
                sync("read routing");
                opt_.record_routing->record(int(T), std::span<const std::int32_t>(host_routing_.data(), n));
            }
        } else {
            const std::uint64_t l0 = c_->launches + linear_->launches();
            run_step(T, false);
            // LM head over the rows that want logits, in tiles that fit the logits buffer.
            const std::int64_t n = n_logit_rows_;
            for (std::int64_t r0 = 0; r0 < n; r0 += logit_tile_) {
                const std::int64_t m = std::min(logit_tile_, n - r0);
                lm_head(d_meta_.get() + 3 * max_t_ + r0, m);
                read_logits(logits + r0 * g_.n_vocab, 0, m);
            }
            last_eager_launches_ = c_->launches + linear_->launches() - l0;
        }
        sync("GPU forward");
        if (offload_) {
            offload_->check_health();
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            if (offload_->after_step(decode, seconds, int(T))) invalidate_graphs();  // the CPU handshake came or went
        }
        c_->kv = nullptr;
    }

    std::vector<std::pair<std::string, double>> profile_step(std::span<const BatchToken> batch, kv::KvCache& kv) override;

private:
    bool prepare(std::span<const BatchToken> batch, kv::KvCache& kv);
    void upload_weights();
    void allocate_scratch();
    void allocate_cache_structures();
    void make_offload(int slots);
    void run_step(std::int64_t T, bool decode);
    void forward_body(const GpuBlock& b, std::int64_t T, bool decode);
    void lm_head(const std::int32_t* rows, std::int64_t m);
    void read_logits(float* out, std::int64_t r0, std::int64_t m);
    cudaGraphExec_t graph_for(std::int64_t B);
    void mark(const char* phase);

    // Waits for the stream. While decode hands experts to the CPU workers (cpu, static, hybrid below q* = 1) the
    // waiting thread must not spin on a core they need: it blocks on an event (cudaEventBlockingSync) instead.
    // Otherwise it waits as offload does: hybrid at q* = 1 gives the CPU nothing, and a blocking wait would only add
    // the thread's wake-up to every step.
    void sync(const char* what) {
        if (!blocking_ || !offload_ || !offload_->hands_experts_to_cpu()) {
            check(cudaStreamSynchronize(stream_), what);
            return;
        }
        check(cudaEventRecord(blocking_, stream_), what);
        check(cudaEventSynchronize(blocking_), what);
    }

    const ModelGraph& g_;
    const Weights& w_;
    GpuRunnerOptions opt_;
    std::string gpu_name_;
    std::unique_ptr<gpu::VramBudget> vram_;
    cudaStream_t stream_ = nullptr;
    std::unique_ptr<gpu::GpuContext> c_;
    std::unique_ptr<gpu::DeviceWeights> weights_;
    std::unique_ptr<gpu::Linear> linear_;

    DeviceMatrix embd_, output_;
    const float* out_norm_ = nullptr;
    GpuMixer hc_head_;                  // DeepSeek-V4's output mixer
    const float* hc_ones_ = nullptr;
    std::vector<std::vector<GpuBlock>> blocks_;  // [layer][block]
    std::uint64_t decode_weight_bytes_ = 0;

    std::int64_t max_t_ = 0, logit_tile_ = 0;
    std::uint64_t d2h_bytes_ = 0;
    double retired_fetch_bytes_ = 0, retired_prefill_bytes_ = 0;  // of expert caches replaced by a rebuild
    std::vector<std::uint32_t> retired_uses_;                        // likewise
    int warmed_ = 0;                                                 // experts the warm start put in the cache
    std::shared_ptr<float> logits_;
    std::shared_ptr<std::int32_t> d_meta_, d_pages_;
    std::vector<std::int32_t> host_routing_;
    std::int32_t* pinned_meta_ = nullptr;
    float* pinned_logits_ = nullptr;
    std::vector<int> seq_ids_;  // page-table row → KV sequence id (this step)
    const kv::KvCache* graph_kv_ = nullptr;

    MoeBackend backend_ = MoeBackend::resident;
    std::unique_ptr<gpu::ExpertOffload> offload_;
    std::map<std::int64_t, cudaGraphExec_t> graphs_;
    cudaEvent_t blocking_ = nullptr;  // set when CPU expert workers share the cores (see sync())
    std::vector<std::string> marks_;  // profile_step: the phase each timestamp ends
    std::int64_t n_logit_rows_ = 0;
    std::uint64_t steps_ = 0, replays_ = 0, last_eager_launches_ = 0;
    std::size_t last_graph_nodes_ = 0;
};

// ---- loading ----

void GpuRunner::upload_weights() {
    const auto t0 = Clock::now();
    const std::uint64_t before = vram_->used(VramUse::weights);
    weights_ = std::make_unique<gpu::DeviceWeights>(w_, *vram_, stream_, opt_.on_upload, opt_.plan.weights, opt_.cancel);
    gpu::DeviceWeights& dw = *weights_;
    embd_ = dw.matrix(*g_.token_embd);
    out_norm_ = dw.vector(g_.output_norm.w);
    output_ = dw.matrix(*g_.output);
    const bool resident = backend_ == MoeBackend::resident;
    for (const model::Layer& L : g_.layers) {
        auto& out = blocks_.emplace_back();
        for (const model::Block& b : L.blocks) {
            GpuBlock& gb = out.emplace_back();
            gb.norm = dw.vector(b.norm.w);
            gb.eps = b.norm.eps;
            if (b.hc) gb.hc = {dw.matrix(*b.hc.fn), dw.vector(b.hc.base), dw.vector(b.hc.scale)};
            gb.body = std::visit(
                model::overloaded{
                    [&](const model::AttentionBlock& a) -> GpuBody { return std::make_unique<gpu::GpuAttention>(a, dw); },
                    [&](const model::MlaAttentionBlock& m) -> GpuBody {
                        return std::make_unique<gpu::GpuMlaAttention>(m, dw);
                    },
                    [&](const model::GatedDeltaNetBlock& d) -> GpuBody {
                        return std::make_unique<gpu::GpuGatedDeltaNet>(d, dw);
                    },
                    [&](const model::CompressedAttentionBlock& v) -> GpuBody {
                        return std::make_unique<gpu::GpuCompressedAttention>(v, g_.max_idx_dim, dw);
                    },
                    [&](const model::FfnBlock& f) -> GpuBody { return gpu::GpuFfn(f, dw); },
                    [&](const model::MoeBlock& m) -> GpuBody { return std::make_unique<gpu::GpuMoe>(m, dw, resident); },
                },
                b.body);
            decode_weight_bytes_ += std::visit(model::overloaded{
                                                   [](const gpu::GpuFfn& f) { return f.decode_bytes(); },
                                                   [](const auto& p) { return p->decode_bytes(); },
                                               },
                                               gb.body);
        }
    }
    decode_weight_bytes_ += output_.row_bytes * std::size_t(output_.rows) + embd_.row_bytes;
    if (g_.hc_mult > 16)
        throw Error(ErrorCode::unsupported, fmt::format("{} hyper-connection streams: the GPU kernels take at most 16", g_.hc_mult));
    if (g_.hc_mult > 0) {
        hc_head_ = {dw.matrix(*g_.hc_head.fn), dw.vector(g_.hc_head.base), dw.vector(g_.hc_head.scale)};
        hc_ones_ = dw.ones(std::int64_t(g_.hc_mult) * g_.n_embd);
    }
    dw.finish();
    // The upload is what the blocks declare (model/block_needs.h graph_weights), which the plan's weights are.
    const model::WeightNeeds declared = model::graph_weights(g_, w_);
    const std::uint64_t want = declared.resident + (resident ? declared.expert_pool() : 0),
                        got = vram_->used(VramUse::weights) - before;
    if (got != want)
        throw Error(ErrorCode::internal, fmt::format("the GPU holds {} bytes of weights, its blocks declare {} "
                                                     "(model/block_needs.cpp graph_weights)", got, want));
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    spdlog::info("uploaded {:.2f} GiB of weights to {} in {:.2f} s ({:.1f} GB/s)", double(dw.bytes()) / double(1ull << 30),
                 gpu_name_, s, double(dw.bytes()) / s / 1e9);
}

static_assert(model::kGemvMaxRows == kc::kGemvMaxM && model::kGemvMaxRows == gpu::kGroupedMaxTokens);
static_assert(model::kIndexChunk == gpu::GpuCompressedAttention::kIndexChunk);

// The step's buffers, exactly as the blocks declare them (model/block_needs.h): the list the planner summed.
void GpuRunner::allocate_scratch() {
    using model::Scratch;
    const model::ScratchNeeds n = model::graph_needs(g_, gpu_step_shape(opt_));
    auto buf = [&](Scratch b) -> std::shared_ptr<void> {
        if (!n[b]) return nullptr;
        return vram_->alloc(std::size_t(n[b]), VramUse::scratch, model::scratch_label(b));
    };
    auto f32 = [&](Scratch b) { return std::static_pointer_cast<float>(buf(b)); };
    auto i32 = [&](Scratch b) { return std::static_pointer_cast<std::int32_t>(buf(b)); };
    const std::int64_t T = max_t_;
    gpu::StepScratch& s = c_->s;
    s.x = f32(Scratch::x);
    s.xn = f32(Scratch::xn);
    s.qkv = f32(Scratch::qkv);
    s.lin = f32(Scratch::lin);
    s.att = f32(Scratch::att);
    s.heads = i32(Scratch::heads);
    if (s.heads) {
        // MLA: the head of each (token, head) pair, p % n_head, for the widest latent attention block.
        std::int64_t mla_heads = 0;
        for (const auto& layer : blocks_)
            for (const GpuBlock& b : layer)
                if (const auto* mla = b.as<gpu::GpuMlaAttention>()) mla_heads = std::max<std::int64_t>(mla_heads, mla->n_head());
        std::vector<std::int32_t> ids(std::size_t(T * mla_heads));
        for (std::size_t p = 0; p < ids.size(); ++p) ids[p] = std::int32_t(std::int64_t(p) % mla_heads);
        check(cudaMemcpy(s.heads.get(), ids.data(), ids.size() * 4, cudaMemcpyHostToDevice), "MLA head ids");
    }
    s.router_logits = f32(Scratch::router_logits);
    s.route_w = f32(Scratch::route_w);
    s.route_ids = i32(Scratch::route_ids);
    s.order = i32(Scratch::order);
    s.where = i32(Scratch::where);
    s.offsets = i32(Scratch::offsets);
    s.xs = f32(Scratch::xs);
    s.ys = f32(Scratch::ys);
    s.g = f32(Scratch::gate);
    s.u = f32(Scratch::up);
    logit_tile_ = n.logit_rows;
    logits_ = f32(Scratch::logits);
    d_meta_ = i32(Scratch::meta);
    c_->d_tok = d_meta_.get();
    c_->d_pos = d_meta_.get() + max_t_;
    c_->d_row = d_meta_.get() + 2 * max_t_;
    c_->d_slot = d_meta_.get() + 4 * max_t_;
    s.routing = i32(Scratch::routing);
    if (s.routing) {
        const std::size_t n_trace = g_.layers.size() * std::size_t(opt_.max_sequences) * std::size_t(g_.n_expert_used);
        check(cudaMemset(s.routing.get(), 0xff, 2 * n_trace * sizeof(std::int32_t)), "routing buffers");
        host_routing_.resize(n_trace);
    }
    s.hc = f32(Scratch::streams);
    s.compressed = f32(Scratch::compressed);
    s.picks = i32(Scratch::picks);
    s.pick_scores = buf(Scratch::pick_scores);
    if (s.pick_scores) {
        std::int64_t entries = 1;  // the kernel's own size for the widest indexer: the declared one
        for (const auto& layer : blocks_)
            for (const GpuBlock& b : layer)
                if (const auto* ca = b.as<gpu::GpuCompressedAttention>(); ca && ca->csa())
                    entries = std::max<std::int64_t>(entries, std::max<std::int64_t>(1, opt_.n_ctx / ca->ratio()));
                else if (const auto* mla = b.as<gpu::GpuMlaAttention>(); mla && mla->has_indexer())
                    entries = std::max<std::int64_t>(entries, opt_.n_ctx);
        if (kc::compressed_index_workspace(std::min(T, model::kIndexChunk), entries) > n[Scratch::pick_scores])
            throw Error(ErrorCode::internal, "the indexer's workspace is larger than its blocks declare (model/block_needs.cpp)");
    }
    // Prefill MoE scratch: the gathered rows in BF16 (f32, or no GEMMs: the gathered rows are used as they are).
    s.dense_rows = buf(Scratch::dense_rows);
    if (!s.dense_rows && T > model::kGemvMaxRows) s.dense_rows = s.xs;
    linear_ = std::make_unique<gpu::Linear>(*vram_, stream_, opt_.gemm, T * 1, n.gemm_k);
    c_->linear = linear_.get();
    check(cudaMallocHost(reinterpret_cast<void**>(&pinned_logits_), std::size_t(logit_tile_) * std::size_t(g_.n_vocab) * sizeof(float)),
          "pinned logits");
}

// Page tables, the decode attention workspace, the batch staging and the expert cache: sized by the plan.
void GpuRunner::allocate_cache_structures() {
    c_->page_size = opt_.plan.kv_page_size > 0 ? opt_.plan.kv_page_size : 16;
    c_->pages_stride = int((opt_.n_ctx + c_->page_size - 1) / c_->page_size);
    const std::size_t stride = std::size_t(c_->pages_stride);
    const model::ScratchNeeds n = model::graph_needs(g_, gpu_step_shape(opt_));
    d_pages_ = std::static_pointer_cast<std::int32_t>(
        vram_->alloc(std::size_t(n[model::Scratch::pages]), VramUse::scratch, model::scratch_label(model::Scratch::pages)));
    c_->d_pages = d_pages_.get();
    // Pinned staging of the batch: kMetaArrays arrays of max_t ints, then the page tables.
    const std::size_t meta_ints = std::size_t(kMetaArrays * max_t_) + std::size_t(opt_.max_sequences + 1) * stride;
    check(cudaMallocHost(reinterpret_cast<void**>(&pinned_meta_), meta_ints * sizeof(std::int32_t)), "pinned metadata");
    c_->host_row = pinned_meta_ + 2 * max_t_;
    // The decode attention workspace as the attention blocks declare it; the kernels' own sizes must fit in it.
    std::size_t ws = 0;
    for (const auto& layer : blocks_)
        for (const GpuBlock& b : layer)
            if (const auto* attn = b.as<gpu::GpuAttention>())
                ws = std::max(ws, kc::attention_decode_workspace(attn->params(c_->page_size), opt_.max_sequences, opt_.n_ctx));
            else if (const auto* mla = b.as<gpu::GpuMlaAttention>())
                ws = std::max(ws, kc::mla_attention_workspace(mla->params(c_->page_size), opt_.max_sequences, opt_.n_ctx));
    if (ws > n[model::Scratch::attn_ws])
        throw Error(ErrorCode::internal, fmt::format("the decode attention workspace needs {} bytes, its blocks declare {} "
                                                     "(model/block_needs.cpp)", ws, n[model::Scratch::attn_ws]));
    if (n[model::Scratch::attn_ws])
        c_->s.attn_ws = vram_->alloc(std::size_t(n[model::Scratch::attn_ws]), VramUse::scratch,
                                     model::scratch_label(model::Scratch::attn_ws));
    if (backend_ != MoeBackend::resident) make_offload(opt_.plan.expert_slots);
}

void GpuRunner::make_offload(int slots) {
    gpu::OffloadOptions oo;
    oo.backend = backend_;
    oo.cache_bytes = std::uint64_t(slots) * opt_.plan.expert_slot_bytes;
    double frac = opt_.hybrid_fraction;
    if (frac < 0) {
        frac = 0.5;
        if (oo.backend == MoeBackend::hybrid)
            spdlog::info("hybrid: no bandwidth fraction measured: using 0.5 (run `ft bench bw` to measure it)");
    }
    oo.frac_q16 = std::uint32_t(std::lround(std::clamp(frac, 0.0, 1.0) * 65536.0));
    oo.max_fetch = opt_.max_fetch;
    oo.threads = opt_.cpu_threads;
    oo.max_tokens = int(gpu::kGroupedMaxTokens);
    oo.slots = slots;
    oo.hybrid_admit = opt_.hybrid_admit;
    oo.restore_after_search = opt_.search_restores_cache;
    oo.recalibrate = opt_.recalibrate_fraction;
    oo.pin_budget = opt_.pin_budget > 0 ? opt_.pin_budget : platform::pinnable_memory_bytes();  // 0: no cap
    oo.host_function_sync = opt_.host_function_sync;
    oo.link_gbps = opt_.link_gbps;
    offload_ = std::make_unique<gpu::ExpertOffload>(w_, *vram_, stream_, oo);
    if (oo.backend != MoeBackend::offload && !blocking_)
        check(cudaEventCreateWithFlags(&blocking_, cudaEventBlockingSync | cudaEventDisableTiming), "cudaEventCreate");
}

// ---- the step ----

// Uploads the batch's metadata and page tables; returns whether it is a decode step (one token of each of up to
// max_sequences different sequences, all wanting logits).
bool GpuRunner::prepare(std::span<const BatchToken> batch, kv::KvCache& kv) {
    const std::int64_t T = std::int64_t(batch.size());
    if (T > max_t_) throw Error(ErrorCode::internal, fmt::format("GPU forward: {} tokens over the batch limit {}", T, max_t_));
    if (!d_pages_) throw Error(ErrorCode::internal, "GPU forward before the KV cache was made");
    if (&kv != graph_kv_) {  // graphs bake the cache's addresses in
        invalidate_graphs();
        graph_kv_ = &kv;
    }
    c_->kv = &kv;
    c_->batch = batch;
    const int stride = c_->pages_stride;
    // Per-token metadata and the page tables of the sequences in the batch, packed for one upload.
    seq_ids_.clear();  // page-table row → KV sequence id
    std::vector<std::int32_t> logit_rows;
    bool distinct = true;
    std::int32_t* meta = pinned_meta_;
    for (std::int64_t t = 0; t < T; ++t) {
        const BatchToken& b = batch[std::size_t(t)];
        if (b.token < 0 || std::int64_t(b.token) >= g_.n_vocab)
            throw Error(ErrorCode::invalid_argument, fmt::format("token id {} is outside the vocabulary", b.token));
        auto it = std::find(seq_ids_.begin(), seq_ids_.end(), b.seq);
        if (it == seq_ids_.end()) {
            if (int(seq_ids_.size()) > opt_.max_sequences)
                throw Error(ErrorCode::internal, "GPU forward: more sequences than page-table rows");
            seq_ids_.push_back(b.seq);
            it = seq_ids_.end() - 1;
        } else {
            distinct = false;
        }
        if (kv.has_state() && (b.seq < 0 || b.seq >= kv.geometry().rs_slots))
            throw Error(ErrorCode::internal, fmt::format("GPU forward: sequence {} has no recurrent-state slot", b.seq));
        meta[t] = b.token;
        meta[max_t_ + t] = b.pos;
        meta[2 * max_t_ + t] = std::int32_t(it - seq_ids_.begin());
        meta[4 * max_t_ + t] = b.seq;
        if (b.logits) {
            meta[3 * max_t_ + std::int64_t(logit_rows.size())] = std::int32_t(t);
            logit_rows.push_back(std::int32_t(t));
        }
    }
    const int n_rows = int(seq_ids_.size());
    std::int32_t* pages = meta + kMetaArrays * max_t_;
    for (int r = 0; r < n_rows; ++r) {
        const auto& pt = kv.page_table(seq_ids_[std::size_t(r)]);
        if (std::int64_t(pt.size()) > stride)
            throw Error(ErrorCode::internal, "GPU forward: a sequence has more KV pages than the context allows");
        std::copy(pt.begin(), pt.end(), pages + std::ptrdiff_t(r) * stride);
        std::fill(pages + std::ptrdiff_t(r) * stride + std::ptrdiff_t(pt.size()), pages + std::ptrdiff_t(r + 1) * stride, 0);
    }
    check(cudaMemcpyAsync(d_meta_.get(), meta, std::size_t(kMetaArrays * max_t_) * sizeof(std::int32_t), cudaMemcpyHostToDevice, stream_),
          "upload batch");
    check(cudaMemcpyAsync(d_pages_.get(), pages, std::size_t(n_rows) * std::size_t(stride) * sizeof(std::int32_t),
                          cudaMemcpyHostToDevice, stream_),
          "upload page tables");

    n_logit_rows_ = std::int64_t(logit_rows.size());
    const bool decode = distinct && T <= opt_.max_sequences && n_logit_rows_ == T;
    if (decode && opt_.routing) {
        const std::size_t n = g_.layers.size() * std::size_t(T) * std::size_t(g_.n_expert_used);
        opt_.routing->next_step(int(T), std::span(host_routing_.data(), n));
        check(cudaMemcpyAsync(c_->s.routing.get(), host_routing_.data(), n * sizeof(std::int32_t), cudaMemcpyHostToDevice,
                              stream_),
              "upload routing");
    }
    return decode;
}

// Every block for T tokens whose ids/positions/rows are in the batch metadata (decode: one token per page-table row,
// attention through the split-K decode kernel; eager: per-segment prefill attention). Leaves x = the final hidden
// states (before the output norm). In decode mode it also computes the logits of all T rows.
// One block's body: x += body(xn) (each kind's forward adds its output into the activations).
void GpuRunner::forward_body(const GpuBlock& b, std::int64_t T, bool decode) {
    gpu::GpuContext& c = *c_;
    std::visit(model::overloaded{
                   [&](const std::unique_ptr<gpu::GpuAttention>& a) { a->forward(c, T, decode); },
                   [&](const std::unique_ptr<gpu::GpuMlaAttention>& m) { m->forward(c, T, decode); },
                   [&](const std::unique_ptr<gpu::GpuGatedDeltaNet>& d) { d->forward(c, T, decode); },
                   [&](const std::unique_ptr<gpu::GpuCompressedAttention>& v) { v->forward(c, T, decode); },
                   [&](const gpu::GpuFfn& f) { f.forward(c, T); },
                   [&](const std::unique_ptr<gpu::GpuMoe>& m) { m->forward(c, T, decode, offload_.get()); },
               },
               b.body);
}

// One step for every model. The residual is the hyper-connection streams (model/graph.h Block); a plain model is the
// one-stream case: the residual is s.x, a block's input its norm (fused into the previous block's output or the MoE
// router where they can), its output added into s.x. With hyper-connections (hc_mult > 0) the streams live in s.hc:
// a block's mixer reads them (RMS-normalised flat, through its fn) and gives the block input (into xn, then the
// block's norm) and the post / comb weights; the block adds its output into s.x, zeroed before, and the streams take
// it; the head's mixer leaves the collapsed streams in s.x for the output norm.
void GpuRunner::run_step(std::int64_t T, bool decode) {
    gpu::GpuContext& c = *c_;
    const std::int64_t E = g_.n_embd, N = g_.hc_mult, NE = N * E, MT = max_t_, mix_w = (2 + N) * N;
    c.launched(kc::embed_rows(embd_.type, embd_.data, embd_.row_bytes, E, c.d_tok, T, c.s.x.get(), stream_), "embedding");
    mark("embedding");
    // The streams' regions of s.hc (model::streams_width): none without hyper-connections.
    float* streams = N > 0 ? c.s.hc.get() : nullptr;
    float* flat = streams ? streams + MT * NE : nullptr;
    float* mix = flat ? flat + MT * NE : nullptr;
    float* post = mix ? mix + MT * mix_w : nullptr;
    float* comb = post ? post + MT * N : nullptr;
    auto mix_of = [&](const GpuMixer& m) {
        c.launched(kc::rms_norm_f32(streams, hc_ones_, flat, T, NE, g_.output_norm.eps, stream_), "hyper-connection norm");
        c.linear->run(m.fn, flat, T, NE, mix, m.fn.rows, false);
    };
    if (streams) c.launched(kc::hc_spread(c.s.x.get(), int(N), E, T, streams, stream_), "hyper-connection streams");
    std::vector<const GpuBlock*> order;
    for (const auto& layer : blocks_)
        for (const GpuBlock& b : layer) order.push_back(&b);
    c.xn_ready = false;
    for (std::size_t i = 0; i < order.size(); ++i) {
        const GpuBlock& b = *order[i];
        if (streams) {
            mix_of(b.hc);
            c.launched(kc::hc_pre(mix, b.hc.fn.rows, b.hc.scale, b.hc.base, streams, int(N), E, g_.hc_sinkhorn_iters,
                                  g_.hc_eps, false, T, c.s.xn.get(), post, comb, stream_),
                       "hyper-connection pre");
            c.launched(kc::rms_norm_f32(c.s.xn.get(), b.norm, c.s.xn.get(), T, E, b.eps, stream_), "block norm");
            check(cudaMemsetAsync(c.s.x.get(), 0, std::size_t(T * E) * sizeof(float), stream_), "block output");
            c.own_norm = nullptr;  // the next block's input is a mix of the streams: its norm is not fused
            c.next_norm = nullptr;
        } else {
            // A MoE block that can fuse its input norm with its router (decode) takes it over.
            const gpu::GpuMoe* moe = b.as<gpu::GpuMoe>();
            const bool own = !c.xn_ready && moe && moe->fuses_input_norm(c, T, b.norm);
            if (!c.xn_ready && !own)
                c.launched(kc::rms_norm_f32(c.s.x.get(), b.norm, c.s.xn.get(), T, E, b.eps, stream_), "block norm");
            c.xn_ready = false;
            c.own_norm = own ? b.norm : nullptr;
            c.own_norm_eps = b.eps;
            c.next_norm = i + 1 < order.size() ? order[i + 1]->norm : nullptr;
            c.next_norm_eps = i + 1 < order.size() ? order[i + 1]->eps : 0.f;
        }
        forward_body(b, T, decode);
        if (streams) c.launched(kc::hc_post(post, comb, c.s.x.get(), int(N), E, T, streams, stream_), "hyper-connection post");
    }
    c.next_norm = nullptr;
    c.own_norm = nullptr;
    c.xn_ready = false;
    if (streams) {
        mix_of(hc_head_);
        c.launched(kc::hc_pre(mix, hc_head_.fn.rows, hc_head_.scale, hc_head_.base, streams, int(N), E, 0, g_.hc_eps, true,
                              T, c.s.x.get(), nullptr, nullptr, stream_),
                   "hyper-connection head");
    }
    if (offload_) offload_->finish_step();  // background cache admissions of this step join and commit
    if (decode) {
        lm_head(nullptr, T);
        mark("output norm + LM head");
    }
}

// Output norm + LM head for m rows of x (rows: device indices of those rows, or nullptr for rows 0..m-1) into
// logits_.
void GpuRunner::lm_head(const std::int32_t* rows, std::int64_t m) {
    gpu::GpuContext& c = *c_;
    const std::int64_t E = g_.n_embd;
    const float* src = c.s.x.get();
    if (rows) {
        c.launched(kc::gather_rows(c.s.x.get(), E, rows, 1, m, c.s.xn.get(), stream_), "gather logit rows");
        src = c.s.xn.get();
    }
    c.launched(kc::rms_norm_f32(src, out_norm_, c.s.xn.get(), m, E, g_.output_norm.eps, stream_), "output norm");
    c.matmul(output_, c.s.xn.get(), m, logits_.get());
}

void GpuRunner::read_logits(float* out, std::int64_t r0, std::int64_t m) {
    const std::size_t bytes = std::size_t(m) * std::size_t(g_.n_vocab) * sizeof(float);
    check(cudaMemcpyAsync(pinned_logits_, logits_.get() + r0 * g_.n_vocab, bytes, cudaMemcpyDeviceToHost, stream_),
          "read logits");
    sync("read logits");
    std::memcpy(out, pinned_logits_, bytes);
    d2h_bytes_ += bytes;
}

// Profiling: a timestamp at the end of a phase (a kernel node when captured).
void GpuRunner::mark(const char* phase) {
    if (!c_->on_mark) return;
    c_->on_mark(phase);
}

cudaGraphExec_t GpuRunner::graph_for(std::int64_t B) {
    if (auto it = graphs_.find(B); it != graphs_.end()) return it->second;
    const auto t0 = Clock::now();
    const std::uint64_t l0 = c_->launches + linear_->launches();
    cudaGraph_t graph = nullptr;
    check(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal), "begin graph capture");
    try {
        run_step(B, true);
    } catch (...) {
        cudaStreamEndCapture(stream_, &graph);
        if (graph) cudaGraphDestroy(graph);
        throw;
    }
    check(cudaStreamEndCapture(stream_, &graph), "end graph capture");
    cudaGraphExec_t exec = nullptr;
    const cudaError_t e = cudaGraphInstantiate(&exec, graph, 0);
    std::size_t nodes = 0;
    cudaGraphGetNodes(graph, nullptr, &nodes);
    cudaGraphDestroy(graph);
    check(e, "instantiate the decode graph");
    last_graph_nodes_ = nodes;
    graphs_[B] = exec;
    spdlog::info("captured the decode step for batch {} as a CUDA graph: {} kernels ({} launched) in {:.1f} ms", B, nodes,
                 c_->launches + linear_->launches() - l0, std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    return exec;
}

std::vector<std::pair<std::string, double>> GpuRunner::profile_step(std::span<const BatchToken> batch, kv::KvCache& kv) {
    const std::int64_t T = std::int64_t(batch.size());
    if (T == 0 || !prepare(batch, kv)) return {};
    // The decode step captured with a timestamp kernel between phases (one thread writing the GPU's global timer):
    // closer to the step replayed without them than event-record nodes were (docs/benchmarks.md). A step with the CPU
    // handshake (cpu, hybrid below q* = 1) still profiles 2-3x slower than its replays, its "wait for the CPU" phase
    // inflated, with either way of marking and without the host probe before it; why is not known.
    constexpr std::size_t kMaxMarks = 16384;
    std::uint64_t* stamps = nullptr;
    check(cudaMalloc(&stamps, kMaxMarks * sizeof(std::uint64_t)), "profile timestamps");
    std::shared_ptr<void> stamps_owner(stamps, [](void* p) { cudaFree(p); });
    marks_.clear();
    c_->on_mark = [this, stamps](const char* phase) {
        if (marks_.size() == kMaxMarks) throw Error(ErrorCode::internal, "profile_step: more phases than timestamps");
        check(kc::write_gpu_time(stamps + marks_.size(), stream_), "record a timestamp");
        marks_.emplace_back(phase);
    };
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    std::vector<std::pair<std::string, double>> out;
    try {
        check(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal), "begin graph capture");
        try {
            mark("");
            run_step(T, true);
        } catch (...) {
            cudaStreamEndCapture(stream_, &graph);
            throw;
        }
        check(cudaStreamEndCapture(stream_, &graph), "end graph capture");
        check(cudaGraphInstantiate(&exec, graph, 0), "instantiate the profiling graph");
        // One timed replay (a second would see the first one's cache fills as hits); uploaded first so the launch
        // does not include setting the graph up on the device.
        check(cudaGraphUpload(exec, stream_), "upload the profiling graph");
        check(cudaGraphLaunch(exec, stream_), "profiling graph");
        check(cudaStreamSynchronize(stream_), "profiling graph");
        std::vector<std::uint64_t> ns(marks_.size());
        check(cudaMemcpy(ns.data(), stamps, ns.size() * sizeof(std::uint64_t), cudaMemcpyDeviceToHost), "read timestamps");
        std::map<std::string, double> ms;
        std::vector<std::string> order;
        for (std::size_t i = 1; i < marks_.size(); ++i) {
            if (!ms.count(marks_[i])) order.push_back(marks_[i]);
            ms[marks_[i]] += double(ns[i] - ns[i - 1]) / 1e6;
        }
        double total = 0;
        for (const auto& n : order) {
            out.emplace_back(n, ms[n]);
            total += ms[n];
        }
        out.emplace_back("total", total);
    } catch (...) {
        c_->on_mark = nullptr;
        if (exec) cudaGraphExecDestroy(exec);
        if (graph) cudaGraphDestroy(graph);
        throw;
    }
    c_->on_mark = nullptr;
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    c_->kv = nullptr;
    return out;
}

exec::RunnerCounters GpuRunner::counters() const {
    exec::RunnerCounters c;
    c.steps = double(steps_);
    c.graph_replays = double(replays_);
    c.graph_nodes = double(last_graph_nodes_);
    c.eager_launches_last = double(last_eager_launches_);
    c.vram_used = double(vram_->used());
    c.vram_peak = double(vram_->peak());
    c.vram_weights = double(vram_->used(VramUse::weights));
    c.vram_kv = double(vram_->used(VramUse::kv));
    c.vram_scratch = double(vram_->used(VramUse::scratch));
    c.vram_experts = double(vram_->used(VramUse::experts));
    c.vram_cublas = double(vram_->used(VramUse::cublas));
    c.vram_budget = double(vram_->budget());
    c.d2h_bytes = double(d2h_bytes_);
    c.weight_bytes_per_token = double(decode_weight_bytes_);
    if (!offload_) return c;
    c.expert_cache = true;
    // Per layer (the dashboards' per-layer hit rates), then totals: one read of the GPU counters.
    const auto layers = offload_->layer_stats();
    c.layers.resize(layers.size());
    for (std::size_t il = 0; il < layers.size(); ++il) {
        auto& l = c.layers[il];
        l.hits = double(layers[il].hits);
        l.misses = double(layers[il].misses);
        l.fetched = double(layers[il].fetched);
        l.cpu = double(layers[il].cpu);
        l.active = layers[il].calls > 0;
        c.expert_hits += l.hits;
        c.expert_misses += l.misses;
        c.expert_fetched += l.fetched;
        c.expert_cpu += l.cpu;
    }
    // The q* search's windows (fraction, tokens/s, decode seconds of its search, which search) and closing duel.
    for (const auto& w : offload_->fraction_search_history()) c.search_history.push_back({w.q, w.rate, w.at_s, w.search});
    const auto duel = offload_->fraction_search_duel();
    if (!duel.center_rate.empty()) {
        double all = 0, center = 0;
        for (std::size_t i = 0; i < duel.center_rate.size(); ++i) {
            all += duel.all_rate[i];
            center += duel.center_rate[i];
        }
        const double n = double(duel.center_rate.size());
        c.duel = {true, duel.center, all / n, center / n, duel.center_won};
    }
    const std::uint64_t admitted = offload_->admitted();
    const auto cpu_side = offload_->cpu_side_times();
    c.expert_admitted = double(admitted);
    c.fetch_h2d_bytes = (c.expert_fetched + double(admitted)) * double(offload_->expert_bytes()) + retired_fetch_bytes_;
    c.prefill_h2d_bytes = double(offload_->prefill_h2d_bytes()) + retired_prefill_bytes_;
    c.h2d_bytes = c.fetch_h2d_bytes + c.prefill_h2d_bytes;
    c.hybrid_fraction = backend_ == MoeBackend::hybrid ? offload_->fraction() : 0.0;
    c.live_fetch_gbps = offload_->live_fetch_gbps();
    c.live_cpu_gbps = offload_->live_cpu_gbps();
    c.hybrid_searching = offload_->fraction_searching();
    c.hybrid_search_seconds = offload_->fraction_search_seconds();
    c.hybrid_search_windows = double(offload_->fraction_search_windows());
    c.expert_slots = double(offload_->n_slots());
    c.expert_cache_warmed = double(warmed_);
    c.expert_slot_bytes = double(offload_->slot_bytes());
    c.expert_cache_restores = double(offload_->restores().count);
    c.expert_cache_restored = double(offload_->restores().experts);
    c.expert_cache_restore_seconds = offload_->restores().seconds;
    c.cpu_expert_bytes = double(offload_->cpu_expert_bytes());
    c.cpu_layers_served = double(cpu_side.layers);
    c.cpu_busy_ns = double(cpu_side.busy_ns);
    c.cpu_executor_ns = double(cpu_side.executor_ns);
    c.cpu_gap_ns = double(cpu_side.gap_ns);
    c.cpu_gaps = double(cpu_side.gaps);
    c.gpu_handoff_answer_ns = double(cpu_side.gpu_answer_ns);
    c.gpu_handoff_answers = double(cpu_side.gpu_answers);
    c.gpu_handoff_chain_ns = double(cpu_side.gpu_chain_ns);
    c.gpu_handoff_chains = double(cpu_side.gpu_chains);
    c.host_pinned_bytes = double(offload_->host_pinned_bytes());
    c.host_store_bytes = double(offload_->host_store_bytes());
    c.host_bounced = double(offload_->bounced());
    c.host_bounce_bytes = double(offload_->bounce_bytes());
    return c;
}

}  // namespace

std::unique_ptr<Runner> make_gpu_runner(const ModelGraph& graph, const Weights& weights, const GpuRunnerOptions& options) {
    return std::make_unique<GpuRunner>(graph, weights, options);
}

}  // namespace ft::exec
