#include <cstdio>

#include "commands.h"
#include "ft/error.h"
#include "model/model_inspect.h"

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

int run_inspect(const Args& args) {
    if (args.positionals().size() != 1)
        throw Error(ErrorCode::invalid_argument, "inspect: expected one PATH", "usage: ft inspect PATH [--json]");
    const auto report = model::inspect_path(args.positionals()[0]);
    const std::string text = args.has("json") ? report.dump(2) + "\n" : model::inspect_text(report);
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
}

}  // namespace ft::cli
