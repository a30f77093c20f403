// Test-only kernel (test_cuda_attention): writes rows into a buffer late in a programmatic-launch chain. It is
// launched as a programmatic dependent and lets its own dependent launch at once, then waits `delay_ns` before its
// stores, so a dependent kernel that reads those rows before its griddepcontrol.wait sees the old values.
#include "late_row_write.h"

#include <cstdint>

#include <cuda_fp16.h>

#include "cuda/launch.cuh"

namespace ft::test {
namespace {

__global__ void late_row_write_kernel(const float* __restrict__ k_rows, const float* __restrict__ v_rows, int n_rows,
                                      int row_floats, const long long* __restrict__ at, void* k_dst, void* v_dst, bool f16,
                                      long long delay_ns) {
    ft::kernels::cuda::pdl_enter();  // (the dependent may launch from here)
    if (threadIdx.x == 0) {
        unsigned long long t0, t;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
        do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        while (t - t0 < static_cast<unsigned long long>(delay_ns));
    }
    __syncthreads();
    const bool v = int(blockIdx.x) >= n_rows;  // blocks [0, n): K rows; [n, 2n): V rows
    const int r = v ? int(blockIdx.x) - n_rows : int(blockIdx.x);
    const float* src = (v ? v_rows : k_rows) + std::int64_t(r) * row_floats;
    void* dst = v ? v_dst : k_dst;
    for (int c = int(threadIdx.x); c < row_floats; c += int(blockDim.x)) {
        if (f16) static_cast<__half*>(dst)[at[r] + c] = __float2half_rn(src[c]);
        else static_cast<float*>(dst)[at[r] + c] = src[c];
    }
}

}  // namespace

cudaError_t late_row_write(const float* k_rows, const float* v_rows, int n_rows, int row_floats, const long long* at,
                           void* k_dst, void* v_dst, bool f16, long long delay_ns, cudaStream_t stream) {
    if (n_rows <= 0) return cudaSuccess;
    return ft::kernels::cuda::launch_pdl(late_row_write_kernel, dim3(unsigned(2 * n_rows)), dim3(128), 0, stream, k_rows,
                                         v_rows, n_rows, row_floats, at, k_dst, v_dst, f16, delay_ns);
}

}  // namespace ft::test
