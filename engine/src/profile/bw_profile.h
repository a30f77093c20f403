// The stored bandwidth profile (docs/gpu-engine.md, "The memory plan"), its own module: the engine reads it at load (and measures one at
// the first GPU load without one), `ft bench bw` and the fit predictor use it.
//   B_P  expert fetches over PCIe exactly as decode issues them (the fetch kernel reading pinned host experts)
//   B_C  the CPU expert kernel on single-token expert FFNs of the model (expert weight bytes read per second)
// each alone and both at once (they share the host memory controller); the hybrid fraction is
// B_P,both / (B_P,both + B_C,both). Profiles are stored in SQLite (<data dir>/bandwidth.sqlite) keyed by GPU name,
// expert format and CPU thread count, and printed; the engine's hybrid backend reads the matching one.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ft/gpu.h"

namespace ft::model {
class Weights;
}

namespace ft::profile {

struct BwProfile {
    std::string gpu, format;
    int threads = 0;
    double pcie_gbs = 0, cpu_gbs = 0;          // each alone
    double pcie_both_gbs = 0, cpu_both_gbs = 0;  // at the same time
    double dma_gbs = 0;                        // cudaMemcpy of whole layers (the prefill path), alone
    double fraction = 0;                       // q*'s fetched share
    std::string measured_at;                   // UTC, ISO 8601
};

struct BwBenchOptions {
    std::filesystem::path model;
    int threads = 0;
    int gpu = 0;
    double seconds = 2.0;  // per measurement
};

// Expert format key of a model: the gate/up/down types, e.g. "q4_K" or "q4_K/q4_K/q6_K".
std::string expert_format(const model::Weights& w);

BwProfile run_bw_bench(const BwBenchOptions& o);
// The same measurement on weights already open (the engine's first GPU load with no stored profile).
BwProfile measure_profile(const model::Weights& w, int gpu, int threads, double seconds);
// Stores (replacing the same key) and reads profiles; the database lives in data_dir(). Throws ft::Error(io).
void store_profile(const BwProfile& p);
std::optional<BwProfile> load_profile(const std::string& gpu, const std::string& format, int threads);
// The most recently measured profile of a GPU, any format and thread count (the fit predictor's bandwidths).
std::optional<BwProfile> newest_profile(const std::string& gpu);
// Every stored profile of a GPU, newest first (the fit predictor's CPU expert rate per format).
std::vector<BwProfile> profiles_of(const std::string& gpu);
// The hybrid fraction of GPU `gpu` (an index into gpu_devices(), as --gpu) for an expert format and `threads` CPU
// workers, or -1 with a log line saying so when no profile matches or there is no such GPU (needs no GPU itself:
// the engine's load passes gpu_devices(), tests a list of their own).
double stored_hybrid_fraction(const std::vector<GpuInfo>& devices, int gpu, const std::string& format, int threads);

nlohmann::json to_json(const BwProfile& p);

}  // namespace ft::profile
