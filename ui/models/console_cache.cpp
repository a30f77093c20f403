#include "console_cache.h"

#include <algorithm>
#include <cmath>

#include "ft/engine.h"

namespace ft::ui {

CacheGeometry cache_geometry(const ft::EngineStats& st, int n_expert_hint) {
    CacheGeometry g;
    if (!st.loaded) return g;
    const ft::MemoryPlan& p = st.plan;
    g.gpu = p.gpu;
    g.kv_page = p.kv_page_size > 0 ? p.kv_page_size : std::max(1, st.kv_page_size);
    g.kv_now = p.kv_tokens > 0 ? p.kv_tokens : std::int64_t(st.kv_pages_total) * std::max(1, st.kv_page_size);
    g.kv_bytes_per_token = p.kv_bytes_per_token;
    g.n_ctx = p.n_ctx;
    g.max_sequences = p.max_sequences;
    // The planner's limits when it gives them; else (the CPU engine) from what is in use up to what is allocated.
    const std::int64_t used = std::int64_t(st.kv_pages_used) * std::max(1, st.kv_page_size);
    g.kv_min = p.min_kv_tokens > 0 ? p.min_kv_tokens : std::max<std::int64_t>(g.kv_page, used);
    g.kv_max = p.max_kv_tokens > 0 ? p.max_kv_tokens : std::max(g.kv_now, g.kv_min);
    g.kv_min = kv_round(g, g.kv_min);
    g.kv_max = std::max(g.kv_min, g.kv_max / g.kv_page * g.kv_page);
    g.kv_slider_max = kv_round(g, g.kv_max + std::max<std::int64_t>(g.kv_page, (g.kv_max - g.kv_min) / 4));
    g.valid = g.kv_now > 0;

    g.slots_total = p.expert_slots_total;
    g.slots_now = p.expert_slots;
    g.slot_bytes = p.expert_slot_bytes;
    g.slots_min = p.min_expert_slots;
    g.slots_max = std::max(p.max_expert_slots, g.slots_min);
    const int layers = int(st.cache.layer_hit_rate.size());
    g.experts_per_layer = n_expert_hint > 0 ? n_expert_hint : layers > 0 ? g.slots_total / layers : 0;
    g.overlap_slots = 2 * g.experts_per_layer;
    g.expert_resizable = p.gpu && p.backend != "resident" && g.slot_bytes > 0 && g.slots_max > 0;
    if (p.gpu) {
        const std::uint64_t fixed = p.weights + p.scratch + p.cublas + p.graphs + p.reserve;
        g.cache_budget = p.budget > fixed ? p.budget - fixed : 0;
    }
    return g;
}

std::int64_t kv_round(const CacheGeometry& g, std::int64_t tokens) {
    const std::int64_t page = std::max(1, g.kv_page);
    return std::max<std::int64_t>(page, (tokens + page - 1) / page * page);
}

std::uint64_t cache_bytes(const CacheGeometry& g, std::int64_t kv_tokens, int n_slots) {
    std::uint64_t b = std::uint64_t(std::max<std::int64_t>(0, kv_tokens)) * g.kv_bytes_per_token;
    if (g.expert_resizable) b += std::uint64_t(std::max(0, n_slots)) * g.slot_bytes;
    return b;
}

bool cache_fits(const CacheGeometry& g, std::int64_t kv_tokens, int n_slots) {
    if (kv_tokens < g.kv_min || kv_tokens > g.kv_max) return false;
    if (!g.expert_resizable) return true;
    if (n_slots < g.slots_min || n_slots > g.slots_max) return false;
    return g.cache_budget == 0 || cache_bytes(g, kv_tokens, n_slots) <= g.cache_budget;
}

int slots_for_kv(const CacheGeometry& g, std::int64_t kv_tokens, int slots_wanted) {
    if (!g.expert_resizable) return g.slots_now;
    int s = std::clamp(slots_wanted, g.slots_min, g.slots_max);
    if (g.cache_budget == 0 || g.slot_bytes == 0) return s;
    const std::uint64_t kv_b = std::uint64_t(std::max<std::int64_t>(0, kv_tokens)) * g.kv_bytes_per_token;
    const std::int64_t room = kv_b >= g.cache_budget ? 0 : std::int64_t((g.cache_budget - kv_b) / g.slot_bytes);
    return std::max(g.slots_min, int(std::min<std::int64_t>(s, room)));
}

std::int64_t kv_for_slots(const CacheGeometry& g, int n_slots, std::int64_t kv_wanted) {
    std::int64_t kv = std::clamp(kv_wanted, g.kv_min, g.kv_max);
    if (!g.expert_resizable || g.cache_budget == 0 || g.kv_bytes_per_token == 0) return kv;
    const std::uint64_t ex = std::uint64_t(std::max(0, n_slots)) * g.slot_bytes;
    const std::int64_t room = ex >= g.cache_budget ? 0 : std::int64_t((g.cache_budget - ex) / g.kv_bytes_per_token);
    const std::int64_t fit = room / g.kv_page * g.kv_page;
    return std::max(g.kv_min, std::min(kv, fit));
}

std::vector<CachePreset> cache_presets(const CacheGeometry& g) {
    std::vector<CachePreset> out;
    if (!g.valid) return out;
    auto fill_slots = [&](std::int64_t kv) { return slots_for_kv(g, kv, g.slots_max); };
    // Minimum: the least of both, the VRAM left free.
    out.push_back({"minimum", g.kv_min, g.expert_resizable ? g.slots_min : g.slots_now});
    // Chat: one conversation's full context (n_ctx), every byte left to the expert cache.
    const std::int64_t chat_kv = std::clamp(kv_round(g, g.n_ctx > 0 ? g.n_ctx : g.kv_now), g.kv_min, g.kv_max);
    out.push_back({"chat", chat_kv, fill_slots(chat_kv)});
    // Agent / long context: KV as large as it gets while the expert cache keeps prefill overlap (2 × per layer).
    std::int64_t agent_kv = g.kv_max;
    if (g.expert_resizable) agent_kv = kv_for_slots(g, std::clamp(g.overlap_slots, g.slots_min, g.slots_max), g.kv_max);
    out.push_back({"agent", agent_kv, fill_slots(agent_kv)});
    // Max speed: every slot that fits beside the KV floor.
    // Without an expert cache to size (the CPU engine, every expert resident) speed does not depend on the
    // caches: no Max speed.
    if (g.expert_resizable) {
        const int speed_slots = slots_for_kv(g, g.kv_min, g.slots_max);
        out.push_back({"speed", kv_for_slots(g, speed_slots, g.kv_min), speed_slots});
    }
    // One tile per distinct setting: Chat stays where it equals Minimum (one context is the least KV there is).
    std::vector<CachePreset> distinct;
    for (const CachePreset& p : out) {
        const auto same = [&](const CachePreset& q) { return q.kv_tokens == p.kv_tokens && q.n_slots == p.n_slots; };
        if (p.key == "minimum" && same(out[1])) continue;
        if (std::none_of(distinct.begin(), distinct.end(), same)) distinct.push_back(p);
    }
    return distinct;
}

double predict_decode_tok_s(const CacheGeometry& g, const ft::EngineStats& st, int n_slots) {
    const double d0 = st.decode_tok_s;
    if (d0 <= 0) return 0;
    if (!g.expert_resizable || !st.cache.active || g.slots_total <= 0) return d0;  // caches do not set the speed
    const double misses0 = st.cache.fetched_per_token + st.cache.cpu_per_token;
    const std::string& be = st.plan.backend;
    double bw = be == "offload" ? st.cache.bp_gbps : be == "cpu" ? st.cache.bc_gbps : st.cache.bp_gbps + st.cache.bc_gbps;
    if (bw <= 0 || misses0 <= 0) return d0;
    const double left0 = std::max(1.0, double(g.slots_total - g.slots_now));
    const double left = std::max(0.0, double(g.slots_total - std::clamp(n_slots, 0, g.slots_total)));
    const double misses = misses0 * left / left0;
    const double bytes_per_s = bw * 1e9;
    const double t0 = 1.0 / d0;
    const double miss_t0 = misses0 * double(g.slot_bytes) / bytes_per_s;
    const double rest = std::max(t0 - miss_t0, 0.2 * t0);  // never credit more than 80% of a step to misses
    return 1.0 / (rest + misses * double(g.slot_bytes) / bytes_per_s);
}

}  // namespace ft::ui
