// The VRAM planner (docs/gpu-engine.md, "The memory plan"): from a model's geometry, the device's memory and the load options, one
// MemoryPlan in bytes per category; the GPU runner allocates exactly what it says. Also the checks of a live cache
// rebuild and the fit predictor's arithmetic. Pure functions: no CUDA, no state (CPU builds and tests use it too).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ft/plan.h"
#include "ref/dtype.h"

namespace ft::model {
struct ModelDesc;
struct TensorStat;
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
    std::uint64_t expert_pool_bytes = 0;  // every routed expert
    std::uint64_t slot_bytes = 0;         // one (layer, expert): gate + up + down, each padded to 256 bytes
    std::uint64_t active_expert_bytes = 0;  // routed expert bytes one token reads (k experts × layers)
    std::uint64_t active_other_bytes = 0;   // non-expert bytes one decode token reads
    // Multi-head latent attention (DeepSeek): the KV is one row of kv_lora + rope per position (n_head_kv 1,
    // head_dim that row, v_head_dim 0); the attention scratch per token in floats: q, absorbed q, the compressed
    // KV and the low-rank q (mla_qkv), the latent outputs and the values (mla_att). 0: not MLA.
    std::int64_t mla_qkv = 0, mla_att = 0, mla_kv_lora = 0;
    double attn_params_per_layer = 0;  // the attention block's weights (the predictor's prefill FLOPs)
    // Hybrid models (Qwen3.5 / Qwen3-Next): the layers with a KV cache (the rest run linear attention with a
    // recurrent state of rs_floats f32 values per sequence and layer), the gated attention's doubled q rows, and the
    // linear attention's scratch floats per token (GpuGatedDeltaNet::scratch_width).
    int n_kv_layers = 0, n_rs_layers = 0;
    std::int64_t rs_floats = 0, lin_scratch = 0, lin_value_dim = 0;
    bool attn_output_gate = false;
    double linear_params_per_layer = 0;
    // DeepSeek-V4: floats per token of the hyper-connection buffers (0: none) and of GpuCompressedAttention's
    // scratch, the indexer's top-k and the CSA ratio (its scores workspace holds n_ctx / ratio per token of a chunk).
    std::int64_t hc_width = 0, hc_scratch = 0, v4_scratch = 0, v4_topk = 0, v4_csa_ratio = 0;  // hc_width: N · n_embd
    std::int64_t v4_attended = 0, v4_head_dim = 0;  // rows a query attends (window + picks) and their width
    // The routed experts' block types (the CPU expert kernel's rate differs by type: memory/cpu_rate.h): the pool's
    // bytes per type, and the bandwidth profile's key, the first MoE layer's gate/up/down types ("q4_K" when one,
    // "q4_K/q4_K/q6_K" otherwise; empty when unknown).
    std::vector<std::pair<kernels::DType, std::uint64_t>> expert_bytes_by_type;
    std::string expert_format;
};

ModelGeometry geometry_of(const model::Weights& w);
// Without loading (the fit predictor): from the description and the byte counts `ft inspect` reports.
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

// The scratch bytes a GPU runner allocates for a forward pass of up to max_tokens tokens (activations, attention,
// router and MoE workspaces, logits tile, page tables) — the runner's own allocation list, summed.
std::uint64_t scratch_bytes(const ModelGeometry& g, std::int64_t max_tokens, int max_sequences, int n_ctx,
                            bool exact_prefill, bool offload);
// GEMM tiles (weights dequantized for cuBLAS, activations in BF16) plus cuBLAS's own workspace.
std::uint64_t cublas_bytes(const ModelGeometry& g, std::int64_t max_tokens, bool exact_prefill);
std::uint64_t kv_bytes_per_token(const ModelGeometry& g, bool kv_f16);
// The recurrent-state pools of a hybrid model for max_sequences parallel requests (0 for others).
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
