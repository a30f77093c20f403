// Anthropic Messages request bodies → ApiRequest (see api_request.h). Content blocks become the OpenAI-shaped
// messages the chat templates expect: tool_use blocks → assistant tool_calls, tool_result blocks → role "tool"
// messages, thinking blocks → reasoning_content.
#include <nlohmann/json.hpp>

#include "serve/api_request.h"
#include "serve/json_fields.h"

namespace ft::serve {

using json = nlohmann::ordered_json;

namespace {

// Claude Code starts its system prompt with a line of its own ("x-anthropic-billing-header: cc_version=…;
// cc_entrypoint=…;", in some versions with a per-request hash): metadata for Anthropic's billing, not for the model,
// and a part that would change the prompt's first tokens from one request to the next (no prefix reuse).
bool is_client_metadata(const std::string& text) { return text.rfind("x-anthropic-billing-header:", 0) == 0; }

// A document block's text: plain-text sources (type "text") and content sources (text blocks); PDFs and other
// binary sources are a 400 naming the block.
std::string document_text(const json& b, const std::string& bw) {
    const json& src = b.contains("source") ? b["source"] : json();
    const std::string type = src.is_object() ? get_string(src, "type", bw + ".source") : std::string();
    std::string text;
    if (type == "text") {
        text = get_string(src, "data", bw + ".source");
    } else if (type == "content" && src.contains("content")) {
        const json& c = src["content"];
        if (c.is_string()) text = c.get<std::string>();
        else if (c.is_array())
            for (std::size_t i = 0; i < c.size(); ++i) {
                const std::string cw = bw + ".source.content." + std::to_string(i);
                if (!c[i].is_object() || get_string(c[i], "type", cw) != "text")
                    throw bad_request(cw + ": documents may hold text blocks only here", cw);
                text += (text.empty() ? "" : "\n") + get_string(c[i], "text", cw);
            }
    } else {
        throw bad_request(bw + ": this server reads text documents only (source type 'text' or 'content'), not '" + type +
                              "': send the document's text instead",
                          bw + ".source.type");
    }
    if (b.contains("title") && b["title"].is_string() && !b["title"].get<std::string>().empty())
        text = b["title"].get<std::string>() + "\n\n" + text;
    return text;
}

[[noreturn]] void no_images(const std::string& bw) {
    throw bad_request(bw + ": this model cannot see images (content block of type 'image'); send text only", bw + ".type");
}

// Text of a system prompt, a tool result or a nested content list: a string, or text / document blocks.
std::string text_of_blocks(const json& content, const std::string& where, bool drop_metadata = false) {
    if (content.is_string()) return content.get<std::string>();
    if (content.is_null()) return {};
    if (!content.is_array()) throw bad_request(where + " must be a string or an array of content blocks", where);
    std::string out;
    for (std::size_t i = 0; i < content.size(); ++i) {
        const std::string bw = where + "." + std::to_string(i);
        const json& b = content[i];
        if (!b.is_object()) throw bad_request(bw + " must be an object", bw);
        const std::string type = get_string(b, "type", bw);
        std::string text;
        if (type == "text") text = get_string(b, "text", bw);
        else if (type == "document") text = document_text(b, bw);
        else if (type == "image") no_images(bw);
        else
            throw bad_request(bw + ": content blocks of type '" + type + "' are not supported here (text and document)",
                              bw + ".type");
        if (drop_metadata && is_client_metadata(text)) continue;
        if (!out.empty()) out += "\n";
        out += text;
    }
    return out;
}

void push_text(json& out, const std::string& role, std::string& text) {
    if (text.empty()) return;
    out.push_back(json{{"role", role}, {"content", text}});
    text.clear();
}

json convert_messages(const json& body) {
    json out = json::array();
    if (body.contains("system") && !body["system"].is_null()) {
        const std::string sys = text_of_blocks(body["system"], "system", true);
        if (!sys.empty()) out.push_back(json{{"role", "system"}, {"content", sys}});
    }
    if (!body.contains("messages")) throw bad_request("messages: Field required");
    const json& in = body["messages"];
    if (!in.is_array() || in.empty()) throw bad_request("messages: must be a non-empty array");
    for (std::size_t i = 0; i < in.size(); ++i) {
        const std::string where = "messages." + std::to_string(i);
        const json& m = in[i];
        if (!m.is_object()) throw bad_request(where + ": must be an object");
        const std::string role = get_string(m, "role", where);
        if (role != "user" && role != "assistant" && role != "system")
            throw bad_request(where + ".role: must be 'user', 'assistant' or 'system', not '" + role + "'");
        if (!m.contains("content")) throw bad_request(where + ".content: Field required");
        const json& content = m["content"];
        if (role == "system") {
            // A system turn inside the conversation (Claude Code's environment, reminders): rendered where it stands
            // where the template allows, else merged into the first system message (see render in api_prepare.cpp).
            std::string text = text_of_blocks(content, where + ".content", true);
            push_text(out, "system", text);
            continue;
        }
        if (content.is_string()) {
            out.push_back(json{{"role", role}, {"content", content.get<std::string>()}});
            continue;
        }
        if (!content.is_array()) throw bad_request(where + ".content: must be a string or an array of content blocks");
        if (role == "user") {
            std::string text;
            for (std::size_t k = 0; k < content.size(); ++k) {
                const std::string bw = where + ".content." + std::to_string(k);
                const json& b = content[k];
                if (!b.is_object()) throw bad_request(bw + ": must be an object");
                const std::string type = get_string(b, "type", bw);
                if (type == "text" || type == "document") {
                    if (!text.empty()) text += "\n";
                    text += type == "text" ? get_string(b, "text", bw) : document_text(b, bw);
                } else if (type == "tool_result") {
                    push_text(out, "user", text);
                    std::string result = b.contains("content") ? text_of_blocks(b["content"], bw + ".content") : std::string();
                    if (get_bool(b, "is_error", false)) result = "Error: " + result;
                    out.push_back(json{{"role", "tool"}, {"tool_call_id", get_string(b, "tool_use_id", bw)}, {"content", result}});
                } else if (type == "image") {
                    no_images(bw);
                } else {
                    throw bad_request(bw + ": content blocks of type '" + type +
                                      "' are not supported in user messages (text, document and tool_result)");
                }
            }
            push_text(out, "user", text);
        } else {
            std::string text, thinking;
            json calls = json::array();
            for (std::size_t k = 0; k < content.size(); ++k) {
                const std::string bw = where + ".content." + std::to_string(k);
                const json& b = content[k];
                if (!b.is_object()) throw bad_request(bw + ": must be an object");
                const std::string type = get_string(b, "type", bw);
                if (type == "text") {
                    text += get_string(b, "text", bw);
                } else if (type == "thinking") {
                    thinking += get_string(b, "thinking", bw, std::string());
                } else if (type == "redacted_thinking") {
                    // Opaque to us: nothing to render.
                } else if (type == "server_tool_use" || (type.size() > 12 && type.ends_with("_tool_result"))) {
                    // Anthropic's server tools (web search, code execution…) ran elsewhere: this server neither runs
                    // them nor can show the model their encrypted results.
                } else if (type == "tool_use") {
                    json input = b.value("input", json::object());
                    if (!input.is_object()) throw bad_request(bw + ".input: must be an object");
                    json call = json::object();
                    call["id"] = get_string(b, "id", bw);
                    call["type"] = "function";
                    call["function"] = json{{"name", get_string(b, "name", bw)}, {"arguments", input}};
                    calls.push_back(call);
                } else {
                    throw bad_request(bw + ": content blocks of type '" + type + "' are not supported in assistant messages");
                }
            }
            json msg = json::object();
            msg["role"] = "assistant";
            msg["content"] = text;
            if (!thinking.empty()) msg["reasoning_content"] = thinking;
            if (!calls.empty()) msg["tool_calls"] = calls;
            out.push_back(msg);
        }
    }
    return out;
}

json convert_tools(const json& tools) {
    if (!tools.is_array()) throw bad_request("tools: must be an array");
    json out = json::array();
    for (std::size_t i = 0; i < tools.size(); ++i) {
        const std::string where = "tools." + std::to_string(i);
        const json& t = tools[i];
        if (!t.is_object()) throw bad_request(where + ": must be an object");
        // Server tools (web_search_…, text_editor_…) carry no input_schema: the model cannot run them here. Tools
        // with defer_loading are not loaded yet (the client loads them through a search tool when it needs them).
        if (!t.contains("input_schema") || get_bool(t, "defer_loading", false)) continue;
        if (!t["input_schema"].is_object()) throw bad_request(where + ".input_schema: must be an object");
        json f = json::object();
        f["name"] = get_string(t, "name", where);
        if (t.contains("description") && t["description"].is_string()) f["description"] = t["description"];
        f["parameters"] = t["input_schema"];
        out.push_back(json{{"type", "function"}, {"function", f}});
    }
    return out;
}

}  // namespace

ApiRequest parse_anthropic_messages(const std::string& text, bool count_tokens) {
    json body;
    try {
        body = parse_body(text);
    } catch (const ApiError& e) {
        throw ApiError(400, "invalid_request_error", e.what());
    }
    ApiRequest r;
    r.protocol = Protocol::anthropic;
    r.endpoint = count_tokens ? Endpoint::count_tokens : Endpoint::messages;
    r.model = get_string(body, "model", "");
    json messages = convert_messages(body);
    r.messages_json = messages.dump();
    if (body.contains("tools") && !body["tools"].is_null()) {
        json tools = convert_tools(body["tools"]);
        if (!tools.empty()) r.tools_json = tools.dump();
    }
    if (body.contains("tool_choice") && body["tool_choice"].is_object()) {
        const json& tc = body["tool_choice"];
        const std::string type = get_string(tc, "type", "tool_choice");
        if (type == "auto") r.tool_choice = ToolChoice::automatic;
        else if (type == "any") r.tool_choice = ToolChoice::required;
        else if (type == "none") r.tool_choice = ToolChoice::none;
        else if (type == "tool") {
            r.tool_choice = ToolChoice::named;
            r.tool_choice_name = get_string(tc, "name", "tool_choice");
        } else {
            throw bad_request("tool_choice.type: must be auto, any, tool or none, not '" + type + "'");
        }
        if (get_bool(tc, "disable_parallel_tool_use", false)) r.parallel_tool_calls = false;
    }
    if (body.contains("thinking") && body["thinking"].is_object()) {
        const std::string type = get_string(body["thinking"], "type", "thinking");
        r.enable_thinking = type != "disabled";
    }
    if (count_tokens) return r;

    r.stream = get_bool(body, "stream", false);
    if (!body.contains("max_tokens")) throw bad_request("max_tokens: Field required");
    r.max_tokens = int(get_int(body, "max_tokens", 1, 1, 1 << 24));
    auto given = [&](const char* k) { return body.contains(k) && !body[k].is_null(); };
    r.temperature_set = given("temperature");
    r.top_p_set = given("top_p");
    r.top_k_set = given("top_k");
    r.sampling.temperature = float(get_number(body, "temperature", 1.0, 0.0, 1.0));
    r.sampling.top_p = float(get_number(body, "top_p", 1.0, 0.0, 1.0));
    if (r.sampling.top_p <= 0.f) throw bad_request("top_p: must be in (0, 1]").keyed("field_range", {"top_p", "(0, 1]", body["top_p"].dump()});
    r.sampling.top_k = int(get_int(body, "top_k", 0, 0, 1 << 20));
    if (body.contains("stop_sequences") && !body["stop_sequences"].is_null()) {
        const json& s = body["stop_sequences"];
        if (!s.is_array()) throw bad_request("stop_sequences: must be an array of strings");
        for (const auto& x : s) {
            if (!x.is_string() || x.get<std::string>().empty())
                throw bad_request("stop_sequences: must hold non-empty strings");
            r.stop.push_back(x.get<std::string>());
        }
    }
    return r;
}

}  // namespace ft::serve
