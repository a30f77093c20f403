// CUDA decode GEMV (gemv, expert_gemv, expert_gate_up) and dequantization (dequantize_rows, convert_f32) against
// the scalar references, per weight type and shape, with guard values after (and between) every output.
// Weights are random valid blocks (random codes and scales, built with the ref packers) and their reference values
// come from ref::dequantize_row; every row differs. MXFP4 (17-byte blocks) is read at every byte alignment: rows of
// an odd number of blocks, matrices placed at odd offsets, gpt-oss's k = 2880 (90 blocks, not a multiple of 256).
// Biases (plain and per expert, indexed by expert id) are checked with gpt-oss's clamped SwiGLU. FT_TEST_PERF=1: perfGemv / perfExperts print GB/s of weights read
// against a device-to-device copy measured in the same run, timed per launch with events and inside a CUDA graph of
// 48 back-to-back launches.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "ft_test.h"
#include "kernel_check.h"
#include "quant_weights.h"
#include "ref/quant.h"
#include "ref/swiglu.h"

#ifdef FT_HAVE_CUDA
#include <cuda_runtime.h>

#include "cuda_test.h"

#include "cuda/dequant.cuh"
#include "cuda/gemv.cuh"

using ft::kernels::DType;
namespace kc = ft::kernels::cuda;
namespace kr = ft::kernels::ref;

namespace {

using ft::test::bytes_of;
using ft::test::Dev;

const char* tname(DType t) { return ft::kernels::dtype_info(t).name.data(); }
using ft::test::make;
using ft::test::Rng;
using ft::test::Weights;

// y[j, r] = W[r] · x[j] in double, plus sum |W x| (the scale of f32 rounding error).
void ref_gemv(const float* w, std::int64_t rows, std::int64_t k, const float* x, std::int64_t ldx, int m,
              std::vector<double>& y, std::vector<double>& mag) {
    y.assign(std::size_t(m * rows), 0.0);
    mag.assign(std::size_t(m * rows), 0.0);
    for (int j = 0; j < m; ++j)
        for (std::int64_t r = 0; r < rows; ++r) {
            double s = 0, a = 0;
            const float* wr = w + r * k;
            const float* xj = x + j * ldx;
            for (std::int64_t i = 0; i < k; ++i) {
                const double p = double(wr[i]) * double(xj[i]);
                s += p;
                a += std::fabs(p);
            }
            y[std::size_t(j * rows + r)] = s;
            mag[std::size_t(j * rows + r)] = a;
        }
}

constexpr double kRelTol = 2e-6;  // of sum |w·x|: f32 accumulation over up to 16384 terms, any summation order

bool perf_mode() {
    const char* v = std::getenv("FT_TEST_PERF");
    return v && *v == '1';
}

std::uint32_t bits(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}
bool is_pattern(float f) { return bits(f) == ft::test::GuardedOutput::kPattern; }

// Distance in units of the last place between two finite floats of the same sign class.
std::int64_t ulp_diff(std::uint32_t a, std::uint32_t b, int width) {
    auto key = [width](std::uint32_t u) -> std::int64_t {
        const std::uint32_t sign = width == 32 ? 0x80000000u : 0x8000u;
        return (u & sign) ? -std::int64_t(u & ~sign) : std::int64_t(u);
    };
    return std::llabs(key(a) - key(b));
}

// Times `launch` per call with events (iters launches) and inside a graph of 48 launches; returns µs per launch.
// The graph part captures n_graphs graphs of 48 launches (launch indices g * 48 + i) and replays them in turn, so
// that weights cycled by launch index do not all sit in L2.
template <class F>
bool time_launches(F launch, int iters, int n_graphs, double& us_events, double& us_graph, std::string& err) {
    cudaStream_t s;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) return err = "stream", false;
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    bool ok = true;
    for (int i = 0; i < 5 && ok; ++i) ok = launch(i, s) == cudaSuccess;
    cudaEventRecord(e0, s);
    for (int i = 0; i < iters && ok; ++i) ok = launch(i, s) == cudaSuccess;
    cudaEventRecord(e1, s);
    ok = ok && cudaEventSynchronize(e1) == cudaSuccess;
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    us_events = ms * 1e3 / iters;
    std::vector<cudaGraph_t> graphs(std::size_t(n_graphs), nullptr);
    std::vector<cudaGraphExec_t> execs(std::size_t(n_graphs), nullptr);
    for (int gi = 0; gi < n_graphs && ok; ++gi) {
        ok = cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal) == cudaSuccess;
        for (int i = 0; i < 48 && ok; ++i) ok = launch(gi * 48 + i, s) == cudaSuccess;
        const cudaError_t ec = cudaStreamEndCapture(s, &graphs[std::size_t(gi)]);
        ok = ok && ec == cudaSuccess &&
             cudaGraphInstantiate(&execs[std::size_t(gi)], graphs[std::size_t(gi)], 0) == cudaSuccess;
    }
    const int reps = std::max(2 * n_graphs, iters / 48);
    if (ok) {
        for (int gi = 0; gi < n_graphs && ok; ++gi) ok = cudaGraphLaunch(execs[std::size_t(gi)], s) == cudaSuccess;
        ok = ok && cudaStreamSynchronize(s) == cudaSuccess;
        cudaEventRecord(e0, s);
        for (int i = 0; i < reps && ok; ++i) ok = cudaGraphLaunch(execs[std::size_t(i % n_graphs)], s) == cudaSuccess;
        cudaEventRecord(e1, s);
        ok = ok && cudaEventSynchronize(e1) == cudaSuccess;
        cudaEventElapsedTime(&ms, e0, e1);
        us_graph = ms * 1e3 / (reps * 48);
    }
    if (!ok) err = cudaGetErrorString(cudaGetLastError());
    for (auto e : execs)
        if (e) cudaGraphExecDestroy(e);
    for (auto gph : graphs)
        if (gph) cudaGraphDestroy(gph);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaStreamDestroy(s);
    return ok;
}

// Device-to-device copy bandwidth (read + write bytes per second) on a 1 GiB buffer.
double copy_gbs() {
    const std::size_t bytes = std::size_t(1) << 30;
    Dev a(bytes), b(bytes);
    if (!a.p || !b.p) return 0;
    cudaMemset(a.p, 1, bytes);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaMemcpy(b.p, a.p, bytes, cudaMemcpyDeviceToDevice);
    const int iters = 10;
    cudaEventRecord(e0);
    for (int i = 0; i < iters; ++i) cudaMemcpyAsync(b.p, a.p, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return 2.0 * double(bytes) * iters / (ms * 1e-3) / 1e9;
}

const DType kAllTypes[] = {DType::F32,  DType::F16,  DType::BF16, DType::Q8_0,
                           DType::Q4_K, DType::Q5_K, DType::Q6_K, DType::MXFP4};
// The types read through quant::decode8 (one generic GEMV unit): fewer shapes each.
const DType kDecodeOnlyTypes[] = {DType::Q4_0,    DType::Q4_1,   DType::Q5_0,    DType::Q5_1,  DType::IQ4_NL,
                                  DType::IQ4_XS,  DType::Q2_K,   DType::Q3_K,    DType::TQ1_0, DType::TQ2_0,
                                  DType::IQ2_XXS, DType::IQ2_XS, DType::IQ2_S,   DType::IQ3_XXS, DType::IQ3_S,
                                  DType::IQ1_S,   DType::IQ1_M};

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
        QTest::addColumn<int>("m");
        QTest::addColumn<int>("ldx");  // 0: k
        QTest::addColumn<int>("ldy");  // 0: rows
        QTest::addColumn<bool>("accumulate");
        QTest::addColumn<int>("pad");  // extra bytes per row
        for (DType t : kAllTypes)
            for (int rows : {1, 13, 768, 2048})
                for (int k : {256, 768, 2048, 7168})
                    for (int m : {1, 2, 4, 8}) {
                        const int ldx = m > 1 ? k + 4 : 0, ldy = m > 1 ? rows + 3 : 0;
                        const bool acc = m == 2 || (m == 1 && rows == 13);
                        QTest::addRow("%s %dx%d m%d", tname(t), rows, k, m)
                            << int(t) << rows << k << m << ldx << ldy << acc << 0;
                    }
        for (DType t : kAllTypes) {
            // Four rows per warp (rows >= 4096) with a partial last row group; odd m; unaligned ldx (scalar staging).
            QTest::addRow("%s 4100x2048 m1", tname(t)) << int(t) << 4100 << 2048 << 1 << 0 << 0 << false << 0;
            QTest::addRow("%s 4100x2048 m2 acc", tname(t)) << int(t) << 4100 << 2048 << 2 << 2049 << 4111 << true << 0;
            QTest::addRow("%s 37x768 m3", tname(t)) << int(t) << 37 << 768 << 3 << 771 << 40 << false << 0;
            QTest::addRow("%s 29x1024 m5", tname(t)) << int(t) << 29 << 1024 << 5 << 1024 << 29 << false << 0;
            QTest::addRow("%s 7x512 m7 acc", tname(t)) << int(t) << 7 << 512 << 7 << 515 << 9 << true << 0;
            // Many row groups: one wave of CTAs looping over them.
            QTest::addRow("%s 20000x256 m1", tname(t)) << int(t) << 20000 << 256 << 1 << 0 << 0 << false << 0;
            QTest::addRow("%s 9000x256 m4", tname(t)) << int(t) << 9000 << 256 << 4 << 0 << 0 << false << 0;
            // k tiles (x larger than the shared-memory tile): max k.
            QTest::addRow("%s 3x16384 m1", tname(t)) << int(t) << 3 << 16384 << 1 << 0 << 0 << false << 0;
            QTest::addRow("%s 5x16384 m8", tname(t)) << int(t) << 5 << 16384 << 8 << 0 << 0 << true << 0;
            // Padded rows (row_bytes > packed size; 16-byte multiple keeps the fast path) and rows at odd offsets.
            QTest::addRow("%s 33x512 pad16", tname(t)) << int(t) << 33 << 512 << 2 << 0 << 0 << false << 16;
            QTest::addRow("%s 33x512 pad2", tname(t)) << int(t) << 33 << 512 << 1 << 0 << 0 << false << 2;
        }
        for (DType t : kDecodeOnlyTypes) {
            for (int rows : {13, 2048})
                for (int k : {256, 2048, 7168})
                    for (int m : {1, 3, 8})
                        QTest::addRow("%s %dx%d m%d", tname(t), rows, k, m)
                            << int(t) << rows << k << m << (m > 1 ? k + 4 : 0) << (m > 1 ? rows + 3 : 0) << (m == 3) << 0;
            QTest::addRow("%s 4100x2048 m2 acc", tname(t)) << int(t) << 4100 << 2048 << 2 << 2049 << 4111 << true << 0;
            QTest::addRow("%s 9000x256 m4", tname(t)) << int(t) << 9000 << 256 << 4 << 0 << 0 << false << 0;
            // m = 1 takes R rows per warp: 4 from 4096 rows (a partial last group), 2 below.
            QTest::addRow("%s 4102x2048 m1", tname(t)) << int(t) << 4102 << 2048 << 1 << 0 << 0 << false << 0;
            QTest::addRow("%s 9001x256 m1 acc", tname(t)) << int(t) << 9001 << 256 << 1 << 0 << 0 << true << 0;
            QTest::addRow("%s 3x16384 m1", tname(t)) << int(t) << 3 << 16384 << 1 << 0 << 0 << false << 0;
            QTest::addRow("%s 33x512 pad1", tname(t)) << int(t) << 33 << 512 << 1 << 0 << 0 << false << 1;
            // ldx not a multiple of 4: the vector units' direct-x kernel is not taken (gemv_decode8_kernel).
            QTest::addRow("%s 37x768 m1 ldx769", tname(t)) << int(t) << 37 << 768 << 1 << 769 << 0 << false << 0;
        }
        // k split across the warps of a CTA (direct-x kernel: 1-8 warps per row group, chosen from rows × k) and
        // the staged kernel where M·k·4 > 64 KiB; m cycles through 1-8.
        for (DType t : kAllTypes) {
            int n = 0;
            for (int rows : {1, 3, 128, 768, 4100})
                for (int k : {256, 768, 2048, 7168, 16384}) {
                    const int m = 1 + (n++ % 8);
                    const int ldx = m > 1 ? k + 4 : 0;
                    QTest::addRow("%s split %dx%d m1", tname(t), rows, k) << int(t) << rows << k << 1 << 0 << 0 << false << 0;
                    if (m > 1)
                        QTest::addRow("%s split %dx%d m%d", tname(t), rows, k, m)
                            << int(t) << rows << k << m << ldx << rows + 1 << (m % 2 == 1) << 0;
                }
        }
        // The MoE router shape.
        for (int m = 1; m <= 8; ++m)
            QTest::addRow("f32 router 128x2048 m%d", m) << int(DType::F32) << 128 << 2048 << m << 0 << 0 << false << 0;
        // Q8_0 rows of an odd number of blocks: rows alternate 4-byte alignment.
        QTest::addRow("q8_0 21x96 m2") << int(DType::Q8_0) << 21 << 96 << 2 << 0 << 0 << false << 0;
        // MXFP4: rows of an odd number of 17-byte blocks start at every byte alignment; gpt-oss shapes (k = 2880 =
        // 90 blocks; the golden fixture's 160 and 96); one block; the matrix at an odd offset (pad 2 puts it 2 bytes
        // in, pad 1 makes every row 1 byte longer).
        for (int m : {1, 2, 3, 8}) {
            QTest::addRow("mxfp4 21x160 m%d", m) << int(DType::MXFP4) << 21 << 160 << m << (m > 1 ? 165 : 0) << 0 << (m == 3) << 0;
            QTest::addRow("mxfp4 2880x2880 m%d", m) << int(DType::MXFP4) << 2880 << 2880 << m << 0 << 0 << (m == 2) << 0;
            QTest::addRow("mxfp4 160x96 m%d", m) << int(DType::MXFP4) << 160 << 96 << m << 0 << 0 << false << 0;
        }
        QTest::addRow("mxfp4 7x32 m1") << int(DType::MXFP4) << 7 << 32 << 1 << 0 << 0 << false << 0;
        QTest::addRow("mxfp4 201x2880 m1 pad1") << int(DType::MXFP4) << 201 << 2880 << 1 << 0 << 0 << false << 1;
        QTest::addRow("mxfp4 19x480 m4 pad2") << int(DType::MXFP4) << 19 << 480 << 4 << 0 << 0 << true << 2;
        QTest::addRow("mxfp4 3x16352 m2 (k tiles)") << int(DType::MXFP4) << 3 << 16352 << 2 << 0 << 0 << false << 0;
        QTest::addRow("q8_0 21x160 m1") << int(DType::Q8_0) << 21 << 160 << 1 << 0 << 0 << false << 0;
        // Generic fallback: k not a multiple of the vector unit.
        QTest::addRow("f32 5x33 (odd k)") << int(DType::F32) << 5 << 33 << 1 << 0 << 0 << false << 0;
        QTest::addRow("f32 9x71 m3 (odd k)") << int(DType::F32) << 9 << 71 << 3 << 75 << 11 << true << 0;
        QTest::addRow("bf16 6x36 m2") << int(DType::BF16) << 6 << 36 << 2 << 0 << 0 << false << 0;
        QTest::addRow("f16 6x20 m1") << int(DType::F16) << 6 << 20 << 1 << 0 << 0 << false << 0;
    }
    void matchesReference() {
        QFETCH(int, type);
        QFETCH(int, rows);
        QFETCH(int, k);
        QFETCH(int, m);
        QFETCH(int, ldx);
        QFETCH(int, ldy);
        QFETCH(bool, accumulate);
        QFETCH(int, pad);
        const DType t = DType(type);
        if (ft::test::sanitizer_run() && std::int64_t(rows) * k > (std::int64_t(1) << 22)) QSKIP("large case: skipped under the sanitizer");
        // The weights of consecutive rows (same type/shape, other m) are reused.
        static Weights cache;
        static std::string cache_key;
        const std::string key = std::to_string(type) + "/" + std::to_string(rows) + "/" + std::to_string(k) + "/" +
                                std::to_string(pad);
        if (key != cache_key) {
            cache = make(t, rows, k, 17u + std::uint32_t(type * 131 + rows * 7 + k + pad), std::size_t(pad));
            cache_key = key;
        }
        const Weights& w = cache;
        const std::int64_t lx = ldx ? ldx : k, ly = ldy ? ldy : rows;
        const auto x = ft::test::random_floats(std::size_t(lx * m), 3 + rows + m, -2.f, 2.f);
        std::vector<double> want, mag;
        ref_gemv(w.deq.data(), rows, k, x.data(), lx, m, want, mag);

        // y: [m, ly] + guards. Outputs start as the pattern (or random values when accumulating); the gaps
        // between rows (ly > rows) and the tail must keep the pattern.
        ft::test::GuardedOutput got(std::size_t(m * ly));
        const auto init = ft::test::random_floats(std::size_t(m * ly), 99 + rows, -1.f, 1.f);
        if (accumulate)
            for (int j = 0; j < m; ++j)
                for (int r = 0; r < rows; ++r) got.data[std::size_t(j * ly + r)] = init[std::size_t(j * ly + r)];
        Dev dw(w.bytes.size() + 16), dx(x.size() * 4), dy(got.data.size() * 4);
        QVERIFY(dw.p && dx.p && dy.p);
        // pad == 2: place the matrix 2 bytes into the allocation (odd alignment) to exercise alignment handling.
        auto* wptr = dw.as<std::uint8_t>() + (pad == 2 ? 2 : 0);
        CHECK_CUDA(cudaMemcpy(wptr, w.bytes.data(), w.bytes.size(), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dx.p, x.data(), x.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dy.p, got.ptr(), got.data.size() * 4, cudaMemcpyHostToDevice));
        kc::GemvParams p;
        p.type = t;
        p.w = wptr;
        p.row_bytes = w.row_bytes;
        p.rows = rows;
        p.k = k;
        p.m = m;
        p.x = dx.as<float>();
        p.ldx = ldx;
        p.y = dy.as<float>();
        p.ldy = ldy;
        p.accumulate = accumulate;
        CHECK_CUDA(kc::gemv(p, nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemcpy(got.ptr(), dy.p, got.data.size() * 4, cudaMemcpyDeviceToHost));
        QVERIFY2(got.guards_intact(), "wrote past the output");
        double worst = 0;
        for (int j = 0; j < m; ++j)
            for (std::int64_t r = 0; r < ly; ++r) {
                const float g = got.data[std::size_t(j * ly + r)];
                if (r >= rows) {
                    QVERIFY2(is_pattern(g), qPrintable(QString("wrote into the gap: y[%1, %2]").arg(j).arg(r)));
                    continue;
                }
                QVERIFY2(!is_pattern(g), qPrintable(QString("not written: y[%1, %2]").arg(j).arg(r)));
                const std::size_t i = std::size_t(j * rows + r);
                const double base = accumulate ? double(init[std::size_t(j * ly + r)]) : 0.0;
                const double err = std::fabs(double(g) - (want[i] + base));
                const double tol = kRelTol * (mag[i] + std::fabs(base)) + 1e-30;
                worst = std::max(worst, err / tol);
                if (!(err <= tol))
                    QFAIL(qPrintable(QString("y[%1, %2] = %3, want %4 (tolerance %5)")
                                         .arg(j).arg(r).arg(double(g), 0, 'g', 9).arg(want[i] + base, 0, 'g', 9)
                                         .arg(tol, 0, 'g', 3)));
            }
        Q_UNUSED(worst);
    }

    // expert_gemv / expert_gate_up: pairs read their expert through ids (device) and an optional slot map.
    void expertsMatchReference_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("k");
        QTest::addColumn<bool>("gate_up");
        QTest::addColumn<bool>("slot_map");
        QTest::addColumn<float>("limit");
        QTest::addColumn<bool>("bias");
        for (DType t : {DType::Q4_K, DType::Q8_0, DType::BF16, DType::Q6_K, DType::Q5_K, DType::F16, DType::F32, DType::MXFP4})
            for (bool sm : {false, true}) {
                QTest::addRow("%s down 2048x768%s", tname(t), sm ? " slots" : "")
                    << int(t) << 2048 << 768 << false << sm << 0.f << false;
                QTest::addRow("%s gate_up 768x2048%s", tname(t), sm ? " slots" : "")
                    << int(t) << 768 << 2048 << true << sm << 0.f << false;
                QTest::addRow("%s gate_up 13x256 limit%s", tname(t), sm ? " slots" : "")
                    << int(t) << 13 << 256 << true << sm << 1.5f << false;
                QTest::addRow("%s down 13x256%s", tname(t), sm ? " slots" : "")
                    << int(t) << 13 << 256 << false << sm << 0.f << false;
                // Few rows, long k: k split across warps (partial sums reduced in shared memory).
                QTest::addRow("%s down 13x4096%s", tname(t), sm ? " slots" : "")
                    << int(t) << 13 << 4096 << false << sm << 0.f << false;
                QTest::addRow("%s gate_up 5x2048 limit%s", tname(t), sm ? " slots" : "")
                    << int(t) << 5 << 2048 << true << sm << 7.f << false;
                // Biases (gpt-oss): added before the clamp / as the down projection's output bias.
                QTest::addRow("%s gate_up 37x512 limit bias%s", tname(t), sm ? " slots" : "")
                    << int(t) << 37 << 512 << true << sm << 7.f << true;
                QTest::addRow("%s down 37x512 bias%s", tname(t), sm ? " slots" : "")
                    << int(t) << 37 << 512 << false << sm << 0.f << true;
            }
        for (DType t : kDecodeOnlyTypes)
            for (bool sm : {false, true}) {
                QTest::addRow("%s down 2048x768%s", tname(t), sm ? " slots" : "")
                    << int(t) << 2048 << 768 << false << sm << 0.f << false;
                QTest::addRow("%s gate_up 768x2048%s", tname(t), sm ? " slots" : "")
                    << int(t) << 768 << 2048 << true << sm << 0.f << false;
                QTest::addRow("%s gate_up 37x512 limit bias%s", tname(t), sm ? " slots" : "")
                    << int(t) << 37 << 512 << true << sm << 7.f << true;
            }
        // gpt-oss's expert shapes (MXFP4 in the released GGUF files): 2880 x 2880, and the golden fixture's.
        for (bool sm : {false, true}) {
            QTest::addRow("mxfp4 gpt-oss gate_up 2880x2880 bias%s", sm ? " slots" : "")
                << int(DType::MXFP4) << 2880 << 2880 << true << sm << 7.f << true;
            QTest::addRow("mxfp4 gpt-oss down 2880x2880 bias%s", sm ? " slots" : "")
                << int(DType::MXFP4) << 2880 << 2880 << false << sm << 0.f << true;
            QTest::addRow("mxfp4 tiny gate_up 96x160 bias%s", sm ? " slots" : "")
                << int(DType::MXFP4) << 96 << 160 << true << sm << 7.f << true;
            QTest::addRow("mxfp4 tiny down 160x96 bias%s", sm ? " slots" : "")
                << int(DType::MXFP4) << 160 << 96 << false << sm << 0.f << true;
        }
    }
    void expertsMatchReference() {
        QFETCH(int, type);
        QFETCH(int, rows);
        QFETCH(int, k);
        QFETCH(bool, gate_up);
        QFETCH(bool, slot_map);
        QFETCH(float, limit);
        QFETCH(bool, bias);
        const DType t = DType(type);
        if (ft::test::sanitizer_run() && std::int64_t(rows) * k > (std::int64_t(1) << 22)) QSKIP("large case: skipped under the sanitizer");
        constexpr int kExperts = 6, kSlots = 8, kTokens = 2, kTopK = 8, kPairs = kTokens * kTopK;
        // Expert e -> slot: a permutation into a larger pool (or identity over the stacked tensor).
        const int slot_of[kExperts] = {5, 0, 7, 2, 6, 3};
        std::vector<Weights> g, u;
        for (int e = 0; e < kExperts; ++e) {
            g.push_back(make(t, rows, k, 1000u + std::uint32_t(e * 17 + type), 0, 0.1f));
            if (gate_up) u.push_back(make(t, rows, k, 2000u + std::uint32_t(e * 29 + type), 0, 0.1f));
        }
        const std::size_t mat_bytes = g[0].bytes.size();
        const std::size_t stride = slot_map ? (mat_bytes + 4096 + 255) / 256 * 256 : mat_bytes;
        const int n_slots = slot_map ? kSlots : kExperts;
        std::vector<std::uint8_t> pool_g(stride * std::size_t(n_slots), 0xAB), pool_u;
        if (gate_up) pool_u.assign(pool_g.size(), 0xCD);
        for (int e = 0; e < kExperts; ++e) {
            const std::size_t off = std::size_t(slot_map ? slot_of[e] : e) * stride;
            std::memcpy(pool_g.data() + off, g[std::size_t(e)].bytes.data(), mat_bytes);
            if (gate_up) std::memcpy(pool_u.data() + off, u[std::size_t(e)].bytes.data(), mat_bytes);
        }
        // ids: pair p = token p / 8; some -1 (computed elsewhere), experts repeat across tokens.
        const std::int32_t ids[kPairs] = {3, 0, -1, 5, 1, 2, -1, 4, 5, 3, 2, 0, 1, -1, -1, 4};
        std::vector<std::int32_t> smap(kExperts);
        for (int e = 0; e < kExperts; ++e) smap[std::size_t(e)] = slot_of[e];
        const std::int64_t ldx = k + (rows == 37 ? 9 : 8), ldy = rows + 2;  // 37 rows: token 1's x not 16-byte aligned
        const auto x = ft::test::random_floats(std::size_t(kTokens * ldx), 7 + rows, -2.f, 2.f);
        // Biases per expert id, rows apart plus a gap (bias_stride > rows): large enough to move values past the clamp.
        const std::int64_t bstride = rows + 5;
        const auto bg = ft::test::random_floats(std::size_t(kExperts * bstride), 31 + rows, -3.f, 3.f);
        const auto bu = ft::test::random_floats(std::size_t(kExperts * bstride), 37 + rows, -3.f, 3.f);
        Dev dbg(bg.size() * 4), dbu(bu.size() * 4);
        QVERIFY(dbg.p && dbu.p);
        CHECK_CUDA(cudaMemcpy(dbg.p, bg.data(), bg.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dbu.p, bu.data(), bu.size() * 4, cudaMemcpyHostToDevice));

        Dev dg(pool_g.size()), du(std::max<std::size_t>(pool_u.size(), 1)), dids(sizeof ids), dmap(smap.size() * 4),
            dx(x.size() * 4);
        ft::test::GuardedOutput got(std::size_t(kPairs * ldy));
        Dev dy(got.data.size() * 4);
        QVERIFY(dg.p && du.p && dids.p && dmap.p && dx.p && dy.p);
        CHECK_CUDA(cudaMemcpy(dg.p, pool_g.data(), pool_g.size(), cudaMemcpyHostToDevice));
        if (gate_up) CHECK_CUDA(cudaMemcpy(du.p, pool_u.data(), pool_u.size(), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dids.p, ids, sizeof ids, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dmap.p, smap.data(), smap.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dx.p, x.data(), x.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dy.p, got.ptr(), got.data.size() * 4, cudaMemcpyHostToDevice));

        kc::ExpertGemvParams p;
        p.w = {t, dg.p, stride, g[0].row_bytes, rows, k};
        p.ids = dids.as<std::int32_t>();
        p.slot_map = slot_map ? dmap.as<std::int32_t>() : nullptr;
        p.n_pairs = kPairs;
        p.x = dx.as<float>();
        p.ldx = ldx;
        p.x_div = kTopK;
        p.y = dy.as<float>();
        p.ldy = ldy;
        if (bias) {
            p.bias = dbg.as<float>();
            p.up_bias = gate_up ? dbu.as<float>() : nullptr;
            p.bias_stride = bstride;
        }
        if (gate_up) {
            const kc::ExpertMatrix up{t, du.p, stride, g[0].row_bytes, rows, k};
            CHECK_CUDA(kc::expert_gate_up(p, up, limit, nullptr));
        } else {
            CHECK_CUDA(kc::expert_gemv(p, nullptr));
        }
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemcpy(got.ptr(), dy.p, got.data.size() * 4, cudaMemcpyDeviceToHost));
        QVERIFY2(got.guards_intact(), "wrote past the output");
        for (int pi = 0; pi < kPairs; ++pi) {
            const float* xr = x.data() + std::size_t(pi / kTopK) * std::size_t(ldx);
            std::vector<double> wg, mg, wu, mu;
            if (ids[pi] >= 0) {
                ref_gemv(g[std::size_t(ids[pi])].deq.data(), rows, k, xr, k, 1, wg, mg);
                if (gate_up) ref_gemv(u[std::size_t(ids[pi])].deq.data(), rows, k, xr, k, 1, wu, mu);
                if (bias)
                    for (std::int64_t r = 0; r < rows; ++r) {
                        const std::size_t b = std::size_t(ids[pi] * bstride + r);
                        wg[std::size_t(r)] += bg[b], mg[std::size_t(r)] += std::fabs(bg[b]);
                        if (gate_up) wu[std::size_t(r)] += bu[b], mu[std::size_t(r)] += std::fabs(bu[b]);
                    }
            }
            for (std::int64_t r = 0; r < ldy; ++r) {
                const float v = got.data[std::size_t(pi * ldy + r)];
                if (r >= rows) {
                    QVERIFY2(is_pattern(v), qPrintable(QString("wrote into the gap: pair %1 row %2").arg(pi).arg(r)));
                    continue;
                }
                QVERIFY2(!is_pattern(v), qPrintable(QString("not written: pair %1 row %2").arg(pi).arg(r)));
                if (ids[pi] < 0) {
                    QVERIFY2(v == 0.f, qPrintable(QString("pair %1 (id -1) row %2 = %3, want 0").arg(pi).arg(r).arg(v)));
                    continue;
                }
                double want, tol;
                const std::size_t i = std::size_t(r);
                if (gate_up) {
                    const float gf = float(wg[i]), uf = float(wu[i]);
                    float h;
                    kr::swiglu_f32(&gf, &uf, &h, 1, limit);
                    want = h;
                    // Error of g and u times the size of the derivatives (|dh/dg| <= 1.1 (|u| + 1), |dh/du| <= |g|+1).
                    tol = kRelTol * (mg[i] * 1.2 * (std::fabs(wu[i]) + 1.0) + mu[i] * (std::fabs(wg[i]) + 1.0)) +
                          1e-6 * std::fabs(want) + 1e-30;
                } else {
                    want = wg[i];
                    tol = kRelTol * mg[i] + 1e-30;
                }
                if (!(std::fabs(double(v) - want) <= tol))
                    QFAIL(qPrintable(QString("pair %1 (expert %2) row %3 = %4, want %5")
                                         .arg(pi).arg(ids[pi]).arg(r).arg(double(v), 0, 'g', 9).arg(want, 0, 'g', 9)));
            }
        }
    }

    void dequantizeMatchesReference_data() {
        QTest::addColumn<int>("src");
        QTest::addColumn<int>("dst");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        for (DType s : kAllTypes)
            for (DType d : {DType::F32, DType::F16, DType::BF16}) {
                QTest::addRow("%s->%s 13x768", tname(s), tname(d)) << int(s) << int(d) << 13 << 768;
                QTest::addRow("%s->%s 3x2048", tname(s), tname(d)) << int(s) << int(d) << 3 << 2048;
                if (s == DType::F32 || s == DType::F16 || s == DType::BF16)
                    QTest::addRow("%s->%s 5x37 (tail)", tname(s), tname(d)) << int(s) << int(d) << 5 << 37;
                if (s == DType::Q8_0) QTest::addRow("q8_0->%s 7x96", tname(d)) << int(s) << int(d) << 7 << 96;
                if (s == DType::MXFP4) {  // rows of 5 and 90 blocks (odd byte lengths, gpt-oss's 2880)
                    QTest::addRow("mxfp4->%s 7x160", tname(d)) << int(s) << int(d) << 7 << 160;
                    QTest::addRow("mxfp4->%s 9x2880", tname(d)) << int(s) << int(d) << 9 << 2880;
                }
            }
        for (DType s : kDecodeOnlyTypes)
            for (DType d : {DType::F32, DType::F16, DType::BF16})
                QTest::addRow("%s->%s 13x768", tname(s), tname(d)) << int(s) << int(d) << 13 << 768;
    }
    void dequantizeMatchesReference() {
        QFETCH(int, src);
        QFETCH(int, dst);
        QFETCH(int, rows);
        QFETCH(int, cols);
        const DType s = DType(src), d = DType(dst);
        // Large enough values that f16 targets hit rounding (and nothing overflows).
        const auto w = make(s, rows, cols, 555u + std::uint32_t(src * 3 + dst + cols), 0, 3.f);
        const std::size_t n = std::size_t(rows * cols), esz = d == DType::F32 ? 4 : 2;
        const std::size_t guard = 64;
        std::vector<std::uint8_t> out((n + guard) * esz, 0xEE);
        Dev dw(w.bytes.size()), dout(out.size());
        QVERIFY(dw.p && dout.p);
        CHECK_CUDA(cudaMemcpy(dw.p, w.bytes.data(), w.bytes.size(), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dout.p, out.data(), out.size(), cudaMemcpyHostToDevice));
        CHECK_CUDA(kc::dequantize_rows(s, dw.p, w.row_bytes, rows, cols, d, dout.p, nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemcpy(out.data(), dout.p, out.size(), cudaMemcpyDeviceToHost));
        for (std::size_t i = n * esz; i < out.size(); ++i) QVERIFY2(out[i] == 0xEE, "wrote past the output");
        std::size_t inexact = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const float ref = w.deq[i];
            std::uint32_t got_bits, want_bits;
            int width = 16;
            if (d == DType::F32) {
                float gv;
                std::memcpy(&gv, out.data() + 4 * i, 4);
                got_bits = bits(gv), want_bits = bits(ref), width = 32;
            } else {
                std::uint16_t h;
                std::memcpy(&h, out.data() + 2 * i, 2);
                got_bits = h;
                want_bits = d == DType::BF16 ? kr::f32_to_bf16(ref) : kr::f32_to_f16(ref);
            }
            if (got_bits == want_bits) continue;
            ++inexact;
            // Same operations as the reference: at most one unit in the last place (a fused multiply-add the host
            // compiler might form, or the rounding tie it moves).
            if (ulp_diff(got_bits, want_bits, width) > 1)
                QFAIL(qPrintable(QString("element %1: bits %2, want %3 (ref %4)")
                                     .arg(i).arg(got_bits, 0, 16).arg(want_bits, 0, 16).arg(double(ref), 0, 'g', 9)));
        }
        if (inexact) qInfo("%zu of %zu elements differ by one ulp", inexact, n);
    }

    void convertIsRoundToNearestEven_data() {
        QTest::addColumn<int>("dst");
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("offset");  // elements: misaligned pointers take the scalar path
        for (DType d : {DType::BF16, DType::F16})
            for (int n : {1, 7, 8, 4096, 100003})
                for (int off : {0, 1}) QTest::addRow("%s n%d off%d", tname(d), n, off) << int(d) << n << off;
    }
    void convertIsRoundToNearestEven() {
        QFETCH(int, dst);
        QFETCH(int, n);
        QFETCH(int, offset);
        const DType d = DType(dst);
        // Random magnitudes over the f16 range and beyond (overflow to inf, subnormals), plus exact ties.
        Rng g(42u + std::uint32_t(n));
        std::vector<float> x(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) {
            std::uint32_t b = (g.next() & 0x807FFFFFu) | (std::uint32_t(g.range(127 - 28, 127 + 17)) << 23);
            if (i % 5 == 1) b = (b & ~0xFFFFu) | 0x8000u;  // bf16 tie
            if (i % 5 == 2) b = (b & ~0x1FFFu) | 0x1000u;  // f16 tie (normal range)
            std::memcpy(&x[std::size_t(i)], &b, 4);
            if (x[std::size_t(i)] == 0.f) x[std::size_t(i)] = 1.f;
        }
        const std::size_t guard = 32;
        std::vector<std::uint16_t> out(std::size_t(n + offset) + guard, 0xEEEE);
        Dev dx((x.size() + 1) * 4), dout(out.size() * 2);
        QVERIFY(dx.p && dout.p);
        CHECK_CUDA(cudaMemcpy(dx.as<float>() + offset, x.data(), x.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dout.p, out.data(), out.size() * 2, cudaMemcpyHostToDevice));
        CHECK_CUDA(kc::convert_f32(dx.as<float>() + offset, n, d, dout.as<std::uint16_t>() + offset, nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemcpy(out.data(), dout.p, out.size() * 2, cudaMemcpyDeviceToHost));
        for (int i = 0; i < offset; ++i) QCOMPARE(out[std::size_t(i)], std::uint16_t(0xEEEE));
        for (std::size_t i = std::size_t(n + offset); i < out.size(); ++i) QCOMPARE(out[i], std::uint16_t(0xEEEE));
        for (int i = 0; i < n; ++i) {
            const float v = x[std::size_t(i)];
            const std::uint16_t want = d == DType::BF16 ? kr::f32_to_bf16(v) : kr::f32_to_f16(v);
            const std::uint16_t got = out[std::size_t(i + offset)];
            if (got != want)
                QFAIL(qPrintable(QString("x[%1] = %2 (bits %3): got %4, want %5")
                                     .arg(i).arg(double(v), 0, 'g', 9).arg(bits(v), 0, 16).arg(got, 0, 16).arg(want, 0, 16)));
        }
    }

    void rejectsWhatItCannotDo() {
        kc::GemvParams p;
        p.type = DType::Q8_1;  // not supported
        p.rows = 1;
        p.k = 256;
        p.row_bytes = 1 << 20;
        QCOMPARE(kc::gemv(p, nullptr), cudaErrorInvalidValue);
        p.type = DType::Q4_K;
        p.k = 100;  // not a whole block
        QCOMPARE(kc::gemv(p, nullptr), cudaErrorInvalidValue);
        p.k = 32768;  // over kGemvMaxK
        QCOMPARE(kc::gemv(p, nullptr), cudaErrorInvalidValue);
        p.k = 256;
        p.m = 0;
        QCOMPARE(kc::gemv(p, nullptr), cudaErrorInvalidValue);
        p.m = kc::kGemvMaxM + 1;
        QCOMPARE(kc::gemv(p, nullptr), cudaErrorInvalidValue);
        p.m = 2;
        p.ldx = 255;  // rows of x overlap
        QCOMPARE(kc::gemv(p, nullptr), cudaErrorInvalidValue);
        p.ldx = 0;
        p.row_bytes = 100;  // shorter than a row
        QCOMPARE(kc::gemv(p, nullptr), cudaErrorInvalidValue);
        kc::ExpertGemvParams e;
        e.w = {DType::Q4_K, nullptr, 0, 144, 4, 256};
        e.n_pairs = 1;
        e.x_div = 0;
        QCOMPARE(kc::expert_gemv(e, nullptr), cudaErrorInvalidValue);
        e.x_div = 1;
        const kc::ExpertMatrix up{DType::Q8_0, nullptr, 0, 272, 4, 256};  // type differs from gate
        QCOMPARE(kc::expert_gate_up(e, up, 0.f, nullptr), cudaErrorInvalidValue);
        QCOMPARE(kc::dequantize_rows(DType::Q8_1, nullptr, 36, 1, 32, DType::F32, nullptr, nullptr),
                 cudaErrorInvalidValue);  // not a supported source
        QCOMPARE(kc::dequantize_rows(DType::MXFP4, nullptr, 16, 1, 32, DType::F32, nullptr, nullptr),
                 cudaErrorInvalidValue);  // row shorter than one 17-byte block
        e.w = {DType::MXFP4, nullptr, 0, 17, 4, 32};
        float b = 0;
        e.up_bias = &b;  // an up bias without up
        QCOMPARE(kc::expert_gemv(e, nullptr), cudaErrorInvalidValue);
        e.up_bias = nullptr;
        e.bias_stride = 3;  // rows overlap
        QCOMPARE(kc::expert_gemv(e, nullptr), cudaErrorInvalidValue);
        e.bias_stride = 0;
        QCOMPARE(kc::dequantize_rows(DType::Q8_0, nullptr, 34, 1, 32, DType::Q8_0, nullptr, nullptr),
                 cudaErrorInvalidValue);
        QCOMPARE(kc::convert_f32(nullptr, 8, DType::F32, nullptr, nullptr), cudaErrorInvalidValue);
        QCOMPARE(cudaGetLastError(), cudaSuccess);  // rejected before any launch
    }

    // gemv's optional bias: y = W·x + b (then y += that with accumulate), per vector.
    void gemvBias_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("m");
        QTest::addColumn<bool>("accumulate");
        for (DType t : {DType::F32, DType::BF16, DType::Q8_0, DType::MXFP4})
            for (int m : {1, 3})
                for (bool acc : {false, true}) QTest::addRow("%s m%d%s", tname(t), m, acc ? " acc" : "") << int(t) << m << acc;
    }
    void gemvBias() {
        QFETCH(int, type);
        QFETCH(int, m);
        QFETCH(bool, accumulate);
        const DType t = DType(type);
        const std::int64_t rows = 75, k = 256;
        const auto w = make(t, rows, k, 77u + std::uint32_t(type));
        const auto x = ft::test::random_floats(std::size_t(k * m), 5, -2.f, 2.f);
        const auto b = ft::test::random_floats(std::size_t(rows), 6, -1.f, 1.f);
        const auto init = ft::test::random_floats(std::size_t(rows * m), 7, -1.f, 1.f);
        std::vector<double> want, mag;
        ref_gemv(w.deq.data(), rows, k, x.data(), k, m, want, mag);
        ft::test::GuardedOutput got(std::size_t(rows * m));
        if (accumulate) std::copy(init.begin(), init.end(), got.data.begin());
        Dev dw(w.bytes.size()), dx(x.size() * 4), db(b.size() * 4), dy(got.data.size() * 4);
        QVERIFY(dw.p && dx.p && db.p && dy.p);
        CHECK_CUDA(cudaMemcpy(dw.p, w.bytes.data(), w.bytes.size(), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dx.p, x.data(), x.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(db.p, b.data(), b.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dy.p, got.ptr(), got.data.size() * 4, cudaMemcpyHostToDevice));
        kc::GemvParams p;
        p.type = t;
        p.w = dw.p;
        p.row_bytes = w.row_bytes;
        p.rows = rows;
        p.k = k;
        p.m = m;
        p.x = dx.as<float>();
        p.y = dy.as<float>();
        p.accumulate = accumulate;
        p.bias = db.as<float>();
        CHECK_CUDA(kc::gemv(p, nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemcpy(got.ptr(), dy.p, got.data.size() * 4, cudaMemcpyDeviceToHost));
        QVERIFY2(got.guards_intact(), "wrote past the output");
        for (int j = 0; j < m; ++j)
            for (std::int64_t r = 0; r < rows; ++r) {
                const std::size_t i = std::size_t(j * rows + r);
                const double base = accumulate ? double(init[i]) : 0.0;
                const double expect = want[i] + double(b[std::size_t(r)]) + base;
                const double tol = kRelTol * (mag[i] + std::fabs(b[std::size_t(r)]) + std::fabs(base)) + 1e-30;
                if (!(std::fabs(double(got.data[i]) - expect) <= tol))
                    QFAIL(qPrintable(QString("y[%1, %2] = %3, want %4").arg(j).arg(r).arg(double(got.data[i]), 0, 'g', 9).arg(expect, 0, 'g', 9)));
            }
    }

    void perfGemv() {
        if (!perf_mode()) QSKIP("perf mode off (FT_TEST_PERF=1 runs it)");
        const double copy = copy_gbs();
        QVERIFY(copy > 0);
        qInfo("PERF device copy: %.0f GB/s (read + write)", copy);
        struct Shape { std::int64_t rows, k; };
        // LM head, attention q / o, expert gate or up / down, router (f32 in the model).
        const Shape shapes[] = {{151936, 2048}, {4096, 2048}, {2048, 4096}, {768, 2048}, {2048, 768}, {128, 2048}};
        const Shape oss[] = {{2880, 2880}, {201088, 2880}};  // gpt-oss's expert and LM head (k = 90 MXFP4 blocks)
        for (const Shape& s : oss)
            for (int m : {1, 4}) {
                const DType t = DType::MXFP4;
                const std::size_t rb = *ft::kernels::dtype_bytes(t, std::uint64_t(s.k));
                const std::size_t bytes = rb * std::size_t(s.rows);
                const int copies = int(std::min<std::size_t>(512, (std::size_t(256) << 20) / bytes + 1));
                Dev dw(bytes * std::size_t(copies)), dx(std::size_t(s.k * m) * 4), dy(std::size_t(s.rows * m) * 4);
                QVERIFY(dw.p && dx.p && dy.p);
                const auto w1 = make(t, std::min<std::int64_t>(s.rows, 64), s.k, 5);
                std::vector<std::uint8_t> h(bytes);
                for (std::size_t off = 0; off < bytes; off += w1.bytes.size())
                    std::memcpy(h.data() + off, w1.bytes.data(), std::min(w1.bytes.size(), bytes - off));
                for (int c = 0; c < copies; ++c)
                    CHECK_CUDA(cudaMemcpy(dw.as<std::uint8_t>() + std::size_t(c) * bytes, h.data(), bytes, cudaMemcpyHostToDevice));
                auto launch = [&](int i, cudaStream_t st) {
                    kc::GemvParams p;
                    p.type = t;
                    p.w = dw.as<std::uint8_t>() + std::size_t(i % copies) * bytes;
                    p.row_bytes = rb;
                    p.rows = s.rows;
                    p.k = s.k;
                    p.m = m;
                    p.x = dx.as<float>();
                    p.y = dy.as<float>();
                    return kc::gemv(p, st);
                };
                const int iters = int(std::clamp<std::size_t>((std::size_t(4) << 30) / bytes, 20, 2000));
                double us = 0, us_graph = 0;
                std::string err;
                QVERIFY2(time_launches(launch, iters, std::max(1, copies / 48), us, us_graph, err), err.c_str());
                const double gbs = double(bytes) / (us * 1e-6) / 1e9, gbs_g = double(bytes) / (us_graph * 1e-6) / 1e9;
                qInfo("PERF gemv mxfp4 gpt-oss %6lldx%-5lld m%d (%7.2f MiB): %8.2f us %6.0f GB/s %3.0f%% of copy | "
                      "graph48: %8.2f us %6.0f GB/s %3.0f%%",
                      (long long)s.rows, (long long)s.k, m, bytes / 1048576.0, us, gbs, 100 * gbs / copy, us_graph,
                      gbs_g, 100 * gbs_g / copy);
            }
        // The decode-only types at the 8k × 2k and at the expert shape, m = 1.
        std::vector<std::pair<DType, Shape>> runs;
        for (DType t : kAllTypes)
            for (const Shape& s : shapes) runs.push_back({t, s});
        for (DType t : kDecodeOnlyTypes)
            for (const Shape& s : {Shape{8192, 2048}, Shape{768, 2048}}) runs.push_back({t, s});
        for (const auto& [t, s] : runs)
                for (int m : {1, 4}) {
                    if (m > 1 && std::find(std::begin(kDecodeOnlyTypes), std::end(kDecodeOnlyTypes), t) !=
                                     std::end(kDecodeOnlyTypes))
                        continue;
                    const std::size_t rb = *ft::kernels::dtype_bytes(t, std::uint64_t(s.k));
                    const std::size_t bytes = rb * std::size_t(s.rows);
                    // Enough copies of the matrix to defeat the L2 cache (≥ 256 MiB streamed per pass).
                    const int copies = int(std::min<std::size_t>(512, (std::size_t(256) << 20) / bytes + 1));
                    Dev dw(bytes * std::size_t(copies)), dx(std::size_t(s.k * m) * 4), dy(std::size_t(s.rows * m) * 4);
                    QVERIFY(dw.p && dx.p && dy.p);
                    // Random valid rows, tiled.
                    const std::int64_t chunk_rows = std::min<std::int64_t>(s.rows, 64);
                    const auto w1 = make(t, chunk_rows, s.k, 5);
                    std::vector<std::uint8_t> h(bytes);
                    for (std::size_t off = 0; off < bytes; off += w1.bytes.size())
                        std::memcpy(h.data() + off, w1.bytes.data(), std::min(w1.bytes.size(), bytes - off));
                    for (int c = 0; c < copies; ++c)
                        CHECK_CUDA(cudaMemcpy(dw.as<std::uint8_t>() + std::size_t(c) * bytes, h.data(), bytes,
                                              cudaMemcpyHostToDevice));
                    const auto x = ft::test::random_floats(std::size_t(s.k * m), 2);
                    CHECK_CUDA(cudaMemcpy(dx.p, x.data(), x.size() * 4, cudaMemcpyHostToDevice));
                    auto launch = [&](int i, cudaStream_t st) {
                        kc::GemvParams p;
                        p.type = t;
                        p.w = dw.as<std::uint8_t>() + std::size_t(i % copies) * bytes;
                        p.row_bytes = rb;
                        p.rows = s.rows;
                        p.k = s.k;
                        p.m = m;
                        p.x = dx.as<float>();
                        p.y = dy.as<float>();
                        return kc::gemv(p, st);
                    };
                    const int iters = int(std::clamp<std::size_t>((std::size_t(4) << 30) / bytes, 20, 2000));
                    double us = 0, us_graph = 0;
                    std::string err;
                    QVERIFY2(time_launches(launch, iters, std::max(1, copies / 48), us, us_graph, err), err.c_str());
                    const double gbs = double(bytes) / (us * 1e-6) / 1e9, gbs_g = double(bytes) / (us_graph * 1e-6) / 1e9;
                    qInfo("PERF gemv %-5s %6lldx%-5lld m%d (%7.2f MiB): %8.2f us %6.0f GB/s %3.0f%% of copy | graph48: "
                          "%8.2f us %6.0f GB/s %3.0f%%",
                          tname(t), (long long)s.rows, (long long)s.k, m, bytes / 1048576.0, us, gbs, 100 * gbs / copy,
                          us_graph, gbs_g, 100 * gbs_g / copy);
                }
    }

    void perfExperts() {
        if (!perf_mode()) QSKIP("perf mode off (FT_TEST_PERF=1 runs it)");
        const double copy = copy_gbs();
        QVERIFY(copy > 0);
        qInfo("PERF device copy: %.0f GB/s (read + write)", copy);
        // One Qwen3-30B-A3B MoE layer: 128 experts, gate/up 768x2048, down 2048x768; 8 pairs (one token, top-8).
        // MXFP4 also as a gpt-oss-120b layer (128 experts of 2880 x 2880, top-4 taken as 8 pairs of two tokens).
        constexpr int kExperts = 128, kPairs = 8, kVariants = 48;
        struct Case { DType t; bool oss; };
        for (Case c : {Case{DType::MXFP4, true}, Case{DType::MXFP4, false}, Case{DType::Q4_K, false}, Case{DType::Q8_0, false},
                       Case{DType::Q6_K, false}, Case{DType::BF16, false}, Case{DType::Q5_K, false},
                       Case{DType::IQ4_XS, false}, Case{DType::Q3_K, false}, Case{DType::Q2_K, false},
                       Case{DType::IQ2_XXS, false}, Case{DType::IQ3_XXS, false}, Case{DType::Q4_0, false}})
            for (bool gate_up : {true, false}) {
                const DType t = c.t;
                const bool oss = c.oss;
                const std::int64_t rows = oss ? 2880 : gate_up ? 768 : 2048, k = oss ? 2880 : gate_up ? 2048 : 768;
                const std::size_t rb = *ft::kernels::dtype_bytes(t, std::uint64_t(k));
                const std::size_t mat = rb * std::size_t(rows);
                Dev dg(mat * kExperts), du(gate_up ? mat * kExperts : 1), dx(std::size_t(k) * 4),
                    dy(std::size_t(rows) * kPairs * 4), dids(std::size_t(kVariants) * kPairs * 4);
                QVERIFY(dg.p && du.p && dx.p && dy.p && dids.p);
                const auto w1 = make(t, 64, k, 9);
                std::vector<std::uint8_t> h(mat * kExperts);
                for (std::size_t off = 0; off < h.size(); off += w1.bytes.size())
                    std::memcpy(h.data() + off, w1.bytes.data(), std::min(w1.bytes.size(), h.size() - off));
                CHECK_CUDA(cudaMemcpy(dg.p, h.data(), h.size(), cudaMemcpyHostToDevice));
                if (gate_up) CHECK_CUDA(cudaMemcpy(du.p, h.data(), h.size(), cudaMemcpyHostToDevice));
                // 48 different top-8 sets (distinct experts within a set).
                std::vector<std::int32_t> ids(std::size_t(kVariants) * kPairs);
                Rng g(3);
                for (int v = 0; v < kVariants; ++v) {
                    std::vector<int> perm(kExperts);
                    std::iota(perm.begin(), perm.end(), 0);
                    for (int i = 0; i < kPairs; ++i) {
                        std::swap(perm[std::size_t(i)], perm[std::size_t(g.range(i, kExperts - 1))]);
                        ids[std::size_t(v * kPairs + i)] = perm[std::size_t(i)];
                    }
                }
                CHECK_CUDA(cudaMemcpy(dids.p, ids.data(), ids.size() * 4, cudaMemcpyHostToDevice));
                const auto x = ft::test::random_floats(std::size_t(k), 4);
                CHECK_CUDA(cudaMemcpy(dx.p, x.data(), x.size() * 4, cudaMemcpyHostToDevice));
                auto launch = [&](int i, cudaStream_t st) {
                    kc::ExpertGemvParams p;
                    p.w = {t, dg.p, mat, rb, rows, k};
                    p.ids = dids.as<std::int32_t>() + (i % kVariants) * kPairs;
                    p.n_pairs = kPairs;
                    p.x = dx.as<float>();
                    p.x_div = kPairs;
                    p.y = dy.as<float>();
                    if (gate_up) return kc::expert_gate_up(p, kc::ExpertMatrix{t, du.p, mat, rb, rows, k}, 0.f, st);
                    return kc::expert_gemv(p, st);
                };
                double us = 0, us_graph = 0;
                std::string err;
                QVERIFY2(time_launches(launch, 960, 1, us, us_graph, err), err.c_str());
                const double bytes = double(mat) * kPairs * (gate_up ? 2 : 1);
                const double gbs = bytes / (us * 1e-6) / 1e9, gbs_g = bytes / (us_graph * 1e-6) / 1e9;
                qInfo("PERF %-14s %-5s%s 8 pairs %4lldx%-4lld (%6.2f MiB): %7.2f us %5.0f GB/s %3.0f%% of copy | graph48: "
                      "%7.2f us %5.0f GB/s %3.0f%%",
                      gate_up ? "expert_gate_up" : "expert_gemv", tname(t), oss ? " gpt-oss" : "", (long long)rows, (long long)k,
                      bytes / 1048576.0, us, gbs, 100 * gbs / copy, us_graph, gbs_g, 100 * gbs_g / copy);
            }
    }
#else
    void builtWithoutCuda() { QSKIP("built without CUDA"); }
#endif
};

FT_GPU_TEST_MAIN(TestGemv)
#include "test_gemv.moc"
