// RemoteStatsModel: the Console's view of the remote model the Chat page uses (ChatSession::remoteUrl). A FreeToken
// server (its /v1/stats answers with the engine's snapshot) is polled twice a second and its figures are exposed as
// `figures` ({decodeTokS, prefillTokS, ttftMs, running, queued, requestsTotal, device, vramUsed, vramTotal,
// h2dGbps, hitRate, kvUsed, kvTotal, nCtx}); for any other server `kind` is "other" and the Console shows what
// the app measured itself (ChatSession::lastFigures). The key is read from servers.json here, never from QML.
#pragma once

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
public:
    explicit RemoteStatsModel(QObject* parent = nullptr);

    QString url() const { return m_url; }
    void setUrl(const QString& url);
    bool active() const { return m_timer.isActive(); }
    void setActive(bool on);
    QString kind() const { return m_kind; }
    QVariantMap figures() const { return m_figures; }
    QString error() const { return m_error; }

signals:
    void urlChanged();
    void activeChanged();
    void changed();

private:
    void poll();
    RemoteClient m_client;
    QTimer m_timer;
    QString m_url, m_key, m_kind, m_error;
    QVariantMap m_figures;
    bool m_inFlight = false;
};

}  // namespace ft::ui
