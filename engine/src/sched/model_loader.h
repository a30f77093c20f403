// Loading a model for the engine and for `ft bench` (one path, so a bench figure is the product's figure): open and
// map the weights, plan the VRAM (memory/planner.h), make the runner for the device and its KV cache.
// Runs on the calling thread (the engine thread); reports progress through the callback.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "cpu/worker_pool.h"
#include "ft/engine.h"
#include "ft/plan.h"
#include "ft/tokenizer.h"
#include "kv/kv_cache.h"
#include "memory/planner.h"
#include "exec/runner.h"
#include "model/graph.h"
#include "model/weights.h"
#include "moe/moe_layer.h"

namespace ft::sched {

// A hybrid model's prefix checkpoint: the recurrent state after exactly `tokens` (a whole number of KV pages), kept
// so that a later prompt starting with them can share their pages and go on from there.
struct StateCheckpoint {
    std::vector<std::int32_t> tokens;
    std::vector<std::byte> state;  // sched/kv_resize.h save_state
    std::uint64_t last_used = 0;
};

struct LoadedModel {
    LoadedModel() = default;
    ~LoadedModel();  // warm start: adds this session's expert use to the popularity store
    LoadedModel(const LoadedModel&) = delete;
    LoadedModel& operator=(const LoadedModel&) = delete;
    std::unique_ptr<model::Weights> weights;
    model::ModelGraph graph;  // the forward pass of the weights' architecture (runners point into it)
    std::optional<Tokenizer> tokenizer;
    std::unique_ptr<cpu::WorkerPool> pool;
    std::unique_ptr<moe::MoeLayer> moe;
    std::unique_ptr<exec::Runner> runner;
    std::unique_ptr<kv::KvCache> kv;
    LoadOptions options;        // as given, with prefill_chunk replaced by the plan's
    memory::ModelGeometry geometry;
    MemoryPlan plan;
    bool gpu = false;
    ModelInfo info;
    std::vector<std::int32_t> eog;
    std::vector<StateCheckpoint> checkpoints;  // hybrid models with the prefix cache on (at most kMaxCheckpoints)
    std::string popularity_key;  // warm start on and an expert cache to fill (profile/expert_popularity.h), else empty
    int warm_started = 0;        // experts put in the cache at load from the store
};

// Warm start: adds the runner's expert uses since load to the popularity store (a no-op without a key). Returns
// whether it stored; logs and swallows store errors (an unwritable data folder must not stop an unload).
bool save_expert_popularity(LoadedModel& m);

// Prefix checkpoints a hybrid model keeps (host RAM: Qwen3.6-35B-A3B's state is 63 MiB per sequence).
constexpr std::size_t kMaxCheckpoints = 8;

struct LoadHooks {
    std::function<void(const LoadProgress&)> progress;
    const std::atomic<bool>* cancel = nullptr;
    // Benchmarks: replace the router's expert choice on decode steps (GPU).
    std::function<std::shared_ptr<moe::RoutingSource>(const model::Weights&)> routing;
};

// Throws ft::Error (the file's, the planner's, the device's; cancelled).
std::unique_ptr<LoadedModel> load_model(const LoadOptions& options, const LoadHooks& hooks);

// KV pages for a plan's positions.
inline std::int64_t kv_pages(const MemoryPlan& p) { return (p.kv_tokens + p.kv_page_size - 1) / p.kv_page_size; }

}  // namespace ft::sched
