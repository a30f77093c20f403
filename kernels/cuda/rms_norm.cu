#include "cuda/rms_norm.cuh"
#include "cuda/launch.cuh"

namespace ft::kernels::cuda {

namespace {

constexpr int kBlock = 256;

__global__ void rms_norm_f32_kernel(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y,
                                    std::int64_t n_cols, float eps) {
    pdl_enter();
    const std::int64_t row = blockIdx.x;
    const float* xr = x + row * n_cols;
    float* yr = y + row * n_cols;
    float ss = 0.f;
    for (std::int64_t c = threadIdx.x; c < n_cols; c += blockDim.x) ss += xr[c] * xr[c];
    for (int off = 16; off > 0; off >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, off);
    __shared__ float warp_sums[kBlock / 32];
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = ss;
    __syncthreads();
    if (threadIdx.x < 32) {
        float v = threadIdx.x < (blockDim.x >> 5) ? warp_sums[threadIdx.x] : 0.f;
        for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
        if (threadIdx.x == 0) warp_sums[0] = v;
    }
    __syncthreads();
    const float scale = rsqrtf(warp_sums[0] / float(n_cols) + eps);
    for (std::int64_t c = threadIdx.x; c < n_cols; c += blockDim.x) yr[c] = xr[c] * scale * w[c];
}

}  // namespace

cudaError_t rms_norm_f32(const float* x, const float* w, float* y, std::int64_t n_rows, std::int64_t n_cols, float eps,
                         cudaStream_t stream) {
    if (n_rows <= 0 || n_cols <= 0) return cudaSuccess;
    if (n_rows > 0x7fffffff) return cudaErrorInvalidValue;
    return launch_pdl(rms_norm_f32_kernel, dim3(static_cast<unsigned>(n_rows)), dim3(kBlock), 0, stream, x, w, y, n_cols, eps);
}

}  // namespace ft::kernels::cuda
