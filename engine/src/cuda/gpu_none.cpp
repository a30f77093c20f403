// gpu.h for builds without CUDA (FT_CUDA=OFF).
#include "profile/device_bandwidth.h"
#include "ft/error.h"
#include "ft/gpu.h"
#include "exec/runner.h"

namespace ft {

std::vector<GpuInfo> gpu_devices() { return {}; }
std::string gpu_unavailable_reason() { return "this build has no CUDA support (FT_CUDA=OFF)"; }
Message gpu_unavailable_message() { return {"no_cuda_build", {}}; }

}  // namespace ft

namespace ft::exec {

std::unique_ptr<Runner> make_gpu_runner(const ModelGraph&, const Weights&, const GpuRunnerOptions&) {
    throw Error(ErrorCode::unsupported, "this build has no CUDA support (FT_CUDA=OFF): models run on the CPU",
                "use --device cpu, or build with CUDA");
}

}  // namespace ft::exec

namespace ft::profile {

double device_copy_gbs(int, std::size_t, int) { return 0; }

struct FetchBench::Impl {};
FetchBench::FetchBench(const model::Weights&, int) {
    throw Error(ErrorCode::unsupported, "this build has no CUDA support (FT_CUDA=OFF): no PCIe to measure");
}
FetchBench::~FetchBench() = default;
std::string FetchBench::gpu_name() const { return {}; }
std::pair<std::uint64_t, double> FetchBench::fetch(double, const std::atomic<bool>*) { return {0, 0}; }
double FetchBench::dma_gbs(double) { return 0; }

}  // namespace ft::profile
