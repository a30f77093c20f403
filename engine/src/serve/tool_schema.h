// The parameter types of a request's tools, read from their JSON Schemas, for the formats that write parameter
// values as bare text (Qwen3-Coder's <parameter=…>, GLM's <arg_value>): a value becomes a JSON string, number,
// boolean, object or array by what the schema declares for that parameter.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace ft::serve {

// A set of JSON types (bits of ParamType); 0 = unknown (no schema for the tool or the parameter).
using ParamTypes = std::uint8_t;
enum ParamType : std::uint8_t {
    param_string = 1, param_integer = 2, param_number = 4, param_boolean = 8, param_object = 16, param_array = 32,
    param_null = 64,
};

class ToolSchemas {
public:
    ToolSchemas() = default;
    // `tools_json`: the request's tools array, OpenAI form ({"type":"function","function":{"name","parameters"}})
    // or Anthropic form ({"name","input_schema"}); empty text = no tools. Throws ft::Error (invalid_argument) when
    // it is not a JSON array of objects.
    static ToolSchemas parse(std::string_view tools_json);

    ParamTypes types(std::string_view tool, std::string_view param) const;
    bool empty() const { return tools_.empty(); }

private:
    std::map<std::string, std::map<std::string, ParamTypes, std::less<>>, std::less<>> tools_;
};

// Exactly a string (the value can be streamed as JSON string text as it arrives).
inline bool param_types_string_only(ParamTypes t) { return t == param_string; }

// The JSON text for a bare parameter value. A declared non-string type is tried first (a number, true/false, an
// object or array in JSON); a string type, or a value that does not fit, gives a JSON string. Unknown types: JSON
// when the value is valid JSON other than a bare string, else a string.
std::string param_value_to_json(std::string_view raw, ParamTypes types);

// `text` as the body of a JSON string (escaped, no quotes); invalid UTF-8 becomes U+FFFD.
std::string json_escape_string_body(std::string_view text);

}  // namespace ft::serve
