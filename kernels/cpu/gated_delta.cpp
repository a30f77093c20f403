#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/gated_delta.cpp"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu/gated_delta.h"

HWY_BEFORE_NAMESPACE();
namespace ft::kernels::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

constexpr int kStripVecs = 4;           // state columns per strip: kStripVecs vectors
constexpr std::int64_t kTokBlock = 64;  // tokens prepared at once

// e^-u clamped below +inf (Highway's Exp is defined up to 104): silu(u) → -0 for u → -inf, as u / (1 + e^-u) does.
HWY_INLINE VF Silu(DF df, VF u) {
    return hn::Div(u, hn::Add(hn::Set(df, 1.f), hn::Exp(df, hn::Min(hn::Neg(u), hn::Set(df, 88.f)))));
}
inline float silu(float u) { return u / (1.f + std::exp(-u)); }

void CausalConv1dSiluF32(const float* x, std::int64_t ldx, std::int64_t n_tokens, int channels, int kernel,
                         const float* w, float* state, float* y, std::int64_t ldy) {
    const DF df;
    const int N = int(hn::Lanes(df)), H = kernel - 1;
    // A block of N channels with its weights and state transposed to [tap, lane], so that a tap is one vector.
    std::vector<float> wt(std::size_t(kernel * N)), st(std::size_t(std::max(H, 1) * N));
    int c0 = 0;
    for (; c0 + N <= channels; c0 += N) {
        for (int l = 0; l < N; ++l) {
            for (int i = 0; i < kernel; ++i) wt[std::size_t(i * N + l)] = w[std::int64_t(c0 + l) * kernel + i];
            for (int i = 0; i < H; ++i) st[std::size_t(i * N + l)] = state[std::int64_t(c0 + l) * H + i];
        }
        auto row = [&](std::int64_t j) { return j < H ? st.data() + j * N : x + (j - H) * ldx + c0; };  // xx[j]
        for (std::int64_t t = 0; t < n_tokens; ++t) {
            auto acc = hn::Zero(df);
            for (int i = 0; i < kernel; ++i)
                acc = hn::MulAdd(hn::LoadU(df, row(t + i)), hn::LoadU(df, wt.data() + i * N), acc);
            hn::StoreU(Silu(df, acc), df, y + t * ldy + c0);
        }
        for (int l = 0; l < N; ++l)
            for (int i = 0; i < H; ++i) state[std::int64_t(c0 + l) * H + i] = row(n_tokens + i)[l];
    }
    for (int c = c0; c < channels; ++c) {  // the last channels, one at a time
        float* s = state + std::int64_t(c) * H;
        for (int i = 0; i < H; ++i) st[std::size_t(i)] = s[i];
        auto xx = [&](std::int64_t j) { return j < H ? st[std::size_t(j)] : x[(j - H) * ldx + c]; };
        for (std::int64_t t = 0; t < n_tokens; ++t) {
            float acc = 0.f;
            for (int i = 0; i < kernel; ++i) acc += w[std::int64_t(c) * kernel + i] * xx(t + i);
            y[t * ldy + c] = silu(acc);
        }
        for (int i = 0; i < H; ++i) s[i] = xx(n_tokens + i);
    }
}

// The tokens of one head as the rule uses them: q̂ (normalized, scaled) and k̂ [n, dk], k̂·q̂, a = e^g, b = beta.
struct HeadTokens {
    std::vector<float> q, k, kq, a, b;
    explicit HeadTokens(int dk)
        : q(std::size_t(kTokBlock * dk)), k(q.size()), kq(std::size_t(kTokBlock)), a(kq.size()), b(kq.size()) {}
};

HWY_INLINE float Dot(const float* a, const float* b, int n) {
    const DF df;
    const int N = int(hn::Lanes(df));
    auto s0 = hn::Zero(df), s1 = hn::Zero(df);
    int i = 0;
    for (; i + 2 * N <= n; i += 2 * N) {
        s0 = hn::MulAdd(hn::LoadU(df, a + i), hn::LoadU(df, b + i), s0);
        s1 = hn::MulAdd(hn::LoadU(df, a + i + N), hn::LoadU(df, b + i + N), s1);
    }
    float s = hn::GetLane(hn::SumOfLanes(df, hn::Add(s0, s1)));
    for (; i < n; ++i) s += a[i] * b[i];
    return s;
}

void Prepare(const GatedDeltaParams& p, int h, const float* q, const float* k, const float* g, const float* beta,
             std::int64_t t0, std::int64_t n, HeadTokens& ht) {
    const int dk = p.dk, hk = p.k_head(h);
    const float scale = 1.f / std::sqrt(float(dk));
    auto norm = [&](const float* src, float s, float* dst) {
        if (p.l2norm_qk) s /= std::sqrt(Dot(src, src, dk) + kGatedDeltaNormEps);
        for (int i = 0; i < dk; ++i) dst[i] = src[i] * s;
    };
    for (std::int64_t r = 0; r < n; ++r) {
        const std::int64_t t = t0 + r;
        float* qh = ht.q.data() + r * dk;
        float* kh = ht.k.data() + r * dk;
        norm(q + t * p.q_stride() + std::int64_t(hk) * dk, scale, qh);
        norm(k + t * p.k_stride() + std::int64_t(hk) * dk, 1.f, kh);
        ht.kq[std::size_t(r)] = Dot(kh, qh, dk);
        ht.a[std::size_t(r)] = std::exp(g[t * p.n_heads + h]);
        ht.b[std::size_t(r)] = beta[t * p.n_heads + h];
    }
}

// n prepared tokens on a strip of kStripVecs·N state columns: S [dk rows, row stride lds], token t's v columns at
// vt + t·ldv, its outputs at ot + t·ldo. Per token: δ = b·(v − a·Sᵀk), out = a·Sᵀq + (k·q)·δ from the state before
// the update; then one pass S = a·S + k·δᵀ that also sums the next token's Sᵀk and Sᵀq.
void Strip(int dk, float* S, std::int64_t lds, const HeadTokens& ht, std::int64_t n, const float* vt,
           std::int64_t ldv, float* ot, std::int64_t ldo) {
    const DF df;
    const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(df));
    VF kv[kStripVecs], sq[kStripVecs], d[kStripVecs];
    auto sums = [&](int m, VF s, float ki, float qi) {  // row i of S into Sᵀk and Sᵀq
        kv[m] = hn::MulAdd(s, hn::Set(df, ki), kv[m]);
        sq[m] = hn::MulAdd(s, hn::Set(df, qi), sq[m]);
    };
    for (int m = 0; m < kStripVecs; ++m) kv[m] = sq[m] = hn::Zero(df);
    for (int i = 0; i < dk; ++i)
        for (int m = 0; m < kStripVecs; ++m)
            sums(m, hn::LoadU(df, S + i * lds + m * N), ht.k[std::size_t(i)], ht.q[std::size_t(i)]);
    for (std::int64_t t = 0; t < n; ++t) {
        const auto a = hn::Set(df, ht.a[std::size_t(t)]), b = hn::Set(df, ht.b[std::size_t(t)]);
        const auto kq = hn::Set(df, ht.kq[std::size_t(t)]);
        for (int m = 0; m < kStripVecs; ++m) {
            d[m] = hn::Mul(b, hn::NegMulAdd(a, kv[m], hn::LoadU(df, vt + t * ldv + m * N)));
            hn::StoreU(hn::MulAdd(kq, d[m], hn::Mul(a, sq[m])), df, ot + t * ldo + m * N);
        }
        const float* kt = ht.k.data() + t * dk;
        const bool next = t + 1 < n;
        const float* kn = kt + dk;
        const float* qn = ht.q.data() + (t + 1) * dk;
        for (int m = 0; m < kStripVecs; ++m) kv[m] = sq[m] = hn::Zero(df);
        for (int i = 0; i < dk; ++i) {
            const auto ki = hn::Set(df, kt[i]);
            for (int m = 0; m < kStripVecs; ++m) {
                float* row = S + i * lds + m * N;
                const auto s = hn::MulAdd(ki, d[m], hn::Mul(a, hn::LoadU(df, row)));
                hn::StoreU(s, df, row);
                if (next) sums(m, s, kn[i], qn[i]);
            }
        }
    }
}

// n prepared tokens of one head on its state S [dk, dv]; vh / oh: the head's v and out rows of the first token.
void HeadRun(const GatedDeltaParams& p, const HeadTokens& ht, std::int64_t n, float* S, const float* vh, float* oh,
             std::vector<float>& pad) {
    const DF df;
    const std::int64_t W = kStripVecs * static_cast<std::int64_t>(hn::Lanes(df)), dv = p.dv;
    const std::int64_t ldv = p.v_stride(), ldo = std::int64_t(p.n_heads) * dv;
    for (std::int64_t j0 = 0; j0 < dv; j0 += W) {
        if (j0 + W <= dv) {
            Strip(p.dk, S + j0, dv, ht, n, vh + j0, ldv, oh + j0, ldo);
            continue;
        }
        // The last, partial strip through zero-padded copies: a padded column has v = 0, so it stays 0.
        const std::int64_t w = dv - j0;
        pad.assign(std::size_t((p.dk + 2 * n) * W), 0.f);
        float *Sp = pad.data(), *vp = Sp + p.dk * W, *op = vp + n * W;
        for (int i = 0; i < p.dk; ++i) std::copy_n(S + i * dv + j0, w, Sp + i * W);
        for (std::int64_t t = 0; t < n; ++t) std::copy_n(vh + t * ldv + j0, w, vp + t * W);
        Strip(p.dk, Sp, W, ht, n, vp, W, op, W);
        for (int i = 0; i < p.dk; ++i) std::copy_n(Sp + i * W, w, S + i * dv + j0);
        for (std::int64_t t = 0; t < n; ++t) std::copy_n(op + t * W, w, oh + t * ldo + j0);
    }
}

void GatedDeltaPrefillF32(const GatedDeltaParams& p, const float* q, const float* k, const float* v, const float* g,
                          const float* beta, std::int64_t n_tokens, float* state, float* out, int head_begin,
                          int head_end) {
    HeadTokens ht(p.dk);
    std::vector<float> pad;
    for (int h = head_begin; h < head_end; ++h) {
        for (std::int64_t t0 = 0; t0 < n_tokens; t0 += kTokBlock) {
            const std::int64_t n = std::min(kTokBlock, n_tokens - t0);
            Prepare(p, h, q, k, g, beta, t0, n, ht);
            HeadRun(p, ht, n, state + std::int64_t(h) * p.dk * p.dv, v + t0 * p.v_stride() + std::int64_t(h) * p.dv,
                    out + (t0 * p.n_heads + h) * p.dv, pad);
        }
    }
}

void GatedDeltaDecodeF32(const GatedDeltaParams& p, const float* q, const float* k, const float* v, const float* g,
                         const float* beta, const std::int32_t* slot, float* states, float* out,
                         std::int64_t task_begin, std::int64_t task_end) {
    HeadTokens ht(p.dk);
    std::vector<float> pad;
    for (std::int64_t task = task_begin; task < task_end; ++task) {
        const std::int64_t t = task / p.n_heads;
        const int h = int(task % p.n_heads);
        if (slot[t] < 0) continue;
        Prepare(p, h, q, k, g, beta, t, 1, ht);
        float* S = states + slot[t] * p.state_size() + std::int64_t(h) * p.dk * p.dv;
        HeadRun(p, ht, 1, S, v + t * p.v_stride() + std::int64_t(h) * p.dv, out + task * p.dv, pad);
    }
}

void GatedRmsNormF32(const float* x, const float* z, const float* w, float* y, std::int64_t n_rows,
                     std::int64_t n_cols, float eps) {
    const DF df;
    const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(df));
    for (std::int64_t r = 0; r < n_rows; ++r) {
        const float* xr = x + r * n_cols;
        const float* zr = z + r * n_cols;
        float* yr = y + r * n_cols;
        auto acc = hn::Zero(df);
        std::int64_t c = 0;
        for (; c + N <= n_cols; c += N) acc = hn::MulAdd(hn::LoadU(df, xr + c), hn::LoadU(df, xr + c), acc);
        float ss = hn::GetLane(hn::SumOfLanes(df, acc));
        for (; c < n_cols; ++c) ss += xr[c] * xr[c];
        const float inv = 1.f / std::sqrt(ss / float(n_cols) + eps);
        const auto vi = hn::Set(df, inv);
        for (c = 0; c + N <= n_cols; c += N) {
            const auto xw = hn::Mul(hn::Mul(hn::LoadU(df, xr + c), vi), hn::LoadU(df, w + c));
            hn::StoreU(hn::Mul(xw, Silu(df, hn::LoadU(df, zr + c))), df, yr + c);
        }
        for (; c < n_cols; ++c) yr[c] = xr[c] * inv * w[c] * silu(zr[c]);
    }
}

}  // namespace ft::kernels::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ft::kernels::cpu {
HWY_EXPORT(CausalConv1dSiluF32);
HWY_EXPORT(GatedDeltaPrefillF32);
HWY_EXPORT(GatedDeltaDecodeF32);
HWY_EXPORT(GatedRmsNormF32);

void causal_conv1d_silu_f32(const float* x, std::int64_t ldx, std::int64_t n_tokens, int channels, int kernel,
                            const float* w, float* state, float* y, std::int64_t ldy) {
    HWY_DYNAMIC_DISPATCH(CausalConv1dSiluF32)(x, ldx, n_tokens, channels, kernel, w, state, y, ldy);
}

void gated_delta_prefill_f32(const GatedDeltaParams& p, const float* q, const float* k, const float* v, const float* g,
                             const float* beta, std::int64_t n_tokens, float* state, float* out, int head_begin,
                             int head_end) {
    HWY_DYNAMIC_DISPATCH(GatedDeltaPrefillF32)(p, q, k, v, g, beta, n_tokens, state, out, head_begin, head_end);
}

void gated_delta_decode_f32(const GatedDeltaParams& p, const float* q, const float* k, const float* v, const float* g,
                            const float* beta, const std::int32_t* slot, float* states, float* out,
                            std::int64_t task_begin, std::int64_t task_end) {
    HWY_DYNAMIC_DISPATCH(GatedDeltaDecodeF32)(p, q, k, v, g, beta, slot, states, out, task_begin, task_end);
}

void gated_rms_norm_f32(const float* x, const float* z, const float* w, float* y, std::int64_t n_rows,
                        std::int64_t n_cols, float eps) {
    HWY_DYNAMIC_DISPATCH(GatedRmsNormF32)(x, z, w, y, n_rows, n_cols, eps);
}
}  // namespace ft::kernels::cpu
#endif
