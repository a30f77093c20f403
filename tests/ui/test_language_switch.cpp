// Switching the language live, in the real window: every language, switched from every page, on a first start (the
// demo model loaded, the welcome closed) where no other page was opened and on one where all were, in both orders
// (en → ko → zh_CN → en and en → zh_CN → ko → en), both by clicking the Settings page's language choice and while
// another page is on screen. Qt 6.4's layouts crash when a child item they hold is destroyed and the layout is
// resized before it polishes again (QTBUG-111792): the pages must not destroy layout children when the language
// changes (or at every stats update). The first cases are the walkthrough that crashed: a first start, Settings,
// 한국어.
#include <QApplication>
#include <QCoreApplication>
#include <QDate>
#include <QFile>
#include <QLocale>
#include <QQuickItem>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

#include "app_harness.h"
#include "ft/log.h"
#include "log_hub.h"

namespace {

const QStringList kPages = {"models", "console", "chat", "logs", "settings"};

}  // namespace

class TestLanguageSwitch : public QObject {
    Q_OBJECT
    ft::LogHub m_hub;
    std::unique_ptr<QTemporaryDir> m_data;
    std::unique_ptr<ft::test::UiHarness> m_ui;
    QTemporaryDir m_demoDir;
    QString m_demo;  // the bundled demo model, copied once (every first start below loads it)

    // A fresh app on an empty data folder (English, nothing visited). `demo`: as a first start of the installed app,
    // which adds the bundled demo model, loads it and opens the welcome.
    void startFresh(bool demo = false) {
        m_ui.reset();
        m_data = std::make_unique<QTemporaryDir>();
        QVERIFY(m_data->isValid());
        qputenv("FT_DATA_DIR", m_data->path().toUtf8());
        qputenv("LANGUAGE", "en");
        QVariantMap startup;
        if (demo) startup.insert("demoModelPath", m_demo);
        m_ui = std::make_unique<ft::test::UiHarness>(&m_hub, startup);
        QVERIFY(m_ui->load());
        QCOMPARE(language(), QStringLiteral("en"));
        if (demo) {
            // The welcome opens while the demo loads; close it once the model is ready, as the walkthrough did.
            QTRY_VERIFY_WITH_TIMEOUT(m_ui->object("welcomeDialog")->property("opened").toBool(), 10000);
            QTRY_VERIFY_WITH_TIMEOUT(m_ui->host()->isReady(), 60000);
            QVERIFY(m_ui->click("welcomeCloseButton"));
            QTRY_VERIFY(!m_ui->object("welcomeDialog")->property("opened").toBool());
            m_ui->settle();
        }
    }

    QString language() const { return m_ui->object("settingsModel")->property("language").toString(); }

    QString navText(const QString& page) const {
        QQuickItem* nav = m_ui->item("nav_" + page);
        return nav ? nav->property("text").toString() : QString();
    }

    // The window is retranslated: the sidebar and the current page's title read as the language's catalogue says.
    void checkTranslated(const QString& lang) {
        const QString settings = QCoreApplication::translate("Sidebar", "Settings");
        if (lang == "en") QCOMPARE(settings, QStringLiteral("Settings"));
        else QVERIFY2(settings != QStringLiteral("Settings"), qPrintable(lang + ": no catalogue installed"));
        QCOMPARE(navText("settings"), settings);
        QCOMPARE(navText("console"), QCoreApplication::translate("Sidebar", "Console"));
        // Every page still draws (the window renders a frame after the switch).
        QVERIFY(!m_ui->grab().isNull());
    }

    void switchTo(const QString& lang, bool byClick) {
        if (byClick) {
            QVERIFY(m_ui->showPage("settings"));
            QVERIFY2(m_ui->click("languageChoice_" + lang), qPrintable(lang));
        } else {
            QVERIFY(m_ui->object("settingsModel")->setProperty("language", lang));
        }
        // Long enough for the polish, a frame and the deferred deletes of whatever the switch replaced.
        m_ui->settle(400);
        QCOMPARE(language(), lang);
        checkTranslated(lang);
    }

private slots:
    void initTestCase() {
        ft::test::install_warning_capture();
        m_data = std::make_unique<QTemporaryDir>();
        qputenv("FT_DATA_DIR", m_data->path().toUtf8());
        ft::attach_log_hub(m_hub, "freetoken");
        QVERIFY(m_demoDir.isValid());
        m_demo = m_demoDir.filePath("freetoken-demo.gguf");
        QVERIFY(QFile::copy(QStringLiteral(FT_SOURCE_DIR "/resources/models/freetoken-demo.gguf"), m_demo));
    }

    // The reported walkthrough: first start, Settings, 한국어 (crashed 9 of 9 times in a real X window).
    void freshAppSettingsKorean() {
        startFresh();
        QVERIFY(m_ui->showPage("settings"));
        QVERIFY(m_ui->click("languageChoice_ko"));
        m_ui->settle(1000);
        QCOMPARE(language(), QStringLiteral("ko"));
        checkTranslated("ko");
        // The window still answers clicks after the switch.
        QVERIFY(m_ui->showPage("models"));
        QVERIFY(m_ui->showPage("settings"));
        QVERIFY(m_ui->click("languageChoice_en"));
        m_ui->settle();
        checkTranslated("en");
    }

    // The same on the installed app's first start: the demo model loaded, the welcome closed.
    void firstStartWithTheDemoSettingsKorean() {
        startFresh(true);
        QVERIFY(m_ui->showPage("settings"));
        QVERIFY(m_ui->click("languageChoice_ko"));
        m_ui->settle(1000);
        QCOMPARE(language(), QStringLiteral("ko"));
        checkTranslated("ko");
        // Dates follow the language: the demo's row says when it was added in Korean date format.
        const QString addedKo = QLocale(QLocale::Korean, QLocale::SouthKorea).toString(QDate::currentDate(), QLocale::ShortFormat);
        QVERIFY2(m_ui->item("modelAddedText")->property("text").toString().contains(addedKo),
                 qPrintable(m_ui->item("modelAddedText")->property("text").toString() + " / " + addedKo));
        m_ui->saveScreenshot("settings-ko-after-switch");
        QVERIFY(m_ui->showPage("console"));
        m_ui->saveScreenshot("console-ko-after-switch");
        QVERIFY(m_ui->showPage("settings"));
        QVERIFY(m_ui->click("languageChoice_zh_CN"));
        m_ui->settle(1000);
        checkTranslated("zh_CN");
        const QString addedZh = QLocale(QLocale::Chinese, QLocale::China).toString(QDate::currentDate(), QLocale::ShortFormat);
        QVERIFY2(m_ui->item("modelAddedText")->property("text").toString().contains(addedZh),
                 qPrintable(m_ui->item("modelAddedText")->property("text").toString() + " / " + addedZh));
    }

    void everyLanguageFromEveryPage_data() {
        QTest::addColumn<QString>("from");
        QTest::addColumn<bool>("visitOthers");
        QTest::addColumn<QStringList>("order");
        QTest::addColumn<bool>("byClick");
        for (const QString& from : kPages)
            for (const bool visitOthers : {false, true})
                for (const QStringList& order : {QStringList{"ko", "zh_CN", "en"}, QStringList{"zh_CN", "ko", "en"}})
                    for (const bool byClick : {true, false}) {
                        if (from == "settings" && !byClick) continue;  // on Settings both ways are the click
                        QTest::addRow("%s%s-%s-%s", qPrintable(from), visitOthers ? "+others" : "",
                                      qPrintable(order.first()), byClick ? "click" : "set")
                            << from << visitOthers << order << byClick;
                    }
    }

    void everyLanguageFromEveryPage() {
        QFETCH(QString, from);
        QFETCH(bool, visitOthers);
        QFETCH(QStringList, order);
        QFETCH(bool, byClick);
        startFresh(true);
        if (visitOthers)
            for (const QString& p : kPages)
                if (p != from) QVERIFY(m_ui->showPage(p));
        for (const QString& lang : order) {
            QVERIFY(m_ui->showPage(from));
            switchTo(lang, byClick);
            // Back on the page it was switched from, which redraws in the new language.
            QVERIFY(m_ui->showPage(from));
            QVERIFY(m_ui->item("page_" + from)->isVisible());
            checkTranslated(lang);
        }
        const QStringList w = ft::test::take_warnings();
        QVERIFY2(w.isEmpty(), qPrintable(w.join('\n')));
    }

    void cleanupTestCase() {
        m_ui.reset();
        ft::test::remove_warning_capture();
    }
};

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    TestLanguageSwitch t;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&t, argc, argv);
}

#include "test_language_switch.moc"
