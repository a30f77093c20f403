// CPU matvec/matmul/dequantize (Highway, in-register dequantization) against the scalar references, for every
// supported weight type, over a table of shapes, with guard values after every output.
#include <hwy/targets.h>

#include "cpu/isa.h"
#include "cpu/matmul.h"
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
double tolerance(DType t) { return t == DType::Q4_K || t == DType::Q8_0 ? 1e-8 : 1e-10; }
const DType kTypes[] = {DType::F32, DType::F16, DType::BF16, DType::Q8_0, DType::Q4_0,
                        DType::Q4_K, DType::Q5_K, DType::Q6_K, DType::MXFP4};
}  // namespace

class TestCpuMatmul : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { qInfo("CPU kernels dispatch to %s", ft::kernels::cpu::isa_selected().c_str()); }

    void matvecMatchesReference_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("k");
        for (DType t : kTypes) {
            const int blk = int(ft::kernels::dtype_info(t).block_elems);
            for (int k : {256, 512, 2048}) QTest::addRow("%s %dx%d", ft::kernels::dtype_info(t).name.data(), 37, k) << int(t) << 37 << k;
            if (blk == 1) {
                for (int k : {1, 7, 33, 100}) QTest::addRow("%s 5x%d", ft::kernels::dtype_info(t).name.data(), k) << int(t) << 5 << k;
            } else if (blk == 32) {
                QTest::addRow("%s 3x96", ft::kernels::dtype_info(t).name.data()) << int(t) << 3 << 96;
            }
        }
    }
    void matvecMatchesReference() {
        QFETCH(int, type);
        QFETCH(int, rows);
        QFETCH(int, k);
        const DType t = DType(type);
        const auto w = make_weights(t, rows, k, 100 + type * 7 + k);
        const auto x = ft::test::random_floats(std::size_t(k), 5 + k, -2.f, 2.f);
        std::vector<float> want(static_cast<std::size_t>(rows));
        ft::kernels::ref::matmul_f32(x.data(), w.deq.data(), want.data(), 1, rows, k);
        ft::test::GuardedOutput got(static_cast<std::size_t>(rows));
        // Two row ranges, as two threads would split them.
        const int split = rows / 3;
        ft::kernels::cpu::matvec_rows(t, w.bytes.data(), w.row_bytes, k, x.data(), got.ptr(), 0, split);
        ft::kernels::cpu::matvec_rows(t, w.bytes.data(), w.row_bytes, k, x.data(), got.ptr(), split, rows);
        QVERIFY2(got.guards_intact(), "wrote past the output");
        QVERIFY(got.all_written());
        const auto err = ft::test::compare(got.ptr(), want.data(), want.size());
        // f32 accumulation of k products vs a double reference; Q4_K decode also rounds the activations to int16
        // per 32 (integer dot products), which costs ~1e-9 in nmse; so does Q8_0.
        QVERIFY2(err.finite && err.nmse < tolerance(t), err.str().c_str());
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

    void unsupportedTypesAreReported() {
        QVERIFY(!ft::kernels::cpu::matmul_supported(DType::IQ2_XXS));
        QVERIFY(ft::kernels::cpu::matmul_supported(DType::Q4_K));
    }
};

FT_TEST_MAIN(TestCpuMatmul)
#include "test_cpu_matmul.moc"
