// Test helpers on a real ft::Engine: greedy requests run together (tokens per request, a callback while they stream)
// and a synchronous cache rebuild.
#pragma once

#include <atomic>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ft/engine.h"

namespace ft::test {

inline std::atomic<int> streamed_tokens{0};  // tokens streamed by the running batch (all requests)

// Submits n greedy requests (different prompts, ignore_eos, max_tokens each), calls while_running once they are
// queued, waits for all; returns each request's tokens. An engine error throws.
inline std::vector<std::vector<std::int32_t>> run_batch(Engine& e, int n, int max_tokens,
                                                         const std::function<void()>& while_running = {}) {
    struct Req {
        std::vector<std::int32_t> tokens;
        std::promise<void> done;
        std::optional<std::string> error;
    };
    streamed_tokens = 0;
    std::vector<std::unique_ptr<Req>> reqs;
    for (int i = 0; i < n; ++i) {
        auto r = std::make_unique<Req>();
        GenerationRequest g;
        // Prompts past 64 tokens: the GPU offload backends prefill them in one streamed pass, whose rows do not
        // depend on what else is in the batch (shorter ones go through the expert cache in small passes, where the
        // hybrid CPU/GPU split depends on the batch's other tokens and so on the requests' arrival).
        g.prompt_text = "Request " + std::to_string(i) + ": tell me about the number " + std::to_string(17 * i + 3) + ".";
        for (int k = 0; k < 8; ++k) g.prompt_text += " Say what it is, where it comes from, and why it matters to people.";
        g.sampling.temperature = 0;
        g.max_tokens = max_tokens;
        g.ignore_eos = true;
        Req* rp = r.get();
        g.on_token = [rp](const TokenEvent& ev) {
            if (ev.token >= 0) rp->tokens.push_back(ev.token);
            ++streamed_tokens;
        };
        g.on_finish = [rp](const FinishEvent&) { rp->done.set_value(); };
        g.on_error = [rp](const Error& err) {
            rp->error = err.what();
            rp->done.set_value();
        };
        e.submit(std::move(g));
        reqs.push_back(std::move(r));
    }
    if (while_running) while_running();
    std::vector<std::vector<std::int32_t>> out;
    for (auto& r : reqs) {
        r->done.get_future().wait();
        if (r->error) throw std::runtime_error(*r->error);
        out.push_back(r->tokens);
    }
    return out;
}

inline RebuildResult rebuild(Engine& e, CacheRequest req) {
    std::promise<RebuildResult> p;
    auto f = p.get_future();
    e.rebuild_caches(req, [&p](const RebuildResult& r) { p.set_value(r); });
    return f.get();
}

}  // namespace ft::test
