// Pre-tokenization: splitting text into words with the regexes of each model family (PCRE2, UTF + UCP, JIT).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ft::tok {

// A byte range [begin, end) of the text being tokenized.
struct Span {
    std::uint32_t begin = 0, end = 0;
};

// Per-call scratch for PCRE2 matching (match data, JIT stack); one per thread of work, never shared.
class MatchScratch {
public:
    MatchScratch();
    ~MatchScratch();
    MatchScratch(const MatchScratch&) = delete;
    MatchScratch& operator=(const MatchScratch&) = delete;
    struct State;
    State& state() { return *state_; }

private:
    std::unique_ptr<State> state_;
};

// One compiled pattern written in the Oniguruma dialect the Hugging Face tokenizers use (\s means Unicode
// White_Space, as Oniguruma has it; PCRE2's own \s differs on U+180E).
class Regex {
public:
    // Throws ft::Error(invalid_file) naming `where` when the pattern does not compile.
    Regex(std::string_view pattern, std::string_view where);
    ~Regex();
    Regex(const Regex&) = delete;
    Regex& operator=(const Regex&) = delete;
    // Leftmost match in subject[from, end) that starts at or after `from`; false when none.
    // subject must be valid UTF-8.
    bool find(std::string_view subject, std::size_t from, std::size_t& mbegin, std::size_t& mend,
              MatchScratch& scratch) const;

private:
    void* code_ = nullptr;  // pcre2_code_8
    bool jit_ = false;
};

// Rewrites Oniguruma-only escapes (\s, \S) into PCRE2 classes with Oniguruma's meaning; exposed for tests.
std::string onig_to_pcre2(std::string_view pattern);

// One step of a pre-tokenizer sequence applied to every current piece.
struct PreStep {
    enum class Kind { split_isolated, split_removed, digits };
    Kind kind = Kind::split_isolated;
    std::shared_ptr<const Regex> regex;  // split_*
    bool individual_digits = false;      // digits
};

// Applies the steps in order: each step splits every piece of the previous step; pieces never are empty.
// Text bytes that are not valid UTF-8 become pieces of their own before the first step.
void pre_tokenize(std::string_view text, const std::vector<PreStep>& steps, std::vector<Span>& out,
                  MatchScratch& scratch);

// The regex list of a GGUF `tokenizer.ggml.pre` value (facts taken from each model's tokenizer.json).
// Sets ignore_merges for the families whose BPE model has "ignore_merges": true, and nfc for those whose
// tokenizer.json normalizes to NFC (the Qwen family). Returns false for an unknown name: we refuse rather than
// guess a split.
bool pre_regexes_for(std::string_view pre, std::vector<std::string>& regexes, bool& ignore_merges, bool& nfc);
// Names accepted by pre_regexes_for, for error messages.
std::string known_pre_names();

// Patterns shared with the HF loader (ByteLevel with use_regex = true uses the GPT-2 one).
extern const char* const kPatternGpt2;

}  // namespace ft::tok
