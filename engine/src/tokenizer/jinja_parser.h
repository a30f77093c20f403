// Jinja parser: tokens -> statement tree, following Jinja2's grammar and operator precedence.
#pragma once

#include <string>
#include <vector>

#include "tokenizer/jinja_ast.h"
#include "tokenizer/jinja_lexer.h"

namespace ft::jinja {

// Returns true when `name` is a filter / test the interpreter provides (the parser rejects unknown ones outside
// `if` bodies, as Jinja2 does when it compiles a template).
bool is_known_filter(const std::string& name);
bool is_known_test(const std::string& name);

// Parses a whole template. Throws ft::Error(invalid_file) naming line/column for syntax errors, unknown tags
// (include/extends/import/…), and unknown filters or tests that are not guarded by an `if`.
Body parse_template(const std::vector<Token>& tokens, const SourceMap& map, const std::string& template_name);

}  // namespace ft::jinja
