#include <cstdio>

#include "commands.h"
#include "ft/error.h"
#include "ft/utf8.h"
#include "model/convert_hf.h"

namespace ft::cli {

const CommandSpec& spec_convert() {
    static const CommandSpec spec{
        "convert",
        "HF_DIR --out FILE.gguf --type f32|bf16|q8_0|q4_k [--split-max-tensors N | --split-max-size SIZE]",
        "convert a Hugging Face safetensors folder to GGUF",
        "Writes a GGUF file with llama.cpp-compatible tensor names, metadata keys and tokenizer. Norms and the router "
        "stay F32; a row that is not a whole number of quant blocks falls back to q8_0, then f32. With a split option the "
        "model is written as parts FILE-00001-of-0000N.gguf … (llama.cpp's gguf-split layout; load the first part). The "
        "quantized weights of an FP8 (block-scaled) or NVIDIA ModelOpt NVFP4 checkpoint are written as they are stored, "
        "as ft_fp8 / ft_nvfp4 (types of ours, which llama.cpp does not read), whatever --type says; --type applies to "
        "the tensors such a checkpoint keeps in BF16.",
        {
            {"out", "FILE", "output GGUF file", ""},
            {"type", "TYPE", "tensor type: f32, f16, bf16, q8_0, q4_0, q4_k, q5_k, q6_k", "bf16"},
            {"split-max-tensors", "N", "split into parts of at most N tensors", ""},
            {"split-max-size", "SIZE", "split into parts of at most SIZE bytes of tensor data (K/M/G suffixes)", ""},
            {"quiet", "", "no progress on stderr", ""},
        },
        "HF_DIR  a Hugging Face model folder (config.json + *.safetensors + tokenizer.json)",
    };
    return spec;
}

int run_convert(const Args& args) {
    if (args.positionals().size() != 1)
        throw Error(ErrorCode::invalid_argument, "convert: expected one HF_DIR", "usage: ft convert HF_DIR --out FILE.gguf");
    const auto out = args.get("out");
    if (!out || out->empty()) throw Error(ErrorCode::invalid_argument, "convert: --out FILE.gguf is required");
    const std::string type_name = args.get_or("type", "bf16");
    const auto type = kernels::dtype_from_name(type_name);
    if (!type) throw Error(ErrorCode::invalid_argument, "convert: unknown type \"" + type_name + "\" (--type)");
    model::ConvertOptions opt;
    opt.out = path_from_utf8(*out);
    opt.type = *type;
    const long long max_tensors = args.get_int("split-max-tensors", 0);
    if (max_tensors < 0) throw Error(ErrorCode::invalid_argument, "convert: --split-max-tensors must be positive");
    opt.split_max_tensors = std::uint64_t(max_tensors);
    opt.split_max_bytes = args.get_bytes("split-max-size", 0);
    if (!args.has("quiet"))
        opt.progress = [last = -1](std::uint64_t done, std::uint64_t total) mutable {
            const int pct = total ? static_cast<int>(100 * done / total) : 100;
            if (pct / 5 != last / 5) std::fprintf(stderr, "\rconverting: %3d%%", pct), std::fflush(stderr);
            last = pct;
        };
    const auto r = model::convert_hf_to_gguf(path_from_utf8(args.positionals()[0]), opt);
    if (!args.has("quiet")) std::fprintf(stderr, "\n");
    if (r.files.size() > 1 || opt.split_max_tensors || opt.split_max_bytes) {
        for (const auto& f : r.files) std::printf("%s\n", path_to_utf8(f).c_str());
        std::printf("wrote %zu parts: %zu tensors, %.1f MiB in %.1f s (load %s)\n", r.files.size(), r.tensors,
                    r.file_bytes / 1048576.0, r.seconds, path_to_utf8(r.files.front()).c_str());
    } else {
        std::printf("wrote %s: %zu tensors, %.1f MiB in %.1f s\n", out->c_str(), r.tensors, r.file_bytes / 1048576.0, r.seconds);
    }
    return 0;
}

}  // namespace ft::cli
