#include "tokenizer/jinja_interpreter.h"

#include <cstdio>

#include "ft/error.h"
#include "tokenizer/jinja_parser.h"

namespace ft::jinja {

std::tm parse_fixed_time(const std::string& text) {
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
    char tail = 0;
    int n = std::sscanf(text.c_str(), "%4d-%2d-%2d %2d:%2d:%2d%c", &y, &mo, &d, &h, &mi, &s, &tail);
    if (!(n == 6 || n == 3) || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 ||
        s < 0 || s > 60)
        throw Error(ErrorCode::invalid_argument, "bad time '" + text + "'", "write it as \"YYYY-MM-DD HH:MM:SS\"");
    std::tm tm{};
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = s;
    // Day of week / year from the civil date (no time zone involved).
    auto days_from_civil = [](int yy, unsigned m, unsigned dd) {
        yy -= m <= 2;
        const int era = (yy >= 0 ? yy : yy - 399) / 400;
        const unsigned yoe = static_cast<unsigned>(yy - era * 400);
        const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + dd - 1;
        const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        return era * 146097 + static_cast<int>(doe) - 719468;
    };
    int days = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
    tm.tm_wday = ((days % 7) + 11) % 7;  // 1970-01-01 was a Thursday
    tm.tm_yday = days - days_from_civil(y, 1, 1);
    return tm;
}

Template::Template(std::string_view source, std::string name)
    : name_(std::move(name)), source_(normalize_template_source(source)), map_(source_) {
    auto tokens = tokenize(source_, map_, name_);
    body_ = parse_template(tokens, map_, name_);
}

std::string Template::render(const Variables& vars, const RenderOptions& options) const {
    Interpreter in(*this, options);
    return in.run(vars);
}

Value* Scope::find(const std::string& name) {
    for (Scope* s = this; s; s = s->parent)
        for (auto& v : s->vars)
            if (v.first == name) return &v.second;
    return nullptr;
}

void Scope::set(const std::string& name, Value v) {
    for (auto& e : vars) {
        if (e.first == name) {
            e.second = std::move(v);
            return;
        }
    }
    vars.emplace_back(name, std::move(v));
}

Interpreter::Interpreter(const Template& tpl, const RenderOptions& options) : tpl_(tpl), options_(options) {}

std::string Interpreter::run(const Variables& vars) {
    install_globals(root_);
    context_.parent = &root_;  // the render context sits above the globals, as in Jinja2
    for (const auto& [k, v] : vars) context_.set(k, v);
    std::string out;
    out_ = &out;
    exec(tpl_.body_, context_);
    return out;
}

void Interpreter::fail(std::size_t pos, const std::string& msg) const {
    throw Error(ErrorCode::invalid_argument, tpl_.name_ + ": " + tpl_.map_.where(pos) + ": " + msg,
                "the template cannot render this input; check the messages/tools against what the template expects");
}

void Interpreter::fail_limit(const std::string& msg) const {
    throw Error(ErrorCode::out_of_memory, tpl_.name_ + ": " + msg, "the template or its input is runaway");
}

void Interpreter::count_iterations(std::uint64_t n) {
    iterations_ += n;
    if (iterations_ > options_.limits.max_loop_iterations)
        fail_limit("more than " + std::to_string(options_.limits.max_loop_iterations) + " loop iterations");
}

void Interpreter::write_out(std::string_view text) {
    if (out_->size() + text.size() > options_.limits.max_output_bytes)
        fail_limit("output larger than " + std::to_string(options_.limits.max_output_bytes) + " bytes");
    out_->append(text);
}

std::string Interpreter::render_body(const Body& body, Scope& scope) {
    std::string buf;
    std::string* saved = out_;
    out_ = &buf;
    try {
        exec(body, scope);
    } catch (...) {
        out_ = saved;
        throw;
    }
    out_ = saved;
    return buf;
}

Interpreter::Flow Interpreter::exec(const Body& body, Scope& scope) {
    for (const auto& s : body) {
        Flow f = exec_stmt(*s, scope);
        if (f != Flow::normal) return f;
    }
    return Flow::normal;
}

Interpreter::Flow Interpreter::exec_stmt(const Stmt& s, Scope& scope) {
    switch (s.kind) {
        case StmtKind::text: write_out(s.text); return Flow::normal;
        case StmtKind::output: {
            Value v = eval(*s.expr, scope);
            if (v.is_string()) write_out(v.str());
            else write_out(v.to_string());
            return Flow::normal;
        }
        case StmtKind::if_: {
            for (const auto& [cond, body] : s.branches)
                if (eval(*cond, scope).truthy()) return exec(body, scope);
            return exec(s.else_body, scope);
        }
        case StmtKind::for_: return exec_for(s, scope);
        case StmtKind::set: {
            Value v = eval(*s.expr, scope);
            if (!s.attr_target.empty()) {
                Value* ns = scope.find(s.targets[0]);
                if (!ns || !ns->is_namespace())
                    fail(s.pos, "cannot assign attribute '" + s.attr_target + "' on '" + s.targets[0] +
                                    "': only namespace() objects allow it");
                ns->mutable_dict().set(s.attr_target, std::move(v));
            } else if (s.targets.size() == 1) {
                scope.set(s.targets[0], std::move(v));
            } else {
                List items = iterate(*this, v, s.pos);
                if (items.size() != s.targets.size())
                    fail(s.pos, "cannot unpack " + std::to_string(items.size()) + " values into " +
                                    std::to_string(s.targets.size()) + " names");
                for (std::size_t i = 0; i < items.size(); ++i) scope.set(s.targets[i], items[i]);
            }
            return Flow::normal;
        }
        case StmtKind::set_block: {
            Value captured = Value::string(render_body(s.body, scope));
            if (s.expr) {
                const Value* saved = block_input_;
                block_input_ = &captured;
                Value v = eval(*s.expr, scope);
                block_input_ = saved;
                scope.set(s.targets[0], std::move(v));
            } else {
                scope.set(s.targets[0], std::move(captured));
            }
            return Flow::normal;
        }
        case StmtKind::macro: scope.set(s.name, make_macro(s)); return Flow::normal;
        case StmtKind::call_block: {
            const Expr& call = *s.expr;
            Value callee = eval(*call.kids[0], scope);
            CallArgs args;
            eval_args(call, scope, args, 1);
            Scope* defining = &scope;
            const Stmt* stmt = &s;
            Value caller = Value::callable("caller", [defining, stmt](Interpreter& in, CallArgs& a, std::size_t) {
                Scope local;
                local.parent = defining;
                for (std::size_t i = 0; i < stmt->params.size(); ++i) {
                    const auto& [pname, pdef] = stmt->params[i];
                    if (i < a.pos.size()) local.set(pname, a.pos[i]);
                    else if (pdef) local.set(pname, in.eval(*pdef, local));
                    else local.set(pname, Value::undefined("'" + pname + "' is undefined"));
                }
                for (auto& [k, v] : a.kw) local.set(k, v);
                return Value::string(in.render_body(stmt->body, local));
            });
            args.kw.emplace_back("caller", caller);
            Value r = this->call(callee, args, call.pos);
            write_out(r.to_string());
            return Flow::normal;
        }
        case StmtKind::filter_block: {
            Value captured = Value::string(render_body(s.body, scope));
            const Value* saved = block_input_;
            block_input_ = &captured;
            Value v = eval(*s.expr, scope);
            block_input_ = saved;
            write_out(v.to_string());
            return Flow::normal;
        }
        case StmtKind::break_: return Flow::break_;
        case StmtKind::continue_: return Flow::continue_;
    }
    return Flow::normal;
}

Interpreter::Flow Interpreter::exec_for(const Stmt& s, Scope& scope) {
    Value seq = eval(*s.expr, scope);
    if (seq.is_none() || seq.is_number() || seq.is_callable())
        fail(s.expr->pos, "'" + seq.type_name() + "' object is not iterable");
    List items = iterate(*this, seq, s.expr->pos);

    Scope loop_scope;
    loop_scope.parent = &scope;
    auto bind = [&](Scope& sc, const Value& item) {
        if (s.targets.size() == 1) {
            sc.set(s.targets[0], item);
            return;
        }
        List parts = iterate(*this, item, s.pos);
        if (parts.size() != s.targets.size())
            fail(s.pos, "cannot unpack " + std::to_string(parts.size()) + " values into " +
                            std::to_string(s.targets.size()) + " loop variables");
        for (std::size_t i = 0; i < parts.size(); ++i) sc.set(s.targets[i], parts[i]);
    };
    if (s.cond) {
        List kept;
        for (const auto& item : items) {
            count_iterations(1);
            Scope tmp;
            tmp.parent = &scope;
            bind(tmp, item);
            if (eval(*s.cond, tmp).truthy()) kept.push_back(item);
        }
        items = std::move(kept);
    }
    if (items.empty()) return exec(s.else_body, scope);

    const auto n = static_cast<std::int64_t>(items.size());
    for (std::int64_t i = 0; i < n; ++i) {
        count_iterations(1);
        bind(loop_scope, items[static_cast<std::size_t>(i)]);
        Value loop = Value::dict();
        Dict& d = loop.mutable_dict();
        d.entries.reserve(12);
        d.entries.emplace_back("index", Value::integer(i + 1));
        d.entries.emplace_back("index0", Value::integer(i));
        d.entries.emplace_back("revindex", Value::integer(n - i));
        d.entries.emplace_back("revindex0", Value::integer(n - i - 1));
        d.entries.emplace_back("first", Value::boolean(i == 0));
        d.entries.emplace_back("last", Value::boolean(i == n - 1));
        d.entries.emplace_back("length", Value::integer(n));
        d.entries.emplace_back("depth", Value::integer(1));
        d.entries.emplace_back("depth0", Value::integer(0));
        d.entries.emplace_back("previtem", i > 0 ? items[static_cast<std::size_t>(i - 1)]
                                                 : Value::undefined("there is no previous item"));
        d.entries.emplace_back("nextitem", i + 1 < n ? items[static_cast<std::size_t>(i + 1)]
                                                     : Value::undefined("there is no next item"));
        std::int64_t idx = i;
        d.entries.emplace_back("cycle", Value::callable("loop.cycle", [idx](Interpreter& in, CallArgs& a,
                                                                            std::size_t pos) {
            if (a.pos.empty()) in.fail(pos, "loop.cycle() needs at least one argument");
            return a.pos[static_cast<std::size_t>(idx) % a.pos.size()];
        }));
        loop_scope.set("loop", std::move(loop));
        Flow f = exec(s.body, loop_scope);
        if (f == Flow::break_) break;
    }
    return Flow::normal;
}

Value Interpreter::make_macro(const Stmt& s) {
    const Stmt* stmt = &s;
    Scope* root = &context_;
    return Value::callable(s.name, [stmt, root](Interpreter& in, CallArgs& a, std::size_t pos) {
        if (++in.call_depth_ > in.options_.limits.max_call_depth) {
            --in.call_depth_;
            in.fail_limit("macro calls nested deeper than " + std::to_string(in.options_.limits.max_call_depth));
        }
        struct DepthRestore {
            int& d;
            ~DepthRestore() { --d; }
        } restore{in.call_depth_};
        Scope local;
        // Macros see the render context (the scope above the globals), not the caller's locals.
        local.parent = root;
        const auto& params = stmt->params;
        if (a.pos.size() > params.size())
            in.fail(pos, "macro '" + stmt->name + "' takes " + std::to_string(params.size()) +
                             " arguments, got " + std::to_string(a.pos.size()));
        std::vector<bool> bound(params.size(), false);
        for (std::size_t i = 0; i < a.pos.size(); ++i) {
            local.set(params[i].first, a.pos[i]);
            bound[i] = true;
        }
        Value caller;
        for (auto& [k, v] : a.kw) {
            if (k == "caller") {
                caller = v;
                continue;
            }
            bool found = false;
            for (std::size_t i = 0; i < params.size(); ++i) {
                if (params[i].first == k) {
                    if (bound[i]) in.fail(pos, "macro '" + stmt->name + "' got argument '" + k + "' twice");
                    local.set(k, v);
                    bound[i] = true;
                    found = true;
                }
            }
            if (!found) in.fail(pos, "macro '" + stmt->name + "' has no argument named '" + k + "'");
        }
        for (std::size_t i = 0; i < params.size(); ++i) {
            if (bound[i]) continue;
            if (params[i].second) local.set(params[i].first, in.eval(*params[i].second, local));
            else local.set(params[i].first, Value::undefined("'" + params[i].first + "' is undefined"));
        }
        if (!caller.is_undefined()) local.set("caller", caller);
        local.set("varargs", Value::list());
        local.set("kwargs", Value::dict());
        return Value::string(in.render_body(stmt->body, local));
    });
}

Value Interpreter::call(const Value& callee, CallArgs& args, std::size_t pos) {
    if (callee.is_undefined()) {
        const std::string& hint = callee.str();
        fail(pos, hint.empty() ? std::string("call of an undefined value") : hint);
    }
    if (!callee.is_callable()) fail(pos, "'" + callee.type_name() + "' object is not callable");
    return callee.fn().fn(*this, args, pos);
}

void Interpreter::eval_args(const Expr& e, Scope& scope, CallArgs& out, std::size_t first_kid) {
    for (std::size_t i = first_kid; i < e.kids.size(); ++i) out.pos.push_back(eval(*e.kids[i], scope));
    for (const auto& [k, v] : e.kwargs) out.kw.emplace_back(k, eval(*v, scope));
}

Value Interpreter::eval(const Expr& e, Scope& scope) {
    switch (e.kind) {
        case ExprKind::literal: return e.value;
        case ExprKind::name: {
            if (Value* v = scope.find(e.name)) return *v;
            return Value::undefined("'" + e.name + "' is undefined");
        }
        case ExprKind::list:
        case ExprKind::tuple: {
            List items;
            items.reserve(e.kids.size());
            for (const auto& k : e.kids) items.push_back(eval(*k, scope));
            return Value::list(std::move(items));
        }
        case ExprKind::dict: {
            Value d = Value::dict();
            for (std::size_t i = 0; i + 1 < e.kids.size(); i += 2) {
                Value k = eval(*e.kids[i], scope);
                if (!k.is_string()) fail(e.kids[i]->pos, "dict keys must be strings here, got " + k.type_name());
                d.mutable_dict().set(k.str(), eval(*e.kids[i + 1], scope));
            }
            return d;
        }
        case ExprKind::attr: return get_attr(*this, eval(*e.kids[0], scope), e.name, e.pos);
        case ExprKind::item: return get_item(*this, eval(*e.kids[0], scope), eval(*e.kids[1], scope), e.pos);
        case ExprKind::slice: return eval_slice(e, scope);
        case ExprKind::call: {
            Value callee = eval(*e.kids[0], scope);
            CallArgs args;
            eval_args(e, scope, args, 1);
            return call(callee, args, e.pos);
        }
        case ExprKind::filter: {
            Value input = eval(*e.kids[0], scope);
            CallArgs args;
            eval_args(e, scope, args, 1);
            return apply_filter(*this, e.name, input, args, e.pos);
        }
        case ExprKind::test: {
            Value input = eval(*e.kids[0], scope);
            CallArgs args;
            eval_args(e, scope, args, 1);
            bool r = apply_test(*this, e.name, input, args, e.pos);
            return Value::boolean(e.negate ? !r : r);
        }
        case ExprKind::unary: {
            Value v = eval(*e.kids[0], scope);
            if (e.name == "not") return Value::boolean(!v.truthy());
            if (v.is_undefined()) fail(e.pos, v.str().empty() ? "undefined value" : v.str());
            if (!v.is_number()) fail(e.pos, "bad operand type for unary " + e.name + ": '" + v.type_name() + "'");
            if (e.name == "+") return v.is_bool() ? Value::integer(v.as_int()) : v;
            if (v.is_float()) return Value::floating(-v.as_double());
            if (v.as_int() == INT64_MIN) fail(e.pos, "integer overflow");
            return Value::integer(-v.as_int());
        }
        case ExprKind::binary: return eval_binary(e, scope);
        case ExprKind::compare: return eval_compare(e, scope);
        case ExprKind::cond: {
            if (eval(*e.kids[1], scope).truthy()) return eval(*e.kids[0], scope);
            if (e.kids[2]) return eval(*e.kids[2], scope);
            return Value::undefined("the inline if-expression evaluated to false and has no else");
        }
        case ExprKind::block_input:
            if (!block_input_) fail(e.pos, "internal: block input outside a filter block");
            return *block_input_;
    }
    fail(e.pos, "internal: unknown expression");
}

Value Interpreter::eval_binary(const Expr& e, Scope& scope) {
    if (e.name == "and") {
        Value a = eval(*e.kids[0], scope);
        return a.truthy() ? eval(*e.kids[1], scope) : a;
    }
    if (e.name == "or") {
        Value a = eval(*e.kids[0], scope);
        return a.truthy() ? a : eval(*e.kids[1], scope);
    }
    Value a = eval(*e.kids[0], scope);
    Value b = eval(*e.kids[1], scope);
    return binary_op(*this, e.name, a, b, e.pos);
}

Value Interpreter::eval_compare(const Expr& e, Scope& scope) {
    Value left = eval(*e.kids[0], scope);
    for (std::size_t i = 0; i < e.ops.size(); ++i) {
        Value right = eval(*e.kids[i + 1], scope);
        const std::string& op = e.ops[i];
        bool r;
        if (op == "==") r = values_equal(left, right);
        else if (op == "!=") r = !values_equal(left, right);
        else if (op == "in") r = contains(*this, right, left, e.pos);
        else if (op == "notin") r = !contains(*this, right, left, e.pos);
        else {
            int c = compare_values(*this, left, right, e.pos);
            r = op == "<" ? c < 0 : op == ">" ? c > 0 : op == "<=" ? c <= 0 : c >= 0;
        }
        if (!r) return Value::boolean(false);
        left = std::move(right);
    }
    return Value::boolean(true);
}

Value Interpreter::eval_slice(const Expr& e, Scope& scope) {
    Value obj = eval(*e.kids[0], scope);
    auto bound = [&](int k) -> std::optional<std::int64_t> {
        if (!e.kids[static_cast<std::size_t>(k)]) return std::nullopt;
        Value v = eval(*e.kids[static_cast<std::size_t>(k)], scope);
        if (v.is_none()) return std::nullopt;
        if (!v.is_int() && !v.is_bool()) fail(e.pos, "slice indices must be integers or None");
        return v.as_int();
    };
    auto start = bound(1), stop = bound(2), step_o = bound(3);
    std::int64_t step = step_o.value_or(1);
    if (step == 0) fail(e.pos, "slice step cannot be zero");
    if (obj.is_undefined()) fail(e.pos, obj.str().empty() ? "undefined value" : obj.str());

    std::vector<std::size_t> offs;
    std::int64_t len;
    if (obj.is_list()) {
        len = static_cast<std::int64_t>(obj.items().size());
    } else if (obj.is_string()) {
        offs = utf8_offsets(obj.str());
        len = static_cast<std::int64_t>(offs.size()) - 1;
    } else {
        fail(e.pos, "'" + obj.type_name() + "' object is not subscriptable");  // Jinja2 slices bypass getitem
    }
    // Python's slice.indices().
    auto clamp = [&](std::optional<std::int64_t> v, std::int64_t def_pos, std::int64_t def_neg) {
        if (!v) return step > 0 ? def_pos : def_neg;
        std::int64_t x = *v;
        if (x < 0) {
            x += len;
            if (x < 0) x = step > 0 ? 0 : -1;
        } else if (x >= len) {
            x = step > 0 ? len : len - 1;
        }
        return x;
    };
    std::int64_t lo = clamp(start, 0, len - 1);
    std::int64_t hi = clamp(stop, len, -1);
    std::vector<std::int64_t> idx;
    if (step > 0)
        for (std::int64_t i = lo; i < hi; i += step) idx.push_back(i);
    else
        for (std::int64_t i = lo; i > hi; i += step) idx.push_back(i);
    if (obj.is_list()) {
        List out;
        out.reserve(idx.size());
        for (auto i : idx) out.push_back(obj.items()[static_cast<std::size_t>(i)]);
        return Value::list(std::move(out));
    }
    std::string out;
    const std::string& s = obj.str();
    for (auto i : idx) {
        auto u = static_cast<std::size_t>(i);
        out.append(s, offs[u], offs[u + 1] - offs[u]);
    }
    return Value::string(std::move(out));
}

}  // namespace ft::jinja
