// Split GGUF models (llama.cpp's gguf-split convention): Reader::open_model() joins the parts into one tensor
// table; SplitWriter writes a model as parts.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <optional>
#include <system_error>

#include "format/gguf.h"
#include "format/mapped_file.h"
#include "ft/error.h"
#include "ft/utf8.h"

namespace ft::gguf {

namespace {

struct SplitKeys {
    std::uint64_t no = 0, count = 1;
    std::optional<std::int64_t> tensors;
};

// The split.* keys of a file; nullopt when it has none (a model in one file).
std::optional<SplitKeys> split_keys(const Metadata& md) {
    const auto count = md.opt_u64(kSplitCountKey);
    if (!count) return std::nullopt;
    SplitKeys k;
    k.count = *count;
    k.no = md.opt_u64(kSplitNoKey).value_or(0);
    k.tensors = md.opt_i64(kSplitTensorsKey);
    if (k.count == 0 || k.no >= k.count)
        throw Error(ErrorCode::invalid_file,
                    md.source() + ": split.no " + std::to_string(k.no) + " and split.count " + std::to_string(k.count) +
                        " do not describe a part of a split model (split.no)",
                    "the file is damaged; download it again");
    return k;
}

}  // namespace

std::string split_file_name(std::string_view stem, int part, int count) {
    char tail[40];
    std::snprintf(tail, sizeof tail, "-%05d-of-%05d.gguf", part, count);
    return std::string(stem) + tail;
}

bool parse_split_file_name(std::string_view file_name, std::string& stem, int& part, int& count) {
    // <stem>-DDDDD-of-DDDDD.gguf (".gguf" in any case)
    constexpr std::string_view kTail = ".gguf";
    constexpr std::size_t kSuffix = 15;  // "-00001-of-00003"
    if (file_name.size() < 1 + kSuffix + kTail.size()) return false;
    const std::string_view ext = file_name.substr(file_name.size() - kTail.size());
    for (std::size_t i = 0; i < kTail.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(ext[i])) != kTail[i]) return false;
    const std::string_view core = file_name.substr(0, file_name.size() - kTail.size());
    const std::string_view suffix = core.substr(core.size() - kSuffix);
    auto digits = [](std::string_view s) {
        return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
    };
    if (suffix[0] != '-' || suffix.substr(6, 4) != "-of-" || !digits(suffix.substr(1, 5)) || !digits(suffix.substr(10, 5)))
        return false;
    const int k = std::stoi(std::string(suffix.substr(1, 5)));
    const int n = std::stoi(std::string(suffix.substr(10, 5)));
    if (k < 1 || n < 1 || k > n) return false;
    stem = std::string(core.substr(0, core.size() - kSuffix));
    part = k;
    count = n;
    return true;
}

Reader Reader::open_model(const std::filesystem::path& path) {
    Reader r = open(path);
    const std::optional<SplitKeys> keys = split_keys(r.metadata_);
    if (!keys) return r;
    const std::string file = path_to_utf8(path);
    const std::string name = path_to_utf8(path.filename());
    std::string stem;
    int part = 0, count = 0;
    const bool named = parse_split_file_name(name, stem, part, count);
    if (keys->no != 0) {
        const std::string first =
            named ? split_file_name(stem, 1, count) : std::string("the part whose split.no is 0");
        throw Error(ErrorCode::invalid_argument,
                    file + " is part " + std::to_string(keys->no + 1) + " of " + std::to_string(keys->count) +
                        " of a split model",
                    "open its first part, " + first + " (the others are found next to it)");
    }
    if (keys->count > 1) {
        if (!named || part != 1 || std::uint64_t(count) != keys->count)
            throw Error(ErrorCode::invalid_file,
                        file + ": split.count says the model has " + std::to_string(keys->count) +
                            " parts, but the file name does not follow <name>" + split_file_name("", 1, int(keys->count)) +
                            ", so they cannot be found",
                        "keep the names gguf-split gave the parts (name-00001-of-0000N.gguf …)");
        for (int k = 2; k <= count; ++k) {
            const std::filesystem::path p = path.parent_path() / path_from_utf8(split_file_name(stem, k, count));
            std::error_code ec;
            if (!std::filesystem::is_regular_file(p, ec))
                throw Error(ErrorCode::not_found,
                            file + ": part " + std::to_string(k) + " of " + std::to_string(count) + " is missing (" +
                                path_to_utf8(p) + ")",
                            "download every part of the model into the same folder");
            Reader other = open(p);
            const std::optional<SplitKeys> ok = split_keys(other.metadata_);
            if (!ok || ok->no != std::uint64_t(k - 1) || ok->count != keys->count)
                throw Error(ErrorCode::invalid_file,
                            path_to_utf8(p) + ": not part " + std::to_string(k) + " of " + std::to_string(count) +
                                " of this model (its split.no / split.count say " +
                                (ok ? std::to_string(ok->no + 1) + " of " + std::to_string(ok->count) : std::string("nothing")) + ")",
                            "download the parts of one model again into the same folder");
            const std::uint32_t index = std::uint32_t(r.parts_.size());
            for (TensorInfo t : other.tensors_) {
                if (r.tensor_index_.count(t.name))
                    throw Error(ErrorCode::invalid_file,
                                path_to_utf8(p) + ": tensor '" + t.name + "' is also in an earlier part of the model",
                                "the parts come from different models; download them again");
                t.part = index;
                r.tensor_index_.emplace(t.name, r.tensors_.size());
                r.tensors_.push_back(std::move(t));
            }
            r.parts_.push_back(other.parts_.front());
        }
    }
    if (keys->tensors && *keys->tensors != std::int64_t(r.tensors_.size()))
        throw Error(ErrorCode::invalid_file,
                    file + ": the " + std::to_string(r.parts_.size()) + " part(s) hold " + std::to_string(r.tensors_.size()) +
                        " tensors, split.tensors.count says " + std::to_string(*keys->tensors),
                    "a part is damaged or from another model; download the parts again");
    return r;
}

// ---- SplitWriter ----

SplitWriter::SplitWriter(std::filesystem::path path, SplitOptions options)
    : path_(std::move(path)), options_(options), metadata_(path_to_utf8(path_)), check_(path_) {}

SplitWriter::~SplitWriter() = default;

void SplitWriter::set_alignment(std::uint32_t alignment) {
    check_.set_alignment(alignment);  // throws for one that is not a power of two
    alignment_ = alignment;
}

std::uint64_t SplitWriter::add_tensor(std::string name, DType type, std::span<const std::uint64_t> dims) {
    if (!parts_.empty())
        throw Error(ErrorCode::invalid_argument, path_to_utf8(path_) + ": GGUF writer: tensor added after write_header()");
    // The checks a Writer makes (name, shape, block size, duplicates), now rather than at write_header().
    const std::uint64_t bytes = check_.add_tensor(name, type, dims);
    decls_.push_back({std::move(name), type, {dims.begin(), dims.end()}, bytes});
    return bytes;
}

void SplitWriter::write_header() {
    if (!parts_.empty()) throw Error(ErrorCode::invalid_argument, path_to_utf8(path_) + ": GGUF writer: write_header() called twice");
    // Fill the parts in declaration order.
    part_of_.assign(decls_.size(), 0);
    std::size_t n_parts = 1, in_part = 0;
    std::uint64_t part_bytes = 0;
    for (std::size_t i = 0; i < decls_.size(); ++i) {
        const bool full = in_part > 0 && ((options_.max_tensors > 0 && in_part >= options_.max_tensors) ||
                                          (options_.max_bytes > 0 && part_bytes + decls_[i].bytes > options_.max_bytes));
        if (full) {
            ++n_parts;
            in_part = 0;
            part_bytes = 0;
        }
        part_of_[i] = n_parts - 1;
        ++in_part;
        part_bytes += decls_[i].bytes;
    }
    if (n_parts > 99999)
        throw Error(ErrorCode::invalid_argument, path_to_utf8(path_) + ": " + std::to_string(n_parts) + " parts are more than a split name can number",
                    "raise the part size");
    std::filesystem::path stem = path_;
    if (stem.extension() == ".gguf") stem.replace_extension();
    for (std::size_t k = 0; k < n_parts; ++k) {
        const std::filesystem::path p =
            options_.enabled() ? stem.parent_path() / path_from_utf8(split_file_name(path_to_utf8(stem.filename()), int(k + 1), int(n_parts)))
                               : path_;
        auto w = std::make_unique<Writer>(p);
        if (alignment_ != 0) w->set_alignment(alignment_);
        if (options_.enabled()) {
            w->set(kSplitNoKey, Value::u16(std::uint16_t(k)));
            w->set(kSplitCountKey, Value::u16(std::uint16_t(n_parts)));
            w->set(kSplitTensorsKey, Value::i32(std::int32_t(decls_.size())));
        }
        if (k == 0)
            for (const KeyValue& kv : metadata_.entries()) w->set(kv.key, kv.value);
        else if (const Value* a = metadata_.find(kAlignmentKey))
            w->set(kAlignmentKey, *a);  // every part's data is laid out with the model's alignment
        parts_.push_back(std::move(w));
    }
    for (std::size_t i = 0; i < decls_.size(); ++i)
        parts_[part_of_[i]]->add_tensor(decls_[i].name, decls_[i].type, decls_[i].dims);
    for (auto& w : parts_) w->write_header();
}

void SplitWriter::begin_tensor(std::string_view name) {
    if (parts_.empty() || next_ >= decls_.size())
        throw Error(ErrorCode::invalid_argument, path_to_utf8(path_) + ": GGUF writer: begin_tensor() out of order");
    current_ = parts_[part_of_[next_]].get();
    ++next_;
    current_->begin_tensor(name);
}

void SplitWriter::write(std::span<const std::byte> chunk) {
    if (!current_) throw Error(ErrorCode::invalid_argument, path_to_utf8(path_) + ": GGUF writer: write() outside a tensor");
    current_->write(chunk);
}

void SplitWriter::end_tensor() {
    if (!current_) throw Error(ErrorCode::invalid_argument, path_to_utf8(path_) + ": GGUF writer: end_tensor() outside a tensor");
    current_->end_tensor();
    current_ = nullptr;
}

void SplitWriter::write_tensor(std::string_view name, std::span<const std::byte> data) {
    begin_tensor(name);
    write(data);
    end_tensor();
}

void SplitWriter::finish() {
    if (parts_.empty()) write_header();  // a model without tensors
    for (auto& w : parts_) w->finish();
}

std::vector<std::filesystem::path> SplitWriter::paths() const {
    std::vector<std::filesystem::path> out;
    for (const auto& w : parts_) out.push_back(w->path());
    return out;
}

std::uint64_t SplitWriter::expected_size() const noexcept {
    std::uint64_t n = 0;
    for (const auto& w : parts_) n += w->expected_size();
    return n;
}

}  // namespace ft::gguf
