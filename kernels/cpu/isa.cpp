#include "cpu/isa.h"

#include <hwy/highway.h>
#include <hwy/targets.h>

namespace ft::kernels::cpu {

std::string isa_selected() {
    const int64_t supported = hwy::SupportedTargets();
    for (int64_t bit = 1; bit != 0 && bit <= supported; bit <<= 1) {
        if ((supported & bit) && (HWY_TARGETS & bit)) return hwy::TargetName(bit);
    }
    return "unknown";
}

std::vector<std::string> isa_compiled() {
    std::vector<std::string> out;
    for (int64_t t : hwy::SupportedAndGeneratedTargets()) out.emplace_back(hwy::TargetName(t));
    return out;
}

}  // namespace ft::kernels::cpu
