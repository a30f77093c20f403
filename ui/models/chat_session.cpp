#include "chat_session.h"

#include <QClipboard>
#include <QGuiApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QStringList>

#include <spdlog/spdlog.h>

#include <algorithm>

#include "app_settings.h"
#include "ft/chat_template.h"
#include "ft/error.h"
#include "remote_server_list_model.h"
#include "remote_servers.h"
#include "reply_text.h"
#include "server_list_jobs.h"

namespace ft::ui {

namespace {

QString describe(const ft::Error& e) {
    QString text = QString::fromStdString(e.message());
    if (!e.hint().empty()) text += QStringLiteral(" — ") + QString::fromStdString(e.hint());
    return text;
}

QString title_from(const QString& text) {
    QString t = text.trimmed().section(QLatin1Char('\n'), 0, 0).simplified();
    if (t.size() > 48) t = t.left(47) + QChar(0x2026);
    return t.isEmpty() ? ChatSession::tr("New chat") : t;
}

}  // namespace

ChatSession::ChatSession(QObject* parent) : QObject(parent) {
    // A new chat not yet started takes the sampling of the model it will talk to (unless set by hand).
    connect(this, &ChatSession::sourceChanged, this, [this] {
        if (!m_current.id && m_messages.rowCount() == 0 && !m_settingsEdited && !busy()) loadDefaults();
    });
    m_flush.setSingleShot(true);
    m_flush.setInterval(100);
    connect(&m_flush, &QTimer::timeout, this, [this] { applyPending(false); });
    connect(&m_remote, &RemoteClient::token, this, &ChatSession::onToken);
    connect(&m_remote, &RemoteClient::generationFinished, this, &ChatSession::onFinished);
    connect(&m_remote, &RemoteClient::generationFailed, this, &ChatSession::onFailed);
    loadDefaults();
    ensureStore();
    refreshConversations();
}

ChatSession::~ChatSession() {
    // A reply still running is saved as it stands; the next start shows it as partial.
    if (busy()) {
        m_remote.disconnect(this);
        stopRequest(m_reply.requestId);
        finishReply(QStringLiteral("partial"), {}, nullptr);
    }
}

bool ChatSession::ensureStore() {
    if (m_store) return true;
    try {
        m_store = std::make_unique<ChatStore>();
        // Its saves are shown once written, on this thread (a save that lands after the reply ended is not).
        m_writer = std::make_unique<ChatStoreWriter>(m_store->databasePath(), [this](const MessageRecord& m, bool thinking) {
            QMetaObject::invokeMethod(this, [this, m, thinking] { showSaved(m, thinking); }, Qt::QueuedConnection);
        });
        if (m_store->recoveredPartials() > 0)
            spdlog::info("chat: {} reply(ies) cut off by the last exit marked partial", m_store->recoveredPartials());
    } catch (const ft::Error& e) {
        setError(tr("The chat history cannot be opened: %1").arg(describe(e)));
        return false;
    }
    return true;
}

void ChatSession::setHost(ft::EngineHost* host) {
    if (m_host == host) return;
    if (m_host) disconnect(m_host, nullptr, this, nullptr);
    m_host = host;
    if (m_host) {
        connect(m_host, &EngineHost::token, this, &ChatSession::onToken);
        connect(m_host, &EngineHost::generationFinished, this, &ChatSession::onFinished);
        connect(m_host, &EngineHost::generationFailed, this, &ChatSession::onFailed);
        connect(m_host, &EngineHost::stateChanged, this, &ChatSession::modelReadyChanged);
        connect(m_host, &EngineHost::modelChanged, this, &ChatSession::contextChanged);
        connect(m_host, &EngineHost::modelChanged, this, &ChatSession::sourceChanged);
        connect(m_host, &EngineHost::stateChanged, this, &ChatSession::sourceChanged);
        // A local model loaded on purpose is what the user wants to chat with now.
        connect(m_host, &EngineHost::loadFinished, this, [this](bool ok) {
            if (ok && !busy()) useLocalModel();
        });
    }
    emit hostChanged();
    emit modelReadyChanged();
    emit contextChanged();
}

void ChatSession::setError(const QString& e) {
    if (m_lastError == e) return;
    m_lastError = e;
    emit lastErrorChanged();
}

void ChatSession::clearError() { setError({}); }

void ChatSession::setSearch(const QString& s) {
    if (m_search == s) return;
    m_search = s;
    emit searchChanged();
    refreshConversations();
}

void ChatSession::refreshConversations() {
    if (!m_store) return;
    try {
        m_conversations.setRows(m_store->conversations(m_search));
    } catch (const ft::Error& e) {
        setError(tr("The chat history cannot be read: %1").arg(describe(e)));
    }
}

void ChatSession::reload() {
    refreshConversations();
    if (m_current.id) select(m_current.id);
}

bool ChatSession::contextWarning() const {
    const int n = contextLength();
    return n > 0 && m_contextUsed >= n * 8 / 10;
}

void ChatSession::setContextUsed(int used) {
    if (m_contextUsed == used) return;
    m_contextUsed = used;
    emit contextChanged();
}

QString ChatSession::samplingJson() const {
    QJsonObject o{{"temperature", m_temperature}, {"topP", m_topP}, {"maxTokens", m_maxTokens}, {"seed", m_seed}};
    if (m_topK > 0) o.insert("topK", m_topK);
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

void ChatSession::loadSettings(const ConversationRecord& c) {
    // What the conversation stored; what it lacks (an older database) comes from the built-in defaults, never from
    // the chat viewed before.
    const ChatDefaults d;
    m_systemPrompt = c.systemPrompt;
    const QJsonObject o = QJsonDocument::fromJson(c.samplingJson.toUtf8()).object();
    m_temperature = o.value("temperature").toDouble(d.temperature);
    m_topP = o.value("topP").toDouble(d.topP);
    m_maxTokens = o.value("maxTokens").toInt(d.maxTokens);
    m_seed = qint64(o.value("seed").toDouble(double(d.seed)));
    m_topK = o.value("topK").toInt(0);
    emit settingsChanged();
}

void ChatSession::loadDefaults() {
    const AppSettings settings;
    const ChatDefaults d = settings.chatDefaults();
    m_systemPrompt = d.systemPrompt;
    m_temperature = d.temperature;
    m_topP = d.topP;
    m_maxTokens = d.maxTokens;
    m_seed = d.seed;
    m_topK = 0;
    // The loaded model's recommendation, where its file names one, unless turned off in Settings → New chats.
    if (settings.modelSampling() && m_host && !isRemote()) {
        const QVariantMap r = m_host->recommendedSampling();
        m_temperature = r.value("temperature", m_temperature).toDouble();
        m_topP = r.value("topP", m_topP).toDouble();
        m_topK = r.value("topK", 0).toInt();
    }
    m_settingsEdited = false;
    emit settingsChanged();
}

QString ChatSession::recommendedSampling() const {
    if (!m_host || isRemote()) return {};
    const QVariantMap r = m_host->recommendedSampling();
    QStringList parts;
    const QLocale locale;
    if (r.contains("temperature")) parts << tr("temperature %1").arg(locale.toString(r.value("temperature").toDouble()));
    if (r.contains("topP")) parts << tr("top-p %1").arg(locale.toString(r.value("topP").toDouble()));
    if (r.contains("topK")) parts << tr("top-k %1").arg(locale.toString(r.value("topK").toInt()));
    if (parts.isEmpty()) return {};
    return tr("The loaded model recommends %1.").arg(parts.join(tr(", ")));
}

void ChatSession::newChat() {
    loadDefaults();
    m_current = ConversationRecord{};
    m_messages.setMessages({});
    setContextUsed(0);
    emit currentChanged();
}

bool ChatSession::select(qint64 id) {
    if (!m_store) return false;
    try {
        const auto c = m_store->conversation(id);
        if (!c) {
            setError(tr("That conversation no longer exists."));
            refreshConversations();
            return false;
        }
        m_current = *c;
        QList<MessageRecord> msgs = m_store->messages(id);
        // The reply streaming right now: what was shown of it (the store may hold a save not shown yet).
        if (m_reply.conversationId == id)
            for (MessageRecord& m : msgs)
                if (m.id == m_reply.messageId) m = m_reply.shown;
        m_messages.setMessages(msgs);
        loadSettings(*c);
        int used = 0;
        for (const MessageRecord& m : msgs)
            if (m.role == "assistant" && m.promptTokens > 0) used = m.promptTokens + m.completionTokens;
        setContextUsed(used);
        emit currentChanged();
        return true;
    } catch (const ft::Error& e) {
        setError(tr("The conversation cannot be opened: %1").arg(describe(e)));
        return false;
    }
}

bool ChatSession::rename(qint64 id, const QString& title) {
    if (!m_store) return false;
    const QString t = title.simplified();
    if (t.isEmpty()) {
        setError(tr("A conversation needs a name. Type one, or press Cancel."));
        return false;
    }
    try {
        m_store->renameConversation(id, t);
        if (id == m_current.id) {
            m_current.title = t;
            emit currentChanged();
        }
        refreshConversations();
        return true;
    } catch (const ft::Error& e) {
        setError(tr("The conversation cannot be renamed: %1").arg(describe(e)));
        return false;
    }
}

bool ChatSession::remove(qint64 id) {
    if (!m_store) return false;
    if (m_reply.conversationId == id) {
        stopRequest(m_reply.requestId);
        if (m_writer) m_writer->drop(m_reply.messageId);
        m_reply = Reply{};
        m_flush.stop();
        emit busyChanged();
    }
    try {
        m_store->removeConversation(id);
    } catch (const ft::Error& e) {
        setError(tr("The conversation cannot be deleted: %1").arg(describe(e)));
        return false;
    }
    if (id == m_current.id) newChat();
    refreshConversations();
    return true;
}

bool ChatSession::saveSettings(const QString& systemPrompt, double temperature, double topP, int maxTokens, qint64 seed) {
    if (!(temperature >= 0 && temperature <= 2)) {
        setError(tr("Temperature must be between 0 and 2 (0 always picks the most likely token)."));
        return false;
    }
    if (!(topP > 0 && topP <= 1)) {
        setError(tr("Top-p must be above 0 and at most 1 (1 turns it off)."));
        return false;
    }
    if (maxTokens < 1 || maxTokens > 1 << 20) {
        setError(tr("Max tokens must be between 1 and 1048576."));
        return false;
    }
    if (seed < 0) {
        setError(tr("The seed must be 0 (a new random seed each reply) or a positive number."));
        return false;
    }
    m_systemPrompt = systemPrompt;
    m_temperature = temperature;
    m_topP = topP;
    m_maxTokens = maxTokens;
    m_seed = seed;
    if (!m_current.id) m_settingsEdited = true;
    emit settingsChanged();
    if (m_store && m_current.id) {
        m_current.systemPrompt = m_systemPrompt;
        m_current.samplingJson = samplingJson();
        try {
            m_store->updateConversation(m_current);
        } catch (const ft::Error& e) {
            setError(tr("The chat settings cannot be saved: %1").arg(describe(e)));
            return false;
        }
    }
    return true;
}

bool ChatSession::send(const QString& text) {
    const QString body = text.trimmed();
    if (body.isEmpty()) return false;
    if (busy()) {
        setError(tr("Wait for the reply to finish, or press Stop (Esc)."));
        return false;
    }
    if (!modelReady()) {
        setError(tr("No model is loaded. Load one on the Models page, then send your message again."));
        return false;
    }
    if (!ensureStore()) return false;
    try {
        if (!m_current.id) {
            m_current = m_store->createConversation(title_from(body), isRemote() ? m_remoteUrl : m_host->modelPath(),
                                                    m_systemPrompt, samplingJson());
            m_messages.setMessages({});
            emit currentChanged();
        }
        MessageRecord m;
        m.conversationId = m_current.id;
        m.role = QStringLiteral("user");
        m.content = body;
        m_messages.append(m_store->addMessage(m));
    } catch (const ft::Error& e) {
        setError(tr("Your message cannot be saved: %1").arg(describe(e)));
        return false;
    }
    refreshConversations();
    return startReply();
}

// The reply's row, saved (state "streaming") before a token arrives, and made the reply in progress.
bool ChatSession::saveNewReply(Reply r) {
    r.conversationId = m_current.id;
    r.record.conversationId = m_current.id;
    r.record.role = QStringLiteral("assistant");
    r.record.state = QStringLiteral("streaming");
    try {
        r.record = m_store->addMessage(r.record);
    } catch (const ft::Error& e) {
        setError(tr("The reply cannot be saved: %1").arg(describe(e)));
        return false;
    }
    r.messageId = r.record.id;
    r.shown = r.record;
    m_messages.append(r.record);
    m_reply = r;
    return true;
}

bool ChatSession::startReply() {
    if (!modelReady()) {
        setError(tr("No model is loaded. Load one on the Models page, then send your message again."));
        return false;
    }
    if (isRemote()) {
        QJsonArray turns;
        if (!m_systemPrompt.trimmed().isEmpty())
            turns.append(QJsonObject{{"role", "system"}, {"content", m_systemPrompt}});
        for (const MessageRecord& m : m_messages.messages()) {
            if (m.state == "error" && m.content.isEmpty()) continue;
            turns.append(QJsonObject{{"role", m.role}, {"content", m.content}});
        }
        return startRemoteReply(turns);
    }
    const auto tokenizer = m_host->tokenizer();
    if (!tokenizer) {
        setError(tr("This model has no usable tokenizer, so it cannot chat. Choose another model."));
        return false;
    }
    // The conversation as the template wants it: system prompt first, then the turns (failed replies left out).
    QJsonArray turns;
    if (!m_systemPrompt.trimmed().isEmpty())
        turns.append(QJsonObject{{"role", "system"}, {"content", m_systemPrompt}});
    for (const MessageRecord& m : m_messages.messages()) {
        if (m.state == "error" && m.content.isEmpty()) continue;
        turns.append(QJsonObject{{"role", m.role}, {"content", m.content}});
    }
    std::string prompt;
    QStringList stops;
    try {
        if (const auto tmpl = m_host->chatTemplate()) {
            ft::ChatRenderRequest req;
            req.messages_json = QJsonDocument(turns).toJson(QJsonDocument::Compact).toStdString();
            req.add_generation_prompt = true;
            prompt = tmpl->apply(req);
        } else {
            // A model without a chat template (a base model): a plain transcript it can continue.
            QString plain;
            for (const auto& v : turns) {
                const QJsonObject o = v.toObject();
                const QString role = o.value("role").toString();
                plain += (role == "user" ? QStringLiteral("User: ") : role == "system" ? QString() : QStringLiteral("Assistant: ")) +
                         o.value("content").toString() + QStringLiteral("\n\n");
            }
            plain += QStringLiteral("Assistant:");
            prompt = plain.toStdString();
            stops << QStringLiteral("\nUser:");
        }
    } catch (const ft::Error& e) {
        setError(tr("The model's chat template failed on this conversation: %1").arg(describe(e)));
        return false;
    }
    ft::EncodeOptions enc;
    enc.parse_special = true;
    std::vector<std::int32_t> ids = tokenizer->encode(prompt, enc);
    const int nCtx = m_host->contextLength();
    if (nCtx > 0 && int(ids.size()) >= nCtx) {
        setContextUsed(int(ids.size()));
        setError(tr("This conversation (%1 tokens) no longer fits the model's context of %2 tokens. Start a new chat "
                    "(Ctrl+N), or load the model with a larger context.").arg(ids.size()).arg(nCtx));
        return false;
    }
    ft::GenerationRequest req;
    req.prompt = std::move(ids);
    req.sampling.temperature = float(m_temperature);
    req.sampling.top_p = float(m_topP);
    req.sampling.top_k = m_topK;
    req.sampling.seed = std::uint64_t(m_seed);
    req.max_tokens = nCtx > 0 ? std::min(m_maxTokens, nCtx - int(req.prompt.size())) : m_maxTokens;
    for (const QString& s : stops) req.stop.push_back(s.toStdString());
    const int promptTokens = int(req.prompt.size());
    const QString tail = QString::fromStdString(prompt.substr(prompt.size() > 16 ? prompt.size() - 16 : 0));

    Reply r;
    r.openedByPrompt = tail.trimmed().endsWith(QStringLiteral("<think>"));
    r.record.promptTokens = promptTokens;
    r.record.model = m_host->modelName();
    if (!saveNewReply(std::move(r))) return false;
    setContextUsed(promptTokens);
    clearError();
    m_reply.requestId = m_host->generate(std::move(req));
    emit busyChanged();
    emit replyStarted();
    if (m_reply.requestId == 0) {
        finishReply(QStringLiteral("error"), m_host->lastError().isEmpty() ? tr("The engine did not accept the request.")
                                                                          : m_host->lastError(), nullptr);
        return false;
    }
    return true;
}

void ChatSession::applyPending(bool final) {
    if (!m_reply.messageId) return;
    m_reply.raw += std::exchange(m_reply.pending, {});
    const ReplyParts parts = split_reasoning(m_reply.raw, m_reply.openedByPrompt);
    m_reply.record.content = parts.answer;
    m_reply.record.reasoning = parts.reasoning;
    if (final) return;  // finishReply saves it, then shows it
    // Saved first, shown second, and the GUI thread never waits on the disk: the writer's thread saves the reply as
    // it streams and showSaved() shows each state once it is written (what the user saw is on disk).
    m_writer->post(m_reply.record, parts.thinking);  // a reply exists only with a store, and so a writer
    if (const auto e = m_writer->takeError()) setError(tr("The reply cannot be saved as it streams: %1").arg(describe(*e)));
}

void ChatSession::showSaved(const MessageRecord& m, bool thinking) {
    if (!m_reply.messageId || m.id != m_reply.messageId) return;  // the reply ended meanwhile: it showed its final state
    m_reply.shown = m;
    if (m_reply.conversationId == m_current.id) m_messages.update(m, thinking);
}

void ChatSession::finishReply(const QString& state, const QString& error, const GenerationSummary* summary) {
    if (!m_reply.messageId) return;
    m_flush.stop();
    m_reply.record.state = state;
    m_reply.record.error = error;
    if (summary) {
        m_reply.record.promptTokens = summary->promptTokens;
        m_reply.record.completionTokens = summary->completionTokens;
        m_reply.record.tokensPerSecond = summary->decodeTokS;
        m_reply.record.ttftMs = summary->ttftMs;
    }
    applyPending(true);
    if (m_writer) m_writer->drop(m_reply.messageId);  // its last streaming save is not written over the final one
    if (m_store) {
        try {
            m_store->updateMessage(m_reply.record);
        } catch (const ft::Error& e) {
            setError(tr("The reply cannot be saved: %1").arg(describe(e)));
        }
    }
    if (m_reply.conversationId == m_current.id) {
        m_messages.update(m_reply.record);
        // Not when the prompt's size is not known (a stopped remote reply: the server's usage never came).
        if (summary && summary->promptTokens > 0) setContextUsed(summary->promptTokens + summary->completionTokens);
    }
    if (state == "error") setError(error);
    m_lastFigures = QVariantMap{{"ttftMs", m_reply.record.ttftMs},
                                {"tokensPerSecond", m_reply.record.tokensPerSecond},
                                {"completionTokens", m_reply.record.completionTokens},
                                {"promptTokens", m_reply.record.promptTokens},
                                {"model", m_reply.record.model},
                                {"server", m_reply.record.server}};
    emit lastFiguresChanged();
    m_reply = Reply{};
    emit busyChanged();
    emit replyFinished(state);
    refreshConversations();
}

void ChatSession::onToken(quint64 id, const QString& text) {
    if (id == 0 || id != m_reply.requestId) return;
    m_reply.pending += text;
    if (!m_flush.isActive()) m_flush.start();
}

void ChatSession::onFinished(quint64 id, const ft::GenerationSummary& s) {
    if (id == 0 || id != m_reply.requestId) return;
    // "truncated": the reply reached its token limit (the chat's max tokens, or what was left of the context).
    finishReply(s.reason == "cancelled" ? QStringLiteral("partial")
                : s.reason == "length"  ? QStringLiteral("truncated")
                                        : QStringLiteral("complete"),
                {}, &s);
}

void ChatSession::onFailed(quint64 id, const QString& message) {
    if (id == 0 || id != m_reply.requestId) return;
    finishReply(QStringLiteral("error"), message, nullptr);
}

void ChatSession::stopRequest(quint64 id) {
    if (!id) return;
    if (m_remote.running(id))
        m_remote.stop(id);
    else if (m_host)
        m_host->stop(id);
}

void ChatSession::stop() {
    if (m_reply.awaitingKey) finishReply(QStringLiteral("partial"), {}, nullptr);  // nothing was sent
    else stopRequest(m_reply.requestId);
}

QString ChatSession::sourceName() const {
    if (isRemote()) return m_remoteModel;
    return m_host && m_host->isReady() ? m_host->modelName() : QString();
}

bool ChatSession::chatWithServer(const QString& url, const QString& model, int contextLength) {
    if (busy()) {
        setError(tr("Wait for the reply to finish, or press Stop (Esc)."));
        return false;
    }
    if (url.isEmpty() || model.isEmpty()) return false;
    m_remoteUrl = url;
    m_remoteModel = model;
    m_remoteContext = std::max(0, contextLength);
    emit sourceChanged();
    emit modelReadyChanged();
    emit contextChanged();
    return true;
}

void ChatSession::useLocalModel() {
    if (!isRemote()) return;
    m_remoteUrl.clear();
    m_remoteModel.clear();
    m_remoteContext = 0;
    emit sourceChanged();
    emit modelReadyChanged();
    emit contextChanged();
}

bool ChatSession::startRemoteReply(const QJsonArray& turns) {
    Reply r;
    r.record.model = m_remoteModel;
    r.record.server = m_remoteUrl;
    r.awaitingKey = true;
    if (!saveNewReply(std::move(r))) return false;
    clearError();
    emit busyChanged();
    emit replyStarted();
    // The key from the server list, which may wait for the keychain: off this thread, the reply shown as waiting.
    const qint64 messageId = m_reply.messageId;
    const QString url = m_remoteUrl, model = m_remoteModel;
    server_list_find(this, url, [this, messageId, url, model, turns](ServerListRead read) {
        if (m_reply.messageId != messageId || !m_reply.awaitingKey) return;  // stopped or deleted meanwhile
        if (!read.error.isEmpty()) {
            finishReply(QStringLiteral("error"), tr("The server list cannot be read: %1").arg(read.error), nullptr);
            return;
        }
        QString key;
        if (!read.servers.empty()) {
            const RemoteServer& s = read.servers.front();
            if (s.key_place == KeyPlace::keychain && s.api_key.empty()) {
                finishReply(QStringLiteral("error"),
                            tr("The API key of %1 is in the system keychain (%2), which did not give it: %3. Unlock "
                               "the keychain and press Regenerate, or add the server again with its key.")
                                .arg(url, QString::fromUtf8(keychain_name()),
                                     RemoteServerListModel::keychainReason(s.key_problem)),
                            nullptr);
                return;
            }
            key = QString::fromStdString(s.api_key);
        }
        m_reply.awaitingKey = false;
        // max_tokens: the chat's limit; the server refuses (a clear error) what does not fit its context.
        const QJsonObject sampling{{"temperature", m_temperature}, {"top_p", m_topP}, {"max_tokens", m_maxTokens},
                                   {"seed", double(m_seed)}};
        m_reply.requestId = m_remote.chat(url, key, model, turns, sampling);
        emit busyChanged();
    });
    return true;
}

bool ChatSession::regenerate() {
    if (busy() || !m_store || !m_current.id) return false;
    const QList<MessageRecord>& msgs = m_messages.messages();
    int row = int(msgs.size()) - 1;
    while (row >= 0 && msgs.at(row).role != "assistant") --row;
    if (row < 0 || row != msgs.size() - 1) {
        setError(tr("There is no reply to regenerate yet: send a message first."));
        return false;
    }
    if (!modelReady()) {
        setError(tr("No model is loaded. Load one on the Models page, then try again."));
        return false;
    }
    try {
        m_store->removeMessagesFrom(m_current.id, msgs.at(row).id);
    } catch (const ft::Error& e) {
        setError(tr("The old reply cannot be replaced: %1").arg(describe(e)));
        return false;
    }
    m_messages.truncateFrom(row);
    return startReply();
}

bool ChatSession::editAndResend(int row, const QString& text) {
    if (busy() || !m_store || !m_current.id) return false;
    const QString body = text.trimmed();
    if (row < 0 || row >= m_messages.rowCount() || m_messages.roleAt(row) != "user" || body.isEmpty()) return false;
    if (!modelReady()) {
        setError(tr("No model is loaded. Load one on the Models page, then try again."));
        return false;
    }
    try {
        m_store->removeMessagesFrom(m_current.id, m_messages.messages().at(row).id);
        m_messages.truncateFrom(row);
        MessageRecord m;
        m.conversationId = m_current.id;
        m.role = QStringLiteral("user");
        m.content = body;
        m_messages.append(m_store->addMessage(m));
    } catch (const ft::Error& e) {
        setError(tr("The edited message cannot be saved: %1").arg(describe(e)));
        return false;
    }
    return startReply();
}

void ChatSession::copyText(const QString& text) const {
    if (auto* cb = QGuiApplication::clipboard()) cb->setText(text);
}

}  // namespace ft::ui
