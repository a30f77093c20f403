// `ft bench decode` and `ft bench prefill`: end-to-end forward passes of a real model file on the chosen device,
// through the same runners the engine uses (random prompt tokens from a seed; greedy continuation).
//   decode:  prefill a prompt per sequence, then `gen` steps of `batch` tokens; tok/s, ms per step, the decode
//            step's phases (GPU: timed inside a captured graph), kernels per step, and for batch 1 the fraction of
//            the GPU's copy bandwidth the step reaches (weight bytes read per token / step time / copy GB/s,
//            copy measured in the same run).
//   prefill: one prompt of `prompt_len` tokens in chunks of `chunk`; tok/s and model TFLOP/s (matrix products of
//            the active parameters, 2 flops per multiply-add, plus causal attention 4·n_head·head_dim·Σpos per layer).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ft/engine.h"
#include "ft/plan.h"

namespace ft::bench {

struct ForwardBenchOptions {
    LoadOptions load;          // model, device, threads, vram budget, gemm precision, graphs
    int prompt_len = 512;
    int gen = 128;             // decode steps
    int batch = 1;             // sequences decoded together
    int chunk = 8192;          // prefill chunk
    std::uint64_t seed = 1;
    std::string routing = "model";  // decode: model | trace:FILE | synthetic[:zipf=…,reuse=…,seed=…]
    bool measure_host = false;      // decode: also measure host read bandwidth B_H (for the miss floor)
    // decode: untimed steps before the timed ones (< 0: automatic — 32, and for hybrid with the online q* search
    // until the search converged, at most 2000). They run over the timed steps' positions, which are rewound after.
    int warmup = -1;
};

struct ForwardBenchResult {
    std::string model, device;
    int prompt_len = 0, gen = 0, batch = 0, chunk = 0;
    double load_s = 0;
    int warm_started = 0;  // experts the load put in the GPU expert cache (warm start: stored use, or an even share)
    double prefill_s = 0, prefill_tok_s = 0, prefill_tflops = 0;
    double decode_s = 0, decode_tok_s = 0, step_ms = 0, step_ms_min = 0;
    double weight_bytes_per_token = 0;  // weights a single-token step reads
    double copy_gbs = 0;                // device copy bandwidth, same run (0 on the CPU)
    double bandwidth_fraction = 0;      // batch 1: weight bytes / step time / copy bandwidth
    double kernels_per_step = 0;
    std::vector<std::pair<std::string, double>> phases_ms;  // one decode step
    std::vector<std::pair<std::string, double>> counters;
    // Expert offload (non-resident backends), per decoded token over the timed steps.
    std::string backend, routing;
    double hit_rate = 0, misses_per_token = 0, fetched_per_token = 0, cpu_per_token = 0;
    double admitted_per_token = 0;    // hybrid: CPU-computed experts brought into the cache in the background
    // hybrid: the caches brought back after a q* search, over the warm-up and the timed steps (times, experts
    // copied back, milliseconds)
    double restores = 0, restored_experts = 0, restore_ms = 0;
    double fraction_start = 0, fraction_end = 0;  // hybrid: q* before and after the timed steps (refined online)
    double live_fetch_gbs = 0, live_cpu_gbs = 0;  // hybrid: the online refinement's B_P and B_C at the end
    // The CPU side of the handshake over the timed steps, per layer it served (µs): busy (gather, experts, sum),
    // of it in the expert executor, and the wait for the GPU's next layer within a step. 0: no coordinator thread.
    double cpu_layers_per_step = 0, cpu_busy_us = 0, cpu_executor_us = 0, cpu_gap_us = 0;
    // The GPU's clock of the same handshake (µs per layer): hand-over -> the CPU's sum added (the CPU's work and both
    // crossings), sum added -> the next layer's hand-over (the GPU's chain). 0: not measured.
    double gpu_answer_us = 0, gpu_chain_us = 0;
    int warmup_steps = 0;                         // untimed decode steps before the timed ones
    double search_s = -1;                         // hybrid: decode seconds the q* search took (< 0: no search)
    bool search_converged = false;
    struct SearchWindow {
        double q = 0, tok_s = 0, at_s = 0;
        int search = 0;
    };
    std::vector<SearchWindow> search_windows;     // hybrid: each window the search measured, in order
    // hybrid: the search's closing duel between q* = 1 and its fraction (duel_center < 0: none was run)
    double duel_center = -1, duel_all_tok_s = 0, duel_center_tok_s = 0;
    bool duel_center_won = false;
    double miss_bytes_per_token = 0;  // (fetched + CPU-computed) × expert bytes
    double host_read_gbs = 0;         // B_H, measured in this run (measure_host)
    double floor_ms = 0;              // miss bytes per token / B_H
    int expert_slots = 0;
    MemoryPlan plan;                  // the VRAM plan it ran with (GPU)
};

// `ft bench warm-start`: the expert cache's hit rate over the first decode steps after a load, without and with the
// warm start (profile/expert_popularity.h). A first load with warm start off decodes `steps` steps and stores their
// expert use as the previous session would at unload (the user's store in <data dir>, replacing nothing but adding
// one session); a second load with warm start on decodes another `steps` from another prompt (synthetic routing:
// the same popularity order, another stream of draws). Hit rate per window of `window` steps; "steady" is the mean of
// the cold run's last quarter of windows, and time to steady state the first window at 95 % of it or more.
struct WarmStartRun {
    std::vector<double> window_hit;  // hit rate of each window
    std::vector<double> window_end_s;  // decode seconds at each window's end
    double first_hit = 0;            // over the first 64 steps
    int steps_to_steady = -1;        // steps until the window reaching 95 % of steady ended (-1: never)
    double seconds_to_steady = -1;
    int warm_started = 0;            // experts put in the cache at load
    double load_s = 0;
};
struct WarmStartResult {
    std::string model, routing;
    int steps = 0, window = 0, expert_slots = 0;
    double steady = 0;
    WarmStartRun cold, warm;
};
WarmStartResult run_warm_start_bench(const ForwardBenchOptions& o, int steps, int window);
nlohmann::json to_json(const WarmStartResult& r);
void print(const WarmStartResult& r);

ForwardBenchResult run_decode_bench(const ForwardBenchOptions& o);
ForwardBenchResult run_prefill_bench(const ForwardBenchOptions& o);
nlohmann::json to_json(const ForwardBenchResult& r);
void print(const ForwardBenchResult& r, bool decode);

}  // namespace ft::bench
