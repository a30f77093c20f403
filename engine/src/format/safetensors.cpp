// safetensors reader: header length and JSON validated before use, every tensor's offsets checked against the data
// section and against dtype × shape; the checkpoint loader resolves sharded folders through the index.
#include <algorithm>
#include <cstring>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include "format/mapped_file.h"
#include "format/safetensors.h"
#include "ft/error.h"
#include "ft/utf8.h"

namespace ft::safetensors {

namespace {
constexpr const char* kDamagedHint = "the file is damaged or incomplete; download it again";

struct DTypeRow {
    DType type;
    std::string_view name;
    std::size_t size;
};
constexpr DTypeRow kDTypes[] = {
    {DType::BOOL, "BOOL", 1}, {DType::U8, "U8", 1},     {DType::I8, "I8", 1},
    {DType::U16, "U16", 2},   {DType::I16, "I16", 2},   {DType::U32, "U32", 4},
    {DType::I32, "I32", 4},   {DType::U64, "U64", 8},   {DType::I64, "I64", 8},
    {DType::F16, "F16", 2},   {DType::BF16, "BF16", 2}, {DType::F32, "F32", 4},
    {DType::F64, "F64", 8},   {DType::F8_E4M3, "F8_E4M3", 1}, {DType::F8_E5M2, "F8_E5M2", 1},
};

const DTypeRow& row(DType t) {
    for (const auto& r : kDTypes)
        if (r.type == t) return r;
    return kDTypes[0];
}
}  // namespace

std::string_view dtype_name(DType t) { return row(t).name; }
std::size_t dtype_size(DType t) { return row(t).size; }

std::optional<DType> dtype_from_name(std::string_view s) {
    for (const auto& r : kDTypes)
        if (r.name == s) return r.type;
    return std::nullopt;
}

bool dtype_supported_for_compute(DType t) { return t == DType::F32 || t == DType::F16 || t == DType::BF16; }

std::optional<kernels::DType> to_kernel_dtype(DType t) {
    switch (t) {
        case DType::F32: return kernels::DType::F32;
        case DType::F16: return kernels::DType::F16;
        case DType::BF16: return kernels::DType::BF16;
        case DType::F64: return kernels::DType::F64;
        case DType::I8: return kernels::DType::I8;
        case DType::I16: return kernels::DType::I16;
        case DType::I32: return kernels::DType::I32;
        case DType::I64: return kernels::DType::I64;
        default: return std::nullopt;
    }
}

struct FileParser {
    File& f;

    [[noreturn]] void fail(const std::string& what, std::string_view field, const char* hint = kDamagedHint) const {
        std::string msg = f.name_ + ": " + what;
        if (!field.empty()) msg.append(" (").append(field).append(")");
        throw Error(ErrorCode::invalid_file, std::move(msg), hint);
    }

    std::uint64_t offset_value(const nlohmann::json& v, const std::string& field) const {
        if (!v.is_number_unsigned()) {
            if (v.is_number_integer()) fail("negative value " + v.dump(), field);
            fail("expected a non-negative integer, got " + std::string(v.type_name()), field);
        }
        return v.get<std::uint64_t>();
    }

    void run() {
        const auto bytes = f.bytes_;
        if (bytes.size() < 8)
            fail("truncated file: " + std::to_string(bytes.size()) + " bytes, shorter than the 8-byte header length",
                 "header length");
        std::uint64_t n = 0;
        std::memcpy(&n, bytes.data(), 8);  // little-endian hosts only (asserted in the GGUF reader)
        if (n > kMaxHeaderBytes)
            fail("header length " + std::to_string(n) + " exceeds the limit of " + std::to_string(kMaxHeaderBytes) +
                 " bytes", "header length", "this is not a safetensors file, or it is damaged");
        if (n > bytes.size() - 8)
            fail("header length " + std::to_string(n) + " runs past the end of the file (" +
                 std::to_string(bytes.size()) + " bytes)", "header length");
        f.data_offset_ = 8 + n;
        const std::uint64_t data_size = bytes.size() - f.data_offset_;
        const std::string_view text(reinterpret_cast<const char*>(bytes.data() + 8), static_cast<std::size_t>(n));

        nlohmann::json header;
        try {
            header = nlohmann::json::parse(text);
        } catch (const nlohmann::json::exception& e) {
            fail(std::string("header is not valid JSON: ") + e.what(), "header");
        }
        if (!header.is_object()) fail("header is a JSON " + std::string(header.type_name()) + ", expected an object", "header");

        for (const auto& [name, entry] : header.items()) {
            if (name == "__metadata__") {
                if (!entry.is_object()) fail("expected an object of strings", "__metadata__");
                for (const auto& [k, v] : entry.items()) {
                    if (!v.is_string()) fail("value is a " + std::string(v.type_name()) + ", expected a string",
                                             "__metadata__." + k);
                    f.metadata_.emplace(k, v.get<std::string>());
                }
                continue;
            }
            if (name.empty()) fail("empty tensor name", "header");
            const std::string where = "tensor '" + name + "'";
            if (!entry.is_object()) fail("entry is a " + std::string(entry.type_name()) + ", expected an object", where);
            TensorInfo t;
            t.name = name;

            auto dt = entry.find("dtype");
            if (dt == entry.end() || !dt->is_string()) fail("missing or non-string dtype", where + ".dtype");
            const auto dtype = dtype_from_name(dt->get_ref<const std::string&>());
            if (!dtype)
                fail("unknown dtype '" + dt->get<std::string>() + "'", where + ".dtype",
                     "this program reads BOOL, U8..U64, I8..I64, F16, BF16, F32, F64, F8_E4M3 and F8_E5M2");
            t.dtype = *dtype;

            auto shape = entry.find("shape");
            if (shape == entry.end() || !shape->is_array()) fail("missing or non-array shape", where + ".shape");
            std::uint64_t elems = 1;
            bool overflow = false;
            t.shape.reserve(shape->size());
            for (const auto& d : *shape) {
                const std::uint64_t dim = offset_value(d, where + ".shape");
                if (dim != 0 && elems > std::numeric_limits<std::uint64_t>::max() / dim) overflow = true;
                elems *= dim;
                t.shape.push_back(dim);
            }
            if (overflow) fail("the product of the shape overflows 64 bits", where + ".shape");
            t.n_elements = elems;

            auto offs = entry.find("data_offsets");
            if (offs == entry.end() || !offs->is_array() || offs->size() != 2)
                fail("data_offsets must be an array [begin, end]", where + ".data_offsets");
            t.begin = offset_value((*offs)[0], where + ".data_offsets");
            t.end = offset_value((*offs)[1], where + ".data_offsets");
            if (t.begin > t.end)
                fail("begin " + std::to_string(t.begin) + " is after end " + std::to_string(t.end),
                     where + ".data_offsets");
            if (t.end > data_size)
                fail("end " + std::to_string(t.end) + " is past the data section (" + std::to_string(data_size) +
                     " bytes)", where + ".data_offsets");
            const std::size_t esize = dtype_size(t.dtype);
            if (elems > std::numeric_limits<std::uint64_t>::max() / esize || elems * esize != t.end - t.begin)
                fail("shape and dtype give " + (elems > std::numeric_limits<std::uint64_t>::max() / esize
                                                    ? std::string("more than 2^64")
                                                    : std::to_string(elems * esize)) +
                         " bytes but data_offsets span " + std::to_string(t.end - t.begin),
                     where + ".data_offsets");
            f.tensors_.push_back(std::move(t));
        }

        std::sort(f.tensors_.begin(), f.tensors_.end(), [](const TensorInfo& a, const TensorInfo& b) {
            return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
        });
        const TensorInfo* prev = nullptr;
        for (const auto& t : f.tensors_) {
            if (t.n_bytes() == 0) continue;
            if (prev && prev->end > t.begin)
                fail("tensors '" + prev->name + "' and '" + t.name + "' overlap", "tensor '" + t.name + "'.data_offsets");
            prev = &t;
        }
        for (std::size_t i = 0; i < f.tensors_.size(); ++i) f.index_.emplace(f.tensors_[i].name, i);
    }
};

File File::open(const std::filesystem::path& path) {
    auto mapping = MappedFile::open(path);
    File f;
    f.name_ = path_to_utf8(path);
    f.path_ = path;
    f.mapping_ = mapping;
    f.bytes_ = mapping->bytes();
    FileParser{f}.run();
    return f;
}

File File::parse(std::span<const std::byte> bytes, std::string name) {
    File f;
    f.name_ = std::move(name);
    f.bytes_ = bytes;
    FileParser{f}.run();
    return f;
}

File::File(File&&) noexcept = default;
File& File::operator=(File&&) noexcept = default;
File::~File() = default;

const TensorInfo* File::find(std::string_view name) const {
    auto it = index_.find(name);
    return it == index_.end() ? nullptr : &tensors_[it->second];
}

const TensorInfo& File::tensor(std::string_view name) const {
    if (const TensorInfo* t = find(name)) return *t;
    throw Error(ErrorCode::not_found, name_ + ": missing tensor (" + std::string(name) + ")",
                "the checkpoint lacks this tensor; it may be for another architecture or incomplete");
}

std::span<const std::byte> File::data(const TensorInfo& t) const {
    if (t.end < t.begin || t.end > bytes_.size() - data_offset_)
        throw Error(ErrorCode::invalid_argument, name_ + ": tensor '" + t.name + "' is not a tensor of this file");
    return bytes_.subspan(static_cast<std::size_t>(data_offset_ + t.begin), static_cast<std::size_t>(t.n_bytes()));
}

// ---------------------------------------------------------------------------------------------------------------

namespace {
constexpr const char* kIndexName = "model.safetensors.index.json";
constexpr const char* kSingleName = "model.safetensors";

[[noreturn]] void index_fail(const std::filesystem::path& index, const std::string& what, std::string_view field) {
    std::string msg = path_to_utf8(index) + ": " + what;
    if (!field.empty()) msg.append(" (").append(field).append(")");
    throw Error(ErrorCode::invalid_file, std::move(msg), "the checkpoint index is damaged; download it again");
}

std::string read_text(const std::filesystem::path& p) {
    auto m = MappedFile::open(p);
    if (m->size() > kMaxHeaderBytes)
        throw Error(ErrorCode::invalid_file, path_to_utf8(p) + ": index file larger than " +
                                                 std::to_string(kMaxHeaderBytes) + " bytes");
    return std::string(reinterpret_cast<const char*>(m->bytes().data()), m->size());
}
}  // namespace

Checkpoint Checkpoint::open(const std::filesystem::path& dir_or_file) {
    Checkpoint c;
    c.path_ = dir_or_file;
    std::error_code ec;
    const bool is_dir = std::filesystem::is_directory(dir_or_file, ec);
    if (!is_dir && !std::filesystem::exists(dir_or_file, ec))
        throw Error(ErrorCode::not_found, path_to_utf8(dir_or_file) + ": no such file or folder", "check the path");

    if (!is_dir) {
        c.files_.push_back(File::open(dir_or_file));
    } else if (const auto index = dir_or_file / kIndexName; std::filesystem::exists(index, ec)) {
        nlohmann::json j;
        try {
            j = nlohmann::json::parse(read_text(index));
        } catch (const nlohmann::json::exception& e) {
            index_fail(index, std::string("not valid JSON: ") + e.what(), "");
        }
        if (!j.is_object()) index_fail(index, "expected a JSON object", "");
        if (auto m = j.find("metadata"); m != j.end() && m->is_object())
            for (const auto& [k, v] : m->items()) c.index_metadata_.emplace(k, v.dump());
        auto wm = j.find("weight_map");
        if (wm == j.end() || !wm->is_object()) index_fail(index, "missing or non-object weight_map", "weight_map");

        std::vector<std::pair<std::string, std::string>> listed;  // tensor → shard
        std::set<std::string> shards;
        for (const auto& [name, shard] : wm->items()) {
            if (!shard.is_string()) index_fail(index, "shard name is not a string", "weight_map." + name);
            const std::string s = shard.get<std::string>();
            const std::filesystem::path sp = path_from_utf8(s);
            bool bad = s.empty() || sp.is_absolute() || sp.has_root_name();
            for (const auto& part : sp) bad = bad || part == "..";
            if (bad) index_fail(index, "shard '" + s + "' is not a file name inside the folder", "weight_map." + name);
            shards.insert(s);
            listed.emplace_back(name, s);
        }
        c.files_.reserve(shards.size());
        std::map<std::string, std::size_t> shard_index;
        for (const auto& s : shards) {
            shard_index.emplace(s, c.files_.size());
            c.files_.push_back(File::open(dir_or_file / path_from_utf8(s)));
        }
        for (const auto& [name, s] : listed) {
            const File& f = c.files_[shard_index.at(s)];
            const TensorInfo* t = f.find(name);
            if (!t)
                throw Error(ErrorCode::not_found,
                            f.name() + ": tensor '" + name + "' listed in " + kIndexName + " is missing from this shard",
                            "the checkpoint is incomplete or its shards are mixed up; download it again");
            c.entries_.emplace(name, Entry{&f, t});
        }
        return c;
    } else if (std::filesystem::exists(dir_or_file / kSingleName, ec)) {
        c.files_.push_back(File::open(dir_or_file / kSingleName));
    } else {
        std::vector<std::filesystem::path> found;
        for (const auto& e : std::filesystem::directory_iterator(dir_or_file, ec))
            if (e.path().extension() == ".safetensors") found.push_back(e.path());
        if (found.empty())
            throw Error(ErrorCode::not_found,
                        path_to_utf8(dir_or_file) + ": no " + kIndexName + ", " + kSingleName + " or *.safetensors file",
                        "pass a Hugging Face model folder");
        std::sort(found.begin(), found.end());
        c.files_.reserve(found.size());
        for (const auto& p : found) c.files_.push_back(File::open(p));
    }

    for (const auto& f : c.files_)
        for (const auto& t : f.tensors()) {
            auto [it, inserted] = c.entries_.emplace(t.name, Entry{&f, &t});
            if (!inserted)
                throw Error(ErrorCode::invalid_file,
                            f.name() + ": tensor '" + t.name + "' is also in " + it->second.file->name(),
                            "remove the extra .safetensors file from the folder");
        }
    return c;
}

Checkpoint::Checkpoint(Checkpoint&&) noexcept = default;
Checkpoint& Checkpoint::operator=(Checkpoint&&) noexcept = default;
Checkpoint::~Checkpoint() = default;

std::vector<std::string_view> Checkpoint::names() const {
    std::vector<std::string_view> out;
    out.reserve(entries_.size());
    for (const auto& [name, e] : entries_) out.emplace_back(name);
    return out;
}

const Checkpoint::Entry* Checkpoint::find(std::string_view name) const {
    auto it = entries_.find(name);
    return it == entries_.end() ? nullptr : &it->second;
}

const Checkpoint::Entry& Checkpoint::tensor(std::string_view name) const {
    if (const Entry* e = find(name)) return *e;
    throw Error(ErrorCode::not_found, path_to_utf8(path_) + ": missing tensor (" + std::string(name) + ")",
                "the checkpoint lacks this tensor; it may be for another architecture or incomplete");
}

}  // namespace ft::safetensors
