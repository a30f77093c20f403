// Throughput-seeking choice of the hybrid split q* (the fetched share of the misses), from the decode steps' own
// times. The bandwidth-matched q* = B_P / (B_P + B_C) balances the two sides' expert bytes but not the step: the
// CPU side also pays the handshake, its share of the hits lost (CPU-computed experts do not enter the cache) and the
// time to reach its peak, so the best fraction measured on the H200 and on an emulated 12 GB/s link sits above the
// bandwidth-matched one (docs/benchmarks.md). This search starts there and moves q* while the measured tokens per
// second improve:
//   - each candidate runs `settle` decode steps unmeasured (a graph re-capture, the cache adapting), then `window`
//     steps measured: its rate is their tokens over their seconds;
//   - a compass search in one dimension: probe center ± delta, move to a probe that beats the center by more than
//     `gain`, halve delta when neither side does, stop below `min_step`;
//   - after converging, search again (from the fraction in use) when `research_seconds` of decode passed or the
//     bandwidth-matched q* drifted by more than `drift` from where it was (power states, other load).
// Only steps of one token count (batch size) are compared: others are passed over, and a batch that stays changed
// re-measures the center at the new size.
// q* = 1 is a real candidate: every miss fetched, the CPU handshake left out of the step (ExpertOffload). That step
// is not on the curve the compass climbs, so a search that settles below 1 measures one window at 1 before it ends.
// Pure logic (no clocks, no GPU): the caller times the steps. Engine-internal.
#pragma once

#include <optional>

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
    int searches() const { return searches_; }            // searches started (the first included)
    double search_seconds() const { return search_s_; }   // decode seconds of the last (or current) search
    double best_rate() const { return center_rate_; }     // tokens/s of the center (< 0: not measured)

private:
    void restart_window();
    std::optional<double> finish_window(double rate);
    std::optional<double> go_to(double q);
    std::optional<double> next_probe();
    void start_search(double delta);

    FractionSearchOptions o_;
    double q_ = 0.5;             // in use
    double center_ = 0.5, center_rate_ = -1;
    int center_tokens_ = 0;      // the token count the center's rate was measured at
    double delta_ = 0.15;
    int dir_ = 1;                // direction of the next probe
    bool tried_[2] = {false, false};  // [0]: below the center, [1]: above, at this delta
    bool tried_all_ = false, probing_all_ = false;  // the closing window at q* = 1
    bool converged_ = false;
    int skip_ = 0;               // steps still to ignore
    int seen_ = 0, window_tokens_ = 0, mismatch_run_ = 0;
    double acc_s_ = 0, acc_tokens_ = 0;
    double since_converged_s_ = 0, q_bw_ref_ = -1, last_q_bw_ = -1, search_s_ = 0;
    int evaluations_ = 0, searches_ = 0;
};

}  // namespace ft::moe
