#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "ft/error.h"
#include "ft/plan.h"
#include "ft/utf8.h"
#include "model/model_inspect.h"

namespace ft::cli {

const CommandSpec& spec_inspect() {
    static const CommandSpec spec{
        "inspect",
        "PATH [--json] [--plan [--vram BYTES] [--ram BYTES] [--pcie-gbps G] [--host-gbps G] [--ctx N] [--parallel N]]\n"
        "  ft inspect --plan --preset NAME [--weights TYPE] [the --plan options]",
        "show a model file: architecture, tensors, sizes, tokenizer; with --plan, whether it fits this PC",
        "Prints the architecture and hyper-parameters, parameter counts, tensor table, expert pool bytes, tokenizer summary "
        "and whether a chat template is present. --plan predicts, before loading, whether the model fits a PC (host RAM "
        "for the weights, VRAM for the non-expert weights, a KV floor and a useful expert cache), the backend it would "
        "use, the VRAM plan, and a decode tok/s band and prefill tok/s. Without the flags it uses this machine's GPU "
        "(90 % of its free VRAM), RAM and the newest `ft bench bw` profile. With --preset instead of PATH it predicts for "
        "an `ft synth` preset (the file synth would write, not written): models too large to materialize, such as "
        "DeepSeek-V3.",
        {
            {"json", "", "print JSON instead of text", ""},
            {"plan", "", "predict the fit and speed on a PC instead of describing the file", ""},
            {"vram", "BYTES", "--plan: VRAM the model may use, e.g. 8G (0: no GPU)", "this GPU's free VRAM × 0.9"},
            {"ram", "BYTES", "--plan: host RAM, e.g. 32G", "this machine's RAM"},
            {"pcie-gbps", "G", "--plan: expert fetch bandwidth over PCIe, GB/s", "the stored profile, else 25"},
            {"host-gbps", "G", "--plan: CPU expert kernel read bandwidth for Q4_K experts, GB/s (other types scaled by the kernel's measured rate per type)", "the stored profile of the model's expert format, else another format's scaled by type, else 40 for Q4_K scaled by type"},
            {"gpu-gbps", "G", "--plan: the GPU's memory bandwidth, GB/s", "this GPU's peak (memory clock × bus width), else 400"},
            {"ctx", "N", "--plan: context per request", "4096"},
            {"parallel", "N", "--plan: requests decoded together", "4"},
            {"gpu", "N", "--plan: which GPU of this machine", "0"},
            {"preset", "NAME", "--plan without PATH: an `ft synth` preset (deepseek-v3, qwen3-30b-a3b, …)", ""},
            {"weights", "TYPE", "--preset: its weight type (f32, bf16, q8_0, q4_0, q4_1, q5_0, q5_1, q2_k, q3_k, q4_k, q5_k, q6_k, iq4_nl, iq4_xs, mxfp4, tq1_0, tq2_0, iq2_xxs, iq2_xs, iq2_s, iq3_xxs, iq3_s)", "q4_k"},
        },
        "PATH  a GGUF file or a Hugging Face model folder",
    };
    return spec;
}

namespace {

std::string gib(std::uint64_t b) {
    char s[32];
    std::snprintf(s, sizeof s, "%.2f GiB", double(b) / double(1ull << 30));
    return s;
}

nlohmann::json plan_json(const MemoryPlan& p) {
    return {{"backend", p.backend},        {"budget", p.budget},
            {"weights", p.weights},        {"experts", p.experts},
            {"kv", p.kv},                  {"scratch", p.scratch},
            {"cublas", p.cublas},          {"graphs", p.graphs},
            {"reserve", p.reserve},        {"expert_slots", p.expert_slots},
            {"expert_slots_total", p.expert_slots_total}, {"expert_slot_bytes", p.expert_slot_bytes},
            {"kv_tokens", p.kv_tokens},    {"kv_bytes_per_token", p.kv_bytes_per_token},
            {"prefill_chunk", p.prefill_chunk}, {"prefill_overlap", p.prefill_overlap},
            {"notes", p.notes}};
}

int run_plan(const Args& args, const std::filesystem::path& path) {
    MachineProfile pc = this_machine(int(args.get_int("gpu", 0)));
    if (const auto v = args.get("vram")) pc.vram_bytes = parse_bytes(*v);
    if (const auto v = args.get("ram")) pc.ram_bytes = parse_bytes(*v);
    pc.pcie_gbps = args.get_double("pcie-gbps", pc.pcie_gbps);
    pc.host_gbps = args.get_double("host-gbps", pc.host_gbps);
    pc.gpu_mem_gbps = args.get_double("gpu-gbps", pc.gpu_mem_gbps);
    if (pc.pcie_gbps < 0 || pc.host_gbps < 0 || pc.gpu_mem_gbps < 0)
        throw Error(ErrorCode::invalid_argument, "bandwidths must be positive GB/s");
    FitOptions fo;
    fo.n_ctx = int(args.get_int("ctx", fo.n_ctx));
    fo.max_sequences = int(args.get_int("parallel", fo.max_sequences));
    if (fo.n_ctx < 16 || fo.max_sequences < 1) throw Error(ErrorCode::invalid_argument, "--ctx must be ≥ 16 and --parallel ≥ 1");
    const FitPrediction f = args.has("preset") ? predict_fit_preset(*args.get("preset"), args.get_or("weights", "q4_k"), pc, fo)
                                               : predict_fit(path, pc, fo);
    if (args.has("json")) {
        nlohmann::json j{{"verdict", f.verdict},
                         {"summary", f.summary},
                         {"reason", f.reason},
                         {"backend", f.backend},
                         {"ram_needed", f.ram_needed},
                         {"vram_needed_min", f.vram_needed_min},
                         {"cache_fraction", f.cache_fraction},
                         {"miss_rate", f.miss_rate},
                         {"decode_tok_s", {f.decode_tok_s_low, f.decode_tok_s_high}},
                         {"prefill_tok_s", f.prefill_tok_s},
                         {"machine", {{"gpu", pc.gpu_name}, {"vram", pc.vram_bytes}, {"ram", pc.ram_bytes},
                                      {"pcie_gbps", pc.pcie_gbps}, {"host_gbps", pc.host_gbps},
                                      {"cpu_expert_gbps", f.cpu_expert_gbps}, {"cpu_expert_rate_source", f.cpu_expert_rate_source},
                                      {"gpu_mem_gbps", pc.gpu_mem_gbps}, {"gpu_sms", pc.gpu_sms}, {"gpu_cc", pc.gpu_cc}}}};
        if (f.plan.gpu) j["plan"] = plan_json(f.plan);
        std::printf("%s\n", j.dump(2).c_str());
        return 0;
    }
    std::printf("%s\n", f.summary.c_str());
    if (!f.reason.empty()) std::printf("  why           %s\n", f.reason.c_str());
    std::printf("  machine       %s, VRAM %s (%.0f GB/s), RAM %s, PCIe %.1f GB/s%s\n",
                pc.gpu_name.empty() ? "no GPU" : pc.gpu_name.c_str(), gib(pc.vram_bytes).c_str(),
                pc.gpu_mem_gbps > 0 ? pc.gpu_mem_gbps : 400.0, gib(pc.ram_bytes).c_str(),
                pc.pcie_gbps > 0 ? pc.pcie_gbps : 25.0, pc.pcie_gbps > 0 ? "" : " (default: no `ft bench bw` profile)");
    if (f.cpu_expert_gbps > 0) {
        const std::string& src = f.cpu_expert_rate_source;
        std::printf("  CPU experts   %.1f GB/s (%s)\n", f.cpu_expert_gbps,
                    src == "given" ? "--host-gbps for Q4_K, scaled to these experts' types"
                    : src == "profile" ? "measured: the `ft bench bw` profile of these experts' format"
                    : src == "scaled" ? "another format's `ft bench bw` profile, scaled to these experts' types"
                                      : "default: 40 GB/s for Q4_K, scaled to these experts' types");
    }
    std::printf("  RAM needed    %s\n", gib(f.ram_needed).c_str());
    if (f.plan.gpu) {
        const MemoryPlan& p = f.plan;
        std::printf("  VRAM plan     %s budget: weights %s, expert cache %s (%d of %d experts, %.0f %%), KV %s (%lld tokens), "
                    "scratch %s, cuBLAS %s, graphs %s, reserve %s\n",
                    gib(p.budget).c_str(), gib(p.weights).c_str(), gib(p.experts).c_str(), p.expert_slots,
                    p.expert_slots_total, 100.0 * f.cache_fraction, gib(p.kv).c_str(), (long long)p.kv_tokens,
                    gib(p.scratch).c_str(), gib(p.cublas).c_str(), gib(p.graphs).c_str(), gib(p.reserve).c_str());
        if (p.state) std::printf("  state         %s (recurrent state: linear attention, compressor windows; %d parallel requests)\n", gib(p.state).c_str(), p.max_sequences);
        std::printf("  smallest VRAM %s\n", gib(f.vram_needed_min).c_str());
        std::printf("  prefill chunk %d, overlap %s\n", p.prefill_chunk, p.prefill_overlap ? "on" : "off");
        for (const auto& n : p.notes) std::printf("  note          %s\n", n.c_str());
    }
    if (f.decode_tok_s_high > 0) {
        std::printf("  decode        %.0f–%.0f tok/s", f.decode_tok_s_low, f.decode_tok_s_high);
        if (f.verdict == "hybrid") std::printf(" (predicted miss rate %.0f %%)", 100 * f.miss_rate);
        std::printf("\n");
    }
    if (f.prefill_tok_s > 0) std::printf("  prefill       %.0f tok/s (an 8k-token prompt)\n", f.prefill_tok_s);
    return 0;
}

}  // namespace

int run_inspect(const Args& args) {
    if (args.has("preset")) {
        if (!args.has("plan") || !args.positionals().empty())
            throw Error(ErrorCode::invalid_argument, "inspect: --preset goes with --plan and no PATH",
                        "usage: ft inspect --plan --preset NAME [--weights TYPE]");
        return run_plan(args, std::filesystem::path());
    }
    if (args.positionals().size() != 1)
        throw Error(ErrorCode::invalid_argument, "inspect: expected one PATH", "usage: ft inspect PATH [--json] [--plan]");
    if (args.has("plan")) return run_plan(args, path_from_utf8(args.positionals()[0]));
    const auto report = model::inspect_path(path_from_utf8(args.positionals()[0]));
    const std::string text = args.has("json") ? report.dump(2) + "\n" : model::inspect_text(report);
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
}

}  // namespace ft::cli
