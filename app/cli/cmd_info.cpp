#include <cstdio>

#include "commands.h"
#include "cpu/isa.h"
#include "ft/gpu.h"
#include "ft/paths.h"
#include "ft/utf8.h"
#include "ft/version.h"
#include "platform/platform.h"

namespace ft::cli {

const CommandSpec& spec_info() {
    static const CommandSpec spec{
        "info",
        "",
        "show this build, the GPUs and CPU features found, and where data and logs live",
        "Prints the build configuration, each CUDA device (name, compute capability, memory), the SIMD target the "
        "CPU kernels use, the per-user data and log folders, how much host memory a GPU may page-lock and, on "
        "Windows, whether paths of more than 260 characters work (the executable's longPathAware manifest and the "
        "LongPathsEnabled policy).",
        {},
        "",
    };
    return spec;
}

int run_info(const Args&) {
    std::printf("ft %s\n", build_description().c_str());
    std::printf("data folder: %s\nlog folder:  %s\n", path_to_utf8(data_dir()).c_str(), path_to_utf8(log_dir()).c_str());
    const double ram_gib = double(platform::physical_memory_bytes()) / 1073741824.0;
    if (const std::uint64_t pin = platform::pinnable_memory_bytes())
        std::printf("pinnable:    %.1f GiB of %.1f GiB RAM (the GPU may page-lock half the RAM on Windows; "
                    "--pin-budget's default)\n", double(pin) / 1073741824.0, ram_gib);
    else
        std::printf("pinnable:    all of %.1f GiB RAM (no cap of the OS; --pin-budget sets one)\n", ram_gib);
    if (const auto lp = platform::long_path_support()) {
        // Windows: a path of more than 260 characters (a model in a deep folder) opens only with both in place.
        if (!lp->declared)
            std::printf("long paths:  not declared by this executable (no longPathAware manifest): paths of more than "
                        "260 characters fail\n");
        else if (!lp->enabled)
            std::printf("long paths:  longPathAware (manifest), LongPathsEnabled off: paths of more than 260 characters "
                        "fail until the policy is on (HKLM\\SYSTEM\\CurrentControlSet\\Control\\FileSystem "
                        "LongPathsEnabled = 1, or the group policy \"Enable Win32 long paths\")\n");
        else
            std::printf("long paths:  longPathAware (manifest), LongPathsEnabled on: paths of more than 260 characters work\n");
    }
    std::printf("CPU SIMD:    %s (compiled:", kernels::cpu::isa_selected().c_str());
    for (const auto& t : kernels::cpu::isa_compiled()) std::printf(" %s", t.c_str());
    std::printf(")\n");
    const auto gpus = gpu_devices();
    if (gpus.empty()) std::printf("GPUs:        none: CPU-only mode, %s\n", gpu_unavailable_reason().c_str());
    for (const auto& g : gpus) {
        std::printf("GPU %d:       %s, sm_%d%d, %d SMs, %.1f GiB (%.1f GiB free), driver %d.%d\n", g.index,
                    g.name.c_str(), g.cc_major, g.cc_minor, g.multiprocessors, g.total_bytes / 1073741824.0,
                    g.free_bytes / 1073741824.0, g.driver_version / 1000, (g.driver_version % 1000) / 10);
    }
    return 0;
}

}  // namespace ft::cli
