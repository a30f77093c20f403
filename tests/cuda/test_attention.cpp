// CUDA attention over the paged KV cache against the scalar reference (ref/attention.h): prefill (tensor-core f16
// path and the f32 CUDA-core path of attention_prefill_exact) and split-K decode, with shuffled page tables,
// GQA, sliding windows and sinks, guard values after every output. FT_TEST_PERF=1: perfPrefill prints TFLOP/s of
// an 8192-token causal prefill, perfDecode GB/s of KV read against a device-to-device copy measured in the same run.
//
// Prefill paths: 0 = attention_prefill (tensor cores when the shape allows, else the f32 kernel),
// 2 = attention_prefill_exact (always the f32 CUDA-core kernel). The "gqa" rows sweep the grouped-query block layout (group 1/4/8/16, head_dim 64/128,
// token counts around the 16/64-row tiles, pos0 > 0).
//
// Every prefill and decode case runs twice: on an f32 cache and on an f16 cache (the *F16 slots, same tables). The
// reference of an f16 case is ref::attention_f32 on the K/V rounded to f16 (what the cache holds), so the same
// tolerances apply to both.
//
// Decode on an f16 cache with head_dim == v_head_dim ∈ {32, 64, 128, 256} runs the tensor-core decode kernel (q and p
// split into two f16 halves, f32-accurate), the other rows the f32 CUDA-core kernel; both meet the f32 tolerances.
// Tolerances: f32 paths (decode, simple and exact prefill) max_abs ≤ 1e-5 and nmse ≤ 1e-10. Tensor-core prefill
// (Q·scale, K, V and P rounded to f16, unit roundoff 2^-11, f32 accumulation and softmax): max_abs ≤ 4e-3 and
// nmse ≤ 1e-5 on outputs of O(0.1-1) (random q in [-3, 3], k and v in [-1, 1], so the logits are ~N(0, 1) and the
// softmax is not flat); its measured errors are printed (qInfo "TC err").
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "ft_test.h"
#include "kernel_check.h"
#include "ref/attention.h"
#include "ref/quant.h"

#ifdef FT_HAVE_CUDA
#include <cuda_runtime.h>

#include "cuda_test.h"

#include "cuda/attention.cuh"
#include "late_row_write.h"

using ft::kernels::AttentionParams;


namespace {

using ft::test::bytes_of;
using ft::test::Dev;

constexpr int kPageSize = 16;
constexpr std::int32_t kBadPage = 1 << 28;  // table entries no kernel may read: far outside the cache

// A paged cache of n_rows sequences with lens[r] positions each; pages handed out in a shuffled order.
struct Cache {
    int n_head_kv = 0, dk = 0, dv = 0, stride = 0;
    std::vector<float> k, v;            // the values the reference reads
    std::vector<std::uint16_t> k16, v16;  // f16 cache: the device copy (k, v are these values widened)
    std::vector<std::int32_t> table;  // [n_rows, stride]
    bool f16() const { return !k16.empty(); }
    const std::int32_t* row(int r) const { return table.data() + std::size_t(r) * std::size_t(stride); }
};

// Turns c into an f16 cache: K/V rounded to f16 (the reference then reads the rounded values).
void to_f16(Cache& c) {
    const auto round = [](std::vector<float>& x, std::vector<std::uint16_t>& h) {
        h.resize(x.size());
        for (std::size_t i = 0; i < x.size(); ++i) {
            h[i] = ft::kernels::ref::f32_to_f16(x[i]);
            x[i] = ft::kernels::ref::f16_to_f32(h[i]);
        }
    };
    round(c.k, c.k16);
    round(c.v, c.v16);
}

Cache make_cache(const std::vector<int>& lens, int n_head_kv, int dk, int dv, std::uint32_t seed) {
    Cache c;
    c.n_head_kv = n_head_kv;
    c.dk = dk;
    c.dv = dv;
    int total = 0, max_pages = 0;
    for (int len : lens) {
        const int pages = (len + kPageSize - 1) / kPageSize;
        total += pages;
        max_pages = std::max(max_pages, pages);
    }
    c.stride = max_pages + 3;  // unused entries after each row's pages
    std::vector<std::int32_t> perm(static_cast<std::size_t>(total));
    std::iota(perm.begin(), perm.end(), 0);
    std::mt19937 rng(seed);
    std::shuffle(perm.begin(), perm.end(), rng);
    c.table.assign(lens.size() * std::size_t(c.stride), kBadPage);
    int next = 0;
    for (std::size_t r = 0; r < lens.size(); ++r)
        for (int pg = 0; pg < (lens[r] + kPageSize - 1) / kPageSize; ++pg)
            c.table[r * std::size_t(c.stride) + std::size_t(pg)] = perm[std::size_t(next++)];
    const std::size_t rows = std::size_t(total) * kPageSize * std::size_t(n_head_kv);
    c.k = ft::test::random_floats(rows * std::size_t(dk), seed + 1);
    c.v = ft::test::random_floats(rows * std::size_t(dv), seed + 2);
    return c;
}

// A sliding window lets the engine free the pages before it: mark them unreadable.
void drop_pages_before(Cache& c, int row, int first) {
    for (int pg = 0; (pg + 1) * kPageSize <= first; ++pg)
        c.table[std::size_t(row) * std::size_t(c.stride) + std::size_t(pg)] = kBadPage;
}

std::size_t elem_bytes(const Cache& c) { return c.f16() ? 2 : 4; }

struct DevCache {
    Dev k, v, table;
    explicit DevCache(const Cache& c)
        : k(c.k.size() * elem_bytes(c)), v(c.v.size() * elem_bytes(c)), table(c.table.size() * 4) {}
    bool ok() const { return k.p && v.p && table.p; }
    ft::kernels::cuda::DevicePagedKv view(const Cache& c) const {
        return {k.p, v.p, table.as<std::int32_t>(), c.stride,
                c.f16() ? ft::kernels::DType::F16 : ft::kernels::DType::F32};
    }
};

bool upload(const DevCache& d, const Cache& c) {
    const void* k = c.f16() ? static_cast<const void*>(c.k16.data()) : c.k.data();
    const void* v = c.f16() ? static_cast<const void*>(c.v16.data()) : c.v.data();
    return cudaMemcpy(d.k.p, k, c.k.size() * elem_bytes(c), cudaMemcpyHostToDevice) == cudaSuccess &&
           cudaMemcpy(d.v.p, v, c.v.size() * elem_bytes(c), cudaMemcpyHostToDevice) == cudaSuccess &&
           cudaMemcpy(d.table.p, c.table.data(), c.table.size() * 4, cudaMemcpyHostToDevice) == cudaSuccess;
}

AttentionParams params(int n_head, int n_head_kv, int dk, int dv, int window, const float* sinks) {
    AttentionParams p;
    p.n_head = n_head;
    p.n_head_kv = n_head_kv;
    p.head_dim = dk;
    p.v_head_dim = dv;
    p.page_size = kPageSize;
    p.scale = 1.f / std::sqrt(float(dk));
    p.window = window;
    p.sinks = sinks;
    return p;
}

// q [n, n_head * dk] packed → [n, ldq] with the row tail filled with junk the kernels must not read.
std::vector<float> pad_rows(const std::vector<float>& q, std::int64_t n, std::int64_t width, std::int64_t ldq) {
    std::vector<float> out(std::size_t(n * ldq), 1e30f);
    for (std::int64_t t = 0; t < n; ++t)
        std::memcpy(&out[std::size_t(t * ldq)], &q[std::size_t(t * width)], std::size_t(width) * 4);
    return out;
}

bool perf_mode() {
    const char* v = std::getenv("FT_TEST_PERF");
    return v && *v == '1';
}

float time_ms(cudaEvent_t e0, cudaEvent_t e1) {
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    return ms;
}

}  // namespace
#endif

class TestAttention : public QObject {
    Q_OBJECT
private slots:
#ifdef FT_HAVE_CUDA
    void prefillMatchesReference_data() {
        QTest::addColumn<int>("dk");
        QTest::addColumn<int>("dv");
        QTest::addColumn<int>("n_head");
        QTest::addColumn<int>("n_head_kv");
        QTest::addColumn<int>("n_tokens");
        QTest::addColumn<int>("pos0");
        QTest::addColumn<int>("window");
        QTest::addColumn<bool>("sinks");
        QTest::addColumn<int>("path");
        QTest::addColumn<int>("ldq_pad");
        //                                      dk   dv  heads kv  tokens pos0 window sinks path pad
        QTest::newRow("d64 g1 n100")         << 64 << 64 << 4 << 4 << 100 << 0 << 0 << false << 0 << 0;
        QTest::newRow("d128 g4 n300")        << 128 << 128 << 8 << 2 << 300 << 0 << 0 << false << 0 << 0;
        QTest::newRow("d128 g8 n1000")       << 128 << 128 << 8 << 1 << 1000 << 0 << 0 << false << 0 << 0;
        QTest::newRow("d128 g4 chunk2 pos0 700") << 128 << 128 << 8 << 2 << 300 << 700 << 0 << false << 0 << 4;
        QTest::newRow("d64 g4 n1")           << 64 << 64 << 4 << 1 << 1 << 0 << 0 << false << 0 << 0;
        QTest::newRow("d64 g4 n1 pos0 500")  << 64 << 64 << 4 << 1 << 1 << 500 << 0 << false << 0 << 4;
        QTest::newRow("d128 g8 n17")         << 128 << 128 << 8 << 1 << 17 << 0 << 0 << false << 0 << 0;
        QTest::newRow("d128 g8 n17 pos0 33") << 128 << 128 << 8 << 1 << 17 << 33 << 0 << false << 0 << 0;
        QTest::newRow("d256 g4 n100 pos0 50") << 256 << 256 << 4 << 1 << 100 << 50 << 0 << false << 0 << 0;
        QTest::newRow("d32 g2 n300 pos0 17 (tiny)") << 32 << 32 << 4 << 2 << 300 << 17 << 0 << false << 0 << 0;
        QTest::newRow("d128 window 64")      << 128 << 128 << 8 << 2 << 300 << 200 << 64 << false << 0 << 0;
        QTest::newRow("d64 window 100 n1000") << 64 << 64 << 4 << 1 << 1000 << 0 << 100 << false << 0 << 0;
        QTest::newRow("d128 sinks")          << 128 << 128 << 8 << 2 << 300 << 0 << 0 << true << 0 << 0;
        QTest::newRow("d128 sinks window 50") << 128 << 128 << 8 << 2 << 100 << 300 << 50 << true << 0 << 0;
        // gpt-oss's shape (head 64, 2 query heads per KV head, sinks, window 32 on alternate layers): its fast GPU
        // prefill disagreed with transformers on the H200 while the exact path matched (README, Not yet).
        QTest::newRow("d64 g2 sinks window 32 n100") << 64 << 64 << 4 << 2 << 100 << 0 << 32 << true << 0 << 0;
        QTest::newRow("d64 g2 sinks n100") << 64 << 64 << 4 << 2 << 100 << 0 << 0 << true << 0 << 0;
        QTest::newRow("d64 g2 window 32 n61 pos0 42") << 64 << 64 << 4 << 2 << 61 << 42 << 32 << false << 0 << 0;
        QTest::newRow("d48 (simple by shape)") << 48 << 48 << 4 << 2 << 100 << 10 << 0 << false << 0 << 0;
        QTest::newRow("dk64 dv32 (simple by shape)") << 64 << 32 << 4 << 2 << 100 << 10 << 0 << false << 0 << 0;
        QTest::newRow("exact d32 n17")       << 32 << 32 << 4 << 2 << 17 << 0 << 0 << false << 2 << 0;
        QTest::newRow("exact d256 n100")     << 256 << 256 << 4 << 1 << 100 << 20 << 0 << false << 2 << 0;
        QTest::newRow("exact d128 g4 n300 pos0 100") << 128 << 128 << 8 << 2 << 300 << 100 << 0 << false << 2 << 0;
        QTest::newRow("exact d64 window sinks") << 64 << 64 << 4 << 1 << 200 << 50 << 37 << true << 2 << 4;
        QTest::newRow("d256 g8 n200 pos0 40") << 256 << 256 << 8 << 1 << 200 << 40 << 0 << false << 0 << 0;
        QTest::newRow("d128 g8 window 100 sinks n700") << 128 << 128 << 16 << 2 << 700 << 5 << 100 << true << 0 << 4;
        QTest::newRow("d64 g2 n1 pos0 0")     << 64 << 64 << 4 << 2 << 1 << 0 << 0 << false << 0 << 0;
        QTest::newRow("d128 g3 (hb 1) n150 pos0 9") << 128 << 128 << 6 << 2 << 150 << 9 << 0 << true << 0 << 0;
        QTest::newRow("d128 g6 (hb 2) n150 pos0 9") << 128 << 128 << 12 << 2 << 150 << 9 << 0 << false << 0 << 0;
        // GQA-grouped block layout: group (1, 4, 8, 16) × head_dim (64, 128) × tokens (1, 63, 64, 65, 1000).
        for (int dk : {64, 128}) {
            for (int group : {1, 4, 8, 16}) {
                const int kv = group <= 4 ? 2 : 1;
                for (int n : {1, 63, 64, 65, 1000}) {
                    const int pos0 = n == 64 || n == 1000 ? (n == 64 ? 0 : 3) : 130;
                    const std::string name = "gqa d" + std::to_string(dk) + " g" + std::to_string(group) + " n" +
                                             std::to_string(n) + " pos0 " + std::to_string(pos0);
                    QTest::newRow(name.c_str()) << dk << dk << group * kv << kv << n << pos0 << 0 << false << 0 << 0;
                }
            }
        }
    }
    void prefillMatchesReference() { prefillCase(false); }
    void prefillF16MatchesReference_data() { prefillMatchesReference_data(); }
    void prefillF16MatchesReference() { prefillCase(true); }

    void prefillCase(bool f16) {
        QFETCH(int, dk);
        QFETCH(int, dv);
        QFETCH(int, n_head);
        QFETCH(int, n_head_kv);
        QFETCH(int, n_tokens);
        QFETCH(int, pos0);
        QFETCH(int, window);
        QFETCH(bool, sinks);
        QFETCH(int, path);
        QFETCH(int, ldq_pad);
        if (ft::test::sanitizer_run() && pos0 + n_tokens > 400) QSKIP("large case: skipped under the sanitizer");
        const std::int64_t n = n_tokens, width = std::int64_t(n_head) * dk, ldq = width + ldq_pad;
        const int len = pos0 + n_tokens;
        // Two sequences; the one under test is row 1 (row 0 is another sequence's pages).
        Cache c = make_cache({len / 2 + 5, len}, n_head_kv, dk, dv, 11u + unsigned(dk + len));
        if (f16) to_f16(c);
        if (window > 0) drop_pages_before(c, 1, std::max(0, pos0 - window + 1));
        const auto sink_v = ft::test::random_floats(std::size_t(n_head), 5, 0.f, 4.f);
        const auto q = ft::test::random_floats(std::size_t(n * width), 7u + unsigned(n_tokens), -3.f, 3.f);

        AttentionParams p = params(n_head, n_head_kv, dk, dv, window, sinks ? sink_v.data() : nullptr);
        std::vector<std::int32_t> pos(static_cast<std::size_t>(n));
        std::iota(pos.begin(), pos.end(), pos0);
        std::vector<float> want(std::size_t(n) * std::size_t(n_head) * std::size_t(dv));
        ft::kernels::ref::attention_f32(p, q.data(), pos.data(), {c.k.data(), c.v.data(), c.row(1)}, want.data(), 0,
                                        n * n_head);

        DevCache dc(c);
        QVERIFY(dc.ok() && upload(dc, c));
        const auto qp = pad_rows(q, n, width, ldq);
        ft::test::GuardedOutput got(want.size());
        Dev dq(qp.size() * 4), dout(got.data.size() * 4), dsink(sink_v.size() * 4);
        QVERIFY(dq.p && dout.p && dsink.p);
        CHECK_CUDA(cudaMemcpy(dq.p, qp.data(), qp.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dout.p, got.ptr(), got.data.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dsink.p, sink_v.data(), sink_v.size() * 4, cudaMemcpyHostToDevice));
        p.sinks = sinks ? dsink.as<float>() : nullptr;
        {
            if (path == 2)
                CHECK_CUDA(ft::kernels::cuda::attention_prefill_exact(p, dq.as<float>(), ldq, n, pos0, 1, dc.view(c),
                                                                      dout.as<float>(), nullptr));
            else
                CHECK_CUDA(ft::kernels::cuda::attention_prefill(p, dq.as<float>(), ldq, n, pos0, 1, dc.view(c),
                                                                dout.as<float>(), nullptr));
        }
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemcpy(got.ptr(), dout.p, got.data.size() * 4, cudaMemcpyDeviceToHost));
        QVERIFY2(got.guards_intact(), "wrote past the output");
        QVERIFY(got.all_written());
        const auto err = ft::test::compare(got.ptr(), want.data(), want.size());
        const bool tensor_cores = path == 0 && dk == dv && (dk == 32 || dk == 64 || dk == 128 || dk == 256);
        if (tensor_cores) {
            qInfo("TC err %s%s: %s", f16 ? "(f16 KV) " : "", QTest::currentDataTag(), err.str().c_str());
            QVERIFY2(err.finite && err.max_abs <= 4e-3 && err.nmse <= 1e-5, err.str().c_str());
        } else
            QVERIFY2(err.finite && err.max_abs <= 1e-5 && err.nmse <= 1e-10, err.str().c_str());
    }

    void decodeMatchesReference_data() {
        QTest::addColumn<int>("dk");
        QTest::addColumn<int>("dv");
        QTest::addColumn<int>("n_head");
        QTest::addColumn<int>("n_head_kv");
        QTest::addColumn<QList<int>>("lens");
        QTest::addColumn<int>("max_ctx");
        QTest::addColumn<int>("window");
        QTest::addColumn<bool>("sinks");
        //                                         dk    dv   heads kv  lengths (one sequence each)  max_ctx win sinks
        QTest::newRow("d128 g8 b1 [1]")         << 128 << 128 << 8 << 1 << QList<int>{1} << 4096 << 0 << false;
        QTest::newRow("d128 32/4 b4 [255,256,257,2000]")
            << 128 << 128 << 32 << 4 << QList<int>{255, 256, 257, 2000} << 4096 << 0 << false;
        QTest::newRow("d64 g4 b3 [1,17,300]")   << 64 << 64 << 8 << 2 << QList<int>{1, 17, 300} << 1024 << 0 << false;
        QTest::newRow("d128 g1 b2 [2000,1]")    << 128 << 128 << 4 << 4 << QList<int>{2000, 1} << 2304 << 0 << false;
        QTest::newRow("d256 g4 b2 [257,100]")   << 256 << 256 << 4 << 1 << QList<int>{257, 100} << 512 << 0 << false;
        QTest::newRow("d32 g2 b1 [300] (tiny model)") << 32 << 32 << 4 << 2 << QList<int>{300} << 4096 << 0 << false;
        QTest::newRow("d128 win 128 [2000,255]")
            << 128 << 128 << 8 << 2 << QList<int>{2000, 255} << 4096 << 128 << false;
        QTest::newRow("d128 window 300 [1000]") << 128 << 128 << 8 << 2 << QList<int>{1000} << 1024 << 300 << false;
        QTest::newRow("d128 sinks [257,2000]")  << 128 << 128 << 8 << 2 << QList<int>{257, 2000} << 4096 << 0 << true;
        QTest::newRow("d128 g16 (two head batches)") << 128 << 128 << 16 << 1 << QList<int>{1000} << 1024 << 0 << false;
        QTest::newRow("dk64 dv32")              << 64 << 32 << 4 << 2 << QList<int>{500} << 512 << 0 << false;
        QTest::newRow("d48 g3")                 << 48 << 48 << 6 << 2 << QList<int>{300, 3} << 512 << 0 << true;
        // Past 128 tiles of kDecodeChunk a chunk spans several tiles (online softmax inside a block).
        QTest::newRow("d128 32/4 b2 [20000,64] multi-tile chunks")
            << 128 << 128 << 32 << 4 << QList<int>{20000, 64} << 32768 << 0 << false;
        QTest::newRow("d128 g8 b1 [9000] window 5000 sinks")
            << 128 << 128 << 16 << 2 << QList<int>{9000} << 10000 << 5000 << true;
        QTest::newRow("d256 g2 b1 [12345] (dv 256 tail rows)")
            << 256 << 256 << 4 << 2 << QList<int>{12345} << 16384 << 0 << false;
        QTest::newRow("d64 g16 b2 [8193,65]")   << 64 << 64 << 16 << 1 << QList<int>{8193, 65} << 8256 << 0 << false;
        // The Qwen3-30B-A3B shape at a 12k context beside short sequences: ragged last pages (12,001 and 17 are not
        // multiples of the 16-position page or tile), chunks of several tiles per warp, chunks with fewer tiles than
        // a block has warps; f16: the tensor-core kernel.
        QTest::newRow("d128 32/4 b4 [12000,12001,17,1] (30B shape, 12k)")
            << 128 << 128 << 32 << 4 << QList<int>{12000, 12001, 17, 1} << 12080 << 0 << false;
        // A context of fewer tiles than one block's warps, and every length around one tile.
        QTest::newRow("d128 32/4 b5 [15,16,33,48,64] max_ctx 64")
            << 128 << 128 << 32 << 4 << QList<int>{15, 16, 33, 48, 64} << 64 << 0 << false;
    }
    void decodeMatchesReference() { decodeCase(false); }
    void decodeF16MatchesReference_data() { decodeMatchesReference_data(); }
    void decodeF16MatchesReference() { decodeCase(true); }

    void decodeCase(bool f16) {
        QFETCH(int, dk);
        QFETCH(int, dv);
        QFETCH(int, n_head);
        QFETCH(int, n_head_kv);
        QFETCH(QList<int>, lens);
        QFETCH(int, max_ctx);
        QFETCH(int, window);
        QFETCH(bool, sinks);
        const std::int64_t n = lens.size(), width = std::int64_t(n_head) * dk, ldq = width + 4;
        if (ft::test::sanitizer_run() && max_ctx > 4096) QSKIP("large case: skipped under the sanitizer");
        // n + 1 page-table rows (one unused), token t reads row seq[t] = (t + 1) % (n + 1).
        std::vector<int> row_lens(std::size_t(n + 1), 7);
        std::vector<std::int32_t> seq(static_cast<std::size_t>(n)), pos(static_cast<std::size_t>(n));
        for (std::int64_t t = 0; t < n; ++t) {
            seq[std::size_t(t)] = std::int32_t((t + 1) % (n + 1));
            row_lens[std::size_t(seq[std::size_t(t)])] = lens[t];
            pos[std::size_t(t)] = lens[t] - 1;
        }
        Cache c = make_cache(row_lens, n_head_kv, dk, dv, 23u + unsigned(dk * n));
        if (f16) to_f16(c);
        if (window > 0)
            for (std::int64_t t = 0; t < n; ++t)
                drop_pages_before(c, seq[std::size_t(t)], std::max(0, lens[t] - window));
        const auto sink_v = ft::test::random_floats(std::size_t(n_head), 9, 0.f, 4.f);
        const auto q = ft::test::random_floats(std::size_t(n * width), 13u + unsigned(n), -3.f, 3.f);

        AttentionParams p = params(n_head, n_head_kv, dk, dv, window, sinks ? sink_v.data() : nullptr);
        std::vector<float> want(std::size_t(n) * std::size_t(n_head) * std::size_t(dv));
        for (std::int64_t t = 0; t < n; ++t)
            ft::kernels::ref::attention_f32(p, q.data() + t * width, &pos[std::size_t(t)],
                                            {c.k.data(), c.v.data(), c.row(seq[std::size_t(t)])},
                                            want.data() + t * n_head * dv, 0, n_head);

        DevCache dc(c);
        QVERIFY(dc.ok() && upload(dc, c));
        const auto qp = pad_rows(q, n, width, ldq);
        ft::test::GuardedOutput got(want.size());
        const std::size_t ws_bytes = ft::kernels::cuda::attention_decode_workspace(p, n, max_ctx);
        QVERIFY(ws_bytes > 0);
        Dev dq(qp.size() * 4), dout(got.data.size() * 4), dsink(sink_v.size() * 4), dpos(pos.size() * 4),
            dseq(seq.size() * 4), dws(ws_bytes);
        QVERIFY(dq.p && dout.p && dsink.p && dpos.p && dseq.p && dws.p);
        CHECK_CUDA(cudaMemcpy(dq.p, qp.data(), qp.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dout.p, got.ptr(), got.data.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dsink.p, sink_v.data(), sink_v.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dpos.p, pos.data(), pos.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dseq.p, seq.data(), seq.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemset(dws.p, 0xff, ws_bytes));  // NaN garbage: empty chunks must not be read
        p.sinks = sinks ? dsink.as<float>() : nullptr;
        CHECK_CUDA(ft::kernels::cuda::attention_decode(p, dq.as<float>(), ldq, n, dpos.as<std::int32_t>(),
                                                       dseq.as<std::int32_t>(), max_ctx, dc.view(c), dout.as<float>(),
                                                       dws.p, nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemcpy(got.ptr(), dout.p, got.data.size() * 4, cudaMemcpyDeviceToHost));
        QVERIFY2(got.guards_intact(), "wrote past the output");
        QVERIFY(got.all_written());
        const auto err = ft::test::compare(got.ptr(), want.data(), want.size());
        QVERIFY2(err.finite && err.max_abs <= 1e-5 && err.nmse <= 1e-10, err.str().c_str());
    }

    // Captured once in a CUDA graph, replayed as the position in device memory grows.
    void decodeGraphReplay_data() {
        QTest::addColumn<int>("max_ctx");
        QTest::addColumn<QList<int>>("positions");
        QTest::addColumn<bool>("f16");
        QTest::newRow("max_ctx 1024") << 1024 << QList<int>{0, 99, 255, 256, 700, 1023} << false;
        QTest::newRow("max_ctx 16384 (multi-tile chunks)")
            << 16384 << QList<int>{0, 63, 64, 8191, 8192, 8193, 16383} << false;
        QTest::newRow("f16 KV, max_ctx 16384") << 16384 << QList<int>{0, 64, 8192, 16383} << true;
        QTest::newRow("f16 KV, max_ctx 1024") << 1024 << QList<int>{0, 15, 16, 63, 64, 700, 1023} << true;
    }
    void decodeGraphReplay() {
        QFETCH(int, max_ctx);
        QFETCH(QList<int>, positions);
        QFETCH(bool, f16);
        const int n_head = 8, n_head_kv = 2, d = 128;
        Cache c = make_cache({max_ctx}, n_head_kv, d, d, 31);
        if (f16) to_f16(c);
        const auto q = ft::test::random_floats(std::size_t(n_head * d), 3, -3.f, 3.f);
        AttentionParams p = params(n_head, n_head_kv, d, d, 0, nullptr);
        DevCache dc(c);
        QVERIFY(dc.ok() && upload(dc, c));
        const std::size_t ws_bytes = ft::kernels::cuda::attention_decode_workspace(p, 1, max_ctx);
        Dev dq(q.size() * 4), dout(std::size_t(n_head * d) * 4), dpos(4), dseq(4), dws(ws_bytes);
        QVERIFY(dq.p && dout.p && dpos.p && dseq.p && dws.p);
        CHECK_CUDA(cudaMemcpy(dq.p, q.data(), q.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemset(dseq.p, 0, 4));
        cudaStream_t s;
        CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        cudaGraph_t g = nullptr;
        cudaGraphExec_t ge = nullptr;
        CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        const cudaError_t le = ft::kernels::cuda::attention_decode(p, dq.as<float>(), n_head * d, 1,
                                                                   dpos.as<std::int32_t>(), dseq.as<std::int32_t>(),
                                                                   max_ctx, dc.view(c), dout.as<float>(), dws.p, s);
        CHECK_CUDA(cudaStreamEndCapture(s, &g));
        CHECK_CUDA(le);
        CHECK_CUDA(cudaGraphInstantiate(&ge, g, 0));
        for (const int last_i : positions) {
            const std::int32_t last = last_i;
            CHECK_CUDA(cudaMemcpyAsync(dpos.p, &last, 4, cudaMemcpyHostToDevice, s));
            CHECK_CUDA(cudaGraphLaunch(ge, s));
            std::vector<float> got(std::size_t(n_head * d)), want(got.size());
            CHECK_CUDA(cudaMemcpyAsync(got.data(), dout.p, got.size() * 4, cudaMemcpyDeviceToHost, s));
            CHECK_CUDA(cudaStreamSynchronize(s));
            ft::kernels::ref::attention_f32(p, q.data(), &last, {c.k.data(), c.v.data(), c.row(0)}, want.data(), 0,
                                            n_head);
            const auto err = ft::test::compare(got.data(), want.data(), want.size());
            QVERIFY2(err.finite && err.max_abs <= 1e-5 && err.nmse <= 1e-10,
                     ("pos " + std::to_string(last) + ": " + err.str()).c_str());
        }
        cudaGraphExecDestroy(ge);
        cudaGraphDestroy(g);
        cudaStreamDestroy(s);
    }

    // The engine's order within a step: a kernel writes each sequence's newest K/V row (pos[t]), then the decode
    // kernel, launched as its programmatic dependent, reads the cache; attention_decode requests the older rows
    // before its wait and the newest one after it. Here the newest rows start as NaN on the device and the kernel
    // just before (late_row_write) lets the decode launch at once but stores the real rows only 200 µs later: a
    // decode that read them before its wait returns NaN. The newest row sits in a chunk's first tile (513, 64, 1)
    // and in a later tile of a multi-tile chunk (12000 of max_ctx 16384). Checked once against a decode kernel
    // that requested the newest row before its wait too: this test failed on it (H200, 2026-12-04).
    void decodeReadsTheRowTheKernelBeforeWrote_data() {
        QTest::addColumn<bool>("f16");
        QTest::newRow("f32 KV") << false;
        QTest::newRow("f16 KV") << true;
    }
    void decodeReadsTheRowTheKernelBeforeWrote() {
        QFETCH(bool, f16);
        const bool small = ft::test::sanitizer_run();
        const int n_head = 32, n_head_kv = 4, d = 128, max_ctx = small ? 1024 : 16384, rounds = small ? 2 : 20;
        const std::vector<int> lens = small ? std::vector<int>{1000, 513, 64, 1} : std::vector<int>{12000, 513, 64, 1};
        const std::int64_t n = std::int64_t(lens.size()), width = std::int64_t(n_head) * d, kvw = std::int64_t(n_head_kv) * d;
        std::vector<std::int32_t> seq(lens.size()), pos(lens.size());
        for (std::size_t t = 0; t < lens.size(); ++t) seq[t] = std::int32_t(t), pos[t] = lens[t] - 1;
        Cache c = make_cache(lens, n_head_kv, d, d, 77);
        if (f16) to_f16(c);
        const auto q = ft::test::random_floats(std::size_t(n * width), 5, -3.f, 3.f);
        AttentionParams p = params(n_head, n_head_kv, d, d, 0, nullptr);
        std::vector<float> want(std::size_t(n * width));
        for (std::int64_t t = 0; t < n; ++t)
            ft::kernels::ref::attention_f32(p, q.data() + t * width, &pos[std::size_t(t)],
                                            {c.k.data(), c.v.data(), c.row(seq[std::size_t(t)])}, want.data() + t * width,
                                            0, n_head);
        // The newest rows (what kv_write gets, exact in f16 too: c holds the rounded values), then NaN in their slots.
        std::vector<float> k_new(std::size_t(n * kvw)), v_new(k_new.size());
        std::vector<long long> at_rows(lens.size());
        Cache poisoned = c;
        for (std::int64_t t = 0; t < n; ++t) {
            const int ps = pos[std::size_t(t)];
            const std::int64_t slot = std::int64_t(c.row(seq[std::size_t(t)])[ps / kPageSize]) * kPageSize + ps % kPageSize;
            const std::size_t at = std::size_t(slot * kvw);
            at_rows[std::size_t(t)] = static_cast<long long>(at);
            std::copy_n(c.k.begin() + std::ptrdiff_t(at), kvw, k_new.begin() + t * kvw);
            std::copy_n(c.v.begin() + std::ptrdiff_t(at), kvw, v_new.begin() + t * kvw);
            std::fill_n(poisoned.k.begin() + std::ptrdiff_t(at), kvw, NAN);
            std::fill_n(poisoned.v.begin() + std::ptrdiff_t(at), kvw, NAN);
            if (f16) {
                std::fill_n(poisoned.k16.begin() + std::ptrdiff_t(at), kvw, std::uint16_t(0x7e00));
                std::fill_n(poisoned.v16.begin() + std::ptrdiff_t(at), kvw, std::uint16_t(0x7e00));
            }
        }
        DevCache dc(poisoned);
        const std::size_t ws_bytes = ft::kernels::cuda::attention_decode_workspace(p, n, max_ctx);
        Dev dq(q.size() * 4), dout(want.size() * 4), dpos(pos.size() * 4), dseq(seq.size() * 4), dws(ws_bytes),
            dkn(k_new.size() * 4), dvn(v_new.size() * 4), dat(at_rows.size() * sizeof(long long));
        QVERIFY(dc.ok() && dq.p && dout.p && dpos.p && dseq.p && dws.p && dkn.p && dvn.p && dat.p);
        CHECK_CUDA(cudaMemcpy(dat.p, at_rows.data(), at_rows.size() * sizeof(long long), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dq.p, q.data(), q.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dpos.p, pos.data(), pos.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dseq.p, seq.data(), seq.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dkn.p, k_new.data(), k_new.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dvn.p, v_new.data(), v_new.size() * 4, cudaMemcpyHostToDevice));
        cudaStream_t s;
        CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        for (int r = 0; r < rounds; ++r) {
            QVERIFY(upload(dc, poisoned));
            CHECK_CUDA(ft::test::late_row_write(dkn.as<float>(), dvn.as<float>(), int(n), int(kvw), dat.as<long long>(),
                                                dc.k.p, dc.v.p, f16, 200'000, s));
            CHECK_CUDA(ft::kernels::cuda::attention_decode(p, dq.as<float>(), width, n, dpos.as<std::int32_t>(),
                                                           dseq.as<std::int32_t>(), max_ctx, dc.view(poisoned),
                                                           dout.as<float>(), dws.p, s));
            std::vector<float> got(want.size());
            CHECK_CUDA(cudaMemcpyAsync(got.data(), dout.p, got.size() * 4, cudaMemcpyDeviceToHost, s));
            CHECK_CUDA(cudaStreamSynchronize(s));
            const auto err = ft::test::compare(got.data(), want.data(), want.size());
            QVERIFY2(err.finite && err.max_abs <= 1e-5 && err.nmse <= 1e-10,
                     ("round " + std::to_string(r) + ": " + err.str()).c_str());
        }
        cudaStreamDestroy(s);
    }

    void rejectsWhatItCannotDo() {
        using ft::kernels::cuda::attention_decode;
        using ft::kernels::cuda::attention_prefill;
        const ft::kernels::cuda::DevicePagedKv kv{};
        float dummy_ws[4];
        AttentionParams p = params(8, 3, 128, 128, 0, nullptr);  // 8 heads over 3 KV heads
        QCOMPARE(attention_prefill(p, nullptr, 8 * 128, 1, 0, 0, kv, nullptr, nullptr), cudaErrorInvalidValue);
        p = params(8, 2, 300, 300, 0, nullptr);  // head_dim over 256
        QCOMPARE(attention_prefill(p, nullptr, 8 * 300, 1, 0, 0, kv, nullptr, nullptr), cudaErrorInvalidValue);
        p = params(8, 2, 40, 40, 0, nullptr);  // decode needs head_dim % 16 == 0
        QCOMPARE(attention_decode(p, nullptr, 8 * 40, 1, nullptr, nullptr, 256, kv, nullptr, dummy_ws, nullptr),
                 cudaErrorInvalidValue);
        p = params(8, 2, 128, 128, 0, nullptr);
        QCOMPARE(attention_prefill(p, nullptr, 100, 1, 0, 0, kv, nullptr, nullptr), cudaErrorInvalidValue);  // ldq
        QCOMPARE(attention_decode(p, nullptr, 8 * 128, 1, nullptr, nullptr, 256, kv, nullptr, nullptr, nullptr),
                 cudaErrorInvalidValue);  // no workspace
        QCOMPARE(attention_decode(p, nullptr, 8 * 128, 1, nullptr, nullptr, 0, kv, nullptr, dummy_ws, nullptr),
                 cudaErrorInvalidValue);  // max_ctx 0
        QCOMPARE(attention_prefill(p, nullptr, 8 * 128, 0, 0, 0, kv, nullptr, nullptr), cudaSuccess);  // nothing to do
        ft::kernels::cuda::DevicePagedKv bf16_kv{};
        bf16_kv.type = ft::kernels::DType::BF16;  // only F32 and F16 caches
        QCOMPARE(attention_prefill(p, nullptr, 8 * 128, 1, 0, 0, bf16_kv, nullptr, nullptr), cudaErrorInvalidValue);
        QCOMPARE(attention_decode(p, nullptr, 8 * 128, 1, nullptr, nullptr, 256, bf16_kv, nullptr, dummy_ws, nullptr),
                 cudaErrorInvalidValue);
        cudaGetLastError();
    }

    void perfPrefill() {
        if (!perf_mode()) QSKIP("perf mode off (FT_TEST_PERF=1 runs it)");
        const int n_head = 32, n_head_kv = 4, d = 128;
        const std::int64_t n = 8192;
        Cache c = make_cache({int(n)}, n_head_kv, d, d, 41);
        Cache c16 = c;
        to_f16(c16);
        const auto q = ft::test::random_floats(std::size_t(n * n_head * d), 43, -3.f, 3.f);
        AttentionParams p = params(n_head, n_head_kv, d, d, 0, nullptr);
        DevCache dc(c), dc16(c16);
        QVERIFY(dc.ok() && upload(dc, c) && dc16.ok() && upload(dc16, c16));
        Dev dq(q.size() * 4), dout(q.size() * 4);
        QVERIFY(dq.p && dout.p);
        CHECK_CUDA(cudaMemcpy(dq.p, q.data(), q.size() * 4, cudaMemcpyHostToDevice));
        const double flops = 4.0 * double(n) * double(n) / 2.0 * d * n_head;
        cudaEvent_t e0, e1;
        cudaEventCreate(&e0);
        cudaEventCreate(&e1);
        for (int run = 0; run < 4; ++run) {
            const bool simple = run % 2 == 1, f16 = run >= 2;
            const auto view = f16 ? dc16.view(c16) : dc.view(c);
            const int iters = simple ? 1 : 10;
            const auto attend = simple ? ft::kernels::cuda::attention_prefill_exact : ft::kernels::cuda::attention_prefill;
            CHECK_CUDA(attend(p, dq.as<float>(), n_head * d, n, 0, 0, view, dout.as<float>(), nullptr));
            cudaEventRecord(e0);
            for (int i = 0; i < iters; ++i) CHECK_CUDA(attend(p, dq.as<float>(), n_head * d, n, 0, 0, view, dout.as<float>(), nullptr));
            cudaEventRecord(e1);
            CHECK_CUDA(cudaEventSynchronize(e1));
            const double ms = time_ms(e0, e1) / iters;
            qInfo("PERF attention prefill %s, %s KV: %lld tokens x %d/%d heads x %d causal: %.2f ms, %.1f TFLOP/s",
                  simple ? "simple f32" : "tensor-core f16", f16 ? "f16" : "f32", (long long)n, n_head, n_head_kv, d,
                  ms, flops / (ms * 1e-3) / 1e12);
        }
        cudaEventDestroy(e0);
        cudaEventDestroy(e1);
    }

    void perfDecode() {
        if (!perf_mode()) QSKIP("perf mode off (FT_TEST_PERF=1 runs it)");
        const int n_head = 32, n_head_kv = 4, d = 128;
        cudaEvent_t e0, e1;
        cudaEventCreate(&e0);
        cudaEventCreate(&e1);
        // Device copy bandwidth for scale (read + write counted).
        const std::size_t copy_bytes = std::size_t(256) << 20;
        double copy_gbs = 0;
        {
            Dev a(copy_bytes), b(copy_bytes);
            QVERIFY(a.p && b.p);
            CHECK_CUDA(cudaMemset(a.p, 1, copy_bytes));
            CHECK_CUDA(cudaMemcpy(b.p, a.p, copy_bytes, cudaMemcpyDeviceToDevice));
            cudaEventRecord(e0);
            for (int i = 0; i < 10; ++i) CHECK_CUDA(cudaMemcpyAsync(b.p, a.p, copy_bytes, cudaMemcpyDeviceToDevice));
            cudaEventRecord(e1);
            CHECK_CUDA(cudaEventSynchronize(e1));
            copy_gbs = 2.0 * double(copy_bytes) * 10 / (time_ms(e0, e1) * 1e-3) / 1e9;
        }
        struct Shape {
            int batch, ctx, max_ctx;  // max_ctx > ctx: a grid sized for the engine's context (graph capture)
        };
        for (const Shape sh : {Shape{1, 512, 512}, Shape{1, 4096, 4096}, Shape{1, 32768, 32768},
                               Shape{1, 512, 32768}, Shape{1, 4096, 32768}, Shape{1, 12000, 12080}, Shape{4, 512, 512},
                               Shape{4, 4096, 4096}, Shape{4, 32768, 32768}}) {
            const int batch = sh.batch, ctx = sh.ctx, max_ctx = sh.max_ctx;
            for (const bool f16 : {false, true}) {
                Cache c = make_cache(std::vector<int>(std::size_t(batch), ctx), n_head_kv, d, d, 47);
                if (f16) to_f16(c);
                const auto q = ft::test::random_floats(std::size_t(batch * n_head * d), 53, -3.f, 3.f);
                std::vector<std::int32_t> pos(static_cast<std::size_t>(batch), ctx - 1);
                std::vector<std::int32_t> seq(static_cast<std::size_t>(batch));
                std::iota(seq.begin(), seq.end(), 0);
                AttentionParams p = params(n_head, n_head_kv, d, d, 0, nullptr);
                DevCache dc(c);
                QVERIFY(dc.ok() && upload(dc, c));
                const std::size_t ws_bytes = ft::kernels::cuda::attention_decode_workspace(p, batch, max_ctx);
                Dev dq(q.size() * 4), dout(q.size() * 4), dpos(pos.size() * 4), dseq(seq.size() * 4), dws(ws_bytes);
                QVERIFY(dq.p && dout.p && dpos.p && dseq.p && dws.p);
                CHECK_CUDA(cudaMemcpy(dq.p, q.data(), q.size() * 4, cudaMemcpyHostToDevice));
                CHECK_CUDA(cudaMemcpy(dpos.p, pos.data(), pos.size() * 4, cudaMemcpyHostToDevice));
                CHECK_CUDA(cudaMemcpy(dseq.p, seq.data(), seq.size() * 4, cudaMemcpyHostToDevice));
                auto run = [&] {
                    return ft::kernels::cuda::attention_decode(p, dq.as<float>(), n_head * d, batch,
                                                               dpos.as<std::int32_t>(), dseq.as<std::int32_t>(),
                                                               max_ctx, dc.view(c), dout.as<float>(), dws.p, nullptr);
                };
                for (int i = 0; i < 3; ++i) CHECK_CUDA(run());
                const int iters = 50;
                cudaEventRecord(e0);
                for (int i = 0; i < iters; ++i) CHECK_CUDA(run());
                cudaEventRecord(e1);
                CHECK_CUDA(cudaEventSynchronize(e1));
                const double us = time_ms(e0, e1) * 1e3 / iters;
                const double kv_bytes = double(batch) * ctx * n_head_kv * (2.0 * d) * double(elem_bytes(c));
                const double gbs = kv_bytes / (us * 1e-6) / 1e9;
                qInfo("PERF attention decode %s KV b%d ctx %d max_ctx %d (%d/%d heads x %d, %.1f MiB KV): %.1f us, "
                      "%.0f GB/s of KV (device copy %.0f GB/s, %.0f%%)",
                      f16 ? "f16" : "f32", batch, ctx, max_ctx, n_head, n_head_kv, d, kv_bytes / 1048576.0, us, gbs,
                      copy_gbs, 100 * gbs / copy_gbs);
            }
        }
        cudaEventDestroy(e0);
        cudaEventDestroy(e1);
    }
#else
    void builtWithoutCuda() { QSKIP("built without CUDA"); }
#endif
};

FT_GPU_TEST_MAIN(TestAttention)
#include "test_attention.moc"
