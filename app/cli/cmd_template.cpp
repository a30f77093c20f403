#include <cstdio>
#include <fstream>
#include <sstream>

#include "commands.h"
#include "ft/chat_template.h"
#include "ft/error.h"
#include "ft/utf8.h"
#include "serve/api_request.h"
#include "serve/api_response.h"

#include <nlohmann/json.hpp>

namespace ft::cli {

const CommandSpec& spec_template() {
    static const CommandSpec spec{
        "template",
        "MODEL --messages FILE.json [--tools FILE.json] [--no-generation-prompt] [--enable-thinking true|false] | "
        "MODEL --request FILE.json [--api chat|responses|messages] | "
        "--template FILE.jinja (--context FILE.json | --messages FILE.json …)",
        "render a chat template",
        "Renders the model's chat template for a conversation (OpenAI-style messages, tools), or a template file with "
        "a JSON object of variables (exactly those variables are defined), or an API request body exactly as `ft serve` "
        "renders it (its messages, system turns, tools and thinking setting). The prompt is printed as is, with no "
        "newline added. Rendering follows Hugging Face transformers' apply_chat_template.",
        {
            {"messages", "FILE", "OpenAI-style message array (JSON)", ""},
            {"tools", "FILE", "tool definitions (JSON array)", ""},
            {"request", "FILE",
             "an API request body (or a file `ft serve --record` wrote: {path, body}), rendered as the server does", ""},
            {"api", "chat|responses|messages",
             "which API the --request body is for (Chat Completions, Responses, Anthropic Messages); a recorded file "
             "names its path",
             ""},
            {"no-generation-prompt", "", "do not append the assistant prompt", ""},
            {"enable-thinking", "true|false", "value of enable_thinking (unset: undefined)", ""},
            {"extra", "FILE", "JSON object of further template variables", ""},
            {"template", "FILE", "a Jinja template file (instead of the model's)", ""},
            {"context", "FILE", "JSON object of template variables (with --template or MODEL)", ""},
            {"name", "NAME", "which of several named templates (e.g. tool_use)", "default"},
            {"now", "\"YYYY-MM-DD HH:MM:SS\"", "pin the clock strftime_now reads", ""},
        },
        "MODEL  a GGUF file, a Hugging Face folder or a tokenizer_config.json",
    };
    return spec;
}

namespace {

std::string read_text(const std::string& path, const char* what) {
    std::ifstream f(path_from_utf8(path), std::ios::binary);
    if (!f) throw Error(ErrorCode::not_found, std::string("cannot open ") + what + " file " + path);
    std::ostringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// An API request body, or a recorded {path, body}, parsed by the server's own parser and rendered as it renders it.
std::string render_request(const ChatTemplate& tpl, const std::string& text, std::optional<std::string> api,
                           bool add_generation_prompt) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw Error(ErrorCode::invalid_argument, std::string("the --request file is not JSON: ") + e.what());
    }
    std::string body = text;
    if (j.is_object() && j.contains("path") && j.contains("body") && j["body"].is_object()) {
        const std::string path = j["path"].is_string() ? j["path"].get<std::string>() : "";
        body = j["body"].dump();
        if (!api) {
            if (path.rfind("/v1/messages", 0) == 0) api = "messages";
            else if (path.rfind("/v1/responses", 0) == 0) api = "responses";
            else if (path.rfind("/v1/chat/completions", 0) == 0) api = "chat";
        }
    }
    if (!api)
        throw Error(ErrorCode::invalid_argument, "say which API the request is for",
                    "--api chat (Chat Completions), responses or messages (Anthropic)");
    try {
        serve::ApiRequest r;
        if (*api == "chat") r = serve::parse_openai_chat(body);
        else if (*api == "responses") r = serve::parse_openai_responses(body);
        else if (*api == "messages") r = serve::parse_anthropic_messages(body);
        else throw Error(ErrorCode::invalid_argument, "--api takes chat, responses or messages, not '" + *api + "'");
        return serve::render_prompt(r, tpl, serve::template_keeps_system_turns(tpl), add_generation_prompt);
    } catch (const serve::ApiError& e) {
        throw Error(ErrorCode::invalid_argument, "the request is refused as the server would refuse it (" +
                                                     std::to_string(e.status) + "): " + e.what());
    }
}

}  // namespace

int run_template(const Args& args) {
    const auto& pos = args.positionals();
    if (pos.size() > 1) throw Error(ErrorCode::invalid_argument, "template takes at most one MODEL");
    if (pos.empty() && !args.has("template"))
        throw Error(ErrorCode::invalid_argument, "give a MODEL or --template FILE.jinja",
                    "ft template MODEL --messages m.json, or ft template --template t.jinja --context c.json");
    if (int(args.has("context")) + int(args.has("messages")) + int(args.has("request")) != 1)
        throw Error(ErrorCode::invalid_argument, "give exactly one of --messages, --context and --request");
    if (args.has("request") && (args.has("template") || args.has("tools") || args.has("enable-thinking") || args.has("extra")))
        throw Error(ErrorCode::invalid_argument,
                    "--request renders the request's own messages, tools and thinking setting with the model's template; "
                    "--template, --tools, --enable-thinking and --extra go with --messages");
    if (args.has("api") && !args.has("request")) throw Error(ErrorCode::invalid_argument, "--api goes with --request");
    if (args.has("context") && (args.has("tools") || args.has("no-generation-prompt") ||
                                args.has("enable-thinking") || args.has("extra")))
        throw Error(ErrorCode::invalid_argument,
                    "--context sets every variable itself; --tools, --no-generation-prompt, --enable-thinking and "
                    "--extra go with --messages");

    ChatTemplateSource src;
    // With --template, MODEL only supplies bos_token/eos_token, so it need not have a template of its own.
    if (!pos.empty()) src = load_chat_template(path_from_utf8(pos[0]), args.get_or("name", ""), !args.has("template"));
    if (auto t = args.get("template")) {
        src.text = read_text(*t, "template");
        src.origin = *t;
    }
    ChatTemplate tpl(std::move(src));

    std::string out;
    if (auto r = args.get("request")) {
        out = render_request(tpl, read_text(*r, "request"), args.get("api"), !args.has("no-generation-prompt"));
    } else if (auto c = args.get("context")) {
        out = tpl.render_context(read_text(*c, "context"), args.get("now"));
    } else {
        ChatRenderRequest req;
        req.messages_json = read_text(*args.get("messages"), "messages");
        if (auto t = args.get("tools")) req.tools_json = read_text(*t, "tools");
        if (auto e = args.get("extra")) req.extra_json = read_text(*e, "extra");
        req.add_generation_prompt = !args.has("no-generation-prompt");
        if (auto t = args.get("enable-thinking")) {
            if (*t != "true" && *t != "false")
                throw Error(ErrorCode::invalid_argument, "--enable-thinking takes true or false, not '" + *t + "'");
            req.enable_thinking = *t == "true";
        }
        req.now = args.get("now");
        out = tpl.apply(req);
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
    return 0;
}

}  // namespace ft::cli
