// Test helpers for the format tests: a raw little-endian byte builder (to hand-craft valid and malformed GGUF
// files) and an "expect ft::Error" check.
#pragma once

#include <QTest>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ft/error.h"

namespace ft::test {

struct Bytes {
    std::vector<std::byte> b;

    Bytes& raw(const void* p, std::size_t n) {
        const auto* c = static_cast<const std::byte*>(p);
        b.insert(b.end(), c, c + n);
        return *this;
    }
    Bytes& u8(std::uint8_t v) { return raw(&v, 1); }
    Bytes& u32(std::uint32_t v) { return raw(&v, 4); }
    Bytes& u64(std::uint64_t v) { return raw(&v, 8); }
    Bytes& f32(float v) { return raw(&v, 4); }
    Bytes& str(std::string_view s) { return u64(s.size()).raw(s.data(), s.size()); }
    Bytes& pad(std::size_t alignment) {
        while (b.size() % alignment) b.push_back(std::byte{0});
        return *this;
    }
    Bytes& zeros(std::size_t n) {
        b.insert(b.end(), n, std::byte{0});
        return *this;
    }
    // GGUF header: magic, version, tensor count, KV count.
    Bytes& header(std::uint32_t version, std::uint64_t n_tensors, std::uint64_t n_kv) {
        return raw("GGUF", 4).u32(version).u64(n_tensors).u64(n_kv);
    }
    Bytes& kv_u32(std::string_view key, std::uint32_t v) { return str(key).u32(4).u32(v); }
    Bytes& kv_str(std::string_view key, std::string_view v) { return str(key).u32(8).str(v); }
    Bytes& tensor_info(std::string_view name, std::vector<std::uint64_t> dims, std::uint32_t type, std::uint64_t offset) {
        str(name).u32(static_cast<std::uint32_t>(dims.size()));
        for (auto d : dims) u64(d);
        return u32(type).u64(offset);
    }
    std::span<const std::byte> span() const { return b; }
    std::size_t size() const { return b.size(); }
};

inline std::vector<std::byte> read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<char> c((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::byte> out(c.size());
    if (!c.empty()) std::memcpy(out.data(), c.data(), c.size());
    return out;
}

inline void write_file(const std::string& path, std::span<const std::byte> bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// Empty string when `f` throws ft::Error of `code` whose what() contains `fragment`; else a description.
inline std::string error_mismatch(const std::function<void()>& f, ErrorCode code, std::string_view fragment) {
    try {
        f();
    } catch (const Error& e) {
        const std::string what = e.what();
        if (e.code() != code)
            return "wrong code " + std::string(error_code_name(e.code())) + ": " + what;
        if (what.find(fragment) == std::string::npos)
            return "message lacks '" + std::string(fragment) + "': " + what;
        return {};
    } catch (const std::exception& e) {
        return std::string("not an ft::Error: ") + e.what();
    }
    return "no error thrown";
}

}  // namespace ft::test

#define FT_EXPECT_ERROR(expr, code, fragment)                                                          \
    do {                                                                                              \
        const std::string ft_mismatch_ = ft::test::error_mismatch([&] { (void)(expr); }, code, fragment); \
        QVERIFY2(ft_mismatch_.empty(), ft_mismatch_.c_str());                                         \
    } while (0)
