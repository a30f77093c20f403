// OpenAI request bodies → ApiRequest (see api_request.h).
#include <cmath>

#include <nlohmann/json.hpp>

#include "serve/api_request.h"
#include "serve/json_fields.h"

namespace ft::serve {

using json = nlohmann::ordered_json;

ApiError bad_request(const std::string& message, const std::string& param) {
    return ApiError(400, "invalid_request_error", message, param);
}

namespace {

// Message content: a string, null, or an array of parts of which only text parts are supported.
std::string content_text(const json& content, const std::string& where) {
    if (content.is_null()) return {};
    if (content.is_string()) return content.get<std::string>();
    if (!content.is_array()) throw bad_request(where + " must be a string or an array of content parts", where);
    std::string out;
    for (std::size_t i = 0; i < content.size(); ++i) {
        const json& part = content[i];
        const std::string pw = where + "[" + std::to_string(i) + "]";
        if (!part.is_object()) throw bad_request(pw + " must be an object", pw);
        const std::string type = get_string(part, "type", pw, "text");
        if (type != "text")
            throw bad_request(pw + ": content parts of type '" + type + "' are not supported (text only)", pw + ".type");
        out += get_string(part, "text", pw);
    }
    return out;
}

json normalize_messages(const json& body) {
    if (!body.contains("messages")) throw bad_request("'messages' is required", "messages");
    const json& in = body["messages"];
    if (!in.is_array() || in.empty()) throw bad_request("'messages' must be a non-empty array", "messages");
    json out = json::array();
    for (std::size_t i = 0; i < in.size(); ++i) {
        const std::string where = "messages[" + std::to_string(i) + "]";
        const json& m = in[i];
        if (!m.is_object()) throw bad_request(where + " must be an object", where);
        std::string role = get_string(m, "role", where);
        if (role == "developer") role = "system";
        if (role != "system" && role != "user" && role != "assistant" && role != "tool")
            throw bad_request(where + ".role must be system, developer, user, assistant or tool, not '" + role + "'",
                              where + ".role");
        json o = json::object();
        o["role"] = role;
        o["content"] = content_text(m.value("content", json()), where + ".content");
        if (role == "assistant") {
            if (m.contains("reasoning_content") && m["reasoning_content"].is_string())
                o["reasoning_content"] = m["reasoning_content"];
            if (m.contains("tool_calls") && !m["tool_calls"].is_null()) {
                const json& calls = m["tool_calls"];
                if (!calls.is_array()) throw bad_request(where + ".tool_calls must be an array", where + ".tool_calls");
                json oc = json::array();
                for (std::size_t k = 0; k < calls.size(); ++k) {
                    const std::string cw = where + ".tool_calls[" + std::to_string(k) + "]";
                    const json& c = calls[k];
                    if (!c.is_object() || !c.contains("function") || !c["function"].is_object())
                        throw bad_request(cw + " must be an object with a 'function'", cw);
                    const json& f = c["function"];
                    json of = json::object();
                    of["name"] = get_string(f, "name", cw + ".function");
                    json args = f.value("arguments", json("{}"));
                    if (!args.is_string() && !args.is_object())
                        throw bad_request(cw + ".function.arguments must be a JSON string", cw + ".function.arguments");
                    of["arguments"] = args;
                    json ocall = json::object();
                    ocall["id"] = get_string(c, "id", cw, std::string());
                    ocall["type"] = "function";
                    ocall["function"] = of;
                    oc.push_back(ocall);
                }
                if (!oc.empty()) o["tool_calls"] = oc;
            }
        }
        if (role == "tool") {
            o["tool_call_id"] = get_string(m, "tool_call_id", where, std::string());
            if (m.contains("name") && m["name"].is_string()) o["name"] = m["name"];
        }
        out.push_back(o);
    }
    return out;
}

json normalize_tools(const json& tools) {
    if (!tools.is_array()) throw bad_request("'tools' must be an array", "tools");
    json out = json::array();
    for (std::size_t i = 0; i < tools.size(); ++i) {
        const std::string where = "tools[" + std::to_string(i) + "]";
        const json& t = tools[i];
        if (!t.is_object()) throw bad_request(where + " must be an object", where);
        const std::string type = get_string(t, "type", where, "function");
        if (type != "function") throw bad_request(where + ".type must be 'function', not '" + type + "'", where + ".type");
        if (!t.contains("function") || !t["function"].is_object())
            throw bad_request(where + ".function must be an object", where + ".function");
        const json& f = t["function"];
        get_string(f, "name", where + ".function");  // required
        json o = json::object();
        o["type"] = "function";
        o["function"] = f;
        out.push_back(o);
    }
    return out;
}

// Fields common to chat and completions.
void parse_common(const json& body, ApiRequest& r) {
    r.model = get_string(body, "model", "", std::nullopt);
    r.stream = get_bool(body, "stream", false);
    r.ignore_eos = get_bool(body, "ignore_eos", false);  // extension (as vLLM and llama.cpp): generate to max_tokens
    if (body.contains("stream_options") && body["stream_options"].is_object())
        r.include_usage = get_bool(body["stream_options"], "include_usage", false);
    auto given = [&](const char* k) { return body.contains(k) && !body[k].is_null(); };
    r.temperature_set = given("temperature");
    r.top_p_set = given("top_p");
    r.top_k_set = given("top_k");
    r.sampling.temperature = float(get_number(body, "temperature", 1.0, 0.0, 2.0));
    r.sampling.top_p = float(get_number(body, "top_p", 1.0, 0.0, 1.0));
    if (r.sampling.top_p <= 0.f) throw bad_request("'top_p' must be in (0, 1]", "top_p").keyed("field_range", {"top_p", "(0, 1]", body["top_p"].dump()});
    r.sampling.presence_penalty = float(get_number(body, "presence_penalty", 0.0, -2.0, 2.0));
    r.sampling.frequency_penalty = float(get_number(body, "frequency_penalty", 0.0, -2.0, 2.0));
    // Extensions (as vLLM and llama.cpp): the samplers OpenAI has no field for; `ft chat --attach` sends them.
    r.sampling.top_k = int(get_int(body, "top_k", 0, 0, 1 << 20));
    r.sampling.min_p = float(get_number(body, "min_p", 0.0, 0.0, 1.0));
    r.sampling.repetition_penalty = float(get_number(body, "repetition_penalty", 1.0, 0.01, 10.0));
    if (body.contains("seed") && !body["seed"].is_null()) {
        if (!body["seed"].is_number_integer()) throw bad_request("'seed' must be an integer", "seed");
        const auto s = body["seed"].get<std::int64_t>();
        // 0 means "random" to the engine: map the client's 0 to a fixed non-zero seed so it stays reproducible.
        r.sampling.seed = s == 0 ? 0x9e3779b97f4a7c15ull : std::uint64_t(s);
    }
    if (body.contains("n") && !body["n"].is_null()) {
        if (!body["n"].is_number_integer() || body["n"].get<std::int64_t>() != 1)
            throw bad_request("'n' must be 1: one choice per request is supported", "n");
    }
    if (body.contains("stop") && !body["stop"].is_null()) {
        const json& s = body["stop"];
        if (s.is_string()) {
            r.stop.push_back(s.get<std::string>());
        } else if (s.is_array()) {
            if (s.size() > 4) throw bad_request("'stop' holds at most 4 sequences", "stop");
            for (const auto& x : s) {
                if (!x.is_string()) throw bad_request("'stop' must be a string or an array of strings", "stop");
                r.stop.push_back(x.get<std::string>());
            }
        } else {
            throw bad_request("'stop' must be a string or an array of strings", "stop");
        }
        for (const auto& x : r.stop)
            if (x.empty()) throw bad_request("'stop' sequences must not be empty", "stop");
    }
}

}  // namespace

ApiRequest parse_openai_chat(const std::string& text) {
    const json body = parse_body(text);
    ApiRequest r;
    r.protocol = Protocol::openai;
    r.endpoint = Endpoint::chat;
    parse_common(body, r);
    json messages = normalize_messages(body);
    if (body.contains("max_completion_tokens") && !body["max_completion_tokens"].is_null())
        r.max_tokens = int(get_int(body, "max_completion_tokens", -1, 1, 1 << 24));
    else if (body.contains("max_tokens") && !body["max_tokens"].is_null())
        r.max_tokens = int(get_int(body, "max_tokens", -1, 1, 1 << 24));
    r.logprobs = get_bool(body, "logprobs", false);
    if (body.contains("top_logprobs") && !body["top_logprobs"].is_null()) {
        r.top_logprobs = int(get_int(body, "top_logprobs", 0, 0, 20));
        if (!r.logprobs && r.top_logprobs > 0)
            throw bad_request("'top_logprobs' needs 'logprobs': true", "top_logprobs");
    }
    if (body.contains("tools") && !body["tools"].is_null()) {
        json tools = normalize_tools(body["tools"]);
        if (!tools.empty()) r.tools_json = tools.dump();
    }
    if (body.contains("tool_choice") && !body["tool_choice"].is_null()) {
        const json& tc = body["tool_choice"];
        if (tc.is_string()) {
            const std::string s = tc.get<std::string>();
            if (s == "auto") r.tool_choice = ToolChoice::automatic;
            else if (s == "none") r.tool_choice = ToolChoice::none;
            else if (s == "required") r.tool_choice = ToolChoice::required;
            else throw bad_request("'tool_choice' must be none, auto, required or a function, not '" + s + "'", "tool_choice");
        } else if (tc.is_object() && tc.contains("function") && tc["function"].is_object()) {
            r.tool_choice = ToolChoice::named;
            r.tool_choice_name = get_string(tc["function"], "name", "tool_choice.function");
        } else {
            throw bad_request("'tool_choice' must be a string or {\"type\":\"function\",\"function\":{\"name\":…}}", "tool_choice");
        }
        if (r.tool_choice != ToolChoice::none && r.tool_choice != ToolChoice::automatic && r.tools_json.empty())
            throw bad_request("'tool_choice' names tools but 'tools' is empty", "tool_choice");
    }
    r.parallel_tool_calls = get_bool(body, "parallel_tool_calls", true);
    if (body.contains("response_format") && !body["response_format"].is_null()) {
        const json& rf = body["response_format"];
        if (!rf.is_object()) throw bad_request("'response_format' must be an object", "response_format");
        const std::string type = get_string(rf, "type", "response_format");
        if (type == "json_object") {
            r.json_object = true;
        } else if (type != "text") {
            throw bad_request("response_format type '" + type + "' is not supported (text or json_object)",
                              "response_format.type");
        }
    }
    if (body.contains("reasoning_effort") && body["reasoning_effort"].is_string())
        r.enable_thinking = body["reasoning_effort"].get<std::string>() != "none";
    if (body.contains("chat_template_kwargs") && body["chat_template_kwargs"].is_object()) {
        const json& k = body["chat_template_kwargs"];
        if (k.contains("enable_thinking") && k["enable_thinking"].is_boolean()) r.enable_thinking = k["enable_thinking"].get<bool>();
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
    return r;
}

ApiRequest parse_openai_completion(const std::string& text) {
    const json body = parse_body(text);
    ApiRequest r;
    r.protocol = Protocol::openai;
    r.endpoint = Endpoint::completion;
    parse_common(body, r);
    if (!body.contains("prompt")) throw bad_request("'prompt' is required", "prompt");
    const json& p = body["prompt"];
    if (p.is_string()) {
        r.prompt_text = p.get<std::string>();
    } else if (p.is_array() && p.size() == 1 && p[0].is_string()) {
        r.prompt_text = p[0].get<std::string>();
    } else if (p.is_array() && !p.empty() && p[0].is_number_integer()) {
        for (const auto& v : p) {
            if (!v.is_number_integer()) throw bad_request("'prompt' token arrays must hold integers only", "prompt");
            r.prompt_ids.push_back(v.get<std::int32_t>());
        }
    } else {
        throw bad_request("'prompt' must be a string, an array of one string, or an array of token ids", "prompt");
    }
    if (r.prompt_text.empty() && r.prompt_ids.empty()) throw bad_request("'prompt' is empty", "prompt");
    r.max_tokens = int(get_int(body, "max_tokens", 16, 0, 1 << 24));
    if (body.contains("logprobs") && !body["logprobs"].is_null()) {
        r.top_logprobs = int(get_int(body, "logprobs", 0, 0, 5));
        r.logprobs = true;
    }
    r.echo = get_bool(body, "echo", false);
    if (body.contains("suffix") && !body["suffix"].is_null())
        throw bad_request("'suffix' (insertion) is not supported", "suffix");
    return r;
}

std::string error_body(Protocol protocol, const ApiError& e) {
    json j;
    if (protocol == Protocol::anthropic) {
        j["type"] = "error";
        j["error"] = {{"type", e.type}, {"message", e.what()}};
    } else {
        json err = json::object();
        err["message"] = e.what();
        err["type"] = e.type;
        err["param"] = e.param.empty() ? json() : json(e.param);
        err["code"] = e.code.empty() ? json() : json(e.code);
        j["error"] = err;
    }
    // Beside the protocol's fields, which the SDKs read: the message's key and arguments for FreeToken Desktop.
    if (!e.message_key.empty()) j["error"]["ft_message"] = {{"key", e.message_key.key}, {"args", e.message_key.args}};
    return j.dump(-1, ' ', false, json::error_handler_t::replace);  // a message may quote bytes of a bad request
}

}  // namespace ft::serve
