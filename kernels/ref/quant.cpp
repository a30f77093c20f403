#include "ref/quant.h"
#include "ref/iq_grids.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

namespace ft::kernels::ref {

namespace {
constexpr const std::array<float, 256>& kE4m3 = kE4m3Values;
}  // namespace

float e4m3_to_f32(std::uint8_t v) { return kE4m3[v]; }

namespace {

std::uint32_t bits_of(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}
float float_of(std::uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

// Round-half-to-even of a non-negative value to an integer, without the FP environment (std::nearbyint) or a libm
// call (std::floor without SSE4.1). In double, x + 0.5 is exact for every float below 2^31.
int round_even(float x) {
    if (!(x < 2.0e9f)) return x > 0 ? 2000000000 : 0;  // callers clamp; also maps NaN to 0
    const double xd = x;
    int r = static_cast<int>(xd + 0.5);
    if (static_cast<double>(r) - xd == 0.5 && (r & 1)) --r;
    return r;
}
int round_nearest(float x) { return x >= 0 ? round_even(x) : -round_even(-x); }

// The smallest f16 >= v (v >= 0, finite): a block scale rounded down would clip the block's largest value.
std::uint16_t f16_ceil(float v) {
    std::uint16_t h = f32_to_f16(v);
    if (f16_to_f32(h) < v && h < 0x7BFF) ++h;
    return h;
}

// ---- plain types ----

void dequant_f16(const std::uint16_t* s, float* d, std::int64_t n) {
    for (std::int64_t i = 0; i < n; ++i) d[i] = f16_to_f32(s[i]);
}
void dequant_bf16(const std::uint16_t* s, float* d, std::int64_t n) {
    for (std::int64_t i = 0; i < n; ++i) d[i] = bf16_to_f32(s[i]);
}

// ---- Q8_0 ----

void dequant_q8_0(const BlockQ8_0* b, float* y, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i, y += 32) {
        const float d = f16_to_f32(b[i].d);
        for (int j = 0; j < 32; ++j) y[j] = d * b[i].qs[j];
    }
}
void quant_q8_0(const float* x, BlockQ8_0* b, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i, x += 32) {
        float amax = 0;
        for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[j]));
        b[i].d = f16_ceil(amax / 127.f);
        const float d = f16_to_f32(b[i].d);  // quantize against the stored scale
        const float id = d > 0 ? 1.f / d : 0.f;
        for (int j = 0; j < 32; ++j) b[i].qs[j] = static_cast<std::int8_t>(std::clamp(round_nearest(x[j] * id), -127, 127));
    }
}

// ---- Q4_0 ----

int nib(const std::uint8_t* qs, int i) { return i < 16 ? (qs[i] & 0xF) : (qs[i - 16] >> 4); }
void set_nib(std::uint8_t* qs, int i, int v) {
    if (i < 16)
        qs[i] = static_cast<std::uint8_t>((qs[i] & 0xF0) | (v & 0xF));
    else
        qs[i - 16] = static_cast<std::uint8_t>((qs[i - 16] & 0x0F) | ((v & 0xF) << 4));
}

void dequant_q4_0(const BlockQ4_0* b, float* y, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i, y += 32) {
        const float d = f16_to_f32(b[i].d);
        for (int j = 0; j < 32; ++j) y[j] = d * (nib(b[i].qs, j) - 8);
    }
}
void quant_q4_0(const float* x, BlockQ4_0* b, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i, x += 32) {
        // The value of largest magnitude maps exactly onto code 0 (-8): the grid is [-8d, 7d].
        float vmax = 0;
        for (int j = 0; j < 32; ++j)
            if (std::fabs(x[j]) > std::fabs(vmax)) vmax = x[j];
        b[i].d = f32_to_f16(vmax / -8.f);
        const float d = f16_to_f32(b[i].d);
        const float id = d != 0 ? 1.f / d : 0.f;
        std::memset(b[i].qs, 0, 16);
        for (int j = 0; j < 32; ++j) set_nib(b[i].qs, j, std::clamp(round_nearest(x[j] * id) + 8, 0, 15));
    }
}

// ---- FP8 E4M3 and the Hugging Face quantized layouts ----

void dequant_ft_fp8(const BlockFtFp8* b, float* y, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i, y += 32) {
        float d;
        std::memcpy(&d, b[i].d, 4);
        for (int j = 0; j < 32; ++j) y[j] = e4m3_to_f32(b[i].qs[j]) * d;
    }
}

// Nearest E4M3 code of |v| (v >= 0), ties to the even code, saturating at 448 (codes 0..126 increase).
std::uint8_t e4m3_code(float v) {
    int lo = 0, hi = 126;
    if (!(v < kE4m3[126])) return 126;
    while (hi - lo > 1) {  // kE4m3[lo] <= v < kE4m3[hi]
        const int mid = (lo + hi) / 2;
        (kE4m3[std::size_t(mid)] <= v ? lo : hi) = mid;
    }
    const float dl = v - kE4m3[std::size_t(lo)], dh = kE4m3[std::size_t(hi)] - v;
    return std::uint8_t(dl < dh ? lo : dh < dl ? hi : (lo % 2 == 0 ? lo : hi));
}
std::uint8_t e4m3_signed(float v) {
    const std::uint8_t c = e4m3_code(std::fabs(v));
    return std::uint8_t(v < 0 && c != 0 ? c | 0x80 : c);
}
// Nearest E2M1 code of v (its value: kMxfp4Values / 2), ties to the even code, saturating at ±6.
std::uint8_t e2m1_code(float v) {
    const float a = std::fabs(2 * v);  // on the doubled grid 0 1 2 3 4 6 8 12
    int best = 0;
    for (int c = 1; c < 8; ++c) {
        const float e = std::fabs(a - kMxfp4Values[c]), eb = std::fabs(a - kMxfp4Values[best]);
        if (e < eb || (e == eb && c % 2 == 0)) best = c;
    }
    return std::uint8_t(v < 0 && best != 0 ? best | 8 : best);
}

// The quantizers of FT_FP8 / FT_NVFP4 (for `ft synth` and tests; checkpoints bring their own codes): FP8 scale
// amax / 448 per 32; NVFP4 s2 = amax / (6 · 448) per 64 (the format has one per tensor: any s2 per block decodes the
// same way), group scales e4m3(amax_g / (6 · s2)).
void quant_ft_fp8(const float* x, BlockFtFp8* b, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i, x += 32) {
        float amax = 0;
        for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[j]));
        const float d = amax / 448.f;
        std::memcpy(b[i].d, &d, 4);
        for (int j = 0; j < 32; ++j) b[i].qs[j] = d > 0 ? e4m3_signed(x[j] / d) : 0;
    }
}
void quant_ft_nvfp4(const float* x, BlockFtNvfp4* b, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i, x += 64) {
        float amax = 0;
        for (int j = 0; j < 64; ++j) amax = std::max(amax, std::fabs(x[j]));
        const float s2 = amax / (6.f * 448.f);
        std::memcpy(b[i].s2, &s2, 4);
        std::memset(b[i].qs, 0, 32);
        for (int g = 0; g < 4; ++g) {
            float gmax = 0;
            for (int j = 0; j < 16; ++j) gmax = std::max(gmax, std::fabs(x[16 * g + j]));
            b[i].sc[g] = s2 > 0 ? e4m3_code(gmax / (6.f * s2)) : 0;
            const float d = e4m3_to_f32(b[i].sc[g]) * s2;
            for (int j = 0; j < 16; ++j) {
                const int k = 16 * g + j;
                const std::uint8_t c = d > 0 ? e2m1_code(x[k] / d) : 0;
                b[i].qs[k / 2] = std::uint8_t(b[i].qs[k / 2] | (c << (4 * (k & 1))));
            }
        }
    }
}

void dequant_ft_nvfp4(const BlockFtNvfp4* b, float* y, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i, y += 64) {
        float s2;
        std::memcpy(&s2, b[i].s2, 4);
        for (int g = 0; g < 4; ++g) {
            const float d = e4m3_to_f32(b[i].sc[g]) * s2;
            for (int j = 0; j < 16; ++j) {
                const int k = 16 * g + j;
                const int code = (b[i].qs[k / 2] >> (4 * (k & 1))) & 15;
                y[k] = d * (0.5f * float(kMxfp4Values[code]));  // E2M1 value: the doubled grid halved (exact)
            }
        }
    }
}

// ---- MXFP4 ----

void dequant_mxfp4(const BlockMxfp4* b, float* y, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i, y += 32) {
        const float d = e8m0_to_f32_half(b[i].e);
        for (int j = 0; j < 32; ++j) y[j] = d * kMxfp4Values[nib(b[i].qs, j)];
    }
}
// Nearest code of the doubled E2M1 grid for v (already divided by the block multiplier).
int mxfp4_code(float v) {
    int best = 0;
    float best_err = std::numeric_limits<float>::infinity();
    for (int c = 0; c < 16; ++c) {
        const float e = std::fabs(v - kMxfp4Values[c]);
        if (e < best_err) best_err = e, best = c;
    }
    return best;
}
void quant_mxfp4(const float* x, BlockMxfp4* b, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i, x += 32) {
        float amax = 0;
        for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[j]));
        // Smallest exponent that does not clip (amax <= 12 * 2^(e-128)), and one below it (clips the largest values
        // but resolves the rest twice as finely): keep whichever has the lower squared error.
        int e_hi = 0;
        if (!std::isfinite(amax))
            e_hi = 254;
        else if (amax > 0) e_hi = std::clamp(static_cast<int>(std::ceil(std::log2(amax / 12.0))) + 128, 0, 254);
        while (e_hi < 254 && amax > 12.f * e8m0_to_f32_half(static_cast<std::uint8_t>(e_hi))) ++e_hi;
        int best_e = e_hi;
        double best_err = std::numeric_limits<double>::infinity();
        for (int e : {e_hi - 1, e_hi}) {
            if (e < 0) continue;
            const float d = e8m0_to_f32_half(static_cast<std::uint8_t>(e));
            double err = 0;
            for (int j = 0; j < 32; ++j) {
                const double diff = x[j] - d * kMxfp4Values[mxfp4_code(x[j] / d)];
                err += diff * diff;
            }
            if (err < best_err) best_err = err, best_e = e;
        }
        b[i].e = static_cast<std::uint8_t>(best_e);
        const float d = e8m0_to_f32_half(b[i].e);
        std::memset(b[i].qs, 0, 16);
        for (int j = 0; j < 32; ++j) set_nib(b[i].qs, j, mxfp4_code(x[j] / d));
    }
}

// ---- legacy 32-element types with a min or a fifth bit ----

int bit32(const std::uint8_t qh[4], int i) { return (qh[i / 8] >> (i % 8)) & 1; }

void dequant_q4_1(const BlockQ4_1* b, float* y, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i, y += 32) {
        const float d = f16_to_f32(b[i].d), m = f16_to_f32(b[i].m);
        for (int j = 0; j < 32; ++j) y[j] = nib(b[i].qs, j) * d + m;
    }
}
void dequant_q5_0(const BlockQ5_0* b, float* y, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i, y += 32) {
        const float d = f16_to_f32(b[i].d);
        for (int j = 0; j < 32; ++j) y[j] = ((nib(b[i].qs, j) | bit32(b[i].qh, j) << 4) - 16) * d;
    }
}
void dequant_q5_1(const BlockQ5_1* b, float* y, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i, y += 32) {
        const float d = f16_to_f32(b[i].d), m = f16_to_f32(b[i].m);
        for (int j = 0; j < 32; ++j) y[j] = (nib(b[i].qs, j) | bit32(b[i].qh, j) << 4) * d + m;
    }
}

// ---- non-linear 4-bit ----

void dequant_iq4_nl(const BlockIq4Nl* b, float* y, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i, y += 32) {
        const float d = f16_to_f32(b[i].d);
        for (int j = 0; j < 32; ++j) y[j] = d * kIq4nlValues[nib(b[i].qs, j)];
    }
}
void dequant_iq4_xs(const BlockIq4Xs* b, float* y, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i) {
        const float d = f16_to_f32(b[i].d);
        for (int s = 0; s < 8; ++s, y += 32) {
            const int ls = ((b[i].scales_l[s / 2] >> (4 * (s % 2))) & 0xF) | (((b[i].scales_h >> (2 * s)) & 3) << 4);
            const float dl = d * (ls - 32);
            for (int j = 0; j < 32; ++j) y[j] = dl * kIq4nlValues[nib(b[i].qs + 16 * s, j)];
        }
    }
}

// ---- Q2_K / Q3_K: 2-bit codes, element i in 128-half h = i/128, w = i%128: (qs[32h + w%32] >> 2*(w/32)) & 3 ----

int q2k_code(const std::uint8_t* qs, int i) {
    const int h = i / 128, w = i % 128;
    return (qs[32 * h + w % 32] >> (2 * (w / 32))) & 3;
}
// Q3_K's 16 six-bit scales: low 4 bits in scales[0..8) (low nibbles for j < 8, high nibbles for j >= 8), high 2 bits
// in scales[8 + j%4] at bit 2*(j/4).
int q3k_scale(const std::uint8_t s[12], int j) {
    const int low = j < 8 ? (s[j] & 0xF) : (s[j - 8] >> 4);
    const int high = (s[8 + j % 4] >> (2 * (j / 4))) & 3;
    return (low | high << 4) - 32;
}

void dequant_q2_k(const BlockQ2_K* b, float* y, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i, y += 256) {
        const float d = f16_to_f32(b[i].d), dmin = f16_to_f32(b[i].dmin);
        for (int j = 0; j < 16; ++j) {
            const float dl = d * (b[i].scales[j] & 0xF), ml = dmin * (b[i].scales[j] >> 4);
            for (int l = 0; l < 16; ++l) y[16 * j + l] = dl * q2k_code(b[i].qs, 16 * j + l) - ml;
        }
    }
}
void dequant_q3_k(const BlockQ3_K* b, float* y, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i, y += 256) {
        const float d = f16_to_f32(b[i].d);
        for (int j = 0; j < 16; ++j) {
            const float dl = d * q3k_scale(b[i].scales, j);
            for (int l = 0; l < 16; ++l) {
                const int e = 16 * j + l, h = e / 128, w = e % 128;
                const int high = (b[i].hmask[w % 32] >> (4 * h + w / 32)) & 1;
                y[e] = dl * (q2k_code(b[i].qs, e) - (high ? 0 : 4));
            }
        }
    }
}

// ---- ternary ----

// TQ1_0 stores 5 (or 4) base-3 digits per byte as the fraction byte / 256 ≈ value / 3^5: digit n is the integer part
// of 3 · frac(byte · 3^n / 256), computed modulo 256 in 8 bits.
int tq1_digit(std::uint8_t byte, int n) {
    static constexpr std::uint8_t kPow3[5] = {1, 3, 9, 27, 81};
    const std::uint8_t q = static_cast<std::uint8_t>(byte * kPow3[n]);
    return (q * 3) >> 8;
}
void dequant_tq1_0(const BlockTq1_0* b, float* y, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i, y += 256) {
        const float d = f16_to_f32(b[i].d);
        // Elements 0..159: qs[0..32) × 5 digits; 160..239: qs[32..48) × 5 digits; 240..255: qh[0..4) × 4 digits.
        for (int n = 0; n < 5; ++n)
            for (int m = 0; m < 32; ++m) y[32 * n + m] = static_cast<float>(tq1_digit(b[i].qs[m], n) - 1) * d;
        for (int n = 0; n < 5; ++n)
            for (int m = 0; m < 16; ++m) y[160 + 16 * n + m] = static_cast<float>(tq1_digit(b[i].qs[32 + m], n) - 1) * d;
        for (int n = 0; n < 4; ++n)
            for (int m = 0; m < 4; ++m) y[240 + 4 * n + m] = static_cast<float>(tq1_digit(b[i].qh[m], n) - 1) * d;
    }
}
void dequant_tq2_0(const BlockTq2_0* b, float* y, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i, y += 256) {
        const float d = f16_to_f32(b[i].d);
        for (int e = 0; e < 256; ++e) y[e] = static_cast<float>(q2k_code(b[i].qs, e) - 1) * d;
    }
}

// ---- IQ lattice types ----

// 7 stored sign bits of 8 elements; the eighth makes the count of negatives even (kIqSigns, iq_grids.h).
int iq_signs8(int s7) { return kIqSigns[s7]; }
std::uint8_t grid_byte(std::uint64_t g, int j) { return static_cast<std::uint8_t>(g >> (8 * j)); }
float sign_of(int signs, int j) { return (signs >> j) & 1 ? -1.f : 1.f; }

std::uint32_t load_u32(const std::uint8_t* p) {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

void dequant_iq2_xxs(const BlockIq2Xxs* b, float* y, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i) {
        const float d = f16_to_f32(b[i].d);
        const auto* q8 = reinterpret_cast<const std::uint8_t*>(b[i].qs);
        for (int s = 0; s < 8; ++s) {
            // 8 bytes per 32: four grid indices, then 4 × 7 sign bits and a 4-bit scale.
            const std::uint32_t aux = load_u32(q8 + 8 * s + 4);
            const float db = d * (0.5f + static_cast<float>(aux >> 28)) * 0.25f;
            for (int l = 0; l < 4; ++l, y += 8) {
                const std::uint64_t g = k_iq2xxs_grid[q8[8 * s + l]];
                const int signs = iq_signs8(static_cast<int>((aux >> (7 * l)) & 127));
                for (int j = 0; j < 8; ++j) y[j] = db * grid_byte(g, j) * sign_of(signs, j);
            }
        }
    }
}
void dequant_iq2_xs(const BlockIq2Xs* b, float* y, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i) {
        const float d = f16_to_f32(b[i].d);
        for (int s = 0; s < 8; ++s) {
            const float db[2] = {d * (0.5f + static_cast<float>(b[i].scales[s] & 0xF)) * 0.25f,
                                 d * (0.5f + static_cast<float>(b[i].scales[s] >> 4)) * 0.25f};
            for (int l = 0; l < 4; ++l, y += 8) {
                const std::uint16_t q = b[i].qs[4 * s + l];  // 9-bit grid index, 7 sign bits
                const std::uint64_t g = k_iq2xs_grid[q & 511];
                const int signs = iq_signs8(q >> 9);
                for (int j = 0; j < 8; ++j) y[j] = db[l / 2] * grid_byte(g, j) * sign_of(signs, j);
            }
        }
    }
}
void dequant_iq2_s(const BlockIq2S* b, float* y, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i) {
        const float d = f16_to_f32(b[i].d);
        const std::uint8_t* signs = b[i].qs + 32;  // the second half of qs: one sign byte per 8 elements
        for (int s = 0; s < 8; ++s) {
            const float db[2] = {d * (0.5f + static_cast<float>(b[i].scales[s] & 0xF)) * 0.25f,
                                 d * (0.5f + static_cast<float>(b[i].scales[s] >> 4)) * 0.25f};
            for (int l = 0; l < 4; ++l, y += 8) {
                const int idx = b[i].qs[4 * s + l] | (((b[i].qh[s] >> (2 * l)) & 3) << 8);
                const std::uint64_t g = k_iq2s_grid[idx];
                for (int j = 0; j < 8; ++j) y[j] = db[l / 2] * grid_byte(g, j) * sign_of(signs[4 * s + l], j);
            }
        }
    }
}
void dequant_iq3_xxs(const BlockIq3Xxs* b, float* y, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i) {
        const float d = f16_to_f32(b[i].d);
        const std::uint8_t* idx = b[i].qs;        // 64 grid indices, 4 elements each
        const std::uint8_t* ss = b[i].qs + 64;    // per 32: 4 × 7 sign bits and a 4-bit scale
        for (int s = 0; s < 8; ++s) {
            const std::uint32_t aux = load_u32(ss + 4 * s);
            const float db = d * (0.5f + static_cast<float>(aux >> 28)) * 0.5f;
            for (int l = 0; l < 4; ++l, y += 8) {
                const int signs = iq_signs8(static_cast<int>((aux >> (7 * l)) & 127));
                const std::uint32_t g0 = k_iq3xxs_grid[idx[8 * s + 2 * l]], g1 = k_iq3xxs_grid[idx[8 * s + 2 * l + 1]];
                for (int j = 0; j < 4; ++j) {
                    y[j] = db * grid_byte(g0, j) * sign_of(signs, j);
                    y[j + 4] = db * grid_byte(g1, j) * sign_of(signs, j + 4);
                }
            }
        }
    }
}
void dequant_iq3_s(const BlockIq3S* b, float* y, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i) {
        const float d = f16_to_f32(b[i].d);
        for (int s = 0; s < 8; ++s) {
            const int sc = s % 2 == 0 ? (b[i].scales[s / 2] & 0xF) : (b[i].scales[s / 2] >> 4);
            const float db = d * (1 + 2 * sc);
            for (int l = 0; l < 4; ++l, y += 8) {
                // 9-bit grid indices: a qs byte and bit (2l) or (2l + 1) of qh[s].
                const int i0 = b[i].qs[8 * s + 2 * l] | (((b[i].qh[s] >> (2 * l)) & 1) << 8);
                const int i1 = b[i].qs[8 * s + 2 * l + 1] | (((b[i].qh[s] >> (2 * l + 1)) & 1) << 8);
                const int signs = b[i].signs[4 * s + l];
                for (int j = 0; j < 4; ++j) {
                    y[j] = db * grid_byte(k_iq3s_grid[i0], j) * sign_of(signs, j);
                    y[j + 4] = db * grid_byte(k_iq3s_grid[i1], j) * sign_of(signs, j + 4);
                }
            }
        }
    }
}

constexpr float kIq1Delta = 0.125f;
float iq1_grid_value(int idx, int j) { return static_cast<float>(static_cast<std::int8_t>(grid_byte(k_iq1s_grid[idx], j))); }

void dequant_iq1_s(const BlockIq1S* b, float* y, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i) {
        const float d = f16_to_f32(b[i].d);
        for (int s = 0; s < 8; ++s) {
            // qh[s]: 4 × 3 high index bits, a 3-bit scale, the sign of the shift.
            const int qh = b[i].qh[s];
            const float dl = d * (2 * ((qh >> 12) & 7) + 1);
            const float delta = (qh & 0x8000) ? -kIq1Delta : kIq1Delta;
            for (int l = 0; l < 4; ++l, y += 8) {
                const int idx = b[i].qs[4 * s + l] | (((qh >> (3 * l)) & 7) << 8);
                for (int j = 0; j < 8; ++j) y[j] = dl * (iq1_grid_value(idx, j) + delta);
            }
        }
    }
}
void dequant_iq1_m(const BlockIq1M* b, float* y, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i) {
        std::uint16_t sc[4];
        std::memcpy(sc, b[i].scales, 8);
        // The f16 super-scale is spread over the top nibbles of the four 16-bit scale words.
        const std::uint16_t d16 = static_cast<std::uint16_t>((sc[0] >> 12) | ((sc[1] >> 8) & 0x00F0) |
                                                             ((sc[2] >> 4) & 0x0F00) | (sc[3] & 0xF000));
        const float d = f16_to_f32(d16);
        for (int s = 0; s < 8; ++s) {
            // Two 3-bit scales per 32 (one per 16), 6 bits per 32 in sc[s/2].
            const float dl[2] = {d * (2 * ((sc[s / 2] >> (6 * (s % 2))) & 7) + 1),
                                 d * (2 * ((sc[s / 2] >> (6 * (s % 2) + 3)) & 7) + 1)};
            for (int l = 0; l < 4; ++l, y += 8) {
                // qh byte per pair of 8s: 3 high index bits and a shift sign bit for each (low nibble, high nibble).
                const int qh = b[i].qh[2 * s + l / 2] >> (4 * (l % 2));
                const int idx = b[i].qs[4 * s + l] | ((qh & 7) << 8);
                const float delta = (qh & 8) ? -kIq1Delta : kIq1Delta;
                for (int j = 0; j < 8; ++j) y[j] = dl[l / 2] * (iq1_grid_value(idx, j) + delta);
            }
        }
    }
}

// ---- K-quants: element <-> storage position ----

// Q4_K/Q5_K: element i lives in 64-chunk c = i/64; low nibble of qs[32c + i%32] for i%64 < 32, high otherwise.
int q4k_code(const std::uint8_t* qs, int i) {
    const int c = i / 64, w = i % 64;
    const std::uint8_t byte = qs[32 * c + (w % 32)];
    return w < 32 ? (byte & 0xF) : (byte >> 4);
}
int q5k_high(const std::uint8_t* qh, int i) {
    const int c = i / 64, w = i % 64;
    return (qh[w % 32] >> (2 * c + (w >= 32 ? 1 : 0))) & 1;
}
// Q6_K: element i in 128-half h = i/128, w = i%128, quarter k = w/32, l = w%32. Low 4 bits: ql[64h + l + 32*(k&1)],
// low nibble for k < 2, high for k >= 2. High 2 bits: qh[32h + l] bits 2k..2k+1.
int q6k_code(const std::uint8_t* ql, const std::uint8_t* qh, int i) {
    const int h = i / 128, w = i % 128, k = w / 32, l = w % 32;
    const std::uint8_t lo = ql[64 * h + l + 32 * (k & 1)];
    const int low = k < 2 ? (lo & 0xF) : (lo >> 4);
    const int high = (qh[32 * h + l] >> (2 * k)) & 3;
    return low | (high << 4);
}

void dequant_q4_k(const BlockQ4_K* b, float* y, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i, y += 256) {
        const float d = f16_to_f32(b[i].d), dmin = f16_to_f32(b[i].dmin);
        for (int j = 0; j < 8; ++j) {
            std::uint8_t sc, m;
            k_scale_min_get(b[i].scales, j, &sc, &m);
            const float ds = d * sc, dm = dmin * m;
            for (int l = 0; l < 32; ++l) y[32 * j + l] = ds * q4k_code(b[i].qs, 32 * j + l) - dm;
        }
    }
}
void dequant_q5_k(const BlockQ5_K* b, float* y, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i, y += 256) {
        const float d = f16_to_f32(b[i].d), dmin = f16_to_f32(b[i].dmin);
        for (int j = 0; j < 8; ++j) {
            std::uint8_t sc, m;
            k_scale_min_get(b[i].scales, j, &sc, &m);
            const float ds = d * sc, dm = dmin * m;
            for (int l = 0; l < 32; ++l) {
                const int e = 32 * j + l;
                y[e] = ds * (q4k_code(b[i].qs, e) | (q5k_high(b[i].qh, e) << 4)) - dm;
            }
        }
    }
}
void dequant_q6_k(const BlockQ6_K* b, float* y, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i, y += 256) {
        const float d = f16_to_f32(b[i].d);
        for (int e = 0; e < 256; ++e) y[e] = d * b[i].scales[e / 16] * (q6k_code(b[i].ql, b[i].qh, e) - 32);
    }
}

// Asymmetric fit of one sub-block onto codes 0..qmax: x ≈ scale * q - min_off with scale >= 0, min_off >= 0 (the
// grid always contains 0, as the K-quant format requires). Tries a few ranges around [min(x,0), max(x)], keeps the
// lowest squared error, then refines (scale, min_off) by least squares on the chosen codes while that helps.
double asym_error(const float* x, int n, int qmax, float s, float m) {
    const float is = 1.f / s;
    double err = 0;
    for (int i = 0; i < n; ++i) {
        const int q = std::clamp(round_even(std::max(0.f, (x[i] + m) * is)), 0, qmax);
        const double diff = x[i] - (s * q - m);
        err += diff * diff;
    }
    return err;
}

// anchor_zero = false (Q4_1/Q5_1, whose min is a free f16): the grid need not contain 0, min_off may be negative.
void fit_asym(const float* x, int n, int qmax, float* scale, float* min_off, bool anchor_zero = true) {
    float lo = anchor_zero ? 0.f : x[0], hi = lo;
    for (int i = 0; i < n; ++i) lo = std::min(lo, x[i]), hi = std::max(hi, x[i]);
    if (hi <= lo) {
        *scale = 0, *min_off = -lo;
        return;
    }
    float best_s = (hi - lo) / qmax, best_m = -lo;
    double best_err = std::numeric_limits<double>::infinity();
    for (int step = -4; step <= 4; ++step) {
        const float s = (hi - lo) / (qmax + 0.15f * step);
        const double err = asym_error(x, n, qmax, s, -lo);
        if (err < best_err) best_err = err, best_s = s, best_m = -lo;
    }
    for (int iter = 0; iter < 3; ++iter) {
        // Least-squares (s, m) for the current assignment: x ≈ s*q - m.
        const float is = 1.f / best_s;
        double sq = 0, sqq = 0, sx = 0, sqx = 0;
        for (int i = 0; i < n; ++i) {
            const int q = std::clamp(round_even(std::max(0.f, (x[i] + best_m) * is)), 0, qmax);
            sq += q, sqq += double(q) * q, sx += x[i], sqx += q * double(x[i]);
        }
        const double det = n * sqq - sq * sq;
        if (det <= 0) break;
        const double ns = (n * sqx - sq * sx) / det;
        const double nm = (sq * sqx - sqq * sx) / det;
        if (ns <= 0 || (anchor_zero && nm < 0)) break;
        const double err = asym_error(x, n, qmax, static_cast<float>(ns), static_cast<float>(nm));
        if (err >= best_err) break;
        best_err = err, best_s = static_cast<float>(ns), best_m = static_cast<float>(nm);
    }
    *scale = best_s, *min_off = best_m;
}

// Quantizes the 8 (scale, min) pairs of a Q4_K/Q5_K block to 6 bits under f16 super-scales; returns the effective
// per-sub-block scale and offset to quantize the elements against.
void k_super_scales(const float sc[8], const float mn[8], std::uint16_t* d16, std::uint16_t* dmin16,
                    std::uint8_t scales[12], float eff_s[8], float eff_m[8]) {
    float max_s = 0, max_m = 0;
    for (int j = 0; j < 8; ++j) max_s = std::max(max_s, sc[j]), max_m = std::max(max_m, mn[j]);
    *d16 = f16_ceil(max_s / 63.f);
    *dmin16 = f16_ceil(max_m / 63.f);
    const float d = f16_to_f32(*d16), dmin = f16_to_f32(*dmin16);
    std::memset(scales, 0, 12);
    for (int j = 0; j < 8; ++j) {
        const int qs = d > 0 ? std::clamp(round_even(sc[j] / d), 0, 63) : 0;
        // Round the offset up so that the sub-block's minimum stays representable.
        const int qm = dmin > 0 ? std::clamp(static_cast<int>(std::ceil(mn[j] / dmin - 1e-4f)), 0, 63) : 0;
        k_scale_min_set(scales, j, static_cast<std::uint8_t>(qs), static_cast<std::uint8_t>(qm));
        eff_s[j] = d * qs;
        eff_m[j] = dmin * qm;
    }
}

void quant_k45(const float* x, std::uint8_t q[256], std::uint16_t* d16, std::uint16_t* dmin16, std::uint8_t scales[12],
               int qmax) {
    float sc[8], mn[8], es[8], em[8];
    for (int j = 0; j < 8; ++j) fit_asym(x + 32 * j, 32, qmax, &sc[j], &mn[j]);
    k_super_scales(sc, mn, d16, dmin16, scales, es, em);
    for (int i = 0; i < 256; ++i) {
        const int j = i / 32;
        q[i] = es[j] > 0 ? static_cast<std::uint8_t>(std::clamp(round_even(std::max(0.f, (x[i] + em[j]) / es[j])), 0, qmax))
                         : 0;
    }
}

void quant_q4_k(const float* x, BlockQ4_K* b, std::int64_t nb) {
    std::uint8_t q[256];
    for (std::int64_t i = 0; i < nb; ++i, x += 256) {
        quant_k45(x, q, &b[i].d, &b[i].dmin, b[i].scales, 15);
        q4_k_pack(q, &b[i]);
    }
}
void quant_q5_k(const float* x, BlockQ5_K* b, std::int64_t nb) {
    std::uint8_t q[256];
    for (std::int64_t i = 0; i < nb; ++i, x += 256) {
        quant_k45(x, q, &b[i].d, &b[i].dmin, b[i].scales, 31);
        q5_k_pack(q, &b[i]);
    }
}
void quant_q6_k(const float* x, BlockQ6_K* b, std::int64_t nb) {
    std::uint8_t q[256];
    for (std::int64_t i = 0; i < nb; ++i, x += 256) {
        // Symmetric per 16: the value of largest magnitude maps onto -32 (grid [-32s, 31s]); s goes to int8 scales
        // under one f16 super-scale.
        float sub[16];
        float max_abs_sub = 0;
        for (int j = 0; j < 16; ++j) {
            float vmax = 0;
            for (int l = 0; l < 16; ++l)
                if (std::fabs(x[16 * j + l]) > std::fabs(vmax)) vmax = x[16 * j + l];
            sub[j] = vmax / -32.f;
            max_abs_sub = std::max(max_abs_sub, std::fabs(sub[j]));
        }
        b[i].d = f16_ceil(max_abs_sub / 127.f);
        const float d = f16_to_f32(b[i].d);
        for (int j = 0; j < 16; ++j) {
            const int s = d > 0 ? std::clamp(round_nearest(sub[j] / d), -127, 127) : 0;
            b[i].scales[j] = static_cast<std::int8_t>(s);
            const float es = d * s;
            for (int l = 0; l < 16; ++l)
                q[16 * j + l] = es != 0 ? static_cast<std::uint8_t>(std::clamp(round_nearest(x[16 * j + l] / es) + 32, 0, 63))
                                        : 32;
        }
        q6_k_pack(q, &b[i]);
    }
}

// ---- quantizers of the legacy 32-element types with a min or a fifth bit, Q2_K/Q3_K and IQ4_NL/IQ4_XS ----

double sq(double v) { return v * v; }

// Symmetric codes qlo..qhi (qlo < 0 < qhi) under one scale s: x ≈ s * q. The value of largest magnitude is mapped
// onto points a little inside and outside either end of the code range (s may come out negative: then the long
// negative end covers the positive side), each candidate refined once by least squares on its codes; the lowest
// squared error wins. Returns 0 for an all-zero x.
double sym_error(const float* x, int n, int qlo, int qhi, float s, double* sxq, double* sqq) {
    double err = 0, a = 0, b = 0;
    const float is = s != 0 ? 1.f / s : 0.f;
    for (int i = 0; i < n; ++i) {
        const int q = std::clamp(round_nearest(x[i] * is), qlo, qhi);
        err += sq(x[i] - s * q), a += double(x[i]) * q, b += double(q) * q;
    }
    if (sxq) *sxq = a, *sqq = b;
    return err;
}
float fit_sym(const float* x, int n, int qlo, int qhi) {
    float vmax = 0;
    for (int i = 0; i < n; ++i)
        if (std::fabs(x[i]) > std::fabs(vmax)) vmax = x[i];
    if (vmax == 0) return 0.f;
    float best_s = vmax / qlo;
    double best_err = std::numeric_limits<double>::infinity();
    for (int end : {qlo, qhi})
        for (int step = -1; step <= 3; ++step) {
            // Towards the middle of the range (clipping the largest values a little) and just past its end.
            const float t = static_cast<float>(end) * (1.f - 0.04f * step);
            const float s = vmax / t;
            double a, b;
            double err = sym_error(x, n, qlo, qhi, s, &a, &b);
            if (err < best_err) best_err = err, best_s = s;
            if (b > 0) {
                const float ls = static_cast<float>(a / b);
                err = sym_error(x, n, qlo, qhi, ls, nullptr, nullptr);
                if (err < best_err) best_err = err, best_s = ls;
            }
        }
    return best_s;
}

void quant_q4_1(const float* x, BlockQ4_1* b, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i, x += 32) {
        float s, off;
        fit_asym(x, 32, 15, &s, &off, false);
        b[i].d = f32_to_f16(s), b[i].m = f32_to_f16(-off);
        const float d = f16_to_f32(b[i].d), m = f16_to_f32(b[i].m), id = d > 0 ? 1.f / d : 0.f;
        std::memset(b[i].qs, 0, 16);
        for (int j = 0; j < 32; ++j) set_nib(b[i].qs, j, std::clamp(round_nearest((x[j] - m) * id), 0, 15));
    }
}
void quant_q5_1(const float* x, BlockQ5_1* b, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i, x += 32) {
        float s, off;
        fit_asym(x, 32, 31, &s, &off, false);
        b[i].d = f32_to_f16(s), b[i].m = f32_to_f16(-off);
        const float d = f16_to_f32(b[i].d), m = f16_to_f32(b[i].m), id = d > 0 ? 1.f / d : 0.f;
        std::memset(b[i].qs, 0, 16);
        std::memset(b[i].qh, 0, 4);
        for (int j = 0; j < 32; ++j) {
            const int q = std::clamp(round_nearest((x[j] - m) * id), 0, 31);
            set_nib(b[i].qs, j, q & 0xF);
            b[i].qh[j / 8] |= static_cast<std::uint8_t>((q >> 4) << (j % 8));
        }
    }
}
void quant_q5_0(const float* x, BlockQ5_0* b, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i, x += 32) {
        b[i].d = f32_to_f16(fit_sym(x, 32, -16, 15));
        const float d = f16_to_f32(b[i].d), id = d != 0 ? 1.f / d : 0.f;
        std::memset(b[i].qs, 0, 16);
        std::memset(b[i].qh, 0, 4);
        for (int j = 0; j < 32; ++j) {
            const int q = std::clamp(round_nearest(x[j] * id), -16, 15) + 16;
            set_nib(b[i].qs, j, q & 0xF);
            b[i].qh[j / 8] |= static_cast<std::uint8_t>((q >> 4) << (j % 8));
        }
    }
}

// The nearest IQ4_NL code of v (in table units). The midpoints between neighbouring table values are multiples of
// 1/2, so the nearest code is constant on each half-unit interval [k/2, (k+1)/2): a lookup on floor(2v).
struct Iq4Lut {
    std::uint8_t code[512];
    constexpr Iq4Lut() : code{} {
        for (int i = 0; i < 512; ++i) {
            const double v = (i - 256) / 2.0 + 0.25;  // inside the interval
            int best = 0;
            for (int c = 1; c < 16; ++c)
                if ((v - kIq4nlValues[c]) * (v - kIq4nlValues[c]) < (v - kIq4nlValues[best]) * (v - kIq4nlValues[best])) best = c;
            code[i] = static_cast<std::uint8_t>(best);
        }
    }
};
constexpr Iq4Lut kIq4Lut{};
int iq4_code(float v) {
    const float t = 2.f * v + 256.f;
    return kIq4Lut.code[t >= 0.f ? static_cast<int>(std::min(t, 511.f)) : 0];  // NaN: code 0
}
double iq4_error(const float* x, int n, float s, double* sxv, double* svv) {
    double err = 0, a = 0, b = 0;
    const float is = s != 0 ? 1.f / s : 0.f;
    for (int i = 0; i < n; ++i) {
        const int v = kIq4nlValues[iq4_code(x[i] * is)];
        err += sq(x[i] - s * v), a += double(x[i]) * v, b += double(v) * v;
    }
    if (sxv) *sxv = a, *svv = b;
    return err;
}
// The scale of x ≈ s * kIq4nlValues[code]: the largest |x| onto either end of the table (−127 or 113) and a few
// points inside, each refined by least squares on its codes; the lowest squared error wins.
float fit_iq4(const float* x, int n) {
    float vmax = 0;
    for (int i = 0; i < n; ++i)
        if (std::fabs(x[i]) > std::fabs(vmax)) vmax = x[i];
    if (vmax == 0) return 0.f;
    float best_s = vmax / -127.f;
    double best_err = std::numeric_limits<double>::infinity();
    for (float end : {-127.f, 113.f})
        for (int step = -1; step <= 4; ++step) {
            const float s = vmax / (end * (1.f - 0.04f * step));
            double a, b;
            double err = iq4_error(x, n, s, &a, &b);
            if (err < best_err) best_err = err, best_s = s;
            if (b > 0) {
                const float ls = static_cast<float>(a / b);
                err = iq4_error(x, n, ls, nullptr, nullptr);
                if (err < best_err) best_err = err, best_s = ls;
            }
        }
    return best_s;
}

void quant_iq4_nl(const float* x, BlockIq4Nl* b, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i, x += 32) {
        b[i].d = f32_to_f16(fit_iq4(x, 32));
        const float d = f16_to_f32(b[i].d), id = d != 0 ? 1.f / d : 0.f;
        std::memset(b[i].qs, 0, 16);
        for (int j = 0; j < 32; ++j) set_nib(b[i].qs, j, iq4_code(x[j] * id));
    }
}

// A signed sub-block scale s onto the integer l ∈ [lo, hi] of a shared super-scale d (s ≈ d * l): the nearest l and
// its two neighbours, the one whose codes give the lowest error (err(l) is the sub-block's error at scale d * l).
template <class Err>
int best_level(float s, float d, int lo, int hi, Err err) {
    const int l0 = d != 0 ? std::clamp(round_nearest(s / d), lo, hi) : 0;
    int best = l0;
    double best_err = err(l0);
    for (int l : {l0 - 1, l0 + 1}) {
        if (l < lo || l > hi) continue;
        const double e = err(l);
        if (e < best_err) best_err = e, best = l;
    }
    return best;
}
// The f16 super-scale that maps the sub-block scale of largest magnitude onto `lo` (a negative level: the long end
// of a signed range, so both signs fit); rounded up in magnitude so that the level does not overflow.
std::uint16_t signed_super_scale(const float* s, int n, int lo) {
    float smax = 0;
    for (int j = 0; j < n; ++j)
        if (std::fabs(s[j]) > std::fabs(smax)) smax = s[j];
    const std::uint16_t mag = f16_ceil(std::fabs(smax) / static_cast<float>(-lo));
    return smax > 0 ? static_cast<std::uint16_t>(mag | 0x8000) : mag;
}

void quant_iq4_xs(const float* x, BlockIq4Xs* b, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i, x += 256) {
        float s[8];
        for (int j = 0; j < 8; ++j) s[j] = fit_iq4(x + 32 * j, 32);
        b[i].d = signed_super_scale(s, 8, -32);
        const float d = f16_to_f32(b[i].d);
        b[i].scales_h = 0;
        std::memset(b[i].scales_l, 0, 4);
        std::memset(b[i].qs, 0, 128);
        for (int j = 0; j < 8; ++j) {
            const float* xs = x + 32 * j;
            const int l = best_level(s[j], d, -32, 31, [&](int l) { return iq4_error(xs, 32, d * l, nullptr, nullptr); });
            const int ls = l + 32;
            b[i].scales_l[j / 2] |= static_cast<std::uint8_t>((ls & 0xF) << (4 * (j % 2)));
            b[i].scales_h |= static_cast<std::uint16_t>((ls >> 4) << (2 * j));
            const float dl = d * l, id = dl != 0 ? 1.f / dl : 0.f;
            for (int e = 0; e < 32; ++e) set_nib(b[i].qs + 16 * j, e, iq4_code(xs[e] * id));
        }
    }
}

// Q2_K/Q3_K's 2-bit code position (element e of the super-block; see q2k_code).
void q2k_set(std::uint8_t* qs, int e, int v) {
    const int h = e / 128, w = e % 128;
    qs[32 * h + w % 32] |= static_cast<std::uint8_t>((v & 3) << (2 * (w / 32)));
}

void quant_q3_k(const float* x, BlockQ3_K* b, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i, x += 256) {
        float s[16];
        for (int j = 0; j < 16; ++j) s[j] = fit_sym(x + 16 * j, 16, -4, 3);
        b[i].d = signed_super_scale(s, 16, -32);
        const float d = f16_to_f32(b[i].d);
        std::memset(b[i].hmask, 0, 32);
        std::memset(b[i].qs, 0, 64);
        std::memset(b[i].scales, 0, 12);
        for (int j = 0; j < 16; ++j) {
            const float* xs = x + 16 * j;
            const int l = best_level(s[j], d, -32, 31, [&](int l) { return sym_error(xs, 16, -4, 3, d * l, nullptr, nullptr); });
            const int sc = l + 32;  // 6 bits: low 4 in a nibble of scales[0..8), high 2 in scales[8 + j%4]
            b[i].scales[j % 8] |= static_cast<std::uint8_t>((sc & 0xF) << (j < 8 ? 0 : 4));
            b[i].scales[8 + j % 4] |= static_cast<std::uint8_t>((sc >> 4) << (2 * (j / 4)));
            const float dl = d * l, id = dl != 0 ? 1.f / dl : 0.f;
            for (int e = 0; e < 16; ++e) {
                const int q = std::clamp(round_nearest(xs[e] * id), -4, 3) + 4;  // stored: low 2 bits, then "not −4"
                const int el = 16 * j + e, h = el / 128, w = el % 128;
                q2k_set(b[i].qs, el, q & 3);
                b[i].hmask[w % 32] |= static_cast<std::uint8_t>((q >> 2) << (4 * h + w / 32));
            }
        }
    }
}

void quant_q2_k(const float* x, BlockQ2_K* b, std::int64_t nb) {
    for (std::int64_t i = 0; i < nb; ++i, x += 256) {
        float s[16], m[16], max_s = 0, max_m = 0;
        for (int j = 0; j < 16; ++j) {
            fit_asym(x + 16 * j, 16, 3, &s[j], &m[j]);
            max_s = std::max(max_s, s[j]), max_m = std::max(max_m, m[j]);
        }
        b[i].d = f16_ceil(max_s / 15.f);
        b[i].dmin = f16_ceil(max_m / 15.f);
        const float d = f16_to_f32(b[i].d), dmin = f16_to_f32(b[i].dmin);
        std::memset(b[i].qs, 0, 64);
        for (int j = 0; j < 16; ++j) {
            const float* xs = x + 16 * j;
            // The 4-bit (scale, min) pair: the nearest of each and their neighbours, the lowest error of the nine.
            const int sc0 = d > 0 ? std::clamp(round_even(s[j] / d), 0, 15) : 0;
            const int m0 = dmin > 0 ? std::clamp(round_even(m[j] / dmin), 0, 15) : 0;
            int best_sc = sc0, best_m = m0;
            double best_err = std::numeric_limits<double>::infinity();
            for (int sc = std::max(0, sc0 - 1); sc <= std::min(15, sc0 + 1); ++sc)
                for (int mm = std::max(0, m0 - 1); mm <= std::min(15, m0 + 1); ++mm) {
                    const float es = d * sc, em = dmin * mm;
                    double err = 0;
                    for (int e = 0; e < 16; ++e) {
                        const int q = es > 0 ? std::clamp(round_even(std::max(0.f, (xs[e] + em) / es)), 0, 3) : 0;
                        err += sq(xs[e] - (es * q - em));
                    }
                    if (err < best_err) best_err = err, best_sc = sc, best_m = mm;
                }
            b[i].scales[j] = static_cast<std::uint8_t>(best_sc | best_m << 4);
            const float es = d * best_sc, em = dmin * best_m;
            for (int e = 0; e < 16; ++e)
                q2k_set(b[i].qs, 16 * j + e, es > 0 ? std::clamp(round_even(std::max(0.f, (xs[e] + em) / es)), 0, 3) : 0);
        }
    }
}


// ---- ternary quantizers (TQ1_0, TQ2_0): x ≈ d * t, t ∈ {-1, 0, 1}, one d per 256 ----

// With one scale and ternary codes the best choice is exact: the k largest |x| take ±1 and d is their mean |x|,
// so the squared error is Σx² − (Σ of the k largest |x|)² / k; k is the one that maximises the second term. Then
// d goes to f16 and every code is the nearest of −d, 0, d.
float fit_ternary(const float* x, int n, float* mags) {
    for (int i = 0; i < n; ++i) mags[i] = std::fabs(x[i]);
    std::sort(mags, mags + n, [](float a, float b) { return a > b; });
    double sum = 0, best = 0;
    float d = 0;
    for (int k = 1; k <= n; ++k) {
        sum += mags[k - 1];
        const double gain = sum * sum / k;
        if (gain > best) best = gain, d = static_cast<float>(sum / k);
    }
    return d;
}
int ternary_code(float v, float d) {  // the stored digit 0, 1, 2 (value − 1)
    if (!(d > 0)) return 1;
    return v > 0.5f * d ? 2 : v < -0.5f * d ? 0 : 1;
}
void quant_tq2_0(const float* x, BlockTq2_0* b, std::int64_t nb) {
    float mags[256];
    for (std::int64_t i = 0; i < nb; ++i, x += 256) {
        b[i].d = f32_to_f16(fit_ternary(x, 256, mags));
        const float d = f16_to_f32(b[i].d);
        std::memset(b[i].qs, 0, 64);
        for (int e = 0; e < 256; ++e) q2k_set(b[i].qs, e, ternary_code(x[e], d));  // TQ2_0 shares Q2_K's code order
    }
}
// TQ1_0's byte of base-3 digits t[0..5) (t[0] the first decoded, see tq1_digit): the smallest byte whose fraction
// byte / 256 is at least v / 3^5 for v = Σ t[n] 3^(4−n); each digit then reads back exactly.
std::uint8_t tq1_byte(const int* t, int count) {
    int v = 0;
    for (int n = 0; n < 5; ++n) v = 3 * v + (n < count ? t[n] : 0);
    return static_cast<std::uint8_t>((v * 256 + 242) / 243);
}
void quant_tq1_0(const float* x, BlockTq1_0* b, std::int64_t nb) {
    float mags[256];
    int t[256];
    for (std::int64_t i = 0; i < nb; ++i, x += 256) {
        b[i].d = f32_to_f16(fit_ternary(x, 256, mags));
        const float d = f16_to_f32(b[i].d);
        for (int e = 0; e < 256; ++e) t[e] = ternary_code(x[e], d);
        // The layout of dequant_tq1_0: element 32n + m is digit n of qs[m] (m < 32); 160 + 16n + m digit n of
        // qs[32 + m] (m < 16); 240 + 4n + m digit n of qh[m] (m < 4, four digits).
        int g[5];
        for (int m = 0; m < 32; ++m) {
            for (int n = 0; n < 5; ++n) g[n] = t[32 * n + m];
            b[i].qs[m] = tq1_byte(g, 5);
        }
        for (int m = 0; m < 16; ++m) {
            for (int n = 0; n < 5; ++n) g[n] = t[160 + 16 * n + m];
            b[i].qs[32 + m] = tq1_byte(g, 5);
        }
        for (int m = 0; m < 4; ++m) {
            for (int n = 0; n < 4; ++n) g[n] = t[240 + 4 * n + m];
            b[i].qh[m] = tq1_byte(g, 4);
        }
    }
}

// ---- lattice quantizers (IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S) ----
//
// Each stores groups of 8 magnitudes taken from a grid (one point of 8 for the IQ2 types, two points of 4 for the
// IQ3 types), 8 signs per group — IQ2_XXS, IQ2_XS and IQ3_XXS store 7 and imply the eighth (an even count of
// negatives), IQ2_S and IQ3_S store all 8 — and a 4-bit scale level per 32 (per 16 for IQ2_XS and IQ2_S) of the
// block's f16 d. For a group with magnitudes a = |x| and a grid choice g under scale s the squared error is
// Σx² − 2s·a·g + s²·g·g, plus, when the signs carry a parity and x has an odd count of negatives, 4s·min_j a_j g_j:
// one element must take the wrong sign and the cheapest one does. Both terms are linear in s, so each group's
// "effective dot" eff(g) = a·g − 2·[odd]·min_j a_j g_j is computed once for every grid point, and the error at any
// scale is Σx² − 2s·eff(g) + s²·|g|². Per scale group a sweep of scales picks the best, refined by least squares on
// its choices; the 4-bit level of each then takes the best of the nearest level and its neighbours under the
// block's d.

constexpr int kLatticeMaxPoints = 1024;

struct LatticeGrid {
    int points = 0, width = 0;    // grid points and elements per point (8 or 4)
    float value[kLatticeMaxPoints][8] = {};   // the point's magnitudes
    float column[8][kLatticeMaxPoints] = {};  // the same by element (the group search runs over points)
    float norm[kLatticeMaxPoints] = {};       // Σ value²
    float vmax = 0;               // largest magnitude in the grid
    float levels[8] = {};         // the distinct magnitudes (IQ2 grids 3, IQ3 grids 8)
    int n_levels = 0;
    std::uint16_t by_norm[kLatticeMaxPoints] = {};  // points by decreasing norm (the lines' slopes, see LatticeHull)
};
template <class T>
LatticeGrid* make_grid(const T* table, int points, int width) {
    auto* g = new LatticeGrid;  // built once per type, kept for the process
    g->points = points, g->width = width;
    for (int p = 0; p < points; ++p)
        for (int j = 0; j < width; ++j) {
            const float v = static_cast<float>(grid_byte(table[p], j));
            g->value[p][j] = g->column[j][p] = v, g->norm[p] += v * v, g->vmax = std::max(g->vmax, v);
            if (std::find(g->levels, g->levels + g->n_levels, v) == g->levels + g->n_levels && g->n_levels < 8)
                g->levels[g->n_levels++] = v;
        }
    for (int p = 0; p < points; ++p) g->by_norm[p] = static_cast<std::uint16_t>(p);
    std::stable_sort(g->by_norm, g->by_norm + points, [&](int a, int b) { return g->norm[a] > g->norm[b]; });
    return g;
}
const LatticeGrid& lattice_grid(DType t) {
    switch (t) {
        case DType::IQ2_XXS: { static const LatticeGrid* g = make_grid(k_iq2xxs_grid, 256, 8); return *g; }
        case DType::IQ2_XS: { static const LatticeGrid* g = make_grid(k_iq2xs_grid, 512, 8); return *g; }
        case DType::IQ2_S: { static const LatticeGrid* g = make_grid(k_iq2s_grid, 1024, 8); return *g; }
        case DType::IQ3_XXS: { static const LatticeGrid* g = make_grid(k_iq3xxs_grid, 256, 4); return *g; }
        default: { static const LatticeGrid* g = make_grid(k_iq3s_grid, 512, 4); return *g; }  // IQ3_S
    }
}

// Choosing a point at scale s costs s·(s·|g|² − 2·eff(g)): a line in s per point. Only the points on the lower
// envelope of those lines can win at any scale, usually a dozen; the envelope is built once per group (points in
// decreasing |g|², the convex hull trick) and every scale tried scans only it.
struct LatticeHull {
    int n = 0;
    float norm[kLatticeMaxPoints], eff[kLatticeMaxPoints];
    std::uint16_t point[kLatticeMaxPoints];
};
constexpr int kIq1Points = 2048;  // IQ1_S/IQ1_M's grid (their own search below builds the same hulls)
// points: the grid's size; by_norm: its points by decreasing norm; norm, eff: per point. The hull has at most one line
// per distinct norm (at most kLatticeMaxPoints on every grid here).
void lattice_hull(int points, const std::uint16_t* by_norm, const float* norm, const float* eff, LatticeHull* h) {
    // A point with a larger |g|² and no larger eff than another is never chosen: in increasing |g|², only the points
    // that raise the best eff so far remain (a handful), then the hull of those.
    int keep[kIq1Points], n_keep = 0;
    float best_eff = -std::numeric_limits<float>::infinity();
    for (int r = points - 1; r >= 0; --r) {
        const int p = by_norm[r];
        if (eff[p] > best_eff) best_eff = eff[p], keep[n_keep++] = p;
    }
    h->n = 0;
    for (int r = n_keep - 1; r >= 0; --r) {
        const int p = keep[r];
        const double m = norm[p], c = -2.0 * eff[p];  // slope, intercept
        if (h->n > 0 && h->norm[h->n - 1] == norm[p]) {  // same slope: keep the lower line
            if (c >= -2.0 * h->eff[h->n - 1]) continue;
            --h->n;
        }
        while (h->n >= 2) {
            // The last line is useless when the new one meets the one before it no later than the last does.
            const double ma = h->norm[h->n - 2], ca = -2.0 * h->eff[h->n - 2];
            const double mb = h->norm[h->n - 1], cb = -2.0 * h->eff[h->n - 1];
            if ((c - ca) * (ma - mb) <= (cb - ca) * (ma - m)) --h->n;
            else break;
        }
        h->norm[h->n] = norm[p], h->eff[h->n] = eff[p], h->point[h->n] = static_cast<std::uint16_t>(p);
        ++h->n;
    }
}

// One group of 8 elements: per part (1 point of 8, or 2 points of 4) and grid point, a·g and min_j a_j g_j. With an
// odd count of negatives under a parity and two parts the flipped element lies in one of them: each case (the flip
// charged to part c) is searched and the better kept; the true cost of a choice is then min over parts, which that
// case attains.
struct LatticeGroup {
    float a[8];
    bool odd = false;
    int parts = 1;
    float dot[2][kLatticeMaxPoints], mn[2][kLatticeMaxPoints];  // [part][point]
    LatticeHull hull[2][2];                                     // [case][part]
};
void lattice_group_init(const float* x, const LatticeGrid& g, bool parity, LatticeGroup* G) {
    int neg = 0;
    for (int j = 0; j < 8; ++j) G->a[j] = std::fabs(x[j]), neg += x[j] < 0;
    G->odd = parity && neg % 2 != 0;
    G->parts = 8 / g.width;
    float eff[kLatticeMaxPoints];
    for (int part = 0; part < G->parts; ++part) {
        const float* a = G->a + part * g.width;
        float* dot = G->dot[part];
        float* mn = G->mn[part];
        for (int p = 0; p < g.points; ++p) dot[p] = 0, mn[p] = std::numeric_limits<float>::infinity();
        for (int j = 0; j < g.width; ++j)
            for (int p = 0; p < g.points; ++p) {
                const float v = a[j] * g.column[j][p];
                dot[p] += v, mn[p] = std::min(mn[p], v);
            }
        for (int c = 0; c < (G->odd && G->parts == 2 ? 2 : 1); ++c) {
            const float k = G->odd && part == c ? 2.f : 0.f;
            for (int p = 0; p < g.points; ++p) eff[p] = dot[p] - k * mn[p];
            lattice_hull(g.points, g.by_norm, g.norm, eff, &G->hull[c][part]);
        }
    }
}
// The effective dot of a choice: Σ a·g less twice the cheapest flip when the signs need one.
double lattice_eff(const LatticeGroup& G, const int* pick) {
    double dot = 0, mn = std::numeric_limits<double>::infinity();
    for (int part = 0; part < G.parts; ++part) dot += G.dot[part][pick[part]], mn = std::min<double>(mn, G.mn[part][pick[part]]);
    return G.odd ? dot - 2 * mn : dot;
}
// The group's best choice at scale s: its error minus Σx² (≤ 0) and the points chosen.
double lattice_group_best(const LatticeGroup& G, float s, int* pick) {
    double best_total = std::numeric_limits<double>::infinity();
    for (int c = 0; c < (G.odd && G.parts == 2 ? 2 : 1); ++c) {
        double total = 0;
        int chosen[2] = {0, 0};
        for (int part = 0; part < G.parts; ++part) {
            const LatticeHull& h = G.hull[c][part];
            float best = std::numeric_limits<float>::infinity();
            for (int r = 0; r < h.n; ++r) {
                const float e = s * (s * h.norm[r] - 2 * h.eff[r]);
                if (e < best) best = e, chosen[part] = h.point[r];
            }
            total += best;
        }
        if (total < best_total) {
            best_total = total;
            for (int part = 0; part < G.parts; ++part) pick[part] = chosen[part];
        }
    }
    return best_total;
}
// n groups' error (minus Σx²) at scale s, and the least-squares scale of the choices made at s.
double lattice_sub_error(const LatticeGroup* G, int n, const LatticeGrid& g, float s, float* ls_scale) {
    double err = 0, num = 0, den = 0;
    for (int l = 0; l < n; ++l) {
        int pick[2] = {0, 0};
        err += lattice_group_best(G[l], s, pick);
        num += lattice_eff(G[l], pick);
        for (int part = 0; part < G[l].parts; ++part) den += g.norm[pick[part]];
    }
    if (ls_scale) *ls_scale = den > 0 ? static_cast<float>(num / den) : 0.f;
    return err;
}
// The best scale of n groups (a sweep mapping their largest magnitude between 0.6× and 1.1× the grid's largest
// value, and onto each of the grid's magnitudes — a block of near-equal values wants its smallest —, each refined
// by least squares), or 0 for zeros.
float lattice_fit(const LatticeGroup* G, int n, const LatticeGrid& g) {
    float amax = 0;
    for (int l = 0; l < n; ++l)
        for (int j = 0; j < 8; ++j) amax = std::max(amax, G[l].a[j]);
    if (amax == 0) return 0.f;
    float best_s = amax / g.vmax;
    double best_err = std::numeric_limits<double>::infinity();
    for (int step = 0; step < 12 + g.n_levels; ++step) {
        float s = step < 12 ? amax / (g.vmax * (0.6f + 0.045f * step)) : amax / g.levels[step - 12], ls;
        for (int refine = 0; refine < 2; ++refine) {
            const double err = lattice_sub_error(G, n, g, s, &ls);
            if (err < best_err) best_err = err, best_s = s;
            if (!(ls > 0)) break;
            s = ls;
        }
    }
    return best_s;
}

// How a type's 4-bit level l scales the block's d: d * (base + step * l).
struct LatticeLevels {
    float base, step;
    float at(int l) const { return base + step * static_cast<float>(l); }
};
// The block's f16 d and each scale group's level: d maps the largest group scale onto level 15; each level is the
// best of the nearest and its neighbours. groups: nsub scale groups of n groups each, in order.
void lattice_levels(const LatticeGroup* G, int nsub, int n, const LatticeGrid& g, const float* s, LatticeLevels lv,
                    std::uint16_t* d16, int* level) {
    const float smax = *std::max_element(s, s + nsub);
    *d16 = f16_ceil(smax / lv.at(15));
    const float d = f16_to_f32(*d16);
    for (int j = 0; j < nsub; ++j) {
        const int l0 = d > 0 ? std::clamp(round_nearest((s[j] / d - lv.base) / lv.step), 0, 15) : 0;
        level[j] = l0;
        double best = std::numeric_limits<double>::infinity();
        for (int l = std::max(0, l0 - 1); l <= std::min(15, l0 + 1); ++l) {
            const double e = lattice_sub_error(G + n * j, n, g, d * lv.at(l), nullptr);
            if (e < best) best = e, level[j] = l;
        }
    }
}
// The 8 sign bits of a group after its choice: the signs of x, and with an odd count of negatives under a parity the
// element whose flip costs least (a_j · g_j smallest) flipped (the stored 7 then imply the eighth, kIqSigns).
int lattice_signs(const LatticeGroup& G, const LatticeGrid& g, const int* pick, const float* x) {
    int bits = 0;
    for (int j = 0; j < 8; ++j) bits |= (x[j] < 0) << j;
    if (G.odd) {
        int flip = 0;
        float mn = std::numeric_limits<float>::infinity();
        for (int j = 0; j < 8; ++j) {
            const float v = G.a[j] * g.value[pick[j / g.width]][j % g.width];
            if (v < mn) mn = v, flip = j;
        }
        bits ^= 1 << flip;
    }
    return bits;
}

// One block of 256: the 32 groups, their scale groups (32 / per elements each), d and levels; then per group its
// points and signs at its final scale, handed to `put(group, pick, signs)`. G: room for 32 groups (1.8 MB, on the
// heap: as thread_local storage it would be reserved in every thread of the process).
template <class Put>
void lattice_block(DType t, const float* x, bool parity, int per, LatticeLevels lv, std::uint16_t* d16, int* level,
                   LatticeGroup* G, Put put) {
    const LatticeGrid& g = lattice_grid(t);
    const int n = per / 8, nsub = 256 / per;
    float s[16];
    for (int k = 0; k < 32; ++k) lattice_group_init(x + 8 * k, g, parity, &G[k]);
    for (int j = 0; j < nsub; ++j) s[j] = lattice_fit(G + n * j, n, g);
    lattice_levels(G, nsub, n, g, s, lv, d16, level);
    const float d = f16_to_f32(*d16);
    for (int k = 0; k < 32; ++k) {
        int pick[2] = {0, 0};
        lattice_group_best(G[k], d * lv.at(level[k / n]), pick);
        put(k, pick, lattice_signs(G[k], g, pick, x + 8 * k));
    }
}

void quant_iq2_xxs(const float* x, BlockIq2Xxs* b, std::int64_t nb) {
    std::unique_ptr<LatticeGroup[]> G(new LatticeGroup[32]);
    for (std::int64_t i = 0; i < nb; ++i, x += 256) {
        int level[8];
        std::uint32_t aux[8] = {};
        auto* q8 = reinterpret_cast<std::uint8_t*>(b[i].qs);
        lattice_block(DType::IQ2_XXS, x, true, 32, {0.125f, 0.25f}, &b[i].d, level, G.get(), [&](int k, const int* pick, int signs) {
            q8[8 * (k / 4) + k % 4] = static_cast<std::uint8_t>(pick[0]);
            aux[k / 4] |= static_cast<std::uint32_t>(signs & 127) << (7 * (k % 4));
        });
        for (int j = 0; j < 8; ++j) {
            aux[j] |= static_cast<std::uint32_t>(level[j]) << 28;
            std::memcpy(q8 + 8 * j + 4, &aux[j], 4);
        }
    }
}
void quant_iq2_xs(const float* x, BlockIq2Xs* b, std::int64_t nb) {
    std::unique_ptr<LatticeGroup[]> G(new LatticeGroup[32]);
    for (std::int64_t i = 0; i < nb; ++i, x += 256) {
        int level[16];
        lattice_block(DType::IQ2_XS, x, true, 16, {0.125f, 0.25f}, &b[i].d, level, G.get(), [&](int k, const int* pick, int signs) {
            b[i].qs[k] = static_cast<std::uint16_t>(pick[0] | (signs & 127) << 9);
        });
        for (int j = 0; j < 8; ++j) b[i].scales[j] = static_cast<std::uint8_t>(level[2 * j] | level[2 * j + 1] << 4);
    }
}
void quant_iq2_s(const float* x, BlockIq2S* b, std::int64_t nb) {
    std::unique_ptr<LatticeGroup[]> G(new LatticeGroup[32]);
    for (std::int64_t i = 0; i < nb; ++i, x += 256) {
        int level[16];
        std::memset(b[i].qh, 0, 8);
        lattice_block(DType::IQ2_S, x, false, 16, {0.125f, 0.25f}, &b[i].d, level, G.get(), [&](int k, const int* pick, int signs) {
            b[i].qs[k] = static_cast<std::uint8_t>(pick[0] & 255);
            b[i].qh[k / 4] |= static_cast<std::uint8_t>((pick[0] >> 8) << (2 * (k % 4)));
            b[i].qs[32 + k] = static_cast<std::uint8_t>(signs);
        });
        for (int j = 0; j < 8; ++j) b[i].scales[j] = static_cast<std::uint8_t>(level[2 * j] | level[2 * j + 1] << 4);
    }
}
void quant_iq3_xxs(const float* x, BlockIq3Xxs* b, std::int64_t nb) {
    std::unique_ptr<LatticeGroup[]> G(new LatticeGroup[32]);
    for (std::int64_t i = 0; i < nb; ++i, x += 256) {
        int level[8];
        std::uint32_t aux[8] = {};
        lattice_block(DType::IQ3_XXS, x, true, 32, {0.25f, 0.5f}, &b[i].d, level, G.get(), [&](int k, const int* pick, int signs) {
            b[i].qs[2 * k] = static_cast<std::uint8_t>(pick[0]);
            b[i].qs[2 * k + 1] = static_cast<std::uint8_t>(pick[1]);
            aux[k / 4] |= static_cast<std::uint32_t>(signs & 127) << (7 * (k % 4));
        });
        for (int j = 0; j < 8; ++j) {
            aux[j] |= static_cast<std::uint32_t>(level[j]) << 28;
            std::memcpy(b[i].qs + 64 + 4 * j, &aux[j], 4);
        }
    }
}
void quant_iq3_s(const float* x, BlockIq3S* b, std::int64_t nb) {
    std::unique_ptr<LatticeGroup[]> G(new LatticeGroup[32]);
    for (std::int64_t i = 0; i < nb; ++i, x += 256) {
        int level[8];
        std::memset(b[i].qh, 0, 8);
        lattice_block(DType::IQ3_S, x, false, 32, {1.f, 2.f}, &b[i].d, level, G.get(), [&](int k, const int* pick, int signs) {
            for (int h = 0; h < 2; ++h) {
                b[i].qs[2 * k + h] = static_cast<std::uint8_t>(pick[h] & 255);
                b[i].qh[k / 4] |= static_cast<std::uint8_t>((pick[h] >> 8) << (2 * (k % 4) + h));
            }
            b[i].signs[k] = static_cast<std::uint8_t>(signs);
        });
        for (int j = 0; j < 4; ++j) b[i].scales[j] = static_cast<std::uint8_t>(level[2 * j] | level[2 * j + 1] << 4);
    }
}

// ---- IQ1_S / IQ1_M: x ≈ dl · (g + δ), g a point of the 2,048-point grid of {−1, 0, 1}^8, δ = ±1/8 ----
//
// No sign bits: the grid's values are signed. Per 8 elements and sign of δ each point's error at scale s is
// Σx² − 2s·eff + s²·N with eff = x·(g + δ) and N = |g + δ|², a line in s as for the lattice types above, so the same
// hulls serve (one per sign of δ). IQ1_S shares δ and a 3-bit level l (dl = d · (2l + 1)) per 32; IQ1_M has a level
// per 16 and δ per 8. Per scale group a sweep of scales (the largest |x| onto 0.6–2.6 grid units, each refined
// twice by least squares on its choices) picks the best; d maps the largest onto level 7 and each level then takes
// the best of the nearest and its neighbours.

struct Iq1Grid {
    float column[8][kIq1Points] = {};     // the grid's values by element
    float norm[2][kIq1Points] = {};       // |g + δ|² for δ = +1/8 (0) and −1/8 (1)
    std::uint16_t by_norm[2][kIq1Points] = {};
};
const Iq1Grid& iq1_grid() {
    static const Iq1Grid* grid = [] {
        auto* g = new Iq1Grid;  // built once, kept for the process
        for (int sg = 0; sg < 2; ++sg) {
            const float delta = sg ? -kIq1Delta : kIq1Delta;
            for (int p = 0; p < kIq1Points; ++p) {
                for (int j = 0; j < 8; ++j) {
                    const float v = iq1_grid_value(p, j);
                    g->column[j][p] = v;
                    g->norm[sg][p] += (v + delta) * (v + delta);
                }
                g->by_norm[sg][p] = static_cast<std::uint16_t>(p);
            }
            std::stable_sort(g->by_norm[sg], g->by_norm[sg] + kIq1Points,
                             [&](int a, int b) { return g->norm[sg][a] > g->norm[sg][b]; });
        }
        return g;
    }();
    return *grid;
}

struct Iq1Group {
    float amax = 0;
    LatticeHull hull[2];  // per sign of δ
};
void iq1_group_init(const float* x, const Iq1Grid& g, Iq1Group* G) {
    float dot[kIq1Points] = {}, eff[kIq1Points];
    float sum = 0;
    G->amax = 0;
    for (int j = 0; j < 8; ++j) {
        sum += x[j], G->amax = std::max(G->amax, std::fabs(x[j]));
        for (int p = 0; p < kIq1Points; ++p) dot[p] += x[j] * g.column[j][p];
    }
    for (int sg = 0; sg < 2; ++sg) {
        const float delta = sg ? -kIq1Delta : kIq1Delta;
        for (int p = 0; p < kIq1Points; ++p) eff[p] = dot[p] + delta * sum;
        lattice_hull(kIq1Points, g.by_norm[sg], g.norm[sg], eff, &G->hull[sg]);
    }
}
// The best hull line of one group and sign of δ at scale s: its error minus Σx², and its index.
float iq1_best(const LatticeHull& h, float s, int* r_best) {
    float best = std::numeric_limits<float>::infinity();
    for (int r = 0; r < h.n; ++r) {
        const float e = s * (s * h.norm[r] - 2 * h.eff[r]);
        if (e < best) best = e, *r_best = r;
    }
    return best;
}
// n groups' error (minus Σx²) at scale s with δ shared by the n groups (IQ1_S) or chosen per group (IQ1_M); the
// points (grid indices) and signs of δ chosen, and the least-squares scale of those choices.
double iq1_sub_error(const Iq1Group* G, int n, bool shared, float s, int* point, int* sign, float* ls_scale) {
    double total = 0, num = 0, den = 0;
    int r[4][2];
    float e[4][2];
    for (int k = 0; k < n; ++k)
        for (int sg = 0; sg < 2; ++sg) e[k][sg] = iq1_best(G[k].hull[sg], s, &r[k][sg]);
    int shared_sign = 0;
    if (shared) {
        double t[2] = {0, 0};
        for (int k = 0; k < n; ++k) t[0] += e[k][0], t[1] += e[k][1];
        shared_sign = t[1] < t[0];
    }
    for (int k = 0; k < n; ++k) {
        const int sg = shared ? shared_sign : e[k][1] < e[k][0];
        const LatticeHull& h = G[k].hull[sg];
        total += e[k][sg], num += h.eff[r[k][sg]], den += h.norm[r[k][sg]];
        if (point) point[k] = h.point[r[k][sg]], sign[k] = sg;
    }
    if (ls_scale) *ls_scale = den > 0 ? static_cast<float>(num / den) : 0.f;
    return total;
}
float iq1_fit(const Iq1Group* G, int n, bool shared) {
    float amax = 0;
    for (int k = 0; k < n; ++k) amax = std::max(amax, G[k].amax);
    if (amax == 0) return 0.f;
    float best_s = amax, ls;
    double best_err = std::numeric_limits<double>::infinity();
    for (int step = 0; step < 16; ++step) {
        float s = amax / ((1 + kIq1Delta) * (0.6f + 0.133f * static_cast<float>(step)));
        for (int refine = 0; refine < 3; ++refine) {
            const double err = iq1_sub_error(G, n, shared, s, nullptr, nullptr, &ls);
            if (err < best_err) best_err = err, best_s = s;
            if (!(ls > 0)) break;
            s = ls;
        }
    }
    return best_s;
}
// One block of 256 (32 groups of 8, scale groups of `per` elements): d, the 3-bit levels, and each group's grid
// index and sign of δ (1: δ = −1/8).
void iq1_block(const float* x, int per, bool shared, Iq1Group* G, std::uint16_t* d16, int* level, int* point, int* sign) {
    const Iq1Grid& g = iq1_grid();
    const int n = per / 8, nsub = 256 / per;
    float s[16];
    for (int k = 0; k < 32; ++k) iq1_group_init(x + 8 * k, g, &G[k]);
    for (int j = 0; j < nsub; ++j) s[j] = iq1_fit(G + n * j, n, shared);
    *d16 = f16_ceil(*std::max_element(s, s + nsub) / 15.f);
    const float d = f16_to_f32(*d16);
    for (int j = 0; j < nsub; ++j) {
        const int l0 = d > 0 ? std::clamp(round_nearest((s[j] / d - 1) / 2), 0, 7) : 0;
        double best = std::numeric_limits<double>::infinity();
        for (int l = std::max(0, l0 - 1); l <= std::min(7, l0 + 1); ++l) {
            const double e = iq1_sub_error(G + n * j, n, shared, d * static_cast<float>(2 * l + 1), nullptr, nullptr, nullptr);
            if (e < best) best = e, level[j] = l;
        }
        iq1_sub_error(G + n * j, n, shared, d * static_cast<float>(2 * level[j] + 1), point + n * j, sign + n * j, nullptr);
    }
}

void quant_iq1_s(const float* x, BlockIq1S* b, std::int64_t nb) {
    std::unique_ptr<Iq1Group[]> G(new Iq1Group[32]);
    for (std::int64_t i = 0; i < nb; ++i, x += 256) {
        int level[8], point[32], sign[32];
        iq1_block(x, 32, true, G.get(), &b[i].d, level, point, sign);
        for (int s = 0; s < 8; ++s) {
            int qh = level[s] << 12 | sign[4 * s] << 15;
            for (int l = 0; l < 4; ++l) {
                b[i].qs[4 * s + l] = static_cast<std::uint8_t>(point[4 * s + l] & 255);
                qh |= (point[4 * s + l] >> 8) << (3 * l);
            }
            b[i].qh[s] = static_cast<std::uint16_t>(qh);
        }
    }
}
void quant_iq1_m(const float* x, BlockIq1M* b, std::int64_t nb) {
    std::unique_ptr<Iq1Group[]> G(new Iq1Group[32]);
    for (std::int64_t i = 0; i < nb; ++i, x += 256) {
        int level[16], point[32], sign[32];
        std::uint16_t d16;
        iq1_block(x, 16, false, G.get(), &d16, level, point, sign);
        std::memset(b[i].qh, 0, 16);
        for (int k = 0; k < 32; ++k) {
            b[i].qs[k] = static_cast<std::uint8_t>(point[k] & 255);
            b[i].qh[k / 2] |= static_cast<std::uint8_t>(((point[k] >> 8) | sign[k] << 3) << (4 * (k % 2)));
        }
        // Four 16-bit words: 3-bit levels of the 16s 4w .. 4w+3 in bits 0-11, nibble w of d in bits 12-15.
        for (int w = 0; w < 4; ++w) {
            int word = ((d16 >> (4 * w)) & 0xF) << 12;
            for (int h = 0; h < 4; ++h) word |= level[4 * w + h] << (3 * h);
            const auto v = static_cast<std::uint16_t>(word);
            std::memcpy(b[i].scales + 2 * w, &v, 2);
        }
    }
}

}  // namespace

// ---- half precision ----

float f16_to_f32(std::uint16_t h) {
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000) << 16;
    const std::uint32_t exp = (h >> 10) & 0x1F;
    std::uint32_t mant = h & 0x3FF;
    if (exp == 0x1F) return float_of(sign | 0x7F800000u | (mant << 13));  // inf / NaN (payload kept)
    if (exp != 0) return float_of(sign | ((exp + 112) << 23) | (mant << 13));
    if (mant == 0) return float_of(sign);
    // Subnormal: value = mant * 2^-24; normalise.
    int e = -1;
    do {
        mant <<= 1;
        ++e;
    } while ((mant & 0x400) == 0);
    return float_of(sign | static_cast<std::uint32_t>(112 - e) << 23 | ((mant & 0x3FF) << 13));
}

std::uint16_t f32_to_f16(float f) {
    const std::uint32_t x = bits_of(f);
    const std::uint16_t sign = static_cast<std::uint16_t>((x >> 16) & 0x8000);
    const std::uint32_t ax = x & 0x7FFFFFFF;
    if (ax > 0x7F800000) return sign | 0x7E00 | static_cast<std::uint16_t>((ax >> 13) & 0x3FF);  // quiet NaN
    if (ax >= 0x47800000) return sign | 0x7C00;  // >= 65536: inf (65520..65536 reaches inf by rounding below)
    if (ax < 0x38800000) {                      // below 2^-14: f16 subnormal (or zero)
        if (ax < 0x33000000) return sign;       // below 2^-25 rounds to zero
        const int e = static_cast<int>(ax >> 23);
        const std::uint32_t m = (ax & 0x7FFFFF) | 0x800000;
        const int shift = 126 - e;  // m * 2^(e-150) / 2^-24
        std::uint32_t r = m >> shift;
        const std::uint32_t rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (r & 1))) ++r;
        return sign | static_cast<std::uint16_t>(r);
    }
    std::uint32_t r = (ax - 0x38000000) >> 13;  // rebias exponent 127 -> 15
    const std::uint32_t rem = ax & 0x1FFF;
    if (rem > 0x1000 || (rem == 0x1000 && (r & 1))) ++r;  // a carry into the exponent is correct (up to inf)
    return sign | static_cast<std::uint16_t>(r);
}

float bf16_to_f32(std::uint16_t h) { return float_of(static_cast<std::uint32_t>(h) << 16); }

std::uint16_t f32_to_bf16(float f) {
    const std::uint32_t x = bits_of(f);
    if ((x & 0x7FFFFFFF) > 0x7F800000) return static_cast<std::uint16_t>((x >> 16) | 0x0040);  // quiet NaN
    return static_cast<std::uint16_t>((x + 0x7FFF + ((x >> 16) & 1)) >> 16);
}

float e8m0_to_f32_half(std::uint8_t e) {
    // 2^(e-128): for e < 2 the result is an f32 subnormal.
    const std::uint32_t bits = e < 2 ? (0x00200000u << e) : (static_cast<std::uint32_t>(e - 1) << 23);
    return float_of(bits);
}

// ---- K-quant packing ----

void k_scale_min_get(const std::uint8_t s[12], int j, std::uint8_t* sc, std::uint8_t* m) {
    if (j < 4) {
        *sc = s[j] & 63;
        *m = s[j + 4] & 63;
    } else {
        *sc = static_cast<std::uint8_t>((s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4));
        *m = static_cast<std::uint8_t>((s[j + 4] >> 4) | ((s[j] >> 6) << 4));
    }
}

void k_scale_min_set(std::uint8_t s[12], int j, std::uint8_t sc, std::uint8_t m) {
    if (j < 4) {
        s[j] = static_cast<std::uint8_t>((s[j] & 0xC0) | (sc & 63));
        s[j + 4] = static_cast<std::uint8_t>((s[j + 4] & 0xC0) | (m & 63));
    } else {
        s[j + 4] = static_cast<std::uint8_t>((sc & 0xF) | ((m & 0xF) << 4));
        s[j - 4] = static_cast<std::uint8_t>((s[j - 4] & 0x3F) | ((sc >> 4) << 6));
        s[j] = static_cast<std::uint8_t>((s[j] & 0x3F) | ((m >> 4) << 6));
    }
}

void q4_k_pack(const std::uint8_t q[256], BlockQ4_K* b) {
    for (int c = 0; c < 4; ++c)
        for (int l = 0; l < 32; ++l)
            b->qs[32 * c + l] = static_cast<std::uint8_t>((q[64 * c + l] & 0xF) | ((q[64 * c + 32 + l] & 0xF) << 4));
}

void q5_k_pack(const std::uint8_t q[256], BlockQ5_K* b) {
    std::memset(b->qh, 0, 32);
    for (int c = 0; c < 4; ++c)
        for (int l = 0; l < 32; ++l) {
            const int lo = q[64 * c + l], hi = q[64 * c + 32 + l];
            b->qs[32 * c + l] = static_cast<std::uint8_t>((lo & 0xF) | ((hi & 0xF) << 4));
            b->qh[l] |= static_cast<std::uint8_t>(((lo >> 4) & 1) << (2 * c) | ((hi >> 4) & 1) << (2 * c + 1));
        }
}

void q6_k_pack(const std::uint8_t q[256], BlockQ6_K* b) {
    for (int h = 0; h < 2; ++h)
        for (int l = 0; l < 32; ++l) {
            const std::uint8_t* p = q + 128 * h + l;  // p[0], p[32], p[64], p[96]: quarters 0..3
            b->ql[64 * h + l] = static_cast<std::uint8_t>((p[0] & 0xF) | ((p[64] & 0xF) << 4));
            b->ql[64 * h + l + 32] = static_cast<std::uint8_t>((p[32] & 0xF) | ((p[96] & 0xF) << 4));
            b->qh[32 * h + l] = static_cast<std::uint8_t>(((p[0] >> 4) & 3) | (((p[32] >> 4) & 3) << 2) |
                                                          (((p[64] >> 4) & 3) << 4) | (((p[96] >> 4) & 3) << 6));
        }
}

// ---- entry points ----

bool quant_supported(DType type) {
    switch (type) {
        case DType::F32: case DType::F16: case DType::BF16: case DType::Q8_0: case DType::Q4_0:
        case DType::Q4_K: case DType::Q5_K: case DType::Q6_K: case DType::MXFP4: case DType::Q4_1: case DType::Q5_0:
        case DType::Q5_1: case DType::Q2_K: case DType::Q3_K: case DType::IQ4_NL: case DType::IQ4_XS:
        case DType::TQ1_0: case DType::TQ2_0: case DType::IQ2_XXS: case DType::IQ2_XS: case DType::IQ2_S:
        case DType::IQ3_XXS: case DType::IQ3_S: case DType::IQ1_S: case DType::IQ1_M: case DType::FT_FP8:
        case DType::FT_NVFP4:
            return true;
        default:
            return false;
    }
}

bool dequant_supported(DType type) {
    switch (type) {
        case DType::Q4_1: case DType::Q5_0: case DType::Q5_1: case DType::Q2_K: case DType::Q3_K:
        case DType::IQ4_NL: case DType::IQ4_XS: case DType::TQ1_0: case DType::TQ2_0: case DType::IQ2_XXS:
        case DType::IQ2_XS: case DType::IQ2_S: case DType::IQ3_XXS: case DType::IQ3_S: case DType::IQ1_S:
        case DType::IQ1_M: case DType::FT_FP8: case DType::FT_NVFP4:
            return true;
        default:
            return quant_supported(type);
    }
}

bool dequantize_row(DType type, const void* src, float* dst, std::int64_t n) {
    if (!dequant_supported(type) || n < 0 || n % dtype_info(type).block_elems != 0) return false;
    const std::int64_t nb = n / dtype_info(type).block_elems;
    switch (type) {
        case DType::F32: std::memcpy(dst, src, static_cast<std::size_t>(n) * 4); break;
        case DType::F16: dequant_f16(static_cast<const std::uint16_t*>(src), dst, n); break;
        case DType::BF16: dequant_bf16(static_cast<const std::uint16_t*>(src), dst, n); break;
        case DType::Q8_0: dequant_q8_0(static_cast<const BlockQ8_0*>(src), dst, nb); break;
        case DType::Q4_0: dequant_q4_0(static_cast<const BlockQ4_0*>(src), dst, nb); break;
        case DType::Q4_K: dequant_q4_k(static_cast<const BlockQ4_K*>(src), dst, nb); break;
        case DType::Q5_K: dequant_q5_k(static_cast<const BlockQ5_K*>(src), dst, nb); break;
        case DType::Q6_K: dequant_q6_k(static_cast<const BlockQ6_K*>(src), dst, nb); break;
        case DType::MXFP4: dequant_mxfp4(static_cast<const BlockMxfp4*>(src), dst, nb); break;
        case DType::Q4_1: dequant_q4_1(static_cast<const BlockQ4_1*>(src), dst, nb); break;
        case DType::Q5_0: dequant_q5_0(static_cast<const BlockQ5_0*>(src), dst, nb); break;
        case DType::Q5_1: dequant_q5_1(static_cast<const BlockQ5_1*>(src), dst, nb); break;
        case DType::IQ4_NL: dequant_iq4_nl(static_cast<const BlockIq4Nl*>(src), dst, nb); break;
        case DType::IQ4_XS: dequant_iq4_xs(static_cast<const BlockIq4Xs*>(src), dst, nb); break;
        case DType::Q2_K: dequant_q2_k(static_cast<const BlockQ2_K*>(src), dst, nb); break;
        case DType::Q3_K: dequant_q3_k(static_cast<const BlockQ3_K*>(src), dst, nb); break;
        case DType::TQ1_0: dequant_tq1_0(static_cast<const BlockTq1_0*>(src), dst, nb); break;
        case DType::TQ2_0: dequant_tq2_0(static_cast<const BlockTq2_0*>(src), dst, nb); break;
        case DType::IQ2_XXS: dequant_iq2_xxs(static_cast<const BlockIq2Xxs*>(src), dst, nb); break;
        case DType::IQ2_XS: dequant_iq2_xs(static_cast<const BlockIq2Xs*>(src), dst, nb); break;
        case DType::IQ2_S: dequant_iq2_s(static_cast<const BlockIq2S*>(src), dst, nb); break;
        case DType::IQ3_XXS: dequant_iq3_xxs(static_cast<const BlockIq3Xxs*>(src), dst, nb); break;
        case DType::IQ3_S: dequant_iq3_s(static_cast<const BlockIq3S*>(src), dst, nb); break;
        case DType::IQ1_S: dequant_iq1_s(static_cast<const BlockIq1S*>(src), dst, nb); break;
        case DType::IQ1_M: dequant_iq1_m(static_cast<const BlockIq1M*>(src), dst, nb); break;
        case DType::FT_FP8: dequant_ft_fp8(static_cast<const BlockFtFp8*>(src), dst, nb); break;
        case DType::FT_NVFP4: dequant_ft_nvfp4(static_cast<const BlockFtNvfp4*>(src), dst, nb); break;
        default: return false;
    }
    return true;
}

bool quantize_row(DType type, const float* src, void* dst, std::int64_t n) {
    if (!quant_supported(type) || n < 0 || n % dtype_info(type).block_elems != 0) return false;
    const std::int64_t nb = n / dtype_info(type).block_elems;
    switch (type) {
        case DType::F32: std::memcpy(dst, src, static_cast<std::size_t>(n) * 4); break;
        case DType::F16: {
            auto* d = static_cast<std::uint16_t*>(dst);
            for (std::int64_t i = 0; i < n; ++i) d[i] = f32_to_f16(src[i]);
            break;
        }
        case DType::BF16: {
            auto* d = static_cast<std::uint16_t*>(dst);
            for (std::int64_t i = 0; i < n; ++i) d[i] = f32_to_bf16(src[i]);
            break;
        }
        case DType::Q8_0: quant_q8_0(src, static_cast<BlockQ8_0*>(dst), nb); break;
        case DType::Q4_0: quant_q4_0(src, static_cast<BlockQ4_0*>(dst), nb); break;
        case DType::Q4_K: quant_q4_k(src, static_cast<BlockQ4_K*>(dst), nb); break;
        case DType::Q5_K: quant_q5_k(src, static_cast<BlockQ5_K*>(dst), nb); break;
        case DType::Q6_K: quant_q6_k(src, static_cast<BlockQ6_K*>(dst), nb); break;
        case DType::MXFP4: quant_mxfp4(src, static_cast<BlockMxfp4*>(dst), nb); break;
        case DType::Q4_1: quant_q4_1(src, static_cast<BlockQ4_1*>(dst), nb); break;
        case DType::Q5_0: quant_q5_0(src, static_cast<BlockQ5_0*>(dst), nb); break;
        case DType::Q5_1: quant_q5_1(src, static_cast<BlockQ5_1*>(dst), nb); break;
        case DType::Q2_K: quant_q2_k(src, static_cast<BlockQ2_K*>(dst), nb); break;
        case DType::Q3_K: quant_q3_k(src, static_cast<BlockQ3_K*>(dst), nb); break;
        case DType::IQ4_NL: quant_iq4_nl(src, static_cast<BlockIq4Nl*>(dst), nb); break;
        case DType::IQ4_XS: quant_iq4_xs(src, static_cast<BlockIq4Xs*>(dst), nb); break;
        case DType::TQ1_0: quant_tq1_0(src, static_cast<BlockTq1_0*>(dst), nb); break;
        case DType::TQ2_0: quant_tq2_0(src, static_cast<BlockTq2_0*>(dst), nb); break;
        case DType::IQ2_XXS: quant_iq2_xxs(src, static_cast<BlockIq2Xxs*>(dst), nb); break;
        case DType::IQ3_XXS: quant_iq3_xxs(src, static_cast<BlockIq3Xxs*>(dst), nb); break;
        case DType::IQ2_XS: quant_iq2_xs(src, static_cast<BlockIq2Xs*>(dst), nb); break;
        case DType::IQ2_S: quant_iq2_s(src, static_cast<BlockIq2S*>(dst), nb); break;
        case DType::IQ3_S: quant_iq3_s(src, static_cast<BlockIq3S*>(dst), nb); break;
        case DType::IQ1_S: quant_iq1_s(src, static_cast<BlockIq1S*>(dst), nb); break;
        case DType::IQ1_M: quant_iq1_m(src, static_cast<BlockIq1M*>(dst), nb); break;
        case DType::FT_FP8: quant_ft_fp8(src, static_cast<BlockFtFp8*>(dst), nb); break;
        case DType::FT_NVFP4: quant_ft_nvfp4(src, static_cast<BlockFtNvfp4*>(dst), nb); break;
        default: return false;
    }
    return true;
}

}  // namespace ft::kernels::ref
