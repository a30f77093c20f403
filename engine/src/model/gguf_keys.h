// Typed reads and writes of an architecture's GGUF keys (`<arch>.block_count`, …) in llama.cpp's names and value
// types, for the hyper-parameter readers and writers (gguf_desc.cpp handles the keys every architecture shares;
// each architecture's folder its own, through the same calls). Read errors name the file and the full key.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "format/gguf.h"
#include "model/model_desc.h"

namespace ft::model {

class GgufKeys {
public:
    GgufKeys(const gguf::Metadata& md, std::string arch) : md_(md), prefix_(std::move(arch) + ".") {}

    const gguf::Metadata& metadata() const { return md_; }
    const std::string& source() const { return md_.source(); }
    std::string key(std::string_view k) const { return prefix_ + std::string(k); }
    const gguf::Value* find(std::string_view k) const { return md_.find(key(k)); }

    // A count that llama.cpp allows to be a per-layer array: an array gives its largest element.
    std::optional<std::uint64_t> opt_count(std::string_view k) const;
    std::uint32_t req_u32(std::string_view k) const;
    std::uint32_t opt_u32(std::string_view k, std::uint32_t fallback) const;
    double opt_f64(std::string_view k, double fallback) const;
    double req_f64(std::string_view k) const { return md_.get_f64(key(k)); }
    std::optional<bool> opt_bool(std::string_view k) const { return md_.opt_bool(key(k)); }
    std::optional<std::string_view> opt_string(std::string_view k) const { return md_.opt_string(key(k)); }
    // One boolean per layer (attention.sliding_window_pattern, attention.recurrent_layers): the first n of a
    // boolean array of at least n; throws invalid_file naming the key otherwise.
    std::vector<bool> layer_flags(std::string_view k, std::uint32_t n) const;
    [[noreturn]] void bad(std::string_view k, const std::string& what) const;

private:
    std::uint32_t to_u32(std::string_view k, std::uint64_t v) const;
    const gguf::Metadata& md_;
    std::string prefix_;
};

// attention.sliding_window_pattern as llama.cpp reads it into d.attn.swa_layers: a period n (layer il uses the
// window when il % n < n - 1; n = 0: every layer; default 2, gpt-oss's alternation starting with a windowed
// layer) or one bool per layer.
void read_swa_pattern(const GgufKeys& k, ModelDesc& d);

class GgufKeyWriter {
public:
    GgufKeyWriter(gguf::Metadata& md, std::string arch) : md_(md), prefix_(std::move(arch) + ".") {}
    gguf::Metadata& metadata() { return md_; }
    std::string key(std::string_view k) const { return prefix_ + std::string(k); }
    void u32(std::string_view k, std::uint32_t v) { md_.set(key(k), gguf::Value::u32(v)); }
    void f32(std::string_view k, double v) { md_.set(key(k), gguf::Value::f32(static_cast<float>(v))); }
    void set(std::string_view k, gguf::Value v) { md_.set(key(k), std::move(v)); }
    void erase(std::string_view k) { md_.erase(key(k)); }

private:
    gguf::Metadata& md_;
    std::string prefix_;
};

}  // namespace ft::model
