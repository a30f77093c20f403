#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "bench/cpu_moe_bench.h"
#include "commands.h"
#include "ft/error.h"

namespace ft::cli {

const CommandSpec& spec_bench() {
    static const CommandSpec spec{
        "bench",
        "cpu-moe --model PATH [--threads N] [--tokens T] [--rounds R] [--json FILE]",
        "benchmarks that print figures and write JSON",
        "Benchmarks of the product. Available: cpu-moe — the CPU expert executor on a real model's MoE layers "
        "(random tokens through the model's own router): expert bytes read per second, as a fraction of the host "
        "read bandwidth measured in the same run with the same threads. Coming with the GPU issues: bw, decode, "
        "prefill.",
        {
            {"model", "PATH", "model to benchmark (.gguf or Hugging Face folder)", ""},
            {"threads", "N", "CPU worker threads", "one per physical core"},
            {"tokens", "T", "tokens per MoE call (1 = decode)", "1"},
            {"rounds", "R", "timed passes over all MoE layers", "3"},
            {"seed", "S", "random seed of the hidden states", "1"},
            {"json", "FILE", "also write the results as JSON", ""},
        },
        "SUITE  cpu-moe",
    };
    return spec;
}

int run_bench(const Args& args) {
    if (args.positionals().size() != 1) {
        throw Error(ErrorCode::invalid_argument, "ft bench: name one benchmark", "available: cpu-moe");
    }
    const std::string suite = args.positionals()[0];
    nlohmann::json out;
    if (suite == "cpu-moe") {
        bench::CpuMoeBenchOptions o;
        const auto model = args.get("model");
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
        std::printf("  MoE layer                %8.1f us/call over %d calls (%d layers)\n", r.us_per_layer, r.calls, r.moe_layers);
        std::printf("    router %.1f, gather %.1f, experts %.1f, weighted sum %.1f us\n", r.us_router, r.us_gather,
                    r.us_experts, r.us_combine);
        std::printf("  MoE layers only          %8.1f tok/s\n", r.moe_tok_s);
        out = bench::to_json(r);
    } else {
        throw Error(ErrorCode::invalid_argument, "ft bench: unknown benchmark '" + suite + "'",
                    "available: cpu-moe (bw, decode and prefill arrive with the GPU engine)");
    }
    if (auto path = args.get("json")) {
        std::ofstream f(*path);
        f << out.dump(2) << "\n";
        if (!f) throw Error(ErrorCode::io, "cannot write " + *path);
    }
    return 0;
}

}  // namespace ft::cli
