// Direct generation of synthetic weight blocks. For each quant type the codes are uniform random and the scales are
// fixed per tensor so that the dequantized values have mean ≈ 0 and the wanted std:
//   Q8_0  q ∈ [-127, 127] (var 5418.7)                     d = std / 73.61
//   Q4_K  q ∈ [0, 15], sub-block scale sc ∈ {32, 48}, min m = sc·15/16, dmin = 8d  → mean exactly 0, d = std / 188.04
//   Q5_K  q ∈ [0, 31], sc ∈ {16, 32}, m = sc·31/16, dmin = 8d                       → mean exactly 0, d = std / 233.58
//   Q6_K  q - 32 ∈ [-32, 31], int8 scale ±{32, 64} (random sign cancels the -0.5 mean)  d = std / 935.0
//   MXFP4 codes uniform over the 16 E2M1 values (doubled grid: mean square 34.25), one E8M0 exponent per tensor:
//         2^(e-128) = std / 5.85 rounded to a power of two (gpt-oss's experts)
//   F32 / BF16: uniform in [-√3·std, √3·std]; norms uniform in [0.9, 1.1].
//   Q4_0, Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, IQ4_NL, IQ4_XS, TQ1_0, TQ2_0, IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, IQ1_S, IQ1_M: the F32
//         values of each block through ref::quantize_row (the dequantized std falls short of the target by about half the type's NMSE:
//         Q2_K ≈ 3 %, the ternary types ≈ 6 %).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "ref/quant.h"
#include "synth/synth_model.h"
#include "synth/synth_rng.h"

namespace ft::synth {

using kernels::DType;
namespace ref = kernels::ref;

namespace {

void fill_bytes(BlockRng& r, std::uint8_t* p, std::size_t n) {  // n multiple of 8
    for (std::size_t i = 0; i < n; i += 8) {
        const std::uint64_t v = r.next();
        std::memcpy(p + i, &v, 8);
    }
}

float value(const SynthTensor& t, BlockRng& r) {
    if (t.std == 0.f) return 0.9f + 0.2f * r.uniform();  // norm scales ≈ 1
    // A linear-attention layer's A = -exp(A_log) < 0 (a decay; Qwen initialises A_log = ln U(1, 16)).
    if (t.spec.role == model::TensorRole::ssm_a) return -(1.f + 15.f * r.uniform());
    return (2.f * r.uniform() - 1.f) * 1.7320508f * t.std;
}

}  // namespace

void synth_fill(const SynthTensor& t, std::uint64_t seed, std::uint64_t first, std::uint64_t count, std::byte* out) {
    auto* o = reinterpret_cast<std::uint8_t*>(out);
    switch (t.type) {
        case DType::I32: {  // a hash routing table [n_vocab rows, k]: k distinct experts from a random first one
            const std::uint64_t n = t.spec.n_elements(), k = t.spec.dims[0];
            const std::uint64_t n_expert = t.n_expert ? t.n_expert : 1;
            for (std::uint64_t u = first; u < first + count; ++u) {
                const std::uint64_t begin = u * 256, end = std::min<std::uint64_t>(n, begin + 256);
                for (std::uint64_t i = begin; i < end; ++i) {
                    BlockRng r(seed, t.key, i / k);
                    const std::int32_t v = std::int32_t((r.next() + i % k) % n_expert);
                    std::memcpy(o, &v, 4);
                    o += 4;
                }
            }
            return;
        }
        case DType::F32:
        case DType::BF16: {
            const std::uint64_t n = t.spec.n_elements();
            for (std::uint64_t u = first; u < first + count; ++u) {
                BlockRng r(seed, t.key, u);
                const std::uint64_t begin = u * 256, end = std::min<std::uint64_t>(n, begin + 256);
                for (std::uint64_t i = begin; i < end; ++i) {
                    const float v = value(t, r);
                    if (t.type == DType::F32) {
                        std::memcpy(o, &v, 4);
                        o += 4;
                    } else {
                        const std::uint16_t h = ref::f32_to_bf16(v);
                        std::memcpy(o, &h, 2);
                        o += 2;
                    }
                }
            }
            return;
        }
        case DType::Q8_0: {
            const std::uint16_t d = ref::f32_to_f16(t.std / 73.61f);
            for (std::uint64_t u = first; u < first + count; ++u, o += sizeof(ref::BlockQ8_0)) {
                BlockRng r(seed, t.key, u);
                ref::BlockQ8_0 b;
                b.d = d;
                fill_bytes(r, reinterpret_cast<std::uint8_t*>(b.qs), 32);
                for (auto& q : b.qs)
                    if (q == -128) q = 0;
                std::memcpy(o, &b, sizeof b);
            }
            return;
        }
        case DType::Q4_K:
        case DType::Q5_K: {
            const bool q5 = t.type == DType::Q5_K;
            const std::uint16_t d = ref::f32_to_f16(t.std / (q5 ? 233.58f : 188.04f));
            const std::uint16_t dmin = ref::f32_to_f16(8.f * ref::f16_to_f32(d));
            const std::uint8_t sc_lo = q5 ? 16 : 32, sc_hi = q5 ? 32 : 48;
            for (std::uint64_t u = first; u < first + count; ++u) {
                BlockRng r(seed, t.key, u);
                std::uint8_t scales[12] = {};
                const std::uint64_t pick = r.next();
                for (int j = 0; j < 8; ++j) {
                    const std::uint8_t sc = (pick >> j) & 1 ? sc_hi : sc_lo;
                    const std::uint8_t m = static_cast<std::uint8_t>(q5 ? sc * 31 / 16 : sc * 15 / 16);
                    ref::k_scale_min_set(scales, j, sc, m);
                }
                if (q5) {
                    ref::BlockQ5_K b;
                    b.d = d, b.dmin = dmin;
                    std::memcpy(b.scales, scales, 12);
                    fill_bytes(r, b.qh, 32);
                    fill_bytes(r, b.qs, 128);
                    std::memcpy(o, &b, sizeof b);
                    o += sizeof b;
                } else {
                    ref::BlockQ4_K b;
                    b.d = d, b.dmin = dmin;
                    std::memcpy(b.scales, scales, 12);
                    fill_bytes(r, b.qs, 128);
                    std::memcpy(o, &b, sizeof b);
                    o += sizeof b;
                }
            }
            return;
        }
        case DType::Q6_K: {
            const std::uint16_t d = ref::f32_to_f16(t.std / 935.0f);
            for (std::uint64_t u = first; u < first + count; ++u, o += sizeof(ref::BlockQ6_K)) {
                BlockRng r(seed, t.key, u);
                ref::BlockQ6_K b;
                const std::uint64_t pick = r.next();
                for (int j = 0; j < 16; ++j) {
                    const int mag = (pick >> j) & 1 ? 64 : 32;
                    b.scales[j] = static_cast<std::int8_t>((pick >> (16 + j)) & 1 ? -mag : mag);
                }
                fill_bytes(r, b.ql, 128);
                fill_bytes(r, b.qh, 64);
                b.d = d;
                std::memcpy(o, &b, sizeof b);
            }
            return;
        }
        case DType::MXFP4: {
            const int e = std::clamp(int(std::lround(std::log2(double(t.std) / 5.852))) + 128, 1, 254);
            for (std::uint64_t u = first; u < first + count; ++u, o += sizeof(ref::BlockMxfp4)) {
                BlockRng r(seed, t.key, u);
                ref::BlockMxfp4 b;
                b.e = static_cast<std::uint8_t>(e);
                fill_bytes(r, b.qs, 16);
                std::memcpy(o, &b, sizeof b);
            }
            return;
        }
        default: {
            // Every other block type synth_plan accepts (synth_weight_type_supported): values as for F32, one block at
            // a time through the reference quantizer.
            const auto& info = kernels::dtype_info(t.type);
            std::vector<float> v(info.block_elems);
            for (std::uint64_t u = first; u < first + count; ++u, o += info.block_bytes) {
                BlockRng r(seed, t.key, u);
                for (auto& x : v) x = value(t, r);
                ref::quantize_row(t.type, v.data(), o, static_cast<std::int64_t>(v.size()));
            }
            return;
        }
    }
}

}  // namespace ft::synth
