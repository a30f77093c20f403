#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/rms_norm.cpp"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include <cmath>

#include "cpu/rms_norm.h"

HWY_BEFORE_NAMESPACE();
namespace ft::kernels::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void RmsNormF32(const float* x, const float* w, float* y, std::int64_t n_rows, std::int64_t n_cols, float eps) {
    const hn::ScalableTag<float> d;
    const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(d));
    for (std::int64_t r = 0; r < n_rows; ++r) {
        const float* xr = x + r * n_cols;
        float* yr = y + r * n_cols;
        auto acc0 = hn::Zero(d), acc1 = hn::Zero(d);
        std::int64_t c = 0;
        for (; c + 2 * lanes <= n_cols; c += 2 * lanes) {
            const auto v0 = hn::LoadU(d, xr + c), v1 = hn::LoadU(d, xr + c + lanes);
            acc0 = hn::MulAdd(v0, v0, acc0);
            acc1 = hn::MulAdd(v1, v1, acc1);
        }
        double ss = hn::GetLane(hn::SumOfLanes(d, hn::Add(acc0, acc1)));
        for (; c < n_cols; ++c) ss += double(xr[c]) * double(xr[c]);
        const float scale = float(1.0 / std::sqrt(ss / double(n_cols) + double(eps)));
        const auto vs = hn::Set(d, scale);
        c = 0;
        for (; c + lanes <= n_cols; c += lanes) {
            hn::StoreU(hn::Mul(hn::Mul(hn::LoadU(d, xr + c), vs), hn::LoadU(d, w + c)), d, yr + c);
        }
        for (; c < n_cols; ++c) yr[c] = xr[c] * scale * w[c];
    }
}

}  // namespace ft::kernels::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ft::kernels::cpu {
HWY_EXPORT(RmsNormF32);

void rms_norm_f32(const float* x, const float* w, float* y, std::int64_t n_rows, std::int64_t n_cols, float eps) {
    HWY_DYNAMIC_DISPATCH(RmsNormF32)(x, w, y, n_rows, n_cols, eps);
}
}  // namespace ft::kernels::cpu
#endif
