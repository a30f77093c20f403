// Token sampler: penalties, temperature, top-k, top-p, min-p, seeded RNG, and log-probabilities of the chosen
// token (under the model's raw distribution: log-softmax of the logits before penalties and temperature).
// One Sampler per request; not thread-safe.
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ft/sampling.h"

namespace ft {

struct SampledToken {
    std::int32_t token = -1;
    float logprob = 0.f;                                  // log p(token) under the raw logits
    std::vector<std::pair<std::int32_t, float>> top;      // the top_logprobs most likely (token, logprob)
};

class Sampler {
public:
    // Throws ft::Error(invalid_argument) naming the field when a parameter is out of range.
    explicit Sampler(const SamplingParams& params);

    // `logits` has n_vocab entries and is modified (penalties, temperature). `history` is the sequence so far
    // (prompt + generated), used by the penalties.
    SampledToken sample(std::span<float> logits, std::span<const std::int32_t> history);

    const SamplingParams& params() const { return params_; }
    std::uint64_t seed() const { return seed_; }

private:
    SamplingParams params_;
    std::uint64_t seed_;
    std::mt19937_64 rng_;
    std::vector<std::int32_t> order_;     // scratch: candidate ids
    std::vector<float> probs_;            // scratch
    std::unordered_map<std::int32_t, int> counts_;
};

// Validates params (the same checks as the constructor) without building a sampler.
void validate_sampling(const SamplingParams& params);

}  // namespace ft
