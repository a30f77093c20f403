// The Console's cache-config arithmetic, as pure functions of the plan the engine reports (ft::MemoryPlan in
// EngineStats): the slider limits, the coupling of the KV and expert-cache sliders inside the budget, the presets,
// and the predicted decode speed of a setting. No Qt objects, no state: the ConsoleModel calls these and tests can
// check them on a real engine's plan.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ft {
struct EngineStats;
struct ModelInfo;
}

namespace ft::ui {

struct CacheGeometry {
    bool valid = false;          // a model is loaded and reports KV figures
    bool gpu = false;
    bool expert_resizable = false;  // a GPU plan with an expert cache (not resident, not the CPU engine)
    std::int64_t kv_min = 0, kv_max = 0, kv_now = 0;
    std::int64_t kv_slider_max = 0;     // kv_max plus a stretch past the budget (Apply there is refused)
    std::uint64_t kv_bytes_per_token = 0;  // 0: unknown (the CPU engine may not say)
    int kv_page = 16;
    int slots_min = 0, slots_max = 0, slots_now = 0, slots_total = 0;
    std::uint64_t slot_bytes = 0;
    int experts_per_layer = 0;
    int overlap_slots = 0;              // 2 × experts per layer: prefill streams layer l+1 while l computes
    std::uint64_t cache_budget = 0;     // bytes KV + expert cache may share (0: no shared budget, the CPU engine)
    int n_ctx = 0, max_sequences = 0;
};

CacheGeometry cache_geometry(const ft::EngineStats& stats, int n_expert_hint);

std::int64_t kv_round(const CacheGeometry& g, std::int64_t tokens);  // to whole KV pages

// Bytes of a setting (what the two caches would take).
std::uint64_t cache_bytes(const CacheGeometry& g, std::int64_t kv_tokens, int n_slots);
bool cache_fits(const CacheGeometry& g, std::int64_t kv_tokens, int n_slots);

// The expert slots that go with `kv_tokens` when the KV slider moves: the current slots if they still fit, else
// as many as fit (never below slots_min). And the other way round for the expert slider.
int slots_for_kv(const CacheGeometry& g, std::int64_t kv_tokens, int slots_wanted);
std::int64_t kv_for_slots(const CacheGeometry& g, int n_slots, std::int64_t kv_wanted);

struct CachePreset {
    std::string key;   // "minimum", "chat", "agent", "speed"
    std::int64_t kv_tokens = 0;
    int n_slots = 0;
};
// Minimum: the smallest of both. Chat: one full context of KV, the rest to experts. Agent/long context: as much
// KV as leaves 2 × experts-per-layer slots (prefill overlap). Max speed: as many slots as leave the KV floor (only
// with an expert cache to size). Settings that repeat an earlier one are left out (Minimum where it equals Chat).
std::vector<CachePreset> cache_presets(const CacheGeometry& g);

// Predicted decode tok/s of a setting, from what is measured now (the model, stated in the Console's caption):
// misses per token scale with the share of experts left out of the cache, (T − s) / (T − s₀); a token costs the
// measured time of everything else plus its misses × slot bytes over B_P + B_C (hybrid; B_P offload, B_C cpu).
// KV size does not change decode speed. Returns 0 when nothing was decoded yet (no measurement to scale).
double predict_decode_tok_s(const CacheGeometry& g, const ft::EngineStats& stats, int n_slots);

}  // namespace ft::ui
