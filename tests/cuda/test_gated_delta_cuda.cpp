// CUDA Gated DeltaNet kernels (cuda/gated_delta.cuh) against the scalar references (ref/gated_delta.h): the delta
// rule's decode step over a batch of sequences whose states sit in shuffled slots of a pool (with a padding token,
// then replayed from a CUDA graph with other slots), its prefill for T = 1, 63, 64, 130, the causal conv's decode
// and prefill, the gated norm, the gates and the state reset at a sequence's start. dk = dv = 128 (Qwen3.6) and
// smaller heads, the tiled value-head order of qwen35moe files; guard values after every output.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "ft_test.h"
#include "kernel_check.h"
#include "ref/gated_delta.h"

#ifdef FT_HAVE_CUDA
#include <cuda_runtime.h>

#include "cuda/gated_delta.cuh"
#include "cuda_test.h"

using ft::kernels::GatedDeltaParams;
namespace ref = ft::kernels::ref;
namespace kc = ft::kernels::cuda;
using ft::test::bytes_of;
using ft::test::Dev;
using ft::test::GuardedOutput;

namespace {

// One batch's layer inputs: qkv rows [T, 2·n_k_heads·dk + n_heads·dv], g, beta [T, n_heads], a pool of states.
struct DeltaCase {
    GatedDeltaParams p;
    std::int64_t T = 0;
    std::vector<float> qkv, g, beta, states;
    std::int64_t row() const { return p.ldq; }
    const float* q(const float* base) const { return base; }
    const float* k(const float* base) const { return base + std::int64_t(p.n_k_heads) * p.dk; }
    const float* v(const float* base) const { return base + 2 * std::int64_t(p.n_k_heads) * p.dk; }
    std::size_t out_size() const { return std::size_t(T * p.n_heads * p.dv); }
};

DeltaCase make_case(int n_heads, int n_k_heads, int dk, int dv, std::int64_t T, bool l2norm, int n_slots,
                    std::uint32_t seed) {
    DeltaCase c;
    c.p.n_heads = n_heads;
    c.p.n_k_heads = n_k_heads;
    c.p.dk = dk;
    c.p.dv = dv;
    c.p.l2norm_qk = l2norm;
    c.p.ldq = c.p.ldk = c.p.ldv = 2 * std::int64_t(n_k_heads) * dk + std::int64_t(n_heads) * dv;
    c.T = T;
    c.qkv = ft::test::random_floats(std::size_t(T * c.row()), seed, -1.f, 1.f);
    if (!l2norm) {  // keep |k| near 1, as the rule needs to stay stable
        const float s = std::sqrt(3.f / float(dk));
        for (std::int64_t t = 0; t < T; ++t)
            for (std::int64_t i = 0; i < 2 * std::int64_t(n_k_heads) * dk; ++i)
                c.qkv[std::size_t(t * c.row() + i)] *= s;
    }
    c.g = ft::test::random_floats(std::size_t(T * n_heads), seed + 1, -0.5f, -0.001f);
    c.beta = ft::test::random_floats(std::size_t(T * n_heads), seed + 2, 0.05f, 0.95f);
    c.states = ft::test::random_floats(std::size_t(n_slots * c.p.state_size()), seed + 3, -1.f, 1.f);
    return c;
}

template <class T>
cudaError_t put(const Dev& d, const std::vector<T>& v) {
    return cudaMemcpy(d.p, v.data(), bytes_of(v), cudaMemcpyHostToDevice);
}
template <class T>
cudaError_t get(std::vector<T>& v, const Dev& d) {
    return cudaMemcpy(v.data(), d.p, bytes_of(v), cudaMemcpyDeviceToHost);
}

// The rows of padding tokens (index < 0) still hold the guard pattern; they are then zeroed in got and want.
bool padding_untouched(GuardedOutput& got, std::vector<float>& want, const std::vector<std::int32_t>& index,
                       std::size_t row) {
    for (std::size_t t = 0; t < index.size(); ++t) {
        if (index[t] >= 0) continue;
        for (std::size_t i = t * row; i < (t + 1) * row; ++i) {
            std::uint32_t bits;
            std::memcpy(&bits, &got.data[i], 4);
            if (bits != GuardedOutput::kPattern) return false;
            got.data[i] = want[i] = 0.f;
        }
    }
    return true;
}

std::string str(const ft::test::ErrorStats& e) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "max_abs %.2e max_rel %.2e nmse %.2e", e.max_abs, e.max_rel, e.nmse);
    return buf;
}

// Values are of order 1: 1e-4 absolute is 1e-4 relative to the outputs' scale.
bool close(const ft::test::ErrorStats& e) { return e.finite && e.max_abs < 1e-4 && e.nmse < 1e-9; }

}  // namespace
#endif

class TestGatedDeltaCuda : public QObject {
    Q_OBJECT
private slots:
#ifdef FT_HAVE_CUDA
    void deltaDecodeMatchesReference_data() {
        QTest::addColumn<int>("nHeads");
        QTest::addColumn<int>("nKHeads");
        QTest::addColumn<int>("dk");
        QTest::addColumn<int>("dv");
        QTest::addRow("Qwen3.6 32 heads on 16 key heads, 128/128") << 32 << 16 << 128 << 128;
        QTest::addRow("4 heads on 2 key heads, 64/64") << 4 << 2 << 64 << 64;
        QTest::addRow("3 heads 32/48 (a partial column slice)") << 3 << 3 << 32 << 48;
    }
    void deltaDecodeMatchesReference() {
        QFETCH(int, nHeads);
        QFETCH(int, nKHeads);
        QFETCH(int, dk);
        QFETCH(int, dv);
        // Three sequences in shuffled slots of a pool of five and a padding token; then, replayed from a graph,
        // another batch: the same launch reads its new slots from device memory.
        const std::vector<std::vector<std::int32_t>> batches = {{3, 0, -1, 4}, {0, 4, 2, -1}};
        const int B = 4, n_slots = 5;
        auto c = make_case(nHeads, nKHeads, dk, dv, B, true, n_slots, 21);
        const std::size_t out_row = std::size_t(nHeads * dv);
        Dev d_qkv(bytes_of(c.qkv)), d_g(bytes_of(c.g)), d_beta(bytes_of(c.beta)), d_states(bytes_of(c.states)),
            d_slot(B * 4), d_out((c.out_size() + GuardedOutput::kGuard) * 4);
        CHECK_CUDA(put(d_qkv, c.qkv));
        CHECK_CUDA(put(d_g, c.g));
        CHECK_CUDA(put(d_beta, c.beta));
        CHECK_CUDA(put(d_states, c.states));
        const float* dq = d_qkv.as<float>();
        auto launch = [&](cudaStream_t stream) {
            return kc::gated_delta_decode(c.p, c.q(dq), c.k(dq), c.v(dq), d_g.as<float>(), d_beta.as<float>(), B,
                                          d_slot.as<std::int32_t>(), d_states.as<float>(), d_out.as<float>(), stream);
        };
        cudaStream_t stream = nullptr;
        CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        cudaGraphExec_t exec = nullptr;
        auto want_states = c.states;
        for (std::size_t b = 0; b < batches.size(); ++b) {
            const auto& slot = batches[b];
            std::vector<float> want(c.out_size());
            for (int t = 0; t < B; ++t) {  // the reference steps each sequence alone
                if (slot[std::size_t(t)] < 0) continue;
                const float* row = c.qkv.data() + t * c.row();
                ref::gated_delta_f32(c.p, c.q(row), c.k(row), c.v(row), c.g.data() + t * nHeads,
                                     c.beta.data() + t * nHeads, 1,
                                     want_states.data() + slot[std::size_t(t)] * c.p.state_size(),
                                     want.data() + std::size_t(t) * out_row);
            }
            GuardedOutput got(want.size());
            CHECK_CUDA(put(d_out, got.data));
            CHECK_CUDA(put(d_slot, slot));
            if (b == 0) {
                CHECK_CUDA(launch(stream));
            } else {
                cudaGraph_t graph = nullptr;
                CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
                const cudaError_t captured = launch(stream);
                const cudaError_t end = cudaStreamEndCapture(stream, &graph);
                CHECK_CUDA(captured);
                CHECK_CUDA(end);
                CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
                CHECK_CUDA(cudaGraphDestroy(graph));
                CHECK_CUDA(cudaGraphLaunch(exec, stream));
            }
            CHECK_CUDA(cudaStreamSynchronize(stream));
            std::vector<float> got_states(c.states.size());
            CHECK_CUDA(get(got.data, d_out));
            CHECK_CUDA(get(got_states, d_states));
            QVERIFY(got.guards_intact());
            QVERIFY2(padding_untouched(got, want, slot, out_row), "a padding token's output was written");
            const auto err = ft::test::compare(got.ptr(), want.data(), want.size());
            const auto serr = ft::test::compare(got_states.data(), want_states.data(), want_states.size());
            qInfo("decode %s%s: out %s; states %s", QTest::currentDataTag(), b ? " (graph replay)" : "",
                  str(err).c_str(), str(serr).c_str());
            QVERIFY2(close(err), str(err).c_str());
            QVERIFY2(close(serr), str(serr).c_str());  // the slots of no token are unchanged
        }
        CHECK_CUDA(cudaGraphExecDestroy(exec));
        CHECK_CUDA(cudaStreamDestroy(stream));
    }

    void deltaPrefillMatchesReference_data() {
        QTest::addColumn<int>("nHeads");
        QTest::addColumn<int>("nKHeads");
        QTest::addColumn<int>("dk");
        QTest::addColumn<int>("dv");
        QTest::addColumn<bool>("l2norm");
        QTest::addColumn<int>("T");
        QTest::addColumn<bool>("tiled");
        for (int T : {1, 63, 64, 130}) {
            QTest::addRow("4 heads on 2 key heads, 128/128, T %d", T) << 4 << 2 << 128 << 128 << true << T << false;
            QTest::addRow("3 heads 32/64, no l2norm, T %d", T) << 3 << 3 << 32 << 64 << false << T << false;
        }
        QTest::addRow("2 heads 256/96, T 40") << 2 << 1 << 256 << 96 << true << 40 << false;
        QTest::addRow("6 heads on 2 key heads tiled (qwen35moe files), 64/32, T 70") << 6 << 2 << 64 << 32 << true << 70 << true;
    }
    void deltaPrefillMatchesReference() {
        QFETCH(int, nHeads);
        QFETCH(int, nKHeads);
        QFETCH(int, dk);
        QFETCH(int, dv);
        QFETCH(bool, l2norm);
        QFETCH(int, T);
        QFETCH(bool, tiled);
        auto c = make_case(nHeads, nKHeads, dk, dv, T, l2norm, 1, 31);
        c.p.v_tiled = tiled;
        std::vector<float> want(c.out_size());
        auto want_state = c.states;
        ref::gated_delta_f32(c.p, c.q(c.qkv.data()), c.k(c.qkv.data()), c.v(c.qkv.data()), c.g.data(), c.beta.data(), T,
                             want_state.data(), want.data());
        GuardedOutput got(want.size());
        Dev d_qkv(bytes_of(c.qkv)), d_g(bytes_of(c.g)), d_beta(bytes_of(c.beta)), d_state(bytes_of(c.states)),
            d_out(bytes_of(got.data));
        CHECK_CUDA(put(d_qkv, c.qkv));
        CHECK_CUDA(put(d_g, c.g));
        CHECK_CUDA(put(d_beta, c.beta));
        CHECK_CUDA(put(d_state, c.states));
        CHECK_CUDA(put(d_out, got.data));
        const float* dq = d_qkv.as<float>();
        CHECK_CUDA(kc::gated_delta_prefill(c.p, c.q(dq), c.k(dq), c.v(dq), d_g.as<float>(), d_beta.as<float>(), T,
                                           d_state.as<float>(), d_out.as<float>(), nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        std::vector<float> got_state(c.states.size());
        CHECK_CUDA(get(got.data, d_out));
        CHECK_CUDA(get(got_state, d_state));
        QVERIFY(got.guards_intact());
        QVERIFY(got.all_written());
        const auto err = ft::test::compare(got.ptr(), want.data(), want.size());
        const auto serr = ft::test::compare(got_state.data(), want_state.data(), want_state.size());
        qInfo("prefill %s: out %s; state %s", QTest::currentDataTag(), str(err).c_str(), str(serr).c_str());
        QVERIFY2(close(err), str(err).c_str());
        QVERIFY2(close(serr), str(serr).c_str());
    }

    // Tokens of four sequences in shuffled slots of a pool of five, one of them padding; 300 channels (a partial
    // block of 256), x rows with a stride.
    void convDecodeMatchesReference() {
        const int C = 300, K = 4, H = K - 1, n_slots = 5;
        const std::vector<std::int32_t> seq = {2, -1, 0, 4};
        const int B = int(seq.size());
        const std::int64_t ldx = C + 5;
        const auto x = ft::test::random_floats(std::size_t(B * ldx), 61, -2.f, 2.f);
        const auto w = ft::test::random_floats(std::size_t(C * K), 62, -1.f, 1.f);
        const auto states = ft::test::random_floats(std::size_t(n_slots * C * H), 63, -2.f, 2.f);
        auto want_states = states;
        std::vector<float> want(std::size_t(B * C));
        for (int t = 0; t < B; ++t)
            if (seq[std::size_t(t)] >= 0)
                ref::causal_conv1d_silu_f32(x.data() + t * ldx, ldx, 1, C, K, w.data(),
                                            want_states.data() + seq[std::size_t(t)] * C * H, want.data() + t * C, C);
        GuardedOutput got(want.size());
        Dev d_x(bytes_of(x)), d_w(bytes_of(w)), d_states(bytes_of(states)), d_seq(bytes_of(seq)),
            d_y(bytes_of(got.data));
        CHECK_CUDA(put(d_x, x));
        CHECK_CUDA(put(d_w, w));
        CHECK_CUDA(put(d_states, states));
        CHECK_CUDA(put(d_seq, seq));
        CHECK_CUDA(put(d_y, got.data));
        CHECK_CUDA(kc::causal_conv1d_silu_decode(d_x.as<float>(), ldx, B, C, K, d_w.as<float>(),
                                                 d_seq.as<std::int32_t>(), d_states.as<float>(), d_y.as<float>(), C,
                                                 nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        std::vector<float> got_states(states.size());
        CHECK_CUDA(get(got.data, d_y));
        CHECK_CUDA(get(got_states, d_states));
        QVERIFY(got.guards_intact());
        QVERIFY2(padding_untouched(got, want, seq, C), "a padding token's output was written");
        const auto err = ft::test::compare(got.ptr(), want.data(), want.size());
        qInfo("conv decode: %s", str(err).c_str());
        QVERIFY2(close(err), str(err).c_str());
        QCOMPARE(got_states, want_states);  // copies of inputs: exact
    }

    void convPrefillMatchesReference_data() {
        QTest::addColumn<int>("T");
        for (int T : {1, 2, 37, 130}) QTest::addRow("T %d", T) << T;
    }
    void convPrefillMatchesReference() {
        QFETCH(int, T);
        const int C = 300, K = 4, H = K - 1;
        const std::int64_t ldx = C + 5;
        const auto x = ft::test::random_floats(std::size_t(T * ldx), 71, -2.f, 2.f);
        const auto w = ft::test::random_floats(std::size_t(C * K), 72, -1.f, 1.f);
        const auto state = ft::test::random_floats(std::size_t(C * H), 73, -2.f, 2.f);
        auto want_state = state;
        std::vector<float> want(std::size_t(T * C));
        ref::causal_conv1d_silu_f32(x.data(), ldx, T, C, K, w.data(), want_state.data(), want.data(), C);
        GuardedOutput got(want.size());
        Dev d_x(bytes_of(x)), d_w(bytes_of(w)), d_state(bytes_of(state)), d_y(bytes_of(got.data));
        CHECK_CUDA(put(d_x, x));
        CHECK_CUDA(put(d_w, w));
        CHECK_CUDA(put(d_state, state));
        CHECK_CUDA(put(d_y, got.data));
        CHECK_CUDA(kc::causal_conv1d_silu_prefill(d_x.as<float>(), ldx, T, C, K, d_w.as<float>(), d_state.as<float>(),
                                                  d_y.as<float>(), C, nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        std::vector<float> got_state(state.size());
        CHECK_CUDA(get(got.data, d_y));
        CHECK_CUDA(get(got_state, d_state));
        QVERIFY(got.guards_intact());
        QVERIFY(got.all_written());
        const auto err = ft::test::compare(got.ptr(), want.data(), want.size());
        qInfo("conv prefill T %d: %s", T, str(err).c_str());
        QVERIFY2(close(err), str(err).c_str());
        QCOMPARE(got_state, want_state);
    }

    void gatedNormMatchesReference_data() {
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        QTest::addRow("Qwen3.6 3 tokens × 32 heads of 128") << 96 << 128;
        QTest::addRow("5 rows of 40") << 5 << 40;
    }
    void gatedNormMatchesReference() {
        QFETCH(int, rows);
        QFETCH(int, cols);
        const auto x = ft::test::random_floats(std::size_t(rows * cols), 81, -3.f, 3.f);
        const auto z = ft::test::random_floats(std::size_t(rows * cols), 82, -8.f, 8.f);
        const auto w = ft::test::random_floats(std::size_t(cols), 83, 0.5f, 1.5f);
        std::vector<float> want(x.size());
        ref::gated_rms_norm_f32(x.data(), z.data(), w.data(), want.data(), rows, cols, 1e-6f);
        GuardedOutput got(want.size());
        Dev d_x(bytes_of(x)), d_z(bytes_of(z)), d_w(bytes_of(w)), d_y(bytes_of(got.data));
        CHECK_CUDA(put(d_x, x));
        CHECK_CUDA(put(d_z, z));
        CHECK_CUDA(put(d_w, w));
        CHECK_CUDA(put(d_y, got.data));
        CHECK_CUDA(kc::gated_rms_norm_f32(d_x.as<float>(), d_z.as<float>(), d_w.as<float>(), d_y.as<float>(), rows,
                                          cols, 1e-6f, nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(get(got.data, d_y));
        QVERIFY(got.guards_intact());
        QVERIFY(got.all_written());
        const auto err = ft::test::compare(got.ptr(), want.data(), want.size());
        QVERIFY2(err.finite && err.max_rel < 1e-4, str(err).c_str());  // outputs up to ~20
    }

    // The gates from [b | a] rows and from Qwen3-Next's grouped ba, 3 tokens × 8 heads (R = 2), rows with a stride.
    void gatesMatchReference() {
        const int NV = 8, T = 3;
        const std::int64_t ld = 2 * NV + 3;
        const auto ba = ft::test::random_floats(std::size_t(T * ld), 91, -25.f, 25.f);
        const auto dt = ft::test::random_floats(std::size_t(NV), 92, -1.f, 1.f);
        const auto A = ft::test::random_floats(std::size_t(NV), 93, -16.f, -1.f);
        for (int group : {0, 2}) {
            std::vector<float> wb(std::size_t(T * NV)), wg(std::size_t(T * NV));
            ref::gated_delta_gates_f32(ba.data(), ld, T, NV, group, dt.data(), A.data(), wb.data(), wg.data());
            GuardedOutput gb(wb.size()), gg(wg.size());
            Dev d_ba(bytes_of(ba)), d_dt(bytes_of(dt)), d_a(bytes_of(A)), d_b(bytes_of(gb.data)), d_g(bytes_of(gg.data));
            CHECK_CUDA(put(d_ba, ba));
            CHECK_CUDA(put(d_dt, dt));
            CHECK_CUDA(put(d_a, A));
            CHECK_CUDA(put(d_b, gb.data));
            CHECK_CUDA(put(d_g, gg.data));
            CHECK_CUDA(kc::gated_delta_gates(d_ba.as<float>(), ld, T, NV, group, d_dt.as<float>(), d_a.as<float>(),
                                             d_b.as<float>(), d_g.as<float>(), nullptr));
            CHECK_CUDA(cudaDeviceSynchronize());
            CHECK_CUDA(get(gb.data, d_b));
            CHECK_CUDA(get(gg.data, d_g));
            QVERIFY(gb.guards_intact() && gg.guards_intact());
            QVERIFY(gb.all_written() && gg.all_written());
            const auto eb = ft::test::compare(gb.ptr(), wb.data(), wb.size()), eg = ft::test::compare(gg.ptr(), wg.data(), wg.size());
            qInfo("gates group %d: beta %s; g %s", group, str(eb).c_str(), str(eg).c_str());
            QVERIFY2(eb.finite && eb.max_rel < 1e-5, str(eb).c_str());
            QVERIFY2(eg.finite && eg.max_rel < 1e-5, str(eg).c_str());
        }
    }

    // Only the slots of tokens at position 0 are zeroed (conv window and delta state); padding (slot -1) and
    // continuing sequences keep theirs.
    void resetZeroesNewSequencesOnly() {
        const std::int64_t cf = 7, df = 11, n_pool = 4;
        const std::vector<std::int32_t> pos = {0, 5, 0, 0}, slot = {2, 0, -1, 3};
        const auto conv = ft::test::random_floats(std::size_t(n_pool * cf), 95, 1.f, 2.f);
        const auto delta = ft::test::random_floats(std::size_t(n_pool * df), 96, 1.f, 2.f);
        Dev d_pos(bytes_of(pos)), d_slot(bytes_of(slot)), d_c(bytes_of(conv)), d_d(bytes_of(delta));
        CHECK_CUDA(put(d_pos, pos));
        CHECK_CUDA(put(d_slot, slot));
        CHECK_CUDA(put(d_c, conv));
        CHECK_CUDA(put(d_d, delta));
        CHECK_CUDA(kc::gated_delta_reset(d_pos.as<std::int32_t>(), d_slot.as<std::int32_t>(), 4, d_c.as<float>(), cf,
                                         d_d.as<float>(), df, nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        std::vector<float> gc(conv.size()), gd(delta.size());
        CHECK_CUDA(get(gc, d_c));
        CHECK_CUDA(get(gd, d_d));
        for (std::int64_t s = 0; s < n_pool; ++s) {
            const bool zero = s == 2 || s == 3;
            for (std::int64_t i = 0; i < cf; ++i) QCOMPARE(gc[std::size_t(s * cf + i)], zero ? 0.f : conv[std::size_t(s * cf + i)]);
            for (std::int64_t i = 0; i < df; ++i) QCOMPARE(gd[std::size_t(s * df + i)], zero ? 0.f : delta[std::size_t(s * df + i)]);
        }
    }
#else
    void builtWithoutCuda() { QSKIP("built without CUDA"); }
#endif
};

FT_GPU_TEST_MAIN(TestGatedDeltaCuda)
#include "test_gated_delta_cuda.moc"
