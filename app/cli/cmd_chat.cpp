#include "commands.h"

namespace ft::cli {

const CommandSpec& spec_chat() {
    static const CommandSpec spec{
        "chat",
        "--model PATH",
        "chat with a model in the terminal",
        "Terminal chat with the model's chat template and streaming output. In the chat: /reset, /system TEXT, /quit.",
        {
            {"model", "PATH", "model to load (GGUF file or Hugging Face folder)", ""},
            {"device", "cpu|cuda", "where to run", "cuda when present"},
            {"threads", "N", "CPU worker threads", "physical cores"},
        },
        "",
    };
    return spec;
}

int run_chat(const Args&) { return command_unavailable(spec_chat(), "the CPU engine issue"); }

}  // namespace ft::cli
