// Helpers shared by the Jinja builtins (operators, filters, tests, methods).
#pragma once

#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/jinja_interpreter.h"
#include "tokenizer/jinja_value.h"

namespace ft::jinja {

// Throws ft::Error(out_of_memory) when a string of n bytes would exceed the render's output limit.
void check_string_size(Interpreter& in, std::size_t n);

[[noreturn]] void fail_undefined(Interpreter& in, const Value& v, std::size_t pos);

// The argument at `index`, or the keyword `name`; nullptr when absent.
const Value* arg(const CallArgs& a, std::size_t index, const char* name);

// obj.name as a Python method bound to obj (str/dict/list methods); undefined when obj has no such method.
// Methods that mutate (list.append, dict.update, …) are refused with an error when called, as HF's immutable
// sandbox does.
Value bound_method(Interpreter& in, const Value& obj, const std::string& name);

// Python str methods on UTF-8 text.
bool is_py_space(char32_t c);
std::u32string to_u32(std::string_view s);
std::string to_utf8(std::u32string_view s);
std::string py_strip(std::string_view s, const Value* chars, bool left, bool right);
List py_split(Interpreter& in, const std::string& s, const Value* sep, std::int64_t maxsplit, std::size_t pos);
std::string py_replace(const std::string& s, const std::string& from, const std::string& to, std::int64_t count);
std::string py_upper(std::string_view s);
std::string py_lower(std::string_view s);
std::string py_capitalize(std::string_view s);
std::string py_title(std::string_view s);
std::vector<std::string> py_splitlines(std::string_view s, bool keepends);

// Python json.dumps with HF's tojson arguments.
struct JsonOptions {
    bool ensure_ascii = false;
    std::optional<std::string> indent;  // indent string per level (from an int or a string)
    std::string item_sep = ", ";
    std::string key_sep = ": ";
    bool sort_keys = false;
};
std::string to_json(Interpreter& in, const Value& v, const JsonOptions& opt, std::size_t pos);

}  // namespace ft::jinja
