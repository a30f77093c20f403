#include "startup_model.h"

#include <QDir>
#include <QFileInfo>

#include "app_settings.h"

namespace ft::ui {

void StartupModel::setLibrary(ModelListModel* library) {
    if (library == m_library) return;
    m_library = library;
    emit changed();
}

void StartupModel::setHost(ft::EngineHost* host) {
    if (host == m_host) return;
    if (m_host) disconnect(m_host, nullptr, this, nullptr);
    m_host = host;
    if (m_host)
        connect(m_host, &ft::EngineHost::loadFinished, this, [this](bool ok) {
            if (ok && m_host) AppSettings().setLastModel(m_host->modelPath());
        });
    emit changed();
}

void StartupModel::setOpenPath(const QString& path) {
    if (path == m_openPath) return;
    m_openPath = path;
    emit changed();
}

void StartupModel::setDemoPath(const QString& path) {
    if (path == m_demoPath) return;
    m_demoPath = path;
    emit changed();
}

QString StartupModel::start() {
    if (m_started || !m_library) return {};
    m_started = true;
    if (!m_openPath.isEmpty()) return openModel(m_openPath) ? QStringLiteral("open") : QString();

    AppSettings settings;
    if (m_demoPath.isEmpty() || !QFileInfo(m_demoPath).isFile() || m_library->rowCount() > 0 || settings.demoOffered()) {
        // Not a first start: the model of the last session, if it is still in the library.
        const QString last = settings.lastModel();
        if (!settings.reloadLastModel() || last.isEmpty() || !m_host || m_library->rowOfPath(last) < 0 ||
            !QFileInfo::exists(last))
            return {};
        m_host->load(last);
        return QStringLiteral("reload");
    }
    settings.setDemoOffered(true);
    if (!m_library->addPath(QDir::cleanPath(QFileInfo(m_demoPath).absoluteFilePath()), QStringLiteral("demo")))
        return {};
    if (m_host) m_host->load(QDir::cleanPath(QFileInfo(m_demoPath).absoluteFilePath()));
    m_welcomeVisible = true;
    emit welcomeVisibleChanged();
    return QStringLiteral("demo");
}

bool StartupModel::openModel(const QString& path) {
    if (!m_library) return false;
    const QFileInfo info(path);
    const QString clean = info.exists() ? QDir::cleanPath(info.absoluteFilePath()) : path;
    if (m_library->rowOfPath(clean) < 0 && !m_library->addPath(clean)) return false;
    if (m_host) m_host->load(clean);
    return true;
}

void StartupModel::dismissWelcome() {
    if (!m_welcomeVisible) return;
    m_welcomeVisible = false;
    emit welcomeVisibleChanged();
}

}  // namespace ft::ui
