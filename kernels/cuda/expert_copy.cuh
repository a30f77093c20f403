// Expert fetches for the VRAM expert cache: copies the experts a planning call chose (ref/expert_cache.h's fetch list,
// its length read on the device) from host memory the GPU can address (pinned, mapped: zero-copy loads over PCIe)
// into their cache slots. Because the count and the addresses are read on the device, the copy sits in a captured
// CUDA graph. Each bank is one weight matrix of every expert (gate, up, down): slot s of a bank lives at
// dst + s * stride, the source of flat id f at src[f]. Pure launcher.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "ref/expert_cache.h"

namespace ft::kernels::cuda {

constexpr int kExpertCopyMaxBanks = 4;

struct ExpertCopyBank {
    const std::uint8_t* const* src = nullptr;  // [n_flat] device-readable source of each flat id's matrix
    std::uint8_t* dst = nullptr;               // slot pool of this matrix
    std::size_t bytes = 0;                     // one expert's matrix (the largest, with layer_bytes)
    std::size_t stride = 0;                    // bytes between slots (>= bytes)
    // Experts whose size differs between layers (llama.cpp's _M recipes): layer_bytes[flat / n_expert] bytes are
    // copied (each ≤ bytes); null: every expert has `bytes`.
    const std::uint32_t* layer_bytes = nullptr;  // [n_layer], device memory
    int n_expert = 0;
};

struct ExpertCopyParams {
    ExpertCopyBank banks[kExpertCopyMaxBanks];
    int n_banks = 0;
    const ExpertFetch* fetch = nullptr;       // [max_fetch]
    const std::int32_t* fetch_count = nullptr;
    int max_fetch = 0;                        // grid size: entries that may be valid
    int blocks_per_copy = 0;                  // CTAs per (entry, bank); 0: enough to fill PCIe alone
};

cudaError_t expert_copy(const ExpertCopyParams& p, cudaStream_t stream);

// Benchmark-only emulation of a slower host link (`ft bench --pcie-limit`): link_clock_start stores the device's
// global timer (ns) at *t0; link_throttle, launched after the copies on the same stream, holds the stream until
// items × bytes_per_item / (gbps · 1e9) seconds have passed since *t0, where items is *count (read on the device, so
// it works in a captured graph) or 1 when count is null. The copies themselves run at the real link's speed: the
// emulated time is max(real, bytes / limit). One thread each.
cudaError_t link_clock_start(std::uint64_t* t0, cudaStream_t stream);
// Stores the device's global timer (ns) at *t when the stream reaches it: one thread. The decode profile marks its
// phases with it (GpuRunner::profile_step).
cudaError_t write_gpu_time(std::uint64_t* t, cudaStream_t stream);
cudaError_t link_throttle(const std::uint64_t* t0, const std::int32_t* count, double bytes_per_item, double gbps,
                          cudaStream_t stream);

// Copies up to 4 device buffers (sizes multiples of 4 bytes) to memory the device can write (host-mapped pinned
// memory of the CPU expert handshake) and stores `value` at `word` (the token count), in one launch.
struct StageSegment {
    const void* src = nullptr;
    void* dst = nullptr;
    std::size_t bytes = 0;
};
struct StageParams {
    StageSegment seg[4];
    int n_seg = 0;
    std::int32_t* word = nullptr;
    std::int32_t value = 0;
};
cudaError_t stage_to_host(const StageParams& p, cudaStream_t stream);

// Background admission of the experts the CPU computed (hybrid): after a layer's planning call, for each of the
// first min(*cpu_count, max_admit) experts of cpu_ids (layer-local ids, possibly in host-mapped memory) pick the
// least recently used slot not used by this call (usage != control->now) and not pinned, take it from its owner
// (residency → -1), pin it (owner -1, usage kExpertSlotPinned) and list {flat id, slot} in out[0 .. *out_count).
// The caller copies the listed experts (expert_copy, on a side stream) and, once the copies are done and nothing else
// reads the state, commits: expert_cache_commit binds them (residency, owner, usage = control->now) and zeroes the
// counts. Until then no planning call can pick or hit a pinned slot. One block each.
cudaError_t expert_cache_admit(const ExpertCacheState& s, const ExpertCacheControl* control, int layer,
                               const std::int32_t* cpu_ids, const std::int32_t* cpu_count, int max_admit, ExpertFetch* out,
                               std::int32_t* out_count, cudaStream_t stream);
// lists: [n_lists][max_admit] entries with counts[n_lists].
cudaError_t expert_cache_commit(const ExpertCacheState& s, const ExpertCacheControl* control, const ExpertFetch* lists,
                                std::int32_t* counts, int n_lists, int max_admit, std::uint64_t* admitted,
                                cudaStream_t stream);

// Prefill streaming: slots [first_slot, first_slot + n_expert) receive the experts of `layer` (slot first + e holds
// expert e, read there by the prefill products): their previous owners lose residency; an expert of the layer that
// a slot outside them holds stays resident there (the cache keeps it through prefill), its slot in the buffer left
// free (owner -1, usage 0); the others are bound to their buffer slots with usage `stamp` (0: evicted first by
// decode). State as in ref/expert_cache.h. One block.
cudaError_t expert_cache_bind_layer(const ExpertCacheState& s, int layer, int first_slot, ExpertStamp stamp,
                                    cudaStream_t stream);

}  // namespace ft::kernels::cuda
