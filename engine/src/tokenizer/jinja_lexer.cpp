#include "tokenizer/jinja_lexer.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "ft/error.h"
#include "tokenizer/tokenizer_unicode.h"

namespace ft::jinja {

SourceMap::SourceMap(std::string_view source) {
    line_starts_.push_back(0);
    for (std::size_t i = 0; i < source.size(); ++i)
        if (source[i] == '\n') line_starts_.push_back(i + 1);
}

std::pair<int, int> SourceMap::line_col(std::size_t pos) const {
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), pos);
    auto line = static_cast<std::size_t>(it - line_starts_.begin());  // 1-based
    return {static_cast<int>(line), static_cast<int>(pos - line_starts_[line - 1] + 1)};
}

std::string SourceMap::where(std::size_t pos) const {
    auto [l, c] = line_col(pos);
    return "line " + std::to_string(l) + ", column " + std::to_string(c);
}

std::string normalize_template_source(std::string_view source) {
    std::string out;
    out.reserve(source.size());
    for (std::size_t i = 0; i < source.size(); ++i) {
        if (source[i] == '\r') {
            out += '\n';
            if (i + 1 < source.size() && source[i + 1] == '\n') ++i;
        } else {
            out += source[i];
        }
    }
    if (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
}

namespace {

enum class TagKind { var, block, comment };

struct Piece {
    bool is_text = false;
    std::string text;  // for text pieces
    std::size_t pos = 0;
    TagKind kind = TagKind::var;
    char lmod = 0, rmod = 0;
    bool consumed_newline_after = false;  // the tag's end swallowed text ending in '\n' (trim/strip)
    std::vector<Token> tokens;            // inner tokens of var/block tags
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

class Lexer {
public:
    Lexer(const std::string& src, const SourceMap& map, const std::string& name) : src_(src), map_(map), name_(name) {}

    std::vector<Token> run() {
        scan();
        apply_whitespace();
        std::vector<Token> out;
        for (auto& p : pieces_) {
            if (p.is_text) {
                if (!p.text.empty()) out.push_back(Token{Tok::text, std::move(p.text), 0, 0, p.pos});
            } else if (p.kind != TagKind::comment) {
                for (auto& t : p.tokens) out.push_back(std::move(t));
            }
        }
        out.push_back(Token{Tok::eof, "", 0, 0, src_.size()});
        return out;
    }

private:
    [[noreturn]] void fail(std::size_t pos, const std::string& msg) const {
        throw Error(ErrorCode::invalid_file, name_ + ": " + map_.where(pos) + ": " + msg,
                    "fix the template syntax (Jinja2 as used by Hugging Face chat templates)");
    }

    std::size_t find_tag_start(std::size_t from) const {
        for (std::size_t i = from; i + 1 < src_.size(); ++i) {
            if (src_[i] == '{' && (src_[i + 1] == '{' || src_[i + 1] == '%' || src_[i + 1] == '#')) return i;
        }
        return std::string::npos;
    }

    void add_text(std::size_t from, std::size_t to) {
        Piece p;
        p.is_text = true;
        p.pos = from;
        p.text = src_.substr(from, to - from);
        pieces_.push_back(std::move(p));
    }

    void scan() {
        std::size_t pos = 0;
        while (pos < src_.size()) {
            std::size_t start = find_tag_start(pos);
            if (start == std::string::npos) {
                add_text(pos, src_.size());
                break;
            }
            add_text(pos, start);
            pos = lex_tag(start);
        }
    }

    // Lexes one tag starting at `start`; returns the offset after it.
    std::size_t lex_tag(std::size_t start) {
        Piece p;
        p.pos = start;
        char c = src_[start + 1];
        p.kind = c == '{' ? TagKind::var : c == '%' ? TagKind::block : TagKind::comment;
        std::size_t i = start + 2;
        if (i < src_.size() && (src_[i] == '-' || src_[i] == '+')) p.lmod = src_[i++];
        if (p.kind == TagKind::comment) {
            std::size_t end = src_.find("#}", i);
            if (end == std::string::npos) fail(start, "unterminated comment (missing '#}')");
            if (end > i && (src_[end - 1] == '-' || src_[end - 1] == '+')) p.rmod = src_[end - 1];
            pieces_.push_back(std::move(p));
            return end + 2;
        }
        p.tokens.push_back(Token{p.kind == TagKind::var ? Tok::var_begin : Tok::block_begin,
                                 p.kind == TagKind::var ? "{{" : "{%", 0, 0, start});
        i = lex_inner(p, i);
        bool is_raw = p.kind == TagKind::block && p.tokens.size() == 3 && p.tokens[1].type == Tok::name &&
                      p.tokens[1].text == "raw";
        pieces_.push_back(std::move(p));
        if (is_raw) return lex_raw_body(i);
        return i;
    }

    // Finds `{% endraw %}` and emits the literal body and the endraw tag.
    std::size_t lex_raw_body(std::size_t from) {
        std::size_t search = from;
        while (true) {
            std::size_t s = src_.find("{%", search);
            if (s == std::string::npos) fail(from, "unterminated raw block (missing '{% endraw %}')");
            std::size_t j = s + 2;
            if (j < src_.size() && (src_[j] == '-' || src_[j] == '+')) ++j;
            while (j < src_.size() && is_space(src_[j])) ++j;
            if (src_.compare(j, 6, "endraw") == 0) {
                add_text(from, s);
                return lex_tag(s);
            }
            search = s + 2;
        }
    }

    std::size_t lex_inner(Piece& p, std::size_t i) {
        int depth = 0;
        const bool var = p.kind == TagKind::var;
        while (true) {
            while (i < src_.size() && is_space(src_[i])) ++i;
            if (i >= src_.size()) fail(p.pos, var ? "unterminated '{{' (missing '}}')" : "unterminated '{%' (missing '%}')");
            auto at = [&](const char* s) { return src_.compare(i, std::strlen(s), s) == 0; };
            if (depth == 0) {
                char mod = 0;
                std::size_t len = 0;
                if (var) {
                    if (at("-}}")) mod = '-', len = 3;
                    else if (at("}}")) len = 2;
                } else {
                    if (at("-%}")) mod = '-', len = 3;
                    else if (at("+%}")) mod = '+', len = 3;
                    else if (at("%}")) len = 2;
                }
                if (len) {
                    p.rmod = mod;
                    p.tokens.push_back(Token{var ? Tok::var_end : Tok::block_end, var ? "}}" : "%}", 0, 0, i});
                    return i + len;
                }
            }
            char c = src_[i];
            if (c == '\'' || c == '"') {
                i = lex_string(p, i);
            } else if (c >= '0' && c <= '9') {
                i = lex_number(p, i);
            } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
                std::size_t s = i;
                while (i < src_.size() && (std::isalnum(static_cast<unsigned char>(src_[i])) || src_[i] == '_')) ++i;
                p.tokens.push_back(Token{Tok::name, src_.substr(s, i - s), 0, 0, s});
            } else {
                static const char* two[] = {"//", "**", "==", "!=", "<=", ">="};
                std::string op;
                for (const char* t : two)
                    if (at(t)) op = t;
                if (op.empty()) {
                    if (!std::strchr("+-*/%~<>=()[]{},.:|", c))
                        fail(i, std::string("unexpected character '") + c + "' in a tag");
                    op = std::string(1, c);
                    if (c == '(' || c == '[' || c == '{') ++depth;
                    if (c == ')' || c == ']' || c == '}') {
                        if (depth == 0) fail(i, std::string("unbalanced '") + c + "'");
                        --depth;
                    }
                }
                p.tokens.push_back(Token{Tok::op, op, 0, 0, i});
                i += op.size();
            }
        }
    }

    std::size_t lex_string(Piece& p, std::size_t i) {
        const char q = src_[i];
        std::size_t s = i++;
        std::string val;
        while (true) {
            if (i >= src_.size()) fail(s, "unterminated string literal");
            char c = src_[i];
            if (c == q) {
                ++i;
                break;
            }
            if (c != '\\') {
                val += c;
                ++i;
                continue;
            }
            if (i + 1 >= src_.size()) fail(s, "unterminated string literal");
            char e = src_[i + 1];
            i += 2;
            switch (e) {
                case 'n': val += '\n'; break;
                case 't': val += '\t'; break;
                case 'r': val += '\r'; break;
                case '\\': val += '\\'; break;
                case '\'': val += '\''; break;
                case '"': val += '"'; break;
                case 'a': val += '\a'; break;
                case 'b': val += '\b'; break;
                case 'f': val += '\f'; break;
                case 'v': val += '\v'; break;
                case '\n': break;  // line continuation
                case 'x':
                case 'u':
                case 'U': {
                    std::size_t n = e == 'x' ? 2 : e == 'u' ? 4 : 8;
                    if (i + n > src_.size()) fail(s, "truncated \\" + std::string(1, e) + " escape");
                    unsigned long cp = 0;
                    for (std::size_t k = 0; k < n; ++k) {
                        char h = src_[i + k];
                        int d = std::isdigit(static_cast<unsigned char>(h)) ? h - '0'
                                : (h >= 'a' && h <= 'f')                   ? h - 'a' + 10
                                : (h >= 'A' && h <= 'F')                   ? h - 'A' + 10
                                                                           : -1;
                        if (d < 0) fail(i, "bad hex digit in \\" + std::string(1, e) + " escape");
                        cp = cp * 16 + static_cast<unsigned long>(d);
                    }
                    i += n;
                    append_utf8(val, cp, s);
                    break;
                }
                default:
                    if (e >= '0' && e <= '7') {
                        unsigned long cp = static_cast<unsigned long>(e - '0');
                        for (int k = 0; k < 2 && i < src_.size() && src_[i] >= '0' && src_[i] <= '7'; ++k, ++i)
                            cp = cp * 8 + static_cast<unsigned long>(src_[i] - '0');
                        append_utf8(val, cp, s);
                    } else {
                        val += '\\';  // Python keeps unknown escapes as written
                        val += e;
                    }
            }
        }
        p.tokens.push_back(Token{Tok::string, std::move(val), 0, 0, s});
        return i;
    }

    void append_utf8(std::string& out, unsigned long cp, std::size_t pos) const {
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) fail(pos, "invalid code point in string escape");
        tok::utf8_append(out, static_cast<char32_t>(cp));
    }

    std::size_t lex_number(Piece& p, std::size_t i) {
        std::size_t s = i;
        auto digits = [&] {
            while (i < src_.size() && (std::isdigit(static_cast<unsigned char>(src_[i])) || src_[i] == '_')) ++i;
        };
        digits();
        bool is_float = false;
        if (i + 1 < src_.size() && src_[i] == '.' && std::isdigit(static_cast<unsigned char>(src_[i + 1]))) {
            // `x.0.1`-style item access never meets a float here: a number right after '.' is lexed alone.
            bool after_dot = !p.tokens.empty() && p.tokens.back().type == Tok::op && p.tokens.back().text == ".";
            if (!after_dot) {
                is_float = true;
                ++i;
                digits();
            }
        }
        if (i < src_.size() && (src_[i] == 'e' || src_[i] == 'E')) {
            std::size_t j = i + 1;
            if (j < src_.size() && (src_[j] == '+' || src_[j] == '-')) ++j;
            if (j < src_.size() && std::isdigit(static_cast<unsigned char>(src_[j]))) {
                is_float = true;
                i = j;
                digits();
            }
        }
        std::string text;
        for (std::size_t k = s; k < i; ++k)
            if (src_[k] != '_') text += src_[k];
        Token t{is_float ? Tok::floating : Tok::integer, text, 0, 0, s};
        if (is_float) {
            t.fval = std::strtod(text.c_str(), nullptr);
        } else {
            errno = 0;
            char* end = nullptr;
            long long v = std::strtoll(text.c_str(), &end, 10);
            if (errno == ERANGE) fail(s, "integer literal out of range");
            t.ival = v;
        }
        p.tokens.push_back(std::move(t));
        return i;
    }

    // trim_blocks, lstrip_blocks and the -/+ modifiers, applied to the text between tags.
    void apply_whitespace() {
        bool line_starting = true;
        for (std::size_t k = 0; k < pieces_.size(); ++k) {
            Piece& p = pieces_[k];
            if (!p.is_text) continue;
            Piece* prev = k > 0 ? &pieces_[k - 1] : nullptr;
            Piece* next = k + 1 < pieces_.size() ? &pieces_[k + 1] : nullptr;
            std::string& t = p.text;
            if (prev) {
                line_starting = false;
                if (prev->rmod == '-') {
                    std::size_t n = 0;
                    while (n < t.size() && is_space(t[n])) ++n;
                    line_starting = n > 0 && t[n - 1] == '\n';
                    t.erase(0, n);
                    p.pos += n;
                } else if (prev->kind != TagKind::var && prev->rmod != '+' && !t.empty() && t[0] == '\n') {
                    t.erase(0, 1);
                    p.pos += 1;
                    line_starting = true;
                }
            }
            if (next) {
                if (next->lmod == '-') {
                    std::size_t n = t.size();
                    while (n > 0 && is_space(t[n - 1])) --n;
                    t.resize(n);
                } else if (next->kind != TagKind::var && next->lmod != '+') {
                    std::size_t nl = t.rfind('\n');
                    std::size_t l_pos = nl == std::string::npos ? 0 : nl + 1;
                    if ((l_pos > 0 || line_starting) && l_pos < t.size()) {
                        bool all_ws = true;
                        for (std::size_t j = l_pos; j < t.size(); ++j)
                            if (!is_space(t[j])) all_ws = false;
                        if (all_ws) t.resize(l_pos);
                    }
                }
            }
        }
        // A tag directly followed by another tag (no text piece between) still gets lstrip/trim context right,
        // because only text pieces are ever modified.
    }

    const std::string& src_;
    const SourceMap& map_;
    const std::string& name_;
    std::vector<Piece> pieces_;
};

}  // namespace

std::vector<Token> tokenize(const std::string& source, const SourceMap& map, const std::string& template_name) {
    return Lexer(source, map, template_name).run();
}

}  // namespace ft::jinja
