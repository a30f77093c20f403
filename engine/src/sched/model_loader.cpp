#include "sched/model_loader.h"

#include <algorithm>
#include <chrono>

#include <spdlog/spdlog.h>

#include "profile/bw_profile.h"
#include "profile/expert_popularity.h"
#include "cpu/cpu_topology.h"
#include "ft/gpu.h"
#include "platform/platform.h"
#include "ft/utf8.h"
#include "format/gguf.h"
#include "model/tokenizer_meta.h"

namespace ft::sched {

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kPage = 16;

// An automatic context (LoadOptions::n_ctx 0): the model's trained maximum, at least kAgentContext (a coding
// agent's system prompt and tools alone are 18–30k tokens) and at most kAutoContextCap; then the largest that the
// memory allows (see auto_context_gpu / the CPU branch of load_model).
constexpr int kAgentContext = 32768;
constexpr int kAutoContextCap = 262144;
constexpr int kAutoContextFloor = 4096;

int auto_context_target(const model::ModelDesc& d) {
    const int trained = d.n_ctx_train > 0 ? int(std::min<std::uint32_t>(d.n_ctx_train, kAutoContextCap)) : 0;
    return std::max(trained, kAgentContext);
}

std::string auto_context_note(int n_ctx, int target, const model::ModelDesc& d, const std::string& limit) {
    std::string why = d.n_ctx_train >= std::uint32_t(target) ? "the model's trained maximum"
                      : d.n_ctx_train > 0 ? "room for a coding agent's prompt (the model was trained on " +
                                                std::to_string(d.n_ctx_train) + ")"
                                          : "room for a coding agent's prompt (the file does not say its trained context)";
    if (n_ctx < target) why = "the largest that " + limit + " allows (" + why + ": " + std::to_string(target) + ")";
    return "context " + std::to_string(n_ctx) + " (auto: " + why + "; --ctx N sets it)";
}

// GPU: the largest context (whole pages, down to kAutoContextFloor) that plans within the budget with one context's
// KV taking at most half of what the plan gives the KV and expert caches together, so the expert cache keeps the
// other half. Planning is arithmetic only: a bisection costs microseconds.
int auto_context_gpu(const memory::ModelGeometry& g, memory::PlanRequest pr, int target) {
    auto fits = [&](int n) {
        pr.n_ctx = n;
        try {
            const MemoryPlan p = memory::plan_memory(g, pr);
            return p.backend == "resident" || std::uint64_t(n) * p.kv_bytes_per_token * 2 <= p.kv + p.experts;
        } catch (const Error&) {
            return false;
        }
    };
    if (fits(target)) return target;
    int lo = kAutoContextFloor / kPage, hi = target / kPage;  // in pages; lo assumed to fit (else the plan says why)
    while (lo + 1 < hi) {
        const int mid = (lo + hi) / 2;
        (fits(mid * kPage) ? lo : hi) = mid;
    }
    return lo * kPage;
}

void check_cancel(const LoadHooks& h) {
    if (h.cancel && h.cancel->load()) throw Error(ErrorCode::cancelled, "the load was cancelled");
}

// The stored hybrid fraction for GPU `gpu`, measured now (and stored) when the model needs one and none is stored.
double hybrid_fraction(const model::Weights& w, const LoadOptions& o, bool needed, const LoadHooks& h,
                       std::uint64_t bytes_total) {
    if (o.hybrid_fraction >= 0) return o.hybrid_fraction;
    const auto devs = gpu_devices();
    if (o.gpu < 0 || o.gpu >= int(devs.size())) return -1;
    const int threads = o.threads > 0 ? o.threads : std::max(1, int(cpu::cpu_topology().cores.size()));
    const std::string fmt = profile::expert_format(w);
    // With an emulated link (benchmarks: --pcie-limit), q* is the profile's CPU rate against min(B_P, the limit).
    auto limited = [&](double f) {
        if (o.pcie_limit_gbps <= 0 || f < 0) return f;
        const auto p = profile::load_profile(devs[std::size_t(o.gpu)].name, fmt, threads);
        if (!p || p->pcie_both_gbs <= 0 || p->cpu_both_gbs <= 0) return f;
        const double bp = std::min(p->pcie_both_gbs, o.pcie_limit_gbps);
        return bp / (bp + p->cpu_both_gbs);
    };
    try {
        if (const double f = profile::stored_hybrid_fraction(devs, o.gpu, fmt, threads); f >= 0) return limited(f);
        if (!needed) return -1;
        if (h.progress) h.progress({0.62f, "bandwidth profile", bytes_total, bytes_total});
        spdlog::info("no bandwidth profile for {} / {} / {} threads: measuring it now (a few seconds, once)",
                     devs[std::size_t(o.gpu)].name, fmt, threads);
        const profile::BwProfile p = profile::measure_profile(w, o.gpu, threads, 0.5);
        profile::store_profile(p);
        spdlog::info("bandwidth profile measured and stored: B_P {:.1f} GB/s, B_C {:.1f} GB/s (together), fraction {:.3f}",
                     p.pcie_both_gbs, p.cpu_both_gbs, p.fraction);
        return limited(p.fraction);
    } catch (const Error& e) {
        spdlog::warn("bandwidth profile unavailable ({}): the hybrid split uses 0.5", e.what());
        return -1;
    }
}

}  // namespace

// Fills the new expert cache with the experts earlier sessions of this model used most (as many as fit); on a first
// load, with an even share of every layer's experts: an empty cache stays empty under a hybrid split that fetches
// no miss (q* near 0: measured on the H200, 368 misses a token of 384 with nothing stored).
static void warm_start(LoadedModel& m, const LoadOptions& o) {
    const auto& d = m.weights->desc();
    const int n_layer = int(d.n_layer), n_expert = int(d.moe.n_expert);
    m.popularity_key = profile::popularity_key(o.model, n_layer, n_expert);
    try {
        const auto t0 = std::chrono::steady_clock::now();
        const auto p = profile::load_popularity(m.popularity_key, n_layer, n_expert);
        if (!p) {
            std::vector<bool> has(static_cast<std::size_t>(n_layer), false);
            for (int il = 0; il < n_layer; ++il) has[std::size_t(il)] = m.weights->layer_has_experts(il);
            m.warm_started = m.runner->warm_expert_cache(profile::even_spread(has, n_expert));
            spdlog::info("warm start: no expert popularity stored for this model yet: {} experts in the cache, an even "
                         "share of each layer's, {:.2f} s", m.warm_started,
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
            return;
        }
        m.warm_started = m.runner->warm_expert_cache(profile::hottest_first(*p));
        spdlog::info("warm start: {} experts in the cache from {} earlier session(s) (stored {}), {:.2f} s", m.warm_started,
                     p->sessions, p->updated_at, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    } catch (const Error& e) {
        spdlog::warn("warm start skipped: {}", e.what());
    }
}

LoadedModel::~LoadedModel() { save_expert_popularity(*this); }

bool save_expert_popularity(LoadedModel& m) {
    if (m.popularity_key.empty() || !m.runner || !m.weights) return false;
    try {
        const auto uses = m.runner->expert_uses();
        const auto& d = m.weights->desc();
        if (uses.empty()) return false;
        const bool stored = profile::store_popularity(m.popularity_key, int(d.n_layer), int(d.moe.n_expert), uses);
        if (stored) spdlog::info("warm start: this session's expert use stored for the next load");
        return stored;
    } catch (const std::exception& e) {
        spdlog::warn("warm start: this session's expert use was not stored: {}", e.what());
        return false;
    }
}

std::unique_ptr<LoadedModel> load_model(const LoadOptions& options, const LoadHooks& h) {
    const auto t0 = Clock::now();
    LoadOptions o = options;  // n_ctx 0 (auto) is resolved below, once the model's geometry is known
    if (o.n_ctx != 0 && (o.n_ctx < 16 || o.n_ctx > (1 << 22)))
        throw Error(ErrorCode::invalid_argument, "context size must be 0 (automatic) or in [16, 4194304]");
    if (o.max_sequences < 1 || o.max_sequences > 256) throw Error(ErrorCode::invalid_argument, "max sequences must be in [1, 256]");
    if (o.prefill_chunk < 1) throw Error(ErrorCode::invalid_argument, "prefill chunk must be positive");
    auto report = [&](float f, const char* stage, std::uint64_t done = 0, std::uint64_t total = 0) {
        if (h.progress) h.progress({f, stage, done, total});
    };
    auto m = std::make_unique<LoadedModel>();
    m->options = o;
    report(0.f, "opening");
    // Mapping the files is 0 → 60 % of the bar, uploading to the GPU 60 → 95 %.
    std::uint64_t file_bytes = 0;
    model::LoadMonitor mon;
    mon.cancel = h.cancel;
    mon.on_bytes = [&](std::uint64_t done, std::uint64_t total) {
        file_bytes = total;
        report(total ? 0.6f * float(double(done) / double(total)) : 0.f, "mapping", done, total);
    };
    m->weights = model::Weights::open(o.model, mon);
    m->graph = model::build_graph(*m->weights);
    check_cancel(h);
    report(0.6f, "tokenizer", file_bytes, file_bytes);
    try {
        m->tokenizer = Tokenizer::load(o.model);
    } catch (const Error& e) {
        spdlog::warn("{}: no usable tokenizer ({}): only token-id prompts will work", path_to_utf8(o.model), e.what());
    }
    m->geometry = memory::geometry_of(*m->weights);
    bool use_gpu = o.device == Device::cuda;
    if (o.device == Device::automatic) {
        use_gpu = !gpu_devices().empty();
        if (!use_gpu) spdlog::info("no usable GPU ({}): running on the CPU", gpu_unavailable_reason());
    }
    std::string gpu_failure;
    if (use_gpu) {
        try {
            const auto devs = gpu_devices();
            if (devs.empty()) {
                // "gpu_unusable" {why's key, why's arguments…}: gpu_unavailable_message() nested in the key's arguments.
                const Message why = gpu_unavailable_message();
                std::vector<std::string> args{why.key};
                args.insert(args.end(), why.args.begin(), why.args.end());
                throw Error(ErrorCode::device, "no usable GPU: " + gpu_unavailable_reason(), "use --device cpu")
                    .keyed("gpu_unusable", std::move(args));
            }
            if (o.gpu < 0 || o.gpu >= int(devs.size()))
                throw Error(ErrorCode::invalid_argument, "GPU " + std::to_string(o.gpu) + " does not exist (" +
                                                             std::to_string(devs.size()) + " found)");
            const GpuInfo& dev = devs[std::size_t(o.gpu)];
            exec::GpuRunnerOptions go;
            if (!exec::parse_moe_backend(o.moe_backend, go.moe))
                throw Error(ErrorCode::invalid_argument, "unknown MoE backend '" + o.moe_backend + "'",
                            "use auto, resident, offload, cpu, hybrid or static");
            memory::PlanRequest pr;
            pr.device_total = dev.total_bytes;
            pr.device_free = dev.free_bytes;
            pr.vram_budget = o.vram_budget;
            pr.memory_ratio = o.memory_ratio;
            pr.n_ctx = o.n_ctx;
            pr.max_sequences = o.max_sequences;
            pr.prefill_chunk = o.prefill_chunk;
            pr.backend = o.moe_backend;
            // Exact prefill (the f32 checking path) keeps f32 KV: f16 K/V would be its largest error.
            // Attention with sinks (gpt-oss): the fast GPU prefill (BF16 GEMMs, tensor-core attention, f16 KV) is
            // further from transformers on gpt-oss-tiny than transformers' own BF16 run, and its greedy continuation
            // parts after a few tokens (docs/benchmarks.md, the gpt-oss rows); the exact path matches. Such models
            // prefill exactly until the cause (BF16 products or f16 attention operands) is found.
            const bool exact = o.gpu_exact_prefill || model::graph_has_sinks(m->graph);
            if (exact && !o.gpu_exact_prefill)
                spdlog::warn("this model's attention has sinks: the GPU prefills in f32 (exact; slower) — the fast "
                             "path does not match the reference for it yet");
            pr.kv_f16 = !o.kv_f32 && !exact && !m->graph.kv_rows_f32;  // compressed attention keeps f32 rows
            pr.exact_prefill = exact;
            pr.kv_reserve_tokens = o.kv_reserve_tokens;
            pr.kv_tokens = o.kv_tokens;
            pr.expert_slots = o.expert_slots;
            std::string ctx_note;
            if (o.n_ctx == 0) {
                const int target = auto_context_target(m->weights->desc());
                pr.n_ctx = o.n_ctx = auto_context_gpu(m->geometry, pr, target);
                ctx_note = auto_context_note(o.n_ctx, target, m->weights->desc(), "half of the VRAM left for KV and experts");
            }
            // Does the model need the hybrid fraction (not everything fits)? Plan once without it to know.
            const MemoryPlan first = memory::plan_memory(m->geometry, pr);
            const bool needs_fraction = first.backend == "hybrid" || (o.moe_backend == "auto" && first.backend != "resident");
            go.hybrid_fraction = hybrid_fraction(*m->weights, o, needs_fraction, h, file_bytes);
            go.recalibrate_fraction = o.hybrid_fraction < 0;  // a fraction the user gave stays fixed
            pr.cpu_pays = go.hybrid_fraction >= 0 && go.hybrid_fraction < 0.4;
            m->plan = memory::plan_memory(m->geometry, pr);
            if (!ctx_note.empty()) m->plan.notes.insert(m->plan.notes.begin(), ctx_note);
            for (const auto& n : m->plan.notes) spdlog::info("plan: {}", n);
            if (m->plan.state) spdlog::info("plan: recurrent state {} ({} sequence slots)", memory::gib(double(m->plan.state)), o.max_sequences + 1);
            spdlog::info("VRAM plan ({} of {} free, budget {}): weights {}, experts {} ({} slots of {}), KV {} ({} tokens, {}), "
                         "scratch {}, cuBLAS {}, graphs {}, reserve {}; prefill chunk {}, overlap {}",
                         dev.name, memory::gib(double(dev.free_bytes)), memory::gib(double(m->plan.budget)),
                         memory::gib(double(m->plan.weights)), memory::gib(double(m->plan.experts)), m->plan.expert_slots,
                         m->plan.expert_slots_total, memory::gib(double(m->plan.kv)), m->plan.kv_tokens,
                         m->plan.kv_bytes_per_element == 2 ? "f16" : "f32", memory::gib(double(m->plan.scratch)),
                         memory::gib(double(m->plan.cublas)), memory::gib(double(m->plan.graphs)),
                         memory::gib(double(m->plan.reserve)), m->plan.prefill_chunk, m->plan.prefill_overlap ? "on" : "off");
            exec::parse_moe_backend(m->plan.backend, go.moe);
            go.plan = m->plan;
            go.device = o.gpu;
            go.n_ctx = o.n_ctx;
            go.max_sequences = o.max_sequences;
            go.max_batch_tokens = m->plan.prefill_chunk + o.max_sequences;
            go.gemm = exact ? exec::GemmPrecision::f32 : exec::GemmPrecision::bf16;
            go.graphs = o.gpu_graphs;
            go.kv_f16 = pr.kv_f16;
            go.max_fetch = o.max_fetch;
            go.cpu_threads = o.threads;
            go.hybrid_admit = o.hybrid_admit;
            go.search_restores_cache = o.search_restores_cache;
            go.pin_budget = o.pin_budget;
            go.host_function_sync = o.host_function_sync;
            go.link_gbps = o.pcie_limit_gbps;
            go.routing = h.routing ? h.routing(*m->weights) : nullptr;
            go.cancel = h.cancel;
            go.on_upload = [&](std::uint64_t done, std::uint64_t total) {
                report(0.62f + 0.33f * float(total ? double(done) / double(total) : 1.0), "weights", file_bytes + done,
                       file_bytes + total);
            };
            if (!o.record_routing.empty() && m->geometry.n_moe_layers == 0)
                throw Error(ErrorCode::invalid_argument,
                            "--record-routing: the model has no MoE block (a dense model): there is no routing to record");
            if (!o.record_routing.empty())
                go.record_routing = std::make_shared<moe::RoutingRecorder>(o.record_routing, int(m->weights->desc().n_layer),
                                                                           int(m->weights->desc().moe.n_expert_used));
            m->runner = exec::make_gpu_runner(m->graph, *m->weights, go);
            check_cancel(h);
            report(0.95f, "kv cache");
            m->kv = m->runner->make_kv_cache(kPage, kv_pages(m->plan));
            m->gpu = true;
            if (o.warm_start && m->plan.expert_slots > 0 && m->plan.backend != "resident" && m->plan.backend != "static")
                warm_start(*m, o);
        } catch (const Error& e) {
            if (o.device == Device::cuda || e.code() == ErrorCode::cancelled || e.code() == ErrorCode::invalid_argument) throw;
            o.n_ctx = options.n_ctx;  // the CPU picks its own automatic context
            gpu_failure = e.what();
            spdlog::warn("the model does not run on the GPU ({}): running on the CPU instead", e.what());
            m->kv.reset();
            m->runner.reset();
            m->plan = MemoryPlan{};
        }
    }
    if (!m->runner) {
        if (!o.record_routing.empty())
            throw Error(ErrorCode::unsupported, "recording the routing needs the GPU path", "use --device cuda");
        cpu::WorkerPool::Options po;
        po.threads = o.threads;
        m->pool = std::make_unique<cpu::WorkerPool>(po);
        m->pool->pin_caller();  // this (engine) thread runs the pool's jobs: keep it off the workers' cores
        m->moe = std::make_unique<moe::MoeLayer>(*m->pool, *m->weights);
        m->runner = exec::make_cpu_runner(m->graph, *m->weights, *m->pool, *m->moe, o.max_sequences);
        report(0.95f, "kv cache");
        MemoryPlan& p = m->plan;
        p.kv_bytes_per_token = memory::kv_bytes_per_token(m->geometry, false);
        if (o.n_ctx == 0) {
            // The KV cache lives in host RAM (f32): one context may take an eighth of it, the whole cache a quarter.
            const int target = auto_context_target(m->weights->desc());
            const std::uint64_t ram = platform::physical_memory_bytes();
            const std::uint64_t one = ram ? ram / 8 / std::max<std::uint64_t>(1, p.kv_bytes_per_token) : std::uint64_t(target);
            o.n_ctx = int(std::clamp<std::uint64_t>(one / kPage * kPage, kAutoContextFloor, std::uint64_t(target)));
            if (o.kv_tokens == 0 && ram) {
                const std::int64_t quarter = std::int64_t(ram / 4 / std::max<std::uint64_t>(1, p.kv_bytes_per_token));
                o.kv_tokens = std::clamp<std::int64_t>(quarter, o.n_ctx, std::int64_t(o.n_ctx) * o.max_sequences);
            }
            p.notes.push_back(auto_context_note(o.n_ctx, target, m->weights->desc(), "an eighth of this PC's RAM"));
            spdlog::info("plan: {}", p.notes.back());
        }
        p.gpu = false;
        p.backend = "cpu engine";
        p.n_ctx = o.n_ctx;
        p.max_sequences = o.max_sequences;
        p.prefill_chunk = o.prefill_chunk;
        p.kv_page_size = kPage;
        p.kv_bytes_per_element = 4;
        const std::int64_t full = std::int64_t(o.n_ctx) * o.max_sequences;
        p.kv_tokens = o.kv_tokens > 0 ? o.kv_tokens : full;
        p.kv_tokens = (p.kv_tokens + kPage - 1) / kPage * kPage;
        if (p.kv_tokens < o.n_ctx)
            throw Error(ErrorCode::invalid_argument, "a KV cache of " + std::to_string(o.kv_tokens) +
                                                         " positions is smaller than the context (" + std::to_string(o.n_ctx) + ")",
                        "raise --kv-tokens or lower --ctx");
        p.kv = std::uint64_t(p.kv_tokens) * p.kv_bytes_per_token;
        p.state = memory::state_bytes(m->geometry, o.max_sequences);
        p.min_kv_tokens = o.n_ctx;
        p.max_kv_tokens = std::max<std::int64_t>(full, p.kv_tokens) * 4;
        p.expert_slots_total = m->geometry.n_moe_layers * m->geometry.n_expert;
        if (!gpu_failure.empty()) p.notes.push_back("the GPU could not run this model (" + gpu_failure + "): running on the CPU");
        m->kv = m->runner->make_kv_cache(kPage, kv_pages(p));
    }
    m->options.n_ctx = o.n_ctx;
    m->plan.n_ctx_auto = options.n_ctx == 0;
    m->options.prefill_chunk = m->plan.prefill_chunk > 0 ? m->plan.prefill_chunk : o.prefill_chunk;
    if (m->tokenizer) m->eog = m->tokenizer->eog_ids();
    const model::ModelDesc& d = m->weights->desc();
    ModelInfo& info = m->info;
    info.name = d.name.empty() ? path_to_utf8(o.model.filename()) : d.name;
    info.architecture = std::string(model::arch_name(d.arch));
    info.path = o.model;
    info.device = m->runner->device_name();
    info.device_key = m->runner->device_label();
    info.n_layer = d.n_layer;
    info.n_embd = d.n_embd;
    info.n_vocab = d.n_vocab;
    info.n_expert = d.moe.n_expert;
    info.n_expert_used = d.moe.n_expert_used;
    info.expert_bytes = m->weights->expert_bytes();
    info.other_bytes = m->weights->other_bytes();
    info.n_ctx = o.n_ctx;
    info.max_sequences = o.max_sequences;
    info.has_chat_template = m->tokenizer && !m->tokenizer->chat_template().empty();
    if (const gguf::Reader* r = m->weights->gguf()) {
        info.sampling_defaults = model::sampling_defaults(r->metadata());
    } else {
        gguf::Metadata md(path_to_utf8(m->weights->path()));
        try {
            model::hf_sampling_to_gguf(m->weights->path(), md);
            info.sampling_defaults = model::sampling_defaults(md);
        } catch (const Error& e) {  // a broken generation_config.json costs its advice, not the model
            spdlog::warn("{}: the recommended sampling is not used", e.what());
        }
    }
    info.load_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return m;
}

}  // namespace ft::sched
