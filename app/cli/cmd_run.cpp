#include "commands.h"

namespace ft::cli {

const CommandSpec& spec_run() {
    static const CommandSpec spec{
        "run",
        "--model PATH (--prompt TEXT | --ids 1,2,3) [--max-tokens N]",
        "raw completion of a prompt",
        "Runs a raw completion (no chat template) and prints the generated text.",
        {
            {"model", "PATH", "model to load", ""},
            {"prompt", "TEXT", "prompt text", ""},
            {"ids", "LIST", "prompt as comma-separated token ids", ""},
            {"max-tokens", "N", "tokens to generate", "128"},
            {"logits-out", "FILE", "write float32 logits [positions x vocab] of the prompt", ""},
        },
        "",
    };
    return spec;
}

int run_run(const Args&) { return command_unavailable(spec_run(), "the CPU engine issue"); }

}  // namespace ft::cli
