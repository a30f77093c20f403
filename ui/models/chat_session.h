// ChatSession: the Chat page's controller. Owns the chat history (ChatStore, its own SQLite file) and the two list
// models, builds each prompt with the loaded model's own chat template (the conversation's system prompt first),
// submits it through EngineHost and streams the reply into the message list.
//
// Saving as it streams: token text is gathered and applied every 100 ms; each apply first commits the reply so far
// to SQLite (state "streaming") and only then shows it, so killing the app loses nothing already on screen (the
// next start marks the reply "partial"). Failures (disk full, no model, prompt too long) set lastError with a
// message naming the problem and what to do; nothing throws into QML.
//
// The model source is this PC's engine (host) or, after chatWithServer(), a model on a remote OpenAI-compatible
// server (RemoteClient: streamed over HTTP; nothing of the local engine is needed). Each reply records its model and
// server. A server that goes away mid-reply leaves the text that arrived saved, with the error. Loading a local
// model switches back to it.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QQmlEngine>
#include <QTimer>
#include <QVariantMap>

#include <memory>

#include "chat_store.h"
#include "chat_store_writer.h"
#include "remote_client.h"
#include "conversation_list_model.h"
#include "engine_host.h"
#include "message_list_model.h"

namespace ft::ui {

class ChatSession : public QObject {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(ft::EngineHost* host READ host WRITE setHost NOTIFY hostChanged)
    Q_PROPERTY(ft::ui::ConversationListModel* conversations READ conversations CONSTANT)
    Q_PROPERTY(ft::ui::MessageListModel* messages READ messages CONSTANT)
    Q_PROPERTY(qint64 currentId READ currentId NOTIFY currentChanged)
    Q_PROPERTY(QString currentTitle READ currentTitle NOTIFY currentChanged)
    Q_PROPERTY(QString search READ search WRITE setSearch NOTIFY searchChanged)
    Q_PROPERTY(bool modelReady READ modelReady NOTIFY modelReadyChanged)
    Q_PROPERTY(bool busy READ busy NOTIFY busyChanged)
    // A remote reply waits for the server's API key from the server list and the OS keychain (read off the window's
    // thread; a locked keychain may be showing its unlock prompt). Stop ends the wait.
    Q_PROPERTY(bool waitingForKey READ waitingForKey NOTIFY busyChanged)
    Q_PROPERTY(QString lastError READ lastError NOTIFY lastErrorChanged)
    Q_PROPERTY(bool available READ available CONSTANT)
    // The open conversation's settings; a new chat starts from the defaults of Settings → New chats (AppSettings).
    Q_PROPERTY(QString systemPrompt READ systemPrompt NOTIFY settingsChanged)
    Q_PROPERTY(double temperature READ temperature NOTIFY settingsChanged)
    Q_PROPERTY(double topP READ topP NOTIFY settingsChanged)
    Q_PROPERTY(int maxTokens READ maxTokens NOTIFY settingsChanged)
    Q_PROPERTY(qint64 seed READ seed NOTIFY settingsChanged)
    // Top-k: the loaded model's recommendation a new chat took (Settings → New chats), 0 (off) otherwise.
    Q_PROPERTY(int topK READ topK NOTIFY settingsChanged)
    // What the loaded model recommends, in words ("The loaded model recommends temperature 0, top-p 0.8."), "" if
    // nothing or a remote model.
    Q_PROPERTY(QString recommendedSampling READ recommendedSampling NOTIFY sourceChanged)
    // Context use of the open conversation: tokens of the last prompt + reply, and the model's context length.
    Q_PROPERTY(int contextUsed READ contextUsed NOTIFY contextChanged)
    Q_PROPERTY(int contextLength READ contextLength NOTIFY contextChanged)
    Q_PROPERTY(bool contextWarning READ contextWarning NOTIFY contextChanged)
    // The remote model chatted with (empty: the local engine's), its server's base URL, and the name to show.
    Q_PROPERTY(QString remoteUrl READ remoteUrl NOTIFY sourceChanged)
    Q_PROPERTY(QString remoteModel READ remoteModel NOTIFY sourceChanged)
    Q_PROPERTY(QString sourceName READ sourceName NOTIFY sourceChanged)
    // The figures of the last reply as this app measured them ({ttftMs, tokensPerSecond, completionTokens,
    // promptTokens, model, server}; empty before the first): the Console shows them for a remote model.
    Q_PROPERTY(QVariantMap lastFigures READ lastFigures NOTIFY lastFiguresChanged)
public:
    explicit ChatSession(QObject* parent = nullptr);
    ~ChatSession() override;

    ft::EngineHost* host() const { return m_host; }
    void setHost(ft::EngineHost* host);
    ConversationListModel* conversations() { return &m_conversations; }
    MessageListModel* messages() { return &m_messages; }
    qint64 currentId() const { return m_current.id; }
    QString currentTitle() const { return m_current.title; }
    QString search() const { return m_search; }
    void setSearch(const QString& s);
    bool modelReady() const { return isRemote() || (m_host && m_host->isReady()); }
    bool isRemote() const { return !m_remoteModel.isEmpty(); }
    QString remoteUrl() const { return m_remoteUrl; }
    QString remoteModel() const { return m_remoteModel; }
    QString sourceName() const;
    QVariantMap lastFigures() const { return m_lastFigures; }
    bool busy() const { return m_reply.requestId != 0 || m_reply.messageId != 0; }
    bool waitingForKey() const { return m_reply.awaitingKey; }
    QString lastError() const { return m_lastError; }
    bool available() const { return m_store != nullptr; }
    QString systemPrompt() const { return m_systemPrompt; }
    double temperature() const { return m_temperature; }
    double topP() const { return m_topP; }
    int maxTokens() const { return m_maxTokens; }
    qint64 seed() const { return m_seed; }
    int topK() const { return m_topK; }
    QString recommendedSampling() const;
    int contextUsed() const { return m_contextUsed; }
    int contextLength() const { return isRemote() ? m_remoteContext : m_host ? m_host->contextLength() : 0; }
    bool contextWarning() const;

    // Chats with `model` on the server at `url` (a base URL from the server list; its key is read from there at
    // each send, off the window's thread: see waitingForKey). `contextLength` 0: not known. False (lastError set) while a reply runs.
    Q_INVOKABLE bool chatWithServer(const QString& url, const QString& model, int contextLength = 0);
    // Back to the model loaded in this PC's engine.
    Q_INVOKABLE void useLocalModel();
    // Leaves the open conversation: the next message starts a new one, with the default settings.
    Q_INVOKABLE void newChat();
    Q_INVOKABLE bool select(qint64 id);
    Q_INVOKABLE bool rename(qint64 id, const QString& title);
    Q_INVOKABLE bool remove(qint64 id);
    // Sends a user message in the open conversation (a new one if none is open) and starts the reply.
    Q_INVOKABLE bool send(const QString& text);
    Q_INVOKABLE void stop();
    // Replaces the last reply with a new one.
    Q_INVOKABLE bool regenerate();
    // Replaces the user message at `row` (and everything after it) with `text`, and replies to it.
    Q_INVOKABLE bool editAndResend(int row, const QString& text);
    // Stores the open conversation's settings (when none is open: those of the chat the next message starts).
    Q_INVOKABLE bool saveSettings(const QString& systemPrompt, double temperature, double topP, int maxTokens, qint64 seed);
    Q_INVOKABLE void copyText(const QString& text) const;
    Q_INVOKABLE void clearError();
    Q_INVOKABLE void reload();

signals:
    void hostChanged();
    void currentChanged();
    void searchChanged();
    void modelReadyChanged();
    void busyChanged();
    void lastErrorChanged();
    void settingsChanged();
    void contextChanged();
    void replyStarted();
    void replyFinished(const QString& state);
    void sourceChanged();
    void lastFiguresChanged();

private:
    struct Reply {
        quint64 requestId = 0;
        qint64 messageId = 0;
        qint64 conversationId = 0;
        bool openedByPrompt = false;  // the template's generation prompt opened a <think> block
        bool awaitingKey = false;     // remote: saved, the request not sent until the key is read
        QString raw;                  // everything streamed so far
        QString pending;              // streamed but not yet saved and shown
        MessageRecord record;
        MessageRecord shown;          // the last state saved and shown
    };
    void setError(const QString& e);
    bool startReply();
    bool saveNewReply(Reply r);
    void applyPending(bool final);
    void showSaved(const MessageRecord& m, bool thinking);
    void finishReply(const QString& state, const QString& error, const GenerationSummary* summary);
    void onToken(quint64 id, const QString& text);
    void onFinished(quint64 id, const ft::GenerationSummary& s);
    void onFailed(quint64 id, const QString& message);
    void refreshConversations();
    void loadSettings(const ConversationRecord& c);
    void loadDefaults();
    QString samplingJson() const;
    void setContextUsed(int used);
    bool ensureStore();
    bool startRemoteReply(const QJsonArray& turns);
    void stopRequest(quint64 id);

    QPointer<ft::EngineHost> m_host;
    std::unique_ptr<ChatStore> m_store;
    std::unique_ptr<ChatStoreWriter> m_writer;  // the streaming reply's saves, off the GUI thread
    ConversationListModel m_conversations;
    MessageListModel m_messages;
    ConversationRecord m_current;
    QString m_search;
    QString m_lastError;
    QString m_systemPrompt;
    double m_temperature = 0.7;
    double m_topP = 0.9;
    int m_maxTokens = 1024;
    qint64 m_seed = 0;
    int m_topK = 0;
    bool m_settingsEdited = false;  // the new chat's settings were set by hand before its first message
    int m_contextUsed = 0;
    Reply m_reply;
    QTimer m_flush;
    ft::RemoteClient m_remote;
    QString m_remoteUrl, m_remoteModel;
    int m_remoteContext = 0;
    QVariantMap m_lastFigures;
};

}  // namespace ft::ui
