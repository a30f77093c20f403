#include "commands.h"

namespace ft::cli {

const CommandSpec& spec_convert() {
    static const CommandSpec spec{
        "convert",
        "HF_DIR --out FILE.gguf --type f32|bf16|q8_0|q4_k",
        "convert a Hugging Face safetensors folder to GGUF",
        "Writes a GGUF file with llama.cpp-compatible tensor names, metadata keys and tokenizer.",
        {
            {"out", "FILE", "output GGUF file", ""},
            {"type", "TYPE", "tensor type: f32, bf16, q8_0, q4_k", "bf16"},
        },
        "HF_DIR  a Hugging Face model folder (config.json + *.safetensors)",
    };
    return spec;
}

int run_convert(const Args&) { return command_unavailable(spec_convert(), "the model-files issue"); }

}  // namespace ft::cli
