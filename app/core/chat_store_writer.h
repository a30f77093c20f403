// ChatStoreWriter: saves a streaming reply on a thread of its own, so that the GUI thread never waits on the disk
// while a reply streams.
//
// Why: the chat saved the whole reply every 100 ms on the GUI thread. A long reply rewrote itself dozens of times a
// second (24.5 MB written for a 346 KB reply), and a commit that met a WAL checkpoint on a busy disk held the event
// loop for hundreds of milliseconds.
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
// too, so that the reply is still seen while takeError() says it is not saved. The final state of a
// reply is written by the GUI thread after drop(): the worker never writes over it.
#pragma once

#include <QString>

#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "chat_store.h"

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
    // The first write that failed since the last call ("" if none): the error's message and what to do.
    QString takeError();

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
    QString m_error;
    std::thread m_thread;  // last: started once the members above exist
};

}  // namespace ft
