#include "cpu/matmul_int8.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

#include "cpu/x86_features.h"
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

// x quantized to int8 per 32 elements, with what the kernels' offsets need.
struct QuantizedX8 {
    std::vector<std::int8_t> q;       // [k]: x ≈ q · scale
    std::vector<float> scale;         // [k / 32]
    std::vector<float> sum;           // [k / 32]: Σ q · scale, the K-quants' min term
    std::vector<float> qsum16;        // [k / 16]: Σ q per 16 (Q6_K's −32 offset)
    std::vector<std::int32_t> bias32; // [k / 32]: −128 · Σ q per 32 (Q8_0's +128 offset)
    void resize(std::int64_t k) {
        q.resize(std::size_t(k));
        scale.resize(std::size_t(k / 32));
        sum.resize(std::size_t(k / 32));
        qsum16.resize(std::size_t(k / 16));
        bias32.resize(std::size_t(k / 32));
    }
};

}  // namespace

#define FT_I8_NS avx512_vnni
#define FT_I8_ATTR FT_I8_TARGET("avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")
#define FT_I8_DPBUSD _mm256_dpbusd_epi32
#include "cpu/matmul_int8_x86.inc"
#undef FT_I8_NS
#undef FT_I8_ATTR
#undef FT_I8_DPBUSD

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
    return wt == DType::Q4_K || wt == DType::Q5_K || wt == DType::Q6_K || wt == DType::Q8_0 || wt == DType::MXFP4;
}

bool int8_dot_by_default(DType wt) {
    return wt == DType::Q4_K || wt == DType::Q5_K || wt == DType::Q6_K || wt == DType::MXFP4;
}

void set_int8_dot_for_test(Int8Dot path) { selected().store(int(path), std::memory_order_relaxed); }
void reset_int8_dot_for_test() { selected().store(int(best_path()), std::memory_order_relaxed); }

bool matvec_rows_int8(Int8Dot path, DType wt, const void* w, std::size_t row_bytes, std::int64_t k, const float* x,
                      float* y, std::int64_t row_begin, std::int64_t row_end) {
    const bool blocks32 = wt == DType::Q8_0 || wt == DType::MXFP4;  // else 256-element super-blocks
    if (path == Int8Dot::none || !int8_dot_handles(wt) || (!blocks32 && k % 256 != 0) || k % 32 != 0) return false;
#ifdef FT_I8_X86
    static const bool has512 = int8_dot_cpu_supports(Int8Dot::avx512_vnni);
    static const bool has256 = int8_dot_cpu_supports(Int8Dot::avx_vnni);
    if (path == Int8Dot::avx512_vnni && has512) {
        avx512_vnni::matvec_rows(wt, w, row_bytes, k, x, y, row_begin, row_end);
        return true;
    }
    if (path == Int8Dot::avx_vnni && has256) {
        avx_vnni::matvec_rows(wt, w, row_bytes, k, x, y, row_begin, row_end);
        return true;
    }
#else
    (void)row_bytes, (void)x, (void)y, (void)row_begin, (void)row_end, (void)w;
#endif
    return false;
}

}  // namespace ft::kernels::cpu
