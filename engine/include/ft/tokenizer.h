// ft::Tokenizer — text ⇄ token ids, conformant with the Hugging Face tokenizers the models were trained with.
//
// Sources: a GGUF file (its `tokenizer.ggml.*` metadata; vocab-only files included), a Hugging Face folder
// (tokenizer.json + tokenizer_config.json) or a bare tokenizer.json. Supported models:
//   * byte-level BPE (GGUF `gpt2`, HF `BPE` with a ByteLevel pre-tokenizer): the family's pre-tokenizer split
//     (PCRE2 regexes, chosen from `tokenizer.ggml.pre` for GGUF), then merges by rank;
//   * SentencePiece-style BPE (GGUF `llama`, HF `BPE` with Metaspace/▁ normalizer and byte_fallback): ▁ for
//     spaces, merges by score (GGUF) or rank (HF), <0xXX> byte fallback for characters not in the vocabulary;
//   * BERT WordPiece (GGUF `bert`): BertNormalizer (lowercase, strip accents, isolate CJK), split on whitespace
//     and punctuation, greedy longest-match pieces, [UNK] for a word that cannot be covered.
// HF tokenizer.json support: model BPE (merges as "a b" or ["a","b"], ignore_merges, byte_fallback, unk_token),
// normalizers NFC / Prepend / Replace(String) / Sequence, pre-tokenizers Split (Isolated, Removed) / ByteLevel /
// Digits / Sequence, added tokens with lstrip/rstrip. Anything else is an `unsupported` error naming the field.
// Added/special tokens are matched in the text before pre-tokenization (longest match first): tokens of kind
// `user_defined` always, `control` tokens only when EncodeOptions::parse_special is set.
//
// Threading: a Tokenizer is immutable after loading; encode/decode may be called from any number of threads at
// once. Copies are cheap (shared state). A StreamDecoder belongs to one thread.
// Errors: loading throws ft::Error — not_found (no such file / no tokenizer in the folder), invalid_file
// (malformed JSON/GGUF, inconsistent vocabulary, naming the file and field), unsupported (a tokenizer model,
// normalizer, pre-tokenizer or GGUF `tokenizer.ggml.pre` this build does not implement). decode() throws
// invalid_argument for an id outside [0, vocab_size()).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ft {

// What a vocabulary entry is (the GGUF token_type values, in this order from 1).
enum class TokenKind : std::uint8_t {
    normal = 1,
    unknown = 2,       // <unk>
    control = 3,       // special tokens: <|im_start|>, <s>, … (HF added tokens with special=true)
    user_defined = 4,  // added tokens that are not special (HF special=false): always matched as a whole
    unused = 5,
    byte = 6,          // SentencePiece byte-fallback tokens <0x00>…<0xFF>
};

struct EncodeOptions {
    bool add_special = false;    // prepend BOS / append EOS where the tokenizer says so (add_bos()/add_eos())
    bool parse_special = false;  // match control tokens (<|im_start|>, …) written in the text
};

class Tokenizer {
public:
    // Loads from a GGUF file, an HF folder (tokenizer.json [+ tokenizer_config.json]) or a tokenizer.json file.
    static Tokenizer load(const std::filesystem::path& source);
    static Tokenizer from_gguf(const std::filesystem::path& gguf_file);
    // config may be empty (then no BOS/EOS names beyond what tokenizer.json implies).
    static Tokenizer from_hf(const std::filesystem::path& tokenizer_json,
                             const std::filesystem::path& tokenizer_config = {});

    // Text (UTF-8; invalid bytes are encoded like the bytes they are) → token ids.
    std::vector<std::int32_t> encode(std::string_view text, const EncodeOptions& options = {}) const;
    // Token ids → UTF-8 text. Control tokens are written as their text when render_special, else left out.
    // Byte sequences that are not valid UTF-8 come out as U+FFFD.
    std::string decode(std::span<const std::int32_t> ids, bool render_special = true) const;

    // The bytes a token stands for when decoded in the middle of a text (SentencePiece ▁ → space, byte-level
    // characters → bytes, <0xXX> → that byte; control tokens → their text). May be a partial UTF-8 sequence.
    std::string token_to_bytes(std::int32_t id) const;
    // The token's string as stored in the vocabulary ("Ġthe", "▁the", "<|im_start|>").
    std::string_view token_text(std::int32_t id) const;
    // The id of a vocabulary string (exact match on the stored form), or -1.
    std::int32_t find_token(std::string_view token_text) const;
    TokenKind token_kind(std::int32_t id) const;
    std::int32_t vocab_size() const;

    std::int32_t bos_id() const;  // -1 where the tokenizer has none
    std::int32_t eos_id() const;  // -1 where none; see also eog_ids()
    std::int32_t pad_id() const;
    std::int32_t unk_id() const;
    // Ids that end a generation: eos plus the usual end-of-turn tokens found in the vocabulary
    // (<|im_end|>, <|eot_id|>, <|eom_id|>, <|end|>, <|endoftext|>, <end_of_turn>, <|return|>, <|call|>).
    const std::vector<std::int32_t>& eog_ids() const;
    bool add_bos() const;
    bool add_eos() const;

    // "bpe" (byte-level), "spm" or "wpm"; the pre-tokenizer name ("qwen2", "llama-bpe", "hf" for a tokenizer.json …).
    std::string_view model_name() const;
    std::string_view pre_name() const;
    // The chat template shipped with the tokenizer (GGUF tokenizer.chat_template or tokenizer_config.json
    // chat_template), or empty.
    const std::string& chat_template() const;
    // Text of the BOS/EOS tokens ("" where none), as chat templates want them.
    std::string bos_text() const;
    std::string eos_text() const;

    struct Impl;
    explicit Tokenizer(std::shared_ptr<const Impl> impl);
    const Impl& impl() const { return *impl_; }

private:
    std::shared_ptr<const Impl> impl_;
};

// Incremental decoder for streaming generation: push() returns the text that is complete so far and never
// returns a partial UTF-8 sequence (bytes of an incomplete character wait for the next token). A sequence that
// cannot become valid is emitted as U+FFFD. finish() returns whatever is left (incomplete tail → U+FFFD).
// The concatenation of all push() results and finish() equals Tokenizer::decode() of the same ids.
class StreamDecoder {
public:
    explicit StreamDecoder(Tokenizer tokenizer, bool render_special = true);
    std::string push(std::int32_t id);
    std::string finish();
    void reset();

private:
    Tokenizer tokenizer_;
    bool render_special_;
    bool first_ = true;
    std::string pending_;  // bytes of an incomplete UTF-8 character
};

}  // namespace ft
