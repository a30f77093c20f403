// Typed field access for request bodies: each getter names the field ("messages[2].role") in the ApiError it throws.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "serve/api_request.h"

namespace ft::serve {

inline std::string field_name(const std::string& where, const std::string& key) {
    return where.empty() ? key : where + "." + key;
}

// The body must be a JSON object.
inline nlohmann::ordered_json parse_body(const std::string& text) {
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(text, nullptr, false);
    if (j.is_discarded()) throw bad_request("the request body is not valid JSON");
    if (!j.is_object()) throw bad_request("the request body must be a JSON object");
    return j;
}

// A required string (fallback unset) or an optional one.
inline std::string get_string(const nlohmann::ordered_json& o, const std::string& key, const std::string& where,
                              std::optional<std::string> fallback = std::nullopt) {
    const std::string name = field_name(where, key);
    if (!o.contains(key) || o[key].is_null()) {
        if (!fallback) throw bad_request("'" + name + "' is required", name);
        return *fallback;
    }
    if (!o[key].is_string()) throw bad_request("'" + name + "' must be a string", name);
    return o[key].get<std::string>();
}

inline bool get_bool(const nlohmann::ordered_json& o, const std::string& key, bool fallback) {
    if (!o.contains(key) || o[key].is_null()) return fallback;
    if (!o[key].is_boolean()) throw bad_request("'" + key + "' must be true or false", key);
    return o[key].get<bool>();
}

inline double get_number(const nlohmann::ordered_json& o, const std::string& key, double fallback, double lo, double hi) {
    if (!o.contains(key) || o[key].is_null()) return fallback;
    if (!o[key].is_number()) throw bad_request("'" + key + "' must be a number", key);
    const double v = o[key].get<double>();
    if (!(v >= lo && v <= hi)) {
        // "field_range" {field, range, value}: the key for translating clients (ApiError::message_key)
        const std::string range = "[" + nlohmann::json(lo).dump() + ", " + nlohmann::json(hi).dump() + "]";
        throw bad_request("'" + key + "' must be in " + range + ", not " + o[key].dump(), key).keyed("field_range", {key, range, o[key].dump()});
    }
    return v;
}

inline long long get_int(const nlohmann::ordered_json& o, const std::string& key, long long fallback, long long lo,
                         long long hi) {
    if (!o.contains(key) || o[key].is_null()) return fallback;
    if (!o[key].is_number_integer()) throw bad_request("'" + key + "' must be an integer", key);
    const long long v = o[key].get<long long>();
    if (v < lo || v > hi) {
        const std::string range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
        throw bad_request("'" + key + "' must be in " + range + ", not " + std::to_string(v), key)
            .keyed("field_range", {key, range, std::to_string(v)});
    }
    return v;
}

}  // namespace ft::serve
