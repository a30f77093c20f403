#include "reply_block_model.h"

#include <algorithm>

namespace ft::ui {

ReplyBlockModel::ReplyBlockModel(QObject* parent) : QAbstractListModel(parent) {}

int ReplyBlockModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : m_rows; }

QVariant ReplyBlockModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= m_rows || index.row() >= m_blocks.blocks().size()) return {};
    const ReplyBlock& b = m_blocks.blocks().at(index.row());
    switch (role) {
    case KindRole:
        return b.kind == ReplyBlock::Code ? QStringLiteral("code")
             : b.kind == ReplyBlock::Plain ? QStringLiteral("plain") : QStringLiteral("prose");
    case Qt::DisplayRole:
    case TextRole: return m_blocks.blockText(index.row());
    case LanguageRole: return b.language;
    case CodeBlockRole: return b.codeBlock;
    case FirstRole: return b.first;
    case LastRole: return b.last;
    default: return {};
    }
}

QHash<int, QByteArray> ReplyBlockModel::roleNames() const {
    return {{KindRole, "kind"}, {TextRole, "text"}, {LanguageRole, "language"},
            {CodeBlockRole, "codeBlock"}, {FirstRole, "first"}, {LastRole, "last"}};
}

void ReplyBlockModel::setText(const QString& text) {
    // Rows before `from` are unchanged (ReplyBlocks guarantees it); rows from there on that the views know of are
    // announced, then rows are added or taken away at the end. While a reply streams that is the last row or two.
    const int from = m_blocks.update(text);
    const int newRows = int(m_blocks.blocks().size());
    const int common = std::min(m_rows, newRows);
    if (from < common) emit dataChanged(index(from), index(common - 1));
    if (newRows > m_rows) {
        beginInsertRows({}, m_rows, newRows - 1);
        m_rows = newRows;
        endInsertRows();
        emit countChanged();
    } else if (newRows < m_rows) {
        beginRemoveRows({}, newRows, m_rows - 1);
        m_rows = newRows;
        endRemoveRows();
        emit countChanged();
    }
}

}  // namespace ft::ui
