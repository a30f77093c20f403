// Counter-based random numbers for synthetic weights: every block of every tensor gets its own generator, seeded
// from (seed, tensor name, block index), so a file's bytes depend only on the seed — not on threading or chunking —
// and any block can be regenerated on its own (tests compare a written file with a regeneration).
#pragma once

#include <cstdint>
#include <string_view>

namespace ft::synth {

// SplitMix64's output function: a strong 64-bit mixer.
inline std::uint64_t mix64(std::uint64_t x) {
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// FNV-1a of a tensor name: the per-tensor stream key.
inline std::uint64_t name_key(std::string_view s) {
    std::uint64_t h = 0xCBF29CE484222325ull;
    for (unsigned char c : s) h = (h ^ c) * 0x100000001B3ull;
    return h;
}

class BlockRng {
public:
    BlockRng(std::uint64_t seed, std::uint64_t tensor_key, std::uint64_t block)
        : state_(mix64(seed + 0x9E3779B97F4A7C15ull) ^ mix64(tensor_key ^ mix64(block + 0x632BE59BD9B4E019ull))) {}

    std::uint64_t next() {
        state_ += 0x9E3779B97F4A7C15ull;
        return mix64(state_);
    }
    // Uniform in [0, 1) with 24 random bits.
    float uniform() { return static_cast<float>(next() >> 40) * (1.0f / 16777216.0f); }

private:
    std::uint64_t state_;
};

}  // namespace ft::synth
