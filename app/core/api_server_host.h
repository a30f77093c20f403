// ApiServerHost: the desktop app's local API server (Settings → Local API server): the same Qt-free
// ft::server::ApiServer as `ft serve`, started in-process over EngineHost's engine. The user's switch and port are
// saved in freetoken.ini (server/enabled, server/port). While switched on, it serves whenever a model is loaded
// (stopped during a load or an unload, started again when the model is ready). Main-thread object.
#pragma once

#include <QObject>
#include <QPointer>
#include <QString>

#include <memory>

namespace ft {

class Engine;
class EngineHost;
namespace server {
class ApiServer;
}

class ApiServerHost : public QObject {
    Q_OBJECT
    Q_PROPERTY(QObject* host READ host WRITE setHost NOTIFY hostChanged)
    Q_PROPERTY(bool enabled READ enabled WRITE setEnabled NOTIFY changed)
    Q_PROPERTY(int port READ port NOTIFY changed)
    Q_PROPERTY(QString status READ status NOTIFY changed)    // "off", "waiting" (no model), "running", "error"
    Q_PROPERTY(QString message READ message NOTIFY changed)  // why it is not running ("error"), translated
    Q_PROPERTY(QString url READ url NOTIFY changed)          // "http://127.0.0.1:1919"
    Q_PROPERTY(QString modelId READ modelId NOTIFY changed)  // the model name clients send
public:
    explicit ApiServerHost(QObject* parent = nullptr);
    ~ApiServerHost() override;  // stops the server

    QObject* host() const;
    void setHost(QObject* host);  // an EngineHost
    bool enabled() const { return m_enabled; }
    void setEnabled(bool on);
    int port() const { return m_port; }
    // 1..65535; false (and nothing changes) otherwise. A running server moves to the new port.
    Q_INVOKABLE bool setPort(int port);
    QString status() const { return m_status; }
    QString message() const { return m_message; }
    QString url() const;
    QString modelId() const { return m_modelId; }

signals:
    void hostChanged();
    void changed();

private:
    void update();  // starts or stops the server to match the switch and the engine's state
    void stopServer();

    QPointer<EngineHost> m_host;
    std::shared_ptr<Engine> m_engine;  // the engine the server runs on, kept alive while it does
    std::unique_ptr<server::ApiServer> m_server;
    bool m_enabled = false;
    int m_port = 1919;
    QString m_status = QStringLiteral("off"), m_message, m_modelId;
};

}  // namespace ft
