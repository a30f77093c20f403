#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/mla_attention.cpp"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "cpu/mla_attention.h"

HWY_BEFORE_NAMESPACE();
namespace ft::kernels::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void MlaAttentionF32(const MlaParams& p, const float* q, const std::int32_t* pos, const float* kv,
                     const std::int32_t* page_table, float* out, std::int64_t task_begin, std::int64_t task_end) {
    const hn::ScalableTag<float> df;
    const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(df));
    const int D = p.kv_dim(), L = p.kv_lora;
    const std::int64_t blocks = (p.n_head + kMlaHeads - 1) / kMlaHeads;
    // Accumulators of a block's heads, padded to whole vectors.
    const std::int64_t LP = (L + N - 1) / N * N;
    std::vector<float> acc(std::size_t(kMlaHeads * LP));
    for (std::int64_t task = task_begin; task < task_end; ++task) {
        const std::int64_t t = task / blocks;
        const int h0 = int(task % blocks) * kMlaHeads, nh = std::min(kMlaHeads, p.n_head - h0);
        const float* qt = q + (t * p.n_head + h0) * D;
        float mx[kMlaHeads], sum[kMlaHeads];
        std::fill(mx, mx + kMlaHeads, -std::numeric_limits<float>::infinity());
        std::fill(sum, sum + kMlaHeads, 0.f);
        std::fill(acc.begin(), acc.end(), 0.f);
        for (std::int64_t j = 0; j <= pos[t]; ++j) {
            const float* r = kv + (std::int64_t(page_table[j / p.page_size]) * p.page_size + j % p.page_size) * D;
            for (int h = 0; h < nh; ++h) {
                const float* qv = qt + std::int64_t(h) * D;
                auto d0 = hn::Zero(df);
                std::int64_t d = 0;
                for (; d + N <= D; d += N) d0 = hn::MulAdd(hn::LoadU(df, qv + d), hn::LoadU(df, r + d), d0);
                float dot = hn::GetLane(hn::SumOfLanes(df, d0));
                for (; d < D; ++d) dot += qv[d] * r[d];
                const float s = dot * p.scale;
                float* a = acc.data() + std::int64_t(h) * LP;
                float w;
                if (s > mx[h]) {  // online softmax: rescale what is summed so far when the maximum grows
                    const float c = std::exp(mx[h] - s);
                    sum[h] *= c;
                    const auto vc = hn::Set(df, c);
                    for (std::int64_t e = 0; e < LP; e += N) hn::StoreU(hn::Mul(hn::LoadU(df, a + e), vc), df, a + e);
                    mx[h] = s;
                    w = 1.f;
                } else {
                    w = std::exp(s - mx[h]);
                }
                sum[h] += w;
                const auto vw = hn::Set(df, w);
                std::int64_t e = 0;
                for (; e + N <= L; e += N) hn::StoreU(hn::MulAdd(hn::LoadU(df, r + e), vw, hn::LoadU(df, a + e)), df, a + e);
                for (; e < L; ++e) a[e] += w * r[e];
            }
        }
        for (int h = 0; h < nh; ++h) {
            float* o = out + (t * p.n_head + h0 + h) * L;
            const float* a = acc.data() + std::int64_t(h) * LP;
            const float inv = 1.f / sum[h];
            for (int e = 0; e < L; ++e) o[e] = a[e] * inv;
        }
    }
}

}  // namespace ft::kernels::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ft::kernels::cpu {
HWY_EXPORT(MlaAttentionF32);

std::int64_t mla_attention_tasks(const MlaParams& p, std::int64_t n_tokens) {
    return n_tokens * ((p.n_head + kMlaHeads - 1) / kMlaHeads);
}

void mla_attention_f32(const MlaParams& p, const float* q, const std::int32_t* pos, const float* kv,
                       const std::int32_t* page_table, float* out, std::int64_t task_begin, std::int64_t task_end) {
    HWY_DYNAMIC_DISPATCH(MlaAttentionF32)(p, q, pos, kv, page_table, out, task_begin, task_end);
}
}  // namespace ft::kernels::cpu
#endif
