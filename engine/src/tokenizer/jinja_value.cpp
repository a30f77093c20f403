#include "tokenizer/jinja_value.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "ft/error.h"

namespace ft::jinja {

Value Value::undefined(std::string hint) {
    Value v;
    v.s_ = std::make_shared<const std::string>(std::move(hint));
    return v;
}
Value Value::none() {
    Value v;
    v.kind_ = Kind::none;
    return v;
}
Value Value::boolean(bool b) {
    Value v;
    v.kind_ = Kind::boolean;
    v.b_ = b;
    return v;
}
Value Value::integer(std::int64_t i) {
    Value v;
    v.kind_ = Kind::integer;
    v.i_ = i;
    return v;
}
Value Value::floating(double f) {
    Value v;
    v.kind_ = Kind::floating;
    v.f_ = f;
    return v;
}
Value Value::string(std::string s) {
    Value v;
    v.kind_ = Kind::string;
    v.s_ = std::make_shared<const std::string>(std::move(s));
    return v;
}
Value Value::list(List items) {
    Value v;
    v.kind_ = Kind::list;
    v.list_ = std::make_shared<List>(std::move(items));
    return v;
}
Value Value::dict() {
    Value v;
    v.kind_ = Kind::dict;
    v.dict_ = std::make_shared<Dict>();
    return v;
}
Value Value::ns() {
    Value v = dict();
    v.dict_->is_namespace = true;
    return v;
}
Value Value::callable(std::string name, std::function<Value(Interpreter&, CallArgs&, std::size_t)> fn) {
    Value v;
    v.kind_ = Kind::callable;
    v.fn_ = std::make_shared<const Callable>(Callable{std::move(name), std::move(fn)});
    return v;
}

bool Value::is_namespace() const { return kind_ == Kind::dict && dict_->is_namespace; }

double Value::as_double() const {
    switch (kind_) {
        case Kind::floating: return f_;
        case Kind::integer: return static_cast<double>(i_);
        case Kind::boolean: return b_ ? 1.0 : 0.0;
        default: return 0.0;
    }
}

bool Value::truthy() const {
    switch (kind_) {
        case Kind::undefined:
        case Kind::none: return false;
        case Kind::boolean: return b_;
        case Kind::integer: return i_ != 0;
        case Kind::floating: return f_ != 0.0;
        case Kind::string: return !s_->empty();
        case Kind::list: return !list_->empty();
        case Kind::dict: return dict_->is_namespace || !dict_->entries.empty();
        case Kind::callable: return true;
    }
    return false;
}

namespace {
void check_depth(int depth) {
    if (depth > Value::kMaxDepth)
        throw Error(ErrorCode::out_of_memory, "chat template: a value nests deeper than " +
                                                  std::to_string(Value::kMaxDepth) + " levels",
                    "the template or its input is runaway");
}
}  // namespace

std::string Value::to_string(int depth) const {
    check_depth(depth);
    switch (kind_) {
        case Kind::undefined: return {};
        case Kind::none: return "None";
        case Kind::boolean: return b_ ? "True" : "False";
        case Kind::integer: return std::to_string(i_);
        case Kind::floating: return format_float(f_);
        case Kind::string: return *s_;
        case Kind::list: {
            std::string out = "[";
            for (std::size_t i = 0; i < list_->size(); ++i) {
                if (i) out += ", ";
                out += (*list_)[i].repr(depth + 1);
            }
            return out + "]";
        }
        case Kind::dict: {
            if (dict_->is_namespace) return "<Namespace>";
            std::string out = "{";
            bool first = true;
            for (const auto& [k, v] : dict_->entries) {
                if (!first) out += ", ";
                first = false;
                out += python_repr_string(k) + ": " + v.repr(depth + 1);
            }
            return out + "}";
        }
        case Kind::callable: return "<function " + fn_->name + ">";
    }
    return {};
}

std::string Value::repr(int depth) const {
    if (kind_ == Kind::string) return python_repr_string(*s_);
    if (kind_ == Kind::undefined) return "Undefined";
    return to_string(depth);
}

std::string Value::type_name() const {
    switch (kind_) {
        case Kind::undefined: return "Undefined";
        case Kind::none: return "NoneType";
        case Kind::boolean: return "bool";
        case Kind::integer: return "int";
        case Kind::floating: return "float";
        case Kind::string: return "str";
        case Kind::list: return "list";
        case Kind::dict: return dict_->is_namespace ? "Namespace" : "dict";
        case Kind::callable: return "function";
    }
    return "?";
}

const Value* Dict::find(std::string_view key) const {
    for (const auto& e : entries)
        if (e.first == key) return &e.second;
    return nullptr;
}

void Dict::set(const std::string& key, Value v) {
    for (auto& e : entries) {
        if (e.first == key) {
            e.second = std::move(v);
            return;
        }
    }
    entries.emplace_back(key, std::move(v));
}

bool values_equal(const Value& a, const Value& b, int depth) {
    check_depth(depth);
    if (a.is_number() && b.is_number()) {
        if (a.is_float() || b.is_float()) return a.as_double() == b.as_double();
        return a.as_int() == b.as_int();
    }
    if (a.kind() != b.kind()) return false;
    switch (a.kind()) {
        case Kind::undefined:
        case Kind::none: return true;
        case Kind::string: return a.str() == b.str();
        case Kind::list: {
            const auto& x = a.items();
            const auto& y = b.items();
            if (x.size() != y.size()) return false;
            for (std::size_t i = 0; i < x.size(); ++i)
                if (!values_equal(x[i], y[i], depth + 1)) return false;
            return true;
        }
        case Kind::dict: {
            const Dict& x = a.dict_ref();
            const Dict& y = b.dict_ref();
            if (x.is_namespace || y.is_namespace) return &x == &y;
            if (x.size() != y.size()) return false;
            for (const auto& [k, v] : x.entries) {
                const Value* o = y.find(k);
                if (!o || !values_equal(v, *o, depth + 1)) return false;
            }
            return true;
        }
        case Kind::callable: return &a.fn() == &b.fn();
        default: return false;
    }
}

std::string format_float(double d) {
    if (std::isnan(d)) return "nan";
    if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
    if (d == 0) return std::signbit(d) ? "-0.0" : "0.0";
    // Shortest round-trip digits in scientific form, then laid out the way Python's repr does.
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
    std::string sci(buf, res.ptr);
    bool neg = sci[0] == '-';
    if (neg) sci.erase(0, 1);
    std::size_t e = sci.find('e');
    int exp = std::atoi(sci.c_str() + e + 1);
    std::string digits;
    for (std::size_t i = 0; i < e; ++i)
        if (sci[i] != '.') digits += sci[i];
    std::string out;
    if (exp < -4 || exp >= 16) {
        out = digits.substr(0, 1);
        if (digits.size() > 1) {
            out += '.';
            out.append(digits, 1, std::string::npos);
        }
        char eb[16];
        std::snprintf(eb, sizeof(eb), "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
        out += eb;
    } else if (exp < 0) {
        out = "0." + std::string(static_cast<std::size_t>(-exp - 1), '0') + digits;
    } else {
        auto int_len = static_cast<std::size_t>(exp) + 1;
        if (digits.size() <= int_len) {
            out = digits + std::string(int_len - digits.size(), '0') + ".0";
        } else {
            out = digits.substr(0, int_len) + "." + digits.substr(int_len);
        }
    }
    if (neg) out.insert(out.begin(), '-');
    return out;
}

std::string python_repr_string(std::string_view s) {
    bool has_single = s.find('\'') != std::string_view::npos;
    bool has_double = s.find('"') != std::string_view::npos;
    char q = (has_single && !has_double) ? '"' : '\'';
    std::string out(1, q);
    for (unsigned char c : s) {
        switch (c) {
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c == static_cast<unsigned char>(q)) {
                    out += '\\';
                    out += static_cast<char>(c);
                } else if (c < 0x20 || c == 0x7f) {
                    char b[8];
                    std::snprintf(b, sizeof(b), "\\x%02x", c);
                    out += b;
                } else {
                    out += static_cast<char>(c);
                }
        }
    }
    out += q;
    return out;
}

std::vector<std::size_t> utf8_offsets(std::string_view s) {
    std::vector<std::size_t> offs;
    offs.reserve(s.size() + 1);
    for (std::size_t i = 0; i < s.size(); ++i) {
        auto c = static_cast<unsigned char>(s[i]);
        if ((c & 0xC0) != 0x80) offs.push_back(i);
    }
    offs.push_back(s.size());
    return offs;
}

std::size_t utf8_length(std::string_view s) {
    std::size_t n = 0;
    for (char ch : s)
        if ((static_cast<unsigned char>(ch) & 0xC0) != 0x80) ++n;
    return n;
}

}  // namespace ft::jinja
