#include "chat_store_writer.h"

#include <algorithm>
#include <chrono>
#include <memory>

namespace ft {

namespace {

constexpr double kBytesPerSecond = 4.0 * 1024 * 1024;
constexpr auto kMinSpacing = std::chrono::milliseconds(100);
constexpr auto kMaxSpacing = std::chrono::milliseconds(1000);

}  // namespace

ChatStoreWriter::ChatStoreWriter(QString database_file, Saved saved)
    : m_path(std::move(database_file)), m_saved(std::move(saved)), m_thread([this] { run(); }) {}

ChatStoreWriter::~ChatStoreWriter() {
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_cv.notify_all();
    m_thread.join();
}

void ChatStoreWriter::post(const MessageRecord& m, bool flag) {
    {
        std::lock_guard lock(m_mutex);
        m_pending = m;
        m_pendingFlag = flag;
    }
    m_cv.notify_all();
}

void ChatStoreWriter::drop(qint64 id) {
    std::unique_lock lock(m_mutex);
    if (m_pending && m_pending->id == id) m_pending.reset();
    m_cv.wait(lock, [&] { return m_writing != id; });
}

void ChatStoreWriter::flush() {
    std::unique_lock lock(m_mutex);
    m_flushing = true;
    m_cv.notify_all();
    m_cv.wait(lock, [&] { return !m_pending && m_writing == 0; });
    m_flushing = false;
}

std::optional<Error> ChatStoreWriter::takeError() {
    std::lock_guard lock(m_mutex);
    return std::exchange(m_error, std::nullopt);
}

void ChatStoreWriter::run() {
    // The connection belongs to this thread (Qt's SQL connections may not cross threads): opened at the first write.
    std::unique_ptr<ChatStore> store;
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_cv.wait(lock, [&] { return m_stop || m_pending; });
        if (!m_pending) break;  // stopping, nothing left
        const MessageRecord m = std::move(*m_pending);
        const bool flag = m_pendingFlag;
        m_pending.reset();
        m_writing = m.id;
        lock.unlock();

        std::optional<Error> error;
        try {
            if (!store) store = std::make_unique<ChatStore>(m_path, ChatStore::Recovery::skip);
            store->updateMessage(m);
        } catch (const Error& e) {
            error = e;
        }
        // Reported even when the write failed: the reply must still be seen (takeError() tells that it is not saved).
        if (m_saved) m_saved(m, flag);
        const qint64 bytes = 2 * (m.content.size() + m.reasoning.size());

        lock.lock();
        m_writing = 0;
        if (error && !m_error) m_error = std::move(error);
        m_cv.notify_all();
        // Spaced by its size: the next write waits unless someone waits for it (flush, stop).
        const auto spacing = std::clamp(std::chrono::milliseconds(qint64(1000.0 * bytes / kBytesPerSecond)),
                                        kMinSpacing, kMaxSpacing);
        m_cv.wait_for(lock, spacing, [&] { return m_stop || m_flushing; });
    }
}

}  // namespace ft
