// DeepSeek-V4's CUDA kernels (cuda/deepseek_v4.cuh) against the scalar references (ref/hyper_connection.h,
// ref/compressed_attention.h): the hyper-connection pre (weights with Sinkhorn, collapse) and post; the indexer's pick
// over hundreds of entries with ties at the k-th score (the lower entry first, ids ascending) and with fewer entries
// than k; shared-KV attention over a window of paged rows plus picked entries, with sinks, against the reference on
// the same rows, through shuffled page tables.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "ft_test.h"
#include "ref/compressed_attention.h"
#include "ref/hyper_connection.h"

#ifdef FT_HAVE_CUDA
#include <cuda_runtime.h>

#include "cuda/deepseek_v4.cuh"
#include "cuda_test.h"

namespace kc = ft::kernels::cuda;
namespace ref = ft::kernels::ref;
using ft::test::bytes_of;
using ft::test::Dev;

namespace {
std::vector<float> rnd(std::size_t n, unsigned seed, float lo = -1.f, float hi = 1.f) {
    std::mt19937 g(seed);
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<float> v(n);
    for (auto& x : v) x = d(g);
    return v;
}
template <class T>
void up(Dev& d, const std::vector<T>& v) { cudaMemcpy(d.p, v.data(), bytes_of(v), cudaMemcpyHostToDevice); }
template <class T>
std::vector<T> down(const Dev& d, std::size_t n) {
    std::vector<T> v(n);
    cudaMemcpy(v.data(), d.p, n * sizeof(T), cudaMemcpyDeviceToHost);
    return v;
}
}  // namespace
#endif

class TestDeepseekV4Cuda : public QObject {
    Q_OBJECT
private slots:
#ifdef FT_HAVE_CUDA
    void hyperConnections() {
        const int N = 4, T = 3;
        const std::int64_t E = 200;
        const auto mix = rnd(std::size_t(T) * (2 + N) * N, 1, -2, 2), x = rnd(std::size_t(T) * N * E, 2), y = rnd(std::size_t(T) * E, 3);
        const std::vector<float> scale{0.8f, 1.2f, 1.1f};
        const auto base = rnd((2 + N) * N, 4, -0.5f, 0.5f);
        Dev dmix(bytes_of(mix)), dscale(bytes_of(scale)), dbase(bytes_of(base)), dx(bytes_of(x)), dy(bytes_of(y));
        Dev dout(std::size_t(T) * E * 4), dpost(std::size_t(T) * N * 4), dcomb(std::size_t(T) * N * N * 4);
        up(dmix, mix), up(dscale, scale), up(dbase, base), up(dx, x), up(dy, y);
        CHECK_CUDA(kc::hc_pre(dmix.as<float>(), (2 + N) * N, dscale.as<float>(), dbase.as<float>(), dx.as<float>(), N, E, 20,
                              1e-6f, false, T, dout.as<float>(), dpost.as<float>(), dcomb.as<float>(), nullptr));
        CHECK_CUDA(kc::hc_post(dpost.as<float>(), dcomb.as<float>(), dy.as<float>(), N, E, T, dx.as<float>(), nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        const auto out = down<float>(dout, std::size_t(T) * E), xs = down<float>(dx, x.size());
        ft::kernels::HyperParams p;
        p.n = N;
        double worst = 0;
        for (int t = 0; t < T; ++t) {
            float pre[N], post[N], comb[N * N];
            ref::hc_weights(p, mix.data() + t * (2 + N) * N, scale.data(), base.data(), pre, post, comb);
            std::vector<float> want(E), xr(x.begin() + t * N * E, x.begin() + (t + 1) * N * E);
            ref::hc_collapse(N, E, pre, xr.data(), want.data());
            ref::hc_expand(N, E, post, comb, y.data() + t * E, xr.data());
            for (std::int64_t i = 0; i < E; ++i) worst = std::max(worst, double(std::fabs(out[t * E + i] - want[i])));
            for (std::int64_t i = 0; i < N * E; ++i) worst = std::max(worst, double(std::fabs(xs[t * N * E + i] - xr[i])));
        }
        QVERIFY2(worst < 1e-5, qPrintable(QString("max |Δ| %1").arg(worst)));
    }

    // Rows of one sequence in a paged cache (pages shuffled); the indexer keys at offset 2·D of rows (w + 1)·m - 1.
    void indexerAndAttention_data() {
        QTest::addColumn<int>("positions");
        QTest::addColumn<int>("topk");
        QTest::addColumn<bool>("ties");
        QTest::newRow("800 positions, 200 entries, top 64") << 800 << 64 << false;
        QTest::newRow("ties at the k-th score") << 800 << 64 << true;
        QTest::newRow("fewer entries than k") << 120 << 64 << false;
    }
    void indexerAndAttention() {
        QFETCH(int, positions);
        QFETCH(int, topk);
        QFETCH(bool, ties);
        const int D = 64, Di = 32, IH = 4, H = 3, m = 4, W = 16, page = 16;
        const int row_w = 2 * D + Di, n_pages = (positions + page - 1) / page;
        std::vector<std::int32_t> table(static_cast<std::size_t>(n_pages));
        std::iota(table.begin(), table.end(), 0);
        std::shuffle(table.begin(), table.end(), std::mt19937(7));
        auto rows = rnd(std::size_t(n_pages) * page * row_w, 5);
        auto at = [&](int p) { return rows.data() + (std::size_t(table[std::size_t(p / page)]) * page + p % page) * row_w; };
        if (ties)  // every key of a pair of entries equal: scores tie in pairs
            for (int e = 1; e < positions / m; e += 2) std::copy_n(at(e * m - 1) + 2 * D, Di, at((e + 1) * m - 1) + 2 * D);
        const int T = 2;
        const std::vector<std::int32_t> pos{positions - 1, positions / 2 + 1}, row{0, 0};
        const auto q = rnd(std::size_t(T) * IH * Di, 8), w = rnd(std::size_t(T) * IH, 9, -1, 1);
        const std::int64_t max_entries = positions / m + 8;
        Dev drows(bytes_of(rows)), dtable(bytes_of(table)), dpos(bytes_of(pos)), drow(bytes_of(row)), dq(bytes_of(q)), dw(bytes_of(w));
        Dev dids(std::size_t(T) * topk * 4), dcount(std::size_t(T) * 4), dws(kc::v4_index_workspace(T, max_entries));
        up(drows, rows), up(dtable, table), up(dpos, pos), up(drow, row), up(dq, q), up(dw, w);
        const kc::V4Cache cache{drows.as<float>(), dtable.as<std::int32_t>(), n_pages, page, row_w};
        const float scale = 0.125f;
        CHECK_CUDA(kc::v4_index_topk(dq.as<float>(), dw.as<float>(), IH, Di, scale, m, topk, 2 * D, dpos.as<std::int32_t>(),
                                     drow.as<std::int32_t>(), T, max_entries, cache, dids.as<std::int32_t>(),
                                     dcount.as<std::int32_t>(), dws.p, nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        const auto ids = down<std::int32_t>(dids, std::size_t(T) * topk), count = down<std::int32_t>(dcount, T);
        for (int t = 0; t < T; ++t) {
            const int n = (pos[std::size_t(t)] + 1) / m;
            std::vector<const float*> keys;
            for (int e = 0; e < n; ++e) keys.push_back(at((e + 1) * m - 1) + 2 * D);
            std::vector<std::int32_t> want(static_cast<std::size_t>(std::min(n, topk)));
            const int k = ref::index_topk_f32(q.data() + t * IH * Di, w.data() + t * IH, IH, Di, scale, keys.data(), n, topk,
                                              want.data());
            QCOMPARE(count[std::size_t(t)], k);
            QCOMPARE(std::vector<std::int32_t>(ids.begin() + t * topk, ids.begin() + t * topk + k), want);
        }
        // Attention of H heads over the window and the picks (CSA), with sinks.
        const auto qa = rnd(std::size_t(T) * H * D, 10), sinks = rnd(H, 11);
        Dev dqa(bytes_of(qa)), dsinks(bytes_of(sinks)), dout(std::size_t(T) * H * D * 4);
        up(dqa, qa), up(dsinks, sinks);
        kc::V4AttentionArgs a;
        a.n_head = H, a.dim = D, a.window = W, a.ratio = m, a.topk = topk, a.csa = true, a.scale = 0.125f;
        a.sinks = dsinks.as<float>(), a.ids = dids.as<std::int32_t>(), a.count = dcount.as<std::int32_t>();
        CHECK_CUDA(kc::v4_attention(a, dqa.as<float>(), dpos.as<std::int32_t>(), drow.as<std::int32_t>(), T, cache,
                                    dout.as<float>(), nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        const auto out = down<float>(dout, std::size_t(T) * H * D);
        double worst = 0;
        for (int t = 0; t < T; ++t) {
            std::vector<const float*> rs;
            for (int p = std::max(0, pos[std::size_t(t)] - W + 1); p <= pos[std::size_t(t)]; ++p) rs.push_back(at(p));
            for (int i = 0; i < count[std::size_t(t)]; ++i) rs.push_back(at((ids[std::size_t(t * topk + i)] + 1) * m - 1) + D);
            std::vector<float> want(static_cast<std::size_t>(H) * D);
            ref::shared_kv_attention_f32(qa.data() + t * H * D, H, D, 0.125f, sinks.data(), rs.data(), int(rs.size()), want.data());
            for (int i = 0; i < H * D; ++i) worst = std::max(worst, double(std::fabs(out[std::size_t(t * H * D + i)] - want[std::size_t(i)])));
        }
        QVERIFY2(worst < 1e-5, qPrintable(QString("max |Δ| %1").arg(worst)));
    }
#endif
};

FT_GPU_TEST_MAIN(TestDeepseekV4Cuda)
#include "test_deepseek_v4_cuda.moc"
