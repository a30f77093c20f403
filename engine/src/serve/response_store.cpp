// The bounded LRU store of /v1/responses (see response_store.h).
#include "serve/response_store.h"

#include <nlohmann/json.hpp>

namespace ft::serve {

using json = nlohmann::ordered_json;

bool ResponseStore::put(const std::string& id, const std::string& response_json, const std::string& input_items_json) {
    json items = json::parse(input_items_json, nullptr, false);
    if (!items.is_array()) items = json::array();
    StoredResponse r;
    r.n_input = items.size();
    const json resp = json::parse(response_json, nullptr, false);
    if (resp.is_object() && resp.contains("output") && resp["output"].is_array())
        for (const auto& it : resp["output"]) items.push_back(it);
    r.items_json = items.dump(-1, ' ', false, json::error_handler_t::replace);
    r.response_json = response_json;
    const std::size_t bytes = id.size() + r.items_json.size() + r.response_json.size();
    std::lock_guard lock(mutex_);
    erase_locked(id);
    if (bytes > max_bytes_ || max_count_ == 0) return false;
    lru_.push_front(Entry{id, std::move(r), bytes});
    index_[id] = lru_.begin();
    bytes_ += bytes;
    evict_locked();
    return true;
}

std::optional<StoredResponse> ResponseStore::get(const std::string& id) {
    std::lock_guard lock(mutex_);
    const auto it = index_.find(id);
    if (it == index_.end()) return std::nullopt;
    lru_.splice(lru_.begin(), lru_, it->second);
    return it->second->r;
}

bool ResponseStore::erase(const std::string& id) {
    std::lock_guard lock(mutex_);
    return erase_locked(id);
}

bool ResponseStore::erase_locked(const std::string& id) {
    const auto it = index_.find(id);
    if (it == index_.end()) return false;
    bytes_ -= it->second->bytes;
    lru_.erase(it->second);
    index_.erase(it);
    return true;
}

void ResponseStore::evict_locked() {
    while (!lru_.empty() && (lru_.size() > max_count_ || bytes_ > max_bytes_)) {
        bytes_ -= lru_.back().bytes;
        index_.erase(lru_.back().id);
        lru_.pop_back();
    }
}

std::size_t ResponseStore::size() const {
    std::lock_guard lock(mutex_);
    return lru_.size();
}

std::size_t ResponseStore::bytes() const {
    std::lock_guard lock(mutex_);
    return bytes_;
}

}  // namespace ft::serve
