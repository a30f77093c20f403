// ModelListModel: the model library (SQLite, app/core ModelLibrary) as a QML list. addUrl()/addPath() validate and
// insert; a refusal sets lastError (the ft::Error message and hint) instead of throwing into QML.
#pragma once

#include <QAbstractListModel>
#include <QQmlEngine>
#include <QUrl>

#include <memory>

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
public:
    enum Role { IdRole = Qt::UserRole + 1, PathRole, NameRole, FormatRole, SizeRole, AddedRole };

    explicit ModelListModel(QObject* parent = nullptr);
    ~ModelListModel() override;

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    QString lastError() const { return m_lastError; }
    bool available() const { return m_library != nullptr; }
    QString databasePath() const;
    QString modelsDir() const;

    Q_INVOKABLE bool addUrl(const QUrl& url);
    Q_INVOKABLE bool addPath(const QString& path);
    Q_INVOKABLE bool remove(qint64 id);
    Q_INVOKABLE void reload();
    Q_INVOKABLE void clearError();
    Q_INVOKABLE void openModelsFolder() const;

signals:
    void countChanged();
    void lastErrorChanged();

private:
    void setError(const QString& error);
    std::unique_ptr<ModelLibrary> m_library;
    QList<ModelRecord> m_rows;
    QString m_lastError;
};

}  // namespace ft::ui
