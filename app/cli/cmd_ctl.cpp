#include <cstdio>
#include <string>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "ft/error.h"

namespace ft::cli {

const CommandSpec& spec_ctl() {
    static const CommandSpec spec{
        "ctl",
        "health|stats|cache|requests|cancel ID [--url URL] [--api-key KEY]",
        "control a running engine (ft serve or the desktop app)",
        "Talks to a running API server: `health` (exit 0 when it serves), `stats` (the engine's stats as JSON), "
        "`cache` (cache status; with --moe and/or --kv a live rebuild of the expert cache and the KV cache, which "
        "the engine checks against its VRAM budget first and rejects with a reason), `requests` (in flight), "
        "`cancel ID` (stop one).",
        {
            {"url", "URL", "server address", "http://127.0.0.1:1919"},
            {"api-key", "KEY", "the server's --api-key", ""},
            {"moe", "SLOTS", "cache: expert cache slots to rebuild to", ""},
            {"kv", "TOKENS", "cache: KV cache positions to rebuild to", ""},
            {"json", "", "requests/cache/health: print the server's JSON as is", ""},
        },
        "health|stats|cache|requests|cancel ID",
    };
    return spec;
}

namespace {

struct Reply {
    int status = 0;
    nlohmann::ordered_json body;
};

Reply call(const Args& args, const std::string& method, const std::string& path, const std::string& body = {}) {
    const std::string url = args.get_or("url", "http://127.0.0.1:1919");
    if (url.rfind("http://", 0) != 0)
        throw Error(ErrorCode::invalid_argument, "--url must start with http:// (got '" + url + "')");
    httplib::Client cli(url);
    if (!cli.is_valid()) throw Error(ErrorCode::invalid_argument, "--url '" + url + "' is not a valid address");
    cli.set_connection_timeout(5, 0);
    cli.set_read_timeout(310, 0);  // a cache rebuild may take minutes on a big model
    httplib::Headers headers;
    if (const auto key = args.get("api-key")) headers.emplace("Authorization", "Bearer " + *key);
    auto res = method == "GET" ? cli.Get(path.c_str(), headers) : cli.Post(path.c_str(), headers, body, "application/json");
    if (!res)
        throw Error(ErrorCode::io, "cannot reach the server at " + url + ": " + httplib::to_string(res.error()),
                    "start one with `ft serve --model PATH` (or the app's API server), or give its address with --url");
    Reply r;
    r.status = res->status;
    r.body = nlohmann::ordered_json::parse(res->body, nullptr, false);
    if (r.body.is_discarded())
        throw Error(ErrorCode::io, "the server at " + url + " answered " + path + " with something that is not JSON",
                    "is --url the address of an ft server?");
    if (r.status == 401)
        throw Error(ErrorCode::invalid_argument, "the server refused the API key", "give the server's key with --api-key KEY");
    return r;
}

std::string error_text(const nlohmann::ordered_json& body) {
    if (body.contains("error") && body["error"].is_object()) return body["error"].value("message", body.dump());
    return body.dump();
}

void print_json(const nlohmann::ordered_json& j) { std::printf("%s\n", j.dump(2).c_str()); }

double gib(const nlohmann::ordered_json& v) { return v.is_number() ? v.get<double>() / double(1ull << 30) : 0; }

void print_cache(const nlohmann::ordered_json& j) {
    const auto& ec = j["expert_cache"];
    const auto& kv = j["kv"];
    const auto& plan = j["plan"];
    std::printf("model       %s on %s\n", j.value("model", "").c_str(), j.value("device", "").c_str());
    std::printf("backend     %s\n", j.value("backend", "").empty() ? "cpu" : j.value("backend", "").c_str());
    if (ec.value("active", false))
        std::printf("experts     %d of %d slots, hit rate %.1f%%\n", ec.value("slots", 0), ec.value("slots_total", 0),
                    100.0 * ec.value("hit_rate", 0.0));
    else
        std::printf("experts     no VRAM expert cache\n");
    std::printf("kv          %lld of %lld pages used (%lld positions)\n", kv.value("pages_used", 0LL),
                kv.value("pages_total", 0LL), kv.value("tokens", 0LL));
    if (plan.value("gpu", false))
        std::printf("plan        %.2f GiB of %.2f GiB: experts %.2f, kv %.2f, weights %.2f; slots %d..%d, kv %lld..%lld\n",
                    gib(plan["total"]), gib(plan["budget"]), gib(plan["experts"]), gib(plan["kv"]), gib(plan["weights"]),
                    plan.value("min_expert_slots", 0), plan.value("max_expert_slots", 0), plan.value("min_kv_tokens", 0LL),
                    plan.value("max_kv_tokens", 0LL));
}

}  // namespace

int run_ctl(const Args& args) {
    const auto& pos = args.positionals();
    if (pos.empty())
        throw Error(ErrorCode::invalid_argument, "ft ctl needs a command", "one of: health, stats, cache, requests, cancel ID");
    const std::string& cmd = pos[0];
    const bool raw = args.has("json");
    if (cmd == "health") {
        const Reply r = call(args, "GET", "/health");
        if (raw) print_json(r.body);
        else std::printf("%s: model %s, %s, %d running, %d queued\n", r.body.value("status", "?").c_str(),
                         r.body.value("model", "").c_str(), r.body.value("state", "").c_str(), r.body.value("running", 0),
                         r.body.value("queued", 0));
        return r.status == 200 ? 0 : 1;
    }
    if (cmd == "stats") {
        const Reply r = call(args, "GET", "/v1/stats");
        if (r.status != 200) throw Error(ErrorCode::io, "stats failed: " + error_text(r.body));
        print_json(r.body);
        return 0;
    }
    if (cmd == "cache") {
        if (!args.has("moe") && !args.has("kv")) {
            const Reply r = call(args, "GET", "/v1/cache/status");
            if (r.status != 200) throw Error(ErrorCode::io, "cache status failed: " + error_text(r.body));
            if (raw) print_json(r.body);
            else print_cache(r.body);
            return 0;
        }
        nlohmann::ordered_json body = nlohmann::ordered_json::object();
        if (args.has("moe")) {
            const long long n = args.get_int("moe", -1);
            if (n < 0) throw Error(ErrorCode::invalid_argument, "--moe must be >= 0 (expert cache slots)");
            body["moe_slots"] = n;
        }
        if (args.has("kv")) {
            const long long n = args.get_int("kv", -1);
            if (n <= 0) throw Error(ErrorCode::invalid_argument, "--kv must be > 0 (KV cache positions)");
            body["kv_tokens"] = n;
        }
        const Reply r = call(args, "POST", "/v1/cache/rebuild", body.dump());
        if (raw) print_json(r.body);
        if (r.status == 200 && r.body.value("accepted", false)) {
            if (!raw) {
                const auto& p = r.body["plan"];
                std::printf("rebuilt: %d expert slots, %lld KV positions\n", p.value("expert_slots", 0), p.value("kv_tokens", 0LL));
            }
            return 0;
        }
        if (r.status == 409) {
            std::fprintf(stderr, "error: the engine rejected the rebuild: %s (nothing changed)\n",
                         r.body.value("reason", "no reason given").c_str());
            return 1;
        }
        throw Error(ErrorCode::io, "cache rebuild failed: " + error_text(r.body));
    }
    if (cmd == "requests") {
        const Reply r = call(args, "GET", "/v1/requests");
        if (r.status != 200) throw Error(ErrorCode::io, "requests failed: " + error_text(r.body));
        if (raw) {
            print_json(r.body);
            return 0;
        }
        const auto& list = r.body["requests"];
        if (list.empty()) std::printf("no requests in flight\n");
        for (const auto& q : list)
            std::printf("%-6llu %-24s %-6s prompt %5d  generated %5d  %.1f s  %s\n", q.value("id", 0ULL),
                        q.value("endpoint", "").c_str(), q.value("stream", false) ? "stream" : "", q.value("prompt_tokens", 0),
                        q.value("generated", 0), q.value("age_s", 0.0), q.value("model", "").c_str());
        return 0;
    }
    if (cmd == "cancel") {
        if (pos.size() < 2) throw Error(ErrorCode::invalid_argument, "ft ctl cancel needs a request id", "see `ft ctl requests`");
        const std::string& id = pos[1];
        if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
            throw Error(ErrorCode::invalid_argument, "request id must be a number, not '" + id + "'");
        const Reply r = call(args, "POST", "/v1/requests/" + id + "/cancel");
        if (r.status != 200) {
            std::fprintf(stderr, "error: %s\n", error_text(r.body).c_str());
            return 1;
        }
        std::printf("cancelled %s\n", id.c_str());
        return 0;
    }
    throw Error(ErrorCode::invalid_argument, "unknown ft ctl command '" + cmd + "'",
                "one of: health, stats, cache, requests, cancel ID");
}

}  // namespace ft::cli
