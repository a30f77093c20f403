#include "memory/cpu_rate.h"

#include <algorithm>
#include <optional>

#include "memory/planner.h"
#include "model/model_desc.h"

namespace ft::memory {

using kernels::DType;

namespace {

// Bytes per second relative to Q4_K, each type's `ft bench cpu-moe` experts-alone figure over Q4_K's in the same
// round (docs/benchmarks.md, "The CPU expert kernel's rate by type" and, for the int8 paths of Q4_0, TQ1_0, TQ2_0
// and the IQ2/IQ3/IQ1 types, "The CPU expert kernel per type", say how and where they were measured). F16 and F32
// take BF16's; IQ1_S and IQ1_M, measured in rounds without Q4_K, their GB/s over that table's Q4_K median; FT_FP8
// (Hugging Face FP8 checkpoints, f32 decoders) and FT_NVFP4 (NVFP4, its int8 path): "The CPU expert kernel on FP8
// and NVFP4".
// IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, IQ1_S and IQ1_M: that table's factor times the kernel's speed-up in
// "The IQ kernels' inner loops" (compute-bound types: the kernel's time per block sets their rate).
struct RateRow {
    DType type;
    double factor;
};
constexpr RateRow kRates[] = {
    {DType::Q4_K, 1.00},    {DType::Q5_K, 1.02},    {DType::Q6_K, 1.05},    {DType::Q8_0, 1.37},   {DType::MXFP4, 1.09},
    {DType::BF16, 1.43},    {DType::F16, 1.43},     {DType::F32, 1.43},     {DType::Q2_K, 0.80},   {DType::Q3_K, 0.78},
    {DType::IQ4_XS, 1.04},  {DType::Q4_0, 0.84},    {DType::Q4_1, 0.78},    {DType::Q5_0, 0.81},   {DType::Q5_1, 0.76},
    {DType::IQ4_NL, 0.75},  {DType::TQ1_0, 0.32},   {DType::TQ2_0, 0.70},   {DType::IQ2_XXS, 0.40},
    {DType::IQ2_XS, 0.56},  {DType::IQ2_S, 0.45},   {DType::IQ1_S, 0.26},   {DType::IQ1_M, 0.24},  {DType::IQ3_XXS, 0.46},
    {DType::IQ3_S, 0.31},   {DType::FT_FP8, 0.46},  {DType::FT_NVFP4, 0.82},
};

void add_bytes(std::vector<std::pair<DType, std::uint64_t>>& v, DType t, std::uint64_t b) {
    for (auto& [type, bytes] : v)
        if (type == t) {
            bytes += b;
            return;
        }
    v.emplace_back(t, b);
}

std::string format_key(DType gate, DType up, DType down) {
    const std::string g(kernels::dtype_info(gate).name), u(kernels::dtype_info(up).name), d(kernels::dtype_info(down).name);
    return g == u && u == d ? g : g + "/" + u + "/" + d;
}

}  // namespace

void set_expert_types(ModelGeometry& g, const model::ModelDesc& d, std::span<const model::TensorStat> tensors) {
    g.expert_bytes_by_type.clear();
    g.expert_format.clear();
    int first = -1;
    for (const auto& t : tensors) {
        const int il = model::tensor_layer(t.name);
        if (il >= int(d.n_layer) || model::classify_tensor(t.name) != model::TensorClass::routed_expert) continue;
        add_bytes(g.expert_bytes_by_type, t.type, t.n_bytes);
        if (t.dims.size() >= 2 && il >= 0 && (first < 0 || il < first)) first = il;
    }
    // The profile's key: the first MoE layer's gate / up / down matrices (a fused gate_up is both), by name.
    std::optional<DType> gate, up, down;
    for (const auto& t : tensors) {
        if (first < 0 || model::tensor_layer(t.name) != first || t.dims.size() < 2 ||
            model::classify_tensor(t.name) != model::TensorClass::routed_expert)
            continue;
        if (t.name.find("gate_up") != std::string::npos) gate = up = t.type;
        else if (t.name.find("gate") != std::string::npos) gate = t.type;
        else if (t.name.find("up") != std::string::npos) up = t.type;
        else if (t.name.find("down") != std::string::npos) down = t.type;
    }
    if (gate && up && down) g.expert_format = format_key(*gate, *up, *down);
}

double cpu_rate_factor(DType t) {
    for (const RateRow& r : kRates)
        if (r.type == t) return r.factor;
    return 1.0;
}

double cpu_rate_factor(std::span<const std::pair<DType, std::uint64_t>> bytes_by_type) {
    double bytes = 0, time = 0;
    for (const auto& [t, b] : bytes_by_type) bytes += double(b), time += double(b) / cpu_rate_factor(t);
    return time > 0 ? bytes / time : 1.0;
}

double cpu_rate_factor(std::string_view format) {
    std::vector<std::pair<DType, std::uint64_t>> parts;
    while (!format.empty()) {
        const std::size_t slash = format.find('/');
        const auto t = kernels::dtype_from_name(format.substr(0, slash));
        if (!t) return 0;
        parts.emplace_back(*t, 1);
        format = slash == std::string_view::npos ? std::string_view() : format.substr(slash + 1);
    }
    return parts.empty() ? 0 : cpu_rate_factor(parts);
}

CpuExpertRate cpu_expert_rate(const ModelGeometry& g, const MachineProfile& pc) {
    CpuExpertRate r;
    r.factor = cpu_rate_factor(g.expert_bytes_by_type);
    if (pc.host_gbps > 0) {
        r.gbps = pc.host_gbps * r.factor;
        r.source = "given";
        return r;
    }
    // The profiles come newest first; one of this very format wins over any other.
    for (const CpuRate& p : pc.cpu_rates)
        if (!g.expert_format.empty() && p.format == g.expert_format && p.gbps > 0) {
            r.gbps = p.gbps;
            r.source = "profile";
            r.profile_format = p.format;
            return r;
        }
    for (const CpuRate& p : pc.cpu_rates) {
        const double f = cpu_rate_factor(p.format);
        if (p.gbps <= 0 || f <= 0) continue;
        r.gbps = p.gbps / f * r.factor;
        r.source = "scaled";
        r.profile_format = p.format;
        return r;
    }
    r.gbps = kDefaultQ4kCpuGbps * r.factor;
    r.source = "default";
    return r;
}

}  // namespace ft::memory
