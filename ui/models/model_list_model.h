// ModelListModel: the model library (SQLite, app/core ModelLibrary) as a QML list. addUrl()/addPath() validate and
// insert; a refusal sets lastError (the ft::Error message and hint) instead of throwing into QML. Each row carries
// what the engine's inspector read (architecture, parameters, quant, whether FreeToken can run it) and a fit verdict
// for this PC (the engine's ft::predict_fit on ft::this_machine()), computed once per row when it is listed.
#pragma once

#include <QAbstractListModel>
#include <QQmlEngine>
#include <QUrl>

#include <memory>

#include "ft/plan.h"
#include "model_library.h"

namespace ft::ui {

class ModelListModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)
    Q_PROPERTY(QString lastError READ lastError NOTIFY lastErrorChanged)
    Q_PROPERTY(bool available READ available CONSTANT)
    Q_PROPERTY(QString databasePath READ databasePath CONSTANT)
    Q_PROPERTY(QString modelsDir READ modelsDir CONSTANT)
    Q_PROPERTY(QString notice READ notice NOTIFY noticeChanged)   // the last scan / drop result, for a moment
public:
    enum Role {
        IdRole = Qt::UserRole + 1, PathRole, NameRole, FormatRole, SizeRole, AddedRole, OriginRole,
        ReadableRole, ReadErrorRole, ArchitectureRole, RunnableRole, SupportNoteRole, QuantRole,
        TotalParamsRole, ActiveParamsRole, PartsRole,
        FitVerdictRole, FitReasonRole, TokSLowRole, TokSHighRole
    };

    explicit ModelListModel(QObject* parent = nullptr);
    bool eventFilter(QObject* watched, QEvent* event) override;  // the language switch
    ~ModelListModel() override;

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    QString lastError() const { return m_lastError; }
    bool available() const { return m_library != nullptr; }
    QString databasePath() const;
    QString modelsDir() const;

    Q_INVOKABLE bool addUrl(const QUrl& url);
    // `origin` is kept with the row: "added" (a dialog, a drop, the command line), "demo" (the bundled demo model
    // added on the first start; its row is labelled Demo).
    Q_INVOKABLE bool addPath(const QString& path, const QString& origin = QStringLiteral("added"));
    Q_INVOKABLE bool remove(qint64 id);
    // Removes the row; with deleteFiles also the model's file(s) (see ModelLibrary::remove). False + lastError on
    // a refusal.
    Q_INVOKABLE bool removeModel(qint64 id, bool deleteFiles);
    // Adds every model found in the models folder (or `folder`); returns how many were new. Sets notice.
    Q_INVOKABLE int scanModelsFolder(const QString& folder = {});
    // What a drop onto the page adds: .gguf files and model folders. Returns how many were added; refusals are
    // collected in lastError.
    Q_INVOKABLE int addUrls(const QList<QUrl>& urls);
    Q_INVOKABLE bool acceptsUrl(const QUrl& url) const;   // for the drag highlight: a .gguf file or a folder
    Q_INVOKABLE int rowOfPath(const QString& path) const;
    QString notice() const { return m_notice; }
    Q_INVOKABLE void reload();
    Q_INVOKABLE void clearError();
    Q_INVOKABLE void openModelsFolder() const;

signals:
    void countChanged();
    void lastErrorChanged();
    void noticeChanged();

private:
    struct Row {
        ModelRecord record;
        FitPrediction fit;
    };
    Row makeRow(const ModelRecord& r) const;
    void setError(const QString& error);
    void setNotice(const QString& notice);
    std::unique_ptr<ModelLibrary> m_library;
    QList<Row> m_rows;
    MachineProfile m_machine;
    QString m_lastError;
    QString m_notice;
};

}  // namespace ft::ui
