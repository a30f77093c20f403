// The real Main.qml, offscreen, driven by clicks: every page opens with no QML warning or error, the theme toggle
// changes the colors, and switching the language in Settings retranslates the visible UI at once.
#include <QApplication>
#include <QClipboard>
#include <QColor>
#include <QEventLoop>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSettings>
#include <QTcpServer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include "engine_host.h"
#include "ft/log.h"
#include "log_hub.h"
#include "system_info.h"
#include "app_harness.h"

namespace {

using ft::test::take_warnings;

// GET url: the HTTP status (0: no answer) and the body.
std::pair<int, QByteArray> http_get(const QString& url) {
    QNetworkAccessManager nam;
    QNetworkRequest req{QUrl(url)};
    req.setTransferTimeout(10000);
    QNetworkReply* r = nam.get(req);
    QEventLoop loop;
    QObject::connect(r, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    loop.exec();
    const int status = r->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QByteArray body = r->readAll();
    r->deleteLater();
    return {status, body};
}

int free_port() {
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    return probe.serverPort();
}

}  // namespace

class TestUiSmoke : public QObject {
    Q_OBJECT
    QTemporaryDir m_data;
    ft::LogHub m_hub;
    std::unique_ptr<ft::test::UiHarness> m_ui;

    QString pageTitle(const QString& page) {
        QQuickItem* p = m_ui->item("page_" + page);
        if (!p) return {};
        for (QQuickItem* t : m_ui->items("pageTitle"))
            for (QQuickItem* a = t; a; a = a->parentItem())
                if (a == p) return t->property("text").toString();
        return {};
    }

private slots:
    void initTestCase() {
        QVERIFY(m_data.isValid());
        qputenv("FT_DATA_DIR", m_data.path().toUtf8());  // a first start: empty library, default settings
        ft::test::install_warning_capture();
        ft::attach_log_hub(m_hub, "freetoken");
        ft::log_system_summary();
        spdlog::warn("smoke test: a warning line for the Logs page");
        m_ui = std::make_unique<ft::test::UiHarness>(&m_hub);
        const bool loaded = m_ui->load();
        const QStringList w = take_warnings();
        QVERIFY2(loaded, qPrintable(w.join('\n')));
        QVERIFY2(w.isEmpty(), qPrintable(w.join('\n')));
    }

    void opensOnTheModelsPageWithTheEmptyLibrary() {
        QCOMPARE(m_ui->root()->property("currentPage").toString(), QStringLiteral("models"));
        QQuickItem* empty = m_ui->item("modelsEmptyState");
        QVERIFY(empty && empty->isVisible());
        QVERIFY(empty->height() > 100);
        QCOMPARE(pageTitle("models"), QStringLiteral("Models"));
        QVERIFY(m_ui->item("modelsDirLink")->property("text").toString().startsWith(m_data.path()));
    }

    void visitsEveryPageBySidebarClicks() {
        const QStringList pages = {"console", "chat", "logs", "settings", "models"};
        for (const QString& page : pages) {
            QVERIFY2(m_ui->showPage(page), qPrintable("sidebar click did not open " + page));
            QQuickItem* item = m_ui->item("page_" + page);
            QVERIFY(item && item->isVisible());
            QVERIFY(item->width() > 400 && item->height() > 400);
            for (const QString& other : pages)
                if (other != page) QVERIFY2(!m_ui->item("page_" + other)->isVisible(), qPrintable(other));
            const QImage shot = m_ui->grab();
            QVERIFY2(!shot.isNull(), "the window did not render");
            const QStringList w = take_warnings();
            QVERIFY2(w.isEmpty(), qPrintable(page + ":\n" + w.join('\n')));
        }
    }

    void keyboardShortcutsOpenPages() {
        QTest::keyClick(m_ui->window(), Qt::Key_4, Qt::ControlModifier);
        m_ui->settle();
        QCOMPARE(m_ui->root()->property("currentPage").toString(), QStringLiteral("logs"));
        QTest::keyClick(m_ui->window(), Qt::Key_1, Qt::ControlModifier);
        m_ui->settle();
        QCOMPARE(m_ui->root()->property("currentPage").toString(), QStringLiteral("models"));
    }

    void pagesShowRealDataAndHonestEmptyStates() {
        QVERIFY(m_ui->showPage("console"));
        QVERIFY(m_ui->item("ramCard")->isVisible());
        QObject* monitor = m_ui->object("systemMonitor");
        const bool has_gpu = monitor->property("gpuCount").toInt() > 0;
        QCOMPARE(m_ui->item("noGpuCard")->isVisible(), !has_gpu);
        QVERIFY(m_ui->showPage("chat"));
        QVERIFY(!m_ui->item("chatInput")->isEnabled());
        QVERIFY(!m_ui->item("sendButton")->isEnabled());
        QVERIFY(m_ui->showPage("logs"));
        QObject* logs = m_ui->object("logListModel");
        QTRY_VERIFY(logs->property("count").toInt() > 0);
        QVERIFY(logs->property("logFilePath").toString().startsWith(m_data.path()));
        QVERIFY(m_ui->click("levelFilter_3"));  // Warnings and up
        QCOMPARE(logs->property("minLevel").toInt(), 3);
        QVERIFY(logs->property("count").toInt() >= 1);
        QVERIFY(m_ui->click("levelFilter_1"));
        QVERIFY(take_warnings().isEmpty());
    }

    void addingAndRemovingAModelUpdatesThePage() {
        QVERIFY(m_ui->showPage("models"));
        QObject* library = m_ui->object("libraryModel");
        bool ok = true;
        // What the file dialog calls on accept, first with a path that does not exist: the refusal is shown.
        QMetaObject::invokeMethod(library, "addPath", Q_RETURN_ARG(bool, ok), Q_ARG(QString, m_data.filePath("gone.gguf")));
        QVERIFY(!ok);
        m_ui->settle();
        QVERIFY(m_ui->item("libraryError")->isVisible());
        QVERIFY(m_ui->click("dismissErrorButton"));
        QVERIFY(!m_ui->item("libraryError")->isVisible());

        QFile f(m_data.filePath("Tiny-MoE-Q8_0.gguf"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray("GGUF") + QByteArray(4096, '\0'));
        f.close();
        QMetaObject::invokeMethod(library, "addPath", Q_RETURN_ARG(bool, ok), Q_ARG(QString, f.fileName()));
        QVERIFY(ok);
        m_ui->settle();
        QVERIFY(!m_ui->item("modelsEmptyState")->isVisible());
        QCOMPARE(m_ui->item("nav_models")->property("badge").toInt(), 1);
        QVERIFY(m_ui->click("removeModelButton"));   // asks first (tests/ui/test_models_page covers the dialog)
        QVERIFY(m_ui->click("confirmRemoveButton"));
        QTRY_COMPARE(library->property("count").toInt(), 0);
        QVERIFY(m_ui->item("modelsEmptyState")->isVisible());
        const QStringList w = take_warnings();
        QVERIFY2(w.isEmpty(), qPrintable(w.join('\n')));
    }

    void themeToggleSwitchesColors() {
        QObject* settings = m_ui->object("settingsModel");
        const bool dark = settings->property("dark").toBool();
        const QColor before = m_ui->root()->property("color").value<QColor>();
        QVERIFY(m_ui->click("themeToggle"));
        QCOMPARE(settings->property("dark").toBool(), !dark);
        const QColor after = m_ui->root()->property("color").value<QColor>();
        QVERIFY(before != after);
        QCOMPARE(after.lightness() > 128, dark);  // dark -> light background, and back
        QVERIFY(m_ui->showPage("settings"));
        QVERIFY(m_ui->click("themeChoice_dark"));
        QCOMPARE(settings->property("theme").toString(), QStringLiteral("dark"));
        QVERIFY(take_warnings().isEmpty());
    }

    void languageSwitchesLive() {
        QVERIFY(m_ui->showPage("settings"));
        QVERIFY(m_ui->click("languageChoice_ko"));
        QCOMPARE(m_ui->object("settingsModel")->property("language").toString(), QStringLiteral("ko"));
        QCOMPARE(pageTitle("models"), QStringLiteral("모델"));
        QCOMPARE(pageTitle("settings"), QStringLiteral("설정"));
        QCOMPARE(m_ui->item("nav_console")->property("text").toString(), QStringLiteral("콘솔"));
        QVERIFY(m_ui->click("languageChoice_zh_CN"));
        QCOMPARE(pageTitle("models"), QStringLiteral("模型"));
        QVERIFY(m_ui->click("languageChoice_en"));
        QCOMPARE(pageTitle("models"), QStringLiteral("Models"));
        for (const QString& page : {"models", "console", "chat", "logs"}) QVERIFY(m_ui->showPage(page));
        const QStringList w = take_warnings();
        QVERIFY2(w.isEmpty(), qPrintable(w.join('\n')));
    }

    // Settings → Local API server, as a user works it: switched on it waits for a model, serves the loaded one
    // (OpenAI /v1/models answers over HTTP), copies a snippet, stops when switched off, and a port in use is shown
    // as the reason it does not run. The switch and the port are saved.
    void apiServerServesTheLoadedModel() {
        QVERIFY(m_ui->showPage("settings"));
        QObject* server = m_ui->object("apiServerModel");
        QVERIFY(server);
        QCOMPARE(server->property("status").toString(), QStringLiteral("off"));
        const int port = free_port();
        QVERIFY(port > 0);
        QVERIFY(QMetaObject::invokeMethod(server, "setPort", Q_ARG(int, port)));
        m_ui->settle();
        QCOMPARE(m_ui->item("serverPortField")->property("text").toString(), QString::number(port));
        QVERIFY(m_ui->click("serverSwitch"));
        QVERIFY(server->property("enabled").toBool());
        QCOMPARE(server->property("status").toString(), QStringLiteral("waiting"));
        QCOMPARE(m_ui->item("serverStatus")->property("text").toString(), QStringLiteral("Waiting for a model"));

        ft::LoadOptions o;
        o.device = ft::Device::cpu;
        o.threads = 2;
        o.n_ctx = 1024;
        m_ui->host()->setLoadOptions(o);
        m_ui->host()->load(QStringLiteral(FT_SOURCE_DIR "/tests/data/qwen3-moe-tiny"));
        QTRY_COMPARE_WITH_TIMEOUT(server->property("status").toString(), QStringLiteral("running"), 60000);
        const QString url = server->property("url").toString();
        QCOMPARE(url, QStringLiteral("http://127.0.0.1:%1").arg(port));
        QTRY_COMPARE(m_ui->item("serverStatus")->property("text").toString(), QStringLiteral("Running"));
        // At a glance: the sidebar's pill and the window title; the pill opens Settings.
        QVERIFY(m_ui->item("sidebarServerPill")->isVisible());
        QCOMPARE(m_ui->item("sidebarServerPill")->property("text").toString(), "API server: " + url);
        QCOMPARE(m_ui->window()->title(), "FreeToken Desktop — API server on " + url);
        QVERIFY(m_ui->showPage("models"));
        QVERIFY(m_ui->click("sidebarServerPill"));
        QCOMPARE(m_ui->root()->property("currentPage").toString(), QStringLiteral("settings"));
        const auto [health, _] = http_get(url + "/health");
        QCOMPARE(health, 200);
        const auto [st, models] = http_get(url + "/v1/models");
        QCOMPARE(st, 200);
        QVERIFY2(models.contains(server->property("modelId").toString().toUtf8()), models.constData());
        QVERIFY(m_ui->click("copySnippet_openai"));
        QCOMPARE(QGuiApplication::clipboard()->text(), QStringLiteral("OPENAI_BASE_URL=%1/v1 OPENAI_API_KEY=local").arg(url));

        QVERIFY(m_ui->click("serverSwitch"));  // off: nothing listens any more
        QCOMPARE(server->property("status").toString(), QStringLiteral("off"));
        m_ui->settle();
        QVERIFY(!m_ui->item("sidebarServerPill")->isVisible());
        QCOMPARE(m_ui->window()->title(), QStringLiteral("FreeToken Desktop"));
        QCOMPARE(http_get(url + "/health").first, 0);
        QSettings saved(m_data.path() + "/freetoken.ini", QSettings::IniFormat);
        QCOMPARE(saved.value("server/enabled").toBool(), false);
        QCOMPARE(saved.value("server/port").toInt(), port);

        // A port taken by another program: the reason is shown, nothing runs.
        QTcpServer squatter;
        QVERIFY(squatter.listen(QHostAddress::LocalHost, 0));
        QVERIFY(QMetaObject::invokeMethod(server, "setPort", Q_ARG(int, int(squatter.serverPort()))));
        QVERIFY(m_ui->click("serverSwitch"));
        QCOMPARE(server->property("status").toString(), QStringLiteral("error"));
        m_ui->settle();
        QVERIFY(m_ui->item("serverMessage")->isVisible());
        QVERIFY2(m_ui->item("serverMessage")->property("text").toString().contains(QString::number(squatter.serverPort())),
                 qPrintable(m_ui->item("serverMessage")->property("text").toString()));
        QCOMPARE(m_ui->item("serverStatus")->property("text").toString(), QStringLiteral("Not running"));
        QVERIFY(m_ui->click("serverSwitch"));
        m_ui->host()->unload();
        QTRY_COMPARE(m_ui->host()->state(), QStringLiteral("idle"));
        take_warnings();  // the engine's log lines of the load
    }

    void fitsASmallWindow() {
        m_ui->resize(1024, 640);
        for (const QString& page : {"models", "console", "chat", "logs", "settings"}) {
            QVERIFY(m_ui->showPage(page));
            QVERIFY(m_ui->item("page_" + page)->width() >= 1024 - 260);
        }
        QVERIFY(take_warnings().isEmpty());
    }

    void cleanupTestCase() {
        m_ui.reset();
        ft::test::remove_warning_capture();
        ft::log_shutdown();
    }
};

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    TestUiSmoke tc;
    return QTest::qExec(&tc, argc, argv);
}
#include "test_ui_smoke.moc"
