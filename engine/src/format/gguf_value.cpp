// gguf::Value (scalars, strings, arrays incl. nested) and the ordered Metadata table.
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "format/gguf.h"
#include "format/gguf_internal.h"
#include "ft/error.h"

namespace ft::gguf {

static_assert(std::endian::native == std::endian::little, "GGUF values are read in place: little-endian hosts only");

namespace {

constexpr const char* kTypeHint = "the file was written by an incompatible tool; convert the model again";

[[noreturn]] void fail(ErrorContext ctx, const std::string& what, ErrorCode code = ErrorCode::invalid_file) {
    std::string msg;
    if (!ctx.file.empty()) msg.append(ctx.file).append(": ");
    msg += what;
    if (!ctx.field.empty()) msg.append(" (").append(ctx.field).append(")");
    throw Error(code, std::move(msg), code == ErrorCode::invalid_file ? kTypeHint : "");
}

[[noreturn]] void wrong_type(ErrorContext ctx, const Value& v, const char* expected) {
    std::string got(value_type_name(v.type()));
    if (v.is_array()) got = "array of " + std::string(value_type_name(v.array_type()));
    fail(ctx, "value has type " + got + ", expected " + expected);
}

bool is_int_type(ValueType t) {
    switch (t) {
        case ValueType::u8: case ValueType::i8: case ValueType::u16: case ValueType::i16: case ValueType::u32:
        case ValueType::i32: case ValueType::u64: case ValueType::i64: return true;
        default: return false;
    }
}
bool is_signed_type(ValueType t) {
    return t == ValueType::i8 || t == ValueType::i16 || t == ValueType::i32 || t == ValueType::i64;
}

// Scalar payload of a fixed-size element at p: integers sign/zero-extended to 64 bits, floats as their bits.
std::uint64_t load_bits(ValueType t, const std::byte* p) {
    switch (t) {
        case ValueType::u8: case ValueType::boolean: { std::uint8_t v; std::memcpy(&v, p, 1); return v; }
        case ValueType::i8: { std::int8_t v; std::memcpy(&v, p, 1); return static_cast<std::uint64_t>(std::int64_t{v}); }
        case ValueType::u16: { std::uint16_t v; std::memcpy(&v, p, 2); return v; }
        case ValueType::i16: { std::int16_t v; std::memcpy(&v, p, 2); return static_cast<std::uint64_t>(std::int64_t{v}); }
        case ValueType::u32: case ValueType::f32: { std::uint32_t v; std::memcpy(&v, p, 4); return v; }
        case ValueType::i32: { std::int32_t v; std::memcpy(&v, p, 4); return static_cast<std::uint64_t>(std::int64_t{v}); }
        case ValueType::u64: case ValueType::i64: case ValueType::f64: { std::uint64_t v; std::memcpy(&v, p, 8); return v; }
        default: return 0;
    }
}

template <class T>
Value make_numeric_array(ValueType elem, std::span<const T> items) {
    return Value::numeric_array(elem, std::as_bytes(items));
}

}  // namespace

// The reader's parser builds views into the mapping through this friend.
class ValueBuilder {
public:
    static Value scalar(ValueType t, std::uint64_t bits) {
        Value v;
        v.type_ = t;
        v.bits_ = bits;
        return v;
    }
    static Value view_string(std::string_view s, std::shared_ptr<const void> owner) {
        Value v;
        v.type_ = ValueType::string;
        v.str_ = s;
        v.owner_ = std::move(owner);
        return v;
    }
    static Value view_numeric_array(ValueType elem, const std::byte* raw, std::uint64_t count,
                                    std::shared_ptr<const void> owner) {
        Value v;
        v.type_ = ValueType::array;
        v.elem_ = elem;
        v.count_ = count;
        v.raw_ = raw;
        v.owner_ = std::move(owner);
        return v;
    }
    static Value view_string_array(std::shared_ptr<const std::vector<std::string_view>> items,
                                   std::shared_ptr<const void> owner) {
        Value v;
        v.type_ = ValueType::array;
        v.elem_ = ValueType::string;
        v.count_ = items->size();
        v.strings_ = std::move(items);
        v.owner_ = std::move(owner);
        return v;
    }
    static Value nested_array(std::shared_ptr<const std::vector<Value>> items) {
        Value v;
        v.type_ = ValueType::array;
        v.elem_ = ValueType::array;
        v.count_ = items->size();
        v.arrays_ = std::move(items);
        return v;
    }
};

// Declared in gguf_internal.h for the reader.
Value make_scalar_value(ValueType t, std::uint64_t bits) { return ValueBuilder::scalar(t, bits); }
Value make_view_string(std::string_view s, std::shared_ptr<const void> owner) {
    return ValueBuilder::view_string(s, std::move(owner));
}
Value make_view_numeric_array(ValueType elem, const std::byte* raw, std::uint64_t count,
                              std::shared_ptr<const void> owner) {
    return ValueBuilder::view_numeric_array(elem, raw, count, std::move(owner));
}
Value make_view_string_array(std::shared_ptr<const std::vector<std::string_view>> items,
                             std::shared_ptr<const void> owner) {
    return ValueBuilder::view_string_array(std::move(items), std::move(owner));
}
Value make_nested_array(std::shared_ptr<const std::vector<Value>> items) {
    return ValueBuilder::nested_array(std::move(items));
}
std::uint64_t load_scalar_bits(ValueType t, const std::byte* p) { return load_bits(t, p); }

std::string_view value_type_name(ValueType t) {
    switch (t) {
        case ValueType::u8: return "u8";
        case ValueType::i8: return "i8";
        case ValueType::u16: return "u16";
        case ValueType::i16: return "i16";
        case ValueType::u32: return "u32";
        case ValueType::i32: return "i32";
        case ValueType::f32: return "f32";
        case ValueType::boolean: return "bool";
        case ValueType::string: return "string";
        case ValueType::array: return "array";
        case ValueType::u64: return "u64";
        case ValueType::i64: return "i64";
        case ValueType::f64: return "f64";
    }
    return "unknown";
}

std::size_t value_type_size(ValueType t) {
    switch (t) {
        case ValueType::u8: case ValueType::i8: case ValueType::boolean: return 1;
        case ValueType::u16: case ValueType::i16: return 2;
        case ValueType::u32: case ValueType::i32: case ValueType::f32: return 4;
        case ValueType::u64: case ValueType::i64: case ValueType::f64: return 8;
        default: return 0;
    }
}

Value::Value() = default;

Value Value::u8(std::uint8_t v) { return ValueBuilder::scalar(ValueType::u8, v); }
Value Value::i8(std::int8_t v) { return ValueBuilder::scalar(ValueType::i8, static_cast<std::uint64_t>(std::int64_t{v})); }
Value Value::u16(std::uint16_t v) { return ValueBuilder::scalar(ValueType::u16, v); }
Value Value::i16(std::int16_t v) { return ValueBuilder::scalar(ValueType::i16, static_cast<std::uint64_t>(std::int64_t{v})); }
Value Value::u32(std::uint32_t v) { return ValueBuilder::scalar(ValueType::u32, v); }
Value Value::i32(std::int32_t v) { return ValueBuilder::scalar(ValueType::i32, static_cast<std::uint64_t>(std::int64_t{v})); }
Value Value::f32(float v) { return ValueBuilder::scalar(ValueType::f32, std::bit_cast<std::uint32_t>(v)); }
Value Value::boolean(bool v) { return ValueBuilder::scalar(ValueType::boolean, v ? 1 : 0); }
Value Value::u64(std::uint64_t v) { return ValueBuilder::scalar(ValueType::u64, v); }
Value Value::i64(std::int64_t v) { return ValueBuilder::scalar(ValueType::i64, static_cast<std::uint64_t>(v)); }
Value Value::f64(double v) { return ValueBuilder::scalar(ValueType::f64, std::bit_cast<std::uint64_t>(v)); }

Value Value::string(std::string v) {
    auto owned = std::make_shared<const std::string>(std::move(v));
    const std::string_view view(*owned);
    return ValueBuilder::view_string(view, std::move(owned));
}

Value Value::string_array(std::vector<std::string> items) {
    auto owned = std::make_shared<const std::vector<std::string>>(std::move(items));
    auto views = std::make_shared<std::vector<std::string_view>>();
    views->reserve(owned->size());
    for (const auto& s : *owned) views->emplace_back(s);
    return ValueBuilder::view_string_array(std::move(views), std::move(owned));
}

Value Value::string_array(std::span<const std::string_view> items) {
    // One character buffer for all items: no per-element allocation.
    std::size_t total = 0;
    for (auto s : items) total += s.size();
    auto chars = std::make_shared<std::string>();
    chars->reserve(total);
    for (auto s : items) chars->append(s);
    auto views = std::make_shared<std::vector<std::string_view>>();
    views->reserve(items.size());
    std::size_t pos = 0;
    for (auto s : items) {
        views->emplace_back(chars->data() + pos, s.size());
        pos += s.size();
    }
    return ValueBuilder::view_string_array(std::move(views), std::move(chars));
}

Value Value::u8_array(std::span<const std::uint8_t> items) { return make_numeric_array(ValueType::u8, items); }
Value Value::i8_array(std::span<const std::int8_t> items) { return make_numeric_array(ValueType::i8, items); }
Value Value::u16_array(std::span<const std::uint16_t> items) { return make_numeric_array(ValueType::u16, items); }
Value Value::i16_array(std::span<const std::int16_t> items) { return make_numeric_array(ValueType::i16, items); }
Value Value::u32_array(std::span<const std::uint32_t> items) { return make_numeric_array(ValueType::u32, items); }
Value Value::i32_array(std::span<const std::int32_t> items) { return make_numeric_array(ValueType::i32, items); }
Value Value::f32_array(std::span<const float> items) { return make_numeric_array(ValueType::f32, items); }
Value Value::u64_array(std::span<const std::uint64_t> items) { return make_numeric_array(ValueType::u64, items); }
Value Value::i64_array(std::span<const std::int64_t> items) { return make_numeric_array(ValueType::i64, items); }
Value Value::f64_array(std::span<const double> items) { return make_numeric_array(ValueType::f64, items); }

Value Value::bool_array(std::span<const bool> items) {
    std::vector<std::uint8_t> bytes(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) bytes[i] = items[i] ? 1 : 0;
    return numeric_array(ValueType::boolean, std::as_bytes(std::span<const std::uint8_t>(bytes)));
}

Value Value::numeric_array(ValueType elem, std::span<const std::byte> raw) {
    const std::size_t size = value_type_size(elem);
    if (size == 0)
        throw Error(ErrorCode::invalid_argument,
                    "gguf::Value::numeric_array: element type " + std::string(value_type_name(elem)) +
                        " is not a fixed-size type");
    if (raw.size() % size != 0)
        throw Error(ErrorCode::invalid_argument, "gguf::Value::numeric_array: byte count " +
                                                     std::to_string(raw.size()) + " is not a multiple of " +
                                                     std::to_string(size));
    auto owned = std::make_shared<std::vector<std::byte>>(raw.begin(), raw.end());
    const std::byte* p = owned->data();
    return ValueBuilder::view_numeric_array(elem, p, raw.size() / size, std::move(owned));
}

Value Value::array_of_arrays(std::vector<Value> items) {
    for (const auto& v : items)
        if (!v.is_array())
            throw Error(ErrorCode::invalid_argument,
                        "gguf::Value::array_of_arrays: an item has type " + std::string(value_type_name(v.type())));
    return ValueBuilder::nested_array(std::make_shared<const std::vector<Value>>(std::move(items)));
}

bool Value::is_integer() const noexcept { return is_int_type(type_); }
bool Value::is_float() const noexcept { return type_ == ValueType::f32 || type_ == ValueType::f64; }

std::uint64_t Value::as_u64(ErrorContext ctx) const {
    if (!is_integer()) wrong_type(ctx, *this, "an unsigned integer");
    if (is_signed_type(type_) && static_cast<std::int64_t>(bits_) < 0)
        fail(ctx, "value " + std::to_string(static_cast<std::int64_t>(bits_)) + " is negative, expected >= 0");
    return bits_;
}

std::int64_t Value::as_i64(ErrorContext ctx) const {
    if (!is_integer()) wrong_type(ctx, *this, "an integer");
    if (type_ == ValueType::u64 && bits_ > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        fail(ctx, "value " + std::to_string(bits_) + " does not fit a signed 64-bit integer");
    return static_cast<std::int64_t>(bits_);
}

double Value::as_f64(ErrorContext ctx) const {
    if (type_ == ValueType::f32) return std::bit_cast<float>(static_cast<std::uint32_t>(bits_));
    if (type_ == ValueType::f64) return std::bit_cast<double>(bits_);
    if (is_integer())
        return is_signed_type(type_) ? static_cast<double>(static_cast<std::int64_t>(bits_))
                                     : static_cast<double>(bits_);
    wrong_type(ctx, *this, "a number");
}

bool Value::as_bool(ErrorContext ctx) const {
    if (type_ != ValueType::boolean) wrong_type(ctx, *this, "bool");
    return bits_ != 0;
}

std::string_view Value::as_string(ErrorContext ctx) const {
    if (type_ != ValueType::string) wrong_type(ctx, *this, "string");
    return str_;
}

std::span<const std::string_view> Value::as_strings(ErrorContext ctx) const {
    if (!is_array() || elem_ != ValueType::string) wrong_type(ctx, *this, "array of string");
    return *strings_;
}

std::span<const std::byte> Value::array_raw(ErrorContext ctx) const {
    if (!is_array() || value_type_size(elem_) == 0) wrong_type(ctx, *this, "array of numbers");
    return {raw_, static_cast<std::size_t>(count_ * value_type_size(elem_))};
}

std::vector<std::int64_t> Value::as_i64_array(ErrorContext ctx) const {
    if (!is_array() || !is_int_type(elem_)) wrong_type(ctx, *this, "array of integers");
    const std::size_t size = value_type_size(elem_);
    std::vector<std::int64_t> out(count_);
    for (std::uint64_t i = 0; i < count_; ++i) {
        const std::uint64_t bits = load_bits(elem_, raw_ + i * size);
        if (elem_ == ValueType::u64 && bits > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            fail(ctx, "element " + std::to_string(i) + " = " + std::to_string(bits) + " does not fit int64");
        out[i] = static_cast<std::int64_t>(bits);
    }
    return out;
}

std::vector<std::uint64_t> Value::as_u64_array(ErrorContext ctx) const {
    if (!is_array() || !is_int_type(elem_)) wrong_type(ctx, *this, "array of integers");
    const std::size_t size = value_type_size(elem_);
    std::vector<std::uint64_t> out(count_);
    for (std::uint64_t i = 0; i < count_; ++i) {
        const std::uint64_t bits = load_bits(elem_, raw_ + i * size);
        if (is_signed_type(elem_) && static_cast<std::int64_t>(bits) < 0)
            fail(ctx, "element " + std::to_string(i) + " is negative");
        out[i] = bits;
    }
    return out;
}

std::vector<std::int32_t> Value::as_i32_array(ErrorContext ctx) const {
    if (!is_array() || !is_int_type(elem_)) wrong_type(ctx, *this, "array of integers");
    const std::size_t size = value_type_size(elem_);
    std::vector<std::int32_t> out(count_);
    if (elem_ == ValueType::i32) {
        if (count_) std::memcpy(out.data(), raw_, count_ * 4);
        return out;
    }
    for (std::uint64_t i = 0; i < count_; ++i) {
        const std::uint64_t bits = load_bits(elem_, raw_ + i * size);
        const bool neg = is_signed_type(elem_) && static_cast<std::int64_t>(bits) < 0;
        const std::int64_t v = static_cast<std::int64_t>(bits);
        if ((!neg && bits > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())) ||
            (neg && v < std::numeric_limits<std::int32_t>::min()))
            fail(ctx, "element " + std::to_string(i) + " does not fit int32");
        out[i] = static_cast<std::int32_t>(v);
    }
    return out;
}

std::vector<float> Value::as_f32_array(ErrorContext ctx) const {
    if (!is_array() || (!is_int_type(elem_) && elem_ != ValueType::f32 && elem_ != ValueType::f64))
        wrong_type(ctx, *this, "array of numbers");
    std::vector<float> out(count_);
    if (elem_ == ValueType::f32) {
        if (count_) std::memcpy(out.data(), raw_, count_ * 4);
        return out;
    }
    const std::size_t size = value_type_size(elem_);
    for (std::uint64_t i = 0; i < count_; ++i)
        out[i] = static_cast<float>(ValueBuilder::scalar(elem_, load_bits(elem_, raw_ + i * size)).as_f64());
    return out;
}

std::vector<bool> Value::as_bool_array(ErrorContext ctx) const {
    if (!is_array() || elem_ != ValueType::boolean) wrong_type(ctx, *this, "array of bool");
    std::vector<bool> out(count_);
    for (std::uint64_t i = 0; i < count_; ++i) out[i] = raw_[i] != std::byte{0};
    return out;
}

std::span<const Value> Value::as_arrays(ErrorContext ctx) const {
    if (!is_array() || elem_ != ValueType::array) wrong_type(ctx, *this, "array of arrays");
    return *arrays_;
}

Value Value::element(std::uint64_t i) const {
    if (!is_array()) throw Error(ErrorCode::invalid_argument, "gguf::Value::element: not an array");
    if (i >= count_)
        throw Error(ErrorCode::invalid_argument, "gguf::Value::element: index " + std::to_string(i) +
                                                     " out of range (size " + std::to_string(count_) + ")");
    if (elem_ == ValueType::string) return ValueBuilder::view_string((*strings_)[i], owner_);
    if (elem_ == ValueType::array) return (*arrays_)[i];
    return ValueBuilder::scalar(elem_, load_bits(elem_, raw_ + i * value_type_size(elem_)));
}

namespace {
std::string quote(std::string_view s, std::size_t max_chars) {
    std::string out = "\"";
    std::size_t n = 0;
    for (char c : s) {
        if (n++ >= max_chars) {
            out += "…";
            break;
        }
        switch (c) {
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            case '\r': out += "\\r"; break;
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
                    out += buf;
                } else {
                    out += c;
                }
        }
    }
    return out + "\"";
}
}  // namespace

std::string Value::to_display(std::size_t max_items, std::size_t max_chars) const {
    switch (type_) {
        case ValueType::boolean: return bits_ ? "true" : "false";
        case ValueType::string: return quote(str_, max_chars);
        case ValueType::f32:
        case ValueType::f64: {
            char buf[64];
            std::snprintf(buf, sizeof buf, "%.9g", as_f64());
            return buf;
        }
        case ValueType::array: {
            std::string out = "[";
            const std::uint64_t shown = std::min<std::uint64_t>(count_, max_items);
            for (std::uint64_t i = 0; i < shown; ++i) {
                if (i) out += ", ";
                out += element(i).to_display(max_items, max_chars);
            }
            if (shown < count_) out += ", … (" + std::to_string(count_) + " items)";
            return out + "]";
        }
        default:
            return is_signed_type(type_) ? std::to_string(static_cast<std::int64_t>(bits_)) : std::to_string(bits_);
    }
}

bool operator==(const Value& a, const Value& b) {
    if (a.type_ != b.type_) return false;
    if (a.type_ == ValueType::string) return a.str_ == b.str_;
    if (a.type_ != ValueType::array) return a.bits_ == b.bits_;
    if (a.elem_ != b.elem_ || a.count_ != b.count_) return false;
    if (a.elem_ == ValueType::string) {
        for (std::uint64_t i = 0; i < a.count_; ++i)
            if ((*a.strings_)[i] != (*b.strings_)[i]) return false;
        return true;
    }
    if (a.elem_ == ValueType::array) {
        for (std::uint64_t i = 0; i < a.count_; ++i)
            if (!((*a.arrays_)[i] == (*b.arrays_)[i])) return false;
        return true;
    }
    const std::size_t n = a.count_ * value_type_size(a.elem_);
    return n == 0 || std::memcmp(a.raw_, b.raw_, n) == 0;
}

// ---------------------------------------------------------------------------------------------------------------

Metadata::Metadata(std::string source) : source_(std::move(source)) {}

void Metadata::set(std::string key, Value value) {
    if (auto it = index_.find(key); it != index_.end()) {
        entries_[it->second].value = std::move(value);
        return;
    }
    index_.emplace(key, entries_.size());
    entries_.push_back({std::move(key), std::move(value)});
}

bool Metadata::erase(std::string_view key) {
    auto it = index_.find(key);
    if (it == index_.end()) return false;
    entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(it->second));
    index_.clear();
    for (std::size_t i = 0; i < entries_.size(); ++i) index_.emplace(entries_[i].key, i);
    return true;
}

const Value* Metadata::find(std::string_view key) const {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &entries_[it->second].value;
}

const Value& Metadata::get(std::string_view key) const {
    if (const Value* v = find(key)) return *v;
    std::string msg = source_.empty() ? std::string() : source_ + ": ";
    msg.append("missing key (").append(key).append(")");
    throw Error(ErrorCode::not_found, std::move(msg), "the file lacks this setting; it may be for another architecture or incomplete");
}

std::uint64_t Metadata::get_u64(std::string_view key) const { return get(key).as_u64({source_, key}); }
std::int64_t Metadata::get_i64(std::string_view key) const { return get(key).as_i64({source_, key}); }
double Metadata::get_f64(std::string_view key) const { return get(key).as_f64({source_, key}); }
bool Metadata::get_bool(std::string_view key) const { return get(key).as_bool({source_, key}); }
std::string_view Metadata::get_string(std::string_view key) const { return get(key).as_string({source_, key}); }
std::span<const std::string_view> Metadata::get_strings(std::string_view key) const {
    return get(key).as_strings({source_, key});
}
std::vector<std::int32_t> Metadata::get_i32_array(std::string_view key) const {
    return get(key).as_i32_array({source_, key});
}
std::vector<float> Metadata::get_f32_array(std::string_view key) const {
    return get(key).as_f32_array({source_, key});
}

std::optional<std::uint64_t> Metadata::opt_u64(std::string_view key) const {
    const Value* v = find(key);
    return v ? std::optional(v->as_u64({source_, key})) : std::nullopt;
}
std::optional<std::int64_t> Metadata::opt_i64(std::string_view key) const {
    const Value* v = find(key);
    return v ? std::optional(v->as_i64({source_, key})) : std::nullopt;
}
std::optional<double> Metadata::opt_f64(std::string_view key) const {
    const Value* v = find(key);
    return v ? std::optional(v->as_f64({source_, key})) : std::nullopt;
}
std::optional<bool> Metadata::opt_bool(std::string_view key) const {
    const Value* v = find(key);
    return v ? std::optional(v->as_bool({source_, key})) : std::nullopt;
}
std::optional<std::string_view> Metadata::opt_string(std::string_view key) const {
    const Value* v = find(key);
    return v ? std::optional(v->as_string({source_, key})) : std::nullopt;
}

}  // namespace ft::gguf
