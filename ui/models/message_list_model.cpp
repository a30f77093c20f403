#include "message_list_model.h"

#include <QVariantMap>

#include "reply_text.h"

namespace ft::ui {

MessageListModel::MessageListModel(QObject* parent) : QAbstractListModel(parent) {}

int MessageListModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

QVariant MessageListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= m_rows.size()) return {};
    const MessageRecord& m = m_rows.at(index.row());
    switch (role) {
    case IdRole: return m.id;
    case RoleRole: return m.role;
    case Qt::DisplayRole:
    case ContentRole: return m.content;
    case ReasoningRole: return m.reasoning;
    case ThinkingRole: return m_thinking.value(index.row());
    case StateRole: return m.state;
    case ErrorRole: return m.error;
    case BlocksRole: return QVariant::fromValue<QObject*>(blocksOf(index.row()));
    case PromptTokensRole: return m.promptTokens;
    case CompletionTokensRole: return m.completionTokens;
    case TokensPerSecondRole: return m.tokensPerSecond;
    case TtftRole: return m.ttftMs;
    case ModelRole: return m.model;
    case ServerRole: return m.server;
    default: return {};
    }
}

QHash<int, QByteArray> MessageListModel::roleNames() const {
    return {{IdRole, "messageId"},          {RoleRole, "role"},
            {ContentRole, "content"},       {ReasoningRole, "reasoning"},
            {ThinkingRole, "thinking"},     {StateRole, "state"},
            {ErrorRole, "error"},           {BlocksRole, "blocks"},
            {PromptTokensRole, "promptTokens"}, {CompletionTokensRole, "completionTokens"},
            {TokensPerSecondRole, "tokensPerSecond"}, {TtftRole, "ttftMs"},
            {ModelRole, "replyModel"},            {ServerRole, "replyServer"}};
}

ReplyBlockModel* MessageListModel::blocksOf(int row) const {
    if (row < 0 || row >= m_rows.size()) return nullptr;
    if (m_blocks.size() < m_rows.size()) m_blocks.resize(m_rows.size(), nullptr);
    ReplyBlockModel*& b = m_blocks[row];
    if (!b) {
        b = new ReplyBlockModel(const_cast<MessageListModel*>(this));
        QQmlEngine::setObjectOwnership(b, QQmlEngine::CppOwnership);
        b->setText(m_rows.at(row).content);
    }
    return b;
}

// The blocks models of rows from `from` on go (later: a delegate being destroyed may still read them).
void MessageListModel::dropBlocks(int from) {
    for (int i = from; i < m_blocks.size(); ++i)
        if (m_blocks[i]) m_blocks[i]->deleteLater();
    if (from < m_blocks.size()) m_blocks.resize(from);
}

void MessageListModel::setMessages(const QList<MessageRecord>& messages) {
    const bool countChanges = messages.size() != m_rows.size();
    beginResetModel();
    dropBlocks(0);
    m_rows = messages;
    m_thinking = QList<bool>(messages.size(), false);
    endResetModel();
    if (countChanges) emit countChanged();
}

void MessageListModel::append(const MessageRecord& m) {
    beginInsertRows({}, int(m_rows.size()), int(m_rows.size()));
    m_rows.append(m);
    m_thinking.append(false);
    endInsertRows();
    emit countChanged();
}

void MessageListModel::update(const MessageRecord& m, bool thinking) {
    const int row = rowOfId(m.id);
    if (row < 0) return;
    m_rows[row] = m;
    m_thinking[row] = thinking;
    if (row < m_blocks.size() && m_blocks[row]) m_blocks[row]->setText(m.content);
    // Every role but the blocks (updated in place above), the id and the role.
    emit dataChanged(index(row), index(row),
                     {ContentRole, Qt::DisplayRole, ReasoningRole, ThinkingRole, StateRole, ErrorRole, PromptTokensRole,
                      CompletionTokensRole, TokensPerSecondRole, TtftRole});
}

void MessageListModel::truncateFrom(int row) {
    if (row < 0 || row >= m_rows.size()) return;
    beginRemoveRows({}, row, int(m_rows.size()) - 1);
    dropBlocks(row);
    m_rows.resize(row);
    m_thinking.resize(row);
    endRemoveRows();
    emit countChanged();
}

int MessageListModel::rowOfId(qint64 id) const {
    for (int i = 0; i < m_rows.size(); ++i)
        if (m_rows.at(i).id == id) return i;
    return -1;
}

QString MessageListModel::contentAt(int row) const { return row >= 0 && row < m_rows.size() ? m_rows.at(row).content : QString(); }
QString MessageListModel::roleAt(int row) const { return row >= 0 && row < m_rows.size() ? m_rows.at(row).role : QString(); }

}  // namespace ft::ui
