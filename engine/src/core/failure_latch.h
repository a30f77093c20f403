// The first failure of a group of worker threads, reported to the thread that checks on them: any thread may
// set() a message (the first one since the last take() is kept, later ones are dropped), and the checking thread
// asks failed() (one atomic load: cheap enough for every step) and take()s the message, which clears the latch.
// The string is only touched under the mutex, so a writer never races a reader or another writer.
#pragma once

#include <atomic>
#include <mutex>
#include <optional>
#include <string>

namespace ft {

class FailureLatch {
public:
    // Returns true when this call's message is the one kept.
    bool set(std::string message) {
        std::lock_guard<std::mutex> lock(m_);
        if (failed_.load(std::memory_order_relaxed)) return false;
        message_ = std::move(message);
        failed_.store(true, std::memory_order_release);
        return true;
    }
    bool failed() const { return failed_.load(std::memory_order_acquire); }
    // The kept message, clearing the latch; nullopt when nothing failed.
    std::optional<std::string> take() {
        if (!failed()) return std::nullopt;
        std::lock_guard<std::mutex> lock(m_);
        if (!failed_.load(std::memory_order_relaxed)) return std::nullopt;
        std::optional<std::string> out = std::move(message_);
        message_.clear();
        failed_.store(false, std::memory_order_release);
        return out;
    }

private:
    std::mutex m_;
    std::atomic<bool> failed_{false};
    std::string message_;
};

}  // namespace ft
