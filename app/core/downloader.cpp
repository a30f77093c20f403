#include "downloader.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QStorageInfo>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

#include "ft/error.h"
#include "ft/paths.h"
#include "ft/utf8.h"
#include "engine_text.h"
#include "model_facts.h"
#include "model_library.h"

namespace ft {

namespace {

// The reply's QNetworkReply::NetworkError by name ("HostNotFoundError"): the UI words the common ones in the user's
// language (EngineText::networkReason; Qt's errorString() is English where Qt's own catalog is not embedded).
QString network_error_key(const QNetworkReply* reply) { return EngineText::networkErrorKey(reply); }

}  // namespace

namespace {

constexpr int kMaxRetries = 5;

// "1.5 GiB" in the app's locale (its decimal sign), as EngineText words the engine's sizes.
QString human(qint64 bytes) { return QLocale().formattedDataSize(bytes, 1, QLocale::DataSizeIecFormat); }

QString files_to_json(const QList<HubFile>& files) {
    QJsonArray a;
    for (const HubFile& f : files)
        a.append(QJsonObject{{"path", f.path}, {"size", QString::number(f.size)}, {"sha256", f.sha256}});
    return QString::fromUtf8(QJsonDocument(a).toJson(QJsonDocument::Compact));
}

QList<HubFile> files_from_json(const QString& text) {
    QList<HubFile> out;
    for (const auto& v : QJsonDocument::fromJson(text.toUtf8()).array()) {
        const QJsonObject o = v.toObject();
        out.append({o["path"].toString(), o["size"].toString().toLongLong(), o["sha256"].toString()});
    }
    return out;
}

// sha256 of a file, hex; empty if it cannot be read. Runs on a worker thread.
QString sha256_of(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    QCryptographicHash h(QCryptographicHash::Sha256);
    QByteArray buf(4 << 20, Qt::Uninitialized);
    for (;;) {
        const qint64 n = f.read(buf.data(), buf.size());
        if (n < 0) return {};
        if (n == 0) break;
        h.addData(QByteArrayView(buf.constData(), n));
    }
    return QString::fromLatin1(h.result().toHex());
}

QString encode_path(const QString& path) {
    QStringList parts = path.split('/');
    for (QString& p : parts) p = QString::fromLatin1(QUrl::toPercentEncoding(p));
    return parts.join('/');
}

bool is_model_side_file(const QString& name) {
    static const QStringList suffixes = {".json", ".safetensors", ".model", ".txt", ".tiktoken", ".jinja"};
    for (const QString& s : suffixes)
        if (name.endsWith(s, Qt::CaseInsensitive)) return true;
    return false;
}

}  // namespace

struct Downloader::Job {
    DownloadStatus st;
    QList<HubFile> files;
    QList<bool> verified;
    QPointer<QNetworkReply> reply;
    std::unique_ptr<QFile> out;
    qint64 doneBefore = 0;    // bytes of the files already verified
    qint64 fileOffset = 0;    // bytes of the current file on disk when the request started
    qint64 received = 0;      // written in this request
    int retries = 0;
    bool checked = false;     // the current reply's status was looked at
    bool accept = false;      // its body goes to the file
    bool restartFromZero = false;
    int httpStatus = 0;
    qint64 lastSampleBytes = 0;
    qint64 lastSampleMs = 0;
    QElapsedTimer lastNotify;
    int attempt = 0;          // bumps with every request, so a stale retry timer does nothing
    QUrl redirect;            // where the Hub sent the current file (a CDN); re-asked for every new request series
    int redirects = 0;

    QString finalPath(int i) const { return st.folder + "/" + QFileInfo(files[i].path).fileName(); }
    QString partPath(int i) const { return finalPath(i) + ".part"; }
    void recount() {
        doneBefore = 0;
        for (int i = 0; i < files.size(); ++i)
            if (verified[i]) doneBefore += files[i].size;
        st.bytesDone = doneBefore + fileOffset + received;
    }
};

Downloader::Downloader(const QString& database_file, QObject* parent) : QObject(parent) {
    qRegisterMetaType<ft::HubEntry>();
    qRegisterMetaType<QList<ft::HubEntry>>();
    m_library = std::make_unique<ModelLibrary>(database_file);
    m_endpoint = defaultEndpoint();
    m_net.setRedirectPolicy(QNetworkRequest::NoLessSafeRedirectPolicy);
    m_sampler.setInterval(500);
    connect(&m_sampler, &QTimer::timeout, this, &Downloader::sample);
    m_sampler.start();
    loadJobs();
}

Downloader::~Downloader() {
    for (Job* j : std::as_const(m_jobs)) {
        stopTransfer(*j);
        delete j;
    }
    m_jobs.clear();
}

QString Downloader::defaultEndpoint(const QString& fromSettings) {
    const QString env = qEnvironmentVariable("FT_HF_ENDPOINT").trimmed();
    if (!env.isEmpty()) return env;
    if (!fromSettings.trimmed().isEmpty()) return fromSettings.trimmed();
    return QStringLiteral("https://huggingface.co");
}

void Downloader::setEndpoint(const QString& url) {
    QString u = url.trimmed();
    while (u.endsWith('/')) u.chop(1);
    m_endpoint = u.isEmpty() ? defaultEndpoint() : u;
}

QString Downloader::modelsFolder() const {
    return m_modelsFolder.isEmpty() ? QString::fromStdString(path_to_utf8(models_dir())) : m_modelsFolder;
}

QString Downloader::parseRepoId(const QString& input, QString* error) {
    QString s = input.trimmed();
    static const QRegularExpression url_re("^https?://[^/]+/(.*)$");
    const auto m = url_re.match(s);
    if (m.hasMatch()) {
        s = m.captured(1);
        if (s.startsWith("models/")) s = s.mid(7);
    }
    QStringList parts = s.split('/', Qt::SkipEmptyParts);
    static const QRegularExpression name_re("^[A-Za-z0-9][A-Za-z0-9._-]*$");
    if (parts.size() >= 2 && name_re.match(parts[0]).hasMatch() && name_re.match(parts[1]).hasMatch() &&
        (parts.size() == 2 || QStringList{"tree", "blob", "resolve"}.contains(parts[2])))
        return parts[0] + "/" + parts[1];
    if (error)
        *error = QStringLiteral("\"%1\" is not a Hugging Face repository: enter owner/name (Qwen/Qwen3-30B-A3B-GGUF) or "
                                "paste the repository's URL").arg(input.trimmed());
    return {};
}

QList<HubEntry> Downloader::entriesFromTree(const QList<HubFile>& files) {
    QList<HubEntry> out;
    QMap<QString, HubEntry> splits;  // "<dir>/<stem>|<count>" → its parts
    QMap<QString, QMap<int, HubFile>> split_parts;
    bool has_config = false, has_weights = false;
    HubEntry whole{QStringLiteral("safetensors"), QStringLiteral("whole repository (safetensors)"), {}, 0};
    for (const HubFile& f : files) {
        const QString name = QFileInfo(f.path).fileName();
        const bool at_root = !f.path.contains('/');
        if (name.endsWith(".gguf", Qt::CaseInsensitive)) {
            std::string stem;
            int part = 0, count = 0;
            if (parse_split_gguf_name(name.toStdString(), stem, part, count) && count > 1) {
                const QString dir = QFileInfo(f.path).path();
                const QString key = dir + "/" + QString::fromStdString(stem) + "|" + QString::number(count);
                HubEntry& e = splits[key];
                e.kind = "gguf";
                e.label = QStringLiteral("%1 (%2 parts)").arg(QString::fromStdString(stem)).arg(count);
                split_parts[key][part] = f;
            } else {
                out.append({QStringLiteral("gguf"), f.path, {f}, f.size});
            }
            continue;
        }
        if (!at_root) continue;
        if (name == "config.json") has_config = true;
        if (name.endsWith(".safetensors", Qt::CaseInsensitive)) has_weights = true;
        if (is_model_side_file(name)) whole.files.append(f);
    }
    for (auto it = splits.begin(); it != splits.end(); ++it) {
        const QMap<int, HubFile>& parts = split_parts[it.key()];
        const int count = it.key().section('|', -1).toInt();
        if (parts.size() != count) continue;  // an incomplete upload: not offered
        HubEntry e = it.value();
        for (const HubFile& f : parts) {
            e.files.append(f);
            e.totalBytes += f.size;
        }
        out.append(e);
    }
    std::sort(out.begin(), out.end(), [](const HubEntry& a, const HubEntry& b) { return a.label < b.label; });
    if (has_config && has_weights) {
        for (const HubFile& f : whole.files) whole.totalBytes += f.size;
        out.append(whole);
    }
    return out;
}

QNetworkRequest Downloader::request(const QUrl& url) const {
    QNetworkRequest r(url);
    r.setHeader(QNetworkRequest::UserAgentHeader, QStringLiteral("FreeToken-Desktop"));
    r.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::NoLessSafeRedirectPolicy);
    // The token goes to the Hub only, never to the CDN a file download is redirected to.
    if (!m_token.isEmpty() && url.host().compare(QUrl(m_endpoint).host(), Qt::CaseInsensitive) == 0)
        r.setRawHeader("Authorization", "Bearer " + m_token.toUtf8());
    r.setTransferTimeout(60000);
    return r;
}

void Downloader::httpError(int status, const QString& what, const QByteArray& hubCode, QString& code,
                           QStringList& args, QString& text) const {
    args = {what, QString::number(status)};
    if (status == 401 || status == 403) {
        if (m_token.isEmpty() || hubCode.startsWith("Gated")) {
            code = "gated";
            text = QStringLiteral("%1 is gated or private (HTTP %2): accept its licence on the Hugging Face website, "
                                  "then enter an access token in Settings").arg(what).arg(status);
        } else {
            code = "token_refused";
            text = QStringLiteral("the access token was refused for %1 (HTTP %2): check the token in Settings and that "
                                  "it may read this repository").arg(what).arg(status);
        }
    } else if (status == 404) {
        code = "not_found";
        text = QStringLiteral("%1 was not found (HTTP 404): check the repository name and that the file still exists")
                   .arg(what);
    } else {
        code = "http";
        text = QStringLiteral("%1 failed: the server answered HTTP %2; try again later").arg(what).arg(status);
    }
}

// ---- listing --------------------------------------------------------------------------------------------------

void Downloader::listFiles(const QString& repoOrUrl) {
    QString error;
    const QString repo = parseRepoId(repoOrUrl, &error);
    if (repo.isEmpty()) {
        QMetaObject::invokeMethod(this, [this, input = repoOrUrl.trimmed(), error] {
            emit listFailed(input, "bad_repo", {input}, error);
        }, Qt::QueuedConnection);
        return;
    }
    const QUrl url(m_endpoint + "/api/models/" + repo + "/tree/main?recursive=true");
    listPage(repo, url, std::make_shared<QList<HubFile>>());
}

void Downloader::listPage(const QString& repo, const QUrl& url, std::shared_ptr<QList<HubFile>> acc) {
    QNetworkReply* reply = m_net.get(request(url));
    connect(reply, &QNetworkReply::finished, this, [this, reply, repo, acc] {
        reply->deleteLater();
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status == 0) {
            // "network_list": nothing started, so there is nothing to resume (the download's "network" says resume).
            emit listFailed(repo, "network_list", {m_endpoint, reply->errorString(), network_error_key(reply)},
                            QStringLiteral("cannot reach %1: %2 — check the network connection (or the Hugging Face "
                                           "address in Settings)").arg(m_endpoint, reply->errorString()));
            return;
        }
        if (status >= 400) {
            QString code, text;
            QStringList args;
            httpError(status, repo, reply->rawHeader("X-Error-Code"), code, args, text);
            emit listFailed(repo, code, args, text);
            return;
        }
        QJsonParseError perr{};
        const QJsonDocument doc = QJsonDocument::fromJson(reply->readAll(), &perr);
        if (perr.error != QJsonParseError::NoError || !doc.isArray()) {
            emit listFailed(repo, "bad_listing", {repo, m_endpoint},
                            QStringLiteral("the file list of %1 from %2 is not what the Hub API returns; check the "
                                           "Hugging Face address in Settings").arg(repo, m_endpoint));
            return;
        }
        for (const auto& v : doc.array()) {
            const QJsonObject o = v.toObject();
            if (o["type"].toString() != "file") continue;
            HubFile f;
            f.path = o["path"].toString();
            f.size = o["size"].toVariant().toLongLong();
            const QJsonObject lfs = o["lfs"].toObject();
            if (!lfs.isEmpty()) {
                f.sha256 = lfs["oid"].toString();
                if (lfs.contains("size")) f.size = lfs["size"].toVariant().toLongLong();
            }
            if (!f.path.isEmpty()) acc->append(f);
        }
        // Large repositories are paged: Link: <url>; rel="next"
        static const QRegularExpression next_re("<([^>]+)>\\s*;\\s*rel=\"next\"");
        const auto m = next_re.match(QString::fromUtf8(reply->rawHeader("Link")));
        if (m.hasMatch()) {
            QUrl next(m.captured(1));
            if (next.isRelative()) next = QUrl(m_endpoint).resolved(next);
            listPage(repo, next, acc);
            return;
        }
        const QList<HubEntry> entries = entriesFromTree(*acc);
        if (entries.isEmpty()) {
            emit listFailed(repo, "nothing", {repo},
                            QStringLiteral("%1 has no GGUF files and is not a safetensors model: pick another "
                                           "repository (GGUF repositories often end in -GGUF)").arg(repo));
            return;
        }
        emit filesListed(repo, entries);
    });
}

// ---- downloads ------------------------------------------------------------------------------------------------

Downloader::Job* Downloader::job(qint64 id) const { return m_jobs.value(id, nullptr); }

void Downloader::loadJobs() {
    QSqlQuery query(QSqlDatabase::database(m_library->connectionName()));
    if (!query.exec("SELECT id, repo, label, kind, folder, model_path, files, state, error FROM downloads ORDER BY id"))
        throw Error(ErrorCode::io, ("cannot read the downloads: " + query.lastError().text()).toStdString(),
                    "check that the data folder is writable");
    QList<qint64> resume;
    while (query.next()) {
        auto* j = new Job;
        j->st.id = query.value(0).toLongLong();
        j->st.repo = query.value(1).toString();
        j->st.label = query.value(2).toString();
        j->st.kind = query.value(3).toString();
        j->st.folder = query.value(4).toString();
        j->st.modelPath = query.value(5).toString();
        j->files = files_from_json(query.value(6).toString());
        j->st.state = query.value(7).toString();
        j->st.error = query.value(8).toString();
        j->st.fileCount = int(j->files.size());
        for (const HubFile& f : j->files) {
            j->st.bytesTotal += f.size;
            j->verified.append(false);
        }
        // What is on disk: whole files were verified before they were renamed; a .part counts as progress.
        for (int i = 0; i < j->files.size(); ++i) {
            const QFileInfo fin(j->finalPath(i));
            if (fin.exists() && fin.size() == j->files[i].size) j->verified[i] = true;
            else if (QFileInfo::exists(j->partPath(i))) j->fileOffset += QFileInfo(j->partPath(i)).size();
        }
        j->recount();
        if (j->st.state == "failed" && j->st.error.isEmpty()) j->st.error = "interrupted";
        m_order.append(j->st.id);
        m_jobs.insert(j->st.id, j);
        if (j->st.state == "downloading" || j->st.state == "verifying") resume.append(j->st.id);
    }
    // Started after the constructor returns, so whoever made us can connect first.
    if (!resume.isEmpty())
        QMetaObject::invokeMethod(this, [this, resume] {
            for (qint64 id : resume)
                if (Job* j = job(id)) {
                    j->fileOffset = 0;
                    j->received = 0;
                    startNextFile(*j);
                }
        }, Qt::QueuedConnection);
}

void Downloader::saveState(Job& j) {
    QSqlQuery query(QSqlDatabase::database(m_library->connectionName()));
    query.prepare("UPDATE downloads SET state = ?, error = ? WHERE id = ?");
    query.addBindValue(j.st.state);
    query.addBindValue(j.st.error);
    query.addBindValue(j.st.id);
    query.exec();  // a failed write only loses the resume-after-restart of this state change
}

qint64 Downloader::start(const QString& repo_in, const HubEntry& entry, QString* error) {
    const QString repo = parseRepoId(repo_in, error);
    if (repo.isEmpty()) return 0;
    if (entry.files.isEmpty()) {
        if (error) *error = QStringLiteral("nothing to download: pick a file of the repository");
        return 0;
    }
    for (const Job* j : std::as_const(m_jobs))
        if (j->st.repo == repo && j->st.label == entry.label && j->st.state != "done") {
            if (error) *error = QStringLiteral("%1 of %2 is already in the downloads list").arg(entry.label, repo);
            return 0;
        }
    const QString folder = QDir::cleanPath(modelsFolder() + "/" + QString(repo).replace('/', "__"));
    if (!QDir().mkpath(folder)) {
        if (error) *error = QStringLiteral("cannot create the folder %1: check the permissions of the models folder").arg(folder);
        return 0;
    }
    const QString model_path = entry.kind == "gguf" ? folder + "/" + QFileInfo(entry.files.first().path).fileName() : folder;

    QSqlQuery query(QSqlDatabase::database(m_library->connectionName()));
    query.prepare("INSERT INTO downloads (repo, label, kind, folder, model_path, files, state, error, created_at)"
                  " VALUES (?, ?, ?, ?, ?, ?, 'downloading', '', ?)");
    query.addBindValue(repo);
    query.addBindValue(entry.label);
    query.addBindValue(entry.kind);
    query.addBindValue(folder);
    query.addBindValue(model_path);
    query.addBindValue(files_to_json(entry.files));
    query.addBindValue(QDateTime::currentDateTimeUtc().toString(Qt::ISODate));
    if (!query.exec()) {
        if (error) *error = QStringLiteral("cannot record the download: %1").arg(query.lastError().text());
        return 0;
    }
    auto* j = new Job;
    j->st.id = query.lastInsertId().toLongLong();
    j->st.repo = repo;
    j->st.label = entry.label;
    j->st.kind = entry.kind;
    j->st.folder = folder;
    j->st.modelPath = model_path;
    j->st.state = "downloading";
    j->files = entry.files;
    j->st.fileCount = int(entry.files.size());
    for (const HubFile& f : entry.files) {
        j->st.bytesTotal += f.size;
        j->verified.append(false);
    }
    m_order.append(j->st.id);
    m_jobs.insert(j->st.id, j);
    emit downloadAdded(j->st.id);
    startNextFile(*j);
    return j->st.id;
}

void Downloader::startNextFile(Job& j) {
    j.fileOffset = 0;
    j.received = 0;
    j.redirect = QUrl();
    j.redirects = 0;
    int next = -1;
    for (int i = 0; i < j.files.size(); ++i) {
        if (j.verified[i]) continue;
        const QFileInfo fin(j.finalPath(i));
        if (fin.exists() && fin.size() == j.files[i].size) {  // renamed into place only after its check
            j.verified[i] = true;
            continue;
        }
        next = i;
        break;
    }
    j.recount();
    if (next < 0) {
        finishJob(j);
        return;
    }
    j.st.fileIndex = next;
    j.st.state = "downloading";
    j.st.error.clear();
    j.st.errorCode.clear();
    j.st.errorArgs.clear();
    const HubFile& f = j.files[next];
    const QString part = j.partPath(next);
    qint64 have = QFileInfo::exists(part) ? QFileInfo(part).size() : 0;
    if (have > f.size) {
        QFile::remove(part);
        have = 0;
    }
    j.fileOffset = have;
    j.recount();
    saveState(j);
    if (have == f.size) {
        verifyFile(j);
        return;
    }
    // Room for what is left of this download (all its files), plus a little.
    qint64 left = 0;
    for (int i = next; i < j.files.size(); ++i) {
        if (j.verified[i]) continue;
        left += j.files[i].size - (i == next ? have : 0);
    }
    const QStorageInfo disk(j.st.folder);
    if (disk.isValid() && disk.bytesAvailable() >= 0 && disk.bytesAvailable() < left + (16 << 20)) {
        fail(j, "disk_full", {human(left), human(disk.bytesAvailable()), disk.rootPath()},
             QStringLiteral("not enough disk space: the download needs %1 more, %2 is free on %3 — free some space "
                            "(or choose another data folder), then resume").arg(human(left), human(disk.bytesAvailable()),
                                                                               disk.rootPath()));
        return;
    }
    startRequest(j);
}

void Downloader::startRequest(Job& j) {
    const int i = j.st.fileIndex;
    const HubFile& f = j.files[i];
    j.out = std::make_unique<QFile>(j.partPath(i));
    if (!j.out->open(QIODevice::WriteOnly | QIODevice::Append)) {
        fail(j, "write_failed", {j.partPath(i), j.out->errorString()},
             QStringLiteral("cannot write %1: %2 — check the permissions of the models folder").arg(j.partPath(i), j.out->errorString()));
        return;
    }
    j.fileOffset = j.out->size();
    j.received = 0;
    j.checked = j.accept = j.restartFromZero = false;
    j.httpStatus = 0;
    ++j.attempt;
    const QUrl url = j.redirect.isValid() ? j.redirect
                                          : QUrl(m_endpoint + "/" + j.st.repo + "/resolve/main/" + encode_path(f.path));
    QNetworkRequest r = request(url);
    // Redirects are followed here (not by Qt), so the Range header goes along and the token does not.
    r.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    if (j.fileOffset > 0) r.setRawHeader("Range", "bytes=" + QByteArray::number(j.fileOffset) + "-");
    QNetworkReply* reply = m_net.get(r);
    j.reply = reply;
    const qint64 id = j.st.id;
    connect(reply, &QNetworkReply::readyRead, this, [this, id, reply] {
        if (Job* jj = job(id); jj && jj->reply == reply) onReadyRead(*jj);
    });
    connect(reply, &QNetworkReply::finished, this, [this, id, reply] {
        reply->deleteLater();
        if (Job* jj = job(id); jj && jj->reply == reply) onReplyFinished(*jj);
    });
    notify(j, true);
}

void Downloader::onReadyRead(Job& j) {
    QNetworkReply* reply = j.reply;
    if (!j.checked) {
        j.checked = true;
        j.httpStatus = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (j.httpStatus == 206) {
            static const QRegularExpression range_re("bytes\\s+(\\d+)-");
            const auto m = range_re.match(QString::fromLatin1(reply->rawHeader("Content-Range")));
            j.accept = m.hasMatch() && m.captured(1).toLongLong() == j.fileOffset;
            if (!j.accept) j.restartFromZero = true;   // a range we did not ask for: start the file again
        } else if (j.httpStatus == 200) {
            if (j.fileOffset > 0) {   // the server ignored Range: the body is the whole file
                j.out->resize(0);
                j.fileOffset = 0;
            }
            j.accept = true;
        }
        if (j.restartFromZero) {
            reply->abort();
            return;
        }
    }
    const QByteArray data = reply->readAll();
    if (!j.accept) return;   // an error page: finished() reports it
    const qint64 room = j.files[j.st.fileIndex].size - j.fileOffset - j.received;
    if (data.size() > room) {
        reply->abort();
        j.accept = false;
        j.restartFromZero = true;
        return;
    }
    if (j.out->write(data) != data.size() || !j.out->flush()) {
        const QString why = j.out->errorString();
        const QStorageInfo disk(j.st.folder);
        j.reply = nullptr;
        reply->abort();
        j.out->close();
        if (disk.isValid() && disk.bytesAvailable() < (16 << 20))
            fail(j, "disk_full", {human(j.st.bytesTotal - j.st.bytesDone), human(disk.bytesAvailable()), disk.rootPath()},
                 QStringLiteral("the disk is full (%1 free on %3; %2 still to download) — free some space, then resume")
                     .arg(human(disk.bytesAvailable()), human(j.st.bytesTotal - j.st.bytesDone), disk.rootPath()));
        else
            fail(j, "write_failed", {j.out->fileName(), why},
                 QStringLiteral("cannot write %1: %2 — check the disk, then resume").arg(j.out->fileName(), why));
        return;
    }
    j.received += data.size();
    j.st.bytesDone = j.doneBefore + j.fileOffset + j.received;
    notify(j);
}

void Downloader::onReplyFinished(Job& j) {
    QNetworkReply* reply = j.reply;
    j.reply = nullptr;
    if (reply && reply->bytesAvailable() > 0) {
        j.reply = reply;
        onReadyRead(j);
        j.reply = nullptr;
        if (j.st.state == "failed") return;
    }
    if (j.out) j.out->close();
    const int i = j.st.fileIndex;
    const HubFile& f = j.files[i];
    const int status = reply ? reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() : 0;
    const qint64 on_disk = QFileInfo(j.partPath(i)).size();
    if (j.restartFromZero) {
        QFile::remove(j.partPath(i));
        if (j.retries++ >= kMaxRetries) {
            fail(j, "bad_size", {f.path}, QStringLiteral("the server keeps sending %1 in pieces that do not fit; try again later").arg(f.path));
            return;
        }
        startNextFile(j);
        return;
    }
    if (status >= 300 && status < 400 && reply && reply->hasRawHeader("Location")) {
        if (++j.redirects > 8) {
            fail(j, "http", {j.st.repo + "/" + f.path, QString::number(status)},
                 QStringLiteral("%1: too many redirects; try again later").arg(f.path));
            return;
        }
        j.redirect = reply->url().resolved(QUrl::fromEncoded(reply->rawHeader("Location")));
        startRequest(j);
        return;
    }
    if (status == 416) {   // our range starts at or past the end
        if (on_disk != f.size) QFile::remove(j.partPath(i));
        startNextFile(j);
        return;
    }
    if (status >= 400) {
        QString code, text;
        QStringList args;
        httpError(status, j.st.repo + "/" + f.path, reply->rawHeader("X-Error-Code"), code, args, text);
        fail(j, code, args, text);
        return;
    }
    if (on_disk == f.size && (status == 200 || status == 206)) {
        j.retries = 0;
        verifyFile(j);
        return;
    }
    if (on_disk > f.size) {
        QFile::remove(j.partPath(i));
        fail(j, "bad_size", {f.path}, QStringLiteral("the server sent more of %1 than the file list said; try again").arg(f.path));
        return;
    }
    // Dropped (or ended early): try again from what is on disk, a few times, waiting a little longer each time.
    if (j.received > 0) j.retries = 0;
    if (++j.retries > kMaxRetries) {
        const QString why = reply ? reply->errorString() : QStringLiteral("connection closed");
        fail(j, "network", {f.path, why, reply ? network_error_key(reply) : QStringLiteral("RemoteHostClosedError")},
             QStringLiteral("the download of %1 keeps failing (%2) — check the network connection, then resume").arg(f.path, why));
        return;
    }
    const int attempt = j.attempt;
    const qint64 id = j.st.id;
    QTimer::singleShot(m_retryDelayMs * j.retries, this, [this, id, attempt] {
        Job* jj = job(id);
        if (jj && jj->attempt == attempt && jj->st.state == "downloading" && !jj->reply) startNextFile(*jj);
    });
}

void Downloader::verifyFile(Job& j) {
    const int i = j.st.fileIndex;
    j.st.state = "verifying";
    j.st.bytesPerSecond = 0;
    saveState(j);
    notify(j, true);
    const QString part = j.partPath(i);
    const QString expected = j.files[i].sha256.toLower();
    const qint64 id = j.st.id;
    const int attempt = ++j.attempt;
    auto* watcher = new QFutureWatcher<QString>(this);
    connect(watcher, &QFutureWatcher<QString>::finished, this, [this, watcher, id, i, expected, attempt] {
        watcher->deleteLater();
        const QString actual = watcher->result();
        Job* jj = job(id);
        if (!jj || jj->attempt != attempt || jj->st.state != "verifying") return;   // cancelled or paused meanwhile
        onVerified(id, i, expected.isEmpty() || actual == expected, actual);
    });
    watcher->setFuture(QtConcurrent::run([part, expected] { return expected.isEmpty() ? QString() : sha256_of(part); }));
}

void Downloader::onVerified(qint64 id, int i, bool ok, const QString& actual) {
    Job* j = job(id);
    if (!j) return;
    const QString part = j->partPath(i), final_path = j->finalPath(i);
    if (!ok) {
        QFile::remove(part);
        const QString name = QFileInfo(final_path).fileName();
        fail(*j, "hash_mismatch", {name, actual.isEmpty() ? QStringLiteral("?") : actual, j->files[i].sha256},
             QStringLiteral("%1 arrived corrupted: its sha256 is %2, the Hub lists %3. The damaged file was deleted — "
                            "resume to download it again").arg(name, actual.isEmpty() ? QStringLiteral("unreadable") : actual,
                                                               j->files[i].sha256));
        return;
    }
    QFile::remove(final_path);
    if (!QFile::rename(part, final_path)) {
        fail(*j, "write_failed", {final_path, QStringLiteral("rename failed")},
             QStringLiteral("cannot move the finished file into place as %1 — check the folder's permissions, then resume").arg(final_path));
        return;
    }
    j->verified[i] = true;
    startNextFile(*j);
}

void Downloader::finishJob(Job& j) {
    j.st.state = "done";
    j.st.bytesPerSecond = 0;
    j.st.etaSeconds = 0;
    j.st.bytesDone = j.st.bytesTotal;
    saveState(j);
    try {
        m_library->add(j.st.modelPath, QStringLiteral("download"));
    } catch (const Error& e) {
        if (e.code() != ErrorCode::invalid_argument) {   // "already in the library" is fine
            fail(j, "library", {j.st.modelPath, QString::fromStdString(e.message())},
                 QStringLiteral("downloaded, but the library refused %1: %2").arg(j.st.modelPath, QString::fromStdString(e.message())));
            return;
        }
    }
    notify(j, true);
    emit downloadFinished(j.st.id, j.st.modelPath);
}

void Downloader::fail(Job& j, const QString& code, const QStringList& args, const QString& error) {
    stopTransfer(j);
    j.st.state = "failed";
    j.st.error = error;
    j.st.errorCode = code;
    j.st.errorArgs = args;
    j.st.bytesPerSecond = 0;
    j.st.etaSeconds = -1;
    j.recount();
    saveState(j);
    notify(j, true);
    emit downloadFailed(j.st.id, error);
}

void Downloader::stopTransfer(Job& j) {
    ++j.attempt;
    if (QNetworkReply* r = j.reply) {
        j.reply = nullptr;
        r->disconnect(this);
        r->abort();
        r->deleteLater();
    }
    if (j.out) {
        j.out->close();
        j.out.reset();
    }
    j.fileOffset += j.received;
    j.received = 0;
}

void Downloader::pause(qint64 id) {
    Job* j = job(id);
    if (!j || (j->st.state != "downloading" && j->st.state != "verifying")) return;
    stopTransfer(*j);
    j->st.state = "paused";
    j->st.bytesPerSecond = 0;
    j->st.etaSeconds = -1;
    saveState(*j);
    notify(*j, true);
}

void Downloader::resume(qint64 id) {
    Job* j = job(id);
    if (!j || (j->st.state != "paused" && j->st.state != "failed")) return;
    j->retries = 0;
    j->lastSampleBytes = j->st.bytesDone;
    startNextFile(*j);
}

void Downloader::cancel(qint64 id) {
    Job* j = job(id);
    if (!j) return;
    stopTransfer(*j);
    if (j->st.state != "done") {
        for (int i = 0; i < j->files.size(); ++i) {
            QFile::remove(j->partPath(i));
            QFile::remove(j->finalPath(i));
        }
        QDir().rmdir(j->st.folder);   // only if empty
    }
    forget(id);
}

void Downloader::forget(qint64 id) {
    Job* j = job(id);
    if (!j) return;
    stopTransfer(*j);
    QSqlQuery query(QSqlDatabase::database(m_library->connectionName()));
    query.prepare("DELETE FROM downloads WHERE id = ?");
    query.addBindValue(id);
    query.exec();
    m_jobs.remove(id);
    m_order.removeAll(id);
    delete j;
    emit downloadRemoved(id);
}

void Downloader::sample() {
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    for (Job* j : std::as_const(m_jobs)) {
        if (j->st.state != "downloading") {
            j->lastSampleMs = 0;
            continue;
        }
        if (j->lastSampleMs == 0) {
            j->lastSampleMs = now;
            j->lastSampleBytes = j->st.bytesDone;
            continue;
        }
        const double dt = (now - j->lastSampleMs) / 1000.0;
        if (dt <= 0) continue;
        const double rate = std::max<qint64>(0, j->st.bytesDone - j->lastSampleBytes) / dt;
        j->st.bytesPerSecond = j->st.bytesPerSecond <= 0 ? rate : 0.7 * j->st.bytesPerSecond + 0.3 * rate;
        j->st.etaSeconds = j->st.bytesPerSecond > 1 ? (j->st.bytesTotal - j->st.bytesDone) / j->st.bytesPerSecond : -1;
        j->lastSampleMs = now;
        j->lastSampleBytes = j->st.bytesDone;
        notify(*j, true);
    }
}

void Downloader::notify(Job& j, bool force) {
    if (!force && j.lastNotify.isValid() && j.lastNotify.elapsed() < 100) return;
    j.lastNotify.start();
    emit downloadChanged(j.st.id);
}

QList<DownloadStatus> Downloader::downloads() const {
    QList<DownloadStatus> out;
    for (qint64 id : m_order)
        if (const Job* j = job(id)) out.append(j->st);
    return out;
}

DownloadStatus Downloader::status(qint64 id) const {
    const Job* j = job(id);
    return j ? j->st : DownloadStatus{};
}

}  // namespace ft
