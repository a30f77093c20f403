// ApiRequest → engine request + response writer (see api_response.h).
#include <algorithm>
#include <random>

#include <nlohmann/json.hpp>

#include "ft/chat_template.h"
#include "ft/error.h"
#include "ft/tokenizer.h"
#include "serve/api_response.h"
#include "serve/tool_parser.h"

namespace ft::serve {

using json = nlohmann::ordered_json;

bool ServedModel::accepts(const std::string& name) const {
    return name == id || std::find(aliases.begin(), aliases.end(), name) != aliases.end();
}

std::string random_hex(int bytes) {
    static thread_local std::mt19937_64 rng{std::random_device{}()};
    static const char* digits = "0123456789abcdef";
    std::string s;
    for (int i = 0; i < bytes; ++i) {
        const auto v = rng();
        s += digits[v & 15];
        s += digits[(v >> 4) & 15];
    }
    return s;
}

namespace {

ApiError not_found_model(const ApiRequest& r, const ServedModel& m) {
    const std::string msg = "The model '" + r.model + "' does not exist: this server serves '" + m.id +
                            "' (see GET /v1/models; ft serve --alias NAME adds names)";
    if (r.protocol == Protocol::anthropic) return ApiError(404, "not_found_error", msg).keyed("server_unknown_model", {r.model, m.id});
    return ApiError(404, "invalid_request_error", msg, "model", "model_not_found").keyed("server_unknown_model", {r.model, m.id});
}

void check_model(const ApiRequest& r, const ServedModel& m) {
    if (!m.accepts(r.model)) throw not_found_model(r, m);
}

// Moves every system message's text into one system message at the front (templates that only read messages[0]).
std::string merge_system_turns(const std::string& messages_json) {
    json in = json::parse(messages_json);
    json rest = json::array();
    std::string system;
    for (auto& msg : in) {
        if (msg.value("role", "") != "system") {
            rest.push_back(std::move(msg));
            continue;
        }
        const json& c = msg["content"];
        const std::string text = c.is_string() ? c.get<std::string>() : c.dump();
        if (!system.empty() && !text.empty()) system += "\n\n";
        system += text;
    }
    json out = json::array();
    if (!system.empty()) out.push_back(json{{"role", "system"}, {"content", system}});
    for (auto& msg : rest) out.push_back(std::move(msg));
    return out.dump();
}

bool has_later_system_turn(const std::string& messages_json) {
    const json in = json::parse(messages_json);
    for (std::size_t i = 1; i < in.size(); ++i)
        if (in[i].value("role", "") == "system") return true;
    return false;
}

std::string render(const ApiRequest& r, const ServedModel& m) {
    if (!m.chat_template)
        throw bad_request("the model '" + m.id + "' has no chat template: use /v1/completions with a raw prompt");
    return render_prompt(r, *m.chat_template, m.system_turns_in_place);
}

std::vector<std::int32_t> tokenize(const ApiRequest& r, const ServedModel& m, std::string* rendered) {
    if (r.endpoint == Endpoint::completion) {
        for (std::int32_t t : r.prompt_ids)
            if (t < 0 || t >= m.tokenizer->vocab_size())
                throw bad_request("prompt token id " + std::to_string(t) + " is outside the vocabulary [0, " +
                                      std::to_string(m.tokenizer->vocab_size()) + ")",
                                  "prompt");
        if (!r.prompt_ids.empty()) return r.prompt_ids;
        EncodeOptions eo;
        eo.add_special = true;
        eo.parse_special = true;
        return m.tokenizer->encode(r.prompt_text, eo);
    }
    const std::string prompt = render(r, m);
    if (rendered) *rendered = prompt;
    EncodeOptions eo;
    eo.parse_special = true;  // the template wrote the special tokens as text
    return m.tokenizer->encode(prompt, eo);
}

}  // namespace

std::string render_prompt(const ApiRequest& r, const ChatTemplate& tpl, bool system_turns_in_place, bool add_generation_prompt) {
    ChatRenderRequest rr;
    rr.messages_json = !system_turns_in_place && has_later_system_turn(r.messages_json) ? merge_system_turns(r.messages_json)
                                                                                        : r.messages_json;
    if (r.tool_choice != ToolChoice::none) rr.tools_json = r.tools_json;
    rr.add_generation_prompt = add_generation_prompt;
    rr.enable_thinking = r.enable_thinking;
    try {
        return tpl.apply(rr);
    } catch (const Error& e) {
        throw bad_request(std::string("the chat template could not render these messages: ") + e.what(), "messages");
    }
}

bool template_keeps_system_turns(const ChatTemplate& tpl) {
    const std::string probe = "ft-probe-7c1e: a system turn after the first user turn";
    ChatRenderRequest rr;
    rr.messages_json = json::array({json{{"role", "system"}, {"content", "You are a helpful assistant."}},
                                    json{{"role", "user"}, {"content", "Hello."}},
                                    json{{"role", "system"}, {"content", probe}},
                                    json{{"role", "user"}, {"content", "Hello again."}}})
                           .dump();
    rr.add_generation_prompt = true;
    try {
        const std::string out = tpl.apply(rr);
        const auto at = out.find(probe);
        return at != std::string::npos && at > out.find("Hello.");
    } catch (const Error&) {
        return false;
    }
}

int count_prompt_tokens(const ApiRequest& request, const ServedModel& model) {
    check_model(request, model);
    return int(tokenize(request, model, nullptr).size());
}

PreparedRequest prepare(const ApiRequest& r, const ServedModel& m, const std::string& id, std::int64_t created) {
    check_model(r, m);
    std::string rendered;
    PreparedRequest p;
    p.generation.prompt = tokenize(r, m, &rendered);
    p.prompt_tokens = int(p.generation.prompt.size());
    if (p.generation.prompt.empty()) throw bad_request("the prompt is empty", "prompt");
    if (p.prompt_tokens >= m.n_ctx) {
        const std::string msg = "This model's maximum context length is " + std::to_string(m.n_ctx) +
                                " tokens, but the prompt has " + std::to_string(p.prompt_tokens) +
                                " tokens. Shorten the conversation, or restart the server with a larger --ctx.";
        const char* param = r.endpoint == Endpoint::completion  ? "prompt"
                            : r.endpoint == Endpoint::responses ? "input"
                                                                : "messages";
        throw ApiError(400, "invalid_request_error", msg, param, "context_length_exceeded")
            .keyed("server_prompt_too_long", {std::to_string(p.prompt_tokens), std::to_string(m.n_ctx)});
    }
    const int room = m.n_ctx - p.prompt_tokens;
    p.generation.max_tokens = r.max_tokens < 0 ? room : std::min(r.max_tokens, room);
    p.generation.ignore_eos = r.ignore_eos;
    p.generation.sampling = r.sampling;
    const SamplingDefaults& d = m.sampling_defaults;
    if (!r.temperature_set && d.temperature) p.generation.sampling.temperature = *d.temperature;
    if (!r.top_p_set && d.top_p) p.generation.sampling.top_p = *d.top_p;
    if (!r.top_k_set && d.top_k) p.generation.sampling.top_k = *d.top_k;
    p.generation.sampling.top_logprobs = r.logprobs ? r.top_logprobs : 0;
    p.generation.stop = r.stop;

    WriterSetup s;
    s.id = id;
    s.model = r.model;
    s.created = created;
    s.prompt_tokens = p.prompt_tokens;
    s.stream = r.stream;
    s.include_usage = r.include_usage;
    s.logprobs = r.logprobs;
    s.top_logprobs = r.top_logprobs;
    s.parallel_tool_calls = r.parallel_tool_calls;
    s.stop = r.stop;
    s.echo_json = r.echo_json;
    // The Responses object repeats the sampling used: a model's recommendation where the request set none.
    const bool recommended = (!r.temperature_set && d.temperature) || (!r.top_p_set && d.top_p);
    if (r.endpoint == Endpoint::responses && recommended && !s.echo_json.empty()) {
        auto echo = json::parse(s.echo_json, nullptr, false);
        if (echo.is_object()) {
            echo["temperature"] = p.generation.sampling.temperature;
            echo["top_p"] = p.generation.sampling.top_p;
            s.echo_json = echo.dump(-1, ' ', false, json::error_handler_t::replace);
        }
    }
    const Tokenizer* tok = m.tokenizer;
    s.token_bytes = [tok](std::int32_t t) { return tok->token_to_bytes(t); };
    if (r.endpoint == Endpoint::completion) {
        if (r.echo) s.echo_text = r.prompt_ids.empty() ? r.prompt_text : tok->decode(r.prompt_ids);
        p.writer = openai_completion_writer(std::move(s));
        return p;
    }
    ToolParserOptions po;
    po.prompt_opened_think = prompt_opens_think(rendered);
    po.reasoning = true;
    po.tools = !r.tools_json.empty() && r.tool_choice != ToolChoice::none;
    po.tools_json = po.tools ? r.tools_json : std::string();
    po.id_prefix = (r.protocol == Protocol::anthropic ? "toolu_" : "call_") + random_hex(8) + "_";
    auto parser = tool_parser_for_model(m.architecture, m.chat_template->source().text, po);
    if (r.protocol == Protocol::anthropic) p.writer = anthropic_writer(std::move(s), std::move(parser));
    else if (r.endpoint == Endpoint::responses) p.writer = openai_responses_writer(std::move(s), std::move(parser));
    else p.writer = openai_chat_writer(std::move(s), std::move(parser));
    return p;
}

}  // namespace ft::serve
