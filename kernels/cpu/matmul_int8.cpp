#include "cpu/matmul_int8.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

#include "cpu/x86_features.h"
#include "ref/iq_grids.h"
#include "ref/quant.h"

// The x86 paths are written with intrinsics. GCC and Clang (MinGW included) compile each path for its own ISA with
// a target attribute; MSVC compiles any intrinsic without one, so there the attribute is empty. Which path runs is
// decided at run time from cpuid (x86_features) on every compiler.
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define FT_I8_X86 1
#define FT_I8_TARGET(isa) __attribute__((target(isa)))
#include <immintrin.h>
#elif defined(_MSC_VER) && defined(_M_X64)
#define FT_I8_X86 1
#define FT_I8_TARGET(isa)
#include <immintrin.h>
#endif

namespace ft::kernels::cpu {

#ifdef FT_I8_X86
namespace {

using QuantizedX8 = Int8Activation;

// The IQ types' 7 stored sign bits (the eighth implied by parity, kIqSigns) as 8 bytes of +1 / −1, for VPSIGNB.
struct IqSignBytes {
    std::uint64_t v[128] = {};
    constexpr IqSignBytes() {
        for (int s = 0; s < 128; ++s)
            for (int j = 0; j < 8; ++j) v[s] |= std::uint64_t((ft::kernels::ref::kIqSigns[s] >> j) & 1 ? 0xFF : 0x01) << (8 * j);
    }
};
constexpr IqSignBytes kIqSignBytes{};
// 8 stored sign bits (IQ2_S, IQ3_S) as 8 bytes of +1 / −1.
struct SignBytes {
    std::uint64_t v[256] = {};
    constexpr SignBytes() {
        for (int s = 0; s < 256; ++s)
            for (int j = 0; j < 8; ++j) v[s] |= std::uint64_t((s >> j) & 1 ? 0xFF : 0x01) << (8 * j);
    }
};
constexpr SignBytes kSignBytes{};
void size_for(std::int64_t k, QuantizedX8& x) {
    x.k = k;
    x.q.resize(std::size_t(k));
    x.scale.resize(std::size_t(k / 32));
    x.sum.resize(std::size_t(k / 32));
    x.qsum16.resize(std::size_t(k / 16));
    x.bias32.resize(std::size_t(k / 32));
}

}  // namespace

#define FT_I8_NS avx512_vnni
#define FT_I8_ATTR FT_I8_TARGET("avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")
#define FT_I8_DPBUSD _mm256_dpbusd_epi32
#define FT_I8_512 1
#include "cpu/matmul_int8_x86.inc"
#undef FT_I8_NS
#undef FT_I8_ATTR
#undef FT_I8_DPBUSD
#undef FT_I8_512

#define FT_I8_NS avx_vnni
#define FT_I8_ATTR FT_I8_TARGET("avx2,fma,f16c,avxvnni")
#define FT_I8_DPBUSD _mm256_dpbusd_avx_epi32
#include "cpu/matmul_int8_x86.inc"
#undef FT_I8_NS
#undef FT_I8_ATTR
#undef FT_I8_DPBUSD
#endif

namespace {

Int8Dot best_path() {
#ifdef FT_I8_X86
    if (int8_dot_cpu_supports(Int8Dot::avx512_vnni)) return Int8Dot::avx512_vnni;
    if (int8_dot_cpu_supports(Int8Dot::avx_vnni)) return Int8Dot::avx_vnni;
#endif
    return Int8Dot::none;
}

std::atomic<int>& selected() {
    static std::atomic<int> path{int(best_path())};
    return path;
}

}  // namespace

bool int8_dot_cpu_supports(Int8Dot path) {
#ifdef FT_I8_X86
    const X86Features& f = x86_features();
    const bool avx2 = f.avx2 && f.fma && f.f16c;
    switch (path) {
        case Int8Dot::avx512_vnni: return avx2 && f.avx512f && f.avx512bw && f.avx512vl && f.avx512vnni;
        case Int8Dot::avx_vnni: return avx2 && f.avxvnni;
        case Int8Dot::none: return true;
    }
#endif
    return path == Int8Dot::none;
}

Int8Dot int8_dot_selected() { return Int8Dot(selected().load(std::memory_order_relaxed)); }

const char* int8_dot_name(Int8Dot path) {
    switch (path) {
        case Int8Dot::avx512_vnni: return "AVX512-VNNI";
        case Int8Dot::avx_vnni: return "AVX-VNNI";
        case Int8Dot::none: break;
    }
    return "none";
}

bool int8_dot_handles(DType wt) {
    return int8_dot_by_default(wt) || wt == DType::Q8_0;
}

bool int8_dot_by_default(DType wt) {
    switch (wt) {
        case DType::Q2_K: case DType::Q3_K: case DType::Q4_K: case DType::Q5_K: case DType::Q6_K:
        case DType::IQ4_NL: case DType::IQ4_XS: case DType::MXFP4: case DType::Q4_0: case DType::Q4_1: case DType::Q5_0:
        case DType::Q5_1: case DType::TQ1_0: case DType::TQ2_0: case DType::IQ2_XXS: case DType::IQ2_XS: case DType::IQ2_S:
        case DType::IQ3_XXS: case DType::IQ3_S: case DType::IQ1_S: case DType::IQ1_M: case DType::FT_NVFP4:
            return true;
        default:
            return false;
    }
}

void set_int8_dot_for_test(Int8Dot path) { selected().store(int(path), std::memory_order_relaxed); }
void reset_int8_dot_for_test() { selected().store(int(best_path()), std::memory_order_relaxed); }

namespace {

bool takes(Int8Dot path, DType wt, std::int64_t k) {
    // else 256-element super-blocks
    const bool blocks32 = wt == DType::Q8_0 || wt == DType::MXFP4 || wt == DType::IQ4_NL || wt == DType::Q4_0 ||
                          wt == DType::Q4_1 || wt == DType::Q5_0 || wt == DType::Q5_1;
    const std::int64_t block = blocks32 ? 32 : wt == DType::FT_NVFP4 ? 64 : 256;
    return path != Int8Dot::none && int8_dot_handles(wt) && k % block == 0 &&
           int8_dot_cpu_supports(path);
}

}  // namespace

bool int8_quantize(Int8Dot path, const float* x, std::int64_t k, Int8Activation& out) {
    if (path == Int8Dot::none || k % 32 != 0 || !int8_dot_cpu_supports(path)) return false;
#ifdef FT_I8_X86
    size_for(k, out);
    out.path = path;
    if (path == Int8Dot::avx512_vnni) avx512_vnni::quantize(x, k, out);
    else avx_vnni::quantize(x, k, out);
    return true;
#else
    (void)x, (void)out;
    return false;
#endif
}

bool matvec_rows_int8_quantized(DType wt, const void* w, std::size_t row_bytes, const Int8Activation& x, float* y,
                                std::int64_t row_begin, std::int64_t row_end) {
    if (!takes(x.path, wt, x.k)) return false;
#ifdef FT_I8_X86
    if (x.path == Int8Dot::avx512_vnni) avx512_vnni::matvec_rows(wt, w, row_bytes, x.k, x, y, row_begin, row_end);
    else avx_vnni::matvec_rows(wt, w, row_bytes, x.k, x, y, row_begin, row_end);
    return true;
#else
    (void)row_bytes, (void)y, (void)row_begin, (void)row_end, (void)w;
    return false;
#endif
}

bool matvec_rows_int8(Int8Dot path, DType wt, const void* w, std::size_t row_bytes, std::int64_t k, const float* x,
                      float* y, std::int64_t row_begin, std::int64_t row_end) {
    if (!takes(path, wt, k)) return false;
    thread_local Int8Activation xq;
    return int8_quantize(path, x, k, xq) && matvec_rows_int8_quantized(wt, w, row_bytes, xq, y, row_begin, row_end);
}

}  // namespace ft::kernels::cpu
