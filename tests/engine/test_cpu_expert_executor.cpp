// The CPU expert executor (one pool job per call, an expert's down rows waiting only for its own gate/up rows, a
// token row's input quantized once per product): its output is bit-identical to the kernels called one after the
// other on one thread, for any thread count, number of experts, token rows per expert and weight types — and close
// to a double-precision reference.
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "cpu/matmul.h"
#include "cpu/swiglu.h"
#include "cpu/worker_pool.h"
#include "ft_test.h"
#include "model/weights.h"
#include "moe/cpu_expert_executor.h"
#include "ref/dtype.h"
#include "ref/quant.h"

namespace {

using ft::kernels::DType;

// A quantized matrix and its values as f32 (the dequantized codes: what the kernels multiply).
struct Matrix {
    std::vector<std::byte> bytes;
    std::vector<float> values;
    ft::model::TensorView view;
};

Matrix make_matrix(DType type, std::int64_t rows, std::int64_t cols, std::mt19937& rng) {
    Matrix m;
    const std::size_t row_bytes = std::size_t(*ft::kernels::dtype_bytes(type, std::uint64_t(cols)));
    m.bytes.resize(row_bytes * std::size_t(rows));
    m.values.resize(std::size_t(rows * cols));
    std::normal_distribution<float> nd(0.f, 0.05f);
    std::vector<float> row(static_cast<std::size_t>(cols));
    for (std::int64_t r = 0; r < rows; ++r) {
        for (auto& v : row) v = nd(rng);
        std::byte* dst = m.bytes.data() + std::size_t(r) * row_bytes;
        if (!ft::kernels::ref::quantize_row(type, row.data(), dst, cols)) qFatal("quantize_row failed");
        if (!ft::kernels::ref::dequantize_row(type, dst, m.values.data() + r * cols, cols)) qFatal("dequantize_row failed");
    }
    m.view.type = type;
    m.view.rows = rows;
    m.view.cols = cols;
    m.view.row_bytes = row_bytes;
    m.view.data = m.bytes.data();
    return m;
}

struct Expert {
    Matrix gate, up, down;
    ft::model::ExpertView view;
};

// y = down · (silu(gate · x) ⊙ (up · x)) with each product on one thread, through the same kernels.
void serial(const ft::model::ExpertView& e, const float* x, std::int64_t m, float* y) {
    const std::int64_t n_ff = e.gate.rows, n_embd = e.down.rows;
    std::vector<float> g(std::size_t(m * n_ff)), u(g.size()), h(g.size());
    using namespace ft::kernels::cpu;
    if (m == 1) {
        matvec_rows(e.gate.type, e.gate.data, e.gate.row_bytes, e.gate.cols, x, g.data(), 0, n_ff);
        matvec_rows(e.up.type, e.up.data, e.up.row_bytes, e.up.cols, x, u.data(), 0, n_ff);
    } else {
        matmul_rows(e.gate.type, e.gate.data, e.gate.row_bytes, e.gate.cols, x, n_embd, m, g.data(), n_ff, 0, n_ff);
        matmul_rows(e.up.type, e.up.data, e.up.row_bytes, e.up.cols, x, n_embd, m, u.data(), n_ff, 0, n_ff);
    }
    for (std::int64_t i = 0; i < m; ++i) swiglu_f32(g.data() + i * n_ff, u.data() + i * n_ff, h.data() + i * n_ff, n_ff, 0.f);
    if (m == 1) matvec_rows(e.down.type, e.down.data, e.down.row_bytes, e.down.cols, h.data(), y, 0, n_embd);
    else matmul_rows(e.down.type, e.down.data, e.down.row_bytes, e.down.cols, h.data(), n_ff, m, y, n_embd, 0, n_embd);
}

// The same in double precision on the dequantized weights.
void reference(const Expert& e, const float* x, std::int64_t m, std::vector<double>& y) {
    const std::int64_t n_ff = e.view.gate.rows, n_embd = e.view.down.rows;
    y.assign(std::size_t(m * n_embd), 0.0);
    std::vector<double> h(static_cast<std::size_t>(n_ff));
    for (std::int64_t i = 0; i < m; ++i) {
        for (std::int64_t r = 0; r < n_ff; ++r) {
            double g = 0, u = 0;
            for (std::int64_t c = 0; c < n_embd; ++c) {
                g += double(e.gate.values[std::size_t(r * n_embd + c)]) * x[i * n_embd + c];
                u += double(e.up.values[std::size_t(r * n_embd + c)]) * x[i * n_embd + c];
            }
            h[std::size_t(r)] = g / (1 + std::exp(-g)) * u;
        }
        for (std::int64_t r = 0; r < n_embd; ++r) {
            double s = 0;
            for (std::int64_t c = 0; c < n_ff; ++c) s += double(e.down.values[std::size_t(r * n_ff + c)]) * h[std::size_t(c)];
            y[std::size_t(i * n_embd + r)] = s;
        }
    }
}

}  // namespace

class TestCpuExpertExecutor : public QObject {
    Q_OBJECT
private slots:
    void matchesTheKernelsInSeries_data() {
        QTest::addColumn<int>("threads");
        QTest::addColumn<int>("experts");
        QTest::addColumn<int>("maxRows");
        QTest::addColumn<int>("gateType");
        QTest::addColumn<int>("downType");
        const std::pair<DType, DType> types[] = {{DType::Q4_K, DType::Q4_K}, {DType::Q4_K, DType::Q6_K},
                                                 {DType::Q5_K, DType::Q8_0}, {DType::BF16, DType::MXFP4}};
        for (auto [gt, dt] : types)
            for (int threads : {1, 4})
                for (int experts : {1, 5})
                    for (int max_rows : {1, 4})
                        QTest::addRow("%s/%s %dt %de rows<=%d", ft::kernels::dtype_info(gt).name.data(),
                                      ft::kernels::dtype_info(dt).name.data(), threads, experts, max_rows)
                            << threads << experts << max_rows << int(gt) << int(dt);
    }
    void matchesTheKernelsInSeries() {
        QFETCH(int, threads);
        QFETCH(int, experts);
        QFETCH(int, maxRows);
        QFETCH(int, gateType);
        QFETCH(int, downType);
        const std::int64_t n_embd = 512, n_ff = 768;
        std::mt19937 rng(std::uint32_t(threads * 100 + experts * 10 + maxRows + gateType * 1000 + downType));
        std::vector<Expert> ex(static_cast<std::size_t>(experts));
        for (auto& e : ex) {
            e.gate = make_matrix(DType(gateType), n_ff, n_embd, rng);
            e.up = make_matrix(DType(gateType), n_ff, n_embd, rng);
            e.down = make_matrix(DType(downType), n_embd, n_ff, rng);
            e.view.gate = e.gate.view;
            e.view.up = e.up.view;
            e.view.down = e.down.view;
        }
        std::normal_distribution<float> nd(0.f, 1.f);
        std::uniform_int_distribution<int> rows_of(1, maxRows);
        std::vector<std::vector<float>> xs(ex.size());
        std::vector<std::vector<float>> outs(ex.size());
        std::vector<ft::moe::ExpertJob> jobs;
        for (std::size_t j = 0; j < ex.size(); ++j) {
            const int m = rows_of(rng);
            xs[j].resize(std::size_t(m * n_embd));
            for (auto& v : xs[j]) v = nd(rng);
            outs[j].assign(std::size_t(m * n_embd), NAN);
            jobs.push_back({&ex[j].view, xs[j].data(), m, outs[j].data()});
        }
        ft::cpu::WorkerPool pool({threads, false, 20});
        ft::moe::CpuExpertExecutor exec(pool);
        for (int round = 0; round < 3; ++round) {  // the scratch and the per-job state are reused between calls
            for (auto& o : outs) std::fill(o.begin(), o.end(), NAN);
            exec.run(jobs);
            std::vector<float> want;
            std::vector<double> ref;
            for (std::size_t j = 0; j < ex.size(); ++j) {
                const std::int64_t m = jobs[j].m;
                want.assign(std::size_t(m * n_embd), 0.f);
                serial(ex[j].view, xs[j].data(), m, want.data());
                QVERIFY2(std::memcmp(want.data(), outs[j].data(), want.size() * sizeof(float)) == 0,
                         qPrintable(QString("expert %1 (%2 rows) differs from the kernels in series").arg(j).arg(m)));
                reference(ex[j], xs[j].data(), m, ref);
                double err = 0, norm = 0;
                for (std::size_t i = 0; i < ref.size(); ++i) {
                    err += (outs[j][i] - ref[i]) * (outs[j][i] - ref[i]);
                    norm += ref[i] * ref[i];
                }
                QVERIFY2(err <= 1e-3 * norm, qPrintable(QString("nmse %1 against the double reference").arg(err / norm)));
            }
        }
        QCOMPARE(exec.bytes_read(), 3 * std::uint64_t(experts) * ex[0].view.bytes());
    }
};

FT_TEST_MAIN(TestCpuExpertExecutor)
#include "test_cpu_expert_executor.moc"
