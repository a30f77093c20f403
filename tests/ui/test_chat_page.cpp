// The Chat page in a real window (offscreen) with the real CPU engine on the tiny model: without a model it says
// so and offers the Models page; add the model and load it; send with the keyboard (Shift+Enter adds a line, Enter
// sends) and watch the reply stream; stop one with Esc; regenerate one; edit and resend; rename, search, Ctrl+N,
// delete; the settings dialog; the context warning; then restart the app (a new harness on the same data dir),
// find the conversation, and unfold a saved reply's thinking and copy its code block.
#include <QApplication>
#include <QClipboard>
#include <QColor>
#include <QDir>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QElapsedTimer>
#include <QTest>

#include "app_harness.h"
#include "chat_session.h"
#include "chat_store.h"
#include "engine_host.h"
#include "ft/log.h"
#include "log_hub.h"

namespace {

const QString kModel = QStringLiteral(FT_SOURCE_DIR "/tests/data/qwen3-moe-tiny");

// Warnings about this page's own QML and view models (other pages have their own tests).
QStringList take_warnings() {
    static const QRegularExpression mine(QStringLiteral(
        "(Chat[A-Za-z]*|RenameChatDialog|DeleteChatDialog|EditMessageDialog)\\.qml|Main\\.qml|ChatSession|MessageList|ConversationList"));
    QStringList out;
    for (const QString& w : ft::test::take_warnings())
        if (w.contains(mine)) out << w;
    return out;
}

}  // namespace

class TestChatPage : public QObject {
    Q_OBJECT
    QTemporaryDir m_data;
    ft::LogHub m_hub;
    std::unique_ptr<ft::test::UiHarness> m_ui;

    ft::ui::ChatSession* session() const { return qobject_cast<ft::ui::ChatSession*>(m_ui->object("chatSession")); }
    ft::ui::MessageListModel* messages() const { return session()->messages(); }
    bool visible(const QString& name) const {
        QQuickItem* i = m_ui->item(name);
        if (i) return i->isVisible();
        QObject* popup = m_ui->object(name);  // dialogs are popups, not items of the window's tree
        return popup && popup->property("opened").toBool();
    }

    void startApp(int nCtx = 2048) {
        m_ui = std::make_unique<ft::test::UiHarness>(&m_hub);
        ft::LoadOptions o;
        o.device = ft::Device::cpu;
        o.threads = 1;
        o.n_ctx = nCtx;
        m_ui->host()->setLoadOptions(o);
        QVERIFY(m_ui->load());
        QVERIFY(session() != nullptr);
        QCOMPARE(session()->host(), m_ui->host());
    }

    void loadModel() {
        QSignalSpy done(m_ui->host(), &ft::EngineHost::loadFinished);
        m_ui->host()->load(kModel);
        QVERIFY(done.wait(60000));
        QVERIFY2(done.first().at(0).toBool(), qPrintable(done.first().at(1).toString()));
        m_ui->settle();
    }

    // Types into the composer with the keyboard.
    void type(const QString& text) {
        QQuickItem* input = m_ui->item("chatInput");
        QVERIFY(input && input->isEnabled());
        input->forceActiveFocus();
        for (const QChar c : text) QTest::keyClick(m_ui->window(), c.toLatin1());
    }

    void waitIdle() { QTRY_VERIFY_WITH_TIMEOUT(!session()->busy(), 120000); m_ui->settle(); }

    QString lastState() const { return messages()->messages().isEmpty() ? QString() : messages()->messages().last().state; }
    // Ended by the model ("complete") or at the token limit ("truncated").
    static bool finished(const QString& state) { return state == "complete" || state == "truncated"; }

    void setSettingsByDialog(const QString& temperature, const QString& maxTokens, const QString& seed) {
        QVERIFY(m_ui->click("chatSettingsButton"));
        QTRY_VERIFY(visible("chatSettingsDialog"));
        m_ui->item("temperatureField")->setProperty("text", temperature);
        m_ui->item("maxTokensField")->setProperty("text", maxTokens);
        m_ui->item("seedField")->setProperty("text", seed);
        QVERIFY(m_ui->click("saveChatSettingsButton"));
        QTRY_VERIFY(!visible("chatSettingsDialog"));
    }

private slots:
    void initTestCase() {
        QVERIFY(m_data.isValid());
        qputenv("FT_DATA_DIR", m_data.path().toUtf8());
        ft::test::install_warning_capture();
        ft::attach_log_hub(m_hub, "freetoken");
        startApp();
        const QStringList w = take_warnings();
        QVERIFY2(w.isEmpty(), qPrintable(w.join('\n')));
    }

    void withoutAModelOffersTheModelsPage() {
        QVERIFY(m_ui->showPage("chat"));
        QVERIFY(visible("chatEmptyState"));
        QVERIFY(!m_ui->item("chatInput")->isEnabled());
        QVERIFY(!m_ui->item("sendButton")->isEnabled());
        QVERIFY(m_ui->click("goToModelsButton"));
        QCOMPARE(m_ui->root()->property("currentPage").toString(), QStringLiteral("models"));
    }

    void addsAndLoadsTheTinyModel() {
        QObject* library = m_ui->object("libraryModel");
        bool ok = false;
        QMetaObject::invokeMethod(library, "addPath", Q_RETURN_ARG(bool, ok), Q_ARG(QString, kModel));
        QVERIFY(ok);
        loadModel();
        QVERIFY(m_ui->showPage("chat"));
        QVERIFY(!visible("chatEmptyState"));
        QVERIFY(visible("chatStartState"));
        QVERIFY(m_ui->item("chatInput")->isEnabled());
    }

    void settingsDialogSavesPerChatSampling() {
        setSettingsByDialog("0", "400", "7");
        QCOMPARE(session()->temperature(), 0.0);
        QCOMPARE(session()->maxTokens(), 400);
        QCOMPARE(session()->seed(), qint64(7));
    }

    void sendsWithEnterAndStreamsTheReply() {
        type("Hello there");
        QTest::keyClick(m_ui->window(), Qt::Key_Return, Qt::ShiftModifier);  // a new line, not a send
        QVERIFY(m_ui->item("chatInput")->property("text").toString().contains('\n'));
        QVERIFY(!session()->busy());
        type("second line");
        int updates = 0;
        auto c = connect(messages(), &QAbstractItemModel::dataChanged, this, [&] { ++updates; });
        QTest::keyClick(m_ui->window(), Qt::Key_Return);
        QVERIFY(session()->busy());
        QCOMPARE(m_ui->item("chatInput")->property("text").toString(), QString());
        QTRY_VERIFY(visible("stopButton"));
        // The reply grows on screen while it streams.
        QTRY_VERIFY_WITH_TIMEOUT(!messages()->messages().last().content.isEmpty() || !session()->busy(), 60000);
        waitIdle();
        disconnect(c);
        QVERIFY2(updates >= 2, qPrintable(QString::number(updates)));
        QCOMPARE(messages()->rowCount(), 2);
        QCOMPARE(messages()->messages().at(0).content, QStringLiteral("Hello there\nsecond line"));
        QVERIFY2(finished(lastState()), qPrintable(lastState()));
        QVERIFY(!messages()->messages().last().content.isEmpty() || !messages()->messages().last().reasoning.isEmpty());
        QVERIFY(visible("replyFigures"));
        QVERIFY(m_ui->item("replyFigures")->property("text").toString().contains("tok/s"));
        QVERIFY(visible("assistantMessage"));
        QCOMPARE(session()->conversations()->rowCount(), 1);
        QCOMPARE(session()->conversations()->rows().first().title, QStringLiteral("Hello there"));
    }

    void escStopsAReply() {
        setSettingsByDialog("0.8", "1500", "3");
        type("Tell me a long story");
        QVERIFY(m_ui->click("sendButton"));
        QVERIFY(session()->busy());
        // Esc as soon as the first words show (polled every millisecond: the tiny model is fast, and a slow
        // platform's painting must not let the whole reply go by).
        QElapsedTimer t;
        t.start();
        while (messages()->messages().last().content.isEmpty() && session()->busy() && t.elapsed() < 60000) QTest::qWait(1);
        QVERIFY2(session()->busy(), "the reply ended before it could be stopped");
        QTest::keyClick(m_ui->window(), Qt::Key_Escape);
        waitIdle();
        QCOMPARE(lastState(), QStringLiteral("partial"));
        QVERIFY(messages()->messages().last().completionTokens < 1500);
        QVERIFY(visible("partialPill"));
    }

    void regeneratesTheLastReply() {
        setSettingsByDialog("0", "60", "1");
        const qint64 oldId = messages()->messages().last().id;
        QCOMPARE(messages()->rowCount(), 4);
        QVERIFY(m_ui->click("regenerateButton"));
        // With the conversation in the prefix cache a 60-token reply can be done before the click returns.
        QTRY_VERIFY(session()->busy() || messages()->messages().last().id != oldId);
        waitIdle();
        QCOMPARE(messages()->rowCount(), 4);
        QVERIFY(messages()->messages().last().id != oldId);
        QVERIFY2(finished(lastState()), qPrintable(lastState()));
    }

    void editsAndResendsAMessage() {
        // The first user message: scroll it into view, then click its Edit button.
        QMetaObject::invokeMethod(m_ui->item("messageList"), "positionViewAtBeginning");
        m_ui->settle();
        QQuickItem* first = nullptr;
        for (QQuickItem* b : m_ui->items("editMessageButton")) {
            if (!b->isVisible() || !b->isEnabled()) continue;
            if (!first || b->mapToScene(QPointF()).y() < first->mapToScene(QPointF()).y()) first = b;
        }
        QVERIFY(first);
        QTest::mouseClick(m_ui->window(), Qt::LeftButton, Qt::NoModifier,
                          first->mapToScene(QPointF(first->width() / 2, first->height() / 2)).toPoint());
        QTRY_VERIFY(visible("editMessageDialog"));
        QCOMPARE(m_ui->item("editMessageFieldArea")->property("text").toString(), QStringLiteral("Hello there\nsecond line"));
        m_ui->item("editMessageFieldArea")->setProperty("text", QStringLiteral("Hello again"));
        QVERIFY(m_ui->click("confirmEditButton"));
        QTRY_VERIFY(!visible("editMessageDialog"));
        waitIdle();
        QCOMPARE(messages()->rowCount(), 2);
        QCOMPARE(messages()->messages().first().content, QStringLiteral("Hello again"));
        QVERIFY2(finished(lastState()), qPrintable(lastState()));
    }

    void renamesAndSearches() {
        QVERIFY(m_ui->click("renameChatButton"));
        QTRY_VERIFY(visible("renameChatDialog"));
        m_ui->item("renameChatField")->setProperty("text", QStringLiteral("Lighthouse chat"));
        QVERIFY(m_ui->click("confirmRenameButton"));
        QTRY_VERIFY(!visible("renameChatDialog"));
        QCOMPARE(session()->currentTitle(), QStringLiteral("Lighthouse chat"));
        QCOMPARE(m_ui->item("conversationTitle")->property("text").toString(), QStringLiteral("Lighthouse chat"));
        m_ui->item("chatSearch")->setProperty("text", QStringLiteral("no such words"));
        m_ui->settle();
        QCOMPARE(session()->conversations()->rowCount(), 0);
        m_ui->item("chatSearch")->setProperty("text", QStringLiteral("hello AGAIN"));  // message text, any case
        m_ui->settle();
        QCOMPARE(session()->conversations()->rowCount(), 1);
        m_ui->item("chatSearch")->setProperty("text", QString());
        m_ui->settle();
    }

    void ctrlNStartsANewChatAndDeleteRemovesIt() {
        QTest::keyClick(m_ui->window(), Qt::Key_N, Qt::ControlModifier);
        m_ui->settle();
        QCOMPARE(session()->currentId(), qint64(0));
        QCOMPARE(messages()->rowCount(), 0);
        QVERIFY(visible("chatStartState"));
        type("A throwaway chat");
        QTest::keyClick(m_ui->window(), Qt::Key_Return);
        waitIdle();
        QCOMPARE(session()->conversations()->rowCount(), 2);
        QVERIFY(m_ui->click("deleteChatButton"));  // the open (current) chat's row shows its buttons
        QTRY_VERIFY(visible("deleteChatDialog"));
        // A confirmation that destroys something is red (Theme.danger), not the accent blue of the others.
        QQuickItem* confirm = m_ui->item("confirmDeleteChatButton");
        QVERIFY(confirm);
        QCOMPARE(confirm->property("kind").toString(), QStringLiteral("danger"));
        QQuickItem* background = qvariant_cast<QQuickItem*>(confirm->property("background"));
        QVERIFY(background);
        QCOMPARE(background->property("color").value<QColor>(),
                 m_ui->object("settingsModel") ? QColor(m_ui->root()->property("color").value<QColor>().lightness() < 128
                                                            ? "#f26b6d" : "#d43f42") : QColor());
        QVERIFY(m_ui->click("confirmDeleteChatButton"));
        QTRY_VERIFY(!visible("deleteChatDialog"));
        QCOMPARE(session()->conversations()->rowCount(), 1);
        QCOMPARE(session()->conversations()->rows().first().title, QStringLiteral("Lighthouse chat"));
        QCOMPARE(session()->currentId(), qint64(0));
        QVERIFY(take_warnings().isEmpty());
    }

    void warnsBeforeTheContextIsFull() {
        // A small context: a reply that runs to the end of it leaves the chat near the limit.
        ft::LoadOptions o = m_ui->host()->loadOptions();
        o.n_ctx = 128;
        m_ui->host()->setLoadOptions(o);
        loadModel();
        QVERIFY(!visible("contextWarning"));
        setSettingsByDialog("0", "500", "1");
        type("Fill the context");
        QTest::keyClick(m_ui->window(), Qt::Key_Return);
        waitIdle();
        QVERIFY(session()->contextUsed() >= 100);
        QVERIFY(session()->contextWarning());
        QVERIFY(visible("contextWarning"));
        // The next message no longer fits: a clear refusal, nothing sent.
        type(QString("word ").repeated(40));
        QTest::keyClick(m_ui->window(), Qt::Key_Return);
        m_ui->settle();
        QVERIFY(!session()->busy());
        QVERIFY(visible("chatError"));
        QVERIFY(m_ui->item("chatError")->property("text").toString().contains("context"));
        session()->remove(session()->currentId());
        session()->clearError();
    }

    void restartFindsTheConversation() {
        // A saved reply with thinking and a code block, as an earlier session of the app would have left it.
        {
            ft::ChatStore store(QDir(m_data.path()).filePath("chats.db"));
            const auto c = store.createConversation("Saved with thinking");
            ft::MessageRecord m;
            m.conversationId = c.id;
            m.role = "user";
            m.content = "Print hi in Python";
            store.addMessage(m);
            m.role = "assistant";
            m.reasoning = "The user wants a one-liner.";
            m.content = "Here:\n```python\nprint(\"hi\")\n```\nDone.";
            m.completionTokens = 12;
            store.addMessage(m);
        }
        m_ui.reset();  // quit the app
        startApp();
        loadModel();
        QVERIFY(m_ui->showPage("chat"));
        const auto rows = session()->conversations()->rows();
        QCOMPARE(rows.size(), 2);
        QStringList titles;
        for (const auto& r : rows) titles << r.title;
        QVERIFY(titles.contains("Lighthouse chat"));
        // Open the earlier conversation by clicking its row.
        QQuickItem* target = nullptr;
        for (QQuickItem* t : m_ui->items("conversationTitle"))
            if (t->property("text").toString() == "Lighthouse chat") target = t;
        QVERIFY(target);
        QTest::mouseClick(m_ui->window(), Qt::LeftButton, Qt::NoModifier,
                          target->mapToScene(QPointF(target->width() / 2, target->height() / 2)).toPoint());
        m_ui->settle();
        QCOMPARE(session()->currentTitle(), QStringLiteral("Lighthouse chat"));
        QCOMPARE(messages()->rowCount(), 2);
        QCOMPARE(messages()->messages().first().content, QStringLiteral("Hello again"));
        // It still chats after the restart.
        type("And now?");
        QTest::keyClick(m_ui->window(), Qt::Key_Return);
        waitIdle();
        QCOMPARE(messages()->rowCount(), 4);

        // The saved reply's thinking unfolds; its code block has a copy button.
        qint64 savedId = 0;
        for (const auto& r : session()->conversations()->rows())
            if (r.title == "Saved with thinking") savedId = r.id;
        QVERIFY(session()->select(savedId));
        m_ui->settle();
        QVERIFY(visible("reasoningToggle"));
        QVERIFY(!visible("reasoningText"));
        QVERIFY(m_ui->click("reasoningToggle"));
        QTRY_VERIFY(visible("reasoningText"));
        QCOMPARE(m_ui->item("reasoningText")->property("text").toString(), QStringLiteral("The user wants a one-liner."));
        QVERIFY(visible("copyCodeButton"));
        QGuiApplication::clipboard()->setText(QStringLiteral("before"));
        QVERIFY(m_ui->click("copyCodeButton"));
        QCOMPARE(QGuiApplication::clipboard()->text(), QStringLiteral("print(\"hi\")"));
        const QStringList w = take_warnings();
        QVERIFY2(w.isEmpty(), qPrintable(w.join('\n')));
    }

    void aReplyCutAtTheTokenLimitIsMarked() {
        session()->newChat();
        m_ui->settle();
        setSettingsByDialog("0.8", "3", "5");
        type("Count to one hundred");
        QTest::keyClick(m_ui->window(), Qt::Key_Return);
        waitIdle();
        QCOMPARE(lastState(), QStringLiteral("truncated"));
        QCOMPARE(messages()->messages().last().completionTokens, 3);
        QVERIFY(visible("truncatedPill"));
        m_ui->saveScreenshot("chat-truncated-reply");
        // Saved so: the mark survives a restart (the store keeps the state).
        ft::ChatStore store;
        QCOMPARE(store.messages(session()->currentId()).last().state, QStringLiteral("truncated"));
    }

    void cleanupTestCase() {
        m_ui.reset();
        ft::test::remove_warning_capture();
    }
};

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    TestChatPage t;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&t, argc, argv);
}

#include "test_chat_page.moc"
