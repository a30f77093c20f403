// LogHub: the desktop app's live log. An spdlog sink (attach with ft::log_add_sink(hub.sink())) hands every line to
// the hub from whatever thread logged it; the hub keeps the last `capacity` lines in a ring buffer and announces each
// with entryAdded(). Receivers living in another thread (the UI) get that signal queued, so the engine never blocks
// on the UI. Thread-safe: append() and snapshot() may be called from any thread.
#pragma once

#include <QDateTime>
#include <QList>
#include <QMetaType>
#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <string>
#include <mutex>
#include <vector>

namespace spdlog::sinks {
class sink;
}

namespace ft {

struct LogEntry {
    quint64 seq = 0;      // 1, 2, … in arrival order; never reused
    qint64 msecs = 0;     // wall clock, ms since the epoch
    int level = 2;        // spdlog level: 0 trace, 1 debug, 2 info, 3 warn, 4 error, 5 critical
    QString text;
};

class LogHubSink;

class LogHub : public QObject {
    Q_OBJECT
public:
    explicit LogHub(int capacity = 5000, QObject* parent = nullptr);
    ~LogHub() override;

    // The spdlog sink feeding this hub. It stays valid after the hub is gone (it then drops lines).
    std::shared_ptr<spdlog::sinks::sink> sink();

    void append(int level, qint64 msecs, const QString& text);
    QList<LogEntry> snapshot() const;   // oldest first, at most capacity() entries
    int capacity() const { return m_capacity; }
    quint64 totalAppended() const;

    // Where the rotating log file lives (empty when file logging failed); shown on the Logs page.
    QString logFilePath() const;
    void setLogFilePath(const QString& path);

    static QString levelName(int level);

signals:
    void entryAdded(const LogEntry& entry);

private:
    const int m_capacity;
    mutable std::mutex m_mutex;
    std::vector<LogEntry> m_ring;   // grows to m_capacity, then m_head marks the oldest entry
    size_t m_head = 0;
    quint64 m_seq = 0;
    QString m_logFilePath;
    std::shared_ptr<LogHubSink> m_sink;
};

}  // namespace ft

Q_DECLARE_METATYPE(ft::LogEntry)

namespace ft {

// Starts the product's logging for a Qt executable: ft::log_init (file only, no console) with `hub` attached, and
// the log file's path recorded in the hub. Every line is flushed to the file as it is written (a desktop app logs
// little, and a frozen or killed app must leave its last lines behind). Returns the file's path (empty if only the
// hub receives lines).
QString attach_log_hub(LogHub& hub, const std::string& app_name);

// Routes Qt's own messages (QML errors included) into the log: debug/info/warning/error at the same spdlog level,
// warnings and errors also on stderr. Qt's font warnings ("OpenType support missing for …, script N", one per font
// and script: ~70 lines for one Arabic text) are logged once; the rest are counted and the count is logged by
// remove_qt_log_handler(). `qml_warnings`, when given, counts the warnings about QML (the --smoke check).
void install_qt_log_handler(std::atomic<int>* qml_warnings = nullptr);
void remove_qt_log_handler();

}  // namespace ft
