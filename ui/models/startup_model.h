// StartupModel: what the window does as it opens. Main.qml calls start() once, after its view models exist:
//  - a model path given on the command line (a double-click on a .gguf file in the file manager or Explorer) is
//    added to the library unless it is there already, then loaded; a refusal shows on the Models page
//    (ModelListModel::lastError) and nothing loads;
//  - else, on a first start (the library is empty and the demo was never offered, AppSettings::demoOffered), the
//    bundled demo model (`demoPath`, found by the executable; empty: none is installed) is added with origin "demo"
//    and loaded, and `welcomeVisible` turns on for the one-screen welcome. Offered once: a user who removes the demo
//    does not get it back;
//  - else the model loaded last (AppSettings::lastModel, recorded at every successful load) is loaded again, if it
//    is still in the library and AppSettings::reloadLastModel is on (the default).
// Main-thread object; `library` and `host` must outlive it (Main.qml owns all three).
#pragma once

#include <QObject>
#include <QQmlEngine>
#include <QString>

#include "engine_host.h"
#include "engine_host_type.h"
#include "model_list_model.h"

namespace ft::ui {

class StartupModel : public QObject {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(ft::ui::ModelListModel* library READ library WRITE setLibrary NOTIFY changed)
    Q_PROPERTY(ft::EngineHost* host READ host WRITE setHost NOTIFY changed)
    Q_PROPERTY(QString openPath READ openPath WRITE setOpenPath NOTIFY changed)
    Q_PROPERTY(QString demoPath READ demoPath WRITE setDemoPath NOTIFY changed)
    Q_PROPERTY(bool welcomeVisible READ welcomeVisible NOTIFY welcomeVisibleChanged)
public:
    explicit StartupModel(QObject* parent = nullptr) : QObject(parent) {}

    ModelListModel* library() const { return m_library; }
    void setLibrary(ModelListModel* library);
    ft::EngineHost* host() const { return m_host; }
    void setHost(ft::EngineHost* host);
    QString openPath() const { return m_openPath; }
    void setOpenPath(const QString& path);
    QString demoPath() const { return m_demoPath; }
    void setDemoPath(const QString& path);
    bool welcomeVisible() const { return m_welcomeVisible; }

    // Runs once (later calls do nothing). Returns what it did: "open", "demo", "reload" or "" (nothing).
    Q_INVOKABLE QString start();
    // Adds `path` to the library unless it is there, then loads it. False (lastError of the library set) when the
    // library refused it.
    Q_INVOKABLE bool openModel(const QString& path);
    Q_INVOKABLE void dismissWelcome();

signals:
    void changed();
    void welcomeVisibleChanged();

private:
    ModelListModel* m_library = nullptr;
    ft::EngineHost* m_host = nullptr;
    QString m_openPath, m_demoPath;
    bool m_started = false;
    bool m_welcomeVisible = false;
};

}  // namespace ft::ui
