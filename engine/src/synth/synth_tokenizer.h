// The tokenizer a synthetic model embeds, fitted to the model's vocabulary size. A byte-level BPE tokenizer larger
// than the embedding (the bundled Qwen3 tokenizer, 151669 tokens, for GLM-4.5's 151552 rows) is cut: the first BPE
// tokens (the 256 byte symbols, then the merges in rank order — ids 256.. in these vocabularies) are kept and the
// added tokens renumbered right after them, as scripts/golden/cut_tokenizer.py does. A tokenizer that fits is used
// as it is. The model config returned names the bos/eos ids ("<|endoftext|>", "<|im_end|>") in the fitted numbering.
//
// Errors: ft::Error naming the file (not_found, invalid_file) or unsupported for a vocabulary that cannot be cut
// that way (merges not producing consecutive ids). Threading: reentrant.
#pragma once

#include <cstdint>
#include <filesystem>

#include <nlohmann/json.hpp>

namespace ft::synth {

struct FittedTokenizer {
    std::filesystem::path dir;   // holds tokenizer.json (+ tokenizer_config.json when the source had one)
    nlohmann::json model_config;  // {"bos_token_id": …, "eos_token_id": …} in the fitted numbering
    bool cut = false;             // whether a cut copy was written into work_dir
};

// work_dir: where a cut copy goes (created if needed; the caller removes it).
FittedTokenizer synth_fit_tokenizer(const std::filesystem::path& src_dir, std::uint32_t n_vocab,
                                    const std::filesystem::path& work_dir);

}  // namespace ft::synth
