// One app per user and data folder (app/desktop/single_instance.h), on the real freetoken executable (offscreen): a
// second start with a model path (relative to its working folder) hands it to the running app, which opens and loads
// it, and exits 0 with a line saying so; a second start without a path exits 0 too (the running window comes to the
// front); a start with another FT_DATA_DIR is an app of its own; after the app was killed (SIGKILL: its socket file
// stays behind) the next start listens again instead of waiting on a dead socket.
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace {

const QString kModel = QStringLiteral(FT_SOURCE_DIR "/tests/data/qwen3-moe-tiny");
const QString kListening = QStringLiteral("listening for a second start on ");

QString read_all(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

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
    void secondStartHandsItsModelOver() {
#ifdef Q_OS_WIN
        QSKIP("the POSIX side; tests/windows/test_wine_app checks it under Wine");
#else
        QTemporaryDir data;
        QVERIFY(data.isValid());
        const QString model = data.filePath("qwen3-moe-tiny");  // a copy: the app keeps it open while it runs
        QVERIFY(QDir().mkpath(model));
        for (const QString& f : {"config.json", "tokenizer.json", "tokenizer_config.json", "model.safetensors"})
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

QTEST_GUILESS_MAIN(TestSingleInstance)
#include "test_single_instance.moc"
