// The code that stands in for GCC-only builtins on MSVC, run on this compiler and compared with the builtins:
// core/checked_int.h's portable add/sub/mul against __builtin_*_overflow on edge values and random pairs, and
// kernels/cpu/x86_features (cpuid + xgetbv) against __builtin_cpu_supports.
#include <QTest>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "core/checked_int.h"
#include "cpu/x86_features.h"

namespace {

using i64 = std::int64_t;
constexpr i64 kMax = std::numeric_limits<i64>::max();
constexpr i64 kMin = std::numeric_limits<i64>::min();

std::vector<i64> edge_values() {
    std::vector<i64> v{0, 1, -1, 2, -2, 3, -3, 7, -7, kMax, kMin, kMax - 1, kMin + 1, kMax / 2, kMin / 2,
                       kMax / 2 + 1, kMin / 2 - 1, 3037000499, -3037000499, 3037000500, -3037000500,
                       i64(1) << 32, -(i64(1) << 32), (i64(1) << 31) - 1, -(i64(1) << 31), i64(1) << 62, -(i64(1) << 62)};
    return v;
}

// The portable result must match the builtin's: the same overflow verdict, the same value when it does not.
template <typename Portable, typename Builtin>
int compare(Portable portable, Builtin builtin, i64 a, i64 b, const char* op) {
    i64 rp = 0, rb = 0;
    const bool op_p = portable(a, b, &rp);
    const bool op_b = builtin(a, b, &rb);
    if (op_p != op_b || (!op_p && rp != rb)) {
        qWarning("%lld %s %lld: portable %s %lld, builtin %s %lld", (long long)a, op, (long long)b,
                 op_p ? "overflow" : "=", (long long)rp, op_b ? "overflow" : "=", (long long)rb);
        return 1;
    }
    return 0;
}

}  // namespace

class TestPortableBuiltins : public QObject {
    Q_OBJECT
private slots:
    void overflowKnownCases() {
        using namespace ft::checked;
        i64 r = 0;
        QVERIFY(add_overflow_portable(kMax, 1, &r));
        QVERIFY(add_overflow_portable(kMin, -1, &r));
        QVERIFY(!add_overflow_portable(kMax, kMin, &r) && r == -1);
        QVERIFY(sub_overflow_portable(kMin, 1, &r));
        QVERIFY(sub_overflow_portable(0, kMin, &r));
        QVERIFY(!sub_overflow_portable(-1, kMin, &r) && r == kMax);
        QVERIFY(mul_overflow_portable(kMin, -1, &r));
        QVERIFY(mul_overflow_portable(-1, kMin, &r));
        QVERIFY(mul_overflow_portable(3037000500, 3037000500, &r));
        QVERIFY(!mul_overflow_portable(3037000499, 3037000499, &r) && r == 9223372030926249001);
        QVERIFY(!mul_overflow_portable(kMin, 1, &r) && r == kMin);
        QVERIFY(!mul_overflow_portable(kMin / 2, 2, &r) && r == kMin);
        QVERIFY(mul_overflow_portable(kMin / 2, -2, &r));
        QVERIFY(!mul_overflow_portable(0, kMin, &r) && r == 0);
    }

    void overflowMatchesBuiltins() {
#if defined(__GNUC__) || defined(__clang__)
        using namespace ft::checked;
        auto add_b = [](i64 a, i64 b, i64* r) { return __builtin_add_overflow(a, b, r); };
        auto sub_b = [](i64 a, i64 b, i64* r) { return __builtin_sub_overflow(a, b, r); };
        auto mul_b = [](i64 a, i64 b, i64* r) { return __builtin_mul_overflow(a, b, r); };
        int bad = 0;
        std::vector<i64> values = edge_values();
        std::mt19937_64 rng(20261202);
        for (int i = 0; i < 400; ++i) {
            const int bits = 1 + int(rng() % 63);                   // magnitudes below 2^bits <= 2^63
            const i64 x = i64(rng() >> (64 - bits)) * ((rng() & 1) ? 1 : -1);
            values.push_back(x);
        }
        for (i64 a : values)
            for (i64 b : values) {
                bad += compare(add_overflow_portable, add_b, a, b, "+");
                bad += compare(sub_overflow_portable, sub_b, a, b, "-");
                bad += compare(mul_overflow_portable, mul_b, a, b, "*");
            }
        QCOMPARE(bad, 0);
        qInfo("%zu x %zu pairs, + - *: portable == builtin", values.size(), values.size());
#else
        QSKIP("no GCC builtins on this compiler to compare with");
#endif
    }

    void x86FeaturesMatchBuiltin() {
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
        const auto& f = ft::kernels::cpu::x86_features();
        __builtin_cpu_init();
        QCOMPARE(f.avx2, bool(__builtin_cpu_supports("avx2")));
        QCOMPARE(f.fma, bool(__builtin_cpu_supports("fma")));
        QCOMPARE(f.avx512f, bool(__builtin_cpu_supports("avx512f")));
        QCOMPARE(f.avx512bw, bool(__builtin_cpu_supports("avx512bw")));
        QCOMPARE(f.avx512vl, bool(__builtin_cpu_supports("avx512vl")));
        QCOMPARE(f.avx512vnni, bool(__builtin_cpu_supports("avx512vnni")));
        QCOMPARE(f.avxvnni, bool(__builtin_cpu_supports("avxvnni")));
        qInfo("cpuid: avx2 %d fma %d f16c %d avx512f %d bw %d vl %d vnni %d avx-vnni %d", f.avx2, f.fma, f.f16c,
              f.avx512f, f.avx512bw, f.avx512vl, f.avx512vnni, f.avxvnni);
#else
        QSKIP("not x86-64 with GCC/Clang: no __builtin_cpu_supports to compare with");
#endif
    }
};

QTEST_GUILESS_MAIN(TestPortableBuiltins)
#include "test_portable_builtins.moc"
