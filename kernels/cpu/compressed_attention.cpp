#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/compressed_attention.cpp"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>

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

void CompressEntry(const float* kv, const float* gate, int n_slots, int dim, std::int64_t ld, float* out) {
    const hn::ScalableTag<float> d;
    const int lanes = int(hn::Lanes(d));
    int c = 0;
    for (; c + lanes <= dim; c += lanes) {
        auto mx = hn::Set(d, -INFINITY);
        for (int s = 0; s < n_slots; ++s) mx = hn::Max(mx, hn::LoadU(d, gate + s * ld + c));
        auto sum = hn::Zero(d), acc = hn::Zero(d);
        for (int s = 0; s < n_slots; ++s) {
            const auto e = hn::Exp(d, hn::Sub(hn::LoadU(d, gate + s * ld + c), mx));
            sum = hn::Add(sum, e);
            acc = hn::MulAdd(e, hn::LoadU(d, kv + s * ld + c), acc);
        }
        hn::StoreU(hn::Div(acc, sum), d, out + c);
    }
    for (; c < dim; ++c) {
        float mx = -INFINITY, sum = 0.f, acc = 0.f;
        for (int s = 0; s < n_slots; ++s) mx = std::max(mx, gate[s * ld + c]);
        for (int s = 0; s < n_slots; ++s) {
            const float e = std::exp(gate[s * ld + c] - mx);
            sum += e;
            acc += e * kv[s * ld + c];
        }
        out[c] = acc / sum;
    }
}

void HcCollapse(int n, std::int64_t dn, const float* pre, const float* x, float* out) {
    const hn::ScalableTag<float> d;
    const std::int64_t lanes = std::int64_t(hn::Lanes(d));
    std::int64_t i = 0;
    for (; i + lanes <= dn; i += lanes) {
        auto s = hn::Zero(d);
        for (int j = 0; j < n; ++j) s = hn::MulAdd(hn::Set(d, pre[j]), hn::LoadU(d, x + j * dn + i), s);
        hn::StoreU(s, d, out + i);
    }
    for (; i < dn; ++i) {
        float s = 0.f;
        for (int j = 0; j < n; ++j) s += pre[j] * x[j * dn + i];
        out[i] = s;
    }
}

void HcExpand(int n, std::int64_t dn, const float* post, const float* comb, const float* y, float* x) {
    constexpr int kMax = 16;
    const hn::ScalableTag<float> d;
    const std::int64_t lanes = std::int64_t(hn::Lanes(d));
    std::int64_t i = 0;
    if (n <= kMax)
        for (; i + lanes <= dn; i += lanes) {
            hn::Vec<decltype(d)> in[kMax];
            for (int j = 0; j < n; ++j) in[j] = hn::LoadU(d, x + j * dn + i);
            const auto yv = hn::LoadU(d, y + i);
            for (int k = 0; k < n; ++k) {
                auto s = hn::Mul(hn::Set(d, post[k]), yv);
                for (int j = 0; j < n; ++j) s = hn::MulAdd(hn::Set(d, comb[j * n + k]), in[j], s);
                hn::StoreU(s, d, x + k * dn + i);
            }
        }
    std::vector<float> col(static_cast<std::size_t>(n));
    for (; i < dn; ++i) {
        for (int k = 0; k < n; ++k) {
            float s = post[k] * y[i];
            for (int j = 0; j < n; ++j) s += comb[j * n + k] * x[j * dn + i];
            col[std::size_t(k)] = s;
        }
        for (int k = 0; k < n; ++k) x[k * dn + i] = col[std::size_t(k)];
    }
}

}  // namespace ft::kernels::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ft::kernels::cpu {
HWY_EXPORT(IndexTopK);
HWY_EXPORT(SharedKvAttention);
HWY_EXPORT(CompressEntry);
HWY_EXPORT(HcCollapse);
HWY_EXPORT(HcExpand);

void compress_entry_f32(const float* kv, const float* gate, int n_slots, int dim, std::int64_t ld, float* out) {
    HWY_DYNAMIC_DISPATCH(CompressEntry)(kv, gate, n_slots, dim, ld, out);
}
void hc_collapse(int n, std::int64_t d, const float* pre, const float* x, float* out) {
    HWY_DYNAMIC_DISPATCH(HcCollapse)(n, d, pre, x, out);
}
void hc_expand(int n, std::int64_t d, const float* post, const float* comb, const float* y, float* x) {
    HWY_DYNAMIC_DISPATCH(HcExpand)(n, d, post, comb, y, x);
}

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
