#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "engine_options.h"
#include "ft/chat_template.h"
#include "ft/engine.h"
#include "ft/error.h"
#include "ft/tokenizer.h"

#ifdef _WIN32
#include <io.h>
#define FT_ISATTY(fd) _isatty(fd)
#else
#include <unistd.h>
#define FT_ISATTY(fd) isatty(fd)
#endif

namespace ft::cli {

const CommandSpec& spec_chat() {
    static const CommandSpec spec{
        "chat",
        "--model PATH [--system TEXT] [sampling flags]",
        "chat with a model in the terminal",
        "Terminal chat: each line you type is a user message; the model's reply streams back, rendered with the "
        "model's own chat template. In the chat: /reset (forget the conversation), /system TEXT (set the system "
        "message and reset), /quit (or end of input). Ctrl-C stops a reply. After each reply: tokens, time to first "
        "token and tok/s on standard error.",
        concat(concat(load_option_specs(), sampling_option_specs()),
               {
                   {"system", "TEXT", "system message", ""},
                   {"max-tokens", "N", "longest reply in tokens", "2048"},
                   {"no-think", "", "ask thinking models to answer directly (enable_thinking=false)", ""},
               }),
        "",
    };
    return spec;
}

namespace {
std::atomic<bool> g_interrupt{false};
extern "C" void on_sigint(int) { g_interrupt.store(true); }
}  // namespace

int run_chat(const Args& args) {
    const LoadOptions lo = load_options_from(args);
    Engine engine;
    const ModelInfo info = engine.load_sync(lo);
    ChatTemplate tpl(load_chat_template(lo.model));
    const Tokenizer tok = engine.tokenizer();
    const bool interactive = FT_ISATTY(0);
    std::fprintf(stderr, "%s (%s) on %s. /reset, /system TEXT, /quit.\n", info.name.c_str(), info.architecture.c_str(),
                 info.device.c_str());
    const SamplingParams sampling = sampling_from(args, SamplingParams{0.7f, 20, 0.8f});
    const int max_tokens = int(args.get_int("max-tokens", 2048));
    std::string system = args.get_or("system", "");
    nlohmann::ordered_json history = nlohmann::ordered_json::array();
    auto reset = [&] {
        history = nlohmann::ordered_json::array();
        if (!system.empty()) history.push_back({{"role", "system"}, {"content", system}});
    };
    reset();
    std::signal(SIGINT, on_sigint);

    std::string line;
    for (;;) {
        if (interactive) {
            std::fputs("> ", stdout);
            std::fflush(stdout);
        }
        if (!std::getline(std::cin, line)) break;
        if (line.empty()) continue;
        if (line == "/quit" || line == "/exit") break;
        if (line == "/reset") {
            reset();
            std::fprintf(stderr, "(conversation reset)\n");
            continue;
        }
        if (line.rfind("/system", 0) == 0) {
            system = line.size() > 8 ? line.substr(8) : std::string();
            reset();
            std::fprintf(stderr, "(system message set; conversation reset)\n");
            continue;
        }
        if (line[0] == '/') {
            std::fprintf(stderr, "unknown command %s: /reset, /system TEXT, /quit\n", line.c_str());
            continue;
        }
        history.push_back({{"role", "user"}, {"content", line}});
        ChatRenderRequest rr;
        rr.messages_json = history.dump();
        if (args.has("no-think")) rr.enable_thinking = false;
        std::string prompt;
        try {
            prompt = tpl.apply(rr);
        } catch (const Error& e) {
            history.erase(history.end() - 1);
            std::fprintf(stderr, "error: %s\n", e.what());
            continue;
        }
        GenerationRequest req;
        EncodeOptions eo;
        eo.parse_special = true;  // the template wrote the special tokens as text
        req.prompt = tok.encode(prompt, eo);
        req.sampling = sampling;
        req.max_tokens = max_tokens;
        std::string reply;
        g_interrupt.store(false);
        FinishEvent fin;
        try {
            fin = generate(
                engine, std::move(req),
                [&](const TokenEvent& ev) {
                    reply += ev.text;
                    std::fwrite(ev.text.data(), 1, ev.text.size(), stdout);
                    std::fflush(stdout);
                },
                [] { return g_interrupt.exchange(false); });
        } catch (const Error& e) {
            history.erase(history.end() - 1);
            std::fprintf(stderr, "\nerror: %s\n", e.what());
            continue;
        }
        std::printf("\n");
        std::fprintf(stderr, "[%d tokens, TTFT %.0f ms, %.1f tok/s%s]\n", fin.completion_tokens, fin.ttft_ms,
                     fin.decode_tok_s, fin.reason == FinishReason::cancelled ? ", stopped" : "");
        history.push_back({{"role", "assistant"}, {"content", reply}});
    }
    return 0;
}

}  // namespace ft::cli
