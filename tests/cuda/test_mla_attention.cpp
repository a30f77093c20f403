// CUDA multi-head latent attention (DeepSeek MLA, absorbed form; cuda/mla_attention.cuh) against the scalar
// reference (ref/mla_attention.h): the split decode path (partials + merge) and the one-run prefill path, on f32
// and f16 caches with shuffled page tables, several sequences of different lengths in one launch, a head count that
// is not a multiple of the block's 8, a rope part of 16 (a row of 80: GLM-5's fixture), guard values after every
// output; sparse picks (GLM-5's indexer) against the reference over the gathered rows; mla_kv_write against
// ref::mla_kv_row.
// The reference of an f16 case reads the rows rounded to f16 (what the cache holds): the same tolerance applies.
// FT_TEST_PERF=1: perfDecode prints the time of one decode call (attention + merge) and one prefill call, graph-free,
// at DeepSeek-V2-Lite's and V3's head counts, for a few context lengths, with the latent rows read per second.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

#include "ft_test.h"
#include "kernel_check.h"
#include "ref/mla_attention.h"
#include "ref/quant.h"

#ifdef FT_HAVE_CUDA
#include <cuda_runtime.h>

#include "cuda/mla_attention.cuh"
#include "cuda_test.h"

using ft::kernels::MlaParams;
namespace ref = ft::kernels::ref;
namespace kc = ft::kernels::cuda;
using ft::test::bytes_of;
using ft::test::Dev;

namespace {

// The page table of sequences of `lens` positions (16 a page) over a pool of `n_pages` pages handed out in a
// shuffled order: a row of `stride` entries per sequence, -1 past its pages.
std::vector<std::int32_t> shuffled_page_table(const std::vector<int>& lens, int stride, int n_pages, unsigned seed) {
    std::vector<std::int32_t> perm(static_cast<size_t>(n_pages));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), std::mt19937(seed));
    std::vector<std::int32_t> table(lens.size() * size_t(stride), -1);
    int next = 0;
    for (size_t r = 0; r < lens.size(); ++r)
        for (int pg = 0; pg < (lens[r] + 15) / 16; ++pg) table[r * size_t(stride) + size_t(pg)] = perm[size_t(next++)];
    return table;
}

}  // namespace
#endif

class TestMlaAttention : public QObject {
    Q_OBJECT
private slots:
#ifdef FT_HAVE_CUDA
    void matchesReference_data() {
        QTest::addColumn<int>("nHead");
        QTest::addColumn<int>("kvLora");
        QTest::addColumn<int>("rope");
        QTest::addColumn<bool>("f16");
        QTest::addColumn<int>("maxCtx");  // 0: prefill path (one run)
        for (bool f16 : {false, true}) {
            const char* c = f16 ? "f16" : "f32";
            QTest::addRow("V2-Lite 16 heads decode %s", c) << 16 << 512 << 64 << f16 << 2048;
            QTest::addRow("V2-Lite 16 heads prefill %s", c) << 16 << 512 << 64 << f16 << 0;
            QTest::addRow("12 heads 128+32 decode %s", c) << 12 << 128 << 32 << f16 << 600;
            QTest::addRow("3 heads 64+32 prefill %s", c) << 3 << 64 << 32 << f16 << 0;
            QTest::addRow("V3 128 heads decode %s", c) << 128 << 512 << 64 << f16 << 8192;
            QTest::addRow("4 heads 64+16 prefill %s", c) << 4 << 64 << 16 << f16 << 0;  // GLM-5's fixture: a row of 80
            QTest::addRow("4 heads 64+16 decode %s", c) << 4 << 64 << 16 << f16 << 600;
        }
    }
    void matchesReference() {
        QFETCH(int, nHead);
        QFETCH(int, kvLora);
        QFETCH(int, rope);
        QFETCH(bool, f16);
        QFETCH(int, maxCtx);
        MlaParams p;
        p.n_head = nHead;
        p.kv_lora = kvLora;
        p.rope_dim = rope;
        p.page_size = 16;
        p.scale = 1.f / std::sqrt(192.f);
        const int D = p.kv_dim();
        // Three sequences (page-table rows) of 700, 37 and 1 positions; pages shuffled over a pool.
        const std::vector<int> lens = {700, 37, 1};
        const int stride = 64, n_pages = 70;
        const std::vector<std::int32_t> table = shuffled_page_table(lens, stride, n_pages, 5);
        auto rows = ft::test::random_floats(size_t(n_pages * 16 * D), 21, -1, 1);
        std::vector<std::uint16_t> rows16;
        if (f16) {
            rows16.resize(rows.size());
            for (size_t i = 0; i < rows.size(); ++i) {
                rows16[i] = ref::f32_to_f16(rows[i]);
                rows[i] = ref::f16_to_f32(rows16[i]);
            }
        }
        // Tokens: the last position of each sequence (decode), or for the prefill path several positions of each.
        std::vector<std::int32_t> pos, seq;
        for (size_t r = 0; r < lens.size(); ++r) {
            if (maxCtx > 0) {
                pos.push_back(lens[r] - 1);
                seq.push_back(std::int32_t(r));
            } else {
                for (int j : {0, 15, 16, lens[r] / 2, lens[r] - 1})
                    if (j < lens[r]) pos.push_back(j), seq.push_back(std::int32_t(r));
            }
        }
        const int T = int(pos.size());
        const auto q = ft::test::random_floats(size_t(T * nHead * D), 22, -0.3f, 0.3f);
        std::vector<float> want(size_t(T * nHead * kvLora));
        for (int t = 0; t < T; ++t)
            ref::mla_attention_f32(p, q.data() + size_t(t * nHead * D), &pos[size_t(t)], rows.data(),
                                   table.data() + size_t(seq[size_t(t)] * stride), want.data() + size_t(t * nHead * kvLora), 0,
                                   nHead);
        Dev d_rows(f16 ? bytes_of(rows16) : bytes_of(rows)), d_table(bytes_of(table)), d_q(bytes_of(q)),
            d_pos(bytes_of(pos)), d_seq(bytes_of(seq));
        ft::test::GuardedOutput got(want.size());
        Dev d_out(got.data.size() * 4), d_ws(kc::mla_attention_workspace(p, T, maxCtx));
        CHECK_CUDA(cudaMemcpy(d_rows.p, f16 ? static_cast<const void*>(rows16.data()) : rows.data(),
                              f16 ? bytes_of(rows16) : bytes_of(rows), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(d_table.p, table.data(), bytes_of(table), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(d_q.p, q.data(), bytes_of(q), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(d_pos.p, pos.data(), bytes_of(pos), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(d_seq.p, seq.data(), bytes_of(seq), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(d_out.p, got.data.data(), got.data.size() * 4, cudaMemcpyHostToDevice));
        const kc::DeviceMlaCache cache{d_rows.p, d_table.as<std::int32_t>(), stride,
                                       f16 ? ft::kernels::DType::F16 : ft::kernels::DType::F32};
        CHECK_CUDA(kc::mla_attention(p, d_q.as<float>(), T, d_pos.as<std::int32_t>(), d_seq.as<std::int32_t>(), maxCtx, cache,
                                     d_out.as<float>(), d_ws.p, nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemcpy(got.data.data(), d_out.p, got.data.size() * 4, cudaMemcpyDeviceToHost));
        QVERIFY(got.guards_intact());
        QVERIFY(got.all_written());
        const auto err = ft::test::compare(got.ptr(), want.data(), want.size());
        qInfo("MLA %s: %s (splits %d)", QTest::currentDataTag(), err.str().c_str(), maxCtx ? kc::mla_decode_splits(maxCtx) : 1);
        QVERIFY2(err.max_abs < 1e-5 && err.nmse < 1e-10, err.str().c_str());
    }

    // Sparse attention (GLM-5's indexer picks): each token reads only its picked positions, ascending; the reference
    // reads the same rows gathered in that order as positions 0 .. count - 1 (what the CPU engine does). Tokens whose
    // context is at most topk read all of it (their picks are 0 .. pos). Decode (splits) and prefill, f32 and f16.
    void sparsePicksMatchReference() {
        for (int maxCtx : {0, 2048})
            for (bool f16 : {false, true}) {
                MlaParams p;
                p.n_head = 12;
                p.kv_lora = 128;
                p.rope_dim = 32;
                p.page_size = 16;
                p.scale = 0.1f;
                const int D = p.kv_dim(), topk = 300, stride = 128, n_pages = 130;
                const std::vector<int> lens = {1500, 200, 301};
                const std::vector<std::int32_t> table = shuffled_page_table(lens, stride, n_pages, 7);
                auto rows = ft::test::random_floats(size_t(n_pages * 16 * D), 23, -1, 1);
                std::vector<std::uint16_t> rows16(rows.size());
                for (size_t i = 0; i < rows.size(); ++i) {
                    rows16[i] = ref::f32_to_f16(rows[i]);
                    if (f16) rows[i] = ref::f16_to_f32(rows16[i]);
                }
                std::vector<std::int32_t> pos, seq;
                for (size_t r = 0; r < lens.size(); ++r)
                    for (int j : {lens[r] - 1, lens[r] / 3})
                        if (maxCtx == 0 || j == lens[r] - 1) pos.push_back(j), seq.push_back(std::int32_t(r));
                const int T = int(pos.size());
                std::vector<std::int32_t> ids(size_t(T * topk), -7), count(static_cast<size_t>(T));
                std::mt19937 rng(9);
                for (int t = 0; t < T; ++t) {
                    std::vector<std::int32_t> all(size_t(pos[size_t(t)] + 1));
                    std::iota(all.begin(), all.end(), 0);
                    if (int(all.size()) > topk) {
                        std::shuffle(all.begin(), all.end(), rng);
                        all.resize(size_t(topk));
                        std::sort(all.begin(), all.end());
                    }
                    count[size_t(t)] = std::int32_t(all.size());
                    std::copy(all.begin(), all.end(), ids.begin() + std::ptrdiff_t(t * topk));
                }
                const auto q = ft::test::random_floats(size_t(T * p.n_head * D), 24, -0.3f, 0.3f);
                std::vector<float> want(size_t(T * p.n_head * p.kv_lora));
                for (int t = 0; t < T; ++t) {
                    const int n = count[size_t(t)];
                    std::vector<float> gathered(size_t((n + 15) / 16 * 16 * D));
                    for (int k = 0; k < n; ++k) {
                        const int j = ids[size_t(t * topk + k)];
                        const int page = table[size_t(seq[size_t(t)] * stride + j / 16)];
                        std::copy_n(rows.data() + size_t((page * 16 + j % 16) * D), D, gathered.data() + size_t(k * D));
                    }
                    std::vector<std::int32_t> linear(size_t((n + 15) / 16));
                    std::iota(linear.begin(), linear.end(), 0);
                    const std::int32_t last = n - 1;
                    ref::mla_attention_f32(p, q.data() + size_t(t * p.n_head * D), &last, gathered.data(), linear.data(),
                                           want.data() + size_t(t * p.n_head * p.kv_lora), 0, p.n_head);
                }
                Dev d_rows(f16 ? bytes_of(rows16) : bytes_of(rows)), d_table(bytes_of(table)), d_q(bytes_of(q)),
                    d_pos(bytes_of(pos)), d_seq(bytes_of(seq)), d_ids(bytes_of(ids)), d_count(bytes_of(count));
                ft::test::GuardedOutput got(want.size());
                Dev d_out(got.data.size() * 4), d_ws(kc::mla_attention_workspace(p, T, maxCtx));
                CHECK_CUDA(cudaMemcpy(d_rows.p, f16 ? static_cast<const void*>(rows16.data()) : rows.data(),
                                      f16 ? bytes_of(rows16) : bytes_of(rows), cudaMemcpyHostToDevice));
                CHECK_CUDA(cudaMemcpy(d_table.p, table.data(), bytes_of(table), cudaMemcpyHostToDevice));
                CHECK_CUDA(cudaMemcpy(d_q.p, q.data(), bytes_of(q), cudaMemcpyHostToDevice));
                CHECK_CUDA(cudaMemcpy(d_pos.p, pos.data(), bytes_of(pos), cudaMemcpyHostToDevice));
                CHECK_CUDA(cudaMemcpy(d_seq.p, seq.data(), bytes_of(seq), cudaMemcpyHostToDevice));
                CHECK_CUDA(cudaMemcpy(d_ids.p, ids.data(), bytes_of(ids), cudaMemcpyHostToDevice));
                CHECK_CUDA(cudaMemcpy(d_count.p, count.data(), bytes_of(count), cudaMemcpyHostToDevice));
                CHECK_CUDA(cudaMemcpy(d_out.p, got.data.data(), got.data.size() * 4, cudaMemcpyHostToDevice));
                const kc::DeviceMlaCache cache{d_rows.p, d_table.as<std::int32_t>(), stride,
                                               f16 ? ft::kernels::DType::F16 : ft::kernels::DType::F32};
                const kc::MlaPicks picks{d_ids.as<std::int32_t>(), d_count.as<std::int32_t>(), topk};
                CHECK_CUDA(kc::mla_attention(p, d_q.as<float>(), T, d_pos.as<std::int32_t>(), d_seq.as<std::int32_t>(), maxCtx,
                                             cache, d_out.as<float>(), d_ws.p, nullptr, picks));
                CHECK_CUDA(cudaDeviceSynchronize());
                CHECK_CUDA(cudaMemcpy(got.data.data(), d_out.p, got.data.size() * 4, cudaMemcpyDeviceToHost));
                QVERIFY(got.guards_intact());
                QVERIFY(got.all_written());
                const auto err = ft::test::compare(got.ptr(), want.data(), want.size());
                qInfo("MLA picks %s %s: %s", maxCtx ? "decode" : "prefill", f16 ? "f16" : "f32", err.str().c_str());
                QVERIFY2(err.max_abs < 1e-5 && err.nmse < 1e-10, err.str().c_str());
            }
    }

    void kvWriteMatchesReference() {
        for (bool f16 : {false, true}) {
            MlaParams p;
            p.n_head = 1;
            p.kv_lora = 512;
            p.rope_dim = 64;
            p.page_size = 16;
            const int D = p.kv_dim(), T = 5, ld = D + 7, stride = 4, n_pages = 6;
            const auto kva = ft::test::random_floats(size_t(T * ld), 31, -2, 2);
            const auto w = ft::test::random_floats(size_t(p.kv_lora), 32, 0.5f, 1.5f);
            const std::vector<std::int32_t> table = {3, 1, -1, -1, 5, -1, -1, -1};  // two rows
            const std::vector<std::int32_t> pos = {0, 17, 3, -1, 40}, seq = {0, 0, 1, 0, 1};  // -1: padding; 40: unmapped
            Dev d_kva(bytes_of(kva)), d_w(bytes_of(w)), d_table(bytes_of(table)), d_pos(bytes_of(pos)), d_seq(bytes_of(seq));
            const size_t elems = size_t(n_pages * 16 * D), eb = f16 ? 2 : 4;
            Dev d_cache(elems * eb);
            CHECK_CUDA(cudaMemset(d_cache.p, 0, elems * eb));
            CHECK_CUDA(cudaMemcpy(d_kva.p, kva.data(), bytes_of(kva), cudaMemcpyHostToDevice));
            CHECK_CUDA(cudaMemcpy(d_w.p, w.data(), bytes_of(w), cudaMemcpyHostToDevice));
            CHECK_CUDA(cudaMemcpy(d_table.p, table.data(), bytes_of(table), cudaMemcpyHostToDevice));
            CHECK_CUDA(cudaMemcpy(d_pos.p, pos.data(), bytes_of(pos), cudaMemcpyHostToDevice));
            CHECK_CUDA(cudaMemcpy(d_seq.p, seq.data(), bytes_of(seq), cudaMemcpyHostToDevice));
            const kc::DeviceMlaCache cache{d_cache.p, d_table.as<std::int32_t>(), stride,
                                           f16 ? ft::kernels::DType::F16 : ft::kernels::DType::F32};
            CHECK_CUDA(kc::mla_kv_write(p, d_kva.as<float>(), ld, d_w.as<float>(), 1e-6f, d_pos.as<std::int32_t>(),
                                        d_seq.as<std::int32_t>(), T, cache, nullptr));
            CHECK_CUDA(cudaDeviceSynchronize());
            std::vector<float> got(elems);
            if (f16) {
                std::vector<std::uint16_t> h(elems);
                CHECK_CUDA(cudaMemcpy(h.data(), d_cache.p, elems * 2, cudaMemcpyDeviceToHost));
                for (size_t i = 0; i < elems; ++i) got[i] = ref::f16_to_f32(h[i]);
            } else {
                CHECK_CUDA(cudaMemcpy(got.data(), d_cache.p, elems * 4, cudaMemcpyDeviceToHost));
            }
            std::vector<float> want(elems, 0.f);
            std::vector<float> row(static_cast<size_t>(D));
            for (int t = 0; t < T; ++t) {
                if (pos[size_t(t)] < 0) continue;
                const int page = table[size_t(seq[size_t(t)] * stride + pos[size_t(t)] / 16)];
                if (page < 0) continue;
                ref::mla_kv_row(p, kva.data() + size_t(t * ld), w.data(), 1e-6f, row.data());
                for (int d = 0; d < D; ++d) {
                    const float v = row[size_t(d)];
                    want[size_t((page * 16 + pos[size_t(t)] % 16) * D + d)] = f16 ? ref::f16_to_f32(ref::f32_to_f16(v)) : v;
                }
            }
            const auto err = ft::test::compare(got.data(), want.data(), elems);
            // f16: a value near a rounding boundary may round the other way after the device's rsqrt.
            QVERIFY2(err.max_abs < (f16 ? 2e-3 : 2e-6), err.str().c_str());
        }
    }
    void perfDecode() {
        const char* v = std::getenv("FT_TEST_PERF");
        if (!v || *v != '1') QSKIP("perf mode off (FT_TEST_PERF=1 runs it)");
        cudaEvent_t e0, e1;
        CHECK_CUDA(cudaEventCreate(&e0));
        CHECK_CUDA(cudaEventCreate(&e1));
        for (int heads : {16, 128})
            for (int ctx : {640, 4096, 16384}) {
                MlaParams p;
                p.n_head = heads;
                p.kv_lora = 512;
                p.rope_dim = 64;
                p.page_size = 16;
                p.scale = 0.07f;
                const int D = p.kv_dim(), pages = (ctx + 15) / 16, max_ctx = 32768;
                std::vector<std::int32_t> table(size_t(max_ctx / 16), 0);
                for (int i = 0; i < pages; ++i) table[size_t(i)] = i;
                const std::int32_t pos = ctx - 1, seq = 0;
                const auto q = ft::test::random_floats(size_t(heads * D), 41, -0.3f, 0.3f);
                Dev d_rows(size_t(pages) * 16 * size_t(D) * 2), d_table(bytes_of(table)), d_q(bytes_of(q)), d_pos(4), d_seq(4),
                    d_out(size_t(heads * p.kv_lora) * 4), d_ws(kc::mla_attention_workspace(p, 1, max_ctx));
                CHECK_CUDA(cudaMemset(d_rows.p, 0x11, size_t(pages) * 16 * size_t(D) * 2));
                CHECK_CUDA(cudaMemcpy(d_table.p, table.data(), bytes_of(table), cudaMemcpyHostToDevice));
                CHECK_CUDA(cudaMemcpy(d_q.p, q.data(), bytes_of(q), cudaMemcpyHostToDevice));
                CHECK_CUDA(cudaMemcpy(d_pos.p, &pos, 4, cudaMemcpyHostToDevice));
                CHECK_CUDA(cudaMemcpy(d_seq.p, &seq, 4, cudaMemcpyHostToDevice));
                const kc::DeviceMlaCache cache{d_rows.p, d_table.as<std::int32_t>(), max_ctx / 16, ft::kernels::DType::F16};
                auto call = [&] {
                    return kc::mla_attention(p, d_q.as<float>(), 1, d_pos.as<std::int32_t>(), d_seq.as<std::int32_t>(), max_ctx,
                                             cache, d_out.as<float>(), d_ws.p, nullptr);
                };
                for (int i = 0; i < 5; ++i) CHECK_CUDA(call());
                const int reps = 200;
                CHECK_CUDA(cudaEventRecord(e0));
                for (int i = 0; i < reps; ++i) CHECK_CUDA(call());
                CHECK_CUDA(cudaEventRecord(e1));
                CHECK_CUDA(cudaEventSynchronize(e1));
                float ms = 0;
                CHECK_CUDA(cudaEventElapsedTime(&ms, e0, e1));
                const double us = 1e3 * ms / reps, bytes = double(ctx) * D * 2;
                qInfo("PERF MLA decode f16 %d heads ctx %d: %.1f us per call (%.0f GB/s of latent rows, %d splits)", heads, ctx, us,
                      bytes / (us * 1e-6) / 1e9, kc::mla_decode_splits(max_ctx));
            }
        cudaEventDestroy(e0);
        cudaEventDestroy(e1);
    }
#else
    void builtWithoutCuda() { QSKIP("built without CUDA"); }
#endif
};

FT_GPU_TEST_MAIN(TestMlaAttention)
#include "test_mla_attention.moc"
