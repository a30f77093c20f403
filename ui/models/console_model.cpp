#include "console_model.h"  // first: it includes ft/engine.h before Qt

#include <QCryptographicHash>
#include <QLocale>
#include <QSettings>
#include <QThreadPool>

#include <filesystem>

#include <algorithm>
#include <atomic>
#include <cmath>

#include "app_settings.h"
#include "engine_host.h"
#include "engine_text.h"
#include "model_facts.h"

namespace ft::ui {

namespace {

std::atomic<std::int64_t> g_cost_ns{0};

// The remembered setting lives beside the app's own preferences (AppSettings' INI file), one group per model.
QSettings remembered_store() {
    AppSettings app;
    return QSettings(app.filePath(), QSettings::IniFormat);
}

}  // namespace

void ConsoleModel::addPaintNs(std::int64_t ns) { g_cost_ns.fetch_add(ns, std::memory_order_relaxed); }
std::int64_t ConsoleModel::costNs() { return g_cost_ns.load(std::memory_order_relaxed); }
void ConsoleModel::resetCost() { g_cost_ns.store(0, std::memory_order_relaxed); }

ConsoleModel::ConsoleModel(QObject* parent) : QObject(parent) { m_clock.start(); }

ConsoleModel::~ConsoleModel() = default;

QObject* ConsoleModel::host() const { return m_host.data(); }

void ConsoleModel::setHost(QObject* host) {
    auto* h = qobject_cast<ft::EngineHost*>(host);
    if (h == m_host) return;
    if (m_host) disconnect(m_host, nullptr, this, nullptr);
    m_host = h;
    if (h) {
        connect(h, &EngineHost::statsUpdated, this, &ConsoleModel::onStats);
        connect(h, &EngineHost::rebuildFinished, this, &ConsoleModel::onRebuildFinished);
        connect(h, &EngineHost::engineFault, this, &ConsoleModel::onFault);
        connect(h, &EngineHost::modelChanged, this, &ConsoleModel::onModelChanged);
        connect(h, &EngineHost::stateChanged, this, &ConsoleModel::onHostState);
        connect(h, &EngineHost::unloaded, this, [this] { ingest(ft::EngineStats{}, m_clock.elapsed()); });
        onHostState();
        readFacts(h->modelPath());
        if (h->isReady()) onStats();
    }
    emit hostChanged();
}

void ConsoleModel::setWindowMinutes(int minutes) {
    if (minutes != 1 && minutes != 5 && minutes != 15) return;
    if (minutes == m_windowMinutes) return;
    m_windowMinutes = minutes;
    emit windowChanged();
    emit historyChanged();
}

QString ConsoleModel::engineState() const {
    if (m_hostState == "error") return QStringLiteral("error");
    if (m_hostState == "loading") return QStringLiteral("loading");
    if (!m_stats.loaded) return QStringLiteral("idle");
    if (m_stats.running > 0 || m_stats.queued > 0 || m_hostState == "generating") return QStringLiteral("running");
    return QStringLiteral("ready");
}

QString ConsoleModel::modelName() const {
    if (m_host && !m_host->modelName().isEmpty()) return m_host->modelName();
    return QString::fromStdString(m_stats.model);
}

QString ConsoleModel::device() const {
    return EngineText::text(m_stats.device_key, QString::fromStdString(m_stats.device));
}

QString ConsoleModel::modelPath() const { return m_host ? m_host->modelPath() : QString(); }

QString ConsoleModel::backend() const {
    if (!m_stats.loaded) return {};
    if (!m_stats.plan.gpu) return QStringLiteral("cpu");
    return QString::fromStdString(m_stats.plan.backend);
}

int ConsoleModel::contextLength() const {
    if (m_stats.plan.n_ctx > 0) return m_stats.plan.n_ctx;
    return m_host ? m_host->contextLength() : 0;
}

QVariantMap ConsoleModel::latest() const {
    QVariantMap out;
    if (m_history.empty()) return out;
    const ConsoleSample& s = m_history.newest();
    for (int i = 0; i < int(Series::count); ++i) out.insert(series_name(Series(i)), double(s.v[i]));
    return out;
}

QVariantList ConsoleModel::presets() const {
    QVariantList out;
    for (const CachePreset& p : cache_presets(m_geom)) {
        out.append(QVariantMap{{"key", QString::fromStdString(p.key)},
                               {"kvTokens", double(p.kv_tokens)},
                               {"expertSlots", p.n_slots},
                               {"bytes", double(cache_bytes(m_geom, p.kv_tokens, p.n_slots))},
                               {"overlap", m_geom.expert_resizable && p.n_slots >= m_geom.overlap_slots},
                               {"predictedTokS", predict_decode_tok_s(m_geom, measured(), p.n_slots)}});
    }
    return out;
}

QString ConsoleModel::presetKey() const {
    for (const CachePreset& p : cache_presets(m_geom))
        if (p.kv_tokens == m_kvTokens && (!m_geom.expert_resizable || p.n_slots == m_slots))
            return QString::fromStdString(p.key);
    return {};
}

void ConsoleModel::setKvTokens(double tokens) {
    if (!m_geom.valid) return;
    const std::int64_t kv = std::clamp(kv_round(m_geom, std::int64_t(std::llround(tokens))), m_geom.kv_min,
                                       m_geom.kv_slider_max);
    const int n_slots = slots_for_kv(m_geom, kv, m_slots);
    if (kv == m_kvTokens && n_slots == m_slots) return;
    m_kvTokens = kv;
    m_slots = n_slots;
    m_userEdited = true;
    emit settingChanged();
}

void ConsoleModel::setExpertSlots(int n_slots) {
    if (!m_geom.valid || !m_geom.expert_resizable) return;
    const int s = std::clamp(n_slots, m_geom.slots_min, m_geom.slots_max);
    const std::int64_t kv = kv_for_slots(m_geom, s, m_kvTokens);
    if (s == m_slots && kv == m_kvTokens) return;
    m_slots = s;
    m_kvTokens = kv;
    m_userEdited = true;
    emit settingChanged();
}

bool ConsoleModel::applyPreset(const QString& key) {
    for (const CachePreset& p : cache_presets(m_geom)) {
        if (QString::fromStdString(p.key) != key) continue;
        m_kvTokens = p.kv_tokens;
        m_slots = p.n_slots;
        m_userEdited = true;
        emit settingChanged();
        return true;
    }
    return false;
}

bool ConsoleModel::apply() {
    if ((!m_host && !m_send) || !m_geom.valid || m_applying) return false;
    if (!settingFits()) {
        // Outside the plan's limits (the KV slider's stretch past the budget): refused here with the numbers, the
        // way the engine refuses what it cannot hold; the engine is not asked and nothing changes.
        if (m_kvTokens > m_geom.kv_max)
            m_rebuildMessage = tr("%1 KV positions are more than the %2 this plan allows.").arg(m_kvTokens).arg(m_geom.kv_max);
        else
            m_rebuildMessage = tr("The KV cache and the expert cache would need %1 MiB; the budget leaves %2 MiB for them.")
                                   .arg(QLocale().toString(settingBytes() / 1048576.0, 'f', 0),
                                        QLocale().toString(double(m_geom.cache_budget) / 1048576.0, 'f', 0));
        m_rebuildStatus = QStringLiteral("rejected");
        revert();
        emit settingChanged();
        emit rebuildChanged();
        return true;
    }
    m_applying = true;
    m_sentKv = m_kvTokens;
    m_sentSlots = m_geom.expert_resizable ? m_slots : -1;
    m_rebuildStatus.clear();
    m_rebuildMessage.clear();
    emit rebuildChanged();
    if (m_host) m_host->rebuildCaches(m_sentKv, m_sentSlots);
    else m_send(m_sentKv, m_sentSlots);
    return true;
}

void ConsoleModel::revert() {
    m_userEdited = false;
    const bool changed = m_kvTokens != m_geom.kv_now || m_slots != m_geom.slots_now;
    m_kvTokens = m_geom.kv_now;
    m_slots = m_geom.slots_now;
    if (changed) emit settingChanged();
}

void ConsoleModel::stopModel() {
    if (m_host) m_host->unload();
}

void ConsoleModel::restartEngine() {
    if (!m_host) return;
    dismissFault();
    m_host->restartEngine();
}

void ConsoleModel::dismissFault() {
    if (m_fault.isEmpty()) return;
    m_fault.clear();
    if (m_host) m_host->clearError();
    emit faultChanged();
}

double ConsoleModel::value(const QString& series, int i) const {
    const int k = series_from_name(series.toLatin1().constData());
    if (k < 0 || i < 0 || i >= m_history.size()) return std::nan("");
    return double(m_history.at(i).v[k]);
}

void ConsoleModel::ingest(const ft::EngineStats& stats, std::int64_t t_ms) {
    QElapsedTimer cost;
    cost.start();
    const bool was_loaded = m_stats.loaded;
    m_stats = stats;
    if (!stats.loaded) m_lastDecoding = ft::EngineStats{};
    else if (stats.decode_tok_s > 0) m_lastDecoding = stats;
    if (!stats.loaded) {
        if (was_loaded) {
            m_history.clear();
            emit historyChanged();
        }
    } else {
        m_history.append(stats, t_ms);
        emit historyChanged();
    }
    updateGeometry();
    emit statsChanged();
    if (m_restorePending && m_geom.valid && m_host && m_host->isReady()) restoreRemembered();
    addPaintNs(cost.nsecsElapsed());
}

ft::EngineStats ConsoleModel::measured() const {
    if (m_stats.decode_tok_s > 0 || m_lastDecoding.decode_tok_s <= 0) return m_stats;
    ft::EngineStats s = m_stats;
    s.decode_tok_s = m_lastDecoding.decode_tok_s;
    s.cache = m_lastDecoding.cache;
    s.cache.bp_gbps = m_stats.cache.bp_gbps > 0 ? m_stats.cache.bp_gbps : s.cache.bp_gbps;
    s.cache.bc_gbps = m_stats.cache.bc_gbps > 0 ? m_stats.cache.bc_gbps : s.cache.bc_gbps;
    return s;
}

void ConsoleModel::updateGeometry() {
    const CacheGeometry g = cache_geometry(m_stats, m_factsExperts);
    const bool geom_changed = g.valid != m_geom.valid || g.kv_min != m_geom.kv_min || g.kv_max != m_geom.kv_max ||
                              g.kv_now != m_geom.kv_now || g.slots_min != m_geom.slots_min ||
                              g.slots_max != m_geom.slots_max || g.slots_now != m_geom.slots_now ||
                              g.cache_budget != m_geom.cache_budget || g.kv_bytes_per_token != m_geom.kv_bytes_per_token ||
                              g.expert_resizable != m_geom.expert_resizable || g.experts_per_layer != m_geom.experts_per_layer;
    m_geom = g;
    if (geom_changed) {
        // An untouched setting follows the plan in force; the user's edit stays until Apply or Revert.
        if (!m_userEdited || !g.valid) {
            m_kvTokens = g.kv_now;
            m_slots = g.slots_now;
        } else {
            m_kvTokens = std::clamp(m_kvTokens, g.kv_min, std::max(g.kv_min, g.kv_slider_max));
            m_slots = g.expert_resizable ? std::clamp(m_slots, g.slots_min, g.slots_max) : g.slots_now;
        }
        emit geometryChanged();
        emit settingChanged();
    } else {
        emit settingChanged();  // the prediction follows the measured speed
    }
}

void ConsoleModel::onStats() {
    if (m_host) ingest(m_host->latestStats(), m_clock.elapsed());
}

void ConsoleModel::onRebuildFinished(bool accepted, const QString& reason) {
    if (!m_applying && m_rebuildStatus != "restoring") return;  // someone else's rebuild (the API server, ft ctl)
    const bool restoring = m_rebuildStatus == "restoring";
    m_applying = false;
    if (m_host) onStats();  // the plan in force now
    m_userEdited = false;
    m_kvTokens = m_geom.kv_now;
    m_slots = m_geom.slots_now;
    if (accepted) {
        ++m_rebuildsAccepted;
        m_rebuildStatus = restoring ? QStringLiteral("restored") : QStringLiteral("accepted");
        m_rebuildMessage.clear();
        remember(m_geom.kv_now, m_geom.slots_now);
    } else {
        m_rebuildStatus = QStringLiteral("rejected");
        m_rebuildMessage = reason;
    }
    emit settingChanged();
    emit rebuildChanged();
}

void ConsoleModel::onFault(const QString& message) {
    if (m_applying) {  // a failed rebuild is its own verdict, shown beside Apply too
        m_applying = false;
        emit rebuildChanged();
    }
    if (m_fault == message) return;
    m_fault = message;
    emit faultChanged();
}

void ConsoleModel::onModelChanged() {
    m_history.clear();
    m_geom = CacheGeometry{};
    m_lastDecoding = ft::EngineStats{};
    m_userEdited = false;
    m_applying = false;
    m_rebuildStatus.clear();
    m_rebuildMessage.clear();
    m_restorePending = !modelPath().isEmpty();
    readFacts(modelPath());
    emit historyChanged();
    emit geometryChanged();
    emit rebuildChanged();
    emit statsChanged();
}

void ConsoleModel::onHostState() {
    const QString s = m_host ? m_host->state() : QString();
    if (s == m_hostState) return;
    m_hostState = s;
    if (s == "loading" && !m_fault.isEmpty()) {  // a new load (or the restart) clears the banner
        m_fault.clear();
        emit faultChanged();
    }
    emit statsChanged();
}

// Architecture, quant and experts per layer come from the file (the engine's inspector, as on the Models page),
// read on a pool thread: a large model's metadata is not read on the GUI thread.
void ConsoleModel::readFacts(const QString& path) {
    const quint64 epoch = ++m_factsEpoch;
    m_architecture.clear();
    m_quant.clear();
    m_factsExperts = 0;
    if (path.isEmpty()) return;
    QPointer<ConsoleModel> self(this);
    QThreadPool::globalInstance()->start([self, epoch, p = path.toStdString()] {
        const ft::ModelFacts f = ft::read_model_facts(std::filesystem::u8path(p));
        const QString arch = QString::fromStdString(f.architecture), quant = QString::fromStdString(f.quant);
        const int experts = int(f.n_expert);
        if (!self) return;
        QMetaObject::invokeMethod(self, [self, epoch, arch, quant, experts] {
            if (!self || epoch != self->m_factsEpoch) return;
            self->m_architecture = arch;
            self->m_quant = quant;
            self->m_factsExperts = experts;
            self->updateGeometry();
            emit self->statsChanged();
        }, Qt::QueuedConnection);
    });
}

QString ConsoleModel::settingsKey() const {
    const QByteArray id = QCryptographicHash::hash(modelPath().toUtf8(), QCryptographicHash::Sha1).toHex().left(16);
    return QStringLiteral("consoleCache/%1/").arg(QString::fromLatin1(id));
}

QVariantMap ConsoleModel::remembered() const {
    if (modelPath().isEmpty()) return {};
    QSettings s = remembered_store();
    const QString k = settingsKey();
    if (!s.contains(k + "kvTokens")) return {};
    return {{"kvTokens", s.value(k + "kvTokens").toDouble()}, {"expertSlots", s.value(k + "expertSlots").toInt()}};
}

void ConsoleModel::remember(std::int64_t kv, int n_slots) {
    if (modelPath().isEmpty()) return;
    QSettings s = remembered_store();
    const QString k = settingsKey();
    s.setValue(k + "model", modelPath());
    s.setValue(k + "kvTokens", qlonglong(kv));
    s.setValue(k + "expertSlots", m_geom.expert_resizable ? n_slots : -1);
    s.sync();
}

void ConsoleModel::restoreRemembered() {
    m_restorePending = false;
    const QVariantMap r = remembered();
    if (r.isEmpty()) return;
    const std::int64_t kv = std::int64_t(r.value("kvTokens").toDouble());
    const int n_slots = r.value("expertSlots").toInt();
    const bool same = kv == m_geom.kv_now && (!m_geom.expert_resizable || n_slots < 0 || n_slots == m_geom.slots_now);
    if (same || !cache_fits(m_geom, kv, m_geom.expert_resizable && n_slots >= 0 ? n_slots : m_geom.slots_now)) return;
    m_rebuildStatus = QStringLiteral("restoring");
    m_sentKv = kv;
    m_sentSlots = m_geom.expert_resizable ? n_slots : -1;
    emit rebuildChanged();
    m_host->rebuildCaches(m_sentKv, m_sentSlots);
}

}  // namespace ft::ui
