// `ft inspect`: everything we can tell about a model file or folder without loading weights, as JSON.
//
// GGUF: header, architecture and hyper-parameters (the normalized description when the architecture is supported,
// the raw `<arch>.*` keys always), tensor table, block types (`types`: tensors, bytes, elements and bits per weight of
// each), parameter counts, expert pool / non-expert bytes, tokenizer summary.
// A vocab-only file (no tensors) or an architecture we do not run still inspects: `description_error` says why
// there is no description. Hugging Face folder: config.json description, safetensors tensors, tokenizer files.
//
// Errors: ft::Error for an unreadable or malformed file (the GGUF/safetensors readers' errors).
#pragma once

#include <filesystem>

#include <nlohmann/json.hpp>

namespace ft::model {

nlohmann::json inspect_path(const std::filesystem::path& path);

// Human-readable rendering of inspect_path()'s JSON.
std::string inspect_text(const nlohmann::json& report);

}  // namespace ft::model
