// A runner's cumulative counters, typed: what the stats feed (sched/engine_stats), `ft bench` and /v1/stats read.
// Each field is written by the runner and read by name in code, so a typo is a compile error; named() gives the
// "name → value" list that benches' JSON and EngineStats::backend carry (the names in one place, here).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ft::exec {

struct RunnerCounters {
    // Decode steps and CUDA graphs.
    double steps = 0, graph_replays = 0, graph_nodes = 0, eager_launches_last = 0;
    // VRAM by use, bytes.
    double vram_used = 0, vram_peak = 0, vram_weights = 0, vram_kv = 0, vram_scratch = 0, vram_experts = 0,
           vram_cublas = 0, vram_budget = 0;
    double d2h_bytes = 0, weight_bytes_per_token = 0;

    // The expert cache (offload backends); all zero without one.
    bool expert_cache = false;
    struct Layer {
        double hits = 0, misses = 0, fetched = 0, cpu = 0;
        bool active = false;  // the layer has been called since load
    };
    std::vector<Layer> layers;  // [n_layer]
    double expert_slots = 0, expert_slot_bytes = 0, expert_cache_warmed = 0;
    double expert_hits = 0, expert_misses = 0, expert_fetched = 0, expert_cpu = 0, expert_admitted = 0;
    double fetch_h2d_bytes = 0, prefill_h2d_bytes = 0, h2d_bytes = 0;
    double expert_cache_restores = 0, expert_cache_restored = 0, expert_cache_restore_seconds = 0;
    // Hybrid's q* and its live bandwidths (B_P: PCIe fetches, B_C: CPU experts; 0: not measured or not hybrid).
    double hybrid_fraction = 0, live_fetch_gbps = 0, live_cpu_gbps = 0;
    bool hybrid_searching = false;
    double hybrid_search_seconds = 0, hybrid_search_windows = 0;
    struct SearchWindow {
        double q = 0, tok_s = 0, at_s = 0;
        int search = 0;
    };
    std::vector<SearchWindow> search_history;
    struct Duel {
        bool held = false;
        double center = 0, all_tok_s = 0, center_tok_s = 0;
        bool center_won = false;
    } duel;
    // The CPU side of the hand-over (hybrid, cpu) and the GPU's clock of it.
    double cpu_expert_bytes = 0, cpu_layers_served = 0, cpu_busy_ns = 0, cpu_executor_ns = 0, cpu_gap_ns = 0,
           cpu_gaps = 0;
    double gpu_handoff_answer_ns = 0, gpu_handoff_answers = 0, gpu_handoff_chain_ns = 0, gpu_handoff_chains = 0;
    // The host expert store.
    double host_pinned_bytes = 0, host_store_bytes = 0, host_bounced = 0, host_bounce_bytes = 0;

    std::vector<std::pair<std::string, double>> named() const;
};

}  // namespace ft::exec
