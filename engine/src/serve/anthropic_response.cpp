// Anthropic Messages responses and their event stream (see api_response.h): message_start, then per content block
// content_block_start / content_block_delta (text_delta, thinking_delta, input_json_delta) / content_block_stop,
// then message_delta (stop_reason, usage) and message_stop.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "serve/api_response.h"
#include "serve/tool_parser.h"

namespace ft::serve {

using json = nlohmann::ordered_json;

namespace {

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

class AnthropicWriter final : public ResponseWriter {
public:
    AnthropicWriter(WriterSetup s, std::unique_ptr<ToolParser> p) : s_(std::move(s)), parser_(std::move(p)) {}

    std::string start() override {
        if (!s_.stream) return {};
        json msg = message_header();
        msg["content"] = json::array();
        msg["stop_reason"] = json();
        msg["stop_sequence"] = json();
        msg["usage"] = json{{"input_tokens", s_.prompt_tokens}, {"cache_creation_input_tokens", 0},
                            {"cache_read_input_tokens", 0}, {"output_tokens", 0}};
        return sse_event("message_start", dump(json{{"type", "message_start"}, {"message", msg}}));
    }

    std::string token(const TokenEvent& ev) override {
        std::vector<ToolEvent> events;
        if (!ev.text.empty()) parser_->feed(ev.text, events);
        return apply(events);
    }

    std::string finish(const FinishEvent& ev) override {
        std::vector<ToolEvent> events;
        parser_->finish(events);
        std::string out = apply(events);
        out += close_block();
        output_tokens_ = ev.completion_tokens;
        input_tokens_ = ev.prompt_tokens > 0 ? ev.prompt_tokens : s_.prompt_tokens;
        cached_tokens_ = std::min(ev.cached_tokens, input_tokens_);
        bool any_call = false;
        for (const auto& b : blocks_) any_call = any_call || (b.type == "tool_use" && b.complete);
        if (any_call) {
            stop_reason_ = "tool_use";
        } else if (ev.reason == FinishReason::length) {
            stop_reason_ = "max_tokens";
        } else {
            stop_reason_ = "end_turn";
            for (const auto& st : s_.stop)
                if (!ev.stop_text.empty() && st == ev.stop_text) {
                    stop_reason_ = "stop_sequence";
                    stop_sequence_ = st;
                }
        }
        if (!s_.stream) return out;
        json delta = json{{"stop_reason", stop_reason_}, {"stop_sequence", stop_sequence_.empty() ? json() : json(stop_sequence_)}};
        out += sse_event("message_delta",
                         dump(json{{"type", "message_delta"}, {"delta", delta}, {"usage", usage()}}));
        out += sse_event("message_stop", dump(json{{"type", "message_stop"}}));
        return out;
    }

    std::string body() const override {
        json content = json::array();
        for (const auto& b : blocks_) {
            if (b.type == "text") {
                content.push_back(json{{"type", "text"}, {"text", b.text}});
            } else if (b.type == "thinking") {
                content.push_back(json{{"type", "thinking"}, {"thinking", b.text}, {"signature", ""}});
            } else if (b.complete) {
                json input = json::parse(b.text.empty() ? std::string("{}") : b.text, nullptr, false);
                if (input.is_discarded() || !input.is_object()) continue;
                content.push_back(json{{"type", "tool_use"}, {"id", b.id}, {"name", b.name}, {"input", input}});
            }
        }
        json msg = message_header();
        msg["content"] = content;
        msg["stop_reason"] = stop_reason_;
        msg["stop_sequence"] = stop_sequence_.empty() ? json() : json(stop_sequence_);
        msg["usage"] = usage();
        return dump(msg);
    }

    std::string stream_error(const ApiError& e) const override {
        return sse_event("error", error_body(Protocol::anthropic, e));
    }

private:
    struct Block {
        std::string type;  // "text", "thinking", "tool_use"
        std::string text;  // text, thinking, or the input JSON text
        std::string id, name;
        int parser_index = -1;
        bool complete = false;
    };

    json message_header() const {
        json j = json::object();
        j["id"] = s_.id;
        j["type"] = "message";
        j["role"] = "assistant";
        j["model"] = s_.model;
        return j;
    }

    std::string close_block() {
        if (!open_) return {};
        open_ = false;
        if (!s_.stream) return {};
        return sse_event("content_block_stop",
                         dump(json{{"type", "content_block_stop"}, {"index", int(blocks_.size() - 1)}}));
    }

    std::string open_block(Block b) {
        std::string out = close_block();
        blocks_.push_back(std::move(b));
        open_ = true;
        if (!s_.stream) return out;
        const Block& nb = blocks_.back();
        json cb;
        if (nb.type == "text") cb = json{{"type", "text"}, {"text", ""}};
        else if (nb.type == "thinking") cb = json{{"type", "thinking"}, {"thinking", ""}, {"signature", ""}};
        else cb = json{{"type", "tool_use"}, {"id", nb.id}, {"name", nb.name}, {"input", json::object()}};
        out += sse_event("content_block_start", dump(json{{"type", "content_block_start"},
                                                          {"index", int(blocks_.size() - 1)},
                                                          {"content_block", cb}}));
        return out;
    }

    std::string delta(const json& d) const {
        if (!s_.stream) return {};
        return sse_event("content_block_delta",
                         dump(json{{"type", "content_block_delta"}, {"index", int(blocks_.size() - 1)}, {"delta", d}}));
    }

    std::string text(const std::string& type, const std::string& t) {
        if (t.empty()) return {};
        std::string out;
        if (!open_ || blocks_.back().type != type) {
            Block b;
            b.type = type;
            out += open_block(std::move(b));
        }
        blocks_.back().text += t;
        if (type == "text") out += delta(json{{"type", "text_delta"}, {"text", t}});
        else out += delta(json{{"type", "thinking_delta"}, {"thinking", t}});
        return out;
    }

    bool in_call(int parser_index) const {
        return open_ && blocks_.back().type == "tool_use" && blocks_.back().parser_index == parser_index;
    }

    std::string apply(const std::vector<ToolEvent>& events) {
        std::string out;
        for (const auto& e : events) {
            switch (e.kind) {
            case ToolEventKind::content: out += text("text", e.text); break;
            case ToolEventKind::reasoning: out += text("thinking", e.text); break;
            case ToolEventKind::tool_begin: {
                if (!s_.parallel_tool_calls && calls_ > 0) break;
                ++calls_;
                Block b;
                b.type = "tool_use";
                b.id = e.id;
                b.name = e.name;
                b.parser_index = e.index;
                out += open_block(std::move(b));
                break;
            }
            case ToolEventKind::tool_args:
                if (!in_call(e.index)) break;
                blocks_.back().text += e.text;
                out += delta(json{{"type", "input_json_delta"}, {"partial_json", e.text}});
                break;
            case ToolEventKind::tool_end:
                if (!in_call(e.index)) break;
                blocks_.back().complete = true;
                out += close_block();
                break;
            case ToolEventKind::error:
                if (in_call(e.index)) out += close_block();
                break;
            }
        }
        return out;
    }

    WriterSetup s_;
    std::unique_ptr<ToolParser> parser_;
    std::vector<Block> blocks_;
    bool open_ = false;
    int calls_ = 0;
    std::string stop_reason_ = "end_turn", stop_sequence_;
    int input_tokens_ = 0, output_tokens_ = 0, cached_tokens_ = 0;

    // Anthropic's usage: input_tokens counts the prompt tokens that were computed; those whose KV came from the prefix
    // cache are cache_read_input_tokens (the three add up to the prompt).
    json usage() const {
        return json{{"input_tokens", input_tokens_ - cached_tokens_}, {"cache_creation_input_tokens", 0},
                    {"cache_read_input_tokens", cached_tokens_}, {"output_tokens", output_tokens_}};
    }
};

}  // namespace

std::unique_ptr<ResponseWriter> anthropic_writer(WriterSetup setup, std::unique_ptr<ToolParser> parser) {
    return std::make_unique<AnthropicWriter>(std::move(setup), std::move(parser));
}

}  // namespace ft::serve
