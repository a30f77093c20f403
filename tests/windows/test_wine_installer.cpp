// The Windows installer (installer/windows/nsis.cmake, built by scripts/cross-mingw.sh) round trip under Wine, in a
// fresh prefix: a silent install (/S) puts ft.exe, the bundled model and the uninstaller under
// C:\Program Files\FreeToken; the installed ft.exe runs (--version, a chat on the bundled model found beside it, the
// same answer as the Linux build); every Start-menu shortcut, the .gguf association and the "Apps & features" entry
// name a program the installer installed (read from the .lnk files and the registry), and the association's command
// run on a user's model gives the same chat; the silent uninstall removes every file it installed and those registry
// keys, and keeps the user's data folder (%LOCALAPPDATA%\FreeToken). The CI installer has no desktop app (CI does not
// build the Qt for MinGW): its entries run `ft.exe chat` (installer/windows/nsis.cmake); test_wine_app installs the
// one with the app.
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QTest>

#include "ft_process.h"
#include "shell_link.h"
#include "wine_prefix.h"

using ft::test::files_under;
using ft::test::read_shell_link;
using ft::test::run_ft;
using ft::test::ShellLink;
using ft::test::split_command;
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

}  // namespace

class TestWineInstaller : public QObject {
    Q_OBJECT
    WinePrefix m_wine;

    QString inst_unix() const { return m_wine.drive_c() + QStringLiteral("/Program Files/FreeToken"); }
    QString start_menu() const { return m_wine.drive_c() + QStringLiteral("/ProgramData/Microsoft/Windows/Start Menu/Programs"); }
    // C:\… in this prefix as a path of this machine.
    QString unix_of(const QString& windows_path) const {
        if (!windows_path.startsWith(QStringLiteral("C:\\"), Qt::CaseInsensitive)) return {};
        return m_wine.drive_c() + '/' + windows_path.mid(3).replace('\\', '/');
    }
    // The data of a registry value (`name` empty: the key's default), empty when there is none.
    QString reg_value(const QString& key, const QString& name = {}) {
        const QStringList which = name.isEmpty() ? QStringList{"/ve"} : QStringList{"/v", name};
        const auto r = m_wine.run(QStringLiteral("reg"), QStringList{"query", key} + which);
        const auto m = QRegularExpression(QStringLiteral("REG_(?:EXPAND_)?SZ {4}(.*)$"), QRegularExpression::MultilineOption)
                           .match(QString::fromUtf8(r.out).remove('\r'));
        return r.code == 0 && m.hasMatch() ? m.captured(1).trimmed() : QString();
    }
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

        // Every Start-menu shortcut runs an installed program; one of them is the terminal chat.
        const QStringList links = shortcuts();
        QVERIFY2(!links.isEmpty(), qPrintable("no FreeToken shortcut under " + start_menu()));
        bool chat_entry = false;
        for (const auto& link : links) {
            const ShellLink sl = read_shell_link(link);
            qInfo().noquote() << "shortcut" << QFileInfo(link).fileName() << "->" << sl.target << sl.arguments;
            QVERIFY2(sl.error.isEmpty(), qPrintable(link + ": " + sl.error));
            QVERIFY2(QFileInfo(unix_of(sl.target)).isFile(), qPrintable(link + " runs " + sl.target + ", which is not installed"));
            chat_entry |= sl.target.compare(kInstDir + QStringLiteral("\\bin\\ft.exe"), Qt::CaseInsensitive) == 0 &&
                          sl.arguments == QStringLiteral("chat");
        }
        QVERIFY2(chat_entry, "no Start-menu entry runs bin\\ft.exe chat");

        // .gguf → FreeToken.GGUF, whose icon and open command name installed files; the uninstaller's entry too.
        QCOMPARE(reg_value("HKLM\\Software\\Classes\\.gguf"), QStringLiteral("FreeToken.GGUF"));
        const QString icon = reg_value("HKLM\\Software\\Classes\\FreeToken.GGUF\\DefaultIcon");
        QVERIFY2(QFileInfo(unix_of(icon.section(',', 0, 0))).isFile(), qPrintable("the .gguf icon is " + icon));
        const QString open = reg_value("HKLM\\Software\\Classes\\FreeToken.GGUF\\shell\\open\\command");
        const QStringList open_argv = split_command(open);
        QVERIFY2(open_argv.size() >= 2 && QFileInfo(unix_of(open_argv.first())).isFile() && open_argv.contains(QStringLiteral("%1")),
                 qPrintable("the .gguf open command is " + open));
        const QString uninstall_key = QStringLiteral("HKLM\\Software\\Microsoft\\Windows\\CurrentVersion\\Uninstall\\FreeToken");
        const QString uninstaller = reg_value(uninstall_key, QStringLiteral("UninstallString"));
        QVERIFY2(QFileInfo(unix_of(split_command(uninstaller).value(0))).isFile() &&
                     uninstaller.contains(kInstDir + QStringLiteral("\\Uninstall.exe"), Qt::CaseInsensitive),
                 qPrintable("UninstallString " + uninstaller));
        const QString display_icon = reg_value(uninstall_key, QStringLiteral("DisplayIcon"));
        QVERIFY2(QFileInfo(unix_of(display_icon.section(',', 0, 0))).isFile(), qPrintable("DisplayIcon " + display_icon));

        // The user's data: the log ft.exe wrote, and a model of their own, opened as a double-click on it would
        // (the association's command with %1 its path; greedy, as the Linux chat above).
        const QString data = m_wine.local_app_data() + QStringLiteral("/FreeToken");
        QVERIFY2(QFileInfo(data + "/logs/ft.log").size() > 0, qPrintable(data + "/logs/ft.log"));
        QVERIFY(QDir().mkpath(data + "/models"));
        QVERIFY(QFile::copy(QStringLiteral(FT_SOURCE_DIR "/resources/models/freetoken-demo.gguf"), data + QStringLiteral("/models/내 모델.gguf")));
        const QString mine = QStringLiteral("C:\\users\\%1\\AppData\\Local\\FreeToken\\models\\내 모델.gguf").arg(kUser);
        const auto double_click = [&](const QString& file) {
            QStringList args = open_argv.mid(1);
            args.replaceInStrings(QStringLiteral("%1"), file);
            return m_wine.run(open_argv.first(), args + QStringList{"--device", "cpu", "--temperature", "0", "--max-tokens", "64"},
                              input, 180000, cwd);
        };
        const auto d = double_click(mine);
        QVERIFY2(d.code == 0 && !QString::fromUtf8(d.err).contains(QStringLiteral("share\\freetoken"), Qt::CaseInsensitive),
                 qPrintable(d.text()));
        QCOMPARE(QString::fromUtf8(d.out), l.out);
        // ...and it is that file the command opens: one that is not there is the clear error naming it.
        const auto gone = double_click(QString(mine).replace(QStringLiteral("내 모델"), QStringLiteral("없는 모델")));
        QVERIFY2(gone.code != 0 && QString::fromUtf8(gone.err).contains(QStringLiteral("없는 모델.gguf")), qPrintable(gone.text()));

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
        QVERIFY2(QFileInfo(data + "/logs/ft.log").size() > 0 && QFileInfo::exists(data + QStringLiteral("/models/내 모델.gguf")),
                 "the uninstaller removed the user's data folder");
    }
};

FT_WINE_TEST_MAIN(TestWineInstaller, installer())
#include "test_wine_installer.moc"
