// GGUF (v3, v2 read too): metadata values, a bounds-checked mmap reader and a streaming writer.
//
// Layout (little-endian): "GGUF" u32 version, u64 n_tensors, u64 n_kv, n_kv × (string key, u32 type, value),
// n_tensors × (string name, u32 n_dims, u64 dims[n_dims], u32 type, u64 offset), padding to `general.alignment`
// (default 32), then the tensor data section; each tensor offset is relative to it and aligned. A string is a u64
// byte length then the bytes (no terminator); an array is u32 element type, u64 count, then the elements.
//
// Errors: every malformed input gives ft::Error(ErrorCode::invalid_file, "<file>: <what> (<field>)", hint) before
// any allocation sized by the file; a missing key or tensor gives ErrorCode::not_found. Nothing here logs.
// Threading: a Reader / Metadata / Value is immutable after construction and safe to read from many threads.
// A Writer is used from one thread.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ref/dtype.h"

namespace ft {
class MappedFile;
}

namespace ft::gguf {

using kernels::DType;

inline constexpr std::uint32_t kMagic = 0x46554747;  // "GGUF" read as a little-endian u32
inline constexpr std::uint32_t kVersion = 3;         // what the Writer writes
inline constexpr std::uint32_t kDefaultAlignment = 32;
inline constexpr std::uint32_t kMaxDims = 4;
inline constexpr const char* kAlignmentKey = "general.alignment";

// GGUF metadata value type ids (the u32 in the file).
enum class ValueType : std::uint32_t {
    u8 = 0, i8 = 1, u16 = 2, i16 = 3, u32 = 4, i32 = 5, f32 = 6, boolean = 7, string = 8, array = 9,
    u64 = 10, i64 = 11, f64 = 12,
};

// "u8", "i8", …, "bool", "string", "array", "f64"; "unknown" for an id outside the enum.
std::string_view value_type_name(ValueType t);
// Bytes of one element of a fixed-size type; 0 for string and array (and unknown ids).
std::size_t value_type_size(ValueType t);

// Where a value came from, for error messages: "<file>: <what> (<field>)". Both parts may be empty.
struct ErrorContext {
    std::string_view file;
    std::string_view field;
};

// One metadata value: a scalar, a string or an array (of scalars, strings, or arrays — nested arrays).
// Values read from a file are views into the file's mapping (strings as string_views, numeric arrays as raw
// little-endian bytes) and keep the mapping alive; values built with the factories own their storage.
// Copying a Value is cheap (shared storage). Default-constructed: u8 0.
class Value {
public:
    Value();

    // --- Factories (owned storage) ---
    static Value u8(std::uint8_t v);
    static Value i8(std::int8_t v);
    static Value u16(std::uint16_t v);
    static Value i16(std::int16_t v);
    static Value u32(std::uint32_t v);
    static Value i32(std::int32_t v);
    static Value f32(float v);
    static Value boolean(bool v);
    static Value u64(std::uint64_t v);
    static Value i64(std::int64_t v);
    static Value f64(double v);
    static Value string(std::string v);
    static Value string_array(std::vector<std::string> items);
    static Value string_array(std::span<const std::string_view> items);  // copies the characters
    static Value u8_array(std::span<const std::uint8_t> items);
    static Value i8_array(std::span<const std::int8_t> items);
    static Value u16_array(std::span<const std::uint16_t> items);
    static Value i16_array(std::span<const std::int16_t> items);
    static Value u32_array(std::span<const std::uint32_t> items);
    static Value i32_array(std::span<const std::int32_t> items);
    static Value f32_array(std::span<const float> items);
    static Value bool_array(std::span<const bool> items);
    static Value u64_array(std::span<const std::uint64_t> items);
    static Value i64_array(std::span<const std::int64_t> items);
    static Value f64_array(std::span<const double> items);
    // An array of arrays (each item must itself be an array; GGUF stores each sub-array's own element type).
    // An empty vector gives an empty array of arrays. Throws invalid_argument if an item is not an array.
    static Value array_of_arrays(std::vector<Value> items);
    // An array of fixed-size elements from raw little-endian bytes (raw.size() must be count × element size).
    static Value numeric_array(ValueType elem, std::span<const std::byte> raw);

    // --- Type ---
    ValueType type() const noexcept { return type_; }
    bool is_array() const noexcept { return type_ == ValueType::array; }
    bool is_string() const noexcept { return type_ == ValueType::string; }
    bool is_integer() const noexcept;  // u8…i64 (not bool)
    bool is_float() const noexcept;    // f32, f64

    // --- Scalars --- each throws ft::Error(invalid_file) naming ctx when the type (or range) does not fit.
    std::uint64_t as_u64(ErrorContext ctx = {}) const;  // any integer type holding a value >= 0
    std::int64_t as_i64(ErrorContext ctx = {}) const;   // any integer type holding a value that fits int64
    double as_f64(ErrorContext ctx = {}) const;         // f32, f64 or any integer type
    bool as_bool(ErrorContext ctx = {}) const;          // bool only
    std::string_view as_string(ErrorContext ctx = {}) const;  // string only

    // --- Arrays --- (array_type/array_size: element type and count; both 0/u8 for a non-array)
    ValueType array_type() const noexcept { return elem_; }
    std::uint64_t array_size() const noexcept { return count_; }
    // The elements of an array of strings: one contiguous table of views, no per-element allocation.
    std::span<const std::string_view> as_strings(ErrorContext ctx = {}) const;
    // Raw little-endian bytes of an array of fixed-size elements (may be unaligned in a mapping).
    std::span<const std::byte> array_raw(ErrorContext ctx = {}) const;
    // Converted copies (one allocation each). Integer elements must fit the target type.
    std::vector<std::int32_t> as_i32_array(ErrorContext ctx = {}) const;  // any integer element type
    std::vector<std::int64_t> as_i64_array(ErrorContext ctx = {}) const;  // any integer element type
    std::vector<std::uint64_t> as_u64_array(ErrorContext ctx = {}) const; // any integer element type, >= 0
    std::vector<float> as_f32_array(ErrorContext ctx = {}) const;         // f32, f64 or integer elements
    std::vector<bool> as_bool_array(ErrorContext ctx = {}) const;         // bool elements
    // The elements of an array of arrays.
    std::span<const Value> as_arrays(ErrorContext ctx = {}) const;
    // Element i of any array as a Value (shares storage). Throws invalid_argument when out of range.
    Value element(std::uint64_t i) const;

    // Short human-readable form for `ft inspect`: 42, 1.5, true, "text", [1, 2, 3, … (150000 items)].
    std::string to_display(std::size_t max_items = 8, std::size_t max_chars = 80) const;

    // Deep equality of type and content (f32/f64 compared bitwise).
    friend bool operator==(const Value& a, const Value& b);

private:
    friend class ValueBuilder;  // the reader's parser
    friend class Writer;        // serializes the payload as is
    ValueType type_ = ValueType::u8;
    std::uint64_t bits_ = 0;   // scalar payload: integer bits, double/float bits, bool
    std::string_view str_;     // string payload
    ValueType elem_ = ValueType::u8;
    std::uint64_t count_ = 0;
    const std::byte* raw_ = nullptr;                          // fixed-size array elements
    std::shared_ptr<const std::vector<std::string_view>> strings_;  // string array elements
    std::shared_ptr<const std::vector<Value>> arrays_;              // nested array elements
    std::shared_ptr<const void> owner_;                             // keeps the bytes above alive
};

struct KeyValue {
    std::string key;
    Value value;
};

// Ordered key → value table (file order). Getters name the source file and the key in their errors.
class Metadata {
public:
    explicit Metadata(std::string source = {});

    const std::string& source() const noexcept { return source_; }
    // Adds the key at the end, or replaces the value of an existing key in place (its position is kept).
    void set(std::string key, Value value);
    bool erase(std::string_view key);

    std::span<const KeyValue> entries() const noexcept { return entries_; }
    std::size_t size() const noexcept { return entries_.size(); }
    bool contains(std::string_view key) const { return find(key) != nullptr; }
    const Value* find(std::string_view key) const;  // nullptr when absent
    const Value& get(std::string_view key) const;   // throws not_found "<source>: missing key (key)"

    // Typed getters: throw not_found when the key is absent, invalid_file when its type does not fit.
    std::uint64_t get_u64(std::string_view key) const;
    std::int64_t get_i64(std::string_view key) const;
    double get_f64(std::string_view key) const;
    bool get_bool(std::string_view key) const;
    std::string_view get_string(std::string_view key) const;
    std::span<const std::string_view> get_strings(std::string_view key) const;
    std::vector<std::int32_t> get_i32_array(std::string_view key) const;
    std::vector<float> get_f32_array(std::string_view key) const;
    // Optional variants: nullopt when the key is absent; still throw when present with a wrong type.
    std::optional<std::uint64_t> opt_u64(std::string_view key) const;
    std::optional<std::int64_t> opt_i64(std::string_view key) const;
    std::optional<double> opt_f64(std::string_view key) const;
    std::optional<bool> opt_bool(std::string_view key) const;
    std::optional<std::string_view> opt_string(std::string_view key) const;

private:
    std::string source_;
    std::vector<KeyValue> entries_;
    std::map<std::string, std::size_t, std::less<>> index_;
};

struct TensorInfo {
    std::string name;
    std::uint32_t n_dims = 0;
    std::array<std::uint64_t, kMaxDims> dims{1, 1, 1, 1};  // GGUF/ggml order: dims[0] is the innermost (row)
    DType type = DType::F32;
    std::uint64_t offset = 0;      // relative to the data section, a multiple of the alignment
    std::uint64_t n_elements = 0;
    std::uint64_t n_bytes = 0;     // dtype_bytes(type, n_elements)
    std::size_t index = 0;         // position in the file's tensor table
    std::uint32_t part = 0;        // the file of Reader::parts() holding the data (> 0 only in a split model)
};

// A parsed GGUF file. Tensors and metadata strings are views into the mapping; they stay valid while the Reader
// (or a Value copied out of it) lives. Move-only.
class Reader {
public:
    // Maps and parses the file. Throws not_found / io (cannot open) or invalid_file (malformed, see top).
    static Reader open(const std::filesystem::path& path);
    // Parses bytes the caller keeps alive for the Reader's lifetime (tests, fuzzing). `name` is used in errors.
    static Reader parse(std::span<const std::byte> bytes, std::string name);
    // Opens a model: like open(), and when the file is the first part of a split model (llama.cpp's gguf-split
    // convention, see split_file_name() below) its other parts are opened from the same folder and their tensors
    // join this Reader's table in part order, so tensors() / find_tensor() / tensor_data() cover the whole model;
    // metadata() is the first part's (which holds all of it). Throws not_found naming a missing part,
    // invalid_file for a part that does not belong (split.no, split.count, a tensor in two parts, a tensor count
    // other than split.tensors.count), invalid_argument for a later part (naming the first part to open instead).
    static Reader open_model(const std::filesystem::path& path);

    Reader(Reader&&) noexcept;
    Reader& operator=(Reader&&) noexcept;
    ~Reader();

    const std::string& name() const noexcept { return name_; }
    std::uint32_t version() const noexcept { return version_; }
    std::uint64_t alignment() const noexcept { return alignment_; }
    std::uint64_t data_offset() const noexcept { return data_offset_; }  // absolute offset of the data section
    std::uint64_t file_size() const noexcept { return bytes_.size(); }
    std::span<const std::byte> bytes() const noexcept { return bytes_; }
    // The mapping (nullptr for parse()); share it to keep tensor views alive beyond the Reader.
    const std::shared_ptr<const MappedFile>& mapping() const noexcept { return mapping_; }

    // The files the tensors live in: this one, then (open_model() of a split model) the other parts in order.
    // The accessors above describe the first file.
    struct Part {
        std::filesystem::path path;               // empty for parse()
        std::shared_ptr<const MappedFile> mapping;  // nullptr for parse()
        std::span<const std::byte> bytes;
        std::uint64_t data_offset = 0;
    };
    std::span<const Part> parts() const noexcept { return parts_; }
    std::uint64_t parts_size() const noexcept;  // bytes of all parts

    const Metadata& metadata() const noexcept { return metadata_; }
    // Shorthands for metadata().…
    const Value* find(std::string_view key) const { return metadata_.find(key); }
    std::uint64_t get_u64(std::string_view key) const { return metadata_.get_u64(key); }
    std::int64_t get_i64(std::string_view key) const { return metadata_.get_i64(key); }
    double get_f64(std::string_view key) const { return metadata_.get_f64(key); }
    bool get_bool(std::string_view key) const { return metadata_.get_bool(key); }
    std::string_view get_string(std::string_view key) const { return metadata_.get_string(key); }

    std::span<const TensorInfo> tensors() const noexcept { return tensors_; }  // file order
    const TensorInfo* find_tensor(std::string_view name) const;                // nullptr when absent
    const TensorInfo& tensor(std::string_view name) const;                     // throws not_found
    // The tensor's bytes in the mapping (no copy); aligned to alignment() relative to the file start.
    std::span<const std::byte> tensor_data(const TensorInfo& t) const;

private:
    Reader() = default;
    std::string name_;
    std::shared_ptr<const MappedFile> mapping_;
    std::span<const std::byte> bytes_;
    std::uint32_t version_ = 0;
    std::uint64_t alignment_ = kDefaultAlignment;
    std::uint64_t data_offset_ = 0;
    Metadata metadata_;
    std::vector<TensorInfo> tensors_;
    std::map<std::string, std::size_t, std::less<>> tensor_index_;
    std::vector<Part> parts_;
    friend class Parser;
};

// Split models (llama.cpp's gguf-split): parts named <stem>-00001-of-0000N.gguf … <stem>-0000N-of-0000N.gguf in
// one folder, each a complete GGUF file holding some of the tensors; the first holds all the metadata; every part
// has split.no (u16, 0-based), split.count (u16) and split.tensors.count (i32, the tensors of all parts).
inline constexpr const char* kSplitNoKey = "split.no";
inline constexpr const char* kSplitCountKey = "split.count";
inline constexpr const char* kSplitTensorsKey = "split.tensors.count";
// "<stem>-0000K-of-0000N.gguf" (K 1-based).
std::string split_file_name(std::string_view stem, int part, int count);
// The reverse; false for any other name (also when part is outside 1..count).
bool parse_split_file_name(std::string_view file_name, std::string& stem, int& part, int& count);


// Streaming writer with bounded memory: declare metadata and tensors, write_header(), then each tensor's bytes in
// declaration order (in any number of chunks), then finish(). Writes to "<path>.tmp" and renames it to <path> in
// finish(), so a failure never leaves a partial file under the final name (the destructor removes the .tmp file
// of an unfinished writer). Errors: invalid_argument (misuse: wrong order, wrong byte count, bad shape/alignment),
// io (disk full, cannot create or rename).
class Writer {
public:
    explicit Writer(std::filesystem::path path);
    ~Writer();
    Writer(const Writer&) = delete;
    Writer& operator=(const Writer&) = delete;

    const std::filesystem::path& path() const noexcept { return path_; }

    // --- Before write_header() ---
    Metadata& metadata() noexcept { return metadata_; }
    void set(std::string key, Value value);
    // Power of two; also sets general.alignment (u32). A general.alignment set through set() is honoured too.
    void set_alignment(std::uint32_t alignment);
    std::uint32_t alignment() const noexcept { return alignment_; }
    // dims in GGUF order (dims[0] innermost), 1..4 of them; dims[0] must be a multiple of the type's block size.
    // Returns the tensor's byte size.
    std::uint64_t add_tensor(std::string name, DType type, std::span<const std::uint64_t> dims);
    std::span<const TensorInfo> tensors() const noexcept { return tensors_; }  // offsets set by write_header()

    // Writes magic, version, counts, metadata, tensor infos and the padding before the data section.
    void write_header();

    // --- After write_header(), for each tensor in declaration order ---
    void begin_tensor(std::string_view name);
    void write(std::span<const std::byte> chunk);  // appends to the current tensor; more than its size throws
    void end_tensor();                              // byte count must equal the tensor's n_bytes; pads
    void write_tensor(std::string_view name, std::span<const std::byte> data);  // begin + write + end

    // Checks every tensor was written, flushes, syncs, closes and renames <path>.tmp to <path>.
    void finish();

    std::uint64_t bytes_written() const noexcept { return written_; }
    // Total file size implied by the declarations (valid after write_header()).
    std::uint64_t expected_size() const noexcept { return expected_size_; }

private:
    void put(const void* data, std::size_t n);
    void pad_to(std::uint64_t alignment);
    void fail_if(bool cond, const char* what) const;
    std::filesystem::path path_;
    std::filesystem::path tmp_path_;
    Metadata metadata_;
    std::vector<TensorInfo> tensors_;
    std::map<std::string, std::size_t, std::less<>> tensor_index_;
    std::uint32_t alignment_ = kDefaultAlignment;
    std::uint64_t data_size_ = 0;       // sum of aligned tensor sizes so far
    std::uint64_t data_offset_ = 0;
    std::uint64_t expected_size_ = 0;
    std::FILE* file_ = nullptr;
    enum class State { declaring, writing, finished, failed } state_ = State::declaring;
    std::size_t next_tensor_ = 0;       // next tensor to begin
    bool in_tensor_ = false;
    std::uint64_t tensor_written_ = 0;  // bytes of the current tensor so far
    std::uint64_t written_ = 0;
};

// Writes a model split over several GGUF files as gguf-split does (see above): the tensors, in declaration order,
// fill parts of at most max_tensors tensors and at most max_bytes bytes of tensor data (a tensor larger than
// max_bytes gets a part of its own; 0: no limit). With neither limit it writes one plain file at `path`; with one,
// the parts go next to `path` named split_file_name(<path without .gguf>, K, N) (N = 1 included). Same calls, in
// the same order, as Writer; errors as Writer's.
struct SplitOptions {
    std::uint64_t max_tensors = 0;
    std::uint64_t max_bytes = 0;
    bool enabled() const noexcept { return max_tensors > 0 || max_bytes > 0; }
};

class SplitWriter {
public:
    SplitWriter(std::filesystem::path path, SplitOptions options);
    ~SplitWriter();
    SplitWriter(const SplitWriter&) = delete;
    SplitWriter& operator=(const SplitWriter&) = delete;

    // --- Before write_header() ---
    Metadata& metadata() noexcept { return metadata_; }
    void set_alignment(std::uint32_t alignment);
    std::uint64_t add_tensor(std::string name, DType type, std::span<const std::uint64_t> dims);
    // Decides the parts and writes every part's header.
    void write_header();
    // --- After write_header(), for each tensor in declaration order ---
    void begin_tensor(std::string_view name);
    void write(std::span<const std::byte> chunk);
    void end_tensor();
    void write_tensor(std::string_view name, std::span<const std::byte> data);
    // Finishes every part (each renamed from its .tmp file).
    void finish();

    // The files (valid after write_header()); the first is what a loader opens.
    std::vector<std::filesystem::path> paths() const;
    std::uint64_t expected_size() const noexcept;  // all parts

private:
    struct Decl {
        std::string name;
        DType type;
        std::vector<std::uint64_t> dims;
        std::uint64_t bytes = 0;
    };
    std::filesystem::path path_;
    SplitOptions options_;
    Metadata metadata_;
    std::uint32_t alignment_ = 0;  // 0: the Writer's default
    Writer check_;                 // declarations only (never writes): validates each add_tensor()
    std::vector<Decl> decls_;
    std::vector<std::unique_ptr<Writer>> parts_;
    std::vector<std::size_t> part_of_;  // per declared tensor
    std::size_t next_ = 0;              // next tensor to begin
    Writer* current_ = nullptr;
};

}  // namespace ft::gguf
