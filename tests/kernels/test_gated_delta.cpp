// Gated DeltaNet (Qwen3-Next / Qwen3.5-MoE linear attention): the scalar references against hand-computed answers,
// the chunked (WY) form of the delta rule against the recurrent one, the SIMD CPU kernels against the references
// (conv, delta rule prefill and decode, gated norm), and decode steps continuing a prefilled state. q, k and v are
// read as the layer lays them out: one row [q | k | v] per token. Outputs are followed by guard values.
// FT_TEST_PERF=1: perfPrefill prints the CPU prefill and decode times of a Qwen3.6 layer.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cpu/gated_delta.h"
#include "ft_test.h"
#include "kernel_check.h"
#include "ref/gated_delta.h"

using namespace ft::kernels;

namespace {

// One sequence's layer inputs: qkv rows [T, 2·n_k_heads·dk + n_heads·dv], g, beta [T, n_heads], a state per slot.
struct DeltaCase {
    GatedDeltaParams p;
    std::int64_t T = 0;
    std::vector<float> qkv, g, beta, states;
    const float* q() const { return qkv.data(); }
    const float* k() const { return qkv.data() + std::int64_t(p.n_k_heads) * p.dk; }
    const float* v() const { return qkv.data() + 2 * std::int64_t(p.n_k_heads) * p.dk; }
    float* state(int slot) { return states.data() + slot * p.state_size(); }
    std::size_t out_size() const { return std::size_t(T * p.n_heads * p.dv); }
};

DeltaCase make_case(int n_heads, int n_k_heads, int dk, int dv, std::int64_t T, bool l2norm, int n_slots = 1,
                    std::uint32_t seed = 1) {
    DeltaCase c;
    c.p.n_heads = n_heads;
    c.p.n_k_heads = n_k_heads;
    c.p.dk = dk;
    c.p.dv = dv;
    c.p.l2norm_qk = l2norm;
    const std::int64_t row = 2 * std::int64_t(n_k_heads) * dk + std::int64_t(n_heads) * dv;
    c.p.ldq = c.p.ldk = c.p.ldv = row;
    c.T = T;
    c.qkv = ft::test::random_floats(std::size_t(T * row), seed, -1.f, 1.f);
    if (!l2norm) {  // keep |k| near 1, as the rule needs to stay stable (β|k|² < 2)
        const float s = std::sqrt(3.f / float(dk));
        for (std::int64_t t = 0; t < T; ++t)
            for (std::int64_t i = 0; i < 2 * std::int64_t(n_k_heads) * dk; ++i) c.qkv[std::size_t(t * row + i)] *= s;
    }
    c.g = ft::test::random_floats(std::size_t(T * n_heads), seed + 1, -0.5f, -0.001f);
    c.beta = ft::test::random_floats(std::size_t(T * n_heads), seed + 2, 0.05f, 0.95f);
    c.states = ft::test::random_floats(std::size_t(n_slots * c.p.state_size()), seed + 3, -1.f, 1.f);
    return c;
}

void add_delta_rows() {
    QTest::addColumn<int>("nHeads");
    QTest::addColumn<int>("nKHeads");
    QTest::addColumn<int>("dk");
    QTest::addColumn<int>("dv");
    QTest::addColumn<int>("T");
    QTest::addColumn<bool>("l2norm");
    QTest::addRow("4 heads on 2 key heads, 128/128, T 130") << 4 << 2 << 128 << 128 << 130 << true;
    QTest::addRow("2 heads 128/128, T 64 (one whole chunk)") << 2 << 2 << 128 << 128 << 64 << true;
    QTest::addRow("2 heads 128/128, T 1") << 2 << 1 << 128 << 128 << 1 << true;
    QTest::addRow("3 heads 32/64, no l2norm, T 200") << 3 << 3 << 32 << 64 << 200 << false;
    QTest::addRow("2 heads 48/40 (partial strips), T 70") << 2 << 1 << 48 << 40 << 70 << true;
}

std::string str(const ft::test::ErrorStats& e) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "max_abs %.2e max_rel %.2e nmse %.2e", e.max_abs, e.max_rel, e.nmse);
    return buf;
}

bool perf_mode() {
    const char* v = std::getenv("FT_TEST_PERF");
    return v && *v == '1';
}

}  // namespace

class TestGatedDelta : public QObject {
    Q_OBJECT
private slots:
    void convReferenceKnownAnswer() {
        // w = (.1 -.2 .3 -.4), state (1 2 3), x = (4 5): y0 = silu(.1 - .4 + .9 - 1.6) = silu(-1),
        // y1 = silu(.2 - .6 + 1.2 - 2) = silu(-1.2); the state keeps (3 4 5).
        const float w[4] = {.1f, -.2f, .3f, -.4f}, x[2] = {4.f, 5.f};
        float state[3] = {1.f, 2.f, 3.f}, y[2];
        ref::causal_conv1d_silu_f32(x, 1, 2, 1, 4, w, state, y, 1);
        QVERIFY(std::fabs(y[0] - float(-1.0 / (1.0 + std::exp(1.0)))) < 1e-6f);
        QVERIFY(std::fabs(y[1] - float(-1.2 / (1.0 + std::exp(1.2)))) < 1e-6f);
        QCOMPARE(state[0], 3.f);
        QCOMPARE(state[1], 4.f);
        QCOMPARE(state[2], 5.f);
    }

    void convCpuMatchesReference_data() {
        QTest::addColumn<int>("channels");
        QTest::addColumn<int>("kernel");
        QTest::addColumn<int>("T");
        QTest::addRow("67 channels K 4, decode") << 67 << 4 << 1;
        QTest::addRow("67 channels K 4, T 2 (shorter than the state)") << 67 << 4 << 2;
        QTest::addRow("256 channels K 4, T 37") << 256 << 4 << 37;
        QTest::addRow("33 channels K 3, T 100") << 33 << 3 << 100;
        QTest::addRow("8 channels K 2, T 5") << 8 << 2 << 5;
    }
    void convCpuMatchesReference() {
        QFETCH(int, channels);
        QFETCH(int, kernel);
        QFETCH(int, T);
        const std::int64_t ldx = channels + 5;
        const auto x = ft::test::random_floats(std::size_t(T * ldx), 41, -2.f, 2.f);
        const auto w = ft::test::random_floats(std::size_t(channels * kernel), 42, -1.f, 1.f);
        const auto state0 = ft::test::random_floats(std::size_t(channels * (kernel - 1)), 43, -2.f, 2.f);
        auto want_state = state0, got_state = state0;
        std::vector<float> want(std::size_t(T * channels));
        ref::causal_conv1d_silu_f32(x.data(), ldx, T, channels, kernel, w.data(), want_state.data(), want.data(),
                                    channels);
        ft::test::GuardedOutput got(want.size());
        cpu::causal_conv1d_silu_f32(x.data(), ldx, T, channels, kernel, w.data(), got_state.data(), got.ptr(),
                                    channels);
        QVERIFY(got.guards_intact());
        QVERIFY(got.all_written());
        const auto err = ft::test::compare(got.ptr(), want.data(), want.size());
        qInfo("CPU conv: %s", str(err).c_str());
        QVERIFY2(err.finite && err.max_abs < 1e-5, str(err).c_str());
        QCOMPARE(got_state, want_state);  // copies of inputs: exact
        // The state carries the sequence over: the tokens in two calls give the same outputs as in one.
        const int T1 = T / 2;
        auto split_state = state0;
        std::vector<float> split(want.size());
        cpu::causal_conv1d_silu_f32(x.data(), ldx, T1, channels, kernel, w.data(), split_state.data(), split.data(),
                                    channels);
        cpu::causal_conv1d_silu_f32(x.data() + T1 * ldx, ldx, T - T1, channels, kernel, w.data(), split_state.data(),
                                    split.data() + T1 * channels, channels);
        QCOMPARE(split_state, want_state);
        QVERIFY(ft::test::compare(split.data(), got.ptr(), split.size()).max_abs == 0);
    }

    void deltaReferenceKnownAnswer() {
        // One head, dk = dv = 2, S0 = I, k = (3 4) → k̂ = (.6 .8), q = (0 2) → q̂ = (0 1)/√2, v = (1 -2), a = .5, b = .5:
        // S = .5 I; Sᵀk̂ = (.3 .4); δ = .5((1 -2) − (.3 .4)) = (.35 -1.2); S += k̂δᵀ → rows (.71 -.72), (.28 -.46);
        // out = Sᵀq̂ = (.28 -.46)/√2.
        GatedDeltaParams p;
        p.n_heads = p.n_k_heads = 1;
        p.dk = p.dv = 2;
        const float q[2] = {0.f, 2.f}, k[2] = {3.f, 4.f}, v[2] = {1.f, -2.f}, g = std::log(.5f), beta = .5f;
        const float want_state[4] = {.71f, -.72f, .28f, -.46f},
                    want_out[2] = {.28f / std::sqrt(2.f), -.46f / std::sqrt(2.f)};
        for (bool chunked : {false, true}) {
            float state[4] = {1.f, 0.f, 0.f, 1.f}, out[2];
            if (chunked)
                ref::gated_delta_chunked_f32(p, q, k, v, &g, &beta, 1, state, out);
            else
                ref::gated_delta_f32(p, q, k, v, &g, &beta, 1, state, out);
            for (int i = 0; i < 4; ++i) QVERIFY(std::fabs(state[i] - want_state[i]) < 1e-6f);
            for (int j = 0; j < 2; ++j) QVERIFY(std::fabs(out[j] - want_out[j]) < 1e-6f);
        }
    }

    void deltaChunkedMatchesRecurrent_data() { add_delta_rows(); }
    void deltaChunkedMatchesRecurrent() {
        QFETCH(int, nHeads);
        QFETCH(int, nKHeads);
        QFETCH(int, dk);
        QFETCH(int, dv);
        QFETCH(int, T);
        QFETCH(bool, l2norm);
        auto c = make_case(nHeads, nKHeads, dk, dv, T, l2norm);
        std::vector<float> want(c.out_size()), got(c.out_size());
        auto want_state = c.states;
        ref::gated_delta_f32(c.p, c.q(), c.k(), c.v(), c.g.data(), c.beta.data(), T, want_state.data(), want.data());
        for (int chunk : {64, 16}) {
            auto state = c.states;
            ref::gated_delta_chunked_f32(c.p, c.q(), c.k(), c.v(), c.g.data(), c.beta.data(), T, state.data(),
                                         got.data(), chunk);
            const auto err = ft::test::compare(got.data(), want.data(), want.size());
            const auto serr = ft::test::compare(state.data(), want_state.data(), state.size());
            qInfo("chunk %d vs recurrent: out %s; state %s", chunk, str(err).c_str(), str(serr).c_str());
            QVERIFY2(err.finite && err.max_abs < 1e-6 && err.nmse < 1e-13, str(err).c_str());
            QVERIFY2(serr.finite && serr.max_abs < 1e-6 && serr.nmse < 1e-13, str(serr).c_str());
        }
    }

    void deltaCpuPrefillMatchesReference_data() { add_delta_rows(); }
    void deltaCpuPrefillMatchesReference() {
        QFETCH(int, nHeads);
        QFETCH(int, nKHeads);
        QFETCH(int, dk);
        QFETCH(int, dv);
        QFETCH(int, T);
        QFETCH(bool, l2norm);
        auto c = make_case(nHeads, nKHeads, dk, dv, T, l2norm);
        auto state = c.states;
        std::vector<float> want(c.out_size());
        ref::gated_delta_f32(c.p, c.q(), c.k(), c.v(), c.g.data(), c.beta.data(), T, c.state(0), want.data());
        ft::test::GuardedOutput got(want.size());
        const int mid = nHeads / 2;  // two tasks, as two threads would split the heads
        cpu::gated_delta_prefill_f32(c.p, c.q(), c.k(), c.v(), c.g.data(), c.beta.data(), T, state.data(), got.ptr(), 0,
                                     mid);
        cpu::gated_delta_prefill_f32(c.p, c.q(), c.k(), c.v(), c.g.data(), c.beta.data(), T, state.data(), got.ptr(),
                                     mid, nHeads);
        QVERIFY(got.guards_intact());
        QVERIFY(got.all_written());
        const auto err = ft::test::compare(got.ptr(), want.data(), want.size());
        const auto serr = ft::test::compare(state.data(), c.states.data(), state.size());
        qInfo("CPU prefill: out %s; state %s", str(err).c_str(), str(serr).c_str());
        QVERIFY2(err.finite && err.max_abs < 1e-6 && err.nmse < 1e-12, str(err).c_str());
        QVERIFY2(serr.finite && serr.max_abs < 1e-6 && serr.nmse < 1e-12, str(serr).c_str());
    }

    // A decode batch: three sequences whose states sit in shuffled slots of a pool of five, and a padding token.
    void deltaCpuDecodeMatchesReference_data() {
        QTest::addColumn<int>("dk");
        QTest::addColumn<int>("dv");
        QTest::addRow("128/128") << 128 << 128;
        QTest::addRow("32/40") << 32 << 40;
    }
    void deltaCpuDecodeMatchesReference() {
        QFETCH(int, dk);
        QFETCH(int, dv);
        const std::vector<std::int32_t> pool_slots = {3, 0, -1, 4};
        const int B = int(pool_slots.size());
        auto c = make_case(4, 2, dk, dv, B, true, 5, 7);  // token t is the next token of the sequence in pool_slots[t]
        auto want_states = c.states;
        std::vector<float> want(c.out_size());
        const std::int64_t row = c.p.ldq;
        for (int t = 0; t < B; ++t) {  // the reference steps each sequence alone
            if (pool_slots[std::size_t(t)] < 0) continue;
            ref::gated_delta_f32(c.p, c.q() + t * row, c.k() + t * row, c.v() + t * row, c.g.data() + t * 4,
                                 c.beta.data() + t * 4, 1,
                                 want_states.data() + pool_slots[std::size_t(t)] * c.p.state_size(),
                                 want.data() + std::size_t(t * 4 * dv));
        }
        ft::test::GuardedOutput got(want.size());
        const std::int64_t tasks = std::int64_t(B) * c.p.n_heads, mid = tasks / 2 + 1;
        cpu::gated_delta_decode_f32(c.p, c.q(), c.k(), c.v(), c.g.data(), c.beta.data(), pool_slots.data(),
                                    c.states.data(), got.ptr(), 0, mid);
        cpu::gated_delta_decode_f32(c.p, c.q(), c.k(), c.v(), c.g.data(), c.beta.data(), pool_slots.data(),
                                    c.states.data(), got.ptr(), mid, tasks);
        QVERIFY(got.guards_intact());
        // The padding token's rows are untouched: they still hold the guard pattern.
        for (std::size_t i = std::size_t(2 * 4 * dv); i < std::size_t(3 * 4 * dv); ++i) {
            std::uint32_t bits;
            std::memcpy(&bits, &got.data[i], 4);
            QCOMPARE(bits, ft::test::GuardedOutput::kPattern);
            got.data[i] = want[i] = 0.f;
        }
        const auto err = ft::test::compare(got.ptr(), want.data(), want.size());
        const auto serr =
            ft::test::compare(c.states.data(), want_states.data(), want_states.size());  // slots 1 and 2 unchanged
        qInfo("CPU decode: out %s; states %s", str(err).c_str(), str(serr).c_str());
        QVERIFY2(err.finite && err.max_abs < 1e-6 && err.nmse < 1e-12, str(err).c_str());
        QVERIFY2(serr.finite && serr.max_abs < 1e-6 && serr.nmse < 1e-12, str(serr).c_str());
    }

    // Prefill the first 50 tokens, then decode the other 20 one at a time: the outputs and the state are those of
    // the whole sequence in one call (reference and CPU kernels).
    void deltaDecodeStepsContinuePrefill() {
        const std::int64_t T = 70, T1 = 50;
        auto c = make_case(4, 2, 64, 64, T, true, 1, 11);
        std::vector<float> want(c.out_size());
        auto want_state = c.states;
        ref::gated_delta_f32(c.p, c.q(), c.k(), c.v(), c.g.data(), c.beta.data(), T, want_state.data(), want.data());
        const std::int64_t row = c.p.ldq, H = c.p.n_heads, dv = c.p.dv;
        for (bool use_cpu : {false, true}) {
            auto state = c.states;
            std::vector<float> got(want.size());
            if (use_cpu)
                cpu::gated_delta_prefill_f32(c.p, c.q(), c.k(), c.v(), c.g.data(), c.beta.data(), T1, state.data(),
                                             got.data(), 0, int(H));
            else
                ref::gated_delta_f32(c.p, c.q(), c.k(), c.v(), c.g.data(), c.beta.data(), T1, state.data(), got.data());
            const std::int32_t slot = 0;
            for (std::int64_t t = T1; t < T; ++t) {
                const float *q = c.q() + t * row, *k = c.k() + t * row, *v = c.v() + t * row;
                const float *g = c.g.data() + t * H, *beta = c.beta.data() + t * H;
                float* o = got.data() + t * H * dv;
                if (use_cpu)
                    cpu::gated_delta_decode_f32(c.p, q, k, v, g, beta, &slot, state.data(), o, 0, H);
                else
                    ref::gated_delta_f32(c.p, q, k, v, g, beta, 1, state.data(), o);
            }
            const auto err = ft::test::compare(got.data(), want.data(), want.size());
            const auto serr = ft::test::compare(state.data(), want_state.data(), state.size());
            qInfo("%s prefill %lld + %lld decode steps: out %s; state %s", use_cpu ? "CPU" : "reference", (long long)T1,
                  (long long)(T - T1), str(err).c_str(), str(serr).c_str());
            QVERIFY2(err.finite && err.max_abs < 1e-6 && err.nmse < 1e-12, str(err).c_str());
            QVERIFY2(serr.finite && serr.max_abs < 1e-6 && serr.nmse < 1e-12, str(serr).c_str());
        }
    }

    // llama.cpp's qwen35moe files order the value heads tiled (head j reads key head j % n_k): the same layer with
    // its value heads (v, g, beta, state, output) so permuted computes the same outputs, permuted — in the reference
    // and in the CPU kernel.
    void tiledValueHeadsMatchGrouped() {
        const int NV = 6, NK = 2, R = NV / NK, dk = 32, dv = 16;
        const std::int64_t T = 40;
        auto c = make_case(NV, NK, dk, dv, T, true);
        std::vector<float> want(c.out_size());
        auto want_state = c.states;
        ref::gated_delta_f32(c.p, c.q(), c.k(), c.v(), c.g.data(), c.beta.data(), T, want_state.data(), want.data());
        // Tiled position j holds grouped head (j % NK)·R + j / NK.
        auto src = [&](int j) { return (j % NK) * R + j / NK; };
        DeltaCase t = c;
        t.p.v_tiled = true;
        const std::int64_t row = c.p.ldq, vo = 2 * std::int64_t(NK) * dk;
        for (std::int64_t x = 0; x < T; ++x)
            for (int j = 0; j < NV; ++j) {
                std::copy_n(c.qkv.data() + x * row + vo + src(j) * dv, dv, t.qkv.data() + x * row + vo + j * dv);
                t.g[std::size_t(x * NV + j)] = c.g[std::size_t(x * NV + src(j))];
                t.beta[std::size_t(x * NV + j)] = c.beta[std::size_t(x * NV + src(j))];
            }
        for (int j = 0; j < NV; ++j)
            std::copy_n(c.states.data() + std::int64_t(src(j)) * dk * dv, dk * dv, t.states.data() + std::int64_t(j) * dk * dv);
        for (bool simd : {false, true}) {
            auto state = t.states;
            std::vector<float> got(t.out_size());
            if (simd)
                cpu::gated_delta_prefill_f32(t.p, t.q(), t.k(), t.v(), t.g.data(), t.beta.data(), T, state.data(),
                                             got.data(), 0, NV);
            else
                ref::gated_delta_f32(t.p, t.q(), t.k(), t.v(), t.g.data(), t.beta.data(), T, state.data(), got.data());
            double worst = 0;
            for (std::int64_t x = 0; x < T; ++x)
                for (int j = 0; j < NV; ++j)
                    for (int e = 0; e < dv; ++e)
                        worst = std::max(worst, std::fabs(double(got[std::size_t((x * NV + j) * dv + e)]) -
                                                          want[std::size_t((x * NV + src(j)) * dv + e)]));
            for (int j = 0; j < NV; ++j)
                for (int e = 0; e < dk * dv; ++e)
                    worst = std::max(worst, std::fabs(double(state[std::size_t(j * dk * dv + e)]) -
                                                      want_state[std::size_t(src(j) * dk * dv + e)]));
            qInfo("%s tiled vs grouped: max |diff| %.2e", simd ? "CPU" : "reference", worst);
            QVERIFY(worst < (simd ? 1e-5 : 1e-6));
        }
        // And the order matters: read grouped, the tiled layout gives other outputs.
        auto state = t.states;
        t.p.v_tiled = false;
        std::vector<float> wrong(t.out_size());
        ref::gated_delta_f32(t.p, t.q(), t.k(), t.v(), t.g.data(), t.beta.data(), T, state.data(), wrong.data());
        double off = 0;
        for (int e = 0; e < dv; ++e)  // value head 1 reads key head 0 that way, not its own key head 1
            off = std::max(off, std::fabs(double(wrong[std::size_t((T * NV - NV + 1) * dv + e)]) -
                                          want[std::size_t((T * NV - NV + src(1)) * dv + e)]));
        QVERIFY2(off > 1e-3, qPrintable(QString::number(off)));
    }

    void gatesReferenceKnownAnswer() {
        // Two value heads on one key head (R = 2). Rows [b | a]: b = (0, ln 3), a = (0, 20.5), dt = (ln(e − 1), -0.5),
        // A = (-1, -2): beta = (1/2, 3/4); g = (-softplus(ln(e − 1)) = -1, -2 · 20) (softplus(u) = u past 20).
        const float dt[2] = {std::log(std::exp(1.f) - 1.f), -0.5f}, A[2] = {-1.f, -2.f};
        const float rows[4] = {0.f, std::log(3.f), 0.f, 20.5f};
        // Qwen3-Next's grouped layout of the same values: per key head [b0 b1 | a0 a1] — here the same order.
        for (int group : {0, 2}) {
            float beta[2], g[2];
            ref::gated_delta_gates_f32(rows, 4, 1, 2, group, dt, A, beta, g);
            QVERIFY(std::fabs(beta[0] - .5f) < 1e-6f && std::fabs(beta[1] - .75f) < 1e-6f);
            QVERIFY(std::fabs(g[0] + 1.f) < 1e-5f && std::fabs(g[1] + 40.f) < 1e-5f);
        }
        // Two key heads, R = 1: grouped [b0 a0 | b1 a1] against halves [b0 b1 | a0 a1].
        const float grouped[4] = {1.f, -1.f, 2.f, -2.f}, halves[4] = {1.f, 2.f, -1.f, -2.f}, zero[2] = {0.f, 0.f},
                    one[2] = {-1.f, -1.f};
        float b1[2], g1[2], b2[2], g2[2];
        ref::gated_delta_gates_f32(grouped, 4, 1, 2, 1, zero, one, b1, g1);
        ref::gated_delta_gates_f32(halves, 4, 1, 2, 0, zero, one, b2, g2);
        for (int h = 0; h < 2; ++h) {
            QCOMPARE(b1[h], b2[h]);
            QCOMPARE(g1[h], g2[h]);
        }
        QVERIFY(std::fabs(b1[1] - float(1.0 / (1.0 + std::exp(-2.0)))) < 1e-6f);
    }

    void gatedNormReferenceKnownAnswer() {
        // x = (3 4): 1/rms = 1/√12.5; z = (0 2): silu = (0, 2/(1 + e^-2)); w = (1 2).
        const float x[2] = {3.f, 4.f}, z[2] = {0.f, 2.f}, w[2] = {1.f, 2.f};
        float y[2];
        ref::gated_rms_norm_f32(x, z, w, y, 1, 2, 0.f);
        QCOMPARE(y[0], 0.f);
        QVERIFY(std::fabs(y[1] - float(4.0 / std::sqrt(12.5) * 2.0 * 2.0 / (1.0 + std::exp(-2.0)))) < 1e-6f);
    }

    void gatedNormCpuMatchesReference_data() {
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        for (int cols : {7, 40, 128})
            for (int rows : {1, 15}) QTest::addRow("%dx%d", rows, cols) << rows << cols;
    }
    void gatedNormCpuMatchesReference() {
        QFETCH(int, rows);
        QFETCH(int, cols);
        const auto x = ft::test::random_floats(std::size_t(rows * cols), 51, -3.f, 3.f);
        const auto z = ft::test::random_floats(std::size_t(rows * cols), 52, -8.f, 8.f);
        const auto w = ft::test::random_floats(std::size_t(cols), 53, 0.5f, 1.5f);
        std::vector<float> want(x.size());
        ref::gated_rms_norm_f32(x.data(), z.data(), w.data(), want.data(), rows, cols, 1e-6f);
        ft::test::GuardedOutput got(want.size());
        cpu::gated_rms_norm_f32(x.data(), z.data(), w.data(), got.ptr(), rows, cols, 1e-6f);
        QVERIFY(got.guards_intact());
        QVERIFY(got.all_written());
        const auto err = ft::test::compare(got.ptr(), want.data(), want.size());
        qInfo("CPU gated norm: %s", str(err).c_str());
        QVERIFY2(err.finite && err.max_rel < 1e-5, str(err).c_str());
    }

    // One Qwen3.6-35B-A3B GDN layer (32 value heads on 16 key heads, 128/128) on one thread.
    void perfPrefill() {
        if (!perf_mode()) QSKIP("perf mode off (FT_TEST_PERF=1 runs it)");
        const std::int64_t T = 1024;
        auto c = make_case(32, 16, 128, 128, T, true);
        std::vector<float> out(c.out_size());
        using clock = std::chrono::steady_clock;
        auto t0 = clock::now();
        cpu::gated_delta_prefill_f32(c.p, c.q(), c.k(), c.v(), c.g.data(), c.beta.data(), T, c.state(0), out.data(), 0,
                                     32);
        const double prefill = std::chrono::duration<double, std::micro>(clock::now() - t0).count();
        const std::int32_t slot = 0;
        const int steps = 64;
        t0 = clock::now();
        for (int i = 0; i < steps; ++i)
            cpu::gated_delta_decode_f32(c.p, c.q(), c.k(), c.v(), c.g.data(), c.beta.data(), &slot, c.state(0),
                                        out.data(), 0, 32);
        const double decode = std::chrono::duration<double, std::micro>(clock::now() - t0).count() / steps;
        qInfo("CPU gated delta, 32 heads 128/128: prefill %.2f µs/token (T %lld), decode %.1f µs/token",
              prefill / double(T), (long long)T, decode);
    }
};

FT_TEST_MAIN(TestGatedDelta)
#include "test_gated_delta.moc"
