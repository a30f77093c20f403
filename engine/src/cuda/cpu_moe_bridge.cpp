#include "cuda/cpu_moe_bridge.h"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>

#include <cuda.h>
#include <spdlog/spdlog.h>

#include "cuda/gpu_runtime.h"
#include "ft/error.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define FT_PAUSE() _mm_pause()
#else
#define FT_PAUSE() ((void)0)
#endif

namespace ft::gpu {

namespace {

using Clock = std::chrono::steady_clock;
std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

using WriteValueFn = CUresult (*)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
using WaitValueFn = CUresult (*)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);

constexpr std::size_t kAlign = 256;
std::size_t align_up(std::size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

// Offsets inside one slot.
struct Layout {
    std::size_t x, ids, w, cpu_ids, y, total;
};
Layout layout(int max_tokens, int k, std::int64_t n_embd) {
    Layout L{};
    std::size_t off = align_up(sizeof(CpuMoeSlotHeader));
    L.x = off;
    off += align_up(std::size_t(max_tokens) * std::size_t(n_embd) * sizeof(float));
    L.ids = off;
    off += align_up(std::size_t(max_tokens) * std::size_t(k) * sizeof(std::int32_t));
    L.w = off;
    off += align_up(std::size_t(max_tokens) * std::size_t(k) * sizeof(float));
    L.cpu_ids = off;
    off += align_up(std::size_t(max_tokens) * std::size_t(k) * sizeof(std::int32_t));
    L.y = off;
    off += align_up(std::size_t(max_tokens) * std::size_t(n_embd) * sizeof(float));
    L.total = off;
    return L;
}

}  // namespace

CpuMoeBridge::CpuMoeBridge(const model::Weights& w, cpu::WorkerPool& pool, const Options& o)
    : w_(w), pool_(pool), o_(o), executor_(pool) {
    n_layer_ = int(w.desc().n_layer);
    const Layout L = layout(o.max_tokens, o.k, o.n_embd);
    slot_bytes_ = L.total;
    check(cudaHostAlloc(reinterpret_cast<void**>(&host_), slot_bytes_ * std::size_t(n_layer_), cudaHostAllocMapped),
          "pinned memory for the CPU expert handshake");
    std::memset(host_, 0, slot_bytes_ * std::size_t(n_layer_));
    check(cudaHostGetDevicePointer(reinterpret_cast<void**>(&dev_), host_, 0), "map the CPU expert handshake memory");

    // Stream memory operations through the driver's entry points (no link against libcuda needed).
    cudaDriverEntryPointQueryResult q1{}, q2{};
    // Options::host_function_sync forces the fallback (for tests and for drivers whose memory operations misbehave).
    const bool want_memops = !o.host_function_sync;
    if (want_memops &&
        cudaGetDriverEntryPointByVersion("cuStreamWriteValue32", &write_fn_, 12000, cudaEnableDefault, &q1) == cudaSuccess &&
        cudaGetDriverEntryPointByVersion("cuStreamWaitValue32", &wait_fn_, 12000, cudaEnableDefault, &q2) == cudaSuccess &&
        q1 == cudaDriverEntryPointSuccess && q2 == cudaDriverEntryPointSuccess && write_fn_ && wait_fn_) {
        // Probe: write 7 then wait for >= 7 on a scratch word of the mapped memory.
        cudaStream_t s = nullptr;
        if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess) {
            std::uint32_t* word = &reinterpret_cast<CpuMoeSlotHeader*>(dev_)->pad0;  // an address only: never read here
            const CUresult a = reinterpret_cast<WriteValueFn>(write_fn_)(s, CUdeviceptr(word), 7, CU_STREAM_WRITE_VALUE_DEFAULT);
            const CUresult b = a == CUDA_SUCCESS ? reinterpret_cast<WaitValueFn>(wait_fn_)(s, CUdeviceptr(word), 7, CU_STREAM_WAIT_VALUE_GEQ)
                                                 : a;
            memops_ = b == CUDA_SUCCESS && cudaStreamSynchronize(s) == cudaSuccess &&
                      reinterpret_cast<CpuMoeSlotHeader*>(host_)->pad0 == 7;
            cudaStreamDestroy(s);
        }
    }
    cudaGetLastError();
    if (!memops_) spdlog::warn("stream memory operations are not available: the CPU experts sync through host-function nodes");
    host_args_.reserve(std::size_t(n_layer_));
    for (int l = 0; l < n_layer_; ++l) host_args_.emplace_back(this, l);
    if (memops_) {
        coordinator_ = std::thread([this] { coordinator(); });
        watchdog_ = std::thread([this] { watchdog(); });
    }
}

CpuMoeBridge::~CpuMoeBridge() {
    stop_ = true;
    if (coordinator_.joinable()) coordinator_.join();
    if (watchdog_.joinable()) watchdog_.join();
    // A graph still in flight must not wait forever.
    for (int l = 0; l < n_layer_; ++l) reinterpret_cast<CpuMoeSlotHeader*>(host_ + std::size_t(l) * slot_bytes_)->done = 1u << 30;
    if (host_) cudaFreeHost(host_);
}

float* CpuMoeBridge::x_dev(int l) const {
    return reinterpret_cast<float*>(dev_ + std::size_t(l) * slot_bytes_ + layout(o_.max_tokens, o_.k, o_.n_embd).x);
}
std::int32_t* CpuMoeBridge::ids_dev(int l) const {
    return reinterpret_cast<std::int32_t*>(dev_ + std::size_t(l) * slot_bytes_ + layout(o_.max_tokens, o_.k, o_.n_embd).ids);
}
float* CpuMoeBridge::w_dev(int l) const {
    return reinterpret_cast<float*>(dev_ + std::size_t(l) * slot_bytes_ + layout(o_.max_tokens, o_.k, o_.n_embd).w);
}
std::int32_t* CpuMoeBridge::cpu_ids_dev(int l) const {
    return reinterpret_cast<std::int32_t*>(dev_ + std::size_t(l) * slot_bytes_ +
                                           layout(o_.max_tokens, o_.k, o_.n_embd).cpu_ids);
}
std::int32_t* CpuMoeBridge::cpu_count_dev(int l) const {
    return reinterpret_cast<std::int32_t*>(dev_ + std::size_t(l) * slot_bytes_ + offsetof(CpuMoeSlotHeader, cpu_count));
}
std::int32_t* CpuMoeBridge::n_tokens_dev(int l) const {
    return reinterpret_cast<std::int32_t*>(dev_ + std::size_t(l) * slot_bytes_ + offsetof(CpuMoeSlotHeader, n_tokens));
}
const float* CpuMoeBridge::y_dev(int l) const {
    return reinterpret_cast<const float*>(dev_ + std::size_t(l) * slot_bytes_ + layout(o_.max_tokens, o_.k, o_.n_embd).y);
}

kernels::ExpertCacheHandoff CpuMoeBridge::handoff(int l, const float* x, const float* weights, int T) const {
    kernels::ExpertCacheHandoff h;
    h.x = x;
    h.x_dst = x_dev(l);
    h.x_count = std::int64_t(T) * o_.n_embd;
    h.ids_dst = ids_dev(l);
    h.weights = weights;
    h.weights_dst = w_dev(l);
    h.n_tokens_dst = n_tokens_dev(l);
    h.n_tokens = T;
    if (memops_) {
        auto* hd = reinterpret_cast<CpuMoeSlotHeader*>(dev_ + std::size_t(l) * slot_bytes_);
        h.done = const_cast<std::uint32_t*>(&hd->done);
        h.ready = const_cast<std::uint32_t*>(&hd->ready);
    }
    return h;
}

void CpuMoeBridge::submit(int l, cudaStream_t stream) {
    if (!memops_) check(cudaLaunchHostFunc(stream, &CpuMoeBridge::host_serve, &host_args_[std::size_t(l)]), "CPU expert host node");
}

void CpuMoeBridge::wait(int l, cudaStream_t stream) {
    if (!memops_) return;  // the host node ran the work inline
    auto* h = reinterpret_cast<CpuMoeSlotHeader*>(dev_ + std::size_t(l) * slot_bytes_);
    const auto wait = reinterpret_cast<WaitValueFn>(wait_fn_);
    const CUresult r = wait(stream, CUdeviceptr(&h->done), 1, CU_STREAM_WAIT_VALUE_GEQ);
    if (r != CUDA_SUCCESS) throw Error(ErrorCode::device, "cuStreamWaitValue32 failed (" + std::to_string(int(r)) + ")");
}

void CpuMoeBridge::check_health() {
    if (!failure_.failed()) return;
    const std::optional<std::string> what = failure_.take();
    if (!what) return;
    for (int l = 0; l < n_layer_; ++l) reinterpret_cast<CpuMoeSlotHeader*>(host_ + std::size_t(l) * slot_bytes_)->err = 0;
    throw Error(ErrorCode::internal, "the CPU expert thread failed: " + *what,
                "this is a bug; the log has details. Use --moe-backend resident or offload to avoid the CPU path");
}

void CUDART_CB CpuMoeBridge::host_serve(void* arg) {
    auto* a = static_cast<std::pair<CpuMoeBridge*, int>*>(arg);
    a->first->serve(a->second);
}

// Computes the experts the planner listed for layer l over the rows routed to them; writes the weighted sum y.
void CpuMoeBridge::serve(int l) {
    const auto t0 = now_ns();
    std::uint8_t* base = host_ + std::size_t(l) * slot_bytes_;
    const Layout L = layout(o_.max_tokens, o_.k, o_.n_embd);
    auto* h = reinterpret_cast<CpuMoeSlotHeader*>(base);
    const int T = std::clamp(h->n_tokens, 0, o_.max_tokens);
    const int n_cpu = std::clamp(h->cpu_count, 0, o_.max_tokens * o_.k);
    const std::int64_t E = o_.n_embd;
    const float* x = reinterpret_cast<const float*>(base + L.x);
    const std::int32_t* ids = reinterpret_cast<const std::int32_t*>(base + L.ids);
    const float* wts = reinterpret_cast<const float*>(base + L.w);
    const std::int32_t* cpu_ids = reinterpret_cast<const std::int32_t*>(base + L.cpu_ids);
    float* y = reinterpret_cast<float*>(base + L.y);
    std::fill(y, y + std::int64_t(T) * E, 0.f);
    if (n_cpu > 0 && T > 0) {
        try {
            const int n_expert = int(w_.desc().moe.n_expert);
            rows_.resize(std::size_t(n_cpu));
            jobs_.clear();
            std::size_t n_rows = 0;
            for (int i = 0; i < n_cpu; ++i) {
                rows_[std::size_t(i)].clear();
                const int e = cpu_ids[i];
                if (e < 0 || e >= n_expert) continue;
                for (int p = 0; p < T * o_.k; ++p)
                    if (ids[p] == e) rows_[std::size_t(i)].push_back(p);
                n_rows += rows_[std::size_t(i)].size();
            }
            xs_.resize(n_rows * std::size_t(E));
            ys_.resize(n_rows * std::size_t(E));
            std::size_t row = 0;
            for (int i = 0; i < n_cpu; ++i) {
                const auto& r = rows_[std::size_t(i)];
                if (r.empty()) continue;
                moe::ExpertJob job;
                job.expert = &w_.expert(l, cpu_ids[i]);
                job.x = xs_.data() + row * std::size_t(E);
                job.out = ys_.data() + row * std::size_t(E);
                job.m = std::int64_t(r.size());
                for (std::size_t j = 0; j < r.size(); ++j)
                    std::memcpy(xs_.data() + (row + j) * std::size_t(E), x + std::int64_t(r[j] / o_.k) * E,
                                std::size_t(E) * sizeof(float));
                row += r.size();
                jobs_.push_back(job);
            }
            const auto e0 = now_ns();
            executor_.run(jobs_, o_.swiglu_limit);
            exec_ns_ += std::uint64_t(now_ns() - e0);
            row = 0;
            for (int i = 0; i < n_cpu; ++i) {
                for (std::int32_t p : rows_[std::size_t(i)]) {
                    const float wt = wts[p];
                    float* o = y + std::int64_t(p / o_.k) * E;
                    const float* s = ys_.data() + row * std::size_t(E);
                    for (std::int64_t c = 0; c < E; ++c) o[c] += wt * s[c];
                    ++row;
                }
            }
            experts_ += jobs_.size();
        } catch (const std::exception& e) {
            failure_.set(e.what());
            h->err = 1;
            spdlog::error("CPU experts of layer {}: {}", l, e.what());
        }
    }
    busy_ns_ += std::uint64_t(now_ns() - t0);
}

void CpuMoeBridge::coordinator() {
    pool_.pin_caller();
    int next = 0;
    std::int64_t idle_since = now_ns();
    int sleep_us = 0;
    std::int64_t answered_at = 0;
    while (!stop_.load(std::memory_order_relaxed)) {
        bool served = false;
        for (int i = 0; i < n_layer_; ++i) {
            const int l = (next + i) % n_layer_;
            auto* h = reinterpret_cast<CpuMoeSlotHeader*>(host_ + std::size_t(l) * slot_bytes_);
            if (h->ready != 1) continue;
            std::atomic_thread_fence(std::memory_order_acquire);
            h->ready = 0;
            const std::int64_t taken = now_ns();
            if (answered_at > 0 && taken - answered_at < 2'000'000) {
                gap_ns_ += std::uint64_t(taken - answered_at);
                ++gaps_;
            }
            pending_since_ns_ = taken;
            serve(l);
            std::atomic_thread_fence(std::memory_order_release);
            h->done = 1;
            answered_at = now_ns();
            pending_since_ns_ = 0;
            ++served_;
            next = (l + 1) % n_layer_;
            served = true;
            break;
        }
        if (served) {
            idle_since = now_ns();
            sleep_us = 0;
            continue;
        }
        // Spin for 50 ms after the last layer (decode steps come back to back), then back off to sleeps of up to 2 ms.
        if (now_ns() - idle_since < 50'000'000) {
            for (int i = 0; i < 64; ++i) FT_PAUSE();
        } else {
            sleep_us = sleep_us == 0 ? 100 : std::min(2000, sleep_us * 2);
            std::this_thread::sleep_for(std::chrono::microseconds(sleep_us));
        }
    }
}

void CpuMoeBridge::watchdog() {
    std::uint64_t last_served = 0;
    std::int64_t stuck_since = 0;
    while (!stop_.load()) {
        for (int i = 0; i < 20 && !stop_.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
        // A layer the GPU handed over that nobody answers for 10 s (the coordinator stuck or dead): release the GPU
        // with an error instead of hanging the process.
        bool waiting = false;
        for (int l = 0; l < n_layer_; ++l) {
            auto* h = reinterpret_cast<CpuMoeSlotHeader*>(host_ + std::size_t(l) * slot_bytes_);
            if (h->ready == 1 || (h->done == 0 && pending_since_ns_.load() != 0)) waiting = true;
        }
        const std::uint64_t s = served_.load();
        if (!waiting || s != last_served) {
            stuck_since = 0;
            last_served = s;
            continue;
        }
        if (stuck_since == 0) stuck_since = now_ns();
        if (now_ns() - stuck_since > 10'000'000'000LL) {
            failure_.set("no answer for 10 s");
            spdlog::error("CPU expert handshake stuck for 10 s: releasing the GPU with an error");
            for (int l = 0; l < n_layer_; ++l) {
                auto* h = reinterpret_cast<CpuMoeSlotHeader*>(host_ + std::size_t(l) * slot_bytes_);
                h->err = 1;
                h->done = 1;
            }
            stuck_since = 0;
        }
    }
}

}  // namespace ft::gpu
