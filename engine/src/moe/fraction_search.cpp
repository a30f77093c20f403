#include "moe/fraction_search.h"

#include <algorithm>
#include <cmath>

namespace ft::moe {

namespace {
// The opening scan's fractions: a quarter apart over the interior, so the compass starts within reach of the best mode.
constexpr double kScan[] = {0.1, 0.35, 0.6, 0.85};
constexpr double kScanSkip = 0.1;  // a scan fraction this close to the start is not measured again
}  // namespace

FractionSearch::FractionSearch(double q0, const FractionSearchOptions& o) : o_(o) {
    q_ = std::clamp(std::isfinite(q0) ? q0 : 0.5, 0.0, 1.0);
    skip_ = std::max(0, o_.warmup);
    start_search(o_.step0, o_.scan);
}

void FractionSearch::start_search(double delta, bool scan) {
    center_ = q_;
    center_rate_ = -1;
    center_tokens_ = 0;
    delta_ = delta;
    dir_ = 1;
    tried_[0] = tried_[1] = false;
    confirming_ = false;
    dueling_ = false;
    duel_seen_ = 0;
    duel_ = {};
    arms_.clear();
    arm_rate_.clear();
    arm_se_.clear();
    explored_.clear();
    scan_.clear();
    if (scan)
        for (double f : kScan)
            if (std::abs(f - center_) >= kScanSkip) scan_.push_back(f);
    scanning_ = !scan_.empty();
    converged_ = false;
    search_s_ = 0;
    ++searches_;
    restart_window();
}

std::optional<double> FractionSearch::next_scan() {
    while (!scan_.empty()) {
        const double f = scan_.front();
        scan_.erase(scan_.begin());
        if (auto moved = go_to(f)) return moved;
    }
    scanning_ = false;  // the compass starts from the fastest fraction seen
    tried_[0] = tried_[1] = false;
    return next_probe();
}

void FractionSearch::restart_window() {
    seen_ = 0;
    mismatch_run_ = 0;
    window_tokens_ = 0;
    acc_s_ = acc_s2_ = acc_tokens_ = 0;
}

void FractionSearch::interrupt() {
    restart_window();
    skip_ = std::max(skip_, 1);
}

std::optional<double> FractionSearch::go_to(double q) {
    q = std::clamp(q, 0.0, 1.0);
    if (std::abs(q - q_) < 1e-9) return std::nullopt;
    q_ = q;
    skip_ = std::max(0, o_.settle);
    ++moves_;
    return q_;
}

std::optional<double> FractionSearch::converge_at(double q) {
    converged_ = true;
    since_converged_s_ = 0;
    q_bw_ref_ = last_q_bw_;
    center_ = q;
    return go_to(q);
}

std::optional<double> FractionSearch::start_duel() {
    // q* = 1, the compass's center, and the fastest other fraction this search measured (header).
    arms_.assign(1, 1.0);
    if (center_ < 1 - 1e-9) arms_.push_back(center_);
    if (o_.duel_runner_up) {
        double best_q = -1, best_rate = -1;
        for (const auto& [q, rate] : explored_) {
            if (q >= 1 - 1e-9 || rate <= best_rate) continue;
            bool apart = true;
            for (double a : arms_) apart = apart && std::abs(q - a) >= kScanSkip - 1e-9;
            if (apart) best_q = q, best_rate = rate;
        }
        if (best_q >= 0) arms_.push_back(best_q);
    }
    if (arms_.size() < 2) return converge_at(1.0);
    dueling_ = true;
    duel_seen_ = 0;
    arm_rate_.assign(arms_.size(), {});
    arm_se_.assign(arms_.size(), {});
    duel_ = {};
    duel_.fractions.assign(arms_.begin() + 1, arms_.end());
    return next_duel();
}

namespace {
// Round r visits the arms in order, the next round in reverse (its first arm is the one just measured).
std::size_t arm_at(int seen, std::size_t n) {
    const std::size_t round = std::size_t(seen) / n, pos = std::size_t(seen) % n;
    return round % 2 == 0 ? pos : n - 1 - pos;
}
}  // namespace

// A round that starts with the arm the last one ended with still makes it a visit of its own (moves() counts it, the
// settle steps run): the caller puts the search's starting cache back, as for every other window.
std::optional<double> FractionSearch::next_duel() {
    const double q = std::clamp(arms_[arm_at(duel_seen_, arms_.size())], 0.0, 1.0);
    if (std::abs(q - q_) < 1e-9) {
        skip_ = std::max(0, o_.settle);
        ++moves_;
        return std::nullopt;
    }
    return go_to(q);
}

std::optional<double> FractionSearch::finish_round() {
    const std::size_t n_arms = arms_.size();
    const int rounds = int(arm_rate_[0].size());
    // Per round each fraction's rate over q* = 1's of the same round, as a log ratio: its mean and standard error.
    // A round's noise is the largest of the rounds' spread, the two windows' own standard errors (their steps'
    // spread: two rounds alone say little) and the floor.
    std::size_t best = 1;
    double best_mean = -1e300, best_se = 0;
    for (std::size_t a = 1; a < n_arms; ++a) {
        double sum = 0, sum2 = 0, within2 = 0;
        for (int r = 0; r < rounds; ++r) {
            const std::size_t i = std::size_t(r);
            const double d = std::log(arm_rate_[a][i] / arm_rate_[0][i]);
            sum += d;
            sum2 += d * d;
            within2 += arm_se_[a][i] * arm_se_[a][i] + arm_se_[0][i] * arm_se_[0][i];
        }
        const double mean = sum / rounds;
        const double var = rounds > 1 ? std::max(0.0, (sum2 - rounds * mean * mean) / (rounds - 1)) : 0.0;
        const double noise = std::max({std::sqrt(var), std::sqrt(within2 / rounds), o_.duel_noise_floor});
        const double se = noise / std::sqrt(double(rounds));
        if (mean > best_mean) best = a, best_mean = mean, best_se = se;
    }
    const double margin = std::log1p(o_.duel_margin), band = o_.duel_z * best_se;
    duel_.center = arms_[best];
    duel_.all_rate = arm_rate_[0];
    duel_.center_rate = arm_rate_[best];
    duel_.gain = std::expm1(best_mean);
    duel_.noise = std::expm1(band);
    const auto mean_of = [](const std::vector<double>& v) {
        double s = 0;
        for (double x : v) s += x;
        return v.empty() ? 0.0 : s / double(v.size());
    };
    if (best_mean - band > margin) {
        dueling_ = false;
        duel_.center_won = true;
        duel_.why = Duel::Why::won;
        center_rate_ = mean_of(duel_.center_rate);
        return converge_at(duel_.center);
    }
    const bool lost = best_mean + band <= margin;
    if (lost || rounds >= std::max(o_.duel_rounds, o_.duel_max_rounds)) {
        dueling_ = false;
        duel_.why = lost ? Duel::Why::lost : Duel::Why::undecided;
        center_rate_ = mean_of(duel_.all_rate);
        return converge_at(1.0);
    }
    return next_duel();  // another round
}

std::optional<double> FractionSearch::next_probe() {
    for (;;) {
        if (delta_ < o_.min_step) {
            // Converged on the curve: the final comparison with q* = 1 and the runner-up decides (header).
            if (o_.duel_rounds > 0) return start_duel();
            return converge_at(center_);
        }
        int side = dir_ > 0 ? 1 : 0;
        if (tried_[side]) {
            dir_ = -dir_;
            side = 1 - side;
        }
        if (tried_[side]) {  // neither side beat the center at this distance
            delta_ /= 2;
            tried_[0] = tried_[1] = false;
            continue;
        }
        const double cand = std::clamp(center_ + dir_ * delta_, 0.0, 1.0);
        if (std::abs(cand - center_) < 1e-6) {  // at a bound: nothing that way
            tried_[side] = true;
            continue;
        }
        if (auto moved = go_to(cand)) return moved;
        tried_[side] = true;  // cand is the fraction in use already (cannot happen while it differs from the center)
    }
}

std::optional<double> FractionSearch::finish_window(double rate) {
    ++evaluations_;
    if (dueling_) {
        const std::size_t n = arms_.size();
        arm_rate_[arm_at(duel_seen_, n)].push_back(rate);
        arm_se_[arm_at(duel_seen_, n)].push_back(window_rel_se_);
        ++duel_seen_;
        if (std::size_t(duel_seen_) % n != 0 || duel_seen_ / int(n) < o_.duel_rounds) return next_duel();
        return finish_round();
    }
    explored_.push_back({q_, rate});
    if (scanning_ && center_rate_ >= 0) {
        if (rate > center_rate_ * (1 + o_.gain)) {
            center_ = q_;
            center_rate_ = rate;
        }
        return next_scan();
    }
    if (center_rate_ < 0 || (!confirming_ && std::abs(q_ - center_) < 1e-9)) {
        center_rate_ = rate;
        center_tokens_ = window_tokens_;
        return scanning_ ? next_scan() : next_probe();
    }
    const int side = dir_ > 0 ? 1 : 0;
    if (confirming_) {
        // This window measured the center again, right after the probe that beat its older rate: the probe moves
        // the center only if it beats this one too (a rate that rose with time alone does not move it).
        confirming_ = false;
        if (probe_rate_ > rate * (1 + o_.gain)) {
            center_ = probe_q_;
            center_rate_ = probe_rate_;
            tried_[side] = false;
            tried_[1 - side] = true;  // the old center lies that way, and it is slower
        } else {
            center_rate_ = rate;
            tried_[side] = true;
        }
        return next_probe();
    }
    if (rate > center_rate_ * (1 + o_.gain)) {
        confirming_ = true;
        probe_q_ = q_;
        probe_rate_ = rate;
        if (auto moved = go_to(center_)) return moved;
        confirming_ = false;  // cannot happen: the probe differs from the center
    }
    tried_[side] = true;
    return next_probe();
}

std::optional<double> FractionSearch::step(double seconds, int tokens, double q_bw) {
    if (tokens <= 0 || !(seconds > 0) || !std::isfinite(seconds)) return std::nullopt;
    if (q_bw >= 0) last_q_bw_ = q_bw;
    if (converged_) {
        since_converged_s_ += seconds;
        const bool drifted = q_bw >= 0 && q_bw_ref_ >= 0 && std::abs(q_bw - q_bw_ref_) > o_.drift;
        if (drifted || (o_.research_seconds > 0 && since_converged_s_ >= o_.research_seconds))
            start_search(drifted ? o_.step0 : o_.step0 / 2, drifted && o_.scan);
        return std::nullopt;
    }
    search_s_ += seconds;
    if (skip_ > 0) {
        --skip_;
        return std::nullopt;
    }
    // Rates at different batch sizes are not comparable: a window measures the steps of one token count only (the
    // center's, once measured) and passes over the others. When that count has not come for `2 * window` steps in a
    // row the batch really changed: the center is measured again at the new one.
    const int lock = center_rate_ >= 0 ? center_tokens_ : (seen_ > 0 ? window_tokens_ : 0);
    if (lock != 0 && tokens != lock) {
        if (++mismatch_run_ < 2 * std::max(1, o_.window)) return std::nullopt;
        mismatch_run_ = 0;
        restart_window();
        if (center_rate_ >= 0) {
            center_rate_ = -1;
            tried_[0] = tried_[1] = false;
            dueling_ = false;
            confirming_ = false;
            arms_.clear();
            arm_rate_.clear();
            arm_se_.clear();
            if (auto moved = go_to(center_)) return moved;
        }
    }
    mismatch_run_ = 0;
    if (seen_ == 0) window_tokens_ = tokens;
    acc_s_ += seconds;
    acc_s2_ += seconds * seconds;
    acc_tokens_ += tokens;
    if (++seen_ < std::max(1, dueling_ ? o_.duel_window : o_.window)) return std::nullopt;
    const double rate = acc_tokens_ / acc_s_;
    // The window's own standard error, as a share of its rate: the spread of its steps' times over sqrt(steps).
    const double mean_s = acc_s_ / seen_;
    window_rel_se_ = seen_ > 1 ? std::sqrt(std::max(0.0, acc_s2_ / seen_ - mean_s * mean_s) * seen_ / (seen_ - 1)) /
                                     mean_s / std::sqrt(double(seen_))
                               : 0.0;
    const int t = window_tokens_;
    restart_window();
    window_tokens_ = t;
    if (history_.size() < kMaxHistory) history_.push_back({q_, rate, search_s_, searches_});
    auto r = finish_window(rate);
    window_tokens_ = 0;
    return r;
}

}  // namespace ft::moe
