// Tokenizer metadata between Hugging Face files (tokenizer.json, tokenizer_config.json) and GGUF keys
// (tokenizer.ggml.*, tokenizer.chat_template), following llama.cpp's conventions so our files load there:
// model "gpt2" for byte-level BPE, tokens padded to the model's vocab size with "[PAD<id>]" (type unused), added
// tokens at their ids (special → control, others → user-defined), merges as "a b" strings.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "ft/sampling.h"

namespace ft::gguf {
class Metadata;
}

namespace ft::model {

// llama.cpp token types (tokenizer.ggml.token_type).
enum class TokenType : std::int32_t { normal = 1, unknown = 2, control = 3, user_defined = 4, unused = 5, byte = 6 };

struct HfTokenizerSource {
    std::filesystem::path tokenizer_json;    // required
    std::filesystem::path tokenizer_config;  // optional (empty: none); chat template, bos/eos/pad names
    std::filesystem::path chat_template_jinja;  // optional chat_template.jinja (newer HF folders), wins over config
};
// tokenizer.json in `dir` plus the optional files beside it.
HfTokenizerSource hf_tokenizer_source(const std::filesystem::path& dir);

// Adds the tokenizer keys to `md`. `vocab_size`: the model's embedding rows (tokens are padded up to it; 0 = no
// padding). `model_config`: config.json (bos_token_id / eos_token_id used when tokenizer_config names none), may be
// null. Throws ft::Error naming the file and field: not_found (missing file), invalid_file (bad JSON, a token id
// past vocab_size), unsupported (a non-BPE tokenizer model).
void hf_tokenizer_to_gguf(const HfTokenizerSource& src, std::uint32_t vocab_size, const nlohmann::json* model_config,
                          gguf::Metadata& md);

// The sampling a Hugging Face folder recommends (generation_config.json: temperature, top_k, top_p; do_sample false
// is greedy, temperature 0) as llama.cpp's GGUF keys general.sampling.temp / .top_k / .top_p. No file, no keys; a
// file that is not JSON or a field of the wrong type: ft::Error (invalid_file) naming the file and field.
void hf_sampling_to_gguf(const std::filesystem::path& dir, gguf::Metadata& md);
// Those keys read back (absent: nullopt); a value that is not a number or is out of range (temperature < 0, top_p
// outside (0, 1], top_k < 0) is ignored.
SamplingDefaults sampling_defaults(const gguf::Metadata& md);

struct TokenizerSummary {
    bool present = false;
    std::string model;  // "gpt2", "llama", "BPE", …
    std::string pre;    // tokenizer.ggml.pre (GGUF)
    std::uint64_t vocab_size = 0;
    std::uint64_t merges = 0;
    std::uint64_t added_tokens = 0;  // HF only
    std::optional<std::int64_t> bos, eos, pad;
    std::string bos_text, eos_text;
    std::optional<bool> add_bos;
    bool chat_template = false;
    std::uint64_t chat_template_chars = 0;
};
TokenizerSummary tokenizer_summary(const gguf::Metadata& md);
TokenizerSummary tokenizer_summary_hf(const std::filesystem::path& dir);
nlohmann::json tokenizer_summary_json(const TokenizerSummary& s);

}  // namespace ft::model
