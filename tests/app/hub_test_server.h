// A real HTTP/1.1 server on 127.0.0.1 (QTcpServer) that speaks the part of the Hugging Face Hub API the Downloader
// uses: GET /api/models/<repo>/tree/main (JSON listing with LFS oids, optionally paged with Link: rel="next") and
// GET /<repo>/resolve/main/<path> with Range support (206 + Content-Range). Files can be set to drop the connection
// mid-body once, to be served slowly, or to be listed with a wrong oid. Repos can answer 401 (gated) or 404.
// Every request is recorded (path + Range header) so tests can check what the client really asked for.
#pragma once

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QString>
#include <QTcpServer>
#include <QTcpSocket>

namespace ft::test {

class HubTestServer : public QTcpServer {
    Q_OBJECT
public:
    struct File {
        QByteArray data;
        QString oid;            // sha256 listed (default: the real one)
        qint64 listedSize = -1; // size listed (default: data.size())
        bool lfs = true;
        int dropOnce = 0;       // > 0: the first full-body request closes the connection after this many bytes
        int chunkDelayMs = 0;   // > 0: send 64 KiB every chunkDelayMs
        bool redirect = false;  // resolve/ answers 302 to http://localhost:<port>/cdn/<repo>/<path> (another host)
    };
    struct Repo {
        QHash<QString, File> files;   // path → file
        int status = 200;             // 401 / 403 / 404: every request of this repo answers it
        QByteArray errorCode;         // X-Error-Code for such answers
        int pageSize = 0;             // > 0: the tree is paged
    };
    struct Request {
        QString path;
        QByteArray range;
        QByteArray authorization;
        QByteArray host;
    };

    HubTestServer();
    QString url() const;
    QHash<QString, Repo> repos;
    QList<Request> requests;
    int drops = 0;

private:
    void onConnection();
    void handle(QTcpSocket* s, const QByteArray& head);
    void reply(QTcpSocket* s, int status, const QByteArray& body, const QList<QPair<QByteArray, QByteArray>>& headers = {});
    void serveFile(QTcpSocket* s, File& f, const QByteArray& range);
};

}  // namespace ft::test
