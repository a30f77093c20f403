#include "ref/rms_norm.h"

#include <cmath>

namespace ft::kernels::ref {

void rms_norm_f32(const float* x, const float* w, float* y, std::int64_t n_rows, std::int64_t n_cols, float eps) {
    for (std::int64_t r = 0; r < n_rows; ++r) {
        const float* xr = x + r * n_cols;
        double ss = 0.0;  // double: the reference must not lose precision on long rows
        for (std::int64_t c = 0; c < n_cols; ++c) ss += double(xr[c]) * double(xr[c]);
        const float scale = float(1.0 / std::sqrt(ss / double(n_cols) + double(eps)));
        for (std::int64_t c = 0; c < n_cols; ++c) y[r * n_cols + c] = xr[c] * scale * w[c];
    }
}

}  // namespace ft::kernels::ref
