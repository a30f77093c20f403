// The stats feed (sched/engine_stats.h): a runner's typed counters become EngineStats' VRAM, PCIe and expert-cache
// figures. Hybrid's live B_P / B_C reach the cache stats (they were read by names no runner wrote, so /v1/stats and
// the Console showed 0); rates come from two samples a second apart; per-layer hit rates from the window.
#include <chrono>
#include <cmath>
#include <thread>

#include "exec/runner_counters.h"
#include "ft_test.h"
#include "sched/engine_stats.h"

namespace {

ft::exec::RunnerCounters sample(double scale) {
    ft::exec::RunnerCounters c;
    c.steps = 10 * scale;
    c.vram_weights = 1e9;
    c.vram_experts = 2e9;
    c.vram_kv = 5e8;
    c.expert_cache = true;
    c.expert_slots = 96;
    c.layers.resize(3);
    c.layers[0] = {30 * scale, 10 * scale, 4 * scale, 6 * scale, true};
    c.layers[2] = {10 * scale, 30 * scale, 20 * scale, 10 * scale, true};
    c.expert_hits = 40 * scale;
    c.expert_misses = 40 * scale;
    c.expert_fetched = 24 * scale;
    c.expert_cpu = 16 * scale;
    c.fetch_h2d_bytes = 3e9 * scale;
    c.prefill_h2d_bytes = 1e9 * scale;
    c.h2d_bytes = c.fetch_h2d_bytes + c.prefill_h2d_bytes;
    c.cpu_expert_bytes = 2e9 * scale;
    c.hybrid_fraction = 0.37;
    c.live_fetch_gbps = 24.5;
    c.live_cpu_gbps = 61.25;
    return c;
}

}  // namespace

class TestEngineStats : public QObject {
    Q_OBJECT
private slots:
    void typedCountersReachTheStats() {
        ft::sched::StatsTracker t;
        ft::EngineStats s;
        s.plan.budget = 8ull << 30;
        t.update(sample(1), 100, 3, s);
        std::this_thread::sleep_for(std::chrono::milliseconds(1100));
        t.update(sample(2), 200, 3, s);
        QCOMPARE(s.steps, std::uint64_t(20));
        QCOMPARE(s.vram.experts, std::uint64_t(2000000000));
        QVERIFY(s.cache.active);
        QCOMPARE(s.cache.n_slots, 96);
        QCOMPARE(s.cache.fraction, 0.37);
        QCOMPARE(s.cache.bp_gbps, 24.5);
        QCOMPARE(s.cache.bc_gbps, 61.25);
        QCOMPARE(s.pcie.h2d_bytes, std::uint64_t(8000000000));
        // 4 GB more H2D and 2 GB more CPU expert bytes over ~1.1 s.
        QVERIFY2(s.pcie.h2d_gbps > 3.0 && s.pcie.h2d_gbps < 3.7, qPrintable(QString::number(s.pcie.h2d_gbps)));
        QVERIFY2(s.cache.cpu_expert_gbps > 1.5 && s.cache.cpu_expert_gbps < 1.85, qPrintable(QString::number(s.cache.cpu_expert_gbps)));
        QCOMPARE(s.cache.hit_rate, 0.5);
        QCOMPARE(s.cache.fetched_per_token, 0.24);
        QCOMPARE(s.cache.layer_hit_rate.size(), std::size_t(3));
        QCOMPARE(s.cache.layer_hit_rate[0], 0.75f);
        QVERIFY(std::isnan(s.cache.layer_hit_rate[1]));  // never called
        QCOMPARE(s.cache.layer_hit_rate[2], 0.25f);
    }

    void namesKeptForBenchesAndStats() {
        const auto n = sample(1).named();
        auto value = [&](const char* k) {
            for (const auto& [name, v] : n)
                if (name == k) return v;
            return -1.0;
        };
        QCOMPARE(value("live_fetch_gbps"), 24.5);
        QCOMPARE(value("expert_slots"), 96.0);
        QCOMPARE(value("layer2_misses"), 30.0);
        QCOMPARE(value("layer1_hits"), -1.0);  // inactive layers are left out
        ft::exec::RunnerCounters cpu;          // no expert cache: the common part only
        QCOMPARE(cpu.named().size(), std::size_t(14));
    }
};

FT_TEST_MAIN(TestEngineStats)
#include "test_engine_stats.moc"
