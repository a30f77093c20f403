// EngineHost: the app's one ft::Engine, as a QObject for QML and the view models.
//
// Threading: every method is called on the thread that owns the EngineHost (the GUI thread) and returns at once;
// none of them waits for the engine. The engine's callbacks run on the engine thread; EngineHost turns each into a
// queued call on its own thread, so every signal below is emitted on the GUI thread. Token text is coalesced: one
// token() signal carries the text of every token that arrived since the last one was delivered (never split inside
// a UTF-8 character), so a fast model cannot flood the event loop.
//
// State machine (`state`): "idle" (no model) → load() → "loading" → "ready" (the tokenizer and chat template are
// read too) ⇄ "generating" (while any request runs) → unload() → "idle". A failed load, or an engine exception,
// gives "error" with lastError set (a translated message naming the problem and what to do) and engineFault();
// load() or restartEngine() leaves it. A request that fails (prompt too long, bad sampling) emits
// generationFailed() and engineFault() and sets lastError, but the model keeps serving: state goes back to "ready".
//
// Stats: while a model is loading or loaded a timer polls Engine::stats() at 8 Hz; latestStats() returns the last
// snapshot and statsUpdated() follows each poll.
#pragma once

#include <QObject>
#include <QString>
#include <QTimer>
#include <QVariantMap>

#include <memory>
#include <optional>
#include <string_view>
#include <thread>

// ft/engine.h has a field named `slots`, which is a Qt keyword macro: hide the macro while it is read.
#pragma push_macro("slots")
#undef slots
#include "ft/engine.h"
#pragma pop_macro("slots")
#include "ft/tokenizer.h"

namespace ft {

class ChatTemplate;

// How a generation ended (the engine's FinishEvent, for Qt signals and QML).
struct GenerationSummary {
    Q_GADGET
    Q_PROPERTY(QString reason MEMBER reason)
    Q_PROPERTY(QString stopText MEMBER stopText)
    Q_PROPERTY(int promptTokens MEMBER promptTokens)
    Q_PROPERTY(int completionTokens MEMBER completionTokens)
    Q_PROPERTY(double ttftMs MEMBER ttftMs)
    Q_PROPERTY(double prefillTokS MEMBER prefillTokS)
    Q_PROPERTY(double decodeTokS MEMBER decodeTokS)
public:
    QString reason;        // "stop", "length", "cancelled"
    QString stopText;      // the stop string or end-of-generation token that ended it
    int promptTokens = 0;  // 0: not known (a remote reply stopped before the server sent its usage)
    int completionTokens = 0;
    double ttftMs = 0;
    double prefillTokS = 0;
    double decodeTokS = 0;
};

class EngineHost : public QObject {
    Q_OBJECT
    Q_PROPERTY(QString state READ state NOTIFY stateChanged)
    Q_PROPERTY(QString modelPath READ modelPath NOTIFY modelChanged)
    Q_PROPERTY(QString modelName READ modelName NOTIFY modelChanged)  // as the library names it (file or folder)
    Q_PROPERTY(int contextLength READ contextLength NOTIFY modelChanged)
    Q_PROPERTY(bool hasChatTemplate READ hasChatTemplate NOTIFY modelChanged)
    // The sampling the model's file recommends (GGUF general.sampling.*, generation_config.json): "temperature",
    // "topP", "topK", each present only when the file names it.
    Q_PROPERTY(QVariantMap recommendedSampling READ recommendedSampling NOTIFY modelChanged)
    Q_PROPERTY(double loadFraction READ loadFraction NOTIFY loadProgressChanged)
    Q_PROPERTY(QString loadStage READ loadStage NOTIFY loadProgressChanged)            // the engine's stage key
    Q_PROPERTY(QString loadStageLabel READ loadStageLabel NOTIFY loadProgressChanged)  // the same, for people
    Q_PROPERTY(qint64 loadBytesDone READ loadBytesDone NOTIFY loadProgressChanged)
    Q_PROPERTY(qint64 loadBytesTotal READ loadBytesTotal NOTIFY loadProgressChanged)
    Q_PROPERTY(QString lastError READ lastError NOTIFY lastErrorChanged)
    Q_PROPERTY(int activeRequests READ activeRequests NOTIFY stateChanged)
public:
    explicit EngineHost(QObject* parent = nullptr);
    ~EngineHost() override;  // cancels what runs and joins the engine thread

    QString state() const { return m_state; }
    QString modelPath() const { return m_modelPath; }
    QString modelName() const { return m_modelName; }
    int contextLength() const { return m_contextLength; }
    bool hasChatTemplate() const { return m_template != nullptr; }
    QVariantMap recommendedSampling() const { return m_recommendedSampling; }
    double loadFraction() const { return m_loadFraction; }
    QString loadStage() const { return m_loadStage; }
    // The stage translated: "Reading the file", "Measuring PCIe and CPU bandwidth (once for this GPU)", …
    QString loadStageLabel() const;
    qint64 loadBytesDone() const { return m_loadBytesDone; }
    qint64 loadBytesTotal() const { return m_loadBytesTotal; }
    QString lastError() const { return m_lastError; }
    int activeRequests() const { return int(m_active.size()); }
    bool isReady() const { return m_state == "ready" || m_state == "generating"; }

    // Options used by the next load() (the model path in them is ignored: load() names it). Default: the engine's
    // defaults (device automatic, n_ctx 4096).
    void setLoadOptions(const LoadOptions& options) { m_loadOptions = options; }
    LoadOptions loadOptions() const { return m_loadOptions; }

    // Loads a model file or folder (unloading the current one). Ends with loadFinished().
    Q_INVOKABLE void load(const QString& path);
    // Stops the load in progress; loadFinished(false, <cancelled>) follows and the state becomes "idle".
    Q_INVOKABLE void cancelLoad();
    // Stops every request and unloads; unloaded() follows.
    Q_INVOKABLE void unload();
    // Destroys the engine (off the GUI thread) and creates a new one; reloads the last model if there was one.
    Q_INVOKABLE void restartEngine();
    Q_INVOKABLE void clearError();

    // Submits a request (its callbacks are replaced by EngineHost's). Returns its id (> 0), or 0 when no model is
    // loaded (generationFailed is then emitted with the reason, queued).
    quint64 generate(GenerationRequest request);
    // QML convenience: raw prompt text; sampling keys temperature, topP, topK, minP, seed, maxTokens.
    Q_INVOKABLE quint64 generateText(const QString& prompt, const QVariantMap& sampling = {});
    Q_INVOKABLE void stop(quint64 id);

    // Resizes the KV cache (positions) and the expert cache (slots) of the loaded model; < 0 keeps a size.
    // rebuildFinished() follows.
    void rebuildCaches(qint64 kvTokens, int expertSlots);

    EngineStats latestStats() const { return m_stats; }
    // The engine itself (the app's API server serves it); replaced by restartEngine().
    std::shared_ptr<Engine> engine() const { return m_engine; }
    // The loaded model's tokenizer and chat template (snapshots taken when the load finished; empty / null when no
    // model is loaded or the model has no chat template). Safe to use from any thread.
    std::optional<Tokenizer> tokenizer() const { return m_tokenizer; }
    std::shared_ptr<const ChatTemplate> chatTemplate() const { return m_template; }

signals:
    void stateChanged();
    void modelChanged();
    void loadProgressChanged();
    void lastErrorChanged();
    void loadFinished(bool ok, const QString& error);
    void unloaded();
    void token(quint64 id, const QString& text);
    void generationFinished(quint64 id, const ft::GenerationSummary& summary);
    void generationFailed(quint64 id, const QString& message);
    void rebuildFinished(bool accepted, const QString& reason);
    void statsUpdated();
    void engineFault(const QString& message);

private:
    struct Relay;  // what the engine-thread callbacks hold: a guarded way back to this object
    void setState(const QString& s);
    void setError(const QString& message);
    void startLoad(const QString& path);
    void onLoadProgress(quint64 epoch);
    void onLoadDone(quint64 epoch, bool ok, const QString& error);
    void onModelReady(quint64 epoch, std::optional<Tokenizer> tok, std::shared_ptr<const ChatTemplate> tmpl,
                      const QString& templateError);
    void onTokens(quint64 epoch, quint64 id);
    void onFinished(quint64 epoch, const GenerationSummary& summary, quint64 id);
    void onFailed(quint64 epoch, quint64 id, const QString& message);
    void pollStats();
    void resetModel();
    void updateBusyState();
    void joinReaper();

    std::shared_ptr<Engine> m_engine;
    std::shared_ptr<Relay> m_relay;
    quint64 m_epoch = 1;     // bumped by every load/unload/restart: results of older commands are ignored
    std::thread m_reaper;    // destroys a replaced engine without blocking the GUI thread
    LoadOptions m_loadOptions;
    QTimer m_statsTimer;
    EngineStats m_stats;
    QString m_state = QStringLiteral("idle");
    QString m_modelPath, m_modelName, m_lastError, m_loadStage;
    QString m_lastLoadedPath;
    int m_contextLength = 0;
    QVariantMap m_recommendedSampling;
    double m_loadFraction = 0;
    qint64 m_loadBytesDone = 0, m_loadBytesTotal = 0;
    std::vector<quint64> m_active;
    std::optional<Tokenizer> m_tokenizer;
    std::shared_ptr<const ChatTemplate> m_template;
};

// Streamed text (whole UTF-8 characters, as the engine's stream decoder cuts it) as a QString, the same whatever
// the pieces: QString::fromUtf8 drops a U+FEFF (byte order mark) at the start of its input, so converting each
// coalesced piece with it lost a model's U+FEFF token whenever that token happened to start a piece — and how the
// tokens were grouped depends on timing. This keeps it.
QString streamed_text(std::string_view utf8);

}  // namespace ft

Q_DECLARE_METATYPE(ft::GenerationSummary)
