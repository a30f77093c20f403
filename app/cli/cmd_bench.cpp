#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "bench/cpu_moe_bench.h"
#include "bench/decode_bench.h"
#include "bench_serve.h"
#include "commands.h"
#include "engine_options.h"
#include "ft/error.h"
#include "ft/utf8.h"
#include "profile/bw_profile.h"

namespace ft::cli {

const CommandSpec& spec_bench() {
    static const CommandSpec spec{
        "bench",
        "bw|cpu-moe|decode|prefill|warm-start|serve --model PATH [options] [--json FILE]",
        "benchmarks that print figures and write JSON",
        "Benchmarks of the product.\n"
        "  bw       B_P (expert fetches over PCIe as decode issues them) and B_C (the CPU expert kernel), each alone\n"
        "           and both at once, on the model's real experts; stores the profile (GPU, expert format, threads)\n"
        "           in <data dir>/bandwidth.sqlite, where the hybrid backend reads its fraction B_P/(B_P+B_C).\n"
        "  cpu-moe  the CPU expert executor on a real model's MoE layers (random tokens through the model's own\n"
        "           router): expert bytes read per second, as a fraction of the host read bandwidth measured in the\n"
        "           same run with the same threads.\n"
        "  decode   prefill a random prompt per sequence, then decode --gen steps of --batch tokens (greedy) on\n"
        "           --device: tok/s, ms per step, kernels per step, the step's phases timed inside the CUDA graph,\n"
        "           and at batch 1 the fraction of the GPU copy bandwidth (measured in the same run) reached.\n"
        "  prefill  one random prompt of --prompt-len tokens in --chunk chunks: tok/s and model TFLOP/s.\n"
        "  warm-start  the expert cache's hit rate over the first --gen decode steps after a load, without and with\n"
        "           the warm start: a cold load (warm start off) stores its expert use in <data dir>/experts.sqlite as\n"
        "           an unload would, then a warm load decodes another prompt; steps and seconds to 95 % of the steady\n"
        "           hit rate, per --window steps.\n"
        "  serve    --clients N clients each send --requests R streamed chat requests (greedy, --max-tokens) to the\n"
        "           API server at --url, or to one started in-process with --model: aggregate tok/s, TTFT p50/p99.\n"
        "           --replay DIR plays a recorded agent session (ft serve --record DIR) back turn by turn, --sessions\n"
        "           copies at once: each turn's prompt, reused prefix tokens and TTFT.",
        {
            {"model", "PATH", "model to benchmark (.gguf or Hugging Face folder)", ""},
            {"device", "cpu|cuda|auto", "decode/prefill: where to run", "auto"},
            {"threads", "N", "CPU worker threads", "one per physical core"},
            {"gpu", "N", "CUDA device index", "0"},
            {"vram-budget", "BYTES", "GPU memory the model may use, e.g. 8G", "the free VRAM"},
            {"exact-prefill", "", "GPU prefill in f32 (matrix products and attention): exact, slower", ""},
            {"pcie-limit", "GBPS", "decode/prefill on the GPU with experts in host RAM (offload, hybrid): emulate a slower "
                                   "host link (e.g. 12 for PCIe 4.0 x8): expert fetches and prefill streaming take at "
                                   "least bytes / GBPS; an emulation on this machine's link", ""},
            {"no-graphs", "", "decode without CUDA graphs", ""},
            {"prompt-len", "N", "decode/prefill: prompt tokens; serve: prompt words", "512 (decode), 8192 (prefill), 64 (serve)"},
            {"gen", "N", "decode: timed steps; warm-start: steps per load", "128 (warm-start: 256)"},
            {"warmup", "N", "decode: untimed steps first (graph capture, the cache filling, hybrid's q* search)",
             "32; hybrid refining q* online: until its search converged, at most 2000"},
            {"batch", "N", "decode: sequences decoded together", "1"},
            {"window", "N", "warm-start: decode steps per hit-rate window", "8"},
            {"chunk", "N", "prefill chunk", "8192"},
            {"backend", "LIST", "decode: MoE backends to run one after the other: all or a comma list of "
                                "resident,offload,cpu,hybrid,static,auto", "--moe-backend's value"},
            {"routing", "SPEC", "decode: model | trace:FILE | synthetic[:zipf=Z,reuse=R,seed=S,run=N] (replaces the router's "
                                "expert choice in decode steps)", "model"},
            {"moe-backend", "NAME", "where routed experts live (auto|resident|offload|cpu|hybrid|static)", "auto"},
            {"hybrid-fraction", "F", "hybrid: share of misses fetched over PCIe", "from ft bench bw, else 0.5"},
            {"max-fetch", "N", "hybrid: fetches per layer and step at most", "no cap"},
            {"expert-slots", "N", "expert cache slots", "what --vram-budget leaves"},
            {"hybrid-admit", "N", "hybrid: CPU-computed experts per layer also fetched in the background", "0"},
            {"no-cache-restore", "", "hybrid: keep the expert cache as the q* search's trial fractions left it", ""},
            {"no-warm-start", "", "decode/prefill: the GPU expert cache starts empty (no warm start from the stored expert "
                                  "use or an even share, and this run's use is not stored)", ""},
            {"tokens", "T", "cpu-moe: tokens per MoE call (1 = decode)", "1"},
            {"rounds", "R", "cpu-moe: timed passes over all MoE layers", "3"},
            {"seconds", "S", "bw: seconds per measurement", "2"},
            {"seed", "S", "random seed", "1"},
            {"clients", "N", "serve: concurrent clients", "4"},
            {"requests", "R", "serve: requests per client", "4"},
            {"max-tokens", "N", "serve: tokens per reply at most", "128"},
            {"url", "URL", "serve: a running server (else one is started with --model)", ""},
            {"api-key", "KEY", "serve: the server's --api-key", ""},
            {"replay", "DIR", "serve: play back the requests recorded by ft serve --record DIR, in order", ""},
            {"sessions", "N", "serve --replay: sessions replayed at once (each tagged in its first user turn)", "1"},
            {"json", "FILE", "also write the results as JSON", ""},
        },
        "SUITE  bw | cpu-moe | decode | prefill | warm-start | serve",
    };
    return spec;
}

int run_bench(const Args& args) {
    if (args.positionals().size() != 1) {
        throw Error(ErrorCode::invalid_argument, "ft bench: name one benchmark", "available: bw, cpu-moe, decode, prefill, serve");
    }
    const std::string suite = args.positionals()[0];
    nlohmann::json out;
    if (suite == "bw") {
        profile::BwBenchOptions o;
        const auto model = args.get_path("model");
        if (!model) throw Error(ErrorCode::invalid_argument, "--model is required");
        o.model = *model;
        o.threads = int(args.get_int("threads", 0));
        o.gpu = int(args.get_int("gpu", 0));
        o.seconds = args.get_double("seconds", 2.0);
        if (o.seconds <= 0 || o.seconds > 600) throw Error(ErrorCode::invalid_argument, "--seconds must be in (0, 600]");
        const auto p = profile::run_bw_bench(o);
        profile::store_profile(p);
        std::printf("bw  %s  experts %s  %d CPU threads\n", p.gpu.c_str(), p.format.c_str(), p.threads);
        std::printf("  B_P expert fetches over PCIe   alone %7.1f GB/s   with the CPU busy %7.1f GB/s\n", p.pcie_gbs,
                    p.pcie_both_gbs);
        std::printf("  B_C CPU expert kernel          alone %7.1f GB/s   with PCIe busy    %7.1f GB/s\n", p.cpu_gbs,
                    p.cpu_both_gbs);
        std::printf("  whole-layer DMA (prefill)      %7.1f GB/s\n", p.dma_gbs);
        std::printf("  hybrid fraction B_P/(B_P+B_C)  %7.3f   (stored for this GPU, format and thread count)\n", p.fraction);
        out = profile::to_json(p);
        out["bench"] = "bw";
    } else if (suite == "cpu-moe") {
        bench::CpuMoeBenchOptions o;
        const auto model = args.get_path("model");
        if (!model) throw Error(ErrorCode::invalid_argument, "--model is required");
        o.model = *model;
        o.threads = int(args.get_int("threads", 0));
        o.tokens = int(args.get_int("tokens", 1));
        o.rounds = int(args.get_int("rounds", 3));
        o.seed = std::uint64_t(args.get_int("seed", 1));
        if (o.tokens < 1 || o.tokens > 4096) throw Error(ErrorCode::invalid_argument, "--tokens must be in [1, 4096]");
        if (o.rounds < 1) throw Error(ErrorCode::invalid_argument, "--rounds must be >= 1");
        const auto r = bench::run_cpu_moe_bench(o);
        std::printf("cpu-moe  %s  %s  %d threads  %d token(s)/call\n", r.model.c_str(), r.isa.c_str(), r.threads, r.tokens);
        std::printf("  host read bandwidth      %8.1f GB/s\n", r.host_read_gbs);
        std::printf("  expert weights read      %8.1f GB/s  (%.0f%% of host read)\n", r.expert_gbs, 100 * r.fraction_of_host);
        std::printf("  the experts alone        %8.1f GB/s  (%.0f%% of host read; router, gather and sum left out)\n",
                    r.experts_alone_gbs, 100 * r.experts_alone_fraction_of_host);
        std::printf("  MoE layer                %8.1f us/call over %d calls (%d layers)\n", r.us_per_layer, r.calls, r.moe_layers);
        std::printf("    router %.1f, gather %.1f, experts %.1f, weighted sum %.1f us\n", r.us_router, r.us_gather,
                    r.us_experts, r.us_combine);
        std::printf("  MoE layers only          %8.1f tok/s\n", r.moe_tok_s);
        if (!r.executor.empty()) {
            std::printf("  the executor alone, one token, n random experts a call (phases: input prepared, gate/up, down;\n"
                        "  hot: the same experts every call, their weights in the CPU's caches):\n");
            for (const auto& p : r.executor)
                std::printf("    %d expert%s %8.1f us/call  %6.1f GB/s   %5.1f + %5.1f + %5.1f us   hot %6.1f us\n", p.experts,
                            p.experts == 1 ? " " : "s", p.us_per_call, p.gbs, p.us_to_input, p.us_gate_up, p.us_down, p.us_hot);
        }
        out = bench::to_json(r);
    } else if (suite == "decode" || suite == "prefill" || suite == "warm-start") {
        const bool decode = suite != "prefill";
        bench::ForwardBenchOptions o;
        o.load = load_options_from(args);
        // The context these figures were always measured at (the run's own prompt + tokens when longer), not the
        // automatic one `ft serve` picks (which gives up to half of the expert cache's VRAM to one long context).
        if (o.load.n_ctx == 0) o.load.n_ctx = 4096;
        o.load.pcie_limit_gbps = args.get_double("pcie-limit", 0);
        if (o.load.pcie_limit_gbps < 0) throw Error(ErrorCode::invalid_argument, "--pcie-limit must be positive (GB/s)");
        // The background admission copies (side stream) are not held to the limit: they would cross the emulated
        // link for free (on the H200 that made hybrid look 1.6x faster than offload at "12 GB/s").
        if (o.load.pcie_limit_gbps > 0 && o.load.hybrid_admit > 0)
            throw Error(ErrorCode::invalid_argument, "--pcie-limit does not emulate --hybrid-admit's background copies",
                        "leave --hybrid-admit out when emulating a link");
        if (o.load.pcie_limit_gbps > 0)
            std::printf("host link emulated at %.1f GB/s (--pcie-limit): expert fetches and prefill streaming take at "
                        "least bytes / %.1f GB/s\n", o.load.pcie_limit_gbps, o.load.pcie_limit_gbps);
        o.prompt_len = int(args.get_int("prompt-len", decode ? 512 : 8192));
        o.gen = int(args.get_int("gen", 128));
        o.batch = int(args.get_int("batch", 1));
        o.warmup = int(args.get_int("warmup", -1));
        if (args.get("warmup") && (o.warmup < 0 || o.warmup > 100000))
            throw Error(ErrorCode::invalid_argument, "--warmup must be in [0, 100000]");
        o.chunk = int(args.get_int("chunk", 8192));
        o.seed = std::uint64_t(args.get_int("seed", 1));
        if (o.prompt_len < 1 || o.prompt_len > (1 << 20)) throw Error(ErrorCode::invalid_argument, "--prompt-len must be in [1, 1048576]");
        if (o.gen < 2 || o.gen > 100000) throw Error(ErrorCode::invalid_argument, "--gen must be in [2, 100000]");
        if (o.batch < 1 || o.batch > 64) throw Error(ErrorCode::invalid_argument, "--batch must be in [1, 64]");
        if (o.chunk < 1) throw Error(ErrorCode::invalid_argument, "--chunk must be positive");
        o.routing = args.get_or("routing", "model");
        if (suite == "warm-start") {
            const int window = int(args.get_int("window", 8));
            if (window < 1 || window > 1000) throw Error(ErrorCode::invalid_argument, "--window must be in [1, 1000]");
            if (!args.get("gen")) o.gen = 256;
            if (!args.get("routing")) o.routing = "synthetic";
            const auto r = bench::run_warm_start_bench(o, o.gen, window);
            bench::print(r);
            out = bench::to_json(r);
            if (o.load.pcie_limit_gbps > 0) out["pcie_limit_gbps"] = o.load.pcie_limit_gbps;
        } else if (!decode) {
            const auto r = bench::run_prefill_bench(o);
            bench::print(r, false);
            out = bench::to_json(r);
            out["bench"] = suite;
            if (o.load.pcie_limit_gbps > 0) out["pcie_limit_gbps"] = o.load.pcie_limit_gbps;
        } else {
            if (o.load.pcie_limit_gbps > 0) out["pcie_limit_gbps"] = o.load.pcie_limit_gbps;
            std::vector<std::string> backends;
            std::string list = args.get_or("backend", o.load.moe_backend);
            if (list == "all") list = "resident,offload,cpu,hybrid,static";
            for (std::size_t at = 0; at <= list.size();) {
                const auto comma = list.find(',', at);
                const std::string b = list.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
                if (!b.empty()) backends.push_back(b);
                if (comma == std::string::npos) break;
                at = comma + 1;
            }
            o.measure_host = true;
            std::vector<bench::ForwardBenchResult> results;
            out["bench"] = "decode";
            out["runs"] = nlohmann::json::array();
            for (const auto& b : backends) {
                o.load.moe_backend = b;
                try {
                    results.push_back(bench::run_decode_bench(o));
                    bench::print(results.back(), true);
                    out["runs"].push_back(bench::to_json(results.back()));
                } catch (const Error& e) {
                    // One backend that cannot run here (resident on a small budget) does not stop the others.
                    if (backends.size() == 1) throw;
                    std::printf("decode  backend %s: not run: %s\n", b.c_str(), e.what());
                    out["runs"].push_back({{"backend", b}, {"error", e.what()}});
                }
                std::fflush(stdout);
            }
            if (results.size() > 1) {
                double t_static = 0, t_best_other = 0, t_resident = 0;
                for (const auto& r : results) {
                    if (r.backend == "static") t_static = r.decode_tok_s;
                    if (r.backend == "offload" || r.backend == "cpu") t_best_other = std::max(t_best_other, r.decode_tok_s);
                    if (r.backend == "resident") t_resident = r.decode_tok_s;
                }
                std::printf("\nsummary (batch %d, %s)\n", o.batch, results[0].routing.c_str());
                std::printf("  %-9s %9s %8s %9s %8s %8s %10s %9s\n", "backend", "tok/s", "hit %", "miss MB", "fetched",
                            "on CPU", "floor ms", "ms/tok");
                for (const auto& r : results)
                    std::printf("  %-9s %9.1f %8.1f %9.1f %8.2f %8.2f %10.3f %9.3f\n", r.backend.c_str(), r.decode_tok_s,
                                100 * r.hit_rate, r.miss_bytes_per_token / 1e6, r.fetched_per_token, r.cpu_per_token, r.floor_ms,
                                r.step_ms / o.batch);
                for (const auto& r : results) {
                    if (r.backend != "hybrid") continue;
                    if (t_static > 0) std::printf("  hybrid / static                 %.2f×\n", r.decode_tok_s / t_static);
                    if (t_best_other > 0) std::printf("  hybrid / best of offload, cpu   %.2f×\n", r.decode_tok_s / t_best_other);
                    if (t_resident > 0 && r.floor_ms > 0) {
                        // Miss service: what the step costs beyond the same step with every expert resident.
                        const double service = r.step_ms / o.batch - 1e3 / t_resident;
                        std::printf("  hybrid miss service             %.3f ms/token = %.2f× its floor\n", service, service / r.floor_ms);
                    }
                }
            }
        }
    } else if (suite == "serve") {
        out = bench_serve(args);
    } else {
        throw Error(ErrorCode::invalid_argument, "ft bench: unknown benchmark '" + suite + "'",
                    "available: bw, cpu-moe, decode, prefill, serve");
    }
    if (auto path = args.get_path("json")) {
        std::ofstream f(*path);
        f << out.dump(2) << "\n";
        if (!f) throw Error(ErrorCode::io, "cannot write " + path_to_utf8(*path));
    }
    return 0;
}

}  // namespace ft::cli
