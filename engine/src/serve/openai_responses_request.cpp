// OpenAI Responses request bodies (/v1/responses) → ApiRequest (see api_request.h). The input items become the
// OpenAI chat messages the templates expect: message items → messages, function_call items → the assistant's
// tool_calls, function_call_output items → role "tool" messages, reasoning items → the next assistant message's
// reasoning_content.
#include <cstdint>

#include <nlohmann/json.hpp>

#include "serve/api_request.h"
#include "serve/json_fields.h"

namespace ft::serve {

using json = nlohmann::ordered_json;

namespace {

std::string idx(const std::string& where, std::size_t i) { return where + "[" + std::to_string(i) + "]"; }

// Message content: a string or a list of text parts (input_text, output_text; "text" as the chat API names it).
std::string content_text(const json& content, const std::string& where) {
    if (content.is_null()) return {};
    if (content.is_string()) return content.get<std::string>();
    if (!content.is_array()) throw bad_request(where + " must be a string or an array of content parts", where);
    std::string out;
    for (std::size_t i = 0; i < content.size(); ++i) {
        const json& part = content[i];
        const std::string pw = idx(where, i);
        if (!part.is_object()) throw bad_request(pw + " must be an object", pw);
        const std::string type = get_string(part, "type", pw);
        if (type == "refusal") {
            out += get_string(part, "refusal", pw);
            continue;
        }
        if (type != "input_text" && type != "output_text" && type != "text")
            throw bad_request(pw + ": content parts of type '" + type +
                                  "' are not supported (input_text and output_text only)",
                              pw + ".type");
        out += get_string(part, "text", pw);
    }
    return out;
}

// A reasoning item's text: its reasoning_text content, else its summary.
std::string reasoning_text(const json& item, const std::string& where) {
    std::string out;
    for (const char* key : {"content", "summary"}) {
        if (!item.contains(key) || item[key].is_null()) continue;
        const json& parts = item[key];
        const std::string kw = field_name(where, key);
        if (!parts.is_array()) throw bad_request(kw + " must be an array", kw);
        for (std::size_t i = 0; i < parts.size(); ++i) {
            const std::string pw = idx(kw, i);
            if (!parts[i].is_object()) throw bad_request(pw + " must be an object", pw);
            out += get_string(parts[i], "text", pw);
        }
        if (!out.empty()) break;
    }
    return out;
}

json convert_input(const json& body) {
    json out = json::array();
    if (body.contains("instructions") && !body["instructions"].is_null()) {
        const std::string sys = get_string(body, "instructions", "");
        if (!sys.empty()) out.push_back(json{{"role", "system"}, {"content", sys}});
    }
    if (!body.contains("input") || body["input"].is_null()) throw bad_request("'input' is required", "input");
    const json& in = body["input"];
    if (in.is_string()) {
        out.push_back(json{{"role", "user"}, {"content", in.get<std::string>()}});
        return out;
    }
    if (!in.is_array() || in.empty()) throw bad_request("'input' must be a string or a non-empty array of items", "input");
    std::string pending_reasoning;  // a reasoning item's text, for the assistant message that follows it
    json call_names = json::object();  // call_id → function name (tool messages name their function)
    auto assistant = [&]() -> json& {
        if (out.empty() || out.back()["role"] != "assistant") out.push_back(json{{"role", "assistant"}, {"content", ""}});
        json& m = out.back();
        if (!pending_reasoning.empty()) {
            m["reasoning_content"] = m.value("reasoning_content", std::string()) + pending_reasoning;
            pending_reasoning.clear();
        }
        return m;
    };
    for (std::size_t i = 0; i < in.size(); ++i) {
        const std::string where = idx("input", i);
        const json& item = in[i];
        if (!item.is_object()) throw bad_request(where + " must be an object", where);
        const std::string type = get_string(item, "type", where, "message");
        if (type == "message") {
            std::string role = get_string(item, "role", where);
            if (role == "developer") role = "system";
            if (role != "system" && role != "user" && role != "assistant")
                throw bad_request(where + ".role must be user, assistant, system or developer, not '" + role + "'",
                                  where + ".role");
            if (!item.contains("content")) throw bad_request("'" + where + ".content' is required", where + ".content");
            const std::string text = content_text(item["content"], where + ".content");
            if (role == "assistant") {
                json& m = assistant();
                // A message after this turn's calls starts a new assistant message.
                if (m.contains("tool_calls")) {
                    out.push_back(json{{"role", "assistant"}, {"content", text}});
                } else {
                    m["content"] = m["content"].get<std::string>() + text;
                }
            } else {
                out.push_back(json{{"role", role}, {"content", text}});
            }
        } else if (type == "function_call") {
            const std::string call_id = get_string(item, "call_id", where);
            const std::string name = get_string(item, "name", where);
            const std::string args = get_string(item, "arguments", where, std::string("{}"));
            json& m = assistant();
            if (!m.contains("tool_calls")) m["tool_calls"] = json::array();
            m["tool_calls"].push_back(
                json{{"id", call_id}, {"type", "function"}, {"function", {{"name", name}, {"arguments", args}}}});
            call_names[call_id] = name;
        } else if (type == "function_call_output") {
            const std::string call_id = get_string(item, "call_id", where);
            if (!item.contains("output")) throw bad_request("'" + where + ".output' is required", where + ".output");
            json m = json{{"role", "tool"}, {"tool_call_id", call_id},
                          {"content", content_text(item["output"], where + ".output")}};
            if (call_names.contains(call_id)) m["name"] = call_names[call_id];
            out.push_back(m);
        } else if (type == "reasoning") {
            pending_reasoning += reasoning_text(item, where);
        } else if (type == "item_reference") {
            throw bad_request(where + ": item references are not supported: this server keeps no responses or items; "
                                      "send the whole conversation in 'input'",
                              where + ".type");
        } else {
            throw bad_request(where + ": input items of type '" + type +
                                  "' are not supported (message, function_call, function_call_output, reasoning)",
                              where + ".type");
        }
    }
    return out;
}

// Responses tools are flat ({type, name, description, parameters}); the chat form ({type, function:{…}}) is
// accepted too. Both become the chat form.
json convert_tools(const json& tools) {
    if (!tools.is_array()) throw bad_request("'tools' must be an array", "tools");
    json out = json::array();
    for (std::size_t i = 0; i < tools.size(); ++i) {
        const std::string where = idx("tools", i);
        const json& t = tools[i];
        if (!t.is_object()) throw bad_request(where + " must be an object", where);
        const std::string type = get_string(t, "type", where, "function");
        if (type != "function")
            throw bad_request(where + ": tools of type '" + type + "' are not supported (function tools only)",
                              where + ".type");
        json f = json::object();
        if (t.contains("function") && t["function"].is_object()) {
            f = t["function"];
            get_string(f, "name", where + ".function");
        } else {
            f["name"] = get_string(t, "name", where);
            if (t.contains("description") && !t["description"].is_null())
                f["description"] = get_string(t, "description", where);
            if (t.contains("parameters") && !t["parameters"].is_null()) {
                if (!t["parameters"].is_object())
                    throw bad_request(where + ".parameters must be a JSON Schema object", where + ".parameters");
                f["parameters"] = t["parameters"];
            }
        }
        out.push_back(json{{"type", "function"}, {"function", f}});
    }
    return out;
}

}  // namespace

ApiRequest parse_openai_responses(const std::string& text) {
    const json body = parse_body(text);
    ApiRequest r;
    r.protocol = Protocol::openai;
    r.endpoint = Endpoint::responses;
    r.model = get_string(body, "model", "");
    r.stream = get_bool(body, "stream", false);
    r.ignore_eos = get_bool(body, "ignore_eos", false);  // extension, as on /v1/chat/completions
    if (body.contains("previous_response_id") && !body["previous_response_id"].is_null())
        throw bad_request("'previous_response_id' is not supported: this server keeps no responses (as with "
                          "store: false); send the whole conversation in 'input'",
                          "previous_response_id");
    if (get_bool(body, "background", false))
        throw bad_request("'background': true is not supported: this server keeps no responses to poll", "background");
    if (body.contains("conversation") && !body["conversation"].is_null())
        throw bad_request("'conversation' is not supported: this server keeps no conversations; send the whole "
                          "conversation in 'input'",
                          "conversation");
    (void)get_bool(body, "store", false);  // accepted, and ignored: nothing is kept
    json messages = convert_input(body);

    r.sampling.temperature = float(get_number(body, "temperature", 1.0, 0.0, 2.0));
    r.sampling.top_p = float(get_number(body, "top_p", 1.0, 0.0, 1.0));
    if (r.sampling.top_p <= 0.f) throw bad_request("'top_p' must be in (0, 1]", "top_p");
    if (body.contains("seed") && !body["seed"].is_null()) {  // extension, as on /v1/chat/completions
        const long long s = get_int(body, "seed", 0, INT64_MIN, INT64_MAX);
        r.sampling.seed = s == 0 ? 0x9e3779b97f4a7c15ull : std::uint64_t(s);
    }
    if (body.contains("max_output_tokens") && !body["max_output_tokens"].is_null())
        r.max_tokens = int(get_int(body, "max_output_tokens", -1, 1, 1 << 24));

    json tools_echo = json::array();
    if (body.contains("tools") && !body["tools"].is_null()) {
        json tools = convert_tools(body["tools"]);
        for (const auto& t : tools) {
            json e = json{{"type", "function"}, {"name", t["function"]["name"]}};
            e["description"] = t["function"].value("description", json());
            e["parameters"] = t["function"].value("parameters", json());
            e["strict"] = false;
            tools_echo.push_back(e);
        }
        if (!tools.empty()) r.tools_json = tools.dump();
    }
    json tool_choice_echo = "auto";
    if (body.contains("tool_choice") && !body["tool_choice"].is_null()) {
        const json& tc = body["tool_choice"];
        if (tc.is_string()) {
            const std::string s = tc.get<std::string>();
            if (s == "auto") r.tool_choice = ToolChoice::automatic;
            else if (s == "none") r.tool_choice = ToolChoice::none;
            else if (s == "required") r.tool_choice = ToolChoice::required;
            else throw bad_request("'tool_choice' must be none, auto, required or a function, not '" + s + "'", "tool_choice");
        } else if (tc.is_object() && tc.value("type", json()) == "function") {
            r.tool_choice = ToolChoice::named;
            r.tool_choice_name = get_string(tc, "name", "tool_choice");
        } else {
            throw bad_request("'tool_choice' must be none, auto, required or {\"type\":\"function\",\"name\":…}",
                              "tool_choice");
        }
        if (r.tool_choice != ToolChoice::none && r.tool_choice != ToolChoice::automatic && r.tools_json.empty())
            throw bad_request("'tool_choice' names tools but 'tools' is empty", "tool_choice");
        tool_choice_echo = tc;
    }
    r.parallel_tool_calls = get_bool(body, "parallel_tool_calls", true);

    json effort;
    if (body.contains("reasoning") && !body["reasoning"].is_null()) {
        const json& rs = body["reasoning"];
        if (!rs.is_object()) throw bad_request("'reasoning' must be an object", "reasoning");
        if (rs.contains("effort") && !rs["effort"].is_null()) {
            const std::string e = get_string(rs, "effort", "reasoning");
            if (e != "none" && e != "minimal" && e != "low" && e != "medium" && e != "high" && e != "xhigh")
                throw bad_request("'reasoning.effort' must be none, minimal, low, medium or high, not '" + e + "'",
                                  "reasoning.effort");
            r.enable_thinking = e != "none";
            effort = e;
        }
    }
    json format = json{{"type", "text"}};
    if (body.contains("text") && body["text"].is_object() && body["text"].contains("format") &&
        !body["text"]["format"].is_null()) {
        const json& f = body["text"]["format"];
        if (!f.is_object()) throw bad_request("'text.format' must be an object", "text.format");
        const std::string type = get_string(f, "type", "text.format");
        if (type == "json_object") r.json_object = true;
        else if (type != "text")
            throw bad_request("text.format type '" + type + "' is not supported (text or json_object)", "text.format.type");
        format = json{{"type", type}};
    }
    if (r.json_object) {
        // No grammar-constrained decoding yet: the instruction is what keeps the model to JSON.
        const std::string note = "Respond with a single valid JSON object and nothing else.";
        if (!messages.empty() && messages[0]["role"] == "system")
            messages[0]["content"] = messages[0]["content"].get<std::string>() + "\n\n" + note;
        else
            messages.insert(messages.begin(), json{{"role", "system"}, {"content", note}});
    }
    r.messages_json = messages.dump();

    json echo = json::object();
    echo["instructions"] = body.contains("instructions") ? body["instructions"] : json();
    echo["max_output_tokens"] = r.max_tokens > 0 ? json(r.max_tokens) : json();
    echo["parallel_tool_calls"] = r.parallel_tool_calls;
    echo["previous_response_id"] = json();
    echo["reasoning"] = json{{"effort", effort}, {"summary", json()}};
    echo["store"] = false;
    echo["temperature"] = r.sampling.temperature;
    echo["text"] = json{{"format", format}};
    echo["tool_choice"] = tool_choice_echo;
    echo["tools"] = tools_echo;
    echo["top_p"] = r.sampling.top_p;
    echo["truncation"] = "disabled";
    echo["metadata"] = body.contains("metadata") && body["metadata"].is_object() ? body["metadata"] : json::object();
    r.echo_json = echo.dump(-1, ' ', false, json::error_handler_t::replace);
    return r;
}

}  // namespace ft::serve
