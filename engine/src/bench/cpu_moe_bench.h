// `ft bench cpu-moe`: how fast the CPU expert executor computes single-token (decode) MoE layers of a real model,
// in expert bytes read per second and as a fraction of the machine's measured host read bandwidth.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace ft::bench {

struct CpuMoeBenchOptions {
    std::filesystem::path model;
    int threads = 0;     // 0: one per physical core
    int tokens = 1;      // tokens per MoE call (1 = decode)
    int rounds = 3;      // passes over all MoE layers (after one warm-up pass)
    std::uint64_t seed = 1;
};

struct CpuMoeBenchResult {
    std::string model, isa;
    int threads = 0, tokens = 0, moe_layers = 0, calls = 0;
    double host_read_gbs = 0;
    double seconds = 0;              // timed calls only
    std::uint64_t expert_bytes = 0;  // expert weights read by the timed calls
    double expert_gbs = 0;           // over the whole MoE layer's time (router, gather and sum included)
    double fraction_of_host = 0;
    // Over the expert FFNs' own time (the executor: quantizing the rows, the kernels, the workers' hand-offs).
    double experts_alone_gbs = 0;
    double experts_alone_fraction_of_host = 0;
    double us_per_layer = 0;
    double moe_tok_s = 0;            // tokens/s if a step were MoE layers only
    // Per call, microseconds: router, gathering rows, expert FFNs, weighted sum.
    double us_router = 0, us_gather = 0, us_experts = 0, us_combine = 0;
    // The executor alone on one token row and n random experts of a random layer per call (n = 1, 2, 4, 8: hybrid
    // decode hands the CPU one or two a layer): microseconds per call and expert bytes per second.
    struct ExecutorPoint {
        int experts = 0;
        double us_per_call = 0, gbs = 0;
        double us_to_input = 0, us_gate_up = 0, us_down = 0;  // a call's phases (CpuExpertExecutor::PhaseTimes)
        // The same n experts every call, their weights in the CPU's caches after the first: what a call costs
        // without reading memory (the kernels' arithmetic, the workers' hand-offs), against us_per_call.
        double us_hot = 0;
    };
    std::vector<ExecutorPoint> executor;
};

CpuMoeBenchResult run_cpu_moe_bench(const CpuMoeBenchOptions& o);
nlohmann::json to_json(const CpuMoeBenchResult& r);

}  // namespace ft::bench
