// The decode GEMV's vector units (quant::vec, kernels/cuda/quant_decode.cuh) on the CPU: their __host__ __device__
// arithmetic (codes per byte, exponent-trick floats, the scales; PTX prmt emulated) gives every element of random
// valid rows bit for bit as ref::dequantize_row does, and reaches every element exactly once. The kernel's word loads
// and the real prmt are checked on a GPU by test_cuda_gemv.
#include "ft_test.h"
#include "vec_units_check.h"

class TestVecUnits : public QObject {
    Q_OBJECT
private slots:
    void equalReference() {
        const auto reps = ft::test::check_vec_units(false);
        QVERIFY(!reps.empty());
        for (const auto& r : reps) {
            QVERIFY2(r.values == 8 * 1024, qPrintable(QString::fromStdString(r.type) + ": not every element compared"));
            QVERIFY2(r.covered_twice == 0, qPrintable(QString::fromStdString(r.type) + ": elements missed or repeated"));
            QVERIFY2(r.mismatch_count == 0,
                     qPrintable(QString("%1: %2 mismatches, first: %3")
                                    .arg(QString::fromStdString(r.type))
                                    .arg(r.mismatch_count)
                                    .arg(r.mismatches.empty() ? QString() : QString::fromStdString(r.mismatches[0]))));
        }
    }
    // The comparison sees a wrong element: neighbours swapped give mismatches for every type.
    void detectsWrongElements() {
        for (const auto& r : ft::test::check_vec_units(true))
            QVERIFY2(r.mismatch_count > r.values / 4, qPrintable(QString::fromStdString(r.type)));
    }
};

FT_TEST_MAIN(TestVecUnits)
#include "test_vec_units.moc"
