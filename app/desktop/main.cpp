// freetoken: the desktop app. Logging first (file + the Logs page's LogHub, no console), then the QML UI.
#include <QApplication>
#include <QIcon>
#include <QQmlApplicationEngine>
#include <QtQml/qqmlextensionplugin.h>

#include <cstdio>

#include "ft/error.h"
#include "ft/log.h"
#include "ft/version.h"
#include "engine_host.h"
#include "log_hub.h"
#include "system_info.h"
#include "qml_setup.h"

Q_IMPORT_QML_PLUGIN(FreeToken_UiPlugin)

namespace {

// Without a display Qt would abort inside the platform plugin; say what to do instead.
bool display_available() {
#if defined(Q_OS_LINUX) || defined(Q_OS_FREEBSD)
    if (qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) return true;
    return !qEnvironmentVariableIsEmpty("DISPLAY") || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
#else
    return true;
#endif
}

// Qt's own warnings (QML errors included) go to the log like everything else.
void qt_message_to_log(QtMsgType type, const QMessageLogContext& ctx, const QString& msg) {
    const std::string text = ctx.category && std::string(ctx.category) != "default"
        ? std::string(ctx.category) + ": " + msg.toStdString() : msg.toStdString();
    switch (type) {
    case QtDebugMsg: spdlog::debug("{}", text); break;
    case QtInfoMsg: spdlog::info("{}", text); break;
    case QtWarningMsg: spdlog::warn("{}", text); break;
    default: spdlog::error("{}", text); break;
    }
    if (type != QtDebugMsg && type != QtInfoMsg) std::fprintf(stderr, "freetoken: %s\n", text.c_str());
}

}  // namespace

int main(int argc, char** argv) {
    if (!display_available()) {
        std::fprintf(stderr,
                     "freetoken: no display found (DISPLAY and WAYLAND_DISPLAY are not set).\n"
                     "  On a headless machine use the command-line tool: `ft --help`, `ft info`.\n"
                     "  To run the window without a screen (tests, screenshots): QT_QPA_PLATFORM=offscreen freetoken\n");
        return 1;
    }
    QApplication app(argc, argv);
    QApplication::setApplicationName("FreeToken");
    QApplication::setOrganizationName("FreeToken");
    QApplication::setApplicationVersion(QString::fromLatin1(ft::version()));
    QApplication::setWindowIcon(QIcon(":/icons/freetoken.svg"));

    try {
        ft::LogHub hub;
        ft::attach_log_hub(hub, "freetoken");
        qInstallMessageHandler(qt_message_to_log);
        ft::log_system_summary();

        int rc = 1;
        {
            ft::EngineHost host;  // the one engine of the app; outlives the QML that uses it
            QQmlApplicationEngine engine;
            ft::ui::prepare_engine(engine, &hub, &host);
            engine.load(ft::ui::main_qml_url());
            if (engine.rootObjects().isEmpty()) {
                spdlog::critical("the user interface failed to load (see the warnings above)");
                std::fprintf(stderr, "freetoken: the user interface failed to load; see the log for details\n");
            } else {
                rc = app.exec();
            }
        }
        qInstallMessageHandler(nullptr);
        spdlog::info("FreeToken exiting ({})", rc);
        ft::log_shutdown();
        return rc;
    } catch (const ft::Error& e) {
        std::fprintf(stderr, "freetoken: %s\n", e.what());
        if (!e.hint().empty()) std::fprintf(stderr, "  %s\n", e.hint().c_str());
        return 1;
    }
}
