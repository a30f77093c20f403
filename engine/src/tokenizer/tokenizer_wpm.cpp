// BERT WordPiece: BertNormalizer (clean text, isolate CJK ideographs, strip accents, lowercase), split on
// whitespace and punctuation, then greedy longest-match-first pieces; a word that cannot be covered is [UNK].
#include <algorithm>

#include "tokenizer/tokenizer_impl.h"
#include "tokenizer/tokenizer_unicode.h"

namespace ft {

namespace {

struct CpRange {
    char32_t lo, hi;
};
struct CpLower {
    char32_t cp, l0, l1, l2;
};

#include "tokenizer/unicode_bert_data.inc"

template <std::size_t N>
bool in(const CpRange (&table)[N], char32_t cp) {
    auto it = std::upper_bound(std::begin(table), std::end(table), cp,
                               [](char32_t v, const CpRange& r) { return v < r.lo; });
    return it != std::begin(table) && cp <= std::prev(it)->hi;
}

bool is_white(char32_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || in(kBertZs, c); }
bool is_control(char32_t c) { return c != '\t' && c != '\n' && c != '\r' && in(kBertOther, c); }
bool is_punct(char32_t c) {
    return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126) ||
           in(kBertPunct, c);
}
bool is_cjk(char32_t c) {
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
           (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}
void lower_append(char32_t c, std::u32string& out) {
    if (c < 0x80) {
        out.push_back((c >= 'A' && c <= 'Z') ? c + 32 : c);
        return;
    }
    auto it = std::lower_bound(std::begin(kBertLower), std::end(kBertLower), c,
                               [](const CpLower& e, char32_t v) { return e.cp < v; });
    if (it == std::end(kBertLower) || it->cp != c) {
        out.push_back(c);
        return;
    }
    for (char32_t l : {it->l0, it->l1, it->l2})
        if (l) out.push_back(l);
}

}  // namespace

void Tokenizer::Impl::wpm_text(std::string_view text, std::vector<std::int32_t>& out) const {
    // Normalize into code points; words are separated by ' ', punctuation and CJK become words of their own.
    std::u32string norm, nfd;
    norm.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        std::size_t len = 0;
        bool ok = false;
        const char32_t c = tok::utf8_decode(text, i, len, ok);
        i += len;
        if (c == 0 || c == 0xFFFD || is_control(c)) continue;
        if (is_white(c)) {
            norm.push_back(' ');
            continue;
        }
        if (is_cjk(c)) {
            norm.push_back(' ');
            norm.push_back(c);
            norm.push_back(' ');
            continue;
        }
        nfd.clear();
        tok::nfd_append(c, nfd);
        for (char32_t d : nfd)
            if (!in(kBertMn, d)) lower_append(d, norm);
    }
    std::vector<std::u32string> words;
    std::u32string cur;
    for (char32_t c : norm) {
        if (c == ' ') {
            if (!cur.empty()) words.push_back(std::move(cur));
            cur.clear();
        } else if (is_punct(c)) {
            if (!cur.empty()) words.push_back(std::move(cur));
            cur.clear();
            words.push_back(std::u32string(1, c));
        } else {
            cur.push_back(c);
        }
    }
    if (!cur.empty()) words.push_back(std::move(cur));

    std::string key;
    std::vector<std::int32_t> pieces;
    for (const std::u32string& w : words) {
        if (w.size() > 100) {
            if (unk >= 0) out.push_back(unk);
            continue;
        }
        pieces.clear();
        bool ok = true;
        for (std::size_t start = 0; start < w.size() && ok;) {
            std::int32_t found = -1;
            std::size_t end = w.size();
            for (; end > start; --end) {
                key = start == 0 ? "\xE2\x96\x81" : "";
                for (std::size_t k = start; k < end; ++k) tok::utf8_append(key, w[k]);
                found = id_of(key);
                if (found >= 0) break;
            }
            if (found < 0) ok = false;
            else pieces.push_back(found);
            start = end;
        }
        if (ok) out.insert(out.end(), pieces.begin(), pieces.end());
        else if (unk >= 0) out.push_back(unk);
    }
}

}  // namespace ft
