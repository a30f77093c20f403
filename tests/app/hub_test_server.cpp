#include "hub_test_server.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPointer>
#include <QRegularExpression>
#include <QTimer>
#include <QUrl>
#include <QUrlQuery>

namespace ft::test {

HubTestServer::HubTestServer() {
    connect(this, &QTcpServer::newConnection, this, &HubTestServer::onConnection);
    listen(QHostAddress::LocalHost, 0);
}

QString HubTestServer::url() const { return QStringLiteral("http://127.0.0.1:%1").arg(serverPort()); }

void HubTestServer::onConnection() {
    while (QTcpSocket* s = nextPendingConnection()) {
        auto buffer = std::make_shared<QByteArray>();
        connect(s, &QTcpSocket::disconnected, s, &QObject::deleteLater);
        connect(s, &QTcpSocket::readyRead, this, [this, s, buffer] {
            buffer->append(s->readAll());
            const int end = buffer->indexOf("\r\n\r\n");
            if (end < 0) return;
            const QByteArray head = buffer->left(end);
            buffer->clear();
            handle(s, head);
        });
    }
}

void HubTestServer::reply(QTcpSocket* s, int status, const QByteArray& body,
                          const QList<QPair<QByteArray, QByteArray>>& headers) {
    QByteArray out = "HTTP/1.1 " + QByteArray::number(status) + (status < 300 ? " OK" : " Error") + "\r\n";
    out += "Content-Length: " + QByteArray::number(body.size()) + "\r\nConnection: close\r\n";
    for (const auto& [k, v] : headers) out += k + ": " + v + "\r\n";
    out += "\r\n" + body;
    s->write(out);
    s->disconnectFromHost();
}

void HubTestServer::handle(QTcpSocket* s, const QByteArray& head) {
    const QList<QByteArray> lines = head.split('\n');
    const QList<QByteArray> first = lines.value(0).trimmed().split(' ');
    const QUrl target(QString::fromLatin1(first.value(1)));
    QByteArray range, auth, host;
    for (const QByteArray& l : lines.mid(1)) {
        const int colon = l.indexOf(':');
        const QByteArray key = l.left(colon).trimmed().toLower(), value = l.mid(colon + 1).trimmed();
        if (key == "range") range = value;
        if (key == "authorization") auth = value;
        if (key == "host") host = value;
    }
    const QString path = target.path(QUrl::FullyDecoded);
    requests.append({path, range, auth, host});
    if (first.value(0) != "GET") return reply(s, 405, "only GET");

    static const QRegularExpression tree_re("^/api/models/([^/]+/[^/]+)/tree/main$");
    static const QRegularExpression file_re("^/([^/]+/[^/]+)/resolve/main/(.+)$");
    static const QRegularExpression cdn_re("^/cdn/([^/]+/[^/]+)/(.+)$");
    QString repo_id, file_path;
    bool tree = false, cdn = false;
    if (auto m = tree_re.match(path); m.hasMatch()) repo_id = m.captured(1), tree = true;
    else if (auto m2 = file_re.match(path); m2.hasMatch()) repo_id = m2.captured(1), file_path = m2.captured(2);
    else if (auto m3 = cdn_re.match(path); m3.hasMatch()) repo_id = m3.captured(1), file_path = m3.captured(2), cdn = true;
    else return reply(s, 404, "{\"error\":\"not found\"}");

    if (!repos.contains(repo_id)) return reply(s, 404, "{\"error\":\"Repository not found\"}", {{"X-Error-Code", "RepoNotFound"}});
    Repo& repo = repos[repo_id];
    if (repo.status != 200) return reply(s, repo.status, "{\"error\":\"Access restricted\"}", {{"X-Error-Code", repo.errorCode}});

    if (tree) {
        QStringList names = repo.files.keys();
        names.sort();
        int from = QUrlQuery(target).queryItemValue("cursor").toInt();
        const int to = repo.pageSize > 0 ? std::min<int>(int(names.size()), from + repo.pageSize) : int(names.size());
        QJsonArray a;
        for (int i = from; i < to; ++i) {
            const File& f = repo.files[names[i]];
            const qint64 size = f.listedSize >= 0 ? f.listedSize : f.data.size();
            QJsonObject o{{"type", "file"}, {"path", names[i]}, {"size", size},
                          {"oid", QString::fromLatin1(QCryptographicHash::hash(f.data, QCryptographicHash::Sha1).toHex())}};
            if (f.lfs) {
                const QString oid = f.oid.isEmpty()
                    ? QString::fromLatin1(QCryptographicHash::hash(f.data, QCryptographicHash::Sha256).toHex()) : f.oid;
                o["lfs"] = QJsonObject{{"oid", oid}, {"size", size}, {"pointerSize", 134}};
            }
            a.append(o);
        }
        if (from == 0) a.append(QJsonObject{{"type", "directory"}, {"path", "docs"}, {"size", 0}, {"oid", "0"}});
        QList<QPair<QByteArray, QByteArray>> headers{{"Content-Type", "application/json"}};
        if (to < names.size())
            headers.append({"Link", ("<" + url() + "/api/models/" + repo_id + "/tree/main?recursive=true&cursor=" +
                                     QString::number(to) + ">; rel=\"next\"").toUtf8()});
        return reply(s, 200, QJsonDocument(a).toJson(QJsonDocument::Compact), headers);
    }
    if (!repo.files.contains(file_path)) return reply(s, 404, "{\"error\":\"Entry not found\"}", {{"X-Error-Code", "EntryNotFound"}});
    File& f = repo.files[file_path];
    if (f.redirect && !cdn)   // like the Hub: LFS files live on a CDN under another host name
        return reply(s, 302, "", {{"Location", QStringLiteral("http://localhost:%1/cdn/%2/%3").arg(serverPort()).arg(repo_id, file_path).toUtf8()}});
    serveFile(s, f, range);
}

void HubTestServer::serveFile(QTcpSocket* s, File& f, const QByteArray& range) {
    qint64 start = 0;
    const qint64 size = f.data.size();
    static const QRegularExpression range_re("^bytes=(\\d+)-$");
    const auto m = range_re.match(QString::fromLatin1(range));
    if (!range.isEmpty() && !m.hasMatch()) return reply(s, 400, "bad range");
    if (m.hasMatch()) {
        start = m.captured(1).toLongLong();
        if (start >= size)
            return reply(s, 416, "", {{"Content-Range", "bytes */" + QByteArray::number(size)}});
    }
    QByteArray head = (m.hasMatch() ? "HTTP/1.1 206 Partial Content\r\n" : "HTTP/1.1 200 OK\r\n");
    head += "Content-Length: " + QByteArray::number(size - start) + "\r\nConnection: close\r\n";
    head += "Content-Type: application/octet-stream\r\nAccept-Ranges: bytes\r\n";
    if (m.hasMatch())
        head += "Content-Range: bytes " + QByteArray::number(start) + "-" + QByteArray::number(size - 1) + "/" +
                QByteArray::number(size) + "\r\n";
    head += "\r\n";
    s->write(head);
    qint64 end = size;
    bool drop = false;
    if (f.dropOnce > 0 && start == 0) {   // once: close after dropOnce bytes of a full-body answer
        end = std::min<qint64>(size, f.dropOnce);
        f.dropOnce = 0;
        drop = true;
        ++drops;
    }
    if (drop)  // the bytes go out first, then the connection is cut (no clean close)
        connect(s, &QTcpSocket::bytesWritten, s, [s, written = std::make_shared<qint64>(0), want = end - start + head.size()](qint64 n) {
            *written += n;
            if (*written >= want) s->abort();
        });
    if (f.chunkDelayMs <= 0) {
        s->write(f.data.mid(start, end - start));
        if (!drop) s->disconnectFromHost();
        return;
    }
    // Slowly: 64 KiB per tick, so a test can pause or stop the client in the middle.
    QPointer<QTcpSocket> sock(s);
    auto pos = std::make_shared<qint64>(start);
    auto* timer = new QTimer(this);
    const QByteArray data = f.data;
    connect(timer, &QTimer::timeout, this, [sock, pos, end, drop, data, timer] {
        if (!sock || sock->state() != QAbstractSocket::ConnectedState) {
            timer->deleteLater();
            return;
        }
        const qint64 n = std::min<qint64>(64 << 10, end - *pos);
        sock->write(data.mid(*pos, n));
        *pos += n;
        if (*pos >= end) {
            timer->deleteLater();
            if (!drop) sock->disconnectFromHost();
        }
    });
    timer->start(f.chunkDelayMs);
}

}  // namespace ft::test
