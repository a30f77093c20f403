#include "ref/expert_cache.h"

#include <algorithm>
#include <vector>

namespace ft::kernels::ref {

int qstar_fetch_count(int m, std::uint32_t frac_q16, int max_fetch) {
    if (m <= 0) return 0;
    const std::int64_t frac = std::min<std::uint32_t>(frac_q16, 65536u);
    const auto cost = [&](std::int64_t f) { return std::max(f * (65536 - frac), (m - f) * frac); };
    const std::int64_t lo = (std::int64_t(m) * frac) >> 16;
    const std::int64_t hi = std::min<std::int64_t>(lo + 1, m);
    std::int64_t f = cost(lo) <= cost(hi) ? lo : hi;
    if (max_fetch >= 0) f = std::min<std::int64_t>(f, max_fetch);
    return int(f);
}

bool expert_cache_plan(const ExpertCachePlanParams& p) {
    if (!expert_cache_plan_valid(p)) return false;
    const ExpertCacheState& s = p.state;
    ExpertCacheControl ctl = *p.control;
    if (p.advance_clock) p.control->now = ++ctl.now;
    const ExpertStamp now = ctl.now;
    const int n_expert = s.n_expert;
    const int base = p.layer * n_expert;
    const auto mode = ExpertCacheMode(ctl.mode);

    for (int i = 0; i < p.n_pairs; ++i) {
        p.slot_of_pair[i] = -1;
        p.fetch[i] = ExpertFetch{};
        p.cpu_ids[i] = -1;
    }
    *p.fetch_count = 0;
    *p.cpu_count = 0;

    std::vector<bool> active(std::size_t(n_expert), false);
    for (int i = 0; i < p.n_pairs; ++i)
        if (p.ids[i] >= 0 && p.ids[i] < n_expert) active[std::size_t(p.ids[i])] = true;
    std::vector<int> uniq;
    for (int e = 0; e < n_expert; ++e)
        if (active[std::size_t(e)]) uniq.push_back(e);

    ExpertCacheCounters add;
    add.calls = 1;
    if (mode == ExpertCacheMode::resident) {
        for (int i = 0; i < p.n_pairs; ++i)
            if (p.ids[i] >= 0 && p.ids[i] < n_expert) p.slot_of_pair[i] = p.ids[i];
        add.hits = uniq.size();
    } else {
        std::vector<int> misses;
        for (int e : uniq) {
            const std::int32_t slot = s.residency[base + e];
            if (slot >= 0) {
                s.usage[slot] = now;
                ++add.hits;
            } else {
                misses.push_back(e);
            }
        }
        std::stable_sort(misses.begin(), misses.end(), [&](int a, int b) {
            return s.recency[base + a] > s.recency[base + b];  // stable: ties keep ascending id
        });
        const int m = int(misses.size());
        int want = 0;
        if (mode == ExpertCacheMode::offload) want = m;
        else if (mode == ExpertCacheMode::cpu) want = 0;
        else want = qstar_fetch_count(m, ctl.frac_q16, ctl.max_fetch);

        int fetched = 0;
        for (; fetched < want; ++fetched) {
            int victim = -1;
            for (int slot = 0; slot < s.n_slots; ++slot)
                if (s.usage[slot] != now && s.usage[slot] != kExpertSlotPinned &&
                    (victim < 0 || s.usage[slot] < s.usage[victim]))
                    victim = slot;
            if (victim < 0) break;  // every slot is in use this step: the rest go to the CPU
            const std::int32_t flat = base + misses[std::size_t(fetched)];
            if (s.slot_owner[victim] >= 0) s.residency[s.slot_owner[victim]] = -1;
            s.slot_owner[victim] = flat;
            s.residency[flat] = victim;
            s.usage[victim] = now;
            p.fetch[fetched] = ExpertFetch{flat, victim};
        }
        for (int i = fetched; i < m; ++i) p.cpu_ids[i - fetched] = misses[std::size_t(i)];
        *p.fetch_count = fetched;
        *p.cpu_count = m - fetched;
        for (int i = 0; i < p.n_pairs; ++i)
            if (p.ids[i] >= 0 && p.ids[i] < n_expert) p.slot_of_pair[i] = s.residency[base + p.ids[i]];
        add.misses = std::uint64_t(m);
        add.fetched = std::uint64_t(fetched);
        add.cpu = std::uint64_t(m - fetched);
    }
    for (int e : uniq) {
        s.recency[base + e] = now;
        if (s.uses) s.uses[base + e] += 1;
    }
    if (s.counters) {
        ExpertCacheCounters& c = s.counters[p.layer];
        c.calls += add.calls;
        c.hits += add.hits;
        c.misses += add.misses;
        c.fetched += add.fetched;
        c.cpu += add.cpu;
    }
    return true;
}

}  // namespace ft::kernels::ref
