// The typed stats feed: turns a runner's cumulative counters (exec::RunnerCounters) into EngineStats' VRAM, PCIe and
// expert-cache figures, with rates over the last second and hit rates over a recent window (the last 5 s).
// Engine-thread only; the engine copies the result into its snapshot under its lock, so stats() never waits.
#pragma once

#include <chrono>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "exec/runner_counters.h"
#include "ft/engine.h"

namespace ft::sched {


class StatsTracker {
public:
    // decode_tokens: tokens decoded since load (all sequences). Fills s.vram, s.pcie, s.cache, steps, replays.
    void update(const exec::RunnerCounters& c, std::uint64_t decode_tokens, int n_layer, EngineStats& s);

private:
    struct Sample {
        std::chrono::steady_clock::time_point t;
        double h2d = 0, d2h = 0, fetch = 0, prefill = 0, cpu_bytes = 0, hits = 0, misses = 0, fetched = 0, cpu = 0;
        double tokens = 0;
        std::vector<double> layer_hits, layer_misses;
    };
    std::deque<Sample> samples_;
};

}  // namespace ft::sched
