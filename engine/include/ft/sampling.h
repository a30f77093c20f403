// Sampling parameters of a request (value type at the engine boundary).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ft {

struct SamplingParams {
    float temperature = 0.8f;        // 0 → greedy (argmax); otherwise logits / temperature
    int top_k = 0;                   // keep the k most likely tokens (0: off)
    float top_p = 1.0f;              // nucleus: smallest set with cumulative probability ≥ top_p (1: off)
    float min_p = 0.0f;              // drop tokens with p < min_p · p_max (0: off)
    float repetition_penalty = 1.0f; // CTRL-style: seen tokens' logits divided (if > 0) or multiplied by it (1: off)
    float presence_penalty = 0.0f;   // OpenAI: logit -= presence_penalty if the token appeared
    float frequency_penalty = 0.0f;  // OpenAI: logit -= frequency_penalty · count
    int penalty_last_n = 64;         // how many recent tokens the penalties look at (-1: all, 0: none)
    std::uint64_t seed = 0;          // 0: a random seed per request
    int top_logprobs = 0;            // also report this many most likely alternatives per step (0..20)
};

// The sampling the model's authors recommend, where the file says (GGUF general.sampling.temp / .top_k / .top_p, as
// llama.cpp's converter writes them; a Hugging Face folder's generation_config.json, do_sample false meaning
// greedy). The API server uses them for a request that leaves the field out, as llama.cpp's server and vLLM do.
struct SamplingDefaults {
    std::optional<float> temperature, top_p;
    std::optional<int> top_k;
};

}  // namespace ft
