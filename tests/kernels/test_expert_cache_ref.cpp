// The expert cache's q* split and per-layer planning step (scalar reference, ref/expert_cache.h): q* against brute
// force, hand-built scenarios, the LRU against an independent list-based simulation, and invariants over random
// traces.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "ft_test.h"
#include "ref/expert_cache.h"

using ft::kernels::ExpertCacheControl;
using ft::kernels::ExpertCacheCounters;
using ft::kernels::ExpertCacheMode;
using ft::kernels::ExpertFetch;
using ft::kernels::ExpertStamp;
using ft::kernels::ref::qstar_fetch_count;

namespace {

struct Cache {
    int n_layer, n_expert, n_slots;
    std::vector<std::int32_t> residency, slot_owner;
    std::vector<ExpertStamp> usage, recency;
    std::vector<ExpertCacheCounters> counters;
    std::vector<std::uint32_t> uses;
    ExpertCacheControl ctl;
    bool advance_clock = true;
    Cache(int l, int e, int s)
        : n_layer(l), n_expert(e), n_slots(s), residency(std::size_t(l * e), -1), slot_owner(std::size_t(s), -1),
          usage(std::size_t(s), 0), recency(std::size_t(l * e), 0), counters(std::size_t(l)), uses(std::size_t(l * e), 0) {
        ctl.now = 0;  // advance_clock: the first call runs at 1
    }
    void set_mode(ExpertCacheMode mode, std::uint32_t frac_q16 = 0, int max_fetch = -1) {
        ctl.mode = std::int32_t(mode);
        ctl.frac_q16 = frac_q16;
        ctl.max_fetch = max_fetch;
    }
};

struct Plan {
    std::vector<std::int32_t> slot_of_pair, cpu_ids;
    std::vector<ExpertFetch> fetch;
    std::int32_t fetch_count = -7, cpu_count = -7;
    bool ok = false;
    ExpertStamp now = 0;
};

ft::kernels::ExpertCachePlanParams params(Cache& c, int layer, const std::vector<std::int32_t>& ids, Plan& out) {
    out.slot_of_pair.assign(ids.size(), -7);
    out.cpu_ids.assign(ids.size(), -7);
    out.fetch.assign(ids.size(), ExpertFetch{-7, -7});
    ft::kernels::ExpertCachePlanParams p;
    p.state = {c.residency.data(), c.slot_owner.data(), c.usage.data(), c.recency.data(), c.counters.data(),
               c.n_layer, c.n_expert, c.n_slots, c.uses.data()};
    p.control = &c.ctl;
    p.advance_clock = c.advance_clock;
    p.layer = layer;
    p.ids = ids.data();
    p.n_pairs = int(ids.size());
    p.slot_of_pair = out.slot_of_pair.data();
    p.fetch = out.fetch.data();
    p.fetch_count = &out.fetch_count;
    p.cpu_ids = out.cpu_ids.data();
    p.cpu_count = &out.cpu_count;
    return p;
}

Plan plan(Cache& c, int layer, const std::vector<std::int32_t>& ids) {
    Plan out;
    out.ok = ft::kernels::ref::expert_cache_plan(params(c, layer, ids, out));
    out.now = c.ctl.now;
    return out;
}

std::vector<std::pair<int, int>> fetches(const Plan& p) {
    std::vector<std::pair<int, int>> v;
    for (int i = 0; i < p.fetch_count; ++i) v.emplace_back(p.fetch[std::size_t(i)].flat_id, p.fetch[std::size_t(i)].slot);
    return v;
}
std::vector<int> cpu_list(const Plan& p) {
    return std::vector<int>(p.cpu_ids.begin(), p.cpu_ids.begin() + p.cpu_count);
}

// q* by brute force: the smallest F in [0, m] of minimal cost.
int qstar_brute(int m, std::uint32_t frac_q16) {
    const std::int64_t frac = std::min<std::uint32_t>(frac_q16, 65536);
    int best = 0;
    std::int64_t best_cost = std::numeric_limits<std::int64_t>::max();
    for (int f = 0; f <= m; ++f) {
        const std::int64_t cost = std::max(std::int64_t(f) * (65536 - frac), std::int64_t(m - f) * frac);
        if (cost < best_cost) {
            best_cost = cost;
            best = f;
        }
    }
    return best;
}

std::uint32_t q16(double frac) { return std::uint32_t(std::clamp(std::llround(frac * 65536.0), 0ll, 65536ll)); }

}  // namespace

class TestExpertCacheRef : public QObject {
    Q_OBJECT
private slots:
    void qstarIsTheBalancedMinimum() {
        std::vector<std::uint32_t> fracs = {0, 1, 2, 255, 32767, 32768, 32769, 65535, 65536, 65537, 100000, 0xffffffffu};
        for (std::uint32_t f = 0; f <= 65536; f += 257) fracs.push_back(f);
        for (int m = -3; m <= 130; ++m)
            for (std::uint32_t frac : fracs) {
                const int f = qstar_fetch_count(m, frac, -1);
                if (m <= 0) {
                    QCOMPARE(f, 0);
                    continue;
                }
                QVERIFY(f >= 0 && f <= m);
                QCOMPARE(f, qstar_brute(m, frac));
                const double ideal = double(m) * std::min<std::uint32_t>(frac, 65536) / 65536.0;
                QVERIFY(std::abs(double(f) - ideal) <= 1.0);
                for (int cap : {0, 1, 3, 64, 1000}) QCOMPARE(qstar_fetch_count(m, frac, cap), std::min(f, cap));
            }
    }
    void qstarKnownAnswers() {
        // frac 0.415: m=3 → 1 (rounding up would make PCIe ~1.6× slower than the CPU); m=4 → 2.
        QCOMPARE(qstar_fetch_count(3, q16(0.415), -1), 1);
        QCOMPARE(qstar_fetch_count(4, q16(0.415), -1), 2);
        QCOMPARE(qstar_fetch_count(6, q16(0.5), -1), 3);
        QCOMPARE(qstar_fetch_count(3, q16(0.5), -1), 1);  // cost(1) == cost(2): the smaller
        QCOMPARE(qstar_fetch_count(5, 65536, -1), 5);
        QCOMPARE(qstar_fetch_count(5, 0, -1), 0);
        QCOMPARE(qstar_fetch_count(5, 65536, 2), 2);
        QCOMPARE(qstar_fetch_count(5, 65536, 0), 0);
    }

    void allMissesIntoAnEmptyCache() {
        Cache c(2, 8, 16);
        c.set_mode(ExpertCacheMode::offload);
        const Plan p = plan(c, 1, {7, 2, 2, 5, -1});
        QVERIFY(p.ok);
        QCOMPARE(p.now, ExpertStamp(1));
        // Never-active misses rank by id; empty slots (usage 0) are taken lowest first.
        QCOMPARE(fetches(p), (std::vector<std::pair<int, int>>{{8 + 2, 0}, {8 + 5, 1}, {8 + 7, 2}}));
        QCOMPARE(p.slot_of_pair, (std::vector<std::int32_t>{2, 0, 0, 1, -1}));
        QCOMPARE(p.cpu_count, 0);
        QCOMPARE(p.cpu_ids, (std::vector<std::int32_t>(5, -1)));
        QCOMPARE(p.fetch[3].flat_id, -1);
        QCOMPARE(c.residency[10], 0);
        QCOMPARE(c.slot_owner[2], 15);
        QCOMPARE(c.usage[1], ExpertStamp(1));
        QCOMPARE(c.recency[15], ExpertStamp(1));
        QCOMPARE(c.recency[7], ExpertStamp(0));  // layer 0's expert 7 untouched
        const ExpertCacheCounters& k = c.counters[1];
        QVERIFY(k.calls == 1 && k.hits == 0 && k.misses == 3 && k.fetched == 3 && k.cpu == 0);
        QVERIFY(c.counters[0].calls == 0);
    }
    void allHits() {
        Cache c(2, 8, 16);
        c.set_mode(ExpertCacheMode::offload);
        QVERIFY(plan(c, 0, {1, 3, 5}).ok);
        c.set_mode(ExpertCacheMode::hybrid, q16(0.5));
        const Plan p = plan(c, 0, {5, -1, 1, 3, 5, 1});
        QCOMPARE(p.fetch_count, 0);
        QCOMPARE(p.cpu_count, 0);
        QCOMPARE(p.slot_of_pair, (std::vector<std::int32_t>{2, -1, 0, 1, 2, 0}));
        for (int s = 0; s < 3; ++s) QCOMPARE(c.usage[std::size_t(s)], ExpertStamp(2));
        QCOMPARE(c.usage[3], ExpertStamp(0));
        QVERIFY(c.counters[0].hits == 3 && c.counters[0].misses == 3 && c.counters[0].calls == 2);
    }
    void hybridFetchesTheMostRecentMisses() {
        Cache c(1, 16, 16);
        c.set_mode(ExpertCacheMode::cpu);
        QVERIFY(plan(c, 0, {9, 3}).ok);  // recency 1, nothing cached
        QVERIFY(plan(c, 0, {12}).ok);    // recency 2
        QCOMPARE(c.slot_owner, std::vector<std::int32_t>(16, -1));
        Cache c2 = c, c3 = c;
        c.set_mode(ExpertCacheMode::hybrid, q16(0.5));
        Plan p = plan(c, 0, {1, 3, 9, 12});
        // Priority: 12 (step 2), then 3 and 9 (step 1, lower id first), then 1 (never). q*(4, 0.5) = 2.
        QCOMPARE(fetches(p), (std::vector<std::pair<int, int>>{{12, 0}, {3, 1}}));
        QCOMPARE(cpu_list(p), (std::vector<int>{9, 1}));
        QCOMPARE(p.slot_of_pair, (std::vector<std::int32_t>{-1, 1, -1, 0}));
        QCOMPARE(c.recency[1], ExpertStamp(3));  // CPU-computed experts are active too
        c2.set_mode(ExpertCacheMode::hybrid, q16(0.5), 1);
        p = plan(c2, 0, {1, 3, 9, 12});
        QCOMPARE(fetches(p), (std::vector<std::pair<int, int>>{{12, 0}}));
        QCOMPARE(cpu_list(p), (std::vector<int>{3, 9, 1}));
        c3.set_mode(ExpertCacheMode::hybrid, 65536);
        p = plan(c3, 0, {1, 3, 9, 12});
        QCOMPARE(p.fetch_count, 4);
        QCOMPARE(p.cpu_count, 0);
        // A recurring CPU miss ranks first next time.
        c.set_mode(ExpertCacheMode::hybrid, q16(0.3));
        p = plan(c, 0, {1, 9, 5});
        QCOMPARE(fetches(p), (std::vector<std::pair<int, int>>{{1, 2}}));  // q*(3, 0.3) = 1; 1 and 9 tie on step 3
        QCOMPARE(cpu_list(p), (std::vector<int>{9, 5}));
    }
    void cacheSmallerThanTheWorkingSet() {
        Cache c(1, 16, 3);
        c.set_mode(ExpertCacheMode::offload);
        Plan p = plan(c, 0, {4, 8, 1, 6, 2});
        QCOMPARE(fetches(p), (std::vector<std::pair<int, int>>{{1, 0}, {2, 1}, {4, 2}}));
        QCOMPARE(cpu_list(p), (std::vector<int>{6, 8}));
        // Hits on slots 0 and 1 protect them: one victim left (slot 2, holding 4), so one of the two misses fetches.
        p = plan(c, 0, {1, 2, 9, 6});
        QCOMPARE(fetches(p), (std::vector<std::pair<int, int>>{{6, 2}}));  // 6 was active at step 1, 9 never
        QCOMPARE(cpu_list(p), (std::vector<int>{9}));
        QCOMPARE(c.residency[4], -1);
        QCOMPARE(p.slot_of_pair, (std::vector<std::int32_t>{0, 1, -1, 2}));
        const ExpertCacheCounters& k = c.counters[0];
        QVERIFY(k.hits == 2 && k.misses == 7 && k.fetched == 4 && k.cpu == 3);
        // No cache at all: everything on the CPU, whatever the mode.
        Cache none(1, 16, 0);
        none.set_mode(ExpertCacheMode::offload);
        p = plan(none, 0, {3, 1});
        QCOMPARE(p.fetch_count, 0);
        QCOMPARE(cpu_list(p), (std::vector<int>{1, 3}));
    }
    void sharedClockProtectsEarlierLayersOfTheStep() {
        for (bool advance : {false, true}) {
            Cache c(2, 8, 4);
            c.advance_clock = advance;
            c.ctl.now = advance ? 4 : 5;  // both runs see 5 in layer 0
            c.set_mode(ExpertCacheMode::offload);
            Plan p = plan(c, 0, {0, 1, 2});
            QCOMPARE(p.fetch_count, 3);
            p = plan(c, 1, {0, 1, 2});
            if (!advance) {  // the step's stamp covers layer 0's slots: only slot 3 is free
                QCOMPARE(p.now, ExpertStamp(5));
                QCOMPARE(fetches(p), (std::vector<std::pair<int, int>>{{8, 3}}));
                QCOMPARE(cpu_list(p), (std::vector<int>{1, 2}));
            } else {         // a tick per call: layer 0's slots are fair game
                QCOMPARE(p.now, ExpertStamp(6));
                QCOMPARE(fetches(p), (std::vector<std::pair<int, int>>{{8, 3}, {9, 0}, {10, 1}}));
                QCOMPARE(c.residency[0], -1);
                QCOMPARE(c.residency[2], 2);
            }
        }
    }
    void cpuAndResidentModes() {
        Cache c(1, 8, 8);
        c.set_mode(ExpertCacheMode::offload);
        QVERIFY(plan(c, 0, {2, 3}).ok);
        c.set_mode(ExpertCacheMode::cpu, 65536);
        Plan p = plan(c, 0, {3, 4, 2, 7});
        QCOMPARE(p.fetch_count, 0);
        QCOMPARE(cpu_list(p), (std::vector<int>{4, 7}));
        QCOMPARE(p.slot_of_pair, (std::vector<std::int32_t>{1, -1, 0, -1}));  // hits still read from the cache
        QCOMPARE(c.usage[0], ExpertStamp(2));

        const auto residency = c.residency;
        const auto owner = c.slot_owner;
        const auto usage = c.usage;
        c.set_mode(ExpertCacheMode::resident);
        p = plan(c, 0, {6, -1, 6, 0});
        QCOMPARE(p.slot_of_pair, (std::vector<std::int32_t>{6, -1, 6, 0}));  // the layer's own expert index
        QCOMPARE(p.fetch_count, 0);
        QCOMPARE(p.cpu_count, 0);
        QCOMPARE(c.residency, residency);
        QCOMPARE(c.slot_owner, owner);
        QCOMPARE(c.usage, usage);
        QCOMPARE(c.recency[6], ExpertStamp(3));
        QVERIFY(c.counters[0].hits == 0 + 2 + 2 && c.counters[0].misses == 2 + 2);

        c.ctl.mode = 99;  // unknown: hybrid
        c.ctl.frac_q16 = 65536;
        p = plan(c, 0, {5});
        QCOMPARE(p.fetch_count, 1);
    }
    void countsUsesInEveryMode() {
        // uses[flat] += 1 per call the expert is active in (a pair repeating it counts once), whatever the mode.
        Cache c(2, 8, 4);
        c.set_mode(ExpertCacheMode::offload);
        QVERIFY(plan(c, 0, {2, 3, 2, -1}).ok);
        c.set_mode(ExpertCacheMode::hybrid, q16(0.5));
        QVERIFY(plan(c, 1, {2, 7, 5, 6, 0, 1}).ok);
        c.set_mode(ExpertCacheMode::cpu);
        QVERIFY(plan(c, 0, {3, 4}).ok);
        c.set_mode(ExpertCacheMode::resident);
        QVERIFY(plan(c, 0, {3, 3}).ok);
        std::vector<std::uint32_t> want(16, 0);
        for (int e : {2, 3}) want[std::size_t(e)] += 1;
        for (int e : {2, 7, 5, 6, 0, 1}) want[std::size_t(8 + e)] += 1;
        for (int e : {3, 4}) want[std::size_t(e)] += 1;
        want[3] += 1;
        QCOMPARE(c.uses, want);
        // Optional: a null array is left alone.
        Cache d(1, 8, 4);
        d.set_mode(ExpertCacheMode::offload);
        Plan out;
        auto pp = params(d, 0, {1, 2}, out);
        pp.state.uses = nullptr;
        QVERIFY(ft::kernels::ref::expert_cache_plan(pp));
    }
    void rejectsBadParams() {
        Cache c(2, 8, 4);
        const std::vector<std::int32_t> ids(300, 1);
        Plan out;
        auto p = params(c, 0, ids, out);
        QVERIFY(!ft::kernels::ref::expert_cache_plan(p));  // n_pairs > 256
        p.n_pairs = 4;
        p.layer = 2;
        QVERIFY(!ft::kernels::ref::expert_cache_plan(p));
        p.layer = 1;
        p.state.n_expert = 513;
        QVERIFY(!ft::kernels::ref::expert_cache_plan(p));
        p.state.n_expert = 8;
        p.cpu_count = nullptr;
        QVERIFY(!ft::kernels::ref::expert_cache_plan(p));
        QCOMPARE(c.ctl.now, ExpertStamp(0));
        QCOMPARE(out.slot_of_pair[0], -7);
    }

    // Offload mode against a list LRU: slots kept in eviction order (front = next victim), the slots a step touches
    // move to the back in slot order. No stamps, no argmin.
    void lruMatchesAListSimulation() { list_lru_trace(0, 0); }

    // The clock started just below 2^32 and run past it (a 32-bit clock wrapped there after days of serving, and
    // met the pinned-slot sentinel 0xffffffff on the way): the LRU order still matches the list simulation, and
    // pinned slots (a background admission in flight) are never chosen, hit or unpinned by a planning call.
    void clockCrossesThe32BitWrap() {
        list_lru_trace(0xffffffffull - 120, 0);
        list_lru_trace(0xffffffffull - 120, 2);
        list_lru_trace(0xffffffffull * 4 + 7, 1);  // far past it: nothing special happens anywhere
    }

    // The list-LRU trace (300 steps) with the clock starting at `start` and the last n_pinned slots pinned.
    // (A slot with arguments: not run by QTest on its own.)
    void list_lru_trace(ExpertStamp start, int n_pinned) {
        for (int n_slots : {1, 4, 10, 31}) {
            if (n_slots <= n_pinned) continue;
            const int n_expert = 32, n_free = n_slots - n_pinned;
            Cache c(1, n_expert, n_slots);
            c.set_mode(ExpertCacheMode::offload);
            c.ctl.now = start;
            for (int s = n_free; s < n_slots; ++s) c.usage[std::size_t(s)] = ft::kernels::kExpertSlotPinned;
            std::vector<int> order(static_cast<std::size_t>(n_free)), owner(std::size_t(n_slots), -1),
                where(std::size_t(n_expert), -1), last_seen(std::size_t(n_expert), 0);
            for (int s = 0; s < n_free; ++s) order[std::size_t(s)] = s;
            std::mt19937 rng(11u + unsigned(n_slots));
            for (int step = 1; step <= 300; ++step) {
                std::vector<std::int32_t> ids;
                const int tokens = 1 + int(rng() % 2);
                for (int i = 0; i < tokens * 4; ++i) {
                    const double u = std::uniform_real_distribution<double>(0, 1)(rng);
                    ids.push_back(std::int32_t(u * u * n_expert));
                }
                const Plan p = plan(c, 0, ids);

                std::set<int> uniq(ids.begin(), ids.end());
                std::set<int> touched;
                std::vector<int> miss;
                for (int e : uniq) {
                    if (where[std::size_t(e)] >= 0) touched.insert(where[std::size_t(e)]);
                    else miss.push_back(e);
                }
                std::stable_sort(miss.begin(), miss.end(), [&](int a, int b) {
                    return last_seen[std::size_t(a)] > last_seen[std::size_t(b)];
                });
                std::vector<std::pair<int, int>> want_fetch;
                std::vector<int> want_cpu;
                std::size_t next = 0;
                for (int e : miss) {
                    while (next < order.size() && touched.count(order[next])) ++next;
                    if (next == order.size()) {
                        want_cpu.push_back(e);
                        continue;
                    }
                    const int s = order[next++];
                    if (owner[std::size_t(s)] >= 0) where[std::size_t(owner[std::size_t(s)])] = -1;
                    owner[std::size_t(s)] = e;
                    where[std::size_t(e)] = s;
                    want_fetch.emplace_back(e, s);
                }
                for (const auto& f : want_fetch) touched.insert(f.second);
                std::vector<int> reordered;
                for (int s : order)
                    if (!touched.count(s)) reordered.push_back(s);
                reordered.insert(reordered.end(), touched.begin(), touched.end());
                order = reordered;
                for (int e : uniq) last_seen[std::size_t(e)] = step;

                QCOMPARE(fetches(p), want_fetch);
                QCOMPARE(cpu_list(p), want_cpu);
                for (std::size_t i = 0; i < ids.size(); ++i) QCOMPARE(p.slot_of_pair[i], where[std::size_t(ids[i])]);
                QCOMPARE(p.now, start + ExpertStamp(step));
                for (int s = n_free; s < n_slots; ++s) {
                    QCOMPARE(c.usage[std::size_t(s)], ft::kernels::kExpertSlotPinned);
                    QCOMPARE(c.slot_owner[std::size_t(s)], -1);
                }
            }
        }
    }

    void randomTracesKeepInvariants() {
        std::mt19937 rng(2024);
        const auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
        for (int trace = 0; trace < 1000; ++trace) {
            const int n_layer = uni(1, 4), n_expert = uni(1, 64);
            Cache c(n_layer, n_expert, uni(0, n_layer * n_expert + 3));
            c.advance_clock = uni(0, 1) == 1;
            if (!c.advance_clock) c.ctl.now = 1;
            const int steps = uni(1, 30);
            for (int step = 0; step < steps; ++step) {
                if (!c.advance_clock) c.ctl.now = ExpertStamp(step + 1);
                for (int layer = 0; layer < n_layer; ++layer) {
                    const int r = uni(0, 19);
                    c.ctl.mode = std::int32_t(r < 14 ? ExpertCacheMode::hybrid : r < 17 ? ExpertCacheMode::offload
                                                     : r < 19 ? ExpertCacheMode::cpu : ExpertCacheMode::resident);
                    c.ctl.frac_q16 = std::uint32_t(uni(0, 4) == 0 ? uni(0, 1) * 65536 : uni(0, 65536));
                    c.ctl.max_fetch = uni(0, 3) == 0 ? uni(0, 8) : -1;
                    std::vector<std::int32_t> ids;
                    const int tokens = uni(1, 4), k = uni(1, std::min(8, n_expert));
                    for (int i = 0; i < tokens * k; ++i) ids.push_back(uni(0, 9) == 0 ? -1 : uni(0, n_expert - 1));
                    const Cache before = c;
                    const Plan p = plan(c, layer, ids);
                    QVERIFY(p.ok);
                    check_call(before, c, layer, ids, p);
                    if (QTest::currentTestFailed()) {
                        qWarning("trace %d step %d layer %d", trace, step, layer);
                        return;
                    }
                }
            }
        }
    }

private:
    static void check_call(const Cache& b, const Cache& a, int layer, const std::vector<std::int32_t>& ids,
                           const Plan& p) {
        const int base = layer * b.n_expert;
        const ExpertStamp now = a.ctl.now;
        QCOMPARE(now, b.advance_clock ? b.ctl.now + 1 : b.ctl.now);
        const auto mode = ExpertCacheMode(b.ctl.mode);
        std::set<int> uniq;
        for (std::int32_t e : ids)
            if (e >= 0) uniq.insert(e);
        // residency and slot_owner stay inverse.
        for (int f = 0; f < b.n_layer * b.n_expert; ++f)
            if (a.residency[std::size_t(f)] >= 0) QCOMPARE(a.slot_owner[std::size_t(a.residency[std::size_t(f)])], f);
        for (int s = 0; s < b.n_slots; ++s)
            if (a.slot_owner[std::size_t(s)] >= 0) QCOMPARE(a.residency[std::size_t(a.slot_owner[std::size_t(s)])], s);
        // counters add up
        const ExpertCacheCounters &cb = b.counters[std::size_t(layer)], &ca = a.counters[std::size_t(layer)];
        const auto hits = ca.hits - cb.hits, misses = ca.misses - cb.misses, fetched = ca.fetched - cb.fetched,
                   cpu = ca.cpu - cb.cpu;
        QCOMPARE(ca.calls, cb.calls + 1);
        QCOMPARE(hits + misses, std::uint64_t(uniq.size()));
        QCOMPARE(fetched + cpu, misses);
        QCOMPARE(fetched, std::uint64_t(p.fetch_count));
        QCOMPARE(cpu, std::uint64_t(p.cpu_count));
        for (std::size_t i = std::size_t(p.fetch_count); i < ids.size(); ++i) QCOMPARE(p.fetch[i].slot, -1);
        for (std::size_t i = std::size_t(p.cpu_count); i < ids.size(); ++i) QCOMPARE(p.cpu_ids[i], -1);
        for (int e : uniq) QCOMPARE(a.recency[std::size_t(base + e)], now);
        if (mode == ExpertCacheMode::resident) {
            QCOMPARE(a.residency, b.residency);
            QCOMPARE(a.usage, b.usage);
            for (std::size_t i = 0; i < ids.size(); ++i) QCOMPARE(p.slot_of_pair[i], ids[i]);
            return;
        }
        std::set<int> hit_set, hit_slots, fetched_set, cpu_set(p.cpu_ids.begin(), p.cpu_ids.begin() + p.cpu_count);
        for (int e : uniq)
            if (b.residency[std::size_t(base + e)] >= 0) {
                hit_set.insert(e);
                hit_slots.insert(b.residency[std::size_t(base + e)]);
            }
        QCOMPARE(hits, std::uint64_t(hit_set.size()));
        // the fetched count: the mode's F, unless slots ran out
        int eligible = 0;
        for (int s = 0; s < b.n_slots; ++s) eligible += (b.usage[std::size_t(s)] != now && !hit_slots.count(s)) ? 1 : 0;
        const int m = int(misses);
        const int want = mode == ExpertCacheMode::offload ? m
                         : mode == ExpertCacheMode::cpu   ? 0
                                                          : qstar_fetch_count(m, b.ctl.frac_q16, b.ctl.max_fetch);
        QCOMPARE(p.fetch_count, std::min(want, eligible));
        ExpertStamp max_victim_usage = 0;
        for (int i = 0; i < p.fetch_count; ++i) {
            const ExpertFetch f = p.fetch[std::size_t(i)];
            QVERIFY(f.flat_id >= base && f.flat_id < base + b.n_expert);
            fetched_set.insert(f.flat_id - base);
            QVERIFY(b.usage[std::size_t(f.slot)] != now);  // never a slot used in this step
            QVERIFY(!hit_slots.count(f.slot));
            QCOMPARE(a.residency[std::size_t(f.flat_id)], f.slot);
            QCOMPARE(a.usage[std::size_t(f.slot)], now);
            max_victim_usage = std::max(max_victim_usage, b.usage[std::size_t(f.slot)]);
        }
        // least recently used: no eligible slot left behind is older than a victim
        for (int s = 0; s < b.n_slots; ++s)
            if (b.usage[std::size_t(s)] != now && !hit_slots.count(s) && a.usage[std::size_t(s)] != now)
                QVERIFY(b.usage[std::size_t(s)] >= max_victim_usage);
        // hits, fetched and CPU partition the active experts
        QCOMPARE(int(hit_set.size() + fetched_set.size() + cpu_set.size()), int(uniq.size()));
        std::set<int> all = hit_set;
        all.insert(fetched_set.begin(), fetched_set.end());
        all.insert(cpu_set.begin(), cpu_set.end());
        QCOMPARE(all, uniq);
        // fetched then CPU follow the priority: recency before the call, descending, ties to the lower id
        std::vector<int> prio;
        for (int i = 0; i < p.fetch_count; ++i) prio.push_back(p.fetch[std::size_t(i)].flat_id - base);
        for (int i = 0; i < p.cpu_count; ++i) prio.push_back(p.cpu_ids[std::size_t(i)]);
        for (std::size_t i = 1; i < prio.size(); ++i) {
            const auto r0 = b.recency[std::size_t(base + prio[i - 1])], r1 = b.recency[std::size_t(base + prio[i])];
            QVERIFY(r0 > r1 || (r0 == r1 && prio[i - 1] < prio[i]));
        }
        for (std::size_t i = 0; i < ids.size(); ++i) {
            const int e = ids[i];
            if (e < 0 || cpu_set.count(e)) {
                QCOMPARE(p.slot_of_pair[i], -1);
            } else {
                QVERIFY(p.slot_of_pair[i] >= 0);
                QCOMPARE(a.slot_owner[std::size_t(p.slot_of_pair[i])], base + e);
                QCOMPARE(a.usage[std::size_t(p.slot_of_pair[i])], now);
            }
        }
    }
};

FT_TEST_MAIN(TestExpertCacheRef)
#include "test_expert_cache_ref.moc"
