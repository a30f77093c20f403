#include "model/gguf_keys.h"

#include <algorithm>
#include <limits>

#include "ft/error.h"

namespace ft::model {

std::optional<std::uint64_t> GgufKeys::opt_count(std::string_view k) const {
    const std::string full = key(k);
    const gguf::Value* v = md_.find(full);
    if (!v) return std::nullopt;
    if (v->is_array()) {
        const auto items = v->as_u64_array({md_.source(), full});
        if (items.empty()) return std::nullopt;
        return *std::max_element(items.begin(), items.end());
    }
    return v->as_u64({md_.source(), full});
}

std::uint32_t GgufKeys::req_u32(std::string_view k) const {
    const auto v = opt_count(k);
    if (!v)
        throw Error(ErrorCode::not_found, md_.source() + ": missing key (" + key(k) + ")",
                    "the file lacks a hyper-parameter this architecture needs; re-convert it with a current converter");
    return to_u32(k, *v);
}

std::uint32_t GgufKeys::opt_u32(std::string_view k, std::uint32_t fallback) const {
    const auto v = opt_count(k);
    return v ? to_u32(k, *v) : fallback;
}

double GgufKeys::opt_f64(std::string_view k, double fallback) const {
    const auto v = md_.opt_f64(key(k));
    return v ? *v : fallback;
}

std::vector<bool> GgufKeys::layer_flags(std::string_view k, std::uint32_t n) const {
    const std::string full = key(k);
    const gguf::Value* v = md_.find(full);
    if (!v || !v->is_array() || v->array_type() != gguf::ValueType::boolean || v->array_size() < n)
        throw Error(ErrorCode::invalid_file, md_.source() + ": expected " + std::to_string(n) + " booleans (" + full + ")");
    const auto raw = v->array_raw({md_.source(), full});
    std::vector<bool> out(n);
    for (std::uint32_t il = 0; il < n; ++il) out[il] = raw[il] != std::byte{0};
    return out;
}

void GgufKeys::bad(std::string_view k, const std::string& what) const {
    throw Error(ErrorCode::invalid_file, md_.source() + ": " + what + " (" + key(k) + ")");
}

std::uint32_t GgufKeys::to_u32(std::string_view k, std::uint64_t v) const {
    if (v > std::numeric_limits<std::uint32_t>::max())
        throw Error(ErrorCode::invalid_file, md_.source() + ": value " + std::to_string(v) + " too large (" + key(k) + ")");
    return static_cast<std::uint32_t>(v);
}

void read_swa_pattern(const GgufKeys& k, ModelDesc& d) {
    auto& swa = d.attn.swa_layers;
    swa.assign(d.n_layer, false);
    const std::string key = k.key("attention.sliding_window_pattern");
    const gguf::Value* v = k.find("attention.sliding_window_pattern");
    if (v && v->is_array()) {
        if (v->array_type() != gguf::ValueType::boolean || v->array_size() < d.n_layer)
            throw Error(ErrorCode::invalid_file, k.source() + ": expected " + std::to_string(d.n_layer) +
                                                     " booleans or one period (" + key + ")");
        swa = k.layer_flags("attention.sliding_window_pattern", d.n_layer);
        return;
    }
    const std::uint64_t n = v ? v->as_u64({k.source(), key}) : 2;
    for (std::uint32_t il = 0; il < d.n_layer; ++il) swa[il] = n == 0 || il % n < n - 1;
}

}  // namespace ft::model
