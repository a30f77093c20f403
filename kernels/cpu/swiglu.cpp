#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/swiglu.cpp"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>

#include <algorithm>
#include <cmath>

#include "cpu/swiglu.h"

HWY_BEFORE_NAMESPACE();
namespace ft::kernels::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void SwigluF32(const float* g, const float* u, float* y, std::int64_t n, float limit) {
    const hn::ScalableTag<float> df;
    const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(df));
    const auto one = hn::Set(df, 1.f);
    const float alpha = limit > 0.f ? 1.702f : 1.f;
    const auto va = hn::Set(df, -alpha);
    std::int64_t i = 0;
    for (; i + N <= n; i += N) {
        auto gv = hn::LoadU(df, g + i), uv = hn::LoadU(df, u + i);
        if (limit > 0.f) {
            gv = hn::Min(gv, hn::Set(df, limit));
            uv = hn::Add(hn::Min(hn::Max(uv, hn::Set(df, -limit)), hn::Set(df, limit)), one);
        } else if (limit < 0.f) {
            gv = hn::Min(gv, hn::Set(df, -limit));
            uv = hn::Min(hn::Max(uv, hn::Set(df, limit)), hn::Set(df, -limit));
        }
        const auto sig = hn::Div(one, hn::Add(one, hn::Exp(df, hn::Mul(gv, va))));
        hn::StoreU(hn::Mul(hn::Mul(gv, sig), uv), df, y + i);
    }
    for (; i < n; ++i) {
        float gx = g[i], ux = u[i];
        if (limit > 0.f) {
            gx = std::min(gx, limit);
            ux = std::clamp(ux, -limit, limit) + 1.f;
        } else if (limit < 0.f) {
            gx = std::min(gx, -limit);
            ux = std::clamp(ux, limit, -limit);
        }
        y[i] = gx / (1.f + std::exp(-alpha * gx)) * ux;
    }
}

}  // namespace ft::kernels::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ft::kernels::cpu {
HWY_EXPORT(SwigluF32);

void swiglu_f32(const float* g, const float* u, float* y, std::int64_t n, float limit) {
    HWY_DYNAMIC_DISPATCH(SwigluF32)(g, u, y, n, limit);
}
}  // namespace ft::kernels::cpu
#endif
