#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/matmul.cpp"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cmath>
#include <array>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "cpu/matmul.h"
#include "cpu/matmul_int8.h"
#include "ref/iq_grids.h"
#include "ref/quant.h"

HWY_BEFORE_NAMESPACE();
namespace ft::kernels::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// At most 16 f32 lanes: the block decoders step through 16-element sub-blocks (Q6_K) and 32-element halves.
using DF = hn::CappedTag<float, 16>;
using VF = hn::Vec<DF>;
using DI = hn::Rebind<std::int32_t, DF>;
using DU8 = hn::Rebind<std::uint8_t, DF>;
using DI8 = hn::Rebind<std::int8_t, DF>;

inline float h2f(std::uint16_t h) { return ref::f16_to_f32(h); }

inline void k_scale_min(const std::uint8_t* s, int j, float* sc, float* m) {
    if (j < 4) {
        *sc = float(s[j] & 63);
        *m = float(s[j + 4] & 63);
    } else {
        *sc = float((s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4));
        *m = float((s[j + 4] >> 4) | ((s[j] >> 6) << 4));
    }
}

// Each decoder calls sink(element_offset, weights) with N dequantized weights at a time, in increasing offsets
// within the block. The sink either dots them with activations (matvec) or stores them (dequantize).

template <class Sink>
HWY_INLINE void decode_q8_0(const ref::BlockQ8_0* b, Sink&& sink) {
    const DF df;
    const DI di;
    const DI8 di8;
    const size_t N = hn::Lanes(df);
    const auto d = hn::Set(df, h2f(b->d));
    for (size_t g = 0; g < 32; g += N) sink(g, hn::Mul(hn::ConvertTo(df, hn::PromoteTo(di, hn::LoadU(di8, b->qs + g))), d));
}

template <class Sink>
HWY_INLINE void decode_q4_0(const ref::BlockQ4_0* b, Sink&& sink) {
    const DF df;
    const DI di;
    const DU8 du8;
    const size_t N = hn::Lanes(df);
    // (q - 8) * d in the reference's order: q * d - 8d would give +0 where the reference gives -0 (d < 0).
    const auto d = hn::Set(df, h2f(b->d));
    const auto eight = hn::Set(di, 8);
    for (size_t g = 0; g < 16; g += N) {
        const auto q = hn::PromoteTo(di, hn::LoadU(du8, b->qs + g));
        sink(g, hn::Mul(hn::ConvertTo(df, hn::Sub(hn::And(q, hn::Set(di, 15)), eight)), d));
    }
    for (size_t g = 0; g < 16; g += N) {
        const auto q = hn::PromoteTo(di, hn::LoadU(du8, b->qs + g));
        sink(16 + g, hn::Mul(hn::ConvertTo(df, hn::Sub(hn::ShiftRight<4>(q), eight)), d));
    }
}

template <class Sink>
HWY_INLINE void decode_mxfp4(const ref::BlockMxfp4* b, Sink&& sink) {
    const DF df;
    const size_t N = hn::Lanes(df);
    const float scale = ref::e8m0_to_f32_half(b->e);
    HWY_ALIGN float tmp[32];
    for (int i = 0; i < 16; ++i) {
        tmp[i] = scale * ref::kMxfp4Values[b->qs[i] & 0xF];
        tmp[16 + i] = scale * ref::kMxfp4Values[b->qs[i] >> 4];
    }
    for (size_t g = 0; g < 32; g += N) sink(g, hn::Load(df, tmp + g));
}

// FT_FP8: an E4M3 code's 7 magnitude bits shifted into an f16's exponent and mantissa are its value times 2^-8,
// exactly (subnormals included); times d · 2^8 (exact) that is the reference's one rounding of e4m3 · d. The NaN
// codes (S.1111.111) are put back as NaN. (Exact while d · 2^8 is finite: |d| < 2^120.)
template <class Sink>
HWY_INLINE void decode_ft_fp8(const ref::BlockFtFp8* b, Sink&& sink) {
    const DF df;
    const DI di;
    const DU8 du8;
    const hn::Rebind<std::uint16_t, DF> du16;
    const hn::Rebind<hwy::float16_t, DF> dh;
    const size_t N = hn::Lanes(df);
    float d;
    std::memcpy(&d, b->d, 4);
    const auto vd = hn::Set(df, d * 256.f);
    const auto nan = hn::Set(df, std::numeric_limits<float>::quiet_NaN());
    const auto mag = hn::Set(du16, 0x7F), sign = hn::Set(du16, 0x80);
    for (size_t g = 0; g < 32; g += N) {
        const auto c = hn::PromoteTo(du16, hn::LoadU(du8, b->qs + g));
        const auto m = hn::And(c, mag);
        const auto h = hn::Or(hn::ShiftLeft<8>(hn::And(c, sign)), hn::ShiftLeft<7>(m));
        const auto v = hn::Mul(hn::PromoteTo(df, hn::BitCast(dh, h)), vd);
        const auto is_nan = hn::RebindMask(df, hn::Eq(hn::PromoteTo(di, m), hn::Set(di, 0x7F)));
        sink(g, hn::IfThenElse(is_nan, nan, v));
    }
}

// FT_NVFP4: an E2M1 code's 3 magnitude bits shifted into an f16's exponent and mantissa are its value times 2^-14,
// exactly (its subnormal 0.5 included); times the group scale (e4m3 · s2, rounded as the reference does) · 2^14 that
// is the reference's one rounding of the product. (Exact while the group scale · 2^14 is finite.)
template <class Sink>
HWY_INLINE void decode_ft_nvfp4(const ref::BlockFtNvfp4* b, Sink&& sink) {
    const DF df;
    const DU8 du8;
    const hn::Rebind<std::uint16_t, DF> du16;
    const hn::Rebind<hwy::float16_t, DF> dh;
    const size_t N = hn::Lanes(df);
    float s2;
    std::memcpy(&s2, b->s2, 4);
    HWY_ALIGN std::uint8_t codes[64];
    for (int j = 0; j < 32; ++j) {
        codes[2 * j] = b->qs[j] & 15;
        codes[2 * j + 1] = b->qs[j] >> 4;
    }
    const auto mag = hn::Set(du16, 7), sign = hn::Set(du16, 8);
    for (int g = 0; g < 4; ++g) {
        const auto d = hn::Set(df, ref::kE4m3Values[b->sc[g]] * s2 * 16384.f);
        for (size_t k = 0; k < 16; k += N) {  // N <= 16: a vector stays inside its group
            const auto c = hn::PromoteTo(du16, hn::LoadU(du8, codes + 16 * g + k));
            const auto m = hn::And(c, mag);  // code 8 (-0) is +0 in the reference's table: no sign without magnitude
            const auto h = hn::IfThenZeroElse(hn::Eq(m, hn::Zero(du16)),
                                              hn::Or(hn::ShiftLeft<12>(hn::And(c, sign)), hn::ShiftLeft<9>(m)));
            sink(16 * size_t(g) + k, hn::Mul(hn::PromoteTo(df, hn::BitCast(dh, h)), d));
        }
    }
}

// Q4_1: (q * d) + m; q * d is exact (4-bit code, f16 scale), so the fused form rounds as the reference does.
template <class Sink>
HWY_INLINE void decode_q4_1(const ref::BlockQ4_1* b, Sink&& sink) {
    const DF df;
    const DI di;
    const DU8 du8;
    const size_t N = hn::Lanes(df);
    const auto d = hn::Set(df, h2f(b->d)), m = hn::Set(df, h2f(b->m));
    for (size_t g = 0; g < 16; g += N) {
        const auto q = hn::PromoteTo(di, hn::LoadU(du8, b->qs + g));
        sink(g, hn::MulAdd(hn::ConvertTo(df, hn::And(q, hn::Set(di, 15))), d, m));
    }
    for (size_t g = 0; g < 16; g += N) {
        const auto q = hn::PromoteTo(di, hn::LoadU(du8, b->qs + g));
        sink(16 + g, hn::MulAdd(hn::ConvertTo(df, hn::ShiftRight<4>(q)), d, m));
    }
}

// Q5_0 / Q5_1: the fifth bit of element i is bit i of the 32-bit qh.
template <class Block, class Sink>
HWY_INLINE void decode_q5_01(const Block* b, Sink&& sink) {
    constexpr bool kMin = std::is_same_v<Block, ref::BlockQ5_1>;
    const DF df;
    const DI di;
    const DU8 du8;
    const size_t N = hn::Lanes(df);
    std::uint32_t qh32;
    std::memcpy(&qh32, b->qh, 4);
    const hn::Rebind<std::uint32_t, DF> du32;
    const auto qh = hn::Set(du32, qh32);
    const auto one = hn::Set(du32, 1u);
    const auto d = hn::Set(df, h2f(b->d));
    for (int half = 0; half < 2; ++half) {
        for (size_t g = 0; g < 16; g += N) {
            const auto q8 = hn::PromoteTo(di, hn::LoadU(du8, b->qs + g));
            auto q = half == 0 ? hn::And(q8, hn::Set(di, 15)) : hn::ShiftRight<4>(q8);
            const auto hi = hn::BitCast(di, hn::And(hn::Shr(qh, hn::Iota(du32, std::uint32_t(16 * half + g))), one));
            q = hn::Or(q, hn::ShiftLeft<4>(hi));
            const size_t e = 16 * half + g;
            if constexpr (kMin) sink(e, hn::MulAdd(hn::ConvertTo(df, q), d, hn::Set(df, h2f(b->m))));
            else sink(e, hn::Mul(hn::ConvertTo(df, hn::Sub(q, hn::Set(di, 16))), d));
        }
    }
}

// Q2_K / Q3_K: 2-bit codes (qs[32h + l] >> 2j) & 3 for element 128h + 32j + l; sub-block scales per 16.
template <class Sink>
HWY_INLINE void decode_q2_k(const ref::BlockQ2_K* b, Sink&& sink) {
    const DF df;
    const DI di;
    const DU8 du8;
    const size_t N = hn::Lanes(df);
    const float d = h2f(b->d), dmin = h2f(b->dmin);
    const auto three = hn::Set(di, 3);
    for (int h = 0; h < 2; ++h)
        for (int j = 0; j < 4; ++j)
            for (size_t g = 0; g < 32; g += N) {
                const size_t e = 128 * h + 32 * j + g;
                const std::uint8_t sc = b->scales[e / 16];
                const auto q = hn::And(hn::ShiftRightSame(hn::PromoteTo(di, hn::LoadU(du8, b->qs + 32 * h + g)), 2 * j), three);
                // dl * q is exact (f16 × 4-bit × 2-bit): the fused form rounds as the reference's dl * q - ml.
                sink(e, hn::MulSub(hn::ConvertTo(df, q), hn::Set(df, d * float(sc & 0xF)), hn::Set(df, dmin * float(sc >> 4))));
            }
}

template <class Sink>
HWY_INLINE void decode_q3_k(const ref::BlockQ3_K* b, Sink&& sink) {
    const DF df;
    const DI di;
    const DU8 du8;
    const size_t N = hn::Lanes(df);
    const float d = h2f(b->d);
    float dl[16];
    for (int j = 0; j < 16; ++j) {
        const int low = j < 8 ? (b->scales[j] & 0xF) : (b->scales[j - 8] >> 4);
        const int high = (b->scales[8 + j % 4] >> (2 * (j / 4))) & 3;
        dl[j] = d * float((low | high << 4) - 32);
    }
    const auto three = hn::Set(di, 3), one = hn::Set(di, 1), four = hn::Set(di, 4);
    for (int h = 0; h < 2; ++h)
        for (int j = 0; j < 4; ++j)
            for (size_t g = 0; g < 32; g += N) {
                const size_t e = 128 * h + 32 * j + g;
                const auto lo = hn::And(hn::ShiftRightSame(hn::PromoteTo(di, hn::LoadU(du8, b->qs + 32 * h + g)), 2 * j), three);
                const auto hb = hn::And(hn::ShiftRightSame(hn::PromoteTo(di, hn::LoadU(du8, b->hmask + g)), 4 * h + j), one);
                const auto q = hn::Sub(hn::Or(lo, hn::ShiftLeft<2>(hb)), four);  // high bit clear: minus 4
                sink(e, hn::Mul(hn::ConvertTo(df, q), hn::Set(df, dl[e / 16])));
            }
}

// IQ4_NL / IQ4_XS: the code book looked up per element, then one product with the (sub-)block scale.
template <class Sink>
HWY_INLINE void decode_iq4_32(const std::uint8_t* qs, float dl, size_t base, Sink&& sink) {
    const DF df;
    const size_t N = hn::Lanes(df);
    HWY_ALIGN float tmp[32];
    for (int i = 0; i < 16; ++i) {
        tmp[i] = float(ref::kIq4nlValues[qs[i] & 0xF]);
        tmp[16 + i] = float(ref::kIq4nlValues[qs[i] >> 4]);
    }
    const auto vd = hn::Set(df, dl);
    for (size_t g = 0; g < 32; g += N) sink(base + g, hn::Mul(vd, hn::Load(df, tmp + g)));
}
template <class Sink>
HWY_INLINE void decode_iq4_nl(const ref::BlockIq4Nl* b, Sink&& sink) {
    decode_iq4_32(b->qs, h2f(b->d), 0, sink);
}
template <class Sink>
HWY_INLINE void decode_iq4_xs(const ref::BlockIq4Xs* b, Sink&& sink) {
    const float d = h2f(b->d);
    for (int s = 0; s < 8; ++s) {
        const int ls = ((b->scales_l[s / 2] >> (4 * (s % 2))) & 0xF) | (((b->scales_h >> (2 * s)) & 3) << 4);
        decode_iq4_32(b->qs + 16 * s, d * float(ls - 32), size_t(32 * s), sink);
    }
}

// The lattice and ternary types (IQ2_*, IQ3_*, IQ1_*, TQ*_0): a block's 256 elements as signed 8-bit codes with a
// scale per 16 (x = scale * code), then converted and scaled N at a time. Grid values times ±1 are the codes; IQ1's
// shifted grid (g ± 1/8) is 8g ± 1 with scale/8, the same real product, so every value rounds as the reference's.
struct CodeBlock {
    HWY_ALIGN std::int8_t q[256];
    float s[16];
};

inline std::uint32_t load_u32(const std::uint8_t* p) {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}
// Sign bit j of s set -> byte j all ones: negates byte j of a grid entry as (v ^ 0xFF) + 1, eight bytes in one 64-bit
// operation. No carry crosses bytes because no IQ2/IQ3 grid value is 0 (~v + 1 <= 0xFF).
struct SignMasks {
    std::uint64_t m[256];
    constexpr SignMasks() : m() {
        for (int s = 0; s < 256; ++s)
            for (int j = 0; j < 8; ++j)
                if ((s >> j) & 1) m[s] |= std::uint64_t(0xFF) << (8 * j);
    }
};
inline constexpr SignMasks kSignMasks{};
template <class Grid>
inline void put_signed(std::int8_t* dst, Grid g, int n, int signs) {
    const std::uint64_t mask = kSignMasks.m[signs & ((1 << n) - 1)];
    const std::uint64_t v = (std::uint64_t(g) ^ mask) + (mask & 0x0101010101010101ull);
    std::memcpy(dst, &v, std::size_t(n));  // little-endian: byte j is element j
}

inline void codes_iq2_xxs(const ref::BlockIq2Xxs* b, CodeBlock& c) {
    const float d = h2f(b->d);
    const auto* q8 = reinterpret_cast<const std::uint8_t*>(b->qs);
    for (int s = 0; s < 8; ++s) {
        const std::uint32_t idx = load_u32(q8 + 8 * s), aux = load_u32(q8 + 8 * s + 4);
        c.s[2 * s] = c.s[2 * s + 1] = d * (0.5f + static_cast<float>(aux >> 28)) * 0.25f;
        for (int l = 0; l < 4; ++l)
            put_signed(c.q + 32 * s + 8 * l, ref::k_iq2xxs_grid[(idx >> (8 * l)) & 0xFF], 8, ref::kIqSigns[(aux >> (7 * l)) & 127]);
    }
}
inline void codes_iq2_xs(const ref::BlockIq2Xs* b, CodeBlock& c) {
    const float d = h2f(b->d);
    for (int s = 0; s < 8; ++s) {
        c.s[2 * s] = d * (0.5f + static_cast<float>(b->scales[s] & 0xF)) * 0.25f;
        c.s[2 * s + 1] = d * (0.5f + static_cast<float>(b->scales[s] >> 4)) * 0.25f;
        for (int l = 0; l < 4; ++l) {
            const std::uint16_t q = b->qs[4 * s + l];
            put_signed(c.q + 32 * s + 8 * l, ref::k_iq2xs_grid[q & 511], 8, ref::kIqSigns[q >> 9]);
        }
    }
}
inline void codes_iq2_s(const ref::BlockIq2S* b, CodeBlock& c) {
    const float d = h2f(b->d);
    for (int s = 0; s < 8; ++s) {
        c.s[2 * s] = d * (0.5f + static_cast<float>(b->scales[s] & 0xF)) * 0.25f;
        c.s[2 * s + 1] = d * (0.5f + static_cast<float>(b->scales[s] >> 4)) * 0.25f;
        for (int l = 0; l < 4; ++l) {
            const int idx = b->qs[4 * s + l] | (((b->qh[s] >> (2 * l)) & 3) << 8);
            put_signed(c.q + 32 * s + 8 * l, ref::k_iq2s_grid[idx], 8, b->qs[32 + 4 * s + l]);
        }
    }
}
inline void codes_iq3_xxs(const ref::BlockIq3Xxs* b, CodeBlock& c) {
    const float d = h2f(b->d);
    for (int s = 0; s < 8; ++s) {
        const std::uint32_t aux = load_u32(b->qs + 64 + 4 * s);
        c.s[2 * s] = c.s[2 * s + 1] = d * (0.5f + static_cast<float>(aux >> 28)) * 0.5f;
        for (int l = 0; l < 4; ++l) {
            const int signs = ref::kIqSigns[(aux >> (7 * l)) & 127];
            std::int8_t* dst = c.q + 32 * s + 8 * l;
            put_signed(dst, ref::k_iq3xxs_grid[b->qs[8 * s + 2 * l]], 4, signs);
            put_signed(dst + 4, ref::k_iq3xxs_grid[b->qs[8 * s + 2 * l + 1]], 4, signs >> 4);
        }
    }
}
inline void codes_iq3_s(const ref::BlockIq3S* b, CodeBlock& c) {
    const float d = h2f(b->d);
    for (int s = 0; s < 8; ++s) {
        const int sc = s % 2 == 0 ? (b->scales[s / 2] & 0xF) : (b->scales[s / 2] >> 4);
        c.s[2 * s] = c.s[2 * s + 1] = d * (1 + 2 * sc);
        for (int l = 0; l < 4; ++l) {
            const int i0 = b->qs[8 * s + 2 * l] | (((b->qh[s] >> (2 * l)) & 1) << 8);
            const int i1 = b->qs[8 * s + 2 * l + 1] | (((b->qh[s] >> (2 * l + 1)) & 1) << 8);
            const int signs = b->signs[4 * s + l];
            std::int8_t* dst = c.q + 32 * s + 8 * l;
            put_signed(dst, ref::k_iq3s_grid[i0], 4, signs);
            put_signed(dst + 4, ref::k_iq3s_grid[i1], 4, signs >> 4);
        }
    }
}
inline void iq1_codes8(std::int8_t* dst, int idx, bool minus) {
    const std::uint64_t g = ref::k_iq1s_grid[idx];
    for (int j = 0; j < 8; ++j) dst[j] = static_cast<std::int8_t>(8 * static_cast<std::int8_t>((g >> (8 * j)) & 0xFF) + (minus ? -1 : 1));
}
inline void codes_iq1_s(const ref::BlockIq1S* b, CodeBlock& c) {
    const float d = h2f(b->d);
    for (int s = 0; s < 8; ++s) {
        const int qh = b->qh[s];
        c.s[2 * s] = c.s[2 * s + 1] = d * (2 * ((qh >> 12) & 7) + 1) * 0.125f;
        for (int l = 0; l < 4; ++l) iq1_codes8(c.q + 32 * s + 8 * l, b->qs[4 * s + l] | (((qh >> (3 * l)) & 7) << 8), qh & 0x8000);
    }
}
inline void codes_iq1_m(const ref::BlockIq1M* b, CodeBlock& c) {
    std::uint16_t sc[4];
    std::memcpy(sc, b->scales, 8);
    const float d = ref::f16_to_f32(static_cast<std::uint16_t>((sc[0] >> 12) | ((sc[1] >> 8) & 0x00F0) |
                                                               ((sc[2] >> 4) & 0x0F00) | (sc[3] & 0xF000)));
    for (int s = 0; s < 8; ++s) {
        c.s[2 * s] = d * (2 * ((sc[s / 2] >> (6 * (s % 2))) & 7) + 1) * 0.125f;
        c.s[2 * s + 1] = d * (2 * ((sc[s / 2] >> (6 * (s % 2) + 3)) & 7) + 1) * 0.125f;
        for (int l = 0; l < 4; ++l) {
            const int qh = b->qh[2 * s + l / 2] >> (4 * (l % 2));
            iq1_codes8(c.q + 32 * s + 8 * l, b->qs[4 * s + l] | ((qh & 7) << 8), qh & 8);
        }
    }
}
inline void codes_tq1_0(const ref::BlockTq1_0* b, CodeBlock& c) {
    static constexpr std::uint8_t kPow3[5] = {1, 3, 9, 27, 81};
    auto digit = [](std::uint8_t byte, int n) {
        return static_cast<std::int8_t>(((static_cast<std::uint8_t>(byte * kPow3[n]) * 3) >> 8) - 1);
    };
    for (int n = 0; n < 5; ++n)
        for (int m = 0; m < 32; ++m) c.q[32 * n + m] = digit(b->qs[m], n);
    for (int n = 0; n < 5; ++n)
        for (int m = 0; m < 16; ++m) c.q[160 + 16 * n + m] = digit(b->qs[32 + m], n);
    for (int n = 0; n < 4; ++n)
        for (int m = 0; m < 4; ++m) c.q[240 + 4 * n + m] = digit(b->qh[m], n);
    std::fill(c.s, c.s + 16, h2f(b->d));
}
inline void codes_tq2_0(const ref::BlockTq2_0* b, CodeBlock& c) {
    for (int h = 0; h < 2; ++h)
        for (int j = 0; j < 4; ++j)
            for (int l = 0; l < 32; ++l)
                c.q[128 * h + 32 * j + l] = static_cast<std::int8_t>(((b->qs[32 * h + l] >> (2 * j)) & 3) - 1);
    std::fill(c.s, c.s + 16, h2f(b->d));
}

template <class Block, void (*Fill)(const Block*, CodeBlock&), class Sink>
HWY_INLINE void decode_codes(const Block* b, Sink&& sink) {
    const DF df;
    const DI di;
    const DI8 di8;
    const size_t N = hn::Lanes(df);
    CodeBlock c;
    Fill(b, c);
    for (size_t g = 0; g < 256; g += N)
        sink(g, hn::Mul(hn::ConvertTo(df, hn::PromoteTo(di, hn::LoadU(di8, c.q + g))), hn::Set(df, c.s[g / 16])));
}
template <class Sink> HWY_INLINE void decode_iq2_xxs(const ref::BlockIq2Xxs* b, Sink&& s) { decode_codes<ref::BlockIq2Xxs, codes_iq2_xxs>(b, s); }
template <class Sink> HWY_INLINE void decode_iq2_xs(const ref::BlockIq2Xs* b, Sink&& s) { decode_codes<ref::BlockIq2Xs, codes_iq2_xs>(b, s); }
template <class Sink> HWY_INLINE void decode_iq2_s(const ref::BlockIq2S* b, Sink&& s) { decode_codes<ref::BlockIq2S, codes_iq2_s>(b, s); }
template <class Sink> HWY_INLINE void decode_iq3_xxs(const ref::BlockIq3Xxs* b, Sink&& s) { decode_codes<ref::BlockIq3Xxs, codes_iq3_xxs>(b, s); }
template <class Sink> HWY_INLINE void decode_iq3_s(const ref::BlockIq3S* b, Sink&& s) { decode_codes<ref::BlockIq3S, codes_iq3_s>(b, s); }
template <class Sink> HWY_INLINE void decode_iq1_s(const ref::BlockIq1S* b, Sink&& s) { decode_codes<ref::BlockIq1S, codes_iq1_s>(b, s); }
template <class Sink> HWY_INLINE void decode_iq1_m(const ref::BlockIq1M* b, Sink&& s) { decode_codes<ref::BlockIq1M, codes_iq1_m>(b, s); }
template <class Sink> HWY_INLINE void decode_tq1_0(const ref::BlockTq1_0* b, Sink&& s) { decode_codes<ref::BlockTq1_0, codes_tq1_0>(b, s); }
template <class Sink> HWY_INLINE void decode_tq2_0(const ref::BlockTq2_0* b, Sink&& s) { decode_codes<ref::BlockTq2_0, codes_tq2_0>(b, s); }

// Q4_K and Q5_K share the layout but for Q5_K's fifth bit (qh).
template <class Block, class Sink>
HWY_INLINE void decode_q45_k(const Block* b, Sink&& sink) {
    constexpr bool kFive = std::is_same_v<Block, ref::BlockQ5_K>;
    const DF df;
    const DI di;
    const DU8 du8;
    const size_t N = hn::Lanes(df);
    const float d = h2f(b->d), dmin = h2f(b->dmin);
    const auto one = hn::Set(di, 1), low4 = hn::Set(di, 15);
    for (int c = 0; c < 4; ++c) {
        float sc[2], m[2];
        k_scale_min(b->scales, 2 * c, &sc[0], &m[0]);
        k_scale_min(b->scales, 2 * c + 1, &sc[1], &m[1]);
        const std::uint8_t* qs = b->qs + 32 * c;
        for (int half = 0; half < 2; ++half) {
            const auto ds = hn::Set(df, d * sc[half]), dm = hn::Set(df, dmin * m[half]);
            for (size_t g = 0; g < 32; g += N) {
                const auto q8 = hn::PromoteTo(di, hn::LoadU(du8, qs + g));
                auto q = half == 0 ? hn::And(q8, low4) : hn::ShiftRight<4>(q8);
                if constexpr (kFive) {
                    const auto h = hn::PromoteTo(di, hn::LoadU(du8, b->qh + g));
                    q = hn::Or(q, hn::ShiftLeft<4>(hn::And(hn::ShiftRightSame(h, 2 * c + half), one)));
                }
                sink(64 * c + 32 * half + g, hn::MulSub(hn::ConvertTo(df, q), ds, dm));
            }
        }
    }
}

template <class Sink>
HWY_INLINE void decode_q6_k(const ref::BlockQ6_K* b, Sink&& sink) {
    const DF df;
    const DI di;
    const DU8 du8;
    const size_t N = hn::Lanes(df);
    const float d = h2f(b->d);
    const auto three = hn::Set(di, 3), fifteen = hn::Set(di, 15), thirty_two = hn::Set(di, 32);
    for (int h = 0; h < 2; ++h) {
        for (int k = 0; k < 4; ++k) {
            const std::uint8_t* ql = b->ql + 64 * h + 32 * (k & 1);
            const std::uint8_t* qh = b->qh + 32 * h;
            for (size_t g = 0; g < 32; g += N) {
                const auto lo8 = hn::PromoteTo(di, hn::LoadU(du8, ql + g));
                const auto lo = k < 2 ? hn::And(lo8, fifteen) : hn::ShiftRight<4>(lo8);
                const auto hi = hn::And(hn::ShiftRightSame(hn::PromoteTo(di, hn::LoadU(du8, qh + g)), 2 * k), three);
                const auto q = hn::Sub(hn::Or(lo, hn::ShiftLeft<4>(hi)), thirty_two);
                const size_t e = 128 * h + 32 * k + g;
                sink(e, hn::Mul(hn::ConvertTo(df, q), hn::Set(df, d * b->scales[e / 16])));
            }
        }
    }
}

// Calls decode for every block of a row: off = element offset of the block within the row.
template <class Sink>
HWY_INLINE void decode_row(DType wt, const void* src, std::int64_t k, Sink&& sink) {
    const DF df;
    const size_t N = hn::Lanes(df);
    // Plain types: N elements per vector; a tail shorter than a vector is zero-padded (the sink reads no further).
    auto plain = [&](auto load_vec, auto load_one) {
        std::int64_t i = 0;
        for (; i + std::int64_t(N) <= k; i += N) sink(i, load_vec(i));
        if (i < k) {
            HWY_ALIGN float tmp[16] = {};
            for (std::int64_t j = i; j < k; ++j) tmp[j - i] = load_one(j);
            sink(i, hn::Load(df, tmp));
        }
    };
    const auto* u16 = static_cast<const std::uint16_t*>(src);
    switch (wt) {
        case DType::F32: {
            const float* p = static_cast<const float*>(src);
            plain([&](std::int64_t i) { return hn::LoadU(df, p + i); }, [&](std::int64_t j) { return p[j]; });
            return;
        }
        case DType::F16: {
            const hn::Rebind<hwy::float16_t, DF> dh;
            const auto* p = static_cast<const hwy::float16_t*>(src);
            plain([&](std::int64_t i) { return hn::PromoteTo(df, hn::LoadU(dh, p + i)); },
                  [&](std::int64_t j) { return ref::f16_to_f32(u16[j]); });
            return;
        }
        case DType::BF16: {
            const hn::Rebind<hwy::bfloat16_t, DF> db;
            const auto* p = static_cast<const hwy::bfloat16_t*>(src);
            plain([&](std::int64_t i) { return hn::PromoteTo(df, hn::LoadU(db, p + i)); },
                  [&](std::int64_t j) { return ref::bf16_to_f32(u16[j]); });
            return;
        }
        default: break;
    }
#define FT_BLOCKS(Block, elems, decoder)                                                         \
    {                                                                                            \
        const auto* blocks = static_cast<const ref::Block*>(src);                                \
        for (std::int64_t bi = 0; bi < k / (elems); ++bi)                                        \
            decoder(blocks + bi, [&](size_t off, VF v) { sink(bi * (elems) + off, v); });       \
        return;                                                                                  \
    }
    switch (wt) {
        case DType::Q8_0: FT_BLOCKS(BlockQ8_0, 32, decode_q8_0)
        case DType::Q4_0: FT_BLOCKS(BlockQ4_0, 32, decode_q4_0)
        case DType::MXFP4: FT_BLOCKS(BlockMxfp4, 32, decode_mxfp4)
        case DType::FT_FP8: FT_BLOCKS(BlockFtFp8, 32, decode_ft_fp8)
        case DType::FT_NVFP4: FT_BLOCKS(BlockFtNvfp4, 64, decode_ft_nvfp4)
        case DType::Q4_K: FT_BLOCKS(BlockQ4_K, 256, decode_q45_k)
        case DType::Q5_K: FT_BLOCKS(BlockQ5_K, 256, decode_q45_k)
        case DType::Q6_K: FT_BLOCKS(BlockQ6_K, 256, decode_q6_k)
        case DType::Q4_1: FT_BLOCKS(BlockQ4_1, 32, decode_q4_1)
        case DType::Q5_0: FT_BLOCKS(BlockQ5_0, 32, decode_q5_01)
        case DType::Q5_1: FT_BLOCKS(BlockQ5_1, 32, decode_q5_01)
        case DType::Q2_K: FT_BLOCKS(BlockQ2_K, 256, decode_q2_k)
        case DType::Q3_K: FT_BLOCKS(BlockQ3_K, 256, decode_q3_k)
        case DType::IQ4_NL: FT_BLOCKS(BlockIq4Nl, 32, decode_iq4_nl)
        case DType::IQ4_XS: FT_BLOCKS(BlockIq4Xs, 256, decode_iq4_xs)
        case DType::IQ2_XXS: FT_BLOCKS(BlockIq2Xxs, 256, decode_iq2_xxs)
        case DType::IQ2_XS: FT_BLOCKS(BlockIq2Xs, 256, decode_iq2_xs)
        case DType::IQ2_S: FT_BLOCKS(BlockIq2S, 256, decode_iq2_s)
        case DType::IQ3_XXS: FT_BLOCKS(BlockIq3Xxs, 256, decode_iq3_xxs)
        case DType::IQ3_S: FT_BLOCKS(BlockIq3S, 256, decode_iq3_s)
        case DType::IQ1_S: FT_BLOCKS(BlockIq1S, 256, decode_iq1_s)
        case DType::IQ1_M: FT_BLOCKS(BlockIq1M, 256, decode_iq1_m)
        case DType::TQ1_0: FT_BLOCKS(BlockTq1_0, 256, decode_tq1_0)
        case DType::TQ2_0: FT_BLOCKS(BlockTq2_0, 256, decode_tq2_0)
        default: break;
    }
#undef FT_BLOCKS
    // A type the reference dequantizes and no decoder above handles (none today; a safety net for types added to the
    // reference first): one block at a time through ref::dequantize_row into a stack buffer, then N at a time.
    if (!ref::dequant_supported(wt)) return;
    const DTypeInfo& info = dtype_info(wt);
    const std::int64_t elems = info.block_elems;
    const auto* bytes = static_cast<const std::uint8_t*>(src);
    HWY_ALIGN float tmp[256];
    for (std::int64_t bi = 0; bi < k / elems; ++bi) {
        ref::dequantize_row(wt, bytes + bi * info.block_bytes, tmp, elems);
        for (std::int64_t g = 0; g < elems; g += std::int64_t(N)) sink(bi * elems + g, hn::Load(df, tmp + g));
    }
}

#undef FT_INT16_DOT  // this file is compiled once per SIMD target: decide afresh each time
#if HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
#define FT_INT16_DOT 1
// Integer dot products for decode (one activation row): the activations are quantized once per call to int16 per
// 32-element sub-block (scale amax/32767: ~1.5e-5 relative error), so a sub-block's dot product with 4- to
// 8-bit weight codes is exact in int32 (pairwise multiply-add, vpmaddwd) and only the block scales are applied in
// float. Several times fewer instructions per weight byte than decoding weights to float.
struct QuantizedX {
    std::vector<std::int16_t> q;  // [k]
    std::vector<float> scale;     // [k / 32]: x ≈ q · scale
    std::vector<float> sum;       // [k / 32]: Σ x over the sub-block (the K-quants' min term)
};

void quantize_x(const float* x, std::int64_t k, QuantizedX& out) {
    const hn::CappedTag<float, 16> df;
    const hn::Rebind<std::int16_t, decltype(df)> di16;
    const size_t N = hn::Lanes(df);
    const std::int64_t n_sub = k / 32;
    out.q.resize(std::size_t(k));
    out.scale.resize(std::size_t(n_sub));
    out.sum.resize(std::size_t(n_sub));
    for (std::int64_t j = 0; j < n_sub; ++j) {
        const float* xs = x + 32 * j;
        auto vmax = hn::Zero(df), vsum = hn::Zero(df);
        for (size_t g = 0; g < 32; g += N) {
            const auto v = hn::LoadU(df, xs + g);
            vmax = hn::Max(vmax, hn::Abs(v));
            vsum = hn::Add(vsum, v);
        }
        const float amax = hn::GetLane(hn::MaxOfLanes(df, vmax));
        const auto inv = hn::Set(df, amax > 0.f ? 32767.f / amax : 0.f);
        for (size_t g = 0; g < 32; g += N)
            hn::StoreU(hn::DemoteTo(di16, hn::NearestInt(hn::Mul(hn::LoadU(df, xs + g), inv))), di16,
                       out.q.data() + 32 * j + g);
        out.scale[std::size_t(j)] = amax / 32767.f;
        out.sum[std::size_t(j)] = hn::GetLane(hn::SumOfLanes(df, vsum));
    }
}

// f16 → f32 of the block scales: the F16C instruction where the target has it (every AVX2 CPU does).
HWY_INLINE float h2f_fast(std::uint16_t h) {
#if HWY_TARGET <= HWY_AVX2 && (defined(__x86_64__) || defined(_M_X64))
    return _cvtsh_ss(h);
#else
    return h2f(h);
#endif
}

// The 8 six-bit scales and mins of a K-quant super-block, unpacked without branches.
HWY_INLINE void k_scales_all(const std::uint8_t* s, float sc[8], float m[8]) {
    for (int j = 0; j < 4; ++j) {
        sc[j] = float(s[j] & 63);
        m[j] = float(s[j + 4] & 63);
        sc[j + 4] = float((s[j + 8] & 0xF) | ((s[j] >> 6) << 4));
        m[j + 4] = float((s[j + 8] >> 4) | ((s[j + 4] >> 6) << 4));
    }
}

// Σ over the row of Q4_K weights · x.
float dot_q4_k(const ref::BlockQ4_K* b, std::int64_t nb, const QuantizedX& x) {
    const hn::ScalableTag<std::int16_t> d16;
    const hn::Repartition<std::int32_t, decltype(d16)> d32;
    const hn::Repartition<float, decltype(d16)> df32;
    const hn::Rebind<std::uint8_t, decltype(d16)> du8;
    const size_t N16 = hn::Lanes(d16);
    const auto low4 = hn::Set(d16, 15);
    auto acc0 = hn::Zero(df32), acc1 = hn::Zero(df32);  // two chains: the FMAs of a block do not wait on each other
    float min_sum = 0.f;
    float sc[8], m[8];
    for (std::int64_t i = 0; i < nb; ++i) {
        const float d = h2f_fast(b[i].d), dmin = h2f_fast(b[i].dmin);
        const std::int16_t* xq = x.q.data() + i * 256;
        const float* xscale = x.scale.data() + i * 8;
        const float* xsum = x.sum.data() + i * 8;
        k_scales_all(b[i].scales, sc, m);
        float mins = 0.f;
        for (int j = 0; j < 8; ++j) mins += m[j] * xsum[j];
        min_sum += dmin * mins;
        for (int c = 0; c < 4; ++c) {
            auto s0 = hn::Zero(d32), s1 = hn::Zero(d32), unused = hn::Zero(d32);
            const std::uint8_t* qs = b[i].qs + 32 * c;
            for (size_t g = 0; g < 32; g += N16) {
                const auto q = hn::PromoteTo(d16, hn::LoadU(du8, qs + g));
                s0 = hn::ReorderWidenMulAccumulate(d32, hn::And(q, low4), hn::LoadU(d16, xq + 64 * c + g), s0, unused);
                s1 = hn::ReorderWidenMulAccumulate(d32, hn::ShiftRight<4>(q), hn::LoadU(d16, xq + 64 * c + 32 + g), s1, unused);
            }
            acc0 = hn::MulAdd(hn::ConvertTo(df32, s0), hn::Set(df32, d * sc[2 * c] * xscale[2 * c]), acc0);
            acc1 = hn::MulAdd(hn::ConvertTo(df32, s1), hn::Set(df32, d * sc[2 * c + 1] * xscale[2 * c + 1]), acc1);
        }
    }
    return hn::GetLane(hn::SumOfLanes(df32, hn::Add(acc0, acc1))) - min_sum;
}

// Σ over the row of Q8_0 weights · x (x quantized as for Q4_K; Q8_0 blocks are the same 32 elements).
float dot_q8_0(const ref::BlockQ8_0* b, std::int64_t nb, const QuantizedX& x) {
    const hn::ScalableTag<std::int16_t> d16;
    const hn::Repartition<std::int32_t, decltype(d16)> d32;
    const hn::Repartition<float, decltype(d16)> df32;
    const hn::Rebind<std::int8_t, decltype(d16)> di8;
    const size_t N16 = hn::Lanes(d16);
    auto acc = hn::Zero(df32);
    for (std::int64_t i = 0; i < nb; ++i) {
        auto s = hn::Zero(d32), unused = hn::Zero(d32);
        for (size_t g = 0; g < 32; g += N16)
            s = hn::ReorderWidenMulAccumulate(d32, hn::PromoteTo(d16, hn::LoadU(di8, b[i].qs + g)),
                                              hn::LoadU(d16, x.q.data() + i * 32 + g), s, unused);
        acc = hn::MulAdd(hn::ConvertTo(df32, s), hn::Set(df32, h2f_fast(b[i].d) * x.scale[std::size_t(i)]), acc);
    }
    return hn::GetLane(hn::SumOfLanes(df32, acc));
}
#endif

void MatvecRows(DType wt, const void* w, std::size_t row_bytes, std::int64_t k, const float* x, float* y,
                std::int64_t row_begin, std::int64_t row_end) {
#ifdef FT_INT16_DOT
    if (wt == DType::Q4_K || wt == DType::Q8_0) {
        thread_local QuantizedX xq;
        quantize_x(x, k, xq);
        const auto* base = static_cast<const std::uint8_t*>(w);
        for (std::int64_t r = row_begin; r < row_end; ++r) {
            const void* row = base + std::size_t(r) * row_bytes;
            y[r] = wt == DType::Q4_K ? dot_q4_k(static_cast<const ref::BlockQ4_K*>(row), k / 256, xq)
                                     : dot_q8_0(static_cast<const ref::BlockQ8_0*>(row), k / 32, xq);
        }
        return;
    }
#endif
    const DF df;
    const size_t N = hn::Lanes(df);
    // A zero-padded copy of x's tail so F32/F16/BF16 rows whose k is not a multiple of N read no garbage.
    const bool ragged = k % std::int64_t(N) != 0;
    HWY_ALIGN float xtail[16] = {};
    const std::int64_t tail_at = k - k % std::int64_t(N);
    if (ragged) std::memcpy(xtail, x + tail_at, size_t(k - tail_at) * 4);
    for (std::int64_t r = row_begin; r < row_end; ++r) {
        const void* row = static_cast<const std::uint8_t*>(w) + std::size_t(r) * row_bytes;
        auto acc0 = hn::Zero(df), acc1 = hn::Zero(df);
        bool odd = false;
        decode_row(wt, row, k, [&](std::int64_t off, VF v) {
            const auto xv = (ragged && off == tail_at) ? hn::Load(df, xtail) : hn::LoadU(df, x + off);
            // Two accumulators hide the FMA latency.
            if (odd) acc1 = hn::MulAdd(v, xv, acc1);
            else acc0 = hn::MulAdd(v, xv, acc0);
            odd = !odd;
        });
        y[r] = hn::GetLane(hn::SumOfLanes(df, hn::Add(acc0, acc1)));
    }
}

void DequantizeRow(DType wt, const void* src, float* dst, std::int64_t k) {
    const DF df;
    const size_t N = hn::Lanes(df);
    decode_row(wt, src, k, [&](std::int64_t off, VF v) {
        if (off + std::int64_t(N) <= k) {
            hn::StoreU(v, df, dst + off);
        } else {
            HWY_ALIGN float tmp[16];
            hn::Store(v, df, tmp);
            std::memcpy(dst + off, tmp, size_t(k - off) * 4);
        }
    });
}

// Rows are decoded into an L1/L2-resident f32 tile (kTile rows), then each activation row is dotted with all
// rows of the tile, so an activation vector is loaded once per kTile weight rows. The sums run in MatvecRows' order
// (two accumulators taking alternate vectors): where MatvecRows decodes to f32, a row's result is bit-identical
// whatever m is, so a token's output does not depend on the batch it ran in (the prefix cache relies on it).
void MatmulRows(DType wt, const void* w, std::size_t row_bytes, std::int64_t k, const float* x, std::int64_t ldx,
                std::int64_t m, float* y, std::int64_t ldy, std::int64_t row_begin, std::int64_t row_end) {
    const DF df;
    const size_t N = hn::Lanes(df);
    constexpr int kTile = 4;
    const std::int64_t kp = (k + std::int64_t(N) - 1) / std::int64_t(N) * std::int64_t(N);  // padded row length
    thread_local std::vector<float> tile;
    thread_local std::vector<float> xpad;
    if (tile.size() < size_t(kTile * kp)) tile.assign(size_t(kTile * kp), 0.f);
    const bool ragged = kp != k;
    if (ragged && xpad.size() < size_t(kp)) xpad.assign(size_t(kp), 0.f);
    for (std::int64_t r0 = row_begin; r0 < row_end; r0 += kTile) {
        const int nr = int(std::min<std::int64_t>(kTile, row_end - r0));
        for (int t = 0; t < nr; ++t) {
            float* dst = tile.data() + t * kp;
            DequantizeRow(wt, static_cast<const std::uint8_t*>(w) + std::size_t(r0 + t) * row_bytes, dst, k);
            for (std::int64_t j = k; j < kp; ++j) dst[j] = 0.f;
        }
        for (std::int64_t i = 0; i < m; ++i) {
            const float* xi = x + i * ldx;
            if (ragged) {
                std::memcpy(xpad.data(), xi, size_t(k) * 4);
                xi = xpad.data();
            }
            VF acc0[kTile], acc1[kTile];
            for (int t = 0; t < kTile; ++t) acc0[t] = acc1[t] = hn::Zero(df);
            std::int64_t j = 0;
            for (; j + 2 * std::int64_t(N) <= kp; j += 2 * std::int64_t(N)) {
                const auto xv0 = hn::LoadU(df, xi + j), xv1 = hn::LoadU(df, xi + j + std::int64_t(N));
                for (int t = 0; t < nr; ++t) {
                    acc0[t] = hn::MulAdd(hn::LoadU(df, tile.data() + t * kp + j), xv0, acc0[t]);
                    acc1[t] = hn::MulAdd(hn::LoadU(df, tile.data() + t * kp + j + std::int64_t(N)), xv1, acc1[t]);
                }
            }
            if (j < kp) {
                const auto xv = hn::LoadU(df, xi + j);
                for (int t = 0; t < nr; ++t) acc0[t] = hn::MulAdd(hn::LoadU(df, tile.data() + t * kp + j), xv, acc0[t]);
            }
            for (int t = 0; t < nr; ++t) y[i * ldy + r0 + t] = hn::GetLane(hn::SumOfLanes(df, hn::Add(acc0[t], acc1[t])));
        }
    }
}

}  // namespace ft::kernels::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ft::kernels::cpu {
HWY_EXPORT(MatvecRows);
HWY_EXPORT(MatmulRows);
HWY_EXPORT(DequantizeRow);

bool matmul_supported(DType wt) {
    // Every type the reference dequantizes (decode_row falls back to it for those without a SIMD decoder).
    return ref::dequant_supported(wt);
}

void matvec_rows(DType wt, const void* w, std::size_t row_bytes, std::int64_t k, const float* x, float* y,
                 std::int64_t row_begin, std::int64_t row_end) {
    if (int8_dot_by_default(wt) && matvec_rows_int8(int8_dot_selected(), wt, w, row_bytes, k, x, y, row_begin, row_end))
        return;
    HWY_DYNAMIC_DISPATCH(MatvecRows)(wt, w, row_bytes, k, x, y, row_begin, row_end);
}

void matvec_prepare(DType wt, const float* x, std::int64_t k, MatvecInput& out) {
    out.x = x;
    out.k = k;
    out.int8 = int8_dot_by_default(wt) && int8_quantize(int8_dot_selected(), x, k, out.q);
}

void matvec_rows_prepared(DType wt, const void* w, std::size_t row_bytes, const MatvecInput& x, float* y,
                          std::int64_t row_begin, std::int64_t row_end) {
    // The same path matvec_rows takes: int8 where it would quantize (and x was quantized for the path in use).
    if (x.int8 && int8_dot_by_default(wt) && x.q.path == int8_dot_selected() &&
        matvec_rows_int8_quantized(wt, w, row_bytes, x.q, y, row_begin, row_end))
        return;
    matvec_rows(wt, w, row_bytes, x.k, x.x, y, row_begin, row_end);
}

void matmul_rows(DType wt, const void* w, std::size_t row_bytes, std::int64_t k, const float* x, std::int64_t ldx,
                 std::int64_t m, float* y, std::int64_t ldy, std::int64_t row_begin, std::int64_t row_end) {
    HWY_DYNAMIC_DISPATCH(MatmulRows)(wt, w, row_bytes, k, x, ldx, m, y, ldy, row_begin, row_end);
}

void dequantize_row(DType wt, const void* src, float* dst, std::int64_t k) {
    HWY_DYNAMIC_DISPATCH(DequantizeRow)(wt, src, dst, k);
}
}  // namespace ft::kernels::cpu
#endif
