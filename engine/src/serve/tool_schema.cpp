#include "serve/tool_schema.h"

#include <nlohmann/json.hpp>

#include "ft/error.h"
#include "serve/tool_parser_common.h"

namespace ft::serve {

namespace {

using nlohmann::json;

ParamTypes type_bit(const std::string& name) {
    if (name == "string") return param_string;
    if (name == "integer") return param_integer;
    if (name == "number") return param_number;
    if (name == "boolean") return param_boolean;
    if (name == "object") return param_object;
    if (name == "array") return param_array;
    if (name == "null") return param_null;
    return 0;
}

ParamTypes schema_types(const json& s, int depth) {
    if (!s.is_object() || depth > 8) return 0;
    ParamTypes t = 0;
    if (auto it = s.find("type"); it != s.end()) {
        if (it->is_string()) t |= type_bit(it->get<std::string>());
        if (it->is_array())
            for (const auto& e : *it)
                if (e.is_string()) t |= type_bit(e.get<std::string>());
    }
    for (const char* key : {"anyOf", "oneOf", "allOf"})
        if (auto it = s.find(key); it != s.end() && it->is_array())
            for (const auto& e : *it) t |= schema_types(e, depth + 1);
    if (t == 0)
        if (auto it = s.find("enum"); it != s.end() && it->is_array())
            for (const auto& e : *it) {
                if (e.is_string()) t |= param_string;
                else if (e.is_number_integer()) t |= param_integer;
                else if (e.is_number()) t |= param_number;
                else if (e.is_boolean()) t |= param_boolean;
                else if (e.is_null()) t |= param_null;
            }
    if (t == 0 && s.contains("properties")) t = param_object;
    if (t == 0 && s.contains("items")) t = param_array;
    return t;
}

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string_view trim(std::string_view s) {
    while (!s.empty() && is_ws(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_ws(s.back())) s.remove_suffix(1);
    return s;
}

std::string quoted(std::string_view raw) {
    std::string out(1, '"');
    out += json_escape_string_body(raw);
    out += '"';
    return out;
}

}  // namespace

ToolSchemas ToolSchemas::parse(std::string_view tools_json) {
    ToolSchemas out;
    if (trim(tools_json).empty()) return out;
    const json tools = json::parse(tools_json.begin(), tools_json.end(), nullptr, false);
    if (tools.is_discarded() || !tools.is_array())
        throw Error(ErrorCode::invalid_argument, "the request's \"tools\" is not a JSON array",
                    "send tools as an array of {\"type\":\"function\",\"function\":{...}} objects");
    for (const auto& tool : tools) {
        if (!tool.is_object())
            throw Error(ErrorCode::invalid_argument, "an entry of the request's \"tools\" is not a JSON object",
                        "each tool is an object with a name and a parameters schema");
        const json* fn = &tool;
        if (auto it = tool.find("function"); it != tool.end() && it->is_object()) fn = &*it;
        auto name = fn->find("name");
        if (name == fn->end() || !name->is_string()) continue;
        const json* params = nullptr;
        for (const char* key : {"parameters", "input_schema"})
            if (auto it = fn->find(key); it != fn->end() && it->is_object()) params = &*it;
        auto& map = out.tools_[name->get<std::string>()];
        if (!params) continue;
        if (auto props = params->find("properties"); props != params->end() && props->is_object())
            for (const auto& [key, schema] : props->items()) map[key] = schema_types(schema, 0);
    }
    return out;
}

ParamTypes ToolSchemas::types(std::string_view tool, std::string_view param) const {
    auto t = tools_.find(tool);
    if (t == tools_.end()) return 0;
    auto p = t->second.find(param);
    return p == t->second.end() ? 0 : p->second;
}

std::string json_escape_string_body(std::string_view text) {
    const std::string valid = utf8_sanitize(text);
    std::string out;
    out.reserve(valid.size() + 8);
    for (char c : valid) {
        const auto u = static_cast<unsigned char>(c);
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            default:
                if (u < 0x20) {
                    static const char* hex = "0123456789abcdef";
                    out += "\\u00";
                    out += hex[u >> 4];
                    out += hex[u & 15];
                } else {
                    out += c;
                }
        }
    }
    return out;
}

std::string param_value_to_json(std::string_view raw, ParamTypes types) {
    const std::string_view v = trim(raw);
    // nlohmann stops at a NUL as if the input ended there ("7\0junk" parses as 7): such text is a string.
    if (types == param_string || v.find('\0') != std::string_view::npos) return quoted(raw);
    const json parsed = json::parse(v.begin(), v.end(), nullptr, false);
    const bool ok = !parsed.is_discarded();
    if (types == 0) {
        if (ok && !parsed.is_string()) return std::string(v);
        return quoted(raw);
    }
    // Numbers keep the model's own digits (valid JSON, since they parsed); 3.0 for an integer stays 3.0.
    if ((types & (param_integer | param_number)) && ok && parsed.is_number()) return std::string(v);
    if (types & param_boolean) {
        if (ok && parsed.is_boolean()) return parsed.dump();
        if (v == "True" || v == "TRUE") return "true";
        if (v == "False" || v == "FALSE") return "false";
    }
    if ((types & param_null) && ((ok && parsed.is_null()) || v == "None")) return "null";
    if ((types & param_object) && ok && parsed.is_object()) return std::string(v);
    if ((types & param_array) && ok && parsed.is_array()) return std::string(v);
    return quoted(raw);
}

}  // namespace ft::serve
