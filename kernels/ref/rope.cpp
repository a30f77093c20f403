#include "ref/rope.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ft::kernels {

namespace {
// YaRN: the dimension index whose rotation count over orig_ctx equals n_rot (see the YaRN paper, eq. for r(d)).
// In double, as ref::rope_f32 and the CUDA kernel compute it: untruncated ramp ends (gpt-oss) are not integers.
double yarn_corr_dim(int n_rot, int orig_ctx, double n_rotations, double base) {
    return n_rot * std::log(orig_ctx / (n_rotations * 2 * 3.14159265358979323846)) / (2 * std::log(base));
}
}  // namespace

RopeRamp rope_ramp(const RopeParams& p) {
    RopeRamp r;
    r.mag = p.attn_factor;
    if (p.ext_factor != 0.f) {
        r.lo = yarn_corr_dim(p.n_rot, p.orig_ctx, p.beta_fast, p.theta);
        r.hi = yarn_corr_dim(p.n_rot, p.orig_ctx, p.beta_slow, p.theta);
        if (p.truncate) r.lo = std::floor(r.lo), r.hi = std::ceil(r.hi);
        r.lo = std::max(0.0, r.lo);
        r.hi = std::min(double(p.n_rot - 1), r.hi);
        r.mag *= 1.0 + 0.1 * std::log(1.0 / p.freq_scale);
    }
    return r;
}

void rope_cos_sin(const RopeParams& p, std::int64_t pos, float* cs) {
    const int half = p.n_rot / 2;
    const RopeRamp r = rope_ramp(p);
    for (int i = 0; i < half; ++i) {
        const double theta_extrap = double(pos) * std::pow(double(p.theta), -2.0 * i / double(p.n_rot));
        const double theta_interp = double(p.freq_scale) * theta_extrap;
        double theta = theta_interp;
        if (p.ext_factor != 0.f) {
            const double y = (i - r.lo) / std::max(0.001, r.hi - r.lo);
            const double mix = (1.0 - std::clamp(y, 0.0, 1.0)) * p.ext_factor;
            theta = theta_interp * (1 - mix) + theta_extrap * mix;
        }
        cs[2 * i] = float(std::cos(theta) * r.mag);
        cs[2 * i + 1] = float(std::sin(theta) * r.mag);
    }
}

}  // namespace ft::kernels

namespace ft::kernels::ref {

// Independent of rope_cos_sin (which the fast kernels share): angles in double, element by element.
void rope_f32(const RopeParams& p, float* x, std::int64_t n_tokens, int n_heads, const std::int32_t* pos) {
    const int half = p.n_rot / 2;
    const double pi = 3.14159265358979323846;
    auto corr_dim = [&](double rotations) {
        return p.n_rot * std::log(p.orig_ctx / (rotations * 2 * pi)) / (2 * std::log(double(p.theta)));
    };
    for (std::int64_t t = 0; t < n_tokens; ++t) {
        for (int h = 0; h < n_heads; ++h) {
            float* v = x + (t * n_heads + h) * p.head_dim;
            for (int i = 0; i < half; ++i) {
                const double extrap = double(pos[t]) / std::pow(double(p.theta), 2.0 * i / p.n_rot);
                double angle = extrap * p.freq_scale, mag = p.attn_factor;
                if (p.ext_factor != 0.f) {
                    const double lo0 = corr_dim(p.beta_fast), hi0 = corr_dim(p.beta_slow);
                    const double lo = std::max(0.0, p.truncate ? std::floor(lo0) : lo0);
                    const double hi = std::min(double(p.n_rot - 1), p.truncate ? std::ceil(hi0) : hi0);
                    const double ramp = 1.0 - std::clamp((i - lo) / std::max(0.001, hi - lo), 0.0, 1.0);
                    angle = angle * (1 - ramp * p.ext_factor) + extrap * ramp * p.ext_factor;
                    mag *= 1.0 + 0.1 * std::log(1.0 / p.freq_scale);
                }
                const int a = p.neox ? i : 2 * i, b = p.neox ? i + half : 2 * i + 1;
                const double x0 = v[a], x1 = v[b], c = std::cos(angle) * mag, s = std::sin(angle) * mag;
                v[a] = float(x0 * c - x1 * s);
                v[b] = float(x0 * s + x1 * c);
            }
        }
    }
}

}  // namespace ft::kernels::ref
