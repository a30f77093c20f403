// `ft chat --attach URL` (see chat_attach.h).
#include "chat_attach.h"

#include <chrono>
#include <cstdio>

#include <httplib.h>

#include "ft/error.h"
#include "remote_servers.h"

namespace ft::cli {

using json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

namespace {

std::string error_message(const json& body, const std::string& raw) {
    if (body.is_object() && body.contains("error") && body["error"].is_object()) {
        const json& e = body["error"];
        if (e.contains("message") && e["message"].is_string()) return e["message"].get<std::string>();
    }
    return raw.size() > 300 ? raw.substr(0, 300) + "…" : raw;
}

Error unreachable(const std::string& url, httplib::Error err) {
    if (err == httplib::Error::SSLServerVerification)
        return Error(ErrorCode::io, "the server at " + url + " did not pass the TLS check: its certificate is not trusted",
                     "ft verifies certificates: give the server a certificate this system trusts, or add its "
                     "certificate authority to the system's store");
    if (err == httplib::Error::SSLConnection)
        return Error(ErrorCode::io, "the TLS handshake with " + url + " failed",
                     "is it an https server? For a plain http one, give --attach http://…");
    return Error(ErrorCode::io, "cannot reach the server at " + url + ": " + httplib::to_string(err),
                 "start one with `ft serve --model PATH` (or the desktop app's API server), or give its address with "
                 "--attach URL");
}

}  // namespace

std::string AttachedChat::resolve_url(const std::string& input) {
    try {
        return normalize_server_url(input);
    } catch (const Error& e) {
        throw Error(ErrorCode::invalid_argument, "--attach: " + e.message(), e.hint());
    }
}

std::unique_ptr<httplib::Client> AttachedChat::client() const {
    auto cli = std::make_unique<httplib::Client>(host_);
    if (!cli->is_valid()) throw Error(ErrorCode::invalid_argument, "--attach '" + opt_.url + "' is not a valid address");
#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
    cli->enable_server_certificate_verification(true);  // the default; said here because it matters
#endif
    cli->set_connection_timeout(5, 0);
    return cli;
}

AttachedChat::AttachedChat(AttachOptions options) : opt_(std::move(options)) {
    const std::string url = resolve_url(opt_.url);
    opt_.url = url;
    const auto path_at = url.find('/', url.find("://") + 3);
    host_ = url.substr(0, path_at);
    prefix_ = path_at == std::string::npos ? std::string() : url.substr(path_at);
#ifndef CPPHTTPLIB_OPENSSL_SUPPORT
    if (url.rfind("https://", 0) == 0)
        throw Error(ErrorCode::unsupported, "this build of ft has no TLS support, so it cannot reach " + url,
                    "use a build with OpenSSL (the Linux packages have it), or the desktop app");
#endif
    auto cli = client();
    cli->set_read_timeout(30, 0);
    httplib::Headers h;
    if (!opt_.api_key.empty()) h.emplace("Authorization", "Bearer " + opt_.api_key);
    auto res = cli->Get(prefix_ + "/v1/models", h);
    if (!res) throw unreachable(url, res.error());
    const json body = json::parse(res->body, nullptr, false);
    if (res->status == 401)
        throw Error(ErrorCode::invalid_argument,
                    "the server at " + url + (opt_.api_key.empty() ? " wants an API key" : " refused the API key") +
                        (opt_.key_source.empty() ? std::string() : " (from " + opt_.key_source + ")"),
                    "give the server's key with --api-key KEY or FT_API_KEY, or add the server with its key in the "
                    "desktop app (Models → Add a server…)");
    if (res->status != 200 || !body.is_object() || !body.contains("data") || !body["data"].is_array())
        throw Error(ErrorCode::io,
                    "the server at " + url + " answered GET /v1/models with HTTP " + std::to_string(res->status) +
                        (res->status != 200 ? ": " + error_message(body, res->body) : std::string(" and no model list")),
                    "is --attach the address of an ft server (ft serve) or another OpenAI-compatible server?");
    std::string names;
    for (const auto& m : body["data"]) {
        if (!m.is_object() || !m.contains("id") || !m["id"].is_string()) continue;
        const std::string id = m["id"].get<std::string>();
        if (model_.empty() && (opt_.model.empty() || opt_.model == id)) model_ = id;
        names += (names.empty() ? "'" : ", '") + id + "'";
        models_.push_back(id);
    }
    if (names.empty()) throw Error(ErrorCode::io, "the server at " + url + " lists no model");
    if (model_.empty())
        throw Error(ErrorCode::invalid_argument, "the server at " + url + " does not serve '" + opt_.model + "'",
                    "it serves " + names + "; leave out --model to use the first");
}

std::optional<std::string> AttachedChat::reply(const json& history, std::atomic<bool>& interrupted) {
    json req = json::object();
    req["model"] = model_;
    req["messages"] = history;
    req["stream"] = true;
    req["stream_options"] = json{{"include_usage", true}};
    req["max_tokens"] = opt_.max_tokens;
    const SamplingParams& s = opt_.sampling;
    req["temperature"] = s.temperature;
    req["top_p"] = s.top_p;
    if (s.top_k > 0) req["top_k"] = s.top_k;  // extensions ft serve (and vLLM, llama.cpp) accept
    if (s.min_p > 0) req["min_p"] = s.min_p;
    if (s.repetition_penalty != 1.0f) req["repetition_penalty"] = s.repetition_penalty;
    if (s.presence_penalty != 0.0f) req["presence_penalty"] = s.presence_penalty;
    if (s.frequency_penalty != 0.0f) req["frequency_penalty"] = s.frequency_penalty;
    if (s.seed != 0) req["seed"] = s.seed;
    if (opt_.no_think) req["chat_template_kwargs"] = json{{"enable_thinking", false}};

    auto cli = client();
    cli->set_read_timeout(600, 0);  // ft serve sends a keep-alive every 2 s while it works
    httplib::Request hr;
    hr.method = "POST";
    hr.path = prefix_ + "/v1/chat/completions";
    if (!opt_.api_key.empty()) hr.headers.emplace("Authorization", "Bearer " + opt_.api_key);
    hr.headers.emplace("Content-Type", "application/json");
    hr.body = req.dump(-1, ' ', false, json::error_handler_t::replace);

    std::string pending, raw, content, stream_error;
    bool in_think = false, any_output = false, ok_status = false;
    int completion_tokens = -1, prompt_tokens = -1, status = 0;
    const auto t0 = Clock::now();
    std::optional<Clock::time_point> first;
    auto out = [&](const std::string& text) {
        if (text.empty()) return;
        if (!first) first = Clock::now();
        any_output = true;
        std::fwrite(text.data(), 1, text.size(), stdout);
        std::fflush(stdout);
    };
    hr.response_handler = [&](const httplib::Response& r) {
        status = r.status;
        ok_status = r.status == 200;
        return true;
    };
    hr.content_receiver = [&](const char* data, std::size_t n, std::uint64_t, std::uint64_t) {
        if (interrupted.load()) return false;
        if (!ok_status) {
            raw.append(data, n);
            return true;
        }
        pending.append(data, n);
        for (std::size_t e; (e = pending.find("\n\n")) != std::string::npos;) {
            const std::string frame = pending.substr(0, e);
            pending.erase(0, e + 2);
            if (frame.rfind("data: ", 0) != 0 || frame == "data: [DONE]") continue;  // ": ping" keep-alives
            const json j = json::parse(frame.substr(6), nullptr, false);
            if (!j.is_object()) continue;
            if (j.contains("error")) {
                stream_error = error_message(j, frame);
                continue;
            }
            if (j.contains("usage") && j["usage"].is_object()) {
                completion_tokens = j["usage"].value("completion_tokens", completion_tokens);
                prompt_tokens = j["usage"].value("prompt_tokens", prompt_tokens);
            }
            if (!j.contains("choices") || !j["choices"].is_array() || j["choices"].empty()) continue;
            const json& d = j["choices"][0].value("delta", json::object());
            if (d.contains("reasoning_content") && d["reasoning_content"].is_string()) {
                const std::string t = d["reasoning_content"].get<std::string>();
                if (!t.empty() && !in_think) {
                    out("<think>\n");
                    in_think = true;
                }
                out(t);
            }
            if (d.contains("content") && d["content"].is_string()) {
                const std::string t = d["content"].get<std::string>();
                if (!t.empty() && in_think) {
                    out("\n</think>\n\n");
                    in_think = false;
                }
                content += t;
                out(t);
            }
        }
        return !interrupted.load();
    };
    auto res = cli->send(hr);
    const bool stopped = interrupted.exchange(false);
    if (in_think) out("\n</think>\n");
    if (any_output) std::printf("\n");
    if (!res && !stopped) {
        std::fprintf(stderr, "error: %s\n", unreachable(opt_.url, res.error()).what());
        return std::nullopt;
    }
    if (status != 0 && status != 200) {
        const json body = json::parse(raw, nullptr, false);
        std::fprintf(stderr, "error: the server answered HTTP %d: %s\n", status, error_message(body, raw).c_str());
        return std::nullopt;
    }
    if (!stream_error.empty()) {
        std::fprintf(stderr, "error: %s\n", stream_error.c_str());
        return std::nullopt;
    }
    // Timed here, as the bytes arrive (the server may send several tokens in one write): tok/s over the whole
    // request, prompt included.
    const double ttft_ms = first ? std::chrono::duration<double, std::milli>(*first - t0).count() : 0.0;
    const double total_s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (completion_tokens >= 0)
        std::fprintf(stderr, "[%d tokens, prompt %d, TTFT %.0f ms, %.1f tok/s end to end%s]\n", completion_tokens,
                     prompt_tokens, ttft_ms, total_s > 0 ? completion_tokens / total_s : 0.0, stopped ? ", stopped" : "");
    else
        std::fprintf(stderr, "[TTFT %.0f ms%s]\n", ttft_ms, stopped ? ", stopped" : "");
    return content;
}

}  // namespace ft::cli
