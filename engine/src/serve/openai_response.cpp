// OpenAI chat.completion / text_completion bodies and their streamed chunks (see api_response.h).
#include <nlohmann/json.hpp>

#include "serve/api_response.h"
#include "serve/tool_parser.h"

namespace ft::serve {

using json = nlohmann::ordered_json;

std::string sse_data(const std::string& json_text) { return "data: " + json_text + "\n\n"; }
std::string sse_event(const std::string& name, const std::string& json_text) {
    return "event: " + name + "\ndata: " + json_text + "\n\n";
}
std::string sse_done() { return "data: [DONE]\n\n"; }

namespace {

json bytes_array(const std::string& s) {
    json a = json::array();
    for (unsigned char c : s) a.push_back(int(c));
    return a;
}

// The token's text as a JSON-safe string (a token may end inside a UTF-8 character: such bytes become U+FFFD).
std::string token_string(const std::string& bytes) {
    return json::parse(json(bytes).dump(-1, ' ', false, json::error_handler_t::replace)).get<std::string>();
}

// Chat logprobs entry of one token.
json chat_logprob(const WriterSetup& s, const TokenEvent& ev) {
    const std::string b = s.token_bytes ? s.token_bytes(ev.token) : ev.text;
    json e = json::object();
    e["token"] = token_string(b);
    e["logprob"] = ev.logprob;
    e["bytes"] = bytes_array(b);
    json top = json::array();
    for (int i = 0; i < s.top_logprobs && i < int(ev.top_logprobs.size()); ++i) {
        const auto& [id, lp] = ev.top_logprobs[std::size_t(i)];
        const std::string tb = s.token_bytes ? s.token_bytes(id) : std::string();
        top.push_back(json{{"token", token_string(tb)}, {"logprob", lp}, {"bytes", bytes_array(tb)}});
    }
    e["top_logprobs"] = top;
    return e;
}

// cached: prompt tokens whose KV came from the prefix cache (OpenAI's prompt_tokens_details.cached_tokens).
json usage_json(int prompt, int completion, int cached) {
    return json{{"prompt_tokens", prompt},
                {"completion_tokens", completion},
                {"total_tokens", prompt + completion},
                {"prompt_tokens_details", {{"cached_tokens", cached}}}};
}

class OpenAiChatWriter final : public ResponseWriter {
public:
    OpenAiChatWriter(WriterSetup s, std::unique_ptr<ToolParser> p) : s_(std::move(s)), parser_(std::move(p)) {}

    std::string start() override {
        if (!s_.stream) return {};
        json delta = json{{"role", "assistant"}, {"content", ""}};
        return chunk(delta, json(), json());
    }

    std::string token(const TokenEvent& ev) override {
        std::vector<ToolEvent> events;
        if (!ev.text.empty()) parser_->feed(ev.text, events);
        json lp;
        if (s_.logprobs && ev.token >= 0) {
            json e = chat_logprob(s_, ev);
            logprobs_.push_back(e);
            lp = json{{"content", json::array({e})}};
        }
        return apply(events, lp);
    }

    std::string finish(const FinishEvent& ev) override {
        std::vector<ToolEvent> events;
        parser_->finish(events);
        std::string out = apply(events, json());
        completion_tokens_ = ev.completion_tokens;
        prompt_tokens_ = ev.prompt_tokens > 0 ? ev.prompt_tokens : s_.prompt_tokens;
        cached_tokens_ = ev.cached_tokens;
        if (!calls_.empty()) finish_reason_ = "tool_calls";
        else if (ev.reason == FinishReason::length) finish_reason_ = "length";
        else finish_reason_ = "stop";
        if (!s_.stream) return out;
        out += chunk(json::object(), json(), json(finish_reason_));
        if (s_.include_usage) {
            json j = header();
            j["choices"] = json::array();
            j["usage"] = usage_json(prompt_tokens_, completion_tokens_, cached_tokens_);
            out += sse_data(j.dump(-1, ' ', false, json::error_handler_t::replace));
        }
        out += sse_done();
        return out;
    }

    std::string body() const override {
        json msg = json::object();
        msg["role"] = "assistant";
        msg["content"] = content_.empty() && !calls_.empty() ? json() : json(content_);
        if (!reasoning_.empty()) msg["reasoning_content"] = reasoning_;
        json calls = json::array();
        for (const auto& c : calls_) {
            if (!c.complete) continue;
            calls.push_back(json{{"id", c.id}, {"type", "function"}, {"function", {{"name", c.name}, {"arguments", c.args}}}});
        }
        if (!calls.empty()) msg["tool_calls"] = calls;
        json choice = json::object();
        choice["index"] = 0;
        choice["message"] = msg;
        choice["logprobs"] = s_.logprobs ? json{{"content", logprobs_}} : json();
        choice["finish_reason"] = finish_reason_;
        json j = json::object();
        j["id"] = s_.id;
        j["object"] = "chat.completion";
        j["created"] = s_.created;
        j["model"] = s_.model;
        j["choices"] = json::array({choice});
        j["usage"] = usage_json(prompt_tokens_, completion_tokens_, cached_tokens_);
        return j.dump(-1, ' ', false, json::error_handler_t::replace);
    }

    std::string stream_error(const ApiError& e) const override { return sse_data(error_body(Protocol::openai, e)); }

private:
    struct Call {
        int parser_index = -1;
        std::string id, name, args;
        bool complete = false;
    };

    json header() const {
        json j = json::object();
        j["id"] = s_.id;
        j["object"] = "chat.completion.chunk";
        j["created"] = s_.created;
        j["model"] = s_.model;
        return j;
    }

    std::string chunk(const json& delta, const json& logprobs, const json& finish) const {
        json choice = json::object();
        choice["index"] = 0;
        choice["delta"] = delta;
        choice["logprobs"] = logprobs;
        choice["finish_reason"] = finish;
        json j = header();
        j["choices"] = json::array({choice});
        if (s_.include_usage) j["usage"] = json();
        return sse_data(j.dump(-1, ' ', false, json::error_handler_t::replace));
    }

    Call* call_for(int parser_index) {
        for (auto& c : calls_)
            if (c.parser_index == parser_index) return &c;
        return nullptr;
    }

    // Folds parser events into the message and, streaming, into one chunk (content, reasoning and tool-call deltas
    // of this token together).
    std::string apply(const std::vector<ToolEvent>& events, const json& logprobs) {
        std::string content, reasoning;
        json tool_deltas = json::array();
        for (const auto& e : events) {
            switch (e.kind) {
            case ToolEventKind::content: content += e.text; break;
            case ToolEventKind::reasoning: reasoning += e.text; break;
            case ToolEventKind::error: break;  // a malformed call is left out of the message
            case ToolEventKind::tool_begin: {
                if (!s_.parallel_tool_calls && !calls_.empty()) {
                    dropped_.push_back(e.index);
                    break;
                }
                Call c;
                c.parser_index = e.index;
                c.id = e.id;
                c.name = e.name;
                calls_.push_back(c);
                tool_deltas.push_back(json{{"index", int(calls_.size() - 1)},
                                           {"id", c.id},
                                           {"type", "function"},
                                           {"function", {{"name", c.name}, {"arguments", ""}}}});
                break;
            }
            case ToolEventKind::tool_args: {
                Call* c = call_for(e.index);
                if (!c) break;
                c->args += e.text;
                tool_deltas.push_back(json{{"index", int(c - calls_.data())}, {"function", {{"arguments", e.text}}}});
                break;
            }
            case ToolEventKind::tool_end:
                if (Call* c = call_for(e.index)) c->complete = true;
                break;
            }
        }
        content_ += content;
        reasoning_ += reasoning;
        if (!s_.stream) return {};
        if (content.empty() && reasoning.empty() && tool_deltas.empty() && logprobs.is_null()) return {};
        json delta = json::object();
        if (!reasoning.empty()) delta["reasoning_content"] = reasoning;
        if (!content.empty() || (reasoning.empty() && tool_deltas.empty())) delta["content"] = content;
        if (!tool_deltas.empty()) delta["tool_calls"] = tool_deltas;
        return chunk(delta, logprobs, json());
    }

    WriterSetup s_;
    std::unique_ptr<ToolParser> parser_;
    std::string content_, reasoning_;
    std::vector<Call> calls_;
    std::vector<int> dropped_;
    json logprobs_ = json::array();
    std::string finish_reason_ = "stop";
    int prompt_tokens_ = 0, completion_tokens_ = 0, cached_tokens_ = 0;
};

class OpenAiCompletionWriter final : public ResponseWriter {
public:
    explicit OpenAiCompletionWriter(WriterSetup s) : s_(std::move(s)) {
        text_ = s_.echo_text;
        offset_ = int(text_.size());
    }

    std::string start() override {
        if (!s_.stream || s_.echo_text.empty()) return {};
        return chunk(s_.echo_text, json(), json());
    }

    std::string token(const TokenEvent& ev) override {
        text_ += ev.text;
        json lp;
        if (s_.logprobs && ev.token >= 0) {
            const std::string b = s_.token_bytes ? s_.token_bytes(ev.token) : ev.text;
            json top = json::object();
            for (int i = 0; i < s_.top_logprobs && i < int(ev.top_logprobs.size()); ++i) {
                const auto& [id, l] = ev.top_logprobs[std::size_t(i)];
                top[token_string(s_.token_bytes ? s_.token_bytes(id) : std::string())] = l;
            }
            tokens_.push_back(token_string(b));
            token_logprobs_.push_back(ev.logprob);
            top_.push_back(top);
            text_offset_.push_back(offset_);
            lp = json{{"tokens", json::array({token_string(b)})},
                      {"token_logprobs", json::array({ev.logprob})},
                      {"top_logprobs", json::array({top})},
                      {"text_offset", json::array({offset_})}};
        }
        offset_ += int(ev.text.size());
        if (!s_.stream || (ev.text.empty() && lp.is_null())) return {};
        return chunk(ev.text, lp, json());
    }

    std::string finish(const FinishEvent& ev) override {
        completion_tokens_ = ev.completion_tokens;
        prompt_tokens_ = ev.prompt_tokens > 0 ? ev.prompt_tokens : s_.prompt_tokens;
        cached_tokens_ = ev.cached_tokens;
        finish_reason_ = ev.reason == FinishReason::length ? "length" : "stop";
        if (!s_.stream) return {};
        std::string out = chunk("", json(), json(finish_reason_));
        if (s_.include_usage) {
            json j = header();
            j["choices"] = json::array();
            j["usage"] = usage_json(prompt_tokens_, completion_tokens_, cached_tokens_);
            out += sse_data(j.dump(-1, ' ', false, json::error_handler_t::replace));
        }
        return out + sse_done();
    }

    std::string body() const override {
        json choice = json::object();
        choice["text"] = text_;
        choice["index"] = 0;
        choice["logprobs"] = s_.logprobs ? json{{"tokens", tokens_},
                                                {"token_logprobs", token_logprobs_},
                                                {"top_logprobs", top_},
                                                {"text_offset", text_offset_}}
                                         : json();
        choice["finish_reason"] = finish_reason_;
        json j = header();
        j["choices"] = json::array({choice});
        j["usage"] = usage_json(prompt_tokens_, completion_tokens_, cached_tokens_);
        return j.dump(-1, ' ', false, json::error_handler_t::replace);
    }

    std::string stream_error(const ApiError& e) const override { return sse_data(error_body(Protocol::openai, e)); }

private:
    json header() const {
        json j = json::object();
        j["id"] = s_.id;
        j["object"] = "text_completion";
        j["created"] = s_.created;
        j["model"] = s_.model;
        return j;
    }
    std::string chunk(const std::string& text, const json& logprobs, const json& finish) const {
        json choice = json::object();
        choice["text"] = text;
        choice["index"] = 0;
        choice["logprobs"] = logprobs;
        choice["finish_reason"] = finish;
        json j = header();
        j["choices"] = json::array({choice});
        if (s_.include_usage) j["usage"] = json();
        return sse_data(j.dump(-1, ' ', false, json::error_handler_t::replace));
    }

    WriterSetup s_;
    std::string text_;
    int offset_ = 0;
    json tokens_ = json::array(), token_logprobs_ = json::array(), top_ = json::array(), text_offset_ = json::array();
    std::string finish_reason_ = "stop";
    int prompt_tokens_ = 0, completion_tokens_ = 0, cached_tokens_ = 0;
};

}  // namespace

std::unique_ptr<ResponseWriter> openai_chat_writer(WriterSetup setup, std::unique_ptr<ToolParser> parser) {
    return std::make_unique<OpenAiChatWriter>(std::move(setup), std::move(parser));
}

std::unique_ptr<ResponseWriter> openai_completion_writer(WriterSetup setup) {
    return std::make_unique<OpenAiCompletionWriter>(std::move(setup));
}

}  // namespace ft::serve
