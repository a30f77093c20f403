// Runs the `ft` binary under test (its path is FT_EXE: give ft_add_qtest the USES_FT flag) and collects its exit
// code and output. A crash or a timeout is reported as code -2 / -1.
#pragma once

#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace ft::test {

struct FtResult {
    int code = 0;
    QString out, err;
};

inline FtResult run_ft(const QStringList& args, const QByteArray& input = {}, int timeout_ms = 180000) {
    QProcess p;
    p.start(QStringLiteral(FT_EXE), args);
    if (!input.isEmpty()) p.write(input);
    p.closeWriteChannel();
    if (!p.waitForFinished(timeout_ms)) {
        p.kill();
        p.waitForFinished(5000);
        return {-1, {}, QStringLiteral("timeout")};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2, QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

}  // namespace ft::test
