// ChatStore: migrations from an empty database and from the current schema, refusal of a newer one, conversations
// and messages (search, rename, delete with messages, regenerate's truncation), recovery of an interrupted reply,
// and crash safety: the real chat path in a child process (chat_reply_writer) killed with SIGKILL mid-reply loses
// nothing it had shown, and the reply comes back marked partial.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <mutex>

#include "chat_store.h"
#include "chat_store_writer.h"
#include "reply_blocks.h"
#include "ft/error.h"
#include "ft_test.h"
#include "reply_text.h"

namespace {

int exec_int(const QString& file, const QString& sql) {
    int value = -1;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "probe");
        db.setDatabaseName(file);
        if (db.open()) {
            QSqlQuery q(db);
            if (q.exec(sql) && q.next()) value = q.value(0).toInt();
            db.close();
        }
    }
    QSqlDatabase::removeDatabase("probe");
    return value;
}

}  // namespace

class TestChatStore : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    QString file(const QString& name) const { return m_dir.filePath(name); }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void migratesAnEmptyDatabase() {
        ft::ChatStore store(file("empty.db"));
        QCOMPARE(store.schemaVersion(), ft::ChatStore::kSchemaVersion);
        QCOMPARE(store.journalMode().toLower(), QStringLiteral("wal"));
        QVERIFY(store.conversations().isEmpty());
        QCOMPARE(store.recoveredPartials(), 0);
    }

    void reopensTheCurrentSchemaKeepingData() {
        const QString path = file("current.db");
        qint64 id = 0;
        {
            ft::ChatStore store(path);
            const auto c = store.createConversation("First", "/models/a.gguf", "Be brief.", R"({"temperature":0.2})");
            id = c.id;
            ft::MessageRecord m;
            m.conversationId = id;
            m.role = "user";
            m.content = "Hello";
            store.addMessage(m);
            m.role = "assistant";
            m.content = "Hi!";
            m.reasoning = "greet back";
            m.promptTokens = 12;
            m.completionTokens = 3;
            m.tokensPerSecond = 40.5;
            m.ttftMs = 80;
            store.addMessage(m);
        }
        QCOMPARE(exec_int(path, "PRAGMA user_version"), ft::ChatStore::kSchemaVersion);
        ft::ChatStore again(path);
        QCOMPARE(again.schemaVersion(), ft::ChatStore::kSchemaVersion);
        const auto list = again.conversations();
        QCOMPARE(list.size(), 1);
        QCOMPARE(list.first().title, QStringLiteral("First"));
        QCOMPARE(list.first().systemPrompt, QStringLiteral("Be brief."));
        QCOMPARE(list.first().samplingJson, QStringLiteral(R"({"temperature":0.2})"));
        const auto msgs = again.messages(id);
        QCOMPARE(msgs.size(), 2);
        QCOMPARE(msgs.at(1).reasoning, QStringLiteral("greet back"));
        QCOMPARE(msgs.at(1).completionTokens, 3);
        QCOMPARE(msgs.at(1).tokensPerSecond, 40.5);
        QCOMPARE(msgs.at(1).state, QStringLiteral("complete"));
    }

    // A version-1 history (as FreeToken wrote it before replies could end "truncated") migrates with its messages.
    void migratesVersion1KeepingMessages() {
        const QString path = file("v1.db");
        {
            QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "v1");
            db.setDatabaseName(path);
            QVERIFY(db.open());
            QSqlQuery q(db);
            for (const char* sql : {
                     "CREATE TABLE conversations (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL,"
                     " model_path TEXT NOT NULL DEFAULT '', system_prompt TEXT NOT NULL DEFAULT '',"
                     " sampling TEXT NOT NULL DEFAULT '{}', created_at TEXT NOT NULL, updated_at TEXT NOT NULL)",
                     "CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT,"
                     " conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,"
                     " role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system')),"
                     " content TEXT NOT NULL DEFAULT '', reasoning TEXT NOT NULL DEFAULT '',"
                     " state TEXT NOT NULL DEFAULT 'complete' CHECK (state IN ('complete', 'streaming', 'partial', 'error')),"
                     " error TEXT NOT NULL DEFAULT '', prompt_tokens INTEGER NOT NULL DEFAULT 0,"
                     " completion_tokens INTEGER NOT NULL DEFAULT 0, tokens_per_second REAL NOT NULL DEFAULT 0,"
                     " ttft_ms REAL NOT NULL DEFAULT 0, created_at TEXT NOT NULL)",
                     "CREATE INDEX messages_by_conversation ON messages(conversation_id, id)",
                     "CREATE INDEX conversations_by_update ON conversations(updated_at)",
                     "INSERT INTO conversations VALUES (1, 'Old', '', 'Be brief.', '{}', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')",
                     "INSERT INTO messages VALUES (1, 1, 'user', 'Hi', '', 'complete', '', 0, 0, 0, 0, '2026-01-01T00:00:00Z')",
                     "INSERT INTO messages VALUES (2, 1, 'assistant', 'Hel', '', 'streaming', '', 5, 1, 0, 0, '2026-01-01T00:00:01Z')",
                     "PRAGMA user_version = 1"})
                QVERIFY2(q.exec(QString::fromUtf8(sql)), qPrintable(q.lastError().text()));
            db.close();
        }
        QSqlDatabase::removeDatabase("v1");
        ft::ChatStore store(path);
        QCOMPARE(store.schemaVersion(), ft::ChatStore::kSchemaVersion);
        QCOMPARE(store.recoveredPartials(), 1);
        auto msgs = store.messages(1);
        QCOMPARE(msgs.size(), 2);
        QCOMPARE(msgs.at(0).content, QStringLiteral("Hi"));
        QCOMPARE(msgs.at(1).state, QStringLiteral("partial"));
        msgs[1].state = QStringLiteral("truncated");
        store.updateMessage(msgs.at(1));
        QCOMPARE(store.messages(1).at(1).state, QStringLiteral("truncated"));
        QCOMPARE(store.conversations().first().systemPrompt, QStringLiteral("Be brief."));
        // Version 3: the model and server of each reply (old replies: empty), stored on add and on update.
        QCOMPARE(store.messages(1).at(1).server, QString());
        ft::MessageRecord r;
        r.conversationId = 1;
        r.role = QStringLiteral("assistant");
        r.model = QStringLiteral("qwen3-moe");
        r.server = QStringLiteral("http://10.0.0.2:8000");
        r = store.addMessage(r);
        QCOMPARE(store.messages(1).at(2).model, QStringLiteral("qwen3-moe"));
        r.model = QStringLiteral("other");
        store.updateMessage(r);
        QCOMPARE(store.messages(1).at(2).model, QStringLiteral("other"));
        QCOMPARE(store.messages(1).at(2).server, QStringLiteral("http://10.0.0.2:8000"));
    }

    void refusesANewerSchema() {
        const QString path = file("newer.db");
        { ft::ChatStore store(path); }
        exec_int(path, "PRAGMA user_version = 99");
        QCOMPARE(exec_int(path, "PRAGMA user_version"), 99);
        try {
            ft::ChatStore store(path);
            QFAIL("a newer schema was accepted");
        } catch (const ft::Error& e) {
            QCOMPARE(e.code(), ft::ErrorCode::unsupported);
            QVERIFY(QString::fromStdString(e.message()).contains("newer.db"));
        }
    }

    void unwritablePlaceIsAClearError() {
        const QString blocker = file("a-file");
        QFile f(blocker);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        try {
            ft::ChatStore store(blocker + "/sub/chats.db");
            QFAIL("opened a database under a file");
        } catch (const ft::Error& e) {
            QCOMPARE(e.code(), ft::ErrorCode::io);
            QVERIFY(QString::fromStdString(e.message()).contains("chats.db"));
        }
    }

    void conversationsSearchRenameDelete() {
        ft::ChatStore store(file("crud.db"));
        const auto a = store.createConversation("Rust lifetimes");
        const auto b = store.createConversation("Dinner ideas");
        ft::MessageRecord m;
        m.conversationId = b.id;
        m.role = "user";
        m.content = "Something with 100% tomatoes";
        store.addMessage(m);
        QCOMPARE(store.conversations().first().id, b.id);  // newest activity first
        QCOMPARE(store.conversations("rust").size(), 1);
        QCOMPARE(store.conversations("TOMATOES").first().id, b.id);  // message text, any case
        QCOMPARE(store.conversations("100%").size(), 1);               // % is literal
        QCOMPARE(store.conversations("0%t").size(), 0);
        store.renameConversation(a.id, "Borrow checker");
        QCOMPARE(store.conversation(a.id)->title, QStringLiteral("Borrow checker"));
        try {
            store.renameConversation(9999, "x");
            QFAIL("renamed a missing conversation");
        } catch (const ft::Error& e) {
            QCOMPARE(e.code(), ft::ErrorCode::not_found);
        }
        QVERIFY(store.removeConversation(b.id));
        QVERIFY(store.messages(b.id).isEmpty());  // messages go with it
        QCOMPARE(store.conversations().size(), 1);
        QVERIFY(!store.removeConversation(b.id));
    }

    void truncatesForRegenerate() {
        ft::ChatStore store(file("trunc.db"));
        const auto c = store.createConversation("t");
        QList<qint64> ids;
        for (int i = 0; i < 4; ++i) {
            ft::MessageRecord m;
            m.conversationId = c.id;
            m.role = i % 2 ? "assistant" : "user";
            m.content = QString::number(i);
            ids << store.addMessage(m).id;
        }
        store.removeMessagesFrom(c.id, ids.at(2));
        const auto msgs = store.messages(c.id);
        QCOMPARE(msgs.size(), 2);
        QCOMPARE(msgs.last().content, QStringLiteral("1"));
    }

    void streamingReplyIsMarkedPartialOnOpen() {
        const QString path = file("stream.db");
        qint64 id = 0;
        {
            ft::ChatStore store(path);
            const auto c = store.createConversation("s");
            ft::MessageRecord m;
            m.conversationId = c.id;
            m.role = "assistant";
            m.state = "streaming";
            m.content = "half a";
            m = store.addMessage(m);
            m.content = "half a reply";
            store.updateMessage(m);
            id = c.id;
        }
        ft::ChatStore again(path);
        QCOMPARE(again.recoveredPartials(), 1);
        const auto msgs = again.messages(id);
        QCOMPARE(msgs.first().state, QStringLiteral("partial"));
        QCOMPARE(msgs.first().content, QStringLiteral("half a reply"));
    }

    // The streaming reply's saves on the writer's thread: the latest state wins, each write is reported with what it
    // wrote, drop() keeps a late streaming save from overwriting the final state, a failing write is reported.
    void writerSavesTheLatestStateOffThread() {
        const QString path = file("writer.db");
        ft::ChatStore store(path);
        const auto c = store.createConversation("w");
        ft::MessageRecord m;
        m.conversationId = c.id;
        m.role = "assistant";
        m.state = "streaming";
        m = store.addMessage(m);
        std::mutex mutex;
        QStringList saved;
        QList<bool> flags;
        {
            ft::ChatStoreWriter writer(path, [&](const ft::MessageRecord& r, bool flag) {
                std::lock_guard lock(mutex);
                saved << r.content;
                flags << flag;
            });
            for (int i = 1; i <= 50; ++i) {
                m.content = QString("word ").repeated(i);
                writer.post(m, i == 50);
            }
            writer.flush();
            QCOMPARE(store.messages(c.id).first().content, QString("word ").repeated(50));
            QCOMPARE(store.messages(c.id).first().state, QStringLiteral("streaming"));  // no recovery by the writer
            {
                std::lock_guard lock(mutex);
                QVERIFY2(saved.size() < 50, qPrintable(QString::number(saved.size())));  // coalesced
                QCOMPARE(saved.last(), QString("word ").repeated(50));
                QCOMPARE(flags.last(), true);
            }
            // The final state, written by the caller after drop(), is never written over.
            m.content = "streaming state";
            writer.post(m);
            writer.drop(m.id);
            m.content = "final state";
            m.state = "complete";
            store.updateMessage(m);
            QTest::qWait(300);
            writer.flush();
            QCOMPARE(store.messages(c.id).first().content, QStringLiteral("final state"));
            QVERIFY(!writer.takeError());
        }
        // A database it cannot open: the write fails and says why, once.
        const QString blocker = file("writer-blocker");
        {
            QFile f(blocker);
            QVERIFY(f.open(QIODevice::WriteOnly));
        }
        int reported = 0;
        ft::ChatStoreWriter broken(blocker + "/sub/chats.db", [&](const ft::MessageRecord&, bool) {
            std::lock_guard lock(mutex);
            ++reported;
        });
        broken.post(m);
        broken.flush();
        const auto error = broken.takeError();
        QVERIFY(error);
        QCOMPARE(error->code(), ft::ErrorCode::io);
        QVERIFY2(QString::fromStdString(error->message()).contains("chats.db"), error->what());
        QVERIFY(!broken.takeError());
        {
            std::lock_guard lock(mutex);
            QCOMPARE(reported, 1);  // still handed back: the chat shows the reply and says it is not saved
        }
    }

    void killedMidReplyLosesNothingShown() {
        QTemporaryDir data;
        QVERIFY(data.isValid());
        QProcess child;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("FT_DATA_DIR", data.path());
        child.setProcessEnvironment(env);
        child.start(QStringLiteral(CHAT_REPLY_WRITER), {QStringLiteral(FT_SOURCE_DIR "/tests/data/qwen3-moe-tiny")});
        QVERIFY(child.waitForStarted(10000));
        QString lastShown;
        int shown = 0;
        QString finished;
        QElapsedTimer t;
        t.start();
        while (shown < 3 && finished.isEmpty() && t.elapsed() < 120000) {
            if (!child.canReadLine() && !child.waitForReadyRead(1000)) {
                if (child.state() == QProcess::NotRunning) break;
                continue;
            }
            while (child.canReadLine()) {
                const QString line = QString::fromUtf8(child.readLine()).trimmed();
                if (line.startsWith("shown ")) {
                    const QString text = QString::fromUtf8(QByteArray::fromBase64(line.mid(6).toLatin1()));
                    if (!text.isEmpty()) {
                        lastShown = text;
                        ++shown;
                    }
                } else if (line.startsWith("finished")) {
                    finished = line;
                }
            }
        }
        QVERIFY2(finished.isEmpty(), "the reply finished before the child could be killed");
        QVERIFY2(shown >= 3, qPrintable("only " + QString::number(shown) + " updates shown; stderr: " +
                                        QString::fromUtf8(child.readAllStandardError())));
        child.kill();  // SIGKILL: no destructor, no final save
        QVERIFY(child.waitForFinished(10000));
        QCOMPARE(child.exitStatus(), QProcess::CrashExit);

        ft::ChatStore store(QDir(data.path()).filePath("chats.db"));
        QCOMPARE(store.recoveredPartials(), 1);
        const auto convs = store.conversations();
        QCOMPARE(convs.size(), 1);
        const auto msgs = store.messages(convs.first().id);
        QCOMPARE(msgs.size(), 2);
        QCOMPARE(msgs.at(0).role, QStringLiteral("user"));
        QCOMPARE(msgs.at(1).state, QStringLiteral("partial"));
        // Saved before shown: the stored reply holds at least everything the user saw.
        QVERIFY2(msgs.at(1).content.startsWith(lastShown),
                 qPrintable("shown: " + lastShown.left(200) + "\nstored: " + msgs.at(1).content.left(200)));
    }

    void reasoningIsSplitOff() {
        auto p = ft::split_reasoning("<think>\nLet me see.\n</think>\n\nThe answer is 4.");
        QCOMPARE(p.reasoning, QStringLiteral("Let me see."));
        QCOMPARE(p.answer, QStringLiteral("The answer is 4."));
        QVERIFY(!p.thinking);
        p = ft::split_reasoning("<think>still going");
        QCOMPARE(p.reasoning, QStringLiteral("still going"));
        QVERIFY(p.answer.isEmpty());
        QVERIFY(p.thinking);
        p = ft::split_reasoning("Hello <thi");  // a tag cut off mid-stream is held back
        QCOMPARE(p.answer, QStringLiteral("Hello "));
        p = ft::split_reasoning("opened by the prompt</think>Done", true);
        QCOMPARE(p.reasoning, QStringLiteral("opened by the prompt"));
        QCOMPARE(p.answer, QStringLiteral("Done"));
        p = ft::split_reasoning("<|channel|>analysis<|message|>plan<|end|><|start|>assistant<|channel|>final<|message|>Hi");
        QCOMPARE(p.reasoning, QStringLiteral("plan"));
        QCOMPARE(p.answer, QStringLiteral("Hi"));
        p = ft::split_reasoning("<think>\n\n</think>\n\nNo thoughts.");
        QVERIFY(p.reasoning.isEmpty());
        QCOMPARE(p.answer, QStringLiteral("No thoughts."));
    }

    void markdownCodeBlocksAreSegments() {
        auto s = ft::split_markdown("Intro **bold**\n```cpp\nint main() {}\n```\nAfter");
        QCOMPARE(s.size(), 3);
        QVERIFY(!s.at(0).code);
        QCOMPARE(s.at(0).text, QStringLiteral("Intro **bold**"));
        QVERIFY(s.at(1).code);
        QCOMPARE(s.at(1).language, QStringLiteral("cpp"));
        QCOMPARE(s.at(1).text, QStringLiteral("int main() {}"));
        QCOMPARE(s.at(2).text, QStringLiteral("After"));
        s = ft::split_markdown("Streaming\n~~~\nprint(1)");  // still open: a code block so far
        QCOMPARE(s.size(), 2);
        QVERIFY(s.at(1).code);
        QCOMPARE(s.at(1).text, QStringLiteral("print(1)"));
        s = ft::split_markdown("````\n```\ninner\n```\n````");  // a longer fence holds shorter ones
        QCOMPARE(s.size(), 1);
        QCOMPARE(s.at(0).text, QStringLiteral("```\ninner\n```"));
    }

    // ReplyBlocks: the same blocks whether the text arrives whole or in pieces of any size; blocks never exceed the
    // limit; the code of a fenced block comes back whole from its chunks; blocks before the open one never change.
    void replyBlocksAreBoundedAndIncremental() {
        using ft::ReplyBlock;
        QString code;
        for (int i = 0; i < 400; ++i) code += QStringLiteral("line_%1 = %1\n").arg(i);
        code.chop(1);
        QString word;
        while (word.size() < 20000) word += QStringLiteral("_keyboard");
        QString para;
        for (int i = 0; i < 300; ++i) para += QStringLiteral("Sentence %1 of a paragraph. ").arg(i) + (i % 7 == 6 ? "\n\n" : "\n");
        QString deep;
        for (int d = 1; d <= 40; ++d) deep += QString(QStringLiteral("> ")).repeated(d) + QStringLiteral("level\n");
        const QStringList texts = {
            "Intro **bold**\n```cpp\nint main() {}\n```\nAfter",
            "Text\n\n```python\n" + code + "\n```\n\nDone " + word + " end",
            para + "\n~~~\n" + code,  // a code block still open at the end
            "````\n```\ninner\n```\n````\ntail",
            "Quotes:\n\n" + deep + "\nplain again",
            word,
        };
        for (const QString& text : texts) {
            ft::ReplyBlocks whole;
            QCOMPARE(whole.update(text), 0);
            for (int i = 0; i < whole.blocks().size(); ++i) {
                QVERIFY2(whole.blocks().at(i).length <= ft::ReplyBlocks::kMaxChars, qPrintable(QString::number(i)));
                QVERIFY(!whole.blockText(i).trimmed().isEmpty() || whole.blocks().at(i).kind == ReplyBlock::Code);
            }
            for (const int step : {1, 7, 64, 999, 4096}) {
                ft::ReplyBlocks streamed;
                QList<ReplyBlock> before;
                for (qsizetype n = 0; n < text.size();) {
                    n = std::min<qsizetype>(text.size(), n + step);
                    const int from = streamed.update(text.left(n));
                    for (int i = 0; i < from; ++i) QVERIFY(before.at(i).sameAs(streamed.blocks().at(i)));
                    before = streamed.blocks();
                }
                QCOMPARE(streamed.blocks().size(), whole.blocks().size());
                for (int i = 0; i < whole.blocks().size(); ++i) {
                    QVERIFY2(streamed.blocks().at(i).sameAs(whole.blocks().at(i)), qPrintable(QStringLiteral("step %1 block %2").arg(step).arg(i)));
                    QCOMPARE(streamed.blockText(i), whole.blockText(i));
                }
            }
        }
        ft::ReplyBlocks b;
        b.update(texts.at(1));
        QCOMPARE(b.codeText(0), code);
        int chunks = 0;
        for (const ReplyBlock& x : b.blocks()) chunks += x.kind == ReplyBlock::Code;
        QVERIFY(chunks > 1);
        QCOMPARE(b.blocks().first().kind, ReplyBlock::Prose);
        QCOMPARE(b.blockText(0), QStringLiteral("Text\n\n"));
        b.update(texts.at(0));  // not an extension: cut again from the start
        QCOMPARE(b.blocks().size(), 3);
        QCOMPARE(b.blockText(1), QStringLiteral("int main() {}"));
        QCOMPARE(b.blocks().at(1).language, QStringLiteral("cpp"));
        QCOMPARE(b.codeText(0), QStringLiteral("int main() {}"));
        b.update(texts.at(3));
        QCOMPARE(b.codeText(0), QStringLiteral("```\ninner\n```"));
        b.update(texts.at(4));
        bool plain = false;
        for (const ReplyBlock& x : b.blocks()) plain = plain || x.kind == ReplyBlock::Plain;
        QVERIFY(plain);
    }
};

FT_TEST_MAIN(TestChatStore)
#include "test_chat_store.moc"
