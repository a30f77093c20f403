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
    std::size_t bytes = 0;                     // one expert's matrix
    std::size_t stride = 0;                    // bytes between slots (>= bytes)
};

struct ExpertCopyParams {
    ExpertCopyBank banks[kExpertCopyMaxBanks];
    int n_banks = 0;
    const ExpertFetch* fetch = nullptr;       // [max_fetch]
    const std::int32_t* fetch_count = nullptr;
    int max_fetch = 0;                        // grid size: entries that may be valid
};

cudaError_t expert_copy(const ExpertCopyParams& p, cudaStream_t stream);

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

// Prefill streaming: binds slots [first_slot, first_slot + n_expert) to the experts of `layer` (slot first + e holds
// expert e): their previous owners lose residency, any other slot still holding one of the layer's experts is
// freed (owner -1, usage 0), and the bound slots get usage `stamp` (0: evicted first by decode). State as in
// ref/expert_cache.h. One block.
cudaError_t expert_cache_bind_layer(const ExpertCacheState& s, int layer, int first_slot, std::uint32_t stamp,
                                    cudaStream_t stream);

}  // namespace ft::kernels::cuda
