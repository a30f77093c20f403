// UTF-8 helpers, NFC normalization and the GPT-2 byte-level alphabet, for the tokenizer.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace ft::tok {

// Decodes one code point at s[i]; sets len to the bytes used (1 for an invalid byte, which decodes to 0xFFFD
// with cp_valid = false). i must be < s.size().
char32_t utf8_decode(std::string_view s, std::size_t i, std::size_t& len, bool& cp_valid);
// Length of the UTF-8 sequence starting with lead byte c (1 for continuation/invalid bytes).
std::size_t utf8_seq_len(unsigned char c);
void utf8_append(std::string& out, char32_t cp);
// Longest prefix of s made of whole sequences or bytes that can never start/continue a valid one: the tail that
// could still become a valid character (an incomplete sequence, at most 3 bytes) is excluded.
std::size_t utf8_complete_prefix(std::string_view s);
// Copies s replacing every invalid sequence by U+FFFD (valid text is returned unchanged).
std::string utf8_sanitize(std::string_view s);

// Canonical composition (Unicode NFC). Returns false and leaves out untouched when s is already NFC (the fast,
// common path); else writes the normalized text to out and returns true.
bool nfc_normalize(std::string_view s, std::string& out);

// Appends the full canonical decomposition of cp (NFD without the reordering step).
void nfd_append(char32_t cp, std::u32string& out);

// GPT-2 byte-level alphabet: every byte maps to one printable code point ('Ġ' for space, …).
struct ByteLevel {
    std::array<char32_t, 256> byte_to_cp{};
    std::array<std::string, 256> byte_to_utf8;  // the code point above, UTF-8 encoded
    // Inverse; -1 for code points that are not in the alphabet.
    int cp_to_byte(char32_t cp) const;
    static const ByteLevel& get();
};

}  // namespace ft::tok
