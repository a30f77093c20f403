#include "tokenizer/tokenizer_pretok.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "ft/error.h"
#include "tokenizer/tokenizer_unicode.h"

namespace ft::tok {

// ---- Patterns (from each model's tokenizer.json; written here with \x{…} escapes where the source has
// characters an editor might normalize) ----
const char* const kPatternGpt2 = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

namespace {

const char* const kPatternLlama3 =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
const char* const kPatternQwen2 =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
const char* const kPatternQwen35 =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
const char* const kPatternGpt4o =
    R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|)"
    R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|)"
    R"(\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
const char* const kPatternTekken =
    R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|)"
    R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|)"
    R"(\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
// DeepSeek LLM: cased letters of many scripts as one explicit class.
const char* const kDeepseekLlmLetters =
    R"(\s?[A-Za-z\x{B5}\x{C0}-\x{D6}\x{D8}-\x{F6}\x{F8}-\x{1BA}\x{1BC}-\x{1BF}\x{1C4}-\x{293}\x{295}-\x{2AF})"
    R"(\x{370}-\x{373}\x{376}\x{377}\x{37B}-\x{37D}\x{37F}\x{386}\x{388}-\x{38A}\x{38C}\x{38E}-\x{3A1})"
    R"(\x{3A3}-\x{3F5}\x{3F7}-\x{481}\x{48A}-\x{52F}\x{531}-\x{556}\x{10A0}-\x{10C5}\x{13A0}-\x{13F5})"
    R"(\x{13F8}-\x{13FD}\x{1C90}-\x{1CBA}\x{1CBD}-\x{1CBF}\x{1D00}-\x{1D2B}\x{1D6B}-\x{1D77}\x{1D79}-\x{1D9A})"
    R"(\x{1E00}-\x{1F15}\x{1F18}-\x{1F1D}\x{1F20}-\x{1F45}\x{1F48}-\x{1F4D}\x{1F50}-\x{1F57}\x{1F59}\x{1F5B})"
    R"(\x{1F5D}\x{1F5F}-\x{1F7D}\x{1F80}-\x{1FB4}\x{1FB6}-\x{1FBC}\x{1FBE}\x{1FC2}-\x{1FC4}\x{1FC6}-\x{1FCC})"
    R"(\x{1FD0}-\x{1FD3}\x{1FD6}-\x{1FDB}\x{1FE0}-\x{1FEC}\x{1FF2}-\x{1FF4}\x{1FF6}-\x{1FFC}\x{2102}\x{2107})"
    R"(\x{210A}-\x{2113}\x{2115}\x{2119}-\x{211D}\x{2124}\x{2126}\x{2128}\x{212A}-\x{212D}\x{212F}-\x{2134})"
    R"(\x{2139}\x{213C}-\x{213F}\x{2145}-\x{2149}\x{214E}\x{2183}\x{2184}\x{2C00}-\x{2C7B}\x{2C7E}-\x{2CE4})"
    R"(\x{2CEB}-\x{2CEE}\x{2CF2}\x{2CF3}\x{A640}-\x{A66D}\x{A680}-\x{A69B}\x{A722}-\x{A76F}\x{A771}-\x{A787})"
    R"(\x{A78B}-\x{A78E}\x{AB70}-\x{ABBF}\x{FB00}-\x{FB06}\x{FB13}-\x{FB17}\x{FF21}-\x{FF3A}\x{FF41}-\x{FF5A})"
    R"(\x{10400}-\x{1044F}\x{104B0}-\x{104D3}\x{104D8}-\x{104FB}\x{10C80}-\x{10CB2}\x{10CC0}-\x{10CF2})"
    R"(\x{118A0}-\x{118DF}\x{1E900}-\x{1E943}]+)";
const char* const kDeepseekLlmPunct = R"(\s?[!-/:-~\x{FF01}-\x{FF0F}\x{FF1A}-\x{FF5E}\x{2018}-\x{201F}\x{3000}-\x{3002}]+)";
const char* const kDeepseekCjk = R"([\x{4E00}-\x{9FA5}\x{0800}-\x{4E00}\x{AC00}-\x{D7FF}]+)";
const char* const kDeepseekV3Cjk = R"([\x{4E00}-\x{9FA5}\x{3040}-\x{309F}\x{30A0}-\x{30FF}]+)";
const char* const kDeepseekV3Main =
    R"([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+|)"
    R"( ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

constexpr const char* kWhite = R"(\t-\r\x{85}\p{Z})";  // Oniguruma's \s: Unicode White_Space

}  // namespace

std::string onig_to_pcre2(std::string_view p) {
    std::string out;
    out.reserve(p.size() + 32);
    int depth = 0;  // character-class nesting
    for (std::size_t i = 0; i < p.size(); ++i) {
        const char c = p[i];
        if (c == '\\' && i + 1 < p.size()) {
            const char n = p[i + 1];
            if (n == 's') {
                if (depth) out += kWhite;
                else out += std::string("[") + kWhite + "]";
            } else if (n == 'S' && depth == 0) {
                out += std::string("[^") + kWhite + "]";
            } else {
                out += c;
                out += n;
            }
            ++i;
            continue;
        }
        if (c == '[') {
            ++depth;
            out += c;
            // A ']' right after '[' or '[^' is a literal in both dialects.
            if (i + 1 < p.size() && p[i + 1] == '^') out += p[++i];
            if (i + 1 < p.size() && p[i + 1] == ']') out += p[++i];
            continue;
        }
        if (c == ']' && depth > 0) --depth;
        out += c;
    }
    return out;
}

struct MatchScratch::State {
    pcre2_match_data* md = nullptr;
    pcre2_match_context* mctx = nullptr;
    pcre2_jit_stack* jit_stack = nullptr;
};

MatchScratch::MatchScratch() : state_(std::make_unique<State>()) {
    state_->md = pcre2_match_data_create(32, nullptr);
    state_->mctx = pcre2_match_context_create(nullptr);
    state_->jit_stack = pcre2_jit_stack_create(32 * 1024, 4 * 1024 * 1024, nullptr);
    if (!state_->md || !state_->mctx) throw Error(ErrorCode::out_of_memory, "tokenizer: cannot allocate PCRE2 match data");
    if (state_->jit_stack) pcre2_jit_stack_assign(state_->mctx, nullptr, state_->jit_stack);
}

MatchScratch::~MatchScratch() {
    if (state_->jit_stack) pcre2_jit_stack_free(state_->jit_stack);
    pcre2_match_context_free(state_->mctx);
    pcre2_match_data_free(state_->md);
}

Regex::Regex(std::string_view pattern, std::string_view where) {
    const std::string translated = onig_to_pcre2(pattern);
    int err = 0;
    PCRE2_SIZE off = 0;
    auto* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(translated.data()), translated.size(),
                               PCRE2_UTF | PCRE2_UCP | PCRE2_DOLLAR_ENDONLY, &err, &off, nullptr);
    if (!code) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(err, msg, sizeof msg);
        throw Error(ErrorCode::invalid_file,
                    std::string(where) + ": pre-tokenizer regex does not compile at offset " + std::to_string(off) +
                        ": " + reinterpret_cast<const char*>(msg),
                    "the tokenizer file is damaged or uses a regex feature PCRE2 lacks");
    }
    code_ = code;
    jit_ = pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0;
}

Regex::~Regex() { pcre2_code_free(static_cast<pcre2_code*>(code_)); }

bool Regex::find(std::string_view subject, std::size_t from, std::size_t& mbegin, std::size_t& mend,
                 MatchScratch& scratch) const {
    auto& st = scratch.state();
    auto* code = static_cast<pcre2_code*>(code_);
    const auto* subj = reinterpret_cast<PCRE2_SPTR>(subject.data());
    const int rc = jit_ ? pcre2_jit_match(code, subj, subject.size(), from, PCRE2_NO_UTF_CHECK, st.md, st.mctx)
                        : pcre2_match(code, subj, subject.size(), from, PCRE2_NO_UTF_CHECK, st.md, st.mctx);
    if (rc == PCRE2_ERROR_NOMATCH) return false;
    if (rc < 0) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(rc, msg, sizeof msg);
        throw Error(ErrorCode::internal, std::string("tokenizer: regex match failed: ") +
                                             reinterpret_cast<const char*>(msg));
    }
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(st.md);
    mbegin = ov[0];
    mend = ov[1];
    return true;
}

namespace {

std::size_t next_cp(std::string_view s, std::size_t i) {
    return std::min(s.size(), i + utf8_seq_len(static_cast<unsigned char>(s[i])));
}

void split_with(std::string_view text, const Span& piece, const PreStep& step, std::vector<Span>& out,
                MatchScratch& scratch) {
    const std::string_view sub = text.substr(piece.begin, piece.end - piece.begin);
    auto emit = [&](std::size_t b, std::size_t e) {
        if (e > b) out.push_back({piece.begin + static_cast<std::uint32_t>(b), piece.begin + static_cast<std::uint32_t>(e)});
    };
    if (step.kind == PreStep::Kind::digits) {
        // HF Digits: runs of \p{Nd}-ish ASCII digits isolated (or each digit alone).
        std::size_t start = 0, i = 0;
        while (i < sub.size()) {
            const bool d = sub[i] >= '0' && sub[i] <= '9';
            if (d) {
                emit(start, i);
                std::size_t j = i + 1;
                if (!step.individual_digits)
                    while (j < sub.size() && sub[j] >= '0' && sub[j] <= '9') ++j;
                emit(i, j);
                start = i = j;
            } else {
                ++i;
            }
        }
        emit(start, sub.size());
        return;
    }
    std::size_t pos = 0, last = 0;
    while (pos <= sub.size()) {
        std::size_t mb = 0, me = 0;
        if (!step.regex->find(sub, pos, mb, me, scratch)) break;
        if (me == mb) {  // empty match: no piece, move on by one character
            if (mb >= sub.size()) break;
            pos = next_cp(sub, mb);
            continue;
        }
        emit(last, mb);
        if (step.kind == PreStep::Kind::split_isolated) emit(mb, me);
        last = pos = me;
    }
    emit(last, sub.size());
}

}  // namespace

void pre_tokenize(std::string_view text, const std::vector<PreStep>& steps, std::vector<Span>& out,
                  MatchScratch& scratch) {
    std::vector<Span> cur, next;
    // Valid UTF-8 runs, with each invalid byte as its own piece (PCRE2 only ever sees valid UTF-8).
    std::vector<bool> is_raw;
    {
        std::size_t run = 0, i = 0;
        while (i < text.size()) {
            if (static_cast<unsigned char>(text[i]) < 0x80) {
                ++i;
                continue;
            }
            std::size_t len = 0;
            bool ok = false;
            utf8_decode(text, i, len, ok);
            if (ok) {
                i += len;
                continue;
            }
            if (i > run) {
                cur.push_back({static_cast<std::uint32_t>(run), static_cast<std::uint32_t>(i)});
                is_raw.push_back(false);
            }
            cur.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i + 1)});
            is_raw.push_back(true);
            run = ++i;
        }
        if (text.size() > run) {
            cur.push_back({static_cast<std::uint32_t>(run), static_cast<std::uint32_t>(text.size())});
            is_raw.push_back(false);
        }
    }
    const bool any_raw = cur.size() > 1 || (cur.size() == 1 && is_raw[0]);
    for (const PreStep& step : steps) {
        next.clear();
        for (std::size_t k = 0; k < cur.size(); ++k) {
            if (any_raw) {
                // Find whether this piece is an invalid byte (a 1-byte piece with a byte >= 0x80 that is not
                // part of a valid sequence can only come from the raw split above).
                const auto c = static_cast<unsigned char>(text[cur[k].begin]);
                if (cur[k].end - cur[k].begin == 1 && c >= 0x80) {
                    next.push_back(cur[k]);
                    continue;
                }
            }
            split_with(text, cur[k], step, next, scratch);
        }
        std::swap(cur, next);
    }
    out.insert(out.end(), cur.begin(), cur.end());
}

bool pre_regexes_for(std::string_view pre, std::vector<std::string>& rx, bool& ignore_merges, bool& nfc) {
    ignore_merges = false;
    nfc = false;
    rx.clear();
    if (pre == "llama3" || pre == "llama-bpe" || pre == "llama-v3") {
        rx = {kPatternLlama3};
        ignore_merges = true;
    } else if (pre == "dbrx" || pre == "smaug-bpe" || pre == "glm4" || pre == "chatglm-bpe") {
        rx = {kPatternLlama3};
    } else if (pre == "qwen2" || pre == "deepseek-r1-qwen") {
        rx = {kPatternQwen2};
        nfc = true;
    } else if (pre == "qwen35") {
        rx = {kPatternQwen35};
        nfc = true;
    } else if (pre == "deepseek-llm") {
        rx = {R"([\r\n])", kDeepseekLlmLetters, kDeepseekLlmPunct, R"(\s+$)", kDeepseekCjk, R"(\p{N}+)"};
    } else if (pre == "deepseek-coder") {
        rx = {R"([\r\n])", R"(\s?\p{L}+)", R"(\s?\p{P}+)", kDeepseekCjk, R"(\p{N})"};
    } else if (pre == "deepseek-v3") {
        rx = {R"(\p{N}{1,3})", kDeepseekV3Cjk, kDeepseekV3Main};
    } else if (pre == "gpt-4o") {
        rx = {kPatternGpt4o};
    } else if (pre == "tekken") {
        rx = {kPatternTekken};
        ignore_merges = true;
    } else if (pre == "falcon") {
        rx = {R"([\p{P}\$\+<=>\^~\|`]+)", kPatternGpt2, R"([0-9][0-9][0-9])"};
    } else if (pre == "starcoder" || pre == "refact" || pre == "command-r" || pre == "smollm" ||
               pre == "codeshell") {
        rx = {R"(\p{N})", kPatternGpt2};
    } else if (pre == "gpt-2" || pre == "gpt2" || pre == "mpt" || pre == "olmo" || pre == "default" || pre.empty()) {
        rx = {kPatternGpt2};
    } else {
        return false;
    }
    return true;
}

std::string known_pre_names() {
    return "llama-bpe (llama3), dbrx, smaug-bpe, glm4, chatglm-bpe, qwen2, qwen35, deepseek-r1-qwen, deepseek-llm, "
           "deepseek-coder, deepseek-v3, gpt-4o, tekken, falcon, starcoder, refact, command-r, smollm, codeshell, "
           "gpt-2, mpt, olmo, default";
}

}  // namespace ft::tok
