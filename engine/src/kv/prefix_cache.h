// Prefix cache: a radix tree over token ids whose edges are whole KV pages (page_size tokens each). A node stands
// for one page of KV computed for the tokens on the path from the root to it, so a request whose prompt starts with
// those tokens can take the pages instead of computing them. Only page ids live here: the KV cache owns the pages
// and counts references (kv/kv_cache.h holds one of these and keeps the tree's reference on every cached page).
// Eviction takes least recently used leaves, so a node never outlives its parent.
// Not thread-safe: the engine thread owns it with the KV cache.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <unordered_map>
#include <vector>

namespace ft::kv {

class PrefixCache {
public:
    explicit PrefixCache(int page_size) : page_size_(page_size) {}

    // Pages of the longest cached prefix of `tokens`, at most max_pages of them (whole pages only), in order.
    // Marks them used now.
    std::vector<std::int32_t> match(std::span<const std::int32_t> tokens, std::size_t max_pages);

    // Caches the first pages.size() whole pages of `tokens` (pages[i] holds positions [i·page_size, (i+1)·page_size)).
    // A page already cached under the same tokens stays (the caller's is a private copy of it). Past such a copy
    // the walk goes on only when `releasing` (the sequence lets go of all its pages right after): a sequence that
    // holds a cached page must hold every ancestor, so that the pages nobody holds form whole subtrees that
    // leaf-first eviction can reclaim completely. Appends to `adopted` the pages the tree took: the caller adds
    // the tree's reference to each.
    void insert(std::span<const std::int32_t> tokens, std::span<const std::int32_t> pages, bool releasing,
                std::vector<std::int32_t>& adopted);

    // Removes the least recently used leaf whose page `unreferenced` says nobody else uses, and returns that page
    // (the caller drops the tree's reference); -1 when there is none.
    std::int32_t evict(const std::function<bool(std::int32_t page)>& unreferenced);

    // Forgets every node; returns their pages (the caller drops the tree's references).
    std::vector<std::int32_t> clear();

    void each_page(const std::function<void(std::int32_t page)>& f) const {
        for (const Node& n : nodes_)
            if (n.live) f(n.page);
    }
    std::size_t pages() const { return live_; }
    int page_size() const { return page_size_; }

private:
    struct Node {
        int parent = -1;                  // -1: a child of the root
        std::int32_t page = -1;
        std::uint64_t hash = 0;           // of the page's tokens (the key under the parent)
        std::vector<std::int32_t> tokens;  // the page's tokens, to tell hash collisions apart
        int children = 0;
        std::uint64_t used = 0;           // LRU stamp
        bool live = false;
    };
    // Key of a child: its parent and its tokens' hash.
    struct Key {
        int parent;
        std::uint64_t hash;
        bool operator==(const Key&) const = default;
    };
    struct KeyHash {
        std::size_t operator()(const Key& k) const { return std::size_t(k.hash ^ (std::uint64_t(k.parent + 1) * 0x9e3779b97f4a7c15ull)); }
    };

    std::uint64_t hash(std::span<const std::int32_t> page_tokens) const;
    int child(int parent, std::span<const std::int32_t> page_tokens, std::uint64_t h) const;

    int page_size_;
    std::vector<Node> nodes_;
    std::vector<int> free_nodes_;
    std::unordered_map<Key, int, KeyHash> index_;
    std::size_t live_ = 0;
    std::uint64_t clock_ = 0;
};

}  // namespace ft::kv
