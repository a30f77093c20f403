// The GPU runner's runtime pieces: CUDA error → ft::Error, a VRAM budget that every allocation of a runner goes
// through (with use by category and the peak, for `--vram-budget` and the dashboards), a chunked host→device
// uploader through pinned staging buffers, and the dense linear layer (GEMV for a few rows, dequantize + cuBLAS for
// many). Engine-internal; CUDA builds only.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "exec/runner.h"
#include "ref/dtype.h"

namespace ft::gpu {

// Throws ft::Error(device), or ft::Error(out_of_memory) for an allocation failure; `what` names the operation.
void check(cudaError_t e, const char* what);
void check(cublasStatus_t s, const char* what);

enum class VramUse { weights, kv, scratch, experts, cublas, count };
const char* vram_use_name(VramUse u);

// Every device allocation of one runner. A request over the budget throws ft::Error(out_of_memory) naming what was
// being allocated, how much is in use by category, and what to do. Thread-safe enough for one engine thread.
// Allocations may outlive the VramBudget object (their deleters share its counters).
class VramBudget {
public:
    explicit VramBudget(std::uint64_t budget) : s_(std::make_shared<State>()) { s_->budget = budget; }
    std::shared_ptr<void> alloc(std::size_t bytes, VramUse use, const std::string& what);
    template <class T>
    std::shared_ptr<T> alloc_as(std::size_t count, VramUse use, const std::string& what) {
        return std::static_pointer_cast<T>(alloc(count * sizeof(T), use, what));
    }
    std::uint64_t budget() const { return s_->budget; }
    std::uint64_t used() const { return s_->used; }
    std::uint64_t peak() const { return s_->peak; }
    std::uint64_t used(VramUse u) const { return s_->by_use[std::size_t(u)]; }
    std::string summary() const;  // "weights 17.2 GiB, kv 0.8 GiB, …"

private:
    struct State {
        std::uint64_t budget = 0, used = 0, peak = 0;
        std::array<std::uint64_t, std::size_t(VramUse::count)> by_use{};
    };
    std::shared_ptr<State> s_;
};

// Host → device copies of large, possibly memory-mapped regions through two pinned staging buffers (the copy of
// chunk i overlaps the memcpy into the staging buffer of chunk i+1).
class Uploader {
public:
    explicit Uploader(cudaStream_t stream, std::size_t chunk = 64u << 20);
    ~Uploader();
    Uploader(const Uploader&) = delete;
    Uploader& operator=(const Uploader&) = delete;
    void copy(void* dst, const void* src, std::size_t bytes);
    void finish();  // waits for every copy
    std::uint64_t bytes() const { return bytes_; }

private:
    cudaStream_t stream_;
    std::size_t chunk_;
    void* staging_[2] = {nullptr, nullptr};
    cudaEvent_t done_[2] = {nullptr, nullptr};
    int next_ = 0;
    std::uint64_t bytes_ = 0;
};

// A weight matrix in VRAM in its stored type: rows × cols (GGUF ne0 = cols), rows at data + r * row_bytes.
struct DeviceMatrix {
    kernels::DType type = kernels::DType::F32;
    const void* data = nullptr;
    std::size_t row_bytes = 0;
    std::int64_t rows = 0, cols = 0;
};

// One layer's routed-expert biases (gpt-oss), F32 [n_expert, rows] per matrix, indexed by expert id; null: none.
struct ExpertBiases {
    const float* gate = nullptr;
    const float* up = nullptr;
    const float* down = nullptr;
    explicit operator bool() const { return down != nullptr; }
};

// y[m, rows] (+)= x[m, cols] · Wᵀ. m ≤ kernels::cuda::kGemvMaxM: the GEMV kernels (weights read once, in place);
// more rows: W dequantized into a scratch tile (BF16 or F32 by precision) and cuBLAS, tiled over W's rows so the
// scratch stays small. Not thread-safe; one per stream.
class Linear {
public:
    Linear(VramBudget& vram, cudaStream_t stream, exec::GemmPrecision precision, std::int64_t max_m, std::int64_t max_k);
    ~Linear();
    Linear(const Linear&) = delete;
    Linear& operator=(const Linear&) = delete;
    void run(const DeviceMatrix& w, const float* x, std::int64_t m, std::int64_t ldx, float* y, std::int64_t ldy,
             bool accumulate);
    // y[m, rows] (+)= x[m, cols] · Wᵀ on operands already dense in `type` (BF16 or F32): W [rows, cols] row-major,
    // x with row stride ldx. One cuBLAS call.
    void gemm_dense(kernels::DType type, const void* w, std::int64_t rows, std::int64_t cols, const void* x, std::int64_t ldx,
                    std::int64_t m, float* y, std::int64_t ldy, bool accumulate);
    // W dequantized into the weight scratch in the GEMM type (BF16 or F32, by precision); valid until the next call.
    // Throws when W does not fit the scratch.
    const void* dense_weights(const DeviceMatrix& w);
    kernels::DType dense_type() const {
        return precision_ == exec::GemmPrecision::bf16 ? kernels::DType::BF16 : kernels::DType::F32;
    }
    std::uint64_t launches() const { return launches_; }
    exec::GemmPrecision precision() const { return precision_; }

private:
    cudaStream_t stream_;
    cublasHandle_t blas_ = nullptr;
    exec::GemmPrecision precision_;
    std::int64_t max_m_, max_k_;
    std::shared_ptr<void> w_scratch_, x_scratch_;
    std::size_t w_scratch_elems_ = 0;
    std::uint64_t launches_ = 0;
};

}  // namespace ft::gpu
