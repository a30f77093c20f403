// ft::MemoryPlan — how one GPU engine spends its VRAM budget, computed before anything is allocated (ARCHITECTURE
// §3.5), and the fit predictor that tells before loading whether a model runs on a PC and at roughly what speed.
//
// Value types only; no threads, no state. plan_memory() and predict_fit() are pure functions of their inputs:
// callable from any thread (the app's Models page, `ft inspect --plan`, the Console's cache presets).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ft/message.h"

namespace ft {

// Bytes by category. The GPU runner allocates from these figures only (no fixed reserves of its own).
struct MemoryPlan {
    bool gpu = false;                   // false: a CPU-only plan (KV in host RAM; VRAM fields 0)
    std::string backend;                // "resident", "offload", "cpu", "hybrid", "static" (after auto is resolved)
    std::uint64_t device_total = 0;     // VRAM of the device
    std::uint64_t device_free = 0;      // free when planned
    std::uint64_t budget = 0;           // what the plan may use (--vram-budget, default memory_ratio × free)
    // Categories (sum = total()):
    std::uint64_t weights = 0;          // non-expert weights (+ all experts with the resident backend)
    std::uint64_t experts = 0;          // the expert cache's slots
    std::uint64_t kv = 0;               // the KV cache
    std::uint64_t state = 0;            // recurrent state of linear-attention layers (Qwen3.5/Next), every sequence slot
    std::uint64_t scratch = 0;          // activations, MoE/attention workspaces, page tables, logits
    std::uint64_t cublas = 0;           // cuBLAS workspace and the GEMM dequantization tiles
    std::uint64_t graphs = 0;           // captured CUDA graphs (estimate)
    std::uint64_t reserve = 0;          // headroom kept free (CUDA runtime, fragmentation)
    // What follows from them:
    int expert_slots = 0;               // (layer, expert) slots in the VRAM cache (0 for resident)
    int expert_slots_total = 0;         // n_moe_layers × n_expert: every expert of the model
    std::uint64_t expert_slot_bytes = 0;
    std::int64_t kv_tokens = 0;         // positions the KV cache holds (all sequences together)
    std::uint64_t kv_bytes_per_token = 0;
    int kv_page_size = 16;
    int kv_bytes_per_element = 2;       // 2: f16 (the GPU default), 4: f32
    int prefill_chunk = 0;              // tokens per prefill forward pass (may be below the requested chunk)
    bool prefill_overlap = false;       // expert_slots ≥ 2 × experts per layer: layer l+1 streams while l computes
    int n_ctx = 0, max_sequences = 0;
    bool n_ctx_auto = false;            // n_ctx was chosen at load (LoadOptions::n_ctx 0); a note says why
    // Slider limits for a live rebuild within this budget (the rest of the plan unchanged):
    int min_expert_slots = 0, max_expert_slots = 0;
    std::int64_t min_kv_tokens = 0, max_kv_tokens = 0;
    std::vector<std::string> notes;     // choices the planner made ("prefill chunk 8192 → 2048 to fit 8 GiB")

    std::uint64_t total() const { return weights + experts + kv + state + scratch + cublas + graphs + reserve; }
};

// A live cache rebuild: new sizes for the KV cache and the expert cache (< 0: keep the current size).
struct CacheRequest {
    std::int64_t kv_tokens = -1;
    int expert_slots = -1;
};

struct RebuildResult {
    bool accepted = false;
    std::string reason;                 // why it was rejected (names the numbers); empty when accepted
    // The reason as a key for translating front ends: "no_model", "kv_zero", "kv_below_context" {kv, n_ctx},
    // "kv_above_plan" {kv, max}, "kv_below_running" {kv, held}, "cpu_no_expert_cache", "backend_fixed_cache"
    // {backend}, "slots_below_layer" {slots, experts}, "slots_above_total" {slots, total}, "over_budget" {slots,
    // their size, kv, its size, needed, budget}, "rebuild_failed" {the error}.
    Message reason_key;
    MemoryPlan plan;                    // the plan in force afterwards (the old one when rejected)
};

// The CPU expert kernel's measured read rate for one expert format ("q4_K", "iq2_xxs", "q4_K/q4_K/q6_K": gate/up/down),
// from a stored `ft bench bw` profile (B_C, measured while PCIe is busy where it was).
struct CpuRate {
    std::string format;
    int threads = 0;
    double gbps = 0;
};

// What the fit predictor knows of a PC. Zero fields are filled from this machine (its GPU, RAM, the stored
// bandwidth profiles) by the callers that have one (`ft inspect --plan`, the app).
struct MachineProfile {
    std::string gpu_name;
    std::uint64_t vram_bytes = 0;       // VRAM the model may use (0: no GPU)
    std::uint64_t ram_bytes = 0;        // host RAM available to the model
    double pcie_gbps = 0;               // B_P: expert fetches over PCIe (GB/s)
    // B_C, the CPU expert kernel's read bandwidth (GB/s) for Q4_K experts, given by the user (`--host-gbps`); other
    // types are scaled by the kernel's measured rate per type (memory/cpu_rate.h). 0: from cpu_rates, else a default.
    double host_gbps = 0;
    std::vector<CpuRate> cpu_rates;     // the stored profiles of this GPU, newest first: one of the model's format wins
    double gpu_mem_gbps = 0;            // the GPU's memory bandwidth (0: an estimate by GPU class)
    int gpu_sms = 0, gpu_cc = 0;        // multiprocessors and compute capability ×10 (0: an estimate by GPU class)
    int cpu_threads = 0;
};

struct FitPrediction {
    // "gpu" (everything in VRAM), "hybrid" (GPU + experts from host RAM), "cpu" (CPU only), "no_fit" (not in RAM),
    // "unsupported" (an architecture the engine does not run)
    std::string verdict;
    std::string summary;                // one line for people: "runs on the GPU with experts from RAM, ≈ 40–60 tok/s"
    std::string reason;                 // for no_fit / cpu: what is missing and how much
    // The reason as a key for translating front ends: "fit_no_ram" {needed, RAM}, "fit_no_gpu", "vram_too_small"
    // {budget, backend, needed} (plan_memory's errors' keys); empty where the reason has none.
    Message reason_key;
    std::string backend;                // the MoE backend it would use
    std::uint64_t ram_needed = 0, vram_needed_min = 0;
    double cache_fraction = 0;          // share of all experts the VRAM cache holds
    double miss_rate = 0;               // predicted expert-cache miss rate at that fraction
    double decode_tok_s_low = 0, decode_tok_s_high = 0;
    double prefill_tok_s = 0;           // an 8k-token prompt
    // The CPU expert kernel's rate it assumed for this model's expert types (GB/s), and where it came from: "given"
    // (host_gbps, scaled to the types), "profile" (measured for this format), "scaled" (another format's profile
    // through the per-type table), "default" (40 GB/s for Q4_K through the table).
    double cpu_expert_gbps = 0;
    std::string cpu_expert_rate_source;
    MemoryPlan plan;                    // the GPU plan it assumed (empty for cpu / no_fit)
};

}  // namespace ft

#include <filesystem>

namespace ft {

struct FitOptions {
    int n_ctx = 4096, max_sequences = 4;
    std::string backend = "auto";
    std::int64_t kv_reserve_tokens = 8192;
};

// This machine as the fit predictor sees it: GPU `gpu` (its free VRAM × 0.9), physical RAM, the PCIe bandwidth of the
// newest stored `ft bench bw` profile for that GPU and the CPU expert rate of every stored profile of it (cpu_rates;
// else 0 and none: the predictor's defaults).
MachineProfile this_machine(int gpu = 0);

// Whether and how fast the model at `path` runs on `pc`, from its metadata only (nothing is loaded; cheap enough for
// a list of models). An architecture the engine does not run gives verdict "unsupported" with the reason. Throws
// ft::Error for a file that cannot be read.
FitPrediction predict_fit(const std::filesystem::path& path, const MachineProfile& pc, const FitOptions& options = {});

// The same for an `ft synth` preset ("deepseek-v3", "qwen3-30b-a3b", …) with its weights in `weights` ("q4_k";
// experts as `ft synth` would write them): the sizes of the file synth would write, without writing it — for models
// too large to materialize (DeepSeek-V3's 671B). Throws ft::Error(invalid_argument) for an unknown preset or type.
FitPrediction predict_fit_preset(const std::string& preset, const std::string& weights, const MachineProfile& pc,
                                 const FitOptions& options = {});

}  // namespace ft
