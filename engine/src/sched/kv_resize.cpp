#include "sched/kv_resize.h"

#include <cstring>
#include <vector>

#include "ft/error.h"

namespace ft::sched {

namespace {

// Calls f(first page, count) for each run of consecutive page ids in a page table (one copy per run and layer).
// Calls f(index of the run's first page in the table, its first page id, count) for each run of consecutive page ids
// (one copy per run and layer instead of one per page).
template <class F>
void for_runs(const std::vector<std::int32_t>& pages, F&& f) {
    for (std::size_t i = 0; i < pages.size();) {
        std::size_t j = i + 1;
        while (j < pages.size() && pages[j] == pages[j - 1] + 1) ++j;
        f(i, pages[i], j - i);
        i = j;
    }
}

struct Saved {
    kv::KvGeometry geometry;
    int seq_slots = 0;
    std::vector<int> live;                       // live sequence ids
    std::vector<std::vector<std::int32_t>> pages;  // their page tables in the old cache
    std::vector<std::int64_t> capacity;
    std::vector<std::byte> data;                 // per sequence: [layer][K of its P pages, V of its P pages]
    std::size_t k_page = 0, v_page = 0;          // bytes of one page of one layer
    std::vector<std::byte> states;               // every recurrent-state layer's pool, whole (slots are ids, kept)
};

Saved save(exec::Runner& runner, kv::KvCache& kv) {
    Saved s;
    s.geometry = kv.geometry();
    const kv::KvGeometry& g = s.geometry;
    s.k_page = g.k_layer_bytes() / std::size_t(g.n_pages);
    s.v_page = g.v_layer_bytes() / std::size_t(g.n_pages);
    s.seq_slots = kv.seq_slots();
    std::size_t n_pages = 0;
    for (int q = 0; q < s.seq_slots; ++q)
        if (kv.live(q)) {
            s.live.push_back(q);
            s.pages.push_back(kv.page_table(q));
            s.capacity.push_back(kv.capacity(q));
            n_pages += s.pages.back().size();
        }
    s.data.resize(n_pages * std::size_t(g.n_layer) * (s.k_page + s.v_page));
    std::byte* base = s.data.data();
    for (const auto& pt : s.pages) {
        const std::size_t P = pt.size(), layer = P * (s.k_page + s.v_page);
        for_runs(pt, [&](std::size_t i, std::int32_t first, std::size_t n) {
            for (int l = 0; l < g.n_layer; ++l) {
                std::byte* k = base + std::size_t(l) * layer + i * s.k_page;
                std::byte* v = base + std::size_t(l) * layer + P * s.k_page + i * s.v_page;
                runner.kv_copy(k, static_cast<const std::byte*>(kv.k_data(l)) + std::size_t(first) * s.k_page, n * s.k_page);
                if (s.v_page)  // an MLA cache has no V
                    runner.kv_copy(v, static_cast<const std::byte*>(kv.v_data(l)) + std::size_t(first) * s.v_page, n * s.v_page);
            }
        });
        base += std::size_t(g.n_layer) * layer;
    }
    // The recurrent-state pools, whole: a sequence's slot is its id, which restore() keeps, and the runner lays its
    // state out inside the pool.
    const std::size_t rs = g.rs_layer_bytes();
    s.states.resize(std::size_t(g.n_rs_layer) * rs);
    for (int l = 0; l < g.n_rs_layer; ++l) runner.kv_copy(s.states.data() + std::size_t(l) * rs, kv.state(l), rs);
    return s;
}

void restore(exec::Runner& runner, const Saved& s, kv::KvCache& kv) {
    // The same ids: create every slot up to the highest live one, release the ones that were not live.
    for (int q = 0; q < s.seq_slots; ++q) kv.create();
    std::size_t li = 0;
    for (int q = 0; q < s.seq_slots; ++q) {
        if (li < s.live.size() && s.live[li] == q) ++li;
        else kv.release(q);
    }
    const std::byte* base = s.data.data();
    const kv::KvGeometry& g = s.geometry;
    for (std::size_t q_i = 0; q_i < s.live.size(); ++q_i) {
        const int q = s.live[q_i];
        kv.reserve(q, s.capacity[q_i]);
        const auto& pt = kv.page_table(q);
        const std::size_t P = pt.size(), layer = P * (s.k_page + s.v_page);
        for_runs(pt, [&](std::size_t i, std::int32_t first, std::size_t n) {
            for (int l = 0; l < g.n_layer; ++l) {
                const std::byte* k = base + std::size_t(l) * layer + i * s.k_page;
                const std::byte* v = base + std::size_t(l) * layer + P * s.k_page + i * s.v_page;
                runner.kv_copy(static_cast<std::byte*>(kv.k_data(l)) + std::size_t(first) * s.k_page, k, n * s.k_page);
                if (s.v_page)
                    runner.kv_copy(static_cast<std::byte*>(kv.v_data(l)) + std::size_t(first) * s.v_page, v, n * s.v_page);
            }
        });
        base += std::size_t(g.n_layer) * layer;
    }
    const std::size_t rs = g.rs_layer_bytes();
    for (int l = 0; l < g.n_rs_layer; ++l) runner.kv_copy(kv.state(l), s.states.data() + std::size_t(l) * rs, rs);
}

}  // namespace

void resize_kv(exec::Runner& runner, std::unique_ptr<kv::KvCache>& kv, std::int64_t n_pages) {
    const Saved saved = save(runner, *kv);
    std::int64_t held = 0;
    for (const auto& pt : saved.pages) held += std::int64_t(pt.size());
    if (n_pages < held)
        throw Error(ErrorCode::invalid_argument, "KV resize to " + std::to_string(n_pages) + " pages: the running requests hold " +
                                                     std::to_string(held));
    const int page_size = saved.geometry.page_size;
    const std::int64_t old_pages = saved.geometry.n_pages;
    kv.reset();
    runner.invalidate_graphs();
    try {
        kv = runner.make_kv_cache(page_size, n_pages);
    } catch (const Error&) {
        kv = runner.make_kv_cache(page_size, old_pages);
        restore(runner, saved, *kv);
        throw;
    }
    restore(runner, saved, *kv);
}

namespace {

// Calls f(offset in floats within the layer's pool, floats, offset in the saved bytes) for the two parts of seq's
// state in each layer.
template <class F>
void for_state(const kv::KvGeometry& g, int seq, F&& f) {
    const std::int64_t conv = g.rs_conv_floats, delta = g.rs_floats - g.rs_conv_floats;
    std::size_t at = 0;
    for (int l = 0; l < g.n_rs_layer; ++l) {
        f(l, std::int64_t(seq) * conv, conv, at);
        at += std::size_t(conv) * 4;
        f(l, std::int64_t(g.rs_slots) * conv + std::int64_t(seq) * delta, delta, at);
        at += std::size_t(delta) * 4;
    }
}

}  // namespace

std::vector<std::byte> save_state(exec::Runner& runner, kv::KvCache& kv, int seq) {
    const kv::KvGeometry& g = kv.geometry();
    std::vector<std::byte> out(std::size_t(g.n_rs_layer) * std::size_t(g.rs_floats) * 4);
    for_state(g, seq, [&](int l, std::int64_t off, std::int64_t n, std::size_t at) {
        runner.kv_copy(out.data() + at, kv.state(l) + off, std::size_t(n) * 4);
    });
    return out;
}

void restore_state(exec::Runner& runner, kv::KvCache& kv, int seq, const std::vector<std::byte>& state) {
    const kv::KvGeometry& g = kv.geometry();
    if (state.size() != std::size_t(g.n_rs_layer) * std::size_t(g.rs_floats) * 4)
        throw Error(ErrorCode::internal, "a recurrent-state checkpoint of another size than the cache's");
    for_state(g, seq, [&](int l, std::int64_t off, std::int64_t n, std::size_t at) {
        runner.kv_copy(kv.state(l) + off, state.data() + at, std::size_t(n) * 4);
    });
}

}  // namespace ft::sched
