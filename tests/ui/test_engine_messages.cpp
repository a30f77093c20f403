// Issue 43, defect 8: the engine's messages the window shows are in the app's language. The engine gives them as a
// key and arguments (ft::Message: ft::Error::key(), RebuildResult::reason_key, gpu_unavailable_message(),
// ModelInfo::device_key) and the app translates them (app/core/engine_text.h). In the real window (offscreen, and
// under Xvfb as test_engine_messages_xvfb) with the real CPU engine: a damaged model file on the Models page (and its
// load error), the engine refusing a KV size, why there is no GPU, and the device the model runs on — in Korean and
// Simplified Chinese, and back in English.
#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "app_harness.h"
#include "console_model.h"
#include "engine_host.h"
#include "ft/gpu.h"
#include "ft/log.h"
#include "log_hub.h"
#include "system_monitor.h"

namespace {

const QString kDemo = QStringLiteral(FT_SOURCE_DIR "/resources/models/freetoken-demo.gguf");

bool has_hangul(const QString& s) {
    for (const QChar c : s)
        if (c.unicode() >= 0xAC00 && c.unicode() <= 0xD7A3) return true;
    return false;
}
bool has_han(const QString& s) {
    for (const QChar c : s)
        if (c.unicode() >= 0x4E00 && c.unicode() <= 0x9FFF) return true;
    return false;
}

}  // namespace

class TestEngineMessages : public QObject {
    Q_OBJECT
    QTemporaryDir m_data;
    ft::LogHub m_hub;
    std::unique_ptr<ft::test::UiHarness> m_ui;
    QString m_model, m_damaged;

    ft::EngineHost* host() { return m_ui->host(); }
    void setLanguage(const QString& l) {
        m_ui->object("settingsModel")->setProperty("language", l);
        m_ui->settle(200);
    }
    // The Models page's problem line of the row of `path`.
    QString problemOf(const QString& path) {
        for (QQuickItem* t : m_ui->items("modelProblem"))
            for (QQuickItem* a = t; a; a = a->parentItem())
                if (a->property("readError").isValid() && a->property("path").toString() == path)
                    return t->property("text").toString();
        return {};
    }

private slots:
    void initTestCase() {
        QVERIFY(m_data.isValid());
        qputenv("FT_DATA_DIR", m_data.path().toUtf8());
        ft::attach_log_hub(m_hub, "freetoken");
        m_model = m_data.filePath("demo.gguf");
        QVERIFY(QFile::copy(kDemo, m_model));
        // A download cut short: the first MiB of the demo model.
        m_damaged = m_data.filePath("cut-short.gguf");
        QFile in(kDemo), out(m_damaged);
        QVERIFY(in.open(QIODevice::ReadOnly) && out.open(QIODevice::WriteOnly));
        out.write(in.read(1 << 20));
        out.close();
        m_ui = std::make_unique<ft::test::UiHarness>(&m_hub);
        QVERIFY(m_ui->load());
        m_ui->resize(1280, 900);
    }

    // A damaged file on the Models page, then its load error, in each language.
    void damagedFile() {
        QVERIFY(m_ui->showPage("models"));
        QObject* library = m_ui->object("libraryModel");
        QVERIFY(QMetaObject::invokeMethod(library, "addPath", Q_ARG(QString, m_damaged), Q_ARG(QString, QStringLiteral("added"))));
        QTRY_VERIFY_WITH_TIMEOUT(problemOf(m_damaged).contains(QStringLiteral("damaged")), 20000);
        setLanguage("ko");
        QTRY_VERIFY2(has_hangul(problemOf(m_damaged)) && problemOf(m_damaged).contains(QStringLiteral("cut-short.gguf")),
                     qPrintable(problemOf(m_damaged)));
        host()->load(m_damaged);
        QTRY_COMPARE_WITH_TIMEOUT(host()->state(), QStringLiteral("error"), 20000);
        const QString ko = host()->lastError();
        // "Could not load %1: %2" and the engine's reason, both in Korean (the reason's arguments stay as they are).
        QVERIFY2(ko.count(QStringLiteral("cut-short.gguf")) >= 2 && has_hangul(ko.section(QStringLiteral("cut-short.gguf"), -1)),
                 qPrintable(ko));  // the text after the reason's own file name
        setLanguage("zh_CN");
        QTRY_VERIFY2(has_han(problemOf(m_damaged)), qPrintable(problemOf(m_damaged)));
        setLanguage("en");
        QTRY_VERIFY2(problemOf(m_damaged).contains(QStringLiteral("is damaged or incomplete")), qPrintable(problemOf(m_damaged)));
        host()->clearError();
    }

    // The engine refuses a KV cache smaller than one context: its reason in the app's language.
    void kvRefusal() {
        host()->load(m_model);
        QTRY_VERIFY_WITH_TIMEOUT(host()->isReady(), 60000);
        QStringList reasons;
        auto c = connect(host(), &ft::EngineHost::rebuildFinished, this,
                         [&](bool accepted, const QString& reason) { reasons << (accepted ? QStringLiteral("accepted") : reason); });
        for (const QString& lang : {"zh_CN", "ko", "en"}) {
            setLanguage(lang);
            host()->rebuildCaches(16, -1);  // far below one context
            QTRY_COMPARE_WITH_TIMEOUT(reasons.size(), lang == "zh_CN" ? 1 : lang == "ko" ? 2 : 3, 10000);
        }
        disconnect(c);
        QVERIFY2(has_han(reasons[0]) && reasons[0].contains(QStringLiteral("16")), qPrintable(reasons[0]));
        QVERIFY2(has_hangul(reasons[1]), qPrintable(reasons[1]));
        QVERIFY2(reasons[2].contains(QStringLiteral("less than one")), qPrintable(reasons[2]));
    }

    // The device the model runs on and why there is no GPU, on the Console, in Korean.
    void deviceAndNoGpu() {
        QVERIFY(m_ui->showPage("console"));
        auto* cm = qobject_cast<ft::ui::ConsoleModel*>(m_ui->object("consoleModel"));
        auto* monitor = qobject_cast<ft::ui::SystemMonitor*>(m_ui->object("systemMonitor"));
        QVERIFY(cm && monitor);
        QTRY_VERIFY(cm->loaded());
        QVERIFY2(cm->device().startsWith(QStringLiteral("CPU (")), qPrintable(cm->device()));
        setLanguage("ko");
        QTRY_VERIFY2(has_hangul(cm->device()), qPrintable(cm->device()));  // "CPU (2 스레드)"
        if (!ft::gpu_devices().empty()) {
            setLanguage("en");
            QSKIP("this machine has a GPU: there is no 'no GPU' reason to translate");
        }
        monitor->refresh();
        QVERIFY2(has_hangul(monitor->gpuNote()), qPrintable(monitor->gpuNote()));
        m_ui->settle();
        m_ui->saveScreenshot("console-ko-engine-messages");
        setLanguage("en");
        monitor->refresh();
        QVERIFY2(!has_hangul(monitor->gpuNote()) && !monitor->gpuNote().isEmpty(), qPrintable(monitor->gpuNote()));
    }

    // A request whose prompt does not fit the context (a conversation grown past it): the reason in Korean, with the
    // numbers; then a model file moved away since it was added: its load error in Chinese.
    void promptTooLongAndFileMissing() {
        QTRY_VERIFY_WITH_TIMEOUT(host()->isReady(), 60000);
        const int ctx = host()->contextLength();
        QVERIFY(ctx > 0);
        setLanguage("ko");
        QSignalSpy failed(host(), &ft::EngineHost::generationFailed);
        const quint64 id = host()->generateText(QStringLiteral("a ").repeated(ctx + 64));
        QVERIFY(id > 0);
        QVERIFY(failed.wait(30000));
        const QString ko = failed.first().at(1).toString();
        // "The reply failed: %1" and the reason, in Korean after the context's size too (not only the prefix).
        QVERIFY2(ko.contains(QString::number(ctx)) && has_hangul(ko.section(QString::number(ctx), -1)), qPrintable(ko));
        host()->clearError();
        setLanguage("zh_CN");
        const QString moved = m_data.filePath("moved-away.gguf");
        QVERIFY(QFile::copy(m_model, moved));
        QVERIFY(QFile::remove(moved));  // added once, then moved or deleted
        host()->load(moved);
        QTRY_COMPARE_WITH_TIMEOUT(host()->state(), QStringLiteral("error"), 20000);
        const QString zh = host()->lastError();
        QVERIFY2(zh.count(QStringLiteral("moved-away.gguf")) >= 2 && has_han(zh.section(QStringLiteral("moved-away.gguf"), -1)),
                 qPrintable(zh));  // "Could not load %1: %2", the reason in Chinese after its own file name
        setLanguage("en");
        host()->clearError();
    }

    void cleanupTestCase() {
        m_ui.reset();
        ft::log_shutdown();
    }
};

QTEST_MAIN(TestEngineMessages)
#include "test_engine_messages.moc"
