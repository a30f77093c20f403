// ft::server::ApiServer — the OpenAI- and Anthropic-compatible HTTP API over a loaded ft::Engine (Qt-free: `ft serve`
// and the desktop app start the same server in-process).
//
// Transport: HTTP/1.1 (cpp-httplib), chunked Server-Sent Events for streams, one worker thread per open connection
// (a pool of max_queue + 16). Routes:
//   OpenAI     GET /v1/models, GET /v1/models/{id}, POST /v1/chat/completions, POST /v1/completions,
//              POST /v1/responses, GET/DELETE /v1/responses/{id}, GET /v1/responses/{id}/input_items (responses
//              sent with store: true are kept, bounded, for previous_response_id: engine/src/serve/response_store.h)
//   Anthropic  POST /v1/messages, POST /v1/messages/count_tokens (GET /v1/models answers in Anthropic's shape when
//              the request carries an anthropic-version header)
//   Control    GET /health, GET /v1/stats, GET /v1/cache/status, POST /v1/cache/rebuild {"moe_slots","kv_tokens"},
//              GET /v1/requests, POST /v1/requests/{id}/cancel
// The request/response JSON is engine/src/serve (transport-free); this file only moves bytes, authenticates, limits
// and schedules.
//
// Limits: at most max_queue requests generate or wait at once (more: 429 with Retry-After); bodies over max_body
// bytes: 413; a client that does not send its request within read_timeout_s seconds is dropped. A client that
// disconnects cancels its generation (Engine::cancel): a stream at its next token or keep-alive (every 2 s); a
// non-streamed request still generating after 2 s is answered 200 with a space a second before its JSON body, so a
// hang-up is noticed there too (engine errors after that point come as an error body with status 200).
//
// Threading: start()/stop() from one thread; requests() from any. The Engine must outlive the server and have a
// model loaded before start().
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ft/engine.h"

namespace ft::server {

struct ServerOptions {
    std::string host = "127.0.0.1";
    int port = 1919;                        // 0: any free port (start() returns it)
    std::string api_key;                    // non-empty: required as "Authorization: Bearer KEY" or "x-api-key: KEY"
    std::string served_name;                // the model id clients use (empty: the model's name)
    std::vector<std::string> aliases;       // further names accepted as that model (e.g. for Claude Code's defaults)
    std::size_t max_body = 32u << 20;       // request body limit (bytes)
    int read_timeout_s = 30;                // to receive a request
    int write_timeout_s = 60;               // to send a chunk to a stalled client
    int max_queue = 64;                     // requests generating or waiting at once; more get 429
    std::string cors_origin;                // empty: no CORS headers (the default); "*" or an origin
    std::function<void(const std::string&)> log;  // one line per request served (empty: spdlog info)
    // Non-empty: every generation and count_tokens request is written to this folder as it arrives, as
    // NNNNNN.json {path, headers (the protocol's own: anthropic-*, openai-*, x-*, user-agent), body} — a recording of
    // a client's traffic that `ft bench serve --replay` plays back. API keys are never written.
    std::filesystem::path record_dir;
};

// A request in flight, for GET /v1/requests and `ft ctl requests`.
struct RequestInfo {
    std::uint64_t id = 0;      // the engine's request id (POST /v1/requests/{id}/cancel)
    std::string endpoint;      // "/v1/chat/completions"
    std::string model;
    bool stream = false;
    int prompt_tokens = 0;
    int generated = 0;
    double age_s = 0;
};

class ApiServer {
public:
    ApiServer(Engine& engine, ServerOptions options);
    ~ApiServer();  // stop()
    ApiServer(const ApiServer&) = delete;
    ApiServer& operator=(const ApiServer&) = delete;

    // Binds and starts serving on a thread of its own; returns the port. Throws ft::Error: no model loaded, the
    // port in use (the message names it and says what to do), an address that cannot be bound.
    int start();
    // Stops accepting, cancels what is running, joins. Idempotent.
    void stop();
    int port() const;
    std::string url() const;  // "http://127.0.0.1:1919"
    std::vector<RequestInfo> requests() const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace ft::server
