#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/compressed_attention.cpp"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu/compressed_attention.h"
#include "ref/compressed_attention.h"

HWY_BEFORE_NAMESPACE();
namespace ft::kernels::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

float Dot(const float* a, const float* b, int n) {
    const hn::ScalableTag<float> d;
    const int lanes = int(hn::Lanes(d));
    auto acc0 = hn::Zero(d), acc1 = hn::Zero(d);
    int i = 0;
    for (; i + 2 * lanes <= n; i += 2 * lanes) {
        acc0 = hn::MulAdd(hn::LoadU(d, a + i), hn::LoadU(d, b + i), acc0);
        acc1 = hn::MulAdd(hn::LoadU(d, a + i + lanes), hn::LoadU(d, b + i + lanes), acc1);
    }
    float s = hn::GetLane(hn::SumOfLanes(d, hn::Add(acc0, acc1)));
    for (; i < n; ++i) s += a[i] * b[i];
    return s;
}

// y[i] = y[i] · keep + e · x[i]
void ScaleAdd(float* y, float keep, float e, const float* x, int n) {
    const hn::ScalableTag<float> d;
    const int lanes = int(hn::Lanes(d));
    const auto vk = hn::Set(d, keep), ve = hn::Set(d, e);
    int i = 0;
    for (; i + lanes <= n; i += lanes) hn::StoreU(hn::MulAdd(hn::LoadU(d, x + i), ve, hn::Mul(hn::LoadU(d, y + i), vk)), d, y + i);
    for (; i < n; ++i) y[i] = y[i] * keep + e * x[i];
}

int IndexTopK(const float* q, const float* w, int n_heads, int dim, float scale, const float* const* keys, int n,
              int topk, std::int32_t* out) {
    std::vector<double> score(static_cast<std::size_t>(n));
    for (int e = 0; e < n; ++e) {
        double s = 0;
        for (int h = 0; h < n_heads; ++h) s += double(w[h]) * std::max(0.f, Dot(q + std::int64_t(h) * dim, keys[e], dim)) * scale;
        score[std::size_t(e)] = s;
    }
    return ref::index_select(score.data(), n, topk, out);
}

void SharedKvAttention(const float* q, int n_heads, int dim, float scale, const float* sinks, const float* const* rows,
                       int n_rows, float* out) {
    for (int h = 0; h < n_heads; ++h) {
        const float* qh = q + std::int64_t(h) * dim;
        float* o = out + std::int64_t(h) * dim;
        std::fill(o, o + dim, 0.f);
        // Online softmax: the running maximum starts at the sink, whose share ends in the denominator only.
        float mx = sinks ? sinks[h] : -INFINITY, sum = sinks ? 1.f : 0.f;
        for (int r = 0; r < n_rows; ++r) {
            const float l = Dot(qh, rows[r], dim) * scale;
            float keep = 1.f;
            if (l > mx) {
                keep = std::exp(mx - l);
                sum *= keep;
                mx = l;
            }
            const float e = std::exp(l - mx);
            sum += e;
            ScaleAdd(o, keep, e, rows[r], dim);
        }
        const float inv = sum > 0.f ? 1.f / sum : 0.f;
        for (int i = 0; i < dim; ++i) o[i] *= inv;
    }
}

}  // namespace ft::kernels::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ft::kernels::cpu {
HWY_EXPORT(IndexTopK);
HWY_EXPORT(SharedKvAttention);

int index_topk_f32(const float* q, const float* w, int n_heads, int dim, float scale, const float* const* keys, int n,
                   int topk, std::int32_t* out) {
    return HWY_DYNAMIC_DISPATCH(IndexTopK)(q, w, n_heads, dim, scale, keys, n, topk, out);
}

void shared_kv_attention_f32(const float* q, int n_heads, int dim, float scale, const float* sinks,
                             const float* const* rows, int n_rows, float* out) {
    HWY_DYNAMIC_DISPATCH(SharedKvAttention)(q, n_heads, dim, scale, sinks, rows, n_rows, out);
}
}  // namespace ft::kernels::cpu
#endif
