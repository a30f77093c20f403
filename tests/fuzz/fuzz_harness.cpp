#include "fuzz_harness.h"

#include <algorithm>
#include <bit>
#include <span>
#include <vector>

#include "format/gguf.h"
#include "format/safetensors.h"
#include "ft/error.h"
#include "ref/quant.h"

namespace ft::fuzz {

namespace {

// Reads every byte of a view so that a view past the input is caught by ASan (and not optimized away).
std::uint64_t touch(std::span<const std::byte> bytes) {
    std::uint64_t sum = 0;
    for (std::byte b : bytes) sum = sum * 31 + static_cast<std::uint8_t>(b);
    return sum;
}

volatile std::uint64_t g_sink = 0;

void exercise(const gguf::Value& v, int depth) {
    (void)v.to_display(4, 16);
    auto attempt = [](auto&& f) {
        try {
            f();
        } catch (const Error&) {
        }
    };
    attempt([&] { g_sink = g_sink + v.as_u64(); });
    attempt([&] { g_sink = g_sink + static_cast<std::uint64_t>(v.as_i64()); });
    attempt([&] { g_sink = g_sink + std::bit_cast<std::uint64_t>(v.as_f64()); });
    attempt([&] { g_sink = g_sink + v.as_bool(); });
    attempt([&] { g_sink = g_sink + v.as_string().size(); });
    if (!v.is_array()) return;
    attempt([&] { for (auto s : v.as_strings()) g_sink = g_sink + s.size() + (s.empty() ? 0 : s.back()); });
    attempt([&] { g_sink = g_sink + touch(v.array_raw()); });
    attempt([&] { g_sink = g_sink + v.as_i32_array().size(); });
    attempt([&] { g_sink = g_sink + v.as_f32_array().size(); });
    attempt([&] { g_sink = g_sink + v.as_bool_array().size(); });
    attempt([&] { g_sink = g_sink + v.as_u64_array().size(); });
    if (v.array_size() > 0) {
        (void)v.element(0);
        (void)v.element(v.array_size() - 1);
    }
    attempt([&] {
        for (const auto& sub : v.as_arrays()) exercise(sub, depth + 1);
    });
    (void)(v == v);
}

}  // namespace

int gguf_one_input(const std::uint8_t* data, std::size_t size) {
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
    try {
        const gguf::Reader r = gguf::Reader::parse(bytes, "fuzz.gguf");
        for (const auto& kv : r.metadata().entries()) {
            exercise(kv.value, 0);
            if (r.find(kv.key) == nullptr) __builtin_trap();
        }
        for (const auto& t : r.tensors()) {
            const auto view = r.tensor_data(t);
            if (view.size() != t.n_bytes) __builtin_trap();
            g_sink = g_sink + touch(view.first(std::min<std::size_t>(view.size(), 64)));
            if (!view.empty()) g_sink = g_sink + static_cast<std::uint8_t>(view.back());
            if (&r.tensor(t.name) != &t) __builtin_trap();
            // The block decoders on whatever bytes the input holds: the first row of each (small) quantized tensor.
            if (ft::kernels::ref::dequant_supported(t.type) && t.n_elements > 0 && t.dims[0] <= 4096) {
                std::vector<float> row(static_cast<std::size_t>(t.dims[0]));
                if (!ft::kernels::ref::dequantize_row(t.type, view.data(), row.data(), std::int64_t(t.dims[0])))
                    __builtin_trap();  // the reader accepted the row length: whole blocks of a known type
                g_sink = g_sink + std::bit_cast<std::uint32_t>(row.back());
            }
        }
        return 1;
    } catch (const Error&) {
        return 0;
    }
}

int safetensors_one_input(const std::uint8_t* data, std::size_t size) {
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
    try {
        const safetensors::File f = safetensors::File::parse(bytes, "fuzz.safetensors");
        for (const auto& t : f.tensors()) {
            const auto view = f.data(t);
            if (view.size() != t.n_bytes()) __builtin_trap();
            g_sink = g_sink + touch(view.first(std::min<std::size_t>(view.size(), 64)));
            if (!view.empty()) g_sink = g_sink + static_cast<std::uint8_t>(view.back());
            if (f.find(t.name) != &t) __builtin_trap();
            (void)safetensors::dtype_name(t.dtype);
        }
        for (const auto& [k, v] : f.metadata()) g_sink = g_sink + k.size() + v.size();
        return 1;
    } catch (const Error&) {
        return 0;
    }
}

}  // namespace ft::fuzz
