// Routing sources for cache measurements: the synthetic generator (valid picks, deterministic, and the documented
// LRU miss rate: ≈ 16 % at 37 % capacity on the Qwen3-30B-A3B shape), and trace files (round trip, replay order,
// clear errors for a wrong shape or a cut file).
#include <QTemporaryDir>

#include <algorithm>
#include <fstream>
#include <list>
#include <map>

#include "ft/error.h"
#include "ft_test.h"
#include "moe/routing_trace.h"

namespace {

// Global LRU over (layer, expert) with `cap` entries, fed layer by layer, step by step; the miss rate after warm-up.
// Written as a list + map (no stamps) to be independent of the engine's cache.
double lru_miss_rate(ft::moe::RoutingSource& src, int n_layer, int k, int cap, int steps, int warmup) {
    std::list<std::pair<int, int>> order;  // front = most recent
    std::map<std::pair<int, int>, std::list<std::pair<int, int>>::iterator> where;
    std::vector<std::int32_t> ids(std::size_t(n_layer) * std::size_t(k));
    long hits = 0, misses = 0;
    for (int s = 0; s < steps; ++s) {
        src.next_step(1, ids);
        for (int l = 0; l < n_layer; ++l)
            for (int j = 0; j < k; ++j) {
                const std::pair<int, int> key{l, ids[std::size_t(l * k + j)]};
                auto it = where.find(key);
                if (s >= warmup) (it != where.end() ? hits : misses) += 1;
                if (it != where.end()) order.erase(it->second);
                order.push_front(key);
                where[key] = order.begin();
                if (int(order.size()) > cap) {
                    where.erase(order.back());
                    order.pop_back();
                }
            }
    }
    return double(misses) / double(hits + misses);
}

}  // namespace

class TestRoutingTrace : public QObject {
    Q_OBJECT
private slots:
    void syntheticPicksAreValidAndDeterministic() {
        std::vector<bool> has = {false, true, true};
        auto a = ft::moe::make_synthetic_routing(has, 64, 6, {1.0, 0.55, 9});
        auto b = ft::moe::make_synthetic_routing(has, 64, 6, {1.0, 0.55, 9});
        auto c = ft::moe::make_synthetic_routing(has, 64, 6, {1.0, 0.55, 10});
        std::vector<std::int32_t> x(3 * 4 * 6), y(x.size()), z(x.size());
        bool differs = false;
        for (int s = 0; s < 50; ++s) {
            a->next_step(4, x);
            b->next_step(4, y);
            c->next_step(4, z);
            QCOMPARE(x, y);
            differs = differs || x != z;
            for (int t = 0; t < 4; ++t) QVERIFY(std::all_of(x.begin() + t * 6, x.begin() + t * 6 + 6, [](int v) { return v == -1; }));
            for (int l = 1; l < 3; ++l)
                for (int t = 0; t < 4; ++t) {
                    std::vector<int> tok(x.begin() + (l * 4 + t) * 6, x.begin() + (l * 4 + t + 1) * 6);
                    for (int v : tok) QVERIFY(v >= 0 && v < 64);
                    std::sort(tok.begin(), tok.end());
                    QVERIFY(std::adjacent_find(tok.begin(), tok.end()) == tok.end());
                }
        }
        QVERIFY(differs);
        QVERIFY(a->describe().find("synthetic") != std::string::npos);
    }

    // The generator's defaults reproduce the published figure: LRU over all layers at 37 % of the experts misses
    // about 16 % of routes; more skew or reuse means fewer misses.
    void syntheticDefaultsGiveTheDocumentedMissRate() {
        const int L = 48, E = 128, k = 8, cap = int(0.37 * L * E);
        std::vector<bool> has(L, true);
        auto src = ft::moe::make_routing_source("synthetic", has, E, k);
        const double miss = lru_miss_rate(*src, L, k, cap, 500, 100);
        qInfo("synthetic (zipf 1.0, reuse 0.55): LRU at 37%% capacity misses %.1f %%", 100 * miss);
        QVERIFY2(miss > 0.13 && miss < 0.19, qPrintable(QString::number(miss)));
        auto skewed = ft::moe::make_routing_source("synthetic:zipf=1.3,reuse=0.7,seed=3", has, E, k);
        QVERIFY(lru_miss_rate(*skewed, L, k, cap, 300, 100) < miss);
        auto flat = ft::moe::make_routing_source("synthetic:zipf=0,reuse=0", has, E, k);
        const double uniform = lru_miss_rate(*flat, L, k, cap, 300, 100);
        QVERIFY2(uniform > 0.55, qPrintable(QString::number(uniform)));  // no locality: ≈ 1 - 0.37
    }

    void traceRoundTripReplaysInOrder() {
        QTemporaryDir tmp;
        const std::string path = (tmp.path() + "/t.ftrt").toStdString();
        std::vector<std::vector<std::int32_t>> steps;
        {
            ft::moe::RoutingRecorder rec(path, 2, 3);
            for (int s = 0; s < 5; ++s) {
                std::vector<std::int32_t> ids = {s, s + 1, s + 2, 10 + s, 11 + s, 12 + s};
                rec.record(1, ids);
                steps.push_back(ids);
            }
            QCOMPARE(rec.steps(), std::uint64_t(5));
        }
        auto src = ft::moe::make_routing_source("trace:" + path, {true, true}, 32, 3);
        std::vector<std::int32_t> got(6);
        for (int s = 0; s < 7; ++s) {  // loops at the end
            src->next_step(1, got);
            QCOMPARE(got, steps[std::size_t(s % 5)]);
        }
        // Two tokens per step replay consecutive recorded steps side by side.
        std::vector<std::int32_t> two(12);
        src->next_step(2, two);
        QCOMPARE(std::vector<std::int32_t>(two.begin(), two.begin() + 3), std::vector<std::int32_t>(steps[2].begin(), steps[2].begin() + 3));
        QCOMPARE(std::vector<std::int32_t>(two.begin() + 3, two.begin() + 6), std::vector<std::int32_t>(steps[3].begin(), steps[3].begin() + 3));
    }

    void badTracesAndSpecsAreClearErrors() {
        QTemporaryDir tmp;
        const std::string path = (tmp.path() + "/t.ftrt").toStdString();
        {
            ft::moe::RoutingRecorder rec(path, 2, 3);
            rec.record(1, std::vector<std::int32_t>(6, 1));
        }
        auto expect = [](auto fn, const char* needle) {
            try {
                fn();
                QFAIL("no error");
            } catch (const ft::Error& e) {
                QVERIFY2(QString(e.what()).contains(needle), e.what());
            }
        };
        expect([&] { ft::moe::open_routing_trace(path, 4, 3); }, "recorded for 2 layers");
        {
            std::ofstream f(path, std::ios::binary | std::ios::app);
            const std::uint32_t T = 1;
            f.write(reinterpret_cast<const char*>(&T), 4);
            f.write("abc", 3);  // a step cut short
        }
        expect([&] { ft::moe::open_routing_trace(path, 2, 3); }, "truncated");
        expect([&] { ft::moe::open_routing_trace(tmp.path().toStdString() + "/none", 2, 3); }, "not found");
        expect([] { ft::moe::make_routing_source("synthetic:zipf=x", {true}, 8, 2); }, "not a number");
        expect([] { ft::moe::make_routing_source("synthetic:foo=1", {true}, 8, 2); }, "unknown key");
        expect([] { ft::moe::make_routing_source("bogus", {true}, 8, 2); }, "unknown routing");
        QVERIFY(ft::moe::make_routing_source("model", {true}, 8, 2) == nullptr);
    }
};

FT_TEST_MAIN(TestRoutingTrace)
#include "test_routing_trace.moc"
