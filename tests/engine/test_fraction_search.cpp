// The hybrid backend's throughput-seeking q* search (moe/fraction_search.h) against modelled decode steps: a step's
// seconds are its tokens over the rate the model gives the fraction in use, with ±1.5 % noise. It must find an
// interior optimum from the bandwidth-matched start, walk to q* = 1 when fetching everything is fastest (the H200's
// PCIe 5) — also when only q* = 1 itself (no CPU handshake) beats an interior optimum — to 0 when the CPU side is,
// find the CPU-heavy mode from a start on the plateau below q* = 1 and on the H200's measured curve when the first
// windows run slow, end at q* = 1 unless a fraction wins the final comparison against it beyond the noise (a window
// that ran fast for a reason that did not last, a tie), keep windows of one batch size apart, and search again when
// the bandwidths drift; its history holds each window. And in simulated fresh processes (a warm-up transient, the
// host's drift, a lucky first window, the curves measured on the GPU machines) it must end within 3 % of the best
// fixed backend in every one (issue 47).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <functional>
#include <initializer_list>
#include <utility>
#include <vector>

#include "ft_test.h"
#include "moe/fraction_search.h"

namespace {

struct Noise {
    std::uint64_t s = 0x9E3779B97F4A7C15ull;
    double next() {  // uniform in [-1, 1)
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return double(s >> 11) / double(1ull << 53) * 2 - 1;
    }
};

struct Run {
    double q = 0;
    int steps = 0;
    bool converged = false;
};

// Steps the search until it converges (or max_steps): rate(q, tokens) is tokens per second.
Run drive(ft::moe::FractionSearch& s, const std::function<double(double, int)>& rate,
          const std::function<int(int)>& tokens_at = [](int) { return 1; }, double q_bw = -1, int max_steps = 4000) {
    Noise n;
    Run r;
    for (int i = 0; i < max_steps && s.searching(); ++i) {
        const int t = tokens_at(i);
        const double sec = t / rate(s.fraction(), t) * (1 + 0.015 * n.next());
        s.step(sec, t, q_bw);
        ++r.steps;
    }
    r.q = s.fraction();
    r.converged = !s.searching();
    return r;
}

double peaked(double q, double at) { return std::max(5.0, 100 * (1 - 1.5 * (q - at) * (q - at))); }

// Fresh processes on modelled machines: each run draws its own warm-up, lucky window, drift and jitter from its seed
// and decodes at the search's fraction until it converges; the end point's sustained rate is compared with the best
// of every fixed fraction and q* = 1 on that machine.
namespace sim {

struct Rng {
    std::uint64_t s;
    explicit Rng(std::uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) { for (int i = 0; i < 4; ++i) u(); }
    double u() {  // uniform in [0, 1)
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        return double(s >> 11) / double(1ull << 53);
    }
    double between(double a, double b) { return a + (b - a) * u(); }
    double normal() {  // Box-Muller
        const double a = std::max(u(), 1e-12), b = u();
        return std::sqrt(-2 * std::log(a)) * std::cos(6.283185307179586 * b);
    }
};

// Sustained tokens/s of a machine: piecewise linear over q < 1, and the offload step at q* = 1.
struct Machine {
    const char* name;
    std::vector<std::pair<double, double>> curve;  // (q, tok/s), q ascending, the last below 1
    double at_one;                                  // q* = 1: every miss fetched, no CPU handshake
    double q0;                                      // the bandwidth-matched start
    double rate(double q) const {
        if (q >= 1 - 1e-9) return at_one;
        if (q <= curve.front().first) return curve.front().second;
        for (std::size_t i = 1; i < curve.size(); ++i)
            if (q <= curve[i].first) {
                const auto [a, ra] = curve[i - 1];
                const auto [b, rb] = curve[i];
                return ra + (rb - ra) * (q - a) / (b - a);
            }
        return curve.back().second;
    }
    double best() const {
        double b = at_one;
        for (int i = 0; i < 1000; ++i) b = std::max(b, rate(i / 1000.0));
        return b;
    }
};

// What one fresh process meets, drawn from its seed:
//  - the cache and the CPU warming after the load: every rate × (1 - a·exp(-t/tau)), t the decode seconds so far;
//  - a window that runs fast for a reason that does not last: in one process in four, the first time the search
//    enters a CPU-heavy fraction (q < 0.2) it runs `lucky` faster for its first 30 steps;
//  - the host's drift, common to every fraction: an AR(1) on the log rate, sd `drift`, correlation time 0.5 s;
//  - each step's own jitter: uniform ±`jitter`.
struct Process {
    double warm_a, warm_tau, lucky, drift, jitter;
    bool has_lucky;
    Process(Rng& r, double drift_sd = 0.02, double jitter_amp = 0.03)
        : warm_a(r.between(0, 0.15)), warm_tau(r.between(0.3, 1.5)), lucky(r.between(0.1, 0.25)), drift(drift_sd),
          jitter(jitter_amp), has_lucky(r.u() < 0.25) {}
};

struct Outcome {
    double q = 0, sustained = 0, best = 0, seconds = 0, mean_rate = 0;
    bool converged = false;
    int steps = 0;
};

inline Outcome run(const Machine& m, std::uint64_t seed, const ft::moe::FractionSearchOptions& o = {}, int max_steps = 20000) {
    Rng r(seed);
    const Process p(r);
    const double q0 = std::clamp(m.q0 + r.between(-0.08, 0.08), 0.0, 1.0);
    ft::moe::FractionSearch s(q0, o);
    double t = 0, x = 0, last_q = -1;
    int lucky_left = 0;
    bool lucky_used = false;
    Outcome out;
    for (int i = 0; i < max_steps && s.searching(); ++i) {
        const double q = s.fraction();
        if (q != last_q) {
            if (p.has_lucky && !lucky_used && q < 0.2) {
                lucky_used = true;
                lucky_left = 30;
            }
        }
        last_q = q;
        double rate = m.rate(q) * (1 - p.warm_a * std::exp(-t / p.warm_tau)) * std::exp(x);
        if (lucky_left > 0) {
            rate *= 1 + p.lucky;
            --lucky_left;
        }
        const double sec = 1 / rate * (1 + p.jitter * (2 * r.u() - 1));
        const double phi = std::exp(-sec / 0.5);
        x = x * phi + p.drift * std::sqrt(1 - phi * phi) * r.normal();
        t += sec;
        s.step(sec, 1, q0);
        ++out.steps;
    }
    out.q = s.fraction();
    out.converged = !s.searching();
    out.sustained = m.rate(out.q);
    out.best = m.best();
    out.seconds = t;
    out.mean_rate = out.steps / t;
    return out;
}

// Curves from docs/benchmarks.md (8 GiB budget, the 30B-A3B-shaped Q4_K file, synthetic routing).
inline std::vector<Machine> machines() {
    return {
        // H200, real link, fixed q* (2026-12-05): the CPU mode at 0.05, a plateau from 0.8, offload-like at 1.
        {"H200 CPU mode", {{0, 163}, {0.05, 164.1}, {0.35, 152.8}, {0.8, 138.9}, {0.99, 138.9}}, 150, 0.33},
        // H100 host B (2026-12-06): hybrid at 0.25 ≈ 197, offload 149.
        {"H100 host B", {{0, 180}, {0.1, 190}, {0.25, 197}, {0.45, 185}, {0.75, 150}, {0.8, 130}, {0.99, 130}}, 149, 0.25},
        // H100 host D (2026-12-06): its CPU read the experts at 63 GB/s; every fraction below 1 slower than offload.
        {"H100 host D", {{0, 138}, {0.3, 143}, {0.6, 135}, {0.8, 120}, {0.99, 120}}, 149.4, 0.45},
        // H200 (2026-12-06, the issue): runs at 163.5 / 166.3 beside 131 at q* 0.1 and offload 153.
        {"H200 narrow mode", {{0, 128}, {0.1, 131}, {0.25, 163}, {0.4, 166.3}, {0.6, 150}, {0.8, 138}, {0.99, 138}}, 153, 0.33},
        // A CPU mode within 1 % of offload: either end is fine.
        {"tie", {{0, 152}, {0.1, 154.5}, {0.4, 148}, {0.8, 135}, {0.99, 135}}, 153, 0.33},
        // Emulated gaming-PC links (vs-llama.sh links): 12 GB/s with 16 threads, 25 GB/s with 8.
        {"12 GB/s", {{0, 118}, {0.12, 130}, {0.3, 118}, {0.6, 90}, {0.99, 70}}, 58, 0.2},
        {"25 GB/s", {{0, 95}, {0.3, 127}, {0.6, 118}, {0.99, 105}}, 100, 0.3},
    };
}

}  // namespace sim

}  // namespace

class TestFractionSearch : public QObject {
    Q_OBJECT
private slots:
    void theDefaultNeverLosesToAFixedBackend() {
        // Issue 47's target: in every fresh process the search ends within 3 % of the best of offload (q* = 1) and
        // hybrid at any fixed q* on that machine, 100 processes (seeds) per machine. On the emulated links' curves,
        // whose optimum is a kink (the link and the CPU balanced), the compass's precision limits it: within 5 %.
        // The search before the final comparison (a closing duel of q* = 1 against the compass's center only, the
        // compass comparing probes with the center's first rate) failed this: 33 of the 500 processes on the five
        // measured curves (host B 28, H200 CPU mode 4, narrow mode 1; worst 0.948) and 19 of the 200 on the
        // emulated links (worst 0.832: a lucky first window at q* 0.1 kept).
        for (const auto& m : sim::machines()) {
            const bool emulated = std::string(m.name).find("GB/s") != std::string::npos;
            const double bound = emulated ? 0.95 : 0.97;
            int fails = 0;
            double worst = 1, seconds = 0;
            QString first;
            for (std::uint64_t seed = 1; seed <= 100; ++seed) {
                const sim::Outcome o = sim::run(m, seed);
                QVERIFY2(o.converged, qPrintable(QString("%1, seed %2: still searching").arg(m.name).arg(seed)));
                const double ratio = o.sustained / o.best;
                worst = std::min(worst, ratio);
                seconds = std::max(seconds, o.seconds);
                if (ratio < bound && fails++ == 0)
                    first = QString("seed %1 ended at q* %2: %3 of the best %4 tok/s").arg(seed).arg(o.q).arg(o.sustained).arg(o.best);
            }
            qInfo("%s: worst %.3f of the best, the longest search %.1f s of decode", m.name, worst, seconds);
            QVERIFY2(fails == 0, qPrintable(QString("%1: %2 of 100 below %3 of the best; first: %4").arg(m.name).arg(fails).arg(bound).arg(first)));
            QVERIFY2(seconds < 8, qPrintable(QString("%1: a search took %2 s of decode").arg(m.name).arg(seconds)));
        }
    }

    void findsAnInteriorOptimum() {
        // The 12 GB/s case: the bandwidth-matched fraction (0.25) is below the fastest one (0.47).
        ft::moe::FractionSearch s(0.25);
        const Run r = drive(s, [](double q, int) { return peaked(q, 0.47); });
        QVERIFY(r.converged);
        QVERIFY2(std::abs(r.q - 0.47) <= 0.07, qPrintable(QString("converged at %1").arg(r.q)));
        // The scan, the compass (a probe that beats the center measures the center again) and the final comparison.
        QVERIFY2(s.evaluations() <= 18, qPrintable(QString("%1 windows").arg(s.evaluations())));
        QCOMPARE(s.searches(), 1);
    }

    void fetchesEverythingWhenThatIsFastest() {
        // The H200: fetches out-read the CPU, and q* = 1 also drops the handshake (a step without CPU work).
        ft::moe::FractionSearch s(0.66);
        const Run r = drive(s, [](double q, int) { return q >= 1 ? 125.0 : 80 + 40 * q; });
        QVERIFY(r.converged);
        QCOMPARE(r.q, 1.0);
    }

    void triesFetchingEverythingBeforeSettling() {
        // The H200 at 8 GiB: a local optimum at 0.63 (the CPU side's hits lost against its bytes), and q* = 1 faster
        // still, because that step leaves the handshake out — a jump the compass cannot see from 0.63.
        ft::moe::FractionSearch s(0.48);
        const Run r = drive(s, [](double q, int) { return q >= 1 ? 129.0 : 118 * (1 - 1.5 * (q - 0.63) * (q - 0.63)); });
        QVERIFY(r.converged);
        QCOMPARE(r.q, 1.0);
        // And where q* = 1 is slower (a 12 GB/s link) that one window costs the search nothing more.
        ft::moe::FractionSearch t(0.25);
        const Run u = drive(t, [](double q, int) { return q >= 1 ? 54.0 : peaked(q, 0.3); });
        QVERIFY(u.converged);
        QVERIFY2(std::abs(u.q - 0.3) <= 0.07, qPrintable(QString("converged at %1").arg(u.q)));
    }

    void computesEverythingOnTheCpuWhenThatIsFastest() {
        ft::moe::FractionSearch s(0.5);
        const Run r = drive(s, [](double q, int) { return 100 - 60 * q; });
        QVERIFY(r.converged);
        QVERIFY2(r.q <= 0.05, qPrintable(QString("converged at %1").arg(r.q)));
    }

    void staysWhenTheStartIsBest() {
        ft::moe::FractionSearch s(0.4);
        const Run r = drive(s, [](double q, int) { return peaked(q, 0.4); });
        QVERIFY(r.converged);
        QVERIFY2(std::abs(r.q - 0.4) <= 0.04, qPrintable(QString("converged at %1").arg(r.q)));
    }

    void firstMoveAfterWarmupAndOneWindow() {
        ft::moe::FractionSearchOptions o;
        ft::moe::FractionSearch s(0.3, o);
        int moved_at = -1;
        for (int i = 0; i < 200 && moved_at < 0; ++i)
            if (s.step(0.01, 1, -1)) moved_at = i + 1;
        QCOMPARE(moved_at, o.warmup + o.window);
        // To the opening scan's first fraction (0.1; 0.35 is within 0.1 of the start and is not measured again).
        QVERIFY(std::abs(s.fraction() - 0.1) < 1e-9);
        // Without the scan, the compass's first probe.
        o.scan = false;
        ft::moe::FractionSearch t(0.3, o);
        for (int i = 0; i < o.warmup + o.window; ++i) t.step(0.01, 1, -1);
        QVERIFY(std::abs(t.fraction() - (0.3 + o.step0)) < 1e-9);
    }

    void findsTheCpuModeBeyondAPlateau() {
        // The H100 machine on its PCIe 5 link (2026-12-05): with most misses on the CPU 168 tok/s (at 0.27), all of
        // them fetched 149 (q* = 1, no handshake); from q* ≈ 0.8 up a layer's one or two misses are all fetched
        // anyway but the step still pays the handshake: a flat 128 there. From a start high on the plateau (a
        // bandwidth profile measured while the CPU was slow) the compass's first probe is q* = 1, which beats the
        // plateau: the search must still find the CPU mode.
        auto rate = [](double q, int) {
            if (q >= 1) return 149.0;
            if (q >= 0.75) return 128.0;
            return q >= 0.3 ? 168 - 40 * (q - 0.3) / 0.45 : 168 - 100 * (0.3 - q);
        };
        ft::moe::FractionSearch s(0.9);
        const Run r = drive(s, rate);
        QVERIFY(r.converged);
        QVERIFY2(std::abs(r.q - 0.3) <= 0.07, qPrintable(QString("converged at %1").arg(r.q)));
        QVERIFY2(s.evaluations() <= 18, qPrintable(QString("%1 windows").arg(s.evaluations())));
        // The compass alone (the search before the scan) ends at q* = 1 from there.
        ft::moe::FractionSearchOptions o;
        o.scan = false;
        ft::moe::FractionSearch t(0.9, o);
        QCOMPARE(drive(t, rate).q, 1.0);
    }

    void findsTheCpuModeWhenTheFirstWindowsRunSlow() {
        // The H200 on its PCIe 5 link (2026-12-05, fixed q*): 164.1 tok/s at 0.05, 152.8 at 0.35, 138.9 at 0.8 (the
        // plateau), offload-like 150 at q* = 1. Started at the bandwidth-matched 0.33 the search must end in the CPU
        // mode, also when the decode runs slow at first and reaches its steady rate over the first seconds (the cache
        // settling after a load): each rate times 1 - a·exp(-t / tau), t the decode seconds so far — the later
        // windows, q* = 1's last among them, then look better than they are.
        auto curve = [](double q) {
            if (q >= 1) return 150.0;
            if (q >= 0.8) return 138.9;
            if (q >= 0.35) return 152.8 - (152.8 - 138.9) * (q - 0.35) / 0.45;
            return 164.1 - (164.1 - 152.8) * std::max(0.0, q - 0.05) / 0.3;
        };
        for (const double a : {0.0, 0.05, 0.1, 0.15}) {
            for (const double tau : {0.5, 1.0, 2.0}) {
                ft::moe::FractionSearch s(0.33);
                Noise n;
                double t = 0;
                for (int i = 0; i < 6000 && s.searching(); ++i) {
                    const double rate = curve(s.fraction()) * (1 - a * std::exp(-t / tau));
                    const double sec = 1 / rate * (1 + 0.015 * n.next());
                    t += sec;
                    s.step(sec, 1, 0.33);
                }
                const QString what = QString("slow by %1 at first, over %2 s: at %3 after %4 s").arg(a).arg(tau).arg(s.fraction()).arg(t);
                QVERIFY2(!s.searching() && s.fraction() <= 0.12, qPrintable(what));
                QVERIFY2(t < 4.5, qPrintable(what));  // within a few seconds of decode (the duel: about 1.4 of them)
            }
        }
    }

    void aLuckyWindowDoesNotOutlastTheDuel() {
        // An H100 host, 8 GiB, defaults (2026-12-06): one fresh process in four ended its search at q* 0.1 and ran
        // 131 tok/s where offload ran 153 — its window at 0.1 had measured fast for a reason that did not last. Here
        // the first window ever measured below 0.2 runs 25 % above what that fraction then sustains (14 % below
        // q* = 1): the search must end at q* = 1, and its final comparison must say why.
        auto sustained = [](double q) { return q >= 1 ? 153.0 : q >= 0.75 ? 128.0 : 131.0 + 10 * q; };
        ft::moe::FractionSearch s(0.33);
        Noise n;
        bool lucky_used = false;
        int lucky_left = 0;
        double last_q = -1;
        for (int i = 0; i < 6000 && s.searching(); ++i) {
            const double q = s.fraction();
            if (q != last_q && q < 0.2 && !lucky_used) {
                lucky_used = true;
                lucky_left = 6 + 24;  // its settle steps and one window
            }
            last_q = q;
            const double rate = sustained(q) * (lucky_left-- > 0 ? 1.25 : 1.0);
            s.step(1 / rate * (1 + 0.015 * n.next()), 1, 0.33);
        }
        QVERIFY(lucky_used);
        QVERIFY(!s.searching());
        QCOMPARE(s.fraction(), 1.0);
        // The lucky fraction and the fastest other one were compared with q* = 1, round by round, and lost.
        const auto& d = s.duel();
        QCOMPARE(int(d.fractions.size()), 2);
        QVERIFY2(std::any_of(d.fractions.begin(), d.fractions.end(), [](double f) { return f < 0.2; }),
                 qPrintable(QString("compared %1, %2").arg(d.fractions[0]).arg(d.fractions[1])));
        QCOMPARE(int(d.center_rate.size()), 2);
        QCOMPARE(int(d.all_rate.size()), 2);
        QVERIFY(!d.center_won);
        QVERIFY(d.why == ft::moe::FractionSearch::Duel::Why::lost);
        QVERIFY2(d.gain < -0.05, qPrintable(QString("gain %1").arg(d.gain)));
        for (int r = 0; r < 2; ++r) QVERIFY(d.center_rate[std::size_t(r)] < d.all_rate[std::size_t(r)]);
        // Without the final comparison (the compass decides alone) it keeps the lucky fraction.
        ft::moe::FractionSearchOptions o;
        o.duel_rounds = 0;
        ft::moe::FractionSearch t(0.33, o);
        lucky_used = false;
        lucky_left = 0;
        last_q = -1;
        for (int i = 0; i < 6000 && t.searching(); ++i) {
            const double q = t.fraction();
            if (q != last_q && q < 0.2 && !lucky_used) {
                lucky_used = true;
                lucky_left = 6 + 24;
            }
            last_q = q;
            t.step(1 / (sustained(q) * (lucky_left-- > 0 ? 1.25 : 1.0)) * (1 + 0.015 * n.next()), 1, 0.33);
        }
        QVERIFY2(t.fraction() < 0.2, qPrintable(QString("without the duel: %1").arg(t.fraction())));
    }

    void aTieKeepsTheSaferStep() {
        // A CPU mode 1 % faster than q* = 1 is within the noise of a real machine: the search keeps q* = 1 (the
        // offload step, no CPU handshake); 5 % faster is kept. Twenty noise seeds each.
        for (const double gain : {1.01, 1.05}) {
            int at_one = 0;
            for (std::uint64_t seed = 1; seed <= 20; ++seed) {
                ft::moe::FractionSearch s(0.33);
                Noise n{seed * 0x9E3779B97F4A7C15ull};
                for (int i = 0; i < 6000 && s.searching(); ++i) {
                    const double q = s.fraction();
                    const double rate = q >= 1 ? 150.0 : 150.0 * gain * (1 - 0.4 * std::max(0.0, q - 0.1));
                    s.step(1 / rate * (1 + 0.015 * n.next()), 1, 0.33);
                }
                QVERIFY(!s.searching());
                at_one += s.fraction() == 1.0;
            }
            if (gain < 1.02)
                QVERIFY2(at_one == 20, qPrintable(QString("1 %: %1 of 20 at q* = 1").arg(at_one)));
            else
                QVERIFY2(at_one == 0, qPrintable(QString("5 %: %1 of 20 at q* = 1").arg(at_one)));
        }
    }

    void whatItCannotTellEndsAtTheSaferStep() {
        // A CPU mode as fast as q* = 1 under step jitter of ±40 % (a 48-step window's rate ±3 %): the windows' own
        // spread keeps any gain the rounds measure within the noise band, so the search ends at q* = 1, the offload
        // step, after its four rounds when it could not tell. With the jitter of a quiet machine (±1.5 %) a 5 % gain
        // is kept after the first two rounds.
        int undecided = 0;
        for (const auto& [jitter, gain] : {std::pair{0.4, 1.0}, std::pair{0.015, 1.05}}) {
            for (std::uint64_t seed = 1; seed <= 20; ++seed) {
                ft::moe::FractionSearch s(0.33);
                Noise n{seed * 0x9E3779B97F4A7C15ull};
                for (int i = 0; i < 20000 && s.searching(); ++i) {
                    const double q = s.fraction();
                    const double rate = q >= 1 ? 150.0 : 150.0 * gain * (1 - 0.4 * std::max(0.0, q - 0.1));
                    s.step(1 / rate * (1 + jitter * n.next()), 1, 0.33);
                }
                QVERIFY(!s.searching());
                const auto& d = s.duel();
                const QString what = QString("jitter %1, seed %2: q* %3 after %4 rounds, gain %5 ± %6")
                                         .arg(jitter).arg(seed).arg(s.fraction()).arg(d.all_rate.size()).arg(d.gain).arg(d.noise);
                if (gain < 1.03) {
                    QVERIFY2(s.fraction() == 1.0, qPrintable(what));
                    QVERIFY2(d.why != ft::moe::FractionSearch::Duel::Why::won, qPrintable(what));
                    if (d.why == ft::moe::FractionSearch::Duel::Why::undecided) {
                        QVERIFY2(d.all_rate.size() == 4, qPrintable(what));
                        ++undecided;
                    }
                } else {
                    QVERIFY2(d.why == ft::moe::FractionSearch::Duel::Why::won && d.all_rate.size() == 2, qPrintable(what));
                    QVERIFY2(s.fraction() < 1 && d.gain > 0.03 && d.noise > 0, qPrintable(what));
                }
            }
        }
        QVERIFY2(undecided > 0, "no search ran out of rounds");
    }

    void movesCountEachCandidate() {
        // The caller restores the search's starting cache on each move: one per candidate after the first window,
        // including a final-comparison round that starts with the fraction the round before ended with (no new
        // fraction to set, but a visit of its own: the cache put back, the settle steps run).
        ft::moe::FractionSearch s(0.3);
        int moved = 0;
        for (int i = 0; i < 6000 && s.searching(); ++i)
            if (s.step(1 / peaked(s.fraction(), 0.3), 1, -1)) ++moved;
        QVERIFY(!s.searching());
        int repeats = 0;
        const auto& h = s.history();
        for (std::size_t i = 1; i < h.size(); ++i) repeats += std::abs(h[i].q - h[i - 1].q) < 1e-9;
        QVERIFY(repeats > 0);
        QCOMPARE(s.moves(), moved + repeats);
        QVERIFY(s.moves() >= s.evaluations() - 1);
    }

    void recordsEachWindow() {
        // Windows of 0.01 s steps at 100 tok/s for q* < 0.2, 50 above: the history holds every window in order, with
        // the fraction it measured, its rate, and the search's decode seconds when it ended.
        ft::moe::FractionSearchOptions o;
        ft::moe::FractionSearch s(0.3, o);
        const Run r = drive(s, [](double q, int) { return q < 0.2 ? 100.0 : 50.0; });
        QVERIFY(r.converged);
        const auto& h = s.history();
        QCOMPARE(int(h.size()), s.evaluations());
        QVERIFY(h.size() >= 4);
        QVERIFY(std::abs(h[0].q - 0.3) < 1e-9 && std::abs(h[1].q - 0.1) < 1e-9);  // the start, then the scan
        for (std::size_t i = 0; i < h.size(); ++i) {
            const double want = h[i].q < 0.2 ? 100.0 : 50.0;
            QVERIFY2(std::abs(h[i].rate - want) <= want * 0.02, qPrintable(QString("window %1: %2").arg(i).arg(h[i].rate)));
            QCOMPARE(h[i].search, 1);
            if (i > 0) QVERIFY(h[i].at_s > h[i - 1].at_s);
        }
        // The first window ends after the warm-up and one window of steps.
        QVERIFY(std::abs(h[0].at_s - (o.warmup + o.window) / 50.0) < 0.02);
    }

    void batchSizesAreNotCompared() {
        // Batch 4 gives 3× the tokens per second: a window mixing sizes, or a probe at batch 4 compared with a
        // center measured at batch 1, would move the search by the batch, not by q.
        ft::moe::FractionSearch s(0.25);
        const Run r = drive(
            s, [](double q, int t) { return peaked(q, 0.5) * (t == 4 ? 3 : 1); }, [](int i) { return (i / 37) % 2 ? 4 : 1; });
        QVERIFY(r.converged);
        QVERIFY2(std::abs(r.q - 0.5) <= 0.07, qPrintable(QString("converged at %1").arg(r.q)));
    }

    void searchesAgainWhenTheBandwidthsDrift() {
        ft::moe::FractionSearchOptions o;
        o.research_seconds = 0;  // only the drift may start a new search
        ft::moe::FractionSearch s(0.3, o);
        Run r = drive(s, [](double q, int) { return peaked(q, 0.35); }, [](int) { return 1; }, 0.3);
        QVERIFY(r.converged);
        QCOMPARE(s.searches(), 1);
        // Same bandwidths: converged, and stays so.
        for (int i = 0; i < 500; ++i) s.step(0.01, 1, 0.32);
        QVERIFY(!s.searching());
        // The link slowed down (q_bw fell by 0.2) and the best fraction moved with it.
        s.step(0.01, 1, 0.1);
        QVERIFY(s.searching());
        QCOMPARE(s.searches(), 2);
        r = drive(s, [](double q, int) { return peaked(q, 0.12); }, [](int) { return 1; }, 0.1);
        QVERIFY(r.converged);
        QVERIFY2(std::abs(r.q - 0.12) <= 0.07, qPrintable(QString("converged at %1").arg(r.q)));
    }

    void searchesAgainAfterAWhile() {
        ft::moe::FractionSearchOptions o;
        o.research_seconds = 2;
        ft::moe::FractionSearch s(0.5, o);
        QVERIFY(drive(s, [](double q, int) { return peaked(q, 0.5); }).converged);
        for (int i = 0; i < 150; ++i) s.step(0.01, 1, -1);  // 1.5 s
        QVERIFY(!s.searching());
        for (int i = 0; i < 60; ++i) s.step(0.01, 1, -1);
        QVERIFY(s.searching());
        QCOMPARE(s.searches(), 2);
    }

    void ignoresBadTimes() {
        ft::moe::FractionSearch s(0.3);
        for (int i = 0; i < 500; ++i) {
            QVERIFY(!s.step(0, 1, -1));
            QVERIFY(!s.step(-1, 1, -1));
            QVERIFY(!s.step(NAN, 1, -1));
            QVERIFY(!s.step(0.01, 0, -1));
        }
        QCOMPARE(s.evaluations(), 0);
        QCOMPARE(s.fraction(), 0.3);
    }
};

FT_TEST_MAIN(TestFractionSearch)
#include "test_fraction_search.moc"
