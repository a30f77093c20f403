// EngineHost with the real CPU engine on the tiny model: load → streamed tokens → finished, stop mid-generation, a
// truncated model file's clear error (and the app keeps serving), restart, unload, stats polling, and the GUI event
// loop's latency (a 5 ms timer measuring its own lateness) while a model loads and while it generates.
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <future>

#include "engine_host.h"
#include "ft/chat_template.h"
#include "ft/engine.h"
#include "ft/tokenizer.h"
#include "ft_test.h"

namespace {

const QString kModel = QStringLiteral(FT_SOURCE_DIR "/tests/data/qwen3-moe-tiny");

// Measures how late a 5 ms repeating timer fires: the GUI thread's event-loop latency.
class LatencyProbe {
public:
    LatencyProbe() {
        m_timer.setInterval(5);
        m_timer.setTimerType(Qt::PreciseTimer);
        QObject::connect(&m_timer, &QTimer::timeout, [this] {
            const qint64 now = m_clock.nsecsElapsed();
            if (m_last >= 0) m_late.push_back(double(now - m_last) / 1e6 - 5.0);
            m_last = now;
        });
    }
    void start() {
        m_late.clear();
        m_last = -1;
        m_clock.start();
        m_timer.start();
    }
    void stop() { m_timer.stop(); }
    std::size_t samples() const { return m_late.size(); }
    double p99() const {
        if (m_late.empty()) return 0;
        std::vector<double> v = m_late;
        std::sort(v.begin(), v.end());
        return v[std::min(v.size() - 1, std::size_t(double(v.size()) * 0.99))];
    }
    double max() const { return m_late.empty() ? 0 : *std::max_element(m_late.begin(), m_late.end()); }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_last = -1;
    std::vector<double> m_late;
};

ft::GenerationRequest greedy(const std::string& prompt, int maxTokens) {
    ft::GenerationRequest r;
    r.prompt_text = prompt;
    r.sampling.temperature = 0;
    r.max_tokens = maxTokens;
    r.ignore_eos = true;
    return r;
}

}  // namespace

class TestEngineHost : public QObject {
    Q_OBJECT
    std::unique_ptr<ft::EngineHost> m_host;

    bool loadTiny(int nCtx = 4096) {
        ft::LoadOptions o;
        o.device = ft::Device::cpu;
        o.threads = 1;
        o.n_ctx = nCtx;
        m_host->setLoadOptions(o);
        QSignalSpy done(m_host.get(), &ft::EngineHost::loadFinished);
        m_host->load(kModel);
        if (!done.wait(60000)) return false;
        return done.first().at(0).toBool();
    }

    // Runs one request to its end; returns the streamed text and the summary.
    struct Result {
        QString text;
        int chunks = 0;
        std::optional<ft::GenerationSummary> summary;
        QString error;
    };
    Result run(ft::GenerationRequest r, std::function<void(quint64, const Result&)> onChunk = {}) {
        Result res;
        quint64 id = 0;
        bool ended = false;
        QMetaObject::Connection c1 = connect(m_host.get(), &ft::EngineHost::token, this, [&](quint64 rid, const QString& t) {
            if (rid != id) return;
            res.text += t;
            ++res.chunks;
            if (onChunk) onChunk(rid, res);
        });
        QMetaObject::Connection c2 = connect(m_host.get(), &ft::EngineHost::generationFinished, this,
                                             [&](quint64 rid, const ft::GenerationSummary& s) {
                                                 if (rid != id) return;
                                                 res.summary = s;
                                                 ended = true;
                                             });
        QMetaObject::Connection c3 = connect(m_host.get(), &ft::EngineHost::generationFailed, this,
                                             [&](quint64 rid, const QString& m) {
                                                 if (rid != id) return;
                                                 res.error = m;
                                                 ended = true;
                                             });
        id = m_host->generate(std::move(r));
        if (id != 0 && !QTest::qWaitFor([&] { return ended; }, 120000)) res.error = QStringLiteral("timed out");
        disconnect(c1);
        disconnect(c2);
        disconnect(c3);
        return res;
    }

private slots:
    void initTestCase() { m_host = std::make_unique<ft::EngineHost>(); }

    void startsIdle() {
        QCOMPARE(m_host->state(), QStringLiteral("idle"));
        QSignalSpy failed(m_host.get(), &ft::EngineHost::generationFailed);
        QCOMPARE(m_host->generate(greedy("hi", 4)), quint64(0));
        QVERIFY(failed.wait(2000));
        QVERIFY(failed.first().at(1).toString().contains("No model is loaded"));
    }

    void loadsWithProgressAndTemplate() {
        QSignalSpy progress(m_host.get(), &ft::EngineHost::loadProgressChanged);
        QSignalSpy states(m_host.get(), &ft::EngineHost::stateChanged);
        QStringList seen;
        connect(m_host.get(), &ft::EngineHost::stateChanged, this, [&] { seen << m_host->state(); });
        QVERIFY(loadTiny());
        QVERIFY(seen.contains("loading"));
        QCOMPARE(m_host->state(), QStringLiteral("ready"));
        QCOMPARE(m_host->loadFraction(), 1.0);
        QVERIFY(progress.count() >= 2);
        QCOMPARE(m_host->contextLength(), 4096);
        QVERIFY(m_host->tokenizer().has_value());
        QVERIFY(m_host->hasChatTemplate());
        QVERIFY(!m_host->modelName().isEmpty());
        // The template is the model's own: Qwen3's ChatML markers.
        ft::ChatRenderRequest req;
        req.messages_json = R"([{"role":"user","content":"Hello"}])";
        const std::string prompt = m_host->chatTemplate()->apply(req);
        QVERIFY2(prompt.find("<|im_start|>user\nHello<|im_end|>") != std::string::npos, prompt.c_str());
        QSignalSpy stats(m_host.get(), &ft::EngineHost::statsUpdated);
        QVERIFY(stats.wait(1000));
        QVERIFY(m_host->latestStats().loaded);
        disconnect(m_host.get(), &ft::EngineHost::stateChanged, this, nullptr);
    }

    void streamsTokensThenFinishes() {
        QStringList seen;
        connect(m_host.get(), &ft::EngineHost::stateChanged, this, [&] { seen << m_host->state(); });
        const Result r = run(greedy("The quick brown fox", 32));
        disconnect(m_host.get(), &ft::EngineHost::stateChanged, this, nullptr);
        QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
        QVERIFY(r.summary.has_value());
        QCOMPARE(r.summary->reason, QStringLiteral("length"));
        QCOMPARE(r.summary->completionTokens, 32);
        QVERIFY(r.summary->promptTokens > 0);
        QVERIFY(r.summary->ttftMs > 0);
        QVERIFY(r.chunks >= 1);
        QVERIFY(seen.contains("generating"));
        QCOMPARE(m_host->state(), QStringLiteral("ready"));
        QCOMPARE(m_host->activeRequests(), 0);

        // The streamed text is exactly what an engine of its own produces for the same greedy request.
        ft::Engine reference;
        ft::LoadOptions o;
        o.model = kModel.toStdString();
        o.device = ft::Device::cpu;
        o.threads = 1;
        o.n_ctx = 256;
        reference.load_sync(o);
        std::promise<void> done;
        std::string expected;
        auto req = greedy("The quick brown fox", 32);
        req.on_token = [&](const ft::TokenEvent& ev) { expected += ev.text; };
        req.on_finish = [&](const ft::FinishEvent&) { done.set_value(); };
        req.on_error = [&](const ft::Error&) { done.set_value(); };
        reference.submit(std::move(req));
        done.get_future().wait();
        QCOMPARE(r.text, QString::fromStdString(expected));
    }

    // The streamed text does not depend on how tokens were grouped into token() signals. The tiny model's greedy
    // reply to "The console shows" has a token whose text is U+FEFF (the byte order mark) at token 572:
    // QString::fromUtf8 drops a U+FEFF that starts its input, so converting each coalesced piece with it lost that
    // character whenever the token began a piece — which depends on timing (the Console test's reply with and
    // without a live rebuild then differed under Xvfb). Checked on the engine's own pieces, converted one by one,
    // and through EngineHost with a quick and with a slow GUI thread (pieces of one token / of many).
    void streamedTextIsTheSameWhateverThePieces() {
        ft::Engine reference;
        ft::LoadOptions o;
        o.model = kModel.toStdString();
        o.device = ft::Device::cpu;
        o.threads = 1;
        o.n_ctx = 1024;
        reference.load_sync(o);
        std::promise<void> done;
        std::vector<std::string> pieces;
        auto req = greedy("The console shows", 600);
        req.on_token = [&](const ft::TokenEvent& ev) { pieces.push_back(ev.text); };
        req.on_finish = [&](const ft::FinishEvent&) { done.set_value(); };
        req.on_error = [&](const ft::Error&) { done.set_value(); };
        reference.submit(std::move(req));
        done.get_future().wait();
        std::string whole;
        int bom_first = 0;
        for (const std::string& p : pieces) {
            whole += p;
            bom_first += p.rfind("\xEF\xBB\xBF", 0) == 0;
        }
        QVERIFY2(bom_first > 0, "the reply has no piece starting with U+FEFF: this test no longer covers its case");
        const QString expected = ft::streamed_text(whole);
        QCOMPARE(expected.count(QChar(0xFEFF)), qsizetype(bom_first));
        QString joined;
        for (const std::string& p : pieces) joined += ft::streamed_text(p);
        QCOMPARE(joined, expected);

        const Result quick = run(greedy("The console shows", 600));
        QVERIFY2(quick.error.isEmpty(), qPrintable(quick.error));
        QCOMPARE(quick.text, expected);
        const Result slow = run(greedy("The console shows", 600), [](quint64, const Result&) { QThread::msleep(15); });
        QVERIFY2(slow.error.isEmpty(), qPrintable(slow.error));
        QVERIFY(slow.chunks < quick.chunks);
        QCOMPARE(slow.text, expected);
    }

    void stopEndsMidGeneration() {
        quint64 stopped = 0;
        const Result r = run(greedy("Once upon a time", 3000), [&](quint64 id, const Result&) {
            if (!stopped) {
                stopped = id;
                m_host->stop(id);
            }
        });
        QVERIFY(stopped != 0);
        QVERIFY(r.summary.has_value());
        QCOMPARE(r.summary->reason, QStringLiteral("cancelled"));
        QVERIFY2(r.summary->completionTokens < 3000, qPrintable(QString::number(r.summary->completionTokens)));
        QCOMPARE(m_host->state(), QStringLiteral("ready"));
    }

    void requestErrorKeepsServing() {
        // Longer than the context: the engine refuses it; the model stays loaded.
        auto req = greedy("", 8);
        req.prompt.assign(5000, 100);
        QSignalSpy faults(m_host.get(), &ft::EngineHost::engineFault);
        const Result r = run(std::move(req));
        QVERIFY(!r.error.isEmpty());
        QCOMPARE(faults.count(), 1);
        QCOMPARE(m_host->lastError(), r.error);
        QCOMPARE(m_host->state(), QStringLiteral("ready"));
        QVERIFY(run(greedy("again", 4)).summary.has_value());
        m_host->clearError();
        QVERIFY(m_host->lastError().isEmpty());
    }

    void eventLoopStaysResponsive() {
        LatencyProbe probe;
        // While loading (five loads of the model in a row) ...
        probe.start();
        for (int i = 0; i < 5; ++i) QVERIFY(loadTiny());
        probe.stop();
        qInfo("loading: %zu samples, p99 lateness %.2f ms, max %.2f ms", probe.samples(), probe.p99(), probe.max());
        QVERIFY(probe.samples() > 0);
        QVERIFY2(probe.p99() < 50.0, qPrintable(QString::number(probe.p99())));
        // ... and while generating.
        probe.start();
        const Result r = run(greedy("Tell me a story", 1500));
        probe.stop();
        QVERIFY(r.summary.has_value());
        qInfo("generating %d tokens (%d token signals): %zu samples, p99 lateness %.2f ms, max %.2f ms",
              r.summary->completionTokens, r.chunks, probe.samples(), probe.p99(), probe.max());
        QVERIFY(probe.samples() > 20);
        QVERIFY2(probe.p99() < 50.0, qPrintable(QString::number(probe.p99())));
    }

    void truncatedFileGivesClearError() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QDir src(kModel);
        for (const QString& f : src.entryList(QDir::Files)) QVERIFY(QFile::copy(src.filePath(f), tmp.filePath(f)));
        QFile weights(tmp.filePath("model.safetensors"));
        QVERIFY(weights.resize(weights.size() / 2));
        QSignalSpy faults(m_host.get(), &ft::EngineHost::engineFault);
        QSignalSpy done(m_host.get(), &ft::EngineHost::loadFinished);
        m_host->load(tmp.path());
        QVERIFY(done.wait(30000));
        QCOMPARE(done.first().at(0).toBool(), false);
        const QString message = done.first().at(1).toString();
        QVERIFY2(message.contains("model.safetensors"), qPrintable(message));
        QCOMPARE(m_host->state(), QStringLiteral("error"));
        QCOMPARE(m_host->lastError(), message);
        QCOMPARE(faults.count(), 1);
        QVERIFY(!m_host->tokenizer().has_value());
        // The app keeps running: a good model loads afterwards and serves.
        QVERIFY(loadTiny());
        QVERIFY(run(greedy("still here", 4)).summary.has_value());
    }

    void restartReloadsTheModel() {
        QSignalSpy done(m_host.get(), &ft::EngineHost::loadFinished);
        m_host->restartEngine();
        QCOMPARE(m_host->state(), QStringLiteral("loading"));
        QVERIFY(done.wait(60000));
        QVERIFY(done.first().at(0).toBool());
        QCOMPARE(m_host->state(), QStringLiteral("ready"));
        QVERIFY(run(greedy("after restart", 4)).summary.has_value());
    }

    void cancelLoadReturnsToIdle() {
        QSignalSpy done(m_host.get(), &ft::EngineHost::loadFinished);
        m_host->load(kModel);
        m_host->cancelLoad();
        QVERIFY(done.count() == 1 || done.wait(30000));
        QCOMPARE(done.first().at(0).toBool(), false);
        QVERIFY(done.first().at(1).toString().contains("cancelled"));
        QTest::qWait(200);  // a late result of the cancelled load must not revive it
        QCOMPARE(m_host->state(), QStringLiteral("idle"));
        QVERIFY(!m_host->tokenizer().has_value());
    }

    void unloadStopsAndGoesIdle() {
        QVERIFY(loadTiny());
        QSignalSpy unloaded(m_host.get(), &ft::EngineHost::unloaded);
        QSignalSpy finished(m_host.get(), &ft::EngineHost::generationFinished);
        const quint64 id = m_host->generate(greedy("long", 3000));
        QVERIFY(id != 0);
        m_host->unload();
        QCOMPARE(unloaded.count(), 1);
        QCOMPARE(m_host->state(), QStringLiteral("idle"));
        QVERIFY(finished.count() == 1 || finished.wait(5000));
        QCOMPARE(finished.first().at(0).toULongLong(), id);
        QCOMPARE(finished.first().at(1).value<ft::GenerationSummary>().reason, QStringLiteral("cancelled"));
        QVERIFY(m_host->modelPath().isEmpty());
        QSignalSpy stats(m_host.get(), &ft::EngineHost::statsUpdated);
        QVERIFY(!stats.wait(400));  // no polling without a model
    }

    void cleanupTestCase() { m_host.reset(); }
};

QTEST_GUILESS_MAIN(TestEngineHost)
#include "test_engine_host.moc"
