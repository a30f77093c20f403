// ft::Engine — the inference engine behind the CLI, the desktop app and the API server.
//
// Threading: an Engine owns one engine thread. Every command (load, unload, submit, cancel) is non-blocking: it is
// queued to that thread and returns at once. Callbacks (load progress/done, token, finish, error) run ON THE ENGINE
// THREAD: keep them short and never call back into the engine synchronously from them (queueing another command is
// fine). stats() and model_info() may be called from any thread at any time (a snapshot under a short lock).
// The synchronous helpers at the end block the caller until the engine thread has done the work.
//
// Errors: a failed load reports an ft::Error through its done callback and leaves the previously loaded model (if
// any) unloaded; a request that cannot run (no model, prompt longer than the context, bad sampling parameters)
// gets on_error and nothing else. Exactly one of on_finish / on_error is called for every submitted request.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ft/error.h"
#include "ft/plan.h"
#include "ft/sampling.h"

namespace ft {

class Tokenizer;

enum class Device { automatic, cpu, cuda };

struct LoadOptions {
    std::filesystem::path model;   // a .gguf file or a Hugging Face folder
    Device device = Device::automatic;
    int threads = 0;               // CPU worker threads (0: one per physical core)
    // Context (positions) per sequence. 0: automatic — the model's trained maximum (at least 32768, room for a
    // coding agent's prompt; at most 262144), lowered to the largest that fits: on the GPU, one context's KV in at
    // most half of the VRAM the plan leaves for the KV and expert caches; on the CPU, in an eighth of the RAM. The
    // plan's notes (and ModelInfo::n_ctx) say what was chosen and why.
    int n_ctx = 0;
    int max_sequences = 4;         // requests decoded together
    int prefill_chunk = 8192;      // prompt tokens per forward pass (the GPU planner may choose fewer at small budgets)
    // GPU (device cuda, or automatic with a usable GPU):
    int gpu = 0;                   // CUDA device index
    std::uint64_t vram_budget = 0; // bytes all GPU allocations must fit in (0: memory_ratio × the free VRAM)
    double memory_ratio = 0.9;     // share of the free VRAM planned when vram_budget is 0
    std::int64_t kv_reserve_tokens = 8192;  // KV positions the planner keeps before giving VRAM to the expert cache
    std::int64_t kv_tokens = 0;    // KV positions to allocate (0: what the planner chooses)
    bool kv_f32 = false;           // GPU KV cache in f32 instead of f16
    // GPU offload backends: host memory the expert store may page-lock (0: the OS's cap: half the RAM on Windows,
    // as much as registration allows on Linux). Experts past
    // it stay in the mapped file and reach the GPU through a small pinned bounce ring; outputs do not change.
    std::uint64_t pin_budget = 0;
    bool gpu_exact_prefill = false;  // prefill in f32 (GEMMs and attention) instead of tensor cores: exact, slower
    // Benchmarks only (`ft bench --pcie-limit`): emulate a host link of this many GB/s for the expert fetches and
    // prefill streaming (each takes at least bytes / limit; the GPU waits out the difference). 0: the real link.
    double pcie_limit_gbps = 0;
    bool gpu_graphs = true;        // replay the decode step as a CUDA graph
    // Where routed experts live on the GPU path: "auto" (resident if the model fits the budget, else hybrid),
    // "resident", "offload", "cpu", "hybrid", "static".
    std::string moe_backend = "auto";
    double hybrid_fraction = -1;   // hybrid: PCIe share of the misses; < 0: from `ft bench bw`'s profile, else 0.5
    int max_fetch = -1;            // hybrid: at most this many fetches per layer and step (< 0: no cap)
    int expert_slots = 0;          // expert cache slots (0: what the VRAM budget leaves)
    int hybrid_admit = 0;          // hybrid: CPU-computed experts per layer also fetched in the background (0: off)
    // hybrid: when the online q* search ends, bring back the expert cache it started from (its trial fractions fetch
    // by LRU; a low q* would then keep that snapshot; docs/gpu-engine.md)
    bool search_restores_cache = true;
    // cpu/hybrid/static and the bounce ring: the GPU waits for CPU work inside the decode graph through host-function
    // nodes instead of stream memory operations (the fallback, for drivers whose memory operations misbehave; slower).
    bool host_function_sync = false;
    std::filesystem::path record_routing;  // GPU: write every decode step's expert choice to this trace file
    // Warm start (offload/hybrid/cpu expert caches): fill the cache at load with the experts earlier sessions used
    // most (<data dir>/experts.sqlite), and add this session's use to that store when the model is unloaded.
    bool warm_start = true;
    // Prefix cache: finished requests leave the KV pages of their tokens cached (least recently used evicted first
    // when pages are needed), and a request whose prompt starts with the same tokens reuses them instead of
    // computing them again (whole pages only; the prompt's last token is always computed). Same outputs either way.
    bool prefix_cache = true;
};

struct LoadProgress {
    float fraction = 0.f;  // 0..1, from the bytes below where the stage moves bytes
    std::string stage;     // "opening", "mapping", "tokenizer", "bandwidth profile", "weights", "kv cache", "ready"
    std::uint64_t bytes_done = 0, bytes_total = 0;  // bytes mapped and uploaded so far / in all (0: not known)
};

struct ModelInfo {
    std::string name;
    std::string architecture;      // "qwen3_moe"
    std::filesystem::path path;
    std::string device;            // "cpu (16 threads)", "NVIDIA H200"
    Message device_key;            // the same for translating front ends: "device_cpu" {threads}; empty for a GPU
    std::uint32_t n_layer = 0, n_embd = 0, n_vocab = 0, n_expert = 0, n_expert_used = 0;
    std::uint64_t expert_bytes = 0, other_bytes = 0;
    int n_ctx = 0, max_sequences = 0;
    bool has_chat_template = false;
    SamplingDefaults sampling_defaults;  // what the file recommends (ft/sampling.h)
    double load_seconds = 0;
};

struct TokenEvent {
    std::uint64_t request = 0;
    std::int32_t token = 0;
    std::string text;              // text completed by this token (may be empty: a partial UTF-8 character)
    float logprob = 0.f;
    std::vector<std::pair<std::int32_t, float>> top_logprobs;
};

enum class FinishReason { stop, length, cancelled };

struct FinishEvent {
    std::uint64_t request = 0;
    FinishReason reason = FinishReason::stop;
    std::string stop_text;         // the stop string or end-of-generation token that ended it (if any)
    int prompt_tokens = 0;
    int completion_tokens = 0;
    int cached_tokens = 0;         // prompt tokens whose KV came from the prefix cache (not computed)
    double ttft_ms = 0;            // submit → first token
    double prefill_tok_s = 0;
    double decode_tok_s = 0;
};

struct GenerationRequest {
    std::vector<std::int32_t> prompt;  // token ids; if empty, prompt_text is tokenized (no template applied)
    std::string prompt_text;
    bool parse_special = true;         // match special-token text in prompt_text (<|im_start|> …)
    SamplingParams sampling;
    int max_tokens = 256;
    std::vector<std::string> stop;     // stop strings: generation ends before them (they are not emitted)
    bool ignore_eos = false;           // keep going through end-of-generation tokens
    std::function<void(const TokenEvent&)> on_token;
    std::function<void(const FinishEvent&)> on_finish;
    std::function<void(const Error&)> on_error;
};

// VRAM by category (bytes), as allocated now.
struct VramStats {
    std::uint64_t weights = 0, experts = 0, kv = 0, scratch = 0, other = 0;  // other: cuBLAS, graphs, runtime
    std::uint64_t free = 0;        // of the budget, unallocated
    std::uint64_t budget = 0, device_total = 0, peak = 0;
};

// Host↔device traffic: totals since load and rates over the last second.
struct PcieStats {
    std::uint64_t h2d_bytes = 0, d2h_bytes = 0;
    std::uint64_t fetch_bytes = 0;   // H2D: decode expert fetches (and background admissions)
    std::uint64_t prefill_bytes = 0; // H2D: prefill layer streaming
    double h2d_gbps = 0, d2h_gbps = 0, fetch_gbps = 0, prefill_gbps = 0;
};

// The expert cache over a recent window (the last ~64 decode steps) and in total.
struct ExpertCacheStats {
    bool active = false;             // false: no cache (resident, or the CPU engine)
    int n_slots = 0, n_slots_total = 0;  // (not "slots": a Qt keyword in files that include this)
    double hit_rate = 0;             // recent window
    std::vector<float> layer_hit_rate;  // per layer, recent window (NaN: no MoE call in the window)
    double fetched_per_token = 0, cpu_per_token = 0;  // misses per decoded token, recent window
    double fraction = 0;             // q*'s fetched share in use (hybrid)
    std::uint64_t hits = 0, misses = 0, fetched = 0, cpu = 0;  // totals
    double cpu_expert_gbps = 0;      // CPU expert kernel read rate, last second (the CPU engine's too)
    double bp_gbps = 0, bc_gbps = 0; // hybrid's live B_P (PCIe fetches) and B_C (CPU experts); 0 until measured
};

struct EngineStats {
    bool loaded = false;
    std::string model;
    std::string device;
    Message device_key;             // ModelInfo::device_key
    int running = 0, queued = 0;
    double decode_tok_s = 0;        // over the last few seconds, all sequences together
    double prefill_tok_s = 0;       // of the last prefill
    double last_ttft_ms = 0;
    // Since the model loaded (a load starts them, last_ttft_ms and prefill_tok_s again from 0).
    std::uint64_t prompt_tokens_total = 0, generated_tokens_total = 0, requests_total = 0;
    // Times a running request was paused because the KV pool ran short (its pages cached, it resumes first; ft::Engine
    // admits requests on the pages their prompts need now, so agents' max_tokens of 32000 do not serialize them).
    std::uint64_t requests_paused_total = 0;
    std::int64_t kv_pages_used = 0, kv_pages_total = 0;
    int kv_page_size = 0;
    // Prefix cache: prompt positions computed and prompt positions reused from cached pages (totals, as
    // prompt_tokens_total), and the pages the cache holds now (counted in kv_pages_used; those no running request
    // uses are reclaimed when pages are needed).
    std::uint64_t prefill_tokens_total = 0, prefix_hit_tokens_total = 0;
    std::int64_t kv_pages_cached = 0;
    std::uint64_t expert_calls_total = 0;     // (token, expert) pairs computed
    std::uint64_t cpu_expert_bytes_total = 0;  // expert weight bytes read by the CPU executor
    double uptime_s = 0;                      // since the model finished loading (counted while idle too)
    std::string state;                        // "idle" (no model), "loading", "running", "ready"
    VramStats vram;
    PcieStats pcie;
    ExpertCacheStats cache;
    MemoryPlan plan;                          // the plan in force (gpu false on the CPU engine)
    std::uint64_t graph_replays = 0, steps = 0;
    // The backend's raw counters, for benches and logs (name → value); the typed fields above are what UIs read.
    std::vector<std::pair<std::string, double>> backend;
};

class Engine {
public:
    Engine();
    ~Engine();  // cancels everything, unloads, joins the engine thread
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    // Loads a model (unloading the current one first). progress may be empty.
    void load(LoadOptions options, std::function<void(const LoadProgress&)> progress,
              std::function<void(const std::optional<Error>&)> done);
    void unload(std::function<void()> done = {});
    // Stops every load queued so far — the one in progress at its next check point (between mapped chunks, between
    // uploads), one still waiting at its start; their done callbacks get ft::Error(cancelled). No effect on loads
    // queued afterwards.
    void cancel_load();
    // Resizes the KV cache and the expert cache of the loaded model while it serves (queued to the engine thread;
    // the step in flight finishes first). The request is checked against the geometry and the budget before
    // anything is freed: a rejected rebuild changes nothing. Accepted: the hottest experts stay cached, running
    // sequences keep their KV, decode graphs are captured again. The CPU engine resizes the KV cache only.
    // done runs on the engine thread.
    void rebuild_caches(CacheRequest request, std::function<void(const RebuildResult&)> done);
    // Returns the request id (> 0).
    std::uint64_t submit(GenerationRequest request);
    void cancel(std::uint64_t request);

    EngineStats stats() const;
    std::optional<ModelInfo> model_info() const;

    // --- Synchronous helpers (block until the engine thread has done it) ---
    // Loads and waits; throws the load's ft::Error.
    ModelInfo load_sync(const LoadOptions& options, const std::function<void(const LoadProgress&)>& progress = {});
    // Teacher-forced logits of every position of `tokens` (a fresh sequence): [tokens.size() × n_vocab].
    // Throws ft::Error (no model; too long for the context).
    std::vector<float> evaluate_logits(std::span<const std::int32_t> tokens);
    // The loaded model's tokenizer (a cheap shared copy of a snapshot: never waits for the engine thread); throws
    // when no model with a tokenizer is loaded.
    Tokenizer tokenizer() const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

std::string_view finish_reason_name(FinishReason r);  // "stop", "length", "cancelled"

}  // namespace ft
