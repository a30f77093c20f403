#include "bench/decode_bench.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <random>

#include <nlohmann/json.hpp>

#include "profile/bw_profile.h"
#include "profile/device_bandwidth.h"
#include "bench/host_bandwidth.h"
#include "cpu/worker_pool.h"
#include "ft/error.h"
#include "sched/model_loader.h"
#include "ft/gpu.h"
#include "kv/kv_cache.h"
#include "exec/runner.h"
#include "model/weights.h"
#include "moe/moe_layer.h"
#include "moe/routing_trace.h"
#include "profile/expert_popularity.h"
#include "ft/utf8.h"

namespace ft::bench {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

constexpr int kPage = 16;

// The model as the engine loads it (sched::load_model: the same planner, runner and KV cache as `ft run`).
struct Setup {
    std::unique_ptr<sched::LoadedModel> m;
    model::Weights* weights = nullptr;
    exec::Runner* runner = nullptr;
    kv::KvCache* kv = nullptr;
    bool gpu = false;
    double load_s = 0;
    std::string routing;
    int chunk = 0;  // the plan's prefill chunk
};

Setup setup(const ForwardBenchOptions& o, int n_ctx, int n_seq, int chunk) {
    const auto t0 = Clock::now();
    Setup s;
    // The product's context and parallel requests (so the plan is `ft run`'s), more where the bench needs more.
    LoadOptions lo = o.load;
    lo.n_ctx = std::max(o.load.n_ctx, n_ctx);
    lo.max_sequences = std::max(o.load.max_sequences, n_seq);
    lo.prefill_chunk = chunk;
    sched::LoadHooks hooks;
    const bool gpu = o.load.device == Device::cuda || (o.load.device == Device::automatic && !gpu_devices().empty());
    auto source = std::make_shared<std::shared_ptr<moe::RoutingSource>>();
    if (o.routing != "model") {
        if (!gpu) throw Error(ErrorCode::unsupported, "--routing needs the GPU path", "use --device cuda");
        hooks.routing = [&o, source](const model::Weights& w) {
            const auto& d = w.desc();
            std::vector<bool> has(d.n_layer);
            for (std::uint32_t il = 0; il < d.n_layer; ++il) has[il] = w.layer_has_experts(int(il));
            *source = moe::make_routing_source(o.routing, has, int(d.moe.n_expert), int(d.moe.n_expert_used));
            return *source;
        };
    }
    s.m = sched::load_model(lo, hooks);
    s.weights = s.m->weights.get();
    s.runner = s.m->runner.get();
    s.kv = s.m->kv.get();
    s.gpu = s.m->gpu;
    s.chunk = s.m->options.prefill_chunk;
    s.routing = *source ? (*source)->describe() : "model (the router's own choice)";
    s.load_s = seconds_since(t0);
    return s;
}

std::vector<std::int32_t> random_prompt(std::uint32_t n_vocab, int n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    // Ordinary tokens only: the low ids of every vocabulary we read are text, the specials sit at the end.
    std::uniform_int_distribution<std::int32_t> dist(0, std::int32_t(std::min<std::uint32_t>(n_vocab, 100000) - 1));
    std::vector<std::int32_t> p(static_cast<std::size_t>(n));
    for (auto& t : p) t = dist(rng);
    return p;
}

// Prefills `prompt` into sequence `seq` in chunks; returns seconds; fills last_logits with the last row.
double prefill(Setup& s, int seq, const std::vector<std::int32_t>& prompt, int chunk, std::vector<float>& last_logits) {
    s.kv->reserve(seq, std::int64_t(prompt.size()));
    double secs = 0;
    std::vector<exec::BatchToken> batch;
    for (std::size_t p0 = 0; p0 < prompt.size(); p0 += std::size_t(chunk)) {
        const std::size_t p1 = std::min(prompt.size(), p0 + std::size_t(chunk));
        batch.clear();
        for (std::size_t i = p0; i < p1; ++i) batch.push_back({prompt[i], std::int32_t(i), seq, i + 1 == prompt.size()});
        const auto t0 = Clock::now();
        s.runner->forward(batch, *s.kv, last_logits.data());
        secs += seconds_since(t0);
    }
    return secs;
}

std::int32_t argmax(const float* x, std::size_t n) { return std::int32_t(std::max_element(x, x + n) - x); }

void fill_common(ForwardBenchResult& r, const ForwardBenchOptions& o, const Setup& s) {
    const auto& d = s.weights->desc();
    r.model = d.name.empty() ? path_to_utf8(o.load.model.filename()) : d.name;
    r.device = s.runner->device_name();
    r.prompt_len = o.prompt_len;
    r.gen = o.gen;
    r.batch = o.batch;
    r.chunk = o.chunk;
    r.load_s = s.load_s;
    r.warm_started = s.m->warm_started;
    r.routing = s.routing;
    r.backend = s.m->plan.gpu ? s.m->plan.backend : o.load.moe_backend;
    r.chunk = s.chunk;
    r.plan = s.m->plan;
}

// Multiply-adds per token of the active parameters (attention projections, router, routed and shared experts or
// the dense FFN), without the LM head and embedding.
double matmul_flops_per_token(const model::ModelDesc& d) {
    const double E = d.n_embd, H = d.attn.n_head, Hkv = d.attn.n_head_kv, hd = d.attn.head_dim,
                 vhd = d.attn.v_head_dim ? d.attn.v_head_dim : d.attn.head_dim;
    double per_layer_attn = E * H * hd + 2 * E * Hkv * hd + H * vhd * E;
    double total = 0;
    for (std::uint32_t il = 0; il < d.n_layer; ++il) {
        total += per_layer_attn;
        if (d.layer_is_moe(il)) total += E * d.moe.n_expert + double(d.moe.n_expert_used) * 3 * E * d.moe.n_ff_exp + 3 * E * d.moe.n_ff_shexp;
        else total += 3 * E * d.n_ff;
    }
    return 2 * total;
}

}  // namespace

ForwardBenchResult run_decode_bench(const ForwardBenchOptions& o) {
    if (o.prompt_len < 1 || o.gen < 1 || o.batch < 1 || o.batch > 64 || o.chunk < 1)
        throw Error(ErrorCode::invalid_argument, "decode bench: prompt length, steps, batch (≤ 64) and chunk must be positive");
    const int n_ctx = o.prompt_len + o.gen + 2;
    // The device's copy bandwidth (the ceiling decode is compared against) before the model loads: its two 1 GiB
    // buffers are freed before the engine plans its VRAM, so a --vram-budget run's peak is the engine's own.
    // Only on a GPU that exists (else the load below says what is missing), and a failure here leaves the figure out.
    double copy_gbs = 0;
    if ((o.load.device == Device::cuda || o.load.device == Device::automatic) && o.load.gpu >= 0 &&
        o.load.gpu < int(gpu_devices().size())) {
        try {
            copy_gbs = profile::device_copy_gbs(o.load.gpu);
        } catch (const std::exception&) {
            copy_gbs = 0;
        }
    }
    Setup s = setup(o, n_ctx, o.batch, o.chunk);
    ForwardBenchResult r;
    fill_common(r, o, s);
    const auto& d = s.weights->desc();
    const std::size_t V = d.n_vocab;
    std::vector<float> logits(V * std::size_t(o.batch));
    std::vector<std::int32_t> next(std::size_t(o.batch));
    std::vector<int> seqs;
    for (int b = 0; b < o.batch; ++b) {
        const int seq = s.kv->create();
        seqs.push_back(seq);
        std::vector<float> last(V);
        r.prefill_s += prefill(s, seq, random_prompt(d.n_vocab, o.prompt_len, o.seed + std::uint64_t(b)), s.chunk, last);
        next[std::size_t(b)] = argmax(last.data(), V);
    }
    r.prefill_tok_s = double(o.prompt_len) * o.batch / r.prefill_s;
    std::vector<exec::BatchToken> batch(std::size_t(o.batch));
    auto make_batch = [&](int step) {
        for (int b = 0; b < o.batch; ++b) {
            const std::int32_t pos = std::int32_t(o.prompt_len + step);
            s.kv->reserve(seqs[std::size_t(b)], pos + 1);
            batch[std::size_t(b)] = {next[std::size_t(b)], pos, seqs[std::size_t(b)], true};
        }
    };
    // Untimed steps first (graph capture, the cache filling, hybrid's q* search), over the positions the timed steps
    // use and rewound after, then one more untimed step (a capture if q* changed the graph), then the timed ones.
    const std::vector<std::int32_t> first = next;
    auto decode_step = [&](int step) {
        make_batch(step);
        s.runner->forward(batch, *s.kv, logits.data());
        for (int b = 0; b < o.batch; ++b) next[std::size_t(b)] = argmax(logits.data() + std::size_t(b) * V, V);
    };
    // A recurrent state (Qwen3.5, DeepSeek-V4's window rings) cannot be cut back: its sequences are prefilled again.
    auto rewind = [&] {
        for (int b = 0; b < o.batch; ++b) {
            int& seq = seqs[std::size_t(b)];
            if (!s.kv->has_state()) {
                s.kv->truncate(seq, o.prompt_len);
                continue;
            }
            s.kv->release(seq);
            seq = s.kv->create();
            std::vector<float> last(V);
            prefill(s, seq, random_prompt(d.n_vocab, o.prompt_len, o.seed + std::uint64_t(b)), s.chunk, last);
        }
        next = first;
    };
    const bool searching = s.runner->counters().hybrid_searching;
    const int warm_max = o.warmup >= 0 ? o.warmup : (searching ? 2000 : 32);
    int warm = 0;
    for (; warm < warm_max; ++warm) {
        if (warm > 0 && warm % o.gen == 0) rewind();
        decode_step(warm % o.gen);
        // The automatic warm-up ends with the search (read every 16 steps: the counters synchronise the stream).
        if (o.warmup < 0 && warm >= 31 && warm % 16 == 15 && !s.runner->counters().hybrid_searching) {
            ++warm;
            break;
        }
    }
    r.warmup_steps = warm;
    {
        const auto c = s.runner->counters();
        if (searching || c.hybrid_search_seconds > 0) {
            r.search_s = c.hybrid_search_seconds;
            r.search_converged = !c.hybrid_searching;
            for (const auto& w : c.search_history) {
                if (!(w.tok_s > 0)) break;
                r.search_windows.push_back({w.q, w.tok_s, w.at_s, w.search});
            }
            if (c.duel.held && c.duel.all_tok_s > 0) {
                r.duel_center = c.duel.center;
                r.duel_center_won = c.duel.center_won;
                r.duel_all_tok_s = c.duel.all_tok_s;
                r.duel_center_tok_s = c.duel.center_tok_s;
            }
        }
    }
    rewind();
    decode_step(0);
    double total = 0, best = 1e30;
    const int timed = o.gen - 1;
    const auto c0 = s.runner->counters();
    for (int step = 1; step <= timed; ++step) {
        make_batch(step);
        const auto t0 = Clock::now();
        s.runner->forward(batch, *s.kv, logits.data());
        const double sec = seconds_since(t0);
        total += sec;
        best = std::min(best, sec);
        for (int b = 0; b < o.batch; ++b) next[std::size_t(b)] = argmax(logits.data() + std::size_t(b) * V, V);
    }
    if (timed > 0) {
        r.decode_s = total;
        r.step_ms = total / timed * 1e3;
        r.step_ms_min = best * 1e3;
        r.decode_tok_s = double(timed) * o.batch / total;
    }
    const exec::RunnerCounters c1 = s.runner->counters();
    r.counters = c1.named();
    r.weight_bytes_per_token = c1.weight_bytes_per_token;
    r.kernels_per_step = c1.graph_nodes;
    r.expert_slots = int(c1.expert_slots);
    if (r.expert_slots > 0 && timed > 0) {
        const double tokens = double(timed) * o.batch;
        auto delta = [&](double exec::RunnerCounters::*f) { return c1.*f - c0.*f; };
        using C = exec::RunnerCounters;
        const double hits = delta(&C::expert_hits), misses = delta(&C::expert_misses);
        r.hit_rate = hits + misses > 0 ? hits / (hits + misses) : 0;
        r.misses_per_token = misses / tokens;
        r.fetched_per_token = delta(&C::expert_fetched) / tokens;
        r.cpu_per_token = delta(&C::expert_cpu) / tokens;
        r.admitted_per_token = delta(&C::expert_admitted) / tokens;
        r.restores = c1.expert_cache_restores;
        r.restored_experts = c1.expert_cache_restored;
        r.restore_ms = c1.expert_cache_restore_seconds * 1e3;
        r.fraction_start = c0.hybrid_fraction;
        r.fraction_end = c1.hybrid_fraction;
        r.live_fetch_gbs = c1.live_fetch_gbps;
        r.live_cpu_gbs = c1.live_cpu_gbps;
        if (const double served = delta(&C::cpu_layers_served); served > 0) {
            r.cpu_layers_per_step = served / (tokens / o.batch);
            r.cpu_busy_us = delta(&C::cpu_busy_ns) / served / 1e3;
            r.cpu_executor_us = delta(&C::cpu_executor_ns) / served / 1e3;
            if (const double gaps = delta(&C::cpu_gaps); gaps > 0) r.cpu_gap_us = delta(&C::cpu_gap_ns) / gaps / 1e3;
            if (const double n = delta(&C::gpu_handoff_answers); n > 0) r.gpu_answer_us = delta(&C::gpu_handoff_answer_ns) / n / 1e3;
            if (const double n = delta(&C::gpu_handoff_chains); n > 0) r.gpu_chain_us = delta(&C::gpu_handoff_chain_ns) / n / 1e3;
        }
        r.miss_bytes_per_token = r.misses_per_token * c1.expert_slot_bytes;
        if (o.measure_host) {
            cpu::WorkerPool::Options po;
            po.threads = o.load.threads;
            cpu::WorkerPool pool(po);
            r.host_read_gbs = measure_host_read(pool).read_gbs;
            if (r.host_read_gbs > 0) r.floor_ms = r.miss_bytes_per_token / (r.host_read_gbs * 1e9) * 1e3;
        }
    }
    // The phases of one more step, timed inside a captured graph.
    if (n_ctx > o.prompt_len + o.gen) {
        make_batch(o.gen);
        r.phases_ms = s.runner->profile_step(batch, *s.kv);
    }
    if (s.gpu) {
        r.copy_gbs = copy_gbs;
        if (o.batch == 1 && r.step_ms > 0 && r.copy_gbs > 0)
            r.bandwidth_fraction = r.weight_bytes_per_token / (r.step_ms / 1e3) / (r.copy_gbs * 1e9);
    }
    return r;
}

namespace {

// One load and `steps` decode steps from the first after a prompt, the hit rate read every `window` steps.
WarmStartRun warm_start_run(const ForwardBenchOptions& o, int steps, int window, bool warm, int* slots, std::string* routing,
                            std::string* model) {
    ForwardBenchOptions oo = o;
    oo.load.warm_start = warm;
    if (warm) {  // another session: another prompt, and synthetic routing's other stream over the same popularity
        oo.seed = o.seed + 1;
        if (o.routing == "synthetic") oo.routing = "synthetic:run=2";
        else if (o.routing.rfind("synthetic:", 0) == 0) oo.routing = o.routing + ",run=2";
    }
    Setup s = setup(oo, oo.prompt_len + steps + 2, 1, oo.chunk);
    WarmStartRun r;
    r.load_s = s.load_s;
    r.warm_started = s.m->warm_started;
    *slots = int(s.runner->counters().expert_slots);
    if (*slots <= 0) throw Error(ErrorCode::unsupported, "warm start: this backend has no expert cache", "use --vram-budget below the model's size");
    *routing = s.routing;
    const auto& d = s.weights->desc();
    *model = d.name;
    const std::size_t V = d.n_vocab;
    std::vector<float> logits(V);
    const int seq = s.kv->create();
    prefill(s, seq, random_prompt(d.n_vocab, oo.prompt_len, oo.seed), s.chunk, logits);
    std::int32_t next = argmax(logits.data(), V);
    auto hm = [&] {
        const auto c = s.runner->counters();
        return std::pair<double, double>{c.expert_hits, c.expert_misses};
    };
    auto [h0, m0] = hm();
    const double hs = h0, ms = m0;
    double secs = 0;
    std::vector<exec::BatchToken> batch(1);
    for (int step = 0; step < steps; ++step) {
        const std::int32_t pos = std::int32_t(oo.prompt_len + step);
        s.kv->reserve(seq, pos + 1);
        batch[0] = {next, pos, seq, true};
        const auto t0 = Clock::now();
        s.runner->forward(batch, *s.kv, logits.data());
        secs += seconds_since(t0);
        next = argmax(logits.data(), V);
        if ((step + 1) % window == 0) {
            const auto [h1, m1] = hm();
            r.window_hit.push_back(h1 + m1 - h0 - m0 > 0 ? (h1 - h0) / (h1 + m1 - h0 - m0) : 0);
            h0 = h1;
            m0 = m1;
            if (step + 1 == 64 || (step + 1 < 64 && step + 1 == steps))
                r.first_hit = h1 + m1 - hs - ms > 0 ? (h1 - hs) / (h1 + m1 - hs - ms) : 0;
            r.window_end_s.push_back(secs);
        }
    }
    if (!warm) {  // what the unload would store: this session's use (warm start was off, so no key was set)
        s.m->popularity_key = profile::popularity_key(oo.load.model, int(d.n_layer), int(d.moe.n_expert));
        if (!sched::save_expert_popularity(*s.m))
            throw Error(ErrorCode::io, "warm start: the cold run's expert use was not stored (a store error in the log, or "
                                       "fewer uses than a session needs)", "raise --gen");
        s.m->popularity_key.clear();
    }
    return r;
}

void to_steady(WarmStartRun& r, double steady, int window) {
    r.steps_to_steady = -1;
    r.seconds_to_steady = -1;
    for (std::size_t i = 0; i < r.window_hit.size(); ++i)
        if (r.window_hit[i] >= 0.95 * steady) {
            r.steps_to_steady = int(i + 1) * window;
            r.seconds_to_steady = r.window_end_s[i];
            return;
        }
}

}  // namespace

WarmStartResult run_warm_start_bench(const ForwardBenchOptions& o, int steps, int window) {
    if (steps < 4 * window || window < 1) throw Error(ErrorCode::invalid_argument, "warm start bench: steps must be at least 4 windows");
    if (o.load.device == Device::cpu || gpu_devices().empty())
        throw Error(ErrorCode::unsupported,
                    "warm start bench: the expert cache it measures is on the GPU, and " +
                        (o.load.device == Device::cpu ? std::string("--device cpu was given") : gpu_unavailable_reason()),
                    "run it on a machine with an NVIDIA GPU");
    WarmStartResult r;
    r.steps = steps;
    r.window = window;
    std::string routing_warm, model_warm;  // the warm run's (its routing names the other stream)
    int slots_warm = 0;
    r.cold = warm_start_run(o, steps, window, false, &r.expert_slots, &r.routing, &r.model);
    r.warm = warm_start_run(o, steps, window, true, &slots_warm, &routing_warm, &model_warm);
    const std::size_t n = r.cold.window_hit.size(), q = std::max<std::size_t>(1, n / 4);
    for (std::size_t i = n - q; i < n; ++i) r.steady += r.cold.window_hit[i] / double(q);
    to_steady(r.cold, r.steady, window);
    to_steady(r.warm, r.steady, window);
    return r;
}

nlohmann::json to_json(const WarmStartResult& r) {
    auto run = [](const WarmStartRun& w) {
        return nlohmann::json{{"window_hit", w.window_hit},       {"first64_hit", w.first_hit},
                              {"steps_to_steady", w.steps_to_steady}, {"seconds_to_steady", w.seconds_to_steady},
                              {"warm_started", w.warm_started},   {"load_s", w.load_s}};
    };
    return {{"bench", "warm-start"}, {"model", r.model}, {"routing", r.routing}, {"steps", r.steps}, {"window", r.window},
            {"expert_slots", r.expert_slots}, {"steady_hit", r.steady}, {"cold", run(r.cold)}, {"warm", run(r.warm)}};
}

void print(const WarmStartResult& r) {
    std::printf("warm-start  %s, %d expert slots, routing %s; %d decode steps after a prompt, windows of %d\n", r.model.c_str(),
                r.expert_slots, r.routing.c_str(), r.steps, r.window);
    std::printf("  steady hit rate (the cold run's last quarter)  %.1f %%\n", 100 * r.steady);
    for (const auto* w : {&r.cold, &r.warm}) {
        const bool warm = w == &r.warm;
        std::printf("  %-5s %5d experts at load   first 64 steps %5.1f %%   ", warm ? "warm" : "cold", w->warm_started,
                    100 * w->first_hit);
        if (w->steps_to_steady >= 0)
            std::printf("95 %% of steady after %d steps (%.2f s)\n", w->steps_to_steady, w->seconds_to_steady);
        else
            std::printf("95 %% of steady not reached\n");
        std::printf("        per window:");
        for (double h : w->window_hit) std::printf(" %.0f", 100 * h);
        std::printf("\n");
    }
}

ForwardBenchResult run_prefill_bench(const ForwardBenchOptions& o) {
    if (o.prompt_len < 1 || o.chunk < 1) throw Error(ErrorCode::invalid_argument, "prefill bench: prompt length and chunk must be positive");
    Setup s = setup(o, o.prompt_len + 16, 1, o.chunk);
    const int chunk = s.chunk;
    ForwardBenchResult r;
    fill_common(r, o, s);
    r.gen = 0;
    r.batch = 1;
    const auto& d = s.weights->desc();
    std::vector<float> last(d.n_vocab);
    const auto prompt = random_prompt(d.n_vocab, o.prompt_len, o.seed);
    // Warm-up on a separate sequence (first-use costs: cuBLAS heuristics, page faults), then the timed prompt.
    {
        const int warm = s.kv->create();
        prefill(s, warm, std::vector<std::int32_t>(prompt.begin(), prompt.begin() + std::min(o.prompt_len, 256)), chunk, last);
        s.kv->release(warm);
    }
    const int seq = s.kv->create();
    r.prefill_s = prefill(s, seq, prompt, chunk, last);
    r.prefill_tok_s = o.prompt_len / r.prefill_s;
    const double n = o.prompt_len;
    const double attn = 4.0 * d.attn.n_head * d.attn.head_dim * (n * (n + 1) / 2) * d.n_layer;
    r.prefill_tflops = (matmul_flops_per_token(d) * n + attn) / r.prefill_s / 1e12;
    r.counters = s.runner->counters().named();
    return r;
}

nlohmann::json to_json(const ForwardBenchResult& r) {
    nlohmann::json j{{"model", r.model},
                     {"device", r.device},
                     {"prompt_len", r.prompt_len},
                     {"gen", r.gen},
                     {"batch", r.batch},
                     {"chunk", r.chunk},
                     {"load_s", r.load_s},
                     {"warm_started", r.warm_started},
                     {"prefill_s", r.prefill_s},
                     {"prefill_tok_s", r.prefill_tok_s},
                     {"prefill_tflops", r.prefill_tflops},
                     {"decode_s", r.decode_s},
                     {"decode_tok_s", r.decode_tok_s},
                     {"step_ms", r.step_ms},
                     {"step_ms_min", r.step_ms_min},
                     {"weight_bytes_per_token", r.weight_bytes_per_token},
                     {"copy_gbs", r.copy_gbs},
                     {"bandwidth_fraction", r.bandwidth_fraction},
                     {"kernels_per_step", r.kernels_per_step},
                     {"backend", r.backend},
                     {"routing", r.routing},
                     {"expert_slots", r.expert_slots},
                     {"hit_rate", r.hit_rate},
                     {"misses_per_token", r.misses_per_token},
                     {"fetched_per_token", r.fetched_per_token},
                     {"cpu_per_token", r.cpu_per_token},
                     {"admitted_per_token", r.admitted_per_token},
                     {"cache_restores", r.restores},
                     {"cache_restored_experts", r.restored_experts},
                     {"cache_restore_ms", r.restore_ms},
                     {"fraction_start", r.fraction_start},
                     {"fraction_end", r.fraction_end},
                     {"live_fetch_gbs", r.live_fetch_gbs},
                     {"live_cpu_gbs", r.live_cpu_gbs},
                     {"cpu_layers_per_step", r.cpu_layers_per_step},
                     {"cpu_busy_us_per_layer", r.cpu_busy_us},
                     {"cpu_executor_us_per_layer", r.cpu_executor_us},
                     {"cpu_gap_us_per_layer", r.cpu_gap_us},
                     {"gpu_handoff_answer_us_per_layer", r.gpu_answer_us},
                     {"gpu_handoff_chain_us_per_layer", r.gpu_chain_us},
                     {"warmup_steps", r.warmup_steps},
                     {"miss_bytes_per_token", r.miss_bytes_per_token},
                     {"host_read_gbs", r.host_read_gbs},
                     {"floor_ms", r.floor_ms}};
    if (r.plan.gpu)
        j["plan"] = {{"backend", r.plan.backend}, {"budget", r.plan.budget}, {"weights", r.plan.weights},
                     {"experts", r.plan.experts}, {"expert_slots", r.plan.expert_slots}, {"kv", r.plan.kv},
                     {"kv_tokens", r.plan.kv_tokens}, {"scratch", r.plan.scratch}, {"cublas", r.plan.cublas},
                     {"graphs", r.plan.graphs}, {"reserve", r.plan.reserve}, {"prefill_chunk", r.plan.prefill_chunk},
                     {"prefill_overlap", r.plan.prefill_overlap}};
    if (r.search_s >= 0) {
        nlohmann::json w = nlohmann::json::array();
        for (const auto& x : r.search_windows) w.push_back({{"q", x.q}, {"tok_s", x.tok_s}, {"at_s", x.at_s}, {"search", x.search}});
        j["q_search"] = {{"seconds", r.search_s}, {"converged", r.search_converged}, {"windows", w}};
        if (r.duel_center >= 0)
            j["q_search"]["duel"] = {{"center", r.duel_center}, {"center_won", r.duel_center_won},
                                     {"all_tok_s", r.duel_all_tok_s}, {"center_tok_s", r.duel_center_tok_s}};
    }
    for (const auto& [k, v] : r.phases_ms) j["phases_ms"][k] = v;
    for (const auto& [k, v] : r.counters) j["counters"][k] = v;
    return j;
}

void print(const ForwardBenchResult& r, bool decode) {
    std::printf("%s  %s  on %s\n", decode ? "decode" : "prefill", r.model.c_str(), r.device.c_str());
    std::printf("  load                     %8.2f s\n", r.load_s);
    if (r.warm_started > 0) std::printf("  warm start               %8d experts in the cache at load\n", r.warm_started);
    if (r.plan.gpu) {
        const auto g = [](std::uint64_t b) { return double(b) / double(1ull << 30); };
        std::printf("  VRAM plan (%.2f GiB)      weights %.2f, experts %.2f (%d slots), KV %.2f (%lld tokens), scratch %.2f, "
                    "cuBLAS %.2f, graphs+reserve %.2f GiB; chunk %d\n",
                    g(r.plan.budget), g(r.plan.weights), g(r.plan.experts), r.plan.expert_slots, g(r.plan.kv),
                    (long long)r.plan.kv_tokens, g(r.plan.scratch), g(r.plan.cublas), g(r.plan.graphs + r.plan.reserve),
                    r.plan.prefill_chunk);
        if (r.plan.state) std::printf("  recurrent state          %.2f GiB\n", g(r.plan.state));
    }
    if (!decode) {
        std::printf("  prefill %d tokens (chunk %d)  %8.3f s  %10.1f tok/s  %8.1f TFLOP/s\n", r.prompt_len, r.chunk,
                    r.prefill_s, r.prefill_tok_s, r.prefill_tflops);
        return;
    }
    std::printf("  backend %s, routing %s\n", r.backend.c_str(), r.routing.c_str());
    std::printf("  prompt %d × %d sequence(s) %8.1f tok/s prefill\n", r.prompt_len, r.batch, r.prefill_tok_s);
    std::printf("  decode batch %d, %d steps  %8.1f tok/s   %.3f ms/step (best %.3f), after %d untimed\n", r.batch, r.gen - 1,
                r.decode_tok_s, r.step_ms, r.step_ms_min, r.warmup_steps + 1);
    if (r.kernels_per_step > 0) std::printf("  kernels per step         %8.0f (one CUDA graph)\n", r.kernels_per_step);
    if (r.weight_bytes_per_token > 0)
        std::printf("  weights read per token   %8.3f GB\n", r.weight_bytes_per_token / 1e9);
    if (r.copy_gbs > 0) std::printf("  device copy bandwidth    %8.0f GB/s (measured now)\n", r.copy_gbs);
    if (r.bandwidth_fraction > 0)
        std::printf("  decode reaches           %8.1f %% of copy bandwidth (weights / step time)\n", 100 * r.bandwidth_fraction);
    if (r.expert_slots > 0) {
        std::printf("  expert cache             %8d slots, hit rate %.1f %%\n", r.expert_slots, 100 * r.hit_rate);
        std::printf("  per token: misses %.1f (fetched %.1f, CPU %.1f), miss bytes %.1f MB", r.misses_per_token,
                    r.fetched_per_token, r.cpu_per_token, r.miss_bytes_per_token / 1e6);
        if (r.admitted_per_token > 0) std::printf("; %.1f admitted in the background", r.admitted_per_token);
        std::printf("\n");
        if (r.fraction_end > 0) {
            std::printf("  q* fraction              %8.3f", r.fraction_end);
            if (r.live_fetch_gbs > 0)
                std::printf(" (%.3f at the start of the timed steps; live B_P %.1f GB/s, B_C %.1f GB/s)", r.fraction_start,
                            r.live_fetch_gbs, r.live_cpu_gbs);
            std::printf("\n");
            if (r.search_s >= 0)
                std::printf("  q* search                %8.2f s of decode%s\n", r.search_s,
                            r.search_converged ? ", converged in the warm-up" : ", still searching after the warm-up");
            if (r.restores > 0)
                std::printf("  cache after the search   %8.0f experts copied back in %.1f ms (%.0f searches)\n",
                            r.restored_experts, r.restore_ms, r.restores);
            if (!r.search_windows.empty()) {
                std::printf("  q* search windows        ");
                for (std::size_t i = 0; i < r.search_windows.size(); ++i)
                    std::printf("%s%.3f: %.1f", i ? ", " : "", r.search_windows[i].q, r.search_windows[i].tok_s);
                std::printf(" tok/s\n");
            }
            if (r.duel_center >= 0)
                std::printf("  q* final comparison      %8.3f: %.1f tok/s against q* = 1: %.1f (%s)\n", r.duel_center,
                            r.duel_center_tok_s, r.duel_all_tok_s,
                            r.duel_center_won ? "kept" : "not faster beyond the noise: ends at 1");
        }
        if (r.cpu_layers_per_step > 0)
            std::printf("  CPU side, per layer      %8.1f µs busy (experts %.1f), %.1f µs waiting for the GPU; %.1f layers a "
                        "step\n",
                        r.cpu_busy_us, r.cpu_executor_us, r.cpu_gap_us, r.cpu_layers_per_step);
        if (r.gpu_answer_us > 0 || r.gpu_chain_us > 0)
            std::printf("  GPU side, per layer      %8.1f µs from the hand-over to the CPU's sum added, %.1f µs from there to "
                        "the next hand-over\n",
                        r.gpu_answer_us, r.gpu_chain_us);
        if (r.floor_ms > 0)
            std::printf("  miss floor               %8.3f ms/token (miss bytes / B_H, B_H = %.1f GB/s measured now)\n",
                        r.floor_ms, r.host_read_gbs);
    }
    if (!r.phases_ms.empty()) {
        double total = 0;
        for (const auto& [k, v] : r.phases_ms)
            if (k == "total") total = v;
        std::printf("  one step, phase by phase (timed inside the graph, summed over layers):\n");
        for (const auto& [k, v] : r.phases_ms)
            std::printf("    %-34s %8.3f ms  %5.1f %%\n", k.c_str(), v, total > 0 ? 100 * v / total : 0.0);
    }
}

}  // namespace ft::bench
