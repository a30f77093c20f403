// The desktop app for Windows under Wine: the installer with freetoken.exe (scripts/cross-mingw.sh with FT_MINGW_QT,
// against the Qt for MinGW of scripts/cross-qt-mingw.sh) installed silently into a fresh prefix, in an X server of
// its own (Xvfb, 1280x800) that every process of the prefix sees (wineboot first: wine_prefix.h says why). The install carries the app, ft.exe, the Qt and MinGW DLLs, plugins and QML modules beside them
// (installer/windows/deploy-mingw.cmake) and the bundled model; every Start-menu shortcut and the .gguf association
// name installed files, one entry starts freetoken.exe and a double-click on a .gguf runs it on that file. The
// installed app's own check (`freetoken.exe --smoke`: the window loads without a QML warning, Qt's SQLite driver opens
// the library, the file dialog opens, the bundled model loads and generates) passes, on a graphics API that draws
// (app/desktop/graphics_api.h: under Wine 8 Direct3D 11's shader compiler fails, so OpenGL); then the association's
// command on the bundled model opens the window and loads the model; the Models and Console pages are photographed
// (Ctrl+2), a message is typed into a new chat (Ctrl+3, Ctrl+N, xdotool type, Return) and its reply is stored in
// %LOCALAPPDATA%\FreeToken\chats.db, the Chat page is photographed (into the build tree, and into
// FT_WINE_SCREENSHOT_DIR where set, e.g. docs/screenshots); a second start of the app on the model (a second
// double-click) hands it to the running app and exits 0 without a second window (app/desktop/single_instance.h);
// with the running app stopped (SIGSTOP), a second start shows its Korean message box after 10 s and exits 1 on Return;
// a close request (taskkill without /f: WM_CLOSE, as the window's close button) ends the app with exit code 0. The
// silent uninstaller removes every installed file and keeps the user's data folder.
// Where the app was not built (CI: the Qt build does not fit its time; docs/windows.md) it reports "skipped".
#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QSettings>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QTest>
#include <QThread>

#include <cstdio>

#include <signal.h>
#include <sys/types.h>

#include "shell_link.h"
#include "wine_prefix.h"

using ft::test::files_under;
using ft::test::read_shell_link;
using ft::test::ShellLink;
using ft::test::split_command;
using ft::test::WinePrefix;

namespace {

const QString kUser = QStringLiteral("사용자");
const QString kInstDir = QStringLiteral("C:\\Program Files\\FreeToken");
const QString kAppBuild = QStringLiteral(FT_MINGW_DIR "/app");

QString app_installer() {
    const QStringList found =
        QDir(kAppBuild).entryList({QStringLiteral("freetoken-*-win64.exe")}, QDir::Files, QDir::Name);
    return found.isEmpty() ? QString() : kAppBuild + '/' + found.last();
}

// Output of a program of this machine (xwininfo, xdotool, import), with its exit code.
struct Local {
    int code = -1;
    QString out;
};
Local local(const QString& program, const QStringList& args, int timeout_ms = 30000) {
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(program, args);
    if (!p.waitForFinished(timeout_ms)) {
        p.kill();
        p.waitForFinished(5000);
        return {-1, QString::fromUtf8(p.readAll()) + QStringLiteral("(timeout)")};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2, QString::fromUtf8(p.readAll())};
}

// The X windows of the app: Wine names them after the Windows window's title. Only those of at least the app's
// minimum size (Wine also keeps small helper windows with titles).
QStringList app_windows() {
    const Local r = local(QStringLiteral("xwininfo"), {QStringLiteral("-root"), QStringLiteral("-tree")});
    QStringList out;
    auto it = QRegularExpression(QStringLiteral("(0x[0-9a-f]+) \"FreeToken Desktop[^\"]*\": .* (\\d+)x(\\d+)\\+"))
                  .globalMatch(r.out);
    while (it.hasNext()) {
        const auto m = it.next();
        if (m.captured(2).toInt() >= 400 && m.captured(3).toInt() >= 300) out << m.captured(1);
    }
    return out;
}
// The message box of a second start (app/desktop/single_instance.h): a window titled just "FreeToken".
QString box_window() {
    const Local r = local(QStringLiteral("xwininfo"), {QStringLiteral("-root"), QStringLiteral("-tree")});
    const auto m = QRegularExpression(QStringLiteral("(0x[0-9a-f]+) \"FreeToken\": .* (\\d+)x(\\d+)\\+")).match(r.out);
    return m.hasMatch() && m.captured(2).toInt() >= 100 ? m.captured(1) : QString();
}
QString app_window() {
    const QStringList w = app_windows();
    return w.isEmpty() ? QString() : w.first();
}

// Stored messages of `role` in the app's chat history (SQLite, read-only), -1 when it cannot be read.
int stored_messages(const QString& db_file, const QString& role, const QString& content = {}) {
    int n = -1;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("wine-chats"));
        db.setDatabaseName(db_file);
        db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY;QSQLITE_BUSY_TIMEOUT=2000"));
        if (QFileInfo::exists(db_file) && db.open()) {
            QSqlQuery q(db);
            q.prepare(content.isEmpty() ? QStringLiteral("select count(*) from messages where role = ? and length(content) > 0")
                                        : QStringLiteral("select count(*) from messages where role = ? and content = ?"));
            q.addBindValue(role);
            if (!content.isEmpty()) q.addBindValue(content);
            if (q.exec() && q.next()) n = q.value(0).toInt();
        }
    }
    QSqlDatabase::removeDatabase(QStringLiteral("wine-chats"));
    return n;
}

}  // namespace

class TestWineApp : public QObject {
    Q_OBJECT
    WinePrefix m_wine;
    QStringList m_installed;
    QProcess m_xvfb;

    QString inst_unix() const { return m_wine.drive_c() + QStringLiteral("/Program Files/FreeToken"); }
    QString start_menu() const { return m_wine.drive_c() + QStringLiteral("/ProgramData/Microsoft/Windows/Start Menu/Programs"); }
    QString unix_of(const QString& windows_path) const {
        if (!windows_path.startsWith(QStringLiteral("C:\\"), Qt::CaseInsensitive)) return {};
        return m_wine.drive_c() + '/' + windows_path.mid(3).replace('\\', '/');
    }
    QString reg_value(const QString& key) {
        const auto r = m_wine.run(QStringLiteral("reg"), QStringList{"query", key, "/ve"});
        const auto m = QRegularExpression(QStringLiteral("REG_(?:EXPAND_)?SZ {4}(.*)$"), QRegularExpression::MultilineOption)
                           .match(QString::fromUtf8(r.out).remove('\r'));
        return r.code == 0 && m.hasMatch() ? m.captured(1).trimmed() : QString();
    }
    QStringList shortcuts() const {
        QStringList out;
        QDirIterator it(start_menu(), {QStringLiteral("*.lnk")}, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString f = it.next();
            if (f.contains(QStringLiteral("FreeToken"))) out << f;
        }
        return out;
    }
    QString app_log() const { return m_wine.local_app_data() + QStringLiteral("/FreeToken/logs/freetoken.log"); }
    QString log_text() const {
        QFile f(app_log());
        return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
    }
    // The app's environment: Qt's Windows platform (not the offscreen one ctest sets for the Linux side). The X
    // server comes with the prefix; the graphics API is the app's own choice (app/desktop/graphics_api.h).
    QStringList display_env() const { return {QStringLiteral("QT_QPA_PLATFORM")}; }

    // The app's X window as PNG: into the build tree, and FT_WINE_SCREENSHOT_DIR.
    void screenshot(const QString& window, const QString& name) {
        const QString dir = QStringLiteral(FT_BINARY_DIR "/wine-screenshots");
        QVERIFY(QDir().mkpath(dir));
        const QString file = dir + '/' + name;
        QFile::remove(file);
        const Local r = local(QStringLiteral("import"), {"-window", window, "-strip", file});
        QVERIFY2(r.code == 0 && QFileInfo(file).size() > 1000, qPrintable("import -window " + window + ": " + r.out));
        qInfo().noquote() << "screenshot" << file;
        const QString keep = qEnvironmentVariable("FT_WINE_SCREENSHOT_DIR");
        if (!keep.isEmpty()) {
            QFile::remove(keep + '/' + name);
            QVERIFY2(QFile::copy(file, keep + '/' + name), qPrintable("cannot write " + keep + '/' + name));
        }
    }

private slots:
    void initTestCase() {
        // An X server of this test's own, at the size of the screenshots: Xvfb prints the display it took.
        m_xvfb.start(QStringLiteral("Xvfb"), {"-displayfd", "1", "-screen", "0", "1280x800x24", "-nolisten", "tcp"});
        QVERIFY2(m_xvfb.waitForStarted(10000), "Xvfb did not start (scripts/install-deps.sh installs xvfb)");
        QElapsedTimer t;
        t.start();
        QByteArray display;
        while (!display.contains('\n') && t.elapsed() < 20000 && m_xvfb.state() == QProcess::Running) {
            m_xvfb.waitForReadyRead(500);
            display += m_xvfb.readAllStandardOutput();
        }
        QVERIFY2(display.trimmed().toInt() > 0 || display.trimmed() == "0", qPrintable("Xvfb gave no display: " + display));
        qputenv("DISPLAY", ":" + display.trimmed());  // xwininfo, xdotool, import
        m_wine.set_display(QStringLiteral(":") + QString::fromLatin1(display.trimmed()));
        QString log;
        QVERIFY2(m_wine.create(kUser, log), qPrintable(log));
        qInfo("fresh Wine prefix (wineboot --init) in %.1f s", m_wine.boot_seconds());
    }

    void install() {
        QElapsedTimer t;
        t.start();
        const auto inst = m_wine.run(app_installer(), {"/S"}, {}, 300000);
        QVERIFY2(inst.code == 0, qPrintable(inst.text()));
        m_installed = files_under(inst_unix());
        qInfo("installed %lld files in %.1f s", qint64(m_installed.size()), t.elapsed() / 1000.0);
        for (const char* f : {"/bin/freetoken.exe", "/bin/ft.exe", "/bin/qt.conf", "/bin/Qt6Core.dll", "/bin/Qt6Quick.dll",
                              "/bin/Qt6QuickControls2.dll", "/bin/Qt6Sql.dll", "/bin/libstdc++-6.dll",
                              "/bin/plugins/platforms/qwindows.dll", "/bin/plugins/sqldrivers/qsqlite.dll",
                              "/bin/plugins/imageformats/qsvg.dll", "/bin/qml/QtQuick/Controls/Basic/qmldir",
                              "/bin/qml/QtQuick/Dialogs/qmldir", "/bin/qml/Qt/labs/folderlistmodel/qmldir",
                              "/share/freetoken/models/freetoken-demo.gguf", "/Uninstall.exe"})
            QVERIFY2(m_installed.contains(inst_unix() + QString::fromLatin1(f)),
                     qPrintable(QString::fromLatin1(f) + " was not installed"));

        // Every shortcut runs an installed program; "FreeToken Desktop" is the app.
        const QStringList links = shortcuts();
        QVERIFY2(!links.isEmpty(), qPrintable("no FreeToken shortcut under " + start_menu()));
        bool app_entry = false;
        for (const auto& link : links) {
            const ShellLink sl = read_shell_link(link);
            qInfo().noquote() << "shortcut" << QFileInfo(link).fileName() << "->" << sl.target << sl.arguments;
            QVERIFY2(sl.error.isEmpty(), qPrintable(link + ": " + sl.error));
            QVERIFY2(QFileInfo(unix_of(sl.target)).isFile(), qPrintable(link + " runs " + sl.target + ", which is not installed"));
            app_entry |= sl.target.compare(kInstDir + QStringLiteral("\\bin\\freetoken.exe"), Qt::CaseInsensitive) == 0;
        }
        QVERIFY2(app_entry, "no Start-menu entry runs bin\\freetoken.exe");
        // A .gguf opens in the app: "…\bin\freetoken.exe" "%1".
        QCOMPARE(reg_value("HKLM\\Software\\Classes\\.gguf"), QStringLiteral("FreeToken.GGUF"));
        const QStringList open = split_command(reg_value("HKLM\\Software\\Classes\\FreeToken.GGUF\\shell\\open\\command"));
        QVERIFY2(open.size() == 2 && open[0].compare(kInstDir + QStringLiteral("\\bin\\freetoken.exe"), Qt::CaseInsensitive) == 0 &&
                     open[1] == QStringLiteral("%1"),
                 qPrintable("the .gguf open command is " + open.join(' ')));
        const QString icon = reg_value("HKLM\\Software\\Classes\\FreeToken.GGUF\\DefaultIcon");
        QVERIFY2(QFileInfo(unix_of(icon.section(',', 0, 0))).isFile(), qPrintable("the .gguf icon is " + icon));
    }

    void smoke() {
        // The installed app checks itself, as a user's bug report would run it (a temporary data folder).
        const QString cwd = m_wine.drive_c() + QStringLiteral("/users/") + kUser;
        QElapsedTimer t;
        t.start();
        const auto r = m_wine.run(kInstDir + QStringLiteral("\\bin\\freetoken.exe"), {"--smoke"}, {}, 240000, cwd, display_env());
        qInfo().noquote() << r.text();
        QVERIFY2(r.code == 0 && r.text().contains(QStringLiteral("freetoken --smoke: ok:")), qPrintable(r.text()));
        // The graphics API it chose draws: no shader of Qt Quick failed to compile.
        const auto graphics = QRegularExpression(QStringLiteral("graphics: (.*)")).match(r.text());
        QVERIFY2(graphics.hasMatch(), qPrintable(r.text()));
        QVERIFY2(!r.text().contains(QStringLiteral("shader compilation failed")), qPrintable(r.text()));
        qInfo().noquote() << "graphics API under Wine:" << graphics.captured(1).trimmed();
        qInfo("freetoken.exe --smoke under Wine: %.1f s", t.elapsed() / 1000.0);
    }

    void windowOnBundledModel() {
        // A double-click on the bundled model: the association's command with its path.
        const QString model = kInstDir + QStringLiteral("\\share\\freetoken\\models\\freetoken-demo.gguf");
        QProcess app;
        const QString out = QStringLiteral(FT_BINARY_DIR "/wine-app-window.log");
        m_wine.start(app, kInstDir + QStringLiteral("\\bin\\freetoken.exe"), {model}, out, display_env());
        QVERIFY2(app.waitForStarted(20000), "wine did not start");
        const auto output = [&] {
            QFile f(out);
            return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
        };

        QElapsedTimer t;
        t.start();
        QString window;
        while (window.isEmpty() && t.elapsed() < 180000 && app.state() == QProcess::Running) {
            QThread::msleep(500);
            window = app_window();
        }
        QVERIFY2(!window.isEmpty(), qPrintable("no FreeToken Desktop window after 180 s:\n" + output()));
        qInfo("window %s after %.1f s", qPrintable(window), t.elapsed() / 1000.0);
        // No window manager: Wine placed it below a caption's height; the whole window on the 1280x800 screen.
        local(QStringLiteral("xdotool"), {"windowmove", window, "0", "0"});
        QThread::msleep(500);
        // The model is loaded when the engine says so in the app's log (%LOCALAPPDATA%\FreeToken\logs).
        while (!log_text().contains(QStringLiteral("] loaded ")) && t.elapsed() < 300000 && app.state() == QProcess::Running)
            QThread::msleep(500);
        QVERIFY2(log_text().contains(QStringLiteral("] loaded ")), qPrintable("the model did not load:\n" + log_text() + output()));
        qInfo("model loaded after %.1f s", t.elapsed() / 1000.0);
        QThread::msleep(1500);  // the page's rows and the sidebar catch up
        screenshot(window, QStringLiteral("windows-wine-models.png"));

        // Keys typed into the app's window as a user would: Ctrl+2 opens the Console, Ctrl+3 the Chat page, Ctrl+N a
        // new chat with the cursor in its composer (Main.qml's and ChatPage.qml's shortcuts).
        const Local focus = local(QStringLiteral("xdotool"), {"windowfocus", "--sync", window});
        QVERIFY2(focus.code == 0, qPrintable("xdotool windowfocus: " + focus.out));
        const auto keys = [&](const QStringList& args) {
            const Local k = local(QStringLiteral("xdotool"), args);
            QVERIFY2(k.code == 0, qPrintable("xdotool " + args.join(' ') + ": " + k.out));
        };
        keys({"key", "--window", window, "ctrl+2"});
        QThread::msleep(3000);  // two samples of the charts
        screenshot(window, QStringLiteral("windows-wine-console.png"));

        const QString chats = m_wine.local_app_data() + QStringLiteral("/FreeToken/chats.db");
        const QString message = QStringLiteral("Hello from Wine");
        keys({"key", "--window", window, "ctrl+3"});
        QThread::msleep(1000);
        keys({"key", "--window", window, "ctrl+n"});
        QThread::msleep(1000);
        keys({"type", "--delay", "30", "--window", window, message});
        keys({"key", "--window", window, "Return"});
        QElapsedTimer c;
        c.start();
        while ((stored_messages(chats, QStringLiteral("user"), message) < 1 ||
                stored_messages(chats, QStringLiteral("assistant")) < 1) && c.elapsed() < 120000)
            QThread::msleep(500);
        QVERIFY2(stored_messages(chats, QStringLiteral("user"), message) == 1,
                 qPrintable("the typed message is not in " + chats + ":\n" + log_text().right(3000)));
        QVERIFY2(stored_messages(chats, QStringLiteral("assistant")) >= 1,
                 qPrintable("no stored reply in " + chats + " after 120 s:\n" + log_text().right(3000)));
        qInfo("chat: the reply was stored %.1f s after Return", c.elapsed() / 1000.0);
        QThread::msleep(1500);
        screenshot(window, QStringLiteral("windows-wine-chat.png"));

        // A second double-click on the model: the second freetoken.exe hands it to the running app and exits 0; the
        // running app opens it in Models; still one window.
        const auto second = m_wine.run(kInstDir + QStringLiteral("\\bin\\freetoken.exe"), {model}, {}, 60000, {}, display_env());
        QVERIFY2(second.code == 0 && second.text().contains(QStringLiteral("already running")),
                 qPrintable(QStringLiteral("second start (exit code %1): ").arg(second.code) + second.text()));
        QElapsedTimer s;
        s.start();
        while (!log_text().contains(QStringLiteral("a second start: open ")) && s.elapsed() < 20000) QThread::msleep(250);
        QVERIFY2(log_text().contains(QStringLiteral("a second start: open ")), qPrintable(log_text().right(3000)));
        QThread::msleep(1000);
        QCOMPARE(app_windows().size(), 1);
        QVERIFY(app.state() == QProcess::Running);

        // A running app that does not answer (stopped with SIGSTOP: the pipe is there, nobody reads it): a second
        // start says so after 10 s in a message box, in the user's language (Korean, set in the app's settings), and
        // exits 1 once the box is closed (Return).
        QSettings ini(m_wine.local_app_data() + QStringLiteral("/FreeToken/freetoken.ini"), QSettings::IniFormat);
        ini.setValue(QStringLiteral("ui/language"), QStringLiteral("ko"));
        ini.sync();
        QCOMPARE(::kill(static_cast<pid_t>(app.processId()), SIGSTOP), 0);
        QProcess hung;
        const QString hung_out = QStringLiteral(FT_BINARY_DIR "/wine-app-no-answer.log");
        m_wine.start(hung, kInstDir + QStringLiteral("\\bin\\freetoken.exe"), {model}, hung_out, display_env());
        QVERIFY2(hung.waitForStarted(20000), "wine did not start");
        QElapsedTimer h;
        h.start();
        QString box;
        while (box.isEmpty() && h.elapsed() < 60000 && hung.state() == QProcess::Running) {
            QThread::msleep(500);
            box = box_window();
        }
        const auto hung_text = [&] {
            QFile f(hung_out);
            return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
        };
        QVERIFY2(!box.isEmpty(), qPrintable(QStringLiteral("no message box (exit code %1): ").arg(hung.exitCode()) + hung_text()));
        qInfo("second start without an answer: message box %s after %.1f s", qPrintable(box), h.elapsed() / 1000.0);
        QVERIFY2(hung_text().contains(QStringLiteral("10초 안에 응답하지 않아 ") + model), qPrintable(hung_text()));  // Windows' separators
        QThread::msleep(500);
        screenshot(box, QStringLiteral("windows-wine-no-answer.png"));
        QVERIFY2(hung.state() == QProcess::Running, "the second start did not wait for its message box");
        QVERIFY2(local(QStringLiteral("xdotool"), {"windowfocus", "--sync", box}).code == 0, "xdotool windowfocus");
        QVERIFY(local(QStringLiteral("xdotool"), {"key", "--window", box, "Return"}).code == 0);
        QVERIFY2(hung.waitForFinished(30000), "Return did not close the message box");
        QCOMPARE(hung.exitCode(), 1);
        QCOMPARE(::kill(static_cast<pid_t>(app.processId()), SIGCONT), 0);
        ini.setValue(QStringLiteral("ui/language"), QStringLiteral("en"));
        ini.sync();
        QThread::msleep(1000);
        QVERIFY(app.state() == QProcess::Running);

        // Close it as the window's close button does (WM_CLOSE): the app quits by itself, with exit code 0.
        const auto close = m_wine.run(QStringLiteral("taskkill"), {"/im", "freetoken.exe"}, {}, 30000);
        QVERIFY2(close.code == 0, qPrintable("taskkill: " + close.text()));
        QVERIFY2(app.waitForFinished(60000), qPrintable("the app did not exit within 60 s of the close request:\n" + output()));
        QCOMPARE(app.exitStatus(), QProcess::NormalExit);
        QVERIFY2(app.exitCode() == 0, qPrintable(QStringLiteral("exit code %1:\n").arg(app.exitCode()) + output()));
        QVERIFY2(log_text().contains(QStringLiteral("FreeToken exiting (0)")), qPrintable(log_text()));
    }

    void cleanupTestCase() {
        m_xvfb.terminate();
        m_xvfb.waitForFinished(10000);
    }

    void uninstall() {
        QVERIFY(!m_installed.isEmpty());
        const auto u = m_wine.run(kInstDir + QStringLiteral("\\Uninstall.exe"), {"/S"}, {}, 120000);
        QVERIFY2(u.code == 0, qPrintable(u.text()));
        QVERIFY(m_wine.wait_idle(120000));
        QStringList left;
        for (const auto& f : m_installed)
            if (QFileInfo::exists(f)) left << f;
        QVERIFY2(left.isEmpty(), qPrintable("left behind: " + left.join(", ")));
        QVERIFY2(shortcuts().isEmpty(), qPrintable(shortcuts().join(", ")));
        QVERIFY2(QFileInfo(app_log()).size() > 0, "the uninstaller removed the user's data folder");
    }
};

int main(int argc, char** argv) {
    // The app's build is an opt-in of scripts/cross-mingw.sh (FT_MINGW_QT): without it this suite is skipped, also
    // where FT_REQUIRE_WINDOWS_TESTS is set (CI builds ft.exe, never the Qt for MinGW).
    if (app_installer().isEmpty()) {
        std::printf("SKIP: no installer with the desktop app in %s (FT_MINGW_QT=<Qt for MinGW> scripts/cross-mingw.sh "
                    "builds it; scripts/cross-qt-mingw.sh builds that Qt)\n",
                    qPrintable(kAppBuild));
        return FT_SKIP_CODE;
    }
    for (const char* tool : {"Xvfb", "xwininfo", "xdotool", "import"})
        if (QStandardPaths::findExecutable(QString::fromLatin1(tool)).isEmpty()) {
            std::fprintf(stderr, "FAIL: %s is missing (scripts/install-deps.sh installs xvfb, x11-utils, xdotool, imagemagick)\n", tool);
            return 1;
        }
    if (int rc = ft::test::wine_gate({app_installer()}); rc >= 0) return rc;
    QCoreApplication app(argc, argv);
    TestWineApp tc;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&tc, argc, argv);
}

#include "test_wine_app.moc"
