// Victim keys of the expert cache's LRU searches (expert_cache.cu, expert_copy.cu): (usage stamp, slot index),
// ordered by stamp and then by slot, so the smallest key is the least recently used slot with ties to the lowest
// index. Stamps are 64-bit (ref/expert_cache.h), so the pair no longer packs into one 64-bit integer.
#pragma once

#include <climits>

#include "ref/expert_cache.h"

namespace ft::kernels::cuda {

struct SlotKey {
    ExpertStamp usage;
    int slot;
};

// Larger than every real key: no real slot has the pinned stamp (it is skipped) or index INT_MAX.
__device__ __forceinline__ SlotKey no_slot() { return SlotKey{kExpertSlotPinned, INT_MAX}; }

__device__ __forceinline__ bool slot_key_less(const SlotKey& a, const SlotKey& b) {
    return a.usage < b.usage || (a.usage == b.usage && a.slot < b.slot);
}
__device__ __forceinline__ bool slot_key_equal(const SlotKey& a, const SlotKey& b) {
    return a.usage == b.usage && a.slot == b.slot;
}
__device__ __forceinline__ bool slot_key_none(const SlotKey& a) { return a.slot == INT_MAX; }
// The key right after k in the order (the next search's lower bound).
__device__ __forceinline__ SlotKey slot_key_next(const SlotKey& k) { return SlotKey{k.usage, k.slot + 1}; }

// Minimum over the 32 lanes of a warp (every lane gets it).
__device__ __forceinline__ SlotKey warp_min_key(SlotKey v) {
    for (int off = 16; off > 0; off >>= 1) {
        const SlotKey o{__shfl_xor_sync(0xffffffffu, v.usage, off), __shfl_xor_sync(0xffffffffu, v.slot, off)};
        v = slot_key_less(o, v) ? o : v;
    }
    return v;
}

}  // namespace ft::kernels::cuda
