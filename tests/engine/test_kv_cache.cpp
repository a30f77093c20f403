// The paged KV cache's storage (kv/kv_cache.h): sizes count the element type (f32 for the CPU runner, f16 for the
// GPU's default), an allocator is asked for exactly those bytes, the f32 accessors address the pages, and asking an
// f16 cache for f32 views is a clear error instead of a misread.
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

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
