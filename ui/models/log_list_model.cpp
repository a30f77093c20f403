#include "log_list_model.h"

#include <QClipboard>
#include <QDateTime>
#include <QDesktopServices>
#include <QFileInfo>
#include <QGuiApplication>
#include <QUrl>

#include <algorithm>

namespace ft::ui {

LogListModel::LogListModel(QObject* parent) : QAbstractListModel(parent) {}

int LogListModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(m_visible.size()); }

QVariant LogListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= m_visible.size()) return {};
    const ft::LogEntry& e = m_visible[index.row()];
    switch (role) {
    case SeqRole: return static_cast<double>(e.seq);
    case LevelRole: return e.level;
    case LevelNameRole: return ft::LogHub::levelName(e.level);
    case TimeRole: return QDateTime::fromMSecsSinceEpoch(e.msecs).toString("HH:mm:ss.zzz");
    case MsecsRole: return static_cast<double>(e.msecs);
    case Qt::DisplayRole:
    case TextRole: return e.text;
    default: return {};
    }
}

QHash<int, QByteArray> LogListModel::roleNames() const {
    return {{SeqRole, "seq"}, {LevelRole, "level"}, {LevelNameRole, "levelName"}, {TimeRole, "time"}, {TextRole, "text"}, {MsecsRole, "msecs"}};
}

void LogListModel::setHub(QObject* object) {
    auto* hub = qobject_cast<ft::LogHub*>(object);
    if (hub == m_hub) return;
    if (m_hub) disconnect(m_hub, nullptr, this, nullptr);
    m_hub = hub;
    m_all.clear();
    if (m_hub) {
        m_capacity = m_hub->capacity();
        // Queued even when logging happens on this thread: the model never changes inside someone's log call.
        connect(m_hub, &ft::LogHub::entryAdded, this, &LogListModel::onEntry, Qt::QueuedConnection);
        const QList<ft::LogEntry> existing = m_hub->snapshot();
        m_all.assign(existing.begin(), existing.end());
    }
    rebuild();
    emit hubChanged();
}

void LogListModel::setMinLevel(int level) {
    level = std::clamp(level, 0, 5);
    if (level == m_minLevel) return;
    m_minLevel = level;
    rebuild();
    emit minLevelChanged();
}

void LogListModel::setSearch(const QString& search) {
    if (search == m_search) return;
    m_search = search;
    rebuild();
    emit searchChanged();
}

QString LogListModel::logFilePath() const { return m_hub ? m_hub->logFilePath() : QString(); }

bool LogListModel::accepts(const ft::LogEntry& e) const {
    return e.level >= m_minLevel && (m_search.isEmpty() || e.text.contains(m_search, Qt::CaseInsensitive));
}

void LogListModel::rebuild() {
    beginResetModel();
    m_visible.clear();
    for (const auto& e : m_all)
        if (accepts(e)) m_visible.append(e);
    endResetModel();
    emit countChanged();
}

void LogListModel::onEntry(const ft::LogEntry& e) {
    // The snapshot taken in setHub() may already hold entries whose signals are still queued.
    if (!m_all.empty() && e.seq <= m_all.back().seq) return;
    m_all.push_back(e);
    if (m_all.size() > static_cast<size_t>(m_capacity)) {
        const quint64 dropped = m_all.front().seq;
        m_all.pop_front();
        if (!m_visible.isEmpty() && m_visible.front().seq == dropped) {
            beginRemoveRows({}, 0, 0);
            m_visible.removeFirst();
            endRemoveRows();
        }
    }
    if (accepts(e)) {
        const int row = static_cast<int>(m_visible.size());
        beginInsertRows({}, row, row);
        m_visible.append(e);
        endInsertRows();
    }
    emit countChanged();
}

QString LogListModel::visibleText() const {
    QString out;
    for (const auto& e : m_visible)
        out += QStringLiteral("%1 [%2] %3\n")
                   .arg(QDateTime::fromMSecsSinceEpoch(e.msecs).toString("HH:mm:ss.zzz"), ft::LogHub::levelName(e.level), e.text);
    return out;
}

int LogListModel::copyVisible() const {
    if (QClipboard* clipboard = QGuiApplication::clipboard()) clipboard->setText(visibleText());
    return static_cast<int>(m_visible.size());
}

void LogListModel::openLogFolder() const {
    const QString file = logFilePath();
    if (!file.isEmpty()) QDesktopServices::openUrl(QUrl::fromLocalFile(QFileInfo(file).absolutePath()));
}

}  // namespace ft::ui
