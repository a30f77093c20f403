// The VRAM plan on the GPU (skipped without one): what the runner allocates matches the plan category by category
// (within 3 %), and live rebuilds of the expert cache and the KV cache while greedy requests stream (batch 1 and 4)
// leave every token identical to a run without them, reject what does not fit, and leak nothing.
#include <atomic>
#include <future>
#include <random>
#include <thread>

#include "ft/engine.h"
#include "engine_batch.h"
#include "ft_test.h"

namespace {

const std::filesystem::path kModel = FT_SOURCE_DIR "/tests/data/qwen3-moe-tiny";

using ft::test::rebuild;
using ft::test::run_batch;

ft::LoadOptions options(const std::string& backend) {
    ft::LoadOptions o;
    o.model = kModel;
    o.device = ft::Device::cuda;
    o.n_ctx = 512;
    o.max_sequences = 4;
    o.prefill_chunk = 256;
    o.moe_backend = backend;
    o.hybrid_fraction = 0.5;
    o.threads = 2;
    if (backend != "resident") o.expert_slots = 40;  // of 64: misses happen (the tiny model's 4 layers × 16 experts)
    return o;
}

bool within(std::uint64_t got, std::uint64_t planned, double tol) {
    return double(got) <= double(planned) * (1 + tol) + 4096 && double(got) >= double(planned) * (1 - tol) - 4096;
}

}  // namespace

class TestPlannerGpu : public QObject {
    Q_OBJECT

    void rebuildsKeepTokens(const std::string& backend, int batch) {
        ft::Engine e;
        e.load_sync(options(backend));
        const auto reference = run_batch(e, batch, 200);
        const ft::EngineStats before = e.stats();
        const ft::MemoryPlan p0 = before.plan;
        QVERIFY(p0.gpu);
        int accepted = 0, rejected = 0;
        std::mt19937 rng(99 + unsigned(batch));
        const auto got = run_batch(e, batch, 200, [&] {
            while (ft::test::streamed_tokens.load() == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
            for (int i = 0; i < 100; ++i) {
                ft::CacheRequest req;
                const int kind = int(rng() % 10);
                if (kind < 4) req.expert_slots = p0.min_expert_slots + int(rng() % std::uint32_t(p0.expert_slots_total));
                else if (kind < 7) req.kv_tokens = p0.min_kv_tokens + std::int64_t(rng() % 4096);
                else if (kind < 8) req.expert_slots = int(rng() % 16);         // below one layer: rejected
                else if (kind < 9) req.kv_tokens = std::int64_t(1) << 30;       // past the budget: rejected
                else {
                    req.expert_slots = p0.min_expert_slots + int(rng() % 32);
                    req.kv_tokens = p0.min_kv_tokens + std::int64_t(rng() % 2048);
                }
                const ft::RebuildResult r = rebuild(e, req);
                r.accepted ? ++accepted : ++rejected;
                if (!r.accepted) QVERIFY(!r.reason.empty());
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
        });
        QCOMPARE(got.size(), reference.size());
        for (std::size_t i = 0; i < got.size(); ++i) QCOMPARE(got[i], reference[i]);
        qInfo("%s batch %d: %d rebuilds accepted, %d rejected", backend.c_str(), batch, accepted, rejected);
        QVERIFY(accepted >= 20 && rejected >= 10);
        // Back to the first sizes: the same VRAM in use as before (nothing leaked).
        const auto back = rebuild(e, {p0.kv_tokens, p0.expert_slots});
        QVERIFY2(back.accepted, back.reason.c_str());
        const ft::EngineStats after = e.stats();
        QCOMPARE(after.vram.experts, before.vram.experts);
        QCOMPARE(after.vram.kv, before.vram.kv);
        QCOMPARE(after.vram.scratch, before.vram.scratch);
        QCOMPARE(after.vram.weights, before.vram.weights);
        QCOMPARE(run_batch(e, batch, 200), reference);
    }

private slots:
    void plannedMatchesAllocated_data() {
        QTest::addColumn<QString>("backend");
        QTest::newRow("resident") << "resident";
        QTest::newRow("offload") << "offload";
        QTest::newRow("hybrid") << "hybrid";
    }
    void plannedMatchesAllocated() {
        QFETCH(QString, backend);
        ft::Engine e;
        e.load_sync(options(backend.toStdString()));
        run_batch(e, 1, 4);
        const ft::EngineStats s = e.stats();
        const ft::MemoryPlan& p = s.plan;
        qInfo("%s: planned weights %llu experts %llu kv %llu scratch %llu cublas %llu; allocated %llu %llu %llu %llu other %llu",
              backend.toUtf8().constData(), (unsigned long long)p.weights, (unsigned long long)p.experts,
              (unsigned long long)p.kv, (unsigned long long)p.scratch, (unsigned long long)p.cublas,
              (unsigned long long)s.vram.weights, (unsigned long long)s.vram.experts, (unsigned long long)s.vram.kv,
              (unsigned long long)s.vram.scratch, (unsigned long long)s.vram.other);
        QCOMPARE(QString::fromStdString(p.backend), backend);
        QVERIFY2(within(s.vram.weights, p.weights, 0.03), "weights");
        QVERIFY2(within(s.vram.experts, p.experts, 0.03), "experts");
        QVERIFY2(within(s.vram.kv, p.kv, 0.03), "kv");
        QVERIFY2(within(s.vram.scratch, p.scratch, 0.03), "scratch");
        QCOMPARE(p.kv_bytes_per_element, 2);
        QVERIFY(s.vram.peak <= p.budget);
        if (backend != "resident") {
            QVERIFY(s.cache.active);
            QCOMPARE(s.cache.n_slots, p.expert_slots);
            QCOMPARE(int(s.cache.layer_hit_rate.size()), 4);
        }
    }

    void offloadBatchOne() { rebuildsKeepTokens("offload", 1); }
    void hybridBatchFour() { rebuildsKeepTokens("hybrid", 4); }

    void statsNeverWaitOnTheGpu() {
        ft::Engine e;
        e.load_sync(options("hybrid"));
        std::vector<double> us;
        run_batch(e, 4, 200, [&] {
            const auto t_end = std::chrono::steady_clock::now() + std::chrono::milliseconds(1000);
            while (std::chrono::steady_clock::now() < t_end) {
                const auto t0 = std::chrono::steady_clock::now();
                (void)e.stats();
                us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
                std::this_thread::sleep_for(std::chrono::microseconds(200));
            }
        });
        std::sort(us.begin(), us.end());
        const double p99 = us[us.size() * 99 / 100];
        qInfo("stats() at batch 4 on the GPU: %zu calls, p50 %.1f µs, p99 %.1f µs", us.size(), us[us.size() / 2], p99);
        QVERIFY(p99 < 1000);
    }
};

FT_GPU_TEST_MAIN(TestPlannerGpu)
#include "test_planner_gpu.moc"
