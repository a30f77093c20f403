#include "commands.h"

namespace ft::cli {

const CommandSpec& spec_inspect() {
    static const CommandSpec spec{
        "inspect",
        "PATH [--json]",
        "show a model file: architecture, tensors, sizes, tokenizer",
        "Prints the architecture and hyper-parameters, parameter counts, tensor table, expert pool bytes, tokenizer summary and whether a chat template is present.",
        {
            {"json", "", "print JSON instead of text", ""},
        },
        "PATH  a GGUF file or a Hugging Face model folder",
    };
    return spec;
}

int run_inspect(const Args&) { return command_unavailable(spec_inspect(), "the model-files issue"); }

}  // namespace ft::cli
