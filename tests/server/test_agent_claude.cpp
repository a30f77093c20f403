// Claude Code — the real CLI from npm (tests/reference: @anthropic-ai/claude-code, a native binary) — against
// `ft serve` on the bundled demo model with the server's defaults (no --model, automatic context), offline: no
// telemetry, update checks or error reports. The demo model is a 16M-parameter toy trained on a few one-tool tasks
// in Claude Code's and Codex's request shapes (scripts/demo-model/prepare_agents.py): asked to read a file, it calls
// Read on it and answers with what the file says. Every request the CLI sends is answered 2xx, the CLI finishes without an API
// error, and a continued conversation (the agent's next turn) reuses the first turn's prompt from the prefix cache.
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

namespace {

const QString kKey = QStringLiteral("agent-key-42");
const QString kClaude = QStringLiteral(FT_SOURCE_DIR "/tests/reference/node_modules/.bin/claude");

struct Run {
    int code = -1;
    QString out, err;
};

}  // namespace

class TestAgentClaude : public QObject {
    Q_OBJECT

    ft::test::ServeProcess m_server;
    QTemporaryDir m_home, m_work;
    QString m_skip;

    // `claude ARGS` in the work folder, pointed at the server, with its own HOME (settings, sessions).
    Run claude(const QStringList& args) {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("HOME", m_home.path());
        env.insert("ANTHROPIC_BASE_URL", m_server.url);
        env.insert("ANTHROPIC_API_KEY", kKey);
        env.remove("ANTHROPIC_AUTH_TOKEN");
        env.insert("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
        env.insert("DISABLE_TELEMETRY", "1");
        env.insert("DISABLE_AUTOUPDATER", "1");
        env.insert("DISABLE_ERROR_REPORTING", "1");
        p.setProcessEnvironment(env);
        p.setWorkingDirectory(m_work.path());
        p.start(kClaude, args);
        p.closeWriteChannel();
        Run r;
        if (!p.waitForFinished(240000)) {
            p.kill();
            p.waitForFinished(5000);
            r.err = "timeout";
            return r;
        }
        r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
        r.out = QString::fromUtf8(p.readAllStandardOutput());
        r.err = QString::fromUtf8(p.readAllStandardError());
        return r;
    }

    // The server's request lines ("POST /v1/messages 200") since start.
    QStringList requestLines() {
        QStringList out;
        static const QRegularExpression re(QStringLiteral("^(GET|POST|DELETE|PUT|OPTIONS) (\\S+) (\\d{3})$"));
        for (const QString& line : m_server.log().split('\n'))
            if (re.match(line.trimmed()).hasMatch()) out << line.trimmed();
        return out;
    }

    // The last JSON object the CLI printed (--output-format json prints one result object).
    static QJsonObject result_of(const Run& r) {
        const QJsonDocument d = QJsonDocument::fromJson(r.out.trimmed().toUtf8());
        return d.object();
    }

private slots:
    void initTestCase() {
        if (!QFile::exists(kClaude)) {
            m_skip = "Claude Code is not installed (npm ci in tests/reference)";
            if (qEnvironmentVariableIsSet("FT_REQUIRE_REFERENCE")) QFAIL(qPrintable(m_skip));
            return;
        }
        QVERIFY(m_home.isValid() && m_work.isValid());
        QFile note(m_work.filePath("note.txt"));
        QVERIFY(note.open(QIODevice::WriteOnly));
        note.write("The secret word is pelican.\n");
        note.close();
        // The defaults an agent user starts with: no --model (the bundled model), no --ctx (automatic).
        QVERIFY2(m_server.start({"--device", "cpu", "--threads", "2", "--api-key", kKey, "--name", "freetoken-demo"}),
                 qPrintable(m_server.log()));
        QVERIFY2(m_server.log().contains("no --model: using the bundled demo model"), qPrintable(m_server.log()));
        QVERIFY2(m_server.log().contains(QRegularExpression("context \\d+ \\(auto: ")), qPrintable(m_server.log()));
    }

    void printMode() {
        if (!m_skip.isEmpty()) QSKIP(qPrintable(m_skip));
        const Run r = claude({"-p", "Read note.txt and reply with the secret word in it.", "--model", "freetoken-demo",
                              "--allowedTools", "Read", "--max-turns", "3", "--output-format", "json"});
        const QStringList lines = requestLines();
        const QString why = r.out + "\n" + r.err + "\nserver:\n" + lines.join('\n');
        QVERIFY2(r.code == 0, qPrintable(why));
        const QJsonObject res = result_of(r);
        QCOMPARE(res.value("type").toString(), QStringLiteral("result"));
        QVERIFY2(!res.value("is_error").toBool(true), qPrintable(why));
        QVERIFY2(lines.filter(QRegularExpression("^POST /v1/messages 200$")).size() >= 1, qPrintable(why));
        for (const QString& l : lines) QVERIFY2(!QRegularExpression(" [45]\\d\\d$").match(l).hasMatch(), qPrintable(why));
        // A tool round trip: the bundled model called Read on note.txt, Claude Code ran it and sent the result in a
        // second request, and the model answered with the word from the file (greedy: the model's recommended
        // sampling, which the server uses since Claude Code sends no temperature).
        QVERIFY2(lines.filter(QRegularExpression("^POST /v1/messages 200$")).size() >= 2, qPrintable(why));
        QVERIFY2(res.value("num_turns").toInt() >= 2, qPrintable(why));
        QVERIFY2(res.value("result").toString().contains("pelican"), qPrintable(why));
        m_first_session = res.value("session_id").toString();
        QVERIFY(!m_first_session.isEmpty());
    }

    // The recorded requests of Claude Code (tests/data/agents) through the official SDK: streamed and not, with
    // ?beta=true and the anthropic-beta header, and count_tokens (tests/reference/serve_clients.mjs agent-shapes).
    void recordedShapesThroughSdk() {
        if (!m_skip.isEmpty()) QSKIP(qPrintable(m_skip));
        const QString node = QStandardPaths::findExecutable(QStringLiteral("node"));
        QVERIFY(!node.isEmpty());
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.setWorkingDirectory(QStringLiteral(FT_SOURCE_DIR "/tests/reference"));
        p.start(node, {QStringLiteral(FT_SOURCE_DIR "/tests/reference/serve_clients.mjs"), "agent-shapes", m_server.url,
                       "freetoken-demo", kKey, QStringLiteral(FT_SOURCE_DIR "/tests/data/agents/claude-code-2.1.332")});
        QVERIFY(p.waitForFinished(400000));
        const QString log = QString::fromUtf8(p.readAll());
        qInfo().noquote() << log;
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, qPrintable(log + "\nserver:\n" + m_server.log()));
    }

    // The agent's next turn: the whole conversation again plus a new user turn. The server's per-request line says
    // how many prompt tokens came from the prefix cache: most of them (the system prompt, the tools, turn 1).
    void continuedTurnReusesPrefix() {
        if (!m_skip.isEmpty()) QSKIP(qPrintable(m_skip));
        if (m_first_session.isEmpty()) QSKIP("printMode did not run");
        const int before = int(requestLines().size());
        const Run r = claude({"-p", "Now say it again, in capitals.", "--resume", m_first_session, "--model",
                              "freetoken-demo", "--allowedTools", "Read", "--max-turns", "2", "--output-format", "json"});
        const QStringList lines = requestLines();
        const QString why = r.out + "\n" + r.err + "\nserver:\n" + m_server.log();
        QVERIFY2(r.code == 0 && !result_of(r).value("is_error").toBool(true), qPrintable(why));
        QVERIFY2(lines.size() > before, qPrintable(why));
        for (const QString& l : lines) QVERIFY2(!QRegularExpression(" [45]\\d\\d$").match(l).hasMatch(), qPrintable(why));
        // "… prompt N tokens (M from the prefix cache) …" for each generation: the last one reused most of its prompt.
        static const QRegularExpression reuse(QStringLiteral("prompt (\\d+) tokens \\((\\d+) from the prefix cache\\)"));
        int prompt = 0, reused = 0;
        for (auto it = reuse.globalMatch(m_server.log()); it.hasNext();) {
            const auto m = it.next();
            prompt = m.captured(1).toInt();
            reused = m.captured(2).toInt();
        }
        QVERIFY2(prompt > 1000, qPrintable(why));
        QVERIFY2(reused * 10 >= prompt * 8, qPrintable(QString("reused %1 of %2 prompt tokens\n").arg(reused).arg(prompt) + why));
    }

private:
    QString m_first_session;
};

FT_TEST_MAIN(TestAgentClaude)
#include "test_agent_claude.moc"
