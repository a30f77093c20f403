#include "chat_store.h"

#include <QDir>
#include <QFileInfo>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

#include <atomic>

#include "ft/error.h"
#include "ft/paths.h"
#include "ft/utf8.h"

namespace ft {

namespace {

std::atomic<int> g_connection_counter{0};

// migrations[i] takes the schema from version i to i + 1. Append only; never edit a shipped step.
const QList<QStringList>& migrations() {
    static const QList<QStringList> steps = {
        {
            "CREATE TABLE conversations ("
            " id INTEGER PRIMARY KEY AUTOINCREMENT,"
            " title TEXT NOT NULL,"
            " model_path TEXT NOT NULL DEFAULT '',"
            " system_prompt TEXT NOT NULL DEFAULT '',"
            " sampling TEXT NOT NULL DEFAULT '{}',"
            " created_at TEXT NOT NULL,"
            " updated_at TEXT NOT NULL)",
            "CREATE TABLE messages ("
            " id INTEGER PRIMARY KEY AUTOINCREMENT,"
            " conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,"
            " role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system')),"
            " content TEXT NOT NULL DEFAULT '',"
            " reasoning TEXT NOT NULL DEFAULT '',"
            " state TEXT NOT NULL DEFAULT 'complete' CHECK (state IN ('complete', 'streaming', 'partial', 'error')),"
            " error TEXT NOT NULL DEFAULT '',"
            " prompt_tokens INTEGER NOT NULL DEFAULT 0,"
            " completion_tokens INTEGER NOT NULL DEFAULT 0,"
            " tokens_per_second REAL NOT NULL DEFAULT 0,"
            " ttft_ms REAL NOT NULL DEFAULT 0,"
            " created_at TEXT NOT NULL)",
            "CREATE INDEX messages_by_conversation ON messages(conversation_id, id)",
            "CREATE INDEX conversations_by_update ON conversations(updated_at)",
        },
        {
            // 1 -> 2: a reply may end 'truncated' (at its token limit). SQLite cannot change a CHECK: rebuild.
            "CREATE TABLE messages_v2 ("
            " id INTEGER PRIMARY KEY AUTOINCREMENT,"
            " conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,"
            " role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system')),"
            " content TEXT NOT NULL DEFAULT '',"
            " reasoning TEXT NOT NULL DEFAULT '',"
            " state TEXT NOT NULL DEFAULT 'complete'"
            "  CHECK (state IN ('complete', 'streaming', 'partial', 'error', 'truncated')),"
            " error TEXT NOT NULL DEFAULT '',"
            " prompt_tokens INTEGER NOT NULL DEFAULT 0,"
            " completion_tokens INTEGER NOT NULL DEFAULT 0,"
            " tokens_per_second REAL NOT NULL DEFAULT 0,"
            " ttft_ms REAL NOT NULL DEFAULT 0,"
            " created_at TEXT NOT NULL)",
            "INSERT INTO messages_v2 SELECT id, conversation_id, role, content, reasoning, state, error, prompt_tokens,"
            " completion_tokens, tokens_per_second, ttft_ms, created_at FROM messages",
            "DROP TABLE messages",
            "ALTER TABLE messages_v2 RENAME TO messages",
            "CREATE INDEX messages_by_conversation ON messages(conversation_id, id)",
        },
        {
            // 2 -> 3: which model answered, and on which server (empty: this PC's engine).
            "ALTER TABLE messages ADD COLUMN model TEXT NOT NULL DEFAULT ''",
            "ALTER TABLE messages ADD COLUMN server TEXT NOT NULL DEFAULT ''",
        },
    };
    return steps;
}

[[noreturn]] void throw_sql(const QString& what, const QSqlError& err, const QString& db) {
    throw Error(ErrorCode::io, (what + " in " + db + ": " + err.text()).toStdString(),
                "check that the data folder is writable and the disk is not full");
}

// A null QString binds as SQL NULL; the text columns are NOT NULL.
QString text(const QString& s) { return s.isNull() ? QStringLiteral("") : s; }

QString now_utc() { return QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs); }

QDateTime parse_time(const QVariant& v) {
    return QDateTime::fromString(v.toString(), Qt::ISODateWithMs);  // written with a "Z": read back as UTC
}

}  // namespace

ChatStore::ChatStore(const QString& database_file, Recovery recovery) {
    m_path = database_file.isEmpty() ? QString::fromStdString(path_to_utf8(data_dir() / "chats.db")) : database_file;
    QDir().mkpath(QFileInfo(m_path).absolutePath());
    m_connection = QStringLiteral("ft_chats_%1").arg(g_connection_counter.fetch_add(1));
    QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", m_connection);
    db.setDatabaseName(m_path);
    auto fail = [&](const Error& e) {
        db.close();
        db = QSqlDatabase();
        QSqlDatabase::removeDatabase(m_connection);
        throw e;
    };
    if (!db.open()) {
        fail(Error(ErrorCode::io, ("cannot open the chat history " + m_path + ": " + db.lastError().text()).toStdString(),
                   "check that the data folder exists and is writable (set FT_DATA_DIR to use another one)"));
    }
    try {
        QSqlQuery q(db);
        // WAL: readers never block the writer and a committed transaction survives the process being killed.
        if (!q.exec("PRAGMA journal_mode = WAL") || !q.exec("PRAGMA synchronous = NORMAL") ||
            !q.exec("PRAGMA foreign_keys = ON") || !q.exec("PRAGMA busy_timeout = 2000"))
            throw_sql("cannot configure the chat history", q.lastError(), m_path);
        migrate();
        if (recovery == Recovery::run) {
            if (!q.exec("UPDATE messages SET state = 'partial' WHERE state = 'streaming'"))
                throw_sql("cannot recover interrupted replies", q.lastError(), m_path);
            m_recovered = q.numRowsAffected();
        }
    } catch (const Error& e) {
        fail(e);
    }
}

ChatStore::~ChatStore() {
    {
        QSqlDatabase db = QSqlDatabase::database(m_connection, false);
        if (db.isValid()) db.close();
    }
    QSqlDatabase::removeDatabase(m_connection);
}

int ChatStore::schemaVersion() const {
    QSqlQuery query(QSqlDatabase::database(m_connection));
    if (!query.exec("PRAGMA user_version") || !query.next())
        throw_sql("cannot read the schema version", query.lastError(), m_path);
    return query.value(0).toInt();
}

QString ChatStore::journalMode() const {
    QSqlQuery query(QSqlDatabase::database(m_connection));
    if (!query.exec("PRAGMA journal_mode") || !query.next())
        throw_sql("cannot read the journal mode", query.lastError(), m_path);
    return query.value(0).toString();
}

void ChatStore::migrate() {
    const int current = schemaVersion();
    if (current > kSchemaVersion) {
        throw Error(ErrorCode::unsupported,
                    QStringLiteral("the chat history %1 has schema version %2, newer than this FreeToken knows (%3)")
                        .arg(m_path).arg(current).arg(kSchemaVersion).toStdString(),
                    "update FreeToken, or point FT_DATA_DIR at another folder");
    }
    QSqlDatabase db = QSqlDatabase::database(m_connection);
    for (int v = current; v < kSchemaVersion; ++v) {
        if (!db.transaction()) throw_sql("cannot start a migration", db.lastError(), m_path);
        QSqlQuery query(db);
        for (const QString& sql : migrations()[v]) {
            if (!query.exec(sql)) {
                const QSqlError err = query.lastError();
                db.rollback();
                throw_sql(QStringLiteral("migration %1 -> %2 failed").arg(v).arg(v + 1), err, m_path);
            }
        }
        if (!query.exec(QStringLiteral("PRAGMA user_version = %1").arg(v + 1))) {
            const QSqlError err = query.lastError();
            db.rollback();
            throw_sql("cannot record the schema version", err, m_path);
        }
        if (!db.commit()) throw_sql("cannot commit a migration", db.lastError(), m_path);
    }
}

namespace {

ConversationRecord read_conversation(const QSqlQuery& q) {
    ConversationRecord c;
    c.id = q.value(0).toLongLong();
    c.title = q.value(1).toString();
    c.modelPath = q.value(2).toString();
    c.systemPrompt = q.value(3).toString();
    c.samplingJson = q.value(4).toString();
    c.createdAt = parse_time(q.value(5));
    c.updatedAt = parse_time(q.value(6));
    return c;
}

const char* kConversationColumns = "c.id, c.title, c.model_path, c.system_prompt, c.sampling, c.created_at, c.updated_at";

}  // namespace

QList<ConversationRecord> ChatStore::conversations(const QString& search) const {
    QSqlQuery q(QSqlDatabase::database(m_connection));
    const QString needle = search.trimmed();
    if (needle.isEmpty()) {
        q.prepare(QStringLiteral("SELECT %1 FROM conversations c ORDER BY c.updated_at DESC, c.id DESC").arg(kConversationColumns));
    } else {
        // LIKE is case-insensitive for ASCII; the pattern's own % and _ are escaped.
        QString pattern = needle;
        pattern.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_");
        pattern = "%" + pattern + "%";
        q.prepare(QStringLiteral("SELECT %1 FROM conversations c WHERE c.title LIKE ? ESCAPE '\\' OR EXISTS ("
                                 "SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND m.content LIKE ? ESCAPE '\\')"
                                 " ORDER BY c.updated_at DESC, c.id DESC").arg(kConversationColumns));
        q.addBindValue(pattern);
        q.addBindValue(pattern);
    }
    if (!q.exec()) throw_sql("cannot list conversations", q.lastError(), m_path);
    QList<ConversationRecord> out;
    while (q.next()) out.append(read_conversation(q));
    return out;
}

std::optional<ConversationRecord> ChatStore::conversation(qint64 id) const {
    QSqlQuery q(QSqlDatabase::database(m_connection));
    q.prepare(QStringLiteral("SELECT %1 FROM conversations c WHERE c.id = ?").arg(kConversationColumns));
    q.addBindValue(id);
    if (!q.exec()) throw_sql("cannot read a conversation", q.lastError(), m_path);
    if (!q.next()) return std::nullopt;
    return read_conversation(q);
}

ConversationRecord ChatStore::createConversation(const QString& title, const QString& modelPath,
                                                 const QString& systemPrompt, const QString& samplingJson) {
    ConversationRecord c;
    c.title = title;
    c.modelPath = modelPath;
    c.systemPrompt = systemPrompt;
    c.samplingJson = samplingJson.isEmpty() ? QStringLiteral("{}") : samplingJson;
    const QString now = now_utc();
    QSqlQuery q(QSqlDatabase::database(m_connection));
    q.prepare("INSERT INTO conversations (title, model_path, system_prompt, sampling, created_at, updated_at)"
              " VALUES (?, ?, ?, ?, ?, ?)");
    q.addBindValue(text(c.title));
    q.addBindValue(text(c.modelPath));
    q.addBindValue(text(c.systemPrompt));
    q.addBindValue(c.samplingJson);
    q.addBindValue(now);
    q.addBindValue(now);
    if (!q.exec()) throw_sql("cannot create a conversation", q.lastError(), m_path);
    c.id = q.lastInsertId().toLongLong();
    c.createdAt = c.updatedAt = parse_time(now);
    return c;
}

void ChatStore::updateConversation(const ConversationRecord& c) {
    QSqlQuery q(QSqlDatabase::database(m_connection));
    q.prepare("UPDATE conversations SET title = ?, model_path = ?, system_prompt = ?, sampling = ?, updated_at = ?"
              " WHERE id = ?");
    q.addBindValue(text(c.title));
    q.addBindValue(text(c.modelPath));
    q.addBindValue(text(c.systemPrompt));
    q.addBindValue(c.samplingJson.isEmpty() ? QStringLiteral("{}") : c.samplingJson);
    q.addBindValue(now_utc());
    q.addBindValue(c.id);
    if (!q.exec()) throw_sql("cannot save a conversation", q.lastError(), m_path);
    if (q.numRowsAffected() == 0)
        throw Error(ErrorCode::not_found, "conversation " + std::to_string(c.id) + " does not exist",
                    "it may have been deleted; start a new chat");
}

void ChatStore::renameConversation(qint64 id, const QString& title) {
    auto c = conversation(id);
    if (!c)
        throw Error(ErrorCode::not_found, "conversation " + std::to_string(id) + " does not exist",
                    "it may have been deleted; start a new chat");
    c->title = title;
    updateConversation(*c);
}

bool ChatStore::removeConversation(qint64 id) {
    QSqlQuery q(QSqlDatabase::database(m_connection));
    q.prepare("DELETE FROM conversations WHERE id = ?");
    q.addBindValue(id);
    if (!q.exec()) throw_sql("cannot delete a conversation", q.lastError(), m_path);
    return q.numRowsAffected() > 0;
}

QList<MessageRecord> ChatStore::messages(qint64 conversationId) const {
    QSqlQuery q(QSqlDatabase::database(m_connection));
    q.prepare("SELECT id, conversation_id, role, content, reasoning, state, error, prompt_tokens, completion_tokens,"
              " tokens_per_second, ttft_ms, created_at, model, server FROM messages WHERE conversation_id = ? ORDER BY id");
    q.addBindValue(conversationId);
    if (!q.exec()) throw_sql("cannot read messages", q.lastError(), m_path);
    QList<MessageRecord> out;
    while (q.next()) {
        MessageRecord m;
        m.id = q.value(0).toLongLong();
        m.conversationId = q.value(1).toLongLong();
        m.role = q.value(2).toString();
        m.content = q.value(3).toString();
        m.reasoning = q.value(4).toString();
        m.state = q.value(5).toString();
        m.error = q.value(6).toString();
        m.promptTokens = q.value(7).toInt();
        m.completionTokens = q.value(8).toInt();
        m.tokensPerSecond = q.value(9).toDouble();
        m.ttftMs = q.value(10).toDouble();
        m.createdAt = parse_time(q.value(11));
        m.model = q.value(12).toString();
        m.server = q.value(13).toString();
        out.append(m);
    }
    return out;
}

MessageRecord ChatStore::addMessage(const MessageRecord& in) {
    MessageRecord m = in;
    const QString now = now_utc();
    QSqlQuery q(QSqlDatabase::database(m_connection));
    q.prepare("INSERT INTO messages (conversation_id, role, content, reasoning, state, error, prompt_tokens,"
              " completion_tokens, tokens_per_second, ttft_ms, created_at, model, server)"
              " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    q.addBindValue(m.conversationId);
    q.addBindValue(text(m.role));
    q.addBindValue(text(m.content));
    q.addBindValue(text(m.reasoning));
    q.addBindValue(text(m.state));
    q.addBindValue(text(m.error));
    q.addBindValue(m.promptTokens);
    q.addBindValue(m.completionTokens);
    q.addBindValue(m.tokensPerSecond);
    q.addBindValue(m.ttftMs);
    q.addBindValue(now);
    q.addBindValue(text(m.model));
    q.addBindValue(text(m.server));
    if (!q.exec()) {
        if (!conversation(m.conversationId))
            throw Error(ErrorCode::not_found, "conversation " + std::to_string(m.conversationId) + " does not exist",
                        "it may have been deleted; start a new chat");
        throw_sql("cannot save a message", q.lastError(), m_path);
    }
    m.id = q.lastInsertId().toLongLong();
    m.createdAt = parse_time(now);
    touch(m.conversationId);
    return m;
}

void ChatStore::updateMessage(const MessageRecord& m) {
    QSqlQuery q(QSqlDatabase::database(m_connection));
    q.prepare("UPDATE messages SET content = ?, reasoning = ?, state = ?, error = ?, prompt_tokens = ?,"
              " completion_tokens = ?, tokens_per_second = ?, ttft_ms = ?, model = ?, server = ? WHERE id = ?");
    q.addBindValue(text(m.content));
    q.addBindValue(text(m.reasoning));
    q.addBindValue(text(m.state));
    q.addBindValue(text(m.error));
    q.addBindValue(m.promptTokens);
    q.addBindValue(m.completionTokens);
    q.addBindValue(m.tokensPerSecond);
    q.addBindValue(m.ttftMs);
    q.addBindValue(text(m.model));
    q.addBindValue(text(m.server));
    q.addBindValue(m.id);
    if (!q.exec()) throw_sql("cannot save a message", q.lastError(), m_path);
    touch(m.conversationId);
}

void ChatStore::removeMessagesFrom(qint64 conversationId, qint64 fromId) {
    QSqlQuery q(QSqlDatabase::database(m_connection));
    q.prepare("DELETE FROM messages WHERE conversation_id = ? AND id >= ?");
    q.addBindValue(conversationId);
    q.addBindValue(fromId);
    if (!q.exec()) throw_sql("cannot delete messages", q.lastError(), m_path);
    touch(conversationId);
}

void ChatStore::touch(qint64 conversationId) {
    QSqlQuery q(QSqlDatabase::database(m_connection));
    q.prepare("UPDATE conversations SET updated_at = ? WHERE id = ?");
    q.addBindValue(now_utc());
    q.addBindValue(conversationId);
    if (!q.exec()) throw_sql("cannot save a conversation", q.lastError(), m_path);
}

}  // namespace ft
