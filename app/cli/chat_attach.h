// `ft chat --attach URL`: the terminal chat's replies from a running API server (ft serve, the desktop app's server)
// over POST /v1/chat/completions, streamed (SSE), instead of from a model loaded in this process.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ft/sampling.h"

namespace httplib {
class Client;
}

namespace ft::cli {

struct AttachOptions {
    std::string url;        // "http://127.0.0.1:1919", "https://llm.example.com/prefix" (a trailing "/" or "/v1" is dropped)
    std::string api_key;    // sent as "Authorization: Bearer KEY" when non-empty
    std::string key_source; // where the key came from, for messages ("FT_API_KEY", "…/servers.json"); never the key
    std::string model;      // empty: the server's first model (GET /v1/models)
    SamplingParams sampling;  // temperature, top_p, penalties and seed are sent; the server has no top_k/min_p
    int max_tokens = 2048;
    bool no_think = false;  // chat_template_kwargs.enable_thinking = false
};

class AttachedChat {
public:
    // Checks the URL and asks the server for its model. Throws ft::Error: a malformed URL, no server there (the
    // message names the address and says how to start one), a refused API key, an answer that is not an ft server's.
    explicit AttachedChat(AttachOptions options);

    // normalize_server_url with the --attach wording; throws ft::Error(invalid_argument).
    static std::string resolve_url(const std::string& input);

    const std::string& model() const { return model_; }
    const std::vector<std::string>& models() const { return models_; }  // all the server lists
    const std::string& url() const { return opt_.url; }

    // Streams the assistant's reply to `history` (OpenAI messages) to standard output: reasoning between <think> and
    // </think> as the local chat shows it, then the answer; the stats line on standard error. `interrupted` stops
    // the reply (the server cancels it when the connection closes). Returns the answer's text (what the history
    // keeps), or nullopt after printing the error (the server not there any more, an error answer).
    std::optional<std::string> reply(const nlohmann::ordered_json& history, std::atomic<bool>& interrupted);

private:
    AttachOptions opt_;
    std::unique_ptr<httplib::Client> client() const;  // TLS certificates verified
    std::string host_;    // scheme://host:port for the client
    std::string prefix_;  // a path in front of /v1 (a reverse proxy's), or empty
    std::string model_;
    std::vector<std::string> models_;
};

}  // namespace ft::cli
