// GPU discovery. Works in every build: a CPU-only build (FT_CUDA=OFF) or a machine without a driver/GPU simply
// reports no devices, with the reason in `gpu_unavailable_reason()`. Thread-safe; results are not cached.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ft/message.h"

namespace ft {

struct GpuInfo {
    int index = 0;
    std::string name;            // "NVIDIA H200"
    int cc_major = 0, cc_minor = 0;
    int multiprocessors = 0;
    std::uint64_t total_bytes = 0;
    std::uint64_t free_bytes = 0;
    int pci_bus = 0;
    double mem_gbps = 0;         // peak memory bandwidth from the memory clock and bus width (GB/s; 0: unknown)
    int driver_version = 0;      // e.g. 13000 for CUDA 13.0
    int runtime_version = 0;
};

std::vector<GpuInfo> gpu_devices();
// Why gpu_devices() is empty: "built without CUDA", "no CUDA driver", "no CUDA device", … ; empty when it is not.
std::string gpu_unavailable_reason();
// The same as a key for translating front ends: "no_cuda_build", "no_gpu", "no_driver", "driver_too_old" {the
// driver's CUDA version, this build's}, "cuda_unusable" {CUDA's error text}; empty when there is a GPU.
Message gpu_unavailable_message();

}  // namespace ft
