// Host side of quant::vec's units (the same __host__ __device__ arithmetic the GEMV kernel runs, with the PTX prmt
// emulated and bytes copied instead of the kernel's aligned word loads) against the reference dequantization.
#include "vec_units_check.h"

#include <cstdio>
#include <cstring>

#include "cuda/quant_decode.cuh"
#include "quant_weights.h"

namespace ft::test {
namespace {

namespace qv = ft::kernels::cuda::quant::vec;
using ft::kernels::DType;

struct HostLoad {
    template <int N>
    __host__ __device__ void get(const std::uint8_t* p, std::uint32_t* out) const {
        std::uint8_t b[((N + 3) / 4) * 4] = {};
        std::memcpy(b, p, N);
        std::memcpy(out, b, sizeof b);
    }
};

template <class V>
VecUnitReport check(DType t, bool flip) {
    VecUnitReport rep;
    rep.type = std::string(ft::kernels::dtype_info(t).name);
    constexpr int kRows = 8, kK = 1024;
    const Weights w = make(t, kRows, kK, 91u + unsigned(t));
    const int block_elems = 32 * V::kPerBlock;
    for (int r = 0; r < kRows; ++r) {
        const std::uint8_t* row = w.bytes.data() + std::size_t(r) * w.row_bytes;
        std::vector<int> seen(kK, 0);
        for (int u = 0; u < kK / 32; ++u) {
            // The kernel's placement: unit u on lane u mod 32, v = lane & 7 inside a 256-element block.
            const int v = V::kPerBlock == 1 ? 0 : (u & 7), b = V::kPerBlock == 1 ? u : u / 8;
            const auto st = V::load(HostLoad{}, row + std::size_t(b) * V::kBytes, v);
            for (int part = 0; part < 2; ++part)
                for (int tt = 0; tt < 4; ++tt)
                    for (int c = 0; c < 4; ++c) {
                        float4 x[4];
                        std::memset(x, 0, sizeof x);
                        reinterpret_cast<float*>(&x[tt])[c] = 1.f;
                        const float s = V::dot(st, part, x);
                        const int g = V::kGroups == 2 ? part : 0;
                        float val = qv::mul_rn(V::scale(st, g), s);
                        if (V::kMin) val = val - V::min(st, g);
                        const int e = b * block_elems + 4 * V::xslot(v, part, tt) + c;
                        if (e < 0 || e >= kK) {
                            ++rep.covered_twice;
                            continue;
                        }
                        ++seen[std::size_t(e)];
                        ++rep.values;
                        const float want = w.deq[std::size_t(r) * kK + std::size_t(flip ? (e ^ 1) : e)];
                        if (std::memcmp(&val, &want, 4) != 0) {
                            if (rep.mismatch_count++ < 4) {
                                char buf[160];
                                std::snprintf(buf, sizeof buf, "row %d element %d: %.9g, reference %.9g", r, e,
                                              double(val), double(want));
                                rep.mismatches.push_back(buf);
                            }
                        }
                    }
        }
        for (int n : seen)
            if (n != 1) ++rep.covered_twice;
    }
    return rep;
}

}  // namespace

std::vector<VecUnitReport> check_vec_units(bool flip) {
    return {
        check<qv::Q4_0>(DType::Q4_0, flip),
        check<qv::Q5_0>(DType::Q5_0, flip),
        check<qv::Iq4Nl>(DType::IQ4_NL, flip),
        check<qv::Iq4Xs>(DType::IQ4_XS, flip),
        check<qv::Q2_K>(DType::Q2_K, flip),
        check<qv::Q3_K>(DType::Q3_K, flip),
        check<qv::Iq2Xxs>(DType::IQ2_XXS, flip),
        check<qv::Iq3Xxs>(DType::IQ3_XXS, flip),
        check<qv::Q4_1>(DType::Q4_1, flip),
        check<qv::Q5_1>(DType::Q5_1, flip),
        check<qv::Tq2_0>(DType::TQ2_0, flip),
        check<qv::Iq2Xs>(DType::IQ2_XS, flip),
        check<qv::Iq2S>(DType::IQ2_S, flip),
        check<qv::Iq3S>(DType::IQ3_S, flip),
        check<qv::Iq1S>(DType::IQ1_S, flip),
        check<qv::Iq1M>(DType::IQ1_M, flip),
        check<qv::Tq1_0>(DType::TQ1_0, flip),
    };
}

}  // namespace ft::test
