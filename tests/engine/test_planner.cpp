// The VRAM planner and the fit predictor on real model geometries (the synth presets' real configs): plans fit their
// budget category by category, small budgets shrink the prefill chunk instead of failing, too-small budgets name the
// smallest one that works, rebuild checks reject with numbers, and the predictor's verdicts follow the machine.
#include <QRegularExpression>
#include <QTemporaryDir>

#include <cmath>
#include <cstdio>

#include "ft/error.h"
#include "ft/plan.h"
#include "ft_test.h"
#include "memory/planner.h"
#include "model/model_desc.h"
#include "synth/synth_model.h"

// Runs expr, which must throw ft::Error with the given code.
#define QVERIFY_THROWS_FT(expr, code_)                                  \
    do {                                                                \
        bool thrown_ = false;                                           \
        try {                                                           \
            (void)(expr);                                               \
        } catch (const ft::Error& e_) {                                 \
            thrown_ = true;                                             \
            QCOMPARE(e_.code(), code_);                                 \
        }                                                               \
        QVERIFY2(thrown_, #expr " did not throw");                      \
    } while (0)

namespace {

constexpr std::uint64_t GiB = 1ull << 30;

// Qwen3-30B-A3B as `ft synth --preset qwen3-30b-a3b --weights q4_k` writes it (sizes from `ft inspect`: expert pool
// 15.19 GiB, non-expert 0.85 GiB).
ft::memory::ModelGeometry qwen30b() {
    const auto d = ft::synth::synth_desc(ft::model::ArchId::qwen3_moe, "qwen3-30b-a3b", {});
    return ft::memory::geometry_of(d, std::uint64_t(0.85 * double(GiB)), std::uint64_t(15.19 * double(GiB)));
}

ft::memory::PlanRequest at(std::uint64_t budget) {
    ft::memory::PlanRequest r;
    r.device_total = r.device_free = 140 * GiB;
    r.vram_budget = budget;
    return r;
}

}  // namespace

class TestPlanner : public QObject {
    Q_OBJECT

private slots:
    void eightGiBDefaultsFit() {
        const auto g = qwen30b();
        const ft::MemoryPlan p = ft::memory::plan_memory(g, at(8 * GiB));
        QCOMPARE(QString::fromStdString(p.backend), QStringLiteral("offload"));
        QVERIFY2(p.total() <= p.budget, qPrintable(QString("total %1 > budget %2").arg(p.total()).arg(p.budget)));
        QCOMPARE(p.kv_bytes_per_element, 2);  // f16 KV by default on the GPU
        QVERIFY(p.kv_tokens >= 8192);           // the KV floor
        QVERIFY(p.prefill_chunk < 8192);        // a smaller chunk instead of failing
        QVERIFY(p.prefill_chunk >= 256);
        QVERIFY2(p.expert_slots >= 1600, qPrintable(QString::number(p.expert_slots)));  // ≥ 26 % of 6144 experts
        QCOMPARE(p.experts, std::uint64_t(p.expert_slots) * p.expert_slot_bytes);
        QCOMPARE(p.kv, std::uint64_t(p.kv_tokens) * p.kv_bytes_per_token);
        QVERIFY(p.prefill_overlap);
        QVERIFY(p.min_expert_slots == 128 && p.max_expert_slots >= p.expert_slots);
        QVERIFY(p.max_kv_tokens >= p.kv_tokens && p.min_kv_tokens <= p.kv_tokens);
        QVERIFY(!p.notes.empty());
    }

    // Qwen3.6-35B-A3B (hybrid: 10 of 40 layers with a KV cache, 30 Gated DeltaNet layers with a recurrent state):
    // the KV bytes per token count the 10 attention layers only (2 KV heads of 256, f16: 10 · 2 · 512 · 2 = 20 KiB);
    // the state pools, (max_sequences + 1) slots of 30 layers × (8192 · 3 conv + 32 · 128 · 128 delta) f32, are a
    // category of their own that fits beside the rest at 8 GiB.
    void hybridModelCountsItsStateAndFewerKvLayers() {
        const auto d = ft::synth::synth_desc(ft::model::ArchId::qwen3_5_moe, "qwen3.6-35b-a3b", {});
        const auto g = ft::memory::geometry_of(d, std::uint64_t(1.4 * double(GiB)), std::uint64_t(18.0 * double(GiB)));
        QCOMPARE(g.n_kv_layers, 10);
        QCOMPARE(g.n_rs_layers, 30);
        QCOMPARE(ft::memory::kv_bytes_per_token(g, true), std::uint64_t(10 * 2 * 512 * 2));
        const std::uint64_t per_seq = (8192ull * 3 + 32ull * 128 * 128) * 4;
        auto r = at(8 * GiB);
        r.max_sequences = 4;
        const ft::MemoryPlan p = ft::memory::plan_memory(g, r);
        QCOMPARE(p.state, 30 * ((5 * per_seq + 255) / 256 * 256));
        QVERIFY2(p.total() <= p.budget, qPrintable(QString("total %1 > budget %2").arg(p.total()).arg(p.budget)));
        QVERIFY(p.backend != "resident");
        QVERIFY(p.kv_tokens >= 8192);
        // More parallel requests: more state, less room for experts.
        r.max_sequences = 8;
        const ft::MemoryPlan q = ft::memory::plan_memory(g, r);
        QVERIFY(q.state > p.state && q.expert_slots < p.expert_slots);
    }

    void slotsGrowWithTheBudget() {
        const auto g = qwen30b();
        int last = 0;
        for (std::uint64_t b : {4 * GiB, 8 * GiB, 12 * GiB, 16 * GiB}) {
            const ft::MemoryPlan p = ft::memory::plan_memory(g, at(b));
            qInfo("%2llu GiB: weights %.2f, experts %.2f (%d slots), KV %.2f (%lld tokens), scratch %.2f, cublas %.2f, "
                  "graphs %.2f, reserve %.2f GiB; chunk %d", (unsigned long long)(b / GiB), double(p.weights) / GiB,
                  double(p.experts) / GiB, p.expert_slots, double(p.kv) / GiB, (long long)p.kv_tokens, double(p.scratch) / GiB,
                  double(p.cublas) / GiB, double(p.graphs) / GiB, double(p.reserve) / GiB, p.prefill_chunk);
            QVERIFY(p.total() <= b);
            QVERIFY2(p.expert_slots > last, qPrintable(QString("%1 GiB: %2 slots").arg(b / GiB).arg(p.expert_slots)));
            last = p.expert_slots;
        }
        // With every expert fitting, auto is resident and nothing is cached.
        const ft::MemoryPlan all = ft::memory::plan_memory(g, at(40 * GiB));
        QCOMPARE(QString::fromStdString(all.backend), QStringLiteral("resident"));
        QCOMPARE(all.expert_slots, 0);
        QVERIFY(all.weights > 16 * GiB);
        QVERIFY(all.total() <= 40 * GiB);
    }

    void f32KvHalvesTheTokens() {
        const auto g = qwen30b();
        auto r = at(8 * GiB);
        r.kv_f16 = false;
        const ft::MemoryPlan p = ft::memory::plan_memory(g, r);
        QCOMPARE(p.kv_bytes_per_element, 4);
        QCOMPARE(p.kv_bytes_per_token, 2 * ft::memory::plan_memory(g, at(8 * GiB)).kv_bytes_per_token);
    }

    void tooSmallNamesTheSmallestBudget() {
        const auto g = qwen30b();
        try {
            ft::memory::plan_memory(g, at(GiB));
            QFAIL("a 1 GiB budget planned");
        } catch (const ft::Error& e) {
            QCOMPARE(e.code(), ft::ErrorCode::out_of_memory);
            const QString m = QString::fromStdString(e.message());
            QVERIFY2(m.contains("at least") && m.contains("GiB"), qPrintable(m));
            // The figure it names really works.
            const QRegularExpression re("at least ([0-9.]+) GiB");
            const auto match = re.match(m);
            QVERIFY(match.hasMatch());
            const double need = match.captured(1).toDouble();
            QVERIFY(need > 1.0);
            // The same for translating front ends (the app's Models page and load error): {budget, backend, needed}.
            QCOMPARE(QString::fromStdString(e.key().key), QStringLiteral("vram_too_small"));
            QCOMPARE(int(e.key().args.size()), 3);
            QCOMPARE(QString::fromStdString(e.key().args[0]), QStringLiteral("1.00 GiB"));
            QCOMPARE(QString::fromStdString(e.key().args[1]), QStringLiteral("offload"));
            QCOMPARE(QString::fromStdString(e.key().args[2]), match.captured(1) + QStringLiteral(" GiB"));
            const ft::MemoryPlan p = ft::memory::plan_memory(g, at(std::uint64_t((need + 0.02) * double(GiB))));
            QVERIFY(p.total() <= std::uint64_t((need + 0.02) * double(GiB)));
        }
    }

    void explicitSizes() {
        const auto g = qwen30b();
        auto r = at(8 * GiB);
        r.expert_slots = 1000;
        r.kv_tokens = 20000;
        const ft::MemoryPlan p = ft::memory::plan_memory(g, r);
        QCOMPARE(p.expert_slots, 1000);
        QCOMPARE(p.kv_tokens, std::int64_t(20000));
        r.expert_slots = 5000;  // 12 GiB of experts in 8 GiB
        QVERIFY_THROWS_FT(ft::memory::plan_memory(g, r), ft::ErrorCode::out_of_memory);
        r.expert_slots = 100000;
        QVERIFY_THROWS_FT(ft::memory::plan_memory(g, r), ft::ErrorCode::invalid_argument);
    }

    void rebuildChecks() {
        const auto g = qwen30b();
        const ft::MemoryPlan p = ft::memory::plan_memory(g, at(8 * GiB));
        // More KV, fewer experts: accepted, inside the budget.
        ft::CacheRequest grow{p.kv_tokens * 2, p.expert_slots - int(p.kv_tokens * p.kv_bytes_per_token / p.expert_slot_bytes) - 1};
        auto c = ft::memory::check_rebuild(g, p, grow, 0);
        QVERIFY2(c.ok, c.reason.c_str());
        QVERIFY(c.plan.total() <= p.budget);
        QCOMPARE(c.plan.kv_tokens, p.kv_tokens * 2);
        // Past the budget: rejected with the numbers, the plan unchanged.
        c = ft::memory::check_rebuild(g, p, {p.kv_tokens * 2, p.max_expert_slots}, 0);
        QVERIFY(!c.ok);
        QVERIFY2(QString::fromStdString(c.reason).contains("budget"), c.reason.c_str());
        QCOMPARE(c.plan.kv_tokens, p.kv_tokens);
        // More KV than every sequence at full context: past the slider's limit.
        c = ft::memory::check_rebuild(g, p, {p.max_kv_tokens + 16, p.min_expert_slots}, 0);
        QVERIFY(!c.ok);
        QVERIFY2(QString::fromStdString(c.reason).contains(std::to_string(p.max_kv_tokens).c_str()), c.reason.c_str());
        // Fewer slots than one layer's experts.
        c = ft::memory::check_rebuild(g, p, {-1, 100}, 0);
        QVERIFY(!c.ok);
        QVERIFY2(QString::fromStdString(c.reason).contains("128"), c.reason.c_str());
        // KV below what the running requests hold.
        c = ft::memory::check_rebuild(g, p, {5000, -1}, 6000);
        QVERIFY(!c.ok);
        QVERIFY2(QString::fromStdString(c.reason).contains("6000"), c.reason.c_str());
        // The slider's limits are themselves accepted.
        c = ft::memory::check_rebuild(g, p, {p.min_kv_tokens, p.max_expert_slots}, 0);
        QVERIFY2(c.ok, c.reason.c_str());
        c = ft::memory::check_rebuild(g, p, {p.max_kv_tokens, p.min_expert_slots}, 0);
        QVERIFY2(c.ok, c.reason.c_str());
    }

    void predictorVerdicts() {
        const auto g = qwen30b();
        ft::memory::PlanRequest r;
        ft::MachineProfile pc;
        pc.ram_bytes = 64 * GiB;
        pc.vram_bytes = 8 * GiB;
        pc.pcie_gbps = 25;
        pc.host_gbps = 60;
        pc.gpu_mem_gbps = 450;
        auto f = ft::memory::predict_fit(g, pc, r);
        QCOMPARE(QString::fromStdString(f.verdict), QStringLiteral("hybrid"));
        QCOMPARE(QString::fromStdString(f.backend), QStringLiteral("hybrid"));  // the CPU outruns PCIe here
        QVERIFY(f.decode_tok_s_low > 5 && f.decode_tok_s_high > f.decode_tok_s_low);
        QVERIFY(f.prefill_tok_s > 0);
        // More VRAM: faster.
        pc.vram_bytes = 16 * GiB;
        const auto f16 = ft::memory::predict_fit(g, pc, r);
        QVERIFY(f16.decode_tok_s_low > f.decode_tok_s_low);
        pc.vram_bytes = 48 * GiB;
        QCOMPARE(QString::fromStdString(ft::memory::predict_fit(g, pc, r).verdict), QStringLiteral("gpu"));
        pc.vram_bytes = 0;
        f = ft::memory::predict_fit(g, pc, r);
        QCOMPARE(QString::fromStdString(f.verdict), QStringLiteral("cpu"));
        QCOMPARE(QString::fromStdString(f.reason_key.key), QStringLiteral("fit_no_gpu"));
        pc.vram_bytes = GiB / 2;  // too small for the weights: CPU with the reason, keyed for the app's language
        f = ft::memory::predict_fit(g, pc, r);
        QCOMPARE(QString::fromStdString(f.verdict), QStringLiteral("cpu"));
        QVERIFY(!f.reason.empty());
        QCOMPARE(QString::fromStdString(f.reason_key.key), QStringLiteral("vram_too_small"));
        QCOMPARE(QString::fromStdString(f.reason_key.args.at(0)), QStringLiteral("0.50 GiB"));
        QVERIFY2(QString::fromStdString(f.reason).contains(QString::fromStdString(f.reason_key.args.at(2))), f.reason.c_str());
        pc.ram_bytes = 8 * GiB;
        f = ft::memory::predict_fit(g, pc, r);
        QCOMPARE(QString::fromStdString(f.verdict), QStringLiteral("no_fit"));
        QVERIFY2(QString::fromStdString(f.reason).contains("GiB"), f.reason.c_str());
        QCOMPARE(QString::fromStdString(f.reason_key.key), QStringLiteral("fit_no_ram"));
        QCOMPARE(QString::fromStdString(f.reason_key.args.at(1)), QStringLiteral("8.00 GiB"));
    }

    void predictorMatchesTheH200() {
        // Measured on the H200 machine (2026-12-01, docs/benchmarks.md "Fit predictor"): `ft bench decode` (offload,
        // synthetic routing, batch 1) and `ft bench prefill --prompt-len 8192` at each budget with default options,
        // against `ft inspect --plan --vram B` on the same machine profile. The predictor must stay within ±25 %.
        const auto g = qwen30b();
        ft::MachineProfile pc;
        pc.ram_bytes = 125 * GiB;
        pc.pcie_gbps = 43.6;
        pc.host_gbps = 55.8;
        pc.gpu_mem_gbps = 4800;
        pc.gpu_sms = 132;
        pc.gpu_cc = 90;
        struct Row {
            int gib;
            double decode, prefill;
        };
        for (const Row& m : {Row{4, 90.6, 3131.7}, Row{8, 125.9, 5341.1}, Row{12, 145.4, 7127.3}, Row{16, 156.8, 9088.5}}) {
            pc.vram_bytes = std::uint64_t(m.gib) * GiB;
            ft::memory::PlanRequest r;
            const auto f = ft::memory::predict_fit(g, pc, r);
            const double decode = (f.decode_tok_s_low + f.decode_tok_s_high) / 2;
            std::printf("%2d GiB: decode predicted %.1f (%.1f–%.1f) measured %.1f (%+.0f %%); prefill predicted %.0f "
                        "measured %.0f (%+.0f %%); miss rate %.1f %% at %.0f %% cached\n",
                        m.gib, decode, f.decode_tok_s_low, f.decode_tok_s_high, m.decode, 100 * (decode / m.decode - 1),
                        f.prefill_tok_s, m.prefill, 100 * (f.prefill_tok_s / m.prefill - 1), 100 * f.miss_rate,
                        100 * f.cache_fraction);
            QCOMPARE(QString::fromStdString(f.backend), QStringLiteral("offload"));
            QVERIFY2(std::abs(decode / m.decode - 1) <= 0.25, qPrintable(QString::number(decode)));
            QVERIFY2(std::abs(f.prefill_tok_s / m.prefill - 1) <= 0.25, qPrintable(QString::number(f.prefill_tok_s)));
        }
        // The miss curve through its anchors.
        QVERIFY(std::abs(ft::memory::lru_miss_rate(0.37) - 0.16) < 1e-9);
        QCOMPARE(ft::memory::lru_miss_rate(0.0), 1.0);
        QCOMPARE(ft::memory::lru_miss_rate(1.0), 0.0);
        QVERIFY(ft::memory::lru_miss_rate(0.2) > ft::memory::lru_miss_rate(0.3));
    }

    void predictorOnAFile() {
        // The tiny golden model (a Hugging Face folder): fits anywhere.
        ft::MachineProfile pc;
        pc.ram_bytes = 16 * GiB;
        pc.vram_bytes = 0;
        const auto f = ft::predict_fit(FT_SOURCE_DIR "/tests/data/qwen3-moe-tiny", pc);
        QCOMPARE(QString::fromStdString(f.verdict), QStringLiteral("cpu"));
        QVERIFY(f.decode_tok_s_high > 0);
        // A file that is no model.
        QTemporaryDir dir;
        QVERIFY_THROWS_FT(ft::predict_fit(dir.path().toStdString() + "/none.gguf", pc), ft::ErrorCode::not_found);
    }
};

FT_TEST_MAIN(TestPlanner)
#include "test_planner.moc"
