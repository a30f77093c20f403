#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <functional>
#include <iostream>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "chat_attach.h"
#include "commands.h"
#include "engine_options.h"
#include "ft/chat_template.h"
#include "ft/engine.h"
#include "ft/error.h"
#include "ft/tokenizer.h"
#include "remote_servers.h"
#include "ft/utf8.h"

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
        "[--model PATH] | --attach URL [--api-key KEY] [--system TEXT] [sampling flags]",
        "chat with a model in the terminal",
        "Terminal chat: each line you type is a user message; the model's reply streams back, rendered with the "
        "model's own chat template. In the chat: /reset (forget the conversation), /system TEXT (set the system "
        "message and reset), /quit (or end of input). Ctrl-C stops a reply. After each reply: tokens, time to first "
        "token and tok/s on standard error. Without --model (and --attach) it chats with the bundled demo model "
        "(freetoken-demo.gguf: a small Qwen3-MoE model trained for trying FreeToken). With --attach URL the replies come from a running API server (ft serve, "
        "the desktop app's server, or any OpenAI-compatible server: vLLM, SGLang, llama.cpp's llama-server) over "
        "/v1/chat/completions instead of a model loaded here: --model then names the served model (default: the "
        "server's first; the others are listed), the sampling flags and --max-tokens/--no-think are sent with each "
        "request, the loading flags do not apply. URL is http:// or https:// (certificates are verified), with an "
        "optional path prefix. The API key is --api-key, else the FT_API_KEY environment variable, else the key the "
        "desktop app saved for that server (Models → Add a server…, in <data dir>/servers.json); it is never printed. "
        "Plain http to another computer asks first (a terminal) or needs --allow-plain-http, unless the desktop app "
        "was already told yes for that server.",
        concat(concat(load_option_specs(true), sampling_option_specs()),
               {
                   {"attach", "URL", "chat with a running server (ft serve) at this address instead", ""},
                   {"api-key", "KEY", "with --attach: the server's API key (else FT_API_KEY, else the desktop app's saved one)", ""},
                   {"allow-plain-http", "", "with --attach: accept plain http to another computer (unencrypted)", ""},
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

// The chat loop: commands, history; `reply` answers the history (nullopt: it failed and said why).
int chat_loop(const Args& args, const std::function<std::optional<std::string>(const nlohmann::ordered_json&)>& reply) {
    const bool interactive = FT_ISATTY(0);
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
        g_interrupt.store(false);
        const std::optional<std::string> text = reply(history);
        if (!text) {
            history.erase(history.end() - 1);
            continue;
        }
        history.push_back({{"role", "assistant"}, {"content", *text}});
    }
    return 0;
}

int run_attached(const Args& args) {
    AttachOptions o;
    o.url = AttachedChat::resolve_url(*args.get("attach"));
    o.api_key = args.get_or("api-key", "");
    std::optional<RemoteServer> saved;
    try {
        saved = RemoteServerFile().find(o.url);
    } catch (const Error& e) {
        std::fprintf(stderr, "note: the desktop app's server list is not used: %s\n", e.what());
    }
    if (o.api_key.empty()) {
        if (const char* k = std::getenv("FT_API_KEY"); k && *k) {
            o.api_key = k;
            o.key_source = "FT_API_KEY";
        } else if (saved && !saved->api_key.empty()) {
            o.api_key = saved->api_key;
            o.key_source = saved->key_place == KeyPlace::keychain
                               ? std::string("the key saved for this server in the ") + keychain_name()
                               : "the key saved for this server in " + path_to_utf8(RemoteServerFile().path());
        } else if (saved && saved->key_place == KeyPlace::keychain) {
            std::fprintf(stderr, "note: the key saved for %s is in the %s, which did not give it: %s\n", o.url.c_str(),
                         keychain_name(), keychain_problem_text(saved->key_problem).c_str());
        }
    }
    if (is_plain_http_remote(o.url) && !args.has("allow-plain-http") && !(saved && saved->plain_http_ok)) {
        const std::string what = o.url + " is plain http to another computer: the chat" +
                                 (o.api_key.empty() ? std::string(" travels") : std::string(" and the API key travel")) +
                                 " unencrypted";
        if (!FT_ISATTY(0))
            throw Error(ErrorCode::invalid_argument, what, "use https if the server offers it, or pass --allow-plain-http");
        std::fprintf(stderr, "%s. Continue? [y/N] ", what.c_str());
        std::string answer;
        if (!std::getline(std::cin, answer) || (answer != "y" && answer != "Y" && answer != "yes"))
            throw Error(ErrorCode::cancelled, "not connected to " + o.url);
    }
    o.model = args.get_or("model", "");
    o.sampling = sampling_from(args, SamplingParams{0.7f, 20, 0.8f});
    o.max_tokens = int(args.get_int("max-tokens", 2048));
    o.no_think = args.has("no-think");
    AttachedChat chat(std::move(o));
    std::fprintf(stderr, "%s at %s. /reset, /system TEXT, /quit.\n", chat.model().c_str(), chat.url().c_str());
    if (chat.models().size() > 1 && !args.has("model")) {
        std::string others;
        for (const auto& m : chat.models())
            if (m != chat.model()) others += (others.empty() ? "" : ", ") + m;
        std::fprintf(stderr, "(the server also serves %s: choose with --model NAME)\n", others.c_str());
    }
    return chat_loop(args, [&](const nlohmann::ordered_json& history) { return chat.reply(history, g_interrupt); });
}

}  // namespace

int run_chat(const Args& args) {
    if (args.has("attach")) return run_attached(args);
    if (args.has("api-key")) throw Error(ErrorCode::invalid_argument, "--api-key needs --attach URL");
    const LoadOptions lo = load_options_from(args, true);
    Engine engine;
    const ModelInfo info = engine.load_sync(lo);
    ChatTemplate tpl(load_chat_template(lo.model));
    const Tokenizer tok = engine.tokenizer();
    std::fprintf(stderr, "%s (%s) on %s. /reset, /system TEXT, /quit.\n", info.name.c_str(), info.architecture.c_str(),
                 info.device.c_str());
    const SamplingParams sampling = sampling_from(args, SamplingParams{0.7f, 20, 0.8f});
    const int max_tokens = int(args.get_int("max-tokens", 2048));
    return chat_loop(args, [&](const nlohmann::ordered_json& history) -> std::optional<std::string> {
        ChatRenderRequest rr;
        rr.messages_json = history.dump();
        if (args.has("no-think")) rr.enable_thinking = false;
        std::string prompt;
        try {
            prompt = tpl.apply(rr);
        } catch (const Error& e) {
            std::fprintf(stderr, "error: %s\n", e.what());
            return std::nullopt;
        }
        GenerationRequest req;
        EncodeOptions eo;
        eo.parse_special = true;  // the template wrote the special tokens as text
        req.prompt = tok.encode(prompt, eo);
        req.sampling = sampling;
        req.max_tokens = max_tokens;
        std::string reply;
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
            std::fprintf(stderr, "\nerror: %s\n", e.what());
            return std::nullopt;
        }
        std::printf("\n");
        std::fprintf(stderr, "[%d tokens, TTFT %.0f ms, %.1f tok/s%s]\n", fin.completion_tokens, fin.ttft_ms,
                     fin.decode_tok_s, fin.reason == FinishReason::cancelled ? ", stopped" : "");
        return reply;
    });
}

}  // namespace ft::cli
