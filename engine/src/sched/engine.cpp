// The engine thread: a command queue, the loaded model, and the scheduler that batches prefill chunks and decode
// steps of up to max_sequences requests.
#include "ft/engine.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <limits>
#include <mutex>
#include <thread>

#include "ft/tokenizer.h"
#include "kv/kv_cache.h"
#include "memory/planner.h"
#include "exec/runner.h"
#include "sched/engine_stats.h"
#include "sched/kv_resize.h"
#include "sched/model_loader.h"
#include "sched/sampler.h"
#include "sched/stop_matcher.h"
#include "ft/utf8.h"

namespace ft {

std::string_view finish_reason_name(FinishReason r) {
    switch (r) {
        case FinishReason::stop: return "stop";
        case FinishReason::length: return "length";
        case FinishReason::cancelled: return "cancelled";
    }
    return "stop";
}

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

using sched::LoadedModel;
using sched::StateCheckpoint;

struct Sequence {
    std::uint64_t id = 0;
    GenerationRequest req;
    int kv_seq = -1;
    std::vector<std::int32_t> tokens;  // prompt + generated
    std::size_t n_prompt = 0;
    std::size_t n_done = 0;             // positions already in the KV cache
    std::size_t n_cached = 0;           // prompt positions taken from the prefix cache (not computed)
    std::size_t checkpoint_at = 0;      // hybrid models: the prompt position whose recurrent state is kept (0: none)
    std::int64_t kv_need = 0;           // KV positions it may grow to (prompt + max tokens, at most the context)
    int paused = 0;                     // times it gave its KV pages back for others (Engine::Impl::pause)
    bool prepared = false;              // validated and tokenized (it may wait in the queue for KV room)
    bool cancelled = false;
    std::unique_ptr<Sampler> sampler;
    std::unique_ptr<StreamDecoder> decoder;
    StopMatcher stops;
    Clock::time_point submitted, prefill_start, first_token;
    double prefill_ms = 0;
    int generated = 0;

    // Positions to compute before it decodes: its prompt; after a pause, everything but its last token (that token's
    // logits come from the next decode step, as they would have without the pause).
    std::size_t fill() const { return tokens.size() > n_prompt ? tokens.size() - 1 : n_prompt; }
};

}  // namespace

struct Engine::Impl {
    std::thread thread;
    mutable std::mutex mutex;           // guards commands, stop, stats_, info_
    std::condition_variable cv;
    std::deque<std::function<void()>> commands;
    bool stop = false;
    std::uint64_t next_id = 1;

    // Engine-thread state.
    std::unique_ptr<LoadedModel> model;
    std::deque<std::shared_ptr<Sequence>> queued;
    std::vector<std::shared_ptr<Sequence>> running;
    std::vector<float> logits;

    // Snapshots for other threads.
    EngineStats stats_;
    std::optional<ModelInfo> info_;
    std::optional<Tokenizer> tokenizer_;
    double decode_rate = 0;  // EWMA tokens/s
    Clock::time_point backend_published{}, loaded_at{};
    // The last publish with nothing running (stats() zeroes the last-second rates once a second has passed since:
    // an idle engine publishes nothing). Guarded by `mutex`, like stats_.
    Clock::time_point idle_since{}, published_loaded_at{};
    // The CPU engine's expert bytes read, sampled at each publish, for its read rate over the last second.
    std::deque<std::pair<Clock::time_point, std::uint64_t>> cpu_bytes_samples;
    std::atomic<bool> cancel_load{false};
    // Loads are numbered when queued; cancel_load() cancels every load queued so far (one still waiting included).
    std::atomic<std::uint64_t> loads_queued{0}, loads_cancelled{0};
    std::atomic<bool> loading{false};
    sched::StatsTracker tracker;  // rates and recent windows from the backend's counters
    std::uint64_t decode_tokens = 0;
    std::uint64_t prefill_tokens = 0, prefix_hit_tokens = 0;  // prompt positions computed / reused
    std::uint64_t requests_paused = 0;  // pauses of running requests for KV pages (a request may pause again)
    std::uint64_t checkpoint_clock = 0;                         // recency of the hybrid models' prefix checkpoints

    void post(std::function<void()> fn) {
        {
            std::lock_guard lock(mutex);
            commands.push_back(std::move(fn));
        }
        cv.notify_one();
    }

    void loop() {
        for (;;) {
            std::function<void()> cmd;
            {
                std::unique_lock lock(mutex);
                cv.wait(lock, [&] { return stop || !commands.empty() || !queued.empty() || !running.empty(); });
                if (stop && commands.empty()) break;
                if (!commands.empty()) {
                    cmd = std::move(commands.front());
                    commands.pop_front();
                }
            }
            // Nothing may escape the engine thread: a bug in a step fails the requests in flight, not the process.
            try {
                if (cmd) cmd();
                else step();
            } catch (const std::exception& e) {
                const Error err = dynamic_cast<const Error*>(&e) ? *dynamic_cast<const Error*>(&e)
                                                                 : Error(ErrorCode::internal, e.what());
                spdlog::error("engine: {}", err.what());
                for (auto& s : running) fail(*s, err);
                running.clear();
            }
        }
        abort_all(FinishReason::cancelled);
        model.reset();
    }

    // ---- loading ----

    void do_load(std::uint64_t seq, const LoadOptions& o, const std::function<void(const LoadProgress&)>& progress,
                 const std::function<void(const std::optional<Error>&)>& done) {
        abort_all(FinishReason::cancelled);
        model.reset();
        cancel_load = loads_cancelled.load() >= seq;
        loading = true;
        {
            // The per-model figures start again with the new model (a load replaces the one before).
            std::lock_guard lock(mutex);
            stats_.requests_total = stats_.prompt_tokens_total = stats_.generated_tokens_total = 0;
            stats_.last_ttft_ms = stats_.prefill_tok_s = 0;
        }
        publish();
        try {
            sched::LoadHooks hooks;
            std::uint64_t bytes_total = 0;  // the "ready" report carries the load's byte count (a fast load may show only it)
            if (progress)
                hooks.progress = [&](const LoadProgress& p) {
                    bytes_total = std::max(bytes_total, p.bytes_total);
                    progress(p);
                };
            hooks.cancel = &cancel_load;
            model = sched::load_model(o, hooks);
            loading = false;
            loaded_at = Clock::now();
            tracker = sched::StatsTracker();
            const ModelInfo& info = model->info;
            spdlog::info("loaded {} ({}, {} layers, {} experts top-{}) on {} in {:.2f} s", info.name, info.architecture,
                         info.n_layer, info.n_expert, info.n_expert_used, info.device, info.load_seconds);
            publish(true);
            if (progress) progress({1.f, "ready", bytes_total, bytes_total});
            if (done) done(std::nullopt);
        } catch (const Error& e) {
            model.reset();
            loading = false;
            publish();
            if (e.code() == ErrorCode::cancelled) spdlog::info("load cancelled: {}", path_to_utf8(o.model));
            else spdlog::error("load failed: {}", e.what());
            if (done) done(e);
        } catch (const std::exception& e) {
            model.reset();
            loading = false;
            publish();
            const Error err(ErrorCode::internal, std::string("load failed: ") + e.what());
            spdlog::error("{}", err.what());
            if (done) done(err);
        }
    }

    // ---- live rebuild ----

    RebuildResult do_rebuild(const CacheRequest& req) {
        RebuildResult r;
        if (!model) {
            r.reason = "no model is loaded";
            r.reason_key = Message{"no_model", {}};
            return r;
        }
        r.plan = model->plan;
        // Positions the running requests may grow to: a smaller KV cache could not keep them.
        const std::int64_t held = kv_reserved();
        const memory::RebuildCheck c = memory::check_rebuild(model->geometry, model->plan, req, held);
        if (!c.ok) {
            r.reason = c.reason;
            r.reason_key = c.reason_key;
            spdlog::info("cache rebuild rejected: {}", c.reason);
            return r;
        }
        const MemoryPlan old = model->plan;
        try {
            if (c.plan.expert_slots != old.expert_slots) model->runner->resize_expert_cache(c.plan.expert_slots);
            if (c.plan.kv_tokens != old.kv_tokens) {
                // Cached prefixes nobody uses are dropped, not copied; running sequences keep theirs (each its own
                // copy after the resize).
                model->kv->clear_prefixes();
                model->checkpoints.clear();  // their pages are gone
                sched::resize_kv(*model->runner, model->kv, sched::kv_pages(c.plan));
            }
            model->runner->invalidate_graphs();
        } catch (const Error& e) {
            // The runner restored its expert cache; resize_kv leaves the old cache in place on failure.
            r.reason = std::string("the rebuild failed and was rolled back: ") + e.what();
            r.reason_key = Message{"rebuild_failed", {e.what()}};
            spdlog::error("cache rebuild: {}", r.reason);
            return r;
        }
        model->plan = c.plan;
        r.accepted = true;
        r.plan = c.plan;
        spdlog::info("cache rebuild: KV {} → {} tokens, expert slots {} → {}", old.kv_tokens, c.plan.kv_tokens,
                     old.expert_slots, c.plan.expert_slots);
        publish(true);
        return r;
    }

    // ---- requests ----

    // Both end a request: its KV pages are released and the stats snapshot updated before the client hears of it.
    void fail(Sequence& s, const Error& e) {
        if (s.kv_seq >= 0 && model) model->kv->release(s.kv_seq);
        s.kv_seq = -1;
        publish();
        if (s.req.on_error) s.req.on_error(e);
    }

    // matched_stop: a stop string ended the request (what was held back for it is dropped); otherwise any text the
    // stop matcher held back is still owed to the client.
    void finish(Sequence& s, FinishReason reason, std::string stop_text = {}, bool matched_stop = false) {
        if (s.decoder && !matched_stop) {
            // Flush what the stop matcher held back (nothing can match any more) and any partial character.
            std::string tail = s.stops.flush(s.decoder->finish());
            if (!tail.empty() && s.req.on_token) s.req.on_token({s.id, -1, std::move(tail), 0.f, {}});
        }
        FinishEvent ev;
        ev.request = s.id;
        ev.reason = reason;
        ev.stop_text = std::move(stop_text);
        ev.prompt_tokens = int(s.n_prompt);
        ev.completion_tokens = s.generated;
        ev.cached_tokens = int(s.n_cached);
        ev.ttft_ms = s.generated > 0 ? std::chrono::duration<double, std::milli>(s.first_token - s.submitted).count() : 0;
        ev.prefill_tok_s = s.prefill_ms > 0 ? double(s.n_prompt - s.n_cached) / (s.prefill_ms / 1000.0) : 0;  // computed
        if (s.generated > 1) {
            const double dec_ms = std::chrono::duration<double, std::milli>(Clock::now() - s.first_token).count();
            ev.decode_tok_s = dec_ms > 0 ? (s.generated - 1) / (dec_ms / 1000.0) : 0;
        }
        if (s.kv_seq >= 0 && model) {
            // Its whole pages stay cached for a next request with the same start (an agent's next turn).
            if (model->options.prefix_cache) model->kv->cache_and_release(s.kv_seq, s.tokens, std::int64_t(s.n_done));
            else model->kv->release(s.kv_seq);
        }
        s.kv_seq = -1;
        {
            std::lock_guard lock(mutex);
            stats_.generated_tokens_total += std::uint64_t(s.generated);
            if (ev.ttft_ms > 0) stats_.last_ttft_ms = ev.ttft_ms;
            if (ev.prefill_tok_s > 0) stats_.prefill_tok_s = ev.prefill_tok_s;
        }
        publish(true);  // a caller reading stats() after on_finish sees this request's work
        if (s.req.on_finish) s.req.on_finish(ev);
    }

    void abort_all(FinishReason reason) {
        for (auto& s : running) finish(*s, reason);
        running.clear();
        for (auto& s : queued) finish(*s, reason);
        queued.clear();
    }

    // KV positions the running requests may grow to: a request is admitted only when its own need fits beside
    // them, so a running request never finds the KV cache full (it waits in the queue instead).
    std::int64_t kv_reserved() const {
        std::int64_t n = 0;
        for (const auto& r : running)
            if (r->kv_seq >= 0) n += r->kv_need;
        return n;
    }

    enum class Admit { yes, no, wait };

    // Validates and prepares a queued request: yes (running now), no (failed, after on_error), or wait (no KV room
    // yet beside the running requests).
    Admit admit(Sequence& s) {
        try {
            if (!model) throw Error(ErrorCode::invalid_argument, "no model is loaded", "load a model first").keyed("no_model", {});
            if (s.prepared) return admit_kv(s);
            validate_sampling(s.req.sampling);
            if (s.req.max_tokens < 0) throw Error(ErrorCode::invalid_argument, "max_tokens must be >= 0");
            if (s.req.prompt.empty()) {
                if (!model->tokenizer) throw Error(ErrorCode::invalid_argument, "this model has no tokenizer: give the prompt as token ids");
                EncodeOptions eo;
                eo.add_special = true;
                eo.parse_special = s.req.parse_special;
                s.req.prompt = model->tokenizer->encode(s.req.prompt_text, eo);
            }
            if (s.req.prompt.empty()) throw Error(ErrorCode::invalid_argument, "the prompt is empty");
            const std::int32_t n_vocab = std::int32_t(model->info.n_vocab);
            for (std::int32_t t : s.req.prompt)
                if (t < 0 || t >= n_vocab)
                    throw Error(ErrorCode::invalid_argument, "prompt token id " + std::to_string(t) + " is outside the vocabulary [0, " +
                                                                 std::to_string(n_vocab) + ")");
            if (std::int64_t(s.req.prompt.size()) >= model->options.n_ctx) {
                throw Error(ErrorCode::invalid_argument,
                            "the prompt has " + std::to_string(s.req.prompt.size()) + " tokens; the context holds " +
                                std::to_string(model->options.n_ctx),
                            "shorten the prompt or load the model with a larger context")
                    .keyed("prompt_too_long", {std::to_string(s.req.prompt.size()), std::to_string(model->options.n_ctx)});
            }
            s.tokens = s.req.prompt;
            s.n_prompt = s.tokens.size();
            s.sampler = std::make_unique<Sampler>(s.req.sampling);
            if (model->tokenizer) s.decoder = std::make_unique<StreamDecoder>(*model->tokenizer, false);
            s.stops = StopMatcher(s.req.stop);
            {
                const std::int64_t page = model->kv->geometry().page_size;
                const std::int64_t need = std::min<std::int64_t>(model->options.n_ctx, std::int64_t(s.n_prompt) + std::max(1, s.req.max_tokens));
                s.kv_need = (need + page - 1) / page * page;  // whole pages
            }
            s.prepared = true;
            {
                std::lock_guard lock(mutex);
                stats_.prompt_tokens_total += s.n_prompt;
                stats_.requests_total += 1;
            }
            return admit_kv(s);
        } catch (const Error& e) {
            fail(s, e);
            return Admit::no;
        }
    }

    // Models without recurrent state are admitted on the pages their prompt needs now, not on what they may grow to
    // (an agent's max_tokens of 32,000 would otherwise hold the whole context for each request): when the pool runs
    // short mid-generation the youngest request pauses (pause()) and goes on later. A recurrent state cannot be
    // paused this way (it is not in the pages), so those models keep the reservation of prompt + max tokens.
    Admit admit_kv(Sequence& s) {
        const std::int64_t page = model->kv->geometry().page_size;
        const std::int64_t pool = model->kv->pages_total() * page;
        const bool reserve_all = model->kv->has_state();
        if (reserve_all && !running.empty() && kv_reserved() + s.kv_need > pool) return Admit::wait;
        const int seq = model->kv->create();
        std::int64_t cached = 0;
        if (model->options.prefix_cache && !reserve_all)
            // Cached pages of its start (a prompt's last token is always computed: its logits are needed).
            cached = model->kv->share_prefix(seq, s.tokens, std::int64_t(s.fill()) - (s.fill() == s.n_prompt ? 1 : 0));
        if (!reserve_all && !running.empty()) {
            // The pages it needs now beyond the shared ones, and a page to grow by for each running request and
            // itself: without that headroom it would pause another (or be paused) at once.
            // Room: free and reclaimable pages, less what the running requests still need for their own prompts (a
            // prompt reserves its pages chunk by chunk as it is computed).
            const std::int64_t need = (std::int64_t(s.fill()) + 1 + page - 1) / page - cached / page + std::int64_t(running.size()) + 1;
            std::int64_t room = model->kv->pages_total() - model->kv->pages_used() + model->kv->pages_cached_idle();
            for (const auto& r : running)
                if (r->kv_seq >= 0)
                    room -= std::max<std::int64_t>(0, (std::int64_t(r->fill()) + page - 1) / page - model->kv->capacity(r->kv_seq) / page);
            if (need > room) {
                model->kv->release(seq);
                return Admit::wait;
            }
        }
        s.kv_seq = seq;
        if (s.paused == 0) s.prefill_start = Clock::now();
        if (model->options.prefix_cache && reserve_all) {
            admit_from_checkpoint(s);
        } else {
            s.n_done = std::size_t(cached);
            if (s.paused == 0) {
                s.n_cached = std::size_t(cached);
                prefix_hit_tokens += s.n_cached;
            }
        }
        return Admit::yes;
    }

    // Gives s's KV pages back (its whole pages stay in the prefix cache, so it may find them again) and puts it first
    // in the queue: it goes on with its positions computed again, where the cache no longer has them. Its client
    // sees a pause, nothing else: the next token comes from the same state.
    void pause(std::shared_ptr<Sequence> sp) {
        Sequence& s = *sp;
        spdlog::info("request {} paused after {} tokens: the KV cache is full with {} requests running; it goes on "
                     "when one ends",
                     s.id, s.generated, running.size());
        if (model->options.prefix_cache) model->kv->cache_and_release(s.kv_seq, s.tokens, std::int64_t(s.n_done));
        else model->kv->release(s.kv_seq);
        s.kv_seq = -1;
        s.n_done = 0;
        s.paused += 1;
        requests_paused += 1;
        running.erase(std::find(running.begin(), running.end(), sp));
        queued.push_front(std::move(sp));
    }

    // Makes room for every position of the batch; when the pool is short, pauses the youngest request and returns
    // false (the batch is built again without it). With one request left, the pool is too small for it: an error.
    bool reserve(const std::vector<exec::BatchToken>& batch) {
        try {
            for (const auto& b : batch) model->kv->reserve(b.seq, b.pos + 1);
            return true;
        } catch (const Error& e) {
            if (e.code() != ErrorCode::out_of_memory || running.size() < 2 || model->kv->has_state()) throw;
            pause(running.back());
            return false;
        }
    }

    // A hybrid model's prompt goes on from the longest kept checkpoint it starts with (its pages shared, its
    // recurrent state copied in), and keeps one of its own at its last whole page (the prefill stops there once).
    void admit_from_checkpoint(Sequence& s) {
        auto& cps = model->checkpoints;
        const std::size_t page = std::size_t(model->kv->geometry().page_size);
        StateCheckpoint* best = nullptr;
        for (auto& c : cps)
            if (c.tokens.size() < s.n_prompt && (!best || c.tokens.size() > best->tokens.size()) &&
                std::equal(c.tokens.begin(), c.tokens.end(), s.tokens.begin()))
                best = &c;
        if (best) {
            const std::int64_t want = std::int64_t(best->tokens.size());
            if (model->kv->share_prefix(s.kv_seq, s.tokens, want) == want) {
                sched::restore_state(*model->runner, *model->kv, s.kv_seq, best->state);
                best->last_used = ++checkpoint_clock;
                s.n_cached = s.n_done = std::size_t(want);
                prefix_hit_tokens += s.n_cached;
            } else {
                model->kv->truncate(s.kv_seq, 0);  // its pages were evicted: start afresh
            }
        }
        const std::size_t at = (s.n_prompt - 1) / page * page;
        s.checkpoint_at = at > s.n_done ? at : 0;
    }

    // Keeps seq's state at its checkpoint position (its pages cached), dropping the least recently used beyond
    // kMaxCheckpoints.
    void keep_checkpoint(Sequence& s) {
        auto& cps = model->checkpoints;
        const std::vector<std::int32_t> prefix(s.tokens.begin(), s.tokens.begin() + std::ptrdiff_t(s.checkpoint_at));
        s.checkpoint_at = 0;
        for (const auto& c : cps)
            if (c.tokens == prefix) return;
        model->kv->cache_prefix(s.kv_seq, s.tokens, std::int64_t(prefix.size()));
        if (cps.size() >= sched::kMaxCheckpoints)
            cps.erase(std::min_element(cps.begin(), cps.end(), [](const auto& a, const auto& b) { return a.last_used < b.last_used; }));
        cps.push_back({prefix, sched::save_state(*model->runner, *model->kv, s.kv_seq), ++checkpoint_clock});
    }

    // One scheduler step: admit, build a batch (decode tokens first, then one prefill chunk), forward, sample.
    void step() {
        while (!queued.empty() && (!model || int(running.size()) < model->options.max_sequences)) {
            auto s = std::move(queued.front());
            queued.pop_front();
            if (s->cancelled) {
                finish(*s, FinishReason::cancelled);
                continue;
            }
            const Admit a = admit(*s);
            if (a == Admit::yes) {
                running.push_back(std::move(s));
            } else if (a == Admit::wait) {
                queued.push_front(std::move(s));  // first in line when KV room frees up
                break;
            }
        }
        // Cancelled and finished-by-length requests leave before the batch is built.
        for (auto it = running.begin(); it != running.end();) {
            if ((*it)->cancelled) {
                finish(**it, FinishReason::cancelled);
                it = running.erase(it);
            } else {
                ++it;
            }
        }
        publish();
        if (running.empty() || !model) return;

        std::vector<exec::BatchToken> batch;
        std::vector<Sequence*> wants;  // sequences that get logits, in batch order
        std::int64_t budget = model->options.prefill_chunk;
        for (auto& sp : running) {
            Sequence& s = *sp;
            if (s.n_done + 1 == s.tokens.size() && s.n_done >= s.n_prompt) {  // decoding: one token
                batch.push_back({s.tokens.back(), std::int32_t(s.n_done), s.kv_seq, true});
                wants.push_back(&s);
            }
        }
        const std::size_t n_decode = batch.size();
        for (auto& sp : running) {
            Sequence& s = *sp;
            const std::size_t fill = s.fill();
            if (s.n_done >= fill || budget <= 0) continue;
            // A short remainder in small passes through the expert cache (with the decode tokens of this step).
            if (const int slice = model->runner->prefill_slice(std::int64_t(fill - s.n_done));
                slice > 0 && std::int64_t(batch.size()) < slice)
                budget = std::min<std::int64_t>(budget, slice - std::int64_t(batch.size()));
            std::size_t n = std::min<std::size_t>(std::size_t(budget), fill - s.n_done);
            if (s.checkpoint_at > s.n_done) n = std::min(n, s.checkpoint_at - s.n_done);  // stop where the state is kept
            for (std::size_t i = 0; i < n; ++i) {
                const bool last = fill == s.n_prompt && s.n_done + i + 1 == s.n_prompt;  // a prompt's last token
                batch.push_back({s.tokens[s.n_done + i], std::int32_t(s.n_done + i), s.kv_seq, last});
                if (last) wants.push_back(&s);
            }
            budget -= std::int64_t(n);
        }
        if (batch.empty()) return;
        try {
            if (!reserve(batch)) return;
            for (const auto& b : batch)
                if (model->kv->shared(b.seq, b.pos))
                    throw Error(ErrorCode::internal, "KV cache: a step would write a shared page (position " + std::to_string(b.pos) + ")");
            logits.resize(wants.size() * model->info.n_vocab);
            const auto t0 = Clock::now();
            model->runner->forward(batch, *model->kv, logits.data());
            const double ms = ms_since(t0);
            // Advance positions.
            for (auto& sp : running) {
                Sequence& s = *sp;
                std::size_t n = 0;
                for (const auto& b : batch) n += b.seq == s.kv_seq;
                const bool prompt_done = s.generated == 0 && s.n_done < s.n_prompt && s.n_done + n >= s.n_prompt;
                if (prompt_done) s.prefill_ms = ms_since(s.prefill_start);
                s.n_done += n;
                if (s.checkpoint_at && s.n_done == s.checkpoint_at) keep_checkpoint(s);
                // The prompt's pages are shared at once with requests admitted while this one still runs.
                if (prompt_done && model->options.prefix_cache)
                    model->kv->cache_prefix(s.kv_seq, s.tokens, std::int64_t(s.n_done));
            }
            decode_tokens += n_decode;
            prefill_tokens += batch.size() - n_decode;
            if (n_decode > 0 && ms > 0) {
                const double rate = double(n_decode) / (ms / 1000);
                decode_rate = decode_rate == 0 ? rate : 0.8 * decode_rate + 0.2 * rate;
            }
        } catch (const Error& e) {
            for (auto& sp : running) fail(*sp, e);
            running.clear();
            return;
        }
        const std::int64_t n_vocab = model->info.n_vocab;
        for (std::size_t i = 0; i < wants.size(); ++i) emit(*wants[i], std::span<float>(logits.data() + i * n_vocab, n_vocab));
        for (auto it = running.begin(); it != running.end();) {
            if ((*it)->kv_seq < 0) it = running.erase(it);  // finished inside emit()
            else ++it;
        }
        publish();
    }

    // Samples the next token of s from its logits and streams it; finishes s when it ends.
    void emit(Sequence& s, std::span<float> row) {
        if (s.req.max_tokens == 0) {
            finish(s, FinishReason::length);
            return;
        }
        // Padding rows of the embedding (a vocabulary padded past the tokenizer's size, as Qwen's is) are not tokens.
        if (model->tokenizer && std::int64_t(model->tokenizer->vocab_size()) < std::int64_t(row.size()))
            std::fill(row.begin() + model->tokenizer->vocab_size(), row.end(), -std::numeric_limits<float>::infinity());
        const SampledToken st = s.sampler->sample(row, s.tokens);
        if (s.generated == 0) s.first_token = Clock::now();
        s.generated += 1;
        const bool eog = std::find(model->eog.begin(), model->eog.end(), st.token) != model->eog.end();
        if (eog && !s.req.ignore_eos) {
            finish(s, FinishReason::stop, model->tokenizer ? std::string(model->tokenizer->token_text(st.token)) : std::string());
            return;
        }
        s.tokens.push_back(st.token);
        TokenEvent ev{s.id, st.token, {}, st.logprob, st.top};
        bool stopped = false;
        std::string stop_text;
        if (s.decoder) {
            auto r = s.stops.push(s.decoder->push(st.token));
            ev.text = std::move(r.text);
            stopped = r.stopped;
            stop_text = std::move(r.stop);
        }
        if (s.req.on_token) s.req.on_token(ev);
        if (stopped) {
            finish(s, FinishReason::stop, stop_text, true);
        } else if (s.generated >= s.req.max_tokens) {
            finish(s, FinishReason::length);
        } else if (std::int64_t(s.tokens.size()) >= model->options.n_ctx) {
            finish(s, FinishReason::length);
        }
    }

    // force_backend: refresh the backend counters now (else at most every 100 ms while requests run). The counters
    // are read here on the engine thread, outside the lock: stats() only ever copies the snapshot.
    void publish(bool force_backend = false) {
        std::optional<exec::RunnerCounters> counters;
        if (model && (force_backend || running.empty() || ms_since(backend_published) > 100)) {
            counters = model->runner->counters();
            backend_published = Clock::now();
        }
        std::lock_guard lock(mutex);
        stats_.loaded = model != nullptr;
        stats_.state = loading ? "loading" : !model ? "idle" : running.empty() ? "ready" : "running";
        stats_.model = model ? model->info.name : std::string();
        stats_.device = model ? model->info.device : std::string();
        stats_.device_key = model ? model->info.device_key : Message{};
        stats_.running = int(std::count_if(running.begin(), running.end(), [](const auto& r) { return r->kv_seq >= 0; }));
        stats_.queued = int(queued.size());
        stats_.decode_tok_s = running.empty() ? 0 : decode_rate;
        stats_.prefill_tokens_total = prefill_tokens;
        stats_.prefix_hit_tokens_total = prefix_hit_tokens;
        stats_.requests_paused_total = requests_paused;
        if (model) {
            stats_.uptime_s = std::chrono::duration<double>(Clock::now() - loaded_at).count();
            stats_.kv_pages_used = model->kv->pages_used();
            stats_.kv_pages_total = model->kv->pages_total();
            stats_.kv_page_size = model->kv->geometry().page_size;
            stats_.kv_pages_cached = model->kv->pages_cached();
            stats_.plan = model->plan;
            if (model->moe) {
                stats_.expert_calls_total = model->moe->stats().expert_calls;
                stats_.cpu_expert_bytes_total = model->moe->cpu_expert_bytes();
            }
            if (counters) {
                stats_.backend = counters->named();
                tracker.update(*counters, decode_tokens, int(model->info.n_layer), stats_);
                if (!model->gpu) stats_.vram = VramStats{};
            }
            if (!model->gpu) {
                // The CPU engine computes every expert from host RAM: its read rate over the last second (the GPU
                // runners report theirs through their counters).
                const auto now = Clock::now();
                cpu_bytes_samples.emplace_back(now, stats_.cpu_expert_bytes_total);
                while (cpu_bytes_samples.size() > 2 && now - cpu_bytes_samples[1].first >= std::chrono::seconds(1))
                    cpu_bytes_samples.pop_front();
                const auto& [t0, b0] = cpu_bytes_samples.front();
                const double dt = std::chrono::duration<double>(now - t0).count();
                stats_.cache.cpu_expert_gbps =
                    dt > 0 && stats_.cpu_expert_bytes_total >= b0 ? double(stats_.cpu_expert_bytes_total - b0) / dt / 1e9 : 0;
            }
            if (running.empty() && queued.empty()) idle_since = Clock::now();
            published_loaded_at = loaded_at;
        } else {
            stats_.backend.clear();
            stats_.kv_pages_used = stats_.kv_pages_total = stats_.kv_pages_cached = 0;
            stats_.uptime_s = 0;
            stats_.plan = MemoryPlan{};
            stats_.vram = VramStats{};
            stats_.pcie = PcieStats{};
            stats_.cache = ExpertCacheStats{};
            cpu_bytes_samples.clear();
        }
        info_ = model ? std::optional<ModelInfo>(model->info) : std::nullopt;
        tokenizer_ = model ? model->tokenizer : std::nullopt;
    }
};

Engine::Engine() : impl_(std::make_unique<Impl>()) {
    impl_->thread = std::thread([this] { impl_->loop(); });
}

Engine::~Engine() {
    {
        std::lock_guard lock(impl_->mutex);
        impl_->stop = true;
    }
    impl_->cv.notify_one();
    impl_->thread.join();
}

void Engine::load(LoadOptions options, std::function<void(const LoadProgress&)> progress,
                  std::function<void(const std::optional<Error>&)> done) {
    const std::uint64_t seq = ++impl_->loads_queued;
    impl_->post([this, seq, o = std::move(options), p = std::move(progress), d = std::move(done)] { impl_->do_load(seq, o, p, d); });
}

void Engine::cancel_load() {
    impl_->loads_cancelled = impl_->loads_queued.load();
    impl_->cancel_load = true;
}

void Engine::rebuild_caches(CacheRequest request, std::function<void(const RebuildResult&)> done) {
    impl_->post([this, request, d = std::move(done)] {
        const RebuildResult r = impl_->do_rebuild(request);
        if (d) d(r);
    });
}

void Engine::unload(std::function<void()> done) {
    impl_->post([this, d = std::move(done)] {
        impl_->abort_all(FinishReason::cancelled);
        impl_->model.reset();
        impl_->publish();
        if (d) d();
    });
}

std::uint64_t Engine::submit(GenerationRequest request) {
    auto s = std::make_shared<Sequence>();
    s->req = std::move(request);
    s->submitted = Clock::now();
    std::uint64_t id;
    {
        std::lock_guard lock(impl_->mutex);
        id = impl_->next_id++;
    }
    s->id = id;
    impl_->post([this, s] { impl_->queued.push_back(s); });
    return id;
}

void Engine::cancel(std::uint64_t request) {
    impl_->post([this, request] {
        for (auto& s : impl_->queued)
            if (s->id == request) s->cancelled = true;
        for (auto& s : impl_->running)
            if (s->id == request) s->cancelled = true;
    });
}

EngineStats Engine::stats() const {
    std::lock_guard lock(impl_->mutex);
    EngineStats s = impl_->stats_;
    // An idle engine publishes nothing: its uptime is counted here, and once nothing has run for a second the
    // last-second rates are 0 (the snapshot still holds those of the last work).
    if (s.loaded && s.state != "loading") {
        const auto now = Clock::now();
        s.uptime_s = std::chrono::duration<double>(now - impl_->published_loaded_at).count();
        if (s.state == "ready" && now - impl_->idle_since >= std::chrono::seconds(1)) {
            s.pcie.h2d_gbps = s.pcie.d2h_gbps = s.pcie.fetch_gbps = s.pcie.prefill_gbps = 0;
            s.cache.cpu_expert_gbps = 0;
        }
    }
    return s;
}

std::optional<ModelInfo> Engine::model_info() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->info_;
}

ModelInfo Engine::load_sync(const LoadOptions& options, const std::function<void(const LoadProgress&)>& progress) {
    std::promise<std::optional<Error>> done;
    auto fut = done.get_future();
    load(options, progress, [&](const std::optional<Error>& e) { done.set_value(e); });
    if (auto e = fut.get()) throw *e;
    auto info = model_info();
    if (!info) throw Error(ErrorCode::internal, "model loaded but no model info");
    return *info;
}

std::vector<float> Engine::evaluate_logits(std::span<const std::int32_t> tokens) {
    std::promise<std::vector<float>> result;
    auto fut = result.get_future();
    std::vector<std::int32_t> toks(tokens.begin(), tokens.end());
    impl_->post([this, &result, toks] {
        try {
            auto& m = impl_->model;
            if (!m) throw Error(ErrorCode::invalid_argument, "no model is loaded");
            if (toks.empty() || std::int64_t(toks.size()) > m->options.n_ctx)
                throw Error(ErrorCode::invalid_argument, "evaluate: " + std::to_string(toks.size()) +
                                                             " tokens do not fit the context of " + std::to_string(m->options.n_ctx));
            const std::int64_t n_vocab = m->info.n_vocab;
            for (std::int32_t t : toks)
                if (t < 0 || t >= n_vocab) throw Error(ErrorCode::invalid_argument, "token id " + std::to_string(t) + " is outside the vocabulary");
            const int seq = m->kv->create();
            std::vector<float> out(toks.size() * std::size_t(n_vocab));
            try {
                m->kv->reserve(seq, std::int64_t(toks.size()));
                for (std::size_t s0 = 0; s0 < toks.size(); s0 += std::size_t(m->options.prefill_chunk)) {
                    const std::size_t s1 = std::min(toks.size(), s0 + std::size_t(m->options.prefill_chunk));
                    std::vector<exec::BatchToken> batch;
                    for (std::size_t i = s0; i < s1; ++i) batch.push_back({toks[i], std::int32_t(i), seq, true});
                    m->runner->forward(batch, *m->kv, out.data() + s0 * std::size_t(n_vocab));
                }
            } catch (...) {
                m->kv->release(seq);
                throw;
            }
            m->kv->release(seq);
            impl_->publish(true);
            result.set_value(std::move(out));
        } catch (...) {
            result.set_exception(std::current_exception());
        }
    });
    return fut.get();
}

Tokenizer Engine::tokenizer() const {
    std::lock_guard lock(impl_->mutex);
    if (!impl_->tokenizer_) throw Error(ErrorCode::invalid_argument, "no model with a tokenizer is loaded");
    return *impl_->tokenizer_;
}

}  // namespace ft
