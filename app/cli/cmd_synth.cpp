#include <cctype>
#include <cstdio>
#include <filesystem>
#ifdef _WIN32
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
#endif

#include "commands.h"
#include "ft/error.h"
#include "ft/utf8.h"
#include "model/arch.h"
#include "synth/synth_model.h"

namespace ft::cli {

namespace {

std::string type_name(kernels::DType t) {
    std::string n(kernels::dtype_info(t).name);
    for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return n;
}

// "q4_k; bf16 for gpt_oss" (the matrices) or "mxfp4 for gpt_oss, else --weights" (the experts), from the registry.
std::string default_weights_help(bool experts) {
    std::string s = experts ? "" : type_name(kernels::DType::Q4_K);
    for (const model::Arch* a : model::arch_registry()) {
        if (experts && a->synth_expert_weights)
            s += type_name(*a->synth_expert_weights) + " for " + std::string(a->name) + ", ";
        else if (!experts && a->synth_weights != kernels::DType::Q4_K)
            s += "; " + type_name(a->synth_weights) + " for " + std::string(a->name);
    }
    return experts ? s + "else --weights" : s;
}

}  // namespace

const CommandSpec& spec_synth() {
    static const CommandSpec spec{
        "synth",
        "--arch ARCH --preset NAME --weights TYPE --out FILE.gguf",
        "write a synthetic model of a real architecture",
        "Writes a complete, loadable GGUF of a real architecture with random weights of sane scale, for tests and "
        "benchmarks: the real hyper-parameters of the preset (overridable), the real Qwen3 tokenizer and chat template. "
        "Deterministic for a seed; Q8_0, Q4_K, Q5_K, Q6_K and MXFP4 blocks are generated directly, the other block "
        "types quantized from generated values; streamed (bounded RAM).",
        {
            {"arch", "ARCH", "architecture (the preset's when left out)", ""},
            {"preset", "NAME", "size preset: " + model::synth_preset_names(), "tiny"},
            {"weights", "TYPE", "weight type: f32, bf16, q8_0, q4_0, q4_1, q5_0, q5_1, q2_k, q3_k, q4_k, q5_k, q6_k, iq4_nl, iq4_xs, mxfp4, tq1_0, tq2_0, iq2_xxs, iq2_xs, iq2_s, iq3_xxs, iq3_s, iq1_s, iq1_m", default_weights_help(false)},
            {"expert-weights", "TYPE", "routed experts' weight type (same choices)", default_weights_help(true)},
            {"seed", "S", "random seed", "1"},
            {"out", "FILE", "output GGUF file", ""},
            {"vocab", "PATH", "tokenizer.json (or its folder, with tokenizer_config.json) to embed", "bundled Qwen3"},
            {"layers", "N", "override: number of layers", ""},
            {"experts", "E", "override: routed experts per layer", ""},
            {"top-k", "K", "override: experts per token", ""},
            {"hidden", "H", "override: hidden size", ""},
            {"expert-ff", "F", "override: expert FFN size", ""},
            {"heads", "N", "override: attention heads", ""},
            {"kv-heads", "N", "override: KV heads", ""},
            {"head-dim", "D", "override: head dim", ""},
            {"context", "N", "override: training context length", ""},
            {"threads", "N", "generator threads (0: all cores)", "0"},
            {"split-max-tensors", "N", "write a split model: parts of at most N tensors (FILE-00001-of-0000N.gguf …)", ""},
            {"split-max-size", "SIZE", "write a split model: parts of at most SIZE bytes of tensor data (K/M/G)", ""},
            {"quiet", "", "no progress on stderr", ""},
        },
        "",
    };
    return spec;
}

namespace {

// The bundled Qwen3 tokenizer: installed beside the binary (share/freetoken or resources/), else the source tree.
std::filesystem::path default_tokenizer_dir() {
    std::vector<std::filesystem::path> candidates;
    std::filesystem::path exe;
#if defined(__linux__)
    std::error_code ec;
    exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) exe.clear();
#elif defined(_WIN32)
    std::wstring buf(32768, L'\0');
    const DWORD n = GetModuleFileNameW(nullptr, buf.data(), static_cast<DWORD>(buf.size()));
    if (n > 0 && n < buf.size()) exe = std::filesystem::path(buf.substr(0, n));
#endif
    if (!exe.empty()) {
        candidates.push_back(exe.parent_path().parent_path() / "share/freetoken/tokenizers/qwen3");
        candidates.push_back(exe.parent_path() / "resources/tokenizers/qwen3");
    }
#ifdef FT_RESOURCES_DIR
    candidates.push_back(std::filesystem::path(FT_RESOURCES_DIR) / "tokenizers/qwen3");
#endif
    for (const auto& c : candidates)
        if (std::filesystem::exists(c / "tokenizer.json")) return c;
    throw Error(ErrorCode::not_found, "synth: the bundled Qwen3 tokenizer was not found",
                "pass --vocab PATH/tokenizer.json (resources/tokenizers/qwen3 in the source tree)");
}

std::optional<std::uint32_t> opt_u32(const Args& a, const char* name) {
    if (!a.has(name)) return std::nullopt;
    const long long v = a.get_int(name, 0);
    if (v <= 0 || v > (1ll << 24))
        throw Error(ErrorCode::invalid_argument, std::string("synth: --") + name + " must be a positive size");
    return static_cast<std::uint32_t>(v);
}

}  // namespace

int run_synth(const Args& args) {
    const auto out = args.get("out");
    if (!out || out->empty()) throw Error(ErrorCode::invalid_argument, "synth: --out FILE.gguf is required");
    const std::string preset = args.get_or("preset", "tiny");
    const auto preset_arch = synth::synth_preset_arch(preset);
    if (!preset_arch)
        throw Error(ErrorCode::invalid_argument, "synth: unknown preset \"" + preset + "\" (--preset)",
                    "presets: " + model::synth_preset_names());
    const std::string arch_name = args.get_or("arch", std::string(model::arch_name(*preset_arch)));
    const auto arch = model::arch_from_name(arch_name);
    if (!arch)
        throw Error(ErrorCode::invalid_argument, "synth: unknown architecture \"" + arch_name + "\" (--arch)",
                    "architectures: " + model::runnable_arch_names());
    // The released files' types (gpt-oss: MXFP4 experts, BF16 matrices).
    const std::string wname = args.get_or("weights", type_name(synth::synth_default_weights(*arch)));
    const auto weights = kernels::dtype_from_name(wname);
    if (!weights) throw Error(ErrorCode::invalid_argument, "synth: unknown weight type \"" + wname + "\" (--weights)");
    std::optional<kernels::DType> expert_weights;
    if (auto e = args.get("expert-weights")) {
        expert_weights = kernels::dtype_from_name(*e);
        if (!expert_weights)
            throw Error(ErrorCode::invalid_argument, "synth: unknown weight type \"" + *e + "\" (--expert-weights)");
    } else if (!synth::synth_default_expert_weights(*arch)) {
        expert_weights = weights;
    }
    const long long seed = args.get_int("seed", 1);
    if (seed < 0) throw Error(ErrorCode::invalid_argument, "synth: --seed must be >= 0");

    synth::SynthOverrides o;
    o.layers = opt_u32(args, "layers");
    o.experts = opt_u32(args, "experts");
    o.top_k = opt_u32(args, "top-k");
    o.hidden = opt_u32(args, "hidden");
    o.expert_ff = opt_u32(args, "expert-ff");
    o.heads = opt_u32(args, "heads");
    o.kv_heads = opt_u32(args, "kv-heads");
    o.head_dim = opt_u32(args, "head-dim");
    o.context = opt_u32(args, "context");
    const auto desc = synth::synth_desc(*arch, preset, o);
    const auto plan = synth::synth_plan(desc, *weights, static_cast<std::uint64_t>(seed), expert_weights);

    synth::SynthOptions opt;
    opt.out = path_from_utf8(*out);
    if (auto v = args.get("vocab")) {
        const std::filesystem::path p = path_from_utf8(*v);
        opt.tokenizer_dir = std::filesystem::is_directory(p) ? p : p.parent_path();
        if (!std::filesystem::is_directory(p) && p.filename() != "tokenizer.json")
            throw Error(ErrorCode::invalid_argument, "synth: --vocab must name a tokenizer.json or its folder");
    } else {
        opt.tokenizer_dir = default_tokenizer_dir();
    }
    opt.threads = static_cast<unsigned>(std::max(0ll, args.get_int("threads", 0)));
    const long long max_tensors = args.get_int("split-max-tensors", 0);
    if (max_tensors < 0) throw Error(ErrorCode::invalid_argument, "synth: --split-max-tensors must be positive");
    opt.split_max_tensors = std::uint64_t(max_tensors);
    opt.split_max_bytes = args.get_bytes("split-max-size", 0);
    if (!args.has("quiet"))
        opt.progress = [last = -1](std::uint64_t done, std::uint64_t total) mutable {
            const int pct = total ? static_cast<int>(100 * done / total) : 100;
            if (pct != last) std::fprintf(stderr, "\rsynth: %3d%%", pct), std::fflush(stderr);
            last = pct;
        };
    const auto r = synth::synth_write(plan, opt);
    if (!args.has("quiet")) std::fprintf(stderr, "\n");
    if (r.files.size() > 1 || opt.split_max_tensors || opt.split_max_bytes)
        for (const auto& f : r.files) std::printf("%s\n", path_to_utf8(f).c_str());
    std::printf("wrote %s: %s %s, %zu tensors, %.1f MiB in %.1f s\n", path_to_utf8(r.files.front()).c_str(), std::string(model::arch_name(desc.arch)).c_str(),
                args.get_or("preset", "tiny").c_str(), plan.tensors.size(), r.file_bytes / 1048576.0, r.seconds);
    return 0;
}

}  // namespace ft::cli
