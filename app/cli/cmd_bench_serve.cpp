// `ft bench serve`: N concurrent clients, each sending R streamed chat requests to an API server (a running one
// given by --url, or one started in-process on a free port with --model): aggregate decode tok/s, TTFT p50/p99,
// end-to-end latency; JSON with --json.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <optional>
#include <thread>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "api_server.h"
#include "bench_serve.h"
#include "engine_options.h"
#include "ft/error.h"

namespace ft::cli {

namespace {

using Clock = std::chrono::steady_clock;

struct Sample {
    double ttft_ms = -1, total_ms = 0;
    int tokens = 0;
    bool ok = false;
    std::string error;
};

double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const double pos = p * double(v.size() - 1);
    const std::size_t lo = std::size_t(pos);
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - double(lo));
}

// One streamed request; TTFT = the first chunk carrying content or reasoning text.
Sample one_request(const std::string& url, const std::string& key, const std::string& body) {
    Sample s;
    httplib::Client cli(url);
    cli.set_read_timeout(600, 0);
    httplib::Headers h;
    if (!key.empty()) h.emplace("Authorization", "Bearer " + key);
    const auto t0 = Clock::now();
    std::string pending;
    httplib::Request req;
    req.method = "POST";
    req.path = "/v1/chat/completions";
    req.headers = h;
    req.headers.emplace("Content-Type", "application/json");
    req.body = body;
    req.content_receiver = [&](const char* data, std::size_t n, std::uint64_t, std::uint64_t) {
        pending.append(data, n);
        for (std::size_t e; (e = pending.find("\n\n")) != std::string::npos;) {
            const std::string frame = pending.substr(0, e);
            pending.erase(0, e + 2);
            if (frame.rfind("data: ", 0) != 0 || frame == "data: [DONE]") continue;
            const auto j = nlohmann::json::parse(frame.substr(6), nullptr, false);
            if (j.is_discarded() || !j.is_object()) continue;
            if (j.contains("usage") && j["usage"].is_object()) s.tokens = j["usage"].value("completion_tokens", 0);
            if (j.contains("error") && j["error"].is_object()) s.error = j["error"].value("message", "error");
            if (s.ttft_ms < 0 && j.contains("choices") && !j["choices"].empty()) {
                const auto& d = j["choices"][0]["delta"];
                if ((d.contains("content") && d["content"].is_string() && !d["content"].get<std::string>().empty()) ||
                    d.contains("reasoning_content") || d.contains("tool_calls"))
                    s.ttft_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
            }
        }
        return true;
    };
    auto res = cli.send(req);
    s.total_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (!res) s.error = "connection failed: " + httplib::to_string(res.error());
    else if (res->status != 200) s.error = "HTTP " + std::to_string(res->status) + ": " + pending.substr(0, 200);
    s.ok = s.error.empty();
    return s;
}

}  // namespace

nlohmann::json bench_serve(const Args& args) {
    const int clients = int(args.get_int("clients", 4));
    const int requests = int(args.get_int("requests", 4));
    const int max_tokens = int(args.get_int("max-tokens", 128));
    const int prompt_words = int(args.get_int("prompt-len", 64));
    if (clients < 1 || clients > 1024) throw Error(ErrorCode::invalid_argument, "--clients must be in [1, 1024]");
    if (requests < 1) throw Error(ErrorCode::invalid_argument, "--requests must be >= 1");
    if (max_tokens < 1) throw Error(ErrorCode::invalid_argument, "--max-tokens must be >= 1");
    const std::string key = args.get_or("api-key", "");

    std::optional<Engine> engine;
    std::optional<server::ApiServer> srv;
    std::string url = args.get_or("url", "");
    if (url.empty()) {
        if (!args.has("model"))
            throw Error(ErrorCode::invalid_argument, "ft bench serve needs --model PATH (or --url of a running server)");
        LoadOptions lo = load_options_from(args);
        engine.emplace();
        engine->load_sync(lo);
        server::ServerOptions so;
        so.port = 0;
        so.api_key = key;
        so.max_queue = clients + 4;
        so.log = [](const std::string&) {};
        srv.emplace(*engine, so);
        srv->start();
        url = srv->url();
    }

    // The served model's name, from the server itself.
    std::string model;
    {
        httplib::Client cli(url);
        httplib::Headers h;
        if (!key.empty()) h.emplace("Authorization", "Bearer " + key);
        auto r = cli.Get("/v1/models", h);
        if (!r || r->status != 200)
            throw Error(ErrorCode::io, "cannot list the models of " + url, "is --url an ft server, and --api-key right?");
        model = nlohmann::json::parse(r->body)["data"][0]["id"].get<std::string>();
    }

    std::mutex mu;
    std::vector<Sample> samples;
    const auto t0 = Clock::now();
    std::vector<std::thread> threads;
    for (int c = 0; c < clients; ++c) {
        threads.emplace_back([&, c] {
            for (int r = 0; r < requests; ++r) {
                std::string prompt = "Client " + std::to_string(c) + " request " + std::to_string(r) + ":";
                for (int w = 0; w < prompt_words; ++w) prompt += " word" + std::to_string((w * 7 + c) % 50);
                nlohmann::json body{{"model", model},
                                    {"messages", {{{"role", "user"}, {"content", prompt}}}},
                                    {"max_tokens", max_tokens},
                                    {"temperature", 0},
                                    {"stream", true},
                                    {"stream_options", {{"include_usage", true}}}};
                Sample s = one_request(url, key, body.dump());
                std::lock_guard lock(mu);
                samples.push_back(std::move(s));
            }
        });
    }
    for (auto& t : threads) t.join();
    const double wall_s = std::chrono::duration<double>(Clock::now() - t0).count();

    std::vector<double> ttft, total;
    long long tokens = 0;
    int failed = 0;
    std::string first_error;
    for (const auto& s : samples) {
        if (!s.ok) {
            if (failed++ == 0) first_error = s.error;
            continue;
        }
        tokens += s.tokens;
        if (s.ttft_ms >= 0) ttft.push_back(s.ttft_ms);
        total.push_back(s.total_ms);
    }
    nlohmann::json out;
    out["bench"] = "serve";
    out["url"] = url;
    out["model"] = model;
    out["clients"] = clients;
    out["requests_per_client"] = requests;
    out["max_tokens"] = max_tokens;
    out["requests_ok"] = int(samples.size()) - failed;
    out["requests_failed"] = failed;
    out["completion_tokens"] = tokens;
    out["wall_s"] = wall_s;
    out["aggregate_tok_s"] = wall_s > 0 ? double(tokens) / wall_s : 0;
    out["ttft_ms_p50"] = percentile(ttft, 0.5);
    out["ttft_ms_p99"] = percentile(ttft, 0.99);
    out["latency_ms_p50"] = percentile(total, 0.5);
    out["latency_ms_p99"] = percentile(total, 0.99);
    std::printf("serve  %s  %s  %d clients x %d requests, max %d tokens\n", url.c_str(), model.c_str(), clients, requests,
                max_tokens);
    std::printf("  %d ok, %d failed; %lld tokens in %.2f s = %.1f tok/s aggregate\n", int(samples.size()) - failed, failed,
                tokens, wall_s, out["aggregate_tok_s"].get<double>());
    std::printf("  TTFT p50 %.1f ms, p99 %.1f ms; request p50 %.1f ms, p99 %.1f ms\n", out["ttft_ms_p50"].get<double>(),
                out["ttft_ms_p99"].get<double>(), out["latency_ms_p50"].get<double>(), out["latency_ms_p99"].get<double>());
    if (failed) std::fprintf(stderr, "warning: %d requests failed; the first: %s\n", failed, first_error.c_str());
    if (srv) srv->stop();
    return out;
}

}  // namespace ft::cli
