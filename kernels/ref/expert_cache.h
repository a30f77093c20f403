// The VRAM expert cache's per-layer decode planning step (docs/gpu-engine.md, "Expert offload"): from the routed expert ids of
// one MoE layer for all tokens of a decode step, decide which experts are hits, which misses are fetched over PCIe
// (and into which slot) and which are computed on the CPU. This file holds the types shared with the CUDA kernel
// (cuda/expert_cache.cuh) and the scalar reference that is its specification.
//
// State (one pool of n_slots slots shared by all n_layer MoE layers; flat id = layer * n_expert + expert):
//   residency[n_layer * n_expert]  flat id → slot, or -1
//   slot_owner[n_slots]            slot → flat id, or -1 (the inverse of residency)
//   usage[n_slots]                 clock stamp of the last step that used the slot (0: never; empty slots evict first)
//   recency[n_layer * n_expert]    clock stamp of the last step the expert was active, GPU or CPU (0: never)
//   counters[n_layer]              running totals, optional
//   uses[n_layer * n_expert]       calls the expert was active in (resident calls included), optional: its
//                                  popularity, which the engine keeps between sessions (warm start)
// Stamps (ExpertStamp) are unsigned 64-bit and compared as such; the clock starts at 1. At one tick per MoE layer
// call a 32-bit clock wrapped after days of serving (48 layers × 100 steps/s: 10 days), first turning the LRU order
// upside down and then meeting the pinned-slot sentinel; at a billion ticks a second a 64-bit one lasts 584 years,
// so the order is exact for the life of a process and kExpertSlotPinned (the maximum) is never a clock value.
//
// One planning call (layer l, clock value now):
//   1. U = the distinct active experts: ids[p] in [0, n_expert); anything else (-1) is an unused pair.
//   2. mode resident: every active expert is a hit read from the layer's resident weights: slot_of_pair[p] = ids[p].
//      No cache state changes except recency; no fetches, no CPU work.
//   3. Otherwise hits = experts of U with residency >= 0; each hit's slot gets usage = now. m = |U| - hits.
//   4. F = qstar_fetch_count(m, frac_q16, max_fetch) in mode hybrid, m in mode offload (max_fetch ignored), 0 in
//      mode cpu (hits are still read from the cache).
//   5. Misses are ordered by priority: larger recency first (the stamp before this call's update), ties to the lower
//      expert id. The first F are fetched in that order; fetch i takes the victim slot with the smallest
//      (usage, slot index) among slots with usage != now and != kExpertSlotPinned — a slot used by this step (this layer's hits and fetches,
//      or, when several layers share one clock value, any earlier layer of the step) is never evicted. When no slot
//      is left the remaining fetches go to the CPU (F' <= F fetched). A fetch clears the victim's old owner's
//      residency, installs the expert (residency, slot_owner) and sets usage = now.
//   6. The other m - F' misses go to the CPU, in the same priority order.
//   7. recency = now for every expert of U (and uses += 1, when given).
// Outputs (every entry written, fixed shapes; entries past a count are -1):
//   slot_of_pair[n_pairs]  slot holding the pair's expert; -1 for a CPU-computed expert or an unused pair
//   fetch[n_pairs]         {flat id, destination slot} for i < fetch_count, then {-1, -1}
//   cpu_ids[n_pairs]       expert ids (in the layer) computed on the CPU for i < cpu_count, then -1
//   counters[layer]        calls += 1, hits += hits, misses += m, fetched += F', cpu += m - F' (resident: hits = |U|)
// The clock: with advance_clock the call first does control->now += 1 (written back) and uses the new value — one
// tick per layer call, nothing for the host to do between graph replays. Without it the call uses control->now as
// is, and the host sets it once per decode step (then slots touched by any layer of the step are protected).
#pragma once

#include <cstdint>

namespace ft::kernels {

enum class ExpertCacheMode : std::int32_t { hybrid = 0, offload = 1, cpu = 2, resident = 3 };  // other values: hybrid

constexpr int kExpertCacheMaxPairs = 256;   // tokens × top-k of one step
// usage value of a slot that a background fetch is filling (cuda/expert_copy.cuh's admission): never a victim.
using ExpertStamp = std::uint64_t;
constexpr ExpertStamp kExpertSlotPinned = ~ExpertStamp(0);
constexpr int kExpertCacheMaxExperts = 512; // routed experts per layer

// Read by every call from memory the caller may rewrite between calls (device memory for the kernel).
struct ExpertCacheControl {
    ExpertStamp now = 1;           // step clock
    std::uint32_t frac_q16 = 0;    // fetched share of the misses in Q16 (65536 = all); values above 65536 clamp
    std::int32_t max_fetch = -1;   // hybrid: cap on fetches per call, < 0 = no cap
    std::int32_t mode = 0;         // ExpertCacheMode
};

struct ExpertCacheCounters {
    std::uint64_t calls = 0, hits = 0, misses = 0, fetched = 0, cpu = 0;
};

struct ExpertFetch {
    std::int32_t flat_id = -1;
    std::int32_t slot = -1;
};

struct ExpertCacheState {
    std::int32_t* residency = nullptr;     // [n_layer * n_expert]
    std::int32_t* slot_owner = nullptr;    // [n_slots]
    ExpertStamp* usage = nullptr;          // [n_slots]
    ExpertStamp* recency = nullptr;        // [n_layer * n_expert]
    ExpertCacheCounters* counters = nullptr;  // [n_layer], optional
    int n_layer = 0, n_expert = 0, n_slots = 0;
    std::uint32_t* uses = nullptr;         // [n_layer * n_expert], optional
};

// The GPU's clock of the CPU expert handshake below (device memory, %globaltimer ns; CUDA only, optional): the
// planning kernel stamps each layer's hand-over, the kernel that adds the CPU's sum (expert_cache_add_cpu_sum)
// stamps the moment it starts. Totals: hand-over -> the CPU's sum being added (the later of the CPU's answer, with
// both crossings of the link, and the GPU's own experts of that layer, which run before the wait), and sum added ->
// the next hand-over of the same step (the GPU's chain in between: the next layers' attention, norm, router, plan).
struct HandoffClock {
    static constexpr int kMaxLayers = 512;
    std::uint64_t answer_ns = 0, answers = 0, chain_ns = 0, chains = 0;
    std::uint64_t added_at = 0;   // when the last sum was added
    std::int32_t added_layer = -1, pad = 0;
    std::uint64_t handed_at[kMaxLayers] = {};  // 0: no hand-over yet
};

// The CPU expert handshake of hybrid decode, folded into the CUDA planning call (the host implementation ignores it;
// it changes no output). First the kernel copies the layer's input rows (x_count floats), routed ids and weights
// (n_pairs each) and the token count to their host-mapped destinations; then, once the CPU's list (cpu_ids,
// cpu_count) is final, it stores *done = 0 and then *ready = 1 (each fenced for the system), the hand-over a CPU
// thread waits for. With `early` the list is taken as final before the victim search, so the CPU starts while the
// kernel still picks victims; the caller guarantees that every fetch the fraction asks for finds a slot (with
// advance_clock only this call's hits are stamped `now`: n_slots >= n_pairs + the slots background admission may
// hold pinned is enough). done/ready null: copies only.
struct ExpertCacheHandoff {
    const float* x = nullptr;
    float* x_dst = nullptr;
    std::int64_t x_count = 0;
    const float* weights = nullptr;  // [n_pairs]
    float* weights_dst = nullptr;
    std::int32_t* ids_dst = nullptr;  // [n_pairs], from ExpertCachePlanParams::ids
    std::int32_t* n_tokens_dst = nullptr;
    std::int32_t n_tokens = 0;
    std::uint32_t* done = nullptr;
    std::uint32_t* ready = nullptr;
    bool early = false;
    HandoffClock* clock = nullptr;  // with ready: stamps the hand-over
};

struct ExpertCachePlanParams {
    ExpertCacheState state;
    ExpertCacheControl* control = nullptr;
    bool advance_clock = false;
    int layer = 0;
    const std::int32_t* ids = nullptr;   // [n_pairs] routed expert ids of this layer, -1 = unused
    int n_pairs = 0;                     // <= kExpertCacheMaxPairs
    std::int32_t* slot_of_pair = nullptr;  // [n_pairs]
    ExpertFetch* fetch = nullptr;          // [n_pairs]
    std::int32_t* fetch_count = nullptr;   // [1]
    std::int32_t* cpu_ids = nullptr;       // [n_pairs]; the kernel writes cpu_ids and cpu_count last
    std::int32_t* cpu_count = nullptr;     // [1]
    ExpertCacheHandoff handoff;            // CUDA only, optional
};

// The shapes and pointers a planning call accepts (both implementations reject anything else unchanged). With no
// slots, slot_owner and usage may be null; with no pairs, ids and the per-pair outputs.
inline bool expert_cache_plan_valid(const ExpertCachePlanParams& p) {
    const ExpertCacheState& s = p.state;
    const bool shapes = s.n_layer > 0 && s.n_expert > 0 && s.n_expert <= kExpertCacheMaxExperts && s.n_slots >= 0 &&
                        std::int64_t(s.n_layer) * s.n_expert <= INT32_MAX && p.layer >= 0 && p.layer < s.n_layer &&
                        p.n_pairs >= 0 && p.n_pairs <= kExpertCacheMaxPairs;
    const ExpertCacheHandoff& h = p.handoff;
    const bool handoff = h.x_count >= 0 && (h.x_count == 0 || (h.x && h.x_dst)) &&
                         (!h.weights_dst || (h.weights && p.n_pairs > 0)) && (!h.ids_dst || p.n_pairs > 0) &&
                         (h.done == nullptr) == (h.ready == nullptr);
    return shapes && handoff && s.residency && s.recency && (s.n_slots == 0 || (s.slot_owner && s.usage)) && p.control &&
           p.fetch_count && p.cpu_count && (p.n_pairs == 0 || (p.ids && p.slot_of_pair && p.fetch && p.cpu_ids));
}

}  // namespace ft::kernels

namespace ft::kernels::ref {

// q*: how many of m misses to fetch so that PCIe time F·(1 - frac) and CPU time (m - F)·frac balance, in integers:
// cost(F) = max(F·(65536 - frac_q16), (m - F)·frac_q16); of lo = ⌊m·frac_q16 / 65536⌋ and lo + 1 (clamped to
// [0, m]) the cheaper, ties to the smaller; then min(F, max_fetch) when max_fetch >= 0. m <= 0 gives 0. The CUDA
// device function gives the same integer for every input.
int qstar_fetch_count(int m, std::uint32_t frac_q16, int max_fetch);

// One planning call on host memory, as described at the top. Returns false (touching nothing) when
// expert_cache_plan_valid(p) is false. Assumes residency and slot_owner are inverse of each other.
bool expert_cache_plan(const ExpertCachePlanParams& p);  // ids must not alias an output

}  // namespace ft::kernels::ref
