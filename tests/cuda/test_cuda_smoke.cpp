// GPU smoke test: device query, one CUDA kernel (RMSNorm) and one cuBLAS GEMM (BF16 in, F32 accumulate) against the
// scalar references. Labelled `gpu`: skipped (exit 77) without a GPU. With FT_TEST_PERF=1 the perf* cases time the
// same work and print achieved GB/s and TFLOP/s.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "ft/gpu.h"
#include "ft_test.h"
#include "kernel_check.h"
#include "ref/matmul.h"
#include "ref/rms_norm.h"

#ifdef FT_HAVE_CUDA
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "cuda/rms_norm.cuh"

#define CHECK_CUDA(expr)                                                                     \
    do {                                                                                     \
        const cudaError_t e_ = (expr);                                                       \
        QVERIFY2(e_ == cudaSuccess, (std::string(#expr) + ": " + cudaGetErrorString(e_)).c_str()); \
    } while (0)
#define CHECK_CUBLAS(expr)                                                                   \
    do {                                                                                     \
        const cublasStatus_t s_ = (expr);                                                    \
        QVERIFY2(s_ == CUBLAS_STATUS_SUCCESS, (std::string(#expr) + ": " + cublasGetStatusString(s_)).c_str()); \
    } while (0)

namespace {
template <typename T>
struct DeviceBuffer {
    T* p = nullptr;
    std::size_t n = 0;
    explicit DeviceBuffer(std::size_t n_) : n(n_) {
        if (cudaMalloc(&p, n * sizeof(T)) != cudaSuccess) p = nullptr;
    }
    ~DeviceBuffer() { cudaFree(p); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

bool perf_mode() {
    const char* v = std::getenv("FT_TEST_PERF");
    return v && *v == '1';
}
}  // namespace
#endif

class TestCudaSmoke : public QObject {
    Q_OBJECT
private slots:
    void deviceQuery() {
        const auto gpus = ft::gpu_devices();
        QVERIFY(!gpus.empty());
        for (const auto& g : gpus) {
            qInfo("GPU %d: %s sm_%d%d, %d SMs, %.1f GiB total, %.1f GiB free, driver %d, runtime %d", g.index,
                  g.name.c_str(), g.cc_major, g.cc_minor, g.multiprocessors, g.total_bytes / 1073741824.0,
                  g.free_bytes / 1073741824.0, g.driver_version, g.runtime_version);
            QVERIFY(g.total_bytes > 0);
            QVERIFY(g.free_bytes <= g.total_bytes);
            QVERIFY(g.cc_major >= 7);
        }
    }

#ifdef FT_HAVE_CUDA
    void rmsNormMatchesReference_data() {
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        for (int cols : {1, 31, 128, 2048, 4096, 7168})
            for (int rows : {1, 5, 64}) QTest::addRow("%dx%d", rows, cols) << rows << cols;
    }
    void rmsNormMatchesReference() {
        QFETCH(int, rows);
        QFETCH(int, cols);
        const std::size_t n = std::size_t(rows) * cols;
        const auto x = ft::test::random_floats(n, 11 + rows + cols, -3.f, 3.f);
        const auto w = ft::test::random_floats(cols, 5 + cols, 0.5f, 1.5f);
        std::vector<float> want(n);
        ft::kernels::ref::rms_norm_f32(x.data(), w.data(), want.data(), rows, cols, 1e-6f);

        constexpr std::size_t guard = ft::test::GuardedOutput::kGuard;
        DeviceBuffer<float> dx(n), dw(cols), dy(n + guard);
        QVERIFY(dx.p && dw.p && dy.p);
        ft::test::GuardedOutput got(n);
        CHECK_CUDA(cudaMemcpy(dx.p, x.data(), n * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dw.p, w.data(), cols * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dy.p, got.ptr(), (n + guard) * 4, cudaMemcpyHostToDevice));  // guards on device
        CHECK_CUDA(ft::kernels::cuda::rms_norm_f32(dx.p, dw.p, dy.p, rows, cols, 1e-6f, nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemcpy(got.ptr(), dy.p, (n + guard) * 4, cudaMemcpyDeviceToHost));
        QVERIFY2(got.guards_intact(), "kernel wrote past the end of its output");
        QVERIFY(got.all_written());
        const auto err = ft::test::compare(got.ptr(), want.data(), n);
        QVERIFY2(err.finite && err.max_rel < 2e-5 + 1e-3 * (cols > 4096), err.str().c_str());
    }

    // rms_norm_rows_f32 in place on the first cols of rows ld floats apart (MiniMax-M2's q and k inside the packed
    // q|k|v rows): the normed part as the reference, the rest of every row untouched.
    void rmsNormRowsInPlace_data() {
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        QTest::addColumn<int>("ld");
        QTest::addRow("decode, M2.5 q 6144 of 8192") << 1 << 6144 << 8192;
        QTest::addRow("prefill, M2.5 k 1024 at 6144 of 8192") << 37 << 1024 << 8192;
        QTest::addRow("odd 33 of 50") << 5 << 33 << 50;
    }
    void rmsNormRowsInPlace() {
        QFETCH(int, rows);
        QFETCH(int, cols);
        QFETCH(int, ld);
        const std::size_t n = std::size_t(rows) * ld;
        const auto x = ft::test::random_floats(n, 17 + rows + cols, -3.f, 3.f);
        const auto w = ft::test::random_floats(cols, 9 + cols, 0.5f, 1.5f);
        std::vector<float> want = x;
        for (int r = 0; r < rows; ++r)
            ft::kernels::ref::rms_norm_f32(x.data() + std::size_t(r) * ld, w.data(), want.data() + std::size_t(r) * ld, 1, cols, 1e-6f);
        DeviceBuffer<float> dx(n), dw(cols);
        QVERIFY(dx.p && dw.p);
        CHECK_CUDA(cudaMemcpy(dx.p, x.data(), n * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dw.p, w.data(), cols * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(ft::kernels::cuda::rms_norm_rows_f32(dx.p, ld, dw.p, dx.p, ld, rows, cols, 1e-6f, nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        std::vector<float> got(n);
        CHECK_CUDA(cudaMemcpy(got.data(), dx.p, n * 4, cudaMemcpyDeviceToHost));
        for (int r = 0; r < rows; ++r)
            for (int c = cols; c < ld; ++c)
                QCOMPARE(got[std::size_t(r) * ld + c], x[std::size_t(r) * ld + c]);
        const auto err = ft::test::compare(got.data(), want.data(), n);
        QVERIFY2(err.finite && err.max_rel < 2e-5, err.str().c_str());
        QCOMPARE(ft::kernels::cuda::rms_norm_rows_f32(dx.p, cols - 1, dw.p, dx.p, ld, rows, cols, 1e-6f, nullptr),
                 cudaErrorInvalidValue);
    }

    // The MoE input norm fused with an F32 router: xn bit-equal to rms_norm_f32's, logits as a double dot of it.
    void rmsNormRouterMatchesTwoSteps_data() {
        QTest::addColumn<int>("tokens");
        QTest::addColumn<int>("cols");
        QTest::addColumn<int>("rows");
        QTest::addRow("decode, qwen3 2048 -> 128") << 1 << 2048 << 128;
        QTest::addRow("3 tokens, 7168 -> 256") << 3 << 7168 << 256;
        QTest::addRow("2 tokens, 16384 -> 5 (64 KiB shared)") << 2 << 16384 << 5;
        QTest::addRow("1 token, 12 -> 33") << 1 << 12 << 33;
    }
    void rmsNormRouterMatchesTwoSteps() {
        QFETCH(int, tokens);
        QFETCH(int, cols);
        QFETCH(int, rows);
        const std::size_t n = std::size_t(tokens) * cols;
        const auto x = ft::test::random_floats(n, 3 + cols, -3.f, 3.f);
        const auto w = ft::test::random_floats(cols, 4 + cols, 0.5f, 1.5f);
        const auto r = ft::test::random_floats(std::size_t(rows) * cols, 6 + rows, -0.1f, 0.1f);
        DeviceBuffer<float> dx(n), dw(cols), dr(std::size_t(rows) * cols), dxn(n), dxn2(n), dl(std::size_t(tokens) * rows + 1);
        QVERIFY(dx.p && dw.p && dr.p && dxn.p && dxn2.p && dl.p);
        CHECK_CUDA(cudaMemcpy(dx.p, x.data(), n * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dw.p, w.data(), std::size_t(cols) * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dr.p, r.data(), r.size() * 4, cudaMemcpyHostToDevice));
        const float guard = -12345.f;
        std::vector<float> lg(std::size_t(tokens) * rows + 1, guard);
        CHECK_CUDA(cudaMemcpy(dl.p, lg.data(), lg.size() * 4, cudaMemcpyHostToDevice));
        QVERIFY(ft::kernels::cuda::rms_norm_router_supported(dx.p, dw.p, dr.p, cols, cols, dxn.p));
        CHECK_CUDA(ft::kernels::cuda::rms_norm_router_f32(dx.p, dw.p, 1e-6f, tokens, cols, dr.p, cols, rows, dl.p, dxn.p,
                                                          nullptr));
        CHECK_CUDA(ft::kernels::cuda::rms_norm_f32(dx.p, dw.p, dxn2.p, tokens, cols, 1e-6f, nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        std::vector<float> xn(n), xn2(n);
        CHECK_CUDA(cudaMemcpy(xn.data(), dxn.p, n * 4, cudaMemcpyDeviceToHost));
        CHECK_CUDA(cudaMemcpy(xn2.data(), dxn2.p, n * 4, cudaMemcpyDeviceToHost));
        CHECK_CUDA(cudaMemcpy(lg.data(), dl.p, lg.size() * 4, cudaMemcpyDeviceToHost));
        QVERIFY2(std::memcmp(xn.data(), xn2.data(), n * 4) == 0, "xn differs from rms_norm_f32's");
        QCOMPARE(lg.back(), guard);
        double worst = 0;
        for (int t = 0; t < tokens; ++t)
            for (int o = 0; o < rows; ++o) {
                double want = 0;
                for (int c = 0; c < cols; ++c)
                    want += double(r[std::size_t(o) * cols + c]) * double(xn[std::size_t(t) * cols + c]);
                worst = std::max(worst, std::abs(double(lg[std::size_t(t) * rows + o]) - want));
            }
        QVERIFY2(worst < 1e-4, qPrintable(QString("max |logit error| %1").arg(worst)));
        // A misaligned row is refused, not read wrong.
        QVERIFY(!ft::kernels::cuda::rms_norm_router_supported(dx.p + 1, dw.p, dr.p, cols, cols, dxn.p));
        QCOMPARE(ft::kernels::cuda::rms_norm_router_f32(dx.p + 1, dw.p, 1e-6f, 1, cols, dr.p, cols, rows, dl.p, dxn.p,
                                                        nullptr),
                 cudaErrorInvalidValue);
    }

    void cublasGemmBf16MatchesReference_data() {
        QTest::addColumn<int>("m");
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("k");
        QTest::addRow("1x512x2048 (decode)") << 1 << 512 << 2048;
        QTest::addRow("17x768x2048") << 17 << 768 << 2048;
        QTest::addRow("128x256x512") << 128 << 256 << 512;
        QTest::addRow("64x1000x333 (odd)") << 64 << 1000 << 333;
    }
    void cublasGemmBf16MatchesReference() {
        // racecheck runs (scripts/gpu/run.sh) check our kernels only: cuBLAS's own sm90 kernels report benign
        // shared-memory hazards there, and excluding them by name crashes the sanitizer.
        if (std::getenv("FT_SANITIZER_SKIP_VENDOR")) QSKIP("vendor kernel under racecheck");
        QFETCH(int, m);
        QFETCH(int, n);
        QFETCH(int, k);
        // Inputs rounded to BF16 first, so the reference sees exactly what the GPU sees.
        auto a = ft::test::random_floats(std::size_t(m) * k, 3 + m, -1.f, 1.f);
        auto b = ft::test::random_floats(std::size_t(n) * k, 4 + n, -1.f, 1.f);
        std::vector<__nv_bfloat16> a16(a.size()), b16(b.size());
        for (std::size_t i = 0; i < a.size(); ++i) { a16[i] = __float2bfloat16(a[i]); a[i] = __bfloat162float(a16[i]); }
        for (std::size_t i = 0; i < b.size(); ++i) { b16[i] = __float2bfloat16(b[i]); b[i] = __bfloat162float(b16[i]); }
        std::vector<float> want(std::size_t(m) * n);
        ft::kernels::ref::matmul_f32(a.data(), b.data(), want.data(), m, n, k);

        const std::size_t guard = ft::test::GuardedOutput::kGuard;
        DeviceBuffer<__nv_bfloat16> da(a.size()), db(b.size());
        DeviceBuffer<float> dc(want.size() + guard);
        QVERIFY(da.p && db.p && dc.p);
        ft::test::GuardedOutput got(want.size());
        CHECK_CUDA(cudaMemcpy(da.p, a16.data(), a16.size() * 2, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(db.p, b16.data(), b16.size() * 2, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dc.p, got.ptr(), (want.size() + guard) * 4, cudaMemcpyHostToDevice));
        cublasHandle_t h = nullptr;
        CHECK_CUBLAS(cublasCreate(&h));
        const float alpha = 1.f, beta = 0.f;
        // Row-major C[m,n] = A[m,k] · B[n,k]^T  ==  column-major C^T[n,m] = B[n,k](as k×n col-major)^T · A^T
        const cublasStatus_t st = cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha, db.p, CUDA_R_16BF, k,
                                               da.p, CUDA_R_16BF, k, &beta, dc.p, CUDA_R_32F, n,
                                               CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        cublasDestroy(h);
        CHECK_CUBLAS(st);
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemcpy(got.ptr(), dc.p, (want.size() + guard) * 4, cudaMemcpyDeviceToHost));
        QVERIFY2(got.guards_intact(), "GEMM wrote past the end of its output");
        const auto err = ft::test::compare(got.ptr(), want.data(), want.size());
        // F32 accumulation of exact BF16 products: only summation order differs.
        QVERIFY2(err.finite && err.nmse < 1e-10 && err.max_abs < 1e-3, err.str().c_str());
    }

    void perfRmsNorm() {
        if (!perf_mode()) QSKIP("perf mode off (FT_TEST_PERF=1 runs it)");
        const int rows = 16384, cols = 4096;
        const std::size_t n = std::size_t(rows) * cols;
        DeviceBuffer<float> dx(n), dw(cols), dy(n);
        QVERIFY(dx.p && dw.p && dy.p);
        const auto x = ft::test::random_floats(n, 1);
        const auto w = ft::test::random_floats(cols, 2);
        CHECK_CUDA(cudaMemcpy(dx.p, x.data(), n * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dw.p, w.data(), cols * 4, cudaMemcpyHostToDevice));
        cudaEvent_t e0, e1;
        cudaEventCreate(&e0);
        cudaEventCreate(&e1);
        for (int i = 0; i < 3; ++i) CHECK_CUDA(ft::kernels::cuda::rms_norm_f32(dx.p, dw.p, dy.p, rows, cols, 1e-6f, nullptr));
        const int iters = 50;
        cudaEventRecord(e0);
        for (int i = 0; i < iters; ++i) CHECK_CUDA(ft::kernels::cuda::rms_norm_f32(dx.p, dw.p, dy.p, rows, cols, 1e-6f, nullptr));
        cudaEventRecord(e1);
        CHECK_CUDA(cudaEventSynchronize(e1));
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        // A device-to-device copy of the same bytes is the ceiling it is measured against.
        cudaEventRecord(e0);
        for (int i = 0; i < iters; ++i) CHECK_CUDA(cudaMemcpyAsync(dy.p, dx.p, n * 4, cudaMemcpyDeviceToDevice));
        cudaEventRecord(e1);
        CHECK_CUDA(cudaEventSynchronize(e1));
        float ms_copy = 0;
        cudaEventElapsedTime(&ms_copy, e0, e1);
        const double bytes = 2.0 * n * 4;  // read x, write y
        const double gbs = bytes * iters / (ms * 1e-3) / 1e9, copy_gbs = bytes * iters / (ms_copy * 1e-3) / 1e9;
        qInfo("PERF rms_norm f32 %dx%d: %.1f GB/s (device copy %.1f GB/s, %.0f%% of it)", rows, cols, gbs, copy_gbs,
              100.0 * gbs / copy_gbs);
        cudaEventDestroy(e0);
        cudaEventDestroy(e1);
    }

    void perfGemm() {
        if (!perf_mode()) QSKIP("perf mode off (FT_TEST_PERF=1 runs it)");
        const int m = 8192, n = 8192, k = 8192;
        DeviceBuffer<__nv_bfloat16> da(std::size_t(m) * k), db(std::size_t(n) * k);
        DeviceBuffer<float> dc(std::size_t(m) * n);
        QVERIFY(da.p && db.p && dc.p);
        std::vector<__nv_bfloat16> h(std::size_t(m) * k);
        const auto r = ft::test::random_floats(h.size(), 9);
        for (std::size_t i = 0; i < h.size(); ++i) h[i] = __float2bfloat16(r[i]);
        CHECK_CUDA(cudaMemcpy(da.p, h.data(), h.size() * 2, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(db.p, h.data(), h.size() * 2, cudaMemcpyHostToDevice));
        cublasHandle_t hd = nullptr;
        CHECK_CUBLAS(cublasCreate(&hd));
        const float alpha = 1.f, beta = 0.f;
        auto run = [&] {
            return cublasGemmEx(hd, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha, db.p, CUDA_R_16BF, k, da.p,
                                CUDA_R_16BF, k, &beta, dc.p, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        };
        for (int i = 0; i < 3; ++i) CHECK_CUBLAS(run());
        cudaEvent_t e0, e1;
        cudaEventCreate(&e0);
        cudaEventCreate(&e1);
        const int iters = 10;
        cudaEventRecord(e0);
        for (int i = 0; i < iters; ++i) CHECK_CUBLAS(run());
        cudaEventRecord(e1);
        CHECK_CUDA(cudaEventSynchronize(e1));
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        cublasDestroy(hd);
        const double tflops = 2.0 * m * n * k * iters / (ms * 1e-3) / 1e12;
        qInfo("PERF cuBLAS bf16 GEMM %dx%dx%d (f32 out): %.0f TFLOP/s", m, n, k, tflops);
        cudaEventDestroy(e0);
        cudaEventDestroy(e1);
    }
#endif
};

FT_GPU_TEST_MAIN(TestCudaSmoke)
#include "test_cuda_smoke.moc"
