#include "commands.h"

namespace ft::cli {

const CommandSpec& spec_detokenize() {
    static const CommandSpec spec{
        "detokenize",
        "MODEL IDS...",
        "print the text of token ids",
        "Turns token ids back into text.",
        {
        },
        "MODEL IDS...  a model (as for tokenize), then token ids",
    };
    return spec;
}

int run_detokenize(const Args&) { return command_unavailable(spec_detokenize(), "the tokenizer issue"); }

}  // namespace ft::cli
