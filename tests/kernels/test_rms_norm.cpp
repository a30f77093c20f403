// RMSNorm: the SIMD CPU kernel against the scalar reference, over a table of shapes.
#include "cpu/isa.h"
#include "cpu/rms_norm.h"
#include "ft_test.h"
#include "kernel_check.h"
#include "ref/rms_norm.h"

class TestRmsNorm : public QObject {
    Q_OBJECT
private slots:
    void cpuMatchesReference_data() {
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        for (int cols : {1, 7, 16, 33, 128, 2048, 4096, 5000})
            for (int rows : {1, 3, 17}) QTest::addRow("%dx%d", rows, cols) << rows << cols;
    }
    void cpuMatchesReference() {
        QFETCH(int, rows);
        QFETCH(int, cols);
        const auto x = ft::test::random_floats(size_t(rows) * cols, 1 + rows * 131 + cols, -4.f, 4.f);
        const auto w = ft::test::random_floats(size_t(cols), 7 + cols, 0.5f, 1.5f);
        std::vector<float> want(size_t(rows) * cols);
        ft::kernels::ref::rms_norm_f32(x.data(), w.data(), want.data(), rows, cols, 1e-6f);
        ft::test::GuardedOutput got(want.size());
        ft::kernels::cpu::rms_norm_f32(x.data(), w.data(), got.ptr(), rows, cols, 1e-6f);
        QVERIFY2(got.guards_intact(), "wrote past the end of the output");
        QVERIFY(got.all_written());
        const auto err = ft::test::compare(got.ptr(), want.data(), want.size());
        QVERIFY2(err.finite && err.max_rel < 1e-5, err.str().c_str());
    }
    void referenceKnownAnswer() {
        // x = [3, 4]: mean square = 12.5, scale = 1/sqrt(12.5) → y = [0.848528, 1.131371] * w
        const float x[2] = {3.f, 4.f}, w[2] = {1.f, 2.f};
        float y[2];
        ft::kernels::ref::rms_norm_f32(x, w, y, 1, 2, 0.f);
        QVERIFY(std::fabs(y[0] - 0.8485281f) < 1e-6f);
        QVERIFY(std::fabs(y[1] - 2.2627417f) < 1e-6f);
    }
    void reportsIsa() {
        QVERIFY(!ft::kernels::cpu::isa_selected().empty());
        qInfo("CPU kernels dispatch to %s", ft::kernels::cpu::isa_selected().c_str());
    }
};

FT_TEST_MAIN(TestRmsNorm)
#include "test_rms_norm.moc"
