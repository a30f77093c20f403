#include "conversation_list_model.h"

#include <QLocale>

namespace ft::ui {

ConversationListModel::ConversationListModel(QObject* parent) : QAbstractListModel(parent) {}

int ConversationListModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

QVariant ConversationListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= m_rows.size()) return {};
    const ConversationRecord& c = m_rows.at(index.row());
    switch (role) {
    case IdRole: return c.id;
    case Qt::DisplayRole:
    case TitleRole: return c.title;
    case UpdatedRole: return c.updatedAt.toLocalTime();  // QML formats it in the app's language
    case ModelRole: return c.modelPath;
    default: return {};
    }
}

QHash<int, QByteArray> ConversationListModel::roleNames() const {
    return {{IdRole, "conversationId"}, {TitleRole, "title"}, {UpdatedRole, "updated"}, {ModelRole, "modelPath"}};
}

void ConversationListModel::setRows(const QList<ConversationRecord>& rows) {
    const bool countChanges = rows.size() != m_rows.size();
    beginResetModel();
    m_rows = rows;
    endResetModel();
    if (countChanges) emit countChanged();
}

int ConversationListModel::indexOfId(qint64 id) const {
    for (int i = 0; i < m_rows.size(); ++i)
        if (m_rows.at(i).id == id) return i;
    return -1;
}

qint64 ConversationListModel::idAt(int row) const { return row >= 0 && row < m_rows.size() ? m_rows.at(row).id : 0; }

}  // namespace ft::ui
