#include "engine_host.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QMetaObject>
#include <QStringDecoder>
#include <QThreadPool>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>

#include "ft/chat_template.h"
#include "engine_text.h"
#include "ft/error.h"
#include "ft/utf8.h"

namespace ft {

QString streamed_text(std::string_view utf8) {
    QStringDecoder decoder(QStringDecoder::Utf8, QStringConverter::Flag::ConvertInitialBom);
    return decoder.decode(QByteArrayView(utf8.data(), qsizetype(utf8.size())));
}

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

QString describe(const Error& e) { return EngineText::error(e); }  // in the app's language where it has a key

GenerationSummary summarize(const FinishEvent& ev) {
    GenerationSummary s;
    s.reason = qs(std::string(finish_reason_name(ev.reason)));
    s.stopText = qs(ev.stop_text);
    s.promptTokens = ev.prompt_tokens;
    s.completionTokens = ev.completion_tokens;
    s.ttftMs = ev.ttft_ms;
    s.prefillTokS = ev.prefill_tok_s;
    s.decodeTokS = ev.decode_tok_s;
    return s;
}

}  // namespace

// The engine-thread side. Callbacks hold a shared_ptr to it, never to the EngineHost: after the host is gone (or
// while it is being destroyed) `host` is null and nothing is posted. Token text and load progress are coalesced
// here so that at most one queued call of each kind is waiting in the GUI thread's event queue.
struct EngineHost::Relay {
    std::mutex mutex;
    EngineHost* host = nullptr;
    struct PendingText {
        std::string text;
        bool posted = false;
    };
    std::map<quint64, PendingText> tokens;  // request id → text not yet delivered
    LoadProgress progress;
    bool progressPosted = false;

    template <class F>
    void post(F&& f) {  // call with `mutex` held
        if (host) QMetaObject::invokeMethod(host, std::forward<F>(f), Qt::QueuedConnection);
    }
};

EngineHost::EngineHost(QObject* parent)
    : QObject(parent), m_engine(std::make_shared<Engine>()), m_relay(std::make_shared<Relay>()) {
    qRegisterMetaType<ft::GenerationSummary>();
    m_relay->host = this;
    m_loadOptions.model.clear();
    m_statsTimer.setInterval(125);  // 8 Hz
    connect(&m_statsTimer, &QTimer::timeout, this, &EngineHost::pollStats);
}

EngineHost::~EngineHost() {
    {
        std::lock_guard lock(m_relay->mutex);
        m_relay->host = nullptr;
    }
    if (m_engine)
        for (quint64 id : m_active) m_engine->cancel(id);
    m_engine.reset();  // joins the engine thread (a tokenizer fetch still running keeps it alive until it ends)
    joinReaper();
}

void EngineHost::setState(const QString& s) {
    if (m_state == s) return;
    m_state = s;
    emit stateChanged();
}

void EngineHost::setError(const QString& message) {
    m_lastError = message;
    emit lastErrorChanged();
}

void EngineHost::clearError() {
    if (m_lastError.isEmpty()) return;
    m_lastError.clear();
    emit lastErrorChanged();
    if (m_state == "error") setState(QStringLiteral("idle"));
}

void EngineHost::resetModel() {
    const bool had = !m_modelPath.isEmpty() || m_tokenizer || m_template || m_contextLength;
    m_modelPath.clear();
    m_modelName.clear();
    m_contextLength = 0;
    m_recommendedSampling.clear();
    m_tokenizer.reset();
    m_template.reset();
    if (had) emit modelChanged();
    // Requests of the old model end with it; their finish events are ignored (older epoch), so say so now.
    const std::vector<quint64> ended = std::exchange(m_active, {});
    for (quint64 id : ended) {
        GenerationSummary s;
        s.reason = QStringLiteral("cancelled");
        emit generationFinished(id, s);
    }
    std::lock_guard lock(m_relay->mutex);
    m_relay->tokens.clear();
}

void EngineHost::load(const QString& path) {
    if (path.trimmed().isEmpty()) {
        setError(tr("No model path was given. Choose a .gguf file or a model folder on the Models page."));
        setState(QStringLiteral("error"));
        emit engineFault(m_lastError);
        emit loadFinished(false, m_lastError);
        return;
    }
    startLoad(path);
}

void EngineHost::startLoad(const QString& path) {
    ++m_epoch;
    resetModel();
    m_lastLoadedPath = path;
    m_modelPath = path;
    // Named as the library names it (ModelLibrary::inspect): a GGUF file by its file name, a folder by its own.
    const QFileInfo info(path);
    m_modelName = info.isDir() ? info.fileName() : info.completeBaseName();
    emit modelChanged();
    m_loadFraction = 0;
    m_loadStage = QStringLiteral("opening");
    m_loadBytesDone = m_loadBytesTotal = 0;
    emit loadProgressChanged();
    if (!m_lastError.isEmpty()) {
        m_lastError.clear();
        emit lastErrorChanged();
    }
    setState(QStringLiteral("loading"));
    m_statsTimer.start();

    LoadOptions o = m_loadOptions;
    o.model = ft::path_from_utf8(path.toStdString());  // UTF-8, not the ANSI code page, on Windows
    const quint64 epoch = m_epoch;
    std::shared_ptr<Relay> relay = m_relay;
    try {
        m_engine->load(
            o,
            [relay, epoch](const LoadProgress& p) {
                std::lock_guard lock(relay->mutex);
                relay->progress = p;
                if (relay->progressPosted) return;
                relay->progressPosted = true;
                relay->post([h = relay->host, epoch] { h->onLoadProgress(epoch); });
            },
            [relay, epoch](const std::optional<Error>& err) {
                const bool ok = !err;
                QString message;
                if (err) message = err->code() == ErrorCode::cancelled ? QString() : describe(*err);
                std::lock_guard lock(relay->mutex);
                relay->post([h = relay->host, epoch, ok, message] { h->onLoadDone(epoch, ok, message); });
            });
    } catch (const std::exception& e) {
        onLoadDone(epoch, false, QString::fromUtf8(e.what()));
    }
}

void EngineHost::onLoadProgress(quint64 epoch) {
    LoadProgress p;
    {
        std::lock_guard lock(m_relay->mutex);
        p = m_relay->progress;
        m_relay->progressPosted = false;
    }
    if (epoch != m_epoch || m_state != "loading") return;
    m_loadFraction = std::clamp(double(p.fraction), 0.0, 1.0);
    m_loadStage = qs(p.stage);
    m_loadBytesDone = qint64(p.bytes_done);
    m_loadBytesTotal = qint64(p.bytes_total);
    emit loadProgressChanged();
}

void EngineHost::onLoadDone(quint64 epoch, bool ok, const QString& error) {
    if (epoch != m_epoch) return;
    if (!ok) {
        const QString path = m_modelPath;
        resetModel();
        if (error.isEmpty()) {  // cancelled
            setState(QStringLiteral("idle"));
            m_statsTimer.stop();
            emit loadFinished(false, tr("Loading was cancelled."));
            return;
        }
        setError(tr("Could not load %1: %2").arg(QFileInfo(path).fileName(), error));
        setState(QStringLiteral("error"));
        m_statsTimer.stop();
        spdlog::warn("app: load of {} failed: {}", path.toStdString(), error.toStdString());
        emit engineFault(m_lastError);
        emit loadFinished(false, m_lastError);
        return;
    }
    // The tokenizer and chat template are read off the GUI thread (Engine::tokenizer() waits for the engine
    // thread; the template is read from the model file); the model is "ready" once both are here.
    std::shared_ptr<Engine> engine = m_engine;
    std::shared_ptr<Relay> relay = m_relay;
    const std::filesystem::path path = ft::path_from_utf8(m_modelPath.toStdString());
    QThreadPool::globalInstance()->start([engine, relay, epoch, path] {
        std::optional<Tokenizer> tok;
        std::shared_ptr<const ChatTemplate> tmpl;
        QString templateError;
        try {
            tok = engine->tokenizer();
        } catch (const std::exception& e) {
            spdlog::warn("app: the model has no usable tokenizer: {}", e.what());
        }
        try {
            ChatTemplateSource src = load_chat_template(path, {}, false);
            if (!src.text.empty()) tmpl = std::make_shared<const ChatTemplate>(std::move(src));
        } catch (const Error& e) {
            templateError = describe(e);
            spdlog::warn("app: the model's chat template is unusable: {}", e.what());
        } catch (const std::exception& e) {
            templateError = QString::fromUtf8(e.what());
        }
        std::lock_guard lock(relay->mutex);
        relay->post([h = relay->host, epoch, tok = std::move(tok), tmpl = std::move(tmpl), templateError]() mutable {
            h->onModelReady(epoch, std::move(tok), std::move(tmpl), templateError);
        });
    });
}

void EngineHost::onModelReady(quint64 epoch, std::optional<Tokenizer> tok, std::shared_ptr<const ChatTemplate> tmpl,
                              const QString& templateError) {
    if (epoch != m_epoch) return;
    m_tokenizer = std::move(tok);
    m_template = std::move(tmpl);
    if (const auto info = m_engine->model_info()) {
        m_contextLength = info->n_ctx;
        m_recommendedSampling.clear();
        const SamplingDefaults& d = info->sampling_defaults;
        // The file's float as the decimal it was written as (0.8, not 0.800000011920929).
        const auto decimal = [](float v) { return QString::number(double(v), 'g', 6).toDouble(); };
        if (d.temperature) m_recommendedSampling.insert(QStringLiteral("temperature"), decimal(*d.temperature));
        if (d.top_p) m_recommendedSampling.insert(QStringLiteral("topP"), decimal(*d.top_p));
        if (d.top_k) m_recommendedSampling.insert(QStringLiteral("topK"), *d.top_k);
        // A Hugging Face folder is listed under its config's name; a GGUF file keeps its file name (the name written
        // inside it, general.name, is often another: the library, the Chat header and the Console must agree).
        if (!info->name.empty() && QFileInfo(m_modelPath).isDir()) m_modelName = qs(info->name);
    }
    if (!templateError.isEmpty()) spdlog::info("app: chatting without the model's template: {}", templateError.toStdString());
    emit modelChanged();
    m_loadFraction = 1;
    m_loadStage = QStringLiteral("ready");
    emit loadProgressChanged();
    setState(m_active.empty() ? QStringLiteral("ready") : QStringLiteral("generating"));
    pollStats();
    emit loadFinished(true, QString());
}

void EngineHost::cancelLoad() {
    if (m_state != "loading") return;
    // The engine stops a running load at its next check point (its done callback then reports cancelled). A load that
    // has not started yet, or ends before a check point, still completes: its result is ignored (older epoch) and the
    // unload queued behind it frees the model.
    m_engine->cancel_load();
    ++m_epoch;
    resetModel();
    m_lastLoadedPath.clear();
    m_engine->unload();
    m_statsTimer.stop();
    m_stats = EngineStats{};
    emit statsUpdated();
    setState(QStringLiteral("idle"));
    emit loadFinished(false, tr("Loading was cancelled."));
}

QString EngineHost::loadStageLabel() const {
    const QString& k = m_loadStage;
    if (k == "opening") return tr("Opening the file");
    if (k == "mapping") return tr("Mapping the weights");
    if (k == "tokenizer") return tr("Reading the tokenizer");
    // ft::LoadProgress "bandwidth profile": the first GPU load with no stored profile measures B_P and B_C.
    if (k == "bandwidth profile") return tr("Measuring PCIe and CPU bandwidth (once for this GPU)");
    if (k == "weights") return tr("Uploading the weights");
    if (k == "kv cache") return tr("Allocating the KV cache");
    if (k == "ready") return tr("Ready");
    return k;  // a stage this version does not know: shown as the engine names it
}

void EngineHost::unload() {
    ++m_epoch;
    resetModel();
    m_lastLoadedPath.clear();
    m_engine->unload();
    m_statsTimer.stop();
    m_stats = EngineStats{};
    emit statsUpdated();
    m_loadFraction = 0;
    m_loadStage.clear();
    m_loadBytesDone = m_loadBytesTotal = 0;
    emit loadProgressChanged();
    setState(QStringLiteral("idle"));
    emit unloaded();
}

void EngineHost::joinReaper() {
    if (m_reaper.joinable()) m_reaper.join();
}

void EngineHost::restartEngine() {
    const QString path = m_lastLoadedPath;
    ++m_epoch;
    resetModel();
    std::shared_ptr<Engine> old = std::move(m_engine);
    try {
        m_engine = std::make_shared<Engine>();
    } catch (const std::exception& e) {
        m_engine = std::move(old);
        setError(tr("The engine could not be restarted: %1").arg(QString::fromUtf8(e.what())));
        setState(QStringLiteral("error"));
        emit engineFault(m_lastError);
        return;
    }
    joinReaper();
    // ~Engine waits for the step or load in progress: never on the GUI thread.
    m_reaper = std::thread([old = std::move(old)]() mutable { old.reset(); });
    m_stats = EngineStats{};
    emit statsUpdated();
    if (!m_lastError.isEmpty()) {
        m_lastError.clear();
        emit lastErrorChanged();
    }
    if (!path.isEmpty()) {
        startLoad(path);
    } else {
        m_statsTimer.stop();
        setState(QStringLiteral("idle"));
    }
}

quint64 EngineHost::generate(GenerationRequest request) {
    if (!isReady()) {
        const QString message = m_state == "loading" ? tr("The model is still loading; wait until it is ready.")
                                                     : tr("No model is loaded. Load one on the Models page first.");
        QMetaObject::invokeMethod(this, [this, message] { emit generationFailed(0, message); }, Qt::QueuedConnection);
        return 0;
    }
    const quint64 epoch = m_epoch;
    std::shared_ptr<Relay> relay = m_relay;
    // The id is only known after submit(); the callbacks learn it from their events.
    request.on_token = [relay, epoch](const TokenEvent& ev) {
        if (ev.text.empty()) return;
        std::lock_guard lock(relay->mutex);
        auto& p = relay->tokens[ev.request];
        p.text += ev.text;
        if (p.posted) return;
        p.posted = true;
        relay->post([h = relay->host, epoch, id = quint64(ev.request)] { h->onTokens(epoch, id); });
    };
    request.on_finish = [relay, epoch](const FinishEvent& ev) {
        const GenerationSummary s = summarize(ev);
        std::lock_guard lock(relay->mutex);
        relay->post([h = relay->host, epoch, s, id = quint64(ev.request)] { h->onFinished(epoch, s, id); });
    };
    // An error event carries no request id: a per-request holder learns it right after submit().
    auto idHolder = std::make_shared<std::atomic<quint64>>(0);
    request.on_error = [relay, epoch, idHolder](const Error& err) {
        const QString message = describe(err);
        std::lock_guard lock(relay->mutex);
        relay->post([h = relay->host, epoch, idHolder, message] { h->onFailed(epoch, idHolder->load(), message); });
    };
    quint64 id = 0;
    try {
        id = m_engine->submit(std::move(request));
    } catch (const std::exception& e) {
        const QString message = tr("The engine refused the request: %1").arg(QString::fromUtf8(e.what()));
        setError(message);
        emit engineFault(message);
        QMetaObject::invokeMethod(this, [this, message] { emit generationFailed(0, message); }, Qt::QueuedConnection);
        return 0;
    }
    // The error callback runs on the engine thread, after the submit command was queued, and is delivered to this
    // thread as a queued call: by then the holder is set.
    idHolder->store(id);
    m_active.push_back(id);
    updateBusyState();
    return id;
}

quint64 EngineHost::generateText(const QString& prompt, const QVariantMap& sampling) {
    GenerationRequest r;
    r.prompt_text = prompt.toStdString();
    r.sampling.temperature = sampling.value("temperature", double(r.sampling.temperature)).toFloat();
    r.sampling.top_p = sampling.value("topP", double(r.sampling.top_p)).toFloat();
    r.sampling.top_k = sampling.value("topK", r.sampling.top_k).toInt();
    r.sampling.min_p = sampling.value("minP", double(r.sampling.min_p)).toFloat();
    r.sampling.seed = sampling.value("seed", 0).toULongLong();
    r.max_tokens = sampling.value("maxTokens", r.max_tokens).toInt();
    return generate(std::move(r));
}

void EngineHost::stop(quint64 id) {
    if (std::find(m_active.begin(), m_active.end(), id) == m_active.end()) return;
    m_engine->cancel(id);
}

void EngineHost::rebuildCaches(qint64 kvTokens, int expertSlots) {
    if (!isReady()) {
        QMetaObject::invokeMethod(this, [this] { emit rebuildFinished(false, tr("No model is loaded.")); },
                                  Qt::QueuedConnection);
        return;
    }
    CacheRequest req;
    req.kv_tokens = kvTokens;
    req.expert_slots = expertSlots;
    const quint64 epoch = m_epoch;
    std::shared_ptr<Relay> relay = m_relay;
    m_engine->rebuild_caches(req, [relay, epoch](const RebuildResult& r) {
        const bool accepted = r.accepted;
        std::lock_guard lock(relay->mutex);
        relay->post([h = relay->host, epoch, accepted, key = r.reason_key, english = qs(r.reason)] {
            if (epoch != h->m_epoch) return;
            h->pollStats();
            emit h->rebuildFinished(accepted, EngineText::text(key, english));  // in the app's language
        });
    });
}

void EngineHost::onTokens(quint64 epoch, quint64 id) {
    std::string text;
    {
        std::lock_guard lock(m_relay->mutex);
        auto it = m_relay->tokens.find(id);
        if (it == m_relay->tokens.end()) return;
        text = std::move(it->second.text);
        it->second.text.clear();
        it->second.posted = false;
    }
    if (epoch != m_epoch || text.empty()) return;
    emit token(id, streamed_text(text));
}

void EngineHost::onFinished(quint64 epoch, const GenerationSummary& summary, quint64 id) {
    std::string rest;
    {
        std::lock_guard lock(m_relay->mutex);
        if (auto it = m_relay->tokens.find(id); it != m_relay->tokens.end()) {
            rest = std::move(it->second.text);
            m_relay->tokens.erase(it);
        }
    }
    if (epoch != m_epoch) return;
    if (!rest.empty()) emit token(id, streamed_text(rest));
    m_active.erase(std::remove(m_active.begin(), m_active.end(), id), m_active.end());
    updateBusyState();
    pollStats();
    emit generationFinished(id, summary);
}

void EngineHost::onFailed(quint64 epoch, quint64 id, const QString& message) {
    {
        std::lock_guard lock(m_relay->mutex);
        m_relay->tokens.erase(id);
    }
    if (epoch != m_epoch) return;
    m_active.erase(std::remove(m_active.begin(), m_active.end(), id), m_active.end());
    const QString shown = tr("The reply failed: %1").arg(message);
    setError(shown);
    updateBusyState();
    emit engineFault(shown);
    emit generationFailed(id, shown);
}

void EngineHost::updateBusyState() {
    if (m_state != "ready" && m_state != "generating") {
        emit stateChanged();  // activeRequests changed
        return;
    }
    const QString next = m_active.empty() ? QStringLiteral("ready") : QStringLiteral("generating");
    if (next == m_state) emit stateChanged();  // activeRequests changed
    else setState(next);
}

void EngineHost::pollStats() {
    if (!m_engine) return;
    m_stats = m_engine->stats();  // a copy under the engine's short snapshot lock
    emit statsUpdated();
}

}  // namespace ft
