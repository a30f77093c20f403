#include "cpu/x86_features.h"

#include <cstdint>

#if defined(_MSC_VER) && !defined(__clang__) && defined(_M_X64)
#include <intrin.h>
#define FT_X86_MSVC 1
#elif (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#include <cpuid.h>
#define FT_X86_GNU 1
#endif

namespace ft::kernels::cpu {

namespace {

#if defined(FT_X86_MSVC) || defined(FT_X86_GNU)
struct Regs {
    std::uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0;
};

Regs cpuid(std::uint32_t leaf, std::uint32_t sub) {
    Regs r;
#if defined(FT_X86_MSVC)
    int v[4];
    __cpuidex(v, int(leaf), int(sub));
    r.eax = std::uint32_t(v[0]), r.ebx = std::uint32_t(v[1]), r.ecx = std::uint32_t(v[2]), r.edx = std::uint32_t(v[3]);
#else
    __cpuid_count(leaf, sub, r.eax, r.ebx, r.ecx, r.edx);
#endif
    return r;
}

std::uint64_t xcr0() {
#if defined(FT_X86_MSVC)
    return _xgetbv(0);
#else
    std::uint32_t lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (std::uint64_t(hi) << 32) | lo;
#endif
}

bool bit(std::uint32_t reg, int n) { return (reg >> n) & 1u; }

X86Features detect() {
    X86Features f;
    const std::uint32_t max_leaf = cpuid(0, 0).eax;
    if (max_leaf < 1) return f;
    const Regs l1 = cpuid(1, 0);
    if (!bit(l1.ecx, 27) || !bit(l1.ecx, 28)) return f;  // OSXSAVE and AVX
    const std::uint64_t xcr = xcr0();
    const bool os_avx = (xcr & 0x6) == 0x6;        // XMM and YMM state
    const bool os_avx512 = (xcr & 0xE6) == 0xE6;   // + opmask, ZMM_Hi256, Hi16_ZMM
    if (!os_avx || max_leaf < 7) return f;
    const Regs l7 = cpuid(7, 0);
    f.fma = bit(l1.ecx, 12);
    f.f16c = bit(l1.ecx, 29);
    f.avx2 = bit(l7.ebx, 5);
    if (os_avx512) {
        f.avx512f = bit(l7.ebx, 16);
        f.avx512bw = bit(l7.ebx, 30);
        f.avx512vl = bit(l7.ebx, 31);
        f.avx512vnni = bit(l7.ecx, 11);
    }
    if (l7.eax >= 1) f.avxvnni = bit(cpuid(7, 1).eax, 4);
    return f;
}
#else
X86Features detect() { return {}; }
#endif

}  // namespace

const X86Features& x86_features() {
    static const X86Features f = detect();
    return f;
}

}  // namespace ft::kernels::cpu
