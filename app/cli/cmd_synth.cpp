#include "commands.h"

namespace ft::cli {

const CommandSpec& spec_synth() {
    static const CommandSpec spec{
        "synth",
        "--arch ARCH --preset NAME --weights TYPE --out FILE.gguf",
        "write a synthetic model of a real architecture",
        "Writes a complete, loadable GGUF of a real architecture with random weights of sane scale, for tests and benchmarks.",
        {
            {"arch", "ARCH", "architecture", "qwen3_moe"},
            {"preset", "NAME", "size preset: tiny, qwen3-30b-a3b, ...", "tiny"},
            {"weights", "TYPE", "weight type: f32, bf16, q8_0, q4_k, ...", "q4_k"},
            {"seed", "S", "random seed", "1"},
            {"out", "FILE", "output GGUF file", ""},
        },
        "",
    };
    return spec;
}

int run_synth(const Args&) { return command_unavailable(spec_synth(), "the model-files issue"); }

}  // namespace ft::cli
