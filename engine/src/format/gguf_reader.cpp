// GGUF reader: every count, length and offset is checked against the bytes left before it is used or allocated.
#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include "format/gguf.h"
#include "format/gguf_internal.h"
#include "format/mapped_file.h"
#include "ft/error.h"
#include "ft/utf8.h"

namespace ft::gguf {

namespace {
constexpr const char* kDamagedHint = "the file is damaged or incomplete; download or convert it again";
constexpr int kMaxNesting = 8;  // arrays of arrays; real files use none, so this only stops stack exhaustion
// Smallest encodings, to bound counts by the bytes left: a KV is key length (8) + ≥1 key byte + type (4) + ≥1 byte;
// a tensor info is name length (8) + n_dims (4) + ≥1 dim (8) + type (4) + offset (8).
constexpr std::uint64_t kMinKvBytes = 14;
constexpr std::uint64_t kMinTensorInfoBytes = 32;
}  // namespace

class Parser {
public:
    Parser(Reader& r, std::shared_ptr<const void> owner) : r_(r), b_(r.bytes_), owner_(std::move(owner)) {}

    void run() {
        if (b_.empty())
            fail("empty file", "header", "the file has no content; download or convert it again", {"file_empty", {r_.name_}});
        if (b_.size() < 4) fail_truncated("truncated file: " + std::to_string(b_.size()) + " bytes", "magic", 4);
        if (std::memcmp(b_.data(), "GGUF", 4) != 0) {
            std::string magic;
            for (int i = 0; i < 4; ++i) {
                const auto c = static_cast<unsigned char>(b_[static_cast<std::size_t>(i)]);
                magic += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
            }
            throw Error(ErrorCode::invalid_file, r_.name_ + ": not a GGUF file: it starts with '" + magic + "', expected 'GGUF' (magic)",
                        "pass a .gguf model file (or a Hugging Face folder of safetensors)")
                .keyed("not_gguf", {r_.name_, magic});
        }
        pos_ = 4;
        const std::uint32_t version = u32("version");
        if (version != 2 && version != 3) {
            const std::uint32_t swapped = (version >> 24) | ((version >> 8) & 0xff00u) | ((version << 8) & 0xff0000u) | (version << 24);
            if (swapped >= 1 && swapped <= 3)
                fail("big-endian GGUF file (version " + std::to_string(swapped) + " byte-swapped); only little-endian "
                     "files are supported", "version", "convert the model again for a little-endian machine",
                     {"gguf_big_endian", {r_.name_}});
            if (version == 1)
                fail("GGUF version 1 is not supported (versions 2 and 3 are)", "version",
                     "convert the model again with a current llama.cpp", {"gguf_version_old", {r_.name_}});
            fail("unsupported GGUF version " + std::to_string(version) + " (versions 2 and 3 are supported)",
                 "version", "the file is newer than this program or damaged", {"gguf_version_unknown", {r_.name_, std::to_string(version)}});
        }
        r_.version_ = version;

        const std::uint64_t n_tensors = u64("tensor_count");
        const std::uint64_t n_kv = u64("metadata_kv_count");
        if (n_kv > left() / kMinKvBytes)
            fail("metadata count " + std::to_string(n_kv) + " is impossible for the " + std::to_string(left()) +
                 " bytes left", "metadata_kv_count");
        for (std::uint64_t i = 0; i < n_kv; ++i) read_kv(i);
        read_alignment();

        if (n_tensors > left() / kMinTensorInfoBytes)
            fail("tensor count " + std::to_string(n_tensors) + " is impossible for the " + std::to_string(left()) +
                 " bytes left", "tensor_count");
        r_.tensors_.reserve(static_cast<std::size_t>(n_tensors));
        for (std::uint64_t i = 0; i < n_tensors; ++i) read_tensor_info(i);

        const std::uint64_t a = r_.alignment_;
        r_.data_offset_ = (pos_ + a - 1) / a * a;
        check_tensor_layout();
    }

private:
    // For translating front ends every error carries a key: `key` where given, else "file_damaged" {file, the
    // English detail} (the detail is a format-level fact — a field, an offset — that only a developer acts on).
    [[noreturn]] void fail(const std::string& what, std::string_view field, const char* hint = kDamagedHint,
                           Message key = {}) const {
        std::string msg = r_.name_ + ": " + what;
        if (!field.empty()) msg.append(" (").append(field).append(")");
        Error e(ErrorCode::invalid_file, std::move(msg), hint);
        e.keyed(key.empty() ? "file_damaged" : std::move(key.key), key.empty() ? std::vector<std::string>{r_.name_, what} : std::move(key.args));
        throw e;
    }
    // The file ends before `needed` bytes: a download or a conversion cut short. "file_truncated" {file, its size,
    // the bytes its header says it needs (at least)}.
    [[noreturn]] void fail_truncated(const std::string& what, std::string_view field, std::uint64_t needed) const {
        fail(what, field, kDamagedHint, {"file_truncated", {r_.name_, std::to_string(b_.size()), std::to_string(needed)}});
    }

    std::uint64_t left() const { return b_.size() - pos_; }

    void need(std::uint64_t n, std::string_view field) const {
        if (n > left())
            fail_truncated("truncated file: " + std::to_string(n) + " bytes needed at offset " + std::to_string(pos_) +
                               ", only " + std::to_string(left()) + " left", field, pos_ + n);
    }

    std::uint32_t u32(std::string_view field) {
        need(4, field);
        std::uint32_t v;
        std::memcpy(&v, b_.data() + pos_, 4);
        pos_ += 4;
        return v;
    }

    std::uint64_t u64(std::string_view field) {
        need(8, field);
        std::uint64_t v;
        std::memcpy(&v, b_.data() + pos_, 8);
        pos_ += 8;
        return v;
    }

    std::string_view str(std::string_view field) {
        const std::uint64_t len = u64(field);
        if (len > left())
            fail("string length " + std::to_string(len) + " at offset " + std::to_string(pos_ - 8) +
                 " runs past the end of the file (" + std::to_string(left()) + " bytes left)", field);
        std::string_view s(reinterpret_cast<const char*>(b_.data() + pos_), static_cast<std::size_t>(len));
        pos_ += len;
        return s;
    }

    ValueType value_type(std::string_view field) {
        const std::uint32_t t = u32(field);
        if (t > static_cast<std::uint32_t>(ValueType::f64))
            fail("unknown metadata value type id " + std::to_string(t), field);
        return static_cast<ValueType>(t);
    }

    Value value(ValueType t, std::string_view field, int depth) {
        if (t == ValueType::string) return make_view_string(str(field), owner_);
        if (t != ValueType::array) {
            const std::size_t size = value_type_size(t);
            need(size, field);
            const std::uint64_t bits = load_scalar_bits(t, b_.data() + pos_);
            pos_ += size;
            return make_scalar_value(t, bits);
        }
        if (depth >= kMaxNesting) fail("arrays nested deeper than " + std::to_string(kMaxNesting) + " levels", field);
        const ValueType elem = value_type(field);
        const std::uint64_t count = u64(field);
        if (elem == ValueType::string) {
            if (count > left() / 8)
                fail("array of " + std::to_string(count) + " strings cannot fit in the " + std::to_string(left()) +
                     " bytes left", field);
            auto items = std::make_shared<std::vector<std::string_view>>();
            items->reserve(static_cast<std::size_t>(count));
            for (std::uint64_t i = 0; i < count; ++i) items->push_back(str(field));
            return make_view_string_array(std::move(items), owner_);
        }
        if (elem == ValueType::array) {
            if (count > left() / 12)
                fail("array of " + std::to_string(count) + " arrays cannot fit in the " + std::to_string(left()) +
                     " bytes left", field);
            auto items = std::make_shared<std::vector<Value>>();
            items->reserve(static_cast<std::size_t>(count));
            for (std::uint64_t i = 0; i < count; ++i) items->push_back(value(ValueType::array, field, depth + 1));
            return make_nested_array(std::move(items));
        }
        const std::size_t size = value_type_size(elem);
        if (count > left() / size)
            fail("array of " + std::to_string(count) + " " + std::string(value_type_name(elem)) +
                 " values runs past the end of the file (" + std::to_string(left()) + " bytes left)", field);
        const std::byte* raw = b_.data() + pos_;
        pos_ += count * size;
        return make_view_numeric_array(elem, raw, count, owner_);
    }

    void read_kv(std::uint64_t i) {
        const std::string where = "metadata[" + std::to_string(i) + "]";
        const std::string_view key = str(where + ".key");
        if (key.empty()) fail("empty metadata key", where + ".key");
        const std::string key_str(key);
        if (r_.metadata_.contains(key)) fail("duplicate metadata key", key_str);
        const ValueType t = value_type(key_str);
        r_.metadata_.set(key_str, value(t, key_str, 0));
    }

    void read_alignment() {
        const Value* v = r_.metadata_.find(kAlignmentKey);
        if (!v) return;
        if (v->type() != ValueType::u32)
            fail("value has type " + std::string(value_type_name(v->type())) + ", expected u32", kAlignmentKey);
        const std::uint64_t a = v->as_u64();
        if (a == 0 || !std::has_single_bit(a))
            fail("alignment " + std::to_string(a) + " is not a power of two", kAlignmentKey);
        r_.alignment_ = a;
    }

    void read_tensor_info(std::uint64_t i) {
        std::string field = "tensor[" + std::to_string(i) + "].name";
        const std::string_view name = str(field);
        if (name.empty()) fail("empty tensor name", field);
        TensorInfo t;
        t.name = std::string(name);
        t.index = static_cast<std::size_t>(i);
        const std::string where = "tensor '" + t.name + "'";
        if (r_.tensor_index_.count(t.name)) fail("duplicate tensor name", where);

        t.n_dims = u32(where + ".n_dims");
        if (t.n_dims == 0 || t.n_dims > kMaxDims)
            fail("n_dims " + std::to_string(t.n_dims) + " is not in 1.." + std::to_string(kMaxDims), where + ".n_dims");
        std::uint64_t n = 1;
        bool overflow = false;
        for (std::uint32_t d = 0; d < t.n_dims; ++d) {
            const std::uint64_t dim = u64(where + ".dims");
            if (dim > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
                fail("dimension " + std::to_string(d) + " = " + std::to_string(dim) + " is too large", where + ".dims");
            t.dims[d] = dim;
            if (dim != 0 && n > std::numeric_limits<std::uint64_t>::max() / dim) overflow = true;
            n *= dim;
        }
        if (overflow) fail("the product of the dimensions overflows 64 bits", where + ".dims");
        t.n_elements = n;

        const std::uint32_t type_id = u32(where + ".type");
        const kernels::DTypeInfo* info = kernels::dtype_info(type_id);
        if (!info)
            fail("unknown tensor type id " + std::to_string(type_id), where + ".type",
                 "the file uses a quantization this program does not know; use another quantization of the model",
                 {"tensor_type_unknown", {r_.name_, t.name, std::to_string(type_id)}});
        t.type = info->type;
        if (t.dims[0] % info->block_elems != 0)
            fail("row length " + std::to_string(t.dims[0]) + " is not a multiple of the " + std::string(info->name) +
                 " block size " + std::to_string(info->block_elems), where + ".dims");
        const auto bytes = kernels::dtype_bytes(t.type, n);
        if (!bytes) fail("the tensor byte size overflows 64 bits", where + ".dims");
        t.n_bytes = *bytes;

        t.offset = u64(where + ".offset");
        if (t.offset % r_.alignment_ != 0)
            fail("offset " + std::to_string(t.offset) + " is not a multiple of the alignment " +
                 std::to_string(r_.alignment_), where + ".offset");
        r_.tensor_index_.emplace(t.name, r_.tensors_.size());
        r_.tensors_.push_back(std::move(t));
    }

    void check_tensor_layout() {
        if (r_.tensors_.empty()) return;  // vocab-only files may end without padding before the data section
        const std::uint64_t size = b_.size();
        // A file cut short names the size its last tensor needs (the whole file), not only the first one past the end.
        std::uint64_t needed = r_.data_offset_;
        const std::uint64_t room = std::numeric_limits<std::uint64_t>::max() - r_.data_offset_;
        for (const auto& t : r_.tensors_)
            if (t.n_bytes <= room && t.offset <= room - t.n_bytes) needed = std::max(needed, r_.data_offset_ + t.offset + t.n_bytes);
        if (r_.data_offset_ > size)
            fail_truncated("truncated file: the data section would start at " + std::to_string(r_.data_offset_) +
                               ", past the end (" + std::to_string(size) + " bytes)", "tensor data", needed);
        const std::uint64_t data_size = size - r_.data_offset_;
        for (const auto& t : r_.tensors_) {
            if (t.offset > data_size || t.n_bytes > data_size - t.offset)
                fail_truncated("tensor data [" + std::to_string(t.offset) + ", +" + std::to_string(t.n_bytes) +
                                   ") runs past the end of the file (data section is " + std::to_string(data_size) + " bytes)",
                               "tensor '" + t.name + "'.offset", needed);
        }
        std::vector<const TensorInfo*> order;
        order.reserve(r_.tensors_.size());
        for (const auto& t : r_.tensors_)
            if (t.n_bytes > 0) order.push_back(&t);
        std::sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->offset < b->offset; });
        for (std::size_t i = 1; i < order.size(); ++i) {
            const TensorInfo& prev = *order[i - 1];
            const TensorInfo& cur = *order[i];
            if (prev.offset + prev.n_bytes > cur.offset)
                fail("tensors '" + prev.name + "' and '" + cur.name + "' overlap", "tensor '" + cur.name + "'.offset");
        }
    }

    Reader& r_;
    std::span<const std::byte> b_;
    std::shared_ptr<const void> owner_;
    std::uint64_t pos_ = 0;
};

Reader Reader::open(const std::filesystem::path& path) {
    auto mapping = MappedFile::open(path);
    Reader r;
    r.name_ = path_to_utf8(path);
    r.mapping_ = mapping;
    r.bytes_ = mapping->bytes();
    r.metadata_ = Metadata(r.name_);
    Parser(r, mapping).run();
    r.parts_.push_back({path, mapping, r.bytes_, r.data_offset_});
    return r;
}

Reader Reader::parse(std::span<const std::byte> bytes, std::string name) {
    Reader r;
    r.name_ = std::move(name);
    r.bytes_ = bytes;
    r.metadata_ = Metadata(r.name_);
    Parser(r, nullptr).run();
    r.parts_.push_back({{}, nullptr, r.bytes_, r.data_offset_});
    return r;
}

Reader::Reader(Reader&&) noexcept = default;
Reader& Reader::operator=(Reader&&) noexcept = default;
Reader::~Reader() = default;

const TensorInfo* Reader::find_tensor(std::string_view name) const {
    auto it = tensor_index_.find(name);
    return it == tensor_index_.end() ? nullptr : &tensors_[it->second];
}

const TensorInfo& Reader::tensor(std::string_view name) const {
    if (const TensorInfo* t = find_tensor(name)) return *t;
    throw Error(ErrorCode::not_found, name_ + ": missing tensor (" + std::string(name) + ")",
                "the file lacks this tensor; it may be for another architecture or incomplete");
}

std::span<const std::byte> Reader::tensor_data(const TensorInfo& t) const {
    const bool in_part = t.part < parts_.size();
    const std::span<const std::byte> bytes = in_part ? parts_[t.part].bytes : bytes_;
    const std::uint64_t data_offset = in_part ? parts_[t.part].data_offset : data_offset_;
    if ((t.part > 0 && !in_part) || t.offset > bytes.size() || data_offset > bytes.size() - t.offset ||
        t.n_bytes > bytes.size() - data_offset - t.offset)
        throw Error(ErrorCode::invalid_argument, name_ + ": tensor '" + t.name + "' is not a tensor of this file");
    return bytes.subspan(static_cast<std::size_t>(data_offset + t.offset), static_cast<std::size_t>(t.n_bytes));
}

std::uint64_t Reader::parts_size() const noexcept {
    if (parts_.empty()) return bytes_.size();
    std::uint64_t n = 0;
    for (const Part& p : parts_) n += p.bytes.size();
    return n;
}

}  // namespace ft::gguf
