// OpenAI Responses request bodies (/v1/responses) → ApiRequest (see api_request.h). The input items become the
// OpenAI chat messages the templates expect: message items → messages, function_call / custom_tool_call /
// local_shell_call items → the assistant's tool_calls, their output items → role "tool" messages, reasoning items →
// the next assistant message's reasoning_content. Tools the client declares become the chat tool shape the model
// sees; the response writer maps the model's calls back to the client's names (openai_responses_writer.cpp).
#include <algorithm>
#include <cstdint>
#include <set>

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
                                  "' are not supported (input_text and output_text only; this model reads text)",
                              pw + ".type");
        out += get_string(part, "text", pw);
    }
    return out;
}

// A reasoning item's text: its reasoning_text content, else its summary (an item with only encrypted_content: "").
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

// Tool types the Responses API runs on the provider's side (or the client asks the provider to run): this server
// cannot, so they are accepted and left out of the prompt.
bool builtin_tool(const std::string& type) {
    static const std::set<std::string> names = {
        "web_search", "web_search_preview", "web_search_preview_2025_03_11", "web_search_2025_08_26",
        "image_generation", "local_shell", "shell", "file_search", "computer_use_preview", "computer_use",
        "code_interpreter", "mcp", "tool_search", "apply_patch"};
    return names.count(type) > 0;
}

// Output items of built-in tools (and Codex's own bookkeeping items) that carry nothing the model can read.
bool dropped_item(const std::string& type) {
    static const std::set<std::string> names = {
        "web_search_call", "image_generation_call", "file_search_call", "computer_call", "computer_call_output",
        "code_interpreter_call", "mcp_list_tools", "mcp_approval_request", "mcp_approval_response", "mcp_call",
        "tool_search_call", "tool_search_output", "compaction", "compaction_summary", "ghost_snapshot"};
    return names.count(type) > 0;
}

// A tool call's name as the model sees it: a namespace's function is "NAMESPACE.NAME".
std::string flat_name(const json& item, const std::string& where, const std::string& name) {
    if (!item.contains("namespace") || item["namespace"].is_null()) return name;
    const std::string ns = get_string(item, "namespace", where);
    return ns.empty() ? name : ns + "." + name;
}

// instructions + input items → chat messages.
json convert_input(const json& body, const json& items) {
    json out = json::array();
    if (body.contains("instructions") && !body["instructions"].is_null()) {
        const std::string sys = get_string(body, "instructions", "");
        if (!sys.empty()) out.push_back(json{{"role", "system"}, {"content", sys}});
    }
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
    auto add_call = [&](const std::string& call_id, const std::string& name, const std::string& args) {
        json& m = assistant();
        if (!m.contains("tool_calls")) m["tool_calls"] = json::array();
        m["tool_calls"].push_back(
            json{{"id", call_id}, {"type", "function"}, {"function", {{"name", name}, {"arguments", args}}}});
        call_names[call_id] = name;
    };
    auto add_output = [&](const std::string& call_id, const json& item, const std::string& where) {
        if (!item.contains("output")) throw bad_request("'" + where + ".output' is required", where + ".output");
        json m = json{{"role", "tool"}, {"tool_call_id", call_id}, {"content", content_text(item["output"], where + ".output")}};
        if (call_names.contains(call_id)) m["name"] = call_names[call_id];
        out.push_back(m);
    };
    for (std::size_t i = 0; i < items.size(); ++i) {
        const std::string where = idx("input", i);
        const json& item = items[i];
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
            } else if (role == "system" && !out.empty() && out.back()["role"] == "system" && out.size() == 1) {
                // Leading system turns (instructions, then the client's developer messages) are one system prompt:
                // templates render a single one first.
                out.back()["content"] = out.back()["content"].get<std::string>() + "\n\n" + text;
            } else {
                out.push_back(json{{"role", role}, {"content", text}});
            }
        } else if (type == "function_call") {
            const std::string name = get_string(item, "name", where);
            add_call(get_string(item, "call_id", where), flat_name(item, where, name),
                     get_string(item, "arguments", where, std::string("{}")));
        } else if (type == "custom_tool_call") {
            const std::string name = get_string(item, "name", where);
            add_call(get_string(item, "call_id", where), flat_name(item, where, name),
                     json{{"input", get_string(item, "input", where, std::string())}}.dump());
        } else if (type == "local_shell_call") {
            // The call id is `call_id` (the id its output answers); older items carry only `id`.
            const std::string call_id = get_string(item, "call_id", where, get_string(item, "id", where, std::string()));
            const json action = item.contains("action") && item["action"].is_object() ? item["action"] : json::object();
            add_call(call_id, "local_shell", action.dump(-1, ' ', false, json::error_handler_t::replace));
        } else if (type == "function_call_output" || type == "custom_tool_call_output") {
            add_output(get_string(item, "call_id", where), item, where);
        } else if (type == "local_shell_call_output") {
            add_output(get_string(item, "call_id", where, get_string(item, "id", where, std::string())), item, where);
        } else if (type == "reasoning") {
            pending_reasoning += reasoning_text(item, where);
        } else if (dropped_item(type)) {
            continue;
        } else if (type == "item_reference") {
            throw bad_request(where + ": item references are not supported: send the items themselves in 'input', "
                                      "or continue a stored response with 'previous_response_id'",
                              where + ".type");
        } else {
            throw bad_request(where + ": input items of type '" + type +
                                  "' are not supported (message, function_call, custom_tool_call, local_shell_call, "
                                  "their outputs, reasoning)",
                              where + ".type");
        }
    }
    return out;
}

// One function the model sees, in the chat form.
json chat_function(const std::string& name, const json& t, const std::string& where, const std::string& note) {
    json f = json::object();
    f["name"] = name;
    std::string desc = t.contains("description") && !t["description"].is_null() ? get_string(t, "description", where) : "";
    if (!note.empty()) desc = desc.empty() ? note : desc + "\n\n" + note;
    if (!desc.empty()) f["description"] = desc;
    if (t.contains("parameters") && !t["parameters"].is_null()) {
        if (!t["parameters"].is_object())
            throw bad_request(where + ".parameters must be a JSON Schema object", where + ".parameters");
        f["parameters"] = t["parameters"];
    }
    return json{{"type", "function"}, {"function", f}};
}

// A custom (freeform) tool as a function with one string argument `input`: the grammar, if any, is in its
// description, which is all this server can do with it (no constrained decoding).
json custom_function(const std::string& name, const json& t, const std::string& where, const std::string& note) {
    std::string how = "The tool's input: free text.";
    if (t.contains("format") && t["format"].is_object()) {
        const json& f = t["format"];
        const std::string ft = get_string(f, "type", where + ".format", std::string("text"));
        if (ft == "grammar") {
            const std::string syntax = get_string(f, "syntax", where + ".format", std::string("lark"));
            how = "The tool's input: text that follows this " + syntax + " grammar:\n" +
                  get_string(f, "definition", where + ".format");
        } else if (ft != "text") {
            throw bad_request(where + ".format.type must be text or grammar, not '" + ft + "'", where + ".format.type");
        }
    }
    json params = json{{"type", "object"},
                       {"properties", {{"input", {{"type", "string"}, {"description", how}}}}},
                       {"required", json::array({"input"})},
                       {"additionalProperties", false}};
    json shown = t;
    shown["parameters"] = params;
    return chat_function(name, shown, where, note);
}

struct Tools {
    json chat = json::array();  // what the template renders
    json echo = json::array();  // what the response repeats (the request's tools)
};

// Responses tools are flat ({type, name, description, parameters}); the chat form ({type, function:{…}}) is
// accepted too.
Tools convert_tools(const json& tools, std::vector<std::string>& warnings) {
    if (!tools.is_array()) throw bad_request("'tools' must be an array", "tools");
    Tools out;
    std::set<std::string> seen;
    auto add = [&](json f, const std::string& where) {
        const std::string name = f["function"]["name"].get<std::string>();
        if (!seen.insert(name).second) throw bad_request(where + ": the tool name '" + name + "' is used twice", where);
        out.chat.push_back(std::move(f));
    };
    for (std::size_t i = 0; i < tools.size(); ++i) {
        const std::string where = idx("tools", i);
        const json& t = tools[i];
        if (!t.is_object()) throw bad_request(where + " must be an object", where);
        const std::string type = get_string(t, "type", where, "function");
        if (type == "function") {
            if (t.contains("function") && t["function"].is_object()) {
                const json& fn = t["function"];
                add(chat_function(get_string(fn, "name", where + ".function"), fn, where + ".function", ""), where);
                json e = json{{"type", "function"}, {"name", fn["name"]}};
                e["description"] = fn.value("description", json());
                e["parameters"] = fn.value("parameters", json());
                e["strict"] = fn.value("strict", json(false));
                out.echo.push_back(e);
            } else {
                add(chat_function(get_string(t, "name", where), t, where, ""), where);
                json e = json{{"type", "function"}, {"name", t["name"]}};
                e["description"] = t.value("description", json());
                e["parameters"] = t.value("parameters", json());
                e["strict"] = t.value("strict", json(false));
                out.echo.push_back(e);
            }
        } else if (type == "custom") {
            add(custom_function(get_string(t, "name", where), t, where, ""), where);
            out.echo.push_back(t);
        } else if (type == "namespace") {
            const std::string ns = get_string(t, "name", where);
            if (ns.empty()) throw bad_request("'" + where + ".name' must not be empty", where + ".name");
            if (!t.contains("tools") || !t["tools"].is_array())
                throw bad_request("'" + where + ".tools' must be an array of tools", where + ".tools");
            std::string note = "(One of the " + ns + " tools";
            if (t.contains("description") && t["description"].is_string() && !t["description"].get<std::string>().empty())
                note += ": " + t["description"].get<std::string>();
            note += ")";
            const json& inner = t["tools"];
            for (std::size_t k = 0; k < inner.size(); ++k) {
                const std::string iw = idx(where + ".tools", k);
                if (!inner[k].is_object()) throw bad_request(iw + " must be an object", iw);
                const std::string it = get_string(inner[k], "type", iw, "function");
                if (it == "function")
                    add(chat_function(ns + "." + get_string(inner[k], "name", iw), inner[k], iw, note), iw);
                else if (it == "custom")
                    add(custom_function(ns + "." + get_string(inner[k], "name", iw), inner[k], iw, note), iw);
                else if (!builtin_tool(it))
                    warnings.push_back(iw + ": tools of type '" + it + "' are not known to this server; left out");
            }
            out.echo.push_back(t);
        } else if (builtin_tool(type)) {
            out.echo.push_back(t);  // the client may offer it; this server cannot run it
        } else {
            warnings.push_back(where + ": tools of type '" + type + "' are not known to this server; left out");
        }
    }
    return out;
}

const char* const kEfforts[] = {"none", "minimal", "low", "medium", "high", "xhigh"};

std::string one_of(const json& o, const std::string& key, const std::string& where,
                   std::initializer_list<const char*> allowed) {
    const std::string v = get_string(o, key, where);
    std::string list;
    for (const char* a : allowed) {
        if (v == a) return v;
        list += std::string(list.empty() ? "" : ", ") + a;
    }
    const std::string name = field_name(where, key);
    throw bad_request("'" + name + "' must be one of " + list + ", not '" + v + "'", name);
}

}  // namespace

ApiRequest parse_openai_responses(const std::string& text, const ResponseLookup& lookup) {
    const json body = parse_body(text);
    ApiRequest r;
    r.protocol = Protocol::openai;
    r.endpoint = Endpoint::responses;
    r.model = get_string(body, "model", "");
    r.stream = get_bool(body, "stream", false);
    r.ignore_eos = get_bool(body, "ignore_eos", false);  // extension, as on /v1/chat/completions
    if (get_bool(body, "background", false))
        throw bad_request("'background': true is not supported: responses run while the request is open", "background");
    if (body.contains("conversation") && !body["conversation"].is_null())
        throw bad_request("'conversation' is not supported: continue a stored response with 'previous_response_id', "
                          "or send the whole conversation in 'input'",
                          "conversation");
    r.store = get_bool(body, "store", true);

    // The conversation: the stored one of previous_response_id, then this request's input.
    json items = json::array();
    if (body.contains("previous_response_id") && !body["previous_response_id"].is_null()) {
        r.previous_response_id = get_string(body, "previous_response_id", "");
        std::optional<std::string> stored;
        if (lookup) stored = lookup(r.previous_response_id);
        if (!stored)
            throw ApiError(400, "invalid_request_error",
                           "Previous response with id '" + r.previous_response_id +
                               "' not found (responses are kept only when sent with store: true, and only the "
                               "most recent ones)",
                           "previous_response_id", "previous_response_not_found");
        items = json::parse(*stored, nullptr, false);
        if (!items.is_array()) items = json::array();
    }
    if (!body.contains("input") || body["input"].is_null()) throw bad_request("'input' is required", "input");
    const json& in = body["input"];
    if (in.is_string()) {
        items.push_back(json{{"type", "message"}, {"role", "user"},
                             {"content", json::array({json{{"type", "input_text"}, {"text", in}}})}});
    } else if (in.is_array()) {
        for (const auto& it : in) items.push_back(it);
    } else {
        throw bad_request("'input' must be a string or an array of items", "input");
    }
    json messages = convert_input(body, items);
    // Nothing at all to answer (a probe: empty input, no instructions): an empty user turn, which every template
    // renders (some cannot render an empty conversation).
    if (messages.empty()) messages.push_back(json{{"role", "user"}, {"content", ""}});
    if (r.store) r.input_items_json = items.dump(-1, ' ', false, json::error_handler_t::replace);

    auto given = [&](const char* k) { return body.contains(k) && !body[k].is_null(); };
    r.temperature_set = given("temperature");
    r.top_p_set = given("top_p");
    r.sampling.temperature = float(get_number(body, "temperature", 1.0, 0.0, 2.0));
    r.sampling.top_p = float(get_number(body, "top_p", 1.0, 0.0, 1.0));
    if (r.sampling.top_p <= 0.f) throw bad_request("'top_p' must be in (0, 1]", "top_p").keyed("field_range", {"top_p", "(0, 1]", body["top_p"].dump()});
    if (body.contains("seed") && !body["seed"].is_null()) {  // extension, as on /v1/chat/completions
        const long long s = get_int(body, "seed", 0, INT64_MIN, INT64_MAX);
        r.sampling.seed = s == 0 ? 0x9e3779b97f4a7c15ull : std::uint64_t(s);
    }
    if (body.contains("max_output_tokens") && !body["max_output_tokens"].is_null())
        r.max_tokens = int(get_int(body, "max_output_tokens", -1, 1, 1 << 24));

    json tools_echo = json::array();
    std::set<std::string> tool_names;
    if (body.contains("tools") && !body["tools"].is_null()) {
        Tools tools = convert_tools(body["tools"], r.warnings);
        tools_echo = tools.echo;
        for (const auto& t : tools.chat) tool_names.insert(t["function"]["name"].get<std::string>());
        if (!tools.chat.empty()) r.tools_json = tools.chat.dump();
    }
    json tool_choice_echo = "auto";
    if (body.contains("tool_choice") && !body["tool_choice"].is_null()) {
        const json& tc = body["tool_choice"];
        const char* shape = "'tool_choice' must be none, auto, required, {\"type\":\"function\",\"name\":…}, "
                            "{\"type\":\"custom\",\"name\":…} or {\"type\":\"allowed_tools\",…}";
        if (tc.is_string()) {
            const std::string s = tc.get<std::string>();
            if (s == "auto") r.tool_choice = ToolChoice::automatic;
            else if (s == "none") r.tool_choice = ToolChoice::none;
            else if (s == "required") r.tool_choice = ToolChoice::required;
            else throw bad_request(std::string(shape) + ", not '" + s + "'", "tool_choice");
        } else if (tc.is_object()) {
            const std::string type = get_string(tc, "type", "tool_choice");
            if (type == "function" || type == "custom") {
                r.tool_choice = ToolChoice::named;
                r.tool_choice_name = flat_name(tc, "tool_choice", get_string(tc, "name", "tool_choice"));
                if (!tool_names.count(r.tool_choice_name))
                    throw bad_request("'tool_choice' names the tool '" + r.tool_choice_name + "', which 'tools' lacks",
                                      "tool_choice.name");
            } else if (type == "allowed_tools") {
                const std::string mode = tc.contains("mode") ? one_of(tc, "mode", "tool_choice", {"auto", "required"})
                                                             : std::string("auto");
                r.tool_choice = mode == "required" ? ToolChoice::required : ToolChoice::automatic;
            } else if (builtin_tool(type)) {
                throw bad_request("'tool_choice' asks for the built-in tool '" + type +
                                      "', which this server cannot run",
                                  "tool_choice.type");
            } else {
                throw bad_request(shape, "tool_choice");
            }
        } else {
            throw bad_request(shape, "tool_choice");
        }
        if (r.tool_choice != ToolChoice::none && r.tool_choice != ToolChoice::automatic && r.tools_json.empty())
            throw bad_request("'tool_choice' names tools but 'tools' has none this server can offer the model",
                              "tool_choice");
        tool_choice_echo = tc;
    }
    r.parallel_tool_calls = get_bool(body, "parallel_tool_calls", true);

    json effort, summary;
    if (body.contains("reasoning") && !body["reasoning"].is_null()) {
        const json& rs = body["reasoning"];
        if (!rs.is_object()) throw bad_request("'reasoning' must be an object", "reasoning");
        if (rs.contains("effort") && !rs["effort"].is_null()) {
            const std::string e = get_string(rs, "effort", "reasoning");
            if (std::find(std::begin(kEfforts), std::end(kEfforts), e) == std::end(kEfforts))
                throw bad_request("'reasoning.effort' must be none, minimal, low, medium, high or xhigh, not '" + e + "'",
                                  "reasoning.effort");
            r.enable_thinking = e != "none";
            effort = e;
        }
        // Summaries are not made: the reasoning itself is returned (reasoning_text), which the client may show.
        if (rs.contains("summary") && !rs["summary"].is_null())
            summary = one_of(rs, "summary", "reasoning", {"auto", "concise", "detailed", "none"});
    }
    if (body.contains("include") && !body["include"].is_null()) {
        // Accepted: reasoning.encrypted_content (the reasoning comes back as reasoning_text, in the clear), …
        const json& inc = body["include"];
        if (!inc.is_array()) throw bad_request("'include' must be an array of strings", "include");
        for (std::size_t i = 0; i < inc.size(); ++i)
            if (!inc[i].is_string()) throw bad_request(idx("include", i) + " must be a string", idx("include", i));
    }
    for (const char* key : {"prompt_cache_key", "service_tier", "user", "safety_identifier", "truncation"})
        (void)get_string(body, key, "", std::string());  // accepted (a string, when given)
    for (const char* key : {"metadata", "client_metadata"})
        if (body.contains(key) && !body[key].is_null() && !body[key].is_object())
            throw bad_request(std::string("'") + key + "' must be an object", key);

    json format = json{{"type", "text"}};
    json verbosity;
    if (body.contains("text") && !body["text"].is_null()) {
        const json& tx = body["text"];
        if (!tx.is_object()) throw bad_request("'text' must be an object", "text");
        if (tx.contains("format") && !tx["format"].is_null()) {
            const json& f = tx["format"];
            if (!f.is_object()) throw bad_request("'text.format' must be an object", "text.format");
            const std::string type = get_string(f, "type", "text.format");
            if (type == "json_object" || type == "json_schema") r.json_object = true;
            else if (type != "text")
                throw bad_request("text.format type '" + type + "' is not supported (text, json_object or json_schema)",
                                  "text.format.type");
            format = f;
        }
        if (tx.contains("verbosity") && !tx["verbosity"].is_null())
            verbosity = one_of(tx, "verbosity", "text", {"low", "medium", "high"});
    }
    if (r.json_object) {
        // No grammar-constrained decoding yet: the instruction is what keeps the model to JSON.
        std::string note = "Respond with a single valid JSON object and nothing else.";
        if (format.contains("schema") && format["schema"].is_object())
            note += " It must follow this JSON Schema: " + format["schema"].dump();
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
    echo["previous_response_id"] = r.previous_response_id.empty() ? json() : json(r.previous_response_id);
    echo["reasoning"] = json{{"effort", effort}, {"summary", summary}};
    echo["service_tier"] = body.contains("service_tier") && body["service_tier"].is_string() ? body["service_tier"]
                                                                                            : json("default");
    echo["store"] = r.store;
    echo["temperature"] = r.sampling.temperature;
    echo["text"] = json{{"format", format}};
    if (!verbosity.is_null()) echo["text"]["verbosity"] = verbosity;
    echo["tool_choice"] = tool_choice_echo;
    echo["tools"] = tools_echo;
    echo["top_p"] = r.sampling.top_p;
    echo["truncation"] = "disabled";
    if (body.contains("prompt_cache_key") && body["prompt_cache_key"].is_string())
        echo["prompt_cache_key"] = body["prompt_cache_key"];
    echo["metadata"] = body.contains("metadata") && body["metadata"].is_object() ? body["metadata"] : json::object();
    r.echo_json = echo.dump(-1, ' ', false, json::error_handler_t::replace);
    return r;
}

}  // namespace ft::serve
