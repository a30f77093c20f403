#include "kv/prefix_cache.h"

#include <algorithm>
#include <limits>

namespace ft::kv {

std::uint64_t PrefixCache::hash(std::span<const std::int32_t> page_tokens) const {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (std::int32_t t : page_tokens) {
        h ^= std::uint32_t(t);
        h *= 0x100000001b3ull;
        h ^= h >> 29;
    }
    return h;
}

int PrefixCache::child(int parent, std::span<const std::int32_t> page_tokens, std::uint64_t h) const {
    const auto it = index_.find({parent, h});
    if (it == index_.end()) return -1;
    const Node& n = nodes_[std::size_t(it->second)];
    return std::equal(n.tokens.begin(), n.tokens.end(), page_tokens.begin(), page_tokens.end()) ? it->second : -2;
}

std::vector<std::int32_t> PrefixCache::match(std::span<const std::int32_t> tokens, std::size_t max_pages) {
    std::vector<std::int32_t> out;
    const std::size_t P = std::size_t(page_size_);
    const std::size_t n = std::min(max_pages, tokens.size() / P);
    const std::uint64_t now = ++clock_;
    int at = -1;
    for (std::size_t i = 0; i < n; ++i) {
        const auto page_tokens = tokens.subspan(i * P, P);
        const int c = child(at, page_tokens, hash(page_tokens));
        if (c < 0) break;
        Node& node = nodes_[std::size_t(c)];
        node.used = now;
        out.push_back(node.page);
        at = c;
    }
    return out;
}

void PrefixCache::insert(std::span<const std::int32_t> tokens, std::span<const std::int32_t> pages, bool releasing,
                         std::vector<std::int32_t>& adopted) {
    const std::size_t P = std::size_t(page_size_);
    const std::size_t n = std::min(pages.size(), tokens.size() / P);
    const std::uint64_t now = ++clock_;
    int at = -1;
    for (std::size_t i = 0; i < n; ++i) {
        const auto page_tokens = tokens.subspan(i * P, P);
        const std::uint64_t h = hash(page_tokens);
        int c = child(at, page_tokens, h);
        if (c == -2) return;  // a hash collision with other tokens: leave that branch alone
        if (c >= 0) {
            Node& node = nodes_[std::size_t(c)];
            if (node.page != pages[i] && !releasing) return;  // cached from another sequence: ours is a private copy
            node.used = now;
            at = c;
            continue;
        }
        if (free_nodes_.empty()) {
            c = int(nodes_.size());
            nodes_.emplace_back();
        } else {
            c = free_nodes_.back();
            free_nodes_.pop_back();
        }
        Node& node = nodes_[std::size_t(c)];
        node.parent = at;
        node.page = pages[i];
        node.hash = h;
        node.tokens.assign(page_tokens.begin(), page_tokens.end());
        node.children = 0;
        node.used = now;
        node.live = true;
        index_.emplace(Key{at, h}, c);
        if (at >= 0) nodes_[std::size_t(at)].children += 1;
        ++live_;
        adopted.push_back(pages[i]);
        at = c;
    }
}

std::int32_t PrefixCache::evict(const std::function<bool(std::int32_t)>& unreferenced) {
    int best = -1;
    std::uint64_t oldest = std::numeric_limits<std::uint64_t>::max();
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
        const Node& n = nodes_[i];
        if (n.live && n.children == 0 && n.used < oldest && unreferenced(n.page)) {
            best = int(i);
            oldest = n.used;
        }
    }
    if (best < 0) return -1;
    Node& n = nodes_[std::size_t(best)];
    index_.erase(Key{n.parent, n.hash});
    if (n.parent >= 0) nodes_[std::size_t(n.parent)].children -= 1;
    n.live = false;
    n.tokens.clear();
    free_nodes_.push_back(best);
    --live_;
    return n.page;
}

std::vector<std::int32_t> PrefixCache::clear() {
    std::vector<std::int32_t> pages;
    for (const Node& n : nodes_)
        if (n.live) pages.push_back(n.page);
    nodes_.clear();
    free_nodes_.clear();
    index_.clear();
    live_ = 0;
    return pages;
}

}  // namespace ft::kv
