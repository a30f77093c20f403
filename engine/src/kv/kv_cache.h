// Paged KV cache: a pool of pages per layer shared by all sequences. A page holds page_size consecutive positions
// of one sequence (all KV heads). Each sequence has a page table (position / page_size → page).
// Storage is bytes: elem_bytes per element (4: f32, what the CPU runner reads; 2: f16, the GPU runner's default).
// It is host memory by default (reserved up front, committed by the OS only as pages are used) or whatever a
// runner's allocator hands out (device memory for the GPU runner: then every pointer below is a device pointer that
// only kernels may dereference). The page bookkeeping is the same either way and stays on the host.
// Pages are reference counted: a page may be in several sequences' page tables and in the prefix cache at once
// (kv/prefix_cache.h: whole pages of token prefixes kept after their sequence ends). A shared page is read-only;
// a sequence writes only the pages past the ones it shares.
// Not thread-safe: the engine thread owns it; kernels read it while the engine thread waits for them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "kv/prefix_cache.h"

namespace ft::kv {

struct KvGeometry {
    int n_layer = 0;
    int n_head_kv = 0;
    int head_dim = 0;
    int v_head_dim = 0;  // 0: no V storage (MLA: the latent rows in K are the values)
    int page_size = 16;
    std::int64_t n_pages = 0;
    int elem_bytes = 4;  // bytes per K/V element: 4 (f32) or 2 (f16)
    // The recurrent-state pool beside the pages (Gated DeltaNet layers): per layer, rs_slots sequence slots of
    // rs_floats f32 values each (a sequence id indexes its slot). 0 layers: none.
    // Within a layer's pool, the slots' conv windows (rs_conv_floats each) come first, then their delta-rule states
    // (rs_floats - rs_conv_floats each): the layout the runners' kernels index.
    int n_rs_layer = 0;
    std::int64_t rs_floats = 0, rs_conv_floats = 0;
    int rs_slots = 0;
    std::size_t rs_layer_bytes() const { return std::size_t(rs_slots) * std::size_t(rs_floats) * 4; }
    // One layer's K or V storage.
    std::size_t k_layer_bytes() const { return positions() * std::size_t(n_head_kv) * std::size_t(head_dim) * elem(); }
    std::size_t v_layer_bytes() const { return positions() * std::size_t(n_head_kv) * std::size_t(v_head_dim) * elem(); }
    // All of it: every layer's K and V.
    std::size_t bytes() const {
        return std::size_t(n_layer) * (k_layer_bytes() + v_layer_bytes()) + std::size_t(n_rs_layer) * rs_layer_bytes();
    }

private:
    std::size_t positions() const { return std::size_t(n_pages) * std::size_t(page_size); }
    std::size_t elem() const { return std::size_t(elem_bytes); }
};

// Allocates `bytes` bytes of storage (one layer's K or V), aligned to at least 16 bytes; the shared_ptr's deleter
// frees it. Throws ft::Error(out_of_memory) when it cannot.
using KvAllocator = std::function<std::shared_ptr<void>(std::size_t bytes)>;

class KvCache {
public:
    // Throws ft::Error(out_of_memory) when the pool cannot be reserved, ft::Error(internal) for a geometry with a
    // non-positive size or an element size other than 2 or 4. alloc empty: host memory.
    explicit KvCache(const KvGeometry& g, const KvAllocator& alloc = {});

    const KvGeometry& geometry() const { return g_; }
    // One layer's storage, any element type.
    void* k_data(int layer) { return k_[std::size_t(layer)].get(); }
    void* v_data(int layer) { return v_[std::size_t(layer)].get(); }
    // Typed (f32) views for the CPU runner: throw ft::Error(internal) when elem_bytes is not 4.
    float* k(int layer) { return f32(k_data(layer)); }
    float* v(int layer) { return f32(v_data(layer)); }

    // The recurrent-state pool of layer `layer`: rs_slots · rs_floats f32 values, slot = sequence id (layout in
    // KvGeometry). The runner starts a sequence's state afresh at its position 0. A state cannot be rolled back, so
    // a sequence cannot be truncated to a shorter, non-empty length; shared prefix pages are of use only with the
    // state at the prefix's end, which the engine keeps as checkpoints (sched/kv_resize.h save_state).
    float* state(int layer) { return static_cast<float*>(rs_[std::size_t(layer)].get()); }
    bool has_state() const { return g_.n_rs_layer > 0; }

    // Sequences: ids are small integers, reused after release(). Throws ft::Error(internal) past rs_slots when
    // there is a recurrent state.
    int create();
    // Drops the sequence's references; a page nobody else holds returns to the pool.
    void release(int seq);
    // Makes room for positions [0, n_tokens) of seq, evicting cached prefixes nobody uses (least recently used
    // first) when the pool has too few free pages. Throws ft::Error(out_of_memory) naming the context size when
    // even that leaves too few (nothing is changed then).
    void reserve(int seq, std::int64_t n_tokens);
    // Forgets positions >= n_tokens (pages past them are released).
    void truncate(int seq, std::int64_t n_tokens);

    // Prefix cache. share_prefix: an empty sequence starts with the cached pages of the longest whole-page prefix
    // of `tokens`, at most max_positions positions; returns the positions it got (a multiple of page_size). Those
    // pages must not be written. cache_prefix: caches seq's whole pages holding positions [0, n_valid) of
    // `tokens` (K/V of those tokens already written), sharing them with the cache; cache_and_release does that
    // and releases seq (it can cache more: pages past a private copy of a cached page). clear_prefixes: forgets
    // every cached prefix (pages still in a sequence stay with it).
    std::int64_t share_prefix(int seq, std::span<const std::int32_t> tokens, std::int64_t max_positions);
    void cache_prefix(int seq, std::span<const std::int32_t> tokens, std::int64_t n_valid);
    void cache_and_release(int seq, std::span<const std::int32_t> tokens, std::int64_t n_valid);
    void clear_prefixes();
    // Pages the prefix cache holds, and those of them no sequence holds (reclaimable by reserve()).
    std::int64_t pages_cached() const { return std::int64_t(prefix_.pages()); }
    std::int64_t pages_cached_idle() const;
    // True when the page holding position pos of seq is shared (with another sequence or the prefix cache):
    // writing it would change what others read.
    bool shared(int seq, std::int64_t pos) const;
    std::int64_t capacity(int seq) const;  // positions reserved
    const std::vector<std::int32_t>& page_table(int seq) const { return seqs_[std::size_t(seq)].pages; }

    // Where K / V of one position of one layer live ([n_head_kv, head_dim] floats; f32 caches only, as k()).
    float* k_at(int layer, int seq, std::int64_t pos);
    float* v_at(int layer, int seq, std::int64_t pos);

    // Sequence ids in use are < seq_slots(); live(seq) tells which.
    int seq_slots() const { return int(seqs_.size()); }
    bool live(int seq) const { return seq >= 0 && seq < int(seqs_.size()) && seqs_[std::size_t(seq)].live; }

    std::int64_t pages_used() const { return g_.n_pages - std::int64_t(free_.size()); }
    std::int64_t pages_total() const { return g_.n_pages; }

private:
    struct Seq {
        bool live = false;
        std::vector<std::int32_t> pages;
    };
    float* f32(void* p) const;
    std::int64_t slot(int seq, std::int64_t pos) const;
    void unref(std::int32_t page);
    void insert_prefix(int seq, std::span<const std::int32_t> tokens, std::int64_t n_valid, bool releasing);
    std::int64_t evict(std::int64_t n);  // frees up to n cached pages nobody uses; returns how many

    KvGeometry g_;
    std::vector<std::shared_ptr<void>> k_, v_, rs_;
    std::vector<std::int32_t> free_;  // free pages (a stack: lowest ids are handed out first)
    std::vector<std::int32_t> refs_;  // per page: page tables and the prefix cache holding it
    std::vector<Seq> seqs_;
    PrefixCache prefix_;
};

}  // namespace ft::kv
