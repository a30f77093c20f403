// CUDA grouped expert GEMMs of prefill (moe_gemm_gate_up, moe_gemm_down, moe_gather_bf16) against a double-precision
// reference on the same BF16-rounded operands, per weight type, shape and routing: experts with no rows, one row,
// exactly one 64-row tile, several tiles with a partial last one; weight rows not a multiple of the 64-row tile;
// slot strides padded as the expert cache's banks; biases and gpt-oss's clamped SwiGLU; rows of x past the experts'
// ranges (never read: they hold NaN) and output rows outside them (must keep the guard pattern). Every in-range
// output element must be written. FT_TEST_PERF=1: perfQwen3Shape times both on the Qwen3-30B-A3B layer shape (128
// experts, 2048 → 768 → 2048, top-8) at 512 and 8192 tokens, Q4_K, and prints TFLOP/s and GB/s of weights.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "ft_test.h"
#include "kernel_check.h"
#include "quant_weights.h"
#include "ref/quant.h"

#ifdef FT_HAVE_CUDA
#include <cuda_runtime.h>

#include "cuda_test.h"

#include "cuda/moe_gemm.cuh"

using ft::kernels::DType;
namespace kc = ft::kernels::cuda;
namespace kr = ft::kernels::ref;

namespace {

using ft::test::Dev;

const char* tname(DType t) { return ft::kernels::dtype_info(t).name.data(); }

float bf16r(float f) { return kr::bf16_to_f32(kr::f32_to_bf16(f)); }

double swiglu_ref(double g, double u, double limit) {
    if (limit > 0) {
        const double gx = std::min(limit, g), ux = std::clamp(u, -limit, limit);
        return gx / (1.0 + std::exp(-1.702 * gx)) * (ux + 1.0);
    }
    return g / (1.0 + std::exp(-g)) * u;
}

bool perf_mode() {
    const char* v = std::getenv("FT_TEST_PERF");
    return v && *v == '1';
}

// n_expert experts' [rows, k] matrices of type t, expert e at e · stride bytes; deq = their BF16-rounded values.
struct ExpertBank {
    std::vector<std::uint8_t> bytes;
    std::vector<float> deq;  // [n_expert][rows][k]
    std::size_t row_bytes = 0, stride = 0;
};

ExpertBank make_bank(DType t, int n_expert, std::int64_t rows, std::int64_t k, std::uint32_t seed, bool pad_stride) {
    const ft::test::Weights w = ft::test::make(t, rows * n_expert, k, seed);
    ExpertBank b;
    b.row_bytes = w.row_bytes;
    const std::size_t m = w.row_bytes * std::size_t(rows);
    b.stride = pad_stride ? (m + 255) / 256 * 256 + 256 : m;
    b.bytes.assign(b.stride * std::size_t(n_expert), 0xA5);
    for (int e = 0; e < n_expert; ++e) std::memcpy(b.bytes.data() + std::size_t(e) * b.stride, w.bytes.data() + std::size_t(e) * m, m);
    b.deq.resize(w.deq.size());
    for (std::size_t i = 0; i < w.deq.size(); ++i) b.deq[i] = bf16r(w.deq[i]);
    return b;
}

// Rows per expert for a case: a pattern that covers the tile edges, then random counts.
std::vector<int> expert_counts(int n_expert, int pattern, std::uint32_t seed) {
    std::vector<int> c(std::size_t(n_expert), 0);
    ft::test::Rng g(seed);
    const int edge[] = {0, 1, 63, 64, 65, 130, 0, 7, 128, 3};
    for (int e = 0; e < n_expert; ++e) {
        if (pattern == 0) c[std::size_t(e)] = edge[e % 10];
        else if (pattern == 1) c[std::size_t(e)] = g.range(0, 40);
        else c[std::size_t(e)] = e == n_expert / 2 ? 300 : 0;  // everything on one expert
    }
    return c;
}

}  // namespace
#endif

class TestMoeGemm : public QObject {
    Q_OBJECT
private slots:
#ifdef FT_HAVE_CUDA
    void matchesReference_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("n_expert");
        QTest::addColumn<int>("F");        // expert width (gate/up rows, down k)
        QTest::addColumn<int>("E");        // model width (gate/up k, down rows)
        QTest::addColumn<int>("pattern");  // expert_counts pattern
        QTest::addColumn<bool>("bias");
        QTest::addColumn<float>("limit");
        QTest::addColumn<bool>("pad");     // slot strides padded like the cache's banks
        const DType all[] = {DType::F32,     DType::F16,    DType::BF16,    DType::Q8_0,   DType::Q4_K,
                             DType::Q5_K,    DType::Q6_K,   DType::MXFP4,   DType::Q4_0,   DType::Q4_1,
                             DType::Q5_0,    DType::Q5_1,   DType::IQ4_NL,  DType::IQ4_XS, DType::Q2_K,
                             DType::Q3_K,    DType::TQ1_0,  DType::TQ2_0,   DType::IQ2_XXS, DType::IQ2_XS,
                             DType::IQ2_S,   DType::IQ3_XXS, DType::IQ3_S,  DType::IQ1_S,  DType::IQ1_M};
        for (DType t : all) {
            QTest::addRow("%s 10x(256,512) edges", tname(t)) << int(t) << 10 << 256 << 512 << 0 << false << 0.f << false;
            // 96 rows: a partial 64-row tile. The K-quants' super-blocks make every width a multiple of 256.
            const int f = ft::kernels::dtype_info(t).block_elems == 256 ? 256 : 96;
            QTest::addRow("%s 12x(%d,256) random pad", tname(t), f) << int(t) << 12 << f << 256 << 1 << false << 0.f << true;
            QTest::addRow("%s 5x(768,256) one expert", tname(t)) << int(t) << 5 << 768 << 256 << 2 << false << 0.f << false;
        }
        // gpt-oss's widths (2880 = 90 MXFP4 blocks) with biases and the clamped SwiGLU; 100 weight rows (a partial
        // 64-row tile; down, K = 100, is refused: not a multiple of the 32-wide K tile); the 48-expert case puts
        // experts past the first 32 of the tile search.
        QTest::addRow("mxfp4 4x(2880,2880) bias limit") << int(DType::MXFP4) << 4 << 2880 << 2880 << 1 << true << 7.f << false;
        QTest::addRow("bf16 6x(100,320) bias") << int(DType::BF16) << 6 << 100 << 320 << 0 << true << 0.f << true;
        QTest::addRow("q4_k 48x(256,256) random") << int(DType::Q4_K) << 48 << 256 << 256 << 1 << false << 0.f << true;
        QTest::addRow("q8_0 40x(160,96) edges bias") << int(DType::Q8_0) << 40 << 160 << 96 << 0 << true << 0.f << false;
    }
    void matchesReference() {
        QFETCH(int, type);
        QFETCH(int, n_expert);
        QFETCH(int, F);
        QFETCH(int, E);
        QFETCH(int, pattern);
        QFETCH(bool, bias);
        QFETCH(float, limit);
        QFETCH(bool, pad);
        const DType t = DType(type);
        const ExpertBank gate = make_bank(t, n_expert, F, E, 11u + std::uint32_t(type) * 7 + std::uint32_t(F), pad);
        const ExpertBank up = make_bank(t, n_expert, F, E, 23u + std::uint32_t(type) * 5 + std::uint32_t(E), pad);
        const ExpertBank down = make_bank(t, n_expert, E, F, 37u + std::uint32_t(type) * 3 + std::uint32_t(n_expert), pad);
        const std::vector<int> cnt = expert_counts(n_expert, pattern, 5u + std::uint32_t(n_expert));
        std::vector<std::int32_t> off(std::size_t(n_expert) + 1, 0);
        for (int e = 0; e < n_expert; ++e) off[std::size_t(e) + 1] = off[std::size_t(e)] + cnt[std::size_t(e)];
        const int used = off.back(), P = used + 5;  // 5 rows past the experts' ranges
        QVERIFY(used > 0);

        // x: BF16 rows; the rows past the ranges are NaN (a kernel that read them would poison its outputs).
        const auto xf = ft::test::random_floats(std::size_t(P) * std::size_t(E), 77u + std::uint32_t(P), -1.5f, 1.5f);
        std::vector<std::uint16_t> xb(xf.size());
        for (std::size_t i = 0; i < xf.size(); ++i) xb[i] = kr::f32_to_bf16(xf[i]);
        for (std::size_t i = std::size_t(used) * std::size_t(E); i < xb.size(); ++i) xb[i] = 0x7FC1;
        std::vector<float> bg, bu, bd;
        if (bias) {
            bg = ft::test::random_floats(std::size_t(n_expert * F), 3, -0.5f, 0.5f);
            bu = ft::test::random_floats(std::size_t(n_expert * F), 4, -0.5f, 0.5f);
            bd = ft::test::random_floats(std::size_t(n_expert * E), 5, -0.5f, 0.5f);
        }

        // Reference: h = swiglu(gate·x + bg, up·x + bu) in double, rounded to BF16 (the kernel's output type), then
        // y = down·h + bd.
        std::vector<double> h_ref(std::size_t(used) * std::size_t(F)), h_mag(h_ref.size());
        std::vector<float> h_b(h_ref.size());
        for (int e = 0; e < n_expert; ++e)
            for (int r = off[std::size_t(e)]; r < off[std::size_t(e) + 1]; ++r)
                for (int m = 0; m < F; ++m) {
                    double sg = 0, su = 0, ag = 0, au = 0;
                    const float* wg = gate.deq.data() + (std::size_t(e) * F + m) * std::size_t(E);
                    const float* wu = up.deq.data() + (std::size_t(e) * F + m) * std::size_t(E);
                    for (int i = 0; i < E; ++i) {
                        const double xv = kr::bf16_to_f32(xb[std::size_t(r) * E + i]);
                        sg += double(wg[i]) * xv;
                        su += double(wu[i]) * xv;
                        ag += std::fabs(double(wg[i]) * xv);
                        au += std::fabs(double(wu[i]) * xv);
                    }
                    if (bias) {
                        sg += bg[std::size_t(e * F + m)];
                        su += bu[std::size_t(e * F + m)];
                    }
                    const std::size_t at = std::size_t(r) * F + m;
                    h_ref[at] = swiglu_ref(sg, su, limit);
                    // f32 accumulation error of both products, carried through the activation (|d/dg|, |d/du| ≲ 1.2·max(|g|,|u|,1)).
                    h_mag[at] = (ag + au) * 1.2 * std::max({std::fabs(sg), std::fabs(su), 1.0});
                    h_b[at] = bf16r(float(h_ref[at]));
                }

        Dev dg(gate.bytes.size()), du(up.bytes.size()), dd(down.bytes.size()), dx(xb.size() * 2), doff(off.size() * 4);
        Dev dbg(bg.size() * 4), dbu(bu.size() * 4), dbd(bd.size() * 4);
        const std::size_t h_n = std::size_t(P) * std::size_t(F), y_n = std::size_t(P) * std::size_t(E);
        Dev dh(h_n * 2 + 256), dy((y_n + ft::test::GuardedOutput::kGuard) * 4);
        QVERIFY(dg.p && du.p && dd.p && dx.p && doff.p && dh.p && dy.p);
        CHECK_CUDA(cudaMemcpy(dg.p, gate.bytes.data(), gate.bytes.size(), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(du.p, up.bytes.data(), up.bytes.size(), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dd.p, down.bytes.data(), down.bytes.size(), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dx.p, xb.data(), xb.size() * 2, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(doff.p, off.data(), off.size() * 4, cudaMemcpyHostToDevice));
        if (bias) {
            CHECK_CUDA(cudaMemcpy(dbg.p, bg.data(), bg.size() * 4, cudaMemcpyHostToDevice));
            CHECK_CUDA(cudaMemcpy(dbu.p, bu.data(), bu.size() * 4, cudaMemcpyHostToDevice));
            CHECK_CUDA(cudaMemcpy(dbd.p, bd.data(), bd.size() * 4, cudaMemcpyHostToDevice));
        }
        CHECK_CUDA(cudaMemset(dh.p, 0xFF, h_n * 2 + 256));  // 0xFFFF: a NaN pattern in BF16

        kc::MoeGemmParams p;
        p.w = {t, dg.p, gate.stride, gate.row_bytes, F, E};
        p.up = {t, du.p, up.stride, up.row_bytes, F, E};
        p.offsets = doff.as<std::int32_t>();
        p.n_expert = n_expert;
        p.n_rows = P;
        p.x = dx.p;
        p.y = dh.p;
        p.bias = bias ? dbg.as<float>() : nullptr;
        p.up_bias = bias ? dbu.as<float>() : nullptr;
        p.swiglu_limit = limit;
        CHECK_CUDA(kc::moe_gemm_gate_up(p, nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        std::vector<std::uint16_t> h_got(h_n + 128);
        CHECK_CUDA(cudaMemcpy(h_got.data(), dh.p, h_got.size() * 2, cudaMemcpyDeviceToHost));
        for (std::size_t i = std::size_t(used) * F; i < h_got.size(); ++i)
            QVERIFY2(h_got[i] == 0xFFFF, qPrintable(QString("gate_up wrote outside the experts' rows at %1").arg(i)));
        double worst = 0;
        for (std::size_t i = 0; i < h_ref.size(); ++i) {
            const float g = kr::bf16_to_f32(h_got[i]);
            QVERIFY2(h_got[i] != 0xFFFF, qPrintable(QString("h[%1] not written").arg(i)));
            const double err = std::fabs(double(g) - h_ref[i]);
            const double tol = std::fabs(h_ref[i]) * (1.0 / 128) + h_mag[i] * 2e-6 + 1e-6;
            worst = std::max(worst, err / tol);
        }
        QVERIFY2(worst <= 1.0, qPrintable(QString("gate_up: error %1 × the tolerance").arg(worst)));

        // down on the kernel's own h (so its reference shares the BF16 rounding of h).
        std::vector<float> h_dev(h_ref.size());
        for (std::size_t i = 0; i < h_dev.size(); ++i) h_dev[i] = kr::bf16_to_f32(h_got[i]);
        ft::test::GuardedOutput y(y_n);
        CHECK_CUDA(cudaMemcpy(dy.p, y.ptr(), y.data.size() * 4, cudaMemcpyHostToDevice));
        kc::MoeGemmParams q;
        q.w = {t, dd.p, down.stride, down.row_bytes, E, F};
        q.offsets = doff.as<std::int32_t>();
        q.n_expert = n_expert;
        q.n_rows = P;
        q.x = dh.p;
        q.y = dy.p;
        q.bias = bias ? dbd.as<float>() : nullptr;
        if (!kc::moe_gemm_supported(t, F)) {  // the prefill MoE then takes its per-expert path
            QCOMPARE(kc::moe_gemm_down(q, nullptr), cudaErrorInvalidValue);
            return;
        }
        // Rows past the experts' ranges of h hold the NaN pattern: a read of them would show in y.
        CHECK_CUDA(kc::moe_gemm_down(q, nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemcpy(y.ptr(), dy.p, y.data.size() * 4, cudaMemcpyDeviceToHost));
        QVERIFY2(y.guards_intact(), "down wrote past its output");
        worst = 0;
        for (int e = 0; e < n_expert; ++e)
            for (int r = off[std::size_t(e)]; r < off[std::size_t(e) + 1]; ++r)
                for (int m = 0; m < E; ++m) {
                    double s = 0, a = 0;
                    const float* wd = down.deq.data() + (std::size_t(e) * E + m) * std::size_t(F);
                    for (int i = 0; i < F; ++i) {
                        const double v = double(wd[i]) * double(h_dev[std::size_t(r) * F + i]);
                        s += v;
                        a += std::fabs(v);
                    }
                    if (bias) s += bd[std::size_t(e * E + m)];
                    const float g = y.data[std::size_t(r) * E + m];
                    QVERIFY2(std::isfinite(g), qPrintable(QString("y[%1, %2] = %3").arg(r).arg(m).arg(g)));
                    worst = std::max(worst, std::fabs(double(g) - s) / (a * 2e-6 + 1e-6));
                }
        QVERIFY2(worst <= 1.0, qPrintable(QString("down: error %1 × the tolerance").arg(worst)));
        for (std::size_t i = std::size_t(used) * E; i < y_n; ++i) {
            std::uint32_t u;
            std::memcpy(&u, &y.data[i], 4);
            QVERIFY2(u == ft::test::GuardedOutput::kPattern, "down wrote outside the experts' rows");
        }
    }

    void gatherConverts() {
        const int T = 37, K = 4, C = 264;
        const auto x = ft::test::random_floats(std::size_t(T * C), 9, -3.f, 3.f);
        std::vector<std::int32_t> order(std::size_t(T * K));
        std::iota(order.begin(), order.end(), 0);
        ft::test::Rng g(4);
        for (std::size_t i = order.size() - 1; i > 0; --i) std::swap(order[i], order[g.next() % (i + 1)]);
        order[5] = -1;
        Dev dx(x.size() * 4), dord(order.size() * 4), dout(order.size() * C * 2);
        CHECK_CUDA(cudaMemcpy(dx.p, x.data(), x.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dord.p, order.data(), order.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(kc::moe_gather_bf16(dx.as<float>(), C, dord.as<std::int32_t>(), K, std::int64_t(order.size()), dout.p, nullptr));
        std::vector<std::uint16_t> out(order.size() * C);
        CHECK_CUDA(cudaMemcpy(out.data(), dout.p, out.size() * 2, cudaMemcpyDeviceToHost));
        for (std::size_t i = 0; i < order.size(); ++i)
            for (int c = 0; c < C; ++c) {
                const std::uint16_t want = order[i] < 0 ? 0 : kr::f32_to_bf16(x[std::size_t(order[i] / K) * C + c]);
                QCOMPARE(out[i * C + c], want);
            }
        // Refused: columns not a multiple of 8.
        QCOMPARE(kc::moe_gather_bf16(dx.as<float>(), 12, dord.as<std::int32_t>(), K, 4, dout.p, nullptr), cudaErrorInvalidValue);
    }

    void refusesBadShapes() {
        Dev w(1 << 16), x(1 << 16), y(1 << 16), off(64);
        kc::MoeGemmParams p;
        p.w = {DType::Q4_K, w.p, 4096, 144, 16, 256};
        p.up = p.w;
        p.offsets = off.as<std::int32_t>();
        p.n_expert = 2;
        p.n_rows = 8;
        p.x = x.p;
        p.y = y.p;
        kc::MoeGemmParams bad = p;
        bad.w.k = 200;  // not whole blocks
        QCOMPARE(kc::moe_gemm_gate_up(bad, nullptr), cudaErrorInvalidValue);
        bad = p;
        bad.up.rows = 8;  // up shaped unlike gate
        QCOMPARE(kc::moe_gemm_gate_up(bad, nullptr), cudaErrorInvalidValue);
        bad = p;
        bad.w.row_bytes = 100;  // shorter than a row
        QCOMPARE(kc::moe_gemm_down(bad, nullptr), cudaErrorInvalidValue);
        bad = p;
        bad.x = static_cast<char*>(x.p) + 2;  // x not 16-byte aligned
        QCOMPARE(kc::moe_gemm_down(bad, nullptr), cudaErrorInvalidValue);
        bad = p;
        bad.w.type = DType::Q8_1;
        QCOMPARE(kc::moe_gemm_down(bad, nullptr), cudaErrorInvalidValue);
        QVERIFY(!kc::moe_gemm_supported(DType::F32, 48));
        QVERIFY(kc::moe_gemm_supported(DType::F32, 64));
    }

    void perfQwen3Shape() {
        if (!perf_mode()) QSKIP("FT_TEST_PERF=1 runs the timing");
        const int NE = 128, E = 2048, F = 768, K = 8;
        const DType t = DType::Q4_K;
        const ExpertBank gate = make_bank(t, NE, F, E, 1, false), up = make_bank(t, NE, F, E, 2, false),
                         down = make_bank(t, NE, E, F, 3, false);
        Dev dg(gate.bytes.size()), du(up.bytes.size()), dd(down.bytes.size());
        CHECK_CUDA(cudaMemcpy(dg.p, gate.bytes.data(), gate.bytes.size(), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(du.p, up.bytes.data(), up.bytes.size(), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dd.p, down.bytes.data(), down.bytes.size(), cudaMemcpyHostToDevice));
        for (int T : {512, 8192}) {
            const int P = T * K;
            // Uniform routing: each expert gets P / NE rows, give or take a random few.
            std::vector<std::int32_t> off(std::size_t(NE) + 1, 0);
            ft::test::Rng g{std::uint64_t(T)};
            std::vector<int> cnt(std::size_t(NE), P / NE);
            for (int i = 0; i < NE; ++i) {
                const int d = g.range(0, P / NE / 4);
                cnt[std::size_t(i)] -= d;
                cnt[std::size_t((i + 1) % NE)] += d;
            }
            for (int e = 0; e < NE; ++e) off[std::size_t(e) + 1] = off[std::size_t(e)] + cnt[std::size_t(e)];
            const auto xf = ft::test::random_floats(std::size_t(P) * E, 7, -1.f, 1.f);
            std::vector<std::uint16_t> xb(xf.size());
            for (std::size_t i = 0; i < xf.size(); ++i) xb[i] = kr::f32_to_bf16(xf[i]);
            Dev dx(xb.size() * 2), dh(std::size_t(P) * F * 2), dy(std::size_t(P) * E * 4), doff(off.size() * 4);
            CHECK_CUDA(cudaMemcpy(dx.p, xb.data(), xb.size() * 2, cudaMemcpyHostToDevice));
            CHECK_CUDA(cudaMemcpy(doff.p, off.data(), off.size() * 4, cudaMemcpyHostToDevice));
            kc::MoeGemmParams gu;
            gu.w = {t, dg.p, gate.stride, gate.row_bytes, F, E};
            gu.up = {t, du.p, up.stride, up.row_bytes, F, E};
            gu.offsets = doff.as<std::int32_t>();
            gu.n_expert = NE;
            gu.n_rows = P;
            gu.x = dx.p;
            gu.y = dh.p;
            kc::MoeGemmParams dn = gu;
            dn.w = {t, dd.p, down.stride, down.row_bytes, E, F};
            dn.up = {};
            dn.x = dh.p;
            dn.y = dy.p;
            cudaEvent_t e0, e1, e2;
            cudaEventCreate(&e0);
            cudaEventCreate(&e1);
            cudaEventCreate(&e2);
            CHECK_CUDA(kc::moe_gemm_gate_up(gu, nullptr));
            CHECK_CUDA(kc::moe_gemm_down(dn, nullptr));
            const int iters = T == 512 ? 20 : 5;
            float ms_gu = 0, ms_dn = 0;
            for (int i = 0; i < iters; ++i) {
                cudaEventRecord(e0);
                CHECK_CUDA(kc::moe_gemm_gate_up(gu, nullptr));
                cudaEventRecord(e1);
                CHECK_CUDA(kc::moe_gemm_down(dn, nullptr));
                cudaEventRecord(e2);
                CHECK_CUDA(cudaEventSynchronize(e2));
                float a = 0, b = 0;
                cudaEventElapsedTime(&a, e0, e1);
                cudaEventElapsedTime(&b, e1, e2);
                ms_gu += a;
                ms_dn += b;
            }
            ms_gu /= float(iters);
            ms_dn /= float(iters);
            const double fl_gu = 2.0 * 2 * double(P) * F * E, fl_dn = 2.0 * double(P) * F * E;
            const double wb_gu = double(gate.bytes.size() + up.bytes.size()), wb_dn = double(down.bytes.size());
            std::printf("moe_gemm Q4_K 128x(2048->768->2048) T=%d: gate_up %.3f ms (%.1f TFLOP/s, %.0f GB/s of weights), "
                        "down %.3f ms (%.1f TFLOP/s, %.0f GB/s)\n",
                        T, ms_gu, fl_gu / (ms_gu * 1e-3) / 1e12, wb_gu / (ms_gu * 1e-3) / 1e9, ms_dn,
                        fl_dn / (ms_dn * 1e-3) / 1e12, wb_dn / (ms_dn * 1e-3) / 1e9);
            cudaEventDestroy(e0);
            cudaEventDestroy(e1);
            cudaEventDestroy(e2);
        }
    }
#else
    void builtWithoutCuda() { QSKIP("built without CUDA"); }
#endif
};

FT_GPU_TEST_MAIN(TestMoeGemm)
#include "test_moe_gemm.moc"
