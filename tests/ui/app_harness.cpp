#include "app_harness.h"

#include <QMutex>
#include <QTest>
#include <QtQml/qqmlextensionplugin.h>

#include <algorithm>
#include <utility>

#include "qml_setup.h"

Q_IMPORT_QML_PLUGIN(FreeToken_UiPlugin)

namespace ft::test {

namespace {
QMutex g_warning_mutex;
QStringList g_warnings;
QtMessageHandler g_previous_handler = nullptr;

void capture_warning(QtMsgType type, const QMessageLogContext& ctx, const QString& msg) {
    if (type != QtDebugMsg && type != QtInfoMsg && !msg.contains("XDG_RUNTIME_DIR")) {
        QMutexLocker lock(&g_warning_mutex);
        g_warnings << msg;
    }
    if (g_previous_handler) g_previous_handler(type, ctx, msg);
}
}  // namespace

void install_warning_capture() { g_previous_handler = qInstallMessageHandler(capture_warning); }

void remove_warning_capture() { qInstallMessageHandler(g_previous_handler); }

QStringList take_warnings() {
    QMutexLocker lock(&g_warning_mutex);
    return std::exchange(g_warnings, {});
}

UiHarness::UiHarness(ft::LogHub* hub, const QVariantMap& startup)
    : m_hub(hub), m_startup(startup), m_host(std::make_unique<ft::EngineHost>()) {}

bool UiHarness::load() {
    ft::ui::prepare_engine(m_engine, m_hub, m_host.get(), m_startup);
    m_engine.load(ft::ui::main_qml_url());
    if (m_engine.rootObjects().isEmpty()) return false;
    m_root = m_engine.rootObjects().first();
    m_window = qobject_cast<QQuickWindow*>(m_root);
    if (!m_window) return false;
    m_window->show();
    if (!QTest::qWaitForWindowExposed(m_window)) return false;
    // Under a real X server (Xvfb) keys go to the active window only: make it so, as a user's click would.
    m_window->requestActivate();
    QTest::qWaitForWindowActive(m_window, 2000);
    settle();
    return true;
}

QObject* UiHarness::object(const QString& objectName) const {
    return m_root ? m_root->findChild<QObject*>(objectName) : nullptr;
}

namespace {
// Walks the visual tree (Repeater delegates are visual children, not always QObject children).
void collect(QQuickItem* item, const QString& name, QList<QQuickItem*>& out) {
    if (item->objectName() == name) out.append(item);
    for (QQuickItem* child : item->childItems()) collect(child, name, out);
}
}  // namespace

QList<QQuickItem*> UiHarness::items(const QString& objectName) const {
    QList<QQuickItem*> out;
    if (m_window) collect(m_window->contentItem(), objectName, out);
    return out;
}

QQuickItem* UiHarness::item(const QString& objectName) const {
    const QList<QQuickItem*> all = items(objectName);
    for (QQuickItem* i : all)
        if (i->isVisible()) return i;
    return all.isEmpty() ? nullptr : all.first();
}

bool UiHarness::click(const QString& objectName) {
    QQuickItem* target = item(objectName);
    if (!target || !target->isVisible() || !target->isEnabled()) return false;
    const QPointF center = target->mapToScene(QPointF(target->width() / 2, target->height() / 2));
    QTest::mouseClick(m_window, Qt::LeftButton, Qt::NoModifier, center.toPoint());
    settle(50);
    return true;
}

bool UiHarness::scrollToTop(const QString& objectName) {
    QQuickItem* target = item(objectName);
    if (!target) return false;
    QQuickItem* flick = target->parentItem();
    while (flick && !flick->property("contentY").isValid()) flick = flick->parentItem();
    if (!flick) return false;
    const double top = target->mapToItem(flick->property("contentItem").value<QQuickItem*>(), QPointF(0, 0)).y() - 16;
    const double most = flick->property("contentHeight").toDouble() - flick->height();
    flick->setProperty("contentY", std::max(0.0, std::min(top, most)));
    settle();
    return true;
}

bool UiHarness::showPage(const QString& page) {
    if (!click("nav_" + page)) return false;
    settle();
    return m_root->property("currentPage").toString() == page;
}

void UiHarness::settle(int ms) {
    QTest::qWait(ms);
    if (m_window) m_window->requestUpdate();
    QTest::qWait(20);
}

void UiHarness::resize(int w, int h) {
    if (m_window->size() == QSize(w, h)) return;  // keep the first layout pass, as a user's first start sees it
    m_window->resize(w, h);
    settle(200);
}

QImage UiHarness::grab() { return m_window ? m_window->grabWindow() : QImage(); }

void UiHarness::saveScreenshot(const QString& name) {
    const QString dir = qEnvironmentVariable("FT_SCREENSHOT_DIR");
    if (dir.isEmpty() || !m_window) return;
    settle(300);
    const QImage image = grab();
    if (image.isNull() || !image.save(dir + "/" + name + ".png")) qWarning("cannot save the screenshot %s", qPrintable(name));
}

}  // namespace ft::test
