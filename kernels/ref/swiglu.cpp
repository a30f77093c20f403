#include "ref/swiglu.h"

#include <algorithm>
#include <cmath>

namespace ft::kernels::ref {

void swiglu_f32(const float* g, const float* u, float* y, std::int64_t n, float limit) {
    for (std::int64_t i = 0; i < n; ++i) {
        if (limit > 0.f) {
            const double gx = std::min(double(g[i]), double(limit));
            const double ux = std::clamp(double(u[i]), -double(limit), double(limit));
            y[i] = float(gx / (1.0 + std::exp(-1.702 * gx)) * (ux + 1.0));
        } else if (limit < 0.f) {
            const double gx = std::min(double(g[i]), -double(limit));
            const double ux = std::clamp(double(u[i]), double(limit), -double(limit));
            y[i] = float(gx / (1.0 + std::exp(-gx)) * ux);
        } else {
            y[i] = float(double(g[i]) / (1.0 + std::exp(-double(g[i]))) * double(u[i]));
        }
    }
}

}  // namespace ft::kernels::ref
