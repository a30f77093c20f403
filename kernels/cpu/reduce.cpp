#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/reduce.cpp"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include "cpu/reduce.h"

HWY_BEFORE_NAMESPACE();
namespace ft::kernels::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

float SumF32(const float* p, std::size_t n) {
    const hn::ScalableTag<float> df;
    const std::size_t N = hn::Lanes(df);
    auto a0 = hn::Zero(df), a1 = hn::Zero(df), a2 = hn::Zero(df), a3 = hn::Zero(df);
    std::size_t i = 0;
    for (; i + 4 * N <= n; i += 4 * N) {
        a0 = hn::Add(a0, hn::LoadU(df, p + i));
        a1 = hn::Add(a1, hn::LoadU(df, p + i + N));
        a2 = hn::Add(a2, hn::LoadU(df, p + i + 2 * N));
        a3 = hn::Add(a3, hn::LoadU(df, p + i + 3 * N));
    }
    float s = hn::GetLane(hn::SumOfLanes(df, hn::Add(hn::Add(a0, a1), hn::Add(a2, a3))));
    for (; i < n; ++i) s += p[i];
    return s;
}

}  // namespace ft::kernels::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ft::kernels::cpu {
HWY_EXPORT(SumF32);
float sum_f32(const float* p, std::size_t n) { return HWY_DYNAMIC_DISPATCH(SumF32)(p, n); }
}  // namespace ft::kernels::cpu
#endif
