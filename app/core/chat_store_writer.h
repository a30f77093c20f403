// ChatStoreWriter: saves a streaming reply on a thread of its own, so that the GUI thread never waits on the disk
// while a reply streams.
//
// Why: the chat saved the whole reply every 100 ms on the GUI thread, so a long reply's every save (and a commit that
// met a WAL checkpoint, which waits on fsync) held the event loop for as long as the disk took.
//
// Here only the latest state of the message is kept: a state posted before the previous one was written replaces
// it. Writes are spaced by the size of what they write (4 MiB of the message's text in memory a second: at least
// 100 ms apart, 170 ms for a reply of 350,000 characters, at most 1 s), so a very long reply is not rewritten ten
// times a second. The worker opens its own
// connection to the same database (WAL: it never blocks the GUI's readers) without the start-up recovery that
// would mark the reply being written as cut off.
//
// `saved` is called on the worker's thread after each write with what was written, so that the chat shows a
// reply's text once it is on disk (a process killed mid-reply loses nothing the user saw); after a write that failed
// too, so that the reply is still seen while takeError() says why it is not saved. The final state of a
// reply is written by the GUI thread after drop(): the worker never writes over it.
#pragma once

#include <QString>

#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "chat_store.h"
#include "ft/error.h"

namespace ft {

class ChatStoreWriter {
public:
    // flag: the caller's, handed back with the record (the chat's "still thinking").
    using Saved = std::function<void(const MessageRecord& m, bool flag)>;
    ChatStoreWriter(QString database_file, Saved saved);
    ~ChatStoreWriter();  // writes what is pending, then stops
    ChatStoreWriter(const ChatStoreWriter&) = delete;
    ChatStoreWriter& operator=(const ChatStoreWriter&) = delete;

    // Queues `m` to be stored (ChatStore::updateMessage), replacing a queued earlier state of any message.
    void post(const MessageRecord& m, bool flag = false);
    // Forgets a queued state of message `id` and returns once no write of it is under way.
    void drop(qint64 id);
    // Returns once everything queued is written.
    void flush();
    // The error of the first write that failed since the last call (none: every write succeeded).
    std::optional<Error> takeError();

private:
    void run();

    const QString m_path;
    const Saved m_saved;
    mutable std::mutex m_mutex;
    std::condition_variable m_cv;
    std::optional<MessageRecord> m_pending;
    bool m_pendingFlag = false;
    qint64 m_writing = 0;  // the id of the message being written (0: none)
    bool m_flushing = false;
    bool m_stop = false;
    std::optional<Error> m_error;
    std::thread m_thread;  // last: started once the members above exist
};

}  // namespace ft
