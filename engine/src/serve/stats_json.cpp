// EngineStats / MemoryPlan / RebuildResult → JSON (see stats_json.h).
#include "serve/stats_json.h"

#include <cmath>

namespace ft::serve {

using json = nlohmann::ordered_json;

json plan_to_json(const MemoryPlan& p) {
    json j = json::object();
    j["gpu"] = p.gpu;
    j["backend"] = p.backend;
    j["device_total"] = p.device_total;
    j["device_free"] = p.device_free;
    j["budget"] = p.budget;
    j["weights"] = p.weights;
    j["experts"] = p.experts;
    j["kv"] = p.kv;
    j["scratch"] = p.scratch;
    j["cublas"] = p.cublas;
    j["graphs"] = p.graphs;
    j["reserve"] = p.reserve;
    j["total"] = p.total();
    j["expert_slots"] = p.expert_slots;
    j["expert_slots_total"] = p.expert_slots_total;
    j["expert_slot_bytes"] = p.expert_slot_bytes;
    j["kv_tokens"] = p.kv_tokens;
    j["kv_bytes_per_token"] = p.kv_bytes_per_token;
    j["kv_page_size"] = p.kv_page_size;
    j["kv_bytes_per_element"] = p.kv_bytes_per_element;
    j["prefill_chunk"] = p.prefill_chunk;
    j["prefill_overlap"] = p.prefill_overlap;
    j["n_ctx"] = p.n_ctx;
    j["n_ctx_auto"] = p.n_ctx_auto;
    j["max_sequences"] = p.max_sequences;
    j["min_expert_slots"] = p.min_expert_slots;
    j["max_expert_slots"] = p.max_expert_slots;
    j["min_kv_tokens"] = p.min_kv_tokens;
    j["max_kv_tokens"] = p.max_kv_tokens;
    j["notes"] = p.notes;
    return j;
}

namespace {

json cache_json(const ExpertCacheStats& c) {
    json j = json::object();
    j["active"] = c.active;
    j["slots"] = c.n_slots;
    j["slots_total"] = c.n_slots_total;
    j["hit_rate"] = c.hit_rate;
    json layers = json::array();
    for (float v : c.layer_hit_rate) layers.push_back(std::isnan(v) ? json() : json(v));  // NaN: no call in the window
    j["layer_hit_rate"] = layers;
    j["fetched_per_token"] = c.fetched_per_token;
    j["cpu_per_token"] = c.cpu_per_token;
    j["fraction"] = c.fraction;
    j["hits"] = c.hits;
    j["misses"] = c.misses;
    j["fetched"] = c.fetched;
    j["cpu"] = c.cpu;
    j["cpu_expert_gbps"] = c.cpu_expert_gbps;
    j["bp_gbps"] = c.bp_gbps;
    j["bc_gbps"] = c.bc_gbps;
    return j;
}

json vram_json(const VramStats& v) {
    return json{{"weights", v.weights}, {"experts", v.experts}, {"kv", v.kv},         {"scratch", v.scratch},
                {"other", v.other},     {"free", v.free},       {"budget", v.budget}, {"device_total", v.device_total},
                {"peak", v.peak}};
}

json pcie_json(const PcieStats& p) {
    return json{{"h2d_bytes", p.h2d_bytes},         {"d2h_bytes", p.d2h_bytes}, {"fetch_bytes", p.fetch_bytes},
                {"prefill_bytes", p.prefill_bytes}, {"h2d_gbps", p.h2d_gbps},   {"d2h_gbps", p.d2h_gbps},
                {"fetch_gbps", p.fetch_gbps},       {"prefill_gbps", p.prefill_gbps}};
}

json finite(double v) { return std::isfinite(v) ? json(v) : json(); }

}  // namespace

json stats_to_json(const EngineStats& s) {
    json j = json::object();
    j["loaded"] = s.loaded;
    j["state"] = s.state;
    j["model"] = s.model;
    j["device"] = s.device;
    j["running"] = s.running;
    j["queued"] = s.queued;
    j["decode_tok_s"] = finite(s.decode_tok_s);
    j["prefill_tok_s"] = finite(s.prefill_tok_s);
    j["last_ttft_ms"] = finite(s.last_ttft_ms);
    j["prompt_tokens_total"] = s.prompt_tokens_total;
    j["generated_tokens_total"] = s.generated_tokens_total;
    j["requests_total"] = s.requests_total;
    j["requests_paused_total"] = s.requests_paused_total;
    j["kv_pages_used"] = s.kv_pages_used;
    j["kv_pages_total"] = s.kv_pages_total;
    j["kv_page_size"] = s.kv_page_size;
    j["kv_pages_cached"] = s.kv_pages_cached;
    j["prefill_tokens_total"] = s.prefill_tokens_total;
    j["prefix_hit_tokens_total"] = s.prefix_hit_tokens_total;
    j["expert_calls_total"] = s.expert_calls_total;
    j["cpu_expert_bytes_total"] = s.cpu_expert_bytes_total;
    j["uptime_s"] = finite(s.uptime_s);
    j["graph_replays"] = s.graph_replays;
    j["steps"] = s.steps;
    j["vram"] = vram_json(s.vram);
    j["pcie"] = pcie_json(s.pcie);
    j["cache"] = cache_json(s.cache);
    j["plan"] = plan_to_json(s.plan);
    json backend = json::object();
    for (const auto& [k, v] : s.backend) backend[k] = finite(v);
    j["backend"] = backend;
    return j;
}

json cache_status_to_json(const EngineStats& s) {
    json j = json::object();
    j["model"] = s.model;
    j["device"] = s.device;
    j["backend"] = s.plan.backend;
    j["expert_cache"] = cache_json(s.cache);
    j["kv"] = json{{"pages_used", s.kv_pages_used}, {"pages_total", s.kv_pages_total}, {"page_size", s.kv_page_size},
                   {"tokens", s.kv_pages_total * s.kv_page_size}};
    j["vram"] = vram_json(s.vram);
    j["plan"] = plan_to_json(s.plan);
    return j;
}

json rebuild_result_to_json(const RebuildResult& r) {
    json j = json::object();
    j["accepted"] = r.accepted;
    j["reason"] = r.reason;
    // The reason as a key and arguments, for a client that words it in its user's language (the desktop app).
    if (!r.reason_key.empty()) j["reason_key"] = {{"key", r.reason_key.key}, {"args", r.reason_key.args}};
    j["plan"] = plan_to_json(r.plan);
    return j;
}

}  // namespace ft::serve
