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
    case SegmentsRole: {
        QVariantList out;
        for (const MarkdownSegment& s : split_markdown(m.content))
            out.append(QVariantMap{{"code", s.code}, {"text", s.text}, {"language", s.language}});
        return out;
    }
    case PromptTokensRole: return m.promptTokens;
    case CompletionTokensRole: return m.completionTokens;
    case TokensPerSecondRole: return m.tokensPerSecond;
    case TtftRole: return m.ttftMs;
    default: return {};
    }
}

QHash<int, QByteArray> MessageListModel::roleNames() const {
    return {{IdRole, "messageId"},          {RoleRole, "role"},
            {ContentRole, "content"},       {ReasoningRole, "reasoning"},
            {ThinkingRole, "thinking"},     {StateRole, "state"},
            {ErrorRole, "error"},           {SegmentsRole, "segments"},
            {PromptTokensRole, "promptTokens"}, {CompletionTokensRole, "completionTokens"},
            {TokensPerSecondRole, "tokensPerSecond"}, {TtftRole, "ttftMs"}};
}

void MessageListModel::setMessages(const QList<MessageRecord>& messages) {
    const bool countChanges = messages.size() != m_rows.size();
    beginResetModel();
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
    emit dataChanged(index(row), index(row));
}

void MessageListModel::truncateFrom(int row) {
    if (row < 0 || row >= m_rows.size()) return;
    beginRemoveRows({}, row, int(m_rows.size()) - 1);
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
