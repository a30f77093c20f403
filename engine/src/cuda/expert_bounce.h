// The pinned bounce ring of a partly pinned host expert store (docs/gpu-engine.md, "Expert offload": pin what the OS allows, never
// fail). Experts whose pages could not be pinned in place (a --pin-budget, or a cap of the OS: Windows and WSL stop
// near half of RAM) stay in the mapped file, which the GPU cannot read; on the decode path they reach the fetch
// kernel through this ring, inside the captured graph and without a spinning kernel:
//   plan → stage the fetch list and its count to mapped host memory → write done=0, ready=1 (stream memory
//   operations) → wait until done ≥ 1 → fetch kernel.
// A host thread polls ready, copies each listed unpinned expert's three matrices from the mapping into ring slots
// (pinned, mapped) and points the source-table entries of those flat ids at the slots, then sets done. The source
// tables therefore live here, in pinned mapped host memory (the fetch kernel reads a few bytes of them per copy);
// pinned experts' entries are their device-mapped addresses and never change, unpinned ones always point into the
// ring so that no entry is ever a wild pointer. One ring serves every layer: the stream orders layer l's fetch before
// layer l+1's handshake. A watchdog turns a handshake stuck for 10 s into an error (done set, err = 1; the next
// check_health() throws). Without stream memory operations (Windows WDDM, vGPU, or LoadOptions::host_function_sync) a
// host-function node does the copies inline.
// Engine-internal; CUDA builds only. One engine thread enqueues; the host thread is internal.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

#include <cuda_runtime.h>

#include "core/failure_latch.h"
#include "ref/expert_cache.h"

namespace ft::gpu {

// Head of the ring's mapped memory.
struct alignas(64) ExpertBounceHeader {
    volatile std::uint32_t ready;
    volatile std::uint32_t done;
    volatile std::uint32_t err;
    std::uint32_t pad0;
    alignas(64) std::int32_t layer;  // written by the stage kernel (for messages)
    std::int32_t count;              // the fetch count, staged
};

class ExpertBounce {
public:
    static constexpr int kBanks = 3;  // gate, up, down
    struct Options {
        int max_list = 0;                          // longest fetch list of one call (T · k at the largest batch)
        int slots = 0;                             // ring slots: unpinned experts one call can fetch (≤ max_list)
        std::size_t bytes[kBanks] = {0, 0, 0};     // one expert's matrix
        std::size_t stride[kBanks] = {0, 0, 0};    // the same rounded up (16-byte multiples keep the fast copy path)
        // Sizes that differ by layer: layer_bytes[b][flat / n_expert] (each ≤ bytes[b]); empty: bytes[b] for all.
        std::vector<std::size_t> layer_bytes[kBanks];
        int n_expert = 1;
        bool host_function_sync = false;           // hand over through host-function nodes, not memory operations
    };
    // sources[b][flat]: where flat id `flat`'s matrix b is; pinned[flat]: whether that address is device-readable
    // (pinned in place: it goes to the table as is) or an ordinary host address (bounced). Throws
    // ft::Error(out_of_memory) when the ring cannot be pinned (the caller may unpin something and retry).
    ExpertBounce(const Options& o, const std::vector<const std::uint8_t*> (&sources)[kBanks], const std::vector<bool>& pinned);
    ~ExpertBounce();
    ExpertBounce(const ExpertBounce&) = delete;
    ExpertBounce& operator=(const ExpertBounce&) = delete;

    // Device address of bank b's source table [n_flat], for the fetch kernel.
    const std::uint8_t* const* table(int b) const { return reinterpret_cast<const std::uint8_t* const*>(dev_ + table_off_[b]); }
    // Enqueue on `stream` (capturable), after the planning call of `layer` and before its fetch kernel: the first
    // n_list entries of `fetch` (device memory) and *count go to the host thread; the stream waits for its copies.
    void enqueue(int layer, const kernels::ExpertFetch* fetch, const std::int32_t* count, int n_list, cudaStream_t stream);
    // After the stream synchronised: throws ft::Error when the watchdog fired or the ring overflowed.
    void check_health();

    bool uses_memops() const { return memops_; }
    int slots() const { return o_.slots; }
    std::size_t ring_bytes() const { return std::size_t(o_.slots) * slot_bytes_; }
    std::uint64_t bytes() const { return bytes_.load(); }      // expert bytes copied through the ring
    std::uint64_t experts() const { return experts_.load(); }  // experts copied through the ring

private:
    ExpertBounceHeader* header() const { return reinterpret_cast<ExpertBounceHeader*>(host_); }
    void serve();
    void coordinator();
    void watchdog();
    static void CUDART_CB host_serve(void* arg);

    Options o_;
    std::size_t n_flat_ = 0;
    std::size_t slot_bytes_ = 0, off_[kBanks] = {0, 0, 0};
    std::size_t list_off_ = 0, table_off_[kBanks] = {0, 0, 0}, ring_off_ = 0, total_ = 0;
    std::uint8_t* host_ = nullptr;  // header, list, tables, ring: pinned + mapped
    std::uint8_t* dev_ = nullptr;   // the same memory, device address
    std::vector<const std::uint8_t*> src_[kBanks];  // host addresses of unpinned experts (nullptr: pinned)
    bool memops_ = false;
    void* write_fn_ = nullptr;  // cuStreamWriteValue32
    void* wait_fn_ = nullptr;   // cuStreamWaitValue32
    std::atomic<bool> stop_{false};
    std::atomic<std::uint64_t> bytes_{0}, experts_{0}, served_{0};
    std::atomic<std::int64_t> pending_since_ns_{0};
    FailureLatch failure_;
    std::thread coordinator_, watchdog_;
};

}  // namespace ft::gpu
