// A running `ft serve` (FT_EXE: give ft_add_qtest the USES_FT flag) on a free port: start() waits for its
// "listening on URL" line; the process is stopped (SIGTERM, then kill) when the object goes out of scope. Its stdout
// and stderr go to a file (the OS writes it whatever the test is waiting on, so a chatty server never blocks on a
// full pipe); log() reads what it has written so far.
#pragma once

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

namespace ft::test {

struct ServeProcess {
    QProcess proc;
    QTemporaryDir dir;
    QString url, out;  // out: everything the server printed up to the last start()/log()

    // `args` follow "serve --port 0"; false if it exited or printed no URL within 60 s (out says why).
    bool start(const QStringList& args) {
        proc.setProcessChannelMode(QProcess::MergedChannels);
        proc.setStandardOutputFile(dir.filePath(QStringLiteral("serve.log")));
        proc.start(QStringLiteral(FT_EXE), QStringList{"serve", "--port", "0"} + args);
        if (!proc.waitForStarted(10000)) return false;
        const QRegularExpression re(QStringLiteral("listening on (http://\\S+)"));
        for (int i = 0; i < 600; ++i) {
            proc.waitForFinished(100);
            const auto m = re.match(log());
            if (m.hasMatch()) {
                url = m.captured(1);
                return true;
            }
            if (proc.state() == QProcess::NotRunning) return false;
        }
        return false;
    }
    // What the server printed since start (its request log included).
    QString log() {
        QFile f(dir.filePath(QStringLiteral("serve.log")));
        if (f.open(QIODevice::ReadOnly)) out = QString::fromUtf8(f.readAll());
        return out;
    }
    ~ServeProcess() {
        if (proc.state() != QProcess::NotRunning) {
            proc.terminate();
            if (!proc.waitForFinished(10000)) {
                proc.kill();
                proc.waitForFinished(5000);
            }
        }
    }
};

}  // namespace ft::test
