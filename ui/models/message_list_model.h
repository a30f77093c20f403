// MessageListModel: the messages of the open conversation as a QML list. Each row carries the answer cut into
// markdown/code segments and the reasoning split off (ft::split_reasoning / split_markdown), plus the reply's
// figures. ChatSession fills and updates it; QML only reads it.
#pragma once

#include <QAbstractListModel>
#include <QQmlEngine>

#include "chat_store.h"

namespace ft::ui {

class MessageListModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("owned by ChatSession")
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)
public:
    enum Role {
        IdRole = Qt::UserRole + 1, RoleRole, ContentRole, ReasoningRole, ThinkingRole, StateRole, ErrorRole,
        SegmentsRole, PromptTokensRole, CompletionTokensRole, TokensPerSecondRole, TtftRole,
    };

    explicit MessageListModel(QObject* parent = nullptr);
    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    void setMessages(const QList<MessageRecord>& messages);
    void append(const MessageRecord& m);
    // Replaces the row with m.id (no-op if absent); `thinking`: the reasoning block is still open.
    void update(const MessageRecord& m, bool thinking = false);
    void truncateFrom(int row);
    const QList<MessageRecord>& messages() const { return m_rows; }
    int rowOfId(qint64 id) const;
    Q_INVOKABLE QString contentAt(int row) const;
    Q_INVOKABLE QString roleAt(int row) const;

signals:
    void countChanged();

private:
    QList<MessageRecord> m_rows;
    QList<bool> m_thinking;
};

}  // namespace ft::ui
