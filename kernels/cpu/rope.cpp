#include "cpu/rope.h"

#include <cstddef>
#include <vector>

namespace ft::kernels::cpu {

void rope_f32(const RopeParams& p, float* x, std::int64_t n_tokens, int n_heads, const std::int32_t* pos) {
    thread_local std::vector<float> cs;
    cs.resize(static_cast<size_t>(p.n_rot));
    const int half = p.n_rot / 2;
    for (std::int64_t t = 0; t < n_tokens; ++t) {
        rope_cos_sin(p, pos[t], cs.data());
        for (int h = 0; h < n_heads; ++h) {
            float* v = x + (t * n_heads + h) * p.head_dim;
            if (p.neox) {
                float* a = v;
                float* b = v + half;
                for (int i = 0; i < half; ++i) {
                    const float x0 = a[i], x1 = b[i], c = cs[2 * i], s = cs[2 * i + 1];
                    a[i] = x0 * c - x1 * s;
                    b[i] = x0 * s + x1 * c;
                }
            } else {
                for (int i = 0; i < half; ++i) {
                    const float x0 = v[2 * i], x1 = v[2 * i + 1], c = cs[2 * i], s = cs[2 * i + 1];
                    v[2 * i] = x0 * c - x1 * s;
                    v[2 * i + 1] = x0 * s + x1 * c;
                }
            }
        }
    }
}

}  // namespace ft::kernels::cpu
