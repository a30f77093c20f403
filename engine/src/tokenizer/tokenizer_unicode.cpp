#include "tokenizer/tokenizer_unicode.h"

#include <algorithm>
#include <vector>

namespace ft::tok {

namespace {

struct NfcCcc {
    char32_t cp;
    std::uint8_t ccc;
};
struct NfcDecomp {
    char32_t cp, first, second;
};
struct NfcCompose {
    char32_t first, second, composite;
};
struct NfcRange {
    char32_t lo, hi;
};

#include "tokenizer/unicode_nfc_data.inc"

constexpr char32_t kHangulS = 0xAC00, kHangulL = 0x1100, kHangulV = 0x1161, kHangulT = 0x11A7;
constexpr int kHangulLCount = 19, kHangulVCount = 21, kHangulTCount = 28;
constexpr int kHangulNCount = kHangulVCount * kHangulTCount, kHangulSCount = kHangulLCount * kHangulNCount;
constexpr char32_t kRawByteBase = 0x110000;  // invalid input bytes travel through NFC as these

bool nfc_maybe(char32_t cp) {
    if (cp < 0x300) return false;
    auto it = std::upper_bound(std::begin(kNfcMaybe), std::end(kNfcMaybe), cp,
                               [](char32_t v, const NfcRange& r) { return v < r.lo; });
    return it != std::begin(kNfcMaybe) && cp <= std::prev(it)->hi;
}

int ccc_of(char32_t cp) {
    if (cp < 0x300 || cp >= kRawByteBase) return 0;
    auto it = std::lower_bound(std::begin(kNfcCcc), std::end(kNfcCcc), cp,
                               [](const NfcCcc& e, char32_t v) { return e.cp < v; });
    return (it != std::end(kNfcCcc) && it->cp == cp) ? it->ccc : 0;
}

void decompose(char32_t cp, std::vector<char32_t>& out) {
    if (cp >= kHangulS && cp < kHangulS + kHangulSCount) {
        const int s = static_cast<int>(cp - kHangulS);
        out.push_back(kHangulL + s / kHangulNCount);
        out.push_back(kHangulV + (s % kHangulNCount) / kHangulTCount);
        if (s % kHangulTCount) out.push_back(kHangulT + s % kHangulTCount);
        return;
    }
    auto it = std::lower_bound(std::begin(kNfcDecomp), std::end(kNfcDecomp), cp,
                               [](const NfcDecomp& e, char32_t v) { return e.cp < v; });
    if (it == std::end(kNfcDecomp) || it->cp != cp) {
        out.push_back(cp);
        return;
    }
    decompose(it->first, out);
    if (it->second) decompose(it->second, out);
}

char32_t compose_pair(char32_t a, char32_t b) {
    if (a >= kHangulL && a < kHangulL + kHangulLCount && b >= kHangulV && b < kHangulV + kHangulVCount)
        return kHangulS + ((a - kHangulL) * kHangulVCount + (b - kHangulV)) * kHangulTCount;
    if (a >= kHangulS && a < kHangulS + kHangulSCount && (a - kHangulS) % kHangulTCount == 0 && b > kHangulT &&
        b < kHangulT + kHangulTCount)
        return a + (b - kHangulT);
    auto it = std::lower_bound(std::begin(kNfcCompose), std::end(kNfcCompose), std::pair{a, b},
                               [](const NfcCompose& e, const std::pair<char32_t, char32_t>& v) {
                                   return e.first != v.first ? e.first < v.first : e.second < v.second;
                               });
    return (it != std::end(kNfcCompose) && it->first == a && it->second == b) ? it->composite : 0;
}

}  // namespace

std::size_t utf8_seq_len(unsigned char c) {
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) return 2;
    if (c >= 0xE0 && c <= 0xEF) return 3;
    if (c >= 0xF0 && c <= 0xF4) return 4;
    return 1;
}

char32_t utf8_decode(std::string_view s, std::size_t i, std::size_t& len, bool& cp_valid) {
    const auto c = static_cast<unsigned char>(s[i]);
    len = 1;
    cp_valid = true;
    if (c < 0x80) return c;
    const std::size_t n = utf8_seq_len(c);
    cp_valid = false;
    if (n == 1 || i + n > s.size()) return 0xFFFD;
    char32_t cp = c & (0x7F >> n);
    for (std::size_t k = 1; k < n; ++k) {
        const auto cc = static_cast<unsigned char>(s[i + k]);
        if ((cc & 0xC0) != 0x80) return 0xFFFD;
        cp = (cp << 6) | (cc & 0x3F);
    }
    // Overlong forms, surrogates and values past U+10FFFF are invalid.
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0xFFFD;
    len = n;
    cp_valid = true;
    return cp;
}

void utf8_append(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

std::size_t utf8_complete_prefix(std::string_view s) {
    // The tail (at most 3 bytes) is held back only if it is a valid beginning of a longer sequence.
    const std::size_t n = s.size();
    for (std::size_t back = 1; back <= 3 && back <= n; ++back) {
        const auto lead = static_cast<unsigned char>(s[n - back]);
        if ((lead & 0xC0) == 0x80) continue;  // continuation byte: look further back for its lead
        if (utf8_seq_len(lead) <= back) return n;
        for (std::size_t k = 1; k < back; ++k) {
            const auto c = static_cast<unsigned char>(s[n - back + k]);
            unsigned char lo = 0x80, hi = 0xBF;
            if (k == 1) {
                if (lead == 0xE0) lo = 0xA0;
                else if (lead == 0xED) hi = 0x9F;
                else if (lead == 0xF0) lo = 0x90;
                else if (lead == 0xF4) hi = 0x8F;
            }
            if (c < lo || c > hi) return n;
        }
        return n - back;
    }
    return n;
}

std::string utf8_sanitize(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        std::size_t len = 0;
        bool ok = false;
        const char32_t cp = utf8_decode(s, i, len, ok);
        if (ok) out.append(s.substr(i, len));
        else utf8_append(out, cp);
        i += len;
    }
    return out;
}

bool nfc_normalize(std::string_view s, std::string& out) {
    std::size_t i = 0;
    bool needed = false;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0xCC) {  // lead bytes below 0xCC encode code points below U+0300
            ++i;
            continue;
        }
        std::size_t len = 0;
        bool ok = false;
        const char32_t cp = utf8_decode(s, i, len, ok);
        if (ok && nfc_maybe(cp)) {
            needed = true;
            break;
        }
        i += len;
    }
    if (!needed) return false;

    std::vector<char32_t> buf;
    buf.reserve(s.size());
    for (std::size_t k = 0; k < s.size();) {
        std::size_t len = 0;
        bool ok = false;
        const char32_t cp = utf8_decode(s, k, len, ok);
        if (ok) decompose(cp, buf);
        else buf.push_back(kRawByteBase + static_cast<unsigned char>(s[k]));
        k += len;
    }
    // Canonical ordering: stable sort each run of non-starters by combining class.
    for (std::size_t a = 0; a < buf.size();) {
        if (ccc_of(buf[a]) == 0) {
            ++a;
            continue;
        }
        std::size_t b = a;
        while (b < buf.size() && ccc_of(buf[b]) != 0) ++b;
        std::stable_sort(buf.begin() + a, buf.begin() + b,
                         [](char32_t x, char32_t y) { return ccc_of(x) < ccc_of(y); });
        a = b;
    }
    // Canonical composition.
    std::vector<char32_t> res;
    res.reserve(buf.size());
    long starter = -1;
    int last_cc = -1;  // ccc of the last character kept after the starter; -1 when none (adjacent)
    for (char32_t c : buf) {
        const int cc = ccc_of(c);
        if (starter >= 0 && (last_cc == -1 || (last_cc != 0 && last_cc < cc))) {
            if (char32_t comp = compose_pair(res[static_cast<std::size_t>(starter)], c)) {
                res[static_cast<std::size_t>(starter)] = comp;
                continue;
            }
        }
        if (cc == 0) {
            starter = static_cast<long>(res.size());
            last_cc = -1;
        } else {
            last_cc = cc;
        }
        res.push_back(c);
    }
    out.clear();
    out.reserve(s.size() + 8);
    for (char32_t c : res) {
        if (c >= kRawByteBase) out.push_back(static_cast<char>(c - kRawByteBase));
        else utf8_append(out, c);
    }
    return true;
}

void nfd_append(char32_t cp, std::u32string& out) {
    std::vector<char32_t> tmp;
    decompose(cp, tmp);
    out.append(tmp.begin(), tmp.end());
}

const ByteLevel& ByteLevel::get() {
    static const ByteLevel table = [] {
        ByteLevel t;
        char32_t next = 256;
        for (int b = 0; b < 256; ++b) {
            const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
            t.byte_to_cp[static_cast<std::size_t>(b)] = printable ? static_cast<char32_t>(b) : next++;
            utf8_append(t.byte_to_utf8[static_cast<std::size_t>(b)], t.byte_to_cp[static_cast<std::size_t>(b)]);
        }
        return t;
    }();
    return table;
}

int ByteLevel::cp_to_byte(char32_t cp) const {
    if (cp < 256) {
        const bool printable = (cp >= 33 && cp <= 126) || (cp >= 161 && cp <= 172) || (cp >= 174 && cp <= 255);
        return printable ? static_cast<int>(cp) : -1;
    }
    if (cp < 256 + 68) {
        // Non-printable bytes were numbered 256, 257, … in byte order.
        for (int b = 0; b < 256; ++b)
            if (byte_to_cp[static_cast<std::size_t>(b)] == cp) return b;
    }
    return -1;
}

}  // namespace ft::tok
