// `ft serve` end to end on the tiny model (CPU engine): a real server on a free port, driven by the official
// `openai` and `@anthropic-ai/sdk` npm clients (tests/reference/serve_clients.mjs), by a 32-client load test, and by
// `ft ctl`; plus the port-in-use error and the bounded queue (429).
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QStandardPaths>

#include <filesystem>

#include "ft_process.h"
#include "ft_test.h"
#include "serve_process.h"

using ft::test::run_ft;
namespace fs = std::filesystem;

namespace {

const QString kModel = QStringLiteral(FT_SOURCE_DIR "/tests/data/qwen3-moe-tiny");
const QString kKey = QStringLiteral("test-key-123");

// `ft serve` on the tiny model, CPU engine, with the test key.
struct Server : ft::test::ServeProcess {
    bool start(const QStringList& extra = {}) {
        return ServeProcess::start(QStringList{"--model", kModel, "--device", "cpu", "--ctx", "1024", "--threads", "2",
                                               "--api-key", kKey} + extra);
    }
};

QString node_exe() { return qEnvironmentVariable("FT_NODE", QStandardPaths::findExecutable(QStringLiteral("node"))); }

bool reference_missing(QString& why) {
    const fs::path modules = fs::path(FT_SOURCE_DIR) / "tests" / "reference" / "node_modules";
    if (node_exe().isEmpty()) why = QStringLiteral("node is not installed");
    else if (!fs::exists(modules / "openai" / "package.json") || !fs::exists(modules / "@anthropic-ai" / "sdk" / "package.json"))
        why = QStringLiteral("tests/reference/node_modules lacks openai / @anthropic-ai/sdk (run npm ci in tests/reference)");
    return !why.isEmpty();
}

// Runs serve_clients.mjs; returns its exit code, output in `log`.
int run_node(const QStringList& args, QString& log, int timeout_ms = 400000) {
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.setWorkingDirectory(QStringLiteral(FT_SOURCE_DIR "/tests/reference"));
    p.start(node_exe(), QStringList{QStringLiteral(FT_SOURCE_DIR "/tests/reference/serve_clients.mjs")} + args);
    if (!p.waitForFinished(timeout_ms)) {
        p.kill();
        p.waitForFinished(5000);
        log = QString::fromUtf8(p.readAll()) + "\n(timeout)";
        return -1;
    }
    log = QString::fromUtf8(p.readAll());
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
}

// Resident memory of a process (Linux /proc; -1 elsewhere).
long rss_kib(qint64 pid) {
    QFile f(QString("/proc/%1/status").arg(pid));
    if (!f.open(QIODevice::ReadOnly)) return -1;
    for (const auto& line : f.readAll().split('\n'))
        if (line.startsWith("VmRSS:")) return line.mid(6).trimmed().split(' ').first().toLong();
    return -1;
}

}  // namespace

class TestServerClients : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        // `ft chat --attach` reads the app's server list, which moves keys to the OS keychain: never the keychain of
        // whoever runs this (ctest sets it too; this holds when the binary is run by hand).
        qputenv("FT_KEYCHAIN", "off");
        if (reference_missing(m_no_reference) && qEnvironmentVariableIsSet("FT_REQUIRE_REFERENCE"))
            QFAIL(qPrintable(m_no_reference));
        QVERIFY2(m_server.start(), qPrintable(m_server.log()));
    }

    void officialClients() {
        if (!m_no_reference.isEmpty()) QSKIP(qPrintable(m_no_reference));
        QString log;
        const int rc = run_node({"clients", m_server.url, "qwen3-moe-tiny", kKey}, log);
        qInfo().noquote() << log;
        QVERIFY2(rc == 0, qPrintable(log + "\nserver log:\n" + m_server.log()));
    }

    // 32 clients x 20 requests at once (and the same 640 requests one by one first): all complete, none lost or
    // duplicated, each greedy reply equal to the request alone; the server's memory stays flat over those 1,280.
    void loadThirtyTwoClients() {
        if (!m_no_reference.isEmpty()) QSKIP(qPrintable(m_no_reference));
        const long rss_before = rss_kib(m_server.proc.processId());
        QString log;
        const int rc = run_node({"load", m_server.url, "qwen3-moe-tiny", kKey, "32", "20"}, log);
        qInfo().noquote() << log;
        QVERIFY2(rc == 0, qPrintable(log));
        const long rss_after = rss_kib(m_server.proc.processId());
        if (rss_before > 0) {
            qInfo("server RSS %ld KiB before, %ld KiB after 1280 requests", rss_before, rss_after);
            QVERIFY2(rss_after - rss_before < 32 * 1024, qPrintable(QString("RSS grew by %1 KiB").arg(rss_after - rss_before)));
        }
    }

    void ctlAgainstServer() {
        auto r = run_ft({"ctl", "health", "--url", m_server.url});
        QVERIFY2(r.code == 0 && r.out.startsWith("ok: model qwen3-moe-tiny"), qPrintable(r.out + r.err));
        r = run_ft({"ctl", "stats", "--url", m_server.url, "--api-key", kKey});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("\"generated_tokens_total\"") && r.out.contains("\"kv_pages_total\""), qPrintable(r.out));
        r = run_ft({"ctl", "stats", "--url", m_server.url});  // no key
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--api-key"), qPrintable(r.err));
        r = run_ft({"ctl", "cache", "--url", m_server.url, "--api-key", kKey});
        QVERIFY2(r.code == 0 && r.out.contains("kv "), qPrintable(r.out + r.err));
        // Live cache rebuild (the CPU engine resizes its KV cache; it has no expert cache): accepted, then visible in
        // the status; impossible sizes are rejected with the engine's reason and change nothing.
        r = run_ft({"ctl", "cache", "--kv", "8192", "--url", m_server.url, "--api-key", kKey});
        QVERIFY2(r.code == 0 && r.out.contains("rebuilt") && r.out.contains("8192 KV positions"), qPrintable(r.out + r.err));
        r = run_ft({"ctl", "cache", "--url", m_server.url, "--api-key", kKey});
        QVERIFY2(r.code == 0 && r.out.contains("(8192 positions)"), qPrintable(r.out + r.err));
        r = run_ft({"ctl", "cache", "--moe", "7", "--url", m_server.url, "--api-key", kKey});
        QVERIFY2(r.code == 1 && r.err.contains("rejected") && r.err.contains("expert cache"), qPrintable(r.out + r.err));
        r = run_ft({"ctl", "cache", "--kv", "1", "--url", m_server.url, "--api-key", kKey, "--json"});
        QVERIFY2(r.code == 1 && r.out.contains("\"accepted\": false"), qPrintable(r.out + r.err));
        r = run_ft({"ctl", "cache", "--url", m_server.url, "--api-key", kKey});
        QVERIFY2(r.code == 0 && r.out.contains("(8192 positions)"), qPrintable(r.out + r.err));
        r = run_ft({"ctl", "requests", "--url", m_server.url, "--api-key", kKey});
        QVERIFY2(r.code == 0 && r.out.contains("no requests in flight"), qPrintable(r.out + r.err));
        r = run_ft({"ctl", "cancel", "99999", "--url", m_server.url, "--api-key", kKey});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("no request 99999"), qPrintable(r.err));
        r = run_ft({"ctl", "health", "--url", "http://127.0.0.1:1"});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("cannot reach the server") && r.err.contains("ft serve"), qPrintable(r.err));
    }

    void benchServe() {
        QTemporaryDir dir;
        const QString json = dir.filePath("bench.json");
        const auto r = run_ft({"bench", "serve", "--url", m_server.url, "--api-key", kKey, "--clients", "3", "--requests", "2",
                               "--max-tokens", "4", "--json", json});
        QVERIFY2(r.code == 0 && r.out.contains("tok/s aggregate") && r.out.contains("TTFT p50"), qPrintable(r.out + r.err));
        QFile f(json);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const auto j = QJsonDocument::fromJson(f.readAll()).object();
        QCOMPARE(j["requests_ok"].toInt(), 6);
        QCOMPARE(j["requests_failed"].toInt(), 0);
        QVERIFY(j["completion_tokens"].toInt() > 0 && j["completion_tokens"].toInt() <= 6 * 4);
        QVERIFY(j["aggregate_tok_s"].toDouble() > 0 && j["ttft_ms_p99"].toDouble() >= j["ttft_ms_p50"].toDouble());
    }

    void portInUse() {
        const QString port = m_server.url.section(':', -1);
        const auto r = run_ft({"serve", "--model", kModel, "--device", "cpu", "--threads", "1", "--port", port}, {}, 120000);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("port " + port + " is already in use") && r.err.contains("--port"), qPrintable(r.err));
    }

    // A non-streamed client that disconnects cancels its generation (a 16k context, so the request runs for seconds
    // whatever the machine's speed).
    void nonStreamedDisconnect() {
        if (!m_no_reference.isEmpty()) QSKIP(qPrintable(m_no_reference));
        Server longCtx;
        QVERIFY2(longCtx.start({"--ctx", "16384"}), qPrintable(longCtx.log()));
        QString log;
        const int rc = run_node({"disconnect", longCtx.url, "qwen3-moe-tiny", kKey}, log);
        qInfo().noquote() << log;
        QVERIFY2(rc == 0, qPrintable(log + "\nserver log:\n" + longCtx.log()));
    }

    // A queue of 1: a second concurrent request is answered 429 with the protocol's error shape; the body limit (413)
    // and CORS (only when asked for) on the same server.
    void boundedQueue() {
        if (!m_no_reference.isEmpty()) QSKIP(qPrintable(m_no_reference));
        Server small;
        QVERIFY2(small.start({"--max-queue", "1", "--max-body", "4K", "--cors", "http://example.test"}),
                 qPrintable(small.log()));
        QString log;
        const int rc = run_node({"queue", small.url, "qwen3-moe-tiny", kKey}, log);
        qInfo().noquote() << log;
        QVERIFY2(rc == 0, qPrintable(log));
    }

    // `ft chat --attach`: two user turns piped in, both answered by the server (streamed), the second with the
    // first turn in its prompt (history kept); /reset forgets it. A server that is not there, a wrong key and an
    // unknown model are clear errors.
    void chatAttach() {
        auto r = run_ft({"chat", "--attach", m_server.url + "/v1", "--api-key", kKey, "--max-tokens", "8", "--temperature", "0"},
                        "Hello there\nAnd a second question\n/reset\nAnd a second question\n");
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        QVERIFY2(r.err.startsWith("qwen3-moe-tiny at " + m_server.url), qPrintable(r.err));
        QRegularExpression stats(QStringLiteral("\\[(\\d+) tokens, prompt (\\d+), TTFT"));
        std::vector<int> prompt, completion;
        for (auto it = stats.globalMatch(r.err); it.hasNext();) {
            const auto m = it.next();
            completion.push_back(m.captured(1).toInt());
            prompt.push_back(m.captured(2).toInt());
        }
        QVERIFY2(prompt.size() == 3, qPrintable(r.err));
        QVERIFY2(completion[0] > 0 && completion[1] > 0, qPrintable(r.err));
        QVERIFY2(prompt[1] > prompt[0] + completion[0] / 2, qPrintable(r.err));  // the first turn is in the prompt
        QVERIFY2(prompt[2] < prompt[1], qPrintable(r.err));                      // /reset forgot it
        QVERIFY2(r.err.contains("(conversation reset)"), qPrintable(r.err));
        QVERIFY2(r.out.count('\n') >= 3 && !r.out.trimmed().isEmpty(), qPrintable(r.out));  // three replies
        // Greedy: after /reset the question is a new conversation, answered as a fresh session answers it.
        auto fresh = run_ft({"chat", "--attach", m_server.url, "--api-key", kKey, "--max-tokens", "8", "--temperature", "0"},
                            "And a second question\n");
        QVERIFY2(fresh.code == 0, qPrintable(fresh.err));
        QVERIFY2(r.out.endsWith(fresh.out), qPrintable(r.out + "\n--\n" + fresh.out));

        r = run_ft({"chat", "--attach", "http://127.0.0.1:1"}, "hi\n");
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("cannot reach the server at http://127.0.0.1:1") && r.err.contains("ft serve"), qPrintable(r.err));
        r = run_ft({"chat", "--attach", m_server.url, "--api-key", "wrong"}, "hi\n");
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("refused the API key") && r.err.contains("--api-key"), qPrintable(r.err));
        r = run_ft({"chat", "--attach", m_server.url, "--api-key", kKey, "--model", "nope"}, "hi\n");
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("does not serve 'nope'") && r.err.contains("qwen3-moe-tiny"), qPrintable(r.err));
        // An error answer mid-session is reported and the chat goes on: the next line is answered.
        r = run_ft({"chat", "--attach", m_server.url, "--api-key", kKey, "--max-tokens", "4", "--top-p", "7"}, "hi\n");
        QCOMPARE(r.code, 0);
        QVERIFY2(r.err.contains("HTTP 400") && r.err.contains("top_p"), qPrintable(r.err));
    }

    // `ft chat --attach` and the desktop app's server list (issue 48): the key from FT_API_KEY or from the app's
    // servers.json (never printed), the server's other models named, plain http to another computer refused without
    // --allow-plain-http, an address that is not http(s) refused.
    void chatAttachKeysAndAddresses() {
        QTemporaryDir data;
        const QByteArray oldData = qgetenv("FT_DATA_DIR");
        qputenv("FT_DATA_DIR", data.path().toUtf8());
        auto r = run_ft({"chat", "--attach", m_server.url, "--max-tokens", "2"}, "hi\n");
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("wants an API key") && r.err.contains("FT_API_KEY"), qPrintable(r.err));
        qputenv("FT_API_KEY", kKey.toUtf8());
        r = run_ft({"chat", "--attach", m_server.url + "/v1/", "--max-tokens", "2"}, "hi\n");
        qunsetenv("FT_API_KEY");
        QVERIFY2(r.code == 0 && r.err.contains("[2 tokens"), qPrintable(r.err));
        QVERIFY(!r.err.contains(kKey) && !r.out.contains(kKey));
        // The key the desktop app saved for this server (Models → Add a server…).
        QFile f(data.filePath("servers.json"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QStringLiteral(R"({"servers":[{"url":"%1","api_key":"%2","plain_http_ok":false}]})").arg(m_server.url, kKey).toUtf8());
        f.close();
        r = run_ft({"chat", "--attach", m_server.url, "--max-tokens", "2"}, "hi\n");
        QVERIFY2(r.code == 0 && r.err.contains("[2 tokens"), qPrintable(r.err));
        QVERIFY(!r.err.contains(kKey));
        // A wrong saved key says where it came from.
        f.open(QIODevice::WriteOnly);
        f.write(QStringLiteral(R"({"servers":[{"url":"%1","api_key":"stale","plain_http_ok":false}]})").arg(m_server.url).toUtf8());
        f.close();
        r = run_ft({"chat", "--attach", m_server.url}, "hi\n");
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("refused the API key (from the key saved for this server in") && !r.err.contains("stale"),
                 qPrintable(r.err));
        r = run_ft({"chat", "--attach", "http://192.0.2.1:8000"}, "hi\n");
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("plain http to another computer") && r.err.contains("--allow-plain-http"), qPrintable(r.err));
        // Asked once: a server the app added with the user's yes to plain http is not refused again (it is tried,
        // and here it cannot be reached: TEST-NET-1 is nobody's).
        f.open(QIODevice::WriteOnly);
        f.write(QStringLiteral(R"({"servers":[{"url":"%1","plain_http_ok":true}]})").arg("http://192.0.2.1:8000").toUtf8());
        f.close();
        r = run_ft({"chat", "--attach", "http://192.0.2.1:8000"}, "hi\n");
        QVERIFY2(r.code != 0 && !r.err.contains("plain http") && r.err.contains("cannot reach the server at http://192.0.2.1:8000"),
                 qPrintable(r.err));
        r = run_ft({"chat", "--attach", "ftp://127.0.0.1"}, "hi\n");
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("ftp://") && r.err.contains("http or https"), qPrintable(r.err));
        qputenv("FT_DATA_DIR", oldData);
    }

    void cleanupTestCase() {}

private:
    Server m_server;
    QString m_no_reference;  // why the npm clients cannot run (empty: they can)
};

FT_TEST_MAIN(TestServerClients)
#include "test_server_clients.moc"
