// Random weight matrices of every quantized format for the kernel tests: valid blocks (random codes and scales,
// built with the reference packers) and their reference values (ref::dequantize_row). Every row differs.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ref/dtype.h"
#include "ref/quant.h"

namespace ft::test {

// Small fast generator (tests need many millions of codes).
struct Rng {
    std::uint64_t s;
    explicit Rng(std::uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
    std::uint32_t next() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return std::uint32_t(s >> 11);
    }
    int range(int lo, int hi) { return lo + int(next() % std::uint32_t(hi - lo + 1)); }  // inclusive
    float uni(float lo, float hi) { return lo + (hi - lo) * float(next() & 0xFFFFFF) / 16777216.f; }
};


// One row of random valid blocks, magnitude about amp.
inline void random_row(ft::kernels::DType t, std::int64_t k, Rng& g, float amp, std::uint8_t* out) {
    using namespace ft::kernels::ref;
    const std::int64_t nb = k / std::int64_t(ft::kernels::dtype_info(t).block_elems);
    switch (t) {
        case ft::kernels::DType::F32: case ft::kernels::DType::F16: case ft::kernels::DType::BF16: {
            std::vector<float> v(static_cast<std::size_t>(k));
            for (auto& x : v) {
                do x = g.uni(-amp, amp);
                while (x == 0.f);
            }
            quantize_row(t, v.data(), out, k);
            break;
        }
        case ft::kernels::DType::Q8_0: {
            auto* b = reinterpret_cast<BlockQ8_0*>(out);
            for (std::int64_t i = 0; i < nb; ++i) {
                BlockQ8_0 blk;
                blk.d = f32_to_f16(amp / 127.f * g.uni(0.5f, 1.f));
                for (auto& q : blk.qs) q = std::int8_t(g.range(-127, 127));
                std::memcpy(b + i, &blk, sizeof blk);  // 2-byte aligned in the row
            }
            break;
        }
        case ft::kernels::DType::Q4_K: case ft::kernels::DType::Q5_K: {
            const bool q5 = t == ft::kernels::DType::Q5_K;
            const int qmax = q5 ? 31 : 15;
            for (std::int64_t i = 0; i < nb; ++i) {
                std::uint8_t q[256];
                for (auto& c : q) c = std::uint8_t(g.range(0, qmax));
                std::uint8_t scales[12] = {};
                for (int j = 0; j < 8; ++j)
                    k_scale_min_set(scales, j, std::uint8_t(g.range(1, 63)), std::uint8_t(g.range(0, 63)));
                const std::uint16_t d = f32_to_f16(amp / float(qmax * 63) * g.uni(0.5f, 1.f));
                const std::uint16_t dmin = f32_to_f16(amp / 63.f * g.uni(0.25f, 0.5f));
                if (q5) {
                    BlockQ5_K blk{};
                    q5_k_pack(q, &blk);
                    blk.d = d, blk.dmin = dmin;
                    std::memcpy(blk.scales, scales, 12);
                    std::memcpy(out + i * sizeof blk, &blk, sizeof blk);
                } else {
                    BlockQ4_K blk{};
                    q4_k_pack(q, &blk);
                    blk.d = d, blk.dmin = dmin;
                    std::memcpy(blk.scales, scales, 12);
                    std::memcpy(out + i * sizeof blk, &blk, sizeof blk);
                }
            }
            break;
        }
        case ft::kernels::DType::MXFP4: {
            // E8M0 exponent so that the largest code (12, doubled E2M1) lands near amp: 2^(e-128) · 12 ≈ amp.
            const int e0 = int(std::lround(std::log2(amp / 12.f))) + 128;
            for (std::int64_t i = 0; i < nb; ++i) {
                BlockMxfp4 blk;
                blk.e = std::uint8_t(e0 + g.range(-2, 0));
                for (auto& q : blk.qs) q = std::uint8_t(g.next());
                std::memcpy(out + i * sizeof blk, &blk, sizeof blk);  // byte-aligned in the row
            }
            break;
        }
        case ft::kernels::DType::Q6_K: {
            for (std::int64_t i = 0; i < nb; ++i) {
                std::uint8_t q[256];
                for (auto& c : q) c = std::uint8_t(g.range(0, 63));
                BlockQ6_K blk{};
                q6_k_pack(q, &blk);
                for (auto& s : blk.scales) {
                    do s = std::int8_t(g.range(-127, 127));
                    while (s == 0);
                }
                blk.d = f32_to_f16(amp / (32.f * 127.f) * g.uni(0.5f, 1.f));
                std::memcpy(out + i * sizeof blk, &blk, sizeof blk);
            }
            break;
        }
        default: {
            // The decode-only types (the legacy, IQ, ternary and 2-/3-bit K-quant formats): random codes, signs and
            // sub-block scales (every bit pattern of those is valid), f16 block scales set so that values are about amp.
            using ft::kernels::DType;
            const auto& info = ft::kernels::dtype_info(t);
            struct Scale { int at; float per; };  // an f16 field: byte offset, amp / value of the largest code
            Scale s0{0, 0}, s1{-1, 0};
            switch (t) {
                case DType::Q4_0: s0 = {0, 8}; break;
                case DType::Q4_1: s0 = {0, 15}; s1 = {2, -2}; break;  // m negative: codes centred on 0
                case DType::Q5_0: s0 = {0, 16}; break;
                case DType::Q5_1: s0 = {0, 31}; s1 = {2, -2}; break;
                case DType::IQ4_NL: s0 = {0, 127}; break;
                case DType::IQ4_XS: s0 = {0, 127 * 32}; break;
                case DType::Q2_K: s0 = {80, 3 * 15}; s1 = {82, 2 * 15}; break;
                case DType::Q3_K: s0 = {108, 4 * 32}; break;
                case DType::TQ1_0: s0 = {52, 1}; break;
                case DType::TQ2_0: s0 = {64, 2}; break;
                case DType::IQ2_XXS: case DType::IQ2_XS: case DType::IQ2_S: s0 = {0, 43 * 4}; break;
                case DType::IQ3_XXS: s0 = {0, 62 * 8}; break;
                case DType::IQ3_S: s0 = {0, 15 * 31}; break;
                case DType::IQ1_S: s0 = {0, 16}; break;
                case DType::IQ1_M: s0 = {-2, 16}; break;  // the f16 is spread over the scale words' top nibbles
                default: return;
            }
            for (std::int64_t i = 0; i < nb; ++i) {
                std::uint8_t* blk = out + i * std::int64_t(info.block_bytes);
                for (std::uint32_t j = 0; j < info.block_bytes; ++j) blk[j] = std::uint8_t(g.next());
                auto put = [&](Scale s) {
                    const std::uint16_t h = f32_to_f16(amp / std::fabs(s.per) * g.uni(0.5f, 1.f) * (s.per < 0 ? -1.f : 1.f));
                    if (s.at >= 0) {
                        std::memcpy(blk + s.at, &h, 2);
                        return;
                    }
                    for (int w = 0; w < 4; ++w) {  // IQ1_M: nibble w of d in the top nibble of scale word w
                        std::uint16_t sw;
                        std::memcpy(&sw, blk + 48 + 2 * w, 2);
                        sw = std::uint16_t((sw & 0x0FFF) | (((h >> (4 * w)) & 0xF) << 12));
                        std::memcpy(blk + 48 + 2 * w, &sw, 2);
                    }
                };
                put(s0);
                if (s1.at >= 0) put(s1);
            }
            break;
        }
    }
}

struct Weights {
    std::vector<std::uint8_t> bytes;
    std::vector<float> deq;  // [rows, k]
    std::size_t row_bytes = 0;
};

// rows × k random blocks; row_bytes = the packed size + pad (pad bytes random).
inline Weights make(ft::kernels::DType t, std::int64_t rows, std::int64_t k, std::uint32_t seed, std::size_t pad = 0, float amp = 0.25f) {
    Weights w;
    w.row_bytes = std::size_t(*ft::kernels::dtype_bytes(t, std::uint64_t(k))) + pad;
    w.bytes.resize(w.row_bytes * std::size_t(rows));
    w.deq.resize(std::size_t(rows * k));
    Rng g(seed);
    for (auto& b : w.bytes) b = std::uint8_t(g.next());
    for (std::int64_t r = 0; r < rows; ++r) {
        std::uint8_t* row = w.bytes.data() + std::size_t(r) * w.row_bytes;
        random_row(t, k, g, amp, row);
        ft::kernels::ref::dequantize_row(t, row, w.deq.data() + r * k, k);
    }
    return w;
}

}  // namespace ft::test
