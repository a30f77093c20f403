#include "single_instance.h"

#include <QCryptographicHash>
#include <QDir>
#include <QLocalServer>
#include <QLocalSocket>
#include <QMessageBox>

#include <algorithm>
#include <cstdio>

#include "ft/error.h"
#include "ft/paths.h"
#include "ft/utf8.h"

namespace ft::app {

namespace {

constexpr int kMaxLine = 64 * 1024;  // a path, with room to spare; a longer line is not ours
const QByteArray kOpen = QByteArrayLiteral("open ");

}  // namespace

SingleInstance::SingleInstance(QObject* parent) : QObject(parent) {
    QByteArray dir;
    try {
        dir = QByteArray::fromStdString(ft::path_to_utf8(ft::data_dir()));
    } catch (const ft::Error&) {
        return;  // no name: nothing to hand over to, nor to listen on; the app reports the folder when it opens its log
    }
    m_name = QStringLiteral("freetoken-") +
             QString::fromLatin1(QCryptographicHash::hash(dir, QCryptographicHash::Sha256).toHex().left(24));
}

SingleInstance::~SingleInstance() = default;

SingleInstance::HandOver SingleInstance::handOver(const QString& path, int timeout_ms) {
    if (m_name.isEmpty()) return HandOver::NoneRunning;
    QLocalSocket socket;
    socket.connectToServer(m_name);
    if (!socket.waitForConnected(std::min(timeout_ms, 2000))) return HandOver::NoneRunning;
    socket.write(kOpen + path.toUtf8() + '\n');
    if (!socket.waitForBytesWritten(timeout_ms)) return HandOver::NoAnswer;
    QByteArray reply;
    while (!reply.contains('\n') && socket.waitForReadyRead(timeout_ms)) reply += socket.readAll();
    socket.disconnectFromServer();
    return reply.startsWith("ok\n") ? HandOver::Handed : HandOver::NoAnswer;
}

bool SingleInstance::listen(QString& error) {
    if (m_name.isEmpty()) {
        error = QStringLiteral("the data folder cannot be created");
        return false;
    }
    m_server = new QLocalServer(this);
    m_server->setSocketOptions(QLocalServer::UserAccessOption);
    bool ok = m_server->listen(m_name);
    if (!ok && m_server->serverError() == QAbstractSocket::AddressInUseError) {
        // The socket file of an app that crashed (handOver found nobody listening on it): removed, then again.
        QLocalServer::removeServer(m_name);
        ok = m_server->listen(m_name);
    }
    if (!ok) {
        error = m_server->errorString();
        return false;
    }
    connect(m_server, &QLocalServer::newConnection, this, &SingleInstance::onConnection);
    return true;
}

QString SingleInstance::noAnswerText(int seconds, const QString& path) {
    if (path.isEmpty()) return tr("FreeToken is already running but did not answer within %1 seconds.").arg(seconds);
    return tr("FreeToken is already running but did not answer within %1 seconds, so it did not open %2.")
        .arg(seconds)
        .arg(QDir::toNativeSeparators(path));
}

QString SingleInstance::noAnswerAdvice() {
#ifdef _WIN32
    return tr("Close the FreeToken window that is open. If none shows, end freetoken.exe in the Task Manager "
              "(Ctrl+Shift+Esc, Details). Then start FreeToken again.");
#else
    return tr("Close the FreeToken window that is open. If none shows, end the freetoken process (for example "
              "with the system monitor, or pkill -x freetoken). Then start FreeToken again.");
#endif
}

void SingleInstance::reportNoAnswer(int seconds, const QString& path) {
    const QString text = noAnswerText(seconds, path);
    const QString advice = noAnswerAdvice();
    std::fprintf(stderr, "freetoken: %s\n  %s\n", qUtf8Printable(text), qUtf8Printable(advice));
    std::fflush(stderr);
    QMessageBox box(QMessageBox::Warning, QStringLiteral("FreeToken"), text, QMessageBox::Ok);
    box.setInformativeText(advice);
    box.exec();
}

void SingleInstance::onConnection() {
    while (QLocalSocket* socket = m_server->nextPendingConnection()) {
        connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
        connect(socket, &QLocalSocket::readyRead, this, [this, socket] {
            if (!socket->canReadLine()) {
                if (socket->bytesAvailable() > kMaxLine) socket->abort();
                return;
            }
            QByteArray line = socket->readLine(kMaxLine);
            if (!line.startsWith(kOpen) || !line.endsWith('\n')) {
                socket->abort();
                return;
            }
            line.chop(1);
            // The second start closes the connection once it has read this (closing it from here first could drop
            // the answer on a Windows pipe).
            socket->write("ok\n");
            socket->flush();
            emit openRequested(QString::fromUtf8(line.mid(kOpen.size())));
        });
    }
}

}  // namespace ft::app
