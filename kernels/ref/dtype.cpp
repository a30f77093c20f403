#include "ref/dtype.h"

#include <array>
#include <cctype>

namespace ft::kernels {

namespace {
// Block sizes from the GGUF/ggml block layouts (QK_K = 256 super-blocks for the K-quants).
constexpr std::array<DTypeInfo, 35> kTypes{{
    {DType::F32, "f32", 1, 4, false},
    {DType::F16, "f16", 1, 2, false},
    {DType::Q4_0, "q4_0", 32, 18, true},
    {DType::Q4_1, "q4_1", 32, 20, true},
    {DType::Q5_0, "q5_0", 32, 22, true},
    {DType::Q5_1, "q5_1", 32, 24, true},
    {DType::Q8_0, "q8_0", 32, 34, true},
    {DType::Q8_1, "q8_1", 32, 36, true},
    {DType::Q2_K, "q2_K", 256, 84, true},
    {DType::Q3_K, "q3_K", 256, 110, true},
    {DType::Q4_K, "q4_K", 256, 144, true},
    {DType::Q5_K, "q5_K", 256, 176, true},
    {DType::Q6_K, "q6_K", 256, 210, true},
    {DType::Q8_K, "q8_K", 256, 292, true},
    {DType::IQ2_XXS, "iq2_xxs", 256, 66, true},
    {DType::IQ2_XS, "iq2_xs", 256, 74, true},
    {DType::IQ3_XXS, "iq3_xxs", 256, 98, true},
    {DType::IQ1_S, "iq1_s", 256, 50, true},
    {DType::IQ4_NL, "iq4_nl", 32, 18, true},
    {DType::IQ3_S, "iq3_s", 256, 110, true},
    {DType::IQ2_S, "iq2_s", 256, 82, true},
    {DType::IQ4_XS, "iq4_xs", 256, 136, true},
    {DType::I8, "i8", 1, 1, false},
    {DType::I16, "i16", 1, 2, false},
    {DType::I32, "i32", 1, 4, false},
    {DType::I64, "i64", 1, 8, false},
    {DType::F64, "f64", 1, 8, false},
    {DType::IQ1_M, "iq1_m", 256, 56, true},
    {DType::BF16, "bf16", 1, 2, false},
    {DType::TQ1_0, "tq1_0", 256, 54, true},
    {DType::TQ2_0, "tq2_0", 256, 66, true},
    {DType::MXFP4, "mxfp4", 32, 17, true},
    {DType::FT_FP8, "ft_fp8", 32, 36, true},
    {DType::FT_NVFP4, "ft_nvfp4", 64, 40, true},
    {DType::F32, "", 0, 0, false},  // sentinel, never returned
}};
}  // namespace

const DTypeInfo* dtype_info(std::uint32_t id) {
    for (const auto& t : kTypes)
        if (t.block_elems != 0 && static_cast<std::uint32_t>(t.type) == id) return &t;
    return nullptr;
}

const DTypeInfo& dtype_info(DType t) { return *dtype_info(static_cast<std::uint32_t>(t)); }

std::optional<DType> dtype_from_name(std::string_view name) {
    for (const auto& t : kTypes) {
        if (t.block_elems == 0 || t.name.size() != name.size()) continue;
        bool eq = true;
        for (size_t i = 0; i < name.size() && eq; ++i)
            eq = std::tolower(static_cast<unsigned char>(name[i])) == std::tolower(static_cast<unsigned char>(t.name[i]));
        if (eq) return t.type;
    }
    return std::nullopt;
}

double dtype_bits_per_weight(DType t) {
    const DTypeInfo& info = dtype_info(t);
    return 8.0 * info.block_bytes / info.block_elems;
}

std::optional<std::uint64_t> dtype_bytes(DType t, std::uint64_t n_elems) {
    const DTypeInfo& info = dtype_info(t);
    if (n_elems % info.block_elems != 0) return std::nullopt;
    const std::uint64_t blocks = n_elems / info.block_elems;
    if (blocks > UINT64_MAX / info.block_bytes) return std::nullopt;
    return blocks * info.block_bytes;
}

}  // namespace ft::kernels
