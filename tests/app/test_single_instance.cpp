// One app per user and data folder (app/desktop/single_instance.h), on the real freetoken executable (offscreen): a
// second start with a model path (relative to its working folder) hands it to the running app, which opens and loads
// it, and exits 0 with a line saying so; a second start without a path exits 0 too (the running window comes to the
// front); a start with another FT_DATA_DIR is an app of its own; after the app was killed (SIGKILL: its socket file
// stays behind) the next start listens again instead of waiting on a dead socket. A running app that does not answer
// is said in a message box, in the user's language (SingleInstance::reportNoAnswer in this process, and the real
// executable's second start, which waits for that box to be closed).
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QLocalServer>
#include <QLocalSocket>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <atomic>
#include <memory>

#include "qml_setup.h"
#include "single_instance.h"

namespace {

const QString kModel = QStringLiteral(FT_SOURCE_DIR "/tests/data/qwen3-moe-tiny");
const QString kListening = QStringLiteral("listening for a second start on ");

QString read_all(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

bool has_range(const QString& s, char16_t lo, char16_t hi) {
    return std::any_of(s.begin(), s.end(), [&](QChar c) { return c.unicode() >= lo && c.unicode() <= hi; });
}

// Something listening on `name` that reads what a second start sends and hangs up without "ok" (an app whose
// answer never comes), on a thread of its own: handOver blocks the test's thread.
class SilentServer {
public:
    explicit SilentServer(const QString& name) {
        m_thread.reset(QThread::create([this, name] {
            QLocalServer server;
            QLocalServer::removeServer(name);
            m_state = server.listen(name) ? 1 : -1;
            while (m_state == 1 && !m_stop) {
                if (!server.waitForNewConnection(50)) continue;
                while (QLocalSocket* s = server.nextPendingConnection()) {
                    if (s->waitForReadyRead(5000)) m_heard += int(s->readAll().size());
                    s->abort();
                    delete s;
                }
            }
        }));
        m_thread->start();
        while (m_state == 0) QThread::yieldCurrentThread();
    }
    ~SilentServer() {
        m_stop = true;
        m_thread->wait();
    }
    bool listening() const { return m_state == 1; }
    int heard() const { return m_heard; }

private:
    std::unique_ptr<QThread> m_thread;
    std::atomic<bool> m_stop{false};
    std::atomic<int> m_heard{0};
    std::atomic<int> m_state{0};  // 1 listening, -1 could not
};

}  // namespace

class TestSingleInstance : public QObject {
    Q_OBJECT

    static void start(QProcess& app, const QString& data_dir, const QStringList& args, const QString& cwd = {}) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("FT_DATA_DIR", data_dir);
        env.insert("FT_KEYCHAIN", "off");
        if (!env.contains("QT_QPA_PLATFORM")) env.insert("QT_QPA_PLATFORM", "offscreen");
        app.setProcessEnvironment(env);
        if (!cwd.isEmpty()) app.setWorkingDirectory(cwd);
        app.start(QStringLiteral(FT_DESKTOP_EXE), args);
        QVERIFY2(app.waitForStarted(20000), qPrintable(app.errorString()));
    }
    // Waits until the log of `data_dir` holds `what` `count` times (or the app ends, or 60 s pass).
    static bool wait_log(const QString& data_dir, const QString& what, QProcess& app, int count = 1) {
        QElapsedTimer t;
        t.start();
        while (read_all(data_dir + "/logs/freetoken.log").count(what) < count) {
            if (t.elapsed() > 60000 || app.state() == QProcess::NotRunning) return false;
            QTest::qWait(100);
        }
        return true;
    }
    static void stop(QProcess& app) {
        app.terminate();
        QVERIFY(app.waitForFinished(30000));
        QCOMPARE(app.exitCode(), 0);
    }

private slots:
    void aRunningAppThatDoesNotAnswerIsSaidInABox() {
        QTemporaryDir data;
        QVERIFY(data.isValid());
        qputenv("FT_DATA_DIR", QFile::encodeName(data.path()));
        ft::app::SingleInstance instance;
        QVERIFY(!instance.name().isEmpty());
        SilentServer silent(instance.name());
        QVERIFY(silent.listening());
        const QString model = data.filePath("model.gguf");
        QElapsedTimer t;
        t.start();
        QCOMPARE(instance.handOver(model, 10000), ft::app::SingleInstance::HandOver::NoAnswer);
        QVERIFY2(t.elapsed() < 5000, "the hang-up is an answer that is not ok: no wait for the timeout");
        QCOMPARE(silent.heard(), int(("open " + model + "\n").toUtf8().size()));

        QMap<QString, QPair<QString, QString>> said;  // language -> (text, informative text)
        for (const QString& language : {QStringLiteral("en"), QStringLiteral("ko"), QStringLiteral("zh_CN")}) {
            QVERIFY(ft::ui::install_language(language));
            bool seen = false;
            QTimer poll;
            QObject::connect(&poll, &QTimer::timeout, [&] {
                auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
                if (!box) return;
                poll.stop();
                seen = true;
                said[language] = {box->text(), box->informativeText()};
                QCOMPARE(box->icon(), QMessageBox::Warning);
                QCOMPARE(box->windowTitle(), QStringLiteral("FreeToken"));
                box->button(QMessageBox::Ok)->click();
            });
            poll.start(20);
            ft::app::SingleInstance::reportNoAnswer(10, model);  // returns once the box is closed
            QVERIFY2(seen, qPrintable(language));
            const auto& [text, advice] = said[language];
            QVERIFY2(text.contains(model) && text.contains("10"), qPrintable(text));
            QVERIFY2(advice.contains("freetoken"), qPrintable(advice));  // the process to end, by its name
        }
        QVERIFY2(said["en"].first.contains("did not answer") && said["en"].second.contains("start FreeToken again"),
                 qPrintable(said["en"].first + " / " + said["en"].second));
        for (const QString& language : {QStringLiteral("ko"), QStringLiteral("zh_CN")}) {
            QVERIFY2(said[language].first != said["en"].first && said[language].second != said["en"].second,
                     qPrintable(language + ": " + said[language].first + " / " + said[language].second));
            const bool script = language == "ko" ? has_range(said[language].first + said[language].second, 0xAC00, 0xD7A3)
                                                 : has_range(said[language].first + said[language].second, 0x4E00, 0x9FFF);
            QVERIFY2(script, qPrintable(said[language].first));
        }
        QVERIFY(ft::app::SingleInstance::noAnswerText(10, {}) != ft::app::SingleInstance::noAnswerText(10, model));
        QVERIFY(ft::ui::install_language("en"));
        qunsetenv("FT_DATA_DIR");
    }

    // The real executable: its second start finds an app that hangs up without answering; it says so in the user's
    // language (Korean here, from the data folder's settings) and waits for its box to be closed.
    void aSecondStartWithoutAnswerWaitsOnItsBox() {
#ifdef Q_OS_WIN
        QSKIP("the POSIX side; tests/windows/test_wine_app checks it under Wine");
#else
        QTemporaryDir data;
        QVERIFY(data.isValid());
        {
            QFile ini(data.filePath("freetoken.ini"));
            QVERIFY(ini.open(QIODevice::WriteOnly));
            ini.write("[ui]\nlanguage=ko\n");
        }
        qputenv("FT_DATA_DIR", QFile::encodeName(data.path()));
        const QString name = ft::app::SingleInstance().name();  // the executable derives the same from FT_DATA_DIR
        qunsetenv("FT_DATA_DIR");
        SilentServer silent(name);
        QVERIFY(silent.listening());
        QProcess second;
        start(second, data.path(), {"model.gguf"}, data.path());
        second.setReadChannel(QProcess::StandardError);
        QElapsedTimer t;
        t.start();
        const QByteArray model = data.filePath("model.gguf").toUtf8();
        QByteArray err;
        while (!err.contains(model) && t.elapsed() < 20000 && second.state() == QProcess::Running) {
            second.waitForReadyRead(200);
            err += second.readAllStandardError();
        }
        const QString text = QString::fromUtf8(err);
        QVERIFY2(silent.heard() > 0, qPrintable(text));
        QVERIFY2(err.contains(model) && has_range(text, 0xAC00, 0xD7A3), qPrintable(text));
        QVERIFY2(!second.waitForFinished(1500), "the second start must wait for its message box to be closed");
        second.kill();
        QVERIFY(second.waitForFinished(10000));
        QVERIFY(!QFile::exists(data.filePath("logs/freetoken.log")));  // it did not start an app of its own
#endif
    }

    void secondStartHandsItsModelOver() {
#ifdef Q_OS_WIN
        QSKIP("the POSIX side; tests/windows/test_wine_app checks it under Wine");
#else
        QTemporaryDir data;
        QVERIFY(data.isValid());
        const QString model = data.filePath("qwen3-moe-tiny");  // a copy: the app keeps it open while it runs
        QVERIFY(QDir().mkpath(model));
        for (const char* f : {"config.json", "tokenizer.json", "tokenizer_config.json", "model.safetensors"})
            QVERIFY2(QFile::copy(kModel + "/" + f, model + "/" + f), qPrintable(f));
        const QString log = data.path() + "/logs/freetoken.log";

        QProcess first;
        start(first, data.path(), {});
        QVERIFY2(wait_log(data.path(), kListening, first), qPrintable(read_all(log)));

        QProcess second;  // a relative path: the running app gets it made absolute in the second one's folder
        start(second, data.path(), {"qwen3-moe-tiny"}, data.path());
        QVERIFY(second.waitForFinished(30000));
        const QString said = QString::fromUtf8(second.readAllStandardOutput() + second.readAllStandardError());
        QVERIFY2(second.exitStatus() == QProcess::NormalExit && second.exitCode() == 0, qPrintable(said));
        QVERIFY2(said.contains("already running") && said.contains(model), qPrintable(said));
        QVERIFY2(wait_log(data.path(), "a second start: open " + model, first), qPrintable(read_all(log)));
        QVERIFY2(wait_log(data.path(), "] loaded qwen3-moe-tiny ", first), qPrintable(read_all(log)));  // its folder name

        QProcess third;  // no path: the window comes to the front
        start(third, data.path(), {});
        QVERIFY(third.waitForFinished(30000));
        QCOMPARE(third.exitCode(), 0);
        QVERIFY2(wait_log(data.path(), "a second start: show the window", first), qPrintable(read_all(log)));
        QCOMPARE(read_all(log).count(kListening), 1);  // neither of them opened an app of its own

        QTemporaryDir other;  // another data folder: another app, which listens itself
        QProcess elsewhere;
        start(elsewhere, other.path(), {});
        QVERIFY2(wait_log(other.path(), kListening, elsewhere), qPrintable(read_all(other.path() + "/logs/freetoken.log")));
        stop(elsewhere);
        stop(first);
#endif
    }

    void aKilledAppDoesNotBlockTheNextStart() {
#ifdef Q_OS_WIN
        QSKIP("SIGKILL is POSIX");
#else
        QTemporaryDir data;
        QVERIFY(data.isValid());
        QProcess crashed;
        start(crashed, data.path(), {});
        QVERIFY(wait_log(data.path(), kListening, crashed));
        crashed.kill();  // SIGKILL: the socket file stays
        QVERIFY(crashed.waitForFinished(10000));
        QProcess next;
        start(next, data.path(), {});
        QVERIFY2(wait_log(data.path(), kListening, next, 2), qPrintable(read_all(data.path() + "/logs/freetoken.log")));
        stop(next);
#endif
    }
};

QTEST_MAIN(TestSingleInstance)
#include "test_single_instance.moc"
