#include "ref/gated_delta.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ft::kernels::ref {

namespace {

double silu(double u) { return u / (1.0 + std::exp(-u)); }

// Row hk of token t of q or k as the rule uses it: L2-normalized when asked, times scale. out: [d]
void head_vec(const float* x, std::int64_t ld, std::int64_t t, int hk, int d, bool l2norm, double scale, double* out) {
    const float* r = x + t * ld + std::int64_t(hk) * d;
    double ss = 0;
    for (int i = 0; i < d; ++i) ss += double(r[i]) * double(r[i]);
    const double s = l2norm ? scale / std::sqrt(ss + double(kGatedDeltaNormEps)) : scale;
    for (int i = 0; i < d; ++i) out[i] = r[i] * s;
}

double dot(const double* a, const double* b, int n) {
    double s = 0;
    for (int i = 0; i < n; ++i) s += a[i] * b[i];
    return s;
}

}  // namespace

void causal_conv1d_silu_f32(const float* x, std::int64_t ldx, std::int64_t n_tokens, int channels, int kernel,
                            const float* w, float* state, float* y, std::int64_t ldy) {
    const int H = kernel - 1;
    std::vector<double> next(std::size_t(std::max(H, 1)));
    for (int c = 0; c < channels; ++c) {
        float* st = state + std::int64_t(c) * H;
        auto xx = [&](std::int64_t j) { return double(j < H ? st[j] : x[(j - H) * ldx + c]); };
        for (std::int64_t t = 0; t < n_tokens; ++t) {
            double acc = 0;
            for (int i = 0; i < kernel; ++i) acc += double(w[std::int64_t(c) * kernel + i]) * xx(t + i);
            y[t * ldy + c] = float(silu(acc));
        }
        for (int i = 0; i < H; ++i) next[std::size_t(i)] = xx(n_tokens + i);  // all read before the state is written
        for (int i = 0; i < H; ++i) st[i] = float(next[std::size_t(i)]);
    }
}

void gated_delta_f32(const GatedDeltaParams& p, const float* q, const float* k, const float* v, const float* g,
                     const float* beta, std::int64_t n_tokens, float* state, float* out) {
    const int dk = p.dk, dv = p.dv;
    const double scale = 1.0 / std::sqrt(double(dk));
    std::vector<double> S(std::size_t(dk) * dv), qh(static_cast<std::size_t>(dk)), kh(qh.size()),
        delta(static_cast<std::size_t>(dv));
    for (int h = 0; h < p.n_heads; ++h) {
        float* st = state + std::int64_t(h) * dk * dv;
        std::copy(st, st + std::int64_t(dk) * dv, S.begin());
        for (std::int64_t t = 0; t < n_tokens; ++t) {
            head_vec(q, p.q_stride(), t, p.k_head(h), dk, p.l2norm_qk, scale, qh.data());
            head_vec(k, p.k_stride(), t, p.k_head(h), dk, p.l2norm_qk, 1.0, kh.data());
            const double a = std::exp(double(g[t * p.n_heads + h])), b = beta[t * p.n_heads + h];
            const float* vt = v + t * p.v_stride() + std::int64_t(h) * dv;
            for (auto& s : S) s *= a;
            for (int j = 0; j < dv; ++j) {
                double kv = 0;  // (Sᵀk)[j]
                for (int i = 0; i < dk; ++i) kv += S[std::size_t(i) * dv + j] * kh[std::size_t(i)];
                delta[std::size_t(j)] = b * (vt[j] - kv);
            }
            for (int i = 0; i < dk; ++i)
                for (int j = 0; j < dv; ++j) S[std::size_t(i) * dv + j] += kh[std::size_t(i)] * delta[std::size_t(j)];
            float* o = out + (t * p.n_heads + h) * dv;
            for (int j = 0; j < dv; ++j) {
                double acc = 0;
                for (int i = 0; i < dk; ++i) acc += S[std::size_t(i) * dv + j] * qh[std::size_t(i)];
                o[j] = float(acc);
            }
        }
        std::transform(S.begin(), S.end(), st, [](double s) { return float(s); });
    }
}

void gated_delta_chunked_f32(const GatedDeltaParams& p, const float* q, const float* k, const float* v, const float* g,
                             const float* beta, std::int64_t n_tokens, float* state, float* out, int chunk) {
    const int dk = p.dk, dv = p.dv, C = chunk;
    const double scale = 1.0 / std::sqrt(double(dk));
    auto buf = [](int rows, int cols) { return std::vector<double>(std::size_t(rows) * std::size_t(cols)); };
    std::vector<double> S = buf(dk, dv), Q = buf(C, dk), K = buf(C, dk), V = buf(C, dv), T = buf(C, C), U = buf(C, dv),
                        W = buf(C, dk), D = buf(C, dv), gam = buf(C, 1), bet = buf(C, 1), coef = buf(C, 1);
    auto at = [](std::vector<double>& m, int cols, int r, int c) -> double& {
        return m[std::size_t(r) * std::size_t(cols) + std::size_t(c)];
    };
    for (int h = 0; h < p.n_heads; ++h) {
        float* st = state + std::int64_t(h) * dk * dv;
        std::copy(st, st + std::int64_t(dk) * dv, S.begin());
        for (std::int64_t c0 = 0; c0 < n_tokens; c0 += C) {
            const int n = int(std::min<std::int64_t>(C, n_tokens - c0));
            for (int r = 0; r < n; ++r) {
                const std::int64_t t = c0 + r;
                head_vec(q, p.q_stride(), t, p.k_head(h), dk, p.l2norm_qk, scale, &at(Q, dk, r, 0));
                head_vec(k, p.k_stride(), t, p.k_head(h), dk, p.l2norm_qk, 1.0, &at(K, dk, r, 0));
                for (int j = 0; j < dv; ++j) at(V, dv, r, j) = v[t * p.v_stride() + std::int64_t(h) * dv + j];
                gam[std::size_t(r)] = (r ? gam[std::size_t(r - 1)] : 0.0) + g[t * p.n_heads + h];
                bet[std::size_t(r)] = beta[t * p.n_heads + h];
            }
            auto decay = [&](int r, int s) { return std::exp(gam[std::size_t(r)] - gam[std::size_t(s)]); };
            // T = (I + A)⁻¹, row by row: T[r] = e_r − Σ_{s<r} A[r][s]·T[s].
            for (int r = 0; r < n; ++r) {
                for (int c = 0; c < n; ++c) at(T, C, r, c) = r == c ? 1.0 : 0.0;
                for (int s = 0; s < r; ++s) {
                    const double a = bet[std::size_t(r)] * decay(r, s) * dot(&at(K, dk, r, 0), &at(K, dk, s, 0), dk);
                    for (int c = 0; c <= s; ++c) at(T, C, r, c) -= a * at(T, C, s, c);
                }
            }
            // U = T·diag(β)·V, W = T·diag(β e^γ)·K, Δ = U − W·S0.
            for (int r = 0; r < n; ++r) {
                for (int j = 0; j < dv; ++j) {
                    double u = 0;
                    for (int s = 0; s <= r; ++s) u += at(T, C, r, s) * bet[std::size_t(s)] * at(V, dv, s, j);
                    at(U, dv, r, j) = u;
                }
                for (int i = 0; i < dk; ++i) {
                    double w = 0;
                    for (int s = 0; s <= r; ++s)
                        w += at(T, C, r, s) * bet[std::size_t(s)] * std::exp(gam[std::size_t(s)]) * at(K, dk, s, i);
                    at(W, dk, r, i) = w;
                }
                for (int j = 0; j < dv; ++j) {
                    double ws = 0;
                    for (int i = 0; i < dk; ++i) ws += at(W, dk, r, i) * S[std::size_t(i) * dv + j];
                    at(D, dv, r, j) = at(U, dv, r, j) - ws;
                }
            }
            // O = diag(e^γ)·Q·S0 + (M ⊙ Q·Kᵀ)·Δ.
            for (int r = 0; r < n; ++r) {
                for (int s = 0; s <= r; ++s)
                    coef[std::size_t(s)] = decay(r, s) * dot(&at(Q, dk, r, 0), &at(K, dk, s, 0), dk);
                float* o = out + ((c0 + r) * p.n_heads + h) * dv;
                for (int j = 0; j < dv; ++j) {
                    double inter = 0, intra = 0;
                    for (int i = 0; i < dk; ++i) inter += at(Q, dk, r, i) * S[std::size_t(i) * dv + j];
                    for (int s = 0; s <= r; ++s) intra += coef[std::size_t(s)] * at(D, dv, s, j);
                    o[j] = float(std::exp(gam[std::size_t(r)]) * inter + intra);
                }
            }
            // S = e^{γ_last}·S0 + Kᵀ·diag(Γ_last,s)·Δ.
            const double last = std::exp(gam[std::size_t(n - 1)]);
            for (int s = 0; s < n; ++s) coef[std::size_t(s)] = decay(n - 1, s);
            for (int i = 0; i < dk; ++i)
                for (int j = 0; j < dv; ++j) {
                    double acc = last * S[std::size_t(i) * dv + j];
                    for (int s = 0; s < n; ++s) acc += coef[std::size_t(s)] * at(K, dk, s, i) * at(D, dv, s, j);
                    S[std::size_t(i) * dv + j] = acc;
                }
        }
        std::transform(S.begin(), S.end(), st, [](double s) { return float(s); });
    }
}

void gated_rms_norm_f32(const float* x, const float* z, const float* w, float* y, std::int64_t n_rows,
                        std::int64_t n_cols, float eps) {
    for (std::int64_t r = 0; r < n_rows; ++r) {
        const float* xr = x + r * n_cols;
        const float* zr = z + r * n_cols;
        double ss = 0;
        for (std::int64_t c = 0; c < n_cols; ++c) ss += double(xr[c]) * double(xr[c]);
        const double inv = 1.0 / std::sqrt(ss / double(n_cols) + double(eps));
        for (std::int64_t c = 0; c < n_cols; ++c) y[r * n_cols + c] = float(xr[c] * inv * w[c] * silu(zr[c]));
    }
}

void gated_delta_gates_f32(const float* ba, std::int64_t ld, std::int64_t n_tokens, int n_heads, int group,
                           const float* dt_bias, const float* a_neg, float* beta, float* g) {
    for (std::int64_t t = 0; t < n_tokens; ++t)
        for (int h = 0; h < n_heads; ++h) {
            const int ib = group ? (h / group) * 2 * group + h % group : h, ia = group ? ib + group : n_heads + h;
            const double b = ba[t * ld + ib], u = double(ba[t * ld + ia]) + double(dt_bias[h]);
            beta[t * n_heads + h] = float(1.0 / (1.0 + std::exp(-b)));
            g[t * n_heads + h] = float(double(a_neg[h]) * (u > 20.0 ? u : std::log1p(std::exp(u))));
        }
}

}  // namespace ft::kernels::ref
