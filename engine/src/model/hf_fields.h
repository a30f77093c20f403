// Typed, named reads of a Hugging Face config.json for the hyper-parameter readers (hf_config.cpp reads the keys
// every architecture shares; each architecture's folder reads its own through the same calls). Every error names
// the file and the field: not_found for a missing required field, invalid_file for a value of the wrong type or
// range.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model_desc.h"

namespace ft::model {

class HfConfig {
public:
    // `j` and `source` must outlive the reader.
    HfConfig(const nlohmann::json& j, const std::string& source) : j_(j), source_(source) {}

    const nlohmann::json& raw() const { return j_; }
    const std::string& source() const { return source_; }

    bool has(const char* k) const { return j_.contains(k) && !j_[k].is_null(); }
    std::uint32_t req_u32(const char* k) const;
    std::uint32_t opt_u32(const char* k, std::uint32_t fallback) const { return has(k) ? to_u32(k, j_[k]) : fallback; }
    double req_f64(const char* k) const;
    double opt_f64(const char* k, double fallback) const { return has(k) ? to_f64(k, j_[k]) : fallback; }
    bool opt_bool(const char* k, bool fallback) const;
    // An array of non-negative integers (mlp_only_layers, mrope_section); empty when absent or not an array.
    std::vector<std::uint32_t> u32_list(const char* k) const;
    // A nested object (nullptr when absent or not an object).
    const nlohmann::json* object(const char* k) const;
    // The RoPE object: rope_scaling, or transformers 5's rope_parameters {rope_theta, rope_type, factor, …};
    // nullptr when neither is an object.
    const nlohmann::json* rope() const;
    // partial_rotary_factor, at the top level (the models' own configs) or inside the RoPE object (transformers
    // 5's), checked to lie in (0, 1].
    double partial_rotary_factor(double fallback) const;

    [[noreturn]] void bad(const std::string& k, const std::string& what) const;
    std::uint32_t to_u32(const std::string& k, const nlohmann::json& v) const;
    double to_f64(const std::string& k, const nlohmann::json& v) const;

private:
    const nlohmann::json& j_;
    const std::string& source_;
};

// The scaling part of a rope_scaling / rope_parameters object into r (type, factor, YaRN's parameters).
void read_rope_scaling(const HfConfig& rs, RopeDesc& r);

}  // namespace ft::model
