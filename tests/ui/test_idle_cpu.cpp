// What the idle app costs, page by page, in the real window: the process's CPU time (GUI thread, render thread and,
// under Xvfb, llvmpipe's rasterizer threads) and the frames it renders while nobody touches it, without a model and
// with the tiny model loaded and idle. Under software rendering (VMs, remote desktops) every frame redraws the whole
// window: nothing may repaint when nothing changed. Run under Xvfb (ctest's *_xvfb) for the figures that matter;
// offscreen it checks the same limits.
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QQuickItemGrabResult>
#include <QQuickWindow>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <memory>

#include <unistd.h>

#include "app_harness.h"
#include "engine_host.h"
#include "ft/log.h"
#include "log_hub.h"

namespace {

const QString kTinyModel = QStringLiteral(FT_SOURCE_DIR "/tests/data/qwen3-moe-tiny");
// The limits: the sidebar's RAM figure changes once a second at most and the Console's charts draw what only moves
// with time in that same frame (ConsoleModel::tick), only while on screen. Under Xvfb every page, the Console with a
// model included, draws 1.0 frame/s (docs/benchmarks.md has the figures); a second source of frames, even once a
// second, doubles that, so the Xvfb limit is 1.6. Offscreen Qt draws 2–3.2 frames/s for the same updates.
constexpr double kMaxFramesPerSecondXvfb = 1.6;
constexpr double kMaxFramesPerSecondOffscreen = 4.0;
constexpr double kMaxCpuPercent = 5.0;

// CPU seconds used by this process so far (all threads).
double process_cpu_seconds() {
    QFile f(QStringLiteral("/proc/self/stat"));
    if (!f.open(QIODevice::ReadOnly)) return 0;
    const QByteArray stat = f.readAll();
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const QList<QByteArray> rest = stat.mid(stat.lastIndexOf(')') + 2).split(' ');
    if (rest.size() < 13) return 0;
    const double ticks = double(sysconf(_SC_CLK_TCK));
    return (rest.at(11).toDouble() + rest.at(12).toDouble()) / ticks;
}

}  // namespace

class TestIdleCpu : public QObject {
    Q_OBJECT
    QTemporaryDir m_data;
    ft::LogHub m_hub;
    std::unique_ptr<ft::test::UiHarness> m_ui;
    QString m_model;

    struct Idle {
        double cpuPercent = 0;
        double framesPerSecond = 0;
    };

    Idle measure(const QString& page, int ms) {
        Idle out;
        if (!m_ui->showPage(page)) return out;
        QTest::qWait(1500);  // what the page change started (animations, first polls) is over
        int frames = 0;
        auto c = connect(m_ui->window(), &QQuickWindow::frameSwapped, this, [&] { ++frames; });
        const double cpu0 = process_cpu_seconds();
        QElapsedTimer t;
        t.start();
        QTest::qWait(ms);
        const double cpu = process_cpu_seconds() - cpu0;
        const double s = t.elapsed() / 1000.0;
        disconnect(c);
        out.cpuPercent = 100 * cpu / s;
        out.framesPerSecond = frames / s;
        return out;
    }

    static QImage grabItem(QQuickItem* item) {
        QSharedPointer<QQuickItemGrabResult> r = item->grabToImage();
        if (!r) return {};
        QSignalSpy ready(r.data(), &QQuickItemGrabResult::ready);
        if (!ready.wait(5000)) return {};
        return r->image();
    }

    // An idle engine's samples repeat the same values: the charts no longer repaint at each of them, but what moves
    // with time (the line of the last minute growing from the load on) still moves, at the page's 1 s tick.
    void chartsMoveWithTime() {
        QVERIFY(m_ui->showPage(QStringLiteral("console")));
        QObject* cm = m_ui->object(QStringLiteral("consoleModel"));
        QVERIFY(cm);
        QVERIFY(cm->setProperty("windowMinutes", 1));
        QQuickItem* chart = m_ui->item(QStringLiteral("kvChart"));
        QVERIFY(chart);
        QTRY_VERIFY(chart->isVisible());
        QTest::qWait(1500);
        const QImage before = grabItem(chart);
        QTest::qWait(3000);
        const QImage after = grabItem(chart);
        QVERIFY(cm->setProperty("windowMinutes", 5));
        QVERIFY(!before.isNull() && !after.isNull());
        QVERIFY2(before != after, "the KV chart did not move in 3 s of an idle engine's samples (1 min window)");
    }

    void checkPages(const QString& state) {
        const double max_fps = QGuiApplication::platformName() == QStringLiteral("xcb") ? kMaxFramesPerSecondXvfb
                                                                                          : kMaxFramesPerSecondOffscreen;
        QStringList over;
        for (const QString page : {QStringLiteral("models"), QStringLiteral("console"), QStringLiteral("chat"),
                                    QStringLiteral("logs"), QStringLiteral("settings")}) {
            Idle idle = measure(page, 5000);
            // Over the limit: measured once more and the lower kept. What the page itself costs shows in both; a
            // burst of the shared CI machine's other work rarely does.
            if (idle.cpuPercent > kMaxCpuPercent || idle.framesPerSecond > max_fps) {
                const Idle again = measure(page, 5000);
                qInfo("%s, %s page: %.1f %% of a core, %.2f frames/s; measured again", qPrintable(state),
                      qPrintable(page), idle.cpuPercent, idle.framesPerSecond);
                idle.cpuPercent = std::min(idle.cpuPercent, again.cpuPercent);
                idle.framesPerSecond = std::min(idle.framesPerSecond, again.framesPerSecond);
            }
            qInfo("%s, %s page: %.1f %% of a core, %.2f frames/s", qPrintable(state), qPrintable(page), idle.cpuPercent,
                  idle.framesPerSecond);
            if (idle.framesPerSecond > max_fps)
                over << QStringLiteral("%1, %2: %3 frames/s").arg(state, page).arg(idle.framesPerSecond, 0, 'f', 2);
            if (idle.cpuPercent > kMaxCpuPercent)
                over << QStringLiteral("%1, %2: %3 % of a core").arg(state, page).arg(idle.cpuPercent, 0, 'f', 1);
        }
        QVERIFY2(over.isEmpty(), qPrintable(over.join('\n')));
    }

private slots:
    void initTestCase() {
        QVERIFY(m_data.isValid());
        qputenv("FT_DATA_DIR", m_data.path().toUtf8());
        m_model = m_data.filePath("qwen3-moe-tiny");
        QVERIFY(QDir().mkpath(m_model));
        for (const QString& f : {"config.json", "tokenizer.json", "tokenizer_config.json", "model.safetensors"})
            QVERIFY2(QFile::copy(kTinyModel + "/" + f, m_model + "/" + f), qPrintable(f));
        ft::attach_log_hub(m_hub, "freetoken");
        m_ui = std::make_unique<ft::test::UiHarness>(&m_hub);
        ft::LoadOptions o;
        o.device = ft::Device::cpu;
        o.threads = 1;
        m_ui->host()->setLoadOptions(o);
        QVERIFY(m_ui->load());
    }

    void idleWithoutAModel() { checkPages(QStringLiteral("no model")); }

    void idleWithAModelLoaded() {
        QObject* library = m_ui->object("libraryModel");
        bool ok = false;
        QMetaObject::invokeMethod(library, "addPath", Q_RETURN_ARG(bool, ok), Q_ARG(QString, m_model));
        QVERIFY(ok);
        QSignalSpy done(m_ui->host(), &ft::EngineHost::loadFinished);
        m_ui->host()->load(m_model);
        QVERIFY(done.wait(60000));
        QVERIFY2(done.first().at(0).toBool(), qPrintable(done.first().at(1).toString()));
        chartsMoveWithTime();
        if (QTest::currentTestFailed()) return;
        checkPages(QStringLiteral("model loaded"));
    }

    void cleanupTestCase() { m_ui.reset(); }
};

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    TestIdleCpu t;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&t, argc, argv);
}

#include "test_idle_cpu.moc"
