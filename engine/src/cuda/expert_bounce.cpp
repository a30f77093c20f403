#include "cuda/expert_bounce.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>

#include <cuda.h>
#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

#include "cuda/expert_copy.cuh"
#include "cuda/gpu_runtime.h"
#include "ft/error.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define FT_BOUNCE_PAUSE() _mm_pause()
#else
#define FT_BOUNCE_PAUSE() ((void)0)
#endif

namespace ft::gpu {

namespace {

std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

using WriteValueFn = CUresult (*)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
using WaitValueFn = CUresult (*)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);

std::size_t align_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

}  // namespace

ExpertBounce::ExpertBounce(const Options& o, const std::vector<const std::uint8_t*> (&sources)[kBanks],
                           const std::vector<bool>& pinned)
    : o_(o) {
    if (o.max_list <= 0 || o.slots <= 0 || o.slots > o.max_list)
        throw Error(ErrorCode::internal, "expert bounce ring: bad geometry");
    n_flat_ = pinned.size();
    for (int b = 0; b < kBanks; ++b) {
        if (sources[b].size() != n_flat_ || o.stride[b] < o.bytes[b] || o.stride[b] % 16 || o.n_expert < 1 ||
            std::any_of(o.layer_bytes[b].begin(), o.layer_bytes[b].end(), [&](std::size_t n) { return n > o.bytes[b]; }) ||
            (!o.layer_bytes[b].empty() && o.layer_bytes[b].size() * std::size_t(o.n_expert) < n_flat_))
            throw Error(ErrorCode::internal, "expert bounce ring: bad source table");
        off_[b] = slot_bytes_;
        slot_bytes_ += o.stride[b];
    }
    // [header][fetch list][3 source tables][ring slots]
    list_off_ = align_up(sizeof(ExpertBounceHeader), 256);
    std::size_t off = align_up(list_off_ + std::size_t(o.max_list) * sizeof(kernels::ExpertFetch), 256);
    for (int b = 0; b < kBanks; ++b) {
        table_off_[b] = off;
        off = align_up(off + n_flat_ * sizeof(void*), 256);
    }
    ring_off_ = align_up(off, 4096);
    total_ = ring_off_ + ring_bytes();
    if (cudaHostAlloc(reinterpret_cast<void**>(&host_), total_, cudaHostAllocMapped | cudaHostAllocPortable) != cudaSuccess) {
        cudaGetLastError();
        host_ = nullptr;
        throw Error(ErrorCode::out_of_memory,
                    fmt::format("cannot pin {:.1f} MiB for the expert bounce ring", double(total_) / double(1 << 20)),
                    "free host RAM, or raise --pin-budget");
    }
    std::memset(host_, 0, ring_off_);
    if (cudaHostGetDevicePointer(reinterpret_cast<void**>(&dev_), host_, 0) != cudaSuccess) {
        cudaGetLastError();
        cudaFreeHost(host_);
        host_ = nullptr;
        throw Error(ErrorCode::device, "cannot map the expert bounce ring for the GPU");
    }
    // Pinned experts keep their device addresses; the others start at ring slot 0 (valid memory, never wild).
    for (int b = 0; b < kBanks; ++b) {
        src_[b].assign(n_flat_, nullptr);
        auto** t = reinterpret_cast<const std::uint8_t**>(host_ + table_off_[b]);
        for (std::size_t f = 0; f < n_flat_; ++f) {
            if (pinned[f]) {
                t[f] = sources[b][f];
            } else {
                src_[b][f] = sources[b][f];
                t[f] = dev_ + ring_off_ + off_[b];
            }
        }
    }

    // The handshake's stream memory operations, through the driver's entry points (as the CPU expert bridge).
    cudaDriverEntryPointQueryResult q1{}, q2{};
    const bool want_memops = !o.host_function_sync;  // the fallback, for tests and misbehaving drivers
    if (want_memops &&
        cudaGetDriverEntryPointByVersion("cuStreamWriteValue32", &write_fn_, 12000, cudaEnableDefault, &q1) == cudaSuccess &&
        cudaGetDriverEntryPointByVersion("cuStreamWaitValue32", &wait_fn_, 12000, cudaEnableDefault, &q2) == cudaSuccess &&
        q1 == cudaDriverEntryPointSuccess && q2 == cudaDriverEntryPointSuccess && write_fn_ && wait_fn_) {
        cudaStream_t s = nullptr;
        if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess) {
            auto* word = &reinterpret_cast<ExpertBounceHeader*>(dev_)->pad0;  // an address only: never read here
            const CUresult a = reinterpret_cast<WriteValueFn>(write_fn_)(s, CUdeviceptr(word), 7, CU_STREAM_WRITE_VALUE_DEFAULT);
            const CUresult r = a == CUDA_SUCCESS ? reinterpret_cast<WaitValueFn>(wait_fn_)(s, CUdeviceptr(word), 7, CU_STREAM_WAIT_VALUE_GEQ)
                                                 : a;
            memops_ = r == CUDA_SUCCESS && cudaStreamSynchronize(s) == cudaSuccess && header()->pad0 == 7;
            cudaStreamDestroy(s);
        }
    }
    cudaGetLastError();
    if (memops_) {
        coordinator_ = std::thread([this] { coordinator(); });
        watchdog_ = std::thread([this] { watchdog(); });
    }
}

ExpertBounce::~ExpertBounce() {
    stop_ = true;
    if (coordinator_.joinable()) coordinator_.join();
    if (watchdog_.joinable()) watchdog_.join();
    if (!host_) return;
    header()->done = 1u << 30;  // a graph still in flight must not wait forever
    cudaFreeHost(host_);
}

void ExpertBounce::enqueue(int layer, const kernels::ExpertFetch* fetch, const std::int32_t* count, int n_list,
                           cudaStream_t stream) {
    if (n_list < 0 || n_list > o_.max_list) throw Error(ErrorCode::internal, "expert bounce ring: fetch list too long");
    auto* hd = reinterpret_cast<ExpertBounceHeader*>(dev_);
    kernels::cuda::StageParams sp;
    sp.seg[0] = {fetch, dev_ + list_off_, std::size_t(n_list) * sizeof(kernels::ExpertFetch)};
    sp.seg[1] = {count, &hd->count, sizeof(std::int32_t)};
    sp.n_seg = 2;
    sp.word = &hd->layer;
    sp.value = layer;
    check(kernels::cuda::stage_to_host(sp, stream), "stage the fetch list for the bounce ring");
    if (!memops_) {
        check(cudaLaunchHostFunc(stream, &ExpertBounce::host_serve, this), "bounce ring host node");
        return;
    }
    const auto write = reinterpret_cast<WriteValueFn>(write_fn_);
    CUresult r = write(stream, CUdeviceptr(&hd->done), 0, CU_STREAM_WRITE_VALUE_DEFAULT);
    if (r == CUDA_SUCCESS) r = write(stream, CUdeviceptr(&hd->ready), 1, CU_STREAM_WRITE_VALUE_DEFAULT);
    if (r == CUDA_SUCCESS)
        r = reinterpret_cast<WaitValueFn>(wait_fn_)(stream, CUdeviceptr(&hd->done), 1, CU_STREAM_WAIT_VALUE_GEQ);
    if (r != CUDA_SUCCESS) throw Error(ErrorCode::device, "bounce ring stream memory operation failed (" + std::to_string(int(r)) + ")");
}

void ExpertBounce::check_health() {
    if (!failure_.failed()) return;
    const std::optional<std::string> what = failure_.take();
    if (!what) return;
    header()->err = 0;
    throw Error(ErrorCode::internal, "the expert bounce ring failed: " + *what,
                "this is a bug; the log has details. Without --pin-budget (or with more host RAM pinnable) the ring is "
                "not used");
}

void CUDART_CB ExpertBounce::host_serve(void* arg) { static_cast<ExpertBounce*>(arg)->serve(); }

// Copies the listed unpinned experts into ring slots and points their table entries there.
void ExpertBounce::serve() {
    ExpertBounceHeader* h = header();
    const int n = std::clamp(h->count, 0, o_.max_list);
    const auto* list = reinterpret_cast<const kernels::ExpertFetch*>(host_ + list_off_);
    int used = 0;
    std::uint64_t copied = 0;
    for (int i = 0; i < n; ++i) {
        const kernels::ExpertFetch e = list[i];
        if (e.flat_id < 0 || std::size_t(e.flat_id) >= n_flat_ || e.slot < 0 || !src_[0][std::size_t(e.flat_id)]) continue;
        if (used == o_.slots) {
            // The plan lists each expert once, so this means a geometry bug: leave the rest at stale (valid) slots.
            if (failure_.set(fmt::format("layer {}: more unpinned fetches than the {} ring slots", h->layer, o_.slots)))
                spdlog::error("expert bounce ring overflow in layer {}", h->layer);
            h->err = 1;
            break;
        }
        const std::size_t slot = ring_off_ + std::size_t(used) * slot_bytes_;
        const std::size_t layer = std::size_t(e.flat_id / o_.n_expert);
        for (int b = 0; b < kBanks; ++b) {
            const std::size_t n = o_.layer_bytes[b].empty() ? o_.bytes[b] : o_.layer_bytes[b][layer];
            std::memcpy(host_ + slot + off_[b], src_[b][std::size_t(e.flat_id)], n);
            reinterpret_cast<const std::uint8_t**>(host_ + table_off_[b])[e.flat_id] = dev_ + slot + off_[b];
            copied += n;
        }
        ++used;
    }
    experts_ += std::uint64_t(used);
    bytes_ += copied;
}

void ExpertBounce::coordinator() {
    std::int64_t idle_since = now_ns();
    int sleep_us = 0;
    ExpertBounceHeader* h = header();
    while (!stop_.load(std::memory_order_relaxed)) {
        if (h->ready == 1) {
            std::atomic_thread_fence(std::memory_order_acquire);
            h->ready = 0;
            pending_since_ns_ = now_ns();
            serve();
            std::atomic_thread_fence(std::memory_order_release);
            h->done = 1;
            pending_since_ns_ = 0;
            ++served_;
            idle_since = now_ns();
            sleep_us = 0;
            continue;
        }
        // Spin for 50 ms after the last handshake (the layers of a step come back to back), then sleep up to 2 ms.
        if (now_ns() - idle_since < 50'000'000) {
            for (int i = 0; i < 64; ++i) FT_BOUNCE_PAUSE();
        } else {
            sleep_us = sleep_us == 0 ? 100 : std::min(2000, sleep_us * 2);
            std::this_thread::sleep_for(std::chrono::microseconds(sleep_us));
        }
    }
}

void ExpertBounce::watchdog() {
    std::uint64_t last_served = 0;
    std::int64_t stuck_since = 0;
    ExpertBounceHeader* h = header();
    while (!stop_.load()) {
        for (int i = 0; i < 20 && !stop_.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
        const bool waiting = h->ready == 1 || (h->done == 0 && pending_since_ns_.load() != 0);
        const std::uint64_t s = served_.load();
        if (!waiting || s != last_served) {
            stuck_since = 0;
            last_served = s;
            continue;
        }
        if (stuck_since == 0) stuck_since = now_ns();
        if (now_ns() - stuck_since > 10'000'000'000LL) {
            failure_.set("no answer for 10 s");
            spdlog::error("expert bounce ring handshake stuck for 10 s: releasing the GPU with an error");
            h->err = 1;
            h->done = 1;
            stuck_since = 0;
        }
    }
}

}  // namespace ft::gpu
