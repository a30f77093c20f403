#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/attention.cpp"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "cpu/attention.h"

HWY_BEFORE_NAMESPACE();
namespace ft::kernels::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// head_dim up to 512 in registers-sized chunks of a stack accumulator.
constexpr int kMaxHeadDim = 512;

// One softmax weight per key. MinGW-w64's expf is x87 code, several times slower than glibc's: under Wine it took
// 39 % of a decode step (docs/benchmarks.md), so that build uses Highway's polynomial on one lane. Other builds keep
// the C library's (their golden figures were made with it).
HWY_INLINE float ExpOne(float x) {
#if defined(__MINGW32__)
    const hn::CappedTag<float, 1> d1;
    return hn::GetLane(hn::Exp(d1, hn::Set(d1, x)));
#else
    return std::exp(x);
#endif
}

void AttentionF32(const AttentionParams& p, const float* q, const std::int32_t* pos, const PagedKvView& kv,
                  float* out, std::int64_t task_begin, std::int64_t task_end) {
    const hn::ScalableTag<float> df;
    const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(df));
    if (p.v_head_dim > kMaxHeadDim) {  // no model we support has such heads; stay correct anyway
        ref::attention_f32(p, q, pos, kv, out, task_begin, task_end);
        return;
    }
    const int group = p.n_head / p.n_head_kv;
    HWY_ALIGN float acc[kMaxHeadDim];
    for (std::int64_t task = task_begin; task < task_end; ++task) {
        const std::int64_t t = task / p.n_head;
        const int h = int(task % p.n_head), hk = h / group;
        const float* qv = q + task * p.head_dim;
        const std::int64_t last = pos[t];
        const std::int64_t first = p.window > 0 ? std::max<std::int64_t>(0, last - p.window + 1) : 0;
        float mx = p.sinks ? p.sinks[h] : -std::numeric_limits<float>::infinity();
        float sum = p.sinks ? 1.f : 0.f;  // exp(sink - mx) with mx = sink
        std::fill(acc, acc + p.v_head_dim, 0.f);
        for (std::int64_t j = first; j <= last; ++j) {
            const std::int64_t slot = std::int64_t(kv.page_table[j / p.page_size]) * p.page_size + j % p.page_size;
            const float* kj = kv.k + (slot * p.n_head_kv + hk) * p.head_dim;
            const float* vj = kv.v + (slot * p.n_head_kv + hk) * p.v_head_dim;
            auto d0 = hn::Zero(df);
            std::int64_t d = 0;
            for (; d + N <= p.head_dim; d += N) d0 = hn::MulAdd(hn::LoadU(df, qv + d), hn::LoadU(df, kj + d), d0);
            float dot = hn::GetLane(hn::SumOfLanes(df, d0));
            for (; d < p.head_dim; ++d) dot += qv[d] * kj[d];
            const float s = dot * p.scale;
            // Online softmax: rescale the running sum and accumulator when the maximum grows.
            float w;
            if (s > mx) {
                const float c = ExpOne(mx - s);
                sum *= c;
                const auto vc = hn::Set(df, c);
                std::int64_t e = 0;
                for (; e + N <= p.v_head_dim; e += N) hn::Store(hn::Mul(hn::Load(df, acc + e), vc), df, acc + e);
                for (; e < p.v_head_dim; ++e) acc[e] *= c;
                mx = s;
                w = 1.f;
            } else {
                w = ExpOne(s - mx);
            }
            sum += w;
            const auto vw = hn::Set(df, w);
            std::int64_t e = 0;
            for (; e + N <= p.v_head_dim; e += N)
                hn::Store(hn::MulAdd(hn::LoadU(df, vj + e), vw, hn::Load(df, acc + e)), df, acc + e);
            for (; e < p.v_head_dim; ++e) acc[e] += w * vj[e];
        }
        float* o = out + task * p.v_head_dim;
        const float inv = 1.f / sum;
        for (int e = 0; e < p.v_head_dim; ++e) o[e] = acc[e] * inv;
    }
}

}  // namespace ft::kernels::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ft::kernels::cpu {
HWY_EXPORT(AttentionF32);

void attention_f32(const AttentionParams& p, const float* q, const std::int32_t* pos, const PagedKvView& kv,
                   float* out, std::int64_t task_begin, std::int64_t task_end) {
    HWY_DYNAMIC_DISPATCH(AttentionF32)(p, q, pos, kv, out, task_begin, task_end);
}
}  // namespace ft::kernels::cpu
#endif
