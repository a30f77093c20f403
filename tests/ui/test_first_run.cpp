// The first start and a double-clicked model file, in the real window (offscreen and under Xvfb), with the real
// CPU engine: with an empty library the bundled demo model (here a stand-in: the tiny test model converted to GGUF)
// is added with its Demo label and loaded, and the one-screen welcome opens with the load's progress line, the
// CPU-only line when there is no GPU, and the way to a real model (its link opens the Models page's Download
// dialog); the next start shows neither again, also after the demo was removed; the welcome is translated; a model
// path given on the command line is added to the library and loaded, without the welcome.
#include <QAbstractItemModel>
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include "app_harness.h"
#include "app_settings.h"
#include "engine_host.h"
#include "ft/gpu.h"
#include "ft/log.h"
#include "log_hub.h"
#include "qml_setup.h"
#include "model/convert_hf.h"
#include "ref/dtype.h"

namespace {

using ft::test::take_warnings;

const QString kTiny = QStringLiteral(FT_SOURCE_DIR "/tests/data/qwen3-moe-tiny");

}  // namespace

class TestFirstRun : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;
    ft::LogHub m_hub;
    QString m_demo;      // the stand-in demo model
    QString m_other;     // a model "double-clicked" in the file manager
    int m_dataDirs = 0;

    // A fresh data folder, as on a PC where FreeToken never ran.
    QString freshDataDir() {
        const QString dir = m_tmp.filePath(QStringLiteral("data%1").arg(++m_dataDirs));
        QDir().mkpath(dir);
        qputenv("FT_DATA_DIR", dir.toUtf8());
        return dir;
    }

    std::unique_ptr<ft::test::UiHarness> start(const QVariantMap& startup) {
        auto ui = std::make_unique<ft::test::UiHarness>(&m_hub, startup);
        if (!ui->load()) return nullptr;
        return ui;
    }

    static QString text(ft::test::UiHarness& ui, const QString& name) {
        QQuickItem* i = ui.item(name);
        return i ? i->property("text").toString() : QString();
    }
    static QObject* library(ft::test::UiHarness& ui) { return ui.object("libraryModel"); }
    static bool welcomeOpen(ft::test::UiHarness& ui) {
        QObject* w = ui.object("welcomeDialog");
        return w && w->property("visible").toBool();
    }
    static bool waitReady(ft::EngineHost* host) {
        QElapsedTimer t;
        t.start();
        while (!host->isReady() && host->state() != "error" && t.elapsed() < 60000) QTest::qWait(20);
        if (!host->isReady()) qWarning("the model did not load: %s", qPrintable(host->lastError()));
        return host->isReady();
    }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        ft::model::ConvertOptions opt;
        opt.type = ft::kernels::DType::Q8_0;
        m_demo = m_tmp.filePath("share/freetoken/models/freetoken-demo.gguf");
        m_other = m_tmp.filePath("Downloads/my-model-Q8_0.gguf");
        QDir().mkpath(QFileInfo(m_demo).path());
        QDir().mkpath(QFileInfo(m_other).path());
        try {
            opt.out = m_demo.toStdString();
            ft::model::convert_hf_to_gguf(kTiny.toStdString(), opt);
            QVERIFY(QFile::copy(m_demo, m_other));
        } catch (const std::exception& e) {
            QFAIL(e.what());
        }
        ft::test::install_warning_capture();
        ft::attach_log_hub(m_hub, "freetoken");
    }

    void firstStartAddsDemoAndWelcomes() {
        freshDataDir();
        auto ui = start({{"demoModelPath", m_demo}});
        QVERIFY(ui);
        QTRY_VERIFY(welcomeOpen(*ui));
        QVERIFY(ui->item("welcomeTitle")->isVisible());
        QCOMPARE(text(*ui, "welcomeTitle"), QStringLiteral("Welcome to FreeToken"));
        QVERIFY(text(*ui, "welcomeBody").contains("small demo model"));
        QVERIFY(text(*ui, "welcomeDemoNote").contains("not useful"));
        // The library has the demo, labelled Demo on its row, and it loads: the progress line follows the engine.
        QCOMPARE(library(*ui)->property("count").toInt(), 1);
        QQuickItem* badge = ui->item("demoBadge");
        QVERIFY(badge && badge->isVisible());
        QCOMPARE(badge->property("text").toString(), QStringLiteral("Demo"));
        QCOMPARE(ui->host()->modelPath(), QDir::cleanPath(m_demo));
        QVERIFY(waitReady(ui->host()));
        // One name everywhere: the engine host's (the Chat header, the Console card) is the library row's, the file's
        // name, not the name written inside the GGUF.
        QCOMPARE(ui->host()->modelName(), text(*ui, "modelName"));
        QTRY_COMPARE(text(*ui, "welcomeLoadLine"), QStringLiteral("The demo model is loaded and ready."));
        // Without a usable GPU (CI) the welcome says the app runs on the CPU, and why, in one line.
        QQuickItem* device = ui->item("welcomeDeviceLine");
        QVERIFY(device);
        if (ft::gpu_devices().empty()) {
            QVERIFY(device->isVisible());
            QCOMPARE(text(*ui, "welcomeDeviceLine"),
                     QStringLiteral("CPU-only mode: %1.").arg(QString::fromStdString(ft::gpu_unavailable_reason())));
        } else {
            QVERIFY(!device->isVisible());
        }
        // The way to a real model: the link opens the Models page's Download dialog.
        QVERIFY(ui->click("welcomeModelsLink"));
        QTRY_VERIFY(!welcomeOpen(*ui));
        QCOMPARE(ui->root()->property("currentPage").toString(), QStringLiteral("models"));
        QObject* download = ui->object("downloadDialog");
        QVERIFY(download);
        QTRY_VERIFY(download->property("visible").toBool());
        QMetaObject::invokeMethod(download, "close");
        const QStringList w = take_warnings();
        QVERIFY2(w.isEmpty(), qPrintable(w.join('\n')));
    }

    void loadProgressLineWhileLoading() {
        // The welcome's progress line names the load stage in words while the model loads (on a GPU, the first
        // load's "Measuring PCIe and CPU bandwidth" stage shows here).
        freshDataDir();
        auto ui = start({{"demoModelPath", m_demo}});
        QVERIFY(ui);
        QTRY_VERIFY(welcomeOpen(*ui));
        QVERIFY(waitReady(ui->host()));
        QVERIFY(ui->host()->isReady());
        ui->settle();
        QCOMPARE(text(*ui, "welcomeLoadLine"), QStringLiteral("The demo model is loaded and ready."));
        // The tiny model loads within a frame: load it again with the welcome open, as a slow first load stays, and
        // read the line the moment the load starts (bindings follow EngineHost's signals at once).
        ui->host()->load(QDir::cleanPath(m_demo));
        QCOMPARE(ui->host()->state(), QStringLiteral("loading"));
        QCOMPARE(text(*ui, "welcomeLoadLine"),
                 QStringLiteral("Loading the demo model: %1").arg(ui->host()->loadStageLabel()));
        QVERIFY(!ui->host()->loadStageLabel().isEmpty());
        QVERIFY(ui->item("welcomeLoadProgress")->isVisible());
        QVERIFY(waitReady(ui->host()));
        ui->settle();
        QCOMPARE(text(*ui, "welcomeLoadLine"), QStringLiteral("The demo model is loaded and ready."));
        QVERIFY(!ui->item("welcomeLoadProgress")->isVisible());
        // "Try it in Chat" closes the welcome and opens Chat with the demo model ready.
        QVERIFY(ui->click("welcomeTryButton"));
        QTRY_VERIFY(!welcomeOpen(*ui));
        QCOMPARE(ui->root()->property("currentPage").toString(), QStringLiteral("chat"));
    }

    void offeredOnce() {
        const QString dir = freshDataDir();
        {
            auto ui = start({{"demoModelPath", m_demo}});
            QVERIFY(ui);
            QTRY_VERIFY(welcomeOpen(*ui));
            QVERIFY(waitReady(ui->host()));
        }
        {   // The next start: the demo is in the library, no welcome; the model of the last session loads again.
            auto ui = start({{"demoModelPath", m_demo}});
            QVERIFY(ui);
            ui->settle(300);
            QVERIFY(!welcomeOpen(*ui));
            QCOMPARE(library(*ui)->property("count").toInt(), 1);
            QCOMPARE(ui->host()->modelPath(), QDir::cleanPath(m_demo));
            QVERIFY(waitReady(ui->host()));
            // The user removes the demo model…
            auto* model = qobject_cast<QAbstractItemModel*>(library(*ui));
            QVERIFY(model);
            QCOMPARE(model->data(model->index(0, 0), model->roleNames().key("origin")).toString(), QStringLiteral("demo"));
            const qint64 id = model->data(model->index(0, 0), model->roleNames().key("modelId")).toLongLong();
            QVERIFY(id > 0);
            bool removed = false;
            QMetaObject::invokeMethod(library(*ui), "remove", Q_RETURN_ARG(bool, removed), Q_ARG(qint64, id));
            QVERIFY(removed);
            QCOMPARE(library(*ui)->property("count").toInt(), 0);
        }
        {   // …and does not get it back.
            auto ui = start({{"demoModelPath", m_demo}});
            QVERIFY(ui);
            ui->settle(300);
            QVERIFY(!welcomeOpen(*ui));
            QCOMPARE(library(*ui)->property("count").toInt(), 0);
            QVERIFY(QFile::exists(m_demo));  // removing the row keeps the installed file
        }
        Q_UNUSED(dir);
    }

    void welcomeIsTranslated() {
        freshDataDir();
        {
            ft::AppSettings settings;
            QVERIFY(settings.setLanguage("ko"));
        }
        auto ui = start({{"demoModelPath", m_demo}});
        QVERIFY(ui);
        QTRY_VERIFY(welcomeOpen(*ui));
        QCOMPARE(text(*ui, "welcomeTitle"), QStringLiteral("FreeToken에 오신 것을 환영합니다"));
        QCOMPARE(ui->item("demoBadge")->property("text").toString(), QStringLiteral("데모"));
        QVERIFY(waitReady(ui->host()));
        {
            ft::AppSettings settings;
            QVERIFY(settings.setLanguage("zh_CN"));
        }
        ui.reset();
        freshDataDir();
        {
            ft::AppSettings settings;
            QVERIFY(settings.setLanguage("zh_CN"));
        }
        ui = start({{"demoModelPath", m_demo}});
        QVERIFY(ui);
        QTRY_VERIFY(welcomeOpen(*ui));
        QCOMPARE(text(*ui, "welcomeTitle"), QStringLiteral("欢迎使用 FreeToken"));
        QVERIFY(waitReady(ui->host()));
        ui.reset();
        ft::AppSettings().setLanguage("en");
        ft::ui::install_language("en");
    }

    // The model of the last session loads at the next start (Settings → Startup, on by default); turned off, nothing
    // loads by itself.
    void reloadsTheLastModelUnlessTurnedOff() {
        freshDataDir();
        {
            auto ui = start({{"openPath", m_other}});
            QVERIFY(ui);
            QVERIFY(waitReady(ui->host()));
        }
        {
            auto ui = start({});
            QVERIFY(ui);
            QCOMPARE(ui->host()->modelPath(), QDir::cleanPath(m_other));
            QVERIFY(waitReady(ui->host()));
            QVERIFY(ui->showPage("settings"));
            QQuickItem* box = ui->item("reloadLastModelSwitch");
            QVERIFY(box && box->isVisible());
            QVERIFY(box->property("checked").toBool());
            QVERIFY(ui->click("reloadLastModelSwitch"));
            QVERIFY(!ui->object("settingsModel")->property("reloadLastModel").toBool());
        }
        {
            auto ui = start({});
            QVERIFY(ui);
            ui->settle(300);
            QCOMPARE(ui->host()->state(), QStringLiteral("idle"));
            QVERIFY(!ui->item("reloadLastModelSwitch")->property("checked").toBool());
        }
    }

    void openPathFromCommandLine() {
        // `freetoken FILE` (a double-click on a .gguf file): added to the library, loaded, no welcome.
        freshDataDir();
        auto ui = start({{"openPath", m_other}, {"demoModelPath", m_demo}});
        QVERIFY(ui);
        QCOMPARE(library(*ui)->property("count").toInt(), 1);
        QVERIFY(waitReady(ui->host()));
        QCOMPARE(ui->host()->modelPath(), QDir::cleanPath(m_other));
        QCOMPARE(ui->root()->property("currentPage").toString(), QStringLiteral("models"));
        QVERIFY(!welcomeOpen(*ui));
        QQuickItem* badge = ui->item("demoBadge");
        QVERIFY(!badge || !badge->isVisible());
        // A row that loads as the window first lays out (and again on a reload within one frame, below) makes Qt
        // Quick Layouts abort one polish pass of the row's Card ("Polish loop detected", offscreen only; the next
        // frame lays it out). That diagnostic is left out here; any other warning fails.
        const QRegularExpression noPolishLoop("^(?!.*Polish loop detected)");
        QCOMPARE(text(*ui, "modelName"), QStringLiteral("my-model-Q8_0"));
        QStringList w = take_warnings().filter(noPolishLoop);
        QVERIFY2(w.isEmpty(), qPrintable(w.join('\n')));
        // Opening the same file again (a second double-click) loads it without adding a second row.
        QObject* startup = ui->object("startupModel");
        QVERIFY(startup);
        bool ok = false;
        QMetaObject::invokeMethod(startup, "openModel", Q_RETURN_ARG(bool, ok), Q_ARG(QString, m_other));
        QVERIFY(ok);
        QCOMPARE(library(*ui)->property("count").toInt(), 1);
        QVERIFY(waitReady(ui->host()));
        w = take_warnings().filter(noPolishLoop);
        QVERIFY2(w.isEmpty(), qPrintable(w.join('\n')));
        // A file that is not a model: the library refuses it with its reason on the Models page; nothing loads.
        const QString bad = m_tmp.filePath("notes.gguf");
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("not a model");
        f.close();
        ui->host()->unload();
        QTRY_COMPARE(ui->host()->state(), QStringLiteral("idle"));
        QMetaObject::invokeMethod(startup, "openModel", Q_RETURN_ARG(bool, ok), Q_ARG(QString, bad));
        QVERIFY(!ok);
        QVERIFY(!library(*ui)->property("lastError").toString().isEmpty());
        QCOMPARE(ui->host()->state(), QStringLiteral("idle"));
        w = take_warnings();
        QVERIFY2(w.isEmpty(), qPrintable(w.join('\n')));
    }
};

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    TestFirstRun t;
    return QTest::qExec(&t, argc, argv);
}
#include "test_first_run.moc"
