#include "profile/device_bandwidth.h"

#include <algorithm>

#include <cuda_runtime.h>

#include "cuda/expert_offload.h"
#include "cuda/gpu_runtime.h"
#include "ft/error.h"
#include "ft/gpu.h"
#include "model/weights.h"

namespace ft::profile {

double device_copy_gbs(int device, std::size_t bytes, int repeats) {
    gpu::check(cudaSetDevice(device), "cudaSetDevice");
    void *a = nullptr, *b = nullptr;
    gpu::check(cudaMalloc(&a, bytes), "copy bandwidth buffer");
    if (cudaMalloc(&b, bytes) != cudaSuccess) {
        cudaFree(a);
        gpu::check(cudaErrorMemoryAllocation, "copy bandwidth buffer");
    }
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaMemset(a, 1, bytes);
    cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);  // warm-up
    float best = 1e30f;
    for (int i = 0; i < repeats; ++i) {
        cudaEventRecord(e0);
        cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        best = std::min(best, ms);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaFree(a);
    cudaFree(b);
    // A copy reads and writes every byte.
    return 2.0 * double(bytes) / (double(best) / 1e3) / 1e9;
}

struct FetchBench::Impl {
    std::string name;
    std::unique_ptr<gpu::VramBudget> vram;
    cudaStream_t stream = nullptr;
    std::unique_ptr<gpu::ExpertOffload> offload;
    ~Impl() {
        offload.reset();
        if (stream) cudaStreamDestroy(stream);
    }
};

FetchBench::FetchBench(const model::Weights& w, int gpu) : impl_(std::make_unique<Impl>()) {
    const auto devs = gpu_devices();
    if (gpu < 0 || gpu >= int(devs.size())) throw Error(ErrorCode::device, "no usable GPU: " + gpu_unavailable_reason());
    gpu::check(cudaSetDevice(gpu), "cudaSetDevice");
    impl_->name = devs[std::size_t(gpu)].name;
    impl_->vram = std::make_unique<gpu::VramBudget>(0);
    gpu::check(cudaStreamCreateWithFlags(&impl_->stream, cudaStreamNonBlocking), "cudaStreamCreate");
    gpu::OffloadOptions o;
    o.backend = exec::MoeBackend::offload;
    const auto& d = w.desc();
    std::size_t one = 0;  // the largest layer's expert (the cache's slots fit it)
    for (int il = 0; il < int(d.n_layer); ++il)
        if (w.layer_has_experts(il)) one = std::max<std::size_t>(one, w.expert(il, 0).bytes());
    o.cache_bytes = (one + 3 * 256) * std::size_t(d.moe.n_expert) * 2;  // two layers' worth (the prefill buffers)
    impl_->offload = std::make_unique<gpu::ExpertOffload>(w, *impl_->vram, impl_->stream, o);
}

FetchBench::~FetchBench() = default;
std::string FetchBench::gpu_name() const { return impl_->name; }
std::pair<std::uint64_t, double> FetchBench::fetch(double seconds, const std::atomic<bool>* stop) {
    return impl_->offload->bench_fetch(seconds, stop, 1);
}
double FetchBench::dma_gbs(double seconds) { return impl_->offload->bench_dma(seconds); }

}  // namespace ft::profile
