// The planner's prediction equals what the GPU runner allocates, on every architecture: the runner's scratch list is
// model::graph_needs over the graph it runs (built from the model's real weights), its KV cache the graph's KV
// geometry; the planner reads the same declarations over the graph of the model's description (Weights::shapes).
// Checked on every architecture fixture in tests/data and the bundled GGUF demo model at several budgets, contexts,
// chunks and sequence counts, and on the synth presets' released sizes (no weights: the description's graph against
// the planner's plan, and a few buffers of Qwen3-30B-A3B by hand). No GPU needed.
// Before Qt's headers: exec/runner.h names a parameter `slots`, a Qt keyword.
#include "exec/runner.h"

#include <QFileInfo>
#include <QTest>

#include <filesystem>
#include <memory>

#include "ft/error.h"
#include "ft_test.h"
#include "memory/planner.h"
#include "model/arch.h"
#include "model/block_needs.h"
#include "model/weights.h"
#include "synth/synth_model.h"

namespace {

constexpr std::uint64_t GiB = 1ull << 30;
using ft::model::Scratch;

// What GpuRunner allocates for this plan (its options as the model loader sets them from the plan): the step's
// scratch list and the KV cache with its state pools.
struct RunnerAllocation {
    std::uint64_t scratch = 0, kv = 0, kv_per_token = 0, state = 0;
};

std::uint64_t a256(std::uint64_t b) { return std::max<std::uint64_t>(256, (b + 255) / 256 * 256); }

RunnerAllocation runner_allocation(const ft::model::ModelGraph& g, const ft::MemoryPlan& p, bool exact) {
    // GpuRunnerOptions as the model loader fills them from the plan (sched/model_loader.cpp).
    ft::exec::GpuRunnerOptions o;
    o.plan = p;
    o.n_ctx = p.n_ctx;
    o.max_sequences = p.max_sequences;
    o.max_batch_tokens = p.prefill_chunk + p.max_sequences;
    o.gemm = exact ? ft::exec::GemmPrecision::f32 : ft::exec::GemmPrecision::bf16;
    o.kv_f16 = p.kv_bytes_per_element == 2;
    const ft::model::StepShape s = ft::exec::gpu_step_shape(o);
    RunnerAllocation a;
    a.scratch = ft::model::graph_needs(g, s).total();
    const int elem = ft::model::kv_elem_bytes(g, o.kv_f16);  // GpuRunner::kv_geometry
    const auto kv = ft::exec::graph_kv_geometry(g, p.kv_page_size, p.kv_tokens / p.kv_page_size, elem,
                                                ft::exec::state_slots(p.max_sequences));
    a.kv = std::uint64_t(kv.n_layer) * (kv.k_layer_bytes() + kv.v_layer_bytes());
    a.kv_per_token = ft::exec::graph_kv_geometry(g, 1, 1, elem, 0).bytes();
    a.state = kv.rs_layer_bytes() ? std::uint64_t(kv.n_rs_layer) * a256(kv.rs_layer_bytes()) : 0;
    return a;
}

// Every plan of a grid of requests on geometry g against the runner's allocation for graph `run`.
int check_plans(const ft::memory::ModelGeometry& g, const ft::model::ModelGraph& run, const char* what) {
    int plans = 0;
    const std::uint64_t model = g.non_expert_bytes + g.expert_pool_bytes;
    for (double budget_x : {1.05, 1.5, 3.0})
        for (int n_ctx : {256, 4096, 32768})
            for (int seqs : {1, 4})
                for (int chunk : {7, 512, 8192})
                    for (bool exact : {false, true})
                    for (const char* backend : {"auto", "offload"}) {
                        ft::memory::PlanRequest r;
                        r.backend = backend;
                        r.device_total = r.device_free = 1024 * GiB;
                        r.vram_budget = std::uint64_t(budget_x * double(model)) + 2 * GiB;
                        r.n_ctx = n_ctx;
                        r.max_sequences = seqs;
                        r.prefill_chunk = chunk;
                        r.exact_prefill = exact;
                        r.kv_f16 = !exact;
                        r.kv_reserve_tokens = n_ctx;
                        ft::MemoryPlan p;
                        try {
                            p = ft::memory::plan_memory(g, r);
                        } catch (const ft::Error& e) {
                            if (e.code() == ft::ErrorCode::out_of_memory) continue;  // this budget is too small here
                            throw;
                        }
                        const RunnerAllocation a = runner_allocation(run, p, exact);
                        const std::uint64_t tables = p.backend == "resident" ? 0 : ft::memory::offload_table_bytes(g);
                        const QString at = QString("%1: budget %2 GiB, ctx %3, %4 sequences, chunk %5%6, %7")
                                               .arg(what).arg(double(r.vram_budget) / double(GiB), 0, 'f', 2).arg(n_ctx)
                                               .arg(seqs).arg(p.prefill_chunk).arg(exact ? " (exact)" : "")
                                               .arg(QString::fromStdString(p.backend));
                        if (p.scratch != a.scratch + tables)
                            qWarning("%s: planner scratch %llu, runner %llu + tables %llu", qPrintable(at),
                                     (unsigned long long)p.scratch, (unsigned long long)a.scratch, (unsigned long long)tables);
                        if (p.scratch != a.scratch + tables) return -1;
                        if (p.kv_bytes_per_token != a.kv_per_token || p.kv != a.kv || p.state != a.state) {
                            qWarning("%s: planner KV %llu / token, %llu, state %llu; runner %llu / token, %llu, state %llu",
                                     qPrintable(at), (unsigned long long)p.kv_bytes_per_token, (unsigned long long)p.kv,
                                     (unsigned long long)p.state, (unsigned long long)a.kv_per_token,
                                     (unsigned long long)a.kv, (unsigned long long)a.state);
                            return -1;
                        }
                        ++plans;
                    }
    return plans;
}

}  // namespace

class TestBlockNeeds : public QObject {
    Q_OBJECT

private slots:
    void fixtures_data() {
        QTest::addColumn<QString>("path");
        for (const char* f : {"qwen3-moe-tiny", "qwen3-5-moe-tiny", "deepseek-v3-tiny", "deepseek-v4-tiny", "glm4-moe-tiny",
                              "gpt-oss-tiny"})
            QTest::newRow(f) << QStringLiteral(FT_SOURCE_DIR "/tests/data/") + f;
        QTest::newRow("freetoken-demo.gguf") << QStringLiteral(FT_SOURCE_DIR "/resources/models/freetoken-demo.gguf");
    }

    // The planner on the description (as the fit predictor and the loader see it) against the runner on the real
    // weights' graph.
    void fixtures() {
        QFETCH(QString, path);
        const auto w = ft::model::Weights::open(path.toStdString());
        const ft::model::ModelGraph run = ft::model::build_graph(*w);
        const ft::memory::ModelGeometry g = ft::memory::geometry_of(*w);
        const int plans = check_plans(g, run, qPrintable(QFileInfo(path).fileName()));
        QVERIFY2(plans > 0, "a plan differs from the runner's allocation (see the warning above), or none was made");
        qInfo("%d plans equal to the runner's allocation", plans);
    }

    // The released sizes (`ft synth --preset`): the plan against the declarations over the description's graph, and
    // every plan within its budget.
    void presets() {
        int plans = 0;
        for (const std::string& preset : ft::synth::synth_presets()) {
            const auto arch = ft::synth::synth_preset_arch(preset);
            QVERIFY(arch);
            const auto d = ft::synth::synth_desc(*arch, preset, {});
            if (!ft::model::arch_runs(d.arch)) continue;
            const auto g = ft::memory::geometry_of(d, 2 * GiB, 16 * GiB);
            const int n = check_plans(g, *g.graph, preset.c_str());
            QVERIFY2(n > 0, preset.c_str());
            plans += n;
        }
        qInfo("%d preset plans equal to the declared allocation", plans);
    }

    // Qwen3-30B-A3B's buffers by hand (48 layers, n_embd 2048, 32 heads / 4 KV heads of 128, 128 experts, k 8,
    // n_ff_exp 768, vocab 151936) for a 512-token chunk and 4 sequences at 4096 positions.
    void qwen30bByHand() {
        const auto d = ft::synth::synth_desc(ft::model::ArchId::qwen3_moe, "qwen3-30b-a3b", {});
        const auto g = ft::memory::geometry_of(d, GiB, 15 * GiB);
        ft::model::StepShape s = ft::memory::plan_step_shape(512 + 4, 4, 4096, false);
        const ft::model::ScratchNeeds n = ft::model::graph_needs(*g.graph, s);
        const std::uint64_t T = 516;
        QCOMPARE(n[Scratch::x], T * 2048 * 4);
        QCOMPARE(n[Scratch::qkv], T * (32 * 128 + 2 * 4 * 128) * 4);
        QCOMPARE(n[Scratch::att], T * 32 * 128 * 4);
        QCOMPARE(n[Scratch::router_logits], T * 128 * 4);
        QCOMPARE(n[Scratch::xs], T * 8 * 2048 * 4);
        QCOMPARE(n[Scratch::gate], T * 8 * 768 * 4);
        QCOMPARE(n[Scratch::dense_rows], T * 8 * 2048 * 2);
        QCOMPARE(n[Scratch::logits], std::uint64_t(256) * 151936 * 4);
        QCOMPARE(n[Scratch::pages], std::uint64_t(5 * 256 + 1) * 4);
        // Split-K decode: min(4096 / 64, 128) = 64 splits per (sequence, head).
        QCOMPARE(n[Scratch::attn_ws], std::uint64_t(4 * 32 * 64 * 8 + 4 * 32 * 64 * 128 * 4));
        QCOMPARE(n[Scratch::lin], std::uint64_t(0));
        QCOMPARE(n[Scratch::compressed], std::uint64_t(0));
        QCOMPARE(n.gemm_k, std::int64_t(32 * 128));
        QCOMPARE(ft::memory::kv_bytes_per_token(g, true), std::uint64_t(48 * 2 * 4 * 128 * 2));
        // Exact prefill: no BF16 rows.
        s.bf16_rows = false;
        QCOMPARE(ft::model::graph_needs(*g.graph, s)[Scratch::dense_rows], std::uint64_t(0));
    }

    // Compressed attention (DeepSeek-V4) keeps f32 KV rows on the GPU whatever is asked; the others take f16.
    void kvRowFormat() {
        const auto v4 = ft::model::Weights::open(FT_SOURCE_DIR "/tests/data/deepseek-v4-tiny");
        const auto v3 = ft::model::Weights::open(FT_SOURCE_DIR "/tests/data/deepseek-v3-tiny");
        QCOMPARE(ft::model::kv_elem_bytes(ft::model::build_graph(*v4), true), 4);
        QCOMPARE(ft::model::kv_elem_bytes(ft::model::build_graph(*v3), true), 2);
        QCOMPARE(ft::model::kv_elem_bytes(ft::model::build_graph(*v3), false), 4);
    }
};

FT_TEST_MAIN(TestBlockNeeds)
#include "test_block_needs.moc"
