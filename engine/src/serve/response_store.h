// Responses kept server-side for /v1/responses (`store`, `previous_response_id`, GET/DELETE /v1/responses/{id}):
// the response object and the conversation it ended (its input items followed by its output items), so that the
// next turn can continue from it. Bounded in count and in bytes; the least recently used response goes first.
//
// Threading: every call may run concurrently (one mutex).
#pragma once

#include <cstddef>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace ft::serve {

struct StoredResponse {
    std::string response_json;  // the response object, as the non-streamed request got it
    std::string items_json;     // the conversation: input items, then the output items (a JSON array)
    std::size_t n_input = 0;    // how many of items_json are input items
};

class ResponseStore {
public:
    explicit ResponseStore(std::size_t max_count = 1000, std::size_t max_bytes = std::size_t(256) << 20)
        : max_count_(max_count), max_bytes_(max_bytes) {}

    // Keeps `response_json` (its "output" appended to `input_items_json`, a JSON array) under `id`, evicting the
    // least recently used responses past the bounds. A response larger than max_bytes alone is not kept (false).
    bool put(const std::string& id, const std::string& response_json, const std::string& input_items_json);
    // The response, marked as just used; nullopt when unknown (never kept, deleted or evicted).
    std::optional<StoredResponse> get(const std::string& id);
    // Forgets a response; false when unknown.
    bool erase(const std::string& id);

    std::size_t size() const;
    std::size_t bytes() const;

private:
    struct Entry {
        std::string id;
        StoredResponse r;
        std::size_t bytes = 0;
    };
    bool erase_locked(const std::string& id);
    void evict_locked();

    std::size_t max_count_, max_bytes_;
    mutable std::mutex mutex_;
    std::list<Entry> lru_;  // most recently used first
    std::unordered_map<std::string, std::list<Entry>::iterator> index_;
    std::size_t bytes_ = 0;
};

}  // namespace ft::serve
