// The engine API on the tiny golden model: streaming, stop strings, max tokens, cancellation, errors that leave
// the engine serving, stats; and the stop-string matcher on its own.
#include <QTemporaryDir>

#include <atomic>
#include <fstream>
#include <future>
#include <thread>

#include "ft/engine.h"
#include "ft/tokenizer.h"
#include "ft_test.h"
#include "sched/stop_matcher.h"

namespace {

const std::filesystem::path kModel = FT_SOURCE_DIR "/tests/data/qwen3-moe-tiny";

struct Run {
    std::vector<std::int32_t> tokens;
    std::string text;
    std::optional<ft::FinishEvent> finish;
    std::optional<std::string> error;
};

Run generate(ft::Engine& e, ft::GenerationRequest r, std::function<void(std::uint64_t)> after_submit = {}) {
    Run run;
    std::promise<void> done;
    r.on_token = [&](const ft::TokenEvent& ev) {
        if (ev.token >= 0) run.tokens.push_back(ev.token);
        run.text += ev.text;
    };
    r.on_finish = [&](const ft::FinishEvent& ev) {
        run.finish = ev;
        done.set_value();
    };
    r.on_error = [&](const ft::Error& err) {
        run.error = err.what();
        done.set_value();
    };
    const auto id = e.submit(std::move(r));
    if (after_submit) after_submit(id);
    done.get_future().wait();
    return run;
}

ft::GenerationRequest greedy(std::string prompt, int max_tokens) {
    ft::GenerationRequest r;
    r.prompt_text = std::move(prompt);
    r.sampling.temperature = 0;
    r.max_tokens = max_tokens;
    r.ignore_eos = true;
    return r;
}

}  // namespace

class TestEngineApi : public QObject {
    Q_OBJECT
    ft::Engine engine;

private slots:
    void initTestCase() {
        ft::LoadOptions o;
        o.model = kModel;
        o.device = ft::Device::cpu;
        o.n_ctx = 256;
        std::vector<float> fractions;
        const auto info = engine.load_sync(o, [&](const ft::LoadProgress& p) { fractions.push_back(p.fraction); });
        QCOMPARE(QString::fromStdString(info.architecture), QStringLiteral("qwen3_moe"));
        QCOMPARE(info.n_vocab, 4160u);
        QVERIFY(info.has_chat_template);
        QVERIFY(fractions.size() >= 3 && fractions.back() == 1.f);
        QVERIFY(std::is_sorted(fractions.begin(), fractions.end()));
    }

    void stopMatcherHoldsBackPrefixes() {
        ft::StopMatcher m({"END", "\n\n"});
        auto r = m.push("hello E");
        QCOMPARE(QString::fromStdString(r.text), QStringLiteral("hello "));
        QVERIFY(!r.stopped);
        r = m.push("N");
        QCOMPARE(QString::fromStdString(r.text), QString());
        r = m.push("X and \n");
        QCOMPARE(QString::fromStdString(r.text), QStringLiteral("ENX and "));
        r = m.push("\nrest");
        QVERIFY(r.stopped);
        QCOMPARE(QString::fromStdString(r.text), QString());
        QCOMPARE(QString::fromStdString(r.stop), QStringLiteral("\n\n"));
        ft::StopMatcher none;
        QCOMPARE(QString::fromStdString(none.push("abc").text), QStringLiteral("abc"));
        ft::StopMatcher tail({"xyz"});
        QCOMPARE(QString::fromStdString(tail.push("abcxy").text), QStringLiteral("abc"));
        QCOMPARE(QString::fromStdString(tail.flush("!")), QStringLiteral("xy!"));
    }

    void streamsTextThatDecodesTheTokens() {
        const auto run = generate(engine, greedy("The quick brown fox", 24));
        QVERIFY(!run.error);
        QCOMPARE(run.tokens.size(), size_t(24));
        QCOMPARE(run.finish->reason, ft::FinishReason::length);
        QCOMPARE(run.finish->completion_tokens, 24);
        QVERIFY(run.finish->prompt_tokens > 0);
        QVERIFY(run.finish->ttft_ms > 0 && run.finish->decode_tok_s > 0);
        QCOMPARE(QString::fromStdString(run.text),
                 QString::fromStdString(engine.tokenizer().decode(run.tokens, false)));
    }

    void stopStringEndsBeforeIt() {
        const auto full = generate(engine, greedy("def fib(n):", 40));
        QVERIFY(full.text.size() > 12);
        // Stop on a piece of what greedy decoding produces anyway: output is the text before it.
        const std::string stop = full.text.substr(full.text.size() / 2, 3);
        auto r = greedy("def fib(n):", 40);
        r.stop = {stop};
        const auto run = generate(engine, std::move(r));
        QCOMPARE(run.finish->reason, ft::FinishReason::stop);
        QCOMPARE(QString::fromStdString(run.finish->stop_text), QString::fromStdString(stop));
        QCOMPARE(QString::fromStdString(run.text), QString::fromStdString(full.text.substr(0, full.text.find(stop))));
    }

    void endOfGenerationTokenStops() {
        // With EOS honoured, a run ends at <|im_end|>/<|endoftext|> or at max tokens — and never emits one.
        auto r = greedy("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n", 200);
        r.ignore_eos = false;
        r.sampling.temperature = 1.5f;
        r.sampling.seed = 3;
        const auto run = generate(engine, std::move(r));
        const auto tok = engine.tokenizer();
        for (auto t : run.tokens)
            for (auto eog : tok.eog_ids()) QVERIFY(t != eog);
        if (run.finish->reason == ft::FinishReason::stop) QVERIFY(!run.finish->stop_text.empty());
    }

    void cancelEndsARunningRequest() {
        auto r = greedy("count", 100000);
        std::atomic<int> seen{0};
        r.on_token = [&](const ft::TokenEvent&) { seen++; };
        std::promise<ft::FinishEvent> fin;
        r.on_finish = [&](const ft::FinishEvent& e) { fin.set_value(e); };
        r.on_error = [&](const ft::Error&) { QFAIL("unexpected error"); };
        const auto id = engine.submit(std::move(r));
        while (seen.load() < 3) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        engine.cancel(id);
        const auto ev = fin.get_future().get();
        QCOMPARE(ev.reason, ft::FinishReason::cancelled);
        QVERIFY(ev.completion_tokens < 200);
    }

    void contextLimitEndsWithLength() {
        const auto run = generate(engine, greedy("hello", 100000));
        QCOMPARE(run.finish->reason, ft::FinishReason::length);
        QCOMPARE(run.finish->prompt_tokens + run.finish->completion_tokens, 256);
    }

    void badRequestsGetErrorsAndTheEngineKeepsServing() {
        ft::GenerationRequest r = greedy("", 4);
        r.prompt = {1, 2, 99999};
        auto run = generate(engine, r);
        QVERIFY2(run.error && run.error->find("outside the vocabulary") != std::string::npos, run.error->c_str());
        r.prompt = std::vector<std::int32_t>(300, 5);
        run = generate(engine, r);
        QVERIFY(run.error && run.error->find("context") != std::string::npos);
        r.prompt = {1, 2};
        r.sampling.top_p = 0;
        run = generate(engine, r);
        QVERIFY(run.error && run.error->find("top_p") != std::string::npos);
        run = generate(engine, greedy("still here", 3));
        QCOMPARE(run.tokens.size(), size_t(3));
    }

    void statsCountWhatRan() {
        const auto s = engine.stats();
        QVERIFY(s.loaded);
        QCOMPARE(QString::fromStdString(s.model), QStringLiteral("qwen3-moe-tiny"));
        QVERIFY(s.requests_total >= 5);
        QVERIFY(s.generated_tokens_total > 50);
        QVERIFY(s.expert_calls_total > 0);
        QVERIFY(s.kv_pages_total > 0);
        // Every request has released its pages; what stays is the prefix cache's.
        QVERIFY(s.kv_pages_cached > 0);
        QCOMPARE(s.kv_pages_used, s.kv_pages_cached);
        QCOMPARE(s.running, 0);
    }

    void failedLoadLeavesNoModelAndAClearError() {
        QTemporaryDir tmp;
        const std::string bad = (tmp.path() + "/truncated.gguf").toStdString();
        std::ofstream(bad) << "GGUF\x03";
        ft::Engine e;
        ft::LoadOptions o;
        o.model = bad;
        try {
            e.load_sync(o);
            QFAIL("expected a load error");
        } catch (const ft::Error& err) {
            QVERIFY2(std::string(err.what()).find("truncated.gguf") != std::string::npos, err.what());
        }
        QVERIFY(!e.stats().loaded);
        const auto run = generate(e, greedy("x", 1));
        QVERIFY(run.error && run.error->find("no model") != std::string::npos);
        o.model = kModel;
        o.device = ft::Device::cpu;
        QVERIFY(e.load_sync(o).n_layer == 4);  // and it loads fine afterwards
    }
};

FT_TEST_MAIN(TestEngineApi)
#include "test_engine_api.moc"
