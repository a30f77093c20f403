#include <cstdio>

#include "commands.h"
#include "cpu/isa.h"
#include "ft/gpu.h"
#include "ft/paths.h"
#include "ft/utf8.h"
#include "ft/version.h"

namespace ft::cli {

const CommandSpec& spec_info() {
    static const CommandSpec spec{
        "info",
        "",
        "show this build, the GPUs and CPU features found, and where data and logs live",
        "Prints the build configuration, each CUDA device (name, compute capability, memory), the SIMD target the "
        "CPU kernels use, and the per-user data and log folders.",
        {},
        "",
    };
    return spec;
}

int run_info(const Args&) {
    std::printf("ft %s\n", build_description().c_str());
    std::printf("data folder: %s\nlog folder:  %s\n", path_to_utf8(data_dir()).c_str(), path_to_utf8(log_dir()).c_str());
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
