// CPU topology (hwloc) and the worker pool: every task runs exactly once, exceptions reach the caller, launch/wait
// overlaps with the caller's work, sleeping workers and a sleeping caller are woken, and misuse is a clear error.
#include <atomic>
#include <chrono>
#include <set>
#include <stdexcept>
#include <thread>

#include "cpu/cpu_topology.h"
#include "cpu/worker_pool.h"
#include "ft/error.h"
#include "ft_test.h"

class TestWorkerPool : public QObject {
    Q_OBJECT
private slots:
    void topologyHasPhysicalCores() {
        const auto& t = ft::cpu::cpu_topology();
        QVERIFY(!t.cores.empty());
        QVERIFY(int(t.cores.size()) <= t.logical_cpus);
        std::set<int> pus;
        for (const auto& c : t.cores) {
            QVERIFY(!c.pus.empty());
            for (int pu : c.pus) QVERIFY2(pus.insert(pu).second, "a hardware thread belongs to two cores");
        }
        qInfo("%zu physical cores, %d logical CPUs, %d NUMA nodes, L2 %llu KiB, L3 %llu KiB, hwloc=%d, model '%s'",
              t.cores.size(), t.logical_cpus, t.numa_nodes, (unsigned long long)(t.l2_bytes >> 10),
              (unsigned long long)(t.l3_bytes >> 10), int(t.from_hwloc), t.cpu_model.c_str());
    }

    void everyTaskRunsExactlyOnce_data() {
        QTest::addColumn<int>("threads");
        QTest::addColumn<int>("tasks");
        for (int threads : {1, 2, 4})
            for (int tasks : {1, 3, 64, 10007}) QTest::addRow("%dt/%d", threads, tasks) << threads << tasks;
    }
    void everyTaskRunsExactlyOnce() {
        QFETCH(int, threads);
        QFETCH(int, tasks);
        ft::cpu::WorkerPool pool({threads, false, 20});
        QCOMPARE(pool.size(), threads);
        for (int round = 0; round < 20; ++round) {  // back-to-back jobs, as in decode
            std::vector<std::atomic<int>> hits(static_cast<size_t>(tasks));
            std::atomic<int> bad_worker{0};
            pool.parallel_for(tasks, [&](std::int64_t t, int w) {
                hits[static_cast<size_t>(t)].fetch_add(1);
                if (w < 0 || w >= threads) bad_worker.fetch_add(1);
            });
            for (int i = 0; i < tasks; ++i) QCOMPARE(hits[static_cast<size_t>(i)].load(), 1);
            QCOMPARE(bad_worker.load(), 0);
        }
    }

    void exceptionReachesCallerAndPoolStaysUsable() {
        ft::cpu::WorkerPool pool({3, false, 20});
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, pool.parallel_for(100, [](std::int64_t t, int) {
            if (t == 37) throw std::runtime_error("task 37 failed");
        }));
        std::atomic<int> n{0};
        pool.parallel_for(50, [&](std::int64_t, int) { n.fetch_add(1); });
        QCOMPARE(n.load(), 50);
    }

    void launchOverlapsWithCaller() {
        // The tasks wait for something the caller does only after launch() has returned: if launch() blocked
        // until the tasks were done, they would time out instead of seeing it.
        ft::cpu::WorkerPool pool({3, false, 20});
        std::atomic<bool> caller_ran{false};
        std::atomic<int> saw{0}, on_caller{0};
        pool.launch(4, [&](std::int64_t, int w) {
            if (w == 0) on_caller++;  // launched jobs run on the workers only
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
            while (!caller_ran.load() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
            if (caller_ran.load()) saw++;
        });
        QVERIFY(pool.busy());
        caller_ran.store(true);  // the caller's own work, while the job runs
        pool.wait();
        QCOMPARE(saw.load(), 4);
        QCOMPARE(on_caller.load(), 0);
        QVERIFY(!pool.busy());
    }

    void startingAJobWhileOneRunsIsAnError() {
        ft::cpu::WorkerPool pool({2, false, 20});
        std::atomic<bool> release{false};
        pool.launch(1, [&](std::int64_t, int) {
            while (!release.load()) std::this_thread::yield();
        });
        QVERIFY_THROWS_EXCEPTION(ft::Error, pool.parallel_for(4, [](std::int64_t, int) {}));
        release.store(true);
        pool.wait();
    }

    void sleepingThreadsAreWoken() {
        // spin_us 0: the workers' wait for a job and the caller's wait for the workers both sleep (wait_on_word);
        // jobs after a pause find every worker asleep, and a slow task keeps the caller waiting on the others. A
        // lost wake-up hangs here.
        ft::cpu::WorkerPool pool({4, false, 0});
        std::atomic<int> n{0};
        for (int round = 0; round < 300; ++round) {
            if (round % 30 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
            pool.parallel_for(8, [&](std::int64_t t, int) {
                if (round % 3 == 0 && t >= 6) std::this_thread::sleep_for(std::chrono::microseconds(200));
                n.fetch_add(1);
            });
        }
        QCOMPARE(n.load(), 300 * 8);
        for (int round = 0; round < 50; ++round) {  // launch, then the caller sleeps in wait()
            pool.launch(3, [&](std::int64_t, int) {
                std::this_thread::sleep_for(std::chrono::microseconds(100));
                n.fetch_add(1);
            });
            pool.wait();
        }
        QCOMPARE(n.load(), 300 * 8 + 50 * 3);
    }

    void pinsToPhysicalCoresWhenAsked() {
        const int cores = int(ft::cpu::cpu_topology().cores.size());
        ft::cpu::WorkerPool pool({cores, true, 20});
        pool.parallel_for(cores * 4, [](std::int64_t, int) {});
        // Pinning may be refused in containers; the pool must work either way.
        qInfo("%d of %d workers pinned", pool.pinned_workers(), cores - 1);
        QVERIFY(pool.pinned_workers() <= cores - 1);
    }
};

FT_TEST_MAIN(TestWorkerPool)
#include "test_worker_pool.moc"
