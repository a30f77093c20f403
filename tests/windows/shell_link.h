// What an installer under Wine left behind, as the tests labelled windows read it: a Windows shortcut's (.lnk) target
// and arguments, a command line split as Windows splits it, the files under a folder. Shared by test_wine_installer
// (the CI installer, ft.exe only) and test_wine_app (the installer with the desktop app).
#pragma once

#include <QByteArray>
#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QString>
#include <QStringList>

#include <string>

namespace ft::test {

// What a Windows shortcut (.lnk, [MS-SHLLINK]) runs: the target from its LinkInfo (local base path + common path
// suffix) and the command-line arguments from its string data. `error` says why a file could not be read.
struct ShellLink {
    QString target, arguments, error;
};

inline ShellLink read_shell_link(const QString& file) {
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly)) return {{}, {}, QStringLiteral("cannot read the file")};
    const QByteArray b = f.readAll();
    const auto in = [&](qsizetype at, qsizetype n) { return at >= 0 && n >= 0 && at + n <= b.size(); };
    const auto u16 = [&](qsizetype at) -> quint32 { return in(at, 2) ? uchar(b[at]) | uchar(b[at + 1]) << 8 : 0; };
    const auto u32 = [&](qsizetype at) -> quint32 { return u16(at) | u16(at + 2) << 16; };
    const auto ansi_z = [&](qsizetype at) {  // NUL-terminated, in the ANSI code page (1252 in these prefixes)
        QString v;
        for (; in(at, 1) && b[at]; ++at) v += QChar(uchar(b[at]));
        return v;
    };
    const auto utf16 = [&](qsizetype at, qsizetype n) {  // n UTF-16 units, or up to a NUL when n < 0
        std::u16string v;
        for (; in(at, 2) && (n < 0 ? u16(at) != 0 : qsizetype(v.size()) < n); at += 2) v += char16_t(u16(at));
        return QString::fromStdU16String(v);
    };
    if (u32(0) != 0x4C) return {{}, {}, QStringLiteral("not a shell link (header size %1)").arg(u32(0))};
    const quint32 flags = u32(0x14);
    qsizetype at = 0x4C;
    ShellLink s;
    if (flags & 0x1) at += 2 + u16(at);  // HasLinkTargetIDList: skipped, the LinkInfo names the same file
    if (!(flags & 0x2)) return {{}, {}, QStringLiteral("no LinkInfo (link flags 0x%1)").arg(flags, 0, 16)};
    const quint32 info_size = u32(at), info_header = u32(at + 4), info_flags = u32(at + 8);
    if (!(info_flags & 0x1) || !in(at, info_size)) return {{}, {}, QStringLiteral("the LinkInfo has no local path")};
    if (info_header >= 0x24 && u32(at + 0x1C))
        s.target = utf16(at + u32(at + 0x1C), -1) + (u32(at + 0x20) ? utf16(at + u32(at + 0x20), -1) : QString());
    else
        s.target = ansi_z(at + u32(at + 0x10)) + ansi_z(at + u32(at + 0x18));
    at += info_size;
    // String data, each present by its flag: name, relative path, working dir, arguments (, icon location).
    const bool unicode = flags & 0x80;
    const auto next = [&]() {  // a count, then that many characters (Wine counts a terminating NUL in)
        const qsizetype n = u16(at);
        QString v = unicode ? utf16(at + 2, n) : QString::fromLatin1(b.mid(at + 2, n));
        at += 2 + (unicode ? 2 * n : n);
        while (v.endsWith(QChar(0))) v.chop(1);
        return v;
    };
    for (const quint32 bit : {0x04u, 0x08u, 0x10u, 0x20u}) {
        if (!(flags & bit)) continue;
        const QString v = next();
        if (bit == 0x20u) s.arguments = v;
    }
    return s;
}

// A command line as Windows' CommandLineToArgvW splits it, for the cases here: spaces apart, "quoted" as one.
inline QStringList split_command(const QString& line) {
    QStringList out;
    const QRegularExpression re(QStringLiteral("\"([^\"]*)\"|(\\S+)"));
    for (auto it = re.globalMatch(line); it.hasNext();) {
        const auto m = it.next();
        out << (m.capturedStart(1) >= 0 ? m.captured(1) : m.captured(2));
    }
    return out;
}

inline QStringList files_under(const QString& dir) {
    QStringList out;
    QDirIterator it(dir, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    while (it.hasNext()) out << it.next();
    out.sort();
    return out;
}

}  // namespace ft::test
