#include "kv/kv_cache.h"

#include <algorithm>
#include <cstddef>
#include <new>
#include <string>

#include "ft/error.h"

namespace ft::kv {

KvCache::KvCache(const KvGeometry& g, const KvAllocator& alloc) : g_(g), prefix_(g.page_size > 0 ? g.page_size : 1) {
    if (g.n_layer <= 0 || g.n_head_kv <= 0 || g.head_dim <= 0 || g.v_head_dim < 0 || g.page_size <= 0 || g.n_pages <= 0)
        throw Error(ErrorCode::internal, "KV cache: invalid geometry");
    if (g.elem_bytes != 2 && g.elem_bytes != 4)
        throw Error(ErrorCode::internal, "KV cache: element size " + std::to_string(g.elem_bytes) + " (2 or 4)");
    const std::size_t per_layer_k = g.k_layer_bytes(), per_layer_v = g.v_layer_bytes();
    if (g.n_rs_layer < 0 || (g.n_rs_layer > 0 && (g.rs_floats <= 0 || g.rs_slots <= 0)))
        throw Error(ErrorCode::internal, "KV cache: invalid recurrent-state geometry");
    if (alloc) {
        for (int l = 0; l < g.n_rs_layer; ++l) rs_.push_back(alloc(g.rs_layer_bytes()));
    } else try {
        for (int l = 0; l < g.n_rs_layer; ++l) rs_.emplace_back(new float[std::size_t(g.rs_slots) * std::size_t(g.rs_floats)](),
                                                             std::default_delete<float[]>());
    } catch (const std::bad_alloc&) {
        throw Error(ErrorCode::out_of_memory,
                    "cannot reserve " + std::to_string((std::size_t(g.n_rs_layer) * g.rs_layer_bytes()) >> 20) +
                        " MiB for the recurrent state",
                    "use fewer parallel requests");
    }
    if (alloc) {
        for (int l = 0; l < g.n_layer; ++l) {
            k_.push_back(alloc(per_layer_k));
            v_.push_back(per_layer_v ? alloc(per_layer_v) : nullptr);  // none: MLA keeps only the latent rows
        }
    } else try {
        for (int l = 0; l < g.n_layer; ++l) {
            // new[] of a trivial type leaves the memory untouched: the OS commits pages only as positions are
            // written. (operator new[] aligns to at least 16 bytes.)
            k_.emplace_back(new std::byte[per_layer_k], std::default_delete<std::byte[]>());
            if (per_layer_v) v_.emplace_back(new std::byte[per_layer_v], std::default_delete<std::byte[]>());
            else v_.emplace_back();
        }
    } catch (const std::bad_alloc&) {
        throw Error(ErrorCode::out_of_memory,
                    "cannot reserve " + std::to_string(g.bytes() >> 20) + " MiB for the KV cache",
                    "use a smaller context (--ctx) or fewer parallel requests");
    }
    free_.reserve(std::size_t(g.n_pages));
    for (std::int64_t p = g.n_pages - 1; p >= 0; --p) free_.push_back(std::int32_t(p));
    refs_.assign(std::size_t(g.n_pages), 0);
}

int KvCache::create() {
    for (std::size_t i = 0; i < seqs_.size(); ++i)
        if (!seqs_[i].live) {
            seqs_[i].live = true;
            return int(i);
        }
    if (g_.n_rs_layer > 0 && int(seqs_.size()) >= g_.rs_slots)
        throw Error(ErrorCode::internal, "KV cache: more sequences than the " + std::to_string(g_.rs_slots) +
                                             " recurrent-state slots");
    seqs_.push_back({true, {}});
    return int(seqs_.size() - 1);
}

void KvCache::release(int seq) {
    Seq& s = seqs_.at(std::size_t(seq));
    for (auto it = s.pages.rbegin(); it != s.pages.rend(); ++it) unref(*it);
    s.pages.clear();
    s.live = false;
}

void KvCache::unref(std::int32_t page) {
    if (--refs_[std::size_t(page)] == 0) free_.push_back(page);
}

std::int64_t KvCache::evict(std::int64_t n) {
    std::int64_t done = 0;
    const auto idle = [this](std::int32_t page) { return refs_[std::size_t(page)] == 1; };
    for (; done < n; ++done) {
        const std::int32_t page = prefix_.evict(idle);
        if (page < 0) break;
        unref(page);
    }
    return done;
}

void KvCache::reserve(int seq, std::int64_t n_tokens) {
    Seq& s = seqs_.at(std::size_t(seq));
    const std::int64_t need = (n_tokens + g_.page_size - 1) / g_.page_size - std::int64_t(s.pages.size());
    if (need <= 0) return;
    if (need > std::int64_t(free_.size())) {
        const std::int64_t idle = pages_cached_idle();
        if (need > std::int64_t(free_.size()) + idle) {
            throw Error(ErrorCode::out_of_memory,
                        "the KV cache is full: " + std::to_string(n_tokens) + " positions do not fit (" +
                            std::to_string((std::int64_t(free_.size()) + idle) * g_.page_size) + " free)",
                        "shorten the conversation, lower max tokens, or load with a larger context");
        }
        // Every idle cached page is reclaimable: a sequence holding a cached page holds all of its ancestors
        // (prefix_cache.h), so idle pages form whole subtrees and evicting leaves reaches all of them.
        evict(need - std::int64_t(free_.size()));
        if (need > std::int64_t(free_.size())) throw Error(ErrorCode::internal, "KV cache: cached pages could not be reclaimed");
    }
    for (std::int64_t i = 0; i < need; ++i) {
        s.pages.push_back(free_.back());
        refs_[std::size_t(free_.back())] = 1;
        free_.pop_back();
    }
}

void KvCache::truncate(int seq, std::int64_t n_tokens) {
    Seq& s = seqs_.at(std::size_t(seq));
    if (g_.n_rs_layer > 0 && n_tokens > 0 && n_tokens < capacity(seq))
        throw Error(ErrorCode::unsupported, "KV cache: a sequence of a model with recurrent layers cannot be cut back");
    const std::size_t keep = std::size_t((n_tokens + g_.page_size - 1) / g_.page_size);
    while (s.pages.size() > keep) {
        unref(s.pages.back());
        s.pages.pop_back();
    }
}

std::int64_t KvCache::share_prefix(int seq, std::span<const std::int32_t> tokens, std::int64_t max_positions) {
    Seq& s = seqs_.at(std::size_t(seq));
    if (!s.pages.empty()) throw Error(ErrorCode::internal, "KV cache: a prefix is shared into a sequence that has pages");
    if (max_positions < g_.page_size) return 0;
    const std::vector<std::int32_t> pages = prefix_.match(tokens, std::size_t(max_positions / g_.page_size));
    for (std::int32_t p : pages) {
        refs_[std::size_t(p)] += 1;
        s.pages.push_back(p);
    }
    return std::int64_t(pages.size()) * g_.page_size;
}

void KvCache::insert_prefix(int seq, std::span<const std::int32_t> tokens, std::int64_t n_valid, bool releasing) {
    const Seq& s = seqs_.at(std::size_t(seq));
    const std::int64_t full = std::min<std::int64_t>(n_valid, std::int64_t(tokens.size())) / g_.page_size;
    const std::size_t n = std::min(std::size_t(std::max<std::int64_t>(0, full)), s.pages.size());
    std::vector<std::int32_t> adopted;
    prefix_.insert(tokens, std::span(s.pages.data(), n), releasing, adopted);
    for (std::int32_t p : adopted) refs_[std::size_t(p)] += 1;
}

void KvCache::cache_prefix(int seq, std::span<const std::int32_t> tokens, std::int64_t n_valid) {
    insert_prefix(seq, tokens, n_valid, false);
}

void KvCache::cache_and_release(int seq, std::span<const std::int32_t> tokens, std::int64_t n_valid) {
    insert_prefix(seq, tokens, n_valid, true);
    release(seq);
}

void KvCache::clear_prefixes() {
    for (std::int32_t p : prefix_.clear()) unref(p);
}

std::int64_t KvCache::pages_cached_idle() const {
    std::int64_t n = 0;
    prefix_.each_page([&](std::int32_t p) { n += refs_[std::size_t(p)] == 1; });
    return n;
}

bool KvCache::shared(int seq, std::int64_t pos) const {
    const Seq& s = seqs_.at(std::size_t(seq));
    const std::size_t i = std::size_t(pos / g_.page_size);
    return i < s.pages.size() && refs_[std::size_t(s.pages[i])] > 1;
}

std::int64_t KvCache::capacity(int seq) const { return std::int64_t(seqs_.at(std::size_t(seq)).pages.size()) * g_.page_size; }

float* KvCache::f32(void* p) const {
    if (g_.elem_bytes != 4)
        throw Error(ErrorCode::internal, "KV cache: f32 access to a cache of " + std::to_string(g_.elem_bytes) +
                                             "-byte elements");
    return static_cast<float*>(p);
}

std::int64_t KvCache::slot(int seq, std::int64_t pos) const {
    return std::int64_t(seqs_[std::size_t(seq)].pages[std::size_t(pos / g_.page_size)]) * g_.page_size + pos % g_.page_size;
}

float* KvCache::k_at(int layer, int seq, std::int64_t pos) {
    return k(layer) + slot(seq, pos) * g_.n_head_kv * g_.head_dim;
}

float* KvCache::v_at(int layer, int seq, std::int64_t pos) {
    return v(layer) + slot(seq, pos) * g_.n_head_kv * g_.v_head_dim;
}

}  // namespace ft::kv
