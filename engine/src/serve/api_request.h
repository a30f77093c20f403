// The API server's requests, transport-free: OpenAI (/v1/chat/completions, /v1/completions, /v1/responses) and Anthropic
// (/v1/messages, /v1/messages/count_tokens) JSON bodies parsed into one ApiRequest, which holds what the chat
// template needs (messages and tools in the OpenAI shape the Hugging Face templates expect) and what the engine needs
// (sampling, limits, stop strings). Parsing never touches the engine: the transport renders, tokenizes and submits.
//
// Errors: ApiError with the HTTP status and the error type of the protocol the request came in (OpenAI's
// "invalid_request_error", Anthropic's "invalid_request_error", …), naming the field at fault.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ft/message.h"
#include "ft/sampling.h"

namespace ft::serve {

enum class Protocol { openai, anthropic };
enum class Endpoint { chat, completion, responses, messages, count_tokens };

// An error answered with an HTTP status and a protocol-shaped body (see error_body()).
class ApiError : public std::runtime_error {
public:
    ApiError(int status, std::string type, std::string message, std::string param = {}, std::string code = {})
        : std::runtime_error(message), status(status), type(std::move(type)), param(std::move(param)), code(std::move(code)) {}
    int status;
    std::string type;   // "invalid_request_error", "not_found_error", "authentication_error", "rate_limit_error", …
    std::string param;  // OpenAI: the offending field ("messages[2].content"); may be empty
    std::string code;   // OpenAI: "model_not_found", "context_length_exceeded", …; may be empty
    // The message as a key and arguments (ft/message.h), for a client that words it in its user's language (the
    // desktop app); error_body() sends it as the error's "ft_message" {"key", "args"}. Empty: none.
    Message message_key;
    ApiError& keyed(std::string key, std::vector<std::string> args = {}) {
        message_key = Message{std::move(key), std::move(args)};
        return *this;
    }
};

// A 400 naming the field.
ApiError bad_request(const std::string& message, const std::string& param = {});

enum class ToolChoice { automatic, none, required, named };

struct ApiRequest {
    Protocol protocol = Protocol::openai;
    Endpoint endpoint = Endpoint::chat;
    std::string model;
    bool stream = false;
    bool include_usage = false;          // OpenAI stream_options.include_usage
    // Chat: what the template renders (OpenAI message shape, content as strings).
    std::string messages_json;
    std::string tools_json;              // empty: no tools
    std::optional<bool> enable_thinking; // unset: the template's default
    ToolChoice tool_choice = ToolChoice::automatic;
    std::string tool_choice_name;        // named
    bool parallel_tool_calls = true;
    bool json_object = false;            // response_format json_object / json_schema
    // Completion: the raw prompt (text or token ids); no template.
    std::string prompt_text;
    std::vector<std::int32_t> prompt_ids;
    // Generation.
    SamplingParams sampling;
    // Which sampling fields the request set; the others take the model's recommended value where it has one
    // (ServedModel::sampling_defaults), else sampling's.
    bool temperature_set = false, top_p_set = false, top_k_set = false;
    int max_tokens = -1;                 // -1: until the context is full
    bool ignore_eos = false;             // OpenAI extension: keep generating through end-of-turn tokens
    std::vector<std::string> stop;
    bool logprobs = false;
    int top_logprobs = 0;
    bool echo = false;                   // completion: prepend the prompt to the text
    // Responses: the request's settings the response object repeats (instructions, tools, tool_choice, …), a JSON
    // object; empty for the other endpoints.
    std::string echo_json;
    // Responses: keep the response server-side (`store`, default true), the conversation's items so far (those of
    // `previous_response_id` first, then this request's `input`, a JSON array) for the next turn to continue from.
    bool store = false;
    std::string previous_response_id;
    std::string input_items_json;
    // Accepted but left out (a tool type this server does not know): for the transport's log.
    std::vector<std::string> warnings;
};

// A stored response's conversation (its input items followed by its output items, a JSON array), or nullopt when
// the id is unknown. Used to resolve `previous_response_id`.
using ResponseLookup = std::function<std::optional<std::string>(const std::string& id)>;

// Parse a request body. Throws ApiError (400) for malformed JSON and bad or unsupported fields.
ApiRequest parse_openai_chat(const std::string& body);
ApiRequest parse_openai_completion(const std::string& body);
// OpenAI Responses (/v1/responses), as the OpenAI SDK and the Codex CLI send it: `input` (a string, or message,
// function_call / custom_tool_call / local_shell_call items and their outputs, reasoning items) and `instructions`
// become chat messages. Tools: function tools become the chat tool shape; a `namespace` tool's functions are
// flattened to "NAMESPACE.NAME"; a `custom` (freeform) tool becomes a function with one string parameter `input`
// whose description carries the tool's grammar; built-in tools the server cannot run (web_search, image_generation,
// local_shell, file_search, mcp, …) are left out of the prompt, and a tool type we do not know is left out with a
// warning. `previous_response_id` is resolved through `lookup` (an unknown id, or no lookup: 400
// previous_response_not_found). Item references, `background` and `conversation` are 400s.
ApiRequest parse_openai_responses(const std::string& body, const ResponseLookup& lookup = {});
ApiRequest parse_anthropic_messages(const std::string& body, bool count_tokens = false);

// The protocol-shaped error body: OpenAI {"error":{message,type,param,code}}, Anthropic
// {"type":"error","error":{type,message}}.
std::string error_body(Protocol protocol, const ApiError& error);

}  // namespace ft::serve
