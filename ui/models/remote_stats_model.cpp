#include "remote_stats_model.h"

#include <QJsonArray>

#include "ft/error.h"
#include "remote_servers.h"

namespace ft::ui {

RemoteStatsModel::RemoteStatsModel(QObject* parent) : QObject(parent) {
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
    try {
        if (const auto s = RemoteServerFile().find(url.toStdString())) m_key = QString::fromStdString(s->api_key);
    } catch (const ft::Error&) {
    }
    m_kind.clear();
    m_figures.clear();
    m_error.clear();
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
    if (m_url.isEmpty() || m_inFlight || m_kind == QLatin1String("other")) return;
    m_inFlight = true;
    m_client.readStats(m_url, m_key);
}

}  // namespace ft::ui
