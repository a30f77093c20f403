// Which SIMD target the CPU kernels dispatch to on this machine ("AVX3_ZEN4", "AVX3", "AVX2", "EMU128", …).
#pragma once

#include <string>
#include <vector>

namespace ft::kernels::cpu {

std::string isa_selected();
std::vector<std::string> isa_compiled();  // every target this build carries

}  // namespace ft::kernels::cpu
