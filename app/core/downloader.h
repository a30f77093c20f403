// Downloader: models from the Hugging Face Hub (or any server speaking its API: FT_HF_ENDPOINT / Settings).
//
// listFiles() asks GET <endpoint>/api/models/<repo>/tree/main?recursive=true (following the Link: rel="next" pages)
// and turns the listing into what a user can pick: each GGUF file, each split GGUF (name-0000K-of-0000N.gguf) as one
// entry of N parts, and the whole repository when it is a safetensors model (config.json + *.safetensors + the
// tokenizer files). start() downloads an entry into <models>/<owner>__<name>/ from <endpoint>/<repo>/resolve/main/
// <path>, one file at a time, into "<file>.part" with HTTP Range requests: a dropped connection, pause/resume and an
// app restart all continue from the bytes on disk. A finished file's sha256 is compared with its LFS oid on a worker
// thread (QtConcurrent) before it is renamed into place; a finished download is added to the ModelLibrary.
//
// State lives in SQLite (the library's database, table downloads, schema 2): a Downloader created on the same
// database resumes the downloads that were running and keeps paused ones paused.
//
// Errors (the `error` of a download, and listFailed's message) name the problem and what to do: 404 (no such
// repository or file), 401/403 (gated or private: accept the licence on the Hub and set an access token in
// Settings), not enough disk space, a write failure, a hash mismatch (the partial file is deleted), network errors
// after the retries. Threading: a GUI-thread (any one thread) QObject; signals are emitted on that thread.
#pragma once

#include <QElapsedTimer>
#include <QHash>
#include <QList>
#include <QNetworkAccessManager>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <memory>

class QFile;
class QNetworkReply;

namespace ft {

class ModelLibrary;

struct HubFile {
    QString path;      // in the repository ("Q4_K_M/model-00001-of-00002.gguf")
    qint64 size = 0;
    QString sha256;    // the LFS oid (hex); empty for small non-LFS files (not checked)
};

struct HubEntry {
    QString kind;      // "gguf" or "safetensors"
    QString label;     // what the user picks: a file name, "name (3 parts)", "whole repository (safetensors)"
    QList<HubFile> files;
    qint64 totalBytes = 0;
};

struct DownloadStatus {
    qint64 id = 0;
    QString repo, label, kind;
    QString state;           // "downloading", "verifying", "paused", "done", "failed"
    qint64 bytesDone = 0, bytesTotal = 0;
    double bytesPerSecond = 0;  // recent rate (0 when not downloading)
    double etaSeconds = -1;     // -1: unknown
    int fileIndex = 0, fileCount = 0;
    QString error;           // set when state is "failed": English, for logs (the UI translates errorCode)
    QString errorCode;       // "not_found", "gated", "token_refused", "disk_full", "write_failed", "hash_mismatch",
                             // "network", "http", "bad_size", "library"
    QStringList errorArgs;   // what the message names (file, numbers), in order
    QString folder;          // where the files go
    QString modelPath;       // what the library gets when done (the first GGUF part, or the folder)
};

class Downloader : public QObject {
    Q_OBJECT
public:
    // `database_file` empty: the library's default database. Resumes the downloads that were running.
    // Throws ft::Error(io) if the database cannot be opened.
    explicit Downloader(const QString& database_file = {}, QObject* parent = nullptr);
    ~Downloader() override;  // stops transfers (their state stays "downloading": the next start resumes them)

    // https://huggingface.co by default; FT_HF_ENDPOINT overrides what the settings say.
    static QString defaultEndpoint(const QString& fromSettings = {});
    void setEndpoint(const QString& url);
    QString endpoint() const { return m_endpoint; }
    void setToken(const QString& token) { m_token = token.trimmed(); }
    void setModelsFolder(const QString& folder) { m_modelsFolder = folder; }   // default: ft::models_dir()
    QString modelsFolder() const;
    void setRetryDelayMs(int ms) { m_retryDelayMs = ms; }

    // "owner/name", or a URL of the repo (https://huggingface.co/owner/name[/tree/…|/blob/…]); empty + `error` set
    // when it is neither.
    static QString parseRepoId(const QString& input, QString* error = nullptr);
    // The entries of a listing (pure: exposed for tests and the UI).
    static QList<HubEntry> entriesFromTree(const QList<HubFile>& files);

    void listFiles(const QString& repoOrUrl);
    // Starts downloading `entry` of `repo`; returns the download id (> 0), or 0 with `error` set (nothing started).
    qint64 start(const QString& repo, const HubEntry& entry, QString* error = nullptr);
    void pause(qint64 id);
    void resume(qint64 id);
    void cancel(qint64 id);   // stops, deletes the partial files, forgets the download
    void forget(qint64 id);   // removes a finished or failed download from the list (files stay)

    QList<DownloadStatus> downloads() const;   // oldest first
    DownloadStatus status(qint64 id) const;

signals:
    void filesListed(const QString& repo, const QList<ft::HubEntry>& entries);
    // code: "bad_repo", "not_found", "gated", "token_refused", "network_list" (args: address, Qt's English reason,
    // the QNetworkReply::NetworkError's name), "http", "bad_listing", "nothing". A download's "network" failure has
    // the same three arguments with the file's path first.
    void listFailed(const QString& repo, const QString& code, const QStringList& args, const QString& error);
    void downloadAdded(qint64 id);
    void downloadChanged(qint64 id);     // progress (at most ~10 per second), state, error
    void downloadRemoved(qint64 id);
    void downloadFinished(qint64 id, const QString& modelPath);
    void downloadFailed(qint64 id, const QString& error);

private:
    struct Job;
    void loadJobs();
    void saveState(Job& job);
    void startNextFile(Job& job);
    void startRequest(Job& job);
    void onReadyRead(Job& job);
    void onReplyFinished(Job& job);
    void verifyFile(Job& job);
    void onVerified(qint64 id, int fileIndex, bool ok, const QString& detail);
    void fail(Job& job, const QString& code, const QStringList& args, const QString& error);
    void finishJob(Job& job);
    void stopTransfer(Job& job);
    void sample();
    void notify(Job& job, bool force = false);
    Job* job(qint64 id) const;
    QNetworkRequest request(const QUrl& url) const;
    // Sets code/args/English text for an HTTP failure of `what`.
    void httpError(int status, const QString& what, const QByteArray& hubCode, QString& code, QStringList& args,
                   QString& text) const;
    void listPage(const QString& repo, const QUrl& url, std::shared_ptr<QList<HubFile>> acc);

    std::unique_ptr<ModelLibrary> m_library;
    QNetworkAccessManager m_net;
    QString m_endpoint, m_token, m_modelsFolder;
    int m_retryDelayMs = 1000;
    QList<qint64> m_order;
    QHash<qint64, Job*> m_jobs;
    QTimer m_sampler;
};

}  // namespace ft

Q_DECLARE_METATYPE(ft::HubEntry)
