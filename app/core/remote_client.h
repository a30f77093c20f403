// RemoteClient: talks to an OpenAI-compatible server (another PC's `ft serve`, vLLM, SGLang, llama.cpp's
// llama-server) for the app: lists its models, streams a chat reply, reads a FreeToken server's /v1/stats.
//
// Threading: a GUI-thread object; every call returns at once and its result comes as a signal (Qt's network stack
// runs the I/O). Security: TLS certificates are verified (Qt's default; nothing here ignores an SSL error); the API
// key goes only into the Authorization header, never into a log line or an error message.
//
// A chat stream (chat()) turns the server's SSE deltas into text for ChatSession: reasoning (`reasoning_content` or
// `reasoning`) is wrapped in <think>…</think>, tool calls are added at the end as a fenced ```tool-call block each.
// It ends with finished() (reason "stop", "length" or "cancelled" after stop()) or failed() with a translated
// message naming the problem and what to do; the text received before a failure has been delivered by token().
// TTFT is measured here, as the bytes arrive. tok/s is the server's own where it reports one (llama.cpp's `timings`:
// predicted_n tokens in predicted_ms); else measured here: from the first text to the last when the reply streamed
// over a measurable span, else from the request to the last text (a server that sends the whole reply at once);
// 0 (not known, shown as "—") when even that took under kMinTimedMs.
#pragma once

#include <QElapsedTimer>
#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QObject>
#include <QPointer>
#include <QVariantList>

#include "engine_host.h"  // GenerationSummary

class QNetworkReply;

namespace ft {

class RemoteClient : public QObject {
    Q_OBJECT
public:
    explicit RemoteClient(QObject* parent = nullptr);
    ~RemoteClient() override;

    // GET <url>/v1/models. modelsListed(url, [{id, contextLength (0: not said), ownedBy}]) or
    // listFailed(url, message, kind) where kind is "unreachable", "key", "not-openai", "tls" or "http".
    void listModels(const QString& url, const QString& apiKey);
    // GET <url>/v1/stats (FreeToken servers): statsRead(url, object) or statsFailed(url, message, kind) (kind as
    // listFailed's; "not-openai" for a server without /v1/stats).
    void readStats(const QString& url, const QString& apiKey);
    // POST <url>/v1/cache/rebuild (FreeToken servers, `ft ctl cache`'s call) with the new KV positions and expert
    // slots (< 0: left as they are): cachesRebuilt(url, accepted, reason) — the server's verdict (409 with its
    // reason when it refused the size), or not accepted with a message naming the failure (a refused key, no
    // answer).
    void rebuildCaches(const QString& url, const QString& apiKey, qint64 kvTokens, int expertSlots);

    // POST <url>/v1/chat/completions with stream: true. `messages`: [{role, content}]; `sampling`: temperature,
    // top_p, max_tokens, seed (0: left out). Returns the request's id (> 0; ids do not collide with EngineHost's).
    quint64 chat(const QString& url, const QString& apiKey, const QString& model, const QJsonArray& messages,
                 const QJsonObject& sampling);
    // Closes the stream; finished(id, reason "cancelled") follows.
    void stop(quint64 id);
    void stopAll();
    bool running(quint64 id) const { return m_streams.contains(id); }

    // A short, key-free description of a network failure, for messages (also used by tests).
    static QString describeFailure(const QString& url, QNetworkReply* reply, const QByteArray& body, QString* kind);

    // A span shorter than this is not timed (the timer's grain, the event loop and one network write are of its order).
    static constexpr double kMinTimedMs = 20;
    // The decode rate of a reply of `tokens` tokens whose first text arrived `firstMs` and last `lastMs` after the
    // request (see above; 0: not measurable). Public for tests.
    static double measuredTokS(int tokens, double firstMs, double lastMs);

signals:
    void modelsListed(const QString& url, const QVariantList& models);
    void listFailed(const QString& url, const QString& message, const QString& kind);
    void statsRead(const QString& url, const QJsonObject& stats);
    void statsFailed(const QString& url, const QString& message, const QString& kind);
    void cachesRebuilt(const QString& url, bool accepted, const QString& reason);
    void token(quint64 id, const QString& text);
    void generationFinished(quint64 id, const ft::GenerationSummary& summary);
    void generationFailed(quint64 id, const QString& message);

private:
    struct ToolCall {
        QString name, arguments;
    };
    struct Stream {
        QPointer<QNetworkReply> reply;
        QString url;
        QByteArray pending;   // SSE bytes not yet cut into events
        QByteArray errorBody; // a non-200 answer's body
        bool inThink = false;
        bool stopped = false;
        bool sawDone = false;
        QString finishReason;
        QList<ToolCall> tools;
        int completionTokens = -1, promptTokens = -1, deltas = 0;
        QElapsedTimer clock;
        double firstMs = -1, lastMs = -1;             // the first and the last text (or tool-call fragment), after the request
        double serverDecodeTokS = 0, serverPrefillTokS = 0;  // the server's own timings, where it sends them
        double elapsedMs() const { return clock.nsecsElapsed() / 1e6; }
        void arrived() {
            lastMs = elapsedMs();
            if (firstMs < 0) firstMs = lastMs;
        }
    };
    QNetworkRequest request(const QString& url, const QString& path, const QString& apiKey) const;
    void onStreamData(quint64 id);
    void onStreamDone(quint64 id);
    void handleEvent(quint64 id, Stream& s, const QByteArray& data);
    static void readTimings(Stream& s, const QJsonObject& chunk);
    void emitText(quint64 id, Stream& s, const QString& text);

    QNetworkAccessManager m_net;
    QHash<quint64, Stream> m_streams;
    quint64 m_nextId = (quint64(1) << 40);  // EngineHost's ids count from 1
};

}  // namespace ft
