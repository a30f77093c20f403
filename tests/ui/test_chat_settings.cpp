// A chat's system prompt and sampling in the real window: a new chat
// starts from the defaults, not from the chat on screen (which it used to copy, and store, silently); the defaults
// are the user's own once set on the Settings page; a chat with a system prompt shows it above its messages.
#include <QApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QQuickItem>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

#include "app_harness.h"
#include "app_settings.h"
#include "chat_session.h"
#include "chat_store.h"
#include "engine_host.h"
#include "ft/log.h"
#include "log_hub.h"

class TestChatSettings : public QObject {
    Q_OBJECT
    QTemporaryDir m_data;
    ft::LogHub m_hub;
    std::unique_ptr<ft::test::UiHarness> m_ui;
    qint64 m_pirate = 0;

    ft::ui::ChatSession* session() const { return qobject_cast<ft::ui::ChatSession*>(m_ui->object("chatSession")); }
    bool visible(const QString& name) const {
        QQuickItem* i = m_ui->item(name);
        return i && i->isVisible();
    }
    bool openByClick(const QString& title) {
        for (QQuickItem* t : m_ui->items("conversationTitle"))
            if (t->property("text").toString() == title && t->isVisible()) {
                QTest::mouseClick(m_ui->window(), Qt::LeftButton, Qt::NoModifier,
                                  t->mapToScene(QPointF(t->width() / 2, t->height() / 2)).toPoint());
                m_ui->settle();
                return session()->currentTitle() == title;
            }
        return false;
    }
    void newChatByKeyboard() {
        QTest::keyClick(m_ui->window(), Qt::Key_N, Qt::ControlModifier);
        m_ui->settle();
        QCOMPARE(session()->currentId(), qint64(0));
    }
    QString field(const QString& name) const { return m_ui->item(name)->property("text").toString(); }

private slots:
    void initTestCase() {
        QVERIFY(m_data.isValid());
        qputenv("FT_DATA_DIR", m_data.path().toUtf8());
        ft::test::install_warning_capture();
        ft::attach_log_hub(m_hub, "freetoken");
        {
            // A saved chat with its own system prompt and sampling (as an earlier session stored it).
            ft::ChatStore store;
            const QJsonObject sampling{{"temperature", 1.7}, {"topP", 0.5}, {"maxTokens", 77}, {"seed", 42}};
            m_pirate = store.createConversation("Pirate chat", {}, "Talk like a pirate.",
                                                QString::fromUtf8(QJsonDocument(sampling).toJson(QJsonDocument::Compact))).id;
            store.createConversation("Plain chat", {}, {}, {});
        }
        m_ui = std::make_unique<ft::test::UiHarness>(&m_hub);
        QVERIFY(m_ui->load());
        QVERIFY(m_ui->showPage("chat"));
    }

    void aChatShowsItsSystemPrompt() {
        QVERIFY(openByClick("Pirate chat"));
        QCOMPARE(session()->systemPrompt(), QStringLiteral("Talk like a pirate."));
        QCOMPARE(session()->temperature(), 1.7);
        QVERIFY(visible("systemPromptBanner"));
        QVERIFY(m_ui->item("systemPromptText")->property("text").toString().contains("Talk like a pirate."));
        m_ui->saveScreenshot("chat-system-prompt-banner");
        // Clicking it opens the chat's settings with the prompt in them.
        QVERIFY(m_ui->click("systemPromptBanner"));
        QTRY_VERIFY(m_ui->object("chatSettingsDialog")->property("opened").toBool());
        QCOMPARE(field("systemPromptField"), QStringLiteral("Talk like a pirate."));
        QTest::keyClick(m_ui->window(), Qt::Key_Escape);
        QTRY_VERIFY(!m_ui->object("chatSettingsDialog")->property("opened").toBool());
        QVERIFY(openByClick("Plain chat"));
        QVERIFY(!visible("systemPromptBanner"));
    }

    void aNewChatStartsFromTheDefaults() {
        QVERIFY(openByClick("Pirate chat"));
        newChatByKeyboard();
        QCOMPARE(session()->systemPrompt(), QString());
        QCOMPARE(session()->temperature(), 0.7);
        QCOMPARE(session()->topP(), 0.9);
        QCOMPARE(session()->maxTokens(), 1024);
        QCOMPARE(session()->seed(), qint64(0));
        QVERIFY(!visible("systemPromptBanner"));
        // The same by the New chat button.
        QVERIFY(openByClick("Pirate chat"));
        QVERIFY(m_ui->click("newChatButton"));
        QCOMPARE(session()->currentId(), qint64(0));
        QCOMPARE(session()->systemPrompt(), QString());
        QCOMPARE(session()->maxTokens(), 1024);
        // The dialog of the new chat shows the defaults.
        QVERIFY(m_ui->click("chatSettingsButton"));
        QTRY_VERIFY(m_ui->object("chatSettingsDialog")->property("opened").toBool());
        QCOMPARE(field("systemPromptField"), QString());
        QCOMPARE(field("maxTokensField"), QStringLiteral("1024"));
        QTest::keyClick(m_ui->window(), Qt::Key_Escape);
        QTRY_VERIFY(!m_ui->object("chatSettingsDialog")->property("opened").toBool());
    }

    void theDefaultsAreSetInSettings() {
        QVERIFY(m_ui->showPage("settings"));
        QQuickItem* prompt = m_ui->item("defaultSystemPromptFieldArea");
        QVERIFY(prompt && prompt->isVisible());
        prompt->forceActiveFocus();
        prompt->setProperty("text", QStringLiteral("Answer in one sentence."));
        QQuickItem* maxTokens = m_ui->item("defaultMaxTokensField");
        QVERIFY(maxTokens && maxTokens->isVisible());
        maxTokens->forceActiveFocus();  // leaves the prompt field: it is saved
        maxTokens->setProperty("text", QStringLiteral("300"));
        m_ui->item("defaultTemperatureField")->forceActiveFocus();
        m_ui->settle();
        QVERIFY(m_ui->showPage("chat"));
        QVERIFY(openByClick("Pirate chat"));
        newChatByKeyboard();
        QCOMPARE(session()->systemPrompt(), QStringLiteral("Answer in one sentence."));
        QCOMPARE(session()->maxTokens(), 300);
        QCOMPARE(session()->temperature(), 0.7);
        QVERIFY(visible("systemPromptBanner"));
        // A restart keeps them.
        m_ui.reset();
        m_ui = std::make_unique<ft::test::UiHarness>(&m_hub);
        QVERIFY(m_ui->load());
        QCOMPARE(session()->systemPrompt(), QStringLiteral("Answer in one sentence."));
        QCOMPARE(session()->maxTokens(), 300);
        QVERIFY(m_ui->showPage("settings"));
        QCOMPARE(field("defaultSystemPromptField"), QStringLiteral("Answer in one sentence."));
        m_ui->saveScreenshot("settings-new-chats");
        // Warnings about this test's pages (a second app in one process also warns that the style is set twice).
        QStringList w;
        for (const QString& x : ft::test::take_warnings())
            if (x.contains(QLatin1String(".qml")) || x.contains(QLatin1String("ChatSession"))) w << x;
        QVERIFY2(w.isEmpty(), qPrintable(w.join('\n')));
    }

    // The loaded model's recommendation (the bundled demo's file names temperature 0: greedy) is what a new chat
    // starts from, over the defaults it names; off in Settings → New chats, the defaults alone.
    void aNewChatTakesTheLoadedModelsRecommendation() {
        QVERIFY(m_ui->showPage("chat"));
        newChatByKeyboard();
        QCOMPARE(session()->temperature(), 0.7);
        QVERIFY(session()->recommendedSampling().isEmpty());
        ft::LoadOptions o;
        o.device = ft::Device::cpu;
        o.threads = 1;
        o.n_ctx = 2048;
        m_ui->host()->setLoadOptions(o);
        QSignalSpy done(m_ui->host(), &ft::EngineHost::loadFinished);
        m_ui->host()->load(QStringLiteral(FT_SOURCE_DIR "/resources/models/freetoken-demo.gguf"));
        QVERIFY(done.wait(60000));
        QVERIFY2(done.first().at(0).toBool(), qPrintable(done.first().at(1).toString()));
        m_ui->settle();
        // The new chat on screen, not started yet, takes it; what the file does not name stays the user's.
        QCOMPARE(session()->temperature(), 0.0);
        QCOMPARE(session()->topP(), 0.9);
        QCOMPARE(session()->maxTokens(), 300);
        QCOMPARE(session()->topK(), 0);
        QVERIFY(m_ui->click("chatSettingsButton"));
        QTRY_VERIFY(m_ui->object("chatSettingsDialog")->property("opened").toBool());
        QCOMPARE(field("temperatureField"), QStringLiteral("0"));
        QVERIFY(visible("recommendedSamplingText"));
        QCOMPARE(field("recommendedSamplingText"), QStringLiteral("The loaded model recommends temperature 0."));
        QVERIFY(!visible("chatTopKText"));
        m_ui->saveScreenshot("chat-settings-model-recommends");
        QTest::keyClick(m_ui->window(), Qt::Key_Escape);
        QTRY_VERIFY(!m_ui->object("chatSettingsDialog")->property("opened").toBool());
        // Turned off: a new chat starts from the defaults alone.
        QVERIFY(m_ui->showPage("settings"));
        QVERIFY(m_ui->scrollToTop("modelSamplingSwitch"));
        QVERIFY(m_ui->click("modelSamplingSwitch"));
        QVERIFY(!ft::AppSettings().modelSampling());
        QVERIFY(m_ui->showPage("chat"));
        newChatByKeyboard();
        QCOMPARE(session()->temperature(), 0.7);
        // And on again.
        QVERIFY(m_ui->showPage("settings"));
        QVERIFY(m_ui->scrollToTop("modelSamplingSwitch"));
        QVERIFY(m_ui->click("modelSamplingSwitch"));
        QVERIFY(ft::AppSettings().modelSampling());
        QVERIFY(m_ui->showPage("chat"));
        newChatByKeyboard();
        QCOMPARE(session()->temperature(), 0.0);
    }

    void cleanupTestCase() {
        m_ui.reset();
        ft::test::remove_warning_capture();
    }
};

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    TestChatSettings t;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&t, argc, argv);
}

#include "test_chat_settings.moc"
