#include "log_hub.h"

#include <spdlog/sinks/base_sink.h>

#include <chrono>

namespace ft {

// Forwards spdlog records to a LogHub. detach() (under the sink's own mutex) makes a late record after the hub's
// destruction a no-op instead of a use-after-free.
class LogHubSink final : public spdlog::sinks::base_sink<std::mutex> {
public:
    explicit LogHubSink(LogHub* hub) : m_hub(hub) {}
    void detach() {
        std::lock_guard lock(mutex_);
        m_hub = nullptr;
    }

protected:
    void sink_it_(const spdlog::details::log_msg& msg) override {
        if (!m_hub) return;
        const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(msg.time.time_since_epoch()).count();
        m_hub->append(static_cast<int>(msg.level), static_cast<qint64>(ms),
                      QString::fromUtf8(msg.payload.data(), static_cast<qsizetype>(msg.payload.size())));
    }
    void flush_() override {}

private:
    LogHub* m_hub;
};

LogHub::LogHub(int capacity, QObject* parent) : QObject(parent), m_capacity(capacity < 1 ? 1 : capacity) {
    qRegisterMetaType<LogEntry>();
    m_ring.reserve(static_cast<size_t>(m_capacity));
}

LogHub::~LogHub() {
    if (m_sink) m_sink->detach();
}

std::shared_ptr<spdlog::sinks::sink> LogHub::sink() {
    std::lock_guard lock(m_mutex);
    if (!m_sink) {
        m_sink = std::make_shared<LogHubSink>(this);
        m_sink->set_level(spdlog::level::debug);
    }
    return m_sink;
}

void LogHub::append(int level, qint64 msecs, const QString& text) {
    LogEntry e;
    {
        std::lock_guard lock(m_mutex);
        e.seq = ++m_seq;
        e.msecs = msecs;
        e.level = level < 0 ? 0 : (level > 5 ? 5 : level);
        e.text = text;
        if (m_ring.size() < static_cast<size_t>(m_capacity)) {
            m_ring.push_back(e);
        } else {
            m_ring[m_head] = e;
            m_head = (m_head + 1) % m_ring.size();
        }
    }
    emit entryAdded(e);
}

QList<LogEntry> LogHub::snapshot() const {
    std::lock_guard lock(m_mutex);
    QList<LogEntry> out;
    out.reserve(static_cast<qsizetype>(m_ring.size()));
    for (size_t i = 0; i < m_ring.size(); ++i) out.append(m_ring[(m_head + i) % m_ring.size()]);
    return out;
}

quint64 LogHub::totalAppended() const {
    std::lock_guard lock(m_mutex);
    return m_seq;
}

QString LogHub::logFilePath() const {
    std::lock_guard lock(m_mutex);
    return m_logFilePath;
}

void LogHub::setLogFilePath(const QString& path) {
    std::lock_guard lock(m_mutex);
    m_logFilePath = path;
}

QString LogHub::levelName(int level) {
    switch (level) {
    case 0: return QStringLiteral("trace");
    case 1: return QStringLiteral("debug");
    case 2: return QStringLiteral("info");
    case 3: return QStringLiteral("warn");
    case 4: return QStringLiteral("error");
    default: return QStringLiteral("critical");
    }
}

}  // namespace ft

#include "ft/log.h"

namespace ft {

QString attach_log_hub(LogHub& hub, const std::string& app_name) {
    LogOptions options;
    options.app_name = app_name;
    options.console = false;
    const QString path = QString::fromStdString(log_init(options).string());
    hub.setLogFilePath(path);
    log_add_sink(hub.sink());
    return path;
}

}  // namespace ft
