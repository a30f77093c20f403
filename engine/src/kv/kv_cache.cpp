#include "kv/kv_cache.h"

#include <cstddef>
#include <new>
#include <string>

#include "ft/error.h"

namespace ft::kv {

KvCache::KvCache(const KvGeometry& g, const KvAllocator& alloc) : g_(g) {
    if (g.n_layer <= 0 || g.n_head_kv <= 0 || g.head_dim <= 0 || g.v_head_dim <= 0 || g.page_size <= 0 || g.n_pages <= 0)
        throw Error(ErrorCode::internal, "KV cache: invalid geometry");
    if (g.elem_bytes != 2 && g.elem_bytes != 4)
        throw Error(ErrorCode::internal, "KV cache: element size " + std::to_string(g.elem_bytes) + " (2 or 4)");
    const std::size_t per_layer_k = g.k_layer_bytes(), per_layer_v = g.v_layer_bytes();
    if (alloc) {
        for (int l = 0; l < g.n_layer; ++l) {
            k_.push_back(alloc(per_layer_k));
            v_.push_back(alloc(per_layer_v));
        }
    } else try {
        for (int l = 0; l < g.n_layer; ++l) {
            // new[] of a trivial type leaves the memory untouched: the OS commits pages only as positions are
            // written. (operator new[] aligns to at least 16 bytes.)
            k_.emplace_back(new std::byte[per_layer_k], std::default_delete<std::byte[]>());
            v_.emplace_back(new std::byte[per_layer_v], std::default_delete<std::byte[]>());
        }
    } catch (const std::bad_alloc&) {
        throw Error(ErrorCode::out_of_memory,
                    "cannot reserve " + std::to_string(g.bytes() >> 20) + " MiB for the KV cache",
                    "use a smaller context (--ctx) or fewer parallel requests");
    }
    free_.reserve(std::size_t(g.n_pages));
    for (std::int64_t p = g.n_pages - 1; p >= 0; --p) free_.push_back(std::int32_t(p));
}

int KvCache::create() {
    for (std::size_t i = 0; i < seqs_.size(); ++i)
        if (!seqs_[i].live) {
            seqs_[i].live = true;
            return int(i);
        }
    seqs_.push_back({true, {}});
    return int(seqs_.size() - 1);
}

void KvCache::release(int seq) {
    Seq& s = seqs_.at(std::size_t(seq));
    for (auto it = s.pages.rbegin(); it != s.pages.rend(); ++it) free_.push_back(*it);
    s.pages.clear();
    s.live = false;
}

void KvCache::reserve(int seq, std::int64_t n_tokens) {
    Seq& s = seqs_.at(std::size_t(seq));
    const std::int64_t need = (n_tokens + g_.page_size - 1) / g_.page_size - std::int64_t(s.pages.size());
    if (need <= 0) return;
    if (need > std::int64_t(free_.size())) {
        throw Error(ErrorCode::out_of_memory,
                    "the KV cache is full: " + std::to_string(n_tokens) + " positions do not fit (" +
                        std::to_string(free_.size() * std::size_t(g_.page_size)) + " free)",
                    "shorten the conversation, lower max tokens, or load with a larger context");
    }
    for (std::int64_t i = 0; i < need; ++i) {
        s.pages.push_back(free_.back());
        free_.pop_back();
    }
}

void KvCache::truncate(int seq, std::int64_t n_tokens) {
    Seq& s = seqs_.at(std::size_t(seq));
    const std::size_t keep = std::size_t((n_tokens + g_.page_size - 1) / g_.page_size);
    while (s.pages.size() > keep) {
        free_.push_back(s.pages.back());
        s.pages.pop_back();
    }
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
