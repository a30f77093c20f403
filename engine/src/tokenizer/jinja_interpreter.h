// Jinja interpreter: renders a parsed template with Jinja2 semantics as Hugging Face configures it for chat
// templates (ImmutableSandboxedEnvironment, trim_blocks, lstrip_blocks, loopcontrols, default Undefined), plus the
// HF globals raise_exception and strftime_now.
//
// Thread safety: a Template is immutable after construction and may be rendered from several threads at once;
// each render() uses its own Interpreter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tokenizer/jinja_ast.h"
#include "tokenizer/jinja_lexer.h"
#include "tokenizer/jinja_value.h"

namespace ft::jinja {

// Guards against runaway templates; exceeding one is an ft::Error naming the limit.
struct RenderLimits {
    std::size_t max_output_bytes = 64u << 20;
    std::uint64_t max_loop_iterations = 10'000'000;  // summed over all loops of one render
    int max_call_depth = 200;                         // nested macro calls
    std::size_t max_range = 1'000'000;                // largest list range() may build
};

struct RenderOptions {
    // The clock strftime_now reads (local time). Unset: the real current local time.
    std::optional<std::tm> now;
    RenderLimits limits;
};

// Parses "YYYY-MM-DD HH:MM:SS" (or "YYYY-MM-DD") into a normalised std::tm (weekday and day of year set).
// Throws ft::Error(invalid_argument) on anything else.
std::tm parse_fixed_time(const std::string& text);

using Variables = std::vector<std::pair<std::string, Value>>;

class Template {
public:
    // Parses `source`. `name` prefixes error messages ("chat template: line 3, column 7: …").
    // Throws ft::Error(invalid_file) on a syntax error.
    explicit Template(std::string_view source, std::string name = "chat template");

    // Renders with the given top-level variables (anything else is undefined). Throws ft::Error:
    // invalid_argument for a runtime error (undefined attribute access, type error, raise_exception, …) naming the
    // template line and column, out_of_memory when a limit of RenderLimits is exceeded.
    std::string render(const Variables& vars, const RenderOptions& options = {}) const;

    const std::string& name() const { return name_; }

private:
    friend class Interpreter;
    std::string name_;
    std::string source_;
    SourceMap map_;
    Body body_;
};

struct Scope {
    std::vector<std::pair<std::string, Value>> vars;
    Scope* parent = nullptr;

    Value* find(const std::string& name);
    void set(const std::string& name, Value v);
};

class Interpreter {
public:
    Interpreter(const Template& tpl, const RenderOptions& options);

    std::string run(const Variables& vars);

    // Runtime error at a template position: ft::Error(invalid_argument) "chat template: line L, column C: msg".
    [[noreturn]] void fail(std::size_t pos, const std::string& msg) const;
    [[noreturn]] void fail_limit(const std::string& msg) const;

    Value call(const Value& callee, CallArgs& args, std::size_t pos);
    const RenderOptions& options() const { return options_; }
    void count_iterations(std::uint64_t n);

    // Evaluates an expression / renders a body into a fresh string (used by macros and the caller).
    Value eval(const Expr& e, Scope& scope);
    std::string render_body(const Body& body, Scope& scope);

private:
    enum class Flow { normal, break_, continue_ };

    Flow exec(const Body& body, Scope& scope);
    Flow exec_stmt(const Stmt& s, Scope& scope);
    Flow exec_for(const Stmt& s, Scope& scope);
    void write_out(std::string_view text);
    Value make_macro(const Stmt& s);
    Value eval_binary(const Expr& e, Scope& scope);
    Value eval_compare(const Expr& e, Scope& scope);
    Value eval_slice(const Expr& e, Scope& scope);
    void eval_args(const Expr& e, Scope& scope, CallArgs& out, std::size_t first_kid);

    const Template& tpl_;
    const RenderOptions& options_;
    std::string* out_ = nullptr;
    Scope root_;     // globals
    Scope context_;  // render variables and top-level sets
    std::uint64_t iterations_ = 0;
    int call_depth_ = 0;
    const Value* block_input_ = nullptr;
};

// Builtins (jinja_builtins.cpp).
Value apply_filter(Interpreter& in, const std::string& name, const Value& v, CallArgs& args, std::size_t pos);
bool apply_test(Interpreter& in, const std::string& name, const Value& v, CallArgs& args, std::size_t pos);
Value get_attr(Interpreter& in, const Value& obj, const std::string& name, std::size_t pos);
Value get_item(Interpreter& in, const Value& obj, const Value& key, std::size_t pos);
void install_globals(Scope& root);
// Python semantics of the operators, shared with filters (sort, sum, …).
Value binary_op(Interpreter& in, const std::string& op, const Value& a, const Value& b, std::size_t pos);
int compare_values(Interpreter& in, const Value& a, const Value& b, std::size_t pos);  // <0, 0, >0
bool contains(Interpreter& in, const Value& container, const Value& item, std::size_t pos);
// Items a for loop / list() / join see: list items, dict keys, string code points; undefined iterates empty.
List iterate(Interpreter& in, const Value& v, std::size_t pos);
// Python %-formatting for `"…" % args` and the format filter.
std::string percent_format(Interpreter& in, const std::string& fmt, const Value& args, std::size_t pos);

}  // namespace ft::jinja
