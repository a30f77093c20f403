#include "exec/runner_counters.h"

namespace ft::exec {

std::vector<std::pair<std::string, double>> RunnerCounters::named() const {
    std::vector<std::pair<std::string, double>> c = {{"steps", steps},
                                                     {"graph_replays", graph_replays},
                                                     {"graph_nodes", graph_nodes},
                                                     {"eager_launches_last", eager_launches_last},
                                                     {"vram_used_bytes", vram_used},
                                                     {"vram_peak_bytes", vram_peak},
                                                     {"vram_weights_bytes", vram_weights},
                                                     {"vram_kv_bytes", vram_kv},
                                                     {"vram_scratch_bytes", vram_scratch},
                                                     {"vram_experts_bytes", vram_experts},
                                                     {"vram_cublas_bytes", vram_cublas},
                                                     {"vram_budget_bytes", vram_budget},
                                                     {"d2h_bytes", d2h_bytes},
                                                     {"weight_bytes_per_token", weight_bytes_per_token}};
    if (!expert_cache) return c;
    for (std::size_t il = 0; il < layers.size(); ++il) {
        if (!layers[il].active) continue;
        const std::string n = "layer" + std::to_string(il) + "_";
        c.insert(c.end(), {{n + "hits", layers[il].hits},
                           {n + "misses", layers[il].misses},
                           {n + "fetched", layers[il].fetched},
                           {n + "cpu", layers[il].cpu}});
    }
    for (std::size_t i = 0; i < search_history.size(); ++i) {
        const std::string n = "hybrid_search_w" + std::to_string(i) + "_";
        const SearchWindow& w = search_history[i];
        c.insert(c.end(), {{n + "q", w.q}, {n + "tok_s", w.tok_s}, {n + "at_s", w.at_s}, {n + "search", double(w.search)}});
    }
    if (duel.held)
        c.insert(c.end(), {{"hybrid_duel_center", duel.center},
                           {"hybrid_duel_center_won", duel.center_won ? 1.0 : 0.0},
                           {"hybrid_duel_all_tok_s", duel.all_tok_s},
                           {"hybrid_duel_center_tok_s", duel.center_tok_s}});
    c.insert(c.end(), {{"fetch_h2d_bytes", fetch_h2d_bytes},
                       {"prefill_h2d_bytes", prefill_h2d_bytes},
                       {"hybrid_fraction", hybrid_fraction},
                       {"live_fetch_gbps", live_fetch_gbps},
                       {"hybrid_searching", hybrid_searching ? 1.0 : 0.0},
                       {"hybrid_search_seconds", hybrid_search_seconds},
                       {"hybrid_search_windows", hybrid_search_windows},
                       {"live_cpu_gbps", live_cpu_gbps},
                       {"expert_slots", expert_slots},
                       {"expert_cache_warmed", expert_cache_warmed},
                       {"expert_slot_bytes", expert_slot_bytes},
                       {"expert_hits", expert_hits},
                       {"expert_misses", expert_misses},
                       {"expert_fetched", expert_fetched},
                       {"expert_cpu", expert_cpu},
                       {"h2d_bytes", h2d_bytes},
                       {"expert_admitted", expert_admitted},
                       {"expert_cache_restores", expert_cache_restores},
                       {"expert_cache_restored", expert_cache_restored},
                       {"expert_cache_restore_seconds", expert_cache_restore_seconds},
                       {"cpu_expert_bytes", cpu_expert_bytes},
                       {"cpu_layers_served", cpu_layers_served},
                       {"cpu_busy_ns", cpu_busy_ns},
                       {"cpu_executor_ns", cpu_executor_ns},
                       {"cpu_gap_ns", cpu_gap_ns},
                       {"cpu_gaps", cpu_gaps},
                       {"gpu_handoff_answer_ns", gpu_handoff_answer_ns},
                       {"gpu_handoff_answers", gpu_handoff_answers},
                       {"gpu_handoff_chain_ns", gpu_handoff_chain_ns},
                       {"gpu_handoff_chains", gpu_handoff_chains},
                       {"host_pinned_bytes", host_pinned_bytes},
                       {"host_store_bytes", host_store_bytes},
                       {"host_bounced", host_bounced},
                       {"host_bounce_bytes", host_bounce_bytes}});
    return c;
}

}  // namespace ft::exec
