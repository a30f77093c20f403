// Pathological replies streaming into the real Chat page (offscreen and under Xvfb): one 100,000-character word,
// 10,000 lines, deeply nested markdown, a huge code block. Drawing a streamed reply must cost what the new text costs,
// not a re-layout of the whole message per batch: the GUI thread stays responsive (a 10 ms timer is never late by
// much) and memory stays bounded while each reply streams at ~50,000 characters a second.
//
// The replies come from a scripted engine stand-in: the real EngineHost with the tiny model loaded takes the chat's
// real request; once its first token arrives the model is unloaded quietly (EngineHost's signals blocked for that
// moment; the engine's later events for the request are dropped, as for any unloaded model) and the script carries
// on as that request, through EngineHost's own token() and generationFinished() signals, into ChatSession's real
// token path (coalescing, saving to SQLite every 100 ms, the message list, the QML page).
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QQuickItem>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <memory>

#include "app_harness.h"
#include "chat_session.h"
#include "chat_store.h"
#include "engine_host.h"
#include "ft/log.h"
#include "log_hub.h"

namespace {

const QString kTinyModel = QStringLiteral(FT_SOURCE_DIR "/tests/data/qwen3-moe-tiny");

double rss_mib() {
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly)) return 0;
    for (const QByteArray& line : f.readAll().split('\n'))
        if (line.startsWith("VmRSS:")) return line.mid(6).trimmed().split(' ').first().toDouble() / 1024.0;
    return 0;
}

// The bytes this process handed to write() so far (the chat history's saves among them).
qint64 written_bytes() {
    QFile f(QStringLiteral("/proc/self/io"));
    if (!f.open(QIODevice::ReadOnly)) return 0;
    for (const QByteArray& line : f.readAll().split('\n'))
        if (line.startsWith("wchar:")) return line.mid(6).trimmed().toLongLong();
    return 0;
}

// The script: the whole reply, handed to the chat `chunk` characters at a time every `intervalMs`.
class ScriptedEngine : public QObject {
    Q_OBJECT
public:
    ScriptedEngine(ft::EngineHost* host, QString text, int chunk, int intervalMs)
        : m_host(host), m_text(std::move(text)), m_chunk(chunk) {
        m_timer.setInterval(intervalMs);
        m_timer.setTimerType(Qt::PreciseTimer);
        connect(&m_timer, &QTimer::timeout, this, &ScriptedEngine::step);
        // The chat's request is the first one that streams: take it over.
        m_conn = connect(host, &ft::EngineHost::token, this, [this](quint64 id, const QString&) {
            disconnect(m_conn);
            m_id = id;
            // Silence the engine: unloaded, its later events for `id` are dropped (older epoch). The host's signals
            // are blocked meanwhile, so the chat does not hear that the request ended with the model.
            m_host->blockSignals(true);
            m_host->unload();
            m_host->blockSignals(false);
            m_timer.start();
        });
    }
    bool done() const { return m_done; }
    qint64 sent() const { return m_pos; }

private:
    void step() {
        const QString piece = m_text.mid(m_pos, m_chunk);
        m_pos += piece.size();
        if (!piece.isEmpty()) emit m_host->token(m_id, piece);
        if (m_pos >= m_text.size()) {
            m_timer.stop();
            ft::GenerationSummary s;
            s.reason = QStringLiteral("stop");
            s.promptTokens = 10;
            s.completionTokens = int(m_text.size() / 4);
            emit m_host->generationFinished(m_id, s);
            m_done = true;
        }
    }

    ft::EngineHost* m_host;
    QString m_text;
    int m_chunk;
    QTimer m_timer;
    QMetaObject::Connection m_conn;
    quint64 m_id = 0;
    qint64 m_pos = 0;
    bool m_done = false;
};

QString one_long_word() {
    QString s = QStringLiteral("Here it comes: ");
    while (s.size() < 100000) s += QStringLiteral("_keyboard");
    return s;
}

QString many_lines() {
    QString s;
    for (int i = 0; i < 10000; ++i) s += QStringLiteral("line %1 of a reply that goes on and on\n").arg(i);
    return s;
}

QString deep_markdown() {
    QString s = QStringLiteral("Nested quotes:\n\n");
    for (int d = 1; d <= 400; ++d) s += QString(QStringLiteral("> ")).repeated(d) + QStringLiteral("level %1\n").arg(d);
    s += QStringLiteral("\nNested lists:\n\n");
    for (int d = 0; d < 400; ++d) s += QString(2 * d, QLatin1Char(' ')) + QStringLiteral("- item %1\n").arg(d);
    s += QStringLiteral("\nNested emphasis: ");
    s += QString(QStringLiteral("*_[")).repeated(3000) + QStringLiteral("core") + QString(QStringLiteral("]_*")).repeated(3000);
    s += QStringLiteral("\n");
    return s;
}

QString huge_code_block() {
    QString s = QStringLiteral("The code:\n\n```python\n");
    for (int i = 0; i < 10000; ++i) s += QStringLiteral("def function_%1(x):  return x * %1 + 1  # line %1\n").arg(i);
    s += QStringLiteral("```\n\nThat was the code.");
    return s;
}

}  // namespace

class TestChatStream : public QObject {
    Q_OBJECT
    QTemporaryDir m_data;
    ft::LogHub m_hub;
    std::unique_ptr<ft::test::UiHarness> m_ui;
    QString m_model;  // a copy of the tiny model in the test's own folder (each row loads it again)

    ft::ui::ChatSession* session() const { return qobject_cast<ft::ui::ChatSession*>(m_ui->object("chatSession")); }

    void loadModel() {
        if (m_ui->host()->isReady()) return;
        QSignalSpy done(m_ui->host(), &ft::EngineHost::loadFinished);
        m_ui->host()->load(m_model);
        QVERIFY(done.wait(60000));
        QVERIFY2(done.first().at(0).toBool(), qPrintable(done.first().at(1).toString()));
        m_ui->settle();
    }

private slots:
    void initTestCase() {
        QVERIFY(m_data.isValid());
        qputenv("FT_DATA_DIR", m_data.path().toUtf8());
        m_model = m_data.filePath("qwen3-moe-tiny");
        QVERIFY(QDir().mkpath(m_model));
        for (const QString& f : {"config.json", "tokenizer.json", "tokenizer_config.json", "model.safetensors"})
            QVERIFY2(QFile::copy(kTinyModel + "/" + f, m_model + "/" + f), qPrintable(f));
        ft::test::install_warning_capture();
        ft::attach_log_hub(m_hub, "freetoken");
        m_ui = std::make_unique<ft::test::UiHarness>(&m_hub);
        ft::LoadOptions o;
        o.device = ft::Device::cpu;
        o.threads = 1;
        o.n_ctx = 2048;
        m_ui->host()->setLoadOptions(o);
        QVERIFY(m_ui->load());
        QObject* library = m_ui->object("libraryModel");
        bool ok = false;
        QMetaObject::invokeMethod(library, "addPath", Q_RETURN_ARG(bool, ok), Q_ARG(QString, m_model));
        QVERIFY(ok);
        QVERIFY(m_ui->showPage("chat"));
    }

    void streamsPathologicalReplies_data() {
        QTest::addColumn<QString>("reply");
        QTest::newRow("one 100k-character word") << one_long_word();
        QTest::newRow("10k lines") << many_lines();
        QTest::newRow("deep markdown nesting") << deep_markdown();
        QTest::newRow("huge code block") << huge_code_block();
    }

    void streamsPathologicalReplies() {
        QFETCH(QString, reply);
        loadModel();
        session()->newChat();
        QVERIFY(session()->saveSettings({}, 0.8, 0.9, 1500, 1));
        m_ui->settle(500);  // the previous reply's items are gone before the measuring starts
        const double rssBefore = rss_mib();
        const qint64 writtenBefore = written_bytes();

        ScriptedEngine script(m_ui->host(), reply, 1000, 20);  // 50,000 characters a second
        QVERIFY(session()->send(QStringLiteral("Say something long")));
        // The event loop's lateness: a 10 ms timer, and the longest gap between its ticks.
        QElapsedTimer clock;
        clock.start();
        qint64 last = 0, worst = 0, ticks = 0, lateTicks = 0, worstAt = 0;
        double rssPeak = rssBefore;
        QTimer probe;
        probe.setTimerType(Qt::PreciseTimer);
        probe.setInterval(10);
        connect(&probe, &QTimer::timeout, this, [&] {
            const qint64 now = clock.elapsed();
            const qint64 gap = now - last;
            last = now;
            if (gap - 10 > worst) {
                worst = gap - 10;
                worstAt = script.sent();
            }
            ++ticks;
            if (gap > 60) ++lateTicks;
            if (ticks % 20 == 0) rssPeak = std::max(rssPeak, rss_mib());
        });
        probe.start();
        const qint64 budgetMs = 120000;
        while ((!script.done() || session()->busy()) && clock.elapsed() < budgetMs) QTest::qWait(5);
        probe.stop();
        m_ui->settle();
        rssPeak = std::max(rssPeak, rss_mib());
        const qint64 elapsed = clock.elapsed();
        const double writtenMiB = (written_bytes() - writtenBefore) / 1048576.0;
        const double replyMiB = reply.toUtf8().size() / 1048576.0;
        qInfo("%s: %lld characters in %lld ms; worst event-loop lateness %lld ms, %lld of %lld ticks over 60 ms; "
              "RSS %.0f → peak %.0f MiB (+%.0f); the worst gap came after %lld characters%s; %.1f MiB written for a reply of %.2f MiB",
              QTest::currentDataTag(),
              qint64(reply.size()), elapsed, worst, lateTicks, ticks, rssBefore, rssPeak, rssPeak - rssBefore, worstAt,
              worstAt >= reply.size() ? " (all sent)" : "", writtenMiB, replyMiB);
        QVERIFY2(script.done(), qPrintable(QStringLiteral("only %1 of %2 characters streamed in %3 s")
                                               .arg(script.sent()).arg(reply.size()).arg(budgetMs / 1000)));
        QVERIFY(!session()->busy());

        // The whole reply is saved and on screen: the last block drawn ends where the reply ends.
        const auto& msgs = session()->messages()->messages();
        QCOMPARE(msgs.last().state, QStringLiteral("complete"));
        // (It starts with the one token the real engine streamed before the script took over.)
        QVERIFY2(msgs.last().content.endsWith(reply), qPrintable(msgs.last().content.right(100)));
        {
            ft::ChatStore store;
            const auto saved = store.messages(session()->currentId());
            QCOMPARE(saved.last().content, msgs.last().content);
        }
        QStringList shown;
        for (const QString& name : {QStringLiteral("replyText"), QStringLiteral("codeText")})
            for (QQuickItem* i : m_ui->items(name)) shown << i->property("text").toString();
        QVERIFY(!shown.isEmpty());
        const QString tail = reply.trimmed().right(12);
        const bool tailShown = std::any_of(shown.begin(), shown.end(), [&](const QString& t) { return t.trimmed().endsWith(tail); });
        QVERIFY2(tailShown, qPrintable(tail));

        m_ui->saveScreenshot(QStringLiteral("chat-stream-%1").arg(QString::fromLatin1(QTest::currentDataTag()).replace(' ', '-')));
        // The view stays at the end of the reply when it finishes (it used to jump to the top).
        QQuickItem* list = m_ui->item("messageList");
        QVERIFY(list);
        QTRY_VERIFY2(list->property("atYEnd").toBool(),
                     qPrintable(QStringLiteral("contentY %1 of %2").arg(list->property("contentY").toDouble())
                                    .arg(list->property("contentHeight").toDouble())));
        // Responsive: no batch held the GUI thread for long, and most ticks came on time.
        QVERIFY2(worst < 500, qPrintable(QStringLiteral("the GUI thread was blocked for %1 ms").arg(worst)));
        QVERIFY2(lateTicks * 10 < ticks, qPrintable(QStringLiteral("%1 of %2 ticks late").arg(lateTicks).arg(ticks)));
        // No warning from the chat's QML (a binding loop would be one).
        QStringList chatWarnings;
        for (const QString& w : ft::test::take_warnings())
            if (w.contains(QLatin1String("Chat"))) chatWarnings << w;
        QVERIFY2(chatWarnings.isEmpty(), qPrintable(chatWarnings.join('\n')));
        // Bounded: memory grows with the text shown, not with the number of batches.
        QVERIFY2(rssPeak - rssBefore < 200, qPrintable(QStringLiteral("RSS grew by %1 MiB").arg(rssPeak - rssBefore)));
    }

    void cleanupTestCase() {
        m_ui.reset();
        ft::test::remove_warning_capture();
    }
};

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    TestChatStream t;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&t, argc, argv);
}

#include "test_chat_stream.moc"
