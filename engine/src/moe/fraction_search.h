// Throughput-seeking choice of the hybrid split q* (the fetched share of the misses), from the decode steps' own
// times. The bandwidth-matched q* = B_P / (B_P + B_C) balances the two sides' expert bytes but not the step: the
// CPU side also pays the handshake, its share of the hits lost (CPU-computed experts do not enter the cache) and the
// time to reach its peak, so the best fraction measured on the H200 and on an emulated 12 GB/s link sits above the
// bandwidth-matched one (docs/benchmarks.md). This search starts there and moves q* while the measured tokens per
// second improve:
//   - an opening scan measures the start and the interior fractions 0.1, 0.35, 0.6, 0.85 (those not within 0.1 of the
//     start), one window each, and the compass starts from the fastest: the curve has two modes where the CPU is
//     fast — most misses on the CPU, or every miss fetched — with a plateau between (at q* ≥ ≈ 0.8 a layer's one or
//     two misses are all fetched, yet the step still pays the handshake), where a compass started there only finds
//     q* = 1 (the H100 host's curve on its PCIe 5 link, docs/benchmarks.md);
//   - each candidate runs `settle` decode steps unmeasured (a graph re-capture, the cache adapting), then `window`
//     steps measured: its rate is their tokens over their seconds;
//   - a compass search in one dimension: probe center ± delta; a probe that beats the center's rate by more than
//     `gain` has the center measured again at once, and moves it only if it beats that rate too (a rate that rose
//     with time alone — the cache or the clocks settling, the host's drift — does not; the center keeps the new
//     rate); halve delta when neither side moves it, stop below `min_step`;
//   - after converging, search again (from the fraction in use) when `research_seconds` of decode passed (the compass
//     alone, at half the first distance) or the bandwidth-matched q* drifted by more than `drift` from where it was
//     (power states, other load: the whole search, scan included).
// Only steps of one token count (batch size) are compared: others are passed over, and a batch that stays changed
// re-measures the center at the new size.
// q* = 1 is a real candidate: every miss fetched, the CPU handshake left out of the step (ExpertOffload) — the
// offload backend's step, the safer choice. It is not on the curve the compass climbs, and one window that ran fast
// for a reason that did not last (a first visit to a CPU-heavy fraction, the cache or the clocks settling, the
// host's drift) becomes an anchor that the probes, compared with its rate, cannot beat (the H200's 8 GiB default
// ended one fresh process in four at q* 0.100, 14 % below offload: issue 47). So every search ends with a final
// comparison in interleaved
// rounds: the compass's center, the fastest other fraction the search measured (at least 0.1 from the center: the
// other mode, or where a lucky anchor hid the best one) and q* = 1, each measured `duel_window` steps after
// `settle` per round, the order reversed every round (a drift common to all cancels over two rounds). Per round each
// fraction's rate is taken relative to q* = 1's of that round; after `duel_rounds` rounds the fraction with the best
// mean ratio is kept when that mean beats q* = 1 by `duel_margin` beyond `duel_z` standard errors (the rounds' own
// spread, or the windows' own from their steps' spread, at least `duel_noise_floor` a round); when it is as clearly
// not faster the search ends at q* = 1; else another round, up to `duel_max_rounds`, after which it ends at q* = 1
// (it could not tell: the safer step).
// Which fraction a window measures is told to the caller by moves() so that it can put back the state the search
// started from before each candidate.
// Pure logic (no clocks, no GPU): the caller times the steps. Engine-internal.
#pragma once

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

namespace ft::moe {

struct FractionSearchOptions {
    int warmup = 16;                 // decode steps ignored before the first measurement (the cache filling)
    int settle = 6;                  // steps ignored after q* moves
    int window = 24;                 // steps measured per candidate
    double step0 = 0.15;             // first probe distance
    double min_step = 0.04;          // converged when the probe distance falls below this
    double gain = 0.01;              // a probe must beat the center's rate by this share to move there
    double research_seconds = 120;   // decode seconds between searches once converged (0: never)
    double drift = 0.10;             // a bandwidth-matched q* this far from the search's start searches again
    bool scan = true;                // the opening scan of interior fractions
    int duel_rounds = 2;             // rounds of the final comparison before it may decide (0: none, the compass decides)
    int duel_max_rounds = 4;         // rounds at most; still undecided then: q* = 1
    int duel_window = 48;            // steps measured per fraction and round
    double duel_margin = 0.01;       // a fraction must beat q* = 1 by this share (mean over the rounds) ...
    double duel_z = 3.0;             // ... beyond this many standard errors of that mean
    double duel_noise_floor = 0.01;  // a round's ratio is taken as noisy as this at least (two rounds say little)
    bool duel_runner_up = true;      // the fastest other fraction measured takes part too
};

class FractionSearch {
public:
    FractionSearch(double q0, const FractionSearchOptions& o = {});

    // One decode step finished: its seconds, its tokens, the bandwidth-matched q* measured now (< 0: not known).
    // Returns the fraction to use from the next step when it changes.
    std::optional<double> step(double seconds, int tokens, double q_bw);
    // A pass that is not a comparable decode step came in between (a prefill): the current window restarts.
    void interrupt();

    double fraction() const { return q_; }
    bool searching() const { return !converged_; }
    int evaluations() const { return evaluations_; }      // windows measured so far
    // Candidates started so far (each move of the fraction during a search; a move back to the same fraction counts):
    // a caller that compares the count with its own starts each candidate from the same state.
    int moves() const { return moves_; }
    // The final comparison of the last search (empty rates: none was run). center: the fraction below 1 with the
    // best mean ratio to q* = 1 (the one kept when center_won); all_rate / center_rate: their rates per round;
    // fractions: every fraction below 1 compared; gain: center's mean ratio to q* = 1 minus 1; noise: duel_z standard
    // errors of that mean (as a share); why: how it ended.
    struct Duel {
        double center = 0;
        std::vector<double> all_rate, center_rate;
        bool center_won = false;
        std::vector<double> fractions;
        double gain = 0, noise = 0;
        enum class Why { none, won, lost, undecided } why = Why::none;
    };
    const Duel& duel() const { return duel_; }
    int searches() const { return searches_; }            // searches started (the first included)
    double search_seconds() const { return search_s_; }   // decode seconds of the last (or current) search
    double best_rate() const { return center_rate_; }     // tokens/s of the center (< 0: not measured)
    // Every window measured (the first kMaxHistory): the fraction, its tokens per second, the decode seconds of its
    // search when it ended, and which search it belongs to (1: the first).
    struct Window {
        double q = 0, rate = 0, at_s = 0;
        int search = 0;
    };
    static constexpr std::size_t kMaxHistory = 32;
    const std::vector<Window>& history() const { return history_; }

private:
    void restart_window();
    std::optional<double> finish_window(double rate);
    std::optional<double> go_to(double q);
    std::optional<double> next_probe();
    std::optional<double> next_scan();
    std::optional<double> next_duel();
    std::optional<double> start_duel();
    std::optional<double> finish_round();
    std::optional<double> converge_at(double q);
    void start_search(double delta, bool scan);

    FractionSearchOptions o_;
    double q_ = 0.5;             // in use
    double center_ = 0.5, center_rate_ = -1;
    int center_tokens_ = 0;      // the token count the center's rate was measured at
    double delta_ = 0.15;
    int dir_ = 1;                // direction of the next probe
    bool tried_[2] = {false, false};  // [0]: below the center, [1]: above, at this delta
    bool confirming_ = false;    // the center is measured again after a probe beat its older rate
    double probe_q_ = 0, probe_rate_ = 0;
    bool dueling_ = false;       // the final comparison runs
    std::vector<double> arms_;   // its fractions: q* = 1 first, then the center, then the runner-up
    std::vector<std::vector<double>> arm_rate_;  // per arm, its rate in each round
    std::vector<std::vector<double>> arm_se_;    // per arm, its window's standard error (a share) in each round
    int duel_seen_ = 0;          // windows measured in the comparison (arms_.size() a round)
    Duel duel_;
    std::vector<std::pair<double, double>> explored_;  // this search's windows before the comparison: (q, tok/s)
    bool converged_ = false;
    std::vector<double> scan_;   // opening-scan fractions still to measure
    bool scanning_ = false;
    int skip_ = 0;               // steps still to ignore
    int seen_ = 0, window_tokens_ = 0, mismatch_run_ = 0;
    double acc_s_ = 0, acc_s2_ = 0, acc_tokens_ = 0;
    double window_rel_se_ = 0;   // the last window's standard error as a share of its rate
    double since_converged_s_ = 0, q_bw_ref_ = -1, last_q_bw_ = -1, search_s_ = 0;
    int evaluations_ = 0, searches_ = 0, moves_ = 0;
    std::vector<Window> history_;
};

}  // namespace ft::moe
