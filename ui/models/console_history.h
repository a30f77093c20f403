// ConsoleHistory: the Console's time series, one sample per stats snapshot (8 Hz from EngineHost), kept in a ring
// that holds the longest window the page offers (15 min). Charts read it through `seriesValue` by series id, so a
// chart is a list of ids and colours; the per-layer hit rates ride along for the heatmap. Plain C++ (no QObject):
// the ConsoleModel owns one and tells the charts when it changed. Main-thread object.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace ft {
struct EngineStats;
}

namespace ft::ui {

// What a chart can plot. Names (for QML) come from series_name() / series_from_name().
enum class Series : int {
    vram_weights, vram_experts, vram_kv, vram_scratch, vram_other, vram_free,  // bytes
    pcie_h2d, pcie_d2h, pcie_fetch, pcie_prefill,                              // GB/s
    cpu_expert_gbps,                                                           // GB/s
    hit_rate,                                                                  // 0..1 (NaN: no cache)
    fetched_per_token, cpu_per_token,                                          // misses per decoded token
    fraction,                                                                  // q* fetched share 0..1
    decode_tok_s, prefill_tok_s,
    kv_used_tokens, kv_total_tokens,                                           // positions
    count
};

const char* series_name(Series s);
int series_from_name(const char* name);  // -1 if unknown

struct ConsoleSample {
    std::int64_t t_ms = 0;  // monotonic milliseconds
    float v[int(Series::count)] = {};
    std::vector<float> layers;  // per-layer hit rate (NaN: no MoE call in the engine's window)
};

class ConsoleHistory {
public:
    explicit ConsoleHistory(int capacity = 15 * 60 * 8);

    void clear();
    void append(const ft::EngineStats& stats, std::int64_t t_ms);
    void append(ConsoleSample sample);

    int capacity() const { return int(m_ring.size()); }
    int size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    // i = 0 is the oldest kept sample, size() - 1 the newest.
    const ConsoleSample& at(int i) const { return m_ring[std::size_t((m_head + i) % int(m_ring.size()))]; }
    const ConsoleSample& newest() const { return at(m_size - 1); }
    // First index whose time is >= t_ms (size() if none).
    int lower_bound(std::int64_t t_ms) const;
    // Samples inside the last `window_ms` before the newest one.
    int count_in_window(std::int64_t window_ms) const;
    int max_layers() const { return m_max_layers; }

private:
    std::vector<ConsoleSample> m_ring;
    int m_head = 0, m_size = 0;
    int m_max_layers = 0;
};

// One snapshot as a sample: bytes as bytes, rates as given, NaN where the figure does not exist (no cache).
ConsoleSample console_sample(const ft::EngineStats& stats, std::int64_t t_ms);

}  // namespace ft::ui
