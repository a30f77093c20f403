// MessageListModel: the messages of the open conversation as a QML list. Each row carries its reasoning split off
// (ft::split_reasoning), the reply's figures, and `blocks`: the answer cut into display blocks (ReplyBlockModel, one
// per row, kept for the row's life). update() changes a streaming reply in place: the row's roles are announced, but
// its blocks model is updated incrementally, so the page re-lays out only the text that changed. ChatSession fills
// and updates it; QML only reads it.
#pragma once

#include <QAbstractListModel>
#include <QQmlEngine>

#include "chat_store.h"
#include "reply_block_model.h"

namespace ft::ui {

class MessageListModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("owned by ChatSession")
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)
public:
    enum Role {
        IdRole = Qt::UserRole + 1, RoleRole, ContentRole, ReasoningRole, ThinkingRole, StateRole, ErrorRole,
        BlocksRole, PromptTokensRole, CompletionTokensRole, TokensPerSecondRole, TtftRole,
        ModelRole, ServerRole,  // a reply's model and, for a remote one, its server's URL
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
    ReplyBlockModel* blocksOf(int row) const;
    void dropBlocks(int from);

    QList<MessageRecord> m_rows;
    QList<bool> m_thinking;
    mutable QList<ReplyBlockModel*> m_blocks;  // per row, made when QML first asks
};

}  // namespace ft::ui
