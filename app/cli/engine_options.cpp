#include "engine_options.h"

#include <chrono>
#include <cstdio>
#include <future>

#include "ft/error.h"
#include "ft/paths.h"
#include "ft/utf8.h"

namespace ft::cli {

std::vector<OptionSpec> load_option_specs(bool bundled_default) {
    return {
        {"model", "PATH", "model: a .gguf file or a Hugging Face folder",
         bundled_default ? std::string("the bundled demo model (") + kBundledModelFile + ")" : std::string()},
        {"device", "cpu|cuda|auto", "where to run the model", "auto"},
        {"threads", "N", "CPU worker threads", "one per physical core"},
        {"ctx", "N|auto", "context size (positions per sequence); auto: the model's trained maximum (at least 32768, "
         "for agents), lowered to what the memory allows", "auto"},
        {"parallel", "N", "requests decoded together", "4"},
        {"prefill-chunk", "N", "prompt tokens per forward pass", "8192"},
        {"gpu", "N", "CUDA device index", "0"},
        {"vram-budget", "BYTES", "GPU memory the model may use, e.g. 8G (weights, expert cache, KV cache, scratch)",
         "--memory-ratio of the free VRAM"},
        {"memory-ratio", "R", "share of the free VRAM to plan when no --vram-budget is given", "0.9"},
        {"kv-tokens", "N", "KV cache positions, all requests together (GPU: planned from the budget)", "what the plan gives"},
        {"kv-reserve", "N", "KV positions the planner keeps before giving VRAM to the expert cache", "8192"},
        {"kv-f32", "", "GPU KV cache in f32 instead of f16", ""},
        {"no-prefix-cache", "", "do not keep finished requests' KV pages for later prompts that start the same way", ""},
        {"exact-prefill", "", "GPU prefill in f32 (matrix products and attention) instead of tensor cores: exact, slower", ""},
        {"no-graphs", "", "launch the decode step's kernels one by one instead of replaying a CUDA graph", ""},
        {"moe-backend", "NAME", "where routed experts live on the GPU path: auto|resident|offload|cpu|hybrid|static (a dense "
                                  "model has none: resident)", "auto"},
        {"hybrid-fraction", "F", "hybrid: share of expert misses fetched over PCIe (the rest on the CPU)",
         "from `ft bench bw`, else 0.5"},
        {"max-fetch", "N", "hybrid: at most N expert fetches per layer and step", "no cap"},
        {"expert-slots", "N", "expert cache slots in VRAM (offload/cpu/hybrid)", "what --vram-budget leaves"},
        {"hybrid-admit", "N", "hybrid: also fetch up to N of each layer's CPU-computed experts into the cache in the background",
         "0"},
        {"no-cache-restore", "", "hybrid: when the q* search ends, keep the expert cache as its trial fractions left it "
         "instead of bringing back the cache it started from", ""},
        {"pin-budget", "BYTES", "host memory the GPU expert store may pin in place, e.g. 16G; the rest goes through a small "
         "pinned bounce ring (same output, slower misses)", "Windows: half the RAM (the OS's cap, see ft info); Linux: as much as the OS allows"},
        {"host-function-sync", "", "GPU: wait for CPU expert work through host-function nodes instead of stream memory "
         "operations (for drivers where those misbehave; slower)", ""},
        {"record-routing", "FILE", "GPU: write each decode step's expert choice to a trace (for ft bench decode --routing)", ""},
        {"no-warm-start", "", "GPU expert cache: start empty instead of with the experts earlier sessions used most "
         "(and do not add this session's use to <data dir>/experts.sqlite)", ""},
    };
}

std::vector<OptionSpec> sampling_option_specs() {
    return {
        {"temperature", "T", "sampling temperature (0: greedy)", "0.8"},
        {"top-k", "K", "keep the K most likely tokens (0: off)", "0"},
        {"top-p", "P", "nucleus sampling (1: off)", "1"},
        {"min-p", "P", "drop tokens below P x the top probability (0: off)", "0"},
        {"repeat-penalty", "R", "repetition penalty (1: off)", "1"},
        {"presence-penalty", "P", "presence penalty", "0"},
        {"frequency-penalty", "P", "frequency penalty", "0"},
        {"seed", "S", "random seed (0: random)", "0"},
    };
}

std::vector<OptionSpec> concat(std::vector<OptionSpec> base, const std::vector<OptionSpec>& more) {
    base.insert(base.end(), more.begin(), more.end());
    return base;
}

namespace {
std::filesystem::path source_resources() {
#ifdef FT_RESOURCES_DIR
    return FT_RESOURCES_DIR;
#else
    return {};
#endif
}
}  // namespace

LoadOptions load_options_from(const Args& args, bool bundled_default) {
    LoadOptions o;
    if (const auto model = args.get_path("model")) {
        o.model = *model;
    } else if (!bundled_default) {
        throw Error(ErrorCode::invalid_argument, "--model is required", "give a .gguf file or a Hugging Face folder");
    } else {
        o.model = find_bundled_model(source_resources());
        if (o.model.empty()) {
            std::string where;
            for (const auto& d : bundled_model_dirs(executable_path(), source_resources()))
                where += (where.empty() ? "" : ", ") + path_to_utf8(d);
            throw Error(ErrorCode::invalid_argument,
                        std::string("--model is required: the bundled demo model ") + kBundledModelFile +
                            " is not installed (looked in " + (where.empty() ? "no folder" : where) + ")",
                        "give a .gguf file or a Hugging Face folder");
        }
        std::fprintf(stderr, "no --model: using the bundled demo model %s\n", path_to_utf8(o.model).c_str());
    }
    const std::string dev = args.get_or("device", "auto");
    if (dev == "cpu") o.device = Device::cpu;
    else if (dev == "cuda" || dev == "gpu") o.device = Device::cuda;
    else if (dev == "auto") o.device = Device::automatic;
    else throw Error(ErrorCode::invalid_argument, "--device must be cpu, cuda or auto, not '" + dev + "'");
    o.threads = int(args.get_int("threads", 0));
    if (o.threads < 0 || o.threads > 1024) throw Error(ErrorCode::invalid_argument, "--threads must be in [0, 1024]");
    o.n_ctx = args.get_or("ctx", "auto") == "auto" ? 0 : int(args.get_int("ctx", 0));
    if (args.has("ctx") && o.n_ctx == 0 && args.get_or("ctx", "") != "auto")
        throw Error(ErrorCode::invalid_argument, "--ctx must be a number of positions (16 or more) or auto");
    o.max_sequences = int(args.get_int("parallel", o.max_sequences));
    o.prefill_chunk = int(args.get_int("prefill-chunk", o.prefill_chunk));
    o.gpu = int(args.get_int("gpu", 0));
    if (o.gpu < 0) throw Error(ErrorCode::invalid_argument, "--gpu must be >= 0");
    if (const auto b = args.get("vram-budget")) o.vram_budget = parse_bytes(*b);
    o.memory_ratio = args.get_double("memory-ratio", o.memory_ratio);
    if (!(o.memory_ratio > 0.05 && o.memory_ratio <= 1.0))
        throw Error(ErrorCode::invalid_argument, "--memory-ratio must be in (0.05, 1]");
    o.kv_tokens = args.get_int("kv-tokens", 0);
    if (o.kv_tokens < 0) throw Error(ErrorCode::invalid_argument, "--kv-tokens must be >= 0");
    o.kv_reserve_tokens = args.get_int("kv-reserve", o.kv_reserve_tokens);
    if (o.kv_reserve_tokens < 0) throw Error(ErrorCode::invalid_argument, "--kv-reserve must be >= 0");
    o.kv_f32 = args.has("kv-f32");
    o.prefix_cache = !args.has("no-prefix-cache");
    o.gpu_exact_prefill = args.has("exact-prefill");
    o.gpu_graphs = !args.has("no-graphs");
    o.moe_backend = args.get_or("moe-backend", "auto");
    o.hybrid_fraction = args.get_double("hybrid-fraction", -1);
    if (args.has("hybrid-fraction") && (o.hybrid_fraction < 0 || o.hybrid_fraction > 1))
        throw Error(ErrorCode::invalid_argument, "--hybrid-fraction must be in [0, 1]");
    o.max_fetch = int(args.get_int("max-fetch", -1));
    o.expert_slots = int(args.get_int("expert-slots", 0));
    o.hybrid_admit = int(args.get_int("hybrid-admit", 0));
    if (o.hybrid_admit < 0 || o.hybrid_admit > 256) throw Error(ErrorCode::invalid_argument, "--hybrid-admit must be in [0, 256]");
    o.search_restores_cache = !args.has("no-cache-restore");
    if (o.expert_slots < 0) throw Error(ErrorCode::invalid_argument, "--expert-slots must be >= 0");
    o.pin_budget = args.get_bytes("pin-budget", 0);
    o.host_function_sync = args.has("host-function-sync");
    o.warm_start = !args.has("no-warm-start");
    if (const auto f = args.get_path("record-routing")) o.record_routing = *f;
    return o;
}

SamplingParams sampling_from(const Args& args, SamplingParams p) {
    p.temperature = float(args.get_double("temperature", p.temperature));
    p.top_k = int(args.get_int("top-k", p.top_k));
    p.top_p = float(args.get_double("top-p", p.top_p));
    p.min_p = float(args.get_double("min-p", p.min_p));
    p.repetition_penalty = float(args.get_double("repeat-penalty", p.repetition_penalty));
    p.presence_penalty = float(args.get_double("presence-penalty", p.presence_penalty));
    p.frequency_penalty = float(args.get_double("frequency-penalty", p.frequency_penalty));
    const long long seed = args.get_int("seed", 0);
    if (seed < 0) throw Error(ErrorCode::invalid_argument, "--seed must be >= 0");
    p.seed = std::uint64_t(seed);
    return p;
}

FinishEvent generate(Engine& engine, GenerationRequest request, std::function<void(const TokenEvent&)> on_token,
                     const std::function<bool()>& interrupted) {
    std::promise<std::optional<Error>> done;
    FinishEvent fin;
    request.on_token = std::move(on_token);
    request.on_finish = [&](const FinishEvent& ev) {
        fin = ev;
        done.set_value(std::nullopt);
    };
    request.on_error = [&](const Error& e) { done.set_value(e); };
    const auto id = engine.submit(std::move(request));
    auto fut = done.get_future();
    while (fut.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) {
        if (interrupted && interrupted()) engine.cancel(id);
    }
    if (auto e = fut.get()) throw *e;
    return fin;
}

}  // namespace ft::cli
