// CUDA per-token ops (kernels/cuda/ops.cuh) against the scalar references and host computations: embedding rows,
// RoPE, add, SwiGLU, MoE routing / grouping / gather / combine, paged KV write (f32 and f16 caches), argmax, the
// gated-attention helpers. Every output is followed by
// guard values; ids and page tables are shuffled. FT_TEST_PERF=1: perfOps prints µs per call.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "ft_test.h"
#include "kernel_check.h"
#include "quant_weights.h"
#include "ref/moe_router.h"
#include "ref/quant.h"
#include "ref/rms_norm.h"
#include "ref/rope.h"
#include "ref/swiglu.h"

#ifdef FT_HAVE_CUDA
#include <cuda_runtime.h>

#include "cuda_test.h"

#include "cuda/gemv.cuh"
#include "cuda/ops.cuh"
#include "cuda/rms_norm.cuh"

using ft::kernels::DType;
using ft::kernels::RopeParams;
using ft::kernels::RouterGating;
using ft::kernels::RouterParams;
namespace kc = ft::kernels::cuda;


namespace {

using ft::test::bytes_of;
using ft::test::Dev;

// An int32 output followed by guard entries (the same bit pattern as GuardedOutput's).
struct GuardedInts {
    static constexpr std::size_t kGuard = 64;
    static constexpr std::int32_t kPattern = 0x7fc0dead;
    std::vector<std::int32_t> data;
    std::size_t n;
    explicit GuardedInts(std::size_t n_) : data(n_ + kGuard, kPattern), n(n_) {}
    bool guards_intact() const {
        return std::all_of(data.begin() + std::ptrdiff_t(n), data.end(), [](std::int32_t v) { return v == kPattern; });
    }
};

bool perf_mode() {
    const char* v = std::getenv("FT_TEST_PERF");
    return v && *v == '1';
}

std::vector<std::int32_t> shuffled_ids(std::size_t n, std::int32_t n_rows, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<std::int32_t> ids(n);
    for (auto& id : ids) id = std::int32_t(rng() % std::uint32_t(n_rows));
    return ids;
}

// A table of n_rows quantized rows (each row scaled differently) and its reference dequantization.
struct Table {
    std::vector<std::uint8_t> bytes;
    std::vector<float> deq;
    std::size_t row_bytes = 0;
};
Table make_table(DType t, std::int64_t n_rows, std::int64_t cols, std::uint32_t seed) {
    Table w;
    w.row_bytes = *ft::kernels::dtype_bytes(t, std::uint64_t(cols));
    w.bytes.resize(w.row_bytes * std::size_t(n_rows));
    w.deq.resize(std::size_t(n_rows * cols));
    for (std::int64_t r = 0; r < n_rows; ++r) {
        const auto row = ft::test::random_floats(std::size_t(cols), seed + std::uint32_t(r),
                                                 -1.f - 0.03f * float(r % 37), 1.f + 0.05f * float(r % 29));
        std::uint8_t* dst = w.bytes.data() + std::size_t(r) * w.row_bytes;
        ft::kernels::ref::quantize_row(t, row.data(), dst, cols);
        ft::kernels::ref::dequantize_row(t, dst, w.deq.data() + r * cols, cols);
    }
    return w;
}

// Host mirror of moe_group: stable counting sort of the pairs by expert; out-of-range ids are counted nowhere.
void host_group(const std::vector<std::int32_t>& ids, int n_expert, std::vector<std::int32_t>& offsets,
                std::vector<std::int32_t>& order, std::vector<std::int32_t>& where) {
    const std::size_t pairs = ids.size();
    offsets.assign(std::size_t(n_expert) + 1, 0);
    for (auto id : ids)
        if (id >= 0 && id < n_expert) ++offsets[std::size_t(id) + 1];
    for (int e = 0; e < n_expert; ++e) offsets[std::size_t(e) + 1] += offsets[std::size_t(e)];
    std::vector<std::int32_t> next(offsets.begin(), offsets.end() - 1);
    order.assign(pairs, -1);
    where.assign(pairs, -1);
    for (std::size_t p = 0; p < pairs; ++p) {
        const int id = ids[p];
        if (id < 0 || id >= n_expert) continue;
        const int dst = next[std::size_t(id)]++;
        order[std::size_t(dst)] = std::int32_t(p);
        where[p] = dst;
    }
}

// Router ids of a realistic shape: k distinct experts per token, popular experts more likely.
std::vector<std::int32_t> router_like_ids(std::int64_t n_tokens, int k, int n_expert, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<std::int32_t> ids(std::size_t(n_tokens) * std::size_t(k));
    std::vector<std::int32_t> perm(static_cast<std::size_t>(n_expert));
    std::iota(perm.begin(), perm.end(), 0);
    for (std::int64_t t = 0; t < n_tokens; ++t) {
        std::vector<std::int32_t> pick;
        while (int(pick.size()) < k) {
            const std::uint32_t r = rng();
            // Half the draws come from the first eighth of a shuffled expert list: skewed loads.
            const int e = (r & 1) ? int((r >> 1) % std::uint32_t(std::max(1, n_expert / 8)))
                                  : int((r >> 1) % std::uint32_t(n_expert));
            const std::int32_t id = perm[std::size_t(e)];
            if (std::find(pick.begin(), pick.end(), id) == pick.end()) pick.push_back(id);
        }
        std::copy(pick.begin(), pick.end(), ids.begin() + t * k);
    }
    return ids;
}

template <class F>
double time_us(F&& launch, int iters = 50) {
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    for (int i = 0; i < 3; ++i) launch();
    cudaEventRecord(e0);
    for (int i = 0; i < iters; ++i) launch();
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return double(ms) * 1e3 / iters;
}

// ---- router cases ----

struct RouteCase {
    const char* name;
    int n_expert, k;
    RouterGating gating;
    bool norm_topk;
    float scale;
    bool bias;
    int n_group, topk_group;
};
const RouteCase kRouteCases[] = {
    {"qwen3-30b 128/8 softmax norm", 128, 8, RouterGating::softmax, true, 1.f, false, 0, 0},
    {"qwen2-moe 60/4 softmax", 60, 4, RouterGating::softmax, false, 1.f, false, 0, 0},
    {"deepseek-v3 256/8 sigmoid bias 8g top4 x2.5", 256, 8, RouterGating::sigmoid, true, 2.5f, true, 8, 4},
    {"sigmoid 64/6 bias, no groups", 64, 6, RouterGating::sigmoid, false, 1.f, true, 0, 0},
    {"gpt-oss 32/4 softmax_weight", 32, 4, RouterGating::softmax_weight, false, 1.f, false, 0, 0},
    {"max 1024/32 softmax norm", 1024, 32, RouterGating::softmax, true, 1.f, false, 0, 0},
    {"k = n 8/8 sigmoid 4g top1", 8, 8, RouterGating::sigmoid, true, 1.f, true, 4, 1},
};

}  // namespace
#endif

class TestOps : public QObject {
    Q_OBJECT
private slots:
#ifdef FT_HAVE_CUDA
    void embedRows_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("n_rows");
        QTest::addColumn<int>("cols");
        QTest::addColumn<int>("n_tokens");
        for (DType t : {DType::F32, DType::F16, DType::BF16, DType::Q8_0, DType::Q4_K, DType::Q5_K, DType::Q6_K})
            for (int n_tokens : {1, 37})
                for (int cols : {256, 2048}) {
                    QTest::addRow("%s %d tok x %d", ft::kernels::dtype_info(t).name.data(), n_tokens, cols)
                        << int(t) << 300 << cols << n_tokens;
                }
        QTest::addRow("f32 odd cols 33") << int(DType::F32) << 17 << 33 << 5;
        QTest::addRow("f16 odd cols 1") << int(DType::F16) << 9 << 1 << 3;
        QTest::addRow("bf16 odd cols 4097") << int(DType::BF16) << 11 << 4097 << 7;
        QTest::addRow("q6_K 7168, 300 tok") << int(DType::Q6_K) << 50 << 7168 << 300;
        // The types decoded through quant::decode8 only (random valid blocks: the IQ and ternary types have no
        // quantizer); a row longer than 8 × 256 threads' first pass.
        for (DType t : {DType::Q4_0, DType::Q4_1, DType::Q5_0, DType::Q5_1, DType::IQ4_NL, DType::IQ4_XS, DType::Q2_K,
                        DType::Q3_K, DType::TQ1_0, DType::TQ2_0, DType::IQ2_XXS, DType::IQ2_XS, DType::IQ2_S,
                        DType::IQ3_XXS, DType::IQ3_S, DType::IQ1_S, DType::IQ1_M})
            QTest::addRow("%s 37 tok x 2560", ft::kernels::dtype_info(t).name.data()) << int(t) << 60 << 2560 << 37;
    }
    void embedRows() {
        QFETCH(int, type);
        QFETCH(int, n_rows);
        QFETCH(int, cols);
        QFETCH(int, n_tokens);
        const DType t = DType(type);
        Table w;
        if (kc::gemv_decode_only(t)) {
            auto r = ft::test::make(t, n_rows, cols, 100 + std::uint32_t(type));
            w.bytes = std::move(r.bytes), w.deq = std::move(r.deq), w.row_bytes = r.row_bytes;
        } else {
            w = make_table(t, n_rows, cols, 100 + std::uint32_t(type));
        }
        auto ids = shuffled_ids(std::size_t(n_tokens), n_rows, 7 + std::uint32_t(n_tokens));
        if (n_tokens > 2) ids[1] = n_rows - 1, ids[2] = ids[1];  // last row, and a repeat
        if (n_tokens > 4) ids[4] = -1;                           // padding → zero row
        std::vector<float> want(std::size_t(n_tokens) * std::size_t(cols));
        for (int i = 0; i < n_tokens; ++i)
            for (int c = 0; c < cols; ++c)
                want[std::size_t(i) * cols + c] =
                    ids[std::size_t(i)] < 0 ? 0.f : w.deq[std::size_t(ids[std::size_t(i)]) * cols + c];
        ft::test::GuardedOutput got(want.size());
        Dev dt(w.bytes.size()), di(bytes_of(ids)), dy(got.data.size() * 4);
        QVERIFY(dt.p && di.p && dy.p);
        CHECK_CUDA(cudaMemcpy(dt.p, w.bytes.data(), w.bytes.size(), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(di.p, ids.data(), bytes_of(ids), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dy.p, got.ptr(), got.data.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(
            kc::embed_rows(t, dt.p, w.row_bytes, cols, di.as<std::int32_t>(), n_tokens, dy.as<float>(), nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemcpy(got.ptr(), dy.p, got.data.size() * 4, cudaMemcpyDeviceToHost));
        QVERIFY2(got.guards_intact(), "wrote past the output");
        QVERIFY(got.all_written());
        const auto err = ft::test::compare(got.ptr(), want.data(), want.size());
        // Same products, same rounding as ref::dequantize_row: bit-identical.
        QVERIFY2(err.finite && err.max_abs == 0.0, err.str().c_str());
    }

    void rope_data() {
        QTest::addColumn<int>("head_dim");
        QTest::addColumn<int>("n_rot");
        QTest::addColumn<int>("n_heads");
        QTest::addColumn<bool>("neox");
        QTest::addColumn<int>("n_tokens");
        QTest::addColumn<int>("pad");  // extra floats per token row (ld = n_heads*head_dim + pad)
        QTest::addColumn<float>("theta");
        QTest::addColumn<float>("freq_scale");
        QTest::addColumn<float>("ext_factor");  // YaRN on when != 0 (orig_ctx 4096, attn_factor 1)
        QTest::addRow("qwen3 neox 128 full, 1 tok") << 128 << 128 << 4 << true << 1 << 0 << 1e6f << 1.f << 0.f;
        QTest::addRow("qwen3 neox 128 full") << 128 << 128 << 32 << true << 21 << 0 << 1e6f << 1.f << 0.f;
        QTest::addRow("llama norm 128") << 128 << 128 << 8 << false << 13 << 0 << 10000.f << 1.f << 0.f;
        QTest::addRow("glm neox partial 64/128") << 128 << 64 << 6 << true << 9 << 0 << 10000.f << 1.f << 0.f;
        QTest::addRow("norm partial 32/96, ld pad 7") << 96 << 32 << 3 << false << 11 << 7 << 10000.f << 1.f << 0.f;
        QTest::addRow("neox odd head_dim 65, n_rot 2") << 65 << 2 << 5 << true << 4 << 3 << 10000.f << 1.f << 0.f;
        QTest::addRow("linear scale 0.25") << 64 << 64 << 2 << true << 8 << 0 << 10000.f << 0.25f << 0.f;
        QTest::addRow("yarn deepseek 64/192 x40") << 192 << 64 << 4 << true << 17 << 0 << 10000.f << 1.f / 40 << 1.f;
        QTest::addRow("yarn gpt-oss 64 x32") << 64 << 64 << 8 << true << 9 << 5 << 150000.f << 1.f / 32 << 1.f;
        // ext_factor 2 here means: YaRN with exact (untruncated) ramp ends, gpt-oss's rope_scaling.truncate = false.
        QTest::addRow("yarn gpt-oss exact ramp") << 64 << 64 << 8 << true << 9 << 5 << 150000.f << 1.f / 32 << 2.f;
        QTest::addRow("yarn norm half mix") << 128 << 128 << 2 << false << 6 << 0 << 10000.f << 0.125f << 0.5f;
    }
    void rope() {
        QFETCH(int, head_dim);
        QFETCH(int, n_rot);
        QFETCH(int, n_heads);
        QFETCH(bool, neox);
        QFETCH(int, n_tokens);
        QFETCH(int, pad);
        QFETCH(float, theta);
        QFETCH(float, freq_scale);
        QFETCH(float, ext_factor);
        RopeParams p;
        p.head_dim = head_dim, p.n_rot = n_rot, p.neox = neox, p.theta = theta, p.freq_scale = freq_scale;
        p.ext_factor = ext_factor == 2.f ? 1.f : ext_factor, p.orig_ctx = ext_factor != 0.f ? 4096 : 0;
        p.truncate = ext_factor != 2.f;
        const std::int64_t dense = std::int64_t(n_heads) * head_dim, ld = dense + pad;
        // Positions: 0, 1, 1000, 32767 first, then random ones up to 40000, shuffled over the tokens.
        std::vector<std::int32_t> pos(static_cast<std::size_t>(n_tokens));
        std::mt19937 rng(std::uint32_t(n_tokens * 31 + head_dim));
        const std::int32_t fixed[] = {0, 1, 1000, 32767, 40000};
        for (std::size_t i = 0; i < pos.size(); ++i) pos[i] = i < 5 ? fixed[i] : std::int32_t(rng() % 40001);
        std::shuffle(pos.begin(), pos.end(), rng);
        if (n_tokens == 1) pos[0] = 32767;
        const auto x = ft::test::random_floats(std::size_t(n_tokens * ld), 5 + std::uint32_t(head_dim));
        std::vector<float> want(x), packed(std::size_t(n_tokens * dense));
        for (int t = 0; t < n_tokens; ++t) std::copy_n(x.begin() + t * ld, dense, packed.begin() + t * dense);
        ft::kernels::ref::rope_f32(p, packed.data(), n_tokens, n_heads, pos.data());
        for (int t = 0; t < n_tokens; ++t) std::copy_n(packed.begin() + t * dense, dense, want.begin() + t * ld);

        ft::test::GuardedOutput got(x.size());
        std::copy(x.begin(), x.end(), got.data.begin());
        Dev dx(got.data.size() * 4), dp(bytes_of(pos));
        QVERIFY(dx.p && dp.p);
        CHECK_CUDA(cudaMemcpy(dx.p, got.ptr(), got.data.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dp.p, pos.data(), bytes_of(pos), cudaMemcpyHostToDevice));
        CHECK_CUDA(kc::rope_f32(p, dx.as<float>(), n_tokens, n_heads, pad ? ld : 0, dp.as<std::int32_t>(), nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemcpy(got.ptr(), dx.p, got.data.size() * 4, cudaMemcpyDeviceToHost));
        QVERIFY2(got.guards_intact(), "wrote past the output");
        const auto err = ft::test::compare(got.ptr(), want.data(), want.size());
        QVERIFY2(err.finite && err.max_abs < 1e-5, err.str().c_str());
        // Dims past n_rot and the row padding: untouched, bit for bit.
        for (int t = 0; t < n_tokens; ++t)
            for (std::int64_t c = 0; c < ld; ++c) {
                const bool rotated = c < dense && c % head_dim < n_rot;
                const std::size_t i = std::size_t(t * ld + c);
                if (!rotated) QVERIFY2(std::memcmp(&got.data[i], &x[i], 4) == 0, "a pass-through value changed");
            }
    }

    // The decode-step fusion equals rms_norm per head (q and k weights, or none) followed by rope, on a q/k/v-like
    // packed row (q, then k, then v: v untouched).
    void qkNormRope_data() {
        QTest::addColumn<int>("head_dim");
        QTest::addColumn<int>("nq");
        QTest::addColumn<int>("nk");
        QTest::addColumn<bool>("neox");
        QTest::addColumn<bool>("norm");
        QTest::addColumn<int>("n_tokens");
        QTest::newRow("qwen3 32/4x128 neox") << 128 << 32 << 4 << true << true << 1;
        QTest::newRow("qwen3 batch 4") << 128 << 32 << 4 << true << true << 4;
        QTest::newRow("tiny 4/2x32") << 32 << 4 << 2 << true << true << 3;
        QTest::newRow("norm rope, no qk norm") << 64 << 8 << 8 << false << false << 2;
    }
    void qkNormRope() {
        QFETCH(int, head_dim);
        QFETCH(int, nq);
        QFETCH(int, nk);
        QFETCH(bool, neox);
        QFETCH(bool, norm);
        QFETCH(int, n_tokens);
        RopeParams p;
        p.head_dim = head_dim, p.n_rot = head_dim, p.neox = neox, p.theta = 1e6f;
        const std::int64_t ld = std::int64_t(nq + 2 * nk) * head_dim;  // q | k | v per token
        const auto x = ft::test::random_floats(std::size_t(n_tokens * ld), 77 + std::uint32_t(head_dim), -3.f, 3.f);
        const auto qw = ft::test::random_floats(std::size_t(head_dim), 78, 0.5f, 1.5f);
        const auto kw = ft::test::random_floats(std::size_t(head_dim), 79, 0.5f, 1.5f);
        std::vector<std::int32_t> pos(static_cast<std::size_t>(n_tokens));
        for (int t = 0; t < n_tokens; ++t) pos[std::size_t(t)] = 1000 * t + 7;
        std::vector<float> q(std::size_t(n_tokens * nq * head_dim)), k(std::size_t(n_tokens * nk * head_dim));
        for (int t = 0; t < n_tokens; ++t) {
            std::copy_n(x.begin() + t * ld, nq * head_dim, q.begin() + t * nq * head_dim);
            std::copy_n(x.begin() + t * ld + nq * head_dim, nk * head_dim, k.begin() + t * nk * head_dim);
        }
        if (norm) {
            ft::kernels::ref::rms_norm_f32(q.data(), qw.data(), q.data(), n_tokens * nq, head_dim, 1e-6f);
            ft::kernels::ref::rms_norm_f32(k.data(), kw.data(), k.data(), n_tokens * nk, head_dim, 1e-6f);
        }
        ft::kernels::ref::rope_f32(p, q.data(), n_tokens, nq, pos.data());
        ft::kernels::ref::rope_f32(p, k.data(), n_tokens, nk, pos.data());
        std::vector<float> want(x);
        for (int t = 0; t < n_tokens; ++t) {
            std::copy_n(q.begin() + t * nq * head_dim, nq * head_dim, want.begin() + t * ld);
            std::copy_n(k.begin() + t * nk * head_dim, nk * head_dim, want.begin() + t * ld + nq * head_dim);
        }
        ft::test::GuardedOutput got(x.size());
        std::copy(x.begin(), x.end(), got.data.begin());
        Dev dx(got.data.size() * 4), dp(bytes_of(pos)), dqw(qw.size() * 4), dkw(kw.size() * 4);
        QVERIFY(dx.p && dp.p && dqw.p && dkw.p);
        CHECK_CUDA(cudaMemcpy(dx.p, got.ptr(), got.data.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dp.p, pos.data(), bytes_of(pos), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dqw.p, qw.data(), qw.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dkw.p, kw.data(), kw.size() * 4, cudaMemcpyHostToDevice));
        float* base = dx.as<float>();
        CHECK_CUDA(kc::qk_norm_rope(p, base, ld, nq, base + nq * head_dim, ld, nk, norm ? dqw.as<float>() : nullptr,
                                    norm ? dkw.as<float>() : nullptr, 1e-6f, n_tokens, dp.as<std::int32_t>(), nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemcpy(got.ptr(), dx.p, got.data.size() * 4, cudaMemcpyDeviceToHost));
        QVERIFY2(got.guards_intact(), "wrote past the output");
        const auto err = ft::test::compare(got.ptr(), want.data(), want.size());
        QVERIFY2(err.finite && err.max_abs < 2e-5, err.str().c_str());

        // The fused form with the KV write: q and k bit-equal to the plain form's, each token's rotated K and its V
        // row (the heads after k) in its slot of a paged cache whose pages run backwards; nothing else written.
        const int page_size = 16, pages = (1000 * (n_tokens - 1) + 7) / page_size + 1;
        std::vector<std::int32_t> table(static_cast<std::size_t>(pages)), seq(static_cast<std::size_t>(n_tokens), 0);
        for (int i = 0; i < pages; ++i) table[std::size_t(i)] = pages - 1 - i;
        const std::size_t kw_n = std::size_t(nk) * std::size_t(head_dim), n_slots = std::size_t(pages) * page_size;
        const std::size_t cache_n = n_slots * kw_n;
        std::vector<float> want_k(cache_n, -7.f), want_v(cache_n, -7.f);
        for (int t = 0; t < n_tokens; ++t) {
            const int ps = pos[std::size_t(t)];
            const std::size_t at = std::size_t(table[std::size_t(ps / page_size)]) * page_size + std::size_t(ps % page_size);
            std::copy_n(got.data.begin() + t * ld + nq * head_dim, kw_n, want_k.begin() + std::ptrdiff_t(at * kw_n));
            std::copy_n(x.begin() + t * ld + (nq + nk) * head_dim, kw_n, want_v.begin() + std::ptrdiff_t(at * kw_n));
        }
        Dev dx2(bytes_of(x)), dkc(bytes_of(want_k)), dvc(bytes_of(want_v)), dtab(bytes_of(table)), dseq(bytes_of(seq));
        QVERIFY(dx2.p && dkc.p && dvc.p && dtab.p && dseq.p);
        const std::vector<float> fill(want_k.size(), -7.f);
        CHECK_CUDA(cudaMemcpy(dx2.p, x.data(), bytes_of(x), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dkc.p, fill.data(), bytes_of(fill), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dvc.p, fill.data(), bytes_of(fill), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dtab.p, table.data(), bytes_of(table), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dseq.p, seq.data(), bytes_of(seq), cudaMemcpyHostToDevice));
        kc::KvWriteParams kp;
        kp.n_head_kv = nk, kp.head_dim = head_dim, kp.v_head_dim = head_dim, kp.page_size = page_size;
        kp.page_tables = dtab.as<std::int32_t>(), kp.pages_stride = pages;
        float* base2 = dx2.as<float>();
        CHECK_CUDA(kc::qk_norm_rope_kv_write(p, base2, ld, nq, base2 + nq * head_dim, ld, norm ? dqw.as<float>() : nullptr,
                                             norm ? dkw.as<float>() : nullptr, 1e-6f, n_tokens, dp.as<std::int32_t>(), kp,
                                             base2 + (nq + nk) * head_dim, ld, dseq.as<std::int32_t>(), dkc.p, dvc.p,
                                             nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        std::vector<float> fused(x.size()), kcache(want_k.size()), vcache(want_v.size());
        CHECK_CUDA(cudaMemcpy(fused.data(), dx2.p, bytes_of(fused), cudaMemcpyDeviceToHost));
        CHECK_CUDA(cudaMemcpy(kcache.data(), dkc.p, bytes_of(kcache), cudaMemcpyDeviceToHost));
        CHECK_CUDA(cudaMemcpy(vcache.data(), dvc.p, bytes_of(vcache), cudaMemcpyDeviceToHost));
        QVERIFY2(std::memcmp(fused.data(), got.ptr(), bytes_of(fused)) == 0, "fused q/k differ from qk_norm_rope's");
        QVERIFY2(std::memcmp(kcache.data(), want_k.data(), bytes_of(kcache)) == 0, "K cache differs");
        QVERIFY2(std::memcmp(vcache.data(), want_v.data(), bytes_of(vcache)) == 0, "V cache differs");
    }

    void addAndSwiglu_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<float>("limit");
        for (int n : {1, 33, 4097, (1 << 20) + 3})
            for (float limit : {0.f, 7.f}) QTest::addRow("n=%d limit=%g", n, double(limit)) << n << limit;
    }
    void addAndSwiglu() {
        QFETCH(int, n);
        QFETCH(float, limit);
        const auto g = ft::test::random_floats(std::size_t(n), 3 + std::uint32_t(n), -12.f, 12.f);
        const auto u = ft::test::random_floats(std::size_t(n), 4 + std::uint32_t(n), -10.f, 10.f);
        std::vector<float> want_add(static_cast<std::size_t>(n)), want_sw(static_cast<std::size_t>(n));
        for (std::size_t i = 0; i < want_add.size(); ++i) want_add[i] = g[i] + u[i];
        ft::kernels::ref::swiglu_f32(g.data(), u.data(), want_sw.data(), n, limit);
        ft::test::GuardedOutput sum(static_cast<std::size_t>(n)), sw(static_cast<std::size_t>(n)),
            alias(static_cast<std::size_t>(n));
        std::copy(u.begin(), u.end(), sum.data.begin());
        std::copy(g.begin(), g.end(), alias.data.begin());
        const std::size_t bytes = sum.data.size() * 4;
        Dev dg(bytes_of(g)), du(bytes_of(u)), dsum(bytes), dsw(bytes), dalias(bytes);
        QVERIFY(dg.p && du.p && dsum.p && dsw.p && dalias.p);
        CHECK_CUDA(cudaMemcpy(dg.p, g.data(), bytes_of(g), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(du.p, u.data(), bytes_of(u), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dsum.p, sum.ptr(), bytes, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dsw.p, sw.ptr(), bytes, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dalias.p, alias.ptr(), bytes, cudaMemcpyHostToDevice));
        CHECK_CUDA(kc::add_f32(dg.as<float>(), dsum.as<float>(), n, nullptr));
        CHECK_CUDA(kc::swiglu_f32(dg.as<float>(), du.as<float>(), dsw.as<float>(), n, limit, nullptr));
        CHECK_CUDA(kc::swiglu_f32(dalias.as<float>(), du.as<float>(), dalias.as<float>(), n, limit, nullptr));  // y = g
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemcpy(sum.ptr(), dsum.p, bytes, cudaMemcpyDeviceToHost));
        CHECK_CUDA(cudaMemcpy(sw.ptr(), dsw.p, bytes, cudaMemcpyDeviceToHost));
        CHECK_CUDA(cudaMemcpy(alias.ptr(), dalias.p, bytes, cudaMemcpyDeviceToHost));
        QVERIFY2(sum.guards_intact() && sw.guards_intact() && alias.guards_intact(), "wrote past the output");
        QVERIFY2(std::memcmp(sum.ptr(), want_add.data(), bytes_of(want_add)) == 0, "add differs");
        // Float math against the double reference: a few ulps of each factor. With limit, u + 1 cancels near u = -1,
        // so the bound is relative to |silu(g)| · (|u| + 1), not to the result.
        for (std::size_t i = 0; i < want_sw.size(); ++i) {
            const double gx = limit > 0.f ? std::min(double(g[i]), double(limit)) : double(g[i]);
            const double ux = limit > 0.f ? std::clamp(double(u[i]), -double(limit), double(limit)) : double(u[i]);
            const double a = limit > 0.f ? 1.702 : 1.0;
            const double scale =
                std::fabs(gx / (1.0 + std::exp(-a * gx))) * (std::fabs(ux) + (limit > 0.f ? 1.0 : 0.0));
            const double d = std::fabs(double(sw.data[i]) - double(want_sw[i]));
            if (!(d <= 2e-6 * scale + 1e-30))
                QFAIL(("element " + std::to_string(i) + ": " + std::to_string(sw.data[i]) + ", reference " +
                       std::to_string(want_sw[i]))
                          .c_str());
        }
        QVERIFY2(std::memcmp(alias.ptr(), sw.ptr(), bytes_of(want_sw)) == 0, "in-place result differs");
    }

    // y[r, c] += b[c] over rows × cols of a strided matrix; the columns past cols (the stride's gap) stay as they were.
    void addBias_data() {
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        QTest::addColumn<int>("ld");
        for (auto [r, c, ld] : {std::tuple{1, 1, 1}, {3, 64, 64}, {5, 96, 160}, {1027, 2880, 2880}, {8, 4096, 5120}})
            QTest::addRow("%dx%d ld %d", r, c, ld) << r << c << ld;
    }
    void addBias() {
        QFETCH(int, rows);
        QFETCH(int, cols);
        QFETCH(int, ld);
        const auto y0 = ft::test::random_floats(std::size_t(rows) * std::size_t(ld), 11u + std::uint32_t(cols), -4.f, 4.f);
        const auto b = ft::test::random_floats(std::size_t(cols), 12u + std::uint32_t(rows), -2.f, 2.f);
        std::vector<float> want = y0;
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c) want[std::size_t(r) * std::size_t(ld) + std::size_t(c)] += b[std::size_t(c)];
        ft::test::GuardedOutput got(y0.size());
        std::copy(y0.begin(), y0.end(), got.data.begin());
        Dev dy(got.data.size() * 4), db(bytes_of(b));
        QVERIFY(dy.p && db.p);
        CHECK_CUDA(cudaMemcpy(dy.p, got.ptr(), got.data.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(db.p, b.data(), bytes_of(b), cudaMemcpyHostToDevice));
        CHECK_CUDA(kc::add_bias_f32(dy.as<float>(), ld, db.as<float>(), rows, cols, nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemcpy(got.ptr(), dy.p, got.data.size() * 4, cudaMemcpyDeviceToHost));
        QVERIFY2(got.guards_intact(), "wrote past the output");
        QVERIFY2(std::memcmp(got.ptr(), want.data(), bytes_of(want)) == 0, "bias add differs");
        QCOMPARE(kc::add_bias_f32(dy.as<float>(), cols - 1 > 0 ? cols - 1 : -1, db.as<float>(), rows, cols, nullptr),
                 cudaErrorInvalidValue);
    }

    void moeRoute_data() {
        QTest::addColumn<int>("which");
        QTest::addColumn<int>("n_tokens");
        QTest::addColumn<bool>("ties");  // logits (and bias) on a coarse grid: many exact ties
        for (int c = 0; c < int(std::size(kRouteCases)); ++c)
            for (int n_tokens : {1, 7, 515})
                for (bool ties : {false, true})
                    QTest::addRow("%s, %d tok%s", kRouteCases[c].name, n_tokens, ties ? ", ties" : "")
                        << c << n_tokens << ties;
    }
    void moeRoute() {
        QFETCH(int, which);
        QFETCH(int, n_tokens);
        QFETCH(bool, ties);
        const RouteCase& rc = kRouteCases[which];
        const int n = rc.n_expert, k = rc.k;
        auto logits = ft::test::random_floats(std::size_t(n_tokens) * n, 9 + std::uint32_t(which), -4.f, 4.f);
        auto bias = ft::test::random_floats(std::size_t(n), 10 + std::uint32_t(which), -0.3f, 0.3f);
        if (ties) {
            for (auto& v : logits) v = std::round(v * 2.f) / 2.f;  // 17 levels
            for (std::size_t e = 0; e < bias.size(); ++e) bias[e] = 0.125f * float(e % 3);
            // One token whose logits are all equal: the choice is then ids 0..k-1 (after the groups).
            std::fill_n(logits.begin(), n, 0.75f);
        }
        RouterParams p;
        p.n_expert = n, p.k = k, p.gating = rc.gating, p.norm_topk = rc.norm_topk, p.scale = rc.scale;
        p.n_group = rc.n_group, p.topk_group = rc.topk_group;
        p.bias = rc.bias ? bias.data() : nullptr;
        std::vector<std::int32_t> want_ids(std::size_t(n_tokens) * k);
        std::vector<float> want_w(want_ids.size());
        for (int t = 0; t < n_tokens; ++t)
            ft::kernels::ref::moe_route(p, logits.data() + std::size_t(t) * n, want_ids.data() + std::size_t(t) * k,
                                        want_w.data() + std::size_t(t) * k);

        GuardedInts ids(want_ids.size());
        ft::test::GuardedOutput w(want_w.size());
        Dev dl(bytes_of(logits)), db(bytes_of(bias)), di(ids.data.size() * 4), dw(w.data.size() * 4);
        QVERIFY(dl.p && db.p && di.p && dw.p);
        CHECK_CUDA(cudaMemcpy(dl.p, logits.data(), bytes_of(logits), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(db.p, bias.data(), bytes_of(bias), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(di.p, ids.data.data(), ids.data.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dw.p, w.ptr(), w.data.size() * 4, cudaMemcpyHostToDevice));
        RouterParams dp = p;
        dp.bias = rc.bias ? db.as<float>() : nullptr;
        CHECK_CUDA(kc::moe_route(dp, dl.as<float>(), n_tokens, di.as<std::int32_t>(), dw.as<float>(), nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemcpy(ids.data.data(), di.p, ids.data.size() * 4, cudaMemcpyDeviceToHost));
        CHECK_CUDA(cudaMemcpy(w.ptr(), dw.p, w.data.size() * 4, cudaMemcpyDeviceToHost));
        QVERIFY2(ids.guards_intact() && w.guards_intact(), "wrote past the output");
        for (std::size_t i = 0; i < want_ids.size(); ++i)
            if (ids.data[i] != want_ids[i])
                QFAIL(("token " + std::to_string(i / std::size_t(k)) + " choice " + std::to_string(i % std::size_t(k)) +
                       ": id " + std::to_string(ids.data[i]) + ", reference " + std::to_string(want_ids[i]))
                          .c_str());
        const auto err = ft::test::compare(w.ptr(), want_w.data(), want_w.size());
        QVERIFY2(err.finite && err.max_rel < 1e-5, err.str().c_str());
    }

    // moe_group → gather_rows → (a host "expert": row × (1 + e/64)) → moe_combine, against the host mirror.
    void moeGroupGatherCombine_data() {
        QTest::addColumn<int>("n_tokens");
        QTest::addColumn<int>("k");
        QTest::addColumn<int>("n_expert");
        QTest::addColumn<int>("cols");
        QTest::addColumn<int>("bad_ids");  // ids out of range, counted nowhere
        QTest::addRow("1 tok, qwen3 128/8") << 1 << 8 << 128 << 64 << 0;
        QTest::addRow("1 tok, qwen3 128/8, 2048 cols") << 1 << 8 << 128 << 2048 << 0;
        QTest::addRow("5 tok, 256/8, odd cols") << 5 << 8 << 256 << 33 << 0;
        QTest::addRow("333 tok, 128/8") << 333 << 8 << 128 << 128 << 0;
        QTest::addRow("3 tok, 7/2") << 3 << 2 << 7 << 5 << 0;
        QTest::addRow("8192 tok, 128/8") << 8192 << 8 << 128 << 16 << 0;
        QTest::addRow("8192 tok, 256/8") << 8192 << 8 << 256 << 8 << 0;
        QTest::addRow("1000 tok, 1024/4 (smem-limited warps)") << 1000 << 4 << 1024 << 4 << 0;
        QTest::addRow("100 tok, 64/6, 9 bad ids") << 100 << 6 << 64 << 12 << 9;
        QTest::addRow("7 tok, 128/8, 7168 cols, 5 bad ids") << 7 << 8 << 128 << 7168 << 5;
    }
    void moeGroupGatherCombine() {
        QFETCH(int, n_tokens);
        QFETCH(int, k);
        QFETCH(int, n_expert);
        QFETCH(int, cols);
        QFETCH(int, bad_ids);
        const std::size_t pairs = std::size_t(n_tokens) * std::size_t(k);
        auto ids = router_like_ids(n_tokens, k, n_expert, 21 + std::uint32_t(n_tokens));
        for (int b = 0; b < bad_ids; ++b) ids[std::size_t(b * 37) % pairs] = (b % 2) ? -1 : n_expert + b;
        std::vector<std::int32_t> want_off, want_order, want_where;
        host_group(ids, n_expert, want_off, want_order, want_where);

        GuardedInts off(want_off.size()), order(pairs), where(pairs);
        Dev di(bytes_of(ids)), doff(off.data.size() * 4), dord(order.data.size() * 4), dwh(where.data.size() * 4);
        QVERIFY(di.p && doff.p && dord.p && dwh.p);
        CHECK_CUDA(cudaMemcpy(di.p, ids.data(), bytes_of(ids), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(doff.p, off.data.data(), off.data.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dord.p, order.data.data(), order.data.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dwh.p, where.data.data(), where.data.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(kc::moe_group(di.as<std::int32_t>(), std::int64_t(pairs), n_expert, doff.as<std::int32_t>(),
                                 dord.as<std::int32_t>(), dwh.as<std::int32_t>(), nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemcpy(off.data.data(), doff.p, off.data.size() * 4, cudaMemcpyDeviceToHost));
        CHECK_CUDA(cudaMemcpy(order.data.data(), dord.p, order.data.size() * 4, cudaMemcpyDeviceToHost));
        CHECK_CUDA(cudaMemcpy(where.data.data(), dwh.p, where.data.size() * 4, cudaMemcpyDeviceToHost));
        QVERIFY2(off.guards_intact() && order.guards_intact() && where.guards_intact(), "wrote past an output");
        QVERIFY2(std::equal(want_off.begin(), want_off.end(), off.data.begin()), "offsets differ");
        QVERIFY2(std::equal(want_order.begin(), want_order.end(), order.data.begin()), "order differs");
        QVERIFY2(std::equal(want_where.begin(), want_where.end(), where.data.begin()), "where differs");

        // gather: token rows in expert order.
        const auto x = ft::test::random_floats(std::size_t(n_tokens) * cols, 31 + std::uint32_t(cols));
        std::vector<float> want_g(pairs * std::size_t(cols));
        for (std::size_t i = 0; i < pairs; ++i)
            for (int c = 0; c < cols; ++c)
                want_g[i * cols + c] = want_order[i] < 0 ? 0.f : x[std::size_t(want_order[i] / k) * cols + c];
        ft::test::GuardedOutput g(want_g.size());
        Dev dx(bytes_of(x)), dg(g.data.size() * 4);
        QVERIFY(dx.p && dg.p);
        CHECK_CUDA(cudaMemcpy(dx.p, x.data(), bytes_of(x), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dg.p, g.ptr(), g.data.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(kc::gather_rows(dx.as<float>(), cols, dord.as<std::int32_t>(), k, std::int64_t(pairs),
                                   dg.as<float>(), nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemcpy(g.ptr(), dg.p, g.data.size() * 4, cudaMemcpyDeviceToHost));
        QVERIFY2(g.guards_intact(), "gather wrote past the output");
        QVERIFY2(std::memcmp(g.ptr(), want_g.data(), bytes_of(want_g)) == 0, "gathered rows differ");

        // The "experts" (host): row i of the gathered block belongs to expert e → y = row × (1 + e/64).
        std::vector<float> y(want_g.size());
        for (int e = 0; e < n_expert; ++e)
            for (int i = want_off[std::size_t(e)]; i < want_off[std::size_t(e) + 1]; ++i)
                for (int c = 0; c < cols; ++c)
                    y[std::size_t(i) * cols + c] = want_g[std::size_t(i) * cols + c] * (1.f + float(e) / 64.f);
        const auto wts = ft::test::random_floats(pairs, 41, 0.05f, 1.f);
        const auto resid = ft::test::random_floats(std::size_t(n_tokens) * cols, 43);
        Dev dy(bytes_of(y)), dwt(bytes_of(wts));
        QVERIFY(dy.p && dwt.p);
        CHECK_CUDA(cudaMemcpy(dy.p, y.data(), bytes_of(y), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dwt.p, wts.data(), bytes_of(wts), cudaMemcpyHostToDevice));
        for (bool accumulate : {false, true}) {
            std::vector<float> want(resid.size());
            for (int t = 0; t < n_tokens; ++t)
                for (int c = 0; c < cols; ++c) {
                    float s = 0.f;
                    for (int j = 0; j < k; ++j) {
                        const std::size_t pr = std::size_t(t) * k + std::size_t(j);
                        if (want_where[pr] >= 0) s = std::fma(wts[pr], y[std::size_t(want_where[pr]) * cols + c], s);
                    }
                    const std::size_t o = std::size_t(t) * cols + c;
                    want[o] = accumulate ? resid[o] + s : s;
                }
            ft::test::GuardedOutput out(want.size());
            std::copy(resid.begin(), resid.end(), out.data.begin());
            Dev dout(out.data.size() * 4);
            QVERIFY(dout.p);
            CHECK_CUDA(cudaMemcpy(dout.p, out.ptr(), out.data.size() * 4, cudaMemcpyHostToDevice));
            CHECK_CUDA(kc::moe_combine(dy.as<float>(), dwh.as<std::int32_t>(), dwt.as<float>(), n_tokens, k, cols,
                                       dout.as<float>(), accumulate, nullptr));
            CHECK_CUDA(cudaDeviceSynchronize());
            CHECK_CUDA(cudaMemcpy(out.ptr(), dout.p, out.data.size() * 4, cudaMemcpyDeviceToHost));
            QVERIFY2(out.guards_intact(), "combine wrote past the output");
            const auto err = ft::test::compare(out.ptr(), want.data(), want.size());
            // Same fma chain in the same order: expected bit-exact; the bound leaves room only for rounding.
            QVERIFY2(err.finite && err.max_abs < 1e-6, err.str().c_str());
        }
        // The sum with the next block's norm fused: x and xn bit-equal to moe_combine (accumulate) then rms_norm_f32
        // (odd widths take the two calls inside it).
        for (const bool with_where : {true, false}) {
            const auto nw = ft::test::random_floats(std::size_t(cols), 47, 0.5f, 1.5f);
            Dev dnw(bytes_of(nw)), d1(bytes_of(resid)), d2(bytes_of(resid)), n1(bytes_of(resid)), n2(bytes_of(resid));
            QVERIFY(dnw.p && d1.p && d2.p && n1.p && n2.p);
            CHECK_CUDA(cudaMemcpy(dnw.p, nw.data(), bytes_of(nw), cudaMemcpyHostToDevice));
            CHECK_CUDA(cudaMemcpy(d1.p, resid.data(), bytes_of(resid), cudaMemcpyHostToDevice));
            CHECK_CUDA(cudaMemcpy(d2.p, resid.data(), bytes_of(resid), cudaMemcpyHostToDevice));
            const std::int32_t* wh = with_where ? dwh.as<std::int32_t>() : nullptr;
            CHECK_CUDA(kc::moe_combine(dy.as<float>(), wh, dwt.as<float>(), n_tokens, k, cols, d1.as<float>(), true, nullptr));
            CHECK_CUDA(kc::rms_norm_f32(d1.as<float>(), dnw.as<float>(), n1.as<float>(), n_tokens, cols, 1e-6f, nullptr));
            CHECK_CUDA(kc::moe_combine_rms_norm(dy.as<float>(), wh, dwt.as<float>(), n_tokens, k, cols, d2.as<float>(),
                                                dnw.as<float>(), 1e-6f, n2.as<float>(), nullptr));
            CHECK_CUDA(cudaDeviceSynchronize());
            std::vector<float> x1(resid.size()), x2(resid.size()), xn1(resid.size()), xn2(resid.size());
            CHECK_CUDA(cudaMemcpy(x1.data(), d1.p, bytes_of(x1), cudaMemcpyDeviceToHost));
            CHECK_CUDA(cudaMemcpy(x2.data(), d2.p, bytes_of(x2), cudaMemcpyDeviceToHost));
            CHECK_CUDA(cudaMemcpy(xn1.data(), n1.p, bytes_of(xn1), cudaMemcpyDeviceToHost));
            CHECK_CUDA(cudaMemcpy(xn2.data(), n2.p, bytes_of(xn2), cudaMemcpyDeviceToHost));
            QVERIFY2(x1 != resid, "the sum left the residual unchanged");
            QVERIFY2(std::memcmp(x1.data(), x2.data(), bytes_of(x1)) == 0, "fused sum differs from moe_combine's");
            QVERIFY2(std::memcmp(xn1.data(), xn2.data(), bytes_of(xn1)) == 0, "fused norm differs from rms_norm_f32's");
        }
        // where = nullptr: y rows in pair order (decode layout).
        {
            std::vector<float> want(resid.size());
            for (int t = 0; t < n_tokens; ++t)
                for (int c = 0; c < cols; ++c) {
                    float s = 0.f;
                    for (int j = 0; j < k; ++j) {
                        const std::size_t pr = std::size_t(t) * k + std::size_t(j);
                        s = std::fma(wts[pr], y[pr * cols + c], s);
                    }
                    want[std::size_t(t) * cols + c] = s;
                }
            ft::test::GuardedOutput out(want.size());
            Dev dout(out.data.size() * 4);
            QVERIFY(dout.p);
            CHECK_CUDA(cudaMemcpy(dout.p, out.ptr(), out.data.size() * 4, cudaMemcpyHostToDevice));
            CHECK_CUDA(kc::moe_combine(dy.as<float>(), nullptr, dwt.as<float>(), n_tokens, k, cols, dout.as<float>(),
                                       false, nullptr));
            CHECK_CUDA(cudaDeviceSynchronize());
            CHECK_CUDA(cudaMemcpy(out.ptr(), dout.p, out.data.size() * 4, cudaMemcpyDeviceToHost));
            QVERIFY2(out.guards_intact(), "combine wrote past the output");
            QVERIFY(out.all_written());
            const auto err = ft::test::compare(out.ptr(), want.data(), want.size());
            QVERIFY2(err.finite && err.max_abs < 1e-6, err.str().c_str());
        }
    }

    void kvWrite_data() {
        QTest::addColumn<int>("n_head_kv");
        QTest::addColumn<int>("head_dim");
        QTest::addColumn<int>("v_head_dim");
        QTest::addColumn<int>("page_size");
        QTest::addColumn<int>("n_tokens");
        QTest::addColumn<int>("pad");  // extra floats in the K/V source rows
        QTest::addColumn<bool>("f16");  // f16 cache: every value rounded as ref::f32_to_f16, bit for bit
        for (const bool f16 : {false, true}) {
            const char* t = f16 ? " f16" : "";
            QTest::addRow("decode 1 tok%s", t) << 4 << 128 << 128 << 16 << 1 << 0 << f16;
            QTest::addRow("gqa 4x128, page 16%s", t) << 4 << 128 << 128 << 16 << 50 << 0 << f16;
            QTest::addRow("k 192 / v 128, page 32, strided rows%s", t) << 2 << 192 << 128 << 32 << 70 << 64 << f16;
            QTest::addRow("odd 3x17 / 3x5, page 7%s", t) << 3 << 17 << 5 << 7 << 40 << 3 << f16;
        }
    }
    void kvWrite() {
        QFETCH(int, n_head_kv);
        QFETCH(int, head_dim);
        QFETCH(int, v_head_dim);
        QFETCH(int, page_size);
        QFETCH(int, n_tokens);
        QFETCH(int, pad);
        QFETCH(bool, f16);
        const int n_seq = 3, pages_per_seq = 6, n_pages = n_seq * pages_per_seq + 2;
        // Shuffled page tables: sequence s, logical page j → a physical page; the last entry of seq 2 unmapped.
        std::vector<std::int32_t> phys(static_cast<std::size_t>(n_pages));
        std::iota(phys.begin(), phys.end(), 0);
        std::mt19937 rng(std::uint32_t(77 + n_tokens));
        std::shuffle(phys.begin(), phys.end(), rng);
        std::vector<std::int32_t> tables(std::size_t(n_seq * pages_per_seq));
        std::copy_n(phys.begin(), tables.size(), tables.begin());
        tables.back() = -1;
        // Tokens: distinct (seq, pos) places (some on the unmapped page); one padding token (pos -1) when several.
        std::vector<std::pair<int, int>> places;
        for (int s = 0; s < n_seq; ++s)
            for (int q = 0; q < pages_per_seq * page_size; ++q) places.emplace_back(s, q);
        std::shuffle(places.begin(), places.end(), rng);
        std::vector<std::int32_t> pos(static_cast<std::size_t>(n_tokens)), seq(static_cast<std::size_t>(n_tokens));
        for (int t = 0; t < n_tokens; ++t)
            seq[std::size_t(t)] = places[std::size_t(t)].first, pos[std::size_t(t)] = places[std::size_t(t)].second;
        if (n_tokens > 3) pos[2] = -1;
        const int kw = n_head_kv * head_dim, vw = n_head_kv * v_head_dim;
        const std::int64_t ldk = kw + pad, ldv = vw + 2 * pad;
        auto k = ft::test::random_floats(std::size_t(n_tokens * ldk), 3);
        auto v = ft::test::random_floats(std::size_t(n_tokens * ldv), 4);
        // f16 rounding edge cases: ties to even (1 + 2^-11 → 1, 1 + 3·2^-11 → 1 + 2^-9), the largest finite value
        // and overflow, subnormals, underflow to (signed) zero, scaled-up values.
        const float edge[] = {1.f + 0x1p-11f, 1.f + 3 * 0x1p-11f, -(1.f + 0x1p-11f), 65504.f, 65519.f, 65520.f,
                              -1e6f, 3e-5f, 6e-8f, 2e-8f, -1e-9f, 1000.5f, 2049.f, 0.1f};
        for (std::size_t i = 0; i < std::size(edge) && i < k.size(); ++i) k[i * 7 % k.size()] = edge[i];
        for (std::size_t i = 0; i < std::size(edge) && i < v.size(); ++i) v[i * 5 % v.size()] = edge[i] * 0.5f;
        const std::size_t kc_n = std::size_t(n_pages) * page_size * kw, vc_n = std::size_t(n_pages) * page_size * vw;
        if (f16) {
            kvWriteF16(k, v, ldk, ldv, pos, seq, tables, pages_per_seq, n_head_kv, head_dim, v_head_dim, page_size,
                       pad, kc_n, vc_n);
            return;
        }
        ft::test::GuardedOutput kcache(kc_n), vcache(vc_n);
        std::vector<float> want_k(kcache.data.begin(), kcache.data.begin() + std::ptrdiff_t(kc_n));
        std::vector<float> want_v(vcache.data.begin(), vcache.data.begin() + std::ptrdiff_t(vc_n));
        for (int t = 0; t < n_tokens; ++t) {
            const int ps = pos[std::size_t(t)], sq = seq[std::size_t(t)];
            if (ps < 0) continue;
            const int page = tables[std::size_t(sq * pages_per_seq + ps / page_size)];
            if (page < 0) continue;
            const std::size_t at = std::size_t(page) * page_size + std::size_t(ps % page_size);
            std::copy_n(k.begin() + t * ldk, kw, want_k.begin() + std::ptrdiff_t(at * kw));
            std::copy_n(v.begin() + t * ldv, vw, want_v.begin() + std::ptrdiff_t(at * vw));
        }
        Dev dk(bytes_of(k)), dv(bytes_of(v)), dpos(bytes_of(pos)), dseq(bytes_of(seq)), dtab(bytes_of(tables)),
            dkc(kcache.data.size() * 4), dvc(vcache.data.size() * 4);
        QVERIFY(dk.p && dv.p && dpos.p && dseq.p && dtab.p && dkc.p && dvc.p);
        CHECK_CUDA(cudaMemcpy(dk.p, k.data(), bytes_of(k), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dv.p, v.data(), bytes_of(v), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dpos.p, pos.data(), bytes_of(pos), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dseq.p, seq.data(), bytes_of(seq), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dtab.p, tables.data(), bytes_of(tables), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dkc.p, kcache.ptr(), kcache.data.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dvc.p, vcache.ptr(), vcache.data.size() * 4, cudaMemcpyHostToDevice));
        kc::KvWriteParams p;
        p.n_head_kv = n_head_kv, p.head_dim = head_dim, p.v_head_dim = v_head_dim, p.page_size = page_size;
        p.page_tables = dtab.as<std::int32_t>(), p.pages_stride = pages_per_seq;
        CHECK_CUDA(kc::kv_write(p, dk.as<float>(), pad ? ldk : 0, dv.as<float>(), pad ? ldv : 0,
                                dpos.as<std::int32_t>(), dseq.as<std::int32_t>(), n_tokens, dkc.as<float>(),
                                dvc.as<float>(), nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemcpy(kcache.ptr(), dkc.p, kcache.data.size() * 4, cudaMemcpyDeviceToHost));
        CHECK_CUDA(cudaMemcpy(vcache.ptr(), dvc.p, vcache.data.size() * 4, cudaMemcpyDeviceToHost));
        QVERIFY2(kcache.guards_intact() && vcache.guards_intact(), "wrote past the cache");
        QVERIFY2(std::memcmp(kcache.ptr(), want_k.data(), bytes_of(want_k)) == 0, "K cache differs");
        QVERIFY2(std::memcmp(vcache.ptr(), want_v.data(), bytes_of(want_v)) == 0, "V cache differs");
    }

    // The f16 form of kvWrite: caches of u16 with guard halves after them, expected = ref::f32_to_f16 of the source.
    void kvWriteF16(const std::vector<float>& k, const std::vector<float>& v, std::int64_t ldk, std::int64_t ldv,
                    const std::vector<std::int32_t>& pos, const std::vector<std::int32_t>& seq,
                    const std::vector<std::int32_t>& tables, int pages_per_seq, int n_head_kv, int head_dim,
                    int v_head_dim, int page_size, int pad, std::size_t kc_n, std::size_t vc_n) {
        constexpr std::size_t kGuard = 64;
        constexpr std::uint16_t kPattern = 0x7e5a;  // a NaN payload the conversion never produces here
        const int kw = n_head_kv * head_dim, vw = n_head_kv * v_head_dim, n_tokens = int(pos.size());
        std::vector<std::uint16_t> kcache(kc_n + kGuard, kPattern), vcache(vc_n + kGuard, kPattern);
        std::vector<std::uint16_t> want_k = kcache, want_v = vcache;
        for (int t = 0; t < n_tokens; ++t) {
            const int ps = pos[std::size_t(t)], sq = seq[std::size_t(t)];
            if (ps < 0) continue;
            const int page = tables[std::size_t(sq * pages_per_seq + ps / page_size)];
            if (page < 0) continue;
            const std::size_t at = std::size_t(page) * page_size + std::size_t(ps % page_size);
            for (int c = 0; c < kw; ++c)
                want_k[at * std::size_t(kw) + std::size_t(c)] = ft::kernels::ref::f32_to_f16(k[std::size_t(t * ldk + c)]);
            for (int c = 0; c < vw; ++c)
                want_v[at * std::size_t(vw) + std::size_t(c)] = ft::kernels::ref::f32_to_f16(v[std::size_t(t * ldv + c)]);
        }
        Dev dk(bytes_of(k)), dv(bytes_of(v)), dpos(bytes_of(pos)), dseq(bytes_of(seq)), dtab(bytes_of(tables)),
            dkc(bytes_of(kcache)), dvc(bytes_of(vcache));
        QVERIFY(dk.p && dv.p && dpos.p && dseq.p && dtab.p && dkc.p && dvc.p);
        CHECK_CUDA(cudaMemcpy(dk.p, k.data(), bytes_of(k), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dv.p, v.data(), bytes_of(v), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dpos.p, pos.data(), bytes_of(pos), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dseq.p, seq.data(), bytes_of(seq), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dtab.p, tables.data(), bytes_of(tables), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dkc.p, kcache.data(), bytes_of(kcache), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dvc.p, vcache.data(), bytes_of(vcache), cudaMemcpyHostToDevice));
        kc::KvWriteParams p;
        p.n_head_kv = n_head_kv, p.head_dim = head_dim, p.v_head_dim = v_head_dim, p.page_size = page_size;
        p.page_tables = dtab.as<std::int32_t>(), p.pages_stride = pages_per_seq;
        p.type = ft::kernels::DType::F16;
        CHECK_CUDA(kc::kv_write(p, dk.as<float>(), pad ? ldk : 0, dv.as<float>(), pad ? ldv : 0,
                                dpos.as<std::int32_t>(), dseq.as<std::int32_t>(), n_tokens, dkc.p, dvc.p, nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemcpy(kcache.data(), dkc.p, bytes_of(kcache), cudaMemcpyDeviceToHost));
        CHECK_CUDA(cudaMemcpy(vcache.data(), dvc.p, bytes_of(vcache), cudaMemcpyDeviceToHost));
        QVERIFY2(std::equal(kcache.begin() + std::ptrdiff_t(kc_n), kcache.end(), want_k.begin() + std::ptrdiff_t(kc_n)) &&
                     std::equal(vcache.begin() + std::ptrdiff_t(vc_n), vcache.end(), want_v.begin() + std::ptrdiff_t(vc_n)),
                 "wrote past the cache");
        for (std::size_t i = 0; i < kc_n; ++i)
            if (kcache[i] != want_k[i])
                QFAIL(qPrintable(QString("K cache differs at %1: 0x%2, want 0x%3")
                                     .arg(i).arg(kcache[i], 4, 16, QChar('0')).arg(want_k[i], 4, 16, QChar('0'))));
        for (std::size_t i = 0; i < vc_n; ++i)
            if (vcache[i] != want_v[i])
                QFAIL(qPrintable(QString("V cache differs at %1: 0x%2, want 0x%3")
                                     .arg(i).arg(vcache[i], 4, 16, QChar('0')).arg(want_v[i], 4, 16, QChar('0'))));
    }

    void argmaxRows_data() {
        QTest::addColumn<int>("n_rows");
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("offset");  // floats from an aligned base: 1 forces the scalar path
        QTest::addRow("1 x 1") << 1 << 1 << 0;
        QTest::addRow("3 x 7") << 3 << 7 << 0;
        QTest::addRow("1 x 151936 (qwen vocab)") << 1 << 151936 << 0;
        QTest::addRow("4 x 151936, unaligned") << 4 << 151936 << 1;
        QTest::addRow("5 x 151937 (odd)") << 5 << 151937 << 0;
        QTest::addRow("9 x 1000") << 9 << 1000 << 0;
    }
    void argmaxRows() {
        QFETCH(int, n_rows);
        QFETCH(int, n);
        QFETCH(int, offset);
        auto x =
            ft::test::random_floats(std::size_t(n_rows) * n + std::size_t(offset), 13 + std::uint32_t(n), -20.f, 20.f);
        float* rows = x.data() + offset;
        const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
        std::mt19937 rng(static_cast<std::uint32_t>(n));
        for (int r = 0; r < n_rows; ++r) {
            float* row = rows + std::size_t(r) * n;
            switch (r % 5) {
                case 0:  // the maximum twice: the lower index wins; a NaN before both
                    if (n >= 3) {
                        const int a = int(rng() % std::uint32_t(n / 2)) + 1,
                                  b = a + 1 + int(rng() % std::uint32_t(n - a - 1));
                        row[a] = row[b] = 25.f;
                        row[0] = nan;
                    }
                    break;
                case 1:  // NaNs everywhere around a clear maximum, and one at the very end
                    for (int i = 0; i < n; i += 3) row[i] = nan;
                    row[n - 1] = nan;
                    if (n > 4) row[n / 2 + 1] = 30.f;
                    break;
                case 2:  // all equal: index 0
                    std::fill_n(row, n, -inf);
                    break;
                case 3:  // all NaN but one
                    std::fill_n(row, n, nan);
                    row[n - 1] = -5.f;
                    break;
                default:  // ties at the very end of the row
                    row[n - 1] = 40.f;
                    if (n > 1) row[n - 2] = 40.f;
                    break;
            }
        }
        std::vector<std::int32_t> want(static_cast<std::size_t>(n_rows));
        for (int r = 0; r < n_rows; ++r) {
            const float* row = rows + std::size_t(r) * n;
            int best = -1;
            for (int i = 0; i < n; ++i)
                if (!std::isnan(row[i]) && (best < 0 || row[i] > row[best])) best = i;
            want[std::size_t(r)] = best < 0 ? 0 : best;
        }
        GuardedInts got(want.size());
        Dev dx(bytes_of(x)), dout(got.data.size() * 4);
        QVERIFY(dx.p && dout.p);
        CHECK_CUDA(cudaMemcpy(dx.p, x.data(), bytes_of(x), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dout.p, got.data.data(), got.data.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(kc::argmax_rows(dx.as<float>() + offset, n_rows, n, dout.as<std::int32_t>(), nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemcpy(got.data.data(), dout.p, got.data.size() * 4, cudaMemcpyDeviceToHost));
        QVERIFY2(got.guards_intact(), "wrote past the output");
        for (int r = 0; r < n_rows; ++r)
            QVERIFY2(got.data[std::size_t(r)] == want[std::size_t(r)],
                     ("row " + std::to_string(r) + ": " + std::to_string(got.data[std::size_t(r)]) + ", want " +
                      std::to_string(want[std::size_t(r)]))
                         .c_str());
    }

    // Gated attention: [q | gate] per head split into [queries | gates], the output times sigmoid(gate), and the
    // shared expert's per-row gate — against host loops, rows with strides.
    void gatedAttentionOps() {
        auto put = [](const Dev& d, const std::vector<float>& v) {
            return cudaMemcpy(d.p, v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice);
        };
        auto get = [](std::vector<float>& v, const Dev& d) {
            return cudaMemcpy(v.data(), d.p, v.size() * sizeof(float), cudaMemcpyDeviceToHost);
        };
        const int T = 3, H = 4, D = 32;
        const std::int64_t ld = 2 * H * D + 16;
        const auto x = ft::test::random_floats(std::size_t(T * ld), 401, -4.f, 4.f);
        Dev d_x(bytes_of(x));
        CHECK_CUDA(put(d_x, x));
        CHECK_CUDA(kc::split_head_halves(d_x.as<float>(), ld, T, H, D, nullptr));
        std::vector<float> split(x.size());
        CHECK_CUDA(get(split, d_x));
        for (int t = 0; t < T; ++t) {
            for (int h = 0; h < H; ++h)
                for (int c = 0; c < D; ++c) {
                    QCOMPARE(split[std::size_t(t * ld + h * D + c)], x[std::size_t(t * ld + h * 2 * D + c)]);
                    QCOMPARE(split[std::size_t(t * ld + H * D + h * D + c)], x[std::size_t(t * ld + h * 2 * D + D + c)]);
                }
            for (std::int64_t c = 2 * H * D; c < ld; ++c) QCOMPARE(split[std::size_t(t * ld + c)], x[std::size_t(t * ld + c)]);
        }
        const std::int64_t n = H * D, ldy = n + 5;
        const auto y = ft::test::random_floats(std::size_t(T * ldy), 402, -2.f, 2.f);
        Dev d_y(bytes_of(y));
        CHECK_CUDA(put(d_y, y));
        CHECK_CUDA(kc::mul_sigmoid_f32(d_y.as<float>(), ldy, d_x.as<float>() + n, ld, T, n, nullptr));
        std::vector<float> got(y.size());
        CHECK_CUDA(get(got, d_y));
        double worst = 0;
        for (int t = 0; t < T; ++t) {
            for (std::int64_t c = 0; c < n; ++c) {
                const double want = y[std::size_t(t * ldy + c)] / (1.0 + std::exp(-double(split[std::size_t(t * ld + n + c)])));
                worst = std::max(worst, std::fabs(got[std::size_t(t * ldy + c)] - want));
            }
            for (std::int64_t c = n; c < ldy; ++c) QCOMPARE(got[std::size_t(t * ldy + c)], y[std::size_t(t * ldy + c)]);
        }
        QVERIFY2(worst < 1e-6, qPrintable(QString::number(worst)));
        const std::vector<float> logit = {-30.f, 0.f, 2.f};
        Dev d_l(bytes_of(logit));
        CHECK_CUDA(put(d_l, logit));
        CHECK_CUDA(put(d_y, y));
        CHECK_CUDA(kc::scale_rows_sigmoid_f32(d_y.as<float>(), ldy, n, d_l.as<float>(), T, nullptr));
        CHECK_CUDA(get(got, d_y));
        worst = 0;
        for (int t = 0; t < T; ++t)
            for (std::int64_t c = 0; c < ldy; ++c) {
                const double s = c < n ? 1.0 / (1.0 + std::exp(-double(logit[std::size_t(t)]))) : 1.0;
                worst = std::max(worst, std::fabs(got[std::size_t(t * ldy + c)] - y[std::size_t(t * ldy + c)] * s));
            }
        QVERIFY2(worst < 1e-6, qPrintable(QString::number(worst)));
        QCOMPARE(kc::split_head_halves(d_x.as<float>(), ld, T, 64, 256, nullptr), cudaErrorInvalidValue);  // over 96 KiB
        // A row past the default 48 KiB of shared memory (Qwen3.5-397B-A17B: 32 heads of 256): the kernel opts in.
        {
            const int H2 = 32, D2 = 256;
            const std::int64_t ld2 = 2 * H2 * D2;
            const auto x2 = ft::test::random_floats(std::size_t(2 * ld2), 403, -1.f, 1.f);
            Dev d2(bytes_of(x2));
            CHECK_CUDA(put(d2, x2));
            CHECK_CUDA(kc::split_head_halves(d2.as<float>(), ld2, 2, H2, D2, nullptr));
            std::vector<float> s2(x2.size());
            CHECK_CUDA(get(s2, d2));
            for (int t = 0; t < 2; ++t)
                for (int h = 0; h < H2; h += 7)
                    for (int c = 0; c < D2; c += 31) {
                        QCOMPARE(s2[std::size_t(t * ld2 + h * D2 + c)], x2[std::size_t(t * ld2 + h * 2 * D2 + c)]);
                        QCOMPARE(s2[std::size_t(t * ld2 + H2 * D2 + h * D2 + c)], x2[std::size_t(t * ld2 + h * 2 * D2 + D2 + c)]);
                    }
        }
    }

    void rejectsWhatItCannotDo() {
        float* f = nullptr;
        std::int32_t* i = nullptr;
        QCOMPARE(kc::embed_rows(DType::MXFP4, f, 17, 32, i, 1, f, nullptr), cudaErrorInvalidValue);  // unsupported
        QCOMPARE(kc::embed_rows(DType::Q4_K, f, 144, 100, i, 1, f, nullptr),
                 cudaErrorInvalidValue);                                                            // not whole blocks
        QCOMPARE(kc::embed_rows(DType::Q8_0, f, 33, 32, i, 1, f, nullptr), cudaErrorInvalidValue);  // row too short
        RopeParams rp;
        rp.head_dim = 64, rp.n_rot = 65;
        QCOMPARE(kc::rope_f32(rp, f, 1, 1, 0, i, nullptr), cudaErrorInvalidValue);
        rp.n_rot = 64, rp.ext_factor = 1.f;  // YaRN without orig_ctx
        QCOMPARE(kc::rope_f32(rp, f, 1, 1, 0, i, nullptr), cudaErrorInvalidValue);
        rp.ext_factor = 0.f;
        QCOMPARE(kc::rope_f32(rp, f, 1, 2, 100, i, nullptr), cudaErrorInvalidValue);  // ld < n_heads*head_dim
        RouterParams p;
        p.n_expert = 2048, p.k = 8;
        QCOMPARE(kc::moe_route(p, f, 1, i, f, nullptr), cudaErrorInvalidValue);
        p.n_expert = 128, p.k = 33;
        QCOMPARE(kc::moe_route(p, f, 1, i, f, nullptr), cudaErrorInvalidValue);
        p.k = 8, p.gating = RouterGating::sigmoid, p.n_group = 3, p.topk_group = 1;  // 128 % 3 != 0
        QCOMPARE(kc::moe_route(p, f, 1, i, f, nullptr), cudaErrorInvalidValue);
        QCOMPARE(kc::moe_group(i, 8, 5000, i, i, i, nullptr), cudaErrorInvalidValue);
        QCOMPARE(kc::gather_rows(f, 8, i, 0, 8, f, nullptr), cudaErrorInvalidValue);
        kc::KvWriteParams kv;
        QCOMPARE(kc::kv_write(kv, f, 0, f, 0, i, i, 1, f, f, nullptr), cudaErrorInvalidValue);
        kv.n_head_kv = 1, kv.head_dim = 4, kv.v_head_dim = 4, kv.page_size = 16, kv.pages_stride = 1, kv.page_tables = i;
        kv.type = ft::kernels::DType::BF16;  // caches are F32 or F16
        QCOMPARE(kc::kv_write(kv, f, 0, f, 0, i, i, 1, f, f, nullptr), cudaErrorInvalidValue);
        QCOMPARE(kc::argmax_rows(f, 1, 0, i, nullptr), cudaErrorInvalidValue);
        // Empty work is fine and launches nothing.
        QCOMPARE(kc::add_f32(f, f, 0, nullptr), cudaSuccess);
        QCOMPARE(kc::argmax_rows(f, 0, 10, i, nullptr), cudaSuccess);
        QCOMPARE(cudaGetLastError(), cudaSuccess);
    }

    void perfOps() {
        if (!perf_mode()) QSKIP("perf mode off (FT_TEST_PERF=1 runs it)");
        const std::int64_t big = 8192;
        // Router: Qwen3-30B (128/8 softmax) and DeepSeek-V3 (256/8 sigmoid, groups), 1 and 8192 tokens.
        for (int which : {0, 2}) {
            const RouteCase& rc = kRouteCases[which];
            const auto logits = ft::test::random_floats(std::size_t(big) * rc.n_expert, 5, -4.f, 4.f);
            const auto bias = ft::test::random_floats(std::size_t(rc.n_expert), 6, -0.3f, 0.3f);
            Dev dl(bytes_of(logits)), db(bytes_of(bias)), di(std::size_t(big) * rc.k * 4),
                dw(std::size_t(big) * rc.k * 4);
            QVERIFY(dl.p && db.p && di.p && dw.p);
            CHECK_CUDA(cudaMemcpy(dl.p, logits.data(), bytes_of(logits), cudaMemcpyHostToDevice));
            CHECK_CUDA(cudaMemcpy(db.p, bias.data(), bytes_of(bias), cudaMemcpyHostToDevice));
            RouterParams p;
            p.n_expert = rc.n_expert, p.k = rc.k, p.gating = rc.gating, p.norm_topk = rc.norm_topk, p.scale = rc.scale;
            p.n_group = rc.n_group, p.topk_group = rc.topk_group, p.bias = rc.bias ? db.as<float>() : nullptr;
            for (std::int64_t n_tok : {std::int64_t(1), big}) {
                const double us = time_us(
                    [&] { kc::moe_route(p, dl.as<float>(), n_tok, di.as<std::int32_t>(), dw.as<float>(), nullptr); });
                CHECK_CUDA(cudaGetLastError());
                qInfo("PERF moe_route %s, %lld tokens: %.1f us", rc.name, (long long)n_tok, us);
            }
        }
        // Grouping 8192 x 8 pairs.
        for (int n_expert : {128, 256}) {
            const auto ids = router_like_ids(big, 8, n_expert, 3);
            Dev di(bytes_of(ids)), doff(std::size_t(n_expert + 1) * 4), dord(bytes_of(ids)), dwh(bytes_of(ids));
            QVERIFY(di.p && doff.p && dord.p && dwh.p);
            CHECK_CUDA(cudaMemcpy(di.p, ids.data(), bytes_of(ids), cudaMemcpyHostToDevice));
            const double us = time_us([&] {
                kc::moe_group(di.as<std::int32_t>(), std::int64_t(ids.size()), n_expert, doff.as<std::int32_t>(),
                              dord.as<std::int32_t>(), dwh.as<std::int32_t>(), nullptr);
            });
            CHECK_CUDA(cudaGetLastError());
            qInfo("PERF moe_group 8192x8 pairs, %d experts: %.1f us", n_expert, us);
        }
        // Embedding: Qwen3-30B table (151936 x 2048), 1 and 8192 tokens.
        for (DType t : {DType::BF16, DType::Q4_K, DType::Q6_K}) {
            const std::int64_t n_rows = 151936, cols = 2048;
            const std::size_t rb = *ft::kernels::dtype_bytes(t, cols);
            const Table w1 = make_table(t, 64, cols, 9);
            std::vector<std::uint8_t> table(rb * std::size_t(n_rows));
            for (std::size_t off = 0; off < table.size(); off += w1.bytes.size())
                std::memcpy(table.data() + off, w1.bytes.data(), std::min(w1.bytes.size(), table.size() - off));
            const auto ids = shuffled_ids(std::size_t(big), std::int32_t(n_rows), 4);
            Dev dt(table.size()), di(bytes_of(ids)), dy(std::size_t(big * cols) * 4);
            QVERIFY(dt.p && di.p && dy.p);
            CHECK_CUDA(cudaMemcpy(dt.p, table.data(), table.size(), cudaMemcpyHostToDevice));
            CHECK_CUDA(cudaMemcpy(di.p, ids.data(), bytes_of(ids), cudaMemcpyHostToDevice));
            for (std::int64_t n_tok : {std::int64_t(1), big}) {
                const double us = time_us(
                    [&] { kc::embed_rows(t, dt.p, rb, cols, di.as<std::int32_t>(), n_tok, dy.as<float>(), nullptr); });
                CHECK_CUDA(cudaGetLastError());
                qInfo("PERF embed_rows %s x %lld, %lld tokens: %.1f us (%.0f GB/s written)",
                      ft::kernels::dtype_info(t).name.data(), (long long)cols, (long long)n_tok, us,
                      double(n_tok * cols * 4) / (us * 1e-6) / 1e9);
            }
        }
        // Greedy sampling over the Qwen vocabulary.
        {
            const std::int64_t n = 151936;
            const auto x = ft::test::random_floats(std::size_t(4 * n), 8);
            Dev dx(bytes_of(x)), dout(16);
            QVERIFY(dx.p && dout.p);
            CHECK_CUDA(cudaMemcpy(dx.p, x.data(), bytes_of(x), cudaMemcpyHostToDevice));
            for (std::int64_t rows : {std::int64_t(1), std::int64_t(4)}) {
                const double us =
                    time_us([&] { kc::argmax_rows(dx.as<float>(), rows, n, dout.as<std::int32_t>(), nullptr); });
                CHECK_CUDA(cudaGetLastError());
                qInfo("PERF argmax_rows %lld x %lld: %.1f us", (long long)rows, (long long)n, us);
            }
        }
    }
#else
    void builtWithoutCuda() { QSKIP("built without CUDA"); }
#endif
};

FT_GPU_TEST_MAIN(TestOps)
#include "test_ops.moc"
