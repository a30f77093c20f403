// Loads the real Main.qml exactly as the freetoken executable does (ft::ui::prepare_engine) and drives it like a
// user: items are found by objectName and clicked with synthesized mouse events. Shared by the UI smoke test and
// the screenshot tool.
#pragma once

#include <QImage>
#include <QQmlApplicationEngine>
#include <QQuickItem>
#include <QQuickWindow>
#include <QString>
#include <QStringList>
#include <QVariantMap>

#include <memory>

#include "engine_host.h"

namespace ft {
class LogHub;
}

namespace ft::test {

// Qt's warnings and errors (not debug or info lines, nor the test machine's XDG_RUNTIME_DIR notice) collected while
// installed; the handler installed before still sees every message.
void install_warning_capture();
void remove_warning_capture();
QStringList take_warnings();  // those collected since the last call

class UiHarness {
public:
    // With an EngineHost of its own, as the app has. `startup`: Main.qml's openPath / demoModelPath, as the
    // executable passes them (ft::ui::prepare_engine); empty by default, so no test gets the first-start demo.
    explicit UiHarness(ft::LogHub* hub, const QVariantMap& startup = {});
    ft::EngineHost* host() const { return m_host.get(); }
    bool load();                                   // false if Main.qml failed to load or never got exposed
    QQuickWindow* window() const { return m_window; }
    QObject* root() const { return m_root; }
    QObject* object(const QString& objectName) const;
    QList<QQuickItem*> items(const QString& objectName) const;
    QQuickItem* item(const QString& objectName) const;   // the first *visible* item of that name, else any
    bool click(const QString& objectName);         // a left click in the middle of the item
    // Scrolls the view holding the item so that the item's top is near the view's top (as far as the view goes).
    bool scrollToTop(const QString& objectName);
    bool showPage(const QString& page);             // clicks the sidebar entry "nav_<page>"
    void settle(int ms = 150);                     // lets bindings, layouts, animations and painting finish
    void resize(int w, int h);
    QImage grab();
    // With FT_SCREENSHOT_DIR set (docs/screenshots: scripts/screenshots-states.sh), saves the window there as
    // <name>.png: the states the window tests reach, as pictures. Does nothing otherwise.
    void saveScreenshot(const QString& name);

private:
    ft::LogHub* m_hub;
    QVariantMap m_startup;
    std::unique_ptr<ft::EngineHost> m_host;  // declared before m_engine: outlives the QML
    QQmlApplicationEngine m_engine;
    QQuickWindow* m_window = nullptr;
    QObject* m_root = nullptr;
};

}  // namespace ft::test
