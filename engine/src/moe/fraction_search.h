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
//   - a compass search in one dimension: probe center ± delta, move to a probe that beats the center by more than
//     `gain`, halve delta when neither side does, stop below `min_step`;
//   - after converging, search again (from the fraction in use) when `research_seconds` of decode passed (the compass
//     alone, at half the first distance) or the bandwidth-matched q* drifted by more than `drift` from where it was
//     (power states, other load: the whole search, scan included).
// Only steps of one token count (batch size) are compared: others are passed over, and a batch that stays changed
// re-measures the center at the new size.
// q* = 1 is a real candidate: every miss fetched, the CPU handshake left out of the step (ExpertOffload) — the
// offload backend's step, the safer choice. It is not on the curve the compass climbs, and one window of a fraction
// can run fast for reasons that do not last (the cache the earlier windows left; docs/benchmarks.md, the 8 GiB
// default in fresh processes). So a compass that converges below 1 ends with a duel: `duel_rounds`
// rounds of q* = 1 then the center, each over `duel_window` steps; the center is kept only when it beat q* = 1 in every
// round and by `duel_margin` on the rounds' mean, else the search ends at 1. Which fraction a window measures is told
// to the caller by moved() so that it can put back the state the search started from before each candidate.
// Pure logic (no clocks, no GPU): the caller times the steps. Engine-internal.
#pragma once

#include <cstddef>
#include <optional>
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
    int duel_rounds = 2;             // rounds of the closing duel between q* = 1 and the compass's center (0: none)
    int duel_window = 48;            // steps measured per side and round
    double duel_margin = 0.02;       // the center must beat q* = 1 by this share on the duel's mean
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
    // The closing duel of the last search: its rounds' rates at q* = 1 and at the center (empty: none was run).
    struct Duel {
        double center = 0;
        std::vector<double> all_rate, center_rate;
        bool center_won = false;
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
    std::optional<double> converge_at(double q);
    void start_search(double delta, bool scan);

    FractionSearchOptions o_;
    double q_ = 0.5;             // in use
    double center_ = 0.5, center_rate_ = -1;
    int center_tokens_ = 0;      // the token count the center's rate was measured at
    double delta_ = 0.15;
    int dir_ = 1;                // direction of the next probe
    bool tried_[2] = {false, false};  // [0]: below the center, [1]: above, at this delta
    bool dueling_ = false;       // the closing duel runs
    int duel_seen_ = 0;          // duel windows measured (even: at q* = 1, odd: at the center)
    Duel duel_;
    bool converged_ = false;
    std::vector<double> scan_;   // opening-scan fractions still to measure
    bool scanning_ = false;
    int skip_ = 0;               // steps still to ignore
    int seen_ = 0, window_tokens_ = 0, mismatch_run_ = 0;
    double acc_s_ = 0, acc_tokens_ = 0;
    double since_converged_s_ = 0, q_bw_ref_ = -1, last_q_bw_ = -1, search_s_ = 0;
    int evaluations_ = 0, searches_ = 0, moves_ = 0;
    std::vector<Window> history_;
};

}  // namespace ft::moe
