// Windows programs under Wine, for the suites labelled `windows`: the cross-built ft.exe (scripts/cross-mingw.sh) and
// its NSIS installer, run by Debian's wine64 in a fresh prefix of their own (wineboot --init: a new C: drive and
// registry, as on a PC that has never seen FreeToken), removed again at the end.
//
//   wine_gate(needs)   before QTest runs: -1 when wine and every file in `needs` are there; else "SKIP: why" and
//                      FT_SKIP_CODE, or a failure when FT_REQUIRE_WINDOWS_TESTS=1 (scripts/test.sh sets it after the
//                      cross build, so CI never passes by skipping)
//   WinePrefix         create(user) boots the prefix with that Windows user name (its %LOCALAPPDATA% is
//                      C:\users\<user>\AppData\Local); run()/start() run a program in it with WINEDEBUG=-all and
//                      the console only (no DISPLAY), unless set_display() named an X server before create(): then
//                      every process of the prefix, wineboot first, gets it. It must be all or none: the first
//                      process of a prefix starts Wine's desktop (explorer.exe), which keeps the graphics driver it
//                      found, and with no DISPLAY that is the null driver: every later window fails (CreateWindowEx,
//                      "no driver could be loaded"), whatever DISPLAY that program has.
//
// Environment of every Windows process: the test's, less FT_DATA_DIR (the default data folder is what Windows users
// get), with LANG=C.UTF-8: Wine then reads Unix names as UTF-8 and makes the ANSI code page 1252, as on a US
// Windows, which has no Korean or Chinese letters: any path that goes through the ANSI API comes out wrong.
#pragma once

#include <QByteArray>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "ft_test.h"

namespace ft::test {

// wine64 (Debian installs it as /usr/lib/wine/wine64, not on PATH), or FT_WINE.
inline QString wine_loader() {
    const QString env = qEnvironmentVariable("FT_WINE");
    if (!env.isEmpty()) return env;
    for (const char* name : {"wine64", "wine"}) {
        const QString p = QStandardPaths::findExecutable(QString::fromLatin1(name));
        if (!p.isEmpty()) return p;
    }
    for (const char* p : {"/usr/lib/wine/wine64", "/usr/lib64/wine/wine64", "/opt/wine-stable/bin/wine64"})
        if (QFileInfo(QString::fromLatin1(p)).isExecutable()) return QString::fromLatin1(p);
    return {};
}

inline QString wineserver_for(const QString& loader) {
    const QString beside = QFileInfo(loader).absolutePath() + QStringLiteral("/wineserver");
    if (QFileInfo(beside).isExecutable()) return beside;
    return QStandardPaths::findExecutable(QStringLiteral("wineserver"));
}

// The Windows form of a path on this machine: Wine's Z: drive is the Unix root.
inline QString z_path(const QString& unix_path) {
    return QStringLiteral("Z:") + QDir::cleanPath(QFileInfo(unix_path).absoluteFilePath()).replace('/', '\\');
}

inline int wine_gate(const QStringList& needs) {
    const char* req = std::getenv("FT_REQUIRE_WINDOWS_TESTS");
    const bool required = req && *req && std::string(req) != "0";
    QString why;
    const QString loader = wine_loader();
    if (loader.isEmpty()) why = QStringLiteral("wine64 is not installed (scripts/install-deps.sh installs it)");
    else if (!QFileInfo(loader).isExecutable()) why = loader + QStringLiteral(" (FT_WINE) is not an executable");
    for (const auto& f : needs)
        if (why.isEmpty() && !QFileInfo::exists(f))
            why = f + QStringLiteral(" does not exist (scripts/cross-mingw.sh build/mingw builds it)");
    if (why.isEmpty()) return -1;
    if (required) {
        std::fprintf(stderr, "FAIL: FT_REQUIRE_WINDOWS_TESTS is set but %s\n", qPrintable(why));
        return 1;
    }
    std::printf("SKIP: %s\n", qPrintable(why));
    return FT_SKIP_CODE;
}

struct WineResult {
    int code = 0;  // -1: timeout, -2: crashed
    QByteArray out, err;
    QString text() const { return QString::fromUtf8(out + err); }
};

class WinePrefix {
public:
    WinePrefix() : dir_(QStringLiteral(FT_BINARY_DIR "/wine-XXXXXX")) {}
    ~WinePrefix() {
        if (!booted_) return;
        QProcess k;  // stop this prefix's wineserver (and anything left in it) before its folder goes
        k.setProcessEnvironment(env());
        k.start(wineserver_for(loader_), {QStringLiteral("-k")});
        k.waitForFinished(20000);
    }

    // wineboot --init with `user` as the Windows user name; false (log says why) on failure.
    bool create(const QString& user, QString& log) {
        loader_ = wine_loader();
        user_ = user;
        if (!dir_.isValid()) {
            log = QStringLiteral("cannot create a folder under " FT_BINARY_DIR);
            return false;
        }
        QElapsedTimer t;
        t.start();
        const auto r = run_raw({QStringLiteral("wineboot"), QStringLiteral("--init")}, {}, 300000, {});
        booted_ = true;
        boot_seconds_ = t.elapsed() / 1000.0;
        log = r.text();
        return r.code == 0 && QFileInfo::exists(drive_c() + QStringLiteral("/windows/system32"));
    }
    double boot_seconds() const { return boot_seconds_; }
    // The X server (":N") of every process of this prefix; before create().
    void set_display(const QString& display) { display_ = display; }

    QString path() const { return dir_.path(); }
    QString drive_c() const { return dir_.path() + QStringLiteral("/drive_c"); }
    QString user() const { return user_; }
    // %LOCALAPPDATA% on the Unix side.
    QString local_app_data() const { return drive_c() + QStringLiteral("/users/") + user_ + QStringLiteral("/AppData/Local"); }

    // Maps drive `letter` (e.g. 'm') to a folder of this machine, as a second disk would appear on a PC.
    bool map_drive(char letter, const QString& unix_dir) {
        const QString link = dir_.path() + QStringLiteral("/dosdevices/") + QChar(letter) + QStringLiteral(":");
        QFile::remove(link);
        return QFile::link(unix_dir, link);
    }

    QProcessEnvironment env(const QStringList& extra = {}) const {
        QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
        for (const char* v : {"FT_DATA_DIR", "DISPLAY", "WAYLAND_DISPLAY", "LC_ALL", "LC_CTYPE"}) e.remove(QString::fromLatin1(v));
        if (!display_.isEmpty()) e.insert(QStringLiteral("DISPLAY"), display_);
        e.insert(QStringLiteral("WINEPREFIX"), dir_.path());
        e.insert(QStringLiteral("WINEDEBUG"), QStringLiteral("-all"));
        e.insert(QStringLiteral("WINEDLLOVERRIDES"), QStringLiteral("mscoree,mshtml="));  // no Mono/Gecko prompts
        e.insert(QStringLiteral("USER"), user_);
        e.insert(QStringLiteral("LANG"), QStringLiteral("C.UTF-8"));
        for (const auto& kv : extra) {
            const int eq = kv.indexOf('=');
            if (eq > 0) e.insert(kv.left(eq), kv.mid(eq + 1));
            else e.remove(kv);
        }
        return e;
    }

    // Runs `exe` (a Unix path or a Windows path inside the prefix) with `args`; `extra_env`: "NAME=value" to set,
    // "NAME" to remove.
    WineResult run(const QString& exe, const QStringList& args, const QByteArray& input = {}, int timeout_ms = 180000,
                   const QString& cwd = {}, const QStringList& extra_env = {}) {
        return run_raw(QStringList{exe} + args, input, timeout_ms, cwd, extra_env);
    }

    // Waits until every process of the prefix has exited (wineserver -w).
    bool wait_idle(int timeout_ms) {
        QProcess w;
        w.setProcessEnvironment(env());
        w.start(wineserver_for(loader_), {QStringLiteral("-w")});
        return w.waitForFinished(timeout_ms) && w.exitCode() == 0;
    }

    // Starts `exe` without waiting; its stdout and stderr go to `log_file`.
    void start(QProcess& p, const QString& exe, const QStringList& args, const QString& log_file,
               const QStringList& extra_env = {}) {
        p.setProcessEnvironment(env(extra_env));
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.setStandardOutputFile(log_file);
        p.start(loader_, QStringList{exe} + args);
    }

private:
    WineResult run_raw(const QStringList& argv, const QByteArray& input, int timeout_ms, const QString& cwd,
                       const QStringList& extra_env = {}) {
        QProcess p;
        p.setProcessEnvironment(env(extra_env));
        if (!cwd.isEmpty()) p.setWorkingDirectory(cwd);
        p.start(loader_, argv);
        if (!input.isEmpty()) p.write(input);
        p.closeWriteChannel();
        if (!p.waitForFinished(timeout_ms)) {
            p.kill();
            p.waitForFinished(5000);
            return {-1, p.readAllStandardOutput(), p.readAllStandardError() + "\n(timeout)"};
        }
        return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2, p.readAllStandardOutput(),
                p.readAllStandardError()};
    }

    QTemporaryDir dir_;
    QString loader_, user_, display_;
    bool booted_ = false;
    double boot_seconds_ = 0;
};

}  // namespace ft::test

#define FT_WINE_TEST_MAIN(TestClass, ...)                                     \
    int main(int argc, char** argv) {                                         \
        if (int rc = ft::test::wine_gate({__VA_ARGS__}); rc >= 0) return rc; \
        QCoreApplication app(argc, argv);                                     \
        TestClass tc;                                                         \
        QTEST_SET_MAIN_SOURCE_PATH                                            \
        return QTest::qExec(&tc, argc, argv);                                 \
    }
