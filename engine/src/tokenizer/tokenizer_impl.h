// Internal state of ft::Tokenizer, shared by the loaders (tokenizer_load_*.cpp), the models (tokenizer_bpe.cpp)
// and encode/decode (tokenizer.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ft/tokenizer.h"
#include "tokenizer/tokenizer_pretok.h"

namespace ft::tok {

struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
using TokenMap = std::unordered_map<std::string, std::int32_t, StringHash, std::equal_to<>>;

// Per-call memo of BPE results by pre-token (word → ids), so repeated words are merged once.
struct WordCache {
    std::unordered_map<std::string, std::pair<std::uint32_t, std::uint32_t>, StringHash, std::equal_to<>> index;
    std::vector<std::int32_t> ids;  // index values are (offset, count) into this
};

struct Merge {
    std::int32_t rank;
    std::int32_t result;
};

// Byte trie of the added/special token texts, for longest-match-first splitting.
struct AddedTrie {
    struct Node {
        std::vector<std::pair<unsigned char, std::int32_t>> next;  // sorted by byte
        std::int32_t token = -1;                                    // token ending here
    };
    std::vector<Node> nodes{Node{}};
    std::array<bool, 256> first{};
    void insert(std::string_view text, std::int32_t id);
    std::int32_t child(std::int32_t node, unsigned char c) const;
};

struct Normalizer {
    bool nfc = false;
    std::string prepend;                                       // HF Prepend("▁")
    std::vector<std::pair<std::string, std::string>> replace;  // HF Replace(String → String), in order
    bool empty() const { return !nfc && prepend.empty() && replace.empty(); }
};

}  // namespace ft::tok

namespace ft {

struct Tokenizer::Impl {
    enum class Model { bpe_ranks, spm_scores, wpm };
    Model model = Model::bpe_ranks;
    std::string model_name = "bpe";  // "bpe" or "spm"
    std::string pre_name;

    std::vector<std::string> tokens;
    std::vector<TokenKind> kinds;
    std::vector<float> scores;
    tok::TokenMap token_ids;
    std::unordered_map<std::uint64_t, tok::Merge> merges;  // (left << 32 | right) → rank, result

    bool byte_level = true;       // symbols are bytes in the GPT-2 alphabet; else UTF-8 characters
    bool byte_fallback = false;   // unknown characters → <0xXX> tokens
    bool ignore_merges = false;   // a word found whole in the vocabulary is one token
    std::array<std::int32_t, 256> byte_ids{};  // byte-level: token of each byte; fallback: <0xXX>; -1 none
    std::int32_t unk = -1;

    tok::Normalizer normalizer;
    std::vector<tok::PreStep> pre;

    tok::AddedTrie added;
    bool has_added = false;
    // HF added tokens with lstrip/rstrip: the match swallows the whitespace before/after it.
    std::unordered_map<std::int32_t, std::uint8_t> added_strip;  // bit 0: lstrip, bit 1: rstrip

    std::int32_t bos = -1, eos = -1, pad = -1;
    bool add_bos = false, add_eos = false;
    std::vector<std::int32_t> eog;
    std::string chat_template;

    // Decoding
    std::vector<std::string> piece;   // bytes each token decodes to
    bool strip_leading_space = false; // SentencePiece: the prefix space of the first token is dropped

    // Fills piece, eog and validates; call once at the end of loading.
    void finalize(const std::string& source);
    // Encodes a text with no added tokens in it.
    void encode_text(std::string_view text, std::vector<std::int32_t>& out, tok::MatchScratch& scratch,
                     tok::WordCache* cache) const;
    // BPE of one pre-token (raw bytes of the normalized text).
    void bpe_word(std::string_view word, std::vector<std::int32_t>& out) const;
    void spm_word(std::string_view word, std::vector<std::int32_t>& out) const;
    // BERT WordPiece (GGUF form: word-initial pieces carry a ▁ prefix, continuations are bare).
    void wpm_text(std::string_view text, std::vector<std::int32_t>& out) const;
    std::int32_t id_of(std::string_view text) const {
        auto it = token_ids.find(text);
        return it == token_ids.end() ? -1 : it->second;
    }
};

}  // namespace ft
