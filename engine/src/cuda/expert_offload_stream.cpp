// ExpertOffload's whole-layer copies (expert_offload.h): prefill streaming through the two buffers, a static
// backend's CPU layers in prefill, and the copy paths `ft bench bw` measures.
#include "cuda/expert_offload.h"

#include <algorithm>
#include <chrono>

#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

#include "cuda/expert_copy.cuh"
#include "cuda/ops.cuh"
#include "ft/error.h"

namespace ft::gpu {

namespace kc = kernels::cuda;

int ExpertOffload::buffer_of(int il) const {
    if (n_slots_ >= 2 * n_expert_ && o_.prefill_overlap) return il % 2;
    return 0;
}

// On the copy stream: wait until the buffer's last reader is done, bind its slots to layer il, copy the experts.
void ExpertOffload::stream_layer(int il, int buffer) {
    check(cudaStreamWaitEvent(copy_stream_, release_[buffer], 0), "prefill wait");
    const int first = buffer * n_expert_;
    check(kc::expert_cache_bind_layer(state_, il, first, 0, copy_stream_), "bind prefill buffer");
    if (o_.link_gbps > 0) check(kc::link_clock_start(link_t0_ + 1, copy_stream_), "emulated link");
    copy_layer(il, first, copy_stream_);
    if (o_.link_gbps > 0)
        check(kc::link_throttle(link_t0_ + 1, nullptr, double(expert_bytes(il)) * n_expert_, o_.link_gbps, copy_stream_),
              "emulated link");
    prefill_h2d_ += expert_bytes(il) * std::size_t(n_expert_);
    check(cudaEventRecord(ready_[buffer], copy_stream_), "prefill event");
    buffer_layer_[std::size_t(buffer)] = il;
}

// One cudaMemcpyAsync may not span pinned and pageable memory (cudaErrorInvalidValue), and the matrices of an unpinned
// expert can begin or end inside a registered range (ranges are rounded out to 64 KiB, and an expert counts as pinned
// only when all three of its matrices are): split the copy at the edges of the registered ranges.
void ExpertOffload::copy_from_store(std::uint8_t* dst, const std::uint8_t* src, std::size_t n, cudaStream_t stream,
                                    const char* what) const {
    std::uintptr_t p = reinterpret_cast<std::uintptr_t>(src);
    const std::uintptr_t end = p + n;
    while (p < end) {
        std::uintptr_t stop = end;
        auto it = std::upper_bound(pinned_spans_.begin(), pinned_spans_.end(), p,
                                   [](std::uintptr_t v, const std::pair<std::uintptr_t, std::uintptr_t>& r) { return v < r.first; });
        if (it != pinned_spans_.begin() && p < std::prev(it)->second) stop = std::min(end, std::prev(it)->second);  // inside one
        else if (it != pinned_spans_.end()) stop = std::min(end, it->first);  // pageable up to the next one
        check(cudaMemcpyAsync(dst + (p - reinterpret_cast<std::uintptr_t>(src)), reinterpret_cast<const void*>(p), stop - p,
                              cudaMemcpyDefault, stream),
              what);
        p = stop;
    }
}

// Unpinned experts are ordinary host memory: cudaMemcpyAsync stages them through the driver's own pinned buffers
// (synchronous for the host, still correct).
void ExpertOffload::copy_layer(int il, int first_slot, cudaStream_t stream) {
    for (int b = 0; b < 3; ++b) {
        const std::size_t bytes = layout_[std::size_t(il)].bytes[b];
        auto* dst = static_cast<std::uint8_t*>(banks_[b].get()) + std::size_t(first_slot) * bank_bytes_[b];
        // One copy when the layer's experts are stored back to back with the bank's stride (GGUF), else one each.
        const std::uint8_t* src0 = host_src_[b][std::size_t(il * n_expert_)];
        bool contiguous = bytes == bank_bytes_[b];
        for (int e = 1; contiguous && e < n_expert_; ++e)
            contiguous = host_src_[b][std::size_t(il * n_expert_ + e)] == src0 + std::size_t(e) * bytes;
        if (contiguous) {
            copy_from_store(dst, src0, bytes * std::size_t(n_expert_), stream, "expert layer copy");
        } else {
            for (int e = 0; e < n_expert_; ++e)
                copy_from_store(dst + std::size_t(e) * bank_bytes_[b], host_src_[b][std::size_t(il * n_expert_ + e)], bytes, stream,
                                "expert layer copy");
        }
    }
}

bool ExpertOffload::prefill_layer(int il, kc::ExpertMatrix& gate, kc::ExpertMatrix& up, kc::ExpertMatrix& down) {
    kc::ExpertMatrix* out[3] = {&gate, &up, &down};
    int first = 0;
    if (o_.backend == exec::MoeBackend::static_layers) {
        first = static_base_[std::size_t(il)];
        if (first < 0) return false;
    } else {
        const int b = buffer_of(il);
        if (buffer_layer_[std::size_t(b)] != il) stream_layer(il, b);
        // Prefetch the next MoE layer into the other buffer while this one computes.
        if (buffer_of(il) != buffer_of(il + 1))
            for (int nl = il + 1; nl < n_layer_; ++nl)
                if (w_.layer_has_experts(nl)) {
                    if (buffer_layer_[std::size_t(buffer_of(nl))] != nl) stream_layer(nl, buffer_of(nl));
                    break;
                }
        check(cudaStreamWaitEvent(stream_, ready_[b], 0), "prefill wait");
        first = b * n_expert_;
    }
    for (int b = 0; b < 3; ++b) {
        *out[b] = layout_[std::size_t(il)].proto[b];
        out[b]->base = static_cast<const std::uint8_t*>(banks_[b].get()) + std::size_t(first) * bank_bytes_[b];
        out[b]->slot_stride = bank_bytes_[b];
    }
    return true;
}

void ExpertOffload::done_with(int il) {
    if (o_.backend == exec::MoeBackend::static_layers) return;
    const int b = buffer_of(il);
    check(cudaEventRecord(release_[b], stream_), "prefill release");
    // Without a second buffer the next layer must wait for this one: it streams into the same slots.
    bool last = true;
    for (int nl = il + 1; nl < n_layer_; ++nl) last = last && !w_.layer_has_experts(nl);
    if (last) {
        // The prompt is done: later decode steps may evict the buffers, so the next prefill streams again.
        check(cudaEventRecord(ready_[b], copy_stream_), "prefill end");
        check(cudaStreamWaitEvent(stream_, ready_[b], 0), "prefill end");
        buffer_layer_ = {-1, -1};
    }
}

void ExpertOffload::prefill_on_cpu(const model::MoeBlock& b, std::int64_t T, const float* xn, float* x,
                                   const std::int32_t* tokens) {
    if (!cpu_moe_) throw Error(ErrorCode::internal, "prefill_on_cpu without a CPU MoE");
    host_x_.resize(std::size_t(T * n_embd_));
    host_y_.resize(host_x_.size());
    check(cudaMemcpyAsync(host_x_.data(), xn, host_x_.size() * sizeof(float), cudaMemcpyDeviceToHost, stream_), "read x");
    check(cudaStreamSynchronize(stream_), "read x");
    cpu_moe_->forward(b, host_x_.data(), T, host_y_.data(), tokens);
    auto tmp = vram_.alloc(host_y_.size() * sizeof(float), VramUse::scratch, "CPU expert output");
    check(cudaMemcpyAsync(tmp.get(), host_y_.data(), host_y_.size() * sizeof(float), cudaMemcpyHostToDevice, stream_),
          "write y");
    check(kc::add_f32(static_cast<const float*>(tmp.get()), x, T * n_embd_, stream_), "add the CPU experts");
    check(cudaStreamSynchronize(stream_), "CPU experts");
}

std::pair<std::uint64_t, double> ExpertOffload::bench_fetch(double seconds, const std::atomic<bool>* stop, std::uint64_t seed) {
    constexpr int kPerLaunch = 8;
    // Experts pinned in place (the ring's slots stand in for the others when none is: still pinned memory over PCIe).
    std::vector<int> flats, all;
    for (int il = 0; il < n_layer_; ++il)
        if (w_.layer_has_experts(il))
            for (int e = 0; e < n_expert_; ++e) {
                all.push_back(il * n_expert_ + e);
                if (host_pinned_[std::size_t(il * n_expert_ + e)]) flats.push_back(il * n_expert_ + e);
            }
    if (flats.empty()) flats = all;
    std::uint64_t rng = seed * 0x9E3779B97F4A7C15ull + 1;
    auto next = [&rng] {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return rng;
    };
    // A batch of fetch lists prepared up front, uploaded once; launches cycle through them.
    constexpr int kLists = 64;
    std::vector<kernels::ExpertFetch> lists(std::size_t(kLists) * kPerLaunch);
    for (int i = 0; i < kLists; ++i)
        for (int j = 0; j < kPerLaunch; ++j) {
            lists[std::size_t(i * kPerLaunch + j)] = {flats[next() % flats.size()],
                                                      int((std::size_t(i) * kPerLaunch + std::size_t(j)) % std::size_t(n_slots_))};
        }
    std::vector<std::uint64_t> list_bytes(kLists, 0);  // what each list copies (sizes may differ by layer)
    for (int i = 0; i < kLists; ++i)
        for (int j = 0; j < kPerLaunch; ++j)
            list_bytes[std::size_t(i)] += expert_bytes(lists[std::size_t(i * kPerLaunch + j)].flat_id / n_expert_);
    auto d_lists = vram_.alloc(lists.size() * sizeof(kernels::ExpertFetch) + 256, VramUse::scratch, "fetch benchmark");
    auto* count = reinterpret_cast<std::int32_t*>(static_cast<std::uint8_t*>(d_lists.get()) + lists.size() * sizeof(kernels::ExpertFetch));
    const std::int32_t n = kPerLaunch;
    check(cudaMemcpy(d_lists.get(), lists.data(), lists.size() * sizeof(kernels::ExpertFetch), cudaMemcpyHostToDevice), "bench");
    check(cudaMemcpy(count, &n, sizeof(n), cudaMemcpyHostToDevice), "bench");
    kc::ExpertCopyParams cp = copy_params();
    cp.fetch_count = count;
    cp.max_fetch = kPerLaunch;
    // The waiting thread blocks (as the engine's does beside CPU expert workers) instead of spinning on a core the
    // CPU half of the benchmark needs.
    cudaEvent_t done = nullptr;
    check(cudaEventCreateWithFlags(&done, cudaEventBlockingSync | cudaEventDisableTiming), "cudaEventCreate");
    std::unique_ptr<CUevent_st, decltype(&cudaEventDestroy)> done_guard(done, &cudaEventDestroy);
    const auto t0 = std::chrono::steady_clock::now();
    std::uint64_t launches = 0, copied = 0;
    for (;;) {
        for (int i = 0; i < 16; ++i) {  // 16 launches between clock reads, synchronised so timing is real
            cp.fetch = static_cast<const kernels::ExpertFetch*>(d_lists.get()) + (launches % kLists) * kPerLaunch;
            check(kc::expert_copy(cp, stream_), "fetch benchmark");
            copied += list_bytes[launches % kLists];
            ++launches;
        }
        check(cudaEventRecord(done, stream_), "fetch benchmark");
        check(cudaEventSynchronize(done), "fetch benchmark");
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (s >= seconds || (stop && stop->load())) return {copied, s};
    }
}

double ExpertOffload::bench_dma(double seconds) {
    if (n_slots_ < n_expert_) throw Error(ErrorCode::internal, "DMA benchmark: fewer slots than one layer's experts");
    // Layers pinned in place when there are any (the prefill path's speed with a full pin).
    std::vector<int> moe_layers, pinned_layers;
    for (int il = 0; il < n_layer_; ++il)
        if (w_.layer_has_experts(il)) {
            moe_layers.push_back(il);
            if (layer_bounced_.empty() || !layer_bounced_[std::size_t(il)]) pinned_layers.push_back(il);
        }
    if (!pinned_layers.empty()) moe_layers = pinned_layers;
    const auto t0 = std::chrono::steady_clock::now();
    std::uint64_t bytes = 0;
    for (std::size_t i = 0;; ++i) {
        const int il = moe_layers[i % moe_layers.size()];
        copy_layer(il, 0, stream_);
        bytes += expert_bytes(il) * std::size_t(n_expert_);
        check(cudaStreamSynchronize(stream_), "DMA benchmark");
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (s >= seconds) return double(bytes) / s / 1e9;
    }
}

}  // namespace ft::gpu
