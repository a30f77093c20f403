// DeepSeek-V4's CUDA kernels (cuda/hyper_connection.cuh, cuda/compressed_attention.cuh) against the scalar references (ref/hyper_connection.h,
// ref/compressed_attention.h): the hyper-connection pre (weights with Sinkhorn, collapse) and post; the indexer's pick
// over hundreds of entries with ties at the k-th score (the lower entry first, ids ascending) and with fewer entries
// than k; shared-KV attention over a window of paged rows plus picked entries, with sinks, against the reference on
// the same rows, through shuffled page tables; the compressor (ring, entries, index keys) over a prompt against
// ref::compress_entry_f32 + the norm + RoPE at each window's first position, and the tail RoPE with its conjugate.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "ft_test.h"
#include "ref/compressed_attention.h"
#include "ref/hyper_connection.h"
#include "ref/quant.h"
#include "ref/rms_norm.h"
#include "ref/rope.h"

#ifdef FT_HAVE_CUDA
#include <cuda_runtime.h>

#include "cuda/compressed_attention.cuh"
#include "cuda/hyper_connection.cuh"
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

    // GLM-5's use of the same indexer: every position an entry (ratio 1), the keys alone in rows of their own width in
    // an f16 or f32 cache, written by compressed_kv_write from f32 (f16: rounded to nearest even); the picks equal the
    // reference's over the keys as the cache holds them.
    void indexerOwnKeyRows() {
        for (bool f16 : {false, true}) {
            const int Di = 32, IH = 8, topk = 40, page = 16, positions = 300, n_pages = (positions + page - 1) / page;
            std::vector<std::int32_t> table(static_cast<std::size_t>(n_pages));
            std::iota(table.begin(), table.end(), 0);
            std::shuffle(table.begin(), table.end(), std::mt19937(3));
            const auto keys = rnd(std::size_t(positions) * Di, 12);
            std::vector<std::int32_t> all(static_cast<std::size_t>(positions)), zero(static_cast<std::size_t>(positions), 0);
            std::iota(all.begin(), all.end(), 0);
            const std::size_t cells = std::size_t(n_pages) * page * Di;
            Dev dkeys(bytes_of(keys)), dtable(bytes_of(table)), dall(bytes_of(all)), dzero(bytes_of(zero)), drows(cells * 4);
            up(dkeys, keys), up(dtable, table), up(dall, all), up(dzero, zero);
            const kc::CompressedCache cache{drows.p, dtable.as<std::int32_t>(), n_pages, page, Di,
                                            f16 ? ft::kernels::DType::F16 : ft::kernels::DType::F32};
            CHECK_CUDA(kc::compressed_kv_write(dkeys.as<float>(), Di, Di, dall.as<std::int32_t>(), dzero.as<std::int32_t>(),
                                               positions, cache, nullptr));
            const int T = 3;
            const std::vector<std::int32_t> pos{positions - 1, 150, 20}, row{0, 0, 0};
            const auto q = rnd(std::size_t(T) * IH * Di, 13), w = rnd(std::size_t(T) * IH, 14, -1, 1);
            Dev dpos(bytes_of(pos)), drow(bytes_of(row)), dq(bytes_of(q)), dw(bytes_of(w));
            Dev dids(std::size_t(T) * topk * 4), dcount(std::size_t(T) * 4), dws(kc::compressed_index_workspace(T, positions));
            up(dpos, pos), up(drow, row), up(dq, q), up(dw, w);
            const float scale = 1.f / std::sqrt(float(IH * Di));
            CHECK_CUDA(kc::compressed_index_topk(dq.as<float>(), dw.as<float>(), IH, Di, scale, 1, topk, 0, dpos.as<std::int32_t>(),
                                                 drow.as<std::int32_t>(), T, positions, cache, dids.as<std::int32_t>(),
                                                 dcount.as<std::int32_t>(), dws.p, nullptr));
            CHECK_CUDA(cudaDeviceSynchronize());
            const auto ids = down<std::int32_t>(dids, std::size_t(T) * topk), count = down<std::int32_t>(dcount, T);
            std::vector<float> held(keys);  // what the cache holds
            if (f16)
                for (float& v : held) v = ref::f16_to_f32(ref::f32_to_f16(v));
            for (int t = 0; t < T; ++t) {
                const int n = pos[std::size_t(t)] + 1;
                std::vector<const float*> kp;
                for (int e = 0; e < n; ++e) kp.push_back(held.data() + std::size_t(e) * Di);
                std::vector<std::int32_t> want(static_cast<std::size_t>(std::min(n, topk)));
                const int k = ref::index_topk_f32(q.data() + t * IH * Di, w.data() + t * IH, IH, Di, scale, kp.data(), n, topk,
                                                  want.data());
                QCOMPARE(count[std::size_t(t)], k);
                QCOMPARE(std::vector<std::int32_t>(ids.begin() + t * topk, ids.begin() + t * topk + k), want);
            }
        }
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
        Dev dids(std::size_t(T) * topk * 4), dcount(std::size_t(T) * 4), dws(kc::compressed_index_workspace(T, max_entries));
        up(drows, rows), up(dtable, table), up(dpos, pos), up(drow, row), up(dq, q), up(dw, w);
        const kc::CompressedCache cache{drows.as<float>(), dtable.as<std::int32_t>(), n_pages, page, row_w};
        const float scale = 0.125f;
        CHECK_CUDA(kc::compressed_index_topk(dq.as<float>(), dw.as<float>(), IH, Di, scale, m, topk, 2 * D, dpos.as<std::int32_t>(),
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
        kc::CompressedAttentionArgs a;
        a.n_head = H, a.dim = D, a.window = W, a.ratio = m, a.topk = topk, a.csa = true, a.scale = 0.125f;
        a.sinks = dsinks.as<float>(), a.ids = dids.as<std::int32_t>(), a.count = dcount.as<std::int32_t>();
        CHECK_CUDA(kc::compressed_attention(a, dqa.as<float>(), dpos.as<std::int32_t>(), drow.as<std::int32_t>(), T, cache,
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

    void compressor_data() {
        QTest::addColumn<bool>("csa");
        QTest::newRow("hca, ratio 8") << false;
        QTest::newRow("csa, ratio 4, with the index keys") << true;
    }
    void compressor() {
        QFETCH(bool, csa);
        const int D = 32, Di = 16, R = 8, m = csa ? 4 : 8, P = 45, page = 16;
        const int width = csa ? 2 * D : D, row_w = 2 * D + Di, n_pages = (P + page - 1) / page;
        const auto ck = rnd(std::size_t(P) * width, 21), cg = rnd(std::size_t(P) * width, 22, -3, 3);
        const auto ik = rnd(std::size_t(P) * 2 * Di, 23), ig = rnd(std::size_t(P) * 2 * Di, 24, -3, 3);
        const auto bias = rnd(std::size_t(m) * width, 25), ibias = rnd(std::size_t(m) * 2 * Di, 26);
        const auto norm = rnd(D, 27, 0.5f, 1.5f), inorm = rnd(Di, 28, 0.5f, 1.5f);
        ft::kernels::RopeParams rp;
        rp.n_rot = R, rp.neox = false, rp.theta = 160000.f, rp.freq_scale = 1.f / 16, rp.ext_factor = 1.f, rp.orig_ctx = 64;
        rp.attn_factor = float(1.0 / (0.1 * std::log(16.0) + 1.0));  // cos/sin of magnitude 1, as DeepSeek-V4's
        const std::int64_t stride = csa ? 4 * D + 4 * Di : 2 * D, state_floats = (csa ? 2 * m : m) * stride;
        std::vector<std::int32_t> pos(static_cast<std::size_t>(P)), slot(static_cast<std::size_t>(P), 1), row(static_cast<std::size_t>(P), 0), table(static_cast<std::size_t>(n_pages));
        std::iota(pos.begin(), pos.end(), 0);
        std::iota(table.begin(), table.end(), 0);
        std::reverse(table.begin(), table.end());
        Dev dck(bytes_of(ck)), dcg(bytes_of(cg)), dik(bytes_of(ik)), dig(bytes_of(ig)), db(bytes_of(bias)), dib(bytes_of(ibias));
        Dev dn(bytes_of(norm)), din(bytes_of(inorm)), dpos(bytes_of(pos)), dslot(bytes_of(slot)), drow(bytes_of(row)), dt(bytes_of(table));
        Dev dstate(std::size_t(2 * state_floats) * 4), drows(std::size_t(n_pages) * page * row_w * 4);
        up(dck, ck), up(dcg, cg), up(dik, ik), up(dig, ig), up(db, bias), up(dib, ibias), up(dn, norm), up(din, inorm);
        up(dpos, pos), up(dslot, slot), up(drow, row), up(dt, table);
        CHECK_CUDA(cudaMemset(drows.p, 0, std::size_t(n_pages) * page * row_w * 4));
        kc::CompressorArgs a;
        a.csa = csa, a.ratio = m, a.dim = D, a.idx_dim = Di, a.rope_dim = R;
        a.ck = dck.as<float>(), a.cg = dcg.as<float>(), a.ik = dik.as<float>(), a.ig = dig.as<float>();
        a.bias = db.as<float>(), a.idx_bias = dib.as<float>(), a.norm = dn.as<float>(), a.idx_norm = din.as<float>();
        a.rope = rp, a.state = dstate.as<float>(), a.state_floats = state_floats;
        const kc::CompressedCache cache{drows.as<float>(), dt.as<std::int32_t>(), n_pages, page, row_w};
        // The prompt in two launches (a window straddles them): 19 tokens, then the rest.
        CHECK_CUDA(kc::compressor_update(a, dpos.as<std::int32_t>(), dslot.as<std::int32_t>(), drow.as<std::int32_t>(), 0, 19, 1, cache, nullptr));
        CHECK_CUDA(kc::compressor_update(a, dpos.as<std::int32_t>(), dslot.as<std::int32_t>(), drow.as<std::int32_t>(), 19, P - 19, 1, cache, nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        const auto rows = down<float>(drows, std::size_t(n_pages) * page * row_w);
        double worst = 0;
        auto want_entry = [&](const std::vector<float>& kv, const std::vector<float>& g, const std::vector<float>& b,
                              const std::vector<float>& nw, int dim, int w) {
            const int wd = csa ? 2 * dim : dim;
            std::vector<float> k, gg;
            auto add = [&](int q, int half) {
                for (int c = 0; c < dim; ++c) {
                    k.push_back(kv[std::size_t(q) * wd + half * dim + c]);
                    gg.push_back(g[std::size_t(q) * wd + half * dim + c] + b[std::size_t(q % m) * wd + half * dim + c]);
                }
            };
            if (csa && w > 0)
                for (int j = 0; j < m; ++j) add((w - 1) * m + j, 0);
            for (int j = 0; j < m; ++j) add(w * m + j, csa ? 1 : 0);
            std::vector<float> e(static_cast<std::size_t>(dim));
            ref::compress_entry_f32(k.data(), gg.data(), int(k.size()) / dim, dim, dim, e.data());
            ref::rms_norm_f32(e.data(), nw.data(), e.data(), 1, dim, 1e-6f);
            ft::kernels::RopeParams r = rp;
            r.head_dim = dim;
            const std::int32_t at = w * m;
            ref::rope_f32(r, e.data() + (dim - R), 1, 1, &at);
            return e;
        };
        for (int w = 0; w < P / m; ++w) {
            const int p = (w + 1) * m - 1;
            const float* rr = rows.data() + (std::size_t(table[std::size_t(p / page)]) * page + p % page) * row_w;
            const auto e = want_entry(ck, cg, bias, norm, D, w);
            for (int c = 0; c < D; ++c) worst = std::max(worst, double(std::fabs(rr[D + c] - e[std::size_t(c)])));
            if (csa) {
                const auto ie = want_entry(ik, ig, ibias, inorm, Di, w);
                for (int c = 0; c < Di; ++c) worst = std::max(worst, double(std::fabs(rr[2 * D + c] - ie[std::size_t(c)])));
            }
        }
        QVERIFY2(worst < 1e-5, qPrintable(QString("max |Δ| %1").arg(worst)));
        // The tail RoPE and its conjugate: rotating back returns the input.
        auto x = rnd(std::size_t(3) * 2 * D, 29);
        std::vector<float> want = x;
        ft::kernels::RopeParams r = rp;
        r.head_dim = D;
        const std::vector<std::int32_t> ps{5, 40, 77};
        ref::rope_f32(r, want.data() + (D - R), 3 * 2, 1, std::vector<std::int32_t>{5, 5, 40, 40, 77, 77}.data());
        Dev dx(bytes_of(x)), dp(bytes_of(ps));
        up(dx, x), up(dp, ps);
        CHECK_CUDA(kc::interleaved_rope(r, dx.as<float>(), 2 * D, 3, 2, D, D - R, dp.as<std::int32_t>(), 1, nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        auto got = down<float>(dx, x.size());
        double rw = 0;
        for (std::size_t i = 0; i < x.size(); ++i) rw = std::max(rw, double(std::fabs(got[i] - want[i])));
        CHECK_CUDA(kc::interleaved_rope(r, dx.as<float>(), 2 * D, 3, 2, D, D - R, dp.as<std::int32_t>(), -1, nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        got = down<float>(dx, x.size());
        for (std::size_t i = 0; i < x.size(); ++i) rw = std::max(rw, double(std::fabs(got[i] - x[i])));
        QVERIFY2(rw < 1e-5, qPrintable(QString("rope max |Δ| %1").arg(rw)));
    }
#endif
};

FT_GPU_TEST_MAIN(TestDeepseekV4Cuda)
#include "test_deepseek_v4_cuda.moc"
