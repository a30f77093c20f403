// The desktop app's log file (logs/freetoken.log) while it runs and when it is ended by a signal: the real freetoken
// executable, started on the tiny model, must have its info lines on disk as they happen (not only when a later
// warning flushes them), and a SIGTERM must end it through its normal exit path, whose last line is in the file.
// Also: Qt's font warnings ("OpenType support missing for …, script N", one per font and script) do not flood the
// log: the first is kept, the rest are counted.
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include "ft/log.h"
#include "log_hub.h"

namespace {

const QString kModel = QStringLiteral(FT_SOURCE_DIR "/tests/data/qwen3-moe-tiny");

QString read_all(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

}  // namespace

class TestLogFile : public QObject {
    Q_OBJECT

private slots:
    void infoLinesReachTheFileAndSigtermEndsCleanly() {
#ifdef Q_OS_WIN
        QSKIP("SIGTERM is POSIX");
#else
        QTemporaryDir data;
        QVERIFY(data.isValid());
        const QString log = data.path() + "/logs/freetoken.log";
        const QString model = data.filePath("qwen3-moe-tiny");  // a copy: the app may keep it open while it runs
        QVERIFY(QDir().mkpath(model));
        for (const QString& f : {"config.json", "tokenizer.json", "tokenizer_config.json", "model.safetensors"})
            QVERIFY2(QFile::copy(kModel + "/" + f, model + "/" + f), qPrintable(f));
        QProcess app;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("FT_DATA_DIR", data.path());
        if (!env.contains("QT_QPA_PLATFORM")) env.insert("QT_QPA_PLATFORM", "offscreen");
        app.setProcessEnvironment(env);
        app.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        app.start(QStringLiteral(FT_DESKTOP_EXE), {model});
        QVERIFY2(app.waitForStarted(20000), qPrintable(app.errorString()));

        // The engine's "loaded …" info line is on disk while the app runs (no warning comes after it to flush it).
        QElapsedTimer t;
        t.start();
        static const QRegularExpression loadedLine(QStringLiteral("\\[info\\] \\[\\d+\\] loaded "));
        while (!read_all(log).contains(loadedLine)) {
            if (t.elapsed() > 60000 || app.state() != QProcess::Running) break;
            QTest::qWait(100);
        }
        const QString running = read_all(log);
        QVERIFY2(app.state() == QProcess::Running, "the app exited on its own");
        QVERIFY2(running.contains(loadedLine), qPrintable("no load line in the file while running:\n" + running));
        const qint64 loadedAt = t.elapsed();

        // An info line logged just before the signal is in the file after it: SIGTERM ends the app through its
        // normal exit, which logs its last line.
        app.terminate();  // SIGTERM
        QVERIFY(app.waitForFinished(30000));
        QCOMPARE(app.exitStatus(), QProcess::NormalExit);
        QCOMPARE(app.exitCode(), 0);
        const QString done = read_all(log);
        QVERIFY2(done.contains("received SIGTERM"), qPrintable(done.right(2000)));
        const QStringList lines = done.trimmed().split('\n');
        QVERIFY2(lines.last().contains("[info]") && lines.last().contains("FreeToken exiting (0)"),
                 qPrintable(lines.last()));
        qInfo("the load line reached the file %lld ms after the start", loadedAt);
#endif
    }

    // The app's Qt message handler keeps the first font warning and counts the rest.
    void fontWarningsDoNotFloodTheLog() {
        QTemporaryDir data;
        qputenv("FT_DATA_DIR", data.path().toUtf8());
        ft::LogHub hub;
        ft::attach_log_hub(hub, "test_log_file");
        ft::install_qt_log_handler();
        const quint64 before = hub.totalAppended();
        for (int i = 0; i < 70; ++i)
            qWarning("OpenType support missing for \"Font %d\", script %d", i, 13 + i % 3);
        qWarning("a real warning");
        QCoreApplication::processEvents();
        const quint64 lines = hub.totalAppended() - before;
        QVERIFY2(lines <= 3, qPrintable(QString::number(lines)));
        bool real = false, font = false;
        for (const ft::LogEntry& e : hub.snapshot()) {
            real = real || e.text.contains("a real warning");
            font = font || e.text.contains("OpenType support missing");
        }
        QVERIFY(real);
        QVERIFY(font);
        ft::remove_qt_log_handler();
        ft::log_shutdown();
    }
};

QTEST_GUILESS_MAIN(TestLogFile)
#include "test_log_file.moc"
