// ConversationListModel: the chat history's conversations (newest activity first) as a QML list. ChatSession fills
// it from ChatStore; QML only reads it.
#pragma once

#include <QAbstractListModel>
#include <QQmlEngine>

#include "chat_store.h"

namespace ft::ui {

class ConversationListModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("owned by ChatSession")
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)
public:
    enum Role { IdRole = Qt::UserRole + 1, TitleRole, UpdatedRole, ModelRole };

    explicit ConversationListModel(QObject* parent = nullptr);
    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    void setRows(const QList<ConversationRecord>& rows);
    const QList<ConversationRecord>& rows() const { return m_rows; }
    Q_INVOKABLE int indexOfId(qint64 id) const;
    Q_INVOKABLE qint64 idAt(int row) const;

signals:
    void countChanged();

private:
    QList<ConversationRecord> m_rows;
};

}  // namespace ft::ui
