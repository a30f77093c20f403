// Jinja syntax tree: expressions and statements, each with its source offset for error messages.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tokenizer/jinja_value.h"

namespace ft::jinja {

enum class ExprKind {
    literal,      // value
    name,         // name
    list,         // kids
    tuple,        // kids (evaluates to a list)
    dict,         // kids = key, value, key, value, …
    attr,         // kids[0] . name
    item,         // kids[0] [ kids[1] ]
    slice,        // kids[0] [ kids[1] : kids[2] : kids[3] ]  (null kids = omitted)
    call,         // kids[0] ( kids[1..] , kwargs )
    filter,       // name, kids[0] = input, kids[1..] = args, kwargs
    test,         // name, kids[0] = input, kids[1..] = args, kwargs; negate
    unary,        // op ("-", "+", "not"), kids[0]
    binary,       // op, kids[0], kids[1]   (+ - * / // % ** ~ and or)
    compare,      // kids[0] (ops[i] kids[i+1])*   (== != < > <= >= in notin)
    cond,         // kids[0] if kids[1] else kids[2]  (kids[2] may be null)
    block_input,  // the captured body of a filter block / set block, fed to a filter chain
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
    ExprKind kind;
    std::size_t pos = 0;
    Value value;
    std::string name;  // name / attribute / filter / test / operator
    std::vector<ExprPtr> kids;
    std::vector<std::pair<std::string, ExprPtr>> kwargs;
    std::vector<std::string> ops;  // compare operators
    bool negate = false;
};

enum class StmtKind {
    text,          // text
    output,        // expr
    if_,           // branches (cond, body), else_body
    for_,          // targets, expr (iterable), cond (filter), body, else_body
    set,           // targets (or attr target: target_obj.target_attr), expr
    set_block,     // targets[0], body, expr (filter chain over block_input, may be null)
    macro,         // name, params (name, default), body
    call_block,    // expr (the call), params (caller's), body
    filter_block,  // expr (filter chain over block_input), body
    break_,
    continue_,
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;
using Body = std::vector<StmtPtr>;

struct Stmt {
    StmtKind kind;
    std::size_t pos = 0;
    std::string text;
    ExprPtr expr;
    ExprPtr cond;
    std::vector<std::pair<ExprPtr, Body>> branches;
    Body body;
    Body else_body;
    std::vector<std::string> targets;
    std::string attr_target;  // `set ns.attr = …`: targets[0] is the namespace, attr_target the attribute
    std::string name;
    std::vector<std::pair<std::string, ExprPtr>> params;
};

}  // namespace ft::jinja
