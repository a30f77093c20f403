// DeepSeek-V4's new scalar references (ref/hyper_connection.h, ref/compressed_attention.h) against hand-computed
// answers and their defining properties: the Sinkhorn-normalised stream mixing is doubly stochastic, collapse and
// expand are the sums they state, a compressed entry is a per-channel softmax average of its window, the indexer
// picks by Σ w·relu(q·k) with ties to the lower entry, and shared-KV attention is softmax attention whose sink only
// takes probability away. The SIMD CPU versions (cpu/compressed_attention.h) against the references on random data.
#include <cmath>
#include <vector>

#include "cpu/compressed_attention.h"
#include "ft_test.h"
#include "kernel_check.h"
#include "ref/compressed_attention.h"
#include "ref/hyper_connection.h"

using namespace ft::kernels;

class TestCompressedAttention : public QObject {
    Q_OBJECT

private slots:
    void hyperConnectionWeights() {
        HyperParams p;
        p.n = 4;
        std::vector<float> mix(24), base(24), scale{0.9f, 1.1f, 1.3f};
        for (int i = 0; i < 24; ++i) mix[std::size_t(i)] = float(std::sin(1.7 * i)), base[std::size_t(i)] = float(0.3 * std::cos(i));
        float pre[4], post[4], comb[16];
        ref::hc_weights(p, mix.data(), scale.data(), base.data(), pre, post, comb);
        for (int j = 0; j < 4; ++j) {
            const double s = 1 / (1 + std::exp(-(mix[std::size_t(j)] * 0.9 + base[std::size_t(j)])));
            QVERIFY(std::fabs(pre[j] - float(s + 1e-6)) < 1e-6f);
            const double q = 2 / (1 + std::exp(-(mix[std::size_t(4 + j)] * 1.1 + base[std::size_t(4 + j)])));
            QVERIFY(std::fabs(post[j] - float(q)) < 1e-6f);
        }
        for (int a = 0; a < 4; ++a) {  // doubly stochastic after 20 iterations
            double row = 0, col = 0;
            for (int b = 0; b < 4; ++b) row += comb[a * 4 + b], col += comb[b * 4 + a];
            QVERIFY2(std::fabs(row - 1) < 1e-4 && std::fabs(col - 1) < 1e-5, qPrintable(QString("%1 %2").arg(row).arg(col)));
        }
        float head[4];
        ref::hc_head_weights(p, mix.data(), scale.data(), base.data(), head);
        QCOMPARE(head[2], pre[2]);
    }

    void collapseAndExpand() {
        const float pre[2] = {0.5f, 2.f}, post[2] = {1.f, -1.f}, comb[4] = {0.25f, 0.75f, 0.75f, 0.25f};
        std::vector<float> x{1, 2, 3, 10, 20, 30};  // 2 streams of 3
        float c[3];
        ref::hc_collapse(2, 3, pre, x.data(), c);
        QCOMPARE(c[0], 20.5f);
        QCOMPARE(c[2], 61.5f);
        const float y[3] = {100, 200, 300};
        ref::hc_expand(2, 3, post, comb, y, x.data());
        // stream 0 = 100 + .25·1 + .75·10, stream 1 = -100 + .75·1 + .25·10 (comb[j][k], j the input stream)
        QCOMPARE(x[0], 107.75f);
        QCOMPARE(x[3], -96.75f);
    }

    void compressedEntry() {
        // 3 slots × 2 channels: channel 0 with equal gates averages, channel 1 with one dominant gate picks it.
        const float kv[6] = {1, 5, 2, 6, 6, 7}, gate[6] = {0, 0, 0, 50, 0, 0};
        float out[2];
        ref::compress_entry_f32(kv, gate, 3, 2, 2, out);
        QVERIFY(std::fabs(out[0] - 3.f) < 1e-6f);
        QVERIFY(std::fabs(out[1] - 6.f) < 1e-5f);
    }

    void indexerPick() {
        // 2 heads of 2; w = (1, -1): entry scores relu(q0·k) - relu(q1·k).
        const float q[4] = {1, 0, 0, 1}, w[2] = {1, -1};
        const float k0[2] = {1, 0}, k1[2] = {0, 1}, k2[2] = {2, -1}, k3[2] = {1, 0};
        const float* keys[4] = {k0, k1, k2, k3};  // scores 1, -1, 2, 1
        std::int32_t ids[4];
        QCOMPARE(ref::index_topk_f32(q, w, 2, 2, 1.f, keys, 4, 2, ids), 2);
        QCOMPARE(ids[0], 0);  // the tie of entries 0 and 3 goes to 0; ids come ascending
        QCOMPARE(ids[1], 2);
        QCOMPARE(ref::index_topk_f32(q, w, 2, 2, 1.f, keys, 3, 8, ids), 3);  // fewer entries than k: all
    }

    void sharedKvAttention() {
        const float r0[2] = {1, 0}, r1[2] = {0, 1};
        const float* rows[2] = {r0, r1};
        const float q[2] = {std::log(3.f), 0.f};  // logits ln 3, 0 → p = 3/4, 1/4
        float out[2];
        ref::shared_kv_attention_f32(q, 1, 2, 1.f, nullptr, rows, 2, out);
        QVERIFY(std::fabs(out[0] - 0.75f) < 1e-6f && std::fabs(out[1] - 0.25f) < 1e-6f);
        const float sink[1] = {std::log(4.f)};  // the sink's share: 4 / 8
        ref::shared_kv_attention_f32(q, 1, 2, 1.f, sink, rows, 2, out);
        QVERIFY(std::fabs(out[0] - 0.375f) < 1e-6f && std::fabs(out[1] - 0.125f) < 1e-6f);
    }

    void cpuMatchesReference_data() {
        QTest::addColumn<int>("dim");
        QTest::addColumn<int>("rows");
        QTest::newRow("V4-Flash heads (512), 200 rows") << 512 << 200;
        QTest::newRow("odd width (37), 9 rows") << 37 << 9;
    }
    void cpuMatchesReference() {
        QFETCH(int, dim);
        QFETCH(int, rows);
        const int H = 5;
        const auto data = ft::test::random_floats(std::size_t(rows) * dim, 3, -1, 1);
        std::vector<const float*> rp;
        for (int r = 0; r < rows; ++r) rp.push_back(data.data() + std::size_t(r) * dim);
        const auto q = ft::test::random_floats(std::size_t(H) * dim, 4, -0.3f, 0.3f), sinks = ft::test::random_floats(H, 5, -2, 2);
        const auto w = ft::test::random_floats(H, 6, -1, 1);
        for (const float* sk : {static_cast<const float*>(nullptr), sinks.data()}) {
            std::vector<float> want(std::size_t(H) * dim);
            ref::shared_kv_attention_f32(q.data(), H, dim, 0.2f, sk, rp.data(), rows, want.data());
            ft::test::GuardedOutput got(std::size_t(H) * dim);
            ft::kernels::cpu::shared_kv_attention_f32(q.data(), H, dim, 0.2f, sk, rp.data(), rows, got.ptr());
            QVERIFY(got.guards_intact());
            const auto err = ft::test::compare(got.ptr(), want.data(), std::size_t(H) * dim);
            QVERIFY2(err.max_abs < 1e-5, err.str().c_str());
        }
        // The compressor's entry over 8 slots of dim channels at a row stride of dim + 3.
        const auto kvs = ft::test::random_floats(std::size_t(8) * (dim + 3), 7, -1, 1), gs = ft::test::random_floats(std::size_t(8) * (dim + 3), 8, -4, 4);
        std::vector<float> ew(static_cast<std::size_t>(dim));
        ref::compress_entry_f32(kvs.data(), gs.data(), 8, dim, dim + 3, ew.data());
        ft::test::GuardedOutput eg(static_cast<std::size_t>(dim));
        ft::kernels::cpu::compress_entry_f32(kvs.data(), gs.data(), 8, dim, dim + 3, eg.ptr());
        QVERIFY(eg.guards_intact());
        QVERIFY2(ft::test::compare(eg.ptr(), ew.data(), std::size_t(dim)).max_abs < 1e-5, ft::test::compare(eg.ptr(), ew.data(), std::size_t(dim)).str().c_str());
        // Hyper-connection collapse and expand on 4 streams of dim.
        const float pre[4] = {0.3f, 1.1f, 0.7f, 0.2f}, post[4] = {1.5f, 0.2f, 1.9f, 0.6f};
        const auto comb = ft::test::random_floats(16, 9, 0, 0.5f), y = ft::test::random_floats(static_cast<std::size_t>(dim), 10);
        auto xr = ft::test::random_floats(std::size_t(4) * dim, 11), xc = xr;
        std::vector<float> cr(static_cast<std::size_t>(dim)), cc(static_cast<std::size_t>(dim));
        ref::hc_collapse(4, dim, pre, xr.data(), cr.data());
        ft::kernels::cpu::hc_collapse(4, dim, pre, xc.data(), cc.data());
        QVERIFY(ft::test::compare(cc.data(), cr.data(), std::size_t(dim)).max_abs < 1e-5);
        ref::hc_expand(4, dim, post, comb.data(), y.data(), xr.data());
        ft::kernels::cpu::hc_expand(4, dim, post, comb.data(), y.data(), xc.data());
        QVERIFY(ft::test::compare(xc.data(), xr.data(), std::size_t(4) * dim).max_abs < 1e-5);
        std::vector<std::int32_t> a(16), b(16);
        const int na = ref::index_topk_f32(q.data(), w.data(), H, dim, 0.1f, rp.data(), rows, 16, a.data());
        const int nb = ft::kernels::cpu::index_topk_f32(q.data(), w.data(), H, dim, 0.1f, rp.data(), rows, 16, b.data());
        QCOMPARE(nb, na);
        QCOMPARE(b, a);
    }
};

FT_TEST_MAIN(TestCompressedAttention)
#include "test_compressed_attention.moc"
