// The CPU expert kernel's read rate for a model's expert types, as the fit predictor uses it (B_C in
// docs/gpu-engine.md, "The memory plan"). The kernel's speed differs several-fold by block type: the int8
// dot-product paths (Q4_K … IQ4_XS) against the f32 decoders of the lattice and ternary types. In order:
//   1. a rate the user gave (MachineProfile::host_gbps, `ft inspect --plan --host-gbps`): the rate of Q4_K experts
//      on that PC, scaled to the model's types by the table below;
//   2. a stored `ft bench bw` profile of the model's own expert format: its measured B_C;
//   3. a profile of another format: its B_C converted through the table (rate / factor(its format) × factor(model));
//   4. none: 40 GB/s for Q4_K, scaled by the table.
// Pure functions; no state.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ft/plan.h"
#include "ref/dtype.h"

namespace ft::memory {

struct ModelGeometry;

// The default B_C when nothing is measured or given: Q4_K experts, GB/s.
inline constexpr double kDefaultQ4kCpuGbps = 40.0;

// The CPU expert kernel's bytes per second for type t relative to Q4_K's (1.0), from `ft bench cpu-moe --threads 2`
// on the dev machine (docs/benchmarks.md, "The CPU expert kernel's rate by type"). Types the table does not list
// (those the executor does not read) give 1.
double cpu_rate_factor(kernels::DType t);
// Of a pool of several types (gate/up/down or layers in different types): bytes over the time they take,
// Σ bytes / Σ (bytes / factor), relative to Q4_K. 1 for an empty list.
double cpu_rate_factor(std::span<const std::pair<kernels::DType, std::uint64_t>> bytes_by_type);
// Of an expert format key ("q4_K", "q4_K/q4_K/q6_K": gate/up/down, each a third); 0 when a name is not a type.
double cpu_rate_factor(std::string_view format);

struct CpuExpertRate {
    double gbps = 0;
    // "given" (--host-gbps), "profile" (measured for this format), "scaled" (another format's profile through the
    // table), "default" (40 GB/s for Q4_K through the table)
    std::string source;
    std::string profile_format;  // the profile used ("profile", "scaled")
    double factor = 1;           // the model's types relative to Q4_K
};
CpuExpertRate cpu_expert_rate(const ModelGeometry& g, const MachineProfile& pc);

}  // namespace ft::memory
