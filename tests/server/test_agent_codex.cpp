// The real OpenAI Codex CLI (`@openai/codex`, pinned in tests/reference) against `ft serve` on the bundled demo
// model, offline: a temporary CODEX_HOME whose config.toml points a `wire_api = "responses"` provider at the server
// (no update check, no analytics, no sandbox: the CI container runs as root), a temporary working folder with one
// file, and `codex exec` asked to read it; then `codex exec resume` of the same session.
//
// The demo model is a 16 M-parameter toy trained on a few one-tool tasks in Codex's and Claude Code's request shapes
// (scripts/demo-model/prepare_agents.py): it runs `cat notes.txt` through exec_command and answers with the secret
// word. Checked besides: the CLI exits 0 with a completed turn and no error event, every request it sent was answered
// 2xx (the server's request log), and the resumed session's request carried the first turn back (its prompt is
// longer than the whole first one) and found it in the prefix cache. Then the requests Codex sent in recorded sessions
// (tests/data/agents/codex-0.171.0, a namespace call and a function call fed back among them) are replayed through
// the official openai SDK (tests/reference/serve_clients.mjs codex-shapes), streamed and not. Without the codex
// binary (or node and the openai package) the suite skips, unless FT_REQUIRE_REFERENCE is set.
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <filesystem>

#include "ft_test.h"
#include "serve_process.h"

namespace fs = std::filesystem;

namespace {

const QString kDemoModel = QStringLiteral(FT_SOURCE_DIR "/resources/models/freetoken-demo.gguf");
const QString kModelName = QStringLiteral("freetoken-demo");
const QString kKey = QStringLiteral("codex-test-key");

QString codex_exe() {
    const QString env = qEnvironmentVariable("FT_CODEX");
    if (!env.isEmpty()) return env;
    return QStringLiteral(FT_SOURCE_DIR "/tests/reference/node_modules/.bin/codex");
}

QString node_exe() { return qEnvironmentVariable("FT_NODE", QStandardPaths::findExecutable(QStringLiteral("node"))); }

// One `codex exec --json` run: its exit code, the JSONL events it printed, and its stderr.
struct CodexRun {
    int code = -1;
    QList<QJsonObject> events;
    QString out, err;

    QString dump() const { return "exit " + QString::number(code) + "\nstdout:\n" + out + "\nstderr:\n" + err; }
    // The last turn.completed event's usage (input_tokens, …), empty if none.
    QJsonObject usage() const {
        QJsonObject u;
        for (const auto& e : events)
            if (e["type"].toString() == "turn.completed") u = e["usage"].toObject();
        return u;
    }
    // turn.failed and top-level error events (a stream or API error the CLI reports).
    QStringList failures() const {
        QStringList f;
        for (const auto& e : events) {
            const QString t = e["type"].toString();
            if (t == "turn.failed" || t == "error") f << QString::fromUtf8(QJsonDocument(e).toJson(QJsonDocument::Compact));
        }
        return f;
    }
    QString thread_id() const {
        for (const auto& e : events)
            if (e["type"].toString() == "thread.started") return e["thread_id"].toString();
        return {};
    }
};

// Every "METHOD PATH STATUS" line the server logged.
struct LoggedRequest {
    QString method, path;
    int status = 0;
};
QList<LoggedRequest> logged_requests(const QString& log) {
    QList<LoggedRequest> out;
    static const QRegularExpression re(QStringLiteral("^(GET|POST|DELETE|PUT|PATCH|OPTIONS) (/\\S*) (\\d{3})$"),
                                       QRegularExpression::MultilineOption);
    for (auto it = re.globalMatch(log); it.hasNext();) {
        const auto m = it.next();
        out.append(LoggedRequest{m.captured(1), m.captured(2), m.captured(3).toInt()});
    }
    return out;
}

}  // namespace

class TestAgentCodex : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (!fs::exists(codex_exe().toStdString())) {
            m_skip = "the Codex CLI is not installed (" + codex_exe() +
                     "; run npm ci in tests/reference, or set FT_CODEX)";
            if (qEnvironmentVariableIsSet("FT_REQUIRE_REFERENCE")) QFAIL(qPrintable(m_skip));
            return;
        }
        QVERIFY2(fs::exists(kDemoModel.toStdString()), qPrintable(kDemoModel));
        QVERIFY(m_home.isValid() && m_work.isValid());
        // Codex's system prompt and tool list alone are ~15k tokens of the demo model's vocabulary.
        QVERIFY2(m_server.start({"--model", kDemoModel, "--name", kModelName, "--device", "cpu", "--threads", "2",
                                 "--ctx", "32768", "--api-key", kKey}),
                 qPrintable(m_server.log()));
        QFile notes(m_work.filePath("notes.txt"));
        QVERIFY(notes.open(QIODevice::WriteOnly));
        notes.write("The secret word is pelican.\n");
        notes.close();
        QFile cfg(m_home.filePath("config.toml"));
        QVERIFY(cfg.open(QIODevice::WriteOnly));
        const QString toml = QStringLiteral(
            "model = \"%1\"\n"
            "model_provider = \"freetoken\"\n"
            "model_context_window = 32768\n"
            "approval_policy = \"never\"\n"
            "sandbox_mode = \"danger-full-access\"\n"
            "check_for_update_on_startup = false\n"
            "\n"
            "[model_providers.freetoken]\n"
            "name = \"FreeToken (ft serve)\"\n"
            "base_url = \"%2/v1\"\n"
            "wire_api = \"responses\"\n"
            "env_key = \"FT_CODEX_TEST_KEY\"\n"
            "request_max_retries = 0\n"
            "stream_max_retries = 0\n"
            "stream_idle_timeout_ms = 600000\n"
            "\n"
            "[analytics]\n"
            "enabled = false\n"
            "\n"
            "[feedback]\n"
            "enabled = false\n")
                                 .arg(kModelName, m_server.url);
        cfg.write(toml.toUtf8());
        cfg.close();
    }

    // One task, then the same session resumed with a follow-up.
    void execThenResume() {
        if (!m_skip.isEmpty()) QSKIP(qPrintable(m_skip));
        const CodexRun first = codex({"exec", "--json", "--skip-git-repo-check",
                                      "Read the file notes.txt in this folder and tell me the secret word in it."});
        qInfo().noquote() << first.dump();
        QVERIFY2(first.code == 0, qPrintable(first.dump() + "\nserver:\n" + server_log()));
        QVERIFY2(first.failures().isEmpty(), qPrintable(first.failures().join('\n')));
        const QJsonObject u1 = first.usage();
        QVERIFY2(!u1.isEmpty(), qPrintable("no turn.completed event:\n" + first.dump()));
        QVERIFY2(u1["input_tokens"].toInt() > 5000, qPrintable(first.dump()));  // Codex's prompt reached the model
        // The task done with one tool call: the bundled model ran `cat notes.txt` through exec_command and answered
        // from its output.
        QString command, answer;
        for (const auto& e : first.events) {
            const QJsonObject item = e["item"].toObject();
            if (e["type"].toString() != "item.completed") continue;
            if (item["type"].toString() == "command_execution") command = item["command"].toString();
            if (item["type"].toString() == "agent_message") answer = item["text"].toString();
        }
        QVERIFY2(command.contains("cat notes.txt"), qPrintable(first.dump()));
        QVERIFY2(answer.contains("pelican"), qPrintable(first.dump()));

        const QString thread = first.thread_id();
        QVERIFY2(!thread.isEmpty(), qPrintable(first.dump()));
        const CodexRun second = codex({"exec", "--json", "--skip-git-repo-check", "resume", thread,
                                       "Now say the secret word backwards."});
        qInfo().noquote() << second.dump();
        QVERIFY2(second.code == 0, qPrintable(second.dump() + "\nserver:\n" + server_log()));
        QVERIFY2(second.failures().isEmpty(), qPrintable(second.failures().join('\n')));
        QCOMPARE(second.thread_id(), thread);
        // The resumed turn's request holds the whole first turn (Codex sends the history with store: false): its
        // prompt is longer than each of the first turn's requests (the task and the request after the tool ran), and
        // the server's prefix cache held the earlier prompt. Per request, from the server's log lines
        // "/v1/responses: prompt N tokens (M from the prefix cache), …" (turn.completed sums a turn's requests).
        static const QRegularExpression re(QStringLiteral("^/v1/responses: prompt (\\d+) tokens \\((\\d+) from the prefix cache\\)"),
                                           QRegularExpression::MultilineOption);
        QList<QPair<int, int>> prompts;
        for (auto it = re.globalMatch(server_log()); it.hasNext();) {
            const auto m = it.next();
            prompts << qMakePair(m.captured(1).toInt(), m.captured(2).toInt());
        }
        QVERIFY2(prompts.size() >= 3, qPrintable(server_log()));
        int first_max = 0;
        for (int i = 0; i + 1 < prompts.size(); ++i) first_max = std::max(first_max, prompts[i].first);
        const auto [resumed, cached] = prompts.back();
        qInfo("prompt tokens: first turn's requests up to %d, resumed turn %d (%d from the prefix cache)", first_max,
              resumed, cached);
        QVERIFY2(resumed > first_max, qPrintable(QString("resumed prompt %1 tokens, first turn's longest %2").arg(resumed).arg(first_max)));
        QVERIFY2(cached > first_max / 2, qPrintable(second.dump() + "\n" + server_log()));

        // Every request Codex sent was answered 2xx.
        const QString log = server_log();
        const auto reqs = logged_requests(log);
        int responses = 0;
        QStringList bad;
        for (const auto& r : reqs) {
            qInfo("%s %s %d", qPrintable(r.method), qPrintable(r.path), r.status);
            if (r.method == "POST" && r.path == "/v1/responses") ++responses;
            if (r.status < 200 || r.status > 299) bad << r.method + " " + r.path + " " + QString::number(r.status);
        }
        QVERIFY2(responses >= 2, qPrintable(log));
        QVERIFY2(bad.isEmpty(), qPrintable(bad.join('\n') + "\n" + log));
    }

    // The recorded Codex requests through the official openai SDK, streamed and not.
    void recordedCodexShapes() {
        if (!m_skip.isEmpty()) QSKIP(qPrintable(m_skip));
        const fs::path ref = fs::path(FT_SOURCE_DIR) / "tests" / "reference";
        if (node_exe().isEmpty() || !fs::exists(ref / "node_modules" / "openai" / "package.json")) {
            const QString why = QStringLiteral("node or tests/reference/node_modules/openai is missing (npm ci in tests/reference)");
            if (qEnvironmentVariableIsSet("FT_REQUIRE_REFERENCE")) QFAIL(qPrintable(why));
            QSKIP(qPrintable(why));
        }
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.setWorkingDirectory(QString::fromStdString(ref.string()));
        p.start(node_exe(), {QString::fromStdString((ref / "serve_clients.mjs").string()), "codex-shapes", m_server.url,
                             kModelName, kKey, QStringLiteral(FT_SOURCE_DIR "/tests/data/agents/codex-0.171.0")});
        const bool done = p.waitForFinished(400000);
        if (!done) p.kill();
        const QString out = QString::fromUtf8(p.readAll());
        qInfo().noquote() << out;
        QVERIFY2(done && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, qPrintable(out + "\nserver:\n" + server_log()));
        QVERIFY2(out.count(QStringLiteral("ok - turn")) >= 4, qPrintable(out));
    }

private:
    // The server's output so far: its pipes are read only while this process waits on them.
    QString server_log() {
        for (int i = 0; i < 10; ++i) m_server.proc.waitForReadyRead(100);
        return m_server.log();
    }

    CodexRun codex(const QStringList& args) {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("CODEX_HOME", m_home.path());
        env.insert("FT_CODEX_TEST_KEY", kKey);
        env.remove("OPENAI_API_KEY");
        env.remove("OPENAI_BASE_URL");
        p.setProcessEnvironment(env);
        p.setWorkingDirectory(m_work.path());
        p.start(codex_exe(), args);
        CodexRun r;
        if (!p.waitForStarted(30000)) {
            r.err = "codex did not start: " + p.errorString();
            return r;
        }
        p.closeWriteChannel();  // no prompt on stdin
        // The first request prefills ~11k tokens on 2 CPU threads: about 75 s on an idle CI machine, more under load.
        if (!p.waitForFinished(420000)) {
            p.kill();
            p.waitForFinished(5000);
            r.err = "(timeout)\n";
        }
        r.out = QString::fromUtf8(p.readAllStandardOutput());
        r.err += QString::fromUtf8(p.readAllStandardError());
        r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
        for (const auto& line : r.out.split('\n', Qt::SkipEmptyParts)) {
            const auto doc = QJsonDocument::fromJson(line.toUtf8());
            if (doc.isObject()) r.events.append(doc.object());
        }
        return r;
    }

    QString m_skip;
    QTemporaryDir m_home, m_work;
    ft::test::ServeProcess m_server;
};

FT_TEST_MAIN(TestAgentCodex)
#include "test_agent_codex.moc"
