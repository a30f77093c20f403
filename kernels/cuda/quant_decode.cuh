// Device-side decoding of the quantized weight formats into floats, 8 consecutive elements of a row at a time (the
// unit every format keeps inside one block and, for the K-quants, one sub-block: one scale). Values are computed as
// the reference does (kernels/ref/quant.cpp: same operation order, no fused multiply-add), so they are bit-identical
// to ref::dequantize_row. Used by the whole-matrix dequantization (dequant.cu), the grouped expert GEMM (moe_gemm.cu)
// and the decode GEMV of the types without a vector unit (gemv.cu; the vector units are at the end of this file). Formats (byte loads: any alignment): F32,
// F16, BF16, Q8_0, Q4_K, Q5_K, Q6_K, MXFP4 and the decode-only types of FT_CUDA_DECODE_ONLY_TYPES (the legacy, IQ,
// ternary and 2-/3-bit K-quant formats).
#pragma once

#include <cstdint>
#include <cstring>

#include <cuda_fp16.h>

#include "ref/dtype.h"
#include "ref/iq_grids.h"
#include "ref/quant.h"

namespace ft::kernels::cuda::quant {

// The IQ lattice grids and sign table in device memory (read through the read-only cache), one copy per translation
// unit.
#define FT_IQ_TABLE(type, name, count) static __device__ const type name[count]
#include "ref/iq_grids.inc"
#undef FT_IQ_TABLE
// IQ4_NL's 16 code values (ref::kIq4nlValues) packed 8 to a word at compile time.
constexpr std::uint64_t iq4nl_word(int half) {
    std::uint64_t w = 0;
    for (int i = 0; i < 8; ++i) w |= std::uint64_t(std::uint8_t(ref::kIq4nlValues[8 * half + i])) << (8 * i);
    return w;
}
__device__ __forceinline__ float iq4nl(std::uint32_t code) {
    constexpr std::uint64_t kLo = iq4nl_word(0), kHi = iq4nl_word(1);
    return float(std::int8_t(std::uint8_t(((code < 8 ? kLo : kHi) >> (8 * (code & 7))) & 0xFF)));
}

// Types decoded only through decode8 (no GEMV unit of their own): one list for every dispatch.
#define FT_CUDA_DECODE_ONLY_TYPES(X)                                                                              \
    X(Q4_0) X(Q4_1) X(Q5_0) X(Q5_1) X(IQ4_NL) X(IQ4_XS) X(Q2_K) X(Q3_K) X(TQ1_0) X(TQ2_0) X(IQ2_XXS) X(IQ2_XS) X(IQ2_S) \
        X(IQ3_XXS) X(IQ3_S) X(IQ1_S) X(IQ1_M)

__host__ __device__ constexpr bool decode_only(DType t) {
#define FT_X(T) t == DType::T ||
    return FT_CUDA_DECODE_ONLY_TYPES(FT_X) false;
#undef FT_X
}

__device__ __forceinline__ std::uint32_t lb(const std::uint8_t* p) { return __ldg(p); }
__device__ __forceinline__ std::uint32_t lu16(const std::uint8_t* p) { return lb(p) | (lb(p + 1) << 8); }
__device__ __forceinline__ float h2f(std::uint32_t h) { return __half2float(__ushort_as_half((unsigned short)h)); }
__device__ __forceinline__ std::uint32_t lu32(const std::uint8_t* p) { return lu16(p) | (lu16(p + 2) << 16); }
template <class T>
__device__ __forceinline__ T tab(const T* table, std::uint32_t i) { return __ldg(table + i); }

// Nibble i (0..31) of a 32-element block's 16 code bytes: low nibbles first (as Q4_0).
__device__ __forceinline__ std::uint32_t nib(const std::uint8_t* qs, int i) {
    return i < 16 ? (lb(qs + i) & 0xF) : (lb(qs + i - 16) >> 4);
}
// Q2_K / Q3_K / TQ2_0 2-bit code of element e of a 256 block.
__device__ __forceinline__ std::uint32_t code2(const std::uint8_t* qs, int e) {
    const int h = e / 128, w = e % 128;
    return (lb(qs + 32 * h + w % 32) >> (2 * (w / 32))) & 3;
}
// ±t: the lattice types multiply by a sign of ±1, which is exact.
__device__ __forceinline__ float signed_by(float t, std::uint32_t signs, int j) { return (signs >> j) & 1 ? -t : t; }

// Block geometry of the decode-only types (ref/quant.h's layouts).
template <DType T>
struct BlockOf;
#define FT_BLOCK(T, B, E)                                                                                          \
    template <>                                                                                                    \
    struct BlockOf<DType::T> {                                                                                     \
        static constexpr int kElems = E, kBytes = int(sizeof(ref::B));                                             \
    };
FT_BLOCK(Q4_0, BlockQ4_0, 32) FT_BLOCK(Q4_1, BlockQ4_1, 32) FT_BLOCK(Q5_0, BlockQ5_0, 32) FT_BLOCK(Q5_1, BlockQ5_1, 32) FT_BLOCK(IQ4_NL, BlockIq4Nl, 32)
FT_BLOCK(IQ4_XS, BlockIq4Xs, 256) FT_BLOCK(Q2_K, BlockQ2_K, 256) FT_BLOCK(Q3_K, BlockQ3_K, 256)
FT_BLOCK(TQ1_0, BlockTq1_0, 256) FT_BLOCK(TQ2_0, BlockTq2_0, 256) FT_BLOCK(IQ2_XXS, BlockIq2Xxs, 256)
FT_BLOCK(IQ2_XS, BlockIq2Xs, 256) FT_BLOCK(IQ2_S, BlockIq2S, 256) FT_BLOCK(IQ3_XXS, BlockIq3Xxs, 256)
FT_BLOCK(IQ3_S, BlockIq3S, 256) FT_BLOCK(IQ1_S, BlockIq1S, 256) FT_BLOCK(IQ1_M, BlockIq1M, 256)
#undef FT_BLOCK

// decode8 of the decode-only types: elements [e0, e0 + 8) of a row (e0 a multiple of 8), as ref::dequantize_row.
template <DType T>
__device__ void decode8_more(const std::uint8_t* row, std::int64_t e0, float* v) {
    const std::uint8_t* blk = row + (e0 / BlockOf<T>::kElems) * BlockOf<T>::kBytes;
    if constexpr (T == DType::Q4_0 || T == DType::Q4_1 || T == DType::Q5_0 || T == DType::Q5_1 || T == DType::IQ4_NL) {
        const int j0 = int(e0 % 32);
        const float d = h2f(lu16(blk));
        if constexpr (T == DType::Q4_0) {
#pragma unroll
            for (int i = 0; i < 8; ++i) v[i] = __fmul_rn(d, float(int(nib(blk + 2, j0 + i)) - 8));
        } else if constexpr (T == DType::IQ4_NL) {
#pragma unroll
            for (int i = 0; i < 8; ++i)
                v[i] = __fmul_rn(d, iq4nl(nib(blk + 2, j0 + i)));
        } else if constexpr (T == DType::Q4_1) {
            const float m = h2f(lu16(blk + 2));
#pragma unroll
            for (int i = 0; i < 8; ++i) v[i] = __fadd_rn(__fmul_rn(float(nib(blk + 4, j0 + i)), d), m);
        } else {
            constexpr bool q51 = T == DType::Q5_1;
            const std::uint32_t qh = lu32(blk + (q51 ? 4 : 2));
            const std::uint8_t* qs = blk + (q51 ? 8 : 6);
#pragma unroll
            for (int i = 0; i < 8; ++i) {
                const int q = int(nib(qs, j0 + i) | (((qh >> (j0 + i)) & 1) << 4));
                v[i] = q51 ? __fadd_rn(__fmul_rn(float(q), d), h2f(lu16(blk + 2))) : __fmul_rn(float(q - 16), d);
            }
        }
    } else if constexpr (T == DType::IQ4_XS) {
        const int e = int(e0 % 256), s = e / 32;
        const int ls = int(((lb(blk + 4 + s / 2) >> (4 * (s % 2))) & 0xF) | (((lu16(blk + 2) >> (2 * s)) & 3) << 4));
        const float dl = __fmul_rn(h2f(lu16(blk)), float(ls - 32));
        const std::uint8_t* qs = blk + 8 + 16 * s;
#pragma unroll
        for (int i = 0; i < 8; ++i)
            v[i] = __fmul_rn(dl, iq4nl(nib(qs, e % 32 + i)));
    } else if constexpr (T == DType::Q2_K) {
        const int e = int(e0 % 256);
        const std::uint32_t sc = lb(blk + e / 16);
        const float dl = __fmul_rn(h2f(lu16(blk + 80)), float(sc & 0xF)), ml = __fmul_rn(h2f(lu16(blk + 82)), float(sc >> 4));
#pragma unroll
        for (int i = 0; i < 8; ++i) v[i] = __fsub_rn(__fmul_rn(dl, float(code2(blk + 16, e + i))), ml);
    } else if constexpr (T == DType::Q3_K) {
        const int e = int(e0 % 256), j = e / 16, h = e / 128, w = e % 128;
        const std::uint8_t* s = blk + 96;
        const int low = int(j < 8 ? (lb(s + j) & 0xF) : (lb(s + j - 8) >> 4));
        const int high = int((lb(s + 8 + j % 4) >> (2 * (j / 4))) & 3);
        const float dl = __fmul_rn(h2f(lu16(blk + 108)), float((low | high << 4) - 32));
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            const int hb = int((lb(blk + w % 32 + i) >> (4 * h + w / 32)) & 1);
            v[i] = __fmul_rn(dl, float(int(code2(blk + 32, e + i)) - (hb ? 0 : 4)));
        }
    } else if constexpr (T == DType::TQ2_0) {
        const int e = int(e0 % 256);
        const float d = h2f(lu16(blk + 64));
#pragma unroll
        for (int i = 0; i < 8; ++i) v[i] = __fmul_rn(float(int(code2(blk, e + i)) - 1), d);
    } else if constexpr (T == DType::TQ1_0) {
        // Digit n of a byte: the integer part of 3 · frac(byte · 3^n / 256), in 8-bit arithmetic (ref::tq1_digit).
        const int e = int(e0 % 256);
        const float d = h2f(lu16(blk + 52));
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            const int x = e + i;
            std::uint32_t byte;
            int n;
            if (x < 160) {
                byte = lb(blk + x % 32);
                n = x / 32;
            } else if (x < 240) {
                byte = lb(blk + 32 + (x - 160) % 16);
                n = (x - 160) / 16;
            } else {
                byte = lb(blk + 48 + (x - 240) % 4);
                n = (x - 240) / 4;
            }
            const std::uint32_t pow3 = n == 0 ? 1 : n == 1 ? 3 : n == 2 ? 9 : n == 3 ? 27 : 81;
            const std::uint32_t q = (byte * pow3) & 0xFF;
            v[i] = __fmul_rn(float(int((q * 3) >> 8) - 1), d);
        }
    } else if constexpr (T == DType::IQ2_XXS) {
        const int e = int(e0 % 256), s = e / 32, l = (e % 32) / 8;
        const std::uint8_t* q8 = blk + 2;
        const std::uint32_t aux = lu32(q8 + 8 * s + 4);
        const float db = __fmul_rn(__fmul_rn(h2f(lu16(blk)), __fadd_rn(0.5f, float(aux >> 28))), 0.25f);
        const std::uint64_t g = tab(k_iq2xxs_grid, lb(q8 + 8 * s + l));
        const std::uint32_t signs = tab(kIqSigns, (aux >> (7 * l)) & 127);
#pragma unroll
        for (int i = 0; i < 8; ++i) v[i] = signed_by(__fmul_rn(db, float(std::uint32_t(g >> (8 * i)) & 0xFF)), signs, i);
    } else if constexpr (T == DType::IQ2_XS || T == DType::IQ2_S) {
        constexpr bool xs = T == DType::IQ2_XS;
        const int e = int(e0 % 256), s = e / 32, l = (e % 32) / 8;
        const std::uint32_t sc = lb(blk + (xs ? 66 : 74) + s);
        const float db = __fmul_rn(__fmul_rn(h2f(lu16(blk)), __fadd_rn(0.5f, float(l < 2 ? (sc & 0xF) : (sc >> 4)))), 0.25f);
        std::uint64_t g;
        std::uint32_t signs;
        if constexpr (xs) {
            const std::uint32_t q = lu16(blk + 2 + 2 * (4 * s + l));
            g = tab(k_iq2xs_grid, q & 511);
            signs = tab(kIqSigns, q >> 9);
        } else {
            g = tab(k_iq2s_grid, lb(blk + 2 + 4 * s + l) | (((lb(blk + 66 + s) >> (2 * l)) & 3) << 8));
            signs = lb(blk + 2 + 32 + 4 * s + l);
        }
#pragma unroll
        for (int i = 0; i < 8; ++i) v[i] = signed_by(__fmul_rn(db, float(std::uint32_t(g >> (8 * i)) & 0xFF)), signs, i);
    } else if constexpr (T == DType::IQ3_XXS) {
        const int e = int(e0 % 256), s = e / 32, l = (e % 32) / 8;
        const std::uint8_t* idx = blk + 2;
        const std::uint32_t aux = lu32(blk + 2 + 64 + 4 * s);
        const float db = __fmul_rn(__fmul_rn(h2f(lu16(blk)), __fadd_rn(0.5f, float(aux >> 28))), 0.5f);
        const std::uint32_t signs = tab(kIqSigns, (aux >> (7 * l)) & 127);
        const std::uint32_t g0 = tab(k_iq3xxs_grid, lb(idx + 8 * s + 2 * l)), g1 = tab(k_iq3xxs_grid, lb(idx + 8 * s + 2 * l + 1));
#pragma unroll
        for (int i = 0; i < 8; ++i)
            v[i] = signed_by(__fmul_rn(db, float(((i < 4 ? g0 : g1) >> (8 * (i % 4))) & 0xFF)), signs, i);
    } else if constexpr (T == DType::IQ3_S) {
        const int e = int(e0 % 256), s = e / 32, l = (e % 32) / 8;
        const std::uint32_t scb = lb(blk + 106 + s / 2);
        const int sc = int(s % 2 == 0 ? (scb & 0xF) : (scb >> 4));
        const float db = __fmul_rn(h2f(lu16(blk)), float(1 + 2 * sc));
        const std::uint32_t qh = lb(blk + 66 + s);
        const std::uint32_t i0 = lb(blk + 2 + 8 * s + 2 * l) | (((qh >> (2 * l)) & 1) << 8);
        const std::uint32_t i1 = lb(blk + 2 + 8 * s + 2 * l + 1) | (((qh >> (2 * l + 1)) & 1) << 8);
        const std::uint32_t signs = lb(blk + 74 + 4 * s + l);
        const std::uint32_t g0 = tab(k_iq3s_grid, i0), g1 = tab(k_iq3s_grid, i1);
#pragma unroll
        for (int i = 0; i < 8; ++i)
            v[i] = signed_by(__fmul_rn(db, float(((i < 4 ? g0 : g1) >> (8 * (i % 4))) & 0xFF)), signs, i);
    } else if constexpr (T == DType::IQ1_S || T == DType::IQ1_M) {
        constexpr bool m = T == DType::IQ1_M;
        const int e = int(e0 % 256), s = e / 32, l = (e % 32) / 8;
        float dl, delta;
        std::uint32_t idx;
        if constexpr (m) {
            // The f16 super-scale is spread over the top nibbles of the four 16-bit scale words.
            const std::uint8_t* sc = blk + 48;
            const std::uint32_t d16 = (lu16(sc) >> 12) | ((lu16(sc + 2) >> 8) & 0x00F0) | ((lu16(sc + 4) >> 4) & 0x0F00) |
                                      (lu16(sc + 6) & 0xF000);
            const std::uint32_t w = lu16(sc + 2 * (s / 2));
            dl = __fmul_rn(h2f(d16), float(2 * int((w >> (6 * (s % 2) + 3 * (l / 2))) & 7) + 1));
            const std::uint32_t qh = lb(blk + 32 + 2 * s + l / 2) >> (4 * (l % 2));
            idx = lb(blk + 4 * s + l) | ((qh & 7) << 8);
            delta = (qh & 8) ? -0.125f : 0.125f;
        } else {
            const std::uint32_t qh = lu16(blk + 34 + 2 * s);
            dl = __fmul_rn(h2f(lu16(blk)), float(2 * int((qh >> 12) & 7) + 1));
            delta = (qh & 0x8000) ? -0.125f : 0.125f;
            idx = lb(blk + 2 + 4 * s + l) | (((qh >> (3 * l)) & 7) << 8);
        }
        const std::uint64_t g = tab(k_iq1s_grid, idx);
#pragma unroll
        for (int i = 0; i < 8; ++i) v[i] = __fmul_rn(dl, __fadd_rn(float(std::int8_t(std::uint8_t(g >> (8 * i)))), delta));
    }
}

// 8 elements [e0, e0 + 8) of a row (e0 a multiple of 8, n = how many of them exist for the plain types).
template <DType T>
__device__ void decode8(const std::uint8_t* row, std::int64_t e0, int n, float* v) {
    if constexpr (decode_only(T)) {
        decode8_more<T>(row, e0, v);
    } else if constexpr (T == DType::F32) {
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            const std::uint8_t* p = row + 4 * (e0 + i);
            v[i] = i < n ? __uint_as_float(lu16(p) | (lu16(p + 2) << 16)) : 0.f;
        }
    } else if constexpr (T == DType::F16) {
#pragma unroll
        for (int i = 0; i < 8; ++i) v[i] = i < n ? h2f(lu16(row + 2 * (e0 + i))) : 0.f;
    } else if constexpr (T == DType::BF16) {
#pragma unroll
        for (int i = 0; i < 8; ++i) v[i] = i < n ? __uint_as_float(lu16(row + 2 * (e0 + i)) << 16) : 0.f;
    } else if constexpr (T == DType::Q8_0) {
        const std::uint8_t* blk = row + (e0 / 32) * 34;
        const float d = h2f(lu16(blk));
        const std::uint8_t* qs = blk + 2 + e0 % 32;
#pragma unroll
        for (int i = 0; i < 8; ++i) v[i] = __fmul_rn(d, float(std::int8_t(lb(qs + i))));
    } else if constexpr (T == DType::Q4_K || T == DType::Q5_K) {
        constexpr bool q5 = T == DType::Q5_K;
        const std::uint8_t* blk = row + (e0 / 256) * (q5 ? 176 : 144);
        const int e = int(e0 % 256), j = e / 32, c = e / 64, w = e % 64;
        const std::uint8_t* s = blk + 4;
        std::uint32_t sc, mn;
        if (j < 4) {
            sc = lb(s + j) & 63;
            mn = lb(s + j + 4) & 63;
        } else {
            sc = (lb(s + j + 4) & 0xF) | ((lb(s + j - 4) >> 6) << 4);
            mn = (lb(s + j + 4) >> 4) | ((lb(s + j) >> 6) << 4);
        }
        const float ds = __fmul_rn(h2f(lu16(blk)), float(sc)), dm = __fmul_rn(h2f(lu16(blk + 2)), float(mn));
        const std::uint8_t* qs = blk + (q5 ? 48 : 16) + 32 * c + w % 32;
        const int shift = w < 32 ? 0 : 4;
        const int hbit = 2 * c + (w < 32 ? 0 : 1);
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            int q = int((lb(qs + i) >> shift) & 0xF);
            if constexpr (q5) q |= int((lb(blk + 16 + w % 32 + i) >> hbit) & 1) << 4;
            v[i] = __fsub_rn(__fmul_rn(ds, float(q)), dm);
        }
    } else if constexpr (T == DType::MXFP4) {
        // 2^(e-128) · the doubled E2M1 value (ref::dequant_mxfp4): elements j < 16 in the low nibbles of qs[j],
        // j ≥ 16 in the high nibbles of qs[j - 16]; 8 elements never straddle the halves.
        const std::uint8_t* blk = row + (e0 / 32) * 17;
        const std::uint32_t e = lb(blk);
        const float d = __uint_as_float(e < 2 ? (0x00200000u << e) : ((e - 1) << 23));
        const int j0 = int(e0 % 32);
        const std::uint8_t* qs = blk + 1 + (j0 & 15);
        const int shift = j0 < 16 ? 0 : 4;
        constexpr float kVal[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};
#pragma unroll
        for (int i = 0; i < 8; ++i) v[i] = __fmul_rn(d, kVal[(lb(qs + i) >> shift) & 0xF]);
    } else {  // Q6_K
        const std::uint8_t* blk = row + (e0 / 256) * 210;
        const int e = int(e0 % 256), hq = e / 128, w = e % 128, kq = w / 32, l = w % 32;
        const float dsc = __fmul_rn(h2f(lu16(blk + 208)), float(std::int8_t(lb(blk + 192 + e / 16))));
        const std::uint8_t* ql = blk + 64 * hq + l + 32 * (kq & 1);
        const std::uint8_t* qh = blk + 128 + 32 * hq + l;
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            const std::uint32_t lo = lb(ql + i);
            const int q = int((kq < 2 ? (lo & 0xF) : (lo >> 4)) | (((lb(qh + i) >> (2 * kq)) & 3) << 4));
            v[i] = __fmul_rn(dsc, float(q - 32));
        }
    }
}


// ---------------------------------------------------------------- vector units of the decode-only types
// The decode GEMV's per-lane work for the types below (gemv.cu, Unit<T>): a lane takes 32 elements of a row, the
// unit u (u ≡ lane mod 32): a whole 32-element block (Q4_0, Q5_0, IQ4_NL) or a 32-element part of a 256-element
// super-block (8 lanes per block, v = lane & 7). A unit's bytes arrive as 32-bit words from a loader (the kernel's
// aligned loads, or memcpy in a host check) and are decoded a word at a time: integer code values per byte, turned
// into floats by the exponent trick (byte b → 2^23 + b, minus 2^23, exact), summed against x per part of 16 elements
// and scaled once per part or unit. The value of one element, scale · code (− min), is the reference's
// (kernels/ref/quant.cpp) to f32 rounding of the product; the scale itself is computed as the reference does.
// Everything below the loaders is __host__ __device__ so that a CPU check can run the same arithmetic.
namespace vec {

#if defined(__CUDA_ARCH__)
__device__ __forceinline__ std::uint32_t prmt(std::uint32_t a, std::uint32_t b, std::uint32_t s) {
    // PTX prmt.b32 default mode: selector nibble n picks byte (s >> 4n) & 7 of {b, a}; bit 3 set makes the byte the
    // picked byte's sign bit replicated (0x00 or 0xFF).
    std::uint32_t r;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(s));
    return r;
}
#else
inline std::uint32_t prmt(std::uint32_t a, std::uint32_t b, std::uint32_t s) {
    const std::uint64_t src = std::uint64_t(a) | (std::uint64_t(b) << 32);
    std::uint32_t r = 0;
    for (int n = 0; n < 4; ++n) {
        const std::uint32_t sel = (s >> (4 * n)) & 0xF;
        std::uint32_t byte = std::uint32_t(src >> (8 * (sel & 7))) & 0xFF;
        if (sel & 8) byte = (byte & 0x80) ? 0xFF : 0x00;
        r |= byte << (8 * n);
    }
    return r;
}
#endif

__host__ __device__ inline float bits_f(std::uint32_t u) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#else
    float f;
    std::memcpy(&f, &u, 4);
    return f;
#endif
}
__host__ __device__ inline float f16(std::uint32_t h) {
#if defined(__CUDA_ARCH__)
    return __half2float(__ushort_as_half((unsigned short)(h & 0xFFFF)));
#else
    return ref::f16_to_f32(std::uint16_t(h & 0xFFFF));
#endif
}
__host__ __device__ inline float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}
__host__ __device__ inline float add_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
    return __fadd_rn(a, b);
#else
    return a + b;
#endif
}
__host__ __device__ inline std::uint32_t popc(std::uint32_t v) {
#if defined(__CUDA_ARCH__)
    return std::uint32_t(__popc(v));
#else
    return std::uint32_t(__builtin_popcount(v));
#endif
}
constexpr float kMagic = 8388608.f;  // 2^23
// Byte e (0..3) of w as the float 2^23 + byte (on the device one byte permute).
__host__ __device__ inline float magic(std::uint32_t w, int e) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(__byte_perm(w, 0x4B000000u, 0x7440u | std::uint32_t(e)));
#else
    return bits_f(0x4B000000u | ((w >> (8 * e)) & 0xFF));
#endif
}
// Bytes 0..3 of w (codes offset by `bias`, i.e. stored as value + bias) against x: Σ (byte − bias) · x.
__host__ __device__ inline float dot4b(std::uint32_t w, float bias, float4 x, float acc) {
    const float m = kMagic + bias;
    acc = fmaf(magic(w, 0) - m, x.x, acc);
    acc = fmaf(magic(w, 1) - m, x.y, acc);
    acc = fmaf(magic(w, 2) - m, x.z, acc);
    return fmaf(magic(w, 3) - m, x.w, acc);
}
// 4 bits (bit i of b, b < 16) to bit 0 of byte i.
__host__ __device__ inline std::uint32_t spread4(std::uint32_t b) { return (b * 0x00204081u) & 0x01010101u; }
// Bytes of w (each 1..127) negated where the matching bit of the 4-bit sign mask is set (two's complement per byte:
// ~v + 1 stays inside the byte for v ≥ 1), then offset by 128 (stored as value ^ 0x80).
__host__ __device__ inline std::uint32_t signed_bytes(std::uint32_t w, std::uint32_t signs4) {
    const std::uint32_t one = spread4(signs4), m = one * 0xFFu;
    return ((w ^ m) + one) ^ 0x80808080u;
}
// IQ2/IQ3 sign byte of 7 stored bits: the eighth is their parity (ref::kIqSigns).
__host__ __device__ inline std::uint32_t iq_signs(std::uint32_t s7) { return s7 | ((popc(s7) & 1u) << 7); }

// IQ4_NL / IQ4_XS values of the 4 nibbles in bits 0..15 of s (nibble n → byte n), as value ^ 0x80. Codes 0-7 are the
// negative half of ref::kIq4nlValues, 8-15 the positive half: A looks up the low table (codes ≥ 8 give 0x00: its
// bytes' sign bits are clear), B the high table with bit 3 flipped (codes < 8 give 0x00), and bit 7 (set for codes
// ≥ 8 only) comes from C, 0x80 or 0xFF per byte.
constexpr std::uint32_t iq4_table(int half, int word) {
    std::uint32_t w = 0;
    for (int i = 0; i < 4; ++i) {
        const int v = ref::kIq4nlValues[8 * half + 4 * word + i];
        w |= std::uint32_t(half ? v : (v + 128)) << (8 * i);  // low half: value + 128 (1..118), high half: value
    }
    return w;
}
__host__ __device__ inline std::uint32_t iq4_values(std::uint32_t s) {
    constexpr std::uint32_t kL0 = iq4_table(0, 0), kL1 = iq4_table(0, 1), kH0 = iq4_table(1, 0), kH1 = iq4_table(1, 1);
    const std::uint32_t a = prmt(kL0, kL1, s), b = prmt(kH0, kH1, s ^ 0x8888u), c = prmt(0x80808080u, 0x80808080u, s);
    return a | b | ((c << 7) & 0x80808080u);
}
// Σ over the 8 nibbles of a 16-byte-block word q (bytes 4i..4i+3 of the block's code bytes: low nibbles elements
// 4i..4i+3, high nibbles 16 + 4i..) of value · x; xl = x[4i..4i+3], xh = x[16 + 4i..].
__host__ __device__ inline float iq4_dot_word(std::uint32_t q, float4 xl, float4 xh, float acc) {
    const std::uint32_t a = iq4_values(q), b = iq4_values(q >> 16);  // a: elements 4i, 16+4i, 4i+1, 17+4i
    constexpr float m = kMagic + 128.f;
    acc = fmaf(magic(a, 0) - m, xl.x, acc);
    acc = fmaf(magic(a, 1) - m, xh.x, acc);
    acc = fmaf(magic(a, 2) - m, xl.y, acc);
    acc = fmaf(magic(a, 3) - m, xh.y, acc);
    acc = fmaf(magic(b, 0) - m, xl.z, acc);
    acc = fmaf(magic(b, 1) - m, xh.z, acc);
    acc = fmaf(magic(b, 2) - m, xl.w, acc);
    return fmaf(magic(b, 3) - m, xh.w, acc);
}
// Bytes 2 + 4i .. 5 + 4i of the bytes held by words w[0 ..] (fields after a 2-byte f16).
__host__ __device__ inline std::uint32_t at2(const std::uint32_t* w, int i) {
#if defined(__CUDA_ARCH__)
    return __byte_perm(w[i], w[i + 1], 0x5432);
#else
    return (w[i] >> 16) | (w[i + 1] << 16);
#endif
}

// Each unit type (a unit is two parts of 16 elements): kBytes, kPerBlock (units per block: 1 or 8), kGroups (scales
// per unit: 1, or 2 = one per part), kMin (a min term per scale, − min · Σx), struct W (one row's decoded state),
// load(ld, blk, v) (ld.template get<N>(p, out) fills (N + 3) / 4 words with bytes p[0 .. N)), xslot(v, part, t) (the
// float4 of x, counted from the unit's block start, that t = 0..3 of the part pairs with), dot(w, part, x[4])
// (Σ code · x over the part, unscaled; IQ1's δ · Σx included), scale(w, g), min(w, g).

// Q4_0: {f16 d; u8 qs[16]}: element j < 16 low nibble of qs[j], j ≥ 16 high nibble of qs[j − 16]; d · (q − 8).
// Part p: qs words 2p, 2p + 1 → elements 8p + [0, 8) and 16 + 8p + [0, 8): x float4 2p, 2p + 1, 4 + 2p, 5 + 2p.
struct Q4_0 {
    static constexpr int kBytes = 18, kPerBlock = 1, kGroups = 1;
    static constexpr bool kMin = false;
    struct W { std::uint32_t q[4]; float d; };
    template <class L>
    __host__ __device__ static W load(const L& ld, const std::uint8_t* blk, int) {
        std::uint32_t o[5];
        ld.template get<18>(blk, o);
        W w;
        for (int i = 0; i < 4; ++i) w.q[i] = at2(o, i);
        w.d = f16(o[0]);
        return w;
    }
    __host__ __device__ static int xslot(int, int part, int t) { return 2 * part + (t & 1) + 4 * (t >> 1); }
    __host__ __device__ static float dot(const W& w, int part, const float4* x) {
        float s = 0.f;
        for (int i = 0; i < 2; ++i) {
            const std::uint32_t q = w.q[2 * part + i];
            s = dot4b(q & 0x0F0F0F0Fu, 8.f, x[i], s);
            s = dot4b((q >> 4) & 0x0F0F0F0Fu, 8.f, x[2 + i], s);
        }
        return s;
    }
    __host__ __device__ static float scale(const W& w, int) { return w.d; }
    __host__ __device__ static float min(const W&, int) { return 0.f; }
};

// Q5_0: {f16 d; u32 qh; u8 qs[16]}: Q4_0's nibbles plus bit j of qh as bit 4; d · (q − 16).
struct Q5_0 {
    static constexpr int kBytes = 22, kPerBlock = 1, kGroups = 1;
    static constexpr bool kMin = false;
    struct W { std::uint32_t q[4]; std::uint32_t qh; float d; };
    template <class L>
    __host__ __device__ static W load(const L& ld, const std::uint8_t* blk, int) {
        std::uint32_t o[6];
        ld.template get<22>(blk, o);
        W w;
        w.qh = at2(o, 0);
        for (int i = 0; i < 4; ++i) w.q[i] = at2(o, i + 1);
        w.d = f16(o[0]);
        return w;
    }
    __host__ __device__ static int xslot(int, int part, int t) { return Q4_0::xslot(0, part, t); }
    __host__ __device__ static float dot(const W& w, int part, const float4* x) {
        float s = 0.f;
        for (int i = 0; i < 2; ++i) {
            const int wi = 2 * part + i;
            const std::uint32_t q = w.q[wi];
            const std::uint32_t lo = (q & 0x0F0F0F0Fu) | (spread4((w.qh >> (4 * wi)) & 0xF) << 4);
            const std::uint32_t hi = ((q >> 4) & 0x0F0F0F0Fu) | (spread4((w.qh >> (16 + 4 * wi)) & 0xF) << 4);
            s = dot4b(lo, 16.f, x[i], s);
            s = dot4b(hi, 16.f, x[2 + i], s);
        }
        return s;
    }
    __host__ __device__ static float scale(const W& w, int) { return w.d; }
    __host__ __device__ static float min(const W&, int) { return 0.f; }
};

// IQ4_NL: {f16 d; u8 qs[16]}, Q4_0's nibble layout, d · kIq4nlValues[q].
struct Iq4Nl {
    static constexpr int kBytes = 18, kPerBlock = 1, kGroups = 1;
    static constexpr bool kMin = false;
    using W = Q4_0::W;
    template <class L>
    __host__ __device__ static W load(const L& ld, const std::uint8_t* blk, int v) { return Q4_0::load(ld, blk, v); }
    __host__ __device__ static int xslot(int, int part, int t) { return Q4_0::xslot(0, part, t); }
    __host__ __device__ static float dot(const W& w, int part, const float4* x) {
        float s = iq4_dot_word(w.q[2 * part], x[0], x[2], 0.f);
        return iq4_dot_word(w.q[2 * part + 1], x[1], x[3], s);
    }
    __host__ __device__ static float scale(const W& w, int) { return w.d; }
    __host__ __device__ static float min(const W&, int) { return 0.f; }
};

// IQ4_XS: {f16 d; u16 scales_h; u8 scales_l[4]; u8 qs[128]}: sub-block v (32 elements) has qs[16v .. 16v + 16) in
// IQ4_NL's layout and the 6-bit scale ls = scales_l nibble v | 2 bits v of scales_h << 4; d · (ls − 32) · value.
struct Iq4Xs {
    static constexpr int kBytes = 136, kPerBlock = 8, kGroups = 1;
    static constexpr bool kMin = false;
    using W = Q4_0::W;
    template <class L>
    __host__ __device__ static W load(const L& ld, const std::uint8_t* blk, int v) {
        std::uint32_t h[2];
        ld.template get<8>(blk, h);
        W w;
        ld.template get<16>(blk + 8 + 16 * v, w.q);
        const int ls = int(((h[1] >> (4 * v)) & 0xF) | (((h[0] >> (16 + 2 * v)) & 3) << 4));
        w.d = mul_rn(f16(h[0]), float(ls - 32));
        return w;
    }
    __host__ __device__ static int xslot(int v, int part, int t) { return 8 * v + Q4_0::xslot(0, part, t); }
    __host__ __device__ static float dot(const W& w, int part, const float4* x) {
        float s = iq4_dot_word(w.q[2 * part], x[0], x[2], 0.f);
        return iq4_dot_word(w.q[2 * part + 1], x[1], x[3], s);
    }
    __host__ __device__ static float scale(const W& w, int) { return w.d; }
    __host__ __device__ static float min(const W&, int) { return 0.f; }
};

// Q2_K {u8 scales[16]; u8 qs[64]; f16 d, dmin} and Q3_K {u8 hmask[32]; u8 qs[64]; u8 scales[12]; f16 d}: element
// 128h + 32sh + l (l < 32) has the 2 bits sh of qs[32h + l] (Q3_K: and bit 4h + sh of hmask[l]); scale/min index
// j = e / 16. Lane v = 4h + 2q + p takes code bytes 32h + 16q + [0, 16) at shifts sh = 2p (part 0) and 2p + 1
// (part 1): elements 128h + 32sh + 16q + [0, 16), one scale (j = 8h + 2sh + q) per part.
__host__ __device__ inline int k23_slot(int v, int part, int t) {
    const int h = v >> 2, q = (v >> 1) & 1, sh = 2 * (v & 1) + part;
    return 32 * h + 8 * sh + 4 * q + t;
}
struct Q2_K {
    static constexpr int kBytes = 84, kPerBlock = 8, kGroups = 2;
    static constexpr bool kMin = true;
    // c: the code bytes shifted to sh = 2p (bits 0-1 part 0, 2-3 part 1); sc: the two scale bytes at bits 0 and 16;
    // dd: d and dmin. Scales are decoded where used (fewer registers per row).
    struct W { std::uint32_t c[4], sc, dd; };
    template <class L>
    __host__ __device__ static W load(const L& ld, const std::uint8_t* blk, int v) {
        const int h = v >> 2, q = (v >> 1) & 1, p = v & 1;
        W w;
        ld.template get<16>(blk + 16 + 32 * h + 16 * q, w.c);
        for (int t = 0; t < 4; ++t) w.c[t] = (w.c[t] >> (4 * p)) & 0x0F0F0F0Fu;
        std::uint32_t sc[1], dd[1];
        ld.template get<4>(blk + 8 * h + 4 * p, sc);  // scales j = 8h + 4p + q + {0, 2}: bytes q, q + 2
        ld.template get<4>(blk + 80, dd);
        w.sc = sc[0] >> (8 * q);
        w.dd = dd[0];
        return w;
    }
    __host__ __device__ static int xslot(int v, int part, int t) { return k23_slot(v, part, t); }
    __host__ __device__ static float dot(const W& w, int part, const float4* x) {
        float s = 0.f;
        for (int t = 0; t < 4; ++t) s = dot4b((w.c[t] >> (2 * part)) & 0x03030303u, 0.f, x[t], s);
        return s;
    }
    __host__ __device__ static float scale(const W& w, int g) { return mul_rn(f16(w.dd), float((w.sc >> (16 * g)) & 0xF)); }
    __host__ __device__ static float min(const W& w, int g) {
        return mul_rn(f16(w.dd >> 16), float((w.sc >> (16 * g + 4)) & 0xF));
    }
};
struct Q3_K {
    static constexpr int kBytes = 110, kPerBlock = 8, kGroups = 2;
    static constexpr bool kMin = false;
    // c: per byte, the low 2 bits at shift 2sh for sh = 2p (bits 0-1) and 2p + 1 (bits 2-3), the hmask bits 4h + 2p
    // (bit 4) and 4h + 2p + 1 (bit 5): one word per 4 elements of both parts.
    struct W { std::uint32_t c[4]; float dl[2]; };
    template <class L>
    __host__ __device__ static W load(const L& ld, const std::uint8_t* blk, int v) {
        const int h = v >> 2, q = (v >> 1) & 1, p = v & 1;
        W w;
        std::uint32_t hm[4], qs[4];
        ld.template get<16>(blk + 16 * q, hm);
        ld.template get<16>(blk + 32 + 32 * h + 16 * q, qs);
        for (int t = 0; t < 4; ++t)
            w.c[t] = ((qs[t] >> (4 * p)) & 0x0F0F0F0Fu) | (((hm[t] >> (4 * h + 2 * p)) & 0x03030303u) << 4);
        std::uint32_t s[4];
        ld.template get<14>(blk + 96, s);  // scales[12], d
        const float d = f16(s[3]);
        for (int g = 0; g < 2; ++g) {
            // j = 8h + 2sh + q, sh = 2p + g: low 4 bits in scales[2sh + q] >> 4h, high 2 in scales[8 + 2g + q] >>
            // 2(2h + p).
            const int b = 8 * (2 * g + q);
            const std::uint32_t low = ((p ? s[1] : s[0]) >> (b + 4 * h)) & 0xF;
            const std::uint32_t high = (s[2] >> (b + 2 * (2 * h + p))) & 3;
            w.dl[g] = mul_rn(d, float(int(low | (high << 4)) - 32));
        }
        return w;
    }
    __host__ __device__ static int xslot(int v, int part, int t) { return k23_slot(v, part, t); }
    __host__ __device__ static float dot(const W& w, int part, const float4* x) {
        float s = 0.f;
        for (int t = 0; t < 4; ++t) {
            const std::uint32_t c = w.c[t] >> (2 * part);
            s = dot4b((c & 0x03030303u) | ((c >> (2 - part)) & 0x04040404u), 4.f, x[t], s);
        }
        return s;
    }
    __host__ __device__ static float scale(const W& w, int g) { return w.dl[g]; }
    __host__ __device__ static float min(const W&, int) { return 0.f; }
};

// IQ2_XXS: {f16 d; u8 q[64]}: sub-block v's 8 bytes q[8v ..]: 4 grid indices (bytes 0-3) and a word of four 7-bit
// sign fields and the 4-bit scale (top): db = d · (0.5 + s) · 0.25; group l (8 elements) = db · ±grid[idx l] bytes.
// Part p: groups 2p, 2p + 1.
struct Iq2Xxs {
    static constexpr int kBytes = 66, kPerBlock = 8, kGroups = 1;
    static constexpr bool kMin = false;
    struct W { std::uint32_t idx, aux; float d; };
    template <class L>
    __host__ __device__ static W load(const L& ld, const std::uint8_t* blk, int v) {
        std::uint32_t o[2], dd[1];
        ld.template get<8>(blk + 2 + 8 * v, o);
        ld.template get<2>(blk, dd);
        return W{o[0], o[1], mul_rn(mul_rn(f16(dd[0]), add_rn(0.5f, float(o[1] >> 28))), 0.25f)};
    }
    __host__ __device__ static int xslot(int v, int part, int t) { return 8 * v + 4 * part + t; }
    __host__ __device__ static std::uint64_t grid(std::uint32_t i) {
#if defined(__CUDA_ARCH__)
        return tab(k_iq2xxs_grid, i);
#else
        return ref::k_iq2xxs_grid[i];
#endif
    }
    __host__ __device__ static float dot(const W& w, int part, const float4* x) {
        float s = 0.f;
        for (int i = 0; i < 2; ++i) {
            const int l = 2 * part + i;
            const std::uint64_t g = grid((w.idx >> (8 * l)) & 0xFF);
            const std::uint32_t sg = iq_signs((w.aux >> (7 * l)) & 127);
            s = dot4b(signed_bytes(std::uint32_t(g), sg & 0xF), 128.f, x[2 * i], s);
            s = dot4b(signed_bytes(std::uint32_t(g >> 32), sg >> 4), 128.f, x[2 * i + 1], s);
        }
        return s;
    }
    __host__ __device__ static float scale(const W& w, int) { return w.d; }
    __host__ __device__ static float min(const W&, int) { return 0.f; }
};

// IQ3_XXS: {f16 d; u8 qs[64]; u32 scales_and_signs[8]}: sub-block v: grid indices qs[8v .. 8v + 8) (each 4 values of
// k_iq3xxs_grid), word v: four 7-bit sign fields and the 4-bit scale; db = d · (0.5 + s) · 0.5.
struct Iq3Xxs {
    static constexpr int kBytes = 98, kPerBlock = 8, kGroups = 1;
    static constexpr bool kMin = false;
    struct W { std::uint32_t idx[2], aux; float d; };
    template <class L>
    __host__ __device__ static W load(const L& ld, const std::uint8_t* blk, int v) {
        W w;
        std::uint32_t a[1], dd[1];
        ld.template get<8>(blk + 2 + 8 * v, w.idx);
        ld.template get<4>(blk + 66 + 4 * v, a);
        ld.template get<2>(blk, dd);
        w.aux = a[0];
        w.d = mul_rn(mul_rn(f16(dd[0]), add_rn(0.5f, float(a[0] >> 28))), 0.5f);
        return w;
    }
    __host__ __device__ static int xslot(int v, int part, int t) { return 8 * v + 4 * part + t; }
    __host__ __device__ static std::uint32_t grid(std::uint32_t i) {
#if defined(__CUDA_ARCH__)
        return tab(k_iq3xxs_grid, i);
#else
        return ref::k_iq3xxs_grid[i];
#endif
    }
    __host__ __device__ static float dot(const W& w, int part, const float4* x) {
        float s = 0.f;
        const std::uint32_t idx = w.idx[part];
        for (int i = 0; i < 2; ++i) {
            const int l = 2 * part + i;
            const std::uint32_t sg = iq_signs((w.aux >> (7 * l)) & 127);
            s = dot4b(signed_bytes(grid((idx >> (16 * i)) & 0xFF), sg & 0xF), 128.f, x[2 * i], s);
            s = dot4b(signed_bytes(grid((idx >> (16 * i + 8)) & 0xFF), sg >> 4), 128.f, x[2 * i + 1], s);
        }
        return s;
    }
    __host__ __device__ static float scale(const W& w, int) { return w.d; }
    __host__ __device__ static float min(const W&, int) { return 0.f; }
};

// Q4_1: {f16 d, m; u8 qs[16]} and Q5_1: {f16 d, m; u32 qh; u8 qs[16]}: Q4_0's / Q5_0's codes unsigned, d · q + m (the
// min term: + m · Σx, as min() = −m).
template <bool kQ5>
struct Q41 {
    static constexpr int kBytes = kQ5 ? 24 : 20, kPerBlock = 1, kGroups = 1;
    static constexpr bool kMin = true;
    struct W { std::uint32_t q[4]; std::uint32_t qh, dm; };
    template <class L>
    __host__ __device__ static W load(const L& ld, const std::uint8_t* blk, int) {
        std::uint32_t o[kQ5 ? 6 : 5];
        ld.template get<kBytes>(blk, o);
        W w;
        for (int i = 0; i < 4; ++i) w.q[i] = o[i + (kQ5 ? 2 : 1)];
        w.qh = kQ5 ? o[1] : 0u;
        w.dm = o[0];
        return w;
    }
    __host__ __device__ static int xslot(int, int part, int t) { return Q4_0::xslot(0, part, t); }
    __host__ __device__ static float dot(const W& w, int part, const float4* x) {
        float s = 0.f;
        for (int i = 0; i < 2; ++i) {
            const int wi = 2 * part + i;
            std::uint32_t lo = w.q[wi] & 0x0F0F0F0Fu, hi = (w.q[wi] >> 4) & 0x0F0F0F0Fu;
            if (kQ5) {
                lo |= spread4((w.qh >> (4 * wi)) & 0xF) << 4;
                hi |= spread4((w.qh >> (16 + 4 * wi)) & 0xF) << 4;
            }
            s = dot4b(lo, 0.f, x[i], s);
            s = dot4b(hi, 0.f, x[2 + i], s);
        }
        return s;
    }
    __host__ __device__ static float scale(const W& w, int) { return f16(w.dm); }
    __host__ __device__ static float min(const W& w, int) { return -f16(w.dm >> 16); }
};
using Q4_1 = Q41<false>;
using Q5_1 = Q41<true>;

// TQ2_0: {u8 qs[64]; f16 d}: Q2_K's 2-bit code layout without scales, d · (q − 1); Q2_K's placement.
struct Tq2_0 {
    static constexpr int kBytes = 66, kPerBlock = 8, kGroups = 1;
    static constexpr bool kMin = false;
    struct W { std::uint32_t c[4]; float d; };
    template <class L>
    __host__ __device__ static W load(const L& ld, const std::uint8_t* blk, int v) {
        const int h = v >> 2, q = (v >> 1) & 1, p = v & 1;
        W w;
        ld.template get<16>(blk + 32 * h + 16 * q, w.c);
        for (int t = 0; t < 4; ++t) w.c[t] = (w.c[t] >> (4 * p)) & 0x0F0F0F0Fu;
        std::uint32_t dd[1];
        ld.template get<2>(blk + 64, dd);
        w.d = f16(dd[0]);
        return w;
    }
    __host__ __device__ static int xslot(int v, int part, int t) { return k23_slot(v, part, t); }
    __host__ __device__ static float dot(const W& w, int part, const float4* x) {
        float s = 0.f;
        for (int t = 0; t < 4; ++t) s = dot4b((w.c[t] >> (2 * part)) & 0x03030303u, 1.f, x[t], s);
        return s;
    }
    __host__ __device__ static float scale(const W& w, int) { return w.d; }
    __host__ __device__ static float min(const W&, int) { return 0.f; }
};

// IQ2_XS: {f16 d; u16 qs[32]; u8 scales[8]}: sub-block v: four 16-bit words qs[4v ..] (9-bit k_iq2xs_grid index, 7
// sign bits); groups 0-1 scaled by the low nibble of scales[v], 2-3 by the high one: db = d · (0.5 + nib) · 0.25.
// IQ2_S: {f16 d; u8 qs[64]; u8 qh[8]; u8 scales[8]}: index qs[4v + l] | 2 bits l of qh[v] << 8 (k_iq2s_grid), the 8
// signs in qs[32 + 4v + l]; scales as IQ2_XS. Part p: groups 2p, 2p + 1, one scale.
template <bool kS>
struct Iq2XsS {
    static constexpr int kBytes = kS ? 82 : 74, kPerBlock = 8, kGroups = 2;
    static constexpr bool kMin = false;
    struct W { std::uint32_t q[2]; std::uint32_t hs; float d; };  // IQ2_S: q[0] indices, q[1] signs, hs: qh | sc << 8
    template <class L>
    __host__ __device__ static W load(const L& ld, const std::uint8_t* blk, int v) {
        W w;
        std::uint32_t dd[1], sc[1];
        ld.template get<2>(blk, dd);
        if (kS) {
            std::uint32_t qh[1];
            ld.template get<4>(blk + 2 + 4 * v, w.q);
            ld.template get<4>(blk + 34 + 4 * v, w.q + 1);
            ld.template get<1>(blk + 66 + v, qh);
            ld.template get<1>(blk + 74 + v, sc);
            w.hs = (qh[0] & 0xFF) | ((sc[0] & 0xFF) << 8);
        } else {
            ld.template get<8>(blk + 2 + 8 * v, w.q);
            ld.template get<1>(blk + 66 + v, sc);
            w.hs = (sc[0] & 0xFF) << 8;
        }
        w.d = f16(dd[0]);
        return w;
    }
    __host__ __device__ static int xslot(int v, int part, int t) { return 8 * v + 4 * part + t; }
    __host__ __device__ static std::uint64_t grid(std::uint32_t i) {
#if defined(__CUDA_ARCH__)
        return kS ? tab(k_iq2s_grid, i) : tab(k_iq2xs_grid, i);
#else
        return kS ? ref::k_iq2s_grid[i] : ref::k_iq2xs_grid[i];
#endif
    }
    __host__ __device__ static float dot(const W& w, int part, const float4* x) {
        float s = 0.f;
        for (int i = 0; i < 2; ++i) {
            const int l = 2 * part + i;
            std::uint32_t idx, sg;
            if (kS) {
                idx = ((w.q[0] >> (8 * l)) & 0xFF) | (((w.hs >> (2 * l)) & 3) << 8);
                sg = (w.q[1] >> (8 * l)) & 0xFF;
            } else {
                const std::uint32_t q16 = (w.q[part] >> (16 * i)) & 0xFFFF;
                idx = q16 & 511;
                sg = iq_signs(q16 >> 9);
            }
            const std::uint64_t g = grid(idx);
            s = dot4b(signed_bytes(std::uint32_t(g), sg & 0xF), 128.f, x[2 * i], s);
            s = dot4b(signed_bytes(std::uint32_t(g >> 32), sg >> 4), 128.f, x[2 * i + 1], s);
        }
        return s;
    }
    __host__ __device__ static float scale(const W& w, int g) {
        return mul_rn(mul_rn(w.d, add_rn(0.5f, float((w.hs >> (8 + 4 * g)) & 0xF))), 0.25f);
    }
    __host__ __device__ static float min(const W&, int) { return 0.f; }
};
using Iq2Xs = Iq2XsS<false>;
using Iq2S = Iq2XsS<true>;

// IQ3_S: {f16 d; u8 qs[64]; u8 qh[8]; u8 signs[32]; u8 scales[4]}: sub-block v: group l's two 9-bit k_iq3s_grid
// indices qs[8v + 2l + {0, 1}] | bit 2l + {0, 1} of qh[v] << 8, its 8 signs in signs[4v + l]; db = d · (1 + 2 · nibble v
// of scales).
struct Iq3S {
    static constexpr int kBytes = 110, kPerBlock = 8, kGroups = 1;
    static constexpr bool kMin = false;
    struct W { std::uint32_t idx[2], sg, qh; float d; };
    template <class L>
    __host__ __device__ static W load(const L& ld, const std::uint8_t* blk, int v) {
        W w;
        std::uint32_t dd[1], sg[1], qh[1], sc[1];
        ld.template get<2>(blk, dd);
        ld.template get<8>(blk + 2 + 8 * v, w.idx);
        ld.template get<1>(blk + 66 + v, qh);
        ld.template get<4>(blk + 74 + 4 * v, sg);
        ld.template get<1>(blk + 106 + v / 2, sc);
        w.sg = sg[0];
        w.qh = qh[0] & 0xFF;
        w.d = mul_rn(f16(dd[0]), float(1 + 2 * int((sc[0] >> (4 * (v % 2))) & 0xF)));
        return w;
    }
    __host__ __device__ static int xslot(int v, int part, int t) { return 8 * v + 4 * part + t; }
    __host__ __device__ static std::uint32_t grid(std::uint32_t i) {
#if defined(__CUDA_ARCH__)
        return tab(k_iq3s_grid, i);
#else
        return ref::k_iq3s_grid[i];
#endif
    }
    __host__ __device__ static float dot(const W& w, int part, const float4* x) {
        float s = 0.f;
        for (int i = 0; i < 2; ++i) {
            const int l = 2 * part + i;
            const std::uint32_t b = w.idx[part] >> (16 * i);
            const std::uint32_t i0 = (b & 0xFF) | (((w.qh >> (2 * l)) & 1) << 8);
            const std::uint32_t i1 = ((b >> 8) & 0xFF) | (((w.qh >> (2 * l + 1)) & 1) << 8);
            const std::uint32_t sg = (w.sg >> (8 * l)) & 0xFF;
            s = dot4b(signed_bytes(grid(i0), sg & 0xF), 128.f, x[2 * i], s);
            s = dot4b(signed_bytes(grid(i1), sg >> 4), 128.f, x[2 * i + 1], s);
        }
        return s;
    }
    __host__ __device__ static float scale(const W& w, int) { return w.d; }
    __host__ __device__ static float min(const W&, int) { return 0.f; }
};

// IQ1_S: {f16 d; u8 qs[32]; u16 qh[8]}: sub-block v: word qh[v] (bits 3l..3l+2: index bits 8-10 of group l, 12-14:
// scale, 15: sign of δ); group l = k_iq1s_grid[qs[4v + l] | …] (values −1, 0, 1); x = d · (2s + 1) · (g + δ), δ = ±1/8.
// IQ1_M: {u8 qs[32]; u8 qh[16]; u16 scales[4]}: the f16 d in the top nibbles of the four scale words, 3-bit scales per
// pair of groups (= per part), per group a qh nibble (index bits 8-10, bit 3 the sign of δ). dot adds δ · Σx per group.
template <bool kM>
struct Iq1SM {
    static constexpr int kBytes = kM ? 56 : 50, kPerBlock = 8, kGroups = kM ? 2 : 1;
    static constexpr bool kMin = false;
    struct W { std::uint32_t idx, qh; float dl[kM ? 2 : 1]; };  // IQ1_M qh: the sub-block's two qh bytes
    template <class L>
    __host__ __device__ static W load(const L& ld, const std::uint8_t* blk, int v) {
        W w;
        std::uint32_t q[1], h[1];
        if (kM) {
            std::uint32_t sc[2];
            ld.template get<4>(blk + 4 * v, q);
            ld.template get<2>(blk + 32 + 2 * v, h);
            ld.template get<8>(blk + 48, sc);
            const std::uint32_t d16 = ((sc[0] & 0xFFFF) >> 12) | ((sc[0] >> 24) & 0x00F0) |
                                      (((sc[1] & 0xFFFF) >> 4) & 0x0F00) | ((sc[1] >> 16) & 0xF000);
            const std::uint32_t sw = (v < 4 ? sc[0] : sc[1]) >> (16 * ((v / 2) % 2));
            for (int p = 0; p < (kM ? 2 : 1); ++p)
                w.dl[p] = mul_rn(f16(d16), float(2 * int((sw >> (6 * (v % 2) + 3 * p)) & 7) + 1));
            w.qh = h[0] & 0xFFFF;
        } else {
            std::uint32_t dd[1];
            ld.template get<2>(blk, dd);
            ld.template get<4>(blk + 2 + 4 * v, q);
            ld.template get<2>(blk + 34 + 2 * v, h);
            w.qh = h[0] & 0xFFFF;
            w.dl[0] = mul_rn(f16(dd[0]), float(2 * int((w.qh >> 12) & 7) + 1));
        }
        w.idx = q[0];
        return w;
    }
    __host__ __device__ static int xslot(int v, int part, int t) { return 8 * v + 4 * part + t; }
    __host__ __device__ static float dot(const W& w, int part, const float4* x) {
        float s = 0.f;
        for (int i = 0; i < 2; ++i) {
            const int l = 2 * part + i;
            std::uint32_t idx;
            float delta;
            if (kM) {
                const std::uint32_t nib = (w.qh >> (4 * l)) & 0xF;
                idx = ((w.idx >> (8 * l)) & 0xFF) | ((nib & 7) << 8);
                delta = (nib & 8) ? -0.125f : 0.125f;
            } else {
                idx = ((w.idx >> (8 * l)) & 0xFF) | (((w.qh >> (3 * l)) & 7) << 8);
                delta = (w.qh & 0x8000) ? -0.125f : 0.125f;
            }
#if defined(__CUDA_ARCH__)
            const std::uint64_t g = tab(k_iq1s_grid, idx);
#else
            const std::uint64_t g = ref::k_iq1s_grid[idx];
#endif
            const float4 a = x[2 * i], b = x[2 * i + 1];
            const float sx = ((a.x + a.y) + (a.z + a.w)) + ((b.x + b.y) + (b.z + b.w));
            float t = dot4b(std::uint32_t(g) ^ 0x80808080u, 128.f, a, 0.f);
            t = dot4b(std::uint32_t(g >> 32) ^ 0x80808080u, 128.f, b, t);
            s += fmaf(delta, sx, t);
        }
        return s;
    }
    __host__ __device__ static float scale(const W& w, int g) { return w.dl[kM ? g : 0]; }
    __host__ __device__ static float min(const W&, int) { return 0.f; }
};
using Iq1S = Iq1SM<false>;
using Iq1M = Iq1SM<true>;

// TQ1_0: {u8 qs[48]; u8 qh[4]; f16 d}: element x < 160 is digit x / 32 of qs[x % 32], x < 240 digit (x − 160) / 16 of
// qs[32 + (x − 160) % 16], the last 16 digit (x − 240) / 4 of qh[(x − 240) % 4]; digit n of byte b = the integer part
// of 3 · frac(b · 3^n / 256) (ref::tq1_digit), d · (t − 1). Lane v takes elements 32v + [0, 32): v < 5 digit v of
// qs[0 .. 32); v = 5, 6 digits 2(v − 5) + part of qs[32 .. 48); v = 7 digit 4 of qs[32 .. 48) (part 0) and digits 0-3 of
// qh (part 1, one per float4). Digits are taken 4 bytes at a time in two 16-bit lanes per word (b · 3^n ≤ 20,655).
__host__ __device__ inline std::uint32_t tq1_digits(std::uint32_t w, int n) {
    const std::uint32_t m = std::uint32_t(0x511B090301ull >> (8 * n)) & 0xFF;  // 3^n
    const std::uint32_t e = (((w & 0x00FF00FFu) * m) & 0x00FF00FFu) * 3u;
    const std::uint32_t o = ((((w >> 8) & 0x00FF00FFu) * m) & 0x00FF00FFu) * 3u;
    return ((e >> 8) & 0x00030003u) | (o & 0x03000300u);
}
struct Tq1_0 {
    static constexpr int kBytes = 54, kPerBlock = 8, kGroups = 1;
    static constexpr bool kMin = false;
    struct W { std::uint32_t c[8]; float d; };  // digit bytes of part p, float4 t in c[4p + t]
    template <class L>
    __host__ __device__ static W load(const L& ld, const std::uint8_t* blk, int v) {
        const bool lo = v < 5;
        std::uint32_t a[4], b[4], qh[1], dd[1];
        ld.template get<16>(blk + (lo ? 0 : 32), a);
        ld.template get<16>(blk + (lo ? 16 : 32), b);
        ld.template get<4>(blk + 48, qh);
        ld.template get<2>(blk + 52, dd);
        W w;
        for (int p = 0; p < 2; ++p)
            for (int t = 0; t < 4; ++t) {
                const bool last = v == 7 && p == 1;
                const std::uint32_t src = last ? qh[0] : (p ? b[t] : a[t]);
                const int n = lo ? v : last ? t : v == 7 ? 4 : 2 * (v - 5) + p;
                w.c[4 * p + t] = tq1_digits(src, n);
            }
        w.d = f16(dd[0]);
        return w;
    }
    __host__ __device__ static int xslot(int v, int part, int t) { return 8 * v + 4 * part + t; }
    __host__ __device__ static float dot(const W& w, int part, const float4* x) {
        float s = 0.f;
        for (int t = 0; t < 4; ++t) s = dot4b(w.c[4 * part + t], 1.f, x[t], s);
        return s;
    }
    __host__ __device__ static float scale(const W& w, int) { return w.d; }
    __host__ __device__ static float min(const W&, int) { return 0.f; }
};

}  // namespace vec

}  // namespace ft::kernels::cuda::quant
