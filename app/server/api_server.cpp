// The HTTP transport of the API server (see api_server.h).
#include "api_server.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <variant>

#ifndef _WIN32
#include <csignal>
#endif

#include <httplib.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "ft/chat_template.h"
#include "ft/error.h"
#include "ft/tokenizer.h"
#include "serve/api_request.h"
#include "serve/api_response.h"
#include "serve/response_store.h"
#include "serve/stats_json.h"
#include "ft/utf8.h"

namespace ft::server {

using json = nlohmann::ordered_json;
using serve::ApiError;
using serve::Protocol;
using Clock = std::chrono::steady_clock;

namespace {

std::int64_t unix_now() {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// One generation: engine callbacks (engine thread) queue events, the connection's thread writes them.
struct Job {
    using Event = std::variant<TokenEvent, FinishEvent, Error>;
    std::mutex mutex;
    std::condition_variable cv;
    std::deque<Event> events;
    bool ended = false;          // FinishEvent or Error queued
    std::atomic<int> generated{0};
};

// The engine's message key goes along (ApiError::message_key: "prompt_too_long", "sampling_range", …).
ApiError from_engine_error(const Error& e) {
    auto keyed = [&](ApiError a) {
        a.message_key = e.key();
        return a;
    };
    if (e.code() == ErrorCode::invalid_argument)
        return keyed(ApiError(400, "invalid_request_error", e.hint().empty() ? e.message() : e.message() + ": " + e.hint()));
    if (e.code() == ErrorCode::out_of_memory) return keyed(ApiError(503, "overloaded_error", e.message()));
    return keyed(ApiError(500, "api_error", e.message()));
}

// OpenAI's error types for the statuses we answer outside request parsing.
ApiError status_error(int status, const std::string& message) {
    switch (status) {
    case 401: return ApiError(401, "authentication_error", message, {}, "invalid_api_key");
    case 404: return ApiError(404, "not_found_error", message);
    case 413: return ApiError(413, "request_too_large", message);
    case 429: return ApiError(429, "rate_limit_error", message, {}, "rate_limit_exceeded");
    default: return ApiError(status, status >= 500 ? "api_error" : "invalid_request_error", message);
    }
}

Protocol protocol_of(const httplib::Request& req) {
    return req.path.rfind("/v1/messages", 0) == 0 || req.has_header("anthropic-version") ? Protocol::anthropic
                                                                                         : Protocol::openai;
}

void send_error(httplib::Response& res, Protocol p, const ApiError& e) {
    res.status = e.status;
    res.set_content(serve::error_body(p, e), "application/json");
    if (e.status == 429) res.set_header("Retry-After", "1");
}

}  // namespace

struct ApiServer::Impl {
    Engine& engine;
    ServerOptions opt;
    httplib::Server http;
    std::thread thread;
    int bound_port = 0;
    bool started = false;

    // The model as the request plumbing sees it.
    std::optional<ChatTemplate> tpl;
    std::optional<Tokenizer> tok;
    serve::ServedModel model;

    struct Entry {
        RequestInfo info;
        Clock::time_point started;
        std::shared_ptr<Job> job;
    };
    mutable std::mutex reg_mutex;
    std::map<std::uint64_t, Entry> registry;
    std::atomic<int> inflight{0};
    std::atomic<std::uint64_t> served{0}, rejected{0};
    std::atomic<bool> stopping{false};
    serve::ResponseStore responses;  // /v1/responses with store: true (previous_response_id, GET, DELETE)

    Impl(Engine& e, ServerOptions o) : engine(e), opt(std::move(o)) {}

    void log_line(const std::string& s) {
        if (opt.log) opt.log(s);
        else spdlog::info("{}", s);
    }

    bool authorized(const httplib::Request& req) const {
        if (opt.api_key.empty()) return true;
        if (req.get_header_value("x-api-key") == opt.api_key) return true;
        const std::string auth = req.get_header_value("Authorization");
        return auth == "Bearer " + opt.api_key;
    }

    // ---- generation ----

    // Runs one prepared request: submits it, then answers (streamed or whole). Owns the in-flight slot.
    // `on_done` runs with the writer once the answer is complete (not after an error or a cancel).
    void run(const serve::ApiRequest& ar, serve::PreparedRequest prep, const std::string& endpoint,
             httplib::Response& res, std::function<void(const serve::ResponseWriter&)> on_done = {}) {
        auto job = std::make_shared<Job>();
        auto writer = std::shared_ptr<serve::ResponseWriter>(std::move(prep.writer));
        GenerationRequest g = std::move(prep.generation);
        g.on_token = [job](const TokenEvent& ev) {
            job->generated.fetch_add(ev.token >= 0 ? 1 : 0);
            std::lock_guard lock(job->mutex);
            job->events.emplace_back(ev);
            job->cv.notify_one();
        };
        g.on_finish = [this, job, endpoint](const FinishEvent& ev) {
            // One line per generation: what an agent's turn cost and how much of its prompt the prefix cache gave.
            char line[256];
            std::snprintf(line, sizeof line,
                          "%s: prompt %d tokens (%d from the prefix cache), %d generated (%s), TTFT %.0f ms, %.1f tok/s",
                          endpoint.c_str(), ev.prompt_tokens, ev.cached_tokens, ev.completion_tokens,
                          ev.reason == FinishReason::stop ? "stop" : ev.reason == FinishReason::length ? "length" : "cancelled",
                          ev.ttft_ms, ev.decode_tok_s);
            log_line(line);
            std::lock_guard lock(job->mutex);
            job->events.emplace_back(ev);
            job->ended = true;
            job->cv.notify_one();
        };
        g.on_error = [job](const Error& e) {
            std::lock_guard lock(job->mutex);
            job->events.emplace_back(e);
            job->ended = true;
            job->cv.notify_one();
        };
        const std::uint64_t id = engine.submit(std::move(g));
        {
            std::lock_guard lock(reg_mutex);
            Entry& en = registry[id];
            en.info.id = id;
            en.info.endpoint = endpoint;
            en.info.model = ar.model;
            en.info.stream = ar.stream;
            en.info.prompt_tokens = prep.prompt_tokens;
            en.started = Clock::now();
            en.job = job;
        }
        const Protocol proto = ar.protocol;
        auto release = [this, id] {
            {
                std::lock_guard lock(reg_mutex);
                registry.erase(id);
            }
            inflight.fetch_sub(1);
            served.fetch_add(1);
        };

        if (!ar.stream) {
            // Drains the events into the writer; true once the request has ended (body or error ready).
            auto drain = [job, writer](std::optional<Error>& err) {
                for (auto& ev : job->events) {
                    if (auto* t = std::get_if<TokenEvent>(&ev)) writer->token(*t);
                    else if (auto* f = std::get_if<FinishEvent>(&ev)) writer->finish(*f);
                    else err = std::get<Error>(ev);
                }
                job->events.clear();
                return job->ended;
            };
            std::optional<Error> err;
            bool ended;
            {
                std::unique_lock lock(job->mutex);
                job->cv.wait_for(lock, std::chrono::seconds(2), [&] { return job->ended || stopping.load(); });
                ended = drain(err);
            }
            if (ended || stopping.load()) {
                if (!ended) engine.cancel(id);
                release();
                if (err) return send_error(res, proto, from_engine_error(*err));
                if (!ended)
                    return send_error(res, proto, ApiError(503, "api_error", "the server is shutting down").keyed("server_stopping"));
                if (on_done) on_done(*writer);
                res.set_content(writer->body(), "application/json");
                return;
            }
            // Still generating after 2 s: answer 200 now and send a space (JSON allows leading whitespace) every
            // second until the body is ready, so a client that hung up is noticed and its generation cancelled.
            auto finished = std::make_shared<std::atomic<bool>>(false);
            auto released = std::make_shared<std::atomic<bool>>(false);
            res.set_chunked_content_provider(
                "application/json",
                [this, job, writer, proto, finished, drain, on_done](std::size_t, httplib::DataSink& sink) {
                    for (;;) {
                        std::optional<Error> err;
                        bool done;
                        {
                            std::unique_lock lock(job->mutex);
                            job->cv.wait_for(lock, std::chrono::seconds(1), [&] { return job->ended || stopping.load(); });
                            done = drain(err);
                        }
                        if (!done && stopping.load()) return false;
                        if (done && !err && on_done) on_done(*writer);
                        const std::string out = !done ? std::string(" ")
                                                : err ? serve::error_body(proto, from_engine_error(*err))
                                                      : writer->body();
                        if (!sink.write(out.data(), out.size())) return false;
                        if (done) {
                            finished->store(true);
                            sink.done();
                            return true;
                        }
                    }
                },
                [this, id, finished, released, release](bool) {
                    if (!finished->load()) engine.cancel(id);
                    if (!released->exchange(true)) release();
                });
            return;
        }

        res.set_header("Cache-Control", "no-cache");
        res.set_header("X-Accel-Buffering", "no");
        auto finished = std::make_shared<std::atomic<bool>>(false);
        auto released = std::make_shared<std::atomic<bool>>(false);
        auto release_once = [release, released] {
            if (!released->exchange(true)) release();
        };
        res.set_chunked_content_provider(
            "text/event-stream",
            [this, job, writer, id, proto, responses = ar.endpoint == serve::Endpoint::responses,
             finished, on_done](std::size_t, httplib::DataSink& sink) {
                auto send = [&](const std::string& bytes) { return bytes.empty() || sink.write(bytes.data(), bytes.size()); };
                if (!send(writer->start())) return false;
                auto last_write = Clock::now();
                for (;;) {
                    std::deque<Job::Event> batch;
                    {
                        std::unique_lock lock(job->mutex);
                        job->cv.wait_for(lock, std::chrono::milliseconds(500),
                                         [&] { return !job->events.empty() || stopping.load(); });
                        batch.swap(job->events);
                    }
                    if (stopping.load() && batch.empty()) return false;
                    std::string out;
                    bool end = false;
                    for (auto& ev : batch) {
                        if (auto* t = std::get_if<TokenEvent>(&ev)) {
                            out += writer->token(*t);
                        } else if (auto* f = std::get_if<FinishEvent>(&ev)) {
                            out += writer->finish(*f);
                            if (on_done) on_done(*writer);
                            end = true;
                        } else {
                            out += writer->stream_error(from_engine_error(std::get<Error>(ev)));
                            if (proto == Protocol::openai && !responses) out += serve::sse_done();
                            end = true;
                        }
                    }
                    if (out.empty() && Clock::now() - last_write > std::chrono::seconds(2)) {
                        // Keep-alive: tells a waiting client we are alive and tells us when it has gone.
                        out = proto == Protocol::anthropic ? serve::sse_event("ping", "{\"type\":\"ping\"}") : ": ping\n\n";
                    }
                    if (!out.empty()) {
                        if (!send(out)) return false;
                        last_write = Clock::now();
                    }
                    if (end) {
                        finished->store(true);
                        sink.done();
                        return true;
                    }
                }
                (void)id;
            },
            [this, id, finished, release_once](bool) {
                if (!finished->load()) engine.cancel(id);  // the client went away: stop its generation
                release_once();
            });
    }

    std::mutex record_mutex;
    int recorded = 0;

    // --record: the request as it came (see ServerOptions::record_dir). A failure to write is logged, not fatal.
    void record(const httplib::Request& req) {
        json headers = json::object();
        for (const auto& [k, v] : req.headers) {
            std::string lk = k;
            for (char& c : lk) c = char(std::tolower(static_cast<unsigned char>(c)));
            if (lk == "x-api-key" || lk == "authorization") continue;
            if (lk.rfind("anthropic-", 0) == 0 || lk.rfind("openai-", 0) == 0 || lk.rfind("x-", 0) == 0 || lk == "user-agent")
                headers[lk] = v;
        }
        json body = json::parse(req.body, nullptr, false);
        json rec{{"path", req.target.empty() ? req.path : req.target}, {"headers", headers},
                 {"body", body.is_discarded() ? json(req.body) : body}};
        std::lock_guard lock(record_mutex);
        char name[32];
        std::snprintf(name, sizeof name, "%06d.json", ++recorded);
        const std::filesystem::path file = opt.record_dir / name;
        std::ofstream out(file, std::ios::binary);
        out << rec.dump(1, ' ', false, json::error_handler_t::replace) << "\n";
        if (!out) spdlog::warn("--record: cannot write {}", path_to_utf8(file));
    }

    // Parses, admits and runs one generation request of any endpoint.
    void generate(const httplib::Request& req, httplib::Response& res, serve::Endpoint endpoint) {
        if (!opt.record_dir.empty()) record(req);
        const Protocol proto = endpoint == serve::Endpoint::messages || endpoint == serve::Endpoint::count_tokens
                                   ? Protocol::anthropic
                                   : Protocol::openai;
        try {
            serve::ApiRequest ar;
            switch (endpoint) {
            case serve::Endpoint::chat: ar = serve::parse_openai_chat(req.body); break;
            case serve::Endpoint::completion: ar = serve::parse_openai_completion(req.body); break;
            case serve::Endpoint::responses:
                ar = serve::parse_openai_responses(req.body, [this](const std::string& id) -> std::optional<std::string> {
                    auto r = responses.get(id);
                    if (!r) return std::nullopt;
                    return std::move(r->items_json);
                });
                for (const auto& w : ar.warnings) log_line("POST /v1/responses: " + w);
                break;
            case serve::Endpoint::messages: ar = serve::parse_anthropic_messages(req.body); break;
            case serve::Endpoint::count_tokens: ar = serve::parse_anthropic_messages(req.body, true); break;
            }
            if (endpoint == serve::Endpoint::count_tokens) {
                const int n = serve::count_prompt_tokens(ar, model);
                res.set_content(json{{"input_tokens", n}}.dump(), "application/json");
                return;
            }
            if (inflight.fetch_add(1) >= opt.max_queue) {
                inflight.fetch_sub(1);
                rejected.fetch_add(1);
                throw ApiError(429, "rate_limit_error",
                               "the server is busy: " + std::to_string(opt.max_queue) +
                                   " requests are already running or waiting (ft serve --max-queue); retry shortly",
                               {}, "rate_limit_exceeded")
                    .keyed("server_busy", {std::to_string(opt.max_queue)});
            }
            std::string id;
            switch (endpoint) {
            case serve::Endpoint::chat: id = "chatcmpl-" + serve::random_hex(12); break;
            case serve::Endpoint::completion: id = "cmpl-" + serve::random_hex(12); break;
            case serve::Endpoint::responses: id = "resp_" + serve::random_hex(12); break;
            default: id = "msg_" + serve::random_hex(12); break;
            }
            serve::PreparedRequest prep;
            try {
                prep = serve::prepare(ar, model, id, unix_now());
            } catch (...) {
                inflight.fetch_sub(1);
                throw;
            }
            std::function<void(const serve::ResponseWriter&)> on_done;
            if (endpoint == serve::Endpoint::responses && ar.store)
                on_done = [this, id, items = ar.input_items_json](const serve::ResponseWriter& w) {
                    responses.put(id, w.body(), items);
                };
            run(ar, std::move(prep), req.path, res, std::move(on_done));
        } catch (const ApiError& e) {
            send_error(res, proto, e);
        } catch (const Error& e) {
            send_error(res, proto, from_engine_error(e));
        }
    }

    // ---- control ----

    json models_json(bool anthropic) const {
        std::vector<std::string> ids{model.id};
        ids.insert(ids.end(), model.aliases.begin(), model.aliases.end());
        json data = json::array();
        for (const auto& id : ids) {
            if (anthropic)
                data.push_back(json{{"type", "model"}, {"id", id}, {"display_name", id}, {"created_at", "2026-01-01T00:00:00Z"}});
            else
                data.push_back(json{{"id", id}, {"object", "model"}, {"created", 0}, {"owned_by", "freetoken"},
                                    {"context_length", model.n_ctx}});  // an extension, as vLLM's max_model_len
        }
        if (anthropic)
            return json{{"data", data}, {"has_more", false}, {"first_id", ids.front()}, {"last_id", ids.back()}};
        return json{{"object", "list"}, {"data", data}};
    }

    void routes() {
        http.Get("/health", [this](const httplib::Request&, httplib::Response& res) {
            const EngineStats s = engine.stats();
            json j{{"status", s.loaded ? "ok" : "no_model"}, {"model", model.id}, {"state", s.state},
                   {"running", s.running}, {"queued", s.queued}, {"inflight", inflight.load()}};
            res.status = s.loaded ? 200 : 503;
            res.set_content(j.dump(), "application/json");
        });
        http.Get("/v1/models", [this](const httplib::Request& req, httplib::Response& res) {
            res.set_content(models_json(req.has_header("anthropic-version")).dump(), "application/json");
        });
        http.Get(R"(/v1/models/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
            const std::string name = req.matches[1];
            const bool anthropic = req.has_header("anthropic-version");
            if (!model.accepts(name))
                return send_error(res, protocol_of(req),
                                  ApiError(404, anthropic ? "not_found_error" : "invalid_request_error",
                                           "The model '" + name + "' does not exist", "model", "model_not_found"));
            json j = anthropic ? json{{"type", "model"}, {"id", name}, {"display_name", name}, {"created_at", "2026-01-01T00:00:00Z"}}
                               : json{{"id", name}, {"object", "model"}, {"created", 0}, {"owned_by", "freetoken"}};
            res.set_content(j.dump(), "application/json");
        });
        http.Post("/v1/chat/completions", [this](const httplib::Request& q, httplib::Response& r) { generate(q, r, serve::Endpoint::chat); });
        http.Post("/v1/completions", [this](const httplib::Request& q, httplib::Response& r) { generate(q, r, serve::Endpoint::completion); });
        http.Post("/v1/responses", [this](const httplib::Request& q, httplib::Response& r) { generate(q, r, serve::Endpoint::responses); });
        // Stored responses (store: true; bounded, least recently used first out).
        auto no_response = [](const std::string& id) {
            return ApiError(404, "invalid_request_error",
                            "No response with id '" + id +
                                "' found: responses are kept only when sent with store: true, and only the most "
                                "recent ones",
                            "response_id");
        };
        http.Get(R"(/v1/responses/([^/]+))", [this, no_response](const httplib::Request& req, httplib::Response& res) {
            const auto r = responses.get(req.matches[1]);
            if (!r) return send_error(res, Protocol::openai, no_response(req.matches[1]));
            res.set_content(r->response_json, "application/json");
        });
        http.Get(R"(/v1/responses/([^/]+)/input_items)", [this, no_response](const httplib::Request& req, httplib::Response& res) {
            const auto r = responses.get(req.matches[1]);
            if (!r) return send_error(res, Protocol::openai, no_response(req.matches[1]));
            json items = json::parse(r->items_json, nullptr, false);
            json data = json::array();
            for (std::size_t i = 0; i < r->n_input && i < items.size(); ++i) {
                json it = items[i];
                if (!it.contains("id")) it["id"] = std::string(req.matches[1]) + "_in_" + std::to_string(i);
                data.push_back(it);
            }
            // Newest first, as the API lists them by default (order=desc).
            std::reverse(data.begin(), data.end());
            json list{{"object", "list"}, {"data", data}, {"has_more", false},
                      {"first_id", data.empty() ? json() : data.front()["id"]},
                      {"last_id", data.empty() ? json() : data.back()["id"]}};
            res.set_content(list.dump(-1, ' ', false, json::error_handler_t::replace), "application/json");
        });
        http.Delete(R"(/v1/responses/([^/]+))", [this, no_response](const httplib::Request& req, httplib::Response& res) {
            const std::string id = req.matches[1];
            if (!responses.erase(id)) return send_error(res, Protocol::openai, no_response(id));
            res.set_content(json{{"id", id}, {"object", "response"}, {"deleted", true}}.dump(), "application/json");
        });
        http.Post("/v1/messages", [this](const httplib::Request& q, httplib::Response& r) { generate(q, r, serve::Endpoint::messages); });
        http.Post("/v1/messages/count_tokens",
                  [this](const httplib::Request& q, httplib::Response& r) { generate(q, r, serve::Endpoint::count_tokens); });

        http.Get("/v1/stats", [this](const httplib::Request&, httplib::Response& res) {
            json j = serve::stats_to_json(engine.stats());
            j["server"] = json{{"inflight", inflight.load()}, {"max_queue", opt.max_queue}, {"served", served.load()},
                               {"rejected", rejected.load()}, {"url", url()}};
            res.set_content(j.dump(), "application/json");
        });
        http.Get("/v1/cache/status", [this](const httplib::Request&, httplib::Response& res) {
            res.set_content(serve::cache_status_to_json(engine.stats()).dump(), "application/json");
        });
        http.Post("/v1/cache/rebuild", [this](const httplib::Request& req, httplib::Response& res) { rebuild(req, res); });
        http.Get("/v1/requests", [this](const httplib::Request&, httplib::Response& res) {
            json list = json::array();
            for (const auto& r : requests_now())
                list.push_back(json{{"id", r.id}, {"endpoint", r.endpoint}, {"model", r.model}, {"stream", r.stream},
                                    {"prompt_tokens", r.prompt_tokens}, {"generated", r.generated}, {"age_s", r.age_s}});
            res.set_content(json{{"requests", list}}.dump(), "application/json");
        });
        http.Post(R"(/v1/requests/(\d+)/cancel)", [this](const httplib::Request& req, httplib::Response& res) {
            const std::uint64_t id = std::stoull(req.matches[1]);
            bool known = false;
            {
                std::lock_guard lock(reg_mutex);
                known = registry.count(id) > 0;
            }
            if (!known)
                return send_error(res, Protocol::openai,
                                  ApiError(404, "not_found_error", "no request " + std::to_string(id) + " is running (GET /v1/requests lists them)"));
            engine.cancel(id);
            res.set_content(json{{"id", id}, {"cancelled", true}}.dump(), "application/json");
        });
    }

    void rebuild(const httplib::Request& req, httplib::Response& res) {
        json body = json::parse(req.body, nullptr, false);
        if (body.is_discarded() || !body.is_object())
            return send_error(res, Protocol::openai, serve::bad_request("the request body is not a JSON object"));
        CacheRequest cr;
        try {
            if (body.contains("moe_slots")) {
                if (!body["moe_slots"].is_number_integer() || body["moe_slots"].get<long long>() < 0)
                    throw serve::bad_request("'moe_slots' must be an integer >= 0", "moe_slots");
                cr.expert_slots = body["moe_slots"].get<int>();
            }
            if (body.contains("kv_tokens")) {
                if (!body["kv_tokens"].is_number_integer() || body["kv_tokens"].get<long long>() <= 0)
                    throw serve::bad_request("'kv_tokens' must be an integer > 0", "kv_tokens");
                cr.kv_tokens = body["kv_tokens"].get<std::int64_t>();
            }
            if (cr.expert_slots < 0 && cr.kv_tokens < 0)
                throw serve::bad_request("give 'moe_slots' and/or 'kv_tokens'");
        } catch (const ApiError& e) {
            return send_error(res, Protocol::openai, e);
        }
        auto done = std::make_shared<std::promise<RebuildResult>>();
        auto fut = done->get_future();
        engine.rebuild_caches(cr, [done](const RebuildResult& r) { done->set_value(r); });
        if (fut.wait_for(std::chrono::minutes(5)) != std::future_status::ready)
            return send_error(res, Protocol::openai, ApiError(504, "api_error", "the cache rebuild did not finish within 5 minutes"));
        const RebuildResult r = fut.get();
        res.status = r.accepted ? 200 : 409;
        res.set_content(serve::rebuild_result_to_json(r).dump(), "application/json");
    }

    std::vector<RequestInfo> requests_now() const {
        std::vector<RequestInfo> out;
        std::lock_guard lock(reg_mutex);
        const auto now = Clock::now();
        for (const auto& [id, e] : registry) {
            RequestInfo i = e.info;
            i.generated = e.job->generated.load();
            i.age_s = std::chrono::duration<double>(now - e.started).count();
            out.push_back(i);
        }
        return out;
    }

    std::string url() const { return "http://" + (opt.host.find(':') != std::string::npos ? "[" + opt.host + "]" : opt.host) + ":" + std::to_string(bound_port); }

    void configure() {
        const int threads = opt.max_queue + 16;
        http.new_task_queue = [threads] { return new httplib::ThreadPool(std::size_t(threads)); };
        http.set_payload_max_length(opt.max_body);
        http.set_read_timeout(opt.read_timeout_s, 0);
        http.set_write_timeout(opt.write_timeout_s, 0);
        http.set_keep_alive_max_count(1000);
        http.set_keep_alive_timeout(5);
        http.set_tcp_nodelay(true);
        // httplib's default adds SO_REUSEPORT, which lets a second server bind the same port and silently share its
        // connections. Ours: a port in use is an error; SO_REUSEADDR only so a restart is not blocked by TIME_WAIT.
        http.set_socket_options([](socket_t sock) {
            int yes = 1;
#ifdef _WIN32
            setsockopt(sock, SOL_SOCKET, SO_EXCLUSIVEADDRUSE, reinterpret_cast<const char*>(&yes), sizeof(yes));
#else
            setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
#endif
        });
        http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
            if (req.method == "OPTIONS") {
                if (opt.cors_origin.empty()) {
                    res.status = 405;
                    return httplib::Server::HandlerResponse::Handled;
                }
                res.status = 204;
                res.set_header("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS");
                res.set_header("Access-Control-Allow-Headers",
                               "Authorization, Content-Type, x-api-key, anthropic-version, anthropic-beta");
                res.set_header("Access-Control-Max-Age", "600");
                return httplib::Server::HandlerResponse::Handled;
            }
            if (req.path != "/health" && !authorized(req)) {
                send_error(res, protocol_of(req),
                           ApiError(401, "authentication_error",
                                    "missing or wrong API key: send 'Authorization: Bearer KEY' or 'x-api-key: KEY'", {},
                                    "invalid_api_key")
                               .keyed("server_bad_key"));
                return httplib::Server::HandlerResponse::Handled;
            }
            return httplib::Server::HandlerResponse::Unhandled;
        });
        http.set_post_routing_handler([this](const httplib::Request&, httplib::Response& res) {
            if (!opt.cors_origin.empty()) res.set_header("Access-Control-Allow-Origin", opt.cors_origin);
        });
        http.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
            if (!res.body.empty() || res.is_chunked_content_provider_) return;
            std::string msg;
            if (res.status == 404) msg = "no route " + req.method + " " + req.path + " (see the README's API section)";
            else if (res.status == 413) msg = "the request body is larger than the limit (ft serve --max-body)";
            else if (res.status == 405) msg = "method not allowed";
            else msg = "HTTP " + std::to_string(res.status);
            ApiError e = status_error(res.status, msg);
            if (res.status == 413) e.keyed("server_body_too_large");
            res.set_content(serve::error_body(protocol_of(req), e), "application/json");
        });
        http.set_exception_handler([](const httplib::Request& req, httplib::Response& res, std::exception_ptr ep) {
            std::string what = "internal error";
            try {
                if (ep) std::rethrow_exception(ep);
            } catch (const std::exception& e) {
                what = e.what();
            } catch (...) {
            }
            send_error(res, protocol_of(req), ApiError(500, "api_error", what));
        });
        http.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
            log_line(req.method + " " + req.path + " " + std::to_string(res.status));
        });
        routes();
    }
};

ApiServer::ApiServer(Engine& engine, ServerOptions options) : impl_(std::make_unique<Impl>(engine, std::move(options))) {}

ApiServer::~ApiServer() { stop(); }

int ApiServer::start() {
    Impl& m = *impl_;
    if (m.started) return m.bound_port;
    const auto info = m.engine.model_info();
    if (!info) throw Error(ErrorCode::invalid_argument, "the API server needs a loaded model", "load a model first");
    if (m.opt.max_queue < 1) throw Error(ErrorCode::invalid_argument, "--max-queue must be >= 1");
    if (m.opt.port < 0 || m.opt.port > 65535) throw Error(ErrorCode::invalid_argument, "--port must be in [0, 65535]");
    if (!m.opt.record_dir.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(m.opt.record_dir, ec);
        if (ec || !std::filesystem::is_directory(m.opt.record_dir))
            throw Error(ErrorCode::io, "cannot create the recording folder " + path_to_utf8(m.opt.record_dir) + ": " + ec.message(),
                        "give --record a folder you can write to");
    }
    m.tok.emplace(m.engine.tokenizer());
    try {
        m.tpl.emplace(load_chat_template(info->path));
    } catch (const Error& e) {
        spdlog::warn("{}: no chat template ({}): only /v1/completions will work", info->name, e.what());
    }
    m.model.id = m.opt.served_name.empty() ? info->name : m.opt.served_name;
    m.model.aliases = m.opt.aliases;
    m.model.architecture = info->architecture;
    m.model.n_ctx = info->n_ctx;
    m.model.sampling_defaults = info->sampling_defaults;
    m.model.chat_template = m.tpl ? &*m.tpl : nullptr;
    m.model.system_turns_in_place = !m.tpl || serve::template_keeps_system_turns(*m.tpl);
    if (!m.model.system_turns_in_place)
        spdlog::info("{}: the chat template renders only a first system message: later system turns are merged into it",
                     info->name);
    m.model.tokenizer = &*m.tok;
#ifndef _WIN32
    std::signal(SIGPIPE, SIG_IGN);  // a client that hangs up must not kill the server
#endif
    m.configure();
    errno = 0;
    int port = m.opt.port;
    bool ok;
    if (port == 0) {
        port = m.http.bind_to_any_port(m.opt.host);
        ok = port > 0;
    } else {
        ok = m.http.bind_to_port(m.opt.host, port);
    }
    if (!ok) {
        const int err = errno;
        const std::string where = m.opt.host + ":" + std::to_string(m.opt.port);
        if (err == EADDRINUSE)
            throw Error(ErrorCode::io, "cannot listen on " + where + ": port " + std::to_string(m.opt.port) + " is already in use",
                        "stop the program using it (another ft serve or the desktop app's server?) or pick another "
                        "port with --port N (--port 0: any free port)");
        throw Error(ErrorCode::io,
                    "cannot listen on " + where + (err ? std::string(": ") + std::strerror(err) : std::string()),
                    "check --host (an address of this machine, e.g. 127.0.0.1 or 0.0.0.0) and --port");
    }
    m.bound_port = port;
    m.started = true;
    m.thread = std::thread([&m] { m.http.listen_after_bind(); });
    return port;
}

void ApiServer::stop() {
    Impl& m = *impl_;
    if (!m.started) return;
    m.stopping.store(true);
    {
        std::lock_guard lock(m.reg_mutex);
        for (auto& [id, e] : m.registry) {
            m.engine.cancel(id);
            std::lock_guard jl(e.job->mutex);
            e.job->cv.notify_all();
        }
    }
    m.http.stop();
    if (m.thread.joinable()) m.thread.join();
    m.started = false;
}

int ApiServer::port() const { return impl_->bound_port; }
std::string ApiServer::url() const { return impl_->url(); }
std::vector<RequestInfo> ApiServer::requests() const { return impl_->requests_now(); }

}  // namespace ft::server
