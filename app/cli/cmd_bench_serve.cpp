// `ft bench serve`: N concurrent clients, each sending R streamed chat requests to an API server (a running one
// given by --url, or one started in-process on a free port with --model): aggregate decode tok/s, TTFT p50/p99,
// end-to-end latency; JSON with --json. With --replay DIR: a recorded agent session (ft serve --record) played back
// turn by turn, --sessions copies at once: each turn's prompt, reused prefix tokens and TTFT.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <thread>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "api_server.h"
#include "bench_serve.h"
#include "engine_options.h"
#include "ft/error.h"
#include "ft/utf8.h"

namespace ft::cli {

namespace {

using json = nlohmann::ordered_json;  // key order kept: it is part of the rendered prompt
using Clock = std::chrono::steady_clock;

struct Sample {
    double ttft_ms = -1, total_ms = 0;
    int tokens = 0;
    int prompt_tokens = 0, cached_tokens = 0;  // from the response's usage (0 when it has none)
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

// A streamed frame's data: the first token-carrying frame sets TTFT; usage and errors are read from any of the three
// protocols' shapes (OpenAI chat chunks, Anthropic events, Responses events).
void read_frame(const json& j, Sample& s, Clock::time_point t0) {
    auto first_token = [&] {
        if (s.ttft_ms < 0) s.ttft_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    };
    const std::string type = j.value("type", std::string());
    if (j.contains("error") && j["error"].is_object()) s.error = j["error"].value("message", "error");
    if (j.contains("choices") && j["choices"].is_array() && !j["choices"].empty()) {  // OpenAI chat
        const auto& d = j["choices"][0].value("delta", json::object());
        if ((d.contains("content") && d["content"].is_string() && !d["content"].get<std::string>().empty()) ||
            d.contains("reasoning_content") || d.contains("tool_calls"))
            first_token();
    }
    if (j.contains("usage") && j["usage"].is_object()) {  // OpenAI chat's last chunk, Anthropic's message_delta
        const json& u = j["usage"];
        if (u.contains("completion_tokens")) {
            s.tokens = u.value("completion_tokens", 0);
            s.prompt_tokens = u.value("prompt_tokens", 0);
            if (u.contains("prompt_tokens_details") && u["prompt_tokens_details"].is_object())
                s.cached_tokens = u["prompt_tokens_details"].value("cached_tokens", 0);
        } else if (type == "message_delta") {
            s.tokens = u.value("output_tokens", 0);
            s.cached_tokens = u.value("cache_read_input_tokens", 0);
            s.prompt_tokens = u.value("input_tokens", 0) + s.cached_tokens + u.value("cache_creation_input_tokens", 0);
        }
    }
    if (type == "content_block_delta") first_token();                                    // Anthropic
    if (type.rfind("response.", 0) == 0 && type.size() > 6 && type.ends_with(".delta")) first_token();  // Responses
    if ((type == "response.completed" || type == "response.incomplete") && j.contains("response")) {
        const json& u = j["response"].value("usage", json::object());
        s.tokens = u.value("output_tokens", 0);
        s.prompt_tokens = u.value("input_tokens", 0);
        if (u.contains("input_tokens_details") && u["input_tokens_details"].is_object())
            s.cached_tokens = u["input_tokens_details"].value("cached_tokens", 0);
    }
    if (type == "response.failed" && j.contains("response") && j["response"].contains("error") &&
        j["response"]["error"].is_object())
        s.error = j["response"]["error"].value("message", "response.failed");
}

// One streamed request to `path`.
Sample one_request(const std::string& url, const std::string& key, const std::string& path, const std::string& body,
                   const httplib::Headers& extra = {}) {
    Sample s;
    httplib::Client cli(url);
    cli.set_read_timeout(600, 0);
    const auto t0 = Clock::now();
    std::string pending;
    httplib::Request req;
    req.method = "POST";
    req.path = path;
    req.headers = extra;
    if (!key.empty()) req.headers.emplace("Authorization", "Bearer " + key);
    req.headers.emplace("Content-Type", "application/json");
    req.body = body;
    req.content_receiver = [&](const char* data, std::size_t n, std::uint64_t, std::uint64_t) {
        pending.append(data, n);
        for (std::size_t e; (e = pending.find("\n\n")) != std::string::npos;) {
            const std::string frame = pending.substr(0, e);
            pending.erase(0, e + 2);
            const std::size_t at = frame.find("data: ");
            if (at == std::string::npos || frame.compare(at, std::string::npos, "data: [DONE]") == 0) continue;
            const auto j = json::parse(frame.substr(at + 6), nullptr, false);
            if (!j.is_discarded() && j.is_object()) read_frame(j, s, t0);
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

// A recorded request (ft serve --record): path without the query, headers to send again, body.
struct Recorded {
    std::string file, path;
    httplib::Headers headers;
    json body;
};

std::vector<Recorded> load_recording(const std::filesystem::path& dir) {
    std::vector<std::filesystem::path> files;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
        if (e.path().extension() == ".json") files.push_back(e.path());
    if (ec) throw Error(ErrorCode::io, "cannot read the recording " + path_to_utf8(dir) + ": " + ec.message());
    std::sort(files.begin(), files.end());
    std::vector<Recorded> out;
    for (const auto& f : files) {
        std::ifstream in(f, std::ios::binary);
        const json j = json::parse(in, nullptr, false);
        if (j.is_discarded() || !j.is_object() || !j.contains("path") || !j["path"].is_string() || !j.contains("body") || !j["body"].is_object())
            throw Error(ErrorCode::invalid_file, path_to_utf8(f) + " is not a recorded request (path, headers, body)",
                        "record one with ft serve --record DIR");
        Recorded r;
        r.file = path_to_utf8(f.filename());
        r.path = j["path"].get<std::string>();  // with its query, as the client sent it (Claude Code: ?beta=true)
        if (r.path.find("count_tokens") != std::string::npos) continue;  // not a generation
        if (j.contains("headers") && j["headers"].is_object())
            for (const auto& [k, v] : j["headers"].items())
                if (v.is_string() && k != "content-length" && k != "host") r.headers.emplace(k, v.get<std::string>());
        r.body = j["body"];
        out.push_back(std::move(r));
    }
    if (out.empty()) throw Error(ErrorCode::invalid_argument, "no generation requests in " + path_to_utf8(dir));
    return out;
}

// Sessions beyond the recorded one: a tag at the start of the first user turn, so that sessions share the system
// prompt and tools (as an agent's subagents do) and differ from there on.
void tag_first_user_turn(json& body, const std::string& tag) {
    auto tag_content = [&](json& c) {
        if (c.is_string()) c = tag + c.get<std::string>();
        else if (c.is_array() && !c.empty() && c[0].is_object() && c[0].contains("text") && c[0]["text"].is_string())
            c[0]["text"] = tag + c[0]["text"].get<std::string>();
    };
    for (const char* key : {"messages", "input"}) {
        if (!body.contains(key)) continue;
        json& list = body[key];
        if (list.is_string()) {
            list = tag + list.get<std::string>();
            return;
        }
        if (!list.is_array()) return;
        for (auto& m : list)
            if (m.is_object() && m.value("role", std::string()) == "user" && m.contains("content")) {
                tag_content(m["content"]);
                return;
            }
    }
}

// --replay DIR: the recorded session turn by turn (each request after the previous one's end, as the agent sent
// them), --sessions copies at once.
json bench_replay(const Args& args, const std::string& url, const std::string& key, const std::string& model) {
    const auto turns = load_recording(args.get_path("replay").value_or(std::filesystem::path()));
    const int sessions = int(args.get_int("sessions", 1));
    if (sessions < 1 || sessions > 256) throw Error(ErrorCode::invalid_argument, "--sessions must be in [1, 256]");
    const int max_tokens = args.has("max-tokens") ? int(args.get_int("max-tokens", 0)) : -1;
    std::vector<std::vector<Sample>> got(std::size_t(sessions), std::vector<Sample>(turns.size()));
    const auto t0 = Clock::now();
    std::vector<std::thread> threads;
    for (int si = 0; si < sessions; ++si)
        threads.emplace_back([&, si] {
            for (std::size_t t = 0; t < turns.size(); ++t) {
                json body = turns[t].body;
                body["model"] = model;
                body["stream"] = true;
                if (turns[t].path.find("/chat/completions") != std::string::npos)
                    body["stream_options"] = json{{"include_usage", true}};
                if (max_tokens > 0) {
                    body.erase("max_completion_tokens");
                    body[turns[t].path.find("/responses") != std::string::npos ? "max_output_tokens" : "max_tokens"] = max_tokens;
                }
                if (sessions > 1) tag_first_user_turn(body, "[session " + std::to_string(si) + "] ");
                got[std::size_t(si)][t] = one_request(url, key, turns[t].path, body.dump(), turns[t].headers);
            }
        });
    for (auto& th : threads) th.join();
    const double wall_s = std::chrono::duration<double>(Clock::now() - t0).count();

    json out;
    out["bench"] = "serve-replay";
    out["url"] = url;
    out["model"] = model;
    out["recording"] = args.get_or("replay", "");
    out["sessions"] = sessions;
    out["turns_per_session"] = int(turns.size());
    std::printf("serve replay  %s  %s  %zu turns x %d session%s (%s)\n", url.c_str(), model.c_str(), turns.size(), sessions,
                sessions == 1 ? "" : "s", args.get_or("replay", "").c_str());
    std::printf("  turn  %-28s %8s %8s %10s %7s %8s\n", "path", "prompt", "reused", "TTFT ms", "tokens", "tok/s");
    json per_turn = json::array();
    std::vector<double> ttft_all;
    long long tokens = 0;
    int failed = 0;
    std::string first_error;
    double ttft_turn1 = 0, worst_later_ratio = 0;
    for (std::size_t t = 0; t < turns.size(); ++t) {
        std::vector<double> ttft, prompt, reused, toks, rate;
        for (int si = 0; si < sessions; ++si) {
            const Sample& s = got[std::size_t(si)][t];
            if (!s.ok) {
                if (failed++ == 0) first_error = turns[t].file + ": " + s.error;
                continue;
            }
            tokens += s.tokens;
            if (s.ttft_ms >= 0) {
                ttft.push_back(s.ttft_ms);
                ttft_all.push_back(s.ttft_ms);
            }
            prompt.push_back(s.prompt_tokens);
            reused.push_back(s.cached_tokens);
            toks.push_back(s.tokens);
            const double decode_ms = s.total_ms - std::max(0.0, s.ttft_ms);
            if (s.tokens > 1 && decode_ms > 0) rate.push_back(double(s.tokens - 1) / decode_ms * 1000.0);
        }
        const double p50 = percentile(ttft, 0.5);
        if (t == 0) ttft_turn1 = p50;
        else if (ttft_turn1 > 0) worst_later_ratio = std::max(worst_later_ratio, p50 / ttft_turn1);
        std::printf("  %4zu  %-28s %8.0f %8.0f %10.1f %7.0f %8.1f\n", t + 1, turns[t].path.substr(0, 28).c_str(),
                    percentile(prompt, 0.5), percentile(reused, 0.5), p50, percentile(toks, 0.5), percentile(rate, 0.5));
        per_turn.push_back(json{{"turn", t + 1}, {"file", turns[t].file}, {"path", turns[t].path},
                                {"prompt_tokens_p50", percentile(prompt, 0.5)}, {"reused_tokens_p50", percentile(reused, 0.5)},
                                {"ttft_ms_p50", p50}, {"ttft_ms_max", ttft.empty() ? 0 : *std::max_element(ttft.begin(), ttft.end())},
                                {"tokens_p50", percentile(toks, 0.5)}, {"decode_tok_s_p50", percentile(rate, 0.5)}});
    }
    out["turns"] = per_turn;
    out["requests_failed"] = failed;
    out["completion_tokens"] = tokens;
    out["wall_s"] = wall_s;
    out["aggregate_tok_s"] = wall_s > 0 ? double(tokens) / wall_s : 0;
    out["ttft_ms_p50"] = percentile(ttft_all, 0.5);
    out["ttft_ms_p99"] = percentile(ttft_all, 0.99);
    out["later_turn_ttft_max_ratio"] = worst_later_ratio;
    std::printf("  %lld tokens in %.2f s = %.1f tok/s aggregate; TTFT p50 %.1f ms, p99 %.1f ms; turns 2+: TTFT at most "
                "%.0f %% of turn 1's\n",
                tokens, wall_s, out["aggregate_tok_s"].get<double>(), out["ttft_ms_p50"].get<double>(),
                out["ttft_ms_p99"].get<double>(), worst_later_ratio * 100);
    if (failed) std::fprintf(stderr, "warning: %d requests failed; the first: %s\n", failed, first_error.c_str());
    return out;
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
        so.max_queue = std::max(clients, int(args.get_int("sessions", 1))) + 4;
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

    if (args.has("replay")) {
        json out = bench_replay(args, url, key, model);
        if (srv) srv->stop();
        return out;
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
                Sample s = one_request(url, key, "/v1/chat/completions", body.dump());
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
