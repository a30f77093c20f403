#include "cuda/expert_copy.cuh"

#include "cuda/slot_key.cuh"

namespace ft::kernels::cuda {

namespace {

constexpr int kThreads = 256;
constexpr int kBlocksPerCopy = 24;  // blocks sharing one (fetch, bank): enough loads in flight to fill PCIe

__global__ void expert_copy_kernel(ExpertCopyParams p) {
    const int f = blockIdx.y, b = blockIdx.z;
    if (f >= *p.fetch_count) return;
    const ExpertFetch e = p.fetch[f];
    if (e.flat_id < 0 || e.slot < 0) return;
    const ExpertCopyBank bank = p.banks[b];
    const std::uint8_t* src = bank.src[e.flat_id];
    std::uint8_t* dst = bank.dst + std::size_t(e.slot) * bank.stride;
    const std::size_t n = bank.layer_bytes ? std::size_t(bank.layer_bytes[e.flat_id / bank.n_expert]) : bank.bytes;
    const std::size_t tid = std::size_t(blockIdx.x) * kThreads + threadIdx.x;
    const std::size_t stride = std::size_t(gridDim.x) * kThreads;
    if (((reinterpret_cast<std::uintptr_t>(src) | reinterpret_cast<std::uintptr_t>(dst) | n) & 15) == 0) {
        const uint4* s = reinterpret_cast<const uint4*>(src);
        uint4* d = reinterpret_cast<uint4*>(dst);
        const std::size_t n16 = n / 16;
        // Four independent loads per thread per round keep PCIe reads in flight.
        std::size_t i = tid;
        for (; i + 3 * stride < n16; i += 4 * stride) {
            const uint4 a = s[i], b2 = s[i + stride], c = s[i + 2 * stride], d2 = s[i + 3 * stride];
            d[i] = a;
            d[i + stride] = b2;
            d[i + 2 * stride] = c;
            d[i + 3 * stride] = d2;
        }
        for (; i < n16; i += stride) d[i] = s[i];
    } else {
        for (std::size_t i = tid; i < n; i += stride) dst[i] = src[i];
    }
}

__global__ void stage_kernel(StageParams p) {
    const int s = blockIdx.y;
    const StageSegment seg = p.seg[s];
    const std::size_t n = seg.bytes / 4;
    const std::uint32_t* src = static_cast<const std::uint32_t*>(seg.src);
    std::uint32_t* dst = static_cast<std::uint32_t*>(seg.dst);
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
        dst[i] = src[i];
    if (s == 0 && blockIdx.x == 0 && threadIdx.x == 0 && p.word) *p.word = p.value;
    __threadfence_system();
}

constexpr int kAdmitThreads = 256;

__global__ void admit_kernel(ExpertCacheState s, const ExpertCacheControl* ctl, int layer, const std::int32_t* cpu_ids,
                             const std::int32_t* cpu_count, int max_admit, ExpertFetch* out, std::int32_t* out_count) {
    __shared__ SlotKey s_min[kAdmitThreads / 32];
    __shared__ SlotKey s_best;
    const ExpertStamp now = ctl->now;
    const int n = min(*static_cast<const volatile std::int32_t*>(cpu_count), max_admit);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int made = 0;
    for (int i = 0; i < n; ++i) {
        const int e = static_cast<const volatile std::int32_t*>(cpu_ids)[i];
        if (e < 0 || e >= s.n_expert) break;
        const int flat = layer * s.n_expert + e;
        if (s.residency[flat] >= 0) continue;
        SlotKey best = no_slot();
        for (int slot = threadIdx.x; slot < s.n_slots; slot += blockDim.x) {
            const ExpertStamp u = s.usage[slot];
            if (u == now || u == kExpertSlotPinned) continue;
            const SlotKey key{u, slot};
            best = slot_key_less(key, best) ? key : best;
        }
        best = warp_min_key(best);
        if (lane == 0) s_min[warp] = best;
        __syncthreads();
        if (threadIdx.x == 0) {
            SlotKey b = no_slot();
            for (int w = 0; w < int(blockDim.x >> 5); ++w) b = slot_key_less(s_min[w], b) ? s_min[w] : b;
            s_best = b;
            if (!slot_key_none(b)) {
                const int victim = b.slot;
                const std::int32_t old = s.slot_owner[victim];
                if (old >= 0) s.residency[old] = -1;
                s.slot_owner[victim] = -1;
                s.usage[victim] = kExpertSlotPinned;
                out[made] = ExpertFetch{flat, victim};
            }
        }
        __syncthreads();  // the next search sees the pin
        if (slot_key_none(s_best)) break;
        ++made;
    }
    if (threadIdx.x == 0) *out_count = made;
}

__global__ void commit_kernel(ExpertCacheState s, const ExpertCacheControl* ctl, const ExpertFetch* lists,
                              std::int32_t* counts, int n_lists, int max_admit, std::uint64_t* admitted) {
    const ExpertStamp now = ctl->now;
    for (int l = 0; l < n_lists; ++l) {
        const int n = counts[l];
        for (int i = threadIdx.x; i < n; i += blockDim.x) {
            const ExpertFetch f = lists[l * max_admit + i];
            s.residency[f.flat_id] = f.slot;
            s.slot_owner[f.slot] = f.flat_id;
            s.usage[f.slot] = now;
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            if (admitted) *admitted += std::uint64_t(n);
            counts[l] = 0;
        }
    }
}

__global__ void bind_layer_kernel(ExpertCacheState s, int layer, int first, ExpertStamp stamp) {
    const int E = s.n_expert;
    const int base = layer * E;
    // 1. The bound slots' previous owners lose residency (this layer's experts among them included).
    for (int i = threadIdx.x; i < E; i += blockDim.x) {
        const int owner = s.slot_owner[first + i];
        if (owner >= 0) s.residency[owner] = -1;
    }
    __syncthreads();
    // 2. Bind the layer's experts that no slot outside the buffer holds; one cached elsewhere stays there (decode
    //    keeps its hit), and its buffer copy, read by the prefill products only, is left unowned and free.
    for (int e = threadIdx.x; e < E; e += blockDim.x) {
        const int old = s.residency[base + e];
        const bool elsewhere = old >= 0 && (old < first || old >= first + E);
        s.residency[base + e] = elsewhere ? old : first + e;
        s.slot_owner[first + e] = elsewhere ? -1 : base + e;
        s.usage[first + e] = elsewhere ? 0 : stamp;
    }
}

}  // namespace

namespace {

__device__ __forceinline__ std::uint64_t global_ns() {
    std::uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void link_clock_start_kernel(std::uint64_t* t0) { *t0 = global_ns(); }

__global__ void link_throttle_kernel(const std::uint64_t* t0, const std::int32_t* count, double ns_per_item) {
    const double items = count ? double(*count > 0 ? *count : 0) : 1.0;
    const std::uint64_t until = *t0 + std::uint64_t(items * ns_per_item);
    while (global_ns() < until) __nanosleep(1000);
}

}  // namespace

cudaError_t link_clock_start(std::uint64_t* t0, cudaStream_t stream) {
    if (!t0) return cudaErrorInvalidValue;
    link_clock_start_kernel<<<1, 1, 0, stream>>>(t0);
    return cudaGetLastError();
}

cudaError_t write_gpu_time(std::uint64_t* t, cudaStream_t stream) {
    if (!t) return cudaErrorInvalidValue;
    link_clock_start_kernel<<<1, 1, 0, stream>>>(t);
    return cudaGetLastError();
}

cudaError_t link_throttle(const std::uint64_t* t0, const std::int32_t* count, double bytes_per_item, double gbps,
                          cudaStream_t stream) {
    if (!t0 || !(gbps > 0) || !(bytes_per_item >= 0)) return cudaErrorInvalidValue;
    link_throttle_kernel<<<1, 1, 0, stream>>>(t0, count, bytes_per_item / gbps);  // bytes / (GB/s) = ns
    return cudaGetLastError();
}

cudaError_t stage_to_host(const StageParams& p, cudaStream_t stream) {
    if (p.n_seg < 0 || p.n_seg > 4) return cudaErrorInvalidValue;
    for (int i = 0; i < p.n_seg; ++i)
        if (p.seg[i].bytes % 4 || (p.seg[i].bytes && (!p.seg[i].src || !p.seg[i].dst))) return cudaErrorInvalidValue;
    if (p.n_seg == 0 && !p.word) return cudaSuccess;
    StageParams q = p;
    if (q.n_seg == 0) {  // only the word
        q.n_seg = 1;
        q.seg[0] = StageSegment{};
    }
    stage_kernel<<<dim3(8, unsigned(q.n_seg)), 256, 0, stream>>>(q);
    return cudaGetLastError();
}

cudaError_t expert_cache_admit(const ExpertCacheState& s, const ExpertCacheControl* control, int layer,
                               const std::int32_t* cpu_ids, const std::int32_t* cpu_count, int max_admit, ExpertFetch* out,
                               std::int32_t* out_count, cudaStream_t stream) {
    if (!s.residency || !s.slot_owner || !s.usage || !control || !cpu_ids || !cpu_count || !out || !out_count || layer < 0 ||
        layer >= s.n_layer || max_admit < 0)
        return cudaErrorInvalidValue;
    admit_kernel<<<1, kAdmitThreads, 0, stream>>>(s, control, layer, cpu_ids, cpu_count, max_admit, out, out_count);
    return cudaGetLastError();
}

cudaError_t expert_cache_commit(const ExpertCacheState& s, const ExpertCacheControl* control, const ExpertFetch* lists,
                                std::int32_t* counts, int n_lists, int max_admit, std::uint64_t* admitted,
                                cudaStream_t stream) {
    if (!s.residency || !s.slot_owner || !s.usage || !control || !lists || !counts || n_lists < 0 || max_admit < 0)
        return cudaErrorInvalidValue;
    commit_kernel<<<1, 256, 0, stream>>>(s, control, lists, counts, n_lists, max_admit, admitted);
    return cudaGetLastError();
}

cudaError_t expert_cache_bind_layer(const ExpertCacheState& s, int layer, int first_slot, ExpertStamp stamp,
                                    cudaStream_t stream) {
    if (!s.residency || !s.slot_owner || !s.usage || layer < 0 || layer >= s.n_layer || first_slot < 0 ||
        first_slot + s.n_expert > s.n_slots)
        return cudaErrorInvalidValue;
    bind_layer_kernel<<<1, 512, 0, stream>>>(s, layer, first_slot, stamp);
    return cudaGetLastError();
}

cudaError_t expert_copy(const ExpertCopyParams& p, cudaStream_t stream) {
    if (p.n_banks < 0 || p.n_banks > kExpertCopyMaxBanks || p.max_fetch < 0 || (p.max_fetch > 0 && (!p.fetch || !p.fetch_count)))
        return cudaErrorInvalidValue;
    for (int b = 0; b < p.n_banks; ++b)
        if (p.banks[b].stride < p.banks[b].bytes || !p.banks[b].src || !p.banks[b].dst ||
            (p.banks[b].layer_bytes && p.banks[b].n_expert <= 0))
            return cudaErrorInvalidValue;
    if (p.max_fetch == 0 || p.n_banks == 0) return cudaSuccess;
    const dim3 grid(unsigned(p.blocks_per_copy > 0 ? p.blocks_per_copy : kBlocksPerCopy), unsigned(p.max_fetch),
                    unsigned(p.n_banks));
    expert_copy_kernel<<<grid, kThreads, 0, stream>>>(p);
    return cudaGetLastError();
}

}  // namespace ft::kernels::cuda
