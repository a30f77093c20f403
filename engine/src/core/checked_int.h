// Overflow-checked 64-bit integer arithmetic (the Jinja interpreter's int +, -, *, **). Each function stores the
// result in *r and returns false, or returns true on overflow (and leaves *r unspecified). GCC and Clang use their
// builtins; MSVC has none and uses the portable versions, which every compiler builds so that
// tests/engine/test_checked_int.cpp checks them against the builtins.
#pragma once

#include <cstdint>
#include <limits>

namespace ft::checked {

inline bool add_overflow_portable(std::int64_t a, std::int64_t b, std::int64_t* r) {
    constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max(), min = std::numeric_limits<std::int64_t>::min();
    if ((b > 0 && a > max - b) || (b < 0 && a < min - b)) return true;
    *r = a + b;
    return false;
}

inline bool sub_overflow_portable(std::int64_t a, std::int64_t b, std::int64_t* r) {
    constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max(), min = std::numeric_limits<std::int64_t>::min();
    if ((b < 0 && a > max + b) || (b > 0 && a < min + b)) return true;
    *r = a - b;
    return false;
}

inline bool mul_overflow_portable(std::int64_t a, std::int64_t b, std::int64_t* r) {
    constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max(), min = std::numeric_limits<std::int64_t>::min();
    if (a == 0 || b == 0) {
        *r = 0;
        return false;
    }
    // Each branch compares against the bound divided by the other factor (no product is formed before the check).
    const bool over = a > 0 ? (b > 0 ? a > max / b : b < min / a) : (b > 0 ? a < min / b : a < max / b);
    if (over) return true;
    *r = a * b;
    return false;
}

#if defined(__GNUC__) || defined(__clang__)
inline bool add_overflow(std::int64_t a, std::int64_t b, std::int64_t* r) { return __builtin_add_overflow(a, b, r); }
inline bool sub_overflow(std::int64_t a, std::int64_t b, std::int64_t* r) { return __builtin_sub_overflow(a, b, r); }
inline bool mul_overflow(std::int64_t a, std::int64_t b, std::int64_t* r) { return __builtin_mul_overflow(a, b, r); }
#else
inline bool add_overflow(std::int64_t a, std::int64_t b, std::int64_t* r) { return add_overflow_portable(a, b, r); }
inline bool sub_overflow(std::int64_t a, std::int64_t b, std::int64_t* r) { return sub_overflow_portable(a, b, r); }
inline bool mul_overflow(std::int64_t a, std::int64_t b, std::int64_t* r) { return mul_overflow_portable(a, b, r); }
#endif

}  // namespace ft::checked
