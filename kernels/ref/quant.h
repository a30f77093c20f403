// Scalar reference quantize / dequantize of the GGUF block formats. These are the ground truth every CPU and CUDA
// kernel is tested against: simple, obviously correct, not fast.
//
// Quantize and dequantize: F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_NL,
// IQ4_XS, MXFP4, TQ1_0, TQ2_0, IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, IQ1_S, IQ1_M (quant_supported; the
// dequantizers of every type are bit-exact to ggml's and gguf-py's, tests/format/test_quant_files).
// n must be a multiple of the type's block_elems (dtype.h); src/dst hold dtype_bytes(type, n) bytes.
// Unsupported types return false (callers turn that into an ft::Error naming the tensor).
//
// Quantizers: nearest rounding against block scales found by a small search (K-quants: a least-squares refined
// (scale, min) per sub-block; Q5_0, Q3_K, IQ4_NL, IQ4_XS: a few candidate scales mapping the largest |x| near either
// end of the code range, each refined by least squares; the sub-block scales of Q2_K, Q3_K and IQ4_XS then take the
// best of the nearest level of the super-scale and its neighbours; TQ1_0/TQ2_0: the exact best ternary split for one
// scale; IQ2_XXS/IQ2_XS/IQ2_S/IQ3_XXS/IQ3_S: per 8 elements the nearest grid point(s), under the sign parity where
// the type has one, found for every scale of a sweep per scale group, then 4-bit levels as above; IQ1_S/IQ1_M: the
// same search over the signed {−1, 0, 1} grid for either sign of the ±1/8 shift, 3-bit levels); not bit-identical to
// llama.cpp's, same layouts.
// Inputs must be finite. Error bound of dequantize(quantize(x)), per 32 elements (per 256 for the K-quants and IQ4_XS),
// as a fraction of their largest |x| (tests/kernels/test_quant_ref.cpp):
//   F16 2^-11 (relative)  BF16 2^-8 (relative)  Q8_0 0.5/127  Q4_0 1/8  Q4_K 1.1·2/15  Q5_K 1.1·2/31  Q6_K 1.1/32
//   MXFP4 1/4;  plus f16-subnormal scale steps for blocks whose values are below ~1e-4. The newer types' bounds and
//   the normalised squared error measured on Gaussian rows are in that test's table.
#pragma once

#include <array>
#include <cstdint>
#include <limits>

#include "ref/dtype.h"

namespace ft::kernels::ref {

bool dequantize_row(DType type, const void* src, float* dst, std::int64_t n);
bool quantize_row(DType type, const float* src, void* dst, std::int64_t n);
bool quant_supported(DType type);    // quantize_row and dequantize_row
bool dequant_supported(DType type);  // dequantize_row

// Half-precision conversions used by the block formats (round-to-nearest-even, NaN/Inf preserved).
float f16_to_f32(std::uint16_t h);
std::uint16_t f32_to_f16(float f);
float bf16_to_f32(std::uint16_t h);
std::uint16_t f32_to_bf16(float f);

// MXFP4's shared E8M0 exponent as GGUF stores it: the block's E2M1 codes are kept doubled (kMxfp4Values), so the
// multiplier is 2^(e-127) / 2 = 2^(e-128). e = 255 is treated as a number (ggml does not reserve it for NaN).
float e8m0_to_f32_half(std::uint8_t e);
// E2M1 codes doubled, indexed by the 4-bit code: bit 3 is the sign.
inline constexpr std::int8_t kMxfp4Values[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};
// OCP FP8 E4M3 ("float8_e4m3fn"): sign, 4 exponent bits (bias 7), 3 mantissa bits; exponent 0 is subnormal
// (m · 2^-9), S.1111.111 is NaN, no infinities (largest 448). Exact in f32. kE4m3Values: all 256, by code.
float e4m3_to_f32(std::uint8_t v);
constexpr std::array<float, 256> make_e4m3_values() {
    std::array<float, 256> t{};
    for (int v = 0; v < 256; ++v) {
        const int e = (v >> 3) & 15, m = v & 7;
        float x = 0;
        if (e == 15 && m == 7) {
            x = std::numeric_limits<float>::quiet_NaN();
        } else {
            x = float(e == 0 ? m : 8 + m) / 512.f;  // m · 2^-9, or (8 + m) · 2^-9 scaled below
            for (int k = 1; k < e; ++k) x *= 2;   // (8 + m) · 2^(e - 10)
        }
        t[std::size_t(v)] = (v & 0x80) ? -x : x;
    }
    return t;
}
inline constexpr std::array<float, 256> kE4m3Values = make_e4m3_values();

// The Hugging Face quantized checkpoints' weights as the engine keeps them (DType::FT_FP8, FT_NVFP4; ours, not ggml's):
// each row repacked with its scales so a row is self-contained like every GGUF block type.
//   FT_FP8    32 E4M3 codes and the f32 block scale that covers them (the checkpoint's weight_scale_inv of the
//             128 x 128 block holding these 32 columns, repeated per 32): x = e4m3_to_f32(qs[i]) * d, one f32
//             rounding, as transformers' dequantization (w.float() * scale_inv). 9 bits per weight.
//   FT_NVFP4  64 E2M1 codes in four groups of 16, each with its E4M3 scale sc[g], and the tensor's f32 second-level
//             scale s2 (ModelOpt's weight_scale_2, repeated per block); code i is the low nibble of qs[i/2] for even
//             i, the high nibble for odd i (the checkpoint's packing, unchanged): x = (e4m3_to_f32(sc[i/16]) * s2) *
//             e2m1(code) in f32 in that order, as ModelOpt dequantizes (block scale times s2, then the value).
//             5 bits per weight.
struct BlockFtFp8 { std::uint8_t d[4]; std::uint8_t qs[32]; };  // d: f32, little-endian, unaligned
struct BlockFtNvfp4 { std::uint8_t s2[4]; std::uint8_t sc[4]; std::uint8_t qs[32]; };
static_assert(sizeof(BlockFtFp8) == 36 && sizeof(BlockFtNvfp4) == 40);

// The GGUF block layouts, byte for byte (all little-endian, no padding). Element i of a block is decoded as:
//   Q8_0   x = d * qs[i]
//   Q4_0   x = d * (nib(i) - 8), nib(i) = low nibble of qs[i] for i < 16, high nibble of qs[i-16] otherwise
//   MXFP4  x = e8m0_to_f32_half(e) * kMxfp4Values[nib(i)] (same nibble order as Q4_0)
//   Q4_K   8 sub-blocks of 32 with 6-bit scale sc[j] and min m[j] packed in scales[12] (see quant.cpp);
//          element i in 64-chunk c = i/64: low nibble of qs[32c + i%32] for i%64 < 32, high nibble otherwise;
//          x = d * sc[i/32] * q - dmin * m[i/32]
//   Q5_K   as Q4_K with a fifth bit: bit (2c + (i%64 >= 32)) of qh[i%32]
//   Q6_K   16 sub-blocks of 16 with int8 scales[i/16]; 6-bit q from ql (low 4) and qh (high 2), minus 32;
//          x = d * scales[i/16] * (q - 32)
struct BlockQ8_0 { std::uint16_t d; std::int8_t qs[32]; };
struct BlockQ4_0 { std::uint16_t d; std::uint8_t qs[16]; };
struct BlockMxfp4 { std::uint8_t e; std::uint8_t qs[16]; };
struct BlockQ4_K { std::uint16_t d, dmin; std::uint8_t scales[12]; std::uint8_t qs[128]; };
struct BlockQ5_K { std::uint16_t d, dmin; std::uint8_t scales[12]; std::uint8_t qh[32]; std::uint8_t qs[128]; };
struct BlockQ6_K { std::uint8_t ql[128]; std::uint8_t qh[64]; std::int8_t scales[16]; std::uint16_t d; };
static_assert(sizeof(BlockQ8_0) == 34 && sizeof(BlockQ4_0) == 18 && sizeof(BlockMxfp4) == 17);
static_assert(sizeof(BlockQ4_K) == 144 && sizeof(BlockQ5_K) == 176 && sizeof(BlockQ6_K) == 210);

// More GGUF block layouts (dequantized by dequantize_row only). d, m, dmin are f16. Element i of a block:
//   Q4_1   x = d * nib(i) + m                                   (nib as Q4_0)
//   Q5_0   x = d * ((nib(i) | bit(qh, i) << 4) - 16)            (qh: 32 bits, bit i is element i's fifth bit)
//   Q5_1   x = d * (nib(i) | bit(qh, i) << 4) + m
//   IQ4_NL x = d * kIq4nlValues[nib(i)]
//   IQ4_XS 8 sub-blocks of 32: 6-bit scale ls = low nibble j of scales_l | 2 bits j of scales_h, x = d * (ls - 32) *
//          kIq4nlValues[nib of the sub-block's 16 bytes, as Q4_0]
//   Q2_K   16 sub-blocks of 16, scales[j] = scale (low 4) | min (high 4); element i in 128-half h, w = i % 128:
//          q = (qs[32h + w%32] >> 2*(w/32)) & 3; x = d * sc * q - dmin * m
//   Q3_K   as Q2_K's 2-bit codes, minus 4 where bit (4h + w/32) of hmask[w%32] is clear; 16 six-bit signed scales
//          (minus 32) packed in scales[12]; x = d * (sc - 32) * q
//   TQ2_0  x = d * (((qs[32*(i/128) + i%32] >> 2*((i%128)/32)) & 3) - 1)
//   TQ1_0  ternary digits, 5 per qs byte and 4 per qh byte (the byte is a fixed-point fraction of 3^5); x = d * (t - 1)
//   IQ2/IQ3/IQ1: 8 (or 4) elements at a time from a lattice grid (iq_grids.inc), with sign bits and sub-block scales.
struct BlockQ4_1 { std::uint16_t d, m; std::uint8_t qs[16]; };
struct BlockQ5_0 { std::uint16_t d; std::uint8_t qh[4]; std::uint8_t qs[16]; };
struct BlockQ5_1 { std::uint16_t d, m; std::uint8_t qh[4]; std::uint8_t qs[16]; };
struct BlockIq4Nl { std::uint16_t d; std::uint8_t qs[16]; };
struct BlockIq4Xs { std::uint16_t d, scales_h; std::uint8_t scales_l[4]; std::uint8_t qs[128]; };
struct BlockQ2_K { std::uint8_t scales[16]; std::uint8_t qs[64]; std::uint16_t d, dmin; };
struct BlockQ3_K { std::uint8_t hmask[32]; std::uint8_t qs[64]; std::uint8_t scales[12]; std::uint16_t d; };
struct BlockTq1_0 { std::uint8_t qs[48]; std::uint8_t qh[4]; std::uint16_t d; };
struct BlockTq2_0 { std::uint8_t qs[64]; std::uint16_t d; };
struct BlockIq2Xxs { std::uint16_t d; std::uint16_t qs[32]; };
struct BlockIq2Xs { std::uint16_t d; std::uint16_t qs[32]; std::uint8_t scales[8]; };
struct BlockIq2S { std::uint16_t d; std::uint8_t qs[64]; std::uint8_t qh[8]; std::uint8_t scales[8]; };
struct BlockIq3Xxs { std::uint16_t d; std::uint8_t qs[96]; };
struct BlockIq3S { std::uint16_t d; std::uint8_t qs[64]; std::uint8_t qh[8]; std::uint8_t signs[32]; std::uint8_t scales[4]; };
struct BlockIq1S { std::uint16_t d; std::uint8_t qs[32]; std::uint16_t qh[8]; };
struct BlockIq1M { std::uint8_t qs[32]; std::uint8_t qh[16]; std::uint8_t scales[8]; };
static_assert(sizeof(BlockQ4_1) == 20 && sizeof(BlockQ5_0) == 22 && sizeof(BlockQ5_1) == 24);
static_assert(sizeof(BlockIq4Nl) == 18 && sizeof(BlockIq4Xs) == 136 && sizeof(BlockQ2_K) == 84 && sizeof(BlockQ3_K) == 110);
static_assert(sizeof(BlockTq1_0) == 54 && sizeof(BlockTq2_0) == 66 && sizeof(BlockIq2Xxs) == 66 && sizeof(BlockIq2Xs) == 74);
static_assert(sizeof(BlockIq2S) == 82 && sizeof(BlockIq3Xxs) == 98 && sizeof(BlockIq3S) == 110);
static_assert(sizeof(BlockIq1S) == 50 && sizeof(BlockIq1M) == 56);
// IQ4_NL/IQ4_XS's non-linear 4-bit code book.
inline constexpr std::int8_t kIq4nlValues[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};

// The 6-bit (scale, min) pairs of Q4_K/Q5_K: j in [0, 8).
void k_scale_min_get(const std::uint8_t scales[12], int j, std::uint8_t* sc, std::uint8_t* m);
void k_scale_min_set(std::uint8_t scales[12], int j, std::uint8_t sc, std::uint8_t m);  // sc, m < 64
// Bit-level helpers to build K-quant blocks from integer codes directly (used by synthetic weights and tests):
// q[256] codes in element order, 0..15 for Q4_K, 0..31 for Q5_K, 0..63 for Q6_K (stored value + 32).
void q4_k_pack(const std::uint8_t q[256], BlockQ4_K* b);
void q5_k_pack(const std::uint8_t q[256], BlockQ5_K* b);
void q6_k_pack(const std::uint8_t q[256], BlockQ6_K* b);

}  // namespace ft::kernels::ref
