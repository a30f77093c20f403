// Qwen3-MoE forward pass on the GPU: the same layer structure as qwen3_moe_cpu.cpp, built from the kernels/cuda
// launchers. Non-expert weights always live in VRAM; the routed experts too with the resident backend, else in host
// memory behind the expert cache of ExpertOffload (offload / cpu / hybrid / static), which the MoE step calls.
//
// Two ways through a forward pass:
//  - decode (every token of the batch is the next token of a different sequence, all want logits, batch ≤
//    max_sequences): the whole step — embedding, 48 layers, final norm, LM head — is captured once per batch size
//    as a CUDA graph and replayed. Everything the step reads that changes between steps (token ids, positions,
//    page tables) lives at fixed device addresses, filled by one copy before the replay.
//  - eager (prompt chunks, mixed batches, teacher-forced logits): the same kernels launched directly; attention
//    runs per sequence segment with the flash-style prefill kernel, the MoE groups tokens by expert and multiplies
//    each expert's rows with cuBLAS (offload backends stream each layer's experts in first).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <vector>

#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

#include "cuda/attention.cuh"
#include "cuda/dequant.cuh"
#include "cuda/expert_offload.h"
#include "cuda/gemv.cuh"
#include "cuda/gpu_runtime.h"
#include "cuda/ops.cuh"
#include "cuda/rms_norm.cuh"
#include "ft/error.h"
#include "ft/gpu.h"
#include "model/cpu_ops.h"
#include "model/layer_params.h"
#include "model/runner.h"

namespace ft::model {

namespace {

namespace kc = kernels::cuda;
using gpu::check;
using gpu::DeviceMatrix;
using gpu::VramUse;
using Clock = std::chrono::steady_clock;

// The MoE of one decode step uses the grouped expert kernels up to this many tokens; larger batches group tokens
// by expert and run a matrix product per expert.
constexpr std::int64_t kGroupedMaxTokens = kc::kGemvMaxM;

struct ExpertSet {
    kc::ExpertMatrix gate, up, down;
};

struct Layer {
    DeviceMatrix q, k, v, o, router, ffn_gate, ffn_up, ffn_down;
    DeviceMatrix qkv;  // q, k and v stacked (one GEMV) when they share a type; else empty and q/k/v run separately
    const float* attn_norm = nullptr;
    const float* ffn_norm = nullptr;
    const float* q_norm = nullptr;
    const float* k_norm = nullptr;
    bool moe = false;
    int index = 0;
    ExpertSet experts;  // resident backend only
};

class Qwen3MoeGpu final : public Runner {
public:
    Qwen3MoeGpu(const Weights& w, const GpuRunnerOptions& o) : w_(w), d_(w.desc()), opt_(o) {
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

        n_embd_ = d_.n_embd;
        n_head_ = int(d_.attn.n_head);
        n_head_kv_ = int(d_.attn.n_head_kv);
        head_dim_ = int(d_.attn.head_dim);
        v_head_dim_ = int(d_.attn.v_head_dim ? d_.attn.v_head_dim : d_.attn.head_dim);
        n_vocab_ = d_.n_vocab;
        eps_ = float(d_.norm_eps);
        rope_ = rope_params(d_);
        route_ = router_params(d_);
        if (!(d_.moe.n_expert_used > 0 && route_.k <= 32 && route_.n_expert <= 1024))
            throw Error(ErrorCode::unsupported, "GPU router: at most 1024 experts and top-32");
        if (head_dim_ % 16 || v_head_dim_ % 16 || head_dim_ > 256 || v_head_dim_ > 256)
            throw Error(ErrorCode::unsupported, fmt::format("GPU attention needs head sizes that are multiples of 16 up to 256 "
                                                            "(this model: {} / {})", head_dim_, v_head_dim_),
                        "use --device cpu");
        max_t_ = std::max<std::int64_t>(o.max_batch_tokens, o.max_sequences);
        backend_ = o.moe;
        if (backend_ == MoeBackend::automatic)
            throw Error(ErrorCode::internal, "GPU runner: the plan must resolve the MoE backend");
        upload_weights();
        allocate_scratch();
        allocate_cache_structures();
    }

    ~Qwen3MoeGpu() override {
        if (stream_) cudaStreamSynchronize(stream_);
        for (auto& [b, g] : graphs_) cudaGraphExecDestroy(g);
        for (cudaEvent_t e : events_) cudaEventDestroy(e);
        if (blocking_) cudaEventDestroy(blocking_);
        if (pinned_meta_) cudaFreeHost(pinned_meta_);
        if (pinned_logits_) cudaFreeHost(pinned_logits_);
        linear_.reset();
        offload_.reset();
        if (stream_) cudaStreamDestroy(stream_);
    }

    kv::KvGeometry kv_geometry(int page_size, std::int64_t n_pages) const override {
        kv::KvGeometry g;
        g.n_layer = int(d_.n_layer);
        g.n_head_kv = n_head_kv_;
        g.head_dim = head_dim_;
        g.v_head_dim = v_head_dim_;
        g.page_size = page_size;
        g.n_pages = n_pages;
        g.elem_bytes = opt_.kv_f16 ? 2 : 4;
        return g;
    }

    std::unique_ptr<kv::KvCache> make_kv_cache(int page_size, std::int64_t n_pages) override {
        if (page_size != page_size_)
            throw Error(ErrorCode::internal, fmt::format("GPU KV cache: page size {} (planned {})", page_size, page_size_));
        auto alloc = [this](std::size_t bytes) { return vram_->alloc(bytes, VramUse::kv, "the KV cache"); };
        auto kv = std::make_unique<kv::KvCache>(kv_geometry(page_size, n_pages), alloc);
        spdlog::info("GPU memory on {}: {} (peak {:.2f} GiB of a {:.2f} GiB budget)", gpu_name_, vram_->summary(),
                     double(vram_->peak()) / double(1ull << 30), double(vram_->budget()) / double(1ull << 30));
        return kv;
    }

    // Page tables, the decode attention workspace, the batch staging and the expert cache: sized by the plan.
    void allocate_cache_structures() {
        page_size_ = opt_.plan.kv_page_size > 0 ? opt_.plan.kv_page_size : 16;
        pages_stride_ = int((opt_.n_ctx + page_size_ - 1) / page_size_);
        d_pages_ = vram_->alloc_as<std::int32_t>(std::size_t(opt_.max_sequences + 1) * std::size_t(pages_stride_) + 1,
                                                 VramUse::scratch, "page tables");
        // Pinned staging of the batch: 4 arrays of max_t ints, then the page tables.
        const std::size_t meta_ints = std::size_t(4 * max_t_) + std::size_t(opt_.max_sequences + 1) * std::size_t(pages_stride_);
        check(cudaMallocHost(reinterpret_cast<void**>(&pinned_meta_), meta_ints * sizeof(std::int32_t)), "pinned metadata");
        attn_ws_ = vram_->alloc(
            kc::attention_decode_workspace(attention_params(), opt_.max_sequences, opt_.n_ctx), VramUse::scratch,
            "decode attention workspace");
        if (backend_ != MoeBackend::resident) make_offload(opt_.plan.expert_slots);
    }

    void make_offload(int slots) {
        gpu::OffloadOptions oo;
        oo.backend = backend_ == MoeBackend::offload ? gpu::OffloadBackend::offload
                     : backend_ == MoeBackend::cpu    ? gpu::OffloadBackend::cpu
                     : backend_ == MoeBackend::static_layers ? gpu::OffloadBackend::static_layers
                                                             : gpu::OffloadBackend::hybrid;
        oo.cache_bytes = std::uint64_t(slots) * opt_.plan.expert_slot_bytes;
        double frac = opt_.hybrid_fraction;
        if (frac < 0) {
            frac = 0.5;
            if (oo.backend == gpu::OffloadBackend::hybrid)
                spdlog::info("hybrid: no bandwidth fraction measured: using 0.5 (run `ft bench bw` to measure it)");
        }
        oo.frac_q16 = std::uint32_t(std::lround(std::clamp(frac, 0.0, 1.0) * 65536.0));
        oo.max_fetch = opt_.max_fetch;
        oo.threads = opt_.cpu_threads;
        oo.max_tokens = int(kGroupedMaxTokens);
        oo.slots = slots;
        oo.admit_per_layer = opt_.hybrid_admit;
        oo.recalibrate = opt_.recalibrate_fraction;
        oo.pin_budget = opt_.pin_budget;
        offload_ = std::make_unique<gpu::ExpertOffload>(w_, *vram_, stream_, oo);
        if (oo.backend != gpu::OffloadBackend::offload && !blocking_)
            check(cudaEventCreateWithFlags(&blocking_, cudaEventBlockingSync | cudaEventDisableTiming), "cudaEventCreate");
    }

    void resize_expert_cache(int slots) override {
        if (!offload_) throw Error(ErrorCode::unsupported, "this backend has no expert cache to resize");
        check(cudaSetDevice(opt_.device), "cudaSetDevice");
        sync("before resizing the expert cache");
        for (auto& [b, g] : graphs_) cudaGraphExecDestroy(g);
        graphs_.clear();
        const std::vector<std::int32_t> hot = offload_->hottest();  // most recently used first
        {
            // Keep the totals of the cache that goes away (the counters are cumulative since load).
            std::uint64_t fetched = 0;
            for (const auto& l : offload_->layer_stats()) fetched += l.fetched;
            retired_fetch_bytes_ += double(fetched + offload_->admitted()) * double(offload_->expert_bytes());
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

    void kv_copy(void* dst, const void* src, std::size_t bytes) override {
        check(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault), "KV cache copy");
    }

    // ≤ 64 tokens left: 8-token passes through the cache (8 passes ≈ 8 decode steps, ~0.1 s on the H200 at 8 GiB)
    // instead of streaming the whole expert pool once (16 GB: 0.37 s at 44 GB/s, over a second on a laptop's link).
    int prefill_slice(std::int64_t remaining) const override {
        if (!offload_ || offload_->backend() == gpu::OffloadBackend::static_layers) return 0;
        return remaining <= 8 * kGroupedMaxTokens ? int(kGroupedMaxTokens) : 0;
    }

    void invalidate_graphs() override {
        for (auto& [b, g] : graphs_) cudaGraphExecDestroy(g);
        graphs_.clear();
        graph_kv_ = nullptr;
    }

    std::string device_name() const override {
        return gpu_name_ + " (" + moe_backend_name(backend_) + (offload_ ? ", " + std::to_string(offload_->n_slots()) + " expert slots" : std::string()) + ")";
    }

    std::vector<std::pair<std::string, double>> counters() const override {
        std::vector<std::pair<std::string, double>> c = base_counters();
        if (offload_) {
            // Per layer (the dashboards' per-layer hit rates), then totals: one read of the GPU counters.
            const auto layers = offload_->layer_stats();
            std::uint64_t hits = 0, misses = 0, fetched = 0, cpu = 0;
            for (std::size_t il = 0; il < layers.size(); ++il) {
                hits += layers[il].hits;
                misses += layers[il].misses;
                fetched += layers[il].fetched;
                cpu += layers[il].cpu;
                if (layers[il].calls == 0) continue;
                const std::string n = "layer" + std::to_string(il) + "_";
                c.insert(c.end(), {{n + "hits", double(layers[il].hits)},
                                   {n + "misses", double(layers[il].misses)},
                                   {n + "fetched", double(layers[il].fetched)},
                                   {n + "cpu", double(layers[il].cpu)}});
            }
            const std::uint64_t admitted = offload_->admitted();
            const double fetch_h2d = double(fetched + admitted) * double(offload_->expert_bytes()) + retired_fetch_bytes_;
            const double prefill_h2d = double(offload_->prefill_h2d_bytes()) + retired_prefill_bytes_;
            const double h2d = prefill_h2d + fetch_h2d;
            c.insert(c.end(), {{"fetch_h2d_bytes", fetch_h2d}, {"prefill_h2d_bytes", prefill_h2d},
                               {"hybrid_fraction", backend_ == MoeBackend::hybrid ? current_fraction() : 0.0},
                               {"live_fetch_gbps", offload_->live_fetch_gbps()},
                               {"live_cpu_gbps", offload_->live_cpu_gbps()}});
            c.insert(c.end(), {{"expert_slots", double(offload_->n_slots())},
                               {"expert_slot_bytes", double(offload_->slot_bytes())},
                               {"expert_hits", double(hits)},
                               {"expert_misses", double(misses)},
                               {"expert_fetched", double(fetched)},
                               {"expert_cpu", double(cpu)},
                               {"h2d_bytes", h2d},
                               {"expert_admitted", double(admitted)},
                               {"cpu_expert_bytes", double(offload_->cpu_expert_bytes())},
                               {"host_pinned_bytes", double(offload_->host_pinned_bytes())},
                               {"host_store_bytes", double(offload_->host_store_bytes())},
                               {"host_bounced", double(offload_->bounced())},
                               {"host_bounce_bytes", double(offload_->bounce_bytes())}});
        }
        return c;
    }

    std::vector<std::pair<std::string, double>> base_counters() const {
        return {{"steps", double(steps_)},
                {"graph_replays", double(replays_)},
                {"graph_nodes", double(last_graph_nodes_)},
                {"eager_launches_last", double(last_eager_launches_)},
                {"vram_used_bytes", double(vram_->used())},
                {"vram_peak_bytes", double(vram_->peak())},
                {"vram_weights_bytes", double(vram_->used(VramUse::weights))},
                {"vram_kv_bytes", double(vram_->used(VramUse::kv))},
                {"vram_scratch_bytes", double(vram_->used(VramUse::scratch))},
                {"vram_experts_bytes", double(vram_->used(VramUse::experts))},
                {"vram_cublas_bytes", double(vram_->used(VramUse::cublas))},
                {"vram_budget_bytes", double(vram_->budget())},
                {"d2h_bytes", double(d2h_bytes_)},
                {"weight_bytes_per_token", double(decode_weight_bytes_)}};
    }

    void forward(std::span<const BatchToken> batch, kv::KvCache& kv, float* logits) override {
        const std::int64_t T = std::int64_t(batch.size());
        if (T == 0) return;
        check(cudaSetDevice(opt_.device), "cudaSetDevice");
        const bool decode = prepare(batch, kv);
        ++steps_;
        if (decode) {
            if (opt_.graphs) {
                cudaGraphExec_t g = graph_for(T);
                check(cudaGraphLaunch(g, stream_), "cudaGraphLaunch");
                ++replays_;
            } else {
                run_step(batch, T, true);
            }
            read_logits(logits, 0, T);
            if (opt_.record_routing) {
                const std::size_t n = std::size_t(d_.n_layer) * std::size_t(T) * std::size_t(route_.k);
                const std::size_t half = std::size_t(d_.n_layer) * std::size_t(opt_.max_sequences) * std::size_t(route_.k);
                check(cudaMemcpyAsync(host_routing_.data(), d_routing_.get() + half, n * 4, cudaMemcpyDeviceToHost, stream_),
                      "read routing");
                sync("read routing");
                opt_.record_routing->record(int(T), std::span<const std::int32_t>(host_routing_.data(), n));
            }
        } else {
            const std::uint64_t l0 = launches_ + linear_->launches();
            run_step(batch, T, false);
            // LM head over the rows that want logits, in tiles that fit the logits buffer.
            const std::int64_t n = n_logit_rows_;
            for (std::int64_t r0 = 0; r0 < n; r0 += logit_tile_) {
                const std::int64_t m = std::min(logit_tile_, n - r0);
                lm_head(d_meta_.get() + 3 * max_t_ + r0, m);
                read_logits(logits + r0 * std::int64_t(n_vocab_), 0, m);
            }
            last_eager_launches_ = launches_ + linear_->launches() - l0;
        }
        sync("GPU forward");
        if (offload_) {
            offload_->check_health();
            offload_->after_step(decode);
        }
        kv_ = nullptr;
    }

    std::vector<std::pair<std::string, double>> profile_step(std::span<const BatchToken> batch, kv::KvCache& kv) override {
        const std::int64_t T = std::int64_t(batch.size());
        if (T == 0 || !prepare(batch, kv)) return {};
        // The decode step captured with timing events between phases (event-record nodes in the graph).
        profiling_ = true;
        marks_.clear();
        cudaGraph_t graph = nullptr;
        cudaGraphExec_t exec = nullptr;
        std::vector<std::pair<std::string, double>> out;
        try {
            check(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal), "begin graph capture");
            try {
                mark("");
                run_step(batch, T, true);
            } catch (...) {
                cudaStreamEndCapture(stream_, &graph);
                throw;
            }
            check(cudaStreamEndCapture(stream_, &graph), "end graph capture");
            check(cudaGraphInstantiate(&exec, graph, 0), "instantiate the profiling graph");
            // One timed replay (a second would see the first one's cache fills as hits); uploaded first so the
            // launch does not include setting the graph up on the device.
            check(cudaGraphUpload(exec, stream_), "upload the profiling graph");
            check(cudaGraphLaunch(exec, stream_), "profiling graph");
            check(cudaStreamSynchronize(stream_), "profiling graph");
            std::map<std::string, double> ms;
            std::vector<std::string> order;
            for (std::size_t i = 1; i < marks_.size(); ++i) {
                float t = 0;
                check(cudaEventElapsedTime(&t, marks_[i - 1].second, marks_[i].second), "event time");
                if (!ms.count(marks_[i].first)) order.push_back(marks_[i].first);
                ms[marks_[i].first] += double(t);
            }
            double total = 0;
            for (const auto& n : order) {
                out.emplace_back(n, ms[n]);
                total += ms[n];
            }
            out.emplace_back("total", total);
        } catch (...) {
            profiling_ = false;
            if (exec) cudaGraphExecDestroy(exec);
            if (graph) cudaGraphDestroy(graph);
            throw;
        }
        profiling_ = false;
        cudaGraphExecDestroy(exec);
        cudaGraphDestroy(graph);
        kv_ = nullptr;
        return out;
    }

private:
    // Uploads the batch's metadata and page tables; returns whether it is a decode step (one token of each of up to
    // max_sequences different sequences, all wanting logits).
    bool prepare(std::span<const BatchToken> batch, kv::KvCache& kv) {
        const std::int64_t T = std::int64_t(batch.size());
        if (T > max_t_) throw Error(ErrorCode::internal, fmt::format("GPU forward: {} tokens over the batch limit {}", T, max_t_));
        if (!d_pages_) throw Error(ErrorCode::internal, "GPU forward before the KV cache was made");
        if (&kv != graph_kv_) {  // graphs bake the cache's addresses in
            for (auto& [b, g] : graphs_) cudaGraphExecDestroy(g);
            graphs_.clear();
            graph_kv_ = &kv;
        }
        kv_ = &kv;
        // Per-token metadata and the page tables of the sequences in the batch, packed for one upload.
        seq_ids_.clear();  // page-table row → KV sequence id
        std::vector<std::int32_t> logit_rows;
        bool distinct = true;
        std::int32_t* meta = pinned_meta_;
        for (std::int64_t t = 0; t < T; ++t) {
            const BatchToken& b = batch[std::size_t(t)];
            if (b.token < 0 || std::uint32_t(b.token) >= n_vocab_)
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
            meta[t] = b.token;
            meta[max_t_ + t] = b.pos;
            meta[2 * max_t_ + t] = std::int32_t(it - seq_ids_.begin());
            if (b.logits) {
                meta[3 * max_t_ + std::int64_t(logit_rows.size())] = std::int32_t(t);
                logit_rows.push_back(std::int32_t(t));
            }
        }
        const int n_rows = int(seq_ids_.size());
        std::int32_t* pages = meta + 4 * max_t_;
        for (int r = 0; r < n_rows; ++r) {
            const auto& pt = kv.page_table(seq_ids_[std::size_t(r)]);
            if (std::int64_t(pt.size()) > pages_stride_)
                throw Error(ErrorCode::internal, "GPU forward: a sequence has more KV pages than the context allows");
            std::copy(pt.begin(), pt.end(), pages + std::ptrdiff_t(r) * pages_stride_);
            std::fill(pages + std::ptrdiff_t(r) * pages_stride_ + std::ptrdiff_t(pt.size()),
                      pages + std::ptrdiff_t(r + 1) * pages_stride_, 0);
        }
        check(cudaMemcpyAsync(d_meta_.get(), meta, std::size_t(4 * max_t_) * sizeof(std::int32_t), cudaMemcpyHostToDevice,
                              stream_),
              "upload batch");
        check(cudaMemcpyAsync(d_pages_.get(), pages, std::size_t(n_rows) * std::size_t(pages_stride_) * sizeof(std::int32_t),
                              cudaMemcpyHostToDevice, stream_),
              "upload page tables");

        n_logit_rows_ = std::int64_t(logit_rows.size());
        const bool decode = distinct && T <= opt_.max_sequences && n_logit_rows_ == T;
        if (decode && opt_.routing) {
            const std::size_t n = std::size_t(d_.n_layer) * std::size_t(T) * std::size_t(route_.k);
            opt_.routing->next_step(int(T), std::span(host_routing_.data(), n));
            check(cudaMemcpyAsync(d_routing_.get(), host_routing_.data(), n * sizeof(std::int32_t), cudaMemcpyHostToDevice,
                                  stream_),
                  "upload routing");
        }
        return decode;
    }

    kernels::AttentionParams attention_params() const {
        kernels::AttentionParams ap;
        ap.n_head = n_head_;
        ap.n_head_kv = n_head_kv_;
        ap.head_dim = head_dim_;
        ap.v_head_dim = v_head_dim_;
        ap.page_size = page_size_;
        ap.scale = 1.f / std::sqrt(float(head_dim_));
        return ap;
    }

    // ---- loading ----

    std::shared_ptr<void> upload(const TensorView& t, const std::string& what) {
        auto p = vram_->alloc(t.bytes(), VramUse::weights, what);
        uploader_->copy(p.get(), t.data, t.bytes());
        keep_.push_back(p);
        uploaded();
        return p;
    }
    // Load progress and cancellation between uploads.
    void uploaded() {
        if (opt_.cancel && opt_.cancel->load()) throw Error(ErrorCode::cancelled, "the load was cancelled");
        if (!opt_.on_upload) return;
        const auto now = Clock::now();
        if (now - last_progress_ < std::chrono::milliseconds(100)) return;
        last_progress_ = now;
        opt_.on_upload(uploader_->bytes(), opt_.plan.weights);
    }
    DeviceMatrix matrix(const TensorView& t, const std::string& name) {
        DeviceMatrix m;
        m.type = t.type;
        m.data = upload(t, name).get();
        m.row_bytes = t.row_bytes;
        m.rows = t.rows;
        m.cols = t.cols;
        if (!kc::gemv_supported(t.type))
            throw Error(ErrorCode::unsupported,
                        fmt::format("{}: tensor {} is {}, which the GPU kernels do not read yet", w_.path().string(), name,
                                    kernels::dtype_info(t.type).name),
                        "use --device cpu, or a file quantized as F32/F16/BF16/Q8_0/Q4_K/Q5_K/Q6_K");
        return m;
    }
    const float* vector(const TensorView& t, const std::string& name) {
        const std::vector<float> f = vector_f32(t);
        auto p = vram_->alloc(f.size() * sizeof(float), VramUse::weights, name);
        check(cudaMemcpy(p.get(), f.data(), f.size() * sizeof(float), cudaMemcpyHostToDevice), "upload");
        keep_.push_back(p);
        return static_cast<const float*>(p.get());
    }

    void upload_weights() {
        const auto t0 = Clock::now();
        uploader_ = std::make_unique<gpu::Uploader>(stream_);
        const TensorView& embd = w_.get("token_embd.weight");
        embd_ = matrix(embd, "token_embd.weight");
        out_norm_ = vector(w_.get("output_norm.weight"), "output_norm.weight");
        const TensorView* out = w_.find("output.weight");
        output_ = out ? matrix(*out, "output.weight") : embd_;
        layers_.resize(d_.n_layer);
        for (int il = 0; il < int(d_.n_layer); ++il) {
            Layer& L = layers_[std::size_t(il)];
            L.index = il;
            auto name = [il](const char* s) { return "blk." + std::to_string(il) + "." + s; };
            L.attn_norm = vector(w_.layer(il, "attn_norm.weight"), name("attn_norm.weight"));
            L.ffn_norm = vector(w_.layer(il, "ffn_norm.weight"), name("ffn_norm.weight"));
            if (const TensorView* t = w_.find_layer(il, "attn_q_norm.weight")) L.q_norm = vector(*t, name("attn_q_norm.weight"));
            if (const TensorView* t = w_.find_layer(il, "attn_k_norm.weight")) L.k_norm = vector(*t, name("attn_k_norm.weight"));
            {
                const TensorView& tq = w_.layer(il, "attn_q.weight");
                const TensorView& tk = w_.layer(il, "attn_k.weight");
                const TensorView& tv = w_.layer(il, "attn_v.weight");
                if (tq.type == tk.type && tk.type == tv.type && tq.cols == tk.cols && tk.cols == tv.cols &&
                    kc::gemv_supported(tq.type)) {
                    // One matrix of q, k, v rows: a single GEMV / GEMM writes the packed [q | k | v] row per token.
                    auto p = vram_->alloc(tq.bytes() + tk.bytes() + tv.bytes(), VramUse::weights, name("attn_qkv"));
                    keep_.push_back(p);
                    auto* d = static_cast<std::uint8_t*>(p.get());
                    uploader_->copy(d, tq.data, tq.bytes());
                    uploader_->copy(d + tq.bytes(), tk.data, tk.bytes());
                    uploader_->copy(d + tq.bytes() + tk.bytes(), tv.data, tv.bytes());
                    uploaded();
                    L.qkv = {tq.type, d, tq.row_bytes, tq.rows + tk.rows + tv.rows, tq.cols};
                    L.q = {tq.type, d, tq.row_bytes, tq.rows, tq.cols};
                    L.k = {tk.type, d + tq.bytes(), tk.row_bytes, tk.rows, tk.cols};
                    L.v = {tv.type, d + tq.bytes() + tk.bytes(), tv.row_bytes, tv.rows, tv.cols};
                } else {
                    L.q = matrix(tq, name("attn_q.weight"));
                    L.k = matrix(tk, name("attn_k.weight"));
                    L.v = matrix(tv, name("attn_v.weight"));
                }
            }
            L.o = matrix(w_.layer(il, "attn_output.weight"), name("attn_output.weight"));
            decode_weight_bytes_ += L.q.row_bytes * std::size_t(L.q.rows) + L.k.row_bytes * std::size_t(L.k.rows) +
                                    L.v.row_bytes * std::size_t(L.v.rows) + L.o.row_bytes * std::size_t(L.o.rows);
            L.moe = d_.layer_is_moe(std::uint32_t(il)) && w_.layer_has_experts(il);
            if (L.moe) {
                L.router = matrix(w_.layer(il, "ffn_gate_inp.weight"), name("ffn_gate_inp.weight"));
                decode_weight_bytes_ += L.router.row_bytes * std::size_t(L.router.rows);
                if (backend_ != MoeBackend::resident) continue;  // experts stay in host memory (ExpertOffload)
                // The experts of a layer, packed [n_expert, rows, cols] per matrix (GGUF stores them so already;
                // safetensors keeps one tensor per expert).
                auto stack = [&](auto get, const char* what) {
                    const TensorView& e0 = get(w_.expert(il, 0));
                    const std::size_t one = e0.bytes();
                    auto p = vram_->alloc(one * d_.moe.n_expert, VramUse::weights, name(what));
                    keep_.push_back(p);
                    for (std::uint32_t e = 0; e < d_.moe.n_expert; ++e) {
                        const TensorView& t = get(w_.expert(il, int(e)));
                        uploader_->copy(static_cast<std::uint8_t*>(p.get()) + e * one, t.data, one);
                    }
                    uploaded();
                    if (!kc::gemv_supported(e0.type))
                        throw Error(ErrorCode::unsupported,
                                    fmt::format("{}: {} is {}, which the GPU kernels do not read yet", w_.path().string(),
                                                name(what), kernels::dtype_info(e0.type).name),
                                    "use --device cpu");
                    kc::ExpertMatrix m;
                    m.type = e0.type;
                    m.base = p.get();
                    m.slot_stride = one;
                    m.row_bytes = e0.row_bytes;
                    m.rows = e0.rows;
                    m.k = e0.cols;
                    return m;
                };
                L.experts.gate = stack([](const ExpertView& v) -> const TensorView& { return v.gate; }, "ffn_gate_exps.weight");
                L.experts.up = stack([](const ExpertView& v) -> const TensorView& { return v.up; }, "ffn_up_exps.weight");
                L.experts.down = stack([](const ExpertView& v) -> const TensorView& { return v.down; }, "ffn_down_exps.weight");
                decode_weight_bytes_ += std::size_t(route_.k) * (L.experts.gate.slot_stride + L.experts.up.slot_stride +
                                                                  L.experts.down.slot_stride);
            } else {
                L.ffn_gate = matrix(w_.layer(il, "ffn_gate.weight"), name("ffn_gate.weight"));
                L.ffn_up = matrix(w_.layer(il, "ffn_up.weight"), name("ffn_up.weight"));
                L.ffn_down = matrix(w_.layer(il, "ffn_down.weight"), name("ffn_down.weight"));
                decode_weight_bytes_ += L.ffn_gate.row_bytes * std::size_t(L.ffn_gate.rows) +
                                        L.ffn_up.row_bytes * std::size_t(L.ffn_up.rows) +
                                        L.ffn_down.row_bytes * std::size_t(L.ffn_down.rows);
            }
        }
        decode_weight_bytes_ += output_.row_bytes * std::size_t(output_.rows) + embd_.row_bytes;
        uploader_->finish();
        if (opt_.on_upload) opt_.on_upload(uploader_->bytes(), uploader_->bytes());
        const double s = std::chrono::duration<double>(Clock::now() - t0).count();
        spdlog::info("uploaded {:.2f} GiB of weights to {} in {:.2f} s ({:.1f} GB/s)",
                     double(uploader_->bytes()) / double(1ull << 30), gpu_name_, s, double(uploader_->bytes()) / s / 1e9);
        uploader_.reset();
    }

    void allocate_scratch() {
        const std::int64_t T = max_t_, E = n_embd_;
        const std::int64_t qd = std::int64_t(n_head_) * head_dim_, kd = std::int64_t(n_head_kv_) * head_dim_,
                           vd = std::int64_t(n_head_kv_) * v_head_dim_, ad = std::int64_t(n_head_) * v_head_dim_;
        const std::int64_t K = route_.k, NE = route_.n_expert;
        // Expert rows are [T·k, n_ff_exp]; a dense layer's (if the model has any) [T, n_ff] shares the buffers.
        bool any_dense = false;
        for (const Layer& L : layers_) any_dense |= !L.moe;
        const std::int64_t F = d_.moe.n_ff_exp, FD = any_dense ? std::int64_t(d_.n_ff) : 0;
        auto f32 = [&](std::int64_t n, const char* what) {
            return vram_->alloc_as<float>(std::size_t(std::max<std::int64_t>(n, 1)), VramUse::scratch, what);
        };
        x_ = f32(T * E, "activations");
        xn_ = f32(T * E, "activations");
        qkv_ = f32(T * (qd + kd + vd), "attention scratch");
        att_ = f32(T * ad, "attention scratch");
        router_logits_ = f32(T * NE, "router scratch");
        route_w_ = f32(T * K, "router scratch");
        route_ids_ = vram_->alloc_as<std::int32_t>(std::size_t(T * K), VramUse::scratch, "router scratch");
        order_ = vram_->alloc_as<std::int32_t>(std::size_t(T * K), VramUse::scratch, "MoE scratch");
        where_ = vram_->alloc_as<std::int32_t>(std::size_t(T * K), VramUse::scratch, "MoE scratch");
        offsets_ = vram_->alloc_as<std::int32_t>(std::size_t(NE + 1), VramUse::scratch, "MoE scratch");
        xs_ = f32(T * K * E, "MoE scratch");
        ys_ = f32(T * K * E, "MoE scratch");
        g_ = f32(std::max(T * K * F, T * FD), "MoE scratch");
        u_ = f32(std::max(T * K * F, T * FD), "MoE scratch");
        logit_tile_ = std::max<std::int64_t>(opt_.max_sequences, 256);
        logits_ = f32(logit_tile_ * std::int64_t(n_vocab_), "logits");
        d_meta_ = vram_->alloc_as<std::int32_t>(std::size_t(4 * max_t_), VramUse::scratch, "batch metadata");
        if (opt_.routing || opt_.record_routing) {
            const std::size_t n = std::size_t(d_.n_layer) * std::size_t(opt_.max_sequences) * std::size_t(K);
            d_routing_ = vram_->alloc_as<std::int32_t>(2 * n, VramUse::scratch, "routing trace buffers");
            check(cudaMemset(d_routing_.get(), 0xff, 2 * n * sizeof(std::int32_t)), "routing buffers");
            host_routing_.resize(n);
        }
        const std::int64_t max_k = std::max({E, qd, ad, F, FD});
        if (max_t_ > kGroupedMaxTokens) {
            // Prefill MoE scratch: the gathered rows in the GEMM type (needed), and — resident BF16 only, when the
            // budget has room beside the KV cache — one layer's experts dequantized at once.
            const std::size_t el = opt_.gemm == GemmPrecision::bf16 ? 2 : 4;
            const std::size_t rows = std::size_t(T * K) * std::size_t(std::max<std::int64_t>(E, F)) * el;
            if (opt_.gemm == GemmPrecision::bf16) dense_rows_ = vram_->alloc(rows, VramUse::scratch, "prefill row scratch");
            else dense_rows_ = xs_;  // f32: the gathered rows are used as they are
            const std::size_t dense = std::size_t(NE) * std::size_t(d_.moe.n_ff_exp) * std::size_t(E) * 3 * el;
            if (backend_ == MoeBackend::resident && opt_.gemm == GemmPrecision::bf16 && opt_.plan.prefill_dense_experts)
                dense_experts_ = vram_->alloc(dense, VramUse::scratch, "dense expert scratch");
        }
        linear_ = std::make_unique<gpu::Linear>(*vram_, stream_, opt_.gemm, T * 1, max_k);
        check(cudaMallocHost(reinterpret_cast<void**>(&pinned_logits_),
                             std::size_t(logit_tile_) * std::size_t(n_vocab_) * sizeof(float)),
              "pinned logits");
    }

    // ---- the step ----

    // Profiling: a timing event at the end of a phase (recorded as a node when captured).
    void mark(const char* phase) {
        if (!profiling_) return;
        if (marks_.size() == events_.size()) {
            cudaEvent_t ev = nullptr;
            check(cudaEventCreate(&ev), "cudaEventCreate");
            events_.push_back(ev);
        }
        cudaEvent_t ev = events_[marks_.size()];
        check(cudaEventRecordWithFlags(ev, stream_, cudaEventRecordExternal), "record a timing event");
        marks_.emplace_back(phase, ev);
    }

    // Waits for the stream. With CPU expert workers running beside the GPU the waiting thread must not spin on a core
    // they need: it blocks on an event (cudaEventBlockingSync) instead.
    void sync(const char* what) {
        if (!blocking_) {
            check(cudaStreamSynchronize(stream_), what);
            return;
        }
        check(cudaEventRecord(blocking_, stream_), what);
        check(cudaEventSynchronize(blocking_), what);
    }

    void launched(cudaError_t e, const char* what) {
        check(e, what);
        ++launches_;
    }

    void linear(const DeviceMatrix& w, const float* x, std::int64_t m, float* y, bool accumulate = false) {
        linear_->run(w, x, m, w.cols, y, w.rows, accumulate);
    }

    // The layers for T tokens whose ids/positions/rows are in d_meta_ (decode: one token per page-table row,
    // attention through the split-K decode kernel; eager: per-segment prefill attention). Leaves x_ = the final
    // hidden states (before the output norm). In decode mode it also computes the logits of all T rows.
    void run_step(std::span<const BatchToken> batch, std::int64_t T, bool decode) {
        const std::int64_t E = n_embd_;
        const std::int64_t qd = std::int64_t(n_head_) * head_dim_, kd = std::int64_t(n_head_kv_) * head_dim_,
                           vd = std::int64_t(n_head_kv_) * v_head_dim_;
        const std::int32_t* d_tok = d_meta_.get();
        const std::int32_t* d_pos = d_meta_.get() + max_t_;
        const std::int32_t* d_row = d_meta_.get() + 2 * max_t_;
        launched(kc::embed_rows(embd_.type, embd_.data, embd_.row_bytes, E, d_tok, T, x_.get(), stream_), "embedding");
        mark("embedding");
        const kernels::AttentionParams ap = attention_params();
        kc::KvWriteParams kw;
        kw.n_head_kv = n_head_kv_;
        kw.head_dim = head_dim_;
        kw.v_head_dim = v_head_dim_;
        kw.page_size = page_size_;
        kw.page_tables = d_pages_.get();
        kw.pages_stride = pages_stride_;
        kw.type = opt_.kv_f16 ? kernels::DType::F16 : kernels::DType::F32;
        for (int il = 0; il < int(d_.n_layer); ++il) {
            const Layer& L = layers_[std::size_t(il)];
            launched(kc::rms_norm_f32(x_.get(), L.attn_norm, xn_.get(), T, E, eps_, stream_), "attn norm");
            // q, k, v packed per token in qkv_ [T, qd + kd + vd].
            const std::int64_t ld = qd + kd + vd;
            float* q = qkv_.get();
            float* k = q + qd;
            float* v = k + kd;
            if (L.qkv.data) {
                linear_->run(L.qkv, xn_.get(), T, E, q, ld, false);
            } else {
                linear_->run(L.q, xn_.get(), T, E, q, ld, false);
                linear_->run(L.k, xn_.get(), T, E, k, ld, false);
                linear_->run(L.v, xn_.get(), T, E, v, ld, false);
            }
            launched(kc::qk_norm_rope(rope_, q, ld, n_head_, k, ld, n_head_kv_, L.q_norm, L.k_norm, eps_, T, d_pos, stream_),
                     "q/k norm + rope");
            void* kc_ = kv_->k_data(il);
            void* vc_ = kv_->v_data(il);
            launched(kc::kv_write(kw, k, ld, v, ld, d_pos, d_row, T, kc_, vc_, stream_), "kv write");
            const kc::DevicePagedKv view{kc_, vc_, d_pages_.get(), pages_stride_, kw.type};
            if (decode) {
                mark("q/k/v + norms + rope + kv write");
                launched(kc::attention_decode(ap, q, ld, T, d_pos, d_row, opt_.n_ctx, view, att_.get(), attn_ws_.get(),
                                              stream_),
                         "decode attention");
            } else {
                for (std::int64_t s0 = 0; s0 < T;) {
                    std::int64_t s1 = s0 + 1;
                    while (s1 < T && batch[std::size_t(s1)].seq == batch[std::size_t(s0)].seq) ++s1;
                    const int row = pinned_meta_[2 * max_t_ + s0];
                    // Exact mode: f32 attention; else tensor cores (f16 operands, f32 softmax and sums).
                    const auto attend = opt_.gemm == GemmPrecision::f32 ? kc::attention_prefill_exact : kc::attention_prefill;
                    launched(attend(ap, q + s0 * ld, ld, s1 - s0, batch[std::size_t(s0)].pos, row, view,
                                                   att_.get() + s0 * std::int64_t(n_head_) * v_head_dim_, stream_),
                             "prefill attention");
                    s0 = s1;
                }
            }
            mark("attention");
            linear(L.o, att_.get(), T, x_.get(), true);  // + residual
            mark("attention output");
            launched(kc::rms_norm_f32(x_.get(), L.ffn_norm, xn_.get(), T, E, eps_, stream_), "ffn norm");
            if (L.moe) moe(L, T, decode);
            else dense_ffn(L, T);
        }
        if (offload_) offload_->finish_step();  // background cache admissions of this step join and commit
        if (decode) {
            lm_head(nullptr, T);
            mark("output norm + LM head");
        }
    }

    void dense_ffn(const Layer& L, std::int64_t T) {
        const std::int64_t F = L.ffn_gate.rows;
        linear(L.ffn_gate, xn_.get(), T, g_.get());
        linear(L.ffn_up, xn_.get(), T, u_.get());
        launched(kc::swiglu_f32(g_.get(), u_.get(), g_.get(), T * F, float(d_.swiglu_limit), stream_), "swiglu");
        linear(L.ffn_down, g_.get(), T, x_.get(), true);
    }

    void moe(const Layer& L, std::int64_t T, bool decode) {
        const std::int64_t E = n_embd_, K = route_.k;
        linear(L.router, xn_.get(), T, router_logits_.get());
        launched(kc::moe_route(route_, router_logits_.get(), T, route_ids_.get(), route_w_.get(), stream_), "router");
        if (decode && (opt_.routing || opt_.record_routing)) {
            // Replace the router's choice by the routing source's (its weights stay), and/or keep it for the trace.
            const std::size_t n = std::size_t(T * K), at = std::size_t(L.index) * n;
            const std::size_t half = std::size_t(d_.n_layer) * std::size_t(opt_.max_sequences) * std::size_t(K);
            if (opt_.routing)
                check(cudaMemcpyAsync(route_ids_.get(), d_routing_.get() + at, n * 4, cudaMemcpyDeviceToDevice, stream_), "routing");
            if (opt_.record_routing)
                check(cudaMemcpyAsync(d_routing_.get() + half + at, route_ids_.get(), n * 4, cudaMemcpyDeviceToDevice, stream_),
                      "record routing");
        }
        mark("ffn norm + router");
        const float limit = float(d_.swiglu_limit);
        if (offload_ && (decode || T <= kGroupedMaxTokens)) {
            offload_->decode(L.index, int(T), xn_.get(), route_ids_.get(), route_w_.get(), x_.get(), g_.get(), ys_.get(),
                             profiling_ ? std::function<void(const char*)>([this](const char* p) { mark(p); })
                                        : std::function<void(const char*)>());
            mark("experts: add CPU result");
            return;
        }
        if (decode || T <= kGroupedMaxTokens) {
            // Every (token, choice) pair through the grouped expert kernels.
            kc::ExpertGemvParams p;
            p.w = L.experts.gate;
            p.ids = route_ids_.get();
            p.n_pairs = int(T * K);
            p.x = xn_.get();
            p.ldx = E;
            p.x_div = int(K);
            p.y = g_.get();
            p.ldy = L.experts.gate.rows;
            launched(kc::expert_gate_up(p, L.experts.up, limit, stream_), "expert gate/up");
            mark("experts gate/up");
            kc::ExpertGemvParams dp;
            dp.w = L.experts.down;
            dp.ids = route_ids_.get();
            dp.n_pairs = int(T * K);
            dp.x = g_.get();
            dp.ldx = L.experts.gate.rows;
            dp.x_div = 1;
            dp.y = ys_.get();
            dp.ldy = E;
            launched(kc::expert_gemv(dp, stream_), "expert down");
            mark("experts down");
            launched(kc::moe_combine(ys_.get(), nullptr, route_w_.get(), T, int(K), E, x_.get(), true, stream_), "moe combine");
            mark("moe combine");
            return;
        }
        // Prefill: group pairs by expert, one matrix product per expert over its rows.
        ExpertSet ex = L.experts;
        if (offload_ && !offload_->prefill_layer(L.index, ex.gate, ex.up, ex.down)) {
            offload_->prefill_on_cpu(L.index, T, xn_.get(), x_.get());  // a static backend's CPU layer
            return;
        }
        const std::int64_t P = T * K;
        const int NE = route_.n_expert;
        launched(kc::moe_group(route_ids_.get(), P, NE, offsets_.get(), order_.get(), where_.get(), stream_), "moe group");
        host_offsets_.resize(std::size_t(NE + 1));
        check(cudaMemcpyAsync(host_offsets_.data(), offsets_.get(), std::size_t(NE + 1) * sizeof(std::int32_t),
                              cudaMemcpyDeviceToHost, stream_),
              "read expert offsets");
        launched(kc::gather_rows(xn_.get(), E, order_.get(), int(K), P, xs_.get(), stream_), "gather rows");
        sync("moe group");
        if (host_offsets_[std::size_t(NE)] != P)
            throw Error(ErrorCode::internal, fmt::format("MoE grouping counted {} of {} pairs", host_offsets_[std::size_t(NE)], P));
        moe_prefill_dense(ex, T, P);
        if (offload_) offload_->done_with(L.index);
    }

    // Prefill MoE with every expert of the layer dequantized to BF16 once (3 launches), the gathered rows converted
    // once, then one cuBLAS product per expert and matrix: ~3 launches per expert instead of ~9.
    void moe_prefill_dense(const ExpertSet& ex, std::int64_t T, std::int64_t P) {
        const std::int64_t E = n_embd_, K = route_.k, F = ex.gate.rows;
        const int NE = route_.n_expert;
        const kernels::DType dt = linear_->dense_type();
        const std::size_t el = dt == kernels::DType::BF16 ? 2 : 4;
        // Whole-layer dequantization when the scratch exists and the experts are packed back to back.
        const bool whole = dense_experts_ && ex.gate.slot_stride == std::size_t(F) * ex.gate.row_bytes &&
                           ex.up.slot_stride == std::size_t(F) * ex.up.row_bytes &&
                           ex.down.slot_stride == std::size_t(E) * ex.down.row_bytes;
        auto* wg = static_cast<std::uint8_t*>(dense_experts_.get());
        auto* wu = wg + std::size_t(NE) * std::size_t(F * E) * el;
        auto* wd = wu + std::size_t(NE) * std::size_t(F * E) * el;
        if (whole) {
            launched(kc::dequantize_rows(ex.gate.type, ex.gate.base, ex.gate.row_bytes, NE * F, E, dt, wg, stream_), "dequantize experts");
            launched(kc::dequantize_rows(ex.up.type, ex.up.base, ex.up.row_bytes, NE * F, E, dt, wu, stream_), "dequantize experts");
            launched(kc::dequantize_rows(ex.down.type, ex.down.base, ex.down.row_bytes, NE * E, F, dt, wd, stream_), "dequantize experts");
        }
        auto expert = [](const kc::ExpertMatrix& m, int e) {
            return DeviceMatrix{m.type, static_cast<const std::uint8_t*>(m.base) + std::size_t(e) * m.slot_stride, m.row_bytes, m.rows, m.k};
        };
        const void* xb = xs_.get();
        if (dt == kernels::DType::BF16) {
            launched(kc::convert_f32(xs_.get(), P * E, dt, dense_rows_.get(), stream_), "convert rows");
            xb = dense_rows_.get();
        }
        for (int e = 0; e < NE; ++e) {
            const std::int64_t r0 = host_offsets_[std::size_t(e)], n = host_offsets_[std::size_t(e) + 1] - r0;
            if (n == 0) continue;
            const auto* x0 = static_cast<const std::uint8_t*>(xb) + std::size_t(r0 * E) * el;
            const void* g = whole ? wg + std::size_t(e) * std::size_t(F * E) * el : linear_->dense_weights(expert(ex.gate, e));
            linear_->gemm_dense(dt, g, F, E, x0, E, n, g_.get() + r0 * F, F, false);
            const void* u = whole ? wu + std::size_t(e) * std::size_t(F * E) * el : linear_->dense_weights(expert(ex.up, e));
            linear_->gemm_dense(dt, u, F, E, x0, E, n, u_.get() + r0 * F, F, false);
        }
        launched(kc::swiglu_f32(g_.get(), u_.get(), g_.get(), P * F, float(d_.swiglu_limit), stream_), "swiglu");
        const void* hb = g_.get();
        if (dt == kernels::DType::BF16) {
            launched(kc::convert_f32(g_.get(), P * F, dt, dense_rows_.get(), stream_), "convert rows");
            hb = dense_rows_.get();
        }
        for (int e = 0; e < NE; ++e) {
            const std::int64_t r0 = host_offsets_[std::size_t(e)], n = host_offsets_[std::size_t(e) + 1] - r0;
            if (n == 0) continue;
            const auto* h0 = static_cast<const std::uint8_t*>(hb) + std::size_t(r0 * F) * el;
            const void* d = whole ? wd + std::size_t(e) * std::size_t(E * F) * el : linear_->dense_weights(expert(ex.down, e));
            linear_->gemm_dense(dt, d, E, F, h0, F, n, ys_.get() + r0 * E, E, false);
        }
        launched(kc::moe_combine(ys_.get(), where_.get(), route_w_.get(), T, int(K), E, x_.get(), true, stream_), "moe combine");
    }

    // Output norm + LM head for m rows of x_ (rows: device indices of those rows, or nullptr for rows 0..m-1) into
    // logits_.
    void lm_head(const std::int32_t* rows, std::int64_t m) {
        const std::int64_t E = n_embd_;
        const float* src = x_.get();
        if (rows) {
            launched(kc::gather_rows(x_.get(), E, rows, 1, m, xn_.get(), stream_), "gather logit rows");
            src = xn_.get();
        }
        launched(kc::rms_norm_f32(src, out_norm_, xn_.get(), m, E, eps_, stream_), "output norm");
        linear(output_, xn_.get(), m, logits_.get());
    }

    void read_logits(float* out, std::int64_t r0, std::int64_t m) {
        const std::size_t bytes = std::size_t(m) * std::size_t(n_vocab_) * sizeof(float);
        check(cudaMemcpyAsync(pinned_logits_, logits_.get() + r0 * std::int64_t(n_vocab_), bytes, cudaMemcpyDeviceToHost,
                              stream_),
              "read logits");
        sync("read logits");
        std::memcpy(out, pinned_logits_, bytes);
        d2h_bytes_ += bytes;
    }

    double current_fraction() const { return offload_ ? offload_->fraction() : 0.0; }

    cudaGraphExec_t graph_for(std::int64_t B) {
        if (auto it = graphs_.find(B); it != graphs_.end()) return it->second;
        const auto t0 = Clock::now();
        const std::uint64_t l0 = launches_ + linear_->launches();
        cudaGraph_t graph = nullptr;
        check(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal), "begin graph capture");
        try {
            run_step({}, B, true);
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
                     launches_ + linear_->launches() - l0,
                     std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        return exec;
    }

    const Weights& w_;
    const ModelDesc& d_;
    GpuRunnerOptions opt_;
    std::string gpu_name_;
    std::unique_ptr<gpu::VramBudget> vram_;
    cudaStream_t stream_ = nullptr;
    std::unique_ptr<gpu::Uploader> uploader_;
    std::unique_ptr<gpu::Linear> linear_;
    std::vector<std::shared_ptr<void>> keep_;  // weight allocations

    std::int64_t n_embd_ = 0;
    int n_head_ = 0, n_head_kv_ = 0, head_dim_ = 0, v_head_dim_ = 0;
    std::uint32_t n_vocab_ = 0;
    float eps_ = 0;
    kernels::RopeParams rope_;
    kernels::RouterParams route_;

    DeviceMatrix embd_, output_;
    const float* out_norm_ = nullptr;
    std::vector<Layer> layers_;
    std::uint64_t decode_weight_bytes_ = 0;

    std::int64_t max_t_ = 0, logit_tile_ = 0;
    int page_size_ = 16, pages_stride_ = 0;
    Clock::time_point last_progress_{};
    std::uint64_t d2h_bytes_ = 0;
    double retired_fetch_bytes_ = 0, retired_prefill_bytes_ = 0;  // of expert caches replaced by a rebuild
    std::shared_ptr<float> x_, xn_, qkv_, att_, router_logits_, route_w_, xs_, ys_, g_, u_, logits_;
    std::shared_ptr<std::int32_t> route_ids_, order_, where_, offsets_, d_meta_, d_pages_;
    std::shared_ptr<void> attn_ws_, dense_experts_, dense_rows_;
    std::shared_ptr<std::int32_t> d_routing_;  // [2][n_layer][max_sequences·k]: override, then recorded
    std::vector<std::int32_t> host_routing_;
    std::int32_t* pinned_meta_ = nullptr;
    float* pinned_logits_ = nullptr;
    std::vector<std::int32_t> host_offsets_;
    std::vector<int> seq_ids_;  // page-table row → KV sequence id (this step)
    kv::KvCache* kv_ = nullptr;
    const kv::KvCache* graph_kv_ = nullptr;

    MoeBackend backend_ = MoeBackend::resident;
    std::unique_ptr<gpu::ExpertOffload> offload_;
    std::map<std::int64_t, cudaGraphExec_t> graphs_;
    bool profiling_ = false;
    cudaEvent_t blocking_ = nullptr;  // set when CPU expert workers share the cores (see sync())
    std::vector<cudaEvent_t> events_;
    std::vector<std::pair<std::string, cudaEvent_t>> marks_;
    std::int64_t n_logit_rows_ = 0;
    std::uint64_t launches_ = 0, steps_ = 0, replays_ = 0, last_eager_launches_ = 0;
    std::size_t last_graph_nodes_ = 0;
};

}  // namespace

std::unique_ptr<Runner> make_gpu_runner(const Weights& weights, const GpuRunnerOptions& options) {
    switch (weights.desc().arch) {
        case ArchId::qwen3_moe: return std::make_unique<Qwen3MoeGpu>(weights, options);
        default: break;
    }
    throw Error(ErrorCode::unsupported,
                weights.path().string() + ": architecture " + std::string(arch_name(weights.desc().arch)) +
                    " has no GPU forward pass yet",
                "use --device cpu (supported on the GPU: qwen3_moe)");
}

}  // namespace ft::model
