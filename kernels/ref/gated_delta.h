// Gated DeltaNet, the linear-attention layer of Qwen3-Next and Qwen3.5/3.6-MoE: its causal conv, the gated delta
// rule and the gated output norm. Scalar reference, double accumulation (the delta rule keeps its state in double
// for the whole call and rounds it to f32 at the end).
//
// causal_conv1d_silu: depthwise causal conv over time (kernel K, no bias) then SiLU, for one sequence of n_tokens.
//   x [n_tokens, C] (row stride ldx), w [C, K], y [n_tokens, C] (row stride ldy; y must not overlap x). The state
//   [C, K-1] holds each channel's previous K-1 inputs, oldest first (zeros for a new sequence). With xx = the state's
//   K-1 rows followed by x (xx[t + K-1] = x[t]):
//     y[t, c] = silu(Σ_{i<K} w[c, i] · xx[t + i, c]),   silu(u) = u / (1 + e^-u)
//   and afterwards state[c, :] = xx[n_tokens .. n_tokens + K-2, c]. n_tokens = 1 is a decode step, more a prefill.
//   Channels are independent: a caller splits them by offsetting x, y, w and state.
//
// gated_delta: the gated delta rule of one sequence over n_tokens tokens, all heads. For token t, value head h and its
//   key head hk = p.k_head(h) (Qwen's repeat_interleave of q and k, or the tiled order):
//     q = q[t, hk], k = k[t, hk]; with l2norm_qk, q = q / sqrt(Σ q² + 1e-6) and k likewise (transformers' l2norm);
//     q *= 1/sqrt(dk);  a = exp(g[t, h]) (g ≤ 0: a log-decay);  b = beta[t, h] (in (0, 1))
//     S = a·S;   δ = b·(v[t, h] − Sᵀk);   S += k·δᵀ;   out[t, h] = Sᵀq
//   S = state[h], [dk, dv] row-major (S[i][j], i over the key dim); state [n_heads, dk, dv] is read and updated in
//   place. q, k: [n_tokens, n_k_heads, dk] with row strides ldq, ldk; v: [n_tokens, n_heads, dv] with ldv (strides in
//   floats between tokens, 0: packed); g, beta: [n_tokens, n_heads]; out: [n_tokens, n_heads, dv].
// gated_delta_chunked: the same, by the chunkwise form used for prefill (WY / UT transform). For a chunk of n ≤ chunk
//   tokens with the state S0 at its start, cumulative log-decays γ_r = Σ_{s≤r} g_s and Γ_rs = e^{γ_r − γ_s}:
//     A[r][s] = β_r Γ_rs (k_r·k_s) for s < r, else 0;   T = (I + A)⁻¹ (forward substitution)
//     U = T·diag(β)·V;   W = T·diag(β e^γ)·K;   Δ = U − W·S0          (Δ's rows are the tokens' δ)
//     O = diag(e^γ)·Q·S0 + (M ⊙ Q·Kᵀ)·Δ,   M[r][s] = Γ_rs for s ≤ r, else 0
//     S = e^{γ_last}·S0 + Kᵀ·diag(Γ_last,s)·Δ
//
// gated_delta_gates: the per-token gates from the layer's b and a projections, ba with row stride ld. For token t and
//   value head h: b = ba[t·ld + ib], a = ba[t·ld + ia] with ib = h, ia = n_heads + h (group 0: rows [b | a]) or, for
//   Qwen3-Next's fused ba (group R = n_heads / n_k_heads: per key head [b (R) | a (R)]), ib = (h / R)·2R + h % R,
//   ia = ib + R; then beta[t, h] = sigmoid(b) and g[t, h] = a_neg[h] · softplus(a + dt_bias[h]) (softplus(u) =
//   ln(1 + e^u), u above 20: u). beta, g: [n_tokens, n_heads].
//
// gated_rms_norm: y[r, :] = x[r, :] / sqrt(mean(x[r, :]²) + eps) · w · silu(z[r, :]) over rows r (tokens × heads);
//   x, z, y [n_rows, n_cols] packed, w [n_cols].
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define FT_GATED_DELTA_HD __host__ __device__
#else
#define FT_GATED_DELTA_HD
#endif

namespace ft::kernels {

struct GatedDeltaParams {
    int n_heads = 0;    // value heads: v, g, beta, out, state (Qwen3.6-35B-A3B: 32)
    int n_k_heads = 0;  // query / key heads, dividing n_heads (16)
    int dk = 0;         // key head dim (128)
    int dv = 0;         // value head dim (128)
    bool l2norm_qk = true;
    // Which key head value head h reads: h / (n_heads / n_k_heads) (grouped, Hugging Face's repeat_interleave), or
    // with v_tiled h % n_k_heads (llama.cpp's qwen35moe files reorder the value heads that way).
    bool v_tiled = false;
    std::int64_t ldq = 0, ldk = 0, ldv = 0;  // floats between tokens (0: packed)
    FT_GATED_DELTA_HD int k_head(int h) const { return v_tiled ? h % n_k_heads : h / (n_heads / n_k_heads); }
    std::int64_t q_stride() const { return ldq ? ldq : std::int64_t(n_k_heads) * dk; }
    std::int64_t k_stride() const { return ldk ? ldk : std::int64_t(n_k_heads) * dk; }
    std::int64_t v_stride() const { return ldv ? ldv : std::int64_t(n_heads) * dv; }
    std::int64_t state_size() const { return std::int64_t(n_heads) * dk * dv; }  // floats per sequence
};

constexpr float kGatedDeltaNormEps = 1e-6f;

}  // namespace ft::kernels

namespace ft::kernels::ref {

void causal_conv1d_silu_f32(const float* x, std::int64_t ldx, std::int64_t n_tokens, int channels, int kernel,
                            const float* w, float* state, float* y, std::int64_t ldy);

void gated_delta_f32(const GatedDeltaParams& p, const float* q, const float* k, const float* v, const float* g,
                     const float* beta, std::int64_t n_tokens, float* state, float* out);
void gated_delta_chunked_f32(const GatedDeltaParams& p, const float* q, const float* k, const float* v, const float* g,
                             const float* beta, std::int64_t n_tokens, float* state, float* out, int chunk = 64);

void gated_rms_norm_f32(const float* x, const float* z, const float* w, float* y, std::int64_t n_rows,
                        std::int64_t n_cols, float eps);

void gated_delta_gates_f32(const float* ba, std::int64_t ld, std::int64_t n_tokens, int n_heads, int group,
                           const float* dt_bias, const float* a_neg, float* beta, float* g);

}  // namespace ft::kernels::ref
