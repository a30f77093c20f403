// CUDA GEMV (decode matrix-vector, weights dequantized in registers) against the scalar reference, per weight type
// and shape, with guard values after the output. FT_TEST_PERF=1: the perf case prints GB/s of weights read
// against a device-to-device copy measured in the same run.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "ft_test.h"
#include "kernel_check.h"
#include "ref/matmul.h"
#include "ref/quant.h"

#ifdef FT_HAVE_CUDA
#include <cuda_runtime.h>

#include "cuda/gemv.cuh"

using ft::kernels::DType;

#define CHECK_CUDA(expr)                                                                                     \
    do {                                                                                                     \
        const cudaError_t e_ = (expr);                                                                       \
        QVERIFY2(e_ == cudaSuccess, (std::string(#expr) + ": " + cudaGetErrorString(e_)).c_str());          \
    } while (0)

namespace {
struct Dev {
    void* p = nullptr;
    explicit Dev(std::size_t bytes) {
        if (cudaMalloc(&p, bytes) != cudaSuccess) p = nullptr;
    }
    ~Dev() { cudaFree(p); }
    template <class T>
    T* as() const { return static_cast<T*>(p); }
};
struct Weights {
    std::vector<std::uint8_t> bytes;
    std::vector<float> deq;
    std::size_t row_bytes = 0;
};
Weights make(DType t, std::int64_t rows, std::int64_t k, std::uint32_t seed) {
    Weights w;
    w.row_bytes = *ft::kernels::dtype_bytes(t, std::uint64_t(k));
    w.bytes.resize(w.row_bytes * std::size_t(rows));
    w.deq.resize(std::size_t(rows * k));
    const auto src = ft::test::random_floats(std::size_t(k), seed, -1.f, 1.f);
    for (std::int64_t r = 0; r < rows; ++r) {
        // Rows differ: scale the source per row so a row mix-up cannot pass.
        std::vector<float> row(src);
        for (auto& v : row) v *= 1.f + 0.01f * float(r % 97);
        ft::kernels::ref::quantize_row(t, row.data(), w.bytes.data() + std::size_t(r) * w.row_bytes, k);
        ft::kernels::ref::dequantize_row(t, w.bytes.data() + std::size_t(r) * w.row_bytes, w.deq.data() + r * k, k);
    }
    return w;
}
bool perf_mode() {
    const char* v = std::getenv("FT_TEST_PERF");
    return v && *v == '1';
}
}  // namespace
#endif

class TestGemv : public QObject {
    Q_OBJECT
private slots:
#ifdef FT_HAVE_CUDA
    void matchesReference_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("k");
        for (DType t : {DType::F32, DType::F16, DType::BF16, DType::Q8_0, DType::Q4_K})
            for (int rows : {1, 13, 768})
                for (int k : {256, 2048, 7168}) {
                    if (k % int(ft::kernels::dtype_info(t).block_elems)) continue;
                    QTest::addRow("%s %dx%d", ft::kernels::dtype_info(t).name.data(), rows, k) << int(t) << rows << k;
                }
        QTest::addRow("q4_K 3x16384 (max k)") << int(DType::Q4_K) << 3 << 16384;
        QTest::addRow("f32 5x33 (odd k)") << int(DType::F32) << 5 << 33;
    }
    void matchesReference() {
        QFETCH(int, type);
        QFETCH(int, rows);
        QFETCH(int, k);
        const DType t = DType(type);
        const auto w = make(t, rows, k, 17 + type + k);
        const auto x = ft::test::random_floats(std::size_t(k), 3 + rows, -2.f, 2.f);
        std::vector<float> want(static_cast<std::size_t>(rows));
        ft::kernels::ref::matmul_f32(x.data(), w.deq.data(), want.data(), 1, rows, k);
        ft::test::GuardedOutput got(static_cast<std::size_t>(rows));
        Dev dw(w.bytes.size()), dx(x.size() * 4), dy(got.data.size() * 4);
        QVERIFY(dw.p && dx.p && dy.p);
        CHECK_CUDA(cudaMemcpy(dw.p, w.bytes.data(), w.bytes.size(), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dx.p, x.data(), x.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dy.p, got.ptr(), got.data.size() * 4, cudaMemcpyHostToDevice));
        ft::kernels::cuda::GemvParams p{t, dw.p, w.row_bytes, rows, k, dx.as<float>(), dy.as<float>()};
        CHECK_CUDA(ft::kernels::cuda::gemv(p, nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemcpy(got.ptr(), dy.p, got.data.size() * 4, cudaMemcpyDeviceToHost));
        QVERIFY2(got.guards_intact(), "wrote past the output");
        QVERIFY(got.all_written());
        const auto err = ft::test::compare(got.ptr(), want.data(), want.size());
        QVERIFY2(err.finite && err.nmse < 1e-10, err.str().c_str());
    }

    void rejectsWhatItCannotDo() {
        ft::kernels::cuda::GemvParams p{DType::Q6_K, nullptr, 0, 1, 256, nullptr, nullptr};
        QCOMPARE(ft::kernels::cuda::gemv(p, nullptr), cudaErrorInvalidValue);
        p.type = DType::Q4_K;
        p.k = 100;  // not a whole block
        QCOMPARE(ft::kernels::cuda::gemv(p, nullptr), cudaErrorInvalidValue);
        p.k = 32768;  // over the shared-memory staging limit
        QCOMPARE(ft::kernels::cuda::gemv(p, nullptr), cudaErrorInvalidValue);
        cudaGetLastError();
    }

    void perfQ4K() {
        if (!perf_mode()) QSKIP("perf mode off (FT_TEST_PERF=1 runs it)");
        // The experts of one Qwen3-30B-A3B layer as one matrix: 128 × 768 rows of 2048 (108 MiB in Q4_K).
        for (DType t : {DType::Q4_K, DType::Q8_0, DType::BF16}) {
            const std::int64_t rows = 128 * 768, k = 2048;
            const std::size_t rb = *ft::kernels::dtype_bytes(t, k), bytes = rb * std::size_t(rows);
            Dev dw(bytes), dx(k * 4), dy(rows * 4), dc(bytes);
            QVERIFY(dw.p && dx.p && dy.p && dc.p);
            std::vector<std::uint8_t> h(bytes);
            const auto w1 = make(t, 64, k, 5);
            for (std::size_t off = 0; off < bytes; off += w1.bytes.size())
                std::memcpy(h.data() + off, w1.bytes.data(), std::min(w1.bytes.size(), bytes - off));
            CHECK_CUDA(cudaMemcpy(dw.p, h.data(), bytes, cudaMemcpyHostToDevice));
            const auto x = ft::test::random_floats(std::size_t(k), 2);
            CHECK_CUDA(cudaMemcpy(dx.p, x.data(), k * 4, cudaMemcpyHostToDevice));
            ft::kernels::cuda::GemvParams p{t, dw.p, rb, rows, k, dx.as<float>(), dy.as<float>()};
            cudaEvent_t e0, e1;
            cudaEventCreate(&e0);
            cudaEventCreate(&e1);
            for (int i = 0; i < 3; ++i) CHECK_CUDA(ft::kernels::cuda::gemv(p, nullptr));
            const int iters = 20;
            cudaEventRecord(e0);
            for (int i = 0; i < iters; ++i) CHECK_CUDA(ft::kernels::cuda::gemv(p, nullptr));
            cudaEventRecord(e1);
            CHECK_CUDA(cudaEventSynchronize(e1));
            float ms = 0, ms_copy = 0;
            cudaEventElapsedTime(&ms, e0, e1);
            cudaEventRecord(e0);
            for (int i = 0; i < iters; ++i) CHECK_CUDA(cudaMemcpyAsync(dc.p, dw.p, bytes, cudaMemcpyDeviceToDevice));
            cudaEventRecord(e1);
            CHECK_CUDA(cudaEventSynchronize(e1));
            cudaEventElapsedTime(&ms_copy, e0, e1);
            const double gbs = double(bytes) * iters / (ms * 1e-3) / 1e9;
            const double copy_gbs = 2.0 * double(bytes) * iters / (ms_copy * 1e-3) / 1e9;  // read + write
            qInfo("PERF gemv %s %lldx%lld (%.0f MiB): %.1f us, %.0f GB/s of weights (device copy %.0f GB/s, %.0f%%)",
                  ft::kernels::dtype_info(t).name.data(), (long long)rows, (long long)k, bytes / 1048576.0,
                  ms * 1e3 / iters, gbs, copy_gbs, 100 * gbs / copy_gbs);
            cudaEventDestroy(e0);
            cudaEventDestroy(e1);
        }
    }
#else
    void builtWithoutCuda() { QSKIP("built without CUDA"); }
#endif
};

FT_GPU_TEST_MAIN(TestGemv)
#include "test_gemv.moc"
