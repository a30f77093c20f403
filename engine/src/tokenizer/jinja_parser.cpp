#include "tokenizer/jinja_parser.h"

#include <set>

#include "ft/error.h"

namespace ft::jinja {

namespace {

constexpr int kMaxNesting = 256;  // expression / block nesting; deeper input is rejected, not a stack overflow

class Parser {
public:
    Parser(const std::vector<Token>& toks, const SourceMap& map, const std::string& name)
        : t_(toks), map_(map), name_(name) {}

    Body parse() {
        Body body = parse_body({});
        return body;
    }

private:
    // ---- token helpers ----
    const Token& cur() const { return t_[i_]; }
    const Token& peek(std::size_t n = 1) const { return t_[std::min(i_ + n, t_.size() - 1)]; }
    void advance() {
        if (i_ + 1 < t_.size()) ++i_;
    }
    bool is_op(const char* op) const { return cur().type == Tok::op && cur().text == op; }
    bool is_name(const char* n) const { return cur().type == Tok::name && cur().text == n; }
    bool skip_op(const char* op) {
        if (!is_op(op)) return false;
        advance();
        return true;
    }
    bool skip_name(const char* n) {
        if (!is_name(n)) return false;
        advance();
        return true;
    }

    std::string describe(const Token& t) const {
        switch (t.type) {
            case Tok::text: return "template text";
            case Tok::var_begin: return "'{{'";
            case Tok::var_end: return "'}}'";
            case Tok::block_begin: return "'{%'";
            case Tok::block_end: return "'%}'";
            case Tok::name: return "'" + t.text + "'";
            case Tok::string: return "a string";
            case Tok::integer:
            case Tok::floating: return "a number";
            case Tok::op: return "'" + t.text + "'";
            case Tok::eof: return "the end of the template";
        }
        return "?";
    }

    [[noreturn]] void fail(std::size_t pos, const std::string& msg) const {
        throw Error(ErrorCode::invalid_file, name_ + ": " + map_.where(pos) + ": " + msg,
                    "fix the template syntax (Jinja2 as used by Hugging Face chat templates)");
    }
    [[noreturn]] void unexpected(const std::string& wanted) const {
        fail(cur().pos, "expected " + wanted + ", found " + describe(cur()));
    }
    void expect_op(const char* op) {
        if (!skip_op(op)) unexpected(std::string("'") + op + "'");
    }
    void expect_block_end() {
        if (cur().type != Tok::block_end) unexpected("'%}'");
        advance();
    }
    std::string expect_name() {
        if (cur().type != Tok::name) unexpected("a name");
        std::string n = cur().text;
        advance();
        return n;
    }

    struct DepthGuard {
        Parser& p;
        DepthGuard(Parser& pp, std::size_t pos) : p(pp) {
            if (++p.depth_ > kMaxNesting) p.fail(pos, "template nests too deeply (more than 256 levels)");
        }
        ~DepthGuard() { --p.depth_; }
    };

    // ---- statements ----

    // Parses until a block tag whose keyword is in `stops`; leaves the cursor on that keyword (after '{%').
    Body parse_body(const std::set<std::string>& stops) {
        Body body;
        while (true) {
            const Token& tk = cur();
            if (tk.type == Tok::eof) {
                if (!stops.empty()) {
                    std::string want;
                    for (const auto& s : stops) want += (want.empty() ? "" : " or ") + ("'" + s + "'");
                    fail(tk.pos, "unexpected end of template: missing " + want);
                }
                return body;
            }
            if (tk.type == Tok::text) {
                auto s = std::make_unique<Stmt>();
                s->kind = StmtKind::text;
                s->pos = tk.pos;
                s->text = tk.text;
                body.push_back(std::move(s));
                advance();
            } else if (tk.type == Tok::var_begin) {
                auto s = std::make_unique<Stmt>();
                s->kind = StmtKind::output;
                s->pos = tk.pos;
                advance();
                s->expr = parse_tuple(true);
                if (cur().type != Tok::var_end) unexpected("'}}'");
                advance();
                body.push_back(std::move(s));
            } else if (tk.type == Tok::block_begin) {
                const Token& kw = peek();
                if (kw.type != Tok::name) {
                    advance();
                    unexpected("a statement name");
                }
                if (stops.count(kw.text)) {
                    advance();
                    return body;
                }
                advance();
                body.push_back(parse_statement());
            } else {
                unexpected("template text or a tag");
            }
        }
    }

    StmtPtr parse_statement() {
        const Token& kw = cur();
        DepthGuard g(*this, kw.pos);
        std::string k = kw.text;
        std::size_t pos = kw.pos;
        advance();
        auto s = std::make_unique<Stmt>();
        s->pos = pos;
        if (k == "if") return parse_if(std::move(s));
        if (k == "for") return parse_for(std::move(s));
        if (k == "set") return parse_set(std::move(s));
        if (k == "macro") return parse_macro(std::move(s));
        if (k == "call") return parse_call_block(std::move(s));
        if (k == "filter") return parse_filter_block(std::move(s));
        if (k == "raw") {
            expect_block_end();
            s->kind = StmtKind::text;
            if (cur().type == Tok::text) {
                s->text = cur().text;
                advance();
            }
            if (cur().type != Tok::block_begin || !(peek().type == Tok::name && peek().text == "endraw"))
                unexpected("'{% endraw %}'");
            advance();
            advance();
            expect_block_end();
            return s;
        }
        if (k == "break" || k == "continue") {
            if (loop_depth_ == 0) fail(pos, "'" + k + "' outside of a for loop");
            s->kind = k == "break" ? StmtKind::break_ : StmtKind::continue_;
            expect_block_end();
            return s;
        }
        if (k == "generation") {
            // HF's AssistantTracker extension: the body renders as is.
            expect_block_end();
            s->kind = StmtKind::if_;
            auto body = parse_body({"endgeneration"});
            advance();
            expect_block_end();
            auto always = std::make_unique<Expr>();
            always->kind = ExprKind::literal;
            always->value = Value::boolean(true);
            s->branches.emplace_back(std::move(always), std::move(body));
            return s;
        }
        if (k.rfind("end", 0) == 0 || k == "elif" || k == "else")
            fail(pos, "unexpected '{% " + k + " %}': no open block here that it could continue or close");
        static const std::set<std::string> known_unsupported = {"include", "extends", "import", "from", "block",
                                                                 "do", "with", "autoescape", "trans"};
        if (known_unsupported.count(k))
            fail(pos, "the '" + k + "' tag is not supported in chat templates (Hugging Face renders without it)");
        fail(pos, "unknown tag '" + k + "'");
    }

    StmtPtr parse_if(StmtPtr s) {
        s->kind = StmtKind::if_;
        ++if_depth_;
        auto cond = parse_tuple(true);
        expect_block_end();
        while (true) {
            auto body = parse_body({"elif", "else", "endif"});
            s->branches.emplace_back(std::move(cond), std::move(body));
            std::string k = cur().text;
            advance();
            if (k == "elif") {
                cond = parse_tuple(true);
                expect_block_end();
                continue;
            }
            if (k == "else") {
                expect_block_end();
                s->else_body = parse_body({"endif"});
                advance();
            }
            expect_block_end();
            break;
        }
        --if_depth_;
        return s;
    }

    std::vector<std::string> parse_targets() {
        std::vector<std::string> targets;
        bool paren = skip_op("(");
        targets.push_back(expect_name());
        while (skip_op(",")) {
            if (cur().type != Tok::name) break;
            targets.push_back(expect_name());
        }
        if (paren) expect_op(")");
        return targets;
    }

    StmtPtr parse_for(StmtPtr s) {
        s->kind = StmtKind::for_;
        s->targets = parse_targets();
        if (!skip_name("in")) unexpected("'in'");
        s->expr = parse_tuple(false);
        if (skip_name("if")) s->cond = parse_expression(true);
        if (is_name("recursive")) fail(cur().pos, "recursive for loops are not supported");
        expect_block_end();
        ++loop_depth_;
        s->body = parse_body({"else", "endfor"});
        --loop_depth_;
        std::string k = cur().text;
        advance();
        expect_block_end();
        if (k == "else") {
            s->else_body = parse_body({"endfor"});
            advance();
            expect_block_end();
        }
        return s;
    }

    StmtPtr parse_set(StmtPtr s) {
        std::string first = expect_name();
        if (skip_op(".")) {
            s->targets = {first};
            s->attr_target = expect_name();
        } else {
            s->targets = {first};
            while (skip_op(",")) s->targets.push_back(expect_name());
        }
        if (skip_op("=")) {
            s->kind = StmtKind::set;
            s->expr = parse_tuple(true);
            expect_block_end();
            return s;
        }
        if (!s->attr_target.empty() || s->targets.size() != 1) unexpected("'='");
        s->kind = StmtKind::set_block;
        if (is_op("|")) s->expr = parse_filter_chain(block_input(cur().pos));
        expect_block_end();
        s->body = parse_body({"endset"});
        advance();
        expect_block_end();
        return s;
    }

    void parse_params(std::vector<std::pair<std::string, ExprPtr>>& params) {
        expect_op("(");
        while (!is_op(")")) {
            if (!params.empty()) expect_op(",");
            if (is_op(")")) break;
            std::string n = expect_name();
            ExprPtr def;
            if (skip_op("=")) def = parse_expression(true);
            params.emplace_back(std::move(n), std::move(def));
        }
        advance();
    }

    StmtPtr parse_macro(StmtPtr s) {
        s->kind = StmtKind::macro;
        s->name = expect_name();
        parse_params(s->params);
        expect_block_end();
        int saved_loops = loop_depth_;
        loop_depth_ = 0;
        s->body = parse_body({"endmacro"});
        loop_depth_ = saved_loops;
        advance();
        if (cur().type == Tok::name) advance();  // {% endmacro name %}
        expect_block_end();
        return s;
    }

    StmtPtr parse_call_block(StmtPtr s) {
        s->kind = StmtKind::call_block;
        if (is_op("(")) parse_params(s->params);
        s->expr = parse_expression(true);
        if (s->expr->kind != ExprKind::call) fail(s->pos, "'call' needs a macro call, e.g. {% call m() %}");
        expect_block_end();
        s->body = parse_body({"endcall"});
        advance();
        expect_block_end();
        return s;
    }

    StmtPtr parse_filter_block(StmtPtr s) {
        s->kind = StmtKind::filter_block;
        auto in = block_input(cur().pos);
        s->expr = parse_filter_chain(std::move(in), /*leading_pipe=*/false);
        expect_block_end();
        s->body = parse_body({"endfilter"});
        advance();
        expect_block_end();
        return s;
    }

    static ExprPtr block_input(std::size_t pos) {
        auto e = std::make_unique<Expr>();
        e->kind = ExprKind::block_input;
        e->pos = pos;
        return e;
    }

    // ---- expressions ----
    ExprPtr make(ExprKind k, std::size_t pos) {
        auto e = std::make_unique<Expr>();
        e->kind = k;
        e->pos = pos;
        return e;
    }

    // Jinja2's parse_tuple: an expression, or a bare comma-separated tuple.
    ExprPtr parse_tuple(bool with_condexpr) {
        std::size_t pos = cur().pos;
        auto first = parse_expression(with_condexpr);
        if (!is_op(",")) return first;
        auto t = make(ExprKind::tuple, pos);
        t->kids.push_back(std::move(first));
        while (skip_op(",")) {
            if (cur().type == Tok::var_end || cur().type == Tok::block_end || is_op(")")) break;
            t->kids.push_back(parse_expression(with_condexpr));
        }
        return t;
    }

    ExprPtr parse_expression(bool with_condexpr) {
        DepthGuard g(*this, cur().pos);
        if (!with_condexpr) return parse_or();
        std::size_t pos = cur().pos;
        auto e = parse_or();
        while (skip_name("if")) {
            ++if_depth_;
            auto c = make(ExprKind::cond, pos);
            auto test = parse_or();
            ExprPtr other;
            if (skip_name("else")) other = parse_expression(true);
            --if_depth_;
            c->kids.push_back(std::move(e));
            c->kids.push_back(std::move(test));
            c->kids.push_back(std::move(other));
            e = std::move(c);
        }
        return e;
    }

    ExprPtr binary(std::string op, ExprPtr a, ExprPtr b, std::size_t pos) {
        auto e = make(ExprKind::binary, pos);
        e->name = std::move(op);
        e->kids.push_back(std::move(a));
        e->kids.push_back(std::move(b));
        return e;
    }

    ExprPtr parse_or() {
        auto e = parse_and();
        while (is_name("or")) {
            std::size_t pos = cur().pos;
            advance();
            e = binary("or", std::move(e), parse_and(), pos);
        }
        return e;
    }
    ExprPtr parse_and() {
        auto e = parse_not();
        while (is_name("and")) {
            std::size_t pos = cur().pos;
            advance();
            e = binary("and", std::move(e), parse_not(), pos);
        }
        return e;
    }
    ExprPtr parse_not() {
        if (is_name("not")) {
            DepthGuard g(*this, cur().pos);
            auto e = make(ExprKind::unary, cur().pos);
            advance();
            e->name = "not";
            e->kids.push_back(parse_not());
            return e;
        }
        return parse_compare();
    }
    ExprPtr parse_compare() {
        std::size_t pos = cur().pos;
        auto e = parse_math1();
        ExprPtr cmp;
        while (true) {
            std::string op;
            if (cur().type == Tok::op &&
                (cur().text == "==" || cur().text == "!=" || cur().text == "<" || cur().text == ">" ||
                 cur().text == "<=" || cur().text == ">=")) {
                op = cur().text;
                advance();
            } else if (is_name("in")) {
                op = "in";
                advance();
            } else if (is_name("not") && peek().type == Tok::name && peek().text == "in") {
                op = "notin";
                advance();
                advance();
            } else {
                break;
            }
            if (!cmp) {
                cmp = make(ExprKind::compare, pos);
                cmp->kids.push_back(std::move(e));
            }
            cmp->ops.push_back(op);
            cmp->kids.push_back(parse_math1());
        }
        return cmp ? std::move(cmp) : std::move(e);
    }
    ExprPtr parse_math1() {
        auto e = parse_concat();
        while (is_op("+") || is_op("-")) {
            std::string op = cur().text;
            std::size_t pos = cur().pos;
            advance();
            e = binary(op, std::move(e), parse_concat(), pos);
        }
        return e;
    }
    ExprPtr parse_concat() {
        auto e = parse_math2();
        while (is_op("~")) {
            std::size_t pos = cur().pos;
            advance();
            e = binary("~", std::move(e), parse_math2(), pos);
        }
        return e;
    }
    ExprPtr parse_math2() {
        auto e = parse_pow();
        while (is_op("*") || is_op("/") || is_op("//") || is_op("%")) {
            std::string op = cur().text;
            std::size_t pos = cur().pos;
            advance();
            e = binary(op, std::move(e), parse_pow(), pos);
        }
        return e;
    }
    ExprPtr parse_pow() {
        auto e = parse_unary(true);
        while (is_op("**")) {
            std::size_t pos = cur().pos;
            advance();
            e = binary("**", std::move(e), parse_unary(true), pos);
        }
        return e;
    }
    ExprPtr parse_unary(bool with_filter) {
        DepthGuard g(*this, cur().pos);
        ExprPtr e;
        if (is_op("-") || is_op("+")) {
            e = make(ExprKind::unary, cur().pos);
            e->name = cur().text;
            advance();
            e->kids.push_back(parse_unary(false));
        } else {
            e = parse_primary();
        }
        e = parse_postfix(std::move(e));
        if (with_filter) e = parse_filter_expr(std::move(e));
        return e;
    }

    ExprPtr parse_primary() {
        const Token& tk = cur();
        std::size_t pos = tk.pos;
        if (tk.type == Tok::name) {
            const std::string& n = tk.text;
            auto lit = make(ExprKind::literal, pos);
            if (n == "true" || n == "True") lit->value = Value::boolean(true);
            else if (n == "false" || n == "False") lit->value = Value::boolean(false);
            else if (n == "none" || n == "None") lit->value = Value::none();
            else {
                auto e = make(ExprKind::name, pos);
                e->name = n;
                advance();
                return e;
            }
            advance();
            return lit;
        }
        if (tk.type == Tok::string) {
            std::string s = tk.text;
            advance();
            while (cur().type == Tok::string) {  // adjacent literals concatenate
                s += cur().text;
                advance();
            }
            auto lit = make(ExprKind::literal, pos);
            lit->value = Value::string(std::move(s));
            return lit;
        }
        if (tk.type == Tok::integer || tk.type == Tok::floating) {
            auto lit = make(ExprKind::literal, pos);
            lit->value = tk.type == Tok::integer ? Value::integer(tk.ival) : Value::floating(tk.fval);
            advance();
            return lit;
        }
        if (tk.type == Tok::op) {
            if (tk.text == "(") {
                advance();
                if (skip_op(")")) return make(ExprKind::tuple, pos);
                auto first = parse_expression(true);
                if (skip_op(")")) return first;
                auto t = make(ExprKind::tuple, pos);
                t->kids.push_back(std::move(first));
                while (skip_op(",")) {
                    if (is_op(")")) break;
                    t->kids.push_back(parse_expression(true));
                }
                expect_op(")");
                return t;
            }
            if (tk.text == "[") {
                advance();
                auto l = make(ExprKind::list, pos);
                while (!is_op("]")) {
                    if (!l->kids.empty()) expect_op(",");
                    if (is_op("]")) break;
                    l->kids.push_back(parse_expression(true));
                }
                advance();
                return l;
            }
            if (tk.text == "{") {
                advance();
                auto d = make(ExprKind::dict, pos);
                while (!is_op("}")) {
                    if (!d->kids.empty()) expect_op(",");
                    if (is_op("}")) break;
                    d->kids.push_back(parse_expression(true));
                    expect_op(":");
                    d->kids.push_back(parse_expression(true));
                }
                advance();
                return d;
            }
        }
        unexpected("an expression");
    }

    ExprPtr parse_postfix(ExprPtr e) {
        while (true) {
            if (is_op(".")) {
                std::size_t pos = cur().pos;
                advance();
                if (cur().type == Tok::name) {
                    auto a = make(ExprKind::attr, pos);
                    a->name = cur().text;
                    advance();
                    a->kids.push_back(std::move(e));
                    e = std::move(a);
                } else if (cur().type == Tok::integer) {
                    auto it = make(ExprKind::item, pos);
                    auto idx = make(ExprKind::literal, cur().pos);
                    idx->value = Value::integer(cur().ival);
                    advance();
                    it->kids.push_back(std::move(e));
                    it->kids.push_back(std::move(idx));
                    e = std::move(it);
                } else {
                    unexpected("an attribute name");
                }
            } else if (is_op("[")) {
                std::size_t pos = cur().pos;
                advance();
                e = parse_subscript(std::move(e), pos);
            } else if (is_op("(")) {
                e = parse_call(std::move(e));
            } else {
                return e;
            }
        }
    }

    ExprPtr parse_subscript(ExprPtr obj, std::size_t pos) {
        ExprPtr parts[3];
        int n = 0;
        bool is_slice = false;
        while (true) {
            if (is_op(":")) {
                is_slice = true;
                advance();
                if (++n > 2) fail(cur().pos, "too many ':' in a slice");
                continue;
            }
            if (is_op("]")) break;
            if (parts[n]) unexpected("']'");
            parts[n] = parse_expression(true);
            if (is_op(",")) fail(cur().pos, "tuple subscripts are not supported");
        }
        advance();
        if (!is_slice) {
            if (!parts[0]) fail(pos, "empty subscript");
            auto it = make(ExprKind::item, pos);
            it->kids.push_back(std::move(obj));
            it->kids.push_back(std::move(parts[0]));
            return it;
        }
        auto s = make(ExprKind::slice, pos);
        s->kids.push_back(std::move(obj));
        for (auto& p : parts) s->kids.push_back(std::move(p));
        return s;
    }

    void parse_call_args(Expr& e) {
        expect_op("(");
        bool any = false;
        while (!is_op(")")) {
            if (any) expect_op(",");
            if (is_op(")")) break;
            any = true;
            if (is_op("*") || is_op("**")) fail(cur().pos, "*args / **kwargs in calls are not supported");
            if (cur().type == Tok::name && peek().type == Tok::op && peek().text == "=") {
                std::string n = cur().text;
                advance();
                advance();
                e.kwargs.emplace_back(std::move(n), parse_expression(true));
            } else {
                if (!e.kwargs.empty()) fail(cur().pos, "positional argument after a keyword argument");
                e.kids.push_back(parse_expression(true));
            }
        }
        advance();
    }

    ExprPtr parse_call(ExprPtr callee) {
        auto c = make(ExprKind::call, callee->pos);  // errors point at the callee's name
        c->kids.push_back(std::move(callee));
        parse_call_args(*c);
        return c;
    }

    ExprPtr parse_filter_expr(ExprPtr e) {
        while (true) {
            if (is_op("|")) {
                e = parse_filter_chain(std::move(e));
            } else if (is_name("is")) {
                e = parse_test(std::move(e));
            } else if (is_op("(")) {
                e = parse_call(std::move(e));
            } else {
                return e;
            }
        }
    }

    // One or more `| name(args)` applied to `in` (the first `|` is optional for filter blocks).
    ExprPtr parse_filter_chain(ExprPtr in, bool leading_pipe = true) {
        bool first = true;
        while (first ? (!leading_pipe || is_op("|")) : is_op("|")) {
            if (!first || leading_pipe) advance();
            first = false;
            std::size_t pos = cur().pos;
            std::string n = expect_name();
            while (is_op(".") && peek().type == Tok::name) {
                advance();
                n += "." + cur().text;
                advance();
            }
            if (if_depth_ == 0 && !is_known_filter(n)) fail(pos, "unknown filter '" + n + "'");
            auto f = make(ExprKind::filter, pos);
            f->name = n;
            f->kids.push_back(std::move(in));
            if (is_op("(")) parse_call_args(*f);
            in = std::move(f);
        }
        return in;
    }

    ExprPtr parse_test(ExprPtr in) {
        std::size_t pos = cur().pos;
        advance();  // is
        bool negate = skip_name("not");
        std::size_t npos = cur().pos;
        std::string n = expect_name();
        while (is_op(".") && peek().type == Tok::name) {
            advance();
            n += "." + cur().text;
            advance();
        }
        if (if_depth_ == 0 && !is_known_test(n)) fail(npos, "unknown test '" + n + "'");
        auto t = make(ExprKind::test, pos);
        t->name = n;
        t->negate = negate;
        t->kids.push_back(std::move(in));
        if (is_op("(")) {
            parse_call_args(*t);
        } else if ((cur().type == Tok::name || cur().type == Tok::string || cur().type == Tok::integer ||
                    cur().type == Tok::floating || is_op("[") || is_op("{")) &&
                   !is_name("else") && !is_name("or") && !is_name("and")) {
            if (is_name("is")) fail(cur().pos, "tests cannot be chained with 'is'");
            auto arg = parse_postfix(parse_primary());
            t->kids.push_back(std::move(arg));
        }
        return t;
    }

    const std::vector<Token>& t_;
    const SourceMap& map_;
    const std::string& name_;
    std::size_t i_ = 0;
    int depth_ = 0;
    int loop_depth_ = 0;
    int if_depth_ = 0;
};

}  // namespace

Body parse_template(const std::vector<Token>& tokens, const SourceMap& map, const std::string& template_name) {
    return Parser(tokens, map, template_name).parse();
}

}  // namespace ft::jinja
