// gpu.h with the CUDA runtime.
#include <cuda_runtime_api.h>

#include "ft/gpu.h"

namespace ft {

std::vector<GpuInfo> gpu_devices() {
    std::vector<GpuInfo> out;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();  // clear the sticky "no driver" error
        return out;
    }
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    for (int i = 0; i < count; ++i) {
        cudaDeviceProp prop{};
        if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
        GpuInfo g;
        g.index = i;
        g.name = prop.name;
        g.cc_major = prop.major;
        g.cc_minor = prop.minor;
        g.multiprocessors = prop.multiProcessorCount;
        g.total_bytes = prop.totalGlobalMem;
        g.pci_bus = prop.pciBusID;
        g.driver_version = driver;
        g.runtime_version = runtime;
        int prev = 0;
        cudaGetDevice(&prev);
        size_t free_b = 0, total_b = 0;
        if (cudaSetDevice(i) == cudaSuccess && cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) g.free_bytes = free_b;
        cudaSetDevice(prev);
        out.push_back(std::move(g));
    }
    return out;
}

std::string gpu_unavailable_reason() {
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaSuccess && count > 0) return {};
    cudaGetLastError();
    if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0)) return "no CUDA device found";
    if (err == cudaErrorInsufficientDriver) return "the NVIDIA driver is older than this build's CUDA runtime";
    return std::string("CUDA is not usable: ") + cudaGetErrorString(err);
}

}  // namespace ft
