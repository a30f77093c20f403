// Issue 43, defect 9 (what the walkthrough saw that was not yet fixed), in the real window (offscreen, and under
// Xvfb as test_cosmetics_xvfb): progress bars that read the right way in the dark theme, the sidebar's API server
// pill inside the sidebar in every language, the file dialog dark in the dark theme, a port in use said for the app
// (not with ft serve's flags), a Hub that cannot be reached before anything started ("try again", not "resume"),
// and a welcome that states the demo model's state once.
#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include <functional>

#include "app_harness.h"
#include "engine_host.h"
#include "ft/log.h"
#include "log_hub.h"

namespace {

const QString kDemo = QStringLiteral(FT_SOURCE_DIR "/resources/models/freetoken-demo.gguf");

int closed_port() {  // a port nothing listens on (bound, then released)
    QTcpServer s;
    if (!s.listen(QHostAddress::LocalHost, 0)) return -1;
    return s.serverPort();
}

}  // namespace

class TestCosmetics : public QObject {
    Q_OBJECT
    QTemporaryDir m_data;
    ft::LogHub m_hub;
    std::unique_ptr<ft::test::UiHarness> m_ui;
    QString m_model;

    ft::EngineHost* host() { return m_ui->host(); }
    QString text(const QString& name) { return m_ui->item(name) ? m_ui->item(name)->property("text").toString() : QString(); }
    void setLanguage(const QString& l) {
        m_ui->object("settingsModel")->setProperty("language", l);
        m_ui->settle(300);
    }

private slots:
    void initTestCase() {
        QVERIFY(m_data.isValid());
        qputenv("FT_DATA_DIR", m_data.path().toUtf8());
        // A Hub address nothing answers at (before the app reads its settings).
        qputenv("FT_HF_ENDPOINT", QStringLiteral("http://127.0.0.1:%1").arg(closed_port()).toUtf8());
        ft::attach_log_hub(m_hub, "freetoken");
        m_model = m_data.filePath("demo.gguf");
        QVERIFY(QFile::copy(kDemo, m_model));
        // A first start with the demo model, as the executable does it: the welcome opens while it loads.
        m_ui = std::make_unique<ft::test::UiHarness>(&m_hub, QVariantMap{{"demoModelPath", m_model}});
        QVERIFY(m_ui->load());
        m_ui->resize(1024, 700);
        m_ui->object("settingsModel")->setProperty("theme", "dark");
    }

    // The welcome says what happens to the demo model once: added (the body), then loading or loaded (the status line).
    void welcomeStatesTheLoadOnce() {
        QObject* w = m_ui->object("welcomeDialog");
        QVERIFY(w);
        QTRY_VERIFY(w->property("opened").toBool());
        QTRY_VERIFY_WITH_TIMEOUT(host()->isReady(), 60000);
        m_ui->settle();
        QCOMPARE(text("welcomeLoadLine"), QStringLiteral("The demo model is loaded and ready."));
        QVERIFY2(!text("welcomeBody").contains(QStringLiteral("loading")), qPrintable(text("welcomeBody")));
        QVERIFY(text("welcomeBody").contains(QStringLiteral("added a small demo model")));
        QVERIFY(m_ui->click("welcomeCloseButton"));
        QTRY_VERIFY(!w->property("visible").toBool());
    }

    // A load's progress bar: the done part is the accent on the track, at the left (the Basic style's dark fill on
    // a light track read inverted in the dark theme).
    void progressBarReadsTheRightWay() {
        QVERIFY(m_ui->showPage("models"));
        QQuickItem* bar = m_ui->item("loadProgress");
        QVERIFY(bar);
        bar->parentItem()->setVisible(true);  // shown while a load runs (the demo loads faster than a frame)
        bar->setProperty("value", 0.3);
        m_ui->settle(200);
        const QImage img = m_ui->grab();
        const qreal dpr = m_ui->window()->devicePixelRatio();
        const QPointF done = bar->mapToScene(QPointF(bar->width() * 0.15, bar->height() / 2)) * dpr;
        const QPointF left = bar->mapToScene(QPointF(bar->width() * 0.75, bar->height() / 2)) * dpr;
        const QColor a = img.pixelColor(done.toPoint()), b = img.pixelColor(left.toPoint());
        const QColor accent("#5b9bff");
        QVERIFY2(std::abs(a.red() - accent.red()) < 30 && std::abs(a.green() - accent.green()) < 30 && std::abs(a.blue() - accent.blue()) < 30,
                 qPrintable(a.name()));
        QVERIFY2(b.lightness() < 80 && b.lightness() < a.lightness(), qPrintable(b.name()));  // the rest: the dark track
        bar->parentItem()->setVisible(false);
    }

    // The API server's pill stays inside the sidebar, running (its address is the longest text) in every language.
    void sidebarPillInsideTheSidebar() {
        QObject* server = m_ui->object("apiServerModel");
        QVERIFY(server);
        QVERIFY(QMetaObject::invokeMethod(server, "setPort", Q_ARG(int, 65000 - (QCoreApplication::applicationPid() % 1000))));
        server->setProperty("enabled", true);
        QTRY_COMPARE_WITH_TIMEOUT(server->property("status").toString(), QStringLiteral("running"), 20000);
        QQuickItem* side = m_ui->item("sidebar");
        QVERIFY(side);
        for (const QString& lang : {"en", "ko", "zh_CN"}) {
            setLanguage(lang);
            QQuickItem* pill = m_ui->item("sidebarServerPill");
            QVERIFY(pill && pill->isVisible());
            const double right = pill->mapToItem(side, QPointF(pill->width(), 0)).x();
            QVERIFY2(right <= side->width() - 8, qPrintable(QStringLiteral("%1: %2 > %3").arg(lang).arg(right).arg(side->width())));
        }
        setLanguage("en");
        server->setProperty("enabled", false);
    }

    // At 1,024 px every page's title is whole and its header's buttons inside the window, in every language: the
    // Models page's five buttons (Add a server… the fifth) once left its title "M…".
    void pageTitlesWholeAt1024() {
        QCOMPARE(m_ui->window()->width(), 1024);
        QObject* w = m_ui->object("welcomeDialog");
        if (w->property("visible").toBool()) QVERIFY(QMetaObject::invokeMethod(w, "close"));
        m_ui->settle();
        for (const QString& lang : {"en", "ko", "zh_CN"}) {
            setLanguage(lang);
            for (const QString& page : {"models", "console", "chat", "logs", "settings"}) {
                QVERIFY(m_ui->showPage(page));
                m_ui->settle(200);
                QQuickItem* title = m_ui->item("pageTitle");
                QVERIFY(title && title->isVisible());
                const QString where = lang + ", " + page + ": ";
                QVERIFY2(!title->property("truncated").toBool(), qPrintable(where + title->property("text").toString() + " is cut"));
                QVERIFY2(title->width() >= title->implicitWidth(), qPrintable(where + "the title is narrower than its text"));
            }
            for (const QString& button : {"addServerButton", "addModelButton"}) {
                QVERIFY(m_ui->showPage("models"));
                m_ui->settle(200);
                QQuickItem* b = m_ui->item(button);
                QVERIFY(b && b->isVisible());
                const QRectF r = b->mapRectToScene(QRectF(0, 0, b->width(), b->height()));
                QVERIFY2(r.right() <= m_ui->window()->width() && r.left() >= 0,
                         qPrintable(QStringLiteral("%1, %2 at %3..%4").arg(lang, button).arg(r.left()).arg(r.right())));
            }
        }
        setLanguage("en");
    }

    // A port in use: said for the app, without ft serve's command-line flags.
    void portInUseSaidForTheApp() {
        QTcpServer squatter;
        QVERIFY(squatter.listen(QHostAddress::LocalHost, 0));
        QObject* server = m_ui->object("apiServerModel");
        QVERIFY(QMetaObject::invokeMethod(server, "setPort", Q_ARG(int, int(squatter.serverPort()))));
        server->setProperty("enabled", true);
        QTRY_COMPARE(server->property("status").toString(), QStringLiteral("error"));
        const QString msg = server->property("message").toString();
        QVERIFY2(!msg.contains(QStringLiteral("--")), qPrintable(msg));
        QVERIFY2(msg.contains(QString::number(squatter.serverPort())) && msg.contains(QStringLiteral("choose another port")), qPrintable(msg));
        server->setProperty("enabled", false);
    }

    // The Hub cannot be reached when a repository is browsed: nothing started, so "try again", and the reason in
    // the app's words (then in Korean).
    void unreachableHubBeforeAnythingStarted() {
        QObject* downloads = m_ui->object("downloadModel");
        QVERIFY(downloads);
        QVERIFY(QMetaObject::invokeMethod(downloads, "browse", Q_ARG(QString, QStringLiteral("Qwen/Qwen3-30B-A3B-GGUF"))));
        QTRY_VERIFY_WITH_TIMEOUT(!downloads->property("browseError").toString().isEmpty(), 20000);
        const QString msg = downloads->property("browseError").toString();
        QVERIFY2(!msg.contains(QStringLiteral("resume")), qPrintable(msg));
        QVERIFY2(msg.contains(QStringLiteral("try again")) && msg.contains(QStringLiteral("refused the connection")), qPrintable(msg));
        setLanguage("ko");
        QVERIFY(QMetaObject::invokeMethod(downloads, "browse", Q_ARG(QString, QStringLiteral("Qwen/Qwen3-30B-A3B-GGUF"))));
        QTRY_VERIFY_WITH_TIMEOUT(downloads->property("browseError").toString() != msg &&
                                     !downloads->property("browseError").toString().isEmpty(), 20000);
        const QString ko = downloads->property("browseError").toString();
        QVERIFY2(ko.contains(QStringLiteral("연결")), qPrintable(ko));
        setLanguage("en");
    }

    // The file dialog (Qt's own, non-native here) is dark in the dark theme.
    void fileDialogDarkInTheDarkTheme() {
        QObject* w = m_ui->object("welcomeDialog");
        if (w->property("visible").toBool()) QVERIFY(QMetaObject::invokeMethod(w, "close"));
        m_ui->settle();
        QVERIFY(m_ui->showPage("models"));
        QVERIFY(m_ui->click("addModelButton"));
        m_ui->settle(500);
        const QImage img = m_ui->grab();
        int light = 0, n = 0;
        for (int y = img.height() / 3; y < 2 * img.height() / 3; y += 7)
            for (int x = img.width() / 3; x < 2 * img.width() / 3; x += 7, ++n)
                if (img.pixelColor(x, y).lightness() > 160) ++light;
        // Its folder bar too (Qt 6.4 leaves that one white whatever the palette).
        QQuickItem* barItem = nullptr;
        std::function<void(QQuickItem*)> find = [&](QQuickItem* i) {
            if (!barItem && i->property("upButton").isValid() && i->property("buttonDelegate").isValid()) barItem = i;
            for (QQuickItem* c : i->childItems()) find(c);
        };
        find(m_ui->window()->contentItem()->parentItem() ? m_ui->window()->contentItem()->parentItem() : m_ui->window()->contentItem());
        QVERIFY(barItem && barItem->isVisible());
        const QPointF inBar = barItem->mapToScene(QPointF(barItem->width() - 10, barItem->height() / 2)) * m_ui->window()->devicePixelRatio();
        const QColor barColor = img.pixelColor(inBar.toPoint());
        m_ui->saveScreenshot("models-file-dialog-dark");
        QVERIFY(QMetaObject::invokeMethod(m_ui->object("modelFileDialog"), "reject"));
        m_ui->settle();
        QVERIFY2(light < n / 4, qPrintable(QStringLiteral("%1 of %2 samples light").arg(light).arg(n)));
        QVERIFY2(barColor.lightness() < 100, qPrintable(barColor.name()));
    }

    // Qt's own file dialog speaks the app's language: its buttons come from Qt's translations (Debian's
    // qt6-translations-l10n, embedded by ui/CMakeLists.txt), loaded at start and on a switch.
    void qtDialogButtonsInTheAppsLanguage() {
        QObject* w = m_ui->object("welcomeDialog");
        if (w->property("visible").toBool()) QVERIFY(QMetaObject::invokeMethod(w, "close"));
        m_ui->settle();
        const QList<QPair<QString, QString>> cases{{"ko", "취소"}, {"zh_CN", "取消"}, {"en", "Cancel"}};
        for (const auto& [lang, cancel] : cases) {
            setLanguage(lang);
            QVERIFY(m_ui->showPage("models"));
            QVERIFY(m_ui->click("addModelButton"));
            m_ui->settle(500);
            QStringList shown;
            std::function<void(QQuickItem*)> collect = [&](QQuickItem* i) {
                if (!i->isVisible()) return;
                if (i->inherits("QQuickAbstractButton")) shown << i->property("text").toString();
                for (QQuickItem* c : i->childItems()) collect(c);
            };
            collect(m_ui->window()->contentItem()->parentItem() ? m_ui->window()->contentItem()->parentItem() : m_ui->window()->contentItem());
            QVERIFY(QMetaObject::invokeMethod(m_ui->object("modelFileDialog"), "reject"));
            m_ui->settle();
            QVERIFY2(shown.contains(cancel), qPrintable(lang + ": the buttons shown are " + shown.join(" | ")));
            if (lang != "en") QVERIFY2(!shown.contains("Cancel"), qPrintable(lang + ": " + shown.join(" | ")));
        }
    }

    void cleanupTestCase() {
        m_ui.reset();
        ft::log_shutdown();
    }
};

QTEST_MAIN(TestCosmetics)
#include "test_cosmetics.moc"
