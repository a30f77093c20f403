// Routing sources for measuring the expert cache: recorded traces of a model's own router choices and a synthetic
// generator with temporal reuse and skew. A source fills, per decode step, the routed expert ids of every layer for
// the step's tokens; the GPU runner puts them in place of the router's choice (the router's weights are kept).
//
// Trace file (`ft run --record-routing FILE` writes it, `--routing trace:FILE` replays it, looping at its end):
//   "FTRT", u32 version = 1, u32 n_layer, u32 k, then per decode step: u32 n_tokens, i32 ids[n_layer][n_tokens][k]
//   (little-endian; -1 for layers without routed experts).
// Synthetic ("synthetic:zipf=1.0,reuse=0.55,seed=1"): per layer a Zipf(zipf) popularity over a random permutation of
// the experts; each of a token's k picks repeats, with probability `reuse`, one of the layer's picks of the previous
// token, else draws from the Zipf law (picks are distinct within a token). With the defaults, an LRU cache over all
// layers holding 37 % of the experts misses about 16 % of the time on a Qwen3-30B-A3B shape (48 × 128, top-8) —
// the published miss rate on real traces (tests/moe/test_routing_trace.cpp checks it).
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace ft::moe {

class RoutingSource {
public:
    virtual ~RoutingSource() = default;
    virtual std::string describe() const = 0;
    // ids: [n_layer][n_tokens][k]
    virtual void next_step(int n_tokens, std::span<std::int32_t> ids) = 0;
};

struct SyntheticRouting {
    double zipf = 1.0;
    double reuse = 0.55;
    std::uint64_t seed = 1;
    // 0: one random stream from `seed` for the popularity order and the draws; n > 0: the same popularity order
    // (from `seed`) with another stream of draws — another session of the same model (the warm-start bench).
    std::uint64_t run = 0;
};

// layer_has_experts[l] false → ids -1 for that layer.
std::unique_ptr<RoutingSource> make_synthetic_routing(const std::vector<bool>& layer_has_experts, int n_expert, int k,
                                                      const SyntheticRouting& p);
// Throws ft::Error(invalid_file) for a file that is not a trace or whose shape differs from the model's.
std::unique_ptr<RoutingSource> open_routing_trace(const std::filesystem::path& path, int n_layer, int k);
// "model" → nullptr; "trace:FILE"; "synthetic[:key=value,…]". Throws ft::Error(invalid_argument) naming the problem.
std::unique_ptr<RoutingSource> make_routing_source(const std::string& spec, const std::vector<bool>& layer_has_experts,
                                                   int n_expert, int k);

class RoutingRecorder {
public:
    // Throws ft::Error(io) when the file cannot be written.
    RoutingRecorder(const std::filesystem::path& path, int n_layer, int k);
    void record(int n_tokens, std::span<const std::int32_t> ids);  // ids: [n_layer][n_tokens][k]
    std::uint64_t steps() const { return steps_; }

private:
    std::ofstream f_;
    std::filesystem::path path_;
    int n_layer_, k_;
    std::uint64_t steps_ = 0;
};

}  // namespace ft::moe
