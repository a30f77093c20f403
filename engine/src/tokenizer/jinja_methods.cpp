// Python str / dict / list methods reachable from templates (`s.strip()`, `d.items()`, …) and json.dumps.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tokenizer/jinja_builtins_util.h"
#include "tokenizer/tokenizer_unicode.h"

namespace ft::jinja {

bool is_py_space(char32_t c) {
    return c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F) || c == 0x85 || c == 0xA0 ||
           c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
           c == 0x205F || c == 0x3000;
}

std::u32string to_u32(std::string_view s) {
    std::u32string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        auto c = static_cast<unsigned char>(s[i]);
        char32_t cp;
        std::size_t n;
        if (c < 0x80) cp = c, n = 1;
        else if ((c >> 5) == 6) cp = c & 0x1F, n = 2;
        else if ((c >> 4) == 14) cp = c & 0x0F, n = 3;
        else if ((c >> 3) == 30) cp = c & 0x07, n = 4;
        else cp = 0xFFFD, n = 1;
        if (i + n > s.size()) {
            cp = 0xFFFD;
            n = s.size() - i;
        } else {
            for (std::size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
        }
        out += cp;
        i += n;
    }
    return out;
}

std::string to_utf8(std::u32string_view s) {
    std::string out;
    out.reserve(s.size());
    for (char32_t cp : s) tok::utf8_append(out, cp);
    return out;
}

namespace {

// Simple case mapping: ASCII, Latin-1, Greek and Cyrillic (what chat templates meet); other scripts unchanged.
char32_t cp_upper(char32_t c) {
    if (c >= 'a' && c <= 'z') return c - 32;
    if ((c >= 0xE0 && c <= 0xFE && c != 0xF7)) return c - 32;
    if (c >= 0x3B1 && c <= 0x3C9 && c != 0x3C2) return c - 32;
    if (c >= 0x430 && c <= 0x44F) return c - 32;
    if (c >= 0x450 && c <= 0x45F) return c - 80;
    return c;
}
char32_t cp_lower(char32_t c) {
    if (c >= 'A' && c <= 'Z') return c + 32;
    if ((c >= 0xC0 && c <= 0xDE && c != 0xD7)) return c + 32;
    if (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) return c + 32;
    if (c >= 0x410 && c <= 0x42F) return c + 32;
    if (c >= 0x400 && c <= 0x40F) return c + 80;
    return c;
}
bool cp_is_cased_letter(char32_t c) { return cp_upper(c) != c || cp_lower(c) != c; }

}  // namespace

std::string py_upper(std::string_view s) {
    auto u = to_u32(s);
    for (auto& c : u) c = cp_upper(c);
    return to_utf8(u);
}
std::string py_lower(std::string_view s) {
    auto u = to_u32(s);
    for (auto& c : u) c = cp_lower(c);
    return to_utf8(u);
}
std::string py_capitalize(std::string_view s) {
    auto u = to_u32(s);
    for (std::size_t i = 0; i < u.size(); ++i) u[i] = i == 0 ? cp_upper(u[i]) : cp_lower(u[i]);
    return to_utf8(u);
}
// Python str.title(): a cased letter after an uncased character starts a word.
std::string py_title(std::string_view s) {
    auto u = to_u32(s);
    bool prev_cased = false;
    for (auto& c : u) {
        bool cased = cp_is_cased_letter(c);
        if (cased) c = prev_cased ? cp_lower(c) : cp_upper(c);
        prev_cased = cased || (c >= '0' && c <= '9' ? false : cased);
    }
    return to_utf8(u);
}

std::string py_strip(std::string_view s, const Value* chars, bool left, bool right) {
    auto u = to_u32(s);
    std::u32string set;
    bool ws = !chars || chars->is_none() || chars->is_undefined();
    if (!ws) set = to_u32(chars->to_string());
    auto strip_it = [&](char32_t c) { return ws ? is_py_space(c) : set.find(c) != std::u32string::npos; };
    std::size_t b = 0, e = u.size();
    if (left)
        while (b < e && strip_it(u[b])) ++b;
    if (right)
        while (e > b && strip_it(u[e - 1])) --e;
    return to_utf8(std::u32string_view(u).substr(b, e - b));
}

List py_split(Interpreter& in, const std::string& s, const Value* sep, std::int64_t maxsplit, std::size_t pos) {
    List out;
    if (!sep || sep->is_none() || sep->is_undefined()) {
        auto u = to_u32(s);
        std::size_t i = 0;
        std::int64_t splits = 0;
        while (true) {
            while (i < u.size() && is_py_space(u[i])) ++i;
            if (i >= u.size()) break;
            if (maxsplit >= 0 && splits >= maxsplit) {
                std::size_t e = u.size();
                while (e > i && is_py_space(u[e - 1])) --e;
                out.push_back(Value::string(to_utf8(std::u32string_view(u).substr(i, e - i))));
                break;
            }
            std::size_t j = i;
            while (j < u.size() && !is_py_space(u[j])) ++j;
            out.push_back(Value::string(to_utf8(std::u32string_view(u).substr(i, j - i))));
            ++splits;
            i = j;
        }
        return out;
    }
    if (!sep->is_string()) in.fail(pos, "split(): the separator must be a string");
    const std::string& d = sep->str();
    if (d.empty()) in.fail(pos, "split(): empty separator");
    std::size_t start = 0;
    std::int64_t splits = 0;
    while (true) {
        std::size_t f = (maxsplit >= 0 && splits >= maxsplit) ? std::string::npos : s.find(d, start);
        if (f == std::string::npos) {
            out.push_back(Value::string(s.substr(start)));
            break;
        }
        out.push_back(Value::string(s.substr(start, f - start)));
        start = f + d.size();
        ++splits;
    }
    return out;
}

std::string py_replace(const std::string& s, const std::string& from, const std::string& to, std::int64_t count) {
    std::string out;
    if (from.empty()) {
        auto offs = utf8_offsets(s);
        std::int64_t done = 0;
        for (std::size_t i = 0; i + 1 < offs.size(); ++i) {
            if (count < 0 || done < count) {
                out += to;
                ++done;
            }
            out.append(s, offs[i], offs[i + 1] - offs[i]);
        }
        if (count < 0 || done < count) out += to;
        return out;
    }
    std::size_t start = 0;
    std::int64_t done = 0;
    while (count < 0 || done < count) {
        std::size_t f = s.find(from, start);
        if (f == std::string::npos) break;
        out.append(s, start, f - start);
        out += to;
        start = f + from.size();
        ++done;
    }
    out.append(s, start, std::string::npos);
    return out;
}

std::vector<std::string> py_splitlines(std::string_view s, bool keepends) {
    auto u = to_u32(s);
    std::vector<std::string> out;
    std::size_t start = 0;
    for (std::size_t i = 0; i < u.size(); ++i) {
        char32_t c = u[i];
        bool brk = c == '\n' || c == '\r' || c == 0x0B || c == 0x0C || c == 0x1C || c == 0x1D || c == 0x1E ||
                   c == 0x85 || c == 0x2028 || c == 0x2029;
        if (!brk) continue;
        std::size_t end = i;
        if (c == '\r' && i + 1 < u.size() && u[i + 1] == '\n') ++i;
        out.push_back(to_utf8(std::u32string_view(u).substr(start, (keepends ? i + 1 : end) - start)));
        start = i + 1;
    }
    if (start < u.size()) out.push_back(to_utf8(std::u32string_view(u).substr(start)));
    return out;
}

namespace {

std::int64_t int_arg(Interpreter& in, const Value* v, std::int64_t def, std::size_t pos, const char* what) {
    if (!v || v->is_none()) return def;
    if (!v->is_int() && !v->is_bool()) in.fail(pos, std::string(what) + ": an integer is required");
    return v->as_int();
}

const std::string& str_arg(Interpreter& in, const Value* v, std::size_t pos, const char* what) {
    if (!v || !v->is_string()) in.fail(pos, std::string(what) + ": a string argument is required");
    return v->str();
}

bool affix_match(Interpreter& in, const std::string& s, const Value* a, bool prefix, std::size_t pos) {
    if (!a) in.fail(pos, prefix ? "startswith() takes one argument" : "endswith() takes one argument");
    List options = a->is_list() ? a->items() : List{*a};
    for (const auto& o : options) {
        const std::string& p = str_arg(in, &o, pos, prefix ? "startswith()" : "endswith()");
        if (p.size() > s.size()) continue;
        if (prefix ? s.compare(0, p.size(), p) == 0 : s.compare(s.size() - p.size(), p.size(), p) == 0) return true;
    }
    return false;
}

bool all_cp(const std::string& s, bool (*pred)(char32_t)) {
    auto u = to_u32(s);
    if (u.empty()) return false;
    for (auto c : u)
        if (!pred(c)) return false;
    return true;
}

Value str_method(Interpreter& in, const std::string& s, const std::string& name, CallArgs& a, std::size_t pos) {
    if (name == "strip") return Value::string(py_strip(s, arg(a, 0, "chars"), true, true));
    if (name == "lstrip") return Value::string(py_strip(s, arg(a, 0, "chars"), true, false));
    if (name == "rstrip") return Value::string(py_strip(s, arg(a, 0, "chars"), false, true));
    if (name == "split") return Value::list(py_split(in, s, arg(a, 0, "sep"), int_arg(in, arg(a, 1, "maxsplit"), -1, pos, "split()"), pos));
    if (name == "rsplit") {
        std::int64_t maxsplit = int_arg(in, arg(a, 1, "maxsplit"), -1, pos, "rsplit()");
        const Value* sep = arg(a, 0, "sep");
        if (maxsplit < 0) return Value::list(py_split(in, s, sep, -1, pos));
        if (!sep || sep->is_none()) in.fail(pos, "rsplit() with maxsplit needs a separator here");
        const std::string& d = str_arg(in, sep, pos, "rsplit()");
        if (d.empty()) in.fail(pos, "rsplit(): empty separator");
        List parts;
        std::size_t end = s.size();
        for (std::int64_t k = 0; k < maxsplit; ++k) {
            if (end < d.size()) break;
            std::size_t f = s.rfind(d, end - d.size());
            if (f == std::string::npos) break;
            parts.insert(parts.begin(), Value::string(s.substr(f + d.size(), end - f - d.size())));
            end = f;
        }
        parts.insert(parts.begin(), Value::string(s.substr(0, end)));
        return Value::list(std::move(parts));
    }
    if (name == "startswith") return Value::boolean(affix_match(in, s, arg(a, 0, "prefix"), true, pos));
    if (name == "endswith") return Value::boolean(affix_match(in, s, arg(a, 0, "suffix"), false, pos));
    if (name == "upper") return Value::string(py_upper(s));
    if (name == "lower") return Value::string(py_lower(s));
    if (name == "title") return Value::string(py_title(s));
    if (name == "capitalize") return Value::string(py_capitalize(s));
    if (name == "replace") {
        const std::string& from = str_arg(in, arg(a, 0, "old"), pos, "replace()");
        const std::string& to = str_arg(in, arg(a, 1, "new"), pos, "replace()");
        std::size_t hits = from.empty() ? utf8_length(s) + 1 : 0;
        if (!from.empty())
            for (std::size_t f = s.find(from); f != std::string::npos; f = s.find(from, f + from.size())) ++hits;
        if (to.size() > from.size()) check_string_size(in, s.size() + hits * (to.size() - from.size()));
        return Value::string(py_replace(s, str_arg(in, arg(a, 0, "old"), pos, "replace()"),
                                        str_arg(in, arg(a, 1, "new"), pos, "replace()"),
                                        int_arg(in, arg(a, 2, "count"), -1, pos, "replace()")));
    }
    if (name == "find" || name == "rfind" || name == "index" || name == "rindex" || name == "count") {
        const std::string& sub = str_arg(in, arg(a, 0, "sub"), pos, name.c_str());
        if (name == "count") {
            if (sub.empty()) return Value::integer(static_cast<std::int64_t>(utf8_length(s) + 1));
            std::int64_t n = 0;
            for (std::size_t f = s.find(sub); f != std::string::npos; f = s.find(sub, f + sub.size())) ++n;
            return Value::integer(n);
        }
        std::size_t f = (name == "find" || name == "index") ? s.find(sub) : s.rfind(sub);
        if (f == std::string::npos) {
            if (name == "index" || name == "rindex") in.fail(pos, "substring not found");
            return Value::integer(-1);
        }
        return Value::integer(static_cast<std::int64_t>(utf8_length(std::string_view(s).substr(0, f))));
    }
    if (name == "join") {
        const Value* it = arg(a, 0, "iterable");
        if (!it) in.fail(pos, "join() takes one argument");
        std::string out;
        bool first = true;
        for (const auto& v : iterate(in, *it, pos)) {
            if (!v.is_string()) in.fail(pos, "join(): sequence item is " + v.type_name() + ", not a string");
            if (!first) out += s;
            first = false;
            out += v.str();
            check_string_size(in, out.size());
        }
        return Value::string(std::move(out));
    }
    if (name == "splitlines") {
        const Value* k = arg(a, 0, "keepends");
        List out;
        for (auto& l : py_splitlines(s, k && k->truthy())) out.push_back(Value::string(std::move(l)));
        return Value::list(std::move(out));
    }
    if (name == "isdigit") return Value::boolean(all_cp(s, [](char32_t c) { return c >= '0' && c <= '9'; }));
    if (name == "isspace") return Value::boolean(all_cp(s, [](char32_t c) { return is_py_space(c); }));
    if (name == "isalpha")
        return Value::boolean(all_cp(s, [](char32_t c) { return cp_is_cased_letter(c) || c > 0x2E80; }));
    if (name == "isalnum")
        return Value::boolean(
            all_cp(s, [](char32_t c) { return cp_is_cased_letter(c) || (c >= '0' && c <= '9') || c > 0x2E80; }));
    if (name == "islower") return Value::boolean(py_lower(s) == s && py_upper(s) != s);
    if (name == "isupper") return Value::boolean(py_upper(s) == s && py_lower(s) != s);
    if (name == "format") {
        // str.format with {} / {0} / {name} fields.
        std::string out;
        std::size_t auto_idx = 0;
        for (std::size_t i = 0; i < s.size(); ++i) {
            if (s[i] == '{' && i + 1 < s.size() && s[i + 1] == '{') {
                out += '{';
                ++i;
            } else if (s[i] == '}' && i + 1 < s.size() && s[i + 1] == '}') {
                out += '}';
                ++i;
            } else if (s[i] == '{') {
                std::size_t close = s.find('}', i);
                if (close == std::string::npos) in.fail(pos, "format(): unmatched '{'");
                std::string field = s.substr(i + 1, close - i - 1);
                const Value* v = nullptr;
                if (field.empty()) {
                    v = auto_idx < a.pos.size() ? &a.pos[auto_idx] : nullptr;
                    ++auto_idx;
                } else if (std::all_of(field.begin(), field.end(), [](char c) { return c >= '0' && c <= '9'; })) {
                    std::size_t k = std::stoul(field);
                    v = k < a.pos.size() ? &a.pos[k] : nullptr;
                } else {
                    for (const auto& [k, kv] : a.kw)
                        if (k == field) v = &kv;
                }
                if (!v) in.fail(pos, "format(): no argument for field {" + field + "}");
                out += v->to_string();
                i = close;
            } else {
                out += s[i];
            }
        }
        return Value::string(std::move(out));
    }
    in.fail(pos, "'str' object has no method '" + name + "'");
}

bool is_str_method(const std::string& n) {
    static const char* names[] = {"strip",   "lstrip",     "rstrip",     "split",   "rsplit",  "startswith",
                                  "endswith", "upper",     "lower",      "title",   "capitalize", "replace",
                                  "find",    "rfind",      "index",      "rindex",  "count",   "join",
                                  "splitlines", "isdigit", "isspace",    "isalpha", "isalnum", "islower",
                                  "isupper", "format"};
    for (const char* x : names)
        if (n == x) return true;
    return false;
}

}  // namespace

Value bound_method(Interpreter& in, const Value& obj, const std::string& name) {
    (void)in;
    auto refuse = [](const std::string& type, const std::string& n) {
        return Value::callable(type + "." + n, [type, n](Interpreter& i, CallArgs&, std::size_t pos) -> Value {
            i.fail(pos, "'" + type + "." + n +
                            "' is not allowed: chat templates render in an immutable sandbox (as in Hugging Face "
                            "transformers); use namespace() attributes or list concatenation instead");
        });
    };
    if (obj.is_string()) {
        if (!is_str_method(name)) return Value();
        std::string s = obj.str();
        return Value::callable("str." + name, [s, name](Interpreter& i, CallArgs& a, std::size_t pos) {
            return str_method(i, s, name, a, pos);
        });
    }
    if (obj.is_mapping()) {
        if (name == "pop" || name == "popitem" || name == "setdefault" || name == "update" || name == "clear")
            return refuse("dict", name);
        if (name != "items" && name != "keys" && name != "values" && name != "get" && name != "copy") return Value();
        Value d = obj;
        return Value::callable("dict." + name, [d, name](Interpreter& i, CallArgs& a, std::size_t pos) -> Value {
            const Dict& dict = d.dict_ref();
            if (name == "get") {
                const Value* k = arg(a, 0, "key");
                if (!k) i.fail(pos, "get() takes at least one argument");
                const Value* def = arg(a, 1, "default");
                if (k->is_string())
                    if (const Value* v = dict.find(k->str())) return *v;
                return def ? *def : Value::none();
            }
            if (name == "copy") {
                Value c = Value::dict();
                c.mutable_dict().entries = dict.entries;
                return c;
            }
            List out;
            out.reserve(dict.size());
            for (const auto& [k, v] : dict.entries) {
                if (name == "items") out.push_back(Value::list({Value::string(k), v}));
                else if (name == "keys") out.push_back(Value::string(k));
                else out.push_back(v);
            }
            return Value::list(std::move(out));
        });
    }
    if (obj.is_list()) {
        static const char* mut[] = {"append", "extend", "insert", "pop", "remove", "reverse", "sort", "clear"};
        for (const char* m : mut)
            if (name == m) return refuse("list", name);
        if (name != "index" && name != "count") return Value();
        Value l = obj;
        return Value::callable("list." + name, [l, name](Interpreter& i, CallArgs& a, std::size_t pos) -> Value {
            const Value* x = arg(a, 0, "value");
            if (!x) i.fail(pos, name + "() takes one argument");
            std::int64_t n = 0;
            const auto& items = l.items();
            for (std::size_t k = 0; k < items.size(); ++k) {
                if (!values_equal(items[k], *x)) continue;
                if (name == "index") return Value::integer(static_cast<std::int64_t>(k));
                ++n;
            }
            if (name == "index") i.fail(pos, x->repr() + " is not in list");
            return Value::integer(n);
        });
    }
    return Value();
}

namespace {

void json_string(std::string& out, const std::string& s, bool ensure_ascii) {
    out += '"';
    for (std::size_t i = 0; i < s.size(); ++i) {
        auto c = static_cast<unsigned char>(s[i]);
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            default:
                if (c < 0x20) {
                    char b[8];
                    std::snprintf(b, sizeof(b), "\\u%04x", c);
                    out += b;
                } else if (c >= 0x80 && ensure_ascii) {
                    // decode one code point and write \uXXXX (surrogate pair above the BMP)
                    std::size_t n = (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
                    auto u = to_u32(std::string_view(s).substr(i, n));
                    char32_t cp = u.empty() ? 0xFFFD : u[0];
                    char b[16];
                    if (cp >= 0x10000) {
                        cp -= 0x10000;
                        std::snprintf(b, sizeof(b), "\\u%04x\\u%04x", 0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF));
                    } else {
                        std::snprintf(b, sizeof(b), "\\u%04x", static_cast<unsigned>(cp));
                    }
                    out += b;
                    i += n - 1;
                } else {
                    out += static_cast<char>(c);
                }
        }
    }
    out += '"';
}

void json_dump(Interpreter& in, std::string& out, const Value& v, const JsonOptions& opt, int depth, std::size_t pos) {
    if (depth > 200) in.fail(pos, "tojson: value nested too deeply");
    auto newline = [&](int d) {
        if (!opt.indent) return;
        check_string_size(in, out.size() + 1 + static_cast<std::size_t>(d) * opt.indent->size());
        out += '\n';
        for (int k = 0; k < d; ++k) out += *opt.indent;
    };
    switch (v.kind()) {
        case Kind::none: out += "null"; return;
        case Kind::boolean: out += v.as_bool() ? "true" : "false"; return;
        case Kind::integer: out += std::to_string(v.as_int()); return;
        case Kind::floating: {
            double d = v.as_double();
            if (std::isnan(d)) out += "NaN";
            else if (std::isinf(d)) out += d > 0 ? "Infinity" : "-Infinity";
            else out += format_float(d);
            return;
        }
        case Kind::string: json_string(out, v.str(), opt.ensure_ascii); return;
        case Kind::list: {
            const auto& items = v.items();
            if (items.empty()) {
                out += "[]";
                return;
            }
            out += '[';
            for (std::size_t i = 0; i < items.size(); ++i) {
                if (i) out += opt.item_sep;
                newline(depth + 1);
                json_dump(in, out, items[i], opt, depth + 1, pos);
            }
            newline(depth);
            out += ']';
            return;
        }
        case Kind::dict: {
            if (v.is_namespace()) in.fail(pos, "tojson: object of type Namespace is not JSON serializable");
            std::vector<const std::pair<std::string, Value>*> entries;
            for (const auto& e : v.dict_ref().entries) entries.push_back(&e);
            if (entries.empty()) {
                out += "{}";
                return;
            }
            if (opt.sort_keys)
                std::stable_sort(entries.begin(), entries.end(),
                                 [](const auto* x, const auto* y) { return x->first < y->first; });
            out += '{';
            for (std::size_t i = 0; i < entries.size(); ++i) {
                if (i) out += opt.item_sep;
                newline(depth + 1);
                json_string(out, entries[i]->first, opt.ensure_ascii);
                out += opt.key_sep;
                json_dump(in, out, entries[i]->second, opt, depth + 1, pos);
            }
            newline(depth);
            out += '}';
            return;
        }
        case Kind::undefined: in.fail(pos, "tojson: object of type Undefined is not JSON serializable (" + v.str() + ")");
        case Kind::callable: in.fail(pos, "tojson: a function is not JSON serializable");
    }
}

}  // namespace

std::string to_json(Interpreter& in, const Value& v, const JsonOptions& opt, std::size_t pos) {
    std::string out;
    json_dump(in, out, v, opt, 0, pos);
    return out;
}

}  // namespace ft::jinja
