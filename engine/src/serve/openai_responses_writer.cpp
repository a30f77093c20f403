// OpenAI Responses: the `response` object and its typed event stream (see api_response.h).
//
// The parser's events become output items in order: a `reasoning` item (reasoning_text content), a `message` item
// (one output_text part) and one `function_call` item per call; a change of kind closes the open item. A call is
// returned under the names the client declared (the request's tools, repeated in the response): "NAMESPACE.NAME"
// as a function_call {name, namespace}, a custom tool's call as a custom_tool_call whose `input` is the string the
// model passed (its arguments' `input`), streamed whole once the call is complete. Streamed,
// each item is announced (output_item.added, content_part.added), filled (…delta) and closed (…done,
// content_part.done, output_item.done); the final response.completed (or response.incomplete, when the output
// token limit cut the answer) carries the same response object the non-streamed request gets as its body.
#include <map>

#include <nlohmann/json.hpp>

#include "serve/api_response.h"
#include "serve/tool_parser.h"

namespace ft::serve {

using json = nlohmann::ordered_json;

namespace {

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

class OpenAiResponsesWriter final : public ResponseWriter {
public:
    OpenAiResponsesWriter(WriterSetup s, std::unique_ptr<ToolParser> p) : s_(std::move(s)), parser_(std::move(p)) {
        if (!s_.echo_json.empty()) echo_ = json::parse(s_.echo_json, nullptr, false);
        if (!echo_.is_object()) echo_ = json::object();
        item_prefix_ = s_.id.size() > 5 ? s_.id.substr(5) : s_.id;  // "resp_<hex>" → "<hex>"
        if (echo_.contains("tools") && echo_["tools"].is_array()) learn_tools(echo_["tools"]);
    }

    std::string start() override {
        if (!s_.stream) return {};
        const json r = response("in_progress");
        std::string out = event(json{{"type", "response.created"}, {"response", r}});
        out += event(json{{"type", "response.in_progress"}, {"response", r}});
        return out;
    }

    std::string token(const TokenEvent& ev) override {
        std::vector<ToolEvent> events;
        if (!ev.text.empty()) parser_->feed(ev.text, events);
        bool reasoning = false;
        for (const auto& e : events) reasoning = reasoning || e.kind == ToolEventKind::reasoning;
        if (reasoning && ev.token >= 0) ++reasoning_tokens_;
        return apply(events);
    }

    std::string finish(const FinishEvent& ev) override {
        std::vector<ToolEvent> events;
        parser_->finish(events);
        std::string out = apply(events);
        if (const int i = open_index(); i >= 0 && ev.reason == FinishReason::length) items_[std::size_t(i)].truncated = true;
        out += close_item();
        output_tokens_ = ev.completion_tokens;
        input_tokens_ = ev.prompt_tokens > 0 ? ev.prompt_tokens : s_.prompt_tokens;
        cached_tokens_ = ev.cached_tokens;
        bool any_call = false;
        for (const auto& it : items_) any_call = any_call || it.call();
        incomplete_ = ev.reason == FinishReason::length && !any_call;
        if (!s_.stream) return out;
        const std::string status = incomplete_ ? "incomplete" : "completed";
        out += event(json{{"type", "response." + status}, {"response", response(status)}});
        return out;
    }

    std::string body() const override { return dump(response(incomplete_ ? "incomplete" : "completed")); }

    std::string stream_error(const ApiError& e) const override {
        json j = json::object();
        j["type"] = "error";
        j["code"] = e.code.empty() ? json(e.type) : json(e.code);
        j["message"] = e.what();
        j["param"] = e.param.empty() ? json() : json(e.param);
        j["sequence_number"] = seq_;
        return sse_event("error", dump(j));
    }

private:
    struct Item {
        std::string type;  // "reasoning", "message", "function_call", "custom_tool_call"
        std::string id;
        std::string text;  // reasoning / output text, or the call's arguments
        std::string call_id, name, ns;  // ns: the namespace of a namespace tool's call
        std::string input;              // custom_tool_call: the freeform input
        bool call() const { return type == "function_call" || type == "custom_tool_call"; }
        int parser_index = -1;
        bool open = true;
        bool complete = false;  // function_call: ended with valid arguments
        bool truncated = false; // cut by the output token limit
    };

    std::string event(json j) {
        j["sequence_number"] = seq_++;
        return sse_event(j["type"].get<std::string>(), dump(j));
    }

    json item_json(const Item& it) const {
        json j = json::object();
        j["id"] = it.id;
        j["type"] = it.type;
        const bool whole = !it.truncated && (!it.call() || it.complete);
        const std::string status = it.open ? "in_progress" : whole ? "completed" : "incomplete";
        if (it.type == "reasoning") {
            j["summary"] = json::array();
            j["content"] = it.open ? json::array() : json::array({json{{"type", "reasoning_text"}, {"text", it.text}}});
            j["status"] = status;
        } else if (it.type == "message") {
            j["status"] = status;
            j["role"] = "assistant";
            j["content"] = it.open ? json::array() : json::array({text_part(it.text)});
        } else if (it.type == "custom_tool_call") {
            j["status"] = status;
            j["call_id"] = it.call_id;
            j["name"] = it.name;
            if (!it.ns.empty()) j["namespace"] = it.ns;
            j["input"] = it.open ? std::string() : it.input;
        } else {
            j["status"] = status;
            j["call_id"] = it.call_id;
            j["name"] = it.name;
            if (!it.ns.empty()) j["namespace"] = it.ns;
            j["arguments"] = it.open ? std::string() : it.text;
        }
        return j;
    }

    static json text_part(const std::string& text) {
        return json{{"type", "output_text"}, {"text", text}, {"annotations", json::array()}, {"logprobs", json::array()}};
    }

    json response(const std::string& status) const {
        json j = json::object();
        j["id"] = s_.id;
        j["object"] = "response";
        j["created_at"] = s_.created;
        j["status"] = status;
        j["error"] = json();
        j["incomplete_details"] = status == "incomplete" ? json{{"reason", "max_output_tokens"}} : json();
        j["model"] = s_.model;
        json output = json::array();
        if (status != "in_progress")
            for (const auto& it : items_) output.push_back(item_json(it));
        j["output"] = output;
        for (const auto& [k, v] : echo_.items()) j[k] = v;
        if (status == "in_progress") {
            j["usage"] = json();
        } else {
            j["usage"] = json{{"input_tokens", input_tokens_},
                              {"input_tokens_details", {{"cached_tokens", cached_tokens_}}},
                              {"output_tokens", output_tokens_},
                              {"output_tokens_details", {{"reasoning_tokens", reasoning_tokens_}}},
                              {"total_tokens", input_tokens_ + output_tokens_}};
        }
        return j;
    }

    int open_index() const { return !items_.empty() && items_.back().open ? int(items_.size() - 1) : -1; }

    // Closes the open item; streaming: its …done events.
    std::string close_item() {
        const int i = open_index();
        if (i < 0) return {};
        Item& it = items_[std::size_t(i)];
        it.open = false;
        if (it.type == "custom_tool_call") it.input = custom_input(it.text);
        if (!s_.stream) return {};
        std::string out;
        if (it.type == "reasoning") {
            const json part = json{{"type", "reasoning_text"}, {"text", it.text}};
            out += event(json{{"type", "response.reasoning_text.done"}, {"item_id", it.id}, {"output_index", i},
                              {"content_index", 0}, {"text", it.text}});
            out += event(json{{"type", "response.content_part.done"}, {"item_id", it.id}, {"output_index", i},
                              {"content_index", 0}, {"part", part}});
        } else if (it.type == "message") {
            out += event(json{{"type", "response.output_text.done"}, {"item_id", it.id}, {"output_index", i},
                              {"content_index", 0}, {"text", it.text}, {"logprobs", json::array()}});
            out += event(json{{"type", "response.content_part.done"}, {"item_id", it.id}, {"output_index", i},
                              {"content_index", 0}, {"part", text_part(it.text)}});
        } else if (it.type == "custom_tool_call") {
            it.input = custom_input(it.text);
            if (!it.input.empty())
                out += event(json{{"type", "response.custom_tool_call_input.delta"}, {"item_id", it.id},
                                  {"output_index", i}, {"delta", it.input}});
            out += event(json{{"type", "response.custom_tool_call_input.done"}, {"item_id", it.id},
                              {"output_index", i}, {"input", it.input}});
        } else if (it.complete) {
            out += event(json{{"type", "response.function_call_arguments.done"}, {"item_id", it.id},
                              {"output_index", i}, {"name", it.name}, {"arguments", it.text}});
        }
        out += event(json{{"type", "response.output_item.done"}, {"output_index", i}, {"item", item_json(it)}});
        return out;
    }

    // Opens a new item (closing the open one); streaming: output_item.added (+ content_part.added).
    std::string open_item(Item it) {
        std::string out = close_item();
        items_.push_back(std::move(it));
        const int i = int(items_.size() - 1);
        if (!s_.stream) return out;
        const Item& n = items_.back();
        out += event(json{{"type", "response.output_item.added"}, {"output_index", i}, {"item", item_json(n)}});
        if (n.type == "reasoning")
            out += event(json{{"type", "response.content_part.added"}, {"item_id", n.id}, {"output_index", i},
                              {"content_index", 0}, {"part", {{"type", "reasoning_text"}, {"text", ""}}}});
        else if (n.type == "message")
            out += event(json{{"type", "response.content_part.added"}, {"item_id", n.id}, {"output_index", i},
                              {"content_index", 0}, {"part", text_part("")}});
        return out;
    }

    std::string new_id(const char* prefix) { return prefix + item_prefix_ + "_" + std::to_string(items_.size()); }

    // Appends text to the open item of `type` (opening one if needed); streaming: the delta event.
    std::string text(const std::string& type, const std::string& delta) {
        std::string out;
        const int open = open_index();
        if (open < 0 || items_[std::size_t(open)].type != type) {
            Item it;
            it.type = type;
            it.id = new_id(type == "reasoning" ? "rs_" : "msg_");
            out += open_item(std::move(it));
        }
        const int i = int(items_.size() - 1);
        Item& it = items_.back();
        it.text += delta;
        if (!s_.stream) return out;
        json ev = json{{"type", type == "reasoning" ? "response.reasoning_text.delta" : "response.output_text.delta"},
                       {"item_id", it.id},
                       {"output_index", i},
                       {"content_index", 0},
                       {"delta", delta}};
        if (type == "message") ev["logprobs"] = json::array();  // not offered on this endpoint
        out += event(std::move(ev));
        return out;
    }

    Item* call_for(int parser_index) {
        for (auto& it : items_)
            if (it.call() && it.parser_index == parser_index) return &it;
        return nullptr;
    }

    // The client's tools, as the request declared them: the names the model sees → the call's name, namespace and
    // kind (see openai_responses_request.cpp, which shows them to the model).
    struct ToolName {
        std::string name, ns;
        bool custom = false;
    };
    void learn_tools(const json& tools) {
        std::map<std::string, int> inner_count;
        auto add = [&](const json& t, const std::string& ns) {
            if (!t.is_object() || !t.contains("name") || !t["name"].is_string()) return;
            const std::string type = t.value("type", std::string("function"));
            if (type != "function" && type != "custom") return;
            const std::string name = t["name"].get<std::string>();
            const ToolName tn{name, ns, type == "custom"};
            tools_[ns.empty() ? name : ns + "." + name] = tn;
            if (!ns.empty() && inner_count[name]++ == 0) inner_[name] = tn;
        };
        for (const auto& t : tools) {
            if (!t.is_object()) continue;
            if (t.value("type", std::string()) == "namespace" && t.contains("name") && t["name"].is_string() &&
                t.contains("tools") && t["tools"].is_array()) {
                for (const auto& inner : t["tools"]) add(inner, t["name"].get<std::string>());
            } else {
                add(t, "");
            }
        }
        // A namespace's function called by its bare name (the model dropped the prefix): unambiguous ones only.
        for (const auto& [name, n] : inner_count)
            if (n > 1 || tools_.count(name)) inner_.erase(name);
    }
    ToolName tool_name(const std::string& called) const {
        if (auto it = tools_.find(called); it != tools_.end()) return it->second;
        if (auto it = inner_.find(called); it != inner_.end()) return it->second;
        return ToolName{called, "", false};
    }

    // A custom tool's input from the arguments the model wrote ({"input": "…"}); other shapes: the text as written.
    static std::string custom_input(const std::string& args) {
        const json a = json::parse(args, nullptr, false);
        if (a.is_string()) return a.get<std::string>();
        if (a.is_object()) {
            if (a.contains("input") && a["input"].is_string()) return a["input"].get<std::string>();
            if (a.size() == 1 && a.begin().value().is_string()) return a.begin().value().get<std::string>();
        }
        return args;
    }

    std::string apply(const std::vector<ToolEvent>& events) {
        std::string out;
        for (const auto& e : events) {
            switch (e.kind) {
            case ToolEventKind::content:
                if (!e.text.empty()) out += text("message", e.text);
                break;
            case ToolEventKind::reasoning:
                if (!e.text.empty()) out += text("reasoning", e.text);
                break;
            case ToolEventKind::tool_begin: {
                bool any = false;
                for (const auto& it : items_) any = any || it.call();
                if (!s_.parallel_tool_calls && any) break;  // one call only: the later ones are left out
                const ToolName tn = tool_name(e.name);
                Item it;
                it.type = tn.custom ? "custom_tool_call" : "function_call";
                it.id = new_id(tn.custom ? "ctc_" : "fc_");
                it.call_id = e.id;
                it.name = tn.name;
                it.ns = tn.ns;
                it.parser_index = e.index;
                out += open_item(std::move(it));
                break;
            }
            case ToolEventKind::tool_args: {
                Item* it = call_for(e.index);
                if (!it || !it->open) break;
                it->text += e.text;
                if (s_.stream && it->type == "function_call")
                    out += event(json{{"type", "response.function_call_arguments.delta"}, {"item_id", it->id},
                                      {"output_index", int(it - items_.data())}, {"delta", e.text}});
                break;
            }
            case ToolEventKind::tool_end:
                if (Item* it = call_for(e.index); it && it->open) {
                    it->complete = true;
                    out += close_item();
                }
                break;
            case ToolEventKind::error:
                // A call the model broke off: closed as "incomplete" (its arguments are not valid JSON).
                if (Item* it = call_for(e.index); it && it->open) out += close_item();
                break;
            }
        }
        return out;
    }

    WriterSetup s_;
    std::unique_ptr<ToolParser> parser_;
    json echo_;
    std::string item_prefix_;
    std::vector<Item> items_;
    std::map<std::string, ToolName> tools_, inner_;
    int seq_ = 0;
    int input_tokens_ = 0, output_tokens_ = 0, reasoning_tokens_ = 0, cached_tokens_ = 0;
    bool incomplete_ = false;
};

}  // namespace

std::unique_ptr<ResponseWriter> openai_responses_writer(WriterSetup setup, std::unique_ptr<ToolParser> parser) {
    return std::make_unique<OpenAiResponsesWriter>(std::move(setup), std::move(parser));
}

}  // namespace ft::serve
