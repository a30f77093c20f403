// Engine-internal side of ft/chat_template.h: JSON <-> template values, for the server and the tests.
#pragma once

#include <nlohmann/json.hpp>

#include "ft/chat_template.h"
#include "tokenizer/jinja_interpreter.h"

namespace ft::chat {

// JSON -> template value; object key order is kept.
jinja::Value json_to_value(const nlohmann::ordered_json& j);

// Renders `tpl` with exactly the keys of `context` (a JSON object) as variables.
std::string render_json_context(const jinja::Template& tpl, const nlohmann::ordered_json& context,
                                 const jinja::RenderOptions& options);

// The OpenAI -> HF message convention: tool_calls[].function.arguments given as a JSON string holding an object
// become that object. Throws ft::Error(invalid_argument) naming the message index when a message is not an object
// with a string `role`.
nlohmann::ordered_json normalize_messages(const nlohmann::ordered_json& messages);

}  // namespace ft::chat
