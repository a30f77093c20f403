// RemoteStatsModel: the Console's view of the remote model the Chat page uses (ChatSession::remoteUrl). A FreeToken
// server (its /v1/stats answers with the engine's snapshot) is polled twice a second and its figures are exposed as
// `figures` ({decodeTokS, prefillTokS, ttftMs, running, queued, requestsTotal, device, vramUsed, vramTotal,
// h2dGbps, hitRate, kvUsed, kvTotal, nCtx}) and fed as engine snapshots to `console`, a ConsoleModel of its own:
// the same live charts and cache sliders as a local model, the sliders' Apply sent to the server's
// /v1/cache/rebuild with the same key. For any other server `kind` is "other" and the Console shows what the app
// measured itself (ChatSession::lastFigures). The key is read from the server list (and the keychain) here, off the
// window's thread, never from QML; polling starts once it is there.
#pragma once

#include "console_model.h"  // first: it includes ft/engine.h before Qt

#include <QJsonObject>
#include <QObject>
#include <QQmlEngine>
#include <QTimer>
#include <QVariantMap>

#include "remote_client.h"

namespace ft::ui {

class RemoteStatsModel : public QObject {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(QString url READ url WRITE setUrl NOTIFY urlChanged)
    Q_PROPERTY(bool active READ active WRITE setActive NOTIFY activeChanged)  // poll only while shown
    Q_PROPERTY(QString kind READ kind NOTIFY changed)      // "freetoken", "other", "" (not known yet)
    Q_PROPERTY(QVariantMap figures READ figures NOTIFY changed)
    Q_PROPERTY(QString error READ error NOTIFY changed)    // the last poll's failure ("" when it answered)
    Q_PROPERTY(ft::ui::ConsoleModel* console READ console CONSTANT)  // a FreeToken server's snapshots, charted
public:
    explicit RemoteStatsModel(QObject* parent = nullptr);

    QString url() const { return m_url; }
    void setUrl(const QString& url);
    bool active() const { return m_timer.isActive(); }
    void setActive(bool on);
    QString kind() const { return m_kind; }
    QVariantMap figures() const { return m_figures; }
    QString error() const { return m_error; }
    ConsoleModel* console() { return &m_console; }

signals:
    void urlChanged();
    void activeChanged();
    void changed();

private:
    void poll();
    RemoteClient m_client;
    ConsoleModel m_console;
    // A rebuild's verdict waits for the next snapshot (the plan in force) before the console shows it.
    bool m_verdictPending = false, m_verdictAccepted = false;
    QString m_verdictReason;
    QTimer m_timer;
    QString m_url, m_key, m_kind, m_error;
    QVariantMap m_figures;
    bool m_inFlight = false;
    bool m_keyPending = false;  // the server's key is being read (server_list_jobs.h)
};

// ft serve's /v1/stats (serve::stats_to_json) read back into the engine's snapshot: what the charts and the cache
// sliders read. Fields the JSON lacks stay at their defaults; null rates (not finite on the server) read as 0.
ft::EngineStats engine_stats_from_json(const QJsonObject& s);

}  // namespace ft::ui
