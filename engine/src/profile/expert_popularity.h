// Warm start (issue 18): how often each routed expert of a model was active in decode, kept between sessions in
// SQLite (<data dir>/experts.sqlite) so the next load can fill the VRAM expert cache with the popular ones before the
// first request instead of missing its way there.
//   - key: the model file's name and size and its expert geometry (a model moved keeps its key; a re-quantized one
//     gets a new one);
//   - counts: one float per (layer, expert), flat id = layer · n_expert + expert; a session's decode uses are added
//     to the stored counts halved, so the last sessions weigh most and a changed workload takes over within a few;
//   - a session with fewer than kMinSessionUses uses (or 4 per expert, for a small model) leaves the store as it
//     was (a load and a greeting say little).
// Engine-internal.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ft::profile {

inline constexpr std::uint64_t kMinSessionUses = 1000;

struct ExpertPopularity {
    int n_layer = 0, n_expert = 0;
    std::vector<float> counts;  // [n_layer · n_expert]
    int sessions = 0;           // sessions merged into it
    std::string updated_at;     // UTC, ISO 8601
};

// The key of a model at `path` (a GGUF file, or a folder whose files are summed) with this expert geometry.
std::string popularity_key(const std::filesystem::path& path, int n_layer, int n_expert);

// Adds a session's uses to the stored counts of `key` (halved first). Returns false when the session was too short
// to count. Throws ft::Error(io) when the database cannot be written, ft::Error(invalid_argument) on a size mismatch.
bool store_popularity(const std::string& key, int n_layer, int n_expert, const std::vector<std::uint32_t>& session_uses);
// The stored counts of `key`, or nothing (none stored, or stored for another geometry). Throws ft::Error(io).
std::optional<ExpertPopularity> load_popularity(const std::string& key, int n_layer, int n_expert);
// Flat ids with a count above zero, most popular first (ties: lower id first).
std::vector<std::int32_t> hottest_first(const ExpertPopularity& p);
// What a first load (nothing stored) fills the cache with: the routed experts of every layer that has them, a round
// over the layers per expert id (layer 0's expert 0, layer 1's expert 0, …, layer 0's expert 1, …), so that any
// prefix of the list gives each layer the same share of the cache, ±1.
std::vector<std::int32_t> even_spread(const std::vector<bool>& layer_has_experts, int n_expert);

}  // namespace ft::profile
