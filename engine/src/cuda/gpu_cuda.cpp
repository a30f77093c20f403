// gpu.h with the CUDA runtime. Static properties are read once per process; free memory is read at every call
// (the desktop app polls it every second).
#include <cuda_runtime_api.h>

#include <mutex>
#include <string>

#include "ft/gpu.h"

namespace ft {

namespace {

struct Probe {
    cudaError_t error = cudaSuccess;
    std::vector<GpuInfo> devices;  // without free_bytes
};

const Probe& probe() {
    static std::once_flag once;
    static Probe p;
    std::call_once(once, [] {
        int count = 0;
        p.error = cudaGetDeviceCount(&count);
        if (p.error != cudaSuccess) {
            cudaGetLastError();  // clear the sticky "no driver" error
            return;
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
            int mem_khz = 0, bus_bits = 0;  // double data rate: two transfers per clock
            if (cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, i) == cudaSuccess &&
                cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, i) == cudaSuccess)
                g.mem_gbps = 2.0 * double(mem_khz) * 1e3 * double(bus_bits) / 8.0 / 1e9;
            g.driver_version = driver;
            g.runtime_version = runtime;
            p.devices.push_back(std::move(g));
        }
    });
    return p;
}

}  // namespace

std::vector<GpuInfo> gpu_devices() {
    std::vector<GpuInfo> out = probe().devices;
    int prev = 0;
    if (!out.empty()) cudaGetDevice(&prev);
    for (GpuInfo& g : out) {
        size_t free_b = 0, total_b = 0;
        if (cudaSetDevice(g.index) == cudaSuccess && cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) g.free_bytes = free_b;
    }
    if (!out.empty()) cudaSetDevice(prev);
    return out;
}

namespace {

std::string cuda_version(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

}  // namespace

Message gpu_unavailable_message() {
    const Probe& p = probe();
    if (p.error == cudaSuccess && !p.devices.empty()) return {};
    if (p.error == cudaErrorNoDevice || (p.error == cudaSuccess && p.devices.empty())) return {"no_gpu", {}};
    if (p.error == cudaErrorInsufficientDriver) {
        int driver = 0, runtime = 0;
        cudaDriverGetVersion(&driver);  // 0 when no driver is installed at all
        cudaRuntimeGetVersion(&runtime);
        if (driver == 0) return {"no_driver", {}};
        return {"driver_too_old", {cuda_version(driver), cuda_version(runtime)}};
    }
    return {"cuda_unusable", {cudaGetErrorString(p.error)}};
}

std::string gpu_unavailable_reason() {
    const Message m = gpu_unavailable_message();
    if (m.key.empty()) return {};
    if (m.key == "no_gpu") return "no NVIDIA GPU found";
    if (m.key == "no_driver") return "no NVIDIA driver found (install the NVIDIA driver to use the GPU)";
    if (m.key == "driver_too_old")
        return "the NVIDIA driver supports CUDA " + m.args[0] + ", older than this build's CUDA " + m.args[1] +
               " (update the NVIDIA driver to use the GPU)";
    return "CUDA is not usable: " + m.args[0];
}

}  // namespace ft
