#include "commands.h"

namespace ft::cli {

const CommandSpec& spec_serve() {
    static const CommandSpec spec{
        "serve",
        "[--model PATH] [--host ADDR] [--port N]",
        "serve the OpenAI- and Anthropic-compatible HTTP API",
        "Serves /v1/chat/completions, /v1/completions, /v1/models (OpenAI) and /v1/messages (Anthropic) with SSE streaming, tool calls and reasoning split.",
        {
            {"model", "PATH", "model to load (GGUF file or Hugging Face folder)", ""},
            {"host", "ADDR", "address to bind", "127.0.0.1"},
            {"port", "N", "TCP port", "1919"},
        },
        "",
    };
    return spec;
}

int run_serve(const Args&) { return command_unavailable(spec_serve(), "the API server issue"); }

}  // namespace ft::cli
