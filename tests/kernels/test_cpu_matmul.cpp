// CPU matvec/matmul/dequantize (Highway, in-register dequantization) against the scalar references, for every
// supported weight type, over a table of shapes, with guard values after every output. The decode matvec of
// Q4_0/Q4_1/Q5_0/Q5_1/Q2_K/Q3_K/Q4_K/Q5_K/Q6_K/Q8_0/IQ4_NL/IQ4_XS/MXFP4/TQ1_0/TQ2_0/FT_NVFP4 runs on every int8 dot-product
// path (AVX512-VNNI, AVX-VNNI) this CPU has and on the Highway fallback (forced with set_int8_dot_for_test), each
// against its own tolerance; the IQ1/IQ2/IQ3 types' int8 paths on random blocks and in the accuracy report (their
// quantizers are too slow for the big shapes).
#include <hwy/targets.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

#include "cpu/isa.h"
#include "cpu/matmul.h"
#include "cpu/matmul_int8.h"
#include "ft_test.h"
#include "kernel_check.h"
#include "ref/matmul.h"
#include "ref/quant.h"

using ft::kernels::DType;

namespace {
struct Weights {
    std::vector<std::uint8_t> bytes;
    std::vector<float> deq;  // what the reference dequantizes: the ground truth for the products
    std::size_t row_bytes = 0;
};
Weights make_weights(DType t, std::int64_t rows, std::int64_t k, std::uint32_t seed) {
    Weights w;
    w.row_bytes = *ft::kernels::dtype_bytes(t, std::uint64_t(k));
    w.bytes.resize(w.row_bytes * std::size_t(rows));
    w.deq.resize(std::size_t(rows * k));
    const auto src = ft::test::random_floats(std::size_t(rows * k), seed, -1.f, 1.f);
    for (std::int64_t r = 0; r < rows; ++r) {
        if (!ft::kernels::ref::quantize_row(t, src.data() + r * k, w.bytes.data() + std::size_t(r) * w.row_bytes, k)) {
            qFatal("reference cannot quantize %s", ft::kernels::dtype_info(t).name.data());
        }
        ft::kernels::ref::dequantize_row(t, w.bytes.data() + std::size_t(r) * w.row_bytes, w.deq.data() + r * k, k);
    }
    return w;
}
// Highway path: f32 accumulation vs a double reference; Q4_K and Q8_0 round x to int16 per 32 (~1e-9).
double tolerance(DType t) { return t == DType::Q4_K || t == DType::Q8_0 ? 1e-8 : 1e-10; }
// int8 path: x rounded to int8 per 32 (step amax/127; Q4_K on AVX512-VNNI: per 256): ≈ 1.5e-5 for uniform x over
// many rows, whatever the weight type. One row's error is one draw (its square about chi-square with one degree of
// freedom: TQ2_0's 1 × 768 row draws 11× the mean, a chance of about 1 in 1,000), so single rows get 12× the room
// (40× the mean: about 1e-9); what catches a wrong kernel is the check against the same int8-rounded x below
// (int8_exact_tolerance), not this bound.
constexpr double kInt8Tolerance = 5e-5;
double int8_tolerance(int rows) { return rows == 1 ? 12 * kInt8Tolerance : kInt8Tolerance; }
// The int8 path against a double product of the reference's weights and x as the path rounded it (Int8Activation's
// q · scale): only f32 accumulation differs. Not for Q4_K on AVX512-VNNI, which rounds x again per 256 (q256).
constexpr double kInt8ExactTolerance = 1e-10;
const DType kTypes[] = {DType::F32,  DType::F16,  DType::BF16, DType::Q8_0, DType::Q4_0,   DType::Q4_1,   DType::Q5_0,
                        DType::Q5_1, DType::Q2_K, DType::Q3_K, DType::Q4_K, DType::Q5_K, DType::Q6_K, DType::IQ4_NL,
                        DType::IQ4_XS, DType::MXFP4, DType::TQ1_0, DType::TQ2_0, DType::FT_NVFP4};
using ft::kernels::cpu::Int8Dot;

// Σ (got − want)² / Σ_r Σ_i (w_ri·x_i)²: the error relative to the size of the products, so a row whose dot
// product cancels to near zero (rows = 1) does not blow the ratio up as nmse would.
double product_scaled_error(const float* got, const float* want, const Weights& w, const std::vector<float>& x,
                            std::int64_t rows, std::int64_t k) {
    double num = 0, den = 0;
    for (std::int64_t r = 0; r < rows; ++r) {
        const double d = double(got[r]) - double(want[r]);
        num += d * d;
        for (std::int64_t i = 0; i < k; ++i) {
            const double p = double(w.deq[std::size_t(r * k + i)]) * double(x[std::size_t(i)]);
            den += p * p;
        }
    }
    return num / den;
}

// Restores the CPU's int8 path when a test that forced one ends, failed or not.
struct Int8DotScope {
    explicit Int8DotScope(Int8Dot p) { ft::kernels::cpu::set_int8_dot_for_test(p); }
    ~Int8DotScope() { ft::kernels::cpu::reset_int8_dot_for_test(); }
};
}  // namespace

class TestCpuMatmul : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        qInfo("CPU kernels dispatch to %s; int8 decode path: %s", ft::kernels::cpu::isa_selected().c_str(),
              ft::kernels::cpu::int8_dot_name(ft::kernels::cpu::int8_dot_selected()));
    }

    void matvecMatchesReference_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("k");
        QTest::addColumn<int>("path");
        const std::pair<int, int> big[] = {{1, 768}, {17, 768}, {768, 768}, {1, 2048}, {17, 2048}, {768, 2048},
                                           {1, 7168}, {17, 7168}};
        for (DType t : kTypes) {
            const char* name = ft::kernels::dtype_info(t).name.data();
            const int blk = int(ft::kernels::dtype_info(t).block_elems);
            std::vector<int> paths = {int(Int8Dot::none)};
            if (ft::kernels::cpu::int8_dot_handles(t)) paths = {int(Int8Dot::none), int(Int8Dot::avx_vnni), int(Int8Dot::avx512_vnni)};
            for (int p : paths) {
                const char* pn = ft::kernels::cpu::int8_dot_name(Int8Dot(p));
                for (int k : {256, 512}) QTest::addRow("%s %dx%d %s", name, 37, k, pn) << int(t) << 37 << k << p;
                for (auto [rows, k] : big) QTest::addRow("%s %dx%d %s", name, rows, k, pn) << int(t) << rows << k << p;
                if (blk == 1) {
                    for (int k : {1, 7, 33, 100}) QTest::addRow("%s 5x%d %s", name, k, pn) << int(t) << 5 << k << p;
                } else if (blk == 32) {
                    QTest::addRow("%s 3x96 %s", name, pn) << int(t) << 3 << 96 << p;
                }
            }
        }
    }
    void matvecMatchesReference() {
        QFETCH(int, type);
        QFETCH(int, rows);
        QFETCH(int, k);
        QFETCH(int, path);
        const DType t = DType(type);
        if (!ft::kernels::cpu::int8_dot_cpu_supports(Int8Dot(path)))
            QSKIP(qPrintable(QString("skipped: this CPU has no %1").arg(ft::kernels::cpu::int8_dot_name(Int8Dot(path)))));
        const auto w = make_weights(t, rows, k, 100 + type * 7 + k + rows);
        const auto x = ft::test::random_floats(std::size_t(k), 5 + k, -2.f, 2.f);
        std::vector<float> want(static_cast<std::size_t>(rows));
        ft::kernels::ref::matmul_f32(x.data(), w.deq.data(), want.data(), 1, rows, k);
        ft::test::GuardedOutput got(static_cast<std::size_t>(rows));
        // path none: matvec_rows on the Highway kernels; otherwise that int8 kernel, called directly (matvec_rows
        // takes it by default for the K-quants only).
        const Int8DotScope scope{Int8Dot::none};
        const auto matvec = [&](std::int64_t r0, std::int64_t r1) {
            if (Int8Dot(path) == Int8Dot::none)
                ft::kernels::cpu::matvec_rows(t, w.bytes.data(), w.row_bytes, k, x.data(), got.ptr(), r0, r1);
            else
                QVERIFY(ft::kernels::cpu::matvec_rows_int8(Int8Dot(path), t, w.bytes.data(), w.row_bytes, k, x.data(),
                                                           got.ptr(), r0, r1));
        };
        // Two row ranges, as two threads would split them.
        const int split = rows / 3;
        matvec(0, split);
        matvec(split, rows);
        QVERIFY2(got.guards_intact(), "wrote past the output");
        QVERIFY(got.all_written());
        const auto err = ft::test::compare(got.ptr(), want.data(), want.size());
        const double scaled = product_scaled_error(got.ptr(), want.data(), w, x, rows, k);
        const double tol = Int8Dot(path) == Int8Dot::none ? tolerance(t) : int8_tolerance(rows);
        QVERIFY2(err.finite && scaled < tol, qPrintable(QString("%1 scaled=%2").arg(err.str().c_str()).arg(scaled)));
        if (Int8Dot(path) != Int8Dot::none && !(t == DType::Q4_K && Int8Dot(path) == Int8Dot::avx512_vnni)) {
            ft::kernels::cpu::Int8Activation xa;
            QVERIFY(ft::kernels::cpu::int8_quantize(Int8Dot(path), x.data(), k, xa));
            std::vector<float> xr(static_cast<std::size_t>(k)), want_q(static_cast<std::size_t>(rows));
            for (int i = 0; i < k; ++i) xr[std::size_t(i)] = float(xa.q[std::size_t(i)]) * xa.scale[std::size_t(i / 32)];
            ft::kernels::ref::matmul_f32(xr.data(), w.deq.data(), want_q.data(), 1, rows, k);
            const double exact = product_scaled_error(got.ptr(), want_q.data(), w, xr, rows, k);
            QVERIFY2(exact < kInt8ExactTolerance, qPrintable(QString("against the int8-rounded x: scaled=%1").arg(exact)));
        }
    }

    // The accuracy the int8 paths trade for speed, against the Highway path, on the same data (printed for the
    // record; the bounds are the tests above).
    void int8AccuracyReport() {
        const Int8Dot best = ft::kernels::cpu::int8_dot_selected();
        if (best == Int8Dot::none) QSKIP("skipped: this CPU has no int8 dot-product path");
        const int k = 2048;
        const auto x = ft::test::random_floats(std::size_t(k), 17, -2.f, 2.f);
        for (DType t : {DType::Q4_0, DType::Q4_1, DType::Q5_0, DType::Q5_1, DType::Q2_K, DType::Q3_K, DType::Q4_K,
                        DType::Q5_K, DType::Q6_K, DType::Q8_0, DType::IQ4_NL, DType::IQ4_XS, DType::MXFP4, DType::TQ1_0, DType::TQ2_0,
                        DType::IQ2_XXS, DType::IQ2_XS, DType::IQ2_S, DType::IQ3_XXS, DType::IQ3_S, DType::IQ1_S,
                        DType::IQ1_M, DType::FT_NVFP4}) {
            // The lattice types' quantizers take about 1 µs a weight: a quarter of the rows.
            const bool lattice = t == DType::IQ2_XXS || t == DType::IQ2_XS || t == DType::IQ2_S || t == DType::IQ3_XXS ||
                                 t == DType::IQ3_S || t == DType::IQ1_S || t == DType::IQ1_M;
            const int rows = lattice ? 192 : 768;
            const auto w = make_weights(t, rows, k, 300 + int(t));
            std::vector<float> want(static_cast<std::size_t>(rows)), got(static_cast<std::size_t>(rows));
            ft::kernels::ref::matmul_f32(x.data(), w.deq.data(), want.data(), 1, rows, k);
            double nmse[2];
            for (int i = 0; i < 2; ++i) {
                const Int8DotScope scope(Int8Dot::none);
                if (i == 0) ft::kernels::cpu::matvec_rows(t, w.bytes.data(), w.row_bytes, k, x.data(), got.data(), 0, rows);
                else ft::kernels::cpu::matvec_rows_int8(best, t, w.bytes.data(), w.row_bytes, k, x.data(), got.data(), 0, rows);
                nmse[i] = ft::test::compare(got.data(), want.data(), want.size()).nmse;
            }
            qInfo("%s %dx%d nmse vs double reference: Highway %.3g, int8 (%s) %.3g", ft::kernels::dtype_info(t).name.data(),
                  rows, k, nmse[0], ft::kernels::cpu::int8_dot_name(best), nmse[1]);
            QVERIFY(nmse[1] < kInt8Tolerance);
        }
    }

    void matmulMatchesMatvec_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("m");
        for (DType t : kTypes)
            for (int m : {1, 2, 5, 9}) QTest::addRow("%s m=%d", ft::kernels::dtype_info(t).name.data(), m) << int(t) << m;
    }
    void matmulMatchesMatvec() {
        QFETCH(int, type);
        QFETCH(int, m);
        const DType t = DType(type);
        const int rows = 11;
        const int k = ft::kernels::dtype_info(t).block_elems == 1 ? 70 : 512;
        const auto w = make_weights(t, rows, k, 900 + type);
        const int ldx = k + 3, ldy = rows + 2;
        const auto x = ft::test::random_floats(std::size_t(m * ldx), 77 + m, -1.f, 1.f);
        std::vector<float> want(std::size_t(m * ldy), 0.f);
        for (int i = 0; i < m; ++i)
            ft::kernels::ref::matmul_f32(x.data() + i * ldx, w.deq.data(), want.data() + i * ldy, 1, rows, k);
        ft::test::GuardedOutput got(std::size_t(m * ldy));
        for (auto& v : got.data) v = 0.f;  // the ldy padding is not written
        ft::kernels::cpu::matmul_rows(t, w.bytes.data(), w.row_bytes, k, x.data(), ldx, m, got.ptr(), ldy, 0, 6);
        ft::kernels::cpu::matmul_rows(t, w.bytes.data(), w.row_bytes, k, x.data(), ldx, m, got.ptr(), ldy, 6, rows);
        const auto err = ft::test::compare(got.ptr(), want.data(), want.size());
        QVERIFY2(err.finite && err.nmse < 1e-10, err.str().c_str());
    }

    void dequantizeMatchesReference_data() {
        QTest::addColumn<int>("type");
        for (DType t : kTypes) QTest::addRow("%s", ft::kernels::dtype_info(t).name.data()) << int(t);
    }
    void dequantizeMatchesReference() {
        QFETCH(int, type);
        const DType t = DType(type);
        const int k = 1024;
        const auto w = make_weights(t, 1, k, 31 + type);
        ft::test::GuardedOutput got(static_cast<std::size_t>(k));
        ft::kernels::cpu::dequantize_row(t, w.bytes.data(), got.ptr(), k);
        QVERIFY(got.guards_intact());
        const auto err = ft::test::compare(got.ptr(), w.deq.data(), std::size_t(k));
        // Only fused multiply-subtract rounding differs from the reference.
        QVERIFY2(err.finite && err.max_abs < 1e-6, err.str().c_str());
    }

    // Every SIMD target this build carries (AVX-512, AVX2, SSE4, scalar, …) gives the same answers: the dispatch
    // picks one per machine, and CI's machine must not be the only one tested.
    void everyCompiledTargetMatchesReference() {
        const auto x = ft::test::random_floats(512, 3, -2.f, 2.f);
        const Int8DotScope highway_only(Int8Dot::none);
        int targets = 0;
        for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
            hwy::SetSupportedTargetsForTest(target);
            hwy::GetChosenTarget().Update(hwy::SupportedTargets());
            ++targets;
            for (DType t : kTypes) {
                const auto w = make_weights(t, 9, 512, 55 + int(t));
                std::vector<float> want(9), got(9, -1.f), deq(512);
                ft::kernels::ref::matmul_f32(x.data(), w.deq.data(), want.data(), 1, 9, 512);
                ft::kernels::cpu::matvec_rows(t, w.bytes.data(), w.row_bytes, 512, x.data(), got.data(), 0, 9);
                const auto err = ft::test::compare(got.data(), want.data(), 9);
                QVERIFY2(err.nmse < tolerance(t), qPrintable(QString("%1 on %2: %3").arg(ft::kernels::dtype_info(t).name.data(),
                                                              hwy::TargetName(target), err.str().c_str())));
                ft::kernels::cpu::dequantize_row(t, w.bytes.data(), deq.data(), 512);
                QVERIFY(ft::test::compare(deq.data(), w.deq.data(), 512).max_abs < 1e-6);
            }
        }
        hwy::SetSupportedTargetsForTest(0);
        hwy::GetChosenTarget().Update(hwy::SupportedTargets());
        QVERIFY(targets >= 2);
        qInfo("%d SIMD targets checked", targets);
    }

    // matvec_rows takes the CPU's int8 path for every type it handles but Q8_0, which stays on int16
    // (bit-identical results).
    void matvecDefaultPathPerType() {
        const Int8Dot best = ft::kernels::cpu::int8_dot_selected();
        if (best == Int8Dot::none) QSKIP("skipped: this CPU has no int8 dot-product path");
        const int rows = 9, k = 512;
        const auto x = ft::test::random_floats(std::size_t(k), 8, -2.f, 2.f);
        for (DType t : {DType::Q4_0, DType::Q4_1, DType::Q5_0, DType::Q5_1, DType::Q2_K, DType::Q3_K, DType::Q4_K,
                        DType::Q5_K, DType::Q6_K, DType::Q8_0, DType::IQ4_NL, DType::IQ4_XS, DType::MXFP4, DType::TQ1_0, DType::TQ2_0,
                        DType::IQ2_XXS, DType::IQ2_XS, DType::IQ2_S, DType::IQ3_XXS, DType::IQ3_S, DType::IQ1_S,
                        DType::IQ1_M, DType::FT_NVFP4}) {
            const auto w = make_weights(t, rows, k, 40 + int(t));
            std::vector<float> dflt(static_cast<std::size_t>(rows)), int8(dflt), highway(dflt);
            ft::kernels::cpu::matvec_rows(t, w.bytes.data(), w.row_bytes, k, x.data(), dflt.data(), 0, rows);
            QVERIFY(ft::kernels::cpu::matvec_rows_int8(best, t, w.bytes.data(), w.row_bytes, k, x.data(), int8.data(), 0, rows));
            {
                const Int8DotScope scope(Int8Dot::none);
                ft::kernels::cpu::matvec_rows(t, w.bytes.data(), w.row_bytes, k, x.data(), highway.data(), 0, rows);
            }
            QCOMPARE(dflt, ft::kernels::cpu::int8_dot_by_default(t) ? int8 : highway);
        }
        QVERIFY(!ft::kernels::cpu::int8_dot_by_default(DType::Q8_0));
        QVERIFY(ft::kernels::cpu::int8_dot_by_default(DType::MXFP4) && ft::kernels::cpu::int8_dot_by_default(DType::FT_NVFP4));
        QVERIFY(!ft::kernels::cpu::int8_dot_handles(DType::FT_FP8));  // E4M3: no integers at one scale
        QVERIFY(ft::kernels::cpu::int8_dot_by_default(DType::Q4_0) && ft::kernels::cpu::int8_dot_by_default(DType::TQ2_0));
        QVERIFY(!ft::kernels::cpu::int8_dot_handles(DType::F16));  // through the f32 kernels
    }

    // Batch invariance: where matvec_rows decodes weights to f32 (every type but the integer dot paths of
    // Q4_K/Q8_0 and the int8 K-quants), each row of matmul_rows is bit-identical to matvec_rows of that row alone,
    // on every SIMD target: a token's output does not depend on how many tokens share its batch.
    void matmulRowsAreBitIdenticalToMatvec() {
        const Int8DotScope highway_only(Int8Dot::none);
        int targets = 0;
        for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
            hwy::SetSupportedTargetsForTest(target);
            hwy::GetChosenTarget().Update(hwy::SupportedTargets());
            ++targets;
            for (DType t : {DType::F32, DType::F16, DType::BF16, DType::Q4_0, DType::Q5_K, DType::Q6_K, DType::MXFP4}) {
                const int rows = 7, m = 5;
                for (int k : {512, 70}) {
                    if (k % int(ft::kernels::dtype_info(t).block_elems) != 0) continue;
                    const auto w = make_weights(t, rows, k, 300 + int(t));
                    const auto x = ft::test::random_floats(std::size_t(m * k), 5 + k, -1.f, 1.f);
                    std::vector<float> batched(static_cast<std::size_t>(m * rows)), single(static_cast<std::size_t>(rows));
                    ft::kernels::cpu::matmul_rows(t, w.bytes.data(), w.row_bytes, k, x.data(), k, m, batched.data(), rows, 0, rows);
                    for (int i = 0; i < m; ++i) {
                        ft::kernels::cpu::matvec_rows(t, w.bytes.data(), w.row_bytes, k, x.data() + i * k, single.data(), 0, rows);
                        QVERIFY2(std::equal(single.begin(), single.end(), batched.begin() + i * rows),
                                 qPrintable(QString("%1 k=%2 row of %3 on %4").arg(ft::kernels::dtype_info(t).name.data()).arg(k)
                                                .arg(i).arg(hwy::TargetName(target))));
                    }
                }
            }
        }
        hwy::SetSupportedTargetsForTest(0);
        hwy::GetChosenTarget().Update(hwy::SupportedTargets());
        QVERIFY(targets >= 2);
    }

    void unsupportedTypesAreReported() {
        QVERIFY(!ft::kernels::cpu::matmul_supported(DType::Q8_K));
        QVERIFY(!ft::kernels::cpu::matmul_supported(DType::I32));
        QVERIFY(ft::kernels::cpu::matmul_supported(DType::Q4_K));
        QVERIFY(ft::kernels::cpu::matmul_supported(DType::IQ2_XXS));
    }

    // The types the reference only dequantizes (no quantizer to make weights from): random blocks, redrawn until every
    // value is finite and of moderate size (random f16 scales can be inf/NaN), then matvec_rows / matmul_rows against
    // the reference in double and dequantize_row bit for bit, on every SIMD target.
    void dequantOnlyTypes_data() {
        QTest::addColumn<int>("type");
        for (DType t : {DType::Q4_0, DType::Q4_1, DType::Q5_0, DType::Q5_1, DType::Q2_K, DType::Q3_K, DType::IQ4_NL, DType::IQ4_XS,
                        DType::TQ1_0, DType::TQ2_0, DType::IQ2_XXS, DType::IQ2_XS, DType::IQ2_S, DType::IQ3_XXS,
                        DType::IQ3_S, DType::IQ1_S, DType::IQ1_M})
            QTest::newRow(ft::kernels::dtype_info(t).name.data()) << int(t);
    }
    void dequantOnlyTypes() {
        QFETCH(int, type);
        const auto t = DType(type);
        const auto& info = ft::kernels::dtype_info(t);
        const std::int64_t rows = 37, k = 512;
        Weights w;
        w.row_bytes = *ft::kernels::dtype_bytes(t, std::uint64_t(k));
        w.bytes.resize(w.row_bytes * std::size_t(rows));
        w.deq.resize(std::size_t(rows * k));
        std::mt19937 rng(1234 + std::uint32_t(type));
        const std::int64_t n_blocks = rows * k / info.block_elems;
        for (std::int64_t b = 0; b < n_blocks; ++b) {
            std::uint8_t* blk = w.bytes.data() + std::size_t(b) * info.block_bytes;
            float* out = w.deq.data() + b * info.block_elems;
            for (int attempt = 0;; ++attempt) {
                QVERIFY(attempt < 1000);
                for (std::uint32_t i = 0; i < info.block_bytes; ++i) blk[i] = std::uint8_t(rng());
                QVERIFY(ft::kernels::ref::dequantize_row(t, blk, out, info.block_elems));
                bool ok = true;
                for (std::uint32_t i = 0; i < info.block_elems && ok; ++i) ok = std::isfinite(out[i]) && std::fabs(out[i]) < 1e3f;
                if (ok) break;
            }
        }
        const auto x = ft::test::random_floats(std::size_t(3 * k), 99, -1.f, 1.f);
        std::vector<double> want(std::size_t(3 * rows));
        for (std::int64_t i = 0; i < 3; ++i)
            for (std::int64_t r = 0; r < rows; ++r) {
                double acc = 0;
                for (std::int64_t c = 0; c < k; ++c) acc += double(w.deq[std::size_t(r * k + c)]) * x[std::size_t(i * k + c)];
                want[std::size_t(i * rows + r)] = acc;
            }
        QString where;
        auto check = [&](const std::vector<float>& got, std::int64_t m, const char* what) {
            double num = 0, den = 0;
            for (std::int64_t j = 0; j < m * rows; ++j) {
                const double d = got[std::size_t(j)] - want[std::size_t(j)];
                num += d * d, den += want[std::size_t(j)] * want[std::size_t(j)];
            }
            QVERIFY2(got[std::size_t(m * rows)] == -7.f, qPrintable(where + what));  // guard after the output
            QVERIFY2(num <= 1e-10 * den, qPrintable(QString("%1%2: nmse %3").arg(where, what).arg(num / den)));
        };
        // The int8 dot-product paths of the types they take, on these random blocks (every bit pattern of the scales,
        // not only what a quantizer writes), against their own tolerance.
        for (Int8Dot p : {Int8Dot::avx_vnni, Int8Dot::avx512_vnni}) {
            if (!ft::kernels::cpu::int8_dot_handles(t) || !ft::kernels::cpu::int8_dot_cpu_supports(p)) continue;
            where = QString(ft::kernels::cpu::int8_dot_name(p)) + ": ";
            std::vector<float> y(std::size_t(rows + 1), -7.f);
            QVERIFY(ft::kernels::cpu::matvec_rows_int8(p, t, w.bytes.data(), w.row_bytes, k, x.data(), y.data(), 0, rows));
            double num = 0, den = 0;
            for (std::int64_t j = 0; j < rows; ++j) {
                const double d = y[std::size_t(j)] - want[std::size_t(j)];
                num += d * d, den += want[std::size_t(j)] * want[std::size_t(j)];
            }
            QVERIFY2(y[std::size_t(rows)] == -7.f, qPrintable(where + "guard"));
            // Against x as the path rounded it: only the f32 accumulation differs.
            ft::kernels::cpu::Int8Activation xa;
            QVERIFY(ft::kernels::cpu::int8_quantize(p, x.data(), k, xa));
            double num_q = 0, den_q = 0;
            for (std::int64_t r = 0; r < rows; ++r) {
                double acc = 0;
                for (std::int64_t c = 0; c < k; ++c)
                    acc += double(w.deq[std::size_t(r * k + c)]) * double(xa.q[std::size_t(c)]) * double(xa.scale[std::size_t(c / 32)]);
                num_q += (y[std::size_t(r)] - acc) * (y[std::size_t(r)] - acc), den_q += acc * acc;
            }
            qInfo("%s%s nmse %.3g (against the int8-rounded x %.3g)", qPrintable(where), info.name.data(), num / den, num_q / den_q);
            QVERIFY2(num_q <= kInt8ExactTolerance * den_q, qPrintable(QString("%1against the int8-rounded x: nmse %2").arg(where).arg(num_q / den_q)));
            // Random f16 scales span orders of magnitude, so a row is the draw of its few largest blocks and the
            // rounding error's spread is wider than on quantized rows (IQ2_XXS here: 7.3e-5): 4× the room.
            QVERIFY2(num <= 4 * kInt8Tolerance * den, qPrintable(QString("%1matvec_rows_int8: nmse %2").arg(where).arg(num / den)));
        }
        // The Highway kernels (matvec_rows would take the int8 path for some of these types).
        const Int8DotScope highway_only(Int8Dot::none);
        // Every SIMD target this build has (their vector widths differ: each decoder's stepping is exercised).
        struct TargetReset {
            ~TargetReset() {
                hwy::SetSupportedTargetsForTest(0);
                hwy::GetChosenTarget().Update(hwy::SupportedTargets());
            }
        } reset;
        int targets = 0;
        for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
            hwy::SetSupportedTargetsForTest(target);
            hwy::GetChosenTarget().Update(hwy::SupportedTargets());
            ++targets;
            where = QString(hwy::TargetName(target)) + ": ";
            std::vector<float> y(std::size_t(rows + 1), -7.f);
            ft::kernels::cpu::matvec_rows(t, w.bytes.data(), w.row_bytes, k, x.data(), y.data(), 0, rows);
            check(y, 1, "matvec_rows");
            ft::kernels::cpu::MatvecInput in;
            ft::kernels::cpu::matvec_prepare(t, x.data(), k, in);
            std::fill(y.begin(), y.end(), -7.f);
            ft::kernels::cpu::matvec_rows_prepared(t, w.bytes.data(), w.row_bytes, in, y.data(), 0, rows);
            check(y, 1, "matvec_rows_prepared");
            std::vector<float> y3(std::size_t(3 * rows + 1), -7.f);
            ft::kernels::cpu::matmul_rows(t, w.bytes.data(), w.row_bytes, k, x.data(), k, 3, y3.data(), rows, 0, rows);
            check(y3, 3, "matmul_rows");
            std::vector<float> row(static_cast<std::size_t>(k));
            for (std::int64_t r = 0; r < rows; ++r) {
                ft::kernels::cpu::dequantize_row(t, w.bytes.data() + std::size_t(r) * w.row_bytes, row.data(), k);
                QVERIFY2(std::memcmp(row.data(), w.deq.data() + r * k, std::size_t(k) * 4) == 0, qPrintable(where + "dequantize_row"));
            }
        }
        QVERIFY(targets >= 2);
    }
};

FT_TEST_MAIN(TestCpuMatmul)
#include "test_cpu_matmul.moc"
