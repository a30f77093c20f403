// Tensor element types, numbered exactly as GGUF/ggml numbers them (the GGUF tensor-info type field), with their
// block geometry. Pure data: shared by the file readers, the CPU and CUDA kernels and their references.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ft::kernels {

enum class DType : std::uint32_t {
    F32 = 0, F16 = 1, Q4_0 = 2, Q4_1 = 3, Q5_0 = 6, Q5_1 = 7, Q8_0 = 8, Q8_1 = 9,
    Q2_K = 10, Q3_K = 11, Q4_K = 12, Q5_K = 13, Q6_K = 14, Q8_K = 15,
    IQ2_XXS = 16, IQ2_XS = 17, IQ3_XXS = 18, IQ1_S = 19, IQ4_NL = 20, IQ3_S = 21, IQ2_S = 22, IQ4_XS = 23,
    I8 = 24, I16 = 25, I32 = 26, I64 = 27, F64 = 28, IQ1_M = 29, BF16 = 30,
    TQ1_0 = 34, TQ2_0 = 35, MXFP4 = 39,
    // Ours, not ggml's (no GGUF reader but ours knows them): the Hugging Face FP8 and NVFP4 checkpoints' weights,
    // repacked row by row with their scales (ref/quant.h has the layouts). Ids far above ggml's so a future ggml type
    // cannot collide.
    FT_FP8 = 200, FT_NVFP4 = 201,
};

struct DTypeInfo {
    DType type;
    std::string_view name;     // ggml's lower-case name: "f32", "q4_K", "mxfp4"
    std::uint32_t block_elems; // elements per block (1 for plain types)
    std::uint32_t block_bytes; // bytes per block
    bool quantized;
};

// nullptr for an id that is not a known type (a reader turns that into a clear error naming the tensor).
const DTypeInfo* dtype_info(std::uint32_t id);
const DTypeInfo& dtype_info(DType t);
// Case-insensitive: "q4_k", "Q4_K", "bf16" …
std::optional<DType> dtype_from_name(std::string_view name);

// Bits per weight of the block layout (block bytes × 8 / block elements): 2.0625 for iq2_xxs, 4.5 for q4_K.
double dtype_bits_per_weight(DType t);

// Bytes of `n_elems` elements; nullopt when n_elems is not a whole number of blocks or the size overflows.
std::optional<std::uint64_t> dtype_bytes(DType t, std::uint64_t n_elems);

}  // namespace ft::kernels
