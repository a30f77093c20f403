// Programmatic dependent launch (Hopper and later): a kernel launched with `launch_pdl` may start while the kernel
// before it in the stream is still running, so its launch latency and whatever it does before `pdl_enter()` (reading
// weights that no kernel writes) overlap the previous kernel. A kernel launched this way must call `pdl_enter()`
// before it reads anything an earlier kernel writes or writes anything an earlier kernel reads: it waits there until
// the previous grid has completed and its memory is visible, then lets the next dependent kernel launch. Called in a
// kernel launched the ordinary way, `pdl_enter()` returns at once, so both launches of one kernel are correct.
// Before sm_90, and with FT_NO_PDL=1 in the environment (to measure its effect), `launch_pdl` is an ordinary launch.
#pragma once

#include <cstddef>
#include <utility>

#include <cuda_runtime.h>

namespace ft::kernels::cuda {

__device__ __forceinline__ void pdl_enter() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// An L2 prefetch of [p, p + bytes) by the block's threads (128-byte lines); for weights, before pdl_enter().
__device__ __forceinline__ void prefetch_l2(const void* p, std::size_t bytes) {
    const char* c = static_cast<const char*>(p);
    for (std::size_t off = std::size_t(threadIdx.x) * 128; off < bytes; off += std::size_t(blockDim.x) * 128)
        asm volatile("prefetch.global.L2 [%0];" ::"l"(c + off));
}

// Whether the current device takes programmatic launches (compute capability 9.0 or later) and FT_NO_PDL is unset;
// read once per device.
bool pdl_enabled();

template <typename... P, typename... A>
cudaError_t launch_pdl(void (*kernel)(P...), dim3 grid, dim3 block, std::size_t smem, cudaStream_t stream, A&&... args) {
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    if (pdl_enabled()) {
        cfg.attrs = attr;
        cfg.numAttrs = 1;
    }
    const cudaError_t e = cudaLaunchKernelEx(&cfg, kernel, std::forward<A>(args)...);
    const cudaError_t last = cudaGetLastError();  // consumed either way: a failed launch must not fail the next one
    return e != cudaSuccess ? e : last;
}

}  // namespace ft::kernels::cuda
