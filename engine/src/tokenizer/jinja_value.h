// Value model of the Jinja interpreter: the Python-like objects a chat template computes with.
//
// Values are cheap to copy: strings, lists, dicts and callables are shared (a template never mutates a list or a
// dict in place; HF renders in an immutable sandbox), except namespaces, whose attributes `set ns.x = …` assigns.
// Dicts keep insertion order (tojson output depends on it). Undefined is a value of its own, as in Jinja2: it
// prints empty and is falsy, but reading an attribute or item of it is an error.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ft::jinja {

class Value;
class Interpreter;

using List = std::vector<Value>;

enum class Kind : std::uint8_t { undefined, none, boolean, integer, floating, string, list, dict, callable };

struct Dict;

// Positional and keyword arguments of a call, filter or test.
struct CallArgs {
    std::vector<Value> pos;
    std::vector<std::pair<std::string, Value>> kw;
};

// A callable: a global function, a bound method, a macro or loop.cycle. `pos` is the call site's offset in the
// template source (for error messages).
struct Callable {
    std::string name;
    std::function<Value(Interpreter&, CallArgs&, std::size_t pos)> fn;
};

class Value {
public:
    Value() = default;  // undefined
    static Value undefined(std::string hint = {});
    static Value none();
    static Value boolean(bool b);
    static Value integer(std::int64_t i);
    static Value floating(double f);
    static Value string(std::string s);
    static Value list(List items = {});
    static Value dict();
    static Value ns();  // a namespace() object: a dict whose attributes may be assigned
    static Value callable(std::string name, std::function<Value(Interpreter&, CallArgs&, std::size_t)> fn);

    Kind kind() const { return kind_; }
    bool is_undefined() const { return kind_ == Kind::undefined; }
    bool is_none() const { return kind_ == Kind::none; }
    bool is_bool() const { return kind_ == Kind::boolean; }
    bool is_int() const { return kind_ == Kind::integer; }
    bool is_float() const { return kind_ == Kind::floating; }
    bool is_number() const { return kind_ == Kind::integer || kind_ == Kind::floating || kind_ == Kind::boolean; }
    bool is_string() const { return kind_ == Kind::string; }
    bool is_list() const { return kind_ == Kind::list; }
    bool is_dict() const { return kind_ == Kind::dict; }  // namespaces included
    bool is_namespace() const;
    bool is_mapping() const { return is_dict() && !is_namespace(); }
    bool is_callable() const { return kind_ == Kind::callable; }

    bool as_bool() const { return b_; }
    std::int64_t as_int() const { return kind_ == Kind::boolean ? (b_ ? 1 : 0) : i_; }
    double as_double() const;
    const std::string& str() const { return *s_; }  // string (or the hint of an undefined)
    const List& items() const { return *list_; }
    List& mutable_items() { return *list_; }
    const Dict& dict_ref() const { return *dict_; }
    Dict& mutable_dict() { return *dict_; }
    const Callable& fn() const { return *fn_; }

    bool truthy() const;
    // Python str(): what `{{ x }}`, `~` and the string filter print.
    // Containers nested deeper than kMaxDepth throw ft::Error(out_of_memory) here and in values_equal.
    static constexpr int kMaxDepth = 512;
    std::string to_string(int depth = 0) const;
    // Python repr(): how a string prints inside a list or dict.
    std::string repr(int depth = 0) const;
    // Python type name, for error messages ("str", "int", "dict", …).
    std::string type_name() const;

private:
    Kind kind_ = Kind::undefined;
    bool b_ = false;
    std::int64_t i_ = 0;
    double f_ = 0;
    std::shared_ptr<const std::string> s_;
    std::shared_ptr<List> list_;
    std::shared_ptr<Dict> dict_;
    std::shared_ptr<const Callable> fn_;
};

// An insertion-ordered map with string keys (JSON objects, dict literals, namespaces).
struct Dict {
    std::vector<std::pair<std::string, Value>> entries;
    bool is_namespace = false;

    const Value* find(std::string_view key) const;
    void set(const std::string& key, Value v);  // replaces in place, or appends
    std::size_t size() const { return entries.size(); }
};

// Python equality (1 == 1.0 == True; lists and dicts compare by value; undefined equals undefined).
bool values_equal(const Value& a, const Value& b, int depth = 0);

// Python float repr: shortest round-trip digits, "1.0", "1e-05", "1e+16", "inf", "nan".
std::string format_float(double d);

// Python repr of a string: single quotes unless it contains ' and no ".
std::string python_repr_string(std::string_view s);

// UTF-8 helpers (strings are measured, indexed and sliced in code points, as in Python).
std::vector<std::size_t> utf8_offsets(std::string_view s);  // byte offset of each code point, plus s.size()
std::size_t utf8_length(std::string_view s);

}  // namespace ft::jinja
