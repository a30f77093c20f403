// The x86-64 instruction-set extensions the CPU and the OS support, for the kernels' hand-written x86 paths
// (matmul_int8's VNNI dot products; Highway dispatches its own targets). Read with cpuid and xgetbv through each
// compiler's own intrinsics: <cpuid.h> and inline asm on GCC/Clang (MinGW included), <intrin.h> on MSVC. An
// extension counts only when the OS saves its registers (XCR0), as __builtin_cpu_supports checks. All false on
// other architectures. Computed once; thread-safe.
#pragma once

namespace ft::kernels::cpu {

struct X86Features {
    bool avx2 = false, fma = false, f16c = false;
    bool avx512f = false, avx512bw = false, avx512vl = false, avx512vnni = false;
    bool avxvnni = false;  // AVX-VNNI: VPDPBUSD at 256 bits without AVX-512
};

const X86Features& x86_features();

}  // namespace ft::kernels::cpu
