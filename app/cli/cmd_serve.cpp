#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <thread>

#include <spdlog/fmt/fmt.h>

#include "api_server.h"
#include "commands.h"
#include "engine_options.h"
#include "ft/engine.h"
#include "ft/error.h"

namespace ft::cli {

const CommandSpec& spec_serve() {
    static const CommandSpec spec{
        "serve",
        "[--model PATH] [--host ADDR] [--port N] [--api-key KEY]",
        "serve the OpenAI- and Anthropic-compatible HTTP API",
        "Loads the model and serves /v1/chat/completions, /v1/completions, /v1/responses (kept for previous_response_id "
        "unless store: false), /v1/models (OpenAI) and /v1/messages, "
        "/v1/messages/count_tokens (Anthropic) with SSE streaming, tool calls and reasoning split, plus /health and "
        "the control endpoints `ft ctl` uses. Prints 'listening on URL' once it accepts requests; Ctrl-C stops it.",
        concat(load_option_specs(true),
               {
                   {"host", "ADDR", "address to bind (anything but loopback exposes the API to the network)", "127.0.0.1"},
                   {"port", "N", "TCP port (0: any free port)", "1919"},
                   {"api-key", "KEY", "require this key (Authorization: Bearer KEY or x-api-key: KEY)", "none"},
                   {"name", "NAME", "the model id clients use", "the model's name"},
                   {"alias", "NAME", "another model name to accept (repeatable), e.g. the one an agent sends", "", true},
                   {"max-queue", "N", "requests generating or waiting at once; more are answered 429", "64"},
                   {"max-body", "BYTES", "largest request body", "32M"},
                   {"read-timeout", "S", "seconds a client may take to send its request", "30"},
                   {"cors", "ORIGIN", "send CORS headers allowing this origin ('*' for any)", "off"},
                   {"record", "DIR", "write every generation request (path, protocol headers, body; never the API key) "
                    "to DIR as it arrives, for `ft bench serve --replay DIR`", "off"},
               }),
        "",
    };
    return spec;
}

namespace {
std::atomic<bool> g_stop{false};
extern "C" void on_stop_signal(int) { g_stop.store(true); }

bool is_loopback(const std::string& host) {
    return host == "127.0.0.1" || host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}
}  // namespace

int run_serve(const Args& args) {
    const LoadOptions lo = load_options_from(args, true);
    server::ServerOptions so;
    so.host = args.get_or("host", so.host);
    so.port = int(args.get_int("port", so.port));
    if (so.port < 0 || so.port > 65535) throw Error(ErrorCode::invalid_argument, "--port must be in [0, 65535]");
    so.api_key = args.get_or("api-key", "");
    so.served_name = args.get_or("name", "");
    so.aliases = args.get_all("alias");
    so.max_queue = int(args.get_int("max-queue", so.max_queue));
    if (so.max_queue < 1 || so.max_queue > 4096) throw Error(ErrorCode::invalid_argument, "--max-queue must be in [1, 4096]");
    so.max_body = std::size_t(args.get_bytes("max-body", so.max_body));
    if (so.max_body < 1024) throw Error(ErrorCode::invalid_argument, "--max-body must be at least 1K");
    so.read_timeout_s = int(args.get_int("read-timeout", so.read_timeout_s));
    if (so.read_timeout_s < 1) throw Error(ErrorCode::invalid_argument, "--read-timeout must be >= 1 second");
    so.cors_origin = args.get_or("cors", "");
    so.record_dir = args.get_path("record").value_or(std::filesystem::path());
    so.log = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };

    if (!is_loopback(so.host))
        std::fprintf(stderr,
                     "warning: --host %s makes the API reachable from other machines%s\n", so.host.c_str(),
                     so.api_key.empty() ? " with no API key: anyone who can reach this port can use the model (add --api-key KEY)" : "");

    Engine engine;
    const ModelInfo info = engine.load_sync(lo);
    server::ApiServer srv(engine, so);
    srv.start();
    std::signal(SIGINT, on_stop_signal);
    std::signal(SIGTERM, on_stop_signal);
    std::string ctx = "context " + std::to_string(info.n_ctx);
    for (const auto& note : engine.stats().plan.notes)
        if (note.rfind(ctx + " (", 0) == 0) ctx = note;  // the automatic choice and why
    std::fprintf(stderr, "%s (%s) on %s, %s, %d requests at once\n", info.name.c_str(), info.architecture.c_str(),
                 info.device.c_str(), ctx.c_str(), info.max_sequences);
    const SamplingDefaults& sd = info.sampling_defaults;
    if (sd.temperature || sd.top_p || sd.top_k) {  // what a request that leaves them out gets
        std::string s;
        if (sd.temperature) s += " temperature " + fmt::format("{:g}", *sd.temperature);
        if (sd.top_p) s += " top_p " + fmt::format("{:g}", *sd.top_p);
        if (sd.top_k) s += " top_k " + std::to_string(*sd.top_k);
        std::fprintf(stderr, "the model's recommended sampling, for requests that leave it out:%s\n", s.c_str());
    }
    std::printf("listening on %s (model '%s')\n", srv.url().c_str(), so.served_name.empty() ? info.name.c_str() : so.served_name.c_str());
    std::fflush(stdout);
    while (!g_stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::fprintf(stderr, "stopping\n");
    srv.stop();
    return 0;
}

}  // namespace ft::cli
