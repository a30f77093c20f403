// Jinja lexer: template source -> tokens, with whitespace control applied the way HF transformers configures
// Jinja2 (trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=False) plus `-`/`+` tag modifiers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ft::jinja {

enum class Tok : std::uint8_t {
    text,
    var_begin,    // {{
    var_end,      // }}
    block_begin,  // {%
    block_end,    // %}
    name,
    string,
    integer,
    floating,
    op,  // operators and punctuation: + - * / // % ** ~ == != < > <= >= = ( ) [ ] { } , . : |
    eof,
};

struct Token {
    Tok type;
    std::string text;  // text/name/op spelling; decoded value of a string literal
    std::int64_t ival = 0;
    double fval = 0;
    std::size_t pos = 0;  // byte offset in the (newline-normalised) source
};

// Maps byte offsets to 1-based line/column for error messages.
class SourceMap {
public:
    explicit SourceMap(std::string_view source);
    std::pair<int, int> line_col(std::size_t pos) const;
    // "line L, column C"
    std::string where(std::size_t pos) const;

private:
    std::vector<std::size_t> line_starts_;
};

// Normalises newlines (\r\n, \r -> \n) and drops one trailing newline, as Jinja2 does without keep_trailing_newline.
std::string normalize_template_source(std::string_view source);

// Tokenizes a normalised source. Throws ft::Error(invalid_file) naming line/column for an unterminated tag,
// string or comment, or an unexpected character.
std::vector<Token> tokenize(const std::string& source, const SourceMap& map, const std::string& template_name);

}  // namespace ft::jinja
