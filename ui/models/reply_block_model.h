// ReplyBlockModel: one reply's answer as a list of display blocks (ft::ReplyBlocks: prose, code chunks, plain text
// for markdown nested too deep), for the Repeater of ChatMessage.qml. setText() is incremental: while a reply
// streams, the blocks before the last one stay as they are (no signal), the last one gets dataChanged and new ones
// are inserted, so the page re-lays out only the text that changed. Roles: kind ("prose" | "code" | "plain"), text,
// language, codeBlock, first, last. Owned by MessageListModel; main thread.
#pragma once

#include <QAbstractListModel>
#include <QQmlEngine>

#include "reply_blocks.h"

namespace ft::ui {

class ReplyBlockModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("owned by MessageListModel")
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)
public:
    enum Role { KindRole = Qt::UserRole + 1, TextRole, LanguageRole, CodeBlockRole, FirstRole, LastRole };

    explicit ReplyBlockModel(QObject* parent = nullptr);
    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    void setText(const QString& text);
    // The whole code of a fenced block, all its chunks (what its Copy button copies).
    Q_INVOKABLE QString codeText(int codeBlock) const { return m_blocks.codeText(codeBlock); }

signals:
    void countChanged();

private:
    ft::ReplyBlocks m_blocks;
    int m_rows = 0;  // rows the views know of
};

}  // namespace ft::ui
