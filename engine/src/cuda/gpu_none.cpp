// gpu.h for builds without CUDA (FT_CUDA=OFF).
#include "ft/gpu.h"

namespace ft {

std::vector<GpuInfo> gpu_devices() { return {}; }
std::string gpu_unavailable_reason() { return "this build has no CUDA support (FT_CUDA=OFF)"; }

}  // namespace ft
