// Jinja2 filters and tests (the builtin set chat templates use), with HF's tojson.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>

#include "tokenizer/jinja_builtins_util.h"
#include "tokenizer/jinja_parser.h"

namespace ft::jinja {

namespace {

using FilterFn = Value (*)(Interpreter&, const Value&, CallArgs&, std::size_t);
using TestFn = bool (*)(Interpreter&, const Value&, CallArgs&, std::size_t);

const Value& need(Interpreter& in, const Value* v, std::size_t pos, const char* what) {
    if (!v) in.fail(pos, std::string(what) + ": missing argument");
    return *v;
}

std::string text_of(Interpreter& in, const Value& v, std::size_t pos) {
    (void)in;
    (void)pos;
    return v.to_string();
}

// Jinja2's make_attrgetter: "a.b.0" looked up item-first at each step.
Value attr_path(Interpreter& in, const Value& v, const std::string& path, std::size_t pos) {
    Value cur = v;
    std::size_t start = 0;
    while (true) {
        std::size_t dot = path.find('.', start);
        std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        bool digits = !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (cur.is_undefined()) fail_undefined(in, cur, pos);
        cur = digits ? get_item(in, cur, Value::integer(std::atoll(part.c_str())), pos)
                     : get_item(in, cur, Value::string(part), pos);
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    return cur;
}

Value f_tojson(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos) {
    // HF: tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False) = json.dumps(...)
    JsonOptions o;
    if (const Value* e = arg(a, 0, "ensure_ascii")) o.ensure_ascii = e->truthy();
    if (const Value* i = arg(a, 1, "indent"); i && !i->is_none()) {
        if (i->is_string()) o.indent = i->str();
        else if (i->is_int()) {
            const auto n = static_cast<std::size_t>(std::max<std::int64_t>(0, i->as_int()));
            check_string_size(in, n);  // tojson(indent=10**10) must be a limit error, not bad_alloc
            o.indent = std::string(n, ' ');
        }
        else in.fail(pos, "tojson: indent must be an integer or a string");
        o.item_sep = ",";
    }
    if (const Value* s = arg(a, 2, "separators"); s && !s->is_none()) {
        if (!s->is_list() || s->items().size() != 2 || !s->items()[0].is_string() || !s->items()[1].is_string())
            in.fail(pos, "tojson: separators must be a pair of strings");
        o.item_sep = s->items()[0].str();
        o.key_sep = s->items()[1].str();
    }
    if (const Value* k = arg(a, 3, "sort_keys")) o.sort_keys = k->truthy();
    return Value::string(to_json(in, v, o, pos));
}

Value f_trim(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos) {
    return Value::string(py_strip(text_of(in, v, pos), arg(a, 0, "chars"), true, true));
}
Value f_upper(Interpreter& in, const Value& v, CallArgs&, std::size_t pos) { return Value::string(py_upper(text_of(in, v, pos))); }
Value f_lower(Interpreter& in, const Value& v, CallArgs&, std::size_t pos) { return Value::string(py_lower(text_of(in, v, pos))); }
Value f_capitalize(Interpreter& in, const Value& v, CallArgs&, std::size_t pos) {
    return Value::string(py_capitalize(text_of(in, v, pos)));
}
Value f_title(Interpreter& in, const Value& v, CallArgs&, std::size_t pos) {
    // Jinja2: words start after runs of -, whitespace, ( { [ <; each word is capitalized.
    auto u = to_u32(text_of(in, v, pos));
    std::u32string out;
    bool word_start = true;
    for (char32_t c : u) {
        bool delim = c == '-' || c == '(' || c == '{' || c == '[' || c == '<' || is_py_space(c);
        if (delim) {
            out += c;
            word_start = true;
        } else {
            std::string one = to_utf8(std::u32string(1, c));
            auto conv = to_u32(word_start ? py_upper(one) : py_lower(one));
            out += conv;
            word_start = false;
        }
    }
    return Value::string(to_utf8(out));
}
Value f_replace(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos) {
    std::string s = text_of(in, v, pos);
    std::string from = need(in, arg(a, 0, "old"), pos, "replace").to_string();
    std::string to = need(in, arg(a, 1, "new"), pos, "replace").to_string();
    std::size_t hits = from.empty() ? utf8_length(s) + 1 : 0;
    if (!from.empty())
        for (std::size_t f = s.find(from); f != std::string::npos; f = s.find(from, f + from.size())) ++hits;
    if (to.size() > from.size()) check_string_size(in, s.size() + hits * (to.size() - from.size()));
    const Value* c = arg(a, 2, "count");
    std::int64_t count = c && !c->is_none() ? c->as_int() : -1;
    return Value::string(py_replace(s, from, to, count));
}
Value f_length(Interpreter& in, const Value& v, CallArgs&, std::size_t pos) {
    switch (v.kind()) {
        case Kind::undefined: return Value::integer(0);
        case Kind::string: return Value::integer(static_cast<std::int64_t>(utf8_length(v.str())));
        case Kind::list: return Value::integer(static_cast<std::int64_t>(v.items().size()));
        case Kind::dict:
            if (v.is_namespace()) break;
            return Value::integer(static_cast<std::int64_t>(v.dict_ref().size()));
        default: break;
    }
    in.fail(pos, "object of type '" + v.type_name() + "' has no len()");
}
Value f_first(Interpreter& in, const Value& v, CallArgs&, std::size_t pos) {
    List items = iterate(in, v, pos);
    if (items.empty()) return Value::undefined("No first item, sequence was empty.");
    return items.front();
}
Value f_last(Interpreter& in, const Value& v, CallArgs&, std::size_t pos) {
    if (v.is_dict()) in.fail(pos, "'dict' object is not reversible");
    List items = iterate(in, v, pos);
    if (items.empty()) return Value::undefined("No last item, sequence was empty.");
    return items.back();
}
Value f_join(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos) {
    std::string sep = arg(a, 0, "d") ? arg(a, 0, "d")->to_string() : "";
    const Value* attr = arg(a, 1, "attribute");
    std::string out;
    bool first = true;
    for (const auto& item : iterate(in, v, pos)) {
        if (!first) out += sep;
        first = false;
        out += attr && !attr->is_none() ? attr_path(in, item, attr->to_string(), pos).to_string() : item.to_string();
        check_string_size(in, out.size());
    }
    return Value::string(std::move(out));
}
Value f_default(Interpreter&, const Value& v, CallArgs& a, std::size_t) {
    const Value* d = arg(a, 0, "default_value");
    const Value* b = arg(a, 1, "boolean");
    bool use = v.is_undefined() || (b && b->truthy() && !v.truthy());
    if (!use) return v;
    return d ? *d : Value::string("");
}
Value f_list(Interpreter& in, const Value& v, CallArgs&, std::size_t pos) { return Value::list(iterate(in, v, pos)); }
Value f_string(Interpreter& in, const Value& v, CallArgs&, std::size_t pos) { return Value::string(text_of(in, v, pos)); }
Value f_safe(Interpreter&, const Value& v, CallArgs&, std::size_t) { return v.is_string() ? v : Value::string(v.to_string()); }
Value f_escape(Interpreter& in, const Value& v, CallArgs&, std::size_t pos) {
    std::string s = text_of(in, v, pos), out;
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&#34;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    }
    return Value::string(std::move(out));
}

bool parse_py_int(const std::string& text, int base, std::int64_t& out) {
    std::string t = py_strip(text, nullptr, true, true);
    t.erase(std::remove(t.begin(), t.end(), '_'), t.end());
    if (t.empty()) return false;
    errno = 0;
    char* end = nullptr;
    long long r = std::strtoll(t.c_str(), &end, base);
    if (errno || *end) return false;
    out = r;
    return true;
}
bool parse_py_float(const std::string& text, double& out) {
    std::string t = py_strip(text, nullptr, true, true);
    if (t.empty()) return false;
    char* end = nullptr;
    out = std::strtod(t.c_str(), &end);
    return *end == 0;
}

Value f_int(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos) {
    if (v.is_undefined()) fail_undefined(in, v, pos);  // int(Undefined) raises in Jinja2
    const Value* d = arg(a, 0, "default");
    const Value* b = arg(a, 1, "base");
    int base = b ? static_cast<int>(b->as_int()) : 10;
    Value def = d ? *d : Value::integer(0);
    if (v.is_int() || v.is_bool()) return Value::integer(v.as_int());
    if (v.is_float()) {
        double x = v.as_double();
        if (!std::isfinite(x) || std::fabs(x) > 9.2e18) return def;
        return Value::integer(static_cast<std::int64_t>(std::trunc(x)));
    }
    if (v.is_string()) {
        std::int64_t r;
        if (parse_py_int(v.str(), base, r)) return Value::integer(r);
        double f;
        if (parse_py_float(v.str(), f) && std::isfinite(f) && std::fabs(f) < 9.2e18)
            return Value::integer(static_cast<std::int64_t>(std::trunc(f)));
    }
    return def;
}
Value f_float(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos) {
    if (v.is_undefined()) fail_undefined(in, v, pos);
    const Value* d = arg(a, 0, "default");
    Value def = d ? *d : Value::floating(0.0);
    if (v.is_number()) return Value::floating(v.as_double());
    double f;
    if (v.is_string() && parse_py_float(v.str(), f)) return Value::floating(f);
    return def;
}
Value f_abs(Interpreter& in, const Value& v, CallArgs&, std::size_t pos) {
    if (v.is_float()) return Value::floating(std::fabs(v.as_double()));
    if (v.is_int() || v.is_bool()) {
        if (v.as_int() == INT64_MIN) in.fail(pos, "integer overflow");
        return Value::integer(std::llabs(v.as_int()));
    }
    in.fail(pos, "bad operand type for abs(): '" + v.type_name() + "'");
}
Value f_round(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos) {
    if (!v.is_number()) in.fail(pos, "round: a number is required, not " + v.type_name());
    std::int64_t prec = arg(a, 0, "precision") ? arg(a, 0, "precision")->as_int() : 0;
    std::string method = arg(a, 1, "method") ? arg(a, 1, "method")->to_string() : "common";
    // Python's round(int, n) stays an int; the floor/ceil methods divide, giving a float.
    if (!v.is_float() && method == "common" && prec >= 0) return Value::integer(v.as_int());
    double m = std::pow(10.0, static_cast<double>(prec));
    double x = v.as_double() * m;
    double r;
    if (method == "common") r = std::nearbyint(x);  // Python's round(): half to even
    else if (method == "floor") r = std::floor(x);
    else if (method == "ceil") r = std::ceil(x);
    else in.fail(pos, "round: method must be 'common', 'ceil' or 'floor'");
    return Value::floating(r / m);
}

Value sort_key(const Value& v, bool case_sensitive) {
    if (!case_sensitive && v.is_string()) return Value::string(py_lower(v.str()));
    return v;
}

Value f_sort(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos) {
    bool reverse = arg(a, 0, "reverse") && arg(a, 0, "reverse")->truthy();
    bool cs = arg(a, 1, "case_sensitive") && arg(a, 1, "case_sensitive")->truthy();
    const Value* attr = arg(a, 2, "attribute");
    List items = iterate(in, v, pos);
    std::vector<std::pair<Value, Value>> keyed;
    for (auto& it : items)
        keyed.emplace_back(sort_key(attr && !attr->is_none() ? attr_path(in, it, attr->to_string(), pos) : it, cs), it);
    std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
        int c = compare_values(in, x.first, y.first, pos);
        return reverse ? c > 0 : c < 0;
    });
    List out;
    for (auto& k : keyed) out.push_back(std::move(k.second));
    return Value::list(std::move(out));
}
Value f_dictsort(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos) {
    if (!v.is_mapping()) in.fail(pos, "dictsort: a dict is required");
    bool cs = arg(a, 0, "case_sensitive") && arg(a, 0, "case_sensitive")->truthy();
    std::string by = arg(a, 1, "by") ? arg(a, 1, "by")->to_string() : "key";
    bool reverse = arg(a, 2, "reverse") && arg(a, 2, "reverse")->truthy();
    List pairs;
    for (const auto& [k, val] : v.dict_ref().entries) pairs.push_back(Value::list({Value::string(k), val}));
    std::size_t idx = by == "value" ? 1 : 0;
    std::stable_sort(pairs.begin(), pairs.end(), [&](const Value& x, const Value& y) {
        int c = compare_values(in, sort_key(x.items()[idx], cs), sort_key(y.items()[idx], cs), pos);
        return reverse ? c > 0 : c < 0;
    });
    return Value::list(std::move(pairs));
}
Value f_unique(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos) {
    bool cs = arg(a, 0, "case_sensitive") && arg(a, 0, "case_sensitive")->truthy();
    const Value* attr = arg(a, 1, "attribute");
    List out, seen;
    for (const auto& it : iterate(in, v, pos)) {
        Value key = sort_key(attr && !attr->is_none() ? attr_path(in, it, attr->to_string(), pos) : it, cs);
        bool dup = false;
        for (const auto& s : seen)
            if (values_equal(s, key)) dup = true;
        if (dup) continue;
        seen.push_back(key);
        out.push_back(it);
    }
    return Value::list(std::move(out));
}
Value f_reverse(Interpreter& in, const Value& v, CallArgs&, std::size_t pos) {
    if (v.is_string()) {
        auto u = to_u32(v.str());
        std::reverse(u.begin(), u.end());
        return Value::string(to_utf8(u));
    }
    List items = iterate(in, v, pos);
    std::reverse(items.begin(), items.end());
    return Value::list(std::move(items));
}
Value f_items(Interpreter& in, const Value& v, CallArgs&, std::size_t pos) {
    if (v.is_undefined()) return Value::list();
    if (!v.is_mapping()) in.fail(pos, "items: a dict is required, got " + v.type_name());
    List out;
    for (const auto& [k, val] : v.dict_ref().entries) out.push_back(Value::list({Value::string(k), val}));
    return Value::list(std::move(out));
}
Value f_indent(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos) {
    if (v.is_undefined()) fail_undefined(in, v, pos);
    if (!v.is_string()) in.fail(pos, "indent: a string is required, not " + v.type_name());  // Jinja2: s += "\n"
    std::string ind = "    ";
    if (const Value* w = arg(a, 0, "width")) {
        if (!w->is_string()) check_string_size(in, static_cast<std::size_t>(std::max<std::int64_t>(0, w->as_int())));
        ind = w->is_string() ? w->str() : std::string(static_cast<std::size_t>(std::max<std::int64_t>(0, w->as_int())), ' ');
    }
    bool first = arg(a, 1, "first") && arg(a, 1, "first")->truthy();
    bool blank = arg(a, 2, "blank") && arg(a, 2, "blank")->truthy();
    std::string s = text_of(in, v, pos) + "\n";  // Jinja2 appends a newline before splitting lines
    auto lines = py_splitlines(s, false);
    check_string_size(in, s.size() + lines.size() * ind.size());
    std::string rv;
    if (blank) {
        for (std::size_t i = 0; i < lines.size(); ++i) rv += (i ? "\n" + ind : "") + lines[i];
    } else if (!lines.empty()) {
        rv = lines[0];
        for (std::size_t i = 1; i < lines.size(); ++i) rv += "\n" + (lines[i].empty() ? "" : ind + lines[i]);
    }
    if (first) rv = ind + rv;
    return Value::string(std::move(rv));
}

// map / select / reject / selectattr / rejectattr
Value f_map(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos) {
    List out;
    List items = iterate(in, v, pos);
    const Value* attr = nullptr;
    for (const auto& [k, val] : a.kw)
        if (k == "attribute") attr = &val;
    if (attr) {
        const Value* def = nullptr;
        for (const auto& [k, val] : a.kw)
            if (k == "default") def = &val;
        for (const auto& it : items) {
            Value r = attr_path(in, it, attr->to_string(), pos);
            out.push_back(r.is_undefined() && def ? *def : r);
        }
        return Value::list(std::move(out));
    }
    if (a.pos.empty() || !a.pos[0].is_string()) in.fail(pos, "map: needs a filter name or attribute=");
    std::string name = a.pos[0].str();
    CallArgs rest;
    rest.pos.assign(a.pos.begin() + 1, a.pos.end());
    rest.kw = a.kw;
    for (const auto& it : items) {
        CallArgs copy = rest;
        out.push_back(apply_filter(in, name, it, copy, pos));
    }
    return Value::list(std::move(out));
}

Value select_impl(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos, bool want, bool by_attr) {
    List out;
    std::size_t k = 0;
    std::string attr;
    if (by_attr) {
        if (a.pos.empty()) in.fail(pos, "selectattr/rejectattr: missing attribute name");
        attr = a.pos[0].to_string();
        k = 1;
    }
    std::string test;
    CallArgs targs;
    if (k < a.pos.size()) {
        test = a.pos[k].to_string();
        targs.pos.assign(a.pos.begin() + static_cast<std::ptrdiff_t>(k) + 1, a.pos.end());
        targs.kw = a.kw;
    }
    for (const auto& it : iterate(in, v, pos)) {
        Value x = by_attr ? attr_path(in, it, attr, pos) : it;
        bool r;
        if (test.empty()) {
            r = x.truthy();
        } else {
            CallArgs copy = targs;
            r = apply_test(in, test, x, copy, pos);
        }
        if (r == want) out.push_back(it);
    }
    return Value::list(std::move(out));
}
Value f_select(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos) { return select_impl(in, v, a, pos, true, false); }
Value f_reject(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos) { return select_impl(in, v, a, pos, false, false); }
Value f_selectattr(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos) { return select_impl(in, v, a, pos, true, true); }
Value f_rejectattr(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos) { return select_impl(in, v, a, pos, false, true); }

Value f_sum(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos) {
    const Value* attr = arg(a, 0, "attribute");
    Value total = arg(a, 1, "start") ? *arg(a, 1, "start") : Value::integer(0);
    for (const auto& it : iterate(in, v, pos))
        total = binary_op(in, "+", total, attr && !attr->is_none() ? attr_path(in, it, attr->to_string(), pos) : it, pos);
    return total;
}
Value minmax(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos, bool want_max) {
    bool cs = arg(a, 0, "case_sensitive") && arg(a, 0, "case_sensitive")->truthy();
    const Value* attr = arg(a, 1, "attribute");
    List items = iterate(in, v, pos);
    if (items.empty()) return Value::undefined("No aggregated item, sequence was empty.");
    std::size_t best = 0;
    auto key = [&](const Value& x) { return sort_key(attr && !attr->is_none() ? attr_path(in, x, attr->to_string(), pos) : x, cs); };
    for (std::size_t i = 1; i < items.size(); ++i) {
        int c = compare_values(in, key(items[i]), key(items[best]), pos);
        if (want_max ? c > 0 : c < 0) best = i;
    }
    return items[best];
}
Value f_max(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos) { return minmax(in, v, a, pos, true); }
Value f_min(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos) { return minmax(in, v, a, pos, false); }
Value f_wordcount(Interpreter& in, const Value& v, CallArgs&, std::size_t pos) {
    return Value::integer(static_cast<std::int64_t>(py_split(in, text_of(in, v, pos), nullptr, -1, pos).size()));
}
Value f_attr(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos) {
    return get_attr(in, v, need(in, arg(a, 0, "name"), pos, "attr").to_string(), pos);
}
Value f_format(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos) {
    Value args = a.pos.size() == 1 && a.pos[0].is_mapping() ? a.pos[0] : Value::list(a.pos);
    return Value::string(percent_format(in, text_of(in, v, pos), args, pos));
}
Value f_center(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos) {
    std::string s = text_of(in, v, pos);
    std::int64_t w = arg(a, 0, "width") ? arg(a, 0, "width")->as_int() : 80;
    auto len = static_cast<std::int64_t>(utf8_length(s));
    if (w <= len) return Value::string(s);
    std::int64_t pad = w - len, left = pad / 2 + (pad & w & 1);
    check_string_size(in, static_cast<std::size_t>(w));
    return Value::string(std::string(static_cast<std::size_t>(left), ' ') + s +
                         std::string(static_cast<std::size_t>(pad - left), ' '));
}

const std::map<std::string, FilterFn>& filters() {
    static const std::map<std::string, FilterFn> m = {
        {"tojson", f_tojson},       {"trim", f_trim},         {"upper", f_upper},
        {"lower", f_lower},         {"capitalize", f_capitalize}, {"title", f_title},
        {"replace", f_replace},     {"length", f_length},     {"count", f_length},
        {"first", f_first},         {"last", f_last},         {"join", f_join},
        {"default", f_default},     {"d", f_default},         {"list", f_list},
        {"string", f_string},       {"safe", f_safe},         {"escape", f_escape},
        {"e", f_escape},            {"forceescape", f_escape}, {"int", f_int},
        {"float", f_float},         {"abs", f_abs},           {"round", f_round},
        {"sort", f_sort},           {"dictsort", f_dictsort}, {"unique", f_unique},
        {"reverse", f_reverse},     {"items", f_items},       {"indent", f_indent},
        {"map", f_map},             {"select", f_select},     {"reject", f_reject},
        {"selectattr", f_selectattr}, {"rejectattr", f_rejectattr}, {"sum", f_sum},
        {"max", f_max},             {"min", f_min},           {"wordcount", f_wordcount},
        {"attr", f_attr},           {"format", f_format},     {"center", f_center},
    };
    return m;
}

// ---- tests ----
bool t_defined(Interpreter&, const Value& v, CallArgs&, std::size_t) { return !v.is_undefined(); }
bool t_undefined(Interpreter&, const Value& v, CallArgs&, std::size_t) { return v.is_undefined(); }
bool t_none(Interpreter&, const Value& v, CallArgs&, std::size_t) { return v.is_none(); }
bool t_boolean(Interpreter&, const Value& v, CallArgs&, std::size_t) { return v.is_bool(); }
bool t_true(Interpreter&, const Value& v, CallArgs&, std::size_t) { return v.is_bool() && v.as_bool(); }
bool t_false(Interpreter&, const Value& v, CallArgs&, std::size_t) { return v.is_bool() && !v.as_bool(); }
bool t_integer(Interpreter&, const Value& v, CallArgs&, std::size_t) { return v.is_int(); }
bool t_float(Interpreter&, const Value& v, CallArgs&, std::size_t) { return v.is_float(); }
bool t_number(Interpreter&, const Value& v, CallArgs&, std::size_t) { return v.is_number(); }
bool t_string(Interpreter&, const Value& v, CallArgs&, std::size_t) { return v.is_string(); }
bool t_mapping(Interpreter&, const Value& v, CallArgs&, std::size_t) { return v.is_mapping(); }
bool t_iterable(Interpreter&, const Value& v, CallArgs&, std::size_t) {
    return v.is_string() || v.is_list() || v.is_mapping() || v.is_undefined();
}
bool t_sequence(Interpreter&, const Value& v, CallArgs&, std::size_t) {
    return v.is_string() || v.is_list() || v.is_mapping() || v.is_undefined();
}
bool t_callable(Interpreter&, const Value& v, CallArgs&, std::size_t) { return v.is_callable() || v.is_undefined(); }
bool t_escaped(Interpreter&, const Value&, CallArgs&, std::size_t) { return false; }
bool t_sameas(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos) {
    const Value& o = need(in, arg(a, 0, "other"), pos, "sameas");
    if (v.kind() != o.kind()) return false;
    switch (v.kind()) {
        case Kind::none:
        case Kind::undefined: return true;
        case Kind::boolean:
        case Kind::integer:
        case Kind::floating: return values_equal(v, o);
        case Kind::string: return &v.str() == &o.str();
        case Kind::list: return &v.items() == &o.items();
        case Kind::dict: return &v.dict_ref() == &o.dict_ref();
        case Kind::callable: return &v.fn() == &o.fn();
    }
    return false;
}
std::int64_t int_of(Interpreter& in, const Value& v, std::size_t pos, const char* what) {
    if (!v.is_int() && !v.is_bool()) in.fail(pos, std::string(what) + ": an integer is required, not " + v.type_name());
    return v.as_int();
}
// Python's value % 2 (floats included).
double py_mod(Interpreter& in, const Value& v, double m, std::size_t pos, const char* what) {
    if (v.is_undefined()) fail_undefined(in, v, pos);
    if (!v.is_number()) in.fail(pos, std::string(what) + ": a number is required, not " + v.type_name());
    double r = std::fmod(v.as_double(), m);
    if (r != 0 && ((r < 0) != (m < 0))) r += m;
    return r;
}
bool t_odd(Interpreter& in, const Value& v, CallArgs&, std::size_t pos) {
    if (v.is_int() || v.is_bool()) return v.as_int() % 2 != 0;
    return py_mod(in, v, 2, pos, "odd") == 1;
}
bool t_even(Interpreter& in, const Value& v, CallArgs&, std::size_t pos) {
    if (v.is_int() || v.is_bool()) return v.as_int() % 2 == 0;
    return py_mod(in, v, 2, pos, "even") == 0;
}
bool t_divisibleby(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos) {
    std::int64_t n = int_of(in, need(in, arg(a, 0, "num"), pos, "divisibleby"), pos, "divisibleby");
    if (n == 0) in.fail(pos, "divisibleby: division by zero");
    return int_of(in, v, pos, "divisibleby") % n == 0;
}
bool t_eq(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos) { return values_equal(v, need(in, arg(a, 0, "other"), pos, "eq")); }
bool t_ne(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos) { return !values_equal(v, need(in, arg(a, 0, "other"), pos, "ne")); }
bool t_lt(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos) { return compare_values(in, v, need(in, arg(a, 0, "other"), pos, "lt"), pos) < 0; }
bool t_le(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos) { return compare_values(in, v, need(in, arg(a, 0, "other"), pos, "le"), pos) <= 0; }
bool t_gt(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos) { return compare_values(in, v, need(in, arg(a, 0, "other"), pos, "gt"), pos) > 0; }
bool t_ge(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos) { return compare_values(in, v, need(in, arg(a, 0, "other"), pos, "ge"), pos) >= 0; }
bool t_in(Interpreter& in, const Value& v, CallArgs& a, std::size_t pos) { return contains(in, need(in, arg(a, 0, "seq"), pos, "in"), v, pos); }
bool t_lower(Interpreter& in, const Value& v, CallArgs&, std::size_t pos) {
    std::string s = text_of(in, v, pos);
    return py_lower(s) == s && py_upper(s) != s;
}
bool t_upper(Interpreter& in, const Value& v, CallArgs&, std::size_t pos) {
    std::string s = text_of(in, v, pos);
    return py_upper(s) == s && py_lower(s) != s;
}
bool t_filter(Interpreter&, const Value& v, CallArgs&, std::size_t) { return v.is_string() && is_known_filter(v.str()); }
bool t_test(Interpreter&, const Value& v, CallArgs&, std::size_t) { return v.is_string() && is_known_test(v.str()); }

const std::map<std::string, TestFn>& tests() {
    static const std::map<std::string, TestFn> m = {
        {"defined", t_defined},   {"undefined", t_undefined}, {"none", t_none},
        {"boolean", t_boolean},   {"true", t_true},           {"false", t_false},
        {"integer", t_integer},   {"float", t_float},         {"number", t_number},
        {"string", t_string},     {"mapping", t_mapping},     {"iterable", t_iterable},
        {"sequence", t_sequence}, {"callable", t_callable},   {"sameas", t_sameas},
        {"escaped", t_escaped},   {"odd", t_odd},             {"even", t_even},
        {"divisibleby", t_divisibleby}, {"eq", t_eq},         {"equalto", t_eq},
        {"==", t_eq},             {"ne", t_ne},               {"!=", t_ne},
        {"lt", t_lt},             {"lessthan", t_lt},         {"<", t_lt},
        {"le", t_le},             {"<=", t_le},               {"gt", t_gt},
        {"greaterthan", t_gt},    {">", t_gt},                {"ge", t_ge},
        {">=", t_ge},             {"in", t_in},               {"lower", t_lower},
        {"upper", t_upper},       {"filter", t_filter},       {"test", t_test},
    };
    return m;
}

}  // namespace

bool is_known_filter(const std::string& name) { return filters().count(name) != 0; }
bool is_known_test(const std::string& name) { return tests().count(name) != 0; }

Value apply_filter(Interpreter& in, const std::string& name, const Value& v, CallArgs& args, std::size_t pos) {
    auto it = filters().find(name);
    if (it == filters().end()) in.fail(pos, "unknown filter '" + name + "'");
    return it->second(in, v, args, pos);
}

bool apply_test(Interpreter& in, const std::string& name, const Value& v, CallArgs& args, std::size_t pos) {
    auto it = tests().find(name);
    if (it == tests().end()) in.fail(pos, "unknown test '" + name + "'");
    return it->second(in, v, args, pos);
}

}  // namespace ft::jinja
