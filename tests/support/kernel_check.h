// Helpers for kernel tests in the ggml test-backend-ops style: random inputs (never zeros), guard values after
// every output, per-case tolerances, and an error summary.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace ft::test {

// FT_SANITIZER=1 (scripts/gpu/run.sh sets it under compute-sanitizer, which slows kernels 10-100×): tests skip
// their largest cases, with a QSKIP saying so; every kernel path still runs on the smaller ones.
inline bool sanitizer_run() {
    const char* v = std::getenv("FT_SANITIZER");
    return v && *v == '1';
}

inline std::vector<float> random_floats(std::size_t n, std::uint32_t seed, float lo = -1.f, float hi = 1.f) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> v(n);
    for (auto& x : v) {
        do x = dist(rng);
        while (x == 0.f);
    }
    return v;
}

// A buffer of n floats followed by kGuard sentinel floats; guards_intact() tells whether a kernel wrote past n.
struct GuardedOutput {
    static constexpr std::size_t kGuard = 64;
    static constexpr std::uint32_t kPattern = 0x7fc0dead;  // a NaN payload no kernel produces
    std::vector<float> data;
    std::size_t n;
    explicit GuardedOutput(std::size_t n_) : data(n_ + kGuard), n(n_) {
        for (std::size_t i = 0; i < data.size(); ++i) std::memcpy(&data[i], &kPattern, 4);
    }
    float* ptr() { return data.data(); }
    bool guards_intact() const {
        for (std::size_t i = n; i < data.size(); ++i)
            if (std::memcmp(&data[i], &kPattern, 4) != 0) return false;
        return true;
    }
    bool all_written() const {  // every output element was overwritten (no pattern left)
        for (std::size_t i = 0; i < n; ++i)
            if (std::memcmp(&data[i], &kPattern, 4) == 0) return false;
        return true;
    }
};

struct ErrorStats {
    double max_abs = 0, max_rel = 0, nmse = 0;  // nmse = sum((a-b)^2) / sum(b^2)
    bool finite = true;
    std::string str() const {
        return "max_abs=" + std::to_string(max_abs) + " max_rel=" + std::to_string(max_rel) +
               " nmse=" + std::to_string(nmse);
    }
};

inline ErrorStats compare(const float* got, const float* want, std::size_t n) {
    ErrorStats s;
    double num = 0, den = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (!std::isfinite(got[i])) s.finite = false;
        const double d = std::fabs(double(got[i]) - double(want[i]));
        s.max_abs = std::max(s.max_abs, d);
        s.max_rel = std::max(s.max_rel, d / std::max(1e-6, std::fabs(double(want[i]))));
        num += d * d;
        den += double(want[i]) * double(want[i]);
    }
    s.nmse = den > 0 ? num / den : num;
    return s;
}

}  // namespace ft::test
