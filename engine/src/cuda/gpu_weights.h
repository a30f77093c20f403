// Uploading a graph's non-expert tensors (and, for the resident backend, the routed experts) to VRAM: each tensor
// once, in its stored type, counted as weights in the runner's VRAM budget, with load progress and cancellation.
// Engine-internal; CUDA builds only.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "cuda/gemv.cuh"
#include "cuda/gpu_runtime.h"
#include "model/weights.h"

namespace ft::gpu {

// Whether the GPU runner takes weights of type t (the GEMV kernels read it; kernels/cuda/gemv.cuh).
bool gpu_reads(kernels::DType t);

// One layer's routed experts packed [n_expert, rows, cols] per matrix.
struct ExpertSet {
    kernels::cuda::ExpertMatrix gate, up, down;
};

class DeviceWeights {
public:
    DeviceWeights(const model::Weights& w, VramBudget& vram, cudaStream_t stream,
                  std::function<void(std::uint64_t done, std::uint64_t total)> on_upload, std::uint64_t total,
                  const std::atomic<bool>* cancel);
    ~DeviceWeights();

    // A matrix in its stored type (read by the GEMV kernels and Linear); uploaded once per tensor.
    DeviceMatrix matrix(const model::TensorView& t);
    // A 1-D tensor widened to f32 (norms, biases, sinks); null for a null view.
    const float* vector(const model::TensorView* t);
    // An i32 table as stored (DeepSeek-V4's token → experts); null for a null view.
    const std::int32_t* table(const model::TensorView* t);
    // n f32 ones (the unweighted RMSNorms), one buffer for every caller.
    const float* ones(std::int64_t n);
    // q, k and v rows stacked into one matrix (one GEMV writes [q | k | v] per token), when they share a type and
    // input width the GEMV kernels read; else an empty matrix.
    DeviceMatrix stacked(const model::TensorView& q, const model::TensorView& k, const model::TensorView& v,
                         const std::string& name);
    // f32 vectors concatenated (the q/k/v biases beside a stacked matrix); null when all are null.
    const float* stacked_vector(std::initializer_list<const model::TensorView*> parts, const std::string& name);
    // Layer il's routed experts, packed per matrix (resident backend).
    ExpertSet experts(int il);
    // Layer il's routed-expert biases (empty when the experts have none).
    ExpertBiases expert_biases(int il);

    // Waits for the uploads, releases the staging buffers, reports the final progress. Only vector() may follow.
    void finish();
    std::uint64_t bytes() const;

private:
    void uploaded();  // progress + cancellation between uploads
    std::shared_ptr<void> alloc(std::size_t bytes, const std::string& what);

    const model::Weights& w_;
    VramBudget& vram_;
    std::unique_ptr<Uploader> uploader_;
    std::function<void(std::uint64_t, std::uint64_t)> on_upload_;
    std::uint64_t total_ = 0, bytes_ = 0;
    const std::atomic<bool>* cancel_ = nullptr;
    std::chrono::steady_clock::time_point last_progress_{};
    std::vector<std::shared_ptr<void>> keep_;
    std::map<const std::byte*, DeviceMatrix> matrices_;  // by the tensor's data: one upload per tensor
    std::map<const std::byte*, const float*> vectors_;
    std::shared_ptr<void> ones_;
    std::int64_t n_ones_ = 0;
};

}  // namespace ft::gpu
