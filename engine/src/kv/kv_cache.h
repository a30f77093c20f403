// Paged KV cache (f32): a pool of pages per layer shared by all sequences. A page holds page_size consecutive
// positions of one sequence (all KV heads). Each sequence has a page table (position / page_size → page).
// Storage is host memory by default (reserved up front, committed by the OS only as pages are used) or whatever a
// runner's allocator hands out (device memory for the GPU runner: then k()/v()/k_at()/v_at() are device pointers
// that only kernels may dereference). The page bookkeeping is the same either way and stays on the host.
// Not thread-safe: the engine thread owns it; kernels read it while the engine thread waits for them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace ft::kv {

struct KvGeometry {
    int n_layer = 0;
    int n_head_kv = 0;
    int head_dim = 0;
    int v_head_dim = 0;
    int page_size = 16;
    std::int64_t n_pages = 0;
    std::size_t bytes() const {
        return std::size_t(n_layer) * std::size_t(n_pages) * std::size_t(page_size) * std::size_t(n_head_kv) *
               std::size_t(head_dim + v_head_dim) * sizeof(float);
    }
};

// Allocates `floats` floats of storage (one layer's K or V); the shared_ptr's deleter frees it. Throws ft::Error
// (out_of_memory) when it cannot.
using KvAllocator = std::function<std::shared_ptr<float>(std::size_t floats)>;

class KvCache {
public:
    // Throws ft::Error(out_of_memory) when the pool cannot be reserved. alloc empty: host memory.
    explicit KvCache(const KvGeometry& g, const KvAllocator& alloc = {});

    const KvGeometry& geometry() const { return g_; }
    float* k(int layer) { return k_[std::size_t(layer)].get(); }
    float* v(int layer) { return v_[std::size_t(layer)].get(); }

    // Sequences: ids are small integers, reused after release().
    int create();
    void release(int seq);
    // Makes room for positions [0, n_tokens) of seq. Throws ft::Error(out_of_memory) naming the context size
    // when the pool has no free page left (nothing is changed then).
    void reserve(int seq, std::int64_t n_tokens);
    // Forgets positions >= n_tokens (pages past them return to the pool).
    void truncate(int seq, std::int64_t n_tokens);
    std::int64_t capacity(int seq) const;  // positions reserved
    const std::vector<std::int32_t>& page_table(int seq) const { return seqs_[std::size_t(seq)].pages; }

    // Where K / V of one position of one layer live ([n_head_kv, head_dim] floats).
    float* k_at(int layer, int seq, std::int64_t pos);
    float* v_at(int layer, int seq, std::int64_t pos);

    std::int64_t pages_used() const { return g_.n_pages - std::int64_t(free_.size()); }
    std::int64_t pages_total() const { return g_.n_pages; }

private:
    struct Seq {
        bool live = false;
        std::vector<std::int32_t> pages;
    };
    KvGeometry g_;
    std::vector<std::shared_ptr<float>> k_, v_;
    std::vector<std::int32_t> free_;  // free pages (a stack: lowest ids are handed out first)
    std::vector<Seq> seqs_;
};

}  // namespace ft::kv
