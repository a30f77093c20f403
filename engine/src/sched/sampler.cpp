#include "sched/sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "ft/error.h"

namespace ft {

void validate_sampling(const SamplingParams& p) {
    // `range` in notation that reads the same in every language ("[0, 100]", ">= 0"): the key "sampling_range"
    // {field, range} for translating front ends.
    auto bad = [](const char* field, const std::string& range) {
        const bool interval = range[0] == '[' || range[0] == '(';
        throw Error(ErrorCode::invalid_argument, std::string("sampling parameter ") + field + " must be " + (interval ? "in " : "") + range)
            .keyed("sampling_range", {field, range});
    };
    if (!std::isfinite(p.temperature) || p.temperature < 0.f || p.temperature > 100.f) bad("temperature", "[0, 100]");
    if (p.top_k < 0) bad("top_k", ">= 0");
    if (!(p.top_p > 0.f && p.top_p <= 1.f)) bad("top_p", "(0, 1]");
    if (!(p.min_p >= 0.f && p.min_p <= 1.f)) bad("min_p", "[0, 1]");
    if (!(p.repetition_penalty > 0.f && p.repetition_penalty <= 10.f)) bad("repetition_penalty", "(0, 10]");
    if (!(std::fabs(p.presence_penalty) <= 2.f)) bad("presence_penalty", "[-2, 2]");
    if (!(std::fabs(p.frequency_penalty) <= 2.f)) bad("frequency_penalty", "[-2, 2]");
    if (p.penalty_last_n < -1) bad("penalty_last_n", ">= -1");
    if (p.top_logprobs < 0 || p.top_logprobs > 20) bad("top_logprobs", "[0, 20]");
}

Sampler::Sampler(const SamplingParams& params) : params_(params) {
    validate_sampling(params);
    seed_ = params.seed != 0 ? params.seed : std::random_device{}() * 0x9E3779B97F4A7C15ull + 1;
    rng_.seed(seed_);
}

namespace {

// log-softmax of x at index i, given max and log-sum-exp.
struct LogSoftmax {
    float max = -std::numeric_limits<float>::infinity();
    double lse = 0;
    explicit LogSoftmax(std::span<const float> x) {
        for (float v : x) max = std::max(max, v);
        double s = 0;
        for (float v : x) s += std::exp(double(v) - max);
        lse = std::log(s);
    }
    float operator()(float v) const { return float(double(v) - max - lse); }
};

}  // namespace

SampledToken Sampler::sample(std::span<float> logits, std::span<const std::int32_t> history) {
    const std::int32_t n = static_cast<std::int32_t>(logits.size());
    if (n == 0) throw Error(ErrorCode::internal, "sampler: empty logits");
    SampledToken out;

    // Raw distribution for the reported log-probabilities.
    const LogSoftmax raw(logits);
    std::vector<std::pair<std::int32_t, float>> top_raw;
    if (params_.top_logprobs > 0) {
        std::vector<std::int32_t> idx(static_cast<size_t>(n));
        std::iota(idx.begin(), idx.end(), 0);
        const int k = std::min<int>(params_.top_logprobs, n);
        std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), [&](std::int32_t a, std::int32_t b) {
            return logits[size_t(a)] > logits[size_t(b)] || (logits[size_t(a)] == logits[size_t(b)] && a < b);
        });
        for (int i = 0; i < k; ++i) top_raw.emplace_back(idx[size_t(i)], raw(logits[size_t(idx[size_t(i)])]));
    }
    std::vector<float> raw_copy;  // keep the raw logit of the chosen token
    const bool penalize = params_.penalty_last_n != 0 &&
                          (params_.repetition_penalty != 1.f || params_.presence_penalty != 0.f ||
                           params_.frequency_penalty != 0.f);
    auto raw_logit = [&](std::int32_t t) { return raw_copy.empty() ? logits[size_t(t)] : raw_copy[size_t(t)]; };
    if (penalize) {
        raw_copy.assign(logits.begin(), logits.end());
        counts_.clear();
        const size_t start = params_.penalty_last_n < 0 || size_t(params_.penalty_last_n) >= history.size()
                                 ? 0 : history.size() - size_t(params_.penalty_last_n);
        for (size_t i = start; i < history.size(); ++i)
            if (history[i] >= 0 && history[i] < n) ++counts_[history[i]];
        for (const auto& [tok, count] : counts_) {
            float& l = logits[size_t(tok)];
            if (params_.repetition_penalty != 1.f) l = l > 0 ? l / params_.repetition_penalty : l * params_.repetition_penalty;
            l -= params_.presence_penalty + params_.frequency_penalty * float(count);
        }
    }

    std::int32_t chosen = 0;
    if (params_.temperature == 0.f) {
        // Greedy: first index of the maximum (deterministic on ties).
        chosen = static_cast<std::int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
    } else {
        const float inv_t = 1.f / params_.temperature;
        // Candidates sorted by logit, lazily: partial sorts of growing prefixes until top-k / top-p are satisfied.
        order_.resize(size_t(n));
        std::iota(order_.begin(), order_.end(), 0);
        auto by_logit = [&](std::int32_t a, std::int32_t b) {
            return logits[size_t(a)] > logits[size_t(b)] || (logits[size_t(a)] == logits[size_t(b)] && a < b);
        };
        std::int32_t keep = n;
        if (params_.top_k > 0) keep = std::min(keep, params_.top_k);
        // Softmax denominators over all tokens (top-p / min-p are defined on the full tempered distribution).
        float max_l = -std::numeric_limits<float>::infinity();
        for (float v : logits) max_l = std::max(max_l, v);
        std::int32_t sorted = 0;
        auto ensure_sorted = [&](std::int32_t count) {
            count = std::min(count, n);
            if (count <= sorted) return;
            std::partial_sort(order_.begin() + sorted, order_.begin() + count, order_.end(), by_logit);
            sorted = count;
        };
        double total = 0;
        if (keep < n) {
            ensure_sorted(keep);
            for (std::int32_t i = 0; i < keep; ++i) total += std::exp(double(logits[size_t(order_[size_t(i)])] - max_l) * inv_t);
        } else {
            for (float v : logits) total += std::exp(double(v - max_l) * inv_t);
        }
        if (params_.top_p < 1.f) {
            double cum = 0;
            std::int32_t i = 0;
            std::int32_t chunk = 64;
            for (;;) {
                ensure_sorted(std::min(keep, i + chunk));
                for (; i < sorted && i < keep; ++i) {
                    cum += std::exp(double(logits[size_t(order_[size_t(i)])] - max_l) * inv_t) / total;
                    if (cum >= params_.top_p) break;
                }
                if (i < keep && cum >= params_.top_p) { keep = i + 1; break; }
                if (i >= keep) break;
                chunk *= 8;
            }
        }
        if (params_.min_p > 0.f) {
            // p_i / p_max >= min_p  ⇔  (l_i - l_max) / T >= ln(min_p)
            ensure_sorted(keep);
            const double threshold = std::log(double(params_.min_p));
            std::int32_t i = 1;
            while (i < keep && double(logits[size_t(order_[size_t(i)])] - max_l) * inv_t >= threshold) ++i;
            keep = i;
        }
        ensure_sorted(keep);
        probs_.resize(size_t(keep));
        double sum = 0;
        for (std::int32_t i = 0; i < keep; ++i) {
            probs_[size_t(i)] = float(std::exp(double(logits[size_t(order_[size_t(i)])] - max_l) * inv_t));
            sum += probs_[size_t(i)];
        }
        // Inverse-CDF draw with a 53-bit uniform.
        const double u = double(rng_() >> 11) * (1.0 / 9007199254740992.0) * sum;
        double acc = 0;
        chosen = order_[size_t(keep - 1)];
        for (std::int32_t i = 0; i < keep; ++i) {
            acc += probs_[size_t(i)];
            if (u < acc) { chosen = order_[size_t(i)]; break; }
        }
    }
    out.token = chosen;
    out.logprob = raw(raw_logit(chosen));
    out.top = std::move(top_raw);
    return out;
}

}  // namespace ft
