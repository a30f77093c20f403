#include "ref/matmul.h"

namespace ft::kernels::ref {

void matmul_f32(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n, std::int64_t k) {
    for (std::int64_t i = 0; i < m; ++i) {
        for (std::int64_t j = 0; j < n; ++j) {
            double acc = 0.0;
            for (std::int64_t p = 0; p < k; ++p) acc += double(a[i * k + p]) * double(b[j * k + p]);
            c[i * n + j] = float(acc);
        }
    }
}

}  // namespace ft::kernels::ref
