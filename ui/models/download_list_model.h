// DownloadListModel: Hugging Face downloads (app/core Downloader) for QML — the list of downloads with progress,
// speed and ETA, and the "browse a repository" step before one starts (browse() → entries, download(index)).
// The Hub address and token come from the settings (AppSettings hubEndpoint/hubToken, FT_HF_ENDPOINT first) and are
// re-read at every browse/download. Error codes from the Downloader are turned into translated messages here.
// When a download finishes, `library` (if set) reloads so the model shows up at once.
#pragma once

#include <QAbstractListModel>
#include <QQmlEngine>
#include <QVariantList>

#include <memory>

#include "downloader.h"
#include "model_list_model.h"

namespace ft::ui {

class DownloadListModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)
    Q_PROPERTY(int activeCount READ activeCount NOTIFY activeCountChanged)
    Q_PROPERTY(ft::ui::ModelListModel* library READ library WRITE setLibrary NOTIFY libraryChanged)
    Q_PROPERTY(bool browsing READ browsing NOTIFY browseChanged)
    Q_PROPERTY(QString browseRepo READ browseRepo NOTIFY browseChanged)
    Q_PROPERTY(QString browseError READ browseError NOTIFY browseChanged)
    Q_PROPERTY(QVariantList entries READ entries NOTIFY browseChanged)
    Q_PROPERTY(QString lastError READ lastError NOTIFY lastErrorChanged)
    Q_PROPERTY(QString endpoint READ endpoint NOTIFY browseChanged)
public:
    enum Role {
        IdRole = Qt::UserRole + 1, RepoRole, LabelRole, KindRole, StateRole, BytesDoneRole, BytesTotalRole,
        FractionRole, SpeedRole, EtaRole, ErrorRole, FileIndexRole, FileCountRole, ModelPathRole
    };

    explicit DownloadListModel(QObject* parent = nullptr);
    ~DownloadListModel() override;

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    int activeCount() const;
    ModelListModel* library() const { return m_library; }
    void setLibrary(ModelListModel* library);
    bool browsing() const { return m_browsing; }
    QString browseRepo() const { return m_browseRepo; }
    QString browseError() const { return m_browseError; }
    QVariantList entries() const;
    QString lastError() const { return m_lastError; }
    QString endpoint() const;
    Downloader* downloader() const { return m_downloader.get(); }

    Q_INVOKABLE void browse(const QString& repoOrUrl);
    Q_INVOKABLE bool download(int entryIndex);   // an entry of the last browse
    Q_INVOKABLE void pause(qint64 id);
    Q_INVOKABLE void resume(qint64 id);
    Q_INVOKABLE void cancel(qint64 id);
    Q_INVOKABLE void forget(qint64 id);
    Q_INVOKABLE void clearBrowse();

    // The translated message for a Downloader error code and its arguments.
    static QString describeError(const QString& code, const QStringList& args, const QString& english);
    // A network failure's reason in the user's language, from the QNetworkReply::NetworkError's name; else `english`.
    static QString networkReason(const QString& key, const QString& english);

signals:
    void countChanged();
    void activeCountChanged();
    void libraryChanged();
    void browseChanged();
    void lastErrorChanged();
    void downloadFinished(const QString& modelPath);

private:
    void applySettings();
    void rebuild();
    int rowOf(qint64 id) const;
    void setLastError(const QString& e);

    std::unique_ptr<Downloader> m_downloader;
    ModelListModel* m_library = nullptr;
    QList<DownloadStatus> m_rows;
    bool m_browsing = false;
    QString m_browseRepo, m_browseError, m_lastError;
    QList<HubEntry> m_entries;
};

}  // namespace ft::ui
