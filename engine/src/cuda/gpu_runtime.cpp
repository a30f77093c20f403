#include "cuda/gpu_runtime.h"

#include <algorithm>
#include <cstring>

#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

#include "cuda/dequant.cuh"
#include "cuda/gemv.cuh"
#include "ft/error.h"

namespace ft::gpu {

namespace kc = kernels::cuda;
using kernels::DType;

// The errors carry keys for translating front ends (ft/message.h): "cuda_out_of_memory" {what}, "gpu_too_old" {GPU
// name, compute capability, what}, "cuda_failed" {what, CUDA's error name, its text}, "cublas_failed" {what, status}.
void check(cudaError_t e, const char* what) {
    if (e == cudaSuccess) return;
    cudaGetLastError();  // clear a non-sticky error so the next call does not report it again
    if (e == cudaErrorMemoryAllocation)
        throw Error(ErrorCode::out_of_memory, std::string(what) + ": out of GPU memory",
                    "use a smaller context (--ctx), fewer parallel requests, or a smaller model")
            .keyed("cuda_out_of_memory", {what});
    if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorUnsupportedPtxVersion) {
        // This build holds no code for the GPU's architecture (compiled for newer ones: FT_CUDA_ARCHS).
        int dev = 0;
        cudaDeviceProp prop{};
        std::string name = "this GPU", cc = "?";
        if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&prop, dev) == cudaSuccess) {
            name = prop.name;
            cc = std::to_string(prop.major) + "." + std::to_string(prop.minor);
        }
        throw Error(ErrorCode::device,
                    std::string(what) + ": " + name + " (compute capability " + cc + ") is not among the GPUs this build was compiled for",
                    "use --device cpu, or a build for this GPU's architecture")
            .keyed("gpu_too_old", {name, cc, what});
    }
    throw Error(ErrorCode::device, std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")")
        .keyed("cuda_failed", {what, cudaGetErrorName(e), cudaGetErrorString(e)});
}

void check(cublasStatus_t s, const char* what) {
    if (s == CUBLAS_STATUS_SUCCESS) return;
    if (s == CUBLAS_STATUS_ALLOC_FAILED)
        throw Error(ErrorCode::out_of_memory, std::string(what) + ": cuBLAS is out of GPU memory").keyed("cuda_out_of_memory", {what});
    throw Error(ErrorCode::device, std::string(what) + ": cuBLAS status " + std::to_string(int(s)))
        .keyed("cublas_failed", {what, std::to_string(int(s))});
}

const char* vram_use_name(VramUse u) {
    switch (u) {
        case VramUse::weights: return "weights";
        case VramUse::kv: return "kv";
        case VramUse::scratch: return "scratch";
        case VramUse::experts: return "experts";
        case VramUse::cublas: return "cublas";
        case VramUse::count: break;
    }
    return "?";
}

namespace {
std::string gib(std::uint64_t b) { return fmt::format("{:.2f} GiB", double(b) / double(1ull << 30)); }
}  // namespace

std::string VramBudget::summary() const {
    std::string s;
    for (std::size_t i = 0; i < s_->by_use.size(); ++i) {
        if (s_->by_use[i] == 0) continue;
        if (!s.empty()) s += ", ";
        s += std::string(vram_use_name(VramUse(i))) + " " + gib(s_->by_use[i]);
    }
    return s.empty() ? "nothing" : s;
}

std::shared_ptr<void> VramBudget::alloc(std::size_t bytes, VramUse use, const std::string& what) {
    State& st = *s_;
    bytes = std::max<std::size_t>(bytes, 256);
    if (st.budget && st.used + bytes > st.budget)
        throw Error(ErrorCode::out_of_memory,
                    fmt::format("{} needs {} of GPU memory but the VRAM budget of {} has {} left (in use: {})", what,
                                gib(bytes), gib(st.budget), gib(st.budget - st.used), summary()),
                    "raise --vram-budget, lower the context (--ctx) or the prefill chunk, or use a smaller model");
    void* p = nullptr;
    const cudaError_t e = cudaMalloc(&p, bytes);
    if (e != cudaSuccess) {
        cudaGetLastError();
        std::size_t free_b = 0, total_b = 0;
        cudaMemGetInfo(&free_b, &total_b);
        throw Error(ErrorCode::out_of_memory,
                    fmt::format("{} needs {} of GPU memory; the GPU has {} free (this model uses: {})", what, gib(bytes),
                                gib(free_b), summary()),
                    "close other programs using the GPU, lower the context (--ctx), or use a smaller model");
    }
    st.used += bytes;
    st.by_use[std::size_t(use)] += bytes;
    st.peak = std::max(st.peak, st.used);
    return std::shared_ptr<void>(p, [state = s_, bytes, use](void* q) {
        cudaFree(q);
        state->used -= bytes;
        state->by_use[std::size_t(use)] -= bytes;
    });
}

// ---- Uploader ----

Uploader::Uploader(cudaStream_t stream, std::size_t chunk) : stream_(stream), chunk_(chunk) {
    for (int i = 0; i < 2; ++i) {
        check(cudaMallocHost(&staging_[i], chunk_), "pinned staging buffer");
        check(cudaEventCreateWithFlags(&done_[i], cudaEventDisableTiming), "cudaEventCreate");
    }
}

Uploader::~Uploader() {
    cudaStreamSynchronize(stream_);
    for (int i = 0; i < 2; ++i) {
        if (done_[i]) cudaEventDestroy(done_[i]);
        if (staging_[i]) cudaFreeHost(staging_[i]);
    }
}

void Uploader::copy(void* dst, const void* src, std::size_t bytes) {
    auto* d = static_cast<std::uint8_t*>(dst);
    const auto* s = static_cast<const std::uint8_t*>(src);
    for (std::size_t off = 0; off < bytes; off += chunk_) {
        const std::size_t n = std::min(chunk_, bytes - off);
        const int b = next_;
        next_ ^= 1;
        check(cudaEventSynchronize(done_[b]), "upload wait");  // the copy that last used this buffer is done
        std::memcpy(staging_[b], s + off, n);
        check(cudaMemcpyAsync(d + off, staging_[b], n, cudaMemcpyHostToDevice, stream_), "upload copy");
        check(cudaEventRecord(done_[b], stream_), "upload event");
    }
    bytes_ += bytes;
}

void Uploader::finish() { check(cudaStreamSynchronize(stream_), "upload"); }

// ---- Linear ----

Linear::Linear(VramBudget& vram, cudaStream_t stream, exec::GemmPrecision precision, std::int64_t max_m,
               std::int64_t max_k)
    : stream_(stream), precision_(precision), max_m_(max_m), max_k_(max_k) {
    check(cublasCreate(&blas_), "cublasCreate");
    check(cublasSetStream(blas_, stream_), "cublasSetStream");
    const std::size_t elem = precision_ == exec::GemmPrecision::bf16 ? 2 : 4;
    w_scratch_elems_ = std::size_t(32) << 20;  // 32 Mi elements: a whole attention matrix, LM heads in tiles
    w_scratch_ = vram.alloc(w_scratch_elems_ * elem, VramUse::cublas, "GEMM weight scratch");
    if (precision_ == exec::GemmPrecision::bf16 && max_m_ > kc::kGemvMaxM)
        x_scratch_ = vram.alloc(std::size_t(max_m_) * std::size_t(max_k_) * 2, VramUse::cublas, "GEMM activation scratch");
}

Linear::~Linear() {
    if (blas_) cublasDestroy(blas_);
}

void Linear::run(const DeviceMatrix& w, const float* x, std::int64_t m, std::int64_t ldx, float* y, std::int64_t ldy,
                 bool accumulate) {
    if (m <= 0) return;
    if (m <= kc::kGemvMaxM) {
        kc::GemvParams p;
        p.type = w.type;
        p.w = w.data;
        p.row_bytes = w.row_bytes;
        p.rows = w.rows;
        p.k = w.cols;
        p.m = int(m);
        p.x = x;
        p.ldx = ldx;
        p.y = y;
        p.ldy = ldy;
        p.accumulate = accumulate;
        check(kc::gemv(p, stream_), "GEMV");
        ++launches_;
        return;
    }
    if (m > max_m_ || w.cols > max_k_)
        throw Error(ErrorCode::internal, fmt::format("linear: {}×{} exceeds the scratch of {}×{}", m, w.cols, max_m_, max_k_));
    const bool bf16 = precision_ == exec::GemmPrecision::bf16;
    const DType wt = bf16 ? DType::BF16 : DType::F32;
    const void* xb = x;
    std::int64_t ldb = ldx;
    if (bf16) {
        // Activations to BF16, packed [m, cols].
        auto* xs = static_cast<std::uint16_t*>(x_scratch_.get());
        const std::int64_t pieces = ldx == w.cols ? 1 : m;
        for (std::int64_t r = 0; r < pieces; ++r) {
            check(kc::convert_f32(x + r * ldx, pieces == 1 ? m * w.cols : w.cols, DType::BF16, xs + r * w.cols, stream_),
                  "convert activations");
            ++launches_;
        }
        xb = x_scratch_.get();
        ldb = w.cols;
    }
    const float alpha = 1.f, beta = accumulate ? 1.f : 0.f;
    const std::int64_t tile = std::max<std::int64_t>(1, std::int64_t(w_scratch_elems_) / w.cols);
    for (std::int64_t r0 = 0; r0 < w.rows; r0 += tile) {
        const std::int64_t n = std::min(tile, w.rows - r0);
        check(kc::dequantize_rows(w.type, static_cast<const std::uint8_t*>(w.data) + std::size_t(r0) * w.row_bytes,
                                  w.row_bytes, n, w.cols, wt, w_scratch_.get(), stream_),
              "dequantize weights");
        ++launches_;
        // Column-major view: C (n × m, ldc = ldy) = Aᵀ (A: cols × n) · B (cols × m).
        const cudaDataType at = bf16 ? CUDA_R_16BF : CUDA_R_32F;
        check(cublasGemmEx(blas_, CUBLAS_OP_T, CUBLAS_OP_N, int(n), int(m), int(w.cols), &alpha, w_scratch_.get(), at,
                           int(w.cols), xb, at, int(ldb), &beta, y + r0, CUDA_R_32F, int(ldy), CUBLAS_COMPUTE_32F,
                           CUBLAS_GEMM_DEFAULT),
              "cublasGemmEx");
        ++launches_;
    }
}

const void* Linear::dense_weights(const DeviceMatrix& w) {
    if (std::size_t(w.rows) * std::size_t(w.cols) > w_scratch_elems_)
        throw Error(ErrorCode::internal, fmt::format("dense_weights: {}×{} exceeds the weight scratch", w.rows, w.cols));
    check(kc::dequantize_rows(w.type, w.data, w.row_bytes, w.rows, w.cols, dense_type(), w_scratch_.get(), stream_),
          "dequantize weights");
    ++launches_;
    return w_scratch_.get();
}

void Linear::gemm_dense(DType type, const void* w, std::int64_t rows, std::int64_t cols, const void* x, std::int64_t ldx,
                        std::int64_t m, float* y, std::int64_t ldy, bool accumulate) {
    if (m <= 0 || rows <= 0) return;
    if (type != DType::BF16 && type != DType::F32) throw Error(ErrorCode::internal, "gemm_dense: BF16 or F32 operands only");
    const float alpha = 1.f, beta = accumulate ? 1.f : 0.f;
    const cudaDataType t = type == DType::BF16 ? CUDA_R_16BF : CUDA_R_32F;
    check(cublasGemmEx(blas_, CUBLAS_OP_T, CUBLAS_OP_N, int(rows), int(m), int(cols), &alpha, w, t, int(cols), x, t, int(ldx),
                       &beta, y, CUDA_R_32F, int(ldy), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx");
    ++launches_;
}

}  // namespace ft::gpu
