#include "download_list_model.h"

#include "app_settings.h"
#include "engine_text.h"
#include "ft/error.h"
#include "model_list_model.h"

namespace ft::ui {

DownloadListModel::DownloadListModel(QObject* parent) : QAbstractListModel(parent) {
    try {
        m_downloader = std::make_unique<Downloader>();
    } catch (const ft::Error& e) {
        m_lastError = QString::fromStdString(e.message());
        return;
    }
    applySettings();
    Downloader* d = m_downloader.get();
    connect(d, &Downloader::filesListed, this, [this](const QString& repo, const QList<HubEntry>& entries) {
        if (repo != m_browseRepo) return;
        m_browsing = false;
        m_entries = entries;
        m_browseError.clear();
        emit browseChanged();
    });
    connect(d, &Downloader::listFailed, this,
            [this](const QString& repo, const QString& code, const QStringList& args, const QString& english) {
                if (repo != m_browseRepo) return;
                m_browsing = false;
                m_entries.clear();
                m_browseError = describeError(code, args, english);
                emit browseChanged();
            });
    connect(d, &Downloader::downloadAdded, this, [this] { rebuild(); });
    connect(d, &Downloader::downloadRemoved, this, [this] { rebuild(); });
    connect(d, &Downloader::downloadChanged, this, [this](qint64 id) {
        const int row = rowOf(id);
        if (row < 0) return rebuild();
        const QString before = m_rows[row].state;
        m_rows[row] = m_downloader->status(id);
        emit dataChanged(index(row), index(row));
        if (before != m_rows[row].state) emit activeCountChanged();
    });
    connect(d, &Downloader::downloadFinished, this, [this](qint64, const QString& path) {
        if (m_library) m_library->reload();
        emit downloadFinished(path);
    });
    rebuild();
}

DownloadListModel::~DownloadListModel() = default;

void DownloadListModel::applySettings() {
    AppSettings settings;
    m_downloader->setEndpoint(Downloader::defaultEndpoint(settings.hubEndpoint()));
    m_downloader->setToken(settings.hubToken());
}

QString DownloadListModel::endpoint() const { return m_downloader ? m_downloader->endpoint() : QString(); }

void DownloadListModel::setLibrary(ModelListModel* library) {
    if (library == m_library) return;
    m_library = library;
    emit libraryChanged();
}

int DownloadListModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

QVariant DownloadListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= m_rows.size()) return {};
    const DownloadStatus& s = m_rows[index.row()];
    switch (role) {
    case IdRole: return s.id;
    case RepoRole: return s.repo;
    case Qt::DisplayRole:
    case LabelRole: return s.label;
    case KindRole: return s.kind;
    case StateRole: return s.state;
    case BytesDoneRole: return double(s.bytesDone);
    case BytesTotalRole: return double(s.bytesTotal);
    case FractionRole: return s.bytesTotal > 0 ? double(s.bytesDone) / double(s.bytesTotal) : 0.0;
    case SpeedRole: return s.bytesPerSecond;
    case EtaRole: return s.etaSeconds;
    case ErrorRole: return s.state == "failed" ? describeError(s.errorCode, s.errorArgs, s.error) : QString();
    case FileIndexRole: return s.fileIndex;
    case FileCountRole: return s.fileCount;
    case ModelPathRole: return s.modelPath;
    default: return {};
    }
}

QHash<int, QByteArray> DownloadListModel::roleNames() const {
    return {{IdRole, "downloadId"},       {RepoRole, "repo"},           {LabelRole, "label"},
            {KindRole, "kind"},           {StateRole, "state"},         {BytesDoneRole, "bytesDone"},
            {BytesTotalRole, "bytesTotal"}, {FractionRole, "fraction"}, {SpeedRole, "speed"},
            {EtaRole, "eta"},             {ErrorRole, "error"},         {FileIndexRole, "fileIndex"},
            {FileCountRole, "fileCount"}, {ModelPathRole, "modelPath"}};
}

int DownloadListModel::activeCount() const {
    int n = 0;
    for (const DownloadStatus& s : m_rows)
        if (s.state == "downloading" || s.state == "verifying") ++n;
    return n;
}

QVariantList DownloadListModel::entries() const {
    QVariantList out;
    for (const HubEntry& e : m_entries)
        out.append(QVariantMap{{"label", e.label}, {"kind", e.kind}, {"bytes", double(e.totalBytes)},
                               {"files", int(e.files.size())}});
    return out;
}

void DownloadListModel::browse(const QString& repoOrUrl) {
    if (!m_downloader) return;
    applySettings();
    QString error;
    const QString repo = Downloader::parseRepoId(repoOrUrl, &error);
    m_entries.clear();
    if (repo.isEmpty()) {
        m_browseRepo = repoOrUrl.trimmed();
        m_browsing = false;
        m_browseError = describeError("bad_repo", {repoOrUrl.trimmed()}, error);
        emit browseChanged();
        return;
    }
    m_browseRepo = repo;
    m_browsing = true;
    m_browseError.clear();
    emit browseChanged();
    m_downloader->listFiles(repo);
}

void DownloadListModel::clearBrowse() {
    m_browseRepo.clear();
    m_browseError.clear();
    m_entries.clear();
    m_browsing = false;
    emit browseChanged();
}

bool DownloadListModel::download(int entryIndex) {
    if (!m_downloader || entryIndex < 0 || entryIndex >= m_entries.size()) return false;
    applySettings();
    QString error;
    const qint64 id = m_downloader->start(m_browseRepo, m_entries[entryIndex], &error);
    setLastError(id > 0 ? QString() : error);
    return id > 0;
}

void DownloadListModel::pause(qint64 id) {
    if (m_downloader) m_downloader->pause(id);
}
void DownloadListModel::resume(qint64 id) {
    if (!m_downloader) return;
    applySettings();   // a token entered after a 401 is used at once
    m_downloader->resume(id);
}
void DownloadListModel::cancel(qint64 id) {
    if (m_downloader) m_downloader->cancel(id);
}
void DownloadListModel::forget(qint64 id) {
    if (m_downloader) m_downloader->forget(id);
}

void DownloadListModel::rebuild() {
    beginResetModel();
    m_rows = m_downloader ? m_downloader->downloads() : QList<DownloadStatus>{};
    endResetModel();
    emit countChanged();
    emit activeCountChanged();
}

int DownloadListModel::rowOf(qint64 id) const {
    for (int i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].id == id) return i;
    return -1;
}

void DownloadListModel::setLastError(const QString& e) {
    if (e == m_lastError) return;
    m_lastError = e;
    emit lastErrorChanged();
}

QString DownloadListModel::describeError(const QString& code, const QStringList& a, const QString& english) {
    const auto arg = [&](int i) { return a.value(i); };
    if (code == "bad_repo")
        return tr("\"%1\" is not a Hugging Face repository: enter owner/name (for example Qwen/Qwen3-30B-A3B-GGUF) or paste its address").arg(arg(0));
    if (code == "not_found")
        return tr("%1 was not found (HTTP 404): check the repository name and that the file still exists").arg(arg(0));
    if (code == "gated")
        return tr("%1 is gated or private (HTTP %2): accept its licence on the Hugging Face website, then enter an access token in Settings").arg(arg(0), arg(1));
    if (code == "token_refused")
        return tr("The access token was refused for %1 (HTTP %2): check the token in Settings").arg(arg(0), arg(1));
    if (code == "network")
        return tr("Cannot download %1 (%2): check the network connection, then resume").arg(arg(0), networkReason(arg(2), arg(1)));
    if (code == "network_list")
        return tr("Cannot reach %1 (%2): check the network connection and the Hugging Face address in Settings, then try again").arg(arg(0), networkReason(arg(2), arg(1)));
    if (code == "http")
        return tr("%1 failed: the server answered HTTP %2; try again later").arg(arg(0), arg(1));
    if (code == "bad_listing")
        return tr("The file list of %1 from %2 is not what the Hugging Face API returns: check the address in Settings").arg(arg(0), arg(1));
    if (code == "nothing")
        return tr("%1 has no GGUF files and is not a safetensors model: pick another repository (GGUF repositories often end in -GGUF)").arg(arg(0));
    if (code == "disk_full")
        return tr("Not enough disk space: %1 more is needed, %2 is free on %3. Free some space, then resume").arg(arg(0), arg(1), arg(2));
    if (code == "write_failed")
        return tr("Cannot write %1 (%2): check the disk and the folder's permissions, then resume").arg(arg(0), arg(1));
    if (code == "hash_mismatch")
        return tr("%1 arrived corrupted (its sha256 does not match the Hub's). The damaged file was deleted: resume to download it again").arg(arg(0));
    if (code == "bad_size")
        return tr("The server sent %1 with the wrong size: try again later").arg(arg(0));
    if (code == "library")
        return tr("Downloaded, but the library refused %1: %2").arg(arg(0), arg(1));
    return english;
}

QString DownloadListModel::networkReason(const QString& key, const QString& english) {
    return EngineText::networkReason(key, english);  // shared with the remote servers' messages (RemoteClient)
}

}  // namespace ft::ui
