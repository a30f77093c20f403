// freetoken: the desktop app. Logging first (file + the Logs page's LogHub, no console), then the QML UI.
//   freetoken [MODEL]          MODEL (a .gguf file or a model folder) is added to the library and loaded: what a
//                              double-click on a .gguf file runs (the desktop entry's %f, the Windows association)
//   freetoken --smoke [MODEL]  checks the installed app and exits (app/desktop/smoke.h)
// One app per user: a second start hands MODEL to the running app and exits (app/desktop/single_instance.h).
#include <QApplication>
#include <QFileInfo>
#include <QIcon>
#include <QQmlApplicationEngine>
#include <QSocketNotifier>
#include <QTemporaryDir>
#include <QUrl>
#include <QWindow>
#include <QtQml/qqmlextensionplugin.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>

#ifdef _WIN32
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#else
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#endif

#include "ft/error.h"
#include "ft/log.h"
#include "ft/paths.h"
#include "ft/utf8.h"
#include "ft/version.h"
#include "app_settings.h"
#include "engine_host.h"
#include "graphics_api.h"
#include "log_hub.h"
#include "system_info.h"
#include "qml_setup.h"
#include "single_instance.h"
#include "smoke.h"

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

std::atomic<int> g_qml_warnings{0};  // for --smoke: a QML warning means a missing module or a broken page

#ifndef _WIN32
// SIGTERM (a logout, `kill`, a service manager), SIGINT (Ctrl+C in a terminal) and SIGHUP end the app through its
// normal exit: the reply streaming is saved as partial, the engine stops, the log says why and is flushed. The
// handler only writes the signal's number to a pipe; the event loop reads it and quits.
int g_signal_pipe[2] = {-1, -1};

void on_exit_signal(int sig) {
    const unsigned char b = static_cast<unsigned char>(sig);
    [[maybe_unused]] const ssize_t n = ::write(g_signal_pipe[1], &b, 1);
}

void quit_on_exit_signals(QObject* owner) {
    if (::pipe(g_signal_pipe) != 0) return;
    ::fcntl(g_signal_pipe[0], F_SETFD, FD_CLOEXEC);
    ::fcntl(g_signal_pipe[1], F_SETFD, FD_CLOEXEC);
    auto* notifier = new QSocketNotifier(g_signal_pipe[0], QSocketNotifier::Read, owner);
    QObject::connect(notifier, &QSocketNotifier::activated, owner, [] {
        unsigned char b = 0;
        if (::read(g_signal_pipe[0], &b, 1) != 1) return;
        spdlog::info("received {}: quitting", b == SIGTERM ? "SIGTERM" : b == SIGINT ? "SIGINT" : "SIGHUP");
        QCoreApplication::quit();
    });
    struct sigaction sa {};
    sa.sa_handler = on_exit_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    for (const int sig : {SIGTERM, SIGINT, SIGHUP}) ::sigaction(sig, &sa, nullptr);
}
#endif

// The demo model that comes with FreeToken (ft::find_bundled_model: share/freetoken/models beside bin/ — the .deb, the
// portable bundle and the Windows installer all use that layout — else the source tree's resources/models). Empty
// when none is installed.
QString find_demo_model() {
#ifdef FT_RESOURCES_DIR
    const std::filesystem::path p = ft::find_bundled_model(FT_RESOURCES_DIR);
#else
    const std::filesystem::path p = ft::find_bundled_model();
#endif
    return p.empty() ? QString() : QString::fromStdString(ft::path_to_utf8(p));
}

#ifdef _WIN32
// freetoken.exe is a GUI program without a console of its own: print --help, --version and --smoke to the console
// it was started from, unless its output is redirected (CI, a file). Not compiled on Linux CI (no Qt for MinGW).
void attach_parent_console() {
    const HANDLE out = ::GetStdHandle(STD_OUTPUT_HANDLE);
    if (out != nullptr && out != INVALID_HANDLE_VALUE && ::GetFileType(out) != FILE_TYPE_UNKNOWN) return;
    if (!::AttachConsole(ATTACH_PARENT_PROCESS)) return;
    FILE* f = nullptr;
    freopen_s(&f, "CONOUT$", "w", stdout);
    freopen_s(&f, "CONOUT$", "w", stderr);
}
#endif

void print_usage() {
    std::printf("usage: freetoken [MODEL]            open MODEL (a .gguf file or a model folder): add it to the library and load it\n"
                "       freetoken --smoke [MODEL]    check this installation: open the window, load MODEL (default: the\n"
                "                                    bundled demo model), generate a few tokens, exit 0 (1 with the reason)\n"
                "       freetoken --version | --help\n");
}

// The whole app; main() below ends the process with its result.
int run(int argc, char** argv) {
    bool smoke = false;
    QString model_arg;
#ifdef _WIN32
    for (int i = 1; i < argc; ++i)
        if (argv[i][0] == '-') attach_parent_console();
#endif
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        if (std::strcmp(a, "--help") == 0 || std::strcmp(a, "-h") == 0) {
            print_usage();
            return 0;
        }
        if (std::strcmp(a, "--version") == 0) {
            std::printf("freetoken %s\n", ft::version());
            return 0;
        }
        if (std::strcmp(a, "--smoke") == 0) {
            smoke = true;
        } else if (a[0] == '-' && a[1] == '-') {
            std::fprintf(stderr, "freetoken: unknown option %s (see freetoken --help)\n", a);
            return 2;
        }
        // Qt's own options (-platform, -style…) are left to QApplication; the model path is read from
        // QCoreApplication::arguments() below (on Windows the only form that keeps non-ASCII paths intact).
    }
    // --smoke leaves nothing behind: a temporary data folder unless FT_DATA_DIR names one.
    std::unique_ptr<QTemporaryDir> smoke_data;
    if (smoke && qEnvironmentVariableIsEmpty("FT_DATA_DIR")) {
        smoke_data = std::make_unique<QTemporaryDir>();
        if (!smoke_data->isValid()) {
            std::fprintf(stderr, "freetoken --smoke: FAILED: cannot create a temporary data folder\n");
            return 1;
        }
#ifdef _WIN32
        // Wide: the ANSI code page cannot hold every user name (C:/Users/홍길동/…), and the engine reads it wide.
        _wputenv_s(L"FT_DATA_DIR", reinterpret_cast<const wchar_t*>(smoke_data->path().utf16()));
#else
        qputenv("FT_DATA_DIR", smoke_data->path().toLocal8Bit());
#endif
    }
    if (!display_available()) {
        std::fprintf(stderr,
                     "freetoken: no display found (DISPLAY and WAYLAND_DISPLAY are not set).\n"
                     "  On a headless machine use the command-line tool: `ft --help`, `ft info`.\n"
                     "  To run the window without a screen (tests, screenshots): QT_QPA_PLATFORM=offscreen freetoken\n");
        return 1;
    }
    // --smoke checks the file dialog of Qt Quick Dialogs that the installation deploys (its QML modules), not the
    // system's: Windows' own dialog under Wine never ends its thread, and the process then hangs at exit.
    if (smoke) QCoreApplication::setAttribute(Qt::AA_DontUseNativeDialogs);
    QApplication app(argc, argv);
    QApplication::setApplicationName("FreeToken");
    QApplication::setOrganizationName("FreeToken");
    QApplication::setApplicationVersion(QString::fromLatin1(ft::version()));
    QApplication::setWindowIcon(QIcon(":/icons/freetoken.svg"));
    QGuiApplication::setDesktopFileName(QStringLiteral("freetoken"));  // Wayland app id = freetoken.desktop
    // QApplication has taken its own options out: what is left that is not --smoke names the model.
    for (const QString& a : QCoreApplication::arguments().mid(1)) {
        if (a.startsWith(QLatin1Char('-')) || !model_arg.isEmpty()) continue;
        model_arg = a.startsWith(QLatin1String("file://")) ? QUrl(a).toLocalFile() : a;
    }

    // A second start: the running app opens the model (its working folder may differ: the path goes absolute).
    ft::app::SingleInstance instance;
    if (!smoke) {
        const QString path = model_arg.isEmpty() ? QString() : QFileInfo(model_arg).absoluteFilePath();
        constexpr int kAnswerSeconds = 10;  // a busy app answers within milliseconds (its event loop does it)
        switch (instance.handOver(path, kAnswerSeconds * 1000)) {
        case ft::app::SingleInstance::HandOver::Handed:
            std::printf("freetoken: FreeToken is already running; %s\n",
                        path.isEmpty() ? "its window was brought to the front"
                                       : qUtf8Printable(QStringLiteral("it opens %1").arg(path)));
            return 0;
        case ft::app::SingleInstance::HandOver::NoAnswer: {
            // In the user's language, in a box: started by a double-click there is no console to print to.
            const ft::AppSettings settings;
            ft::ui::install_language(settings.language());
            ft::app::SingleInstance::reportNoAnswer(kAnswerSeconds, path);
            return 1;
        }
        case ft::app::SingleInstance::HandOver::NoneRunning:
            break;
        }
    }

    try {
        ft::LogHub hub;
        ft::attach_log_hub(hub, "freetoken");
        ft::install_qt_log_handler(&g_qml_warnings);
        ft::log_system_summary();
        const ft::app::GraphicsChoice graphics = ft::app::choose_graphics_api();
        if (graphics.reason.isEmpty()) spdlog::info("graphics: {}", graphics.api.toStdString());
        else spdlog::info("graphics: {} ({})", graphics.api.toStdString(), graphics.reason.toStdString());
        if (smoke) std::printf("freetoken --smoke: graphics: %s\n", qUtf8Printable(graphics.api));
#ifndef _WIN32
        quit_on_exit_signals(&app);
#endif

        int rc = 1;
        {
            ft::EngineHost host;  // the one engine of the app; outlives the QML that uses it
            QQmlApplicationEngine engine;
            const QString demo = find_demo_model();
            QVariantMap startup{{"demoModelPath", smoke && !model_arg.isEmpty() ? model_arg : demo}};
            if (!smoke && !model_arg.isEmpty()) startup.insert("openPath", model_arg);
            ft::ui::prepare_engine(engine, &hub, &host, startup);
            engine.load(ft::ui::main_qml_url());
            if (engine.rootObjects().isEmpty()) {
                spdlog::critical("the user interface failed to load (see the warnings above)");
                std::fprintf(stderr, "freetoken: the user interface failed to load; see the log for details\n");
            } else if (smoke) {
                rc = ft::app::run_smoke(engine.rootObjects().first(), host, model_arg.isEmpty() ? demo : model_arg,
                                        g_qml_warnings);
            } else {
                QObject* root = engine.rootObjects().first();
                QString error;
                if (instance.listen(error))
                    spdlog::info("listening for a second start on {}", instance.name().toStdString());
                else  // the app works without it; a second start then opens a second window
                    spdlog::warn("a second start cannot reach this app ({}): {}", instance.name().toStdString(),
                                 error.toStdString());
                QObject::connect(&instance, &ft::app::SingleInstance::openRequested, root, [root](const QString& path) {
                    spdlog::info("a second start: {}", path.isEmpty() ? std::string("show the window") : "open " + path.toStdString());
                    if (!path.isEmpty()) {
                        if (QObject* startup = root->findChild<QObject*>(QStringLiteral("startupModel"))) {
                            bool ok = false;  // a refusal shows on the Models page (the library's lastError)
                            QMetaObject::invokeMethod(startup, "openModel", Q_RETURN_ARG(bool, ok), Q_ARG(QString, path));
                        }
                        QMetaObject::invokeMethod(root, "showPage", Q_ARG(QVariant, QVariant(QStringLiteral("models"))));
                    }
                    if (auto* window = qobject_cast<QWindow*>(root)) {
                        if (window->windowStates() & Qt::WindowMinimized) window->showNormal();
                        window->raise();
                        window->requestActivate();
                    }
                });
                rc = app.exec();
            }
        }
        ft::remove_qt_log_handler();
        spdlog::info("FreeToken exiting ({})", rc);
        ft::log_shutdown();
        return rc;
    } catch (const ft::Error& e) {
        std::fprintf(stderr, "freetoken: %s\n", e.what());
        if (!e.hint().empty()) std::fprintf(stderr, "  %s\n", e.hint().c_str());
        return 1;
    }
}

}  // namespace

int main(int argc, char** argv) {
    const int rc = run(argc, argv);
#ifdef _WIN32
    // Everything of the app has ended (engine stopped, window and Qt closed, log flushed): end the process without
    // the DLLs' detach code. Under Wine the MinGW build never returned from libstdc++-6.dll's DLL_PROCESS_DETACH
    // (WINEDEBUG=+module shows it as the last call; cause not found): closing the window left the process behind.
    std::fflush(nullptr);
    ::TerminateProcess(::GetCurrentProcess(), static_cast<UINT>(rc));
#endif
    return rc;
}
