#include "model/hf_fields.h"

#include <cmath>
#include <limits>

#include "ft/error.h"

namespace ft::model {

using nlohmann::json;

std::uint32_t HfConfig::req_u32(const char* k) const {
    if (!has(k))
        throw Error(ErrorCode::not_found, source_ + ": missing field (" + k + ")",
                    "config.json lacks a hyper-parameter this architecture needs");
    return to_u32(k, j_[k]);
}

double HfConfig::req_f64(const char* k) const {
    if (!has(k)) throw Error(ErrorCode::not_found, source_ + ": missing field (" + k + ")");
    return to_f64(k, j_[k]);
}

bool HfConfig::opt_bool(const char* k, bool fallback) const {
    if (!has(k)) return fallback;
    if (!j_[k].is_boolean()) bad(k, "expected true or false");
    return j_[k].get<bool>();
}

std::vector<std::uint32_t> HfConfig::u32_list(const char* k) const {
    std::vector<std::uint32_t> out;
    if (j_.contains(k) && j_[k].is_array())
        for (const auto& v : j_[k]) out.push_back(to_u32(k, v));
    return out;
}

const json* HfConfig::object(const char* k) const { return j_.contains(k) && j_[k].is_object() ? &j_[k] : nullptr; }

const json* HfConfig::rope() const {
    if (const json* r = object("rope_scaling")) return r;
    return object("rope_parameters");
}

double HfConfig::partial_rotary_factor(double fallback) const {
    double partial = opt_f64("partial_rotary_factor", fallback);
    if (const json* r = rope(); r && r->contains("partial_rotary_factor"))
        partial = HfConfig(*r, source_).opt_f64("partial_rotary_factor", partial);
    if (!(partial > 0.0 && partial <= 1.0)) bad("partial_rotary_factor", "must be in (0, 1]");
    return partial;
}

void HfConfig::bad(const std::string& k, const std::string& what) const {
    throw Error(ErrorCode::invalid_file, source_ + ": " + what + " (" + k + ")");
}

std::uint32_t HfConfig::to_u32(const std::string& k, const json& v) const {
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > std::numeric_limits<std::uint32_t>::max())
        bad(k, "expected a non-negative integer, got " + v.dump());
    return v.get<std::uint32_t>();
}

double HfConfig::to_f64(const std::string& k, const json& v) const {
    if (!v.is_number()) bad(k, "expected a number, got " + v.dump());
    return v.get<double>();
}

void read_rope_scaling(const HfConfig& rf, RopeDesc& r) {
    const json& rs = rf.raw();
    std::string type = rs.contains("rope_type") && rs["rope_type"].is_string() ? rs["rope_type"].get<std::string>()
                       : rs.contains("type") && rs["type"].is_string()       ? rs["type"].get<std::string>()
                                                                             : "";
    if (type == "yarn") r.scaling = RopeScaling::yarn;
    else if (type == "linear") r.scaling = RopeScaling::linear;
    else if (type == "default" || type.empty()) r.scaling = RopeScaling::none;
    else rf.bad("rope_scaling.type", "unsupported rope scaling \"" + type + "\"");
    r.factor = rf.opt_f64("factor", 1.0);
    r.original_context = rf.opt_u32("original_max_position_embeddings", 0);
    r.yarn_beta_fast = rf.opt_f64("beta_fast", 32.0);
    r.yarn_beta_slow = rf.opt_f64("beta_slow", 1.0);
    r.yarn_truncate = rf.opt_bool("truncate", true);
    if (rs.contains("mscale_all_dim") && rs["mscale_all_dim"].is_number())
        r.yarn_log_multiplier = 0.1 * rs["mscale_all_dim"].get<double>();
    // transformers: an explicit attention_factor replaces YaRN's 0.1·ln(factor) + 1 (attn_factor multiplies it).
    if (type == "yarn" && rf.has("attention_factor") && r.factor > 1.0)
        r.attn_factor = rf.req_f64("attention_factor") / (0.1 * std::log(r.factor) + 1.0);
}

}  // namespace ft::model
