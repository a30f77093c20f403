// The API server's responses, transport-free: a ResponseWriter turns one request's engine events (tokens, finish)
// into the protocol's output — SSE frames while streaming, or the whole JSON body at the end — and prepare() turns
// a parsed ApiRequest into the engine request plus its writer (chat template, tokenizer, context checks).
//
// Streamed and non-streamed answers come from the same events through the same parser, so for greedy decoding the
// streamed text equals the non-streamed text.
//
// Threading: a writer belongs to one request; its calls must not run concurrently (the transport serializes them).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ft/engine.h"
#include "serve/api_request.h"

namespace ft {
class ChatTemplate;
class Tokenizer;
}  // namespace ft

namespace ft::serve {

// SSE framing: "data: JSON\n\n" (OpenAI), "event: NAME\ndata: JSON\n\n" (Anthropic), "data: [DONE]\n\n".
std::string sse_data(const std::string& json_text);
std::string sse_event(const std::string& name, const std::string& json_text);
std::string sse_done();

class ResponseWriter {
public:
    virtual ~ResponseWriter() = default;
    // Streaming: the bytes to send first (may be empty).
    virtual std::string start() = 0;
    // One token from the engine; streaming: the bytes to send for it (may be empty).
    virtual std::string token(const TokenEvent& ev) = 0;
    // The end; streaming: the closing bytes (final chunk, usage, [DONE] / message_delta, message_stop).
    virtual std::string finish(const FinishEvent& ev) = 0;
    // Non-streamed: the response body, after finish().
    virtual std::string body() const = 0;
    // An error after the stream began: the bytes that tell the client (an error frame).
    virtual std::string stream_error(const ApiError& e) const = 0;
};

// What a writer needs to know of the request and the model.
struct WriterSetup {
    std::string id;                 // "chatcmpl-…", "msg_…", "cmpl-…", "resp_…"
    std::string model;
    std::int64_t created = 0;       // unix seconds
    int prompt_tokens = 0;
    bool stream = false;
    bool include_usage = false;
    bool logprobs = false;
    int top_logprobs = 0;
    bool parallel_tool_calls = true;
    std::vector<std::string> stop;  // the request's stop strings (to tell stop_sequence from end of turn)
    std::string echo_text;          // completion echo: the prompt text
    std::string echo_json;          // responses: request fields the response object repeats (ApiRequest::echo_json)
    std::function<std::string(std::int32_t)> token_bytes;  // a token id's bytes (logprobs)
};

class ToolParser;

std::unique_ptr<ResponseWriter> openai_chat_writer(WriterSetup setup, std::unique_ptr<ToolParser> parser);
std::unique_ptr<ResponseWriter> openai_completion_writer(WriterSetup setup);
// OpenAI Responses: the `response` object with reasoning / message / function_call output items; streamed as the
// typed events (response.created … response.completed), each with a sequence_number.
std::unique_ptr<ResponseWriter> openai_responses_writer(WriterSetup setup, std::unique_ptr<ToolParser> parser);
std::unique_ptr<ResponseWriter> anthropic_writer(WriterSetup setup, std::unique_ptr<ToolParser> parser);

// The model behind the server, as the request plumbing sees it.
struct ServedModel {
    std::string id;                  // the name clients use ("qwen3-moe-tiny")
    std::vector<std::string> aliases;
    std::string architecture;        // ModelInfo::architecture
    int n_ctx = 0;
    const ChatTemplate* chat_template = nullptr;  // null: the model has none (chat endpoints answer 400)
    const Tokenizer* tokenizer = nullptr;
    // Whether the template renders a system message that is not the first one where it stands (Qwen3's does);
    // where it does not (it drops or rejects them), later system messages are merged into the first. Set by
    // template_keeps_system_turns() when the server starts.
    bool system_turns_in_place = true;
    SamplingDefaults sampling_defaults;  // ModelInfo's: for a request that leaves a field out
    bool accepts(const std::string& name) const;
};

// Renders a probe conversation (user, system, user) and says whether the system text comes out, after the first
// user turn, without an error.
bool template_keeps_system_turns(const ChatTemplate& tpl);

// The prompt text a chat request renders to, exactly as the server renders it (system turns merged into the first
// where the template does not keep later ones). Throws ApiError (400) when the template fails.
std::string render_prompt(const ApiRequest& request, const ChatTemplate& tpl, bool system_turns_in_place,
                          bool add_generation_prompt = true);

struct PreparedRequest {
    GenerationRequest generation;    // prompt, sampling, limits (callbacks left for the transport)
    std::unique_ptr<ResponseWriter> writer;
    int prompt_tokens = 0;
};

// Checks the model name (404 model_not_found), renders the chat template, tokenizes, checks the context (400
// context_length_exceeded) and makes the writer. `id` is the response id. Throws ApiError.
PreparedRequest prepare(const ApiRequest& request, const ServedModel& model, const std::string& id,
                        std::int64_t created);
// The prompt tokens a request would use (count_tokens). Throws ApiError.
int count_prompt_tokens(const ApiRequest& request, const ServedModel& model);

// A fresh random hex string (ids: "chatcmpl-" + random_hex(12)).
std::string random_hex(int bytes);

}  // namespace ft::serve
