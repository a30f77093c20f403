// The paged KV cache's storage (kv/kv_cache.h): sizes count the element type (f32 for the CPU runner, f16 for the
// GPU's default), an allocator is asked for exactly those bytes, the f32 accessors address the pages, and asking an
// f16 cache for f32 views is a clear error instead of a misread; pages shared through the prefix cache are counted
// per holder and evicted least recently used first.
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include <algorithm>

#include "ft/error.h"
#include "ft_test.h"
#include "kv/kv_cache.h"

namespace {

ft::kv::KvGeometry geometry(int elem_bytes) {
    ft::kv::KvGeometry g;
    g.n_layer = 3;
    g.n_head_kv = 2;
    g.head_dim = 8;
    g.v_head_dim = 4;
    g.page_size = 16;
    g.n_pages = 5;
    g.elem_bytes = elem_bytes;
    return g;
}

std::vector<std::int32_t> tokens(std::int32_t first, int n) {
    std::vector<std::int32_t> t(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) t[std::size_t(i)] = first + i;
    return t;
}

}  // namespace

class TestKvCache : public QObject {
    Q_OBJECT
private slots:
    void bytesCountTheElementSize() {
        const auto f32 = geometry(4), f16 = geometry(2);
        // 5 pages × 16 positions × 2 heads × 8 (K) or 4 (V) dims, per layer.
        QCOMPARE(f32.k_layer_bytes(), std::size_t(5 * 16 * 2 * 8 * 4));
        QCOMPARE(f32.v_layer_bytes(), std::size_t(5 * 16 * 2 * 4 * 4));
        QCOMPARE(f32.bytes(), std::size_t(3 * 5 * 16 * 2 * (8 + 4) * 4));
        QCOMPARE(f16.bytes() * 2, f32.bytes());
        QCOMPARE(f16.k_layer_bytes(), std::size_t(5 * 16 * 2 * 8 * 2));
    }

    void allocatorGetsTheBytesOfEachLayer() {
        for (int elem : {2, 4}) {
            const auto g = geometry(elem);
            std::vector<std::size_t> asked;
            auto alloc = [&](std::size_t bytes) {
                asked.push_back(bytes);
                return std::shared_ptr<void>(new std::byte[bytes], std::default_delete<std::byte[]>());
            };
            ft::kv::KvCache kv(g, alloc);
            QCOMPARE(asked.size(), std::size_t(2 * g.n_layer));
            std::size_t total = 0;
            for (std::size_t i = 0; i < asked.size(); ++i) {
                QCOMPARE(asked[i], i % 2 == 0 ? g.k_layer_bytes() : g.v_layer_bytes());
                total += asked[i];
            }
            QCOMPARE(total, g.bytes());
            for (int l = 0; l < g.n_layer; ++l) QVERIFY(kv.k_data(l) && kv.v_data(l) && kv.k_data(l) != kv.v_data(l));
        }
    }

    void f32AccessorsAddressThePages() {
        ft::kv::KvCache kv(geometry(4));
        const int a = kv.create(), b = kv.create();
        kv.reserve(a, 20);  // 2 pages
        kv.reserve(b, 5);   // 1 page
        const auto& pa = kv.page_table(a);
        QCOMPARE(pa.size(), std::size_t(2));
        // Position 17 of a: its second page, slot 1; K rows are n_head_kv × head_dim floats.
        float* k = kv.k_at(1, a, 17);
        QCOMPARE(k, kv.k(1) + (std::int64_t(pa[1]) * 16 + 1) * 2 * 8);
        float* v = kv.v_at(2, b, 3);
        QCOMPARE(v, kv.v(2) + (std::int64_t(kv.page_table(b)[0]) * 16 + 3) * 2 * 4);
        for (int i = 0; i < 16; ++i) k[i] = float(i);
        QCOMPARE(kv.k_at(1, a, 17)[15], 15.f);
    }

    void f16CacheRefusesF32Views() {
        ft::kv::KvCache kv(geometry(2));
        QVERIFY(kv.k_data(0) != nullptr);
        const int s = kv.create();
        kv.reserve(s, 1);
        for (const auto& call : {std::function<void()>([&] { kv.k(0); }), std::function<void()>([&] { kv.v(1); }),
                                 std::function<void()>([&] { kv.k_at(0, s, 0); })}) {
            try {
                call();
                QFAIL("expected ft::Error");
            } catch (const ft::Error& e) {
                QCOMPARE(e.code(), ft::ErrorCode::internal);
                QVERIFY2(std::strstr(e.what(), "2-byte") != nullptr, e.what());
            }
        }
    }

    // The prefix cache: only whole pages are cached, a shared page is counted per holder and reads as shared, a
    // sequence that shares a prefix extends it in the tree, the last token is never shared past max_positions.
    void prefixPagesAreSharedAndCounted() {
        ft::kv::KvCache kv(geometry(4));  // 5 pages of 16
        const auto toks = tokens(0, 40);
        const int a = kv.create();
        kv.reserve(a, 40);  // 3 pages, the last one partly filled
        kv.cache_prefix(a, toks, 40);
        QCOMPARE(kv.pages_cached(), std::int64_t(2));  // the partly filled page is not cached
        QCOMPARE(kv.pages_cached_idle(), std::int64_t(0));
        QVERIFY(kv.shared(a, 31) && !kv.shared(a, 32));
        const std::vector<std::int32_t> a_pages = kv.page_table(a);
        kv.release(a);
        QCOMPARE(kv.pages_used(), std::int64_t(2));
        QCOMPARE(kv.pages_cached_idle(), std::int64_t(2));

        const int b = kv.create();
        QCOMPARE(kv.share_prefix(b, toks, 39), std::int64_t(32));
        QCOMPARE(kv.page_table(b), std::vector<std::int32_t>(a_pages.begin(), a_pages.begin() + 2));
        QVERIFY(kv.shared(b, 0) && kv.shared(b, 31));
        QCOMPARE(kv.pages_cached_idle(), std::int64_t(0));
        kv.reserve(b, 48);
        QVERIFY(!kv.shared(b, 32));  // its own page: the only one it may write
        const int c = kv.create();
        QCOMPARE(kv.share_prefix(c, toks, 31), std::int64_t(16));  // at most max_positions
        const int d = kv.create();
        QCOMPARE(kv.share_prefix(d, tokens(1, 40), 39), std::int64_t(0));  // other tokens
        QCOMPARE(kv.pages_used(), std::int64_t(3));
        // b extends the cached prefix by its third page.
        kv.cache_prefix(b, tokens(0, 48), 48);
        QCOMPARE(kv.pages_cached(), std::int64_t(3));
        kv.release(b);
        kv.release(c);
        kv.release(d);
        QCOMPARE(kv.pages_used(), std::int64_t(3));
        const int e = kv.create();
        QCOMPARE(kv.share_prefix(e, tokens(0, 60), 59), std::int64_t(48));
        kv.release(e);
        kv.clear_prefixes();
        QCOMPARE(kv.pages_used(), std::int64_t(0));
        QCOMPARE(kv.pages_cached(), std::int64_t(0));
    }

    // Two sequences that computed the same tokens each on their own: the first one's pages are cached, the second
    // keeps private copies that go back to the pool with it. Only when it ends do its pages past the copies join
    // the cache (while it runs it must hold every ancestor of a cached page it holds).
    void aPrivateCopyIsNotCached() {
        ft::kv::KvCache kv(geometry(4));
        const auto toks = tokens(0, 48);
        const int x = kv.create(), y = kv.create();
        kv.reserve(x, 32);
        kv.reserve(y, 48);
        kv.cache_prefix(x, toks, 32);
        kv.cache_prefix(y, toks, 48);
        QCOMPARE(kv.pages_cached(), std::int64_t(2));
        QVERIFY(!kv.shared(y, 0) && !kv.shared(y, 40));
        const std::int32_t y_third = kv.page_table(y)[2];
        kv.cache_and_release(y, toks, 48);
        QCOMPARE(kv.pages_cached(), std::int64_t(3));
        QCOMPARE(kv.pages_used(), std::int64_t(2 + 1));  // x's two and y's cached third page; y's copies are free
        kv.release(x);
        QCOMPARE(kv.pages_used(), std::int64_t(3));
        QCOMPARE(kv.pages_cached_idle(), std::int64_t(3));
        const int z = kv.create();
        QCOMPARE(kv.share_prefix(z, tokens(0, 49), 48), std::int64_t(48));
        QCOMPARE(kv.page_table(z)[2], y_third);
        kv.release(z);
        kv.clear_prefixes();
        QCOMPARE(kv.pages_used(), std::int64_t(0));
    }

    // Reserve evicts least recently used idle prefixes, never pages a sequence holds, and fails cleanly (nothing
    // evicted) when even the idle pages would not be enough.
    void reserveEvictsLeastRecentlyUsed() {
        ft::kv::KvCache kv(geometry(4));  // 5 pages
        auto cache = [&](int first) {
            const int s = kv.create();
            kv.reserve(s, 16);
            kv.cache_prefix(s, tokens(first, 16), 16);
            kv.release(s);
        };
        cache(100);  // A
        cache(200);  // B
        cache(300);  // C
        cache(400);  // D
        QCOMPARE(kv.pages_used(), std::int64_t(4));
        const int hold = kv.create();
        QCOMPARE(kv.share_prefix(hold, tokens(100, 17), 16), std::int64_t(16));  // A in use (and most recent)
        const int big = kv.create();
        kv.reserve(big, 32);  // 1 free page + 1 evicted: B, the least recently used idle one
        auto cached = [&](int first) {
            const int s = kv.create();
            const bool hit = kv.share_prefix(s, tokens(first, 17), 16) > 0;
            kv.release(s);
            return hit;
        };
        QVERIFY(!cached(200));
        QVERIFY(cached(300) && cached(400));  // (this touches C, then D)
        try {
            kv.reserve(big, 5 * 16);  // 3 more pages: only C and D are idle
            QFAIL("expected ft::Error");
        } catch (const ft::Error& err) {
            QCOMPARE(err.code(), ft::ErrorCode::out_of_memory);
            QVERIFY2(std::strstr(err.what(), "KV cache is full") != nullptr, err.what());
        }
        QCOMPARE(kv.pages_cached(), std::int64_t(3));  // nothing was evicted for it
        kv.reserve(big, 3 * 16);  // C goes (older than D)
        QVERIFY(!cached(300) && cached(400));
        QVERIFY(cached(100));  // A was held all along
        kv.release(hold);
        kv.release(big);
        QCOMPARE(kv.pages_used(), kv.pages_cached());
    }

    // A hybrid model's cache (Qwen3.5): a recurrent-state pool per linear layer, counted in bytes(), one slot per
    // sequence id (more sequences than slots is an error); prefix pages are kept and shared as usual (the engine uses
    // them only with a state checkpoint at the prefix's end) and a sequence cannot be cut back to a shorter, non-empty
    // length.
    void recurrentStatePool() {
        auto g = geometry(4);
        g.n_rs_layer = 2;
        g.rs_floats = 100;
        g.rs_slots = 3;
        QCOMPARE(g.bytes(), geometry(4).bytes() + std::size_t(2 * 3 * 100 * 4));
        std::vector<std::size_t> asked;
        auto alloc = [&](std::size_t bytes) {
            asked.push_back(bytes);
            return std::shared_ptr<void>(new std::byte[bytes], std::default_delete<std::byte[]>());
        };
        ft::kv::KvCache kv(g, alloc);
        QVERIFY(kv.has_state());
        QCOMPARE(std::count(asked.begin(), asked.end(), g.rs_layer_bytes()), std::ptrdiff_t(2));
        QVERIFY(kv.state(0) && kv.state(1) && kv.state(0) != kv.state(1));
        const int a = kv.create(), b = kv.create(), c = kv.create();
        QCOMPARE(c, 2);
        bool threw = false;
        try {
            kv.create();
        } catch (const ft::Error&) {
            threw = true;
        }
        QVERIFY(threw);
        kv.release(b);
        QCOMPARE(kv.create(), b);  // a freed slot is reused
        const auto t = tokens(100, 40);
        kv.reserve(a, 40);
        kv.cache_and_release(a, t, 40);
        QCOMPARE(kv.pages_cached(), std::int64_t(2));
        const int d = kv.create();
        QCOMPARE(kv.share_prefix(d, t, 39), std::int64_t(32));
        kv.reserve(d, 40);
        threw = false;
        try {
            kv.truncate(d, 20);
        } catch (const ft::Error& e) {
            threw = e.code() == ft::ErrorCode::unsupported;
        }
        QVERIFY(threw);
        kv.truncate(d, 0);  // dropping everything is fine
        QCOMPARE(kv.capacity(d), std::int64_t(0));
    }

    void badElementSizeIsAnError() {
        for (int elem : {0, 1, 3, 8}) {
            try {
                ft::kv::KvCache kv(geometry(elem));
                QFAIL("expected ft::Error");
            } catch (const ft::Error& e) {
                QCOMPARE(e.code(), ft::ErrorCode::internal);
            }
        }
    }
};

FT_TEST_MAIN(TestKvCache)
#include "test_kv_cache.moc"
