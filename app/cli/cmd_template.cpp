#include "commands.h"

namespace ft::cli {

const CommandSpec& spec_template() {
    static const CommandSpec spec{
        "template",
        "MODEL --messages FILE.json | --template FILE.jinja --context FILE.json",
        "render a chat template",
        "Renders the model's chat template for a conversation, or a template file with a JSON object of variables.",
        {
            {"messages", "FILE", "OpenAI-style message array (JSON)", ""},
            {"tools", "FILE", "tool definitions (JSON array)", ""},
            {"no-generation-prompt", "", "do not append the assistant prompt", ""},
            {"enable-thinking", "true|false", "value of enable_thinking", ""},
            {"template", "FILE", "a Jinja template file", ""},
            {"context", "FILE", "JSON object of template variables", ""},
        },
        "MODEL  a GGUF file, a Hugging Face folder or a tokenizer_config.json",
    };
    return spec;
}

int run_template(const Args&) { return command_unavailable(spec_template(), "the tokenizer issue"); }

}  // namespace ft::cli
