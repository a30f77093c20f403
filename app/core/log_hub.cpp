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

#include <QtGlobal>

#include <cstdio>
#include <cstring>

#include "ft/log.h"
#include "ft/utf8.h"

namespace ft {

QString attach_log_hub(LogHub& hub, const std::string& app_name) {
    LogOptions options;
    options.app_name = app_name;
    options.console = false;
    const QString path = QString::fromStdString(path_to_utf8(log_init(options)));
    // ft::log_init flushes the file on warnings only: the lines before a freeze or a kill were lost.
    if (const auto logger = spdlog::default_logger()) logger->flush_on(spdlog::level::trace);
    hub.setLogFilePath(path);
    log_add_sink(hub.sink());
    return path;
}

namespace {

std::atomic<int>* g_qml_warnings = nullptr;
std::atomic<int> g_font_warnings{0};
QtMessageHandler g_previous = nullptr;
bool g_installed = false;

bool is_font_warning(const QString& msg) {
    return msg.startsWith(QLatin1String("OpenType support missing for"));
}

void qt_message_to_log(QtMsgType type, const QMessageLogContext& ctx, const QString& msg) {
    if (type == QtWarningMsg && is_font_warning(msg)) {
        // The first one says what happens; the others (one per font and script) would only flood the file.
        if (g_font_warnings.fetch_add(1) > 0) return;
        spdlog::info("Qt: {} (further font warnings of this kind are counted, not logged)", msg.toStdString());
        return;
    }
    if (g_qml_warnings && type != QtDebugMsg && type != QtInfoMsg &&
        (msg.contains(QLatin1String(".qml")) || (ctx.category && std::strncmp(ctx.category, "qt.qml", 6) == 0)))
        ++*g_qml_warnings;
    const std::string text = ctx.category && std::strcmp(ctx.category, "default") != 0
        ? std::string(ctx.category) + ": " + msg.toStdString() : msg.toStdString();
    switch (type) {
    case QtDebugMsg: spdlog::debug("{}", text); break;
    case QtInfoMsg: spdlog::info("{}", text); break;
    case QtWarningMsg: spdlog::warn("{}", text); break;
    default: spdlog::error("{}", text); break;
    }
    if (type != QtDebugMsg && type != QtInfoMsg) std::fprintf(stderr, "freetoken: %s\n", text.c_str());
}

}  // namespace

void install_qt_log_handler(std::atomic<int>* qml_warnings) {
    g_qml_warnings = qml_warnings;
    g_font_warnings = 0;
    g_previous = qInstallMessageHandler(qt_message_to_log);
    g_installed = true;
}

void remove_qt_log_handler() {
    if (!g_installed) return;
    qInstallMessageHandler(g_previous);
    g_installed = false;
    g_qml_warnings = nullptr;
    if (const int n = g_font_warnings.exchange(0); n > 1)
        spdlog::info("Qt: {} font warnings in all (OpenType support missing for some fonts and scripts)", n);
}

}  // namespace ft
