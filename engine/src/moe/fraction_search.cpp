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
    dueling_ = false;
    duel_seen_ = 0;
    duel_ = {};
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
    acc_s_ = acc_tokens_ = 0;
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

std::optional<double> FractionSearch::next_duel() {
    // Even windows at q* = 1, odd ones at the center: q* = 1 first, so the center's last window is the state it keeps.
    return go_to(duel_seen_ % 2 == 0 ? 1.0 : duel_.center);
}

std::optional<double> FractionSearch::next_probe() {
    for (;;) {
        if (delta_ < o_.min_step) {
            // Converged on the curve. Below q* = 1 the center must win the closing duel against it (header).
            if (center_ < 1 - 1e-9 && o_.duel_rounds > 0) {
                dueling_ = true;
                duel_seen_ = 0;
                duel_ = {};
                duel_.center = center_;
                return next_duel();
            }
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
        (duel_seen_ % 2 == 0 ? duel_.all_rate : duel_.center_rate).push_back(rate);
        if (++duel_seen_ < 2 * o_.duel_rounds) return next_duel();
        dueling_ = false;
        bool every = true;
        double all = 0, center = 0;
        for (std::size_t i = 0; i < duel_.center_rate.size(); ++i) {
            every = every && duel_.center_rate[i] > duel_.all_rate[i];
            all += duel_.all_rate[i];
            center += duel_.center_rate[i];
        }
        const double n = double(duel_.center_rate.size());
        duel_.center_won = every && center > all * (1 + o_.duel_margin);
        center_rate_ = (duel_.center_won ? center : all) / n;
        return converge_at(duel_.center_won ? duel_.center : 1.0);
    }
    if (scanning_ && center_rate_ >= 0) {
        if (rate > center_rate_ * (1 + o_.gain)) {
            center_ = q_;
            center_rate_ = rate;
        }
        return next_scan();
    }
    if (center_rate_ < 0 || std::abs(q_ - center_) < 1e-9) {
        center_rate_ = rate;
        center_tokens_ = window_tokens_;
        return scanning_ ? next_scan() : next_probe();
    }
    const int side = dir_ > 0 ? 1 : 0;
    if (rate > center_rate_ * (1 + o_.gain)) {
        center_ = q_;
        center_rate_ = rate;
        tried_[side] = false;
        tried_[1 - side] = true;  // the old center lies that way, and it is slower
    } else {
        tried_[side] = true;
    }
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
            if (auto moved = go_to(center_)) return moved;
        }
    }
    mismatch_run_ = 0;
    if (seen_ == 0) window_tokens_ = tokens;
    acc_s_ += seconds;
    acc_tokens_ += tokens;
    if (++seen_ < std::max(1, dueling_ ? o_.duel_window : o_.window)) return std::nullopt;
    const double rate = acc_tokens_ / acc_s_;
    const int t = window_tokens_;
    restart_window();
    window_tokens_ = t;
    if (history_.size() < kMaxHistory) history_.push_back({q_, rate, search_s_, searches_});
    auto r = finish_window(rate);
    window_tokens_ = 0;
    return r;
}

}  // namespace ft::moe
