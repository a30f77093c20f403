// LogListModel: the live log for the Logs page. Follows a LogHub (set `hub`; its entryAdded signal arrives queued
// on the UI thread), keeps at most the hub's capacity of lines, and shows those at or above `minLevel` that contain
// `search` (case-insensitive).
#pragma once

#include <QAbstractListModel>
#include <QPointer>
#include <QQmlEngine>

#include <deque>

#include "log_hub.h"

namespace ft::ui {

class LogListModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(QObject* hub READ hub WRITE setHub NOTIFY hubChanged)
    Q_PROPERTY(int minLevel READ minLevel WRITE setMinLevel NOTIFY minLevelChanged)
    Q_PROPERTY(QString search READ search WRITE setSearch NOTIFY searchChanged)
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)
    Q_PROPERTY(int totalCount READ totalCount NOTIFY countChanged)
    Q_PROPERTY(QString logFilePath READ logFilePath NOTIFY hubChanged)
public:
    // TimeRole: "HH:mm:ss.zzz" (as copied); MsecsRole: the time itself, which the Logs page shows in the app's language.
    enum Role { SeqRole = Qt::UserRole + 1, LevelRole, LevelNameRole, TimeRole, TextRole, MsecsRole };

    explicit LogListModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    QObject* hub() const { return m_hub; }
    void setHub(QObject* hub);
    int minLevel() const { return m_minLevel; }
    void setMinLevel(int level);
    QString search() const { return m_search; }
    void setSearch(const QString& search);
    int totalCount() const { return static_cast<int>(m_all.size()); }
    QString logFilePath() const;

    // The visible lines as text ("HH:mm:ss.zzz [level] message"), oldest first.
    Q_INVOKABLE QString visibleText() const;
    Q_INVOKABLE int copyVisible() const;      // to the clipboard; returns the number of lines copied
    Q_INVOKABLE void openLogFolder() const;

signals:
    void hubChanged();
    void minLevelChanged();
    void searchChanged();
    void countChanged();

private:
    void onEntry(const ft::LogEntry& e);
    bool accepts(const ft::LogEntry& e) const;
    void rebuild();

    QPointer<ft::LogHub> m_hub;
    std::deque<ft::LogEntry> m_all;
    QList<ft::LogEntry> m_visible;
    int m_capacity = 5000;
    int m_minLevel = 1;
    QString m_search;
};

}  // namespace ft::ui
