#include "remote_client.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QUrl>

#include <algorithm>

#include "engine_text.h"

namespace ft {

namespace {

constexpr int kListTimeoutMs = 10000;
// A stream may be silent while a long prompt is read (ft serve sends a keep-alive every 2 s; others may not).
constexpr int kStreamTimeoutMs = 300000;

// A message key and its arguments as a FreeToken server sends them ({"key", "args"}: ft serve's "ft_message", a
// cache rebuild's "reason_key"); empty when `v` is not one.
Message message_of(const QJsonValue& v) {
    const QJsonObject o = v.toObject();
    Message m;
    if (!o.value("key").isString()) return m;
    m.key = o.value("key").toString().toStdString();
    for (const QJsonValue& a : o.value("args").toArray()) m.args.push_back(a.toString().toStdString());
    return m;
}

// What the server said about a failure. A FreeToken server's refusal in the app's language (its error's
// "ft_message", ApiError::message_key); else the server's own words, marked as its own: OpenAI's {"error":
// {"message"}}, vLLM's {"message"}, FastAPI's {"detail"}, or the start of the text.
QString server_message(const QByteArray& body) {
    const QJsonDocument d = QJsonDocument::fromJson(body);
    QString words;
    if (d.isObject()) {
        const QJsonObject o = d.object();
        const QJsonValue e = o.value("error");
        if (e.isObject() && e.toObject().value("message").isString()) words = e.toObject().value("message").toString();
        else if (e.isString()) words = e.toString();
        else if (o.value("message").isString()) words = o.value("message").toString();
        else if (o.value("detail").isString()) words = o.value("detail").toString();
        const Message m = message_of(e.toObject().value("ft_message"));
        if (!m.empty()) {
            const QString translated = EngineText::text(m, QString());
            if (!translated.isEmpty()) return translated;  // else a key this version does not know: the words
        }
    }
    if (words.isEmpty()) {
        words = QString::fromUtf8(body.left(160)).simplified();
        if (body.size() > 160) words += QChar(0x2026);
    }
    return QCoreApplication::translate("ft::RemoteClient", "the server says: “%1”").arg(words);
}

// Why the connection failed, in the app's language where it is a common failure (EngineText::networkReason).
QString network_reason(const QNetworkReply* r) { return EngineText::networkReason(EngineText::networkErrorKey(r), r->errorString()); }

bool is_sse(QNetworkReply* r) {
    return r->header(QNetworkRequest::ContentTypeHeader).toString().startsWith(QLatin1String("text/event-stream"));
}

}  // namespace

RemoteClient::RemoteClient(QObject* parent) : QObject(parent) {}

RemoteClient::~RemoteClient() {
    // Replies are children of m_net; dropping the streams first keeps their finished() from reaching us.
    for (auto& s : m_streams)
        if (s.reply) s.reply->disconnect(this);
}

QNetworkRequest RemoteClient::request(const QString& url, const QString& path, const QString& apiKey) const {
    QNetworkRequest req(QUrl(url + path));
    if (!apiKey.isEmpty()) req.setRawHeader("Authorization", "Bearer " + apiKey.toUtf8());
    req.setRawHeader("Accept", "application/json, text/event-stream");
    req.setHeader(QNetworkRequest::UserAgentHeader, QStringLiteral("FreeToken-Desktop"));
    return req;
}

QString RemoteClient::describeFailure(const QString& url, QNetworkReply* reply, const QByteArray& body, QString* kind) {
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QString path = reply->url().path();
    auto set = [&](const char* k) {
        if (kind) *kind = QString::fromLatin1(k);
    };
    switch (reply->error()) {
    case QNetworkReply::SslHandshakeFailedError:
    case QNetworkReply::InsecureRedirectError:
        set("tls");
        return tr("The server at %1 did not pass the TLS check (%2). FreeToken verifies certificates: give the server "
                  "a certificate this system trusts, or add its certificate authority to the system's store.")
            .arg(url, reply->errorString());
    case QNetworkReply::ConnectionRefusedError:
    case QNetworkReply::HostNotFoundError:
    case QNetworkReply::TimeoutError:
    case QNetworkReply::OperationCanceledError:
    case QNetworkReply::TemporaryNetworkFailureError:
    case QNetworkReply::NetworkSessionFailedError:
    case QNetworkReply::UnknownNetworkError:
    case QNetworkReply::ProxyConnectionRefusedError:
    case QNetworkReply::ProxyNotFoundError:
    case QNetworkReply::ProxyTimeoutError:
        set("unreachable");
        return tr("Cannot reach the server at %1 (%2). Check the address and port, and that the server is running.")
            .arg(url, network_reason(reply));
    default:
        break;
    }
    if (status == 401 || status == 403) {
        set("key");
        return tr("The server at %1 refused the API key (HTTP %2: %3). Check the key, then add the server again with "
                  "the right one.")
            .arg(url)
            .arg(status)
            .arg(server_message(body));
    }
    // A 404 about the model asked for (OpenAI's "model_not_found", a FreeToken server's keyed refusal) is the server
    // answering, not a path it lacks.
    const QJsonObject error = QJsonDocument::fromJson(body).object().value("error").toObject();
    const bool refusal = error.value("code").toString() == QLatin1String("model_not_found") || error.contains("ft_message");
    if ((status == 404 || status == 405) && !refusal) {
        set("not-openai");
        return tr("The server at %1 has no %2 (HTTP %3). Is this the base URL of an OpenAI-compatible server? Give "
                  "it without the path, e.g. http://192.168.1.20:8000.")
            .arg(url, path)
            .arg(status);
    }
    if (status != 0 && status != 200) {
        set("http");
        return tr("The server at %1 answered %2 with HTTP %3: %4").arg(url, path).arg(status).arg(server_message(body));
    }
    if (reply->error() != QNetworkReply::NoError) {
        set("unreachable");
        return tr("The connection to the server at %1 failed (%2). Check the address and that the server is running.")
            .arg(url, network_reason(reply));
    }
    set("not-openai");
    const QString type = reply->header(QNetworkRequest::ContentTypeHeader).toString();
    return tr("The server at %1 answered %2, but not with the JSON an OpenAI-compatible server sends (%3: \u201c%4\u201d). "
              "Is this the right address?")
        .arg(url, path, type.isEmpty() ? tr("no content type") : type, server_message(body));
}

void RemoteClient::listModels(const QString& url, const QString& apiKey) {
    QNetworkRequest req = request(url, QStringLiteral("/v1/models"), apiKey);
    req.setTransferTimeout(kListTimeoutMs);
    QNetworkReply* r = m_net.get(req);
    connect(r, &QNetworkReply::finished, this, [this, r, url] {
        r->deleteLater();
        const QByteArray body = r->readAll();
        const int status = r->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QJsonDocument d = QJsonDocument::fromJson(body);
        if (r->error() != QNetworkReply::NoError || status != 200 || !d.isObject() || !d.object().value("data").isArray()) {
            QString kind;
            emit listFailed(url, describeFailure(url, r, body, &kind), kind);
            return;
        }
        QVariantList models;
        for (const QJsonValue& v : d.object().value("data").toArray()) {
            const QJsonObject m = v.toObject();
            if (!m.value("id").isString()) continue;
            // The context length, where the server says it: vLLM max_model_len, llama.cpp meta.n_ctx (the served
            // context; else n_ctx_train, the trained one), others context_length / context_window.
            int ctx = m.value("max_model_len").toInt(m.value("context_length").toInt(m.value("context_window").toInt()));
            const QJsonObject meta = m.value("meta").toObject();
            if (ctx == 0) ctx = meta.value("n_ctx").toInt(meta.value("n_ctx_train").toInt());
            models.append(QVariantMap{{"id", m.value("id").toString()},
                                      {"contextLength", ctx},
                                      {"ownedBy", m.value("owned_by").toString()}});
        }
        emit modelsListed(url, models);
    });
}

void RemoteClient::readStats(const QString& url, const QString& apiKey) {
    QNetworkRequest req = request(url, QStringLiteral("/v1/stats"), apiKey);
    req.setTransferTimeout(kListTimeoutMs);
    QNetworkReply* r = m_net.get(req);
    connect(r, &QNetworkReply::finished, this, [this, r, url] {
        r->deleteLater();
        const QByteArray body = r->readAll();
        const QJsonDocument d = QJsonDocument::fromJson(body);
        if (r->error() != QNetworkReply::NoError || !d.isObject()) {
            QString kind;
            const QString message = describeFailure(url, r, body, &kind);
            emit statsFailed(url, message, kind);
            return;
        }
        emit statsRead(url, d.object());
    });
}

void RemoteClient::rebuildCaches(const QString& url, const QString& apiKey, qint64 kvTokens, int expertSlots) {
    QJsonObject body;
    if (kvTokens > 0) body.insert("kv_tokens", kvTokens);
    if (expertSlots >= 0) body.insert("moe_slots", expertSlots);
    QNetworkRequest req = request(url, QStringLiteral("/v1/cache/rebuild"), apiKey);
    req.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    req.setTransferTimeout(kStreamTimeoutMs);  // the server answers when the rebuild is done (up to minutes)
    QNetworkReply* r = m_net.post(req, QJsonDocument(body).toJson(QJsonDocument::Compact));
    connect(r, &QNetworkReply::finished, this, [this, r, url] {
        r->deleteLater();
        const QByteArray body = r->readAll();
        const int status = r->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QJsonObject o = QJsonDocument::fromJson(body).object();
        // 200 (accepted) and 409 (refused, with the reason) carry the server's verdict; anything else is a failure.
        if ((status == 200 || status == 409) && o.contains("accepted")) {
            emit cachesRebuilt(url, o.value("accepted").toBool(),
                               EngineText::text(message_of(o.value("reason_key")), o.value("reason").toString()));
            return;
        }
        emit cachesRebuilt(url, false, describeFailure(url, r, body, nullptr));
    });
}

quint64 RemoteClient::chat(const QString& url, const QString& apiKey, const QString& model, const QJsonArray& messages,
                           const QJsonObject& sampling) {
    QJsonObject body{{"model", model}, {"messages", messages}, {"stream", true},
                     {"stream_options", QJsonObject{{"include_usage", true}}}};
    for (const char* k : {"temperature", "top_p", "max_tokens"})
        if (sampling.contains(k)) body.insert(k, sampling.value(k));
    if (sampling.value("seed").toDouble() > 0) body.insert("seed", sampling.value("seed"));
    QNetworkRequest req = request(url, QStringLiteral("/v1/chat/completions"), apiKey);
    req.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    req.setTransferTimeout(kStreamTimeoutMs);
    const quint64 id = m_nextId++;
    Stream s;
    s.url = url;
    s.clock.start();
    s.reply = m_net.post(req, QJsonDocument(body).toJson(QJsonDocument::Compact));
    m_streams.insert(id, s);
    connect(s.reply, &QNetworkReply::readyRead, this, [this, id] { onStreamData(id); });
    connect(s.reply, &QNetworkReply::finished, this, [this, id] { onStreamDone(id); });
    return id;
}

void RemoteClient::stop(quint64 id) {
    auto it = m_streams.find(id);
    if (it == m_streams.end()) return;
    it->stopped = true;
    if (it->reply) it->reply->abort();  // finished() follows (at once): onStreamDone reports "cancelled"
}

void RemoteClient::stopAll() {
    const auto ids = m_streams.keys();
    for (quint64 id : ids) stop(id);
}

void RemoteClient::emitText(quint64 id, Stream& s, const QString& text) {
    if (text.isEmpty()) return;
    s.arrived();
    emit token(id, text);
}

double RemoteClient::measuredTokS(int tokens, double firstMs, double lastMs) {
    if (tokens <= 0 || firstMs < 0 || lastMs < firstMs) return 0;
    // Streamed: the tokens after the first over the time they took to come.
    if (tokens > 1 && lastMs - firstMs >= kMinTimedMs) return (tokens - 1) * 1000.0 / (lastMs - firstMs);
    // All at once (no streaming, or one SSE write): every token over the time from the request, prompt included.
    if (lastMs >= kMinTimedMs) return tokens * 1000.0 / lastMs;
    return 0;
}

void RemoteClient::readTimings(Stream& s, const QJsonObject& chunk) {
    // llama.cpp's server adds {"timings": {prompt_n, prompt_ms, predicted_n, predicted_ms, …}} to its last chunk.
    const QJsonObject t = chunk.value("timings").toObject();
    const double predictedN = t.value("predicted_n").toDouble(), predictedMs = t.value("predicted_ms").toDouble();
    if (predictedN > 0 && predictedMs > 0) s.serverDecodeTokS = predictedN * 1000.0 / predictedMs;
    const double promptN = t.value("prompt_n").toDouble(), promptMs = t.value("prompt_ms").toDouble();
    if (promptN > 0 && promptMs > 0) s.serverPrefillTokS = promptN * 1000.0 / promptMs;
}

void RemoteClient::onStreamData(quint64 id) {
    auto it = m_streams.find(id);
    if (it == m_streams.end() || !it->reply) return;
    Stream& s = *it;
    const int status = s.reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status != 200 || !is_sse(s.reply)) {
        s.errorBody += s.reply->readAll();  // judged when it ends (an error, or a server that ignored stream: true)
        return;
    }
    s.pending += s.reply->readAll();
    for (qsizetype nl; (nl = s.pending.indexOf('\n')) >= 0;) {
        QByteArray line = s.pending.left(nl);
        s.pending.remove(0, nl + 1);
        if (line.endsWith('\r')) line.chop(1);
        if (!line.startsWith("data:")) continue;  // blank separators, ": ping" keep-alives, event: lines
        QByteArray data = line.mid(5);
        if (data.startsWith(' ')) data.remove(0, 1);
        handleEvent(id, s, data);
        if (!m_streams.contains(id)) return;
    }
}

void RemoteClient::handleEvent(quint64 id, Stream& s, const QByteArray& data) {
    if (data == "[DONE]") {
        s.sawDone = true;
        return;
    }
    const QJsonObject j = QJsonDocument::fromJson(data).object();
    if (j.isEmpty()) return;
    if (j.contains("error")) {
        s.errorBody = data;
        return;
    }
    readTimings(s, j);
    const QJsonObject usage = j.value("usage").toObject();
    if (!usage.isEmpty()) {
        s.completionTokens = usage.value("completion_tokens").toInt(s.completionTokens);
        s.promptTokens = usage.value("prompt_tokens").toInt(s.promptTokens);
    }
    const QJsonArray choices = j.value("choices").toArray();
    if (choices.isEmpty()) return;
    const QJsonObject c = choices.at(0).toObject();
    if (c.value("finish_reason").isString()) s.finishReason = c.value("finish_reason").toString();
    const QJsonObject d = c.value("delta").toObject();
    const QString reasoning = d.value("reasoning_content").isString() ? d.value("reasoning_content").toString()
                                                                      : d.value("reasoning").toString();
    const QString content = d.value("content").toString();
    if (!reasoning.isEmpty() || !content.isEmpty()) ++s.deltas;
    if (!reasoning.isEmpty()) {
        if (!s.inThink) emitText(id, s, QStringLiteral("<think>"));
        s.inThink = true;
        emitText(id, s, reasoning);
    }
    if (!content.isEmpty()) {
        if (s.inThink) emitText(id, s, QStringLiteral("</think>\n\n"));
        s.inThink = false;
        emitText(id, s, content);
    }
    for (const QJsonValue& v : d.value("tool_calls").toArray()) {
        // A reply that is only a tool call: its first fragment is the first token (its text is shown at the end).
        s.arrived();
        const QJsonObject t = v.toObject();
        const int index = t.value("index").toInt(int(s.tools.size()));
        while (s.tools.size() <= index) s.tools.append(ToolCall{});
        const QJsonObject f = t.value("function").toObject();
        s.tools[index].name += f.value("name").toString();
        s.tools[index].arguments += f.value("arguments").toString();
    }
}

void RemoteClient::onStreamDone(quint64 id) {
    auto it = m_streams.find(id);
    if (it == m_streams.end()) return;
    Stream s = *it;
    QNetworkReply* r = s.reply;
    if (r) {
        onStreamData(id);  // what arrived with the end
        s = m_streams.value(id);
        r->deleteLater();
    }
    m_streams.remove(id);
    if (s.inThink) emit token(id, QStringLiteral("</think>\n\n"));
    for (const ToolCall& t : s.tools) {
        QString args = t.arguments;
        const QJsonDocument a = QJsonDocument::fromJson(args.toUtf8());
        if (!a.isNull()) args = QString::fromUtf8(a.toJson(QJsonDocument::Indented)).trimmed();
        emit token(id, QStringLiteral("\n\n```tool-call\n%1(%2)\n```\n").arg(t.name, args));
    }
    const int status = r ? r->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() : 0;
    // A server that ignored stream: true and answered one JSON completion.
    if (r && !s.stopped && status == 200 && !is_sse(r) && r->error() == QNetworkReply::NoError) {
        const QJsonObject j = QJsonDocument::fromJson(s.errorBody).object();
        const QJsonObject m = j.value("choices").toArray().at(0).toObject().value("message").toObject();
        if (!m.isEmpty()) {
            const QString reasoning = m.value("reasoning_content").toString();
            if (!reasoning.isEmpty()) emitText(id, s, QStringLiteral("<think>") + reasoning + QStringLiteral("</think>\n\n"));
            emitText(id, s, m.value("content").toString());
            s.finishReason = j.value("choices").toArray().at(0).toObject().value("finish_reason").toString();
            s.completionTokens = j.value("usage").toObject().value("completion_tokens").toInt(-1);
            s.promptTokens = j.value("usage").toObject().value("prompt_tokens").toInt(-1);
            readTimings(s, j);
            s.sawDone = true;
            s.errorBody.clear();
        }
    }
    const bool ended = s.sawDone || !s.finishReason.isEmpty();
    if (!s.stopped && r && (status != 200 || !s.errorBody.isEmpty() || (r->error() != QNetworkReply::NoError && !ended))) {
        QString message;
        if (status == 200 && is_sse(r) && !s.errorBody.isEmpty())
            message = tr("The server at %1 stopped the reply with an error: %2").arg(s.url, server_message(s.errorBody));
        else if (status == 200 && r->error() != QNetworkReply::NoError)
            message = tr("The server at %1 closed the connection before the reply finished (%2). The text that arrived "
                         "is kept; check the server, then press Regenerate.")
                          .arg(s.url, network_reason(r));
        else
            message = describeFailure(s.url, r, s.errorBody, nullptr);
        emit generationFailed(id, message);
        return;
    }
    if (!s.stopped && !ended) {
        emit generationFailed(id, tr("The server at %1 ended the reply without finishing it (no finish reason, no [DONE]). "
                                     "The text that arrived is kept; check the server, then press Regenerate.")
                                      .arg(s.url));
        return;
    }
    GenerationSummary sum;
    sum.reason = s.stopped                        ? QStringLiteral("cancelled")
                 : s.finishReason == "length"     ? QStringLiteral("length")
                                                  : QStringLiteral("stop");
    sum.promptTokens = std::max(0, s.promptTokens);
    sum.completionTokens = s.completionTokens >= 0 ? s.completionTokens : s.deltas;
    sum.ttftMs = s.firstMs >= 0 ? s.firstMs : 0;
    // A stopped reply's server timings never come; its measured rate covers what arrived.
    sum.decodeTokS = s.serverDecodeTokS > 0 ? s.serverDecodeTokS : measuredTokS(sum.completionTokens, s.firstMs, s.lastMs);
    sum.prefillTokS = s.serverPrefillTokS;
    emit generationFinished(id, sum);
}

}  // namespace ft
