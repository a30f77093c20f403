#include "cuda/expert_cache.cuh"

#include "cuda/slot_key.cuh"

#include <algorithm>

namespace ft::kernels::cuda {

namespace {

// One thread per expert and per pair; the victim search strides over the slots.
constexpr int kThreads = 512;
constexpr int kWarps = kThreads / 32;
constexpr int kCand = 4;  // victim candidates each thread keeps between rescans of its slots
static_assert(kThreads >= kExpertCacheMaxExperts && kThreads >= kExpertCacheMaxPairs && kWarps <= 32);

__device__ int qstar_device(int m, std::uint32_t frac_q16, int max_fetch) {
    if (m <= 0) return 0;
    const long long frac = frac_q16 > 65536u ? 65536ll : (long long)frac_q16;
    const long long lo = ((long long)m * frac) >> 16;
    const long long hi = lo + 1 < m ? lo + 1 : (long long)m;
    const long long lo_pcie = lo * (65536 - frac), lo_cpu = (m - lo) * frac;
    const long long hi_pcie = hi * (65536 - frac), hi_cpu = (m - hi) * frac;
    const long long cost_lo = lo_pcie > lo_cpu ? lo_pcie : lo_cpu;
    const long long cost_hi = hi_pcie > hi_cpu ? hi_pcie : hi_cpu;
    long long f = cost_lo <= cost_hi ? lo : hi;
    if (max_fetch >= 0 && f > max_fetch) f = max_fetch;
    return int(f);
}

__global__ void qstar_fetch_count_kernel(const std::int32_t* m, const std::uint32_t* frac_q16,
                                         const std::int32_t* max_fetch, std::int32_t* out, int n) {
    const int i = int(blockIdx.x) * int(blockDim.x) + int(threadIdx.x);
    if (i < n) out[i] = qstar_device(m[i], frac_q16[i], max_fetch[i]);
}

// Exclusive count of the threads before this one (in index order) whose flag is set; *total gets the count over the
// block. Every thread must call it (two barriers).
__device__ __forceinline__ int block_prefix_count(bool flag, int* warp_counts, int* total) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned bits = __ballot_sync(0xffffffffu, flag);
    if (lane == 0) warp_counts[warp] = __popc(bits);
    __syncthreads();
    int before = 0, all = 0;
    for (int w = 0; w < kWarps; ++w) {
        const int c = warp_counts[w];
        if (w < warp) before += c;
        all += c;
    }
    __syncthreads();  // warp_counts is reused by the next call
    *total = all;
    return before + __popc(bits & ((1u << lane) - 1u));
}

// Victim keys (slot_key.cuh): (usage, slot), the smallest is the least recently used slot, ties to the lowest index.
// cand[] keeps, ascending, the kCand smallest keys >= lo among this thread's eligible slots (usage != now);
// *more tells whether it has further ones beyond them.
__device__ __forceinline__ void scan_victims(const ExpertStamp* usage, int n_slots, ExpertStamp now, SlotKey lo,
                                             SlotKey (&cand)[kCand], bool* more) {
#pragma unroll
    for (int i = 0; i < kCand; ++i) cand[i] = no_slot();
    int count = 0;
    for (int slot = threadIdx.x; slot < n_slots; slot += kThreads) {
        const ExpertStamp u = usage[slot];
        if (u == now || u == kExpertSlotPinned) continue;  // used by this call, or being filled in the background
        const SlotKey key{u, slot};
        if (slot_key_less(key, lo)) continue;
        ++count;
        if (!slot_key_less(key, cand[kCand - 1])) continue;
        cand[kCand - 1] = key;
#pragma unroll
        for (int i = kCand - 1; i > 0; --i)
            if (slot_key_less(cand[i], cand[i - 1])) {
                const SlotKey x = cand[i];
                cand[i] = cand[i - 1];
                cand[i - 1] = x;
            }
    }
    *more = count > kCand;
}

__device__ __forceinline__ std::uint64_t global_ns() {
    std::uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// The CPU list (n_cpu misses from s_order[from]) last: it may live in host-mapped memory that a CPU thread reads once
// the count is there; then the hand-over flags, when the call has them. Every thread of the block calls it.
__device__ void hand_over(const ExpertCachePlanParams& p, const std::int32_t* s_order, int from, int n_cpu) {
    const int t = int(threadIdx.x);
    if (t < p.n_pairs) p.cpu_ids[t] = t < n_cpu ? s_order[from + t] : -1;
    __threadfence_system();  // also orders this thread's handoff copies before the flags
    __syncthreads();
    if (t == 0) {
        *p.cpu_count = n_cpu;
        __threadfence_system();
        if (p.handoff.ready) {
            *static_cast<volatile std::uint32_t*>(p.handoff.done) = 0;
            __threadfence_system();
            *static_cast<volatile std::uint32_t*>(p.handoff.ready) = 1;
            __threadfence_system();
            if (HandoffClock* c = p.handoff.clock; c && p.layer >= 0 && p.layer < HandoffClock::kMaxLayers) {
                const std::uint64_t now = global_ns();
                c->handed_at[p.layer] = now;
                // The last sum added belongs to this step when its layer came before this one (dense layers and
                // layers without a hand-over may lie between).
                if (c->added_layer >= 0 && c->added_layer < p.layer && c->added_at > 0 && now > c->added_at) {
                    c->chain_ns += now - c->added_at;
                    c->chains += 1;
                }
            }
        }
    }
}

__global__ void __launch_bounds__(kThreads, 1) expert_cache_plan_kernel(ExpertCachePlanParams p) {
    __shared__ ExpertCacheControl s_ctl;
    __shared__ unsigned char s_active[kExpertCacheMaxExperts];
    __shared__ std::int32_t s_slot_of_expert[kExpertCacheMaxExperts];  // after the call; -1: CPU or inactive
    __shared__ std::int32_t s_miss[kExpertCacheMaxPairs];               // misses, ascending id
    __shared__ ExpertStamp s_miss_recency[kExpertCacheMaxPairs];
    __shared__ std::int32_t s_order[kExpertCacheMaxPairs];              // misses in fetch priority order
    __shared__ std::int32_t s_victim[kExpertCacheMaxPairs];
    __shared__ int s_warp_counts[kWarps];
    __shared__ SlotKey s_warp_min[kWarps];
    __shared__ SlotKey s_winner[2];

    const ExpertCacheState& s = p.state;
    const int t = int(threadIdx.x), lane = t & 31, warp = t >> 5;
    const int n_expert = s.n_expert;
    const int base = p.layer * n_expert;

    if (t == 0) {
        ExpertCacheControl c = *p.control;
        if (p.advance_clock) p.control->now = ++c.now;
        s_ctl = c;
    }
    if (t < n_expert) s_active[t] = 0;
    {  // the CPU's inputs, to host-mapped memory (posted writes, fenced in hand_over)
        const ExpertCacheHandoff& ho = p.handoff;
        for (std::int64_t i = t; i < ho.x_count; i += kThreads) ho.x_dst[i] = ho.x[i];
        if (t < p.n_pairs) {
            if (ho.ids_dst) ho.ids_dst[t] = p.ids[t];
            if (ho.weights_dst) ho.weights_dst[t] = ho.weights[t];
        }
        if (t == 0 && ho.n_tokens_dst) *ho.n_tokens_dst = ho.n_tokens;
    }
    __syncthreads();
    if (t < p.n_pairs) {
        const std::int32_t e = p.ids[t];
        if (e >= 0 && e < n_expert) s_active[e] = 1;
    }
    __syncthreads();
    const ExpertStamp now = s_ctl.now;
    const auto mode = ExpertCacheMode(s_ctl.mode);
    const bool active = t < n_expert && s_active[t] != 0;
    int n_active = 0;
    block_prefix_count(active, s_warp_counts, &n_active);

    int m = 0, n_fetch = 0;
    bool handed = false;
    if (mode == ExpertCacheMode::resident) {
        if (t < n_expert) s_slot_of_expert[t] = active ? t : -1;
    } else {
        const std::int32_t slot = active ? s.residency[base + t] : -1;
        const bool miss = active && slot < 0;
        if (active && slot >= 0) s.usage[slot] = now;
        if (t < n_expert) s_slot_of_expert[t] = slot;
        // The barriers inside also make the hits' usage stamps visible to the victim scan below.
        const int pos = block_prefix_count(miss, s_warp_counts, &m);
        if (miss) {
            s_miss[pos] = t;
            s_miss_recency[pos] = s.recency[base + t];
        }
        __syncthreads();
        if (t < m) {  // priority rank: more recent first, ties to the lower id (s_miss is in id order)
            const ExpertStamp r = s_miss_recency[t];
            int rank = 0;
            for (int j = 0; j < m; ++j) {
                const ExpertStamp rj = s_miss_recency[j];
                rank += (rj > r || (rj == r && j < t)) ? 1 : 0;
            }
            s_order[rank] = s_miss[t];
        }
        __syncthreads();

        int want = 0;
        if (mode == ExpertCacheMode::offload) want = m;
        else if (mode == ExpertCacheMode::cpu) want = 0;
        else want = qstar_device(m, s_ctl.frac_q16, s_ctl.max_fetch);
        if (p.handoff.early) {  // the list is final now (see ExpertCacheHandoff): the CPU starts during the search
            hand_over(p, s_order, want, m - want);
            handed = true;
        }

        // Victims: the `want` smallest eligible keys in ascending order (the same as `want` successive argmins, each
        // taking its slot out of the running). Each round is one block min over the threads' smallest candidates.
        if (want > 0) {
            SlotKey cand[kCand];
            bool more = false;
            scan_victims(s.usage, s.n_slots, now, SlotKey{0, 0}, cand, &more);
            for (int r = 0; r < want; ++r) {
                const SlotKey head = cand[0];
                const SlotKey wmin = warp_min_key(head);
                if (lane == 0) s_warp_min[warp] = wmin;
                __syncthreads();
                if (warp == 0) {
                    const SlotKey v = warp_min_key(lane < kWarps ? s_warp_min[lane] : no_slot());
                    if (lane == 0) s_winner[r & 1] = v;
                }
                __syncthreads();
                const SlotKey win = s_winner[r & 1];
                if (slot_key_none(win)) break;  // no slot left: the remaining fetches go to the CPU
                if (t == 0) s_victim[r] = win.slot;
                n_fetch = r + 1;
                if (slot_key_equal(head, win)) {  // keys are unique: exactly one thread owns the winner
#pragma unroll
                    for (int i = 0; i < kCand - 1; ++i) cand[i] = cand[i + 1];
                    cand[kCand - 1] = no_slot();
                    if (slot_key_none(cand[0]) && more)
                        scan_victims(s.usage, s.n_slots, now, slot_key_next(win), cand, &more);
                }
            }
        }
        __syncthreads();
        if (t < n_fetch) {
            // Distinct victims, and no victim is owned by a miss (misses own no slot): no two threads touch one entry.
            const std::int32_t e = s_order[t], flat = base + e, victim = s_victim[t];
            const std::int32_t old = s.slot_owner[victim];
            if (old >= 0) s.residency[old] = -1;
            s.slot_owner[victim] = flat;
            s.residency[flat] = victim;
            s.usage[victim] = now;
            s_slot_of_expert[e] = victim;
        }
    }
    __syncthreads();
    const int n_cpu = m - n_fetch;

    if (t < p.n_pairs) {
        const std::int32_t e = p.ids[t];
        p.slot_of_pair[t] = (e >= 0 && e < n_expert) ? s_slot_of_expert[e] : -1;
        p.fetch[t] = t < n_fetch ? ExpertFetch{base + s_order[t], s_victim[t]} : ExpertFetch{};
    }
    if (active) {
        s.recency[base + t] = now;
        if (s.uses) s.uses[base + t] += 1;
    }
    if (t == 0) {
        *p.fetch_count = n_fetch;
        if (s.counters) {
            ExpertCacheCounters& c = s.counters[p.layer];
            c.calls += 1;
            c.hits += std::uint64_t(n_active - m);
            c.misses += std::uint64_t(m);
            c.fetched += std::uint64_t(n_fetch);
            c.cpu += std::uint64_t(n_cpu);
        }
    }
    if (!handed) hand_over(p, s_order, n_fetch, n_cpu);
}

__global__ void add_cpu_sum_kernel(const float* __restrict__ y, float* __restrict__ x, std::int64_t n, HandoffClock* clock,
                                   int layer) {
    if (clock && blockIdx.x == 0 && threadIdx.x == 0) {
        // handed_at[layer] is this step's: the planning call of this layer ran before this add on the same stream
        const std::uint64_t now = global_ns(), handed = clock->handed_at[layer];
        if (handed > 0 && now > handed) {
            clock->answer_ns += now - handed;
            clock->answers += 1;
        }
        clock->added_at = now;
        clock->added_layer = layer;
    }
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x)
        x[i] += y[i];
}

}  // namespace

cudaError_t expert_cache_plan(const ExpertCachePlanParams& p, cudaStream_t stream) {
    if (!expert_cache_plan_valid(p)) return cudaErrorInvalidValue;
    expert_cache_plan_kernel<<<1, kThreads, 0, stream>>>(p);
    return cudaGetLastError();
}

cudaError_t expert_cache_add_cpu_sum(const float* y_cpu, float* x, std::int64_t n, HandoffClock* clock, int layer,
                                     cudaStream_t stream) {
    if (n < 0 || (clock && (layer < 0 || layer >= HandoffClock::kMaxLayers))) return cudaErrorInvalidValue;
    if (n == 0 && !clock) return cudaSuccess;
    constexpr int kBlock = 256;
    const int blocks = int(std::min<std::int64_t>(std::max<std::int64_t>((n + kBlock - 1) / kBlock, 1), 64));
    add_cpu_sum_kernel<<<blocks, kBlock, 0, stream>>>(y_cpu, x, n, clock, layer);
    return cudaGetLastError();
}

cudaError_t qstar_fetch_counts(const std::int32_t* m, const std::uint32_t* frac_q16, const std::int32_t* max_fetch,
                               std::int32_t* out, int n, cudaStream_t stream) {
    if (n < 0 || (n > 0 && (!m || !frac_q16 || !max_fetch || !out))) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    constexpr int kBlock = 256;
    qstar_fetch_count_kernel<<<(n + kBlock - 1) / kBlock, kBlock, 0, stream>>>(m, frac_q16, max_fetch, out, n);
    return cudaGetLastError();
}

}  // namespace ft::kernels::cuda
