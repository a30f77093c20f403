#include "sched/engine_stats.h"

#include <cmath>
#include <limits>

namespace ft::sched {

void StatsTracker::update(const exec::RunnerCounters& c, std::uint64_t decode_tokens, int n_layer, EngineStats& s) {
    using Clock = std::chrono::steady_clock;
    const auto now = Clock::now();
    VramStats& v = s.vram;
    v.weights = std::uint64_t(c.vram_weights);
    v.experts = std::uint64_t(c.vram_experts);
    v.kv = std::uint64_t(c.vram_kv);
    v.scratch = std::uint64_t(c.vram_scratch);
    v.other = std::uint64_t(c.vram_cublas) + s.plan.graphs + (s.plan.gpu ? 32ull << 20 : 0);
    v.budget = s.plan.budget;
    v.device_total = s.plan.device_total;
    v.peak = std::uint64_t(c.vram_peak);
    const std::uint64_t used = v.weights + v.experts + v.kv + v.scratch + v.other;
    v.free = v.budget > used ? v.budget - used : 0;
    s.steps = std::uint64_t(c.steps);
    s.graph_replays = std::uint64_t(c.graph_replays);

    Sample x;
    x.t = now;
    x.fetch = c.fetch_h2d_bytes;
    x.prefill = c.prefill_h2d_bytes;
    x.h2d = c.h2d_bytes;
    x.d2h = c.d2h_bytes;
    x.cpu_bytes = c.cpu_expert_bytes;
    x.hits = c.expert_hits;
    x.misses = c.expert_misses;
    x.fetched = c.expert_fetched;
    x.cpu = c.expert_cpu;
    x.tokens = double(decode_tokens);
    x.layer_hits.assign(std::size_t(std::max(0, n_layer)), 0);
    x.layer_misses.assign(std::size_t(std::max(0, n_layer)), 0);
    for (int il = 0; il < n_layer && std::size_t(il) < c.layers.size(); ++il) {
        x.layer_hits[std::size_t(il)] = c.layers[std::size_t(il)].hits;
        x.layer_misses[std::size_t(il)] = c.layers[std::size_t(il)].misses;
    }
    // A counter that went down means a new backend (reload, rebuild): start the window again.
    if (!samples_.empty() && (x.hits < samples_.back().hits || x.h2d < samples_.back().h2d || x.tokens < samples_.back().tokens))
        samples_.clear();
    samples_.push_back(x);
    while (samples_.size() > 2 && now - samples_[1].t > std::chrono::seconds(5)) samples_.pop_front();

    PcieStats& p = s.pcie;
    p.h2d_bytes = std::uint64_t(x.h2d);
    p.d2h_bytes = std::uint64_t(x.d2h);
    p.fetch_bytes = std::uint64_t(x.fetch);
    p.prefill_bytes = std::uint64_t(x.prefill);
    ExpertCacheStats& e = s.cache;
    e.active = c.expert_slots > 0;
    e.n_slots = int(c.expert_slots);
    e.n_slots_total = s.plan.expert_slots_total;
    e.hits = std::uint64_t(x.hits);
    e.misses = std::uint64_t(x.misses);
    e.fetched = std::uint64_t(x.fetched);
    e.cpu = std::uint64_t(x.cpu);
    e.fraction = c.hybrid_fraction;
    e.bp_gbps = c.live_fetch_gbps;  // hybrid's live B_P and B_C (0 until measured, and on other backends)
    e.bc_gbps = c.live_cpu_gbps;

    // Rates over the last second (the newest sample at least 1 s older than now, else the oldest).
    const Sample* r = &samples_.front();
    for (auto it = samples_.rbegin(); it != samples_.rend(); ++it)
        if (now - it->t >= std::chrono::seconds(1)) {
            r = &*it;
            break;
        }
    const double dt = std::chrono::duration<double>(now - r->t).count();
    auto rate = [&](double a, double b) { return dt > 0 ? (a - b) / dt / 1e9 : 0.0; };
    p.h2d_gbps = rate(x.h2d, r->h2d);
    p.d2h_gbps = rate(x.d2h, r->d2h);
    p.fetch_gbps = rate(x.fetch, r->fetch);
    p.prefill_gbps = rate(x.prefill, r->prefill);
    e.cpu_expert_gbps = rate(x.cpu_bytes, r->cpu_bytes);

    // Hit rates and misses per token over the whole window.
    const Sample& w = samples_.front();
    const double dh = x.hits - w.hits, dm = x.misses - w.misses, dtok = x.tokens - w.tokens;
    e.hit_rate = dh + dm > 0 ? dh / (dh + dm) : (x.hits + x.misses > 0 ? x.hits / (x.hits + x.misses) : 0);
    e.fetched_per_token = dtok > 0 ? (x.fetched - w.fetched) / dtok : 0;
    e.cpu_per_token = dtok > 0 ? (x.cpu - w.cpu) / dtok : 0;
    e.layer_hit_rate.assign(std::size_t(std::max(0, n_layer)), std::numeric_limits<float>::quiet_NaN());
    if (e.active && w.layer_hits.size() == x.layer_hits.size())
        for (int il = 0; il < n_layer; ++il) {
            const double h = x.layer_hits[std::size_t(il)] - w.layer_hits[std::size_t(il)];
            const double m = x.layer_misses[std::size_t(il)] - w.layer_misses[std::size_t(il)];
            if (h + m > 0) e.layer_hit_rate[std::size_t(il)] = float(h / (h + m));
        }
}

}  // namespace ft::sched
