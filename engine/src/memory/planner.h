// The VRAM planner (docs/gpu-engine.md, "The memory plan"): from a model's geometry, the device's memory and the load options, one
// MemoryPlan in bytes per category; the GPU runner allocates exactly what it says. Also the checks of a live cache
// rebuild and the fit predictor's arithmetic. Pure functions: no CUDA, no state (CPU builds and tests use it too).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ft/plan.h"
#include "ref/dtype.h"

namespace ft::model {
struct ModelDesc;
struct ModelGraph;
struct StepShape;
struct TensorStat;
struct WeightTypes;
class Weights;
}  // namespace ft::model

namespace ft::memory {

// What the planner needs of a model.
struct ModelGeometry {
    int n_layer = 0, n_moe_layers = 0, n_expert = 0, n_expert_used = 0;
    std::int64_t n_embd = 0, n_head = 0, n_head_kv = 0, head_dim = 0, v_head_dim = 0, n_vocab = 0;
    std::int64_t n_ff_exp = 0;
    std::int64_t n_ff = 0;  // the widest dense FFN a block runs (dense layers or shared experts; 0: none)
    std::uint64_t non_expert_bytes = 0;   // in VRAM always (norms are widened to f32 there: counted)
    bool declared_weights = false;        // the two byte counts and slot_bytes are the blocks' declaration
    std::uint64_t expert_pool_bytes = 0;  // every routed expert
    std::uint64_t slot_bytes = 0;         // one (layer, expert): gate + up + down, each padded to 256 bytes
    std::uint64_t active_expert_bytes = 0;  // routed expert bytes one token reads (k experts × layers)
    std::uint64_t active_other_bytes = 0;   // non-expert bytes one decode token reads
    double attn_params_per_layer = 0;  // the attention block's weights (the predictor's prefill FLOPs)
    // Hybrid models (Qwen3.5 / Qwen3-Next): the layers with a KV cache; the rest run linear attention with a
    // recurrent state per sequence and layer.
    int n_kv_layers = 0, n_rs_layers = 0;
    double linear_params_per_layer = 0;
    // Attention over a window and picked entries (compressed attention) instead of every position: the rows a query
    // attends and their width, both key and value (the predictor's prefill FLOPs; 0: every position).
    std::int64_t attended_rows = 0, attended_row_width = 0;
    // The model's blocks (views without data: model::Weights::shapes), whose declared needs (model/block_needs.h)
    // give the scratch, KV and state bytes — the same declarations the GPU runner allocates by.
    std::shared_ptr<const model::ModelGraph> graph;
    // The routed experts' block types (the CPU expert kernel's rate differs by type: memory/cpu_rate.h): the pool's
    // bytes per type, and the bandwidth profile's key, the first MoE layer's gate/up/down types ("q4_K" when one,
    // "q4_K/q4_K/q6_K" otherwise; empty when unknown).
    std::vector<std::pair<kernels::DType, std::uint64_t>> expert_bytes_by_type;
    std::string expert_format;
};

// The weights as the blocks declare them (model/block_needs.h graph_weights): what the GPU runner uploads.
ModelGeometry geometry_of(const model::Weights& w);
// Without loading (the fit predictor, ft inspect --plan): from the description and the stored type of each tensor by
// GGUF name, the weights as the blocks declare them; when the table lacks a tensor (the report gives it a type the
// engine does not know, as for checkpoints it repacks at load), the byte counts given (the file's).
ModelGeometry geometry_of(const model::ModelDesc& d, const model::WeightTypes& types, std::uint64_t non_expert_bytes,
                          std::uint64_t expert_pool_bytes);
// The stored type of each tensor of the description, by its GGUF name, from a tensor list (ft inspect's, a synth
// plan's) under GGUF names or, for a Hugging Face folder, its checkpoint names; a tensor the list does not name with
// a known type is left out (geometry_of then keeps the byte counts).
model::WeightTypes weight_types(const model::ModelDesc& d, std::span<const model::TensorStat> stats);
// From the description and byte counts alone (tests, rough what-ifs).
ModelGeometry geometry_of(const model::ModelDesc& d, std::uint64_t non_expert_bytes, std::uint64_t expert_pool_bytes);
// The fit predictor's expert types (expert_bytes_by_type, expert_format) of a model from its tensor list
// (memory/cpu_rate.cpp).
void set_expert_types(ModelGeometry& g, const model::ModelDesc& d, std::span<const model::TensorStat> tensors);

struct PlanRequest {
    std::uint64_t device_total = 0, device_free = 0;
    std::uint64_t vram_budget = 0;   // 0: memory_ratio × device_free
    double memory_ratio = 0.9;
    int n_ctx = 4096, max_sequences = 4, prefill_chunk = 8192;
    std::string backend = "auto";    // auto resident offload cpu hybrid static
    bool cpu_pays = false;           // auto: the CPU's expert bandwidth clearly beats PCIe (hybrid over offload)
    bool kv_f16 = true;
    bool exact_prefill = false;      // f32 GEMMs (bigger tiles)
    std::int64_t kv_reserve_tokens = 8192;
    std::int64_t kv_tokens = 0;      // > 0: this many KV positions
    int expert_slots = 0;            // > 0: this many expert slots
};

// Throws ft::Error(out_of_memory) when the budget cannot hold the model at the smallest settings, naming the smallest
// budget that works; ft::Error(invalid_argument) for a request that contradicts itself.
MemoryPlan plan_memory(const ModelGeometry& g, const PlanRequest& r);

// The pass shape a plan sizes the GPU runner for: rows = prefill chunk + max_sequences, its page size, BF16 prefill
// rows unless exact_prefill.
model::StepShape plan_step_shape(std::int64_t max_tokens, int max_sequences, int n_ctx, bool exact_prefill);
// The scratch bytes a GPU runner allocates for a forward pass of up to max_tokens tokens: the step's buffers as the
// blocks declare them (model/block_needs.h graph_needs — the list GpuRunner allocates), plus with offload the expert
// cache's tables (ExpertOffload).
std::uint64_t scratch_bytes(const ModelGeometry& g, std::int64_t max_tokens, int max_sequences, int n_ctx,
                            bool exact_prefill, bool offload);
std::uint64_t offload_table_bytes(const ModelGeometry& g);
// GEMM tiles (weights dequantized for cuBLAS, activations in BF16) plus cuBLAS's own workspace.
std::uint64_t cublas_bytes(const ModelGeometry& g, std::int64_t max_tokens, bool exact_prefill);
// The KV cache's bytes per position on the GPU (every KV layer's row, f16 when asked for and the blocks take it) and
// per element: from the graph's KV geometry, as the runners allocate it (exec/runner.h graph_kv_geometry).
std::uint64_t kv_bytes_per_token(const ModelGeometry& g, bool kv_f16);
int kv_bytes_per_element(const ModelGeometry& g, bool kv_f16);
// The recurrent-state pools (Gated DeltaNet layers, compressed attention's window rings) for max_sequences
// parallel requests (0 for models without).
std::uint64_t state_bytes(const ModelGeometry& g, int max_sequences);

// A live rebuild to (kv_tokens, expert_slots) with everything else as in `current`: the new plan, or the reason it
// is refused (with the numbers). running_kv_tokens: positions the running sequences hold now.
struct RebuildCheck {
    bool ok = false;
    std::string reason;
    Message reason_key;  // RebuildResult::reason_key
    MemoryPlan plan;
};
RebuildCheck check_rebuild(const ModelGeometry& g, const MemoryPlan& current, const CacheRequest& req,
                           std::int64_t running_kv_tokens);

// The fit predictor: the plan (when there is a GPU) and the speed bands for a machine.
// lru_miss_rate: the decode miss rate it assumes for a global LRU holding fraction c of all experts.
double lru_miss_rate(double c);
FitPrediction predict_fit(const ModelGeometry& g, const MachineProfile& pc, const PlanRequest& r);
// The stored `ft bench bw` profiles of GPU `gpu` into pc (fit.cpp; this_machine): the newest one's PCIe bandwidth and
// threads, every one's CPU expert rate (cpu_rates, newest first). Nothing stored or readable: pc unchanged.
void add_stored_profiles(MachineProfile& pc, const std::string& gpu);

std::string gib(double bytes);  // "7.45 GiB"

}  // namespace ft::memory
