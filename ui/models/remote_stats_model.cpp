#include "remote_stats_model.h"

#include <QJsonArray>

#include <algorithm>
#include <limits>

#include "ft/error.h"
#include "remote_servers.h"
#include "server_list_jobs.h"

namespace ft::ui {

namespace {

std::uint64_t u64(const QJsonObject& o, const char* k) { return std::uint64_t(std::max(0.0, o.value(k).toDouble())); }

}  // namespace

ft::EngineStats engine_stats_from_json(const QJsonObject& s) {
    ft::EngineStats st;
    st.loaded = s.value("loaded").toBool();
    st.state = s.value("state").toString().toStdString();
    st.model = s.value("model").toString().toStdString();
    st.device = s.value("device").toString().toStdString();
    st.running = s.value("running").toInt();
    st.queued = s.value("queued").toInt();
    st.decode_tok_s = s.value("decode_tok_s").toDouble();
    st.prefill_tok_s = s.value("prefill_tok_s").toDouble();
    st.last_ttft_ms = s.value("last_ttft_ms").toDouble();
    st.prompt_tokens_total = u64(s, "prompt_tokens_total");
    st.generated_tokens_total = u64(s, "generated_tokens_total");
    st.requests_total = u64(s, "requests_total");
    st.kv_pages_used = std::int64_t(s.value("kv_pages_used").toDouble());
    st.kv_pages_total = std::int64_t(s.value("kv_pages_total").toDouble());
    st.kv_page_size = s.value("kv_page_size").toInt();
    st.kv_pages_cached = std::int64_t(s.value("kv_pages_cached").toDouble());
    st.uptime_s = s.value("uptime_s").toDouble();
    const QJsonObject v = s.value("vram").toObject();
    st.vram.weights = u64(v, "weights");
    st.vram.experts = u64(v, "experts");
    st.vram.kv = u64(v, "kv");
    st.vram.scratch = u64(v, "scratch");
    st.vram.other = u64(v, "other");
    st.vram.free = u64(v, "free");
    st.vram.budget = u64(v, "budget");
    st.vram.device_total = u64(v, "device_total");
    const QJsonObject p = s.value("pcie").toObject();
    st.pcie.h2d_gbps = p.value("h2d_gbps").toDouble();
    st.pcie.d2h_gbps = p.value("d2h_gbps").toDouble();
    st.pcie.fetch_gbps = p.value("fetch_gbps").toDouble();
    st.pcie.prefill_gbps = p.value("prefill_gbps").toDouble();
    const QJsonObject c = s.value("cache").toObject();
    st.cache.active = c.value("active").toBool();
    st.cache.n_slots = c.value("slots").toInt();
    st.cache.n_slots_total = c.value("slots_total").toInt();
    st.cache.hit_rate = c.value("hit_rate").toDouble();
    for (const QJsonValue& l : c.value("layer_hit_rate").toArray())  // null: no call in the server's window
        st.cache.layer_hit_rate.push_back(l.isDouble() ? float(l.toDouble()) : std::numeric_limits<float>::quiet_NaN());
    st.cache.fetched_per_token = c.value("fetched_per_token").toDouble();
    st.cache.cpu_per_token = c.value("cpu_per_token").toDouble();
    st.cache.fraction = c.value("fraction").toDouble();
    st.cache.cpu_expert_gbps = c.value("cpu_expert_gbps").toDouble();
    st.cache.bp_gbps = c.value("bp_gbps").toDouble();
    st.cache.bc_gbps = c.value("bc_gbps").toDouble();
    const QJsonObject pl = s.value("plan").toObject();
    ft::MemoryPlan& m = st.plan;
    m.gpu = pl.value("gpu").toBool();
    m.backend = pl.value("backend").toString().toStdString();
    m.device_total = u64(pl, "device_total");
    m.device_free = u64(pl, "device_free");
    m.budget = u64(pl, "budget");
    m.weights = u64(pl, "weights");
    m.experts = u64(pl, "experts");
    m.kv = u64(pl, "kv");
    m.scratch = u64(pl, "scratch");
    m.cublas = u64(pl, "cublas");
    m.graphs = u64(pl, "graphs");
    m.reserve = u64(pl, "reserve");
    m.expert_slots = pl.value("expert_slots").toInt();
    m.expert_slots_total = pl.value("expert_slots_total").toInt();
    m.expert_slot_bytes = u64(pl, "expert_slot_bytes");
    m.kv_tokens = std::int64_t(pl.value("kv_tokens").toDouble());
    m.kv_bytes_per_token = u64(pl, "kv_bytes_per_token");
    m.kv_page_size = pl.value("kv_page_size").toInt(16);
    m.prefill_chunk = pl.value("prefill_chunk").toInt();
    m.prefill_overlap = pl.value("prefill_overlap").toBool();
    m.n_ctx = pl.value("n_ctx").toInt();
    m.max_sequences = pl.value("max_sequences").toInt();
    m.min_expert_slots = pl.value("min_expert_slots").toInt();
    m.max_expert_slots = pl.value("max_expert_slots").toInt();
    m.min_kv_tokens = std::int64_t(pl.value("min_kv_tokens").toDouble());
    m.max_kv_tokens = std::int64_t(pl.value("max_kv_tokens").toDouble());
    return st;
}

RemoteStatsModel::RemoteStatsModel(QObject* parent) : QObject(parent) {
    m_console.setRebuildTarget([this](std::int64_t kv, int n_slots) { m_client.rebuildCaches(m_url, m_key, kv, n_slots); });
    connect(&m_client, &RemoteClient::cachesRebuilt, this, [this](const QString& url, bool accepted, const QString& reason) {
        if (url != m_url) return;
        m_verdictPending = true;
        m_verdictAccepted = accepted;
        m_verdictReason = reason;
        poll();  // the verdict shows with the plan it left in force
    });
    m_timer.setInterval(500);
    connect(&m_timer, &QTimer::timeout, this, &RemoteStatsModel::poll);
    connect(&m_client, &RemoteClient::statsRead, this, [this](const QString& url, const QJsonObject& s) {
        m_inFlight = false;
        if (url != m_url) return;
        // ft serve's snapshot has "loaded" and "cache"; another server's /v1/stats (if any) is something else.
        if (!s.contains("loaded") || !s.value("cache").isObject()) {
            m_kind = QStringLiteral("other");
            m_figures.clear();
            m_error.clear();
            emit changed();
            return;
        }
        const QJsonObject vram = s.value("vram").toObject(), pcie = s.value("pcie").toObject(),
                          cache = s.value("cache").toObject(), plan = s.value("plan").toObject();
        const double vramUsed = vram.value("weights").toDouble() + vram.value("experts").toDouble() +
                                vram.value("kv").toDouble() + vram.value("scratch").toDouble() +
                                vram.value("other").toDouble();
        m_kind = QStringLiteral("freetoken");
        m_error.clear();
        m_console.ingest(engine_stats_from_json(s), m_console.clockMs());
        if (m_verdictPending) {
            m_verdictPending = false;
            m_console.rebuildFinished(m_verdictAccepted, m_verdictReason);
        }
        m_figures = QVariantMap{
            {"model", s.value("model").toString()},
            {"device", s.value("device").toString()},
            {"state", s.value("state").toString()},
            {"decodeTokS", s.value("decode_tok_s").toDouble()},
            {"prefillTokS", s.value("prefill_tok_s").toDouble()},
            {"ttftMs", s.value("last_ttft_ms").toDouble()},
            {"running", s.value("running").toInt()},
            {"queued", s.value("queued").toInt()},
            {"requestsTotal", s.value("requests_total").toDouble()},
            {"gpu", plan.value("gpu").toBool()},
            {"vramUsed", vramUsed},
            {"vramTotal", vram.value("device_total").toDouble()},
            {"h2dGbps", pcie.value("h2d_gbps").toDouble()},
            {"cacheActive", cache.value("active").toBool()},
            {"hitRate", cache.value("hit_rate").toDouble()},
            {"slots", cache.value("slots").toInt()},
            {"kvUsed", s.value("kv_pages_used").toDouble() * s.value("kv_page_size").toDouble()},
            {"kvTotal", s.value("kv_pages_total").toDouble() * s.value("kv_page_size").toDouble()},
            {"nCtx", plan.value("n_ctx").toInt()},
        };
        emit changed();
    });
    connect(&m_client, &RemoteClient::statsFailed, this, [this](const QString& url, const QString& message, const QString& kind) {
        m_inFlight = false;
        if (url != m_url) return;
        // No /v1/stats (404): not a FreeToken server. Anything else: it did not answer this time.
        if (kind == QLatin1String("not-openai")) {
            m_kind = QStringLiteral("other");
            m_error.clear();
        } else {
            m_error = message;
        }
        emit changed();
    });
}

void RemoteStatsModel::setUrl(const QString& url) {
    if (m_url == url) return;
    m_url = url;
    m_key.clear();
    // The key comes from the list off this thread (the keychain may take its time); polls wait for it.
    m_keyPending = !url.isEmpty();
    if (m_keyPending)
        server_list_find(this, url, [this, url](ServerListRead read) {
            if (url != m_url) return;  // another server was chosen meanwhile
            m_keyPending = false;
            if (!read.servers.empty()) m_key = QString::fromStdString(read.servers.front().api_key);
            if (active()) poll();
        });
    m_kind.clear();
    m_figures.clear();
    m_error.clear();
    m_verdictPending = false;
    m_console.ingest(ft::EngineStats{}, m_console.clockMs());  // another server: its charts start empty
    emit urlChanged();
    emit changed();
    if (active()) poll();
}

void RemoteStatsModel::setActive(bool on) {
    if (on == active()) return;
    if (on && !m_url.isEmpty()) {
        m_timer.start();
        poll();
    } else {
        m_timer.stop();
    }
    if (on && m_url.isEmpty()) m_timer.start();
    emit activeChanged();
}

void RemoteStatsModel::poll() {
    if (m_url.isEmpty() || m_keyPending || m_inFlight || m_kind == QLatin1String("other")) return;
    m_inFlight = true;
    m_client.readStats(m_url, m_key);
}

}  // namespace ft::ui
