// Scalar reference: rotary position embedding, in place, on x [n_tokens, n_heads, head_dim] (row-major).
// The first n_rot dims of each head rotate; the rest pass through. For pair index i < n_rot/2 the angle is
// pos · freq_scale · theta^(-2i/n_rot), with YaRN's frequency ramp and magnitude scale when ext_factor > 0.
//   neox (Qwen, DeepSeek, GLM, gpt-oss): pairs (x[i], x[i + n_rot/2])
//   norm (llama, Mixtral):               pairs (x[2i], x[2i+1])
#pragma once

#include <cstdint>

namespace ft::kernels {

struct RopeParams {
    int head_dim = 0;
    int n_rot = 0;               // rotated dims (even, <= head_dim)
    bool neox = true;
    float theta = 10000.f;
    float freq_scale = 1.f;      // 1 / linear scaling factor
    // YaRN (ext_factor 0 disables): the ramp between beta_fast and beta_slow rotations over orig_ctx.
    float ext_factor = 0.f;
    float attn_factor = 1.f;     // magnitude multiplier of cos/sin
    float beta_fast = 32.f, beta_slow = 1.f;
    int orig_ctx = 0;
    // Ramp ends rounded outward (floor / ceil of the correction dims), as llama.cpp always and transformers by
    // default do; false keeps them exact (gpt-oss: rope_scaling.truncate = false). Both are clamped to [0, n_rot-1].
    bool truncate = true;
};

// YaRN's ramp ends in pair indices (clamped to [0, n_rot - 1], rounded outward when truncate; 0 without YaRN) and the
// cos/sin magnitude (attn_factor, times 1 + 0.1·ln(1/freq_scale) with YaRN), in double: what rope_cos_sin and the
// CUDA RoPE kernels' host sides compute from the parameters.
struct RopeRamp {
    double lo = 0, hi = 0, mag = 1;
};
RopeRamp rope_ramp(const RopeParams& p);

// cos/sin of one position for every pair index: cs[2i] = cos, cs[2i+1] = sin (n_rot values in total).
void rope_cos_sin(const RopeParams& p, std::int64_t pos, float* cs);

}  // namespace ft::kernels

namespace ft::kernels::ref {

void rope_f32(const RopeParams& p, float* x, std::int64_t n_tokens, int n_heads, const std::int32_t* pos);

}  // namespace ft::kernels::ref
