// ConsoleModel: the Console page's view model. Fed by EngineHost (statsUpdated at 8 Hz → latestStats()), it keeps
// the history the charts draw (ConsoleHistory, 15 min), the model card's figures, the cache-config sliders and
// presets (console_cache.h, computed from the plan in the stats), the Apply → EngineHost::rebuildCaches round trip
// with its verdict, the last applied setting per model (QSettings in the app's settings file, restored after the
// model loads), and engine faults with the Restart action. Main-thread object; every property has a NOTIFY.
#pragma once

// ft/engine.h before any Qt header: its ExpertCacheStats has a field named `slots`, which is a Qt keyword macro.
#include "ft/engine.h"

#include <QElapsedTimer>
#include <QObject>

#include <functional>
#include <QPointer>
#include <QQmlEngine>
#include <QVariantList>
#include <QVariantMap>

#include "console_cache.h"
#include "console_history.h"

namespace ft {
class EngineHost;
}

namespace ft::ui {

class ConsoleModel : public QObject {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(QObject* host READ host WRITE setHost NOTIFY hostChanged)
    Q_PROPERTY(int windowMinutes READ windowMinutes WRITE setWindowMinutes NOTIFY windowChanged)
    Q_PROPERTY(int samples READ samples NOTIFY historyChanged)
    Q_PROPERTY(int windowSamples READ windowSamples NOTIFY historyChanged)
    Q_PROPERTY(int layerCount READ layerCount NOTIFY historyChanged)
    // Model card
    Q_PROPERTY(bool loaded READ loaded NOTIFY statsChanged)
    Q_PROPERTY(QString engineState READ engineState NOTIFY statsChanged)  // "idle", "loading", "running", "ready", "error"
    Q_PROPERTY(QString modelName READ modelName NOTIFY statsChanged)
    Q_PROPERTY(QString device READ device NOTIFY statsChanged)
    Q_PROPERTY(QString architecture READ architecture NOTIFY statsChanged)  // from the model file (app ModelFacts)
    Q_PROPERTY(QString quant READ quant NOTIFY statsChanged)
    Q_PROPERTY(QString backend READ backend NOTIFY statsChanged)
    Q_PROPERTY(bool gpu READ gpu NOTIFY statsChanged)
    Q_PROPERTY(int contextLength READ contextLength NOTIFY statsChanged)
    Q_PROPERTY(int moeLayers READ moeLayers NOTIFY statsChanged)
    Q_PROPERTY(int expertsPerLayer READ expertsPerLayer NOTIFY statsChanged)
    Q_PROPERTY(double uptimeSeconds READ uptimeSeconds NOTIFY statsChanged)
    Q_PROPERTY(double requestsTotal READ requestsTotal NOTIFY statsChanged)
    Q_PROPERTY(int running READ running NOTIFY statsChanged)
    Q_PROPERTY(double decodeTokS READ decodeTokS NOTIFY statsChanged)
    Q_PROPERTY(double prefillTokS READ prefillTokS NOTIFY statsChanged)
    Q_PROPERTY(double ttftMs READ ttftMs NOTIFY statsChanged)
    Q_PROPERTY(QVariantMap latest READ latest NOTIFY statsChanged)  // newest sample by series name (NaN: none)
    Q_PROPERTY(bool cacheActive READ cacheActive NOTIFY statsChanged)
    Q_PROPERTY(double bpGbps READ bpGbps NOTIFY statsChanged)
    Q_PROPERTY(double bcGbps READ bcGbps NOTIFY statsChanged)
    Q_PROPERTY(double fraction READ fraction NOTIFY statsChanged)
    Q_PROPERTY(double vramBudget READ vramBudget NOTIFY statsChanged)
    // Cache config (limits from the plan; kvTokens / expertSlots are the setting being edited)
    Q_PROPERTY(bool cacheConfigAvailable READ cacheConfigAvailable NOTIFY geometryChanged)
    Q_PROPERTY(bool expertResizable READ expertResizable NOTIFY geometryChanged)
    Q_PROPERTY(double kvMin READ kvMin NOTIFY geometryChanged)
    Q_PROPERTY(double kvMax READ kvMax NOTIFY geometryChanged)
    Q_PROPERTY(double kvSliderMax READ kvSliderMax NOTIFY geometryChanged)
    Q_PROPERTY(double kvNow READ kvNow NOTIFY geometryChanged)
    Q_PROPERTY(double kvBytesPerToken READ kvBytesPerToken NOTIFY geometryChanged)
    Q_PROPERTY(int kvPage READ kvPage NOTIFY geometryChanged)
    Q_PROPERTY(int slotsMin READ slotsMin NOTIFY geometryChanged)
    Q_PROPERTY(int slotsMax READ slotsMax NOTIFY geometryChanged)
    Q_PROPERTY(int slotsNow READ slotsNow NOTIFY geometryChanged)
    Q_PROPERTY(int slotsTotal READ slotsTotal NOTIFY geometryChanged)
    Q_PROPERTY(int overlapSlots READ overlapSlots NOTIFY geometryChanged)
    Q_PROPERTY(double slotBytes READ slotBytes NOTIFY geometryChanged)
    Q_PROPERTY(double cacheBudget READ cacheBudget NOTIFY geometryChanged)
    Q_PROPERTY(QVariantList presets READ presets NOTIFY geometryChanged)
    Q_PROPERTY(double kvTokens READ kvTokens WRITE setKvTokens NOTIFY settingChanged)
    Q_PROPERTY(int expertSlots READ expertSlots WRITE setExpertSlots NOTIFY settingChanged)
    Q_PROPERTY(double settingBytes READ settingBytes NOTIFY settingChanged)
    Q_PROPERTY(bool settingFits READ settingFits NOTIFY settingChanged)
    Q_PROPERTY(bool settingDirty READ settingDirty NOTIFY settingChanged)
    Q_PROPERTY(QString presetKey READ presetKey NOTIFY settingChanged)  // the preset the setting equals ("" if none)
    Q_PROPERTY(double predictedTokS READ predictedTokS NOTIFY settingChanged)
    // Apply
    Q_PROPERTY(bool applying READ applying NOTIFY rebuildChanged)
    Q_PROPERTY(QString rebuildStatus READ rebuildStatus NOTIFY rebuildChanged)  // "", "accepted", "rejected", "restored"
    Q_PROPERTY(QString rebuildMessage READ rebuildMessage NOTIFY rebuildChanged)
    Q_PROPERTY(int rebuildsAccepted READ rebuildsAccepted NOTIFY rebuildChanged)
    Q_PROPERTY(QVariantMap remembered READ remembered NOTIFY rebuildChanged)  // {kvTokens, expertSlots} or empty
    // Faults
    Q_PROPERTY(QString fault READ fault NOTIFY faultChanged)

public:
    explicit ConsoleModel(QObject* parent = nullptr);
    ~ConsoleModel() override;

    QObject* host() const;
    void setHost(QObject* host);

    int windowMinutes() const { return m_windowMinutes; }
    void setWindowMinutes(int minutes);  // 1, 5 or 15; others are refused
    std::int64_t windowMs() const { return std::int64_t(m_windowMinutes) * 60 * 1000; }
    int samples() const { return m_history.size(); }
    int windowSamples() const { return m_history.count_in_window(windowMs()); }
    int layerCount() const { return m_history.max_layers(); }
    const ConsoleHistory& history() const { return m_history; }

    bool loaded() const { return m_stats.loaded; }
    QString engineState() const;
    QString modelName() const;
    QString device() const;  // in the app's language where the engine gives a key ("CPU (2 threads)")
    QString backend() const;
    QString architecture() const { return m_architecture; }
    QString quant() const { return m_quant; }
    bool gpu() const { return m_stats.plan.gpu; }
    int contextLength() const;
    int moeLayers() const { return int(m_stats.cache.layer_hit_rate.size()); }
    int expertsPerLayer() const { return m_geom.experts_per_layer; }
    double uptimeSeconds() const { return m_stats.uptime_s; }
    double requestsTotal() const { return double(m_stats.requests_total); }
    int running() const { return m_stats.running; }
    double decodeTokS() const { return m_stats.decode_tok_s; }
    double prefillTokS() const { return m_stats.prefill_tok_s; }
    double ttftMs() const { return m_stats.last_ttft_ms; }
    QVariantMap latest() const;
    bool cacheActive() const { return m_stats.cache.active; }
    double bpGbps() const { return m_stats.cache.bp_gbps; }
    double bcGbps() const { return m_stats.cache.bc_gbps; }
    double fraction() const { return m_stats.cache.fraction; }
    double vramBudget() const { return double(m_stats.vram.budget ? m_stats.vram.budget : m_stats.plan.budget); }

    bool cacheConfigAvailable() const { return m_geom.valid; }
    bool expertResizable() const { return m_geom.expert_resizable; }
    double kvMin() const { return double(m_geom.kv_min); }
    double kvMax() const { return double(m_geom.kv_max); }
    double kvSliderMax() const { return double(m_geom.kv_slider_max); }
    double kvNow() const { return double(m_geom.kv_now); }
    double kvBytesPerToken() const { return double(m_geom.kv_bytes_per_token); }
    int kvPage() const { return m_geom.kv_page; }
    int slotsMin() const { return m_geom.slots_min; }
    int slotsMax() const { return m_geom.slots_max; }
    int slotsNow() const { return m_geom.slots_now; }
    int slotsTotal() const { return m_geom.slots_total; }
    int overlapSlots() const { return m_geom.overlap_slots; }
    double slotBytes() const { return double(m_geom.slot_bytes); }
    double cacheBudget() const { return double(m_geom.cache_budget); }
    QVariantList presets() const;
    const CacheGeometry& geometry() const { return m_geom; }

    double kvTokens() const { return double(m_kvTokens); }
    // Moving one slider moves the other as far as needed to stay inside the budget (console_cache.h). The KV
    // slider may go past the budget (to kvSliderMax): Apply then sends it and the engine's refusal is shown.
    void setKvTokens(double tokens);
    int expertSlots() const { return m_slots; }
    void setExpertSlots(int n_slots);
    double settingBytes() const { return double(cache_bytes(m_geom, m_kvTokens, m_slots)); }
    bool settingFits() const { return cache_fits(m_geom, m_kvTokens, m_slots); }
    bool settingDirty() const { return m_kvTokens != m_geom.kv_now || (m_geom.expert_resizable && m_slots != m_geom.slots_now); }
    QString presetKey() const;
    // From the last measured decode speed (the engine reports 0 while idle).
    double predictedTokS() const { return predict_decode_tok_s(m_geom, measured(), m_slots); }

    bool applying() const { return m_applying; }
    QString rebuildStatus() const { return m_rebuildStatus; }
    QString rebuildMessage() const { return m_rebuildMessage; }
    int rebuildsAccepted() const { return m_rebuildsAccepted; }
    QVariantMap remembered() const;

    QString fault() const { return m_fault; }

    Q_INVOKABLE bool applyPreset(const QString& key);
    // Sends the setting to EngineHost::rebuildCaches (the expert size only where it can change). False when there
    // is no host, no model or a rebuild is already under way.
    Q_INVOKABLE bool apply();
    Q_INVOKABLE void revert();  // the setting back to the plan in force
    Q_INVOKABLE void stopModel();
    Q_INVOKABLE void restartEngine();
    Q_INVOKABLE void dismissFault();
    // Series value of sample i of the history (for tests and the charts' hover).
    Q_INVOKABLE double value(const QString& series, int i) const;
    // The page's clock (ConsolePage calls it at each hardware poll, once a second): a chart whose new samples only
    // extend what it shows (the same values as the sample before) repaints at this tick, in the frame that the
    // second's other figures draw anyway, instead of at its own pace. Without it such a chart waits for a value
    // that changes.
    Q_INVOKABLE void tick() { emit ticked(); }

    std::int64_t clockMs() const { return m_clock.elapsed(); }  // the time base of the host's samples
    // One stats snapshot at monotonic time t_ms (what the host's statsUpdated does, with the host's snapshot).
    void ingest(const ft::EngineStats& stats, std::int64_t t_ms);
    // Without a host (a remote FreeToken server's figures, fed through ingest()): where Apply sends the rebuild
    // (kv tokens, expert slots or -1), and its verdict back — call rebuildFinished() once the snapshots show the
    // plan in force.
    void setRebuildTarget(std::function<void(std::int64_t, int)> send) { m_send = std::move(send); }
    void rebuildFinished(bool accepted, const QString& reason) { onRebuildFinished(accepted, reason); }
    // Time spent in ingest() and in the charts' paint() since the last reset (the < 5 % of a core budget).
    static void addPaintNs(std::int64_t ns);
    static std::int64_t costNs();
    static void resetCost();

signals:
    void hostChanged();
    void windowChanged();
    void historyChanged();
    void statsChanged();
    void geometryChanged();
    void settingChanged();
    void rebuildChanged();
    void faultChanged();
    void ticked();

private:
    void onStats();
    void onRebuildFinished(bool accepted, const QString& reason);
    void onFault(const QString& message);
    void onModelChanged();
    void onHostState();
    void restoreRemembered();
    void readFacts(const QString& path);
    void updateGeometry();
    ft::EngineStats measured() const;
    void remember(std::int64_t kv, int n_slots);
    QString settingsKey() const;
    QString modelPath() const;

    QPointer<ft::EngineHost> m_host;
    QElapsedTimer m_clock;
    ConsoleHistory m_history;
    ft::EngineStats m_stats;
    CacheGeometry m_geom;
    int m_windowMinutes = 5;
    std::int64_t m_kvTokens = 0;
    int m_slots = 0;
    bool m_userEdited = false;
    bool m_applying = false;
    std::function<void(std::int64_t, int)> m_send;
    bool m_restorePending = false;
    std::int64_t m_sentKv = -1;
    int m_sentSlots = -1;
    int m_rebuildsAccepted = 0;
    QString m_rebuildStatus, m_rebuildMessage;
    QString m_fault;
    QString m_hostState;
    ft::EngineStats m_lastDecoding;  // the newest snapshot taken while decoding (decode_tok_s > 0)
    QString m_architecture, m_quant;
    int m_factsExperts = 0;  // routed experts per MoE layer, from the file
    quint64 m_factsEpoch = 0;
};

}  // namespace ft::ui
