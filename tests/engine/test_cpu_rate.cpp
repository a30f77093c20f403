// The fit predictor's CPU expert rate by block type (memory/cpu_rate.h): the 30B-shaped preset in IQ2_XXS is
// predicted to read its experts on the CPU slower than in Q4_K (its int8 path gathers lattice entries; a third of Q4_K's
// bytes a second on the dev machine), a stored
// `ft bench bw` profile of the model's own format replaces the per-type default, another format's profile is
// converted through the table, and a rate the user gives is Q4_K's. The profiles live in a real SQLite file in a
// temporary data folder; no GPU is needed.
#include <QTemporaryDir>

#include <vector>

#include "ft/plan.h"
#include "ft_test.h"
#include "memory/cpu_rate.h"
#include "memory/planner.h"
#include "model/model_desc.h"
#include "profile/bw_profile.h"
#include "synth/synth_model.h"

namespace {

using ft::kernels::DType;

// The geometry of the 30B-A3B preset with its matrices in `weights` and its experts in `experts`, as
// predict_fit_preset builds it (sizes and expert types from the file synth would write).
ft::memory::ModelGeometry preset(DType weights, DType experts) {
    const auto d = ft::synth::synth_desc(ft::model::ArchId::qwen3_moe, "qwen3-30b-a3b", {});
    const auto plan = ft::synth::synth_plan(d, weights, 1, experts);
    std::vector<ft::model::TensorStat> stats;
    for (const auto& t : plan.tensors) {
        ft::model::TensorStat s;
        s.name = t.spec.name;
        s.dims = t.spec.dims;
        s.type = t.type;
        s.n_elements = t.spec.n_elements();
        s.n_bytes = t.n_bytes;
        stats.push_back(std::move(s));
    }
    const auto sizes = ft::model::measure(&d, stats);
    auto g = ft::memory::geometry_of(d, sizes.non_expert_bytes, sizes.expert_pool_bytes);
    ft::memory::set_expert_types(g, d, stats);
    return g;
}

ft::profile::BwProfile profile(const std::string& gpu, const std::string& format, double cpu_both, const char* when) {
    ft::profile::BwProfile p;
    p.gpu = gpu;
    p.format = format;
    p.threads = 2;
    p.pcie_gbs = p.pcie_both_gbs = 20;
    p.cpu_gbs = cpu_both * 1.2;
    p.cpu_both_gbs = cpu_both;
    p.fraction = 20 / (20 + cpu_both);
    p.measured_at = when;
    return p;
}

}  // namespace

class TestCpuRate : public QObject {
    Q_OBJECT
    QTemporaryDir tmp;

private slots:
    void initTestCase() {
        QVERIFY(tmp.isValid());
        qputenv("FT_DATA_DIR", (tmp.path() + "/data").toUtf8());
    }

    void expertTypesOfAPreset() {
        const auto g = preset(DType::Q8_0, DType::IQ2_XXS);
        QCOMPARE(QString::fromStdString(g.expert_format), QStringLiteral("iq2_xxs"));
        QCOMPARE(int(g.expert_bytes_by_type.size()), 1);
        QCOMPARE(g.expert_bytes_by_type[0].first, DType::IQ2_XXS);
        QCOMPARE(g.expert_bytes_by_type[0].second, g.expert_pool_bytes);
        QCOMPARE(QString::fromStdString(preset(DType::Q4_K, DType::Q4_K).expert_format), QStringLiteral("q4_K"));
    }

    // No profile, no --host-gbps: 40 GB/s for Q4_K, the low-bit decoder types several times slower, the int8 types
    // in between; the CPU-only decode band follows (fewer bytes, but read more slowly).
    void defaultsByType() {
        ft::MachineProfile pc;
        pc.ram_bytes = 64ull << 30;  // no GPU
        ft::memory::PlanRequest r;
        const auto q4 = ft::memory::predict_fit(preset(DType::Q8_0, DType::Q4_K), pc, r);
        const auto iq2 = ft::memory::predict_fit(preset(DType::Q8_0, DType::IQ2_XXS), pc, r);
        const auto q2 = ft::memory::predict_fit(preset(DType::Q8_0, DType::Q2_K), pc, r);
        QCOMPARE(QString::fromStdString(q4.cpu_expert_rate_source), QStringLiteral("default"));
        QCOMPARE(q4.cpu_expert_gbps, ft::memory::kDefaultQ4kCpuGbps);
        QCOMPARE(iq2.cpu_expert_gbps, ft::memory::kDefaultQ4kCpuGbps * ft::memory::cpu_rate_factor(DType::IQ2_XXS));
        QVERIFY2(iq2.cpu_expert_gbps < 0.5 * q4.cpu_expert_gbps, qPrintable(QString::number(iq2.cpu_expert_gbps)));
        QVERIFY2(q2.cpu_expert_gbps > iq2.cpu_expert_gbps && q2.cpu_expert_gbps < q4.cpu_expert_gbps,
                 qPrintable(QString::number(q2.cpu_expert_gbps)));
        // IQ2_XXS reads 2.06 / 4.5 of Q4_K's bytes; at its rate a CPU-only token still takes longer.
        QCOMPARE(QString::fromStdString(iq2.verdict), QStringLiteral("cpu"));
        QVERIFY(iq2.decode_tok_s_high < q4.decode_tok_s_high);
        // Every type the CPU executor reads has a factor; none above Q8_0's few percent over Q4_K, none at zero.
        for (DType t : {DType::F32, DType::BF16, DType::F16, DType::Q8_0, DType::Q4_0, DType::Q4_1, DType::Q5_0, DType::Q5_1,
                        DType::Q2_K, DType::Q3_K, DType::Q5_K, DType::Q6_K, DType::IQ4_NL, DType::IQ4_XS, DType::MXFP4,
                        DType::TQ1_0, DType::TQ2_0, DType::IQ2_XXS, DType::IQ2_XS, DType::IQ2_S, DType::IQ3_XXS,
                        DType::IQ3_S, DType::IQ1_S, DType::IQ1_M}) {
            const double f = ft::memory::cpu_rate_factor(t);
            QVERIFY2(f > 0.05 && f < 1.5, ft::kernels::dtype_info(t).name.data());
        }
    }

    // Mixed types: the time of each part at its own rate (gate/up in Q4_K, down in Q6_K: between the two).
    void mixedTypes() {
        const std::pair<DType, std::uint64_t> mix[] = {{DType::Q4_K, 200}, {DType::Q6_K, 100}};
        const double f4 = ft::memory::cpu_rate_factor(DType::Q4_K), f6 = ft::memory::cpu_rate_factor(DType::Q6_K);
        QCOMPARE(ft::memory::cpu_rate_factor(mix), 300.0 / (200.0 / f4 + 100.0 / f6));
        QCOMPARE(ft::memory::cpu_rate_factor(std::string_view("q4_K/q4_K/q6_K")), 3.0 / (2.0 / f4 + 1.0 / f6));
        QCOMPARE(ft::memory::cpu_rate_factor(std::string_view("iq2_xxs")), ft::memory::cpu_rate_factor(DType::IQ2_XXS));
        QCOMPARE(ft::memory::cpu_rate_factor(std::string_view("q4_K/nonsense/q4_K")), 0.0);
    }

    // A stored profile of the model's format is the rate; one of another format is converted; --host-gbps wins.
    void profileOverridesTheDefault() {
        const std::string gpu = "Test GPU 9000";
        ft::profile::store_profile(profile(gpu, "iq2_xxs", 7.5, "2026-12-06T10:00:00Z"));
        ft::profile::store_profile(profile(gpu, "q4_K", 30.0, "2026-12-07T10:00:00Z"));  // newer, another format
        ft::MachineProfile pc;
        ft::memory::add_stored_profiles(pc, gpu);
        QCOMPARE(int(pc.cpu_rates.size()), 2);
        QCOMPARE(QString::fromStdString(pc.cpu_rates[0].format), QStringLiteral("q4_K"));  // newest first
        QCOMPARE(pc.pcie_gbps, 20.0);
        pc.ram_bytes = 64ull << 30;
        ft::memory::PlanRequest r;
        auto f = ft::memory::predict_fit(preset(DType::Q8_0, DType::IQ2_XXS), pc, r);
        QCOMPARE(QString::fromStdString(f.cpu_expert_rate_source), QStringLiteral("profile"));
        QCOMPARE(f.cpu_expert_gbps, 7.5);
        // Q5_K has no profile: the Q4_K one through the table.
        f = ft::memory::predict_fit(preset(DType::Q8_0, DType::Q5_K), pc, r);
        QCOMPARE(QString::fromStdString(f.cpu_expert_rate_source), QStringLiteral("scaled"));
        QCOMPARE(f.cpu_expert_gbps, 30.0 * ft::memory::cpu_rate_factor(DType::Q5_K));
        // The user's figure is Q4_K's, over any profile.
        pc.host_gbps = 50;
        f = ft::memory::predict_fit(preset(DType::Q8_0, DType::IQ2_XXS), pc, r);
        QCOMPARE(QString::fromStdString(f.cpu_expert_rate_source), QStringLiteral("given"));
        QCOMPARE(f.cpu_expert_gbps, 50.0 * ft::memory::cpu_rate_factor(DType::IQ2_XXS));
        // A GPU with nothing stored leaves the machine as it was.
        ft::MachineProfile none;
        ft::memory::add_stored_profiles(none, "Another GPU");
        QVERIFY(none.cpu_rates.empty());
        QCOMPARE(none.pcie_gbps, 0.0);
    }
};

FT_TEST_MAIN(TestCpuRate)
#include "test_cpu_rate.moc"
