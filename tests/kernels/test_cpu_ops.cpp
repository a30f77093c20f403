// RoPE, paged GQA attention, MLA (latent) attention and SwiGLU: the CPU kernels against the scalar references; MoE routing against
// hand-computed answers.
#include <cmath>
#include <numeric>

#include "cpu/attention.h"
#include "cpu/mla_attention.h"
#include "cpu/rope.h"
#include "cpu/swiglu.h"
#include "ft_test.h"
#include "kernel_check.h"
#include "ref/attention.h"
#include "ref/mla_attention.h"
#include "ref/moe_router.h"
#include "ref/rope.h"
#include "ref/swiglu.h"

using namespace ft::kernels;

class TestCpuOps : public QObject {
    Q_OBJECT
private slots:
    void ropeMatchesReference_data() {
        QTest::addColumn<bool>("neox");
        QTest::addColumn<int>("headDim");
        QTest::addColumn<int>("nRot");
        QTest::addColumn<float>("ext");
        QTest::addRow("neox 128") << true << 128 << 128 << 0.f;
        QTest::addRow("neox 64 partial 32") << true << 64 << 32 << 0.f;
        QTest::addRow("norm 128") << false << 128 << 128 << 0.f;
        QTest::addRow("neox yarn") << true << 64 << 64 << 1.f;
        QTest::addRow("neox yarn, exact ramp ends (gpt-oss)") << true << 64 << 64 << 2.f;  // ext 2: truncate off
    }
    void ropeMatchesReference() {
        QFETCH(bool, neox);
        QFETCH(int, headDim);
        QFETCH(int, nRot);
        QFETCH(float, ext);
        RopeParams p;
        p.head_dim = headDim;
        p.n_rot = nRot;
        p.neox = neox;
        p.theta = 1e6f;
        if (ext > 0) {
            p.ext_factor = 1.f;
            p.freq_scale = 0.25f;
            p.orig_ctx = 4096;
            p.truncate = ext < 2.f;
        }
        const int n_tok = 5, n_heads = 3;
        const std::vector<std::int32_t> pos = {0, 1, 17, 4095, 40000};
        auto x = ft::test::random_floats(size_t(n_tok * n_heads * headDim), 9, -2, 2);
        auto want = x;
        ref::rope_f32(p, want.data(), n_tok, n_heads, pos.data());
        cpu::rope_f32(p, x.data(), n_tok, n_heads, pos.data());
        const auto err = ft::test::compare(x.data(), want.data(), x.size());
        QVERIFY2(err.max_abs < 2e-5, err.str().c_str());
        // Position 0 is the identity; the pass-through dims are untouched.
        auto y = ft::test::random_floats(size_t(headDim), 3);
        auto y0 = y;
        const std::int32_t zero = 0;
        cpu::rope_f32(p, y.data(), 1, 1, &zero);
        if (ext == 0) QVERIFY(ft::test::compare(y.data(), y0.data(), y.size()).max_abs < 1e-7);
    }

    void attentionMatchesReference_data() {
        QTest::addColumn<int>("nHead");
        QTest::addColumn<int>("nKv");
        QTest::addColumn<int>("headDim");
        QTest::addColumn<int>("window");
        QTest::addColumn<bool>("sinks");
        QTest::addRow("gqa 8/2 d64") << 8 << 2 << 64 << 0 << false;
        QTest::addRow("mha 4/4 d128") << 4 << 4 << 128 << 0 << false;
        QTest::addRow("gqa 32/4 d128") << 32 << 4 << 128 << 0 << false;
        QTest::addRow("window 16 + sinks") << 8 << 2 << 64 << 16 << true;
        QTest::addRow("odd dim 40") << 2 << 1 << 40 << 0 << false;
    }
    void attentionMatchesReference() {
        QFETCH(int, nHead);
        QFETCH(int, nKv);
        QFETCH(int, headDim);
        QFETCH(int, window);
        QFETCH(bool, sinks);
        AttentionParams p;
        p.n_head = nHead;
        p.n_head_kv = nKv;
        p.head_dim = p.v_head_dim = headDim;
        p.page_size = 16;
        p.scale = 1.f / std::sqrt(float(headDim));
        p.window = window;
        const auto sink_vals = ft::test::random_floats(size_t(nHead), 4, -1, 2);
        if (sinks) p.sinks = sink_vals.data();
        const int n_ctx = 70, n_pages = 8;
        // Pages out of order: position j lives in page table[j/16].
        const std::vector<std::int32_t> table = {5, 2, 7, 0, 3};
        const auto k = ft::test::random_floats(size_t(n_pages * 16 * nKv * headDim), 1, -1, 1);
        const auto v = ft::test::random_floats(size_t(n_pages * 16 * nKv * headDim), 2, -1, 1);
        const std::vector<std::int32_t> pos = {0, 1, 15, 16, 40, n_ctx - 1};
        const int n_tok = int(pos.size());
        const auto q = ft::test::random_floats(size_t(n_tok * nHead * headDim), 3, -2, 2);
        const PagedKvView kv{k.data(), v.data(), table.data()};
        std::vector<float> want(size_t(n_tok * nHead * headDim));
        ref::attention_f32(p, q.data(), pos.data(), kv, want.data(), 0, n_tok * nHead);
        ft::test::GuardedOutput got(want.size());
        const std::int64_t tasks = std::int64_t(n_tok) * nHead, mid = tasks / 2;
        cpu::attention_f32(p, q.data(), pos.data(), kv, got.ptr(), 0, mid);
        cpu::attention_f32(p, q.data(), pos.data(), kv, got.ptr(), mid, tasks);
        QVERIFY(got.guards_intact());
        QVERIFY(got.all_written());
        const auto err = ft::test::compare(got.ptr(), want.data(), want.size());
        QVERIFY2(err.max_abs < 2e-5, err.str().c_str());
    }

    // MLA (DeepSeek) in its absorbed form: every head reads the one latent row per position; heads in blocks of 8
    // (a head count that is not a multiple, a task split in the middle of a token's blocks).
    void mlaAttentionMatchesReference_data() {
        QTest::addColumn<int>("nHead");
        QTest::addColumn<int>("kvLora");
        QTest::addColumn<int>("rope");
        QTest::addRow("V2-Lite shape 16 heads 512+64") << 16 << 512 << 64;
        QTest::addRow("12 heads (a partial block)") << 12 << 128 << 32;
        QTest::addRow("3 heads, odd widths") << 3 << 40 << 8;
    }
    void mlaAttentionMatchesReference() {
        QFETCH(int, nHead);
        QFETCH(int, kvLora);
        QFETCH(int, rope);
        MlaParams p;
        p.n_head = nHead;
        p.kv_lora = kvLora;
        p.rope_dim = rope;
        p.page_size = 16;
        p.scale = 1.f / std::sqrt(float(kvLora / 4 + rope));
        const int D = p.kv_dim(), n_pages = 8;
        const std::vector<std::int32_t> table = {5, 2, 7, 0, 3};
        const auto kv = ft::test::random_floats(size_t(n_pages * 16 * D), 11, -1, 1);
        const std::vector<std::int32_t> pos = {0, 1, 15, 16, 40, 69};
        const int n_tok = int(pos.size());
        const auto q = ft::test::random_floats(size_t(n_tok * nHead * D), 12, -0.3f, 0.3f);
        std::vector<float> want(size_t(n_tok * nHead * kvLora));
        ref::mla_attention_f32(p, q.data(), pos.data(), kv.data(), table.data(), want.data(), 0, n_tok * nHead);
        ft::test::GuardedOutput got(want.size());
        const std::int64_t tasks = cpu::mla_attention_tasks(p, n_tok), mid = tasks / 2 + 1;
        cpu::mla_attention_f32(p, q.data(), pos.data(), kv.data(), table.data(), got.ptr(), 0, mid);
        cpu::mla_attention_f32(p, q.data(), pos.data(), kv.data(), table.data(), got.ptr(), mid, tasks);
        QVERIFY(got.guards_intact());
        QVERIFY(got.all_written());
        const auto err = ft::test::compare(got.ptr(), want.data(), want.size());
        QVERIFY2(err.max_abs < 2e-5, err.str().c_str());
        // The row a token writes: the latent normalized, the rotated part as it is.
        const auto kva = ft::test::random_floats(size_t(D), 13, -2, 2), w = ft::test::random_floats(size_t(kvLora), 14, 0.5f, 1.5f);
        std::vector<float> row(static_cast<size_t>(D));
        ref::mla_kv_row(p, kva.data(), w.data(), 1e-6f, row.data());
        double ss = 0;
        for (int d = 0; d < kvLora; ++d) ss += double(kva[size_t(d)]) * kva[size_t(d)];
        const double inv = 1.0 / std::sqrt(ss / kvLora + 1e-6);
        QVERIFY(std::abs(row[0] - kva[0] * inv * w[0]) < 1e-5);
        QCOMPARE(row[size_t(D - 1)], kva[size_t(D - 1)]);
    }

    void swigluMatchesReference() {
        for (float limit : {0.f, 7.f, -7.f}) {  // plain, gpt-oss's form, DeepSeek-V4's clamp
            const auto g = ft::test::random_floats(1000, 5, -30, 30), u = ft::test::random_floats(1000, 6, -10, 10);
            std::vector<float> want(1000);
            ref::swiglu_f32(g.data(), u.data(), want.data(), 1000, limit);
            ft::test::GuardedOutput got(999);
            cpu::swiglu_f32(g.data(), u.data(), got.ptr(), 999, limit);
            QVERIFY(got.guards_intact());
            const auto err = ft::test::compare(got.ptr(), want.data(), 999);
            QVERIFY2(err.max_rel < 1e-5 || err.max_abs < 1e-5, err.str().c_str());
        }
    }

    void routerSoftmaxTopKKnownAnswer() {
        // logits ln(.1 .4 .2 .3): softmax = (.1 .4 .2 .3); top-2 = 1 (.4), 3 (.3); normalized .571428, .428571
        const float logits[4] = {float(std::log(.1)), float(std::log(.4)), float(std::log(.2)), float(std::log(.3))};
        RouterParams p;
        p.n_expert = 4;
        p.k = 2;
        std::int32_t ids[2];
        float w[2];
        ref::moe_route(p, logits, ids, w);
        QCOMPARE(ids[0], 1);
        QCOMPARE(ids[1], 3);
        QVERIFY(std::fabs(w[0] - .4f) < 1e-6f && std::fabs(w[1] - .3f) < 1e-6f);
        p.norm_topk = true;
        ref::moe_route(p, logits, ids, w);
        QVERIFY(std::fabs(w[0] - 4.f / 7) < 1e-6f && std::fabs(w[1] - 3.f / 7) < 1e-6f);
        p.gating = RouterGating::softmax_weight;  // softmax over the chosen logits: .4/.7, .3/.7
        ref::moe_route(p, logits, ids, w);
        QVERIFY(std::fabs(w[0] - 4.f / 7) < 1e-6f);
    }

    void routerSigmoidGroupedKnownAnswer() {
        // 4 experts in 2 groups; bias lifts expert 0; group sums pick group 0.
        const float logits[4] = {0.f, 1.f, 2.f, -3.f};
        const float bias[4] = {3.f, 0.f, 0.f, 0.f};
        RouterParams p;
        p.n_expert = 4;
        p.k = 2;
        p.gating = RouterGating::sigmoid;
        p.bias = bias;
        p.n_group = 2;
        p.topk_group = 1;
        p.norm_topk = true;
        p.scale = 2.5f;
        std::int32_t ids[2];
        float w[2];
        ref::moe_route(p, logits, ids, w);
        // selection: s+b = (3.5, .731, .881, .047); group sums (4.231, .928) → group 0: experts 0, 1
        QCOMPARE(ids[0], 0);
        QCOMPARE(ids[1], 1);
        const double s0 = 0.5, s1 = 1 / (1 + std::exp(-1.0));
        QVERIFY(std::fabs(w[0] - float(2.5 * s0 / (s0 + s1))) < 1e-6f);
        QVERIFY(std::fabs(w[1] - float(2.5 * s1 / (s0 + s1))) < 1e-6f);
    }

    // DeepSeek-V4's clamp (limit < 0): silu(min(g, 2)) · clamp(u, ±2).
    void swigluClampKnownAnswer() {
        const float g[3] = {5.f, -1.f, 1.f}, u[3] = {1.f, 9.f, -3.f};
        float y[3];
        ref::swiglu_f32(g, u, y, 3, -2.f);
        auto silu = [](double x) { return x / (1 + std::exp(-x)); };
        QVERIFY(std::fabs(y[0] - float(silu(2.0) * 1)) < 1e-6f);
        QVERIFY(std::fabs(y[1] - float(silu(-1.0) * 2)) < 1e-6f);
        QVERIFY(std::fabs(y[2] - float(silu(1.0) * -2)) < 1e-6f);
    }

    // sqrt(softplus) scores, the choice on score + bias, the weights the scores of the chosen (renormalized, scaled);
    // a hash layer's fixed experts get the same weights.
    void routerSqrtSoftplusKnownAnswer() {
        const float logits[4] = {0.f, 2.f, -1.f, 25.f};
        const float bias[4] = {0.f, 0.f, 10.f, -20.f};
        RouterParams p;
        p.n_expert = 4;
        p.k = 2;
        p.gating = RouterGating::sqrtsoftplus;
        p.bias = bias;
        p.norm_topk = true;
        p.scale = 1.5f;
        std::int32_t ids[2];
        float w[2];
        ref::moe_route(p, logits, ids, w);
        auto s = [](double x) { return std::sqrt(x > 20 ? x : std::log1p(std::exp(x))); };
        // score + bias: (.833, 2.063, 10.55, -15): experts 2 then 1
        QCOMPARE(ids[0], 2);
        QCOMPARE(ids[1], 1);
        QVERIFY(std::fabs(w[0] - float(1.5 * s(-1) / (s(-1) + s(2)))) < 1e-6f);
        const std::int32_t fixed[2] = {3, 0};
        ref::moe_route_fixed(p, logits, fixed, w);
        QVERIFY(std::fabs(w[0] - float(1.5 * s(25) / (s(25) + s(0)))) < 1e-6f);
        QVERIFY(std::fabs(w[1] - float(1.5 * s(0) / (s(25) + s(0)))) < 1e-6f);
    }

    void routerTiesGoToLowerIds() {
        const float logits[6] = {1, 2, 2, 0, 2, 1};
        RouterParams p;
        p.n_expert = 6;
        p.k = 3;
        std::int32_t ids[3];
        float w[3];
        ref::moe_route(p, logits, ids, w);
        QCOMPARE(ids[0], 1);
        QCOMPARE(ids[1], 2);
        QCOMPARE(ids[2], 4);
    }
};

FT_TEST_MAIN(TestCpuOps)
#include "test_cpu_ops.moc"
