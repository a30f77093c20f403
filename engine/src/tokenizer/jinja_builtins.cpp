// Operators, attribute/item access, and the globals of the Jinja interpreter (Python semantics).
// Filters and tests are in jinja_filters.cpp; string/dict/list methods in jinja_methods.cpp.
#include <chrono>
#include <climits>
#include <cmath>
#include <cstring>
#include <ctime>

#include "core/checked_int.h"
#include "ft/error.h"
#include "tokenizer/jinja_builtins_util.h"
#include "tokenizer/jinja_interpreter.h"

namespace ft::jinja {

[[noreturn]] void fail_undefined(Interpreter& in, const Value& v, std::size_t pos) {
    in.fail(pos, v.str().empty() ? std::string("undefined value") : v.str());
}

const Value* arg(const CallArgs& a, std::size_t index, const char* name) {
    for (const auto& [k, v] : a.kw)
        if (k == name) return &v;
    if (index < a.pos.size()) return &a.pos[index];
    return nullptr;
}

List iterate(Interpreter& in, const Value& v, std::size_t pos) {
    switch (v.kind()) {
        case Kind::list: return v.items();
        case Kind::undefined: return {};
        case Kind::dict: {
            if (v.is_namespace()) in.fail(pos, "'Namespace' object is not iterable");
            List keys;
            keys.reserve(v.dict_ref().size());
            for (const auto& e : v.dict_ref().entries) keys.push_back(Value::string(e.first));
            return keys;
        }
        case Kind::string: {
            const std::string& s = v.str();
            auto offs = utf8_offsets(s);
            List chars;
            chars.reserve(offs.size() - 1);
            for (std::size_t i = 0; i + 1 < offs.size(); ++i)
                chars.push_back(Value::string(s.substr(offs[i], offs[i + 1] - offs[i])));
            return chars;
        }
        default: in.fail(pos, "'" + v.type_name() + "' object is not iterable");
    }
}

namespace {

std::int64_t floordiv(std::int64_t a, std::int64_t b) {
    std::int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
}

std::string type_pair(const Value& a, const Value& b) {
    std::string r(1, '\'');
    r += a.type_name();
    r += "' and '";
    r += b.type_name();
    r += '\'';
    return r;
}

}  // namespace

void check_string_size(Interpreter& in, std::size_t n) {
    if (n > in.options().limits.max_output_bytes)
        in.fail_limit("a string grew larger than " + std::to_string(in.options().limits.max_output_bytes) + " bytes");
}

Value binary_op(Interpreter& in, const std::string& op, const Value& a, const Value& b, std::size_t pos) {
    if (op == "~") {
        std::string x = a.to_string(), y = b.to_string();
        check_string_size(in, x.size() + y.size());
        return Value::string(x + y);
    }
    if (a.is_undefined()) fail_undefined(in, a, pos);
    if (b.is_undefined()) fail_undefined(in, b, pos);
    const bool nums = a.is_number() && b.is_number();
    const bool ints = nums && !a.is_float() && !b.is_float();
    if (op == "+") {
        if (ints) {
            std::int64_t r;
            if (checked::add_overflow(a.as_int(), b.as_int(), &r)) in.fail(pos, "integer overflow");
            return Value::integer(r);
        }
        if (nums) return Value::floating(a.as_double() + b.as_double());
        if (a.is_string() && b.is_string()) {
            check_string_size(in, a.str().size() + b.str().size());
            return Value::string(a.str() + b.str());
        }
        if (a.is_list() && b.is_list()) {
            if ((a.items().size() + b.items().size()) * sizeof(Value) > in.options().limits.max_output_bytes)
                in.fail_limit("a list grew too large");
            List r = a.items();
            r.insert(r.end(), b.items().begin(), b.items().end());
            return Value::list(std::move(r));
        }
        in.fail(pos, "unsupported operand types for +: " + type_pair(a, b) +
                         (a.is_string() || b.is_string() ? " (use ~ or |string to join text and numbers)" : ""));
    }
    if (op == "-") {
        if (ints) {
            std::int64_t r;
            if (checked::sub_overflow(a.as_int(), b.as_int(), &r)) in.fail(pos, "integer overflow");
            return Value::integer(r);
        }
        if (nums) return Value::floating(a.as_double() - b.as_double());
        in.fail(pos, "unsupported operand types for -: " + type_pair(a, b));
    }
    if (op == "*") {
        if (ints) {
            std::int64_t r;
            if (checked::mul_overflow(a.as_int(), b.as_int(), &r)) in.fail(pos, "integer overflow");
            return Value::integer(r);
        }
        if (nums) return Value::floating(a.as_double() * b.as_double());
        const Value* seq = (a.is_string() || a.is_list()) ? &a : (b.is_string() || b.is_list()) ? &b : nullptr;
        const Value* cnt = seq == &a ? &b : &a;
        if (seq && (cnt->is_int() || cnt->is_bool())) {
            std::int64_t n = std::max<std::int64_t>(0, cnt->as_int());
            std::size_t unit = seq->is_string() ? seq->str().size() : seq->items().size() * sizeof(Value);
            if (unit && static_cast<std::uint64_t>(n) > in.options().limits.max_output_bytes / unit)
                in.fail_limit("sequence repetition too large");
            if (seq->is_string()) {
                std::string r;
                for (std::int64_t i = 0; i < n; ++i) r += seq->str();
                return Value::string(std::move(r));
            }
            List r;
            for (std::int64_t i = 0; i < n; ++i) r.insert(r.end(), seq->items().begin(), seq->items().end());
            return Value::list(std::move(r));
        }
        in.fail(pos, "unsupported operand types for *: " + type_pair(a, b));
    }
    if (op == "/") {
        if (!nums) in.fail(pos, "unsupported operand types for /: " + type_pair(a, b));
        if (b.as_double() == 0) in.fail(pos, "division by zero");
        return Value::floating(a.as_double() / b.as_double());
    }
    if (op == "//") {
        if (!nums) in.fail(pos, "unsupported operand types for //: " + type_pair(a, b));
        if (b.as_double() == 0) in.fail(pos, "integer division or modulo by zero");
        if (ints) {
            if (a.as_int() == INT64_MIN && b.as_int() == -1) in.fail(pos, "integer overflow");
            return Value::integer(floordiv(a.as_int(), b.as_int()));
        }
        return Value::floating(std::floor(a.as_double() / b.as_double()));
    }
    if (op == "%") {
        if (a.is_string()) return Value::string(percent_format(in, a.str(), b, pos));
        if (!nums) in.fail(pos, "unsupported operand types for %: " + type_pair(a, b));
        if (b.as_double() == 0) in.fail(pos, "integer division or modulo by zero");
        if (ints) {
            if (b.as_int() == -1) return Value::integer(0);
            return Value::integer(a.as_int() - floordiv(a.as_int(), b.as_int()) * b.as_int());
        }
        double r = std::fmod(a.as_double(), b.as_double());
        if (r != 0 && ((r < 0) != (b.as_double() < 0))) r += b.as_double();
        return Value::floating(r);
    }
    if (op == "**") {
        if (!nums) in.fail(pos, "unsupported operand types for **: " + type_pair(a, b));
        if (ints && b.as_int() >= 0) {
            std::int64_t base = a.as_int(), e = b.as_int(), r = 1;
            while (e > 0) {
                if (e & 1)
                    if (checked::mul_overflow(r, base, &r)) in.fail(pos, "integer overflow");
                e >>= 1;
                if (e > 0 && checked::mul_overflow(base, base, &base)) in.fail(pos, "integer overflow");
            }
            return Value::integer(r);
        }
        return Value::floating(std::pow(a.as_double(), b.as_double()));
    }
    in.fail(pos, "unknown operator '" + op + "'");
}

int compare_values(Interpreter& in, const Value& a, const Value& b, std::size_t pos) {
    if (a.is_number() && b.is_number()) {
        if (a.is_float() || b.is_float()) {
            double x = a.as_double(), y = b.as_double();
            return x < y ? -1 : x > y ? 1 : 0;
        }
        return a.as_int() < b.as_int() ? -1 : a.as_int() > b.as_int() ? 1 : 0;
    }
    if (a.is_string() && b.is_string()) {
        int c = a.str().compare(b.str());  // UTF-8 byte order is code point order
        return c < 0 ? -1 : c > 0 ? 1 : 0;
    }
    if (a.is_list() && b.is_list()) {
        const auto& x = a.items();
        const auto& y = b.items();
        for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) {
            if (values_equal(x[i], y[i])) continue;
            return compare_values(in, x[i], y[i], pos);
        }
        return x.size() < y.size() ? -1 : x.size() > y.size() ? 1 : 0;
    }
    if (a.is_undefined()) fail_undefined(in, a, pos);
    if (b.is_undefined()) fail_undefined(in, b, pos);
    in.fail(pos, "cannot order " + type_pair(a, b));
}

bool contains(Interpreter& in, const Value& container, const Value& item, std::size_t pos) {
    switch (container.kind()) {
        case Kind::string:
            if (!item.is_string())
                in.fail(pos, "'in <string>' requires a string as left operand, not " + item.type_name());
            return container.str().find(item.str()) != std::string::npos;
        case Kind::list:
            for (const auto& v : container.items())
                if (values_equal(v, item)) return true;
            return false;
        case Kind::dict:
            if (container.is_namespace()) in.fail(pos, "argument of type 'Namespace' is not iterable");
            return item.is_string() && container.dict_ref().find(item.str()) != nullptr;
        case Kind::undefined: return false;
        default: in.fail(pos, "argument of type '" + container.type_name() + "' is not iterable");
    }
}

Value get_attr(Interpreter& in, const Value& obj, const std::string& name, std::size_t pos) {
    if (obj.is_undefined()) fail_undefined(in, obj, pos);
    if (obj.is_namespace()) {
        if (const Value* v = obj.dict_ref().find(name)) return *v;
        return Value::undefined("'Namespace' object has no attribute '" + name + "'");
    }
    // Python attribute first (methods), then the item, as Jinja2's getattr does.
    if (Value m = bound_method(in, obj, name); !m.is_undefined()) return m;
    if (obj.is_dict()) {
        if (const Value* v = obj.dict_ref().find(name)) return *v;
        return Value::undefined("'dict object' has no attribute '" + name + "'");
    }
    std::string hint(1, '\'');
    hint += obj.type_name();
    hint += " object' has no attribute '" + name + "'";
    return Value::undefined(std::move(hint));
}

Value get_item(Interpreter& in, const Value& obj, const Value& key, std::size_t pos) {
    if (obj.is_undefined()) fail_undefined(in, obj, pos);
    if (obj.is_dict() && !obj.is_namespace()) {
        if (key.is_string()) {
            if (const Value* v = obj.dict_ref().find(key.str())) return *v;
            if (Value m = bound_method(in, obj, key.str()); !m.is_undefined()) return m;
            return Value::undefined("'dict object' has no attribute '" + key.str() + "'");
        }
        return Value::undefined("'dict object' has no attribute '" + key.to_string() + "'");
    }
    if ((obj.is_list() || obj.is_string()) && (key.is_int() || key.is_bool())) {
        std::int64_t i = key.as_int();
        if (obj.is_list()) {
            auto n = static_cast<std::int64_t>(obj.items().size());
            if (i < 0) i += n;
            if (i < 0 || i >= n) return Value::undefined("'list object' has no element " + key.to_string());
            return obj.items()[static_cast<std::size_t>(i)];
        }
        auto offs = utf8_offsets(obj.str());
        auto n = static_cast<std::int64_t>(offs.size()) - 1;
        if (i < 0) i += n;
        if (i < 0 || i >= n) return Value::undefined("'str object' has no element " + key.to_string());
        auto u = static_cast<std::size_t>(i);
        return Value::string(obj.str().substr(offs[u], offs[u + 1] - offs[u]));
    }
    if (key.is_string()) return get_attr(in, obj, key.str(), pos);
    std::string hint(1, '\'');
    hint += obj.type_name();
    hint += " object' has no element " + key.to_string();
    return Value::undefined(std::move(hint));
}

// ---- globals ----

namespace {

Value global_range(Interpreter& in, CallArgs& a, std::size_t pos) {
    if (a.pos.empty() || a.pos.size() > 3) in.fail(pos, "range() takes 1 to 3 integer arguments");
    for (const auto& v : a.pos)
        if (!v.is_int() && !v.is_bool()) in.fail(pos, "range() arguments must be integers, got " + v.type_name());
    std::int64_t start = 0, stop, step = 1;
    if (a.pos.size() == 1) {
        stop = a.pos[0].as_int();
    } else {
        start = a.pos[0].as_int();
        stop = a.pos[1].as_int();
        if (a.pos.size() == 3) step = a.pos[2].as_int();
    }
    if (step == 0) in.fail(pos, "range() step must not be zero");
    List out;
    for (std::int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
        if (out.size() >= in.options().limits.max_range)
            in.fail_limit("range() longer than " + std::to_string(in.options().limits.max_range));
        out.push_back(Value::integer(i));
    }
    return Value::list(std::move(out));
}

Value global_namespace(Interpreter& in, CallArgs& a, std::size_t pos) {
    Value ns = Value::ns();
    for (const auto& p : a.pos) {
        if (!p.is_mapping()) in.fail(pos, "namespace() takes a dict or keyword arguments");
        for (const auto& [k, v] : p.dict_ref().entries) ns.mutable_dict().set(k, v);
    }
    for (const auto& [k, v] : a.kw) ns.mutable_dict().set(k, v);
    return ns;
}

Value global_dict(Interpreter& in, CallArgs& a, std::size_t pos) {
    Value d = Value::dict();
    for (const auto& p : a.pos) {
        if (!p.is_mapping()) in.fail(pos, "dict() takes a dict or keyword arguments");
        for (const auto& [k, v] : p.dict_ref().entries) d.mutable_dict().set(k, v);
    }
    for (const auto& [k, v] : a.kw) d.mutable_dict().set(k, v);
    return d;
}

Value global_raise(Interpreter& in, CallArgs& a, std::size_t pos) {
    std::string msg = a.pos.empty() ? std::string() : a.pos[0].to_string();
    in.fail(pos, "the template raised an exception: " + msg);
}

Value global_strftime_now(Interpreter& in, CallArgs& a, std::size_t pos) {
    const Value* f = arg(a, 0, "format");
    if (!f || !f->is_string()) in.fail(pos, "strftime_now() takes a format string");
    std::tm tm{};
    if (in.options().now) {
        tm = *in.options().now;
    } else {
        std::time_t t = std::time(nullptr);
#ifdef _WIN32
        localtime_s(&tm, &t);
#else
        localtime_r(&t, &tm);
#endif
    }
    if (f->str().empty()) return Value::string("");
    std::string buf(64 + f->str().size() * 8, '\0');
    std::size_t n = std::strftime(buf.data(), buf.size(), f->str().c_str(), &tm);
    if (n == 0) in.fail(pos, "strftime_now(): cannot format '" + f->str() + "'");
    buf.resize(n);
    return Value::string(std::move(buf));
}

}  // namespace

void install_globals(Scope& root) {
    root.set("range", Value::callable("range", global_range));
    root.set("namespace", Value::callable("namespace", global_namespace));
    root.set("dict", Value::callable("dict", global_dict));
    root.set("raise_exception", Value::callable("raise_exception", global_raise));
    root.set("strftime_now", Value::callable("strftime_now", global_strftime_now));
}

std::string percent_format(Interpreter& in, const std::string& fmt, const Value& args, std::size_t pos) {
    List list = args.is_list() ? args.items() : List{args};
    std::size_t next = 0;
    std::string out;
    for (std::size_t i = 0; i < fmt.size(); ++i) {
        char c = fmt[i];
        if (c != '%') {
            out += c;
            continue;
        }
        if (++i >= fmt.size()) in.fail(pos, "incomplete format");
        const Value* v = nullptr;
        if (fmt[i] == '(') {
            std::size_t close = fmt.find(')', i);
            if (close == std::string::npos || !args.is_mapping()) in.fail(pos, "bad %(name) format");
            std::string key = fmt.substr(i + 1, close - i - 1);
            v = args.dict_ref().find(key);
            if (!v) in.fail(pos, "format key '" + key + "' missing");
            i = close + 1;
        }
        std::string spec;
        while (i < fmt.size() && std::strchr("-+ #0123456789.", fmt[i])) spec += fmt[i++];
        if (i >= fmt.size()) in.fail(pos, "incomplete format");
        char conv = fmt[i];
        if (conv == '%') {
            out += '%';
            continue;
        }
        if (!v) {
            if (next >= list.size()) in.fail(pos, "not enough arguments for format string");
            v = &list[next++];
        }
        char buf[512];
        std::string cspec = "%" + spec;
        switch (conv) {
            case 's': {
                std::string s = v->to_string();
                if (spec.empty()) out += s;
                else {
                    std::snprintf(buf, sizeof(buf), (cspec + "s").c_str(), s.c_str());
                    out += buf;
                }
                break;
            }
            case 'r': out += v->repr(); break;
            case 'd':
            case 'i':
                if (!v->is_number()) in.fail(pos, "%d format: a number is required, not " + v->type_name());
                std::snprintf(buf, sizeof(buf), (cspec + "lld").c_str(),
                              static_cast<long long>(v->is_float() ? std::trunc(v->as_double()) : v->as_int()));
                out += buf;
                break;
            case 'f':
            case 'F':
            case 'e':
            case 'g':
                if (!v->is_number()) in.fail(pos, "%f format: a number is required, not " + v->type_name());
                std::snprintf(buf, sizeof(buf), (cspec + conv).c_str(), v->as_double());
                out += buf;
                break;
            case 'x':
            case 'X':
            case 'o':
                if (!v->is_int() && !v->is_bool()) in.fail(pos, "%x format: an integer is required");
                std::snprintf(buf, sizeof(buf), (cspec + "ll" + conv).c_str(), static_cast<long long>(v->as_int()));
                out += buf;
                break;
            default: in.fail(pos, std::string("unsupported format character '") + conv + "'");
        }
    }
    if (args.is_list() && next < list.size()) in.fail(pos, "not all arguments converted during string formatting");
    return out;
}

}  // namespace ft::jinja
