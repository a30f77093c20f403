#include "console_history.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "ft/engine.h"

namespace ft::ui {

namespace {

constexpr const char* kNames[] = {
    "vramWeights", "vramExperts", "vramKv", "vramScratch", "vramOther", "vramFree",
    "pcieH2d", "pcieD2h", "pcieFetch", "pciePrefill",
    "cpuExpertGbps",
    "hitRate",
    "fetchedPerToken", "cpuPerToken",
    "fraction",
    "decodeTokS", "prefillTokS",
    "kvUsedTokens", "kvTotalTokens",
};
static_assert(sizeof(kNames) / sizeof(kNames[0]) == std::size_t(Series::count));

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

}  // namespace

const char* series_name(Series s) { return kNames[int(s)]; }

int series_from_name(const char* name) {
    for (int i = 0; i < int(Series::count); ++i)
        if (std::strcmp(kNames[i], name) == 0) return i;
    return -1;
}

ConsoleSample console_sample(const ft::EngineStats& st, std::int64_t t_ms) {
    ConsoleSample s;
    s.t_ms = t_ms;
    auto set = [&](Series k, double v) { s.v[int(k)] = float(v); };
    const bool gpu = st.plan.gpu;
    const float gpu_or_nan = gpu ? 0.f : kNaN;
    set(Series::vram_weights, gpu ? double(st.vram.weights) : gpu_or_nan);
    set(Series::vram_experts, gpu ? double(st.vram.experts) : gpu_or_nan);
    set(Series::vram_kv, gpu ? double(st.vram.kv) : gpu_or_nan);
    set(Series::vram_scratch, gpu ? double(st.vram.scratch) : gpu_or_nan);
    set(Series::vram_other, gpu ? double(st.vram.other) : gpu_or_nan);
    set(Series::vram_free, gpu ? double(st.vram.free) : gpu_or_nan);
    set(Series::pcie_h2d, gpu ? st.pcie.h2d_gbps : gpu_or_nan);
    set(Series::pcie_d2h, gpu ? st.pcie.d2h_gbps : gpu_or_nan);
    set(Series::pcie_fetch, gpu ? st.pcie.fetch_gbps : gpu_or_nan);
    set(Series::pcie_prefill, gpu ? st.pcie.prefill_gbps : gpu_or_nan);
    set(Series::cpu_expert_gbps, st.cache.cpu_expert_gbps);
    const bool cache = st.cache.active;
    set(Series::hit_rate, cache ? st.cache.hit_rate : kNaN);
    set(Series::fetched_per_token, cache ? st.cache.fetched_per_token : kNaN);
    set(Series::cpu_per_token, cache ? st.cache.cpu_per_token : kNaN);
    set(Series::fraction, cache ? st.cache.fraction : kNaN);
    set(Series::decode_tok_s, st.decode_tok_s);
    set(Series::prefill_tok_s, st.prefill_tok_s);
    set(Series::kv_used_tokens, double(st.kv_pages_used) * st.kv_page_size);
    set(Series::kv_total_tokens, double(st.kv_pages_total) * st.kv_page_size);
    if (cache) s.layers = st.cache.layer_hit_rate;
    return s;
}

ConsoleHistory::ConsoleHistory(int capacity) : m_ring(std::size_t(std::max(2, capacity))) {}

void ConsoleHistory::clear() {
    m_head = m_size = 0;
    m_max_layers = 0;
}

void ConsoleHistory::append(const ft::EngineStats& stats, std::int64_t t_ms) { append(console_sample(stats, t_ms)); }

void ConsoleHistory::append(ConsoleSample sample) {
    m_max_layers = std::max(m_max_layers, int(sample.layers.size()));
    const int cap = capacity();
    if (m_size < cap) {
        m_ring[std::size_t((m_head + m_size) % cap)] = std::move(sample);
        ++m_size;
    } else {
        m_ring[std::size_t(m_head)] = std::move(sample);  // the oldest goes
        m_head = (m_head + 1) % cap;
    }
}

int ConsoleHistory::lower_bound(std::int64_t t_ms) const {
    int lo = 0, hi = m_size;
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (at(mid).t_ms < t_ms) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

int ConsoleHistory::count_in_window(std::int64_t window_ms) const {
    if (m_size == 0) return 0;
    return m_size - lower_bound(newest().t_ms - window_ms);
}

}  // namespace ft::ui
