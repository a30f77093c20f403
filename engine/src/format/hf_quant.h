// Quantized Linear weights of Hugging Face checkpoints, found beside their scales and repacked row by row into the
// engine's self-contained block types (ref/quant.h: DType::FT_FP8, FT_NVFP4). Used by the loader (model/weights.cpp)
// and `ft convert` (model/convert_hf.cpp). What is read:
//   FP8, block-scaled (DeepSeek-V3/R1, Qwen3 "-FP8", GLM "-FP8"; config.json quantization_config {quant_method "fp8",
//     fmt "e4m3", weight_block_size [bn, bk]}): "<p>.weight" F8_E4M3 [.., N, K] and "<p>.weight_scale_inv" F32
//     [.., ceil(N/bn), ceil(K/bk)]; element (r, c) = w · scale_inv[r / bn][c / bk] (the last block of a row or column
//     may be partial). Also F8_E4M3 with a "<p>.weight_scale" F32 of one value per tensor or per row (per-tensor and
//     per-channel FP8), the same product.
//   NVFP4, NVIDIA ModelOpt export (hf_quant_config.json / quantization_config quant_algo "NVFP4", group 16):
//     "<p>.weight" U8 [.., N, K/2] (two E2M1 codes per byte, even element in the low nibble), "<p>.weight_scale"
//     F8_E4M3 [.., N, K/16], "<p>.weight_scale_2" F32 (one value); element = e2m1 · (e4m3(weight_scale) · scale_2).
//   NVFP4, compressed-tensors "nvfp4-pack-quantized" (llm-compressor's exports, quant_method "compressed-tensors"):
//     "<p>.weight_packed" U8 [.., N, K/2] packed as ModelOpt's, "<p>.weight_scale" F8_E4M3 [.., N, K/16],
//     "<p>.weight_global_scale" F32 (one value) that divides: element = e2m1 · (e4m3(weight_scale) / global). Kept
//     as FT_NVFP4 with the f32 reciprocal of global as its second-level scale, as vLLM's weight-only (Marlin) path
//     keeps it: one rounding more than the division, within 2^-22 relative of it.
//   "<p>.input_scale" (ModelOpt; FP8 "static") and "<p>.input_global_scale" (compressed-tensors) are the scales that
//   quantize activations on GPUs with FP4 / FP8 matrix units; the engine multiplies f32 activations by the weights
//   ("weight-only"), so they are not used (inspect lists them with the scales).
// Tensors a checkpoint leaves unquantized (its modules_to_not_convert / ignore / exclude_modules lists: embeddings,
// LM head, norms, routers) are stored as BF16 and read as before; nothing here reads those lists.
// Errors: ft::Error(invalid_file) naming the tensor for scales that are missing or whose shape or type does not match
// the weight; unsupported for a layout the engine types cannot hold (a row length that is not a multiple of 32 for
// FP8 or 64 for NVFP4, an FP8 block width that is not a multiple of 32, compressed-tensors' integer packings). Each
// carries a message key for translating front ends (ft/message.h): hf_quant_scale_missing {file, weight, scale},
// hf_quant_scale_shape {file, scale, shape, expected}, hf_quant_scale_type {file, scale, type and shape, expected},
// hf_quant_not_matrix {file, weight, shape}, hf_quant_row_length {file, weight, format, row length, block},
// hf_quant_fp8_block {file, weight, block columns}, hf_quant_layout {file, weight, layout},
// hf_quant_block_size {file, value} (read_quant_config), hf_quant_config {file}.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "format/safetensors.h"
#include "ref/dtype.h"

namespace ft::safetensors {

// What config.json's quantization_config (or hf_quant_config.json) says; defaults when absent.
struct QuantConfig {
    std::string method;                   // "fp8", "modelopt", "compressed-tensors", … ("" when none)
    std::uint32_t fp8_block_rows = 128;   // weight_block_size
    std::uint32_t fp8_block_cols = 128;
    bool fp8_block_given = false;
};
// Throws invalid_file (keys hf_quant_config, hf_quant_block_size) for a quantization_config that is not an object or
// has a bad weight_block_size.
QuantConfig read_quant_config(const std::filesystem::path& dir);

struct QuantizedTensor {
    kernels::DType type = kernels::DType::FT_FP8;  // FT_FP8 or FT_NVFP4
    std::string name;                              // the weight's name, as stored ("….weight", "….weight_packed")
    std::string base;                              // the Linear's name: `name` less ".weight" / ".weight_packed"
    const Checkpoint::Entry* weight = nullptr;
    const Checkpoint::Entry* scale = nullptr;      // FP8: F32 block scales; NVFP4: F8_E4M3 group scales
    const Checkpoint::Entry* scale2 = nullptr;     // NVFP4: F32 second-level scale (weight_scale_2 / weight_global_scale)
    bool scale2_divides = false;                   // compressed-tensors: weight_global_scale divides
    std::vector<std::uint64_t> shape;              // elements, PyTorch order [.., N, K]
    std::uint64_t block_rows = 0, block_cols = 0;  // FP8: the rows × columns one scale covers
    std::uint64_t cols() const { return shape.back(); }
    std::uint64_t rows() const;                    // product of all dims but the last
};

// The quantized form of `weight_name` ("….weight"); nullopt when the checkpoint stores it plainly or not at all.
std::optional<QuantizedTensor> find_quantized(const Checkpoint& ck, const std::string& weight_name, const QuantConfig& qc);

// Rows [r0, r1) of the tensor as [rows, cols] in q.type: dst holds (r1 - r0) · dtype_bytes(q.type, cols) bytes.
void repack_rows(const QuantizedTensor& q, std::uint64_t r0, std::uint64_t r1, std::byte* dst);

}  // namespace ft::safetensors
