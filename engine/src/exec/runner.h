// A model runner executes a model's forward pass (its ModelGraph of shared blocks, model/graph.h) for a batch of
// tokens on one device. The engine's scheduler owns the KV cache and forms batches; runners know the blocks, the
// kernels and the MoE entry point, never an architecture.
#pragma once

#include <atomic>
#include <cstring>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cpu/worker_pool.h"
#include "exec/runner_counters.h"
#include "ft/error.h"
#include "ft/plan.h"
#include "kv/kv_cache.h"
#include "model/graph.h"
#include "model/weights.h"
#include "moe/moe_layer.h"
#include "moe/routing_trace.h"
#include "ft/message.h"

namespace ft::model {
struct StepShape;  // model/block_needs.h
}

namespace ft::exec {

using model::ModelGraph;
using model::Weights;

struct BatchToken {
    std::int32_t token = 0;
    std::int32_t pos = 0;   // position in its sequence
    int seq = 0;            // KV cache sequence id
    bool logits = false;    // produce logits for this token
};

class Runner {
public:
    virtual ~Runner() = default;
    // The tokens of one sequence must be contiguous in `batch` and in increasing position order, with KV room
    // already reserved up to their last position. Writes their K/V, and fills `logits` with one row of n_vocab
    // floats per token whose .logits is set, in batch order.
    virtual void forward(std::span<const BatchToken> batch, kv::KvCache& kv, float* logits) = 0;
    // The KV layout this runner needs.
    virtual kv::KvGeometry kv_geometry(int page_size, std::int64_t n_pages) const = 0;
    // A KV cache in the memory this runner reads (host by default). Throws ft::Error(out_of_memory).
    virtual std::unique_ptr<kv::KvCache> make_kv_cache(int page_size, std::int64_t n_pages) {
        return std::make_unique<kv::KvCache>(kv_geometry(page_size, n_pages));
    }
    // One line for logs and stats: where and how it runs ("cpu (16 threads)", "NVIDIA H200 (resident)").
    virtual std::string device_name() const = 0;
    // device_name() as a key for translating front ends ("device_cpu" {threads}); empty: the name is not translated.
    virtual Message device_label() const { return {}; }
    // Backend statistics (steps, VRAM use, the expert cache's counters); all zero when the backend has none.
    virtual RunnerCounters counters() const { return {}; }
    // Live rebuild (between steps, on the engine thread): the expert cache to `slots` slots, the hottest experts kept.
    // Throws ft::Error(unsupported) where there is no expert cache (CPU, resident); on failure the old size is back.
    virtual void resize_expert_cache(int slots) {
        (void)slots;
        throw Error(ErrorCode::unsupported, "this backend has no expert cache to resize");
    }
    // Warm start: decode calls each routed (layer, expert) was active in since load (flat id = layer · n_expert +
    // expert), and filling the expert cache with experts in that form, hottest first (as many as fit). Empty / a
    // no-op where there is no expert cache (CPU, resident).
    virtual std::vector<std::uint32_t> expert_uses() const { return {}; }
    virtual int warm_expert_cache(const std::vector<std::int32_t>& hottest_first) {
        (void)hottest_first;
        return 0;
    }
    // Copies bytes between KV cache storage and host memory (either way; device memory on the GPU).
    virtual void kv_copy(void* dst, const void* src, std::size_t bytes) { std::memcpy(dst, src, bytes); }
    // Tokens one forward pass should take of a prompt with `remaining` tokens left to prefill (0: no limit). The
    // expert-offload backends stream every layer's experts for a prefill pass, which a short remainder (an agent's
    // next turn after the prefix cache) does not pay back: it goes through the expert cache in small passes instead.
    virtual int prefill_slice(std::int64_t remaining) const {
        (void)remaining;
        return 0;
    }
    // Forgets captured decode graphs (a new KV cache or expert cache: addresses changed).
    virtual void invalidate_graphs() {}
    // Runs one decode step of `batch` (as forward() would, writing its K/V) timed phase by phase: phase name →
    // milliseconds summed over layers, plus "total". Empty when the backend cannot time phases.
    virtual std::vector<std::pair<std::string, double>> profile_step(std::span<const BatchToken> batch, kv::KvCache& kv) {
        (void)batch;
        (void)kv;
        return {};
    }
};

// The KV layout of a graph's attention blocks (they share one; model/arch.cpp checks), elements of elem_bytes, and
// its recurrent-state pool (Gated DeltaNet blocks) of state_slots sequences.
kv::KvGeometry graph_kv_geometry(const ModelGraph& g, int page_size, std::int64_t n_pages, int elem_bytes, int state_slots);

// The recurrent-state slots a runner keeps for max_sequences parallel requests: one more, for the engine's
// evaluate_logits, which runs beside them.
inline int state_slots(int max_sequences) { return max_sequences + 1; }

// The CPU runner of a model's graph (built by model::build_graph; it and the weights outlive the runner).
std::unique_ptr<Runner> make_cpu_runner(const ModelGraph& graph, const Weights& weights, cpu::WorkerPool& pool,
                                        moe::MoeLayer& moe, int max_sequences);

enum class GemmPrecision {
    bf16,  // prefill matrix products on BF16 tensor cores (weights and activations rounded to BF16, f32 sums)
    f32,   // prefill matrix products in f32 (no tensor cores): the exact path, for checking
};

// Where the routed experts of a GPU runner live (docs/gpu-engine.md, "Expert offload").
enum class MoeBackend {
    resident,       // all in VRAM
    offload,        // VRAM cache; every miss fetched over PCIe
    cpu,            // VRAM cache of the prefill buffers; every miss computed on the CPU
    hybrid,         // VRAM cache; misses split between PCIe and the CPU by q*
    static_layers,  // whole layers resident as the budget allows, the rest on the CPU (llama.cpp --n-cpu-moe)
    automatic,      // resident when everything fits the budget, else hybrid
};
const char* moe_backend_name(MoeBackend b);
bool parse_moe_backend(const std::string& s, MoeBackend& out);

struct GpuRunnerOptions {
    int device = 0;
    int n_ctx = 4096;             // positions per sequence (sizes page tables and the decode attention grid)
    int max_sequences = 4;        // sequences decoded together (a CUDA graph per batch size up to this)
    int max_batch_tokens = 8192;  // tokens in one forward pass (the prefill chunk plus decode tokens)
    GemmPrecision gemm = GemmPrecision::bf16;
    bool graphs = true;           // capture and replay the decode step as a CUDA graph
    MoeBackend moe = MoeBackend::automatic;
    double hybrid_fraction = -1;  // q*'s fetched share B_P / (B_P + B_C); < 0: from the bandwidth profile or 0.5
    bool recalibrate_fraction = false;  // hybrid: refine q* online from live fetch and CPU timings
    int max_fetch = -1;           // hybrid: fetches per layer and step at most (< 0: no cap)
    int cpu_threads = 0;          // CPU expert workers (0: one per physical core)
    int hybrid_admit = 0;         // hybrid: CPU-computed experts admitted to the cache in the background per layer
    bool search_restores_cache = true;  // hybrid: the q* search's end brings back the cache it started from
    std::uint64_t pin_budget = 0; // host bytes the expert store may pin (0: no cap; the rest goes through a bounce ring)
    bool kv_f16 = true;           // the KV cache in f16 (else f32)
    bool host_function_sync = false;  // the GPU waits for CPU expert work through host-function nodes (not memory ops)
    double link_gbps = 0;         // benchmarks only: emulated host link speed for expert fetches (0: the real one)
    // The VRAM plan (memory/planner.h): every allocation's size comes from it (budget, expert slots, KV, chunk).
    MemoryPlan plan;
    // Loading: weight bytes uploaded so far / in all, and a flag that stops the upload (ft::Error(cancelled)).
    std::function<void(std::uint64_t done, std::uint64_t total)> on_upload;
    const std::atomic<bool>* cancel = nullptr;
    // Decode steps: replace the router's expert choice by this source (measuring cache policy), and/or record it.
    std::shared_ptr<moe::RoutingSource> routing;
    std::shared_ptr<moe::RoutingRecorder> record_routing;
};

// The GPU runner of a model's graph (non-expert weights in VRAM; routed experts by the MoE backend). Throws
// ft::Error(unsupported) in a build without CUDA or for a block variant the GPU does not run, ft::Error(device /
// out_of_memory) when the GPU cannot hold the model.
std::unique_ptr<Runner> make_gpu_runner(const ModelGraph& graph, const Weights& weights, const GpuRunnerOptions& options);
// The passes a GPU runner with these options is sized for: its step scratch is model::graph_needs(graph, this)
// (model/block_needs.h), allocated as listed. Here, not in the CUDA code, so that tests compute the runner's
// allocation without a GPU (tests/engine/test_block_needs.cpp).
model::StepShape gpu_step_shape(const GpuRunnerOptions& options);

}  // namespace ft::exec
