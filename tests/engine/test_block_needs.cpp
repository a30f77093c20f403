// The planner's prediction equals what the GPU runner allocates, on every architecture: the runner's scratch list is
// model::graph_needs over the graph it runs (built from the model's real weights), its KV cache the graph's KV
// geometry; the planner reads the same declarations over the graph of the model's description (Weights::shapes).
// Checked on every architecture fixture in tests/data and the bundled GGUF demo model at several budgets, contexts,
// chunks and sequence counts, and on the synth presets' released sizes (no weights: the description's graph against
// the planner's plan, and a few buffers of Qwen3-30B-A3B by hand). The weights likewise: the declaration on the
// loaded model against the one on the description with the file's tensor types, on every fixture, the demo model and
// llama.cpp's quantizations of one model (mixed types per layer), and by hand against the GGUF tensor table. No GPU
// needed (the GPU runner checks its upload against the same declaration at every load).
// Before Qt's headers: exec/runner.h names a parameter `slots`, a Qt keyword.
#include "exec/runner.h"

#include <QFileInfo>
#include <QTest>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include <nlohmann/json.hpp>

#include "ft/error.h"
#include "ft_test.h"
#include "memory/planner.h"
#include "model/arch.h"
#include "format/gguf.h"
#include "model/block_needs.h"
#include "model/model_desc.h"
#include "model/model_inspect.h"
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

// The llama.cpp quantizations of one random Qwen3-MoE (shared/testdata/quants; FT_QUANTS_DIR names another folder).
std::vector<std::filesystem::path> quant_files() {
    std::filesystem::path dir = std::filesystem::path(FT_TESTDATA_DIR) / "quants";
    if (const char* d = std::getenv("FT_QUANTS_DIR"); d && *d) dir = d;
    std::vector<std::filesystem::path> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
        if (e.path().extension() == ".gguf") out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
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
        if (!QFileInfo::exists(path)) QSKIP(qPrintable(path + " is missing (moved out for a GPU-machine call?)"));
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

    // The weights as the blocks declare them (model/block_needs.h graph_weights; the GPU runner checks its upload
    // against the same declaration at load): the planner on the loaded model equals the planner on the description
    // with the file's tensor list, as ft inspect --plan and the fit predictor see it (ft inspect's report; a Hugging
    // Face folder's under its checkpoint names). On every fixture, the demo model and every llama.cpp quantization
    // of shared/testdata/quants (mixed types per layer: Q4_K_M's, Q3_K_M's down projections).
    void weightsDeclared_data() {
        QTest::addColumn<QString>("path");
        for (const char* f : {"qwen3-moe-tiny", "qwen3-5-moe-tiny", "deepseek-v3-tiny", "deepseek-v4-tiny", "glm4-moe-tiny",
                              "gpt-oss-tiny"})
            QTest::newRow(f) << QStringLiteral(FT_SOURCE_DIR "/tests/data/") + f;
        QTest::newRow("freetoken-demo.gguf") << QStringLiteral(FT_SOURCE_DIR "/resources/models/freetoken-demo.gguf");
        for (const auto& q : quant_files()) QTest::newRow(q.filename().string().c_str()) << QString::fromStdString(q.string());
    }
    void weightsDeclared() {
        QFETCH(QString, path);
        if (!QFileInfo::exists(path)) QSKIP(qPrintable(path + " is missing (moved out for a GPU-machine call?)"));
        const auto w = ft::model::Weights::open(path.toStdString());
        const ft::memory::ModelGeometry loaded = ft::memory::geometry_of(*w);
        const nlohmann::json j = ft::model::inspect_path(path.toStdString());
        std::vector<ft::model::TensorStat> stats;
        for (const auto& t : j.value("tensors", nlohmann::json::array())) {
            const auto type = ft::kernels::dtype_from_name(t.value("type", std::string()));
            if (!type) continue;
            ft::model::TensorStat st;
            st.name = t.value("name", std::string());
            st.type = *type;
            stats.push_back(std::move(st));
        }
        const ft::memory::ModelGeometry described =
            ft::memory::geometry_of(w->desc(), ft::memory::weight_types(w->desc(), stats), 0, 0);
        QVERIFY(loaded.declared_weights);
        QVERIFY2(described.declared_weights, "the report's tensor list does not give every tensor's type");
        qInfo("resident %llu, expert pool %llu, slot %llu bytes (file: %llu + %llu)",
              (unsigned long long)loaded.non_expert_bytes, (unsigned long long)loaded.expert_pool_bytes,
              (unsigned long long)loaded.slot_bytes, (unsigned long long)w->other_bytes(),
              (unsigned long long)w->expert_bytes());
        QCOMPARE(described.non_expert_bytes, loaded.non_expert_bytes);
        QCOMPARE(described.expert_pool_bytes, loaded.expert_pool_bytes);
        QCOMPARE(described.slot_bytes, loaded.slot_bytes);
        QCOMPARE(described.active_expert_bytes, loaded.active_expert_bytes);
        // Every routed expert weight is in the pool once (the stacks at least 256 bytes each).
        QVERIFY(loaded.expert_pool_bytes >= w->expert_bytes());
    }

    // The declaration against the GGUF tensor table by hand (the quantized Qwen3-MoE files: each tensor one
    // allocation of at least 256 bytes, vectors in f32, a layer's q/k/v one stack when of one type, the expert stacks
    // per layer at their own type, a slot each projection's largest over the layers padded to 256).
    void weightsByHand() {
        const auto files = quant_files();
        if (files.empty()) QSKIP("shared/testdata/quants is absent");
        int mixed = 0;
        for (const auto& f : files) {
            const auto r = ft::gguf::Reader::open(f);
            std::uint64_t resident = 0, pool = 0, big[3] = {0, 0, 0};
            std::map<std::string, std::vector<const ft::gguf::TensorInfo*>> qkv;  // per layer
            std::set<ft::kernels::DType> down_types;
            auto alloc = [](std::uint64_t b) { return std::max<std::uint64_t>(b, 256); };
            for (const auto& t : r.tensors()) {
                const std::string n = t.name;
                if (n.find("_exps.") != std::string::npos) {
                    pool += alloc(t.n_bytes);
                    const int i = n.find("gate_exps") != std::string::npos ? 0 : n.find("up_exps") != std::string::npos ? 1 : 2;
                    big[i] = std::max<std::uint64_t>(big[i], t.n_bytes / t.dims[2]);
                    if (i == 2) down_types.insert(t.type);
                } else if (t.n_dims == 1) {
                    resident += alloc(t.n_elements * 4);
                } else if (n.ends_with("attn_q.weight") || n.ends_with("attn_k.weight") || n.ends_with("attn_v.weight")) {
                    qkv[n.substr(0, n.find(".attn_"))].push_back(&t);
                } else {
                    resident += alloc(t.n_bytes);
                }
            }
            for (const auto& [layer, parts] : qkv) {
                QCOMPARE(parts.size(), std::size_t(3));
                if (parts[0]->type == parts[1]->type && parts[1]->type == parts[2]->type)
                    resident += alloc(parts[0]->n_bytes + parts[1]->n_bytes + parts[2]->n_bytes);
                else
                    for (const auto* p : parts) resident += alloc(p->n_bytes);
            }
            const auto g = ft::memory::geometry_of(*ft::model::Weights::open(f));
            const QString at = QString::fromStdString(f.filename().string());
            QVERIFY2(g.non_expert_bytes == resident, qPrintable(at + QString(": resident %1, by hand %2").arg(g.non_expert_bytes).arg(resident)));
            QVERIFY2(g.expert_pool_bytes == pool, qPrintable(at));
            QVERIFY2(g.slot_bytes == a256(big[0]) + a256(big[1]) + a256(big[2]), qPrintable(at));
            if (down_types.size() > 1) ++mixed;
        }
        qInfo("%zu files, %d with down projections of more than one type", files.size(), mixed);
        QVERIFY(mixed > 0);  // Q4_K_M's recipe gives some layers' down projections Q6_K
    }

    // The synth presets' released sizes at their default types: the planner reads the declaration (no file).
    void presetsDeclared() {
        for (const std::string& preset : ft::synth::synth_presets()) {
            const auto arch = ft::synth::synth_preset_arch(preset);
            const auto d = ft::synth::synth_desc(*arch, preset, {});
            if (!ft::model::arch_runs(d.arch)) continue;
            const auto plan = ft::synth::synth_plan(d, ft::kernels::DType::Q4_K, 1);
            std::vector<ft::model::TensorStat> stats;
            std::uint64_t file = 0;
            for (const auto& t : plan.tensors) {
                ft::model::TensorStat st;
                st.name = t.spec.name;
                st.type = t.type;
                stats.push_back(std::move(st));
                if (!t.spec.unused) file += t.n_bytes;  // GLM's MTP layer: in the file, never loaded
            }
            const auto g = ft::memory::geometry_of(d, ft::memory::weight_types(d, stats), 0, 0);
            QVERIFY2(g.declared_weights, preset.c_str());
            // The device holds the file's bytes of the tensors it uses (the synth files' vectors are f32 already),
            // and at most 256 bytes more per tensor: the smallest allocation.
            const std::uint64_t declared = g.non_expert_bytes + g.expert_pool_bytes;
            qInfo("%s: declared %.3f GiB, file %.3f GiB (%+lld bytes)", preset.c_str(),
                  double(g.non_expert_bytes + g.expert_pool_bytes) / double(GiB), double(file) / double(GiB),
                  (long long)(g.non_expert_bytes + g.expert_pool_bytes) - (long long)file);
            QVERIFY2(declared >= file && declared - file <= 256 * plan.tensors.size(), preset.c_str());
        }
    }

    // Compressed attention (DeepSeek-V4) keeps f32 KV rows on the GPU whatever is asked; the others take f16.
    void kvRowFormat() {
        for (const char* f : {"deepseek-v4-tiny", "deepseek-v3-tiny"})
            if (!QFileInfo::exists(QStringLiteral(FT_SOURCE_DIR "/tests/data/") + f))
                QSKIP(qPrintable(QStringLiteral("tests/data/%1 is missing (moved out for a GPU-machine call?)").arg(f)));
        const auto v4 = ft::model::Weights::open(FT_SOURCE_DIR "/tests/data/deepseek-v4-tiny");
        const auto v3 = ft::model::Weights::open(FT_SOURCE_DIR "/tests/data/deepseek-v3-tiny");
        QCOMPARE(ft::model::kv_elem_bytes(ft::model::build_graph(*v4), true), 4);
        QCOMPARE(ft::model::kv_elem_bytes(ft::model::build_graph(*v3), true), 2);
        QCOMPARE(ft::model::kv_elem_bytes(ft::model::build_graph(*v3), false), 4);
    }
};

FT_TEST_MAIN(TestBlockNeeds)
#include "test_block_needs.moc"
