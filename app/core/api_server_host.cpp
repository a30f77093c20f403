#include "api_server_host.h"

#include <QSettings>
#include <QTcpServer>

#include "api_server.h"
#include "app_settings.h"
#include "engine_host.h"
#include "ft/error.h"

namespace ft {

namespace {

QSettings settings_file() { return QSettings(AppSettings().filePath(), QSettings::IniFormat); }

}  // namespace

ApiServerHost::ApiServerHost(QObject* parent) : QObject(parent) {
    QSettings s = settings_file();
    m_enabled = s.value(QStringLiteral("server/enabled"), false).toBool();
    const int port = s.value(QStringLiteral("server/port"), 1919).toInt();
    m_port = port >= 1 && port <= 65535 ? port : 1919;
}

ApiServerHost::~ApiServerHost() { stopServer(); }

QObject* ApiServerHost::host() const { return m_host.data(); }

void ApiServerHost::setHost(QObject* host) {
    auto* h = qobject_cast<EngineHost*>(host);
    if (h == m_host) return;
    if (m_host) disconnect(m_host, nullptr, this, nullptr);
    stopServer();
    m_host = h;
    if (m_host) connect(m_host, &EngineHost::stateChanged, this, &ApiServerHost::update);
    emit hostChanged();
    update();
}

void ApiServerHost::setEnabled(bool on) {
    if (on == m_enabled) return;
    m_enabled = on;
    QSettings s = settings_file();
    s.setValue(QStringLiteral("server/enabled"), on);
    update();
    emit changed();
}

bool ApiServerHost::setPort(int port) {
    if (port < 1 || port > 65535) return false;
    if (port == m_port) return true;
    m_port = port;
    QSettings s = settings_file();
    s.setValue(QStringLiteral("server/port"), port);
    stopServer();  // restarted on the new port below
    update();
    emit changed();
    return true;
}

QString ApiServerHost::url() const { return QStringLiteral("http://127.0.0.1:%1").arg(m_port); }

void ApiServerHost::stopServer() {
    if (m_server) m_server->stop();
    m_server.reset();
    m_engine.reset();
}

void ApiServerHost::update() {
    const QString before = m_status, beforeMessage = m_message;
    const bool ready = m_host && m_host->isReady();
    if (!m_enabled || !ready) {
        stopServer();
        m_status = m_enabled ? QStringLiteral("waiting") : QStringLiteral("off");
        m_message.clear();
        m_modelId.clear();
    } else if (!m_server) {
        try {
            server::ServerOptions o;
            o.port = m_port;  // loopback only (the ServerOptions default)
            m_engine = m_host->engine();
            auto srv = std::make_unique<server::ApiServer>(*m_engine, o);
            srv->start();
            m_server = std::move(srv);
            m_status = QStringLiteral("running");
            m_message.clear();
            m_modelId = QString::fromStdString(m_host->latestStats().model);
        } catch (const Error& e) {
            m_engine.reset();
            m_status = QStringLiteral("error");
            // Said for the app, in its language: the port is set in Settings (the engine's hint names ft serve's
            // command-line flags).
            QTcpServer probe;
            if (!probe.listen(QHostAddress::LocalHost, quint16(m_port)) && probe.serverError() == QAbstractSocket::AddressInUseError)
                m_message = tr("Port %1 is in use by another program (another FreeToken or ft serve?): choose another port here, or stop that program.").arg(m_port);
            else
                m_message = tr("The server could not start: %1").arg(QString::fromStdString(e.message()));
        }
    }
    if (m_status != before || m_message != beforeMessage) emit changed();
}

}  // namespace ft
