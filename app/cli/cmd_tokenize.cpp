#include "commands.h"

namespace ft::cli {

const CommandSpec& spec_tokenize() {
    static const CommandSpec spec{
        "tokenize",
        "MODEL (--text T | --file F) [--json]",
        "print the token ids of a text",
        "Tokenizes text with the model's tokenizer (no BOS/EOS added).",
        {
            {"text", "T", "text to tokenize", ""},
            {"file", "F", "file whose contents to tokenize", ""},
            {"json", "", "print a JSON array", ""},
        },
        "MODEL  a GGUF file, a Hugging Face folder or a tokenizer.json",
    };
    return spec;
}

int run_tokenize(const Args&) { return command_unavailable(spec_tokenize(), "the tokenizer issue"); }

}  // namespace ft::cli
