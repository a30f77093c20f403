// The Windows installer (installer/windows/nsis.cmake, built by scripts/cross-mingw.sh) round trip under Wine, in a
// fresh prefix: a silent install (/S) puts ft.exe, the bundled model and the uninstaller under
// C:\Program Files\FreeToken; the installed ft.exe runs (--version, a chat on the bundled model found beside it, the
// same answer as the Linux build); the Start-menu entry, the .gguf association and the "Apps & features" entry are
// there; the silent uninstall removes every file it installed and those registry keys, and keeps the user's data
// folder (%LOCALAPPDATA%\FreeToken). The CI installer has no desktop app (no Qt for MinGW yet): the shortcut and
// the association name bin\freetoken.exe, which only the Windows build with the GUI installs.
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTest>

#include "ft_process.h"
#include "wine_prefix.h"

using ft::test::run_ft;
using ft::test::WinePrefix;

namespace {

const QString kUser = QStringLiteral("사용자");
const QString kInstDir = QStringLiteral("C:\\Program Files\\FreeToken");

QString installer() {
    const QStringList found = QDir(QStringLiteral(FT_MINGW_DIR "/ft"))
                                  .entryList({QStringLiteral("freetoken-*-win64.exe")}, QDir::Files, QDir::Name);
    return found.isEmpty() ? QStringLiteral(FT_MINGW_DIR "/ft/freetoken-VERSION-win64.exe")
                           : QStringLiteral(FT_MINGW_DIR "/ft/") + found.last();
}

QStringList files_under(const QString& dir) {
    QStringList out;
    QDirIterator it(dir, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    while (it.hasNext()) out << it.next();
    out.sort();
    return out;
}

}  // namespace

class TestWineInstaller : public QObject {
    Q_OBJECT
    WinePrefix m_wine;

    QString inst_unix() const { return m_wine.drive_c() + QStringLiteral("/Program Files/FreeToken"); }
    QString start_menu() const { return m_wine.drive_c() + QStringLiteral("/ProgramData/Microsoft/Windows/Start Menu/Programs"); }
    bool reg_has(const QString& key, const QString& value_contains = {}) {
        const auto r = m_wine.run(QStringLiteral("reg"), {"query", key, "/ve"});
        return r.code == 0 && (value_contains.isEmpty() || QString::fromUtf8(r.out).contains(value_contains, Qt::CaseInsensitive));
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

private slots:
    void initTestCase() {
        QString log;
        QVERIFY2(m_wine.create(kUser, log), qPrintable(log));
        qInfo("fresh Wine prefix (wineboot --init) in %.1f s", m_wine.boot_seconds());
        QVERIFY2(!QFileInfo::exists(inst_unix()) && shortcuts().isEmpty() && !reg_has("HKLM\\Software\\Classes\\.gguf"),
                 "the fresh prefix already has FreeToken");
    }

    void roundTrip() {
        // Install, silently, as `freetoken-…-win64.exe /S` from a download folder would.
        const auto inst = m_wine.run(installer(), {"/S"}, {}, 300000);
        QVERIFY2(inst.code == 0, qPrintable(inst.text()));
        const QStringList installed = files_under(inst_unix());
        qInfo().noquote() << "installed:" << installed.join("\n  ").remove(inst_unix() + '/');
        for (const char* f : {"/bin/ft.exe", "/share/freetoken/models/freetoken-demo.gguf", "/Uninstall.exe"})
            QVERIFY2(installed.contains(inst_unix() + QString::fromLatin1(f)), qPrintable(QString::fromLatin1(f) + " was not installed"));

        // The installed ft.exe, run from the user's profile (no source tree within reach of its current drive).
        const QString ft = kInstDir + QStringLiteral("\\bin\\ft.exe");
        const QString cwd = m_wine.drive_c() + QStringLiteral("/users/") + kUser;
        const auto v = m_wine.run(ft, {"--version"}, {}, 60000, cwd);
        QVERIFY2(v.code == 0 && v.out.startsWith("ft " + run_ft({"--version"}).out.section(' ', 1, 1).toUtf8()), qPrintable(v.text()));
        const QByteArray input = "Hello!\n/quit\n";
        const QStringList chat{"chat", "--device", "cpu", "--temperature", "0", "--max-tokens", "64"};
        const auto c = m_wine.run(ft, chat, input, 180000, cwd);
        QVERIFY2(c.code == 0, qPrintable(c.text()));
        QVERIFY2(QString::fromUtf8(c.err).contains(kInstDir + QStringLiteral("\\share\\freetoken\\models\\freetoken-demo.gguf"),
                                                   Qt::CaseInsensitive), c.err.constData());
        const auto l = run_ft(chat, input);
        QVERIFY2(l.code == 0, qPrintable(l.err));
        QCOMPARE(QString::fromUtf8(c.out), l.out);

        // Start menu, .gguf association, the uninstaller's entry.
        const QStringList links = shortcuts();
        QVERIFY2(!links.isEmpty(), qPrintable("no FreeToken shortcut under " + start_menu()));
        QFile lnk(links.first());
        QVERIFY(lnk.open(QIODevice::ReadOnly));
        const QByteArray lnk_bytes = lnk.readAll();
        QVERIFY2(lnk_bytes.contains("freetoken.exe") || lnk_bytes.contains(QByteArray("f\0r\0e\0e\0t\0o\0k\0e\0n\0.\0e\0x\0e", 26)),
                 "the shortcut does not name freetoken.exe");
        QVERIFY(reg_has("HKLM\\Software\\Classes\\.gguf", "FreeToken.GGUF"));
        QVERIFY(reg_has("HKLM\\Software\\Classes\\FreeToken.GGUF\\shell\\open\\command",
                        kInstDir + QStringLiteral("\\bin\\freetoken.exe\" \"%1\"")));
        const auto un = m_wine.run(QStringLiteral("reg"), {"query", "HKLM\\Software\\Microsoft\\Windows\\CurrentVersion\\Uninstall\\FreeToken",
                                                           "/v", "UninstallString"});
        QVERIFY2(un.code == 0 && QString::fromUtf8(un.out).contains(kInstDir + QStringLiteral("\\Uninstall.exe")), qPrintable(un.text()));

        // The user's data: the log ft.exe wrote, and a model of their own.
        const QString data = m_wine.local_app_data() + QStringLiteral("/FreeToken");
        QVERIFY2(QFileInfo(data + "/logs/ft.log").size() > 0, qPrintable(data + "/logs/ft.log"));
        QVERIFY(QDir().mkpath(data + "/models"));
        QVERIFY(QFile::copy(QStringLiteral(FT_SOURCE_DIR "/resources/models/freetoken-demo.gguf"), data + "/models/mine.gguf"));

        // Uninstall silently: NSIS's uninstaller copies itself to %TEMP% and returns at once; wineserver -w waits for
        // the copy to finish.
        const auto u = m_wine.run(kInstDir + QStringLiteral("\\Uninstall.exe"), {"/S"}, {}, 120000);
        QVERIFY2(u.code == 0, qPrintable(u.text()));
        QVERIFY(m_wine.wait_idle(120000));
        QStringList left;
        for (const auto& f : installed)
            if (QFileInfo::exists(f)) left << f;
        QVERIFY2(left.isEmpty(), qPrintable("left behind: " + left.join(", ")));
        QVERIFY2(!QFileInfo::exists(inst_unix()), qPrintable(inst_unix() + " is still there"));
        QVERIFY2(shortcuts().isEmpty(), qPrintable(shortcuts().join(", ")));
        QVERIFY(!reg_has("HKLM\\Software\\Classes\\FreeToken.GGUF"));
        QVERIFY(!reg_has("HKLM\\Software\\Classes\\.gguf"));
        QVERIFY(!reg_has("HKLM\\Software\\Microsoft\\Windows\\CurrentVersion\\Uninstall\\FreeToken"));
        QVERIFY2(QFileInfo(data + "/logs/ft.log").size() > 0 && QFileInfo::exists(data + "/models/mine.gguf"),
                 "the uninstaller removed the user's data folder");
    }
};

FT_WINE_TEST_MAIN(TestWineInstaller, installer())
#include "test_wine_installer.moc"
