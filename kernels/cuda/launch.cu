#include "cuda/launch.cuh"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace ft::kernels::cuda {

bool pdl_enabled() {
    constexpr int kMaxDevices = 64;
    static std::atomic<int> cache[kMaxDevices];  // 0 unknown, 1 off, 2 on
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) return false;
    if (dev >= 0 && dev < kMaxDevices) {
        const int v = cache[dev].load(std::memory_order_relaxed);
        if (v) return v == 2;
    }
    int major = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess) {
        cudaGetLastError();
        major = 0;
    }
    const char* off = std::getenv("FT_NO_PDL");
    const bool on = major >= 9 && !(off && *off && std::strcmp(off, "0") != 0);
    if (dev >= 0 && dev < kMaxDevices) cache[dev].store(on ? 2 : 1, std::memory_order_relaxed);
    return on;
}

}  // namespace ft::kernels::cuda
