// ChatStore: conversations and their messages in SQLite, a database file of their own (ft::data_dir()/chats.db by
// default). WAL journal with synchronous=NORMAL: a committed write survives the app being killed (SIGKILL), and a
// write costs no fsync, so a reply in progress can be saved as it streams. The schema is versioned with
// `PRAGMA user_version` and migrated forward step by step on open; a database from a newer FreeToken is refused.
//
// A reply being written is stored with state "streaming". Opening the store turns every "streaming" message left
// by a previous run (the app was killed mid-reply) into "partial": what was saved is kept and shown as cut off.
// Errors: ft::Error(io) naming the file (cannot open, disk full, read-only), ft::Error(unsupported) for a newer
// schema, ft::Error(not_found) for an unknown conversation. One instance per thread (its own connection).
#pragma once

#include <QDateTime>
#include <QList>
#include <QString>

#include <optional>

namespace ft {

struct ConversationRecord {
    qint64 id = 0;
    QString title;
    QString modelPath;      // the model it was last used with
    QString systemPrompt;
    QString samplingJson;   // {"temperature":…, "topP":…, "maxTokens":…, "seed":…}
    QDateTime createdAt, updatedAt;  // UTC
};

struct MessageRecord {
    qint64 id = 0;
    qint64 conversationId = 0;
    QString role;           // "user", "assistant", "system"
    QString content;        // the answer (reasoning split off)
    QString reasoning;      // the model's thinking (<think>…</think>), if any
    QString state = QStringLiteral("complete");  // "complete", "truncated" (at its token limit), "streaming", "partial", "error"
    QString error;          // for state "error": what went wrong
    int promptTokens = 0, completionTokens = 0;
    double tokensPerSecond = 0, ttftMs = 0;
    QString model;          // for a reply: the model that wrote it (its name, or a server's model id)
    QString server;         // for a reply from a remote server: its base URL (empty: this PC's engine)
    QDateTime createdAt;    // UTC
};

class ChatStore {
public:
    static constexpr int kSchemaVersion = 3;

    // On open, replies left "streaming" by an earlier process are marked "partial" (Recovery::run). A second
    // connection of this process (ChatStoreWriter's) skips that: the reply it writes is still streaming.
    enum class Recovery { run, skip };
    explicit ChatStore(const QString& database_file = {}, Recovery recovery = Recovery::run);
    ~ChatStore();
    ChatStore(const ChatStore&) = delete;
    ChatStore& operator=(const ChatStore&) = delete;

    QString databasePath() const { return m_path; }
    int schemaVersion() const;
    QString journalMode() const;
    int recoveredPartials() const { return m_recovered; }  // "streaming" messages marked "partial" on open

    // Newest activity first. `search` (optional) matches the title or any message's text, case-insensitively.
    QList<ConversationRecord> conversations(const QString& search = {}) const;
    std::optional<ConversationRecord> conversation(qint64 id) const;
    ConversationRecord createConversation(const QString& title, const QString& modelPath = {},
                                          const QString& systemPrompt = {}, const QString& samplingJson = {});
    // Stores title, model path, system prompt and sampling of `c` and touches updatedAt.
    void updateConversation(const ConversationRecord& c);
    void renameConversation(qint64 id, const QString& title);
    bool removeConversation(qint64 id);  // with its messages

    QList<MessageRecord> messages(qint64 conversationId) const;  // oldest first
    MessageRecord addMessage(const MessageRecord& m);              // returns it with id and createdAt set
    // Stores content, reasoning, state, error and the figures of `m` (by id); touches the conversation.
    void updateMessage(const MessageRecord& m);
    // Deletes message `fromId` and every later message of its conversation (regenerate, edit and resend).
    void removeMessagesFrom(qint64 conversationId, qint64 fromId);

private:
    void migrate();
    void touch(qint64 conversationId);
    QString m_path;
    QString m_connection;
    int m_recovered = 0;
};

}  // namespace ft
