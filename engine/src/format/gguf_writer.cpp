// Streaming GGUF writer: the header goes straight to a buffered FILE, tensors are streamed in chunks, so memory
// stays bounded by the metadata (tokenizer arrays) however large the file is.
#include <bit>
#include <cerrno>
#include <cstring>
#include <system_error>

#if defined(_WIN32)
#include <io.h>
#else
#include <unistd.h>
#endif

#include "format/gguf.h"
#include "ft/error.h"
#include "ft/utf8.h"

namespace ft::gguf {

namespace {
constexpr std::size_t kBufferBytes = 4u << 20;

std::uint64_t align_up(std::uint64_t x, std::uint64_t a) { return (x + a - 1) / a * a; }

int sync_file(std::FILE* f) {
#if defined(_WIN32)
    return _commit(_fileno(f));
#else
    return ::fsync(fileno(f));
#endif
}
}  // namespace

Writer::Writer(std::filesystem::path path)
    : path_(std::move(path)), metadata_(path_to_utf8(path_)) {
    tmp_path_ = path_;
    tmp_path_ += ".tmp";
}

Writer::~Writer() {
    if (file_) std::fclose(file_);
    if (state_ != State::finished && state_ != State::declaring) {
        std::error_code ec;
        std::filesystem::remove(tmp_path_, ec);
    }
}

void Writer::fail_if(bool cond, const char* what) const {
    if (cond) throw Error(ErrorCode::invalid_argument, path_to_utf8(path_) + ": GGUF writer: " + what);
}

void Writer::set(std::string key, Value value) {
    fail_if(state_ != State::declaring, "metadata set after write_header()");
    fail_if(key.empty(), "empty metadata key");
    if (key == kAlignmentKey) {
        fail_if(value.type() != ValueType::u32, "general.alignment must be a u32");
        const std::uint64_t a = value.bits_;
        fail_if(a == 0 || !std::has_single_bit(a), "general.alignment must be a power of two");
        alignment_ = static_cast<std::uint32_t>(a);
    }
    metadata_.set(std::move(key), std::move(value));
}

void Writer::set_alignment(std::uint32_t alignment) { set(kAlignmentKey, Value::u32(alignment)); }

std::uint64_t Writer::add_tensor(std::string name, DType type, std::span<const std::uint64_t> dims) {
    fail_if(state_ != State::declaring, "tensor added after write_header()");
    fail_if(name.empty(), "empty tensor name");
    const std::string where = " (tensor '" + name + "')";
    if (tensor_index_.count(name))
        throw Error(ErrorCode::invalid_argument, path_to_utf8(path_) + ": GGUF writer: duplicate tensor" + where);
    if (dims.empty() || dims.size() > kMaxDims)
        throw Error(ErrorCode::invalid_argument,
                    path_to_utf8(path_) + ": GGUF writer: a tensor needs 1 to 4 dimensions" + where);
    const kernels::DTypeInfo* info = kernels::dtype_info(static_cast<std::uint32_t>(type));
    fail_if(!info, "unknown tensor type");
    TensorInfo t;
    t.n_dims = static_cast<std::uint32_t>(dims.size());
    std::uint64_t n = 1;
    for (std::size_t d = 0; d < dims.size(); ++d) {
        t.dims[d] = dims[d];
        if (dims[d] != 0 && n > UINT64_MAX / dims[d])
            throw Error(ErrorCode::invalid_argument, path_to_utf8(path_) + ": GGUF writer: shape overflows" + where);
        n *= dims[d];
    }
    if (dims[0] % info->block_elems != 0)
        throw Error(ErrorCode::invalid_argument, path_to_utf8(path_) + ": GGUF writer: row length " +
                                                     std::to_string(dims[0]) + " is not a multiple of the " +
                                                     std::string(info->name) + " block size" + where);
    const auto bytes = kernels::dtype_bytes(type, n);
    if (!bytes) throw Error(ErrorCode::invalid_argument, path_to_utf8(path_) + ": GGUF writer: size overflows" + where);
    t.type = type;
    t.n_elements = n;
    t.n_bytes = *bytes;
    t.index = tensors_.size();
    t.name = std::move(name);
    tensor_index_.emplace(t.name, tensors_.size());
    tensors_.push_back(std::move(t));
    return *bytes;
}

void Writer::put(const void* data, std::size_t n) {
    if (n == 0) return;
    if (std::fwrite(data, 1, n, file_) != n) {
        const int err = errno;
        state_ = State::failed;
        throw Error(ErrorCode::io, path_to_utf8(tmp_path_) + ": write failed: " + std::strerror(err),
                    "check the free disk space");
    }
    written_ += n;
}

void Writer::pad_to(std::uint64_t alignment) {
    static const std::byte zeros[256] = {};
    std::uint64_t pad = align_up(written_, alignment) - written_;
    while (pad > 0) {
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(pad, sizeof zeros));
        put(zeros, n);
        pad -= n;
    }
}

void Writer::write_header() {
    fail_if(state_ != State::declaring, "write_header() called twice");
    // Offsets follow the declaration order, each aligned.
    data_size_ = 0;
    for (auto& t : tensors_) {
        t.offset = data_size_;
        data_size_ = align_up(data_size_ + t.n_bytes, alignment_);
    }

    std::error_code ec;
    if (std::filesystem::is_directory(path_, ec))
        throw Error(ErrorCode::invalid_argument, path_to_utf8(path_) + ": is a folder", "give a file name for the output");
#if defined(_WIN32)
    file_ = _wfopen(tmp_path_.c_str(), L"wb");
#else
    file_ = std::fopen(tmp_path_.c_str(), "wb");
#endif
    if (!file_) {
        const int err = errno;
        throw Error(ErrorCode::io, path_to_utf8(tmp_path_) + ": cannot create: " + std::strerror(err),
                    "check that the folder exists and is writable");
    }
    state_ = State::writing;
    std::setvbuf(file_, nullptr, _IOFBF, kBufferBytes);

    auto put_u32 = [&](std::uint32_t v) { put(&v, 4); };
    auto put_u64 = [&](std::uint64_t v) { put(&v, 8); };
    auto put_str = [&](std::string_view s) {
        put_u64(s.size());
        put(s.data(), s.size());
    };

    put("GGUF", 4);
    put_u32(kVersion);
    put_u64(tensors_.size());
    put_u64(metadata_.size());

    // Recursive value serialization (depth is bounded by how the Value was built).
    auto put_value = [&](auto&& self, const Value& v) -> void {
        switch (v.type_) {
            case ValueType::string: put_str(v.str_); return;
            case ValueType::array: {
                put_u32(static_cast<std::uint32_t>(v.elem_));
                put_u64(v.count_);
                if (v.elem_ == ValueType::string) {
                    for (auto s : *v.strings_) put_str(s);
                } else if (v.elem_ == ValueType::array) {
                    for (const auto& item : *v.arrays_) self(self, item);
                } else {
                    put(v.raw_, static_cast<std::size_t>(v.count_ * value_type_size(v.elem_)));
                }
                return;
            }
            default: put(&v.bits_, value_type_size(v.type_)); return;  // low bytes of the little-endian payload
        }
    };
    for (const auto& kv : metadata_.entries()) {
        put_str(kv.key);
        put_u32(static_cast<std::uint32_t>(kv.value.type_));
        put_value(put_value, kv.value);
    }
    for (const auto& t : tensors_) {
        put_str(t.name);
        put_u32(t.n_dims);
        for (std::uint32_t d = 0; d < t.n_dims; ++d) put_u64(t.dims[d]);
        put_u32(static_cast<std::uint32_t>(t.type));
        put_u64(t.offset);
    }
    if (!tensors_.empty()) pad_to(alignment_);  // like llama.cpp's writer: a vocab-only file ends after its header
    data_offset_ = written_;
    expected_size_ = data_offset_ + data_size_;
}

void Writer::begin_tensor(std::string_view name) {
    fail_if(state_ != State::writing, "begin_tensor() outside the writing phase (call write_header() first)");
    fail_if(in_tensor_, "begin_tensor() before end_tensor() of the previous tensor");
    if (next_tensor_ >= tensors_.size())
        throw Error(ErrorCode::invalid_argument, path_to_utf8(path_) + ": GGUF writer: tensor '" + std::string(name) +
                                                     "' begun after all declared tensors were written");
    if (tensors_[next_tensor_].name != name)
        throw Error(ErrorCode::invalid_argument, path_to_utf8(path_) + ": GGUF writer: tensor '" + std::string(name) +
                                                     "' begun, but '" + tensors_[next_tensor_].name +
                                                     "' is next in declaration order");
    in_tensor_ = true;
    tensor_written_ = 0;
}

void Writer::write(std::span<const std::byte> chunk) {
    fail_if(!in_tensor_, "write() outside begin_tensor()/end_tensor()");
    const TensorInfo& t = tensors_[next_tensor_];
    if (chunk.size() > t.n_bytes - tensor_written_)
        throw Error(ErrorCode::invalid_argument, path_to_utf8(path_) + ": GGUF writer: tensor '" + t.name + "' gets " +
                                                     std::to_string(tensor_written_ + chunk.size()) +
                                                     " bytes, more than its " + std::to_string(t.n_bytes));
    put(chunk.data(), chunk.size());
    tensor_written_ += chunk.size();
}

void Writer::end_tensor() {
    fail_if(!in_tensor_, "end_tensor() without begin_tensor()");
    const TensorInfo& t = tensors_[next_tensor_];
    if (tensor_written_ != t.n_bytes)
        throw Error(ErrorCode::invalid_argument, path_to_utf8(path_) + ": GGUF writer: tensor '" + t.name + "' got " +
                                                     std::to_string(tensor_written_) + " bytes, expected " +
                                                     std::to_string(t.n_bytes));
    pad_to(alignment_);
    if (written_ != data_offset_ + align_up(t.offset + t.n_bytes, alignment_))
        throw Error(ErrorCode::internal, path_to_utf8(path_) + ": GGUF writer: data offset mismatch after tensor '" +
                                             t.name + "'");
    in_tensor_ = false;
    ++next_tensor_;
}

void Writer::write_tensor(std::string_view name, std::span<const std::byte> data) {
    begin_tensor(name);
    write(data);
    end_tensor();
}

void Writer::finish() {
    fail_if(state_ != State::writing, "finish() outside the writing phase (call write_header() first)");
    fail_if(in_tensor_, "finish() inside a tensor (call end_tensor())");
    if (next_tensor_ != tensors_.size())
        throw Error(ErrorCode::invalid_argument, path_to_utf8(path_) + ": GGUF writer: finish() with " +
                                                     std::to_string(tensors_.size() - next_tensor_) +
                                                     " declared tensor(s) not written, next '" +
                                                     tensors_[next_tensor_].name + "'");
    if (written_ != expected_size_)
        throw Error(ErrorCode::internal, path_to_utf8(path_) + ": GGUF writer: wrote " + std::to_string(written_) +
                                             " bytes, expected " + std::to_string(expected_size_));
    const bool flushed = std::fflush(file_) == 0 && sync_file(file_) == 0;
    const int err = errno;
    const bool closed = std::fclose(file_) == 0;
    file_ = nullptr;
    if (!flushed || !closed) {
        state_ = State::failed;
        throw Error(ErrorCode::io, path_to_utf8(tmp_path_) + ": cannot flush the file: " + std::strerror(err),
                    "check the free disk space");
    }
    std::error_code ec;
    std::filesystem::rename(tmp_path_, path_, ec);
    if (ec) {
        state_ = State::failed;
        throw Error(ErrorCode::io, path_to_utf8(tmp_path_) + ": cannot rename to " + path_to_utf8(path_) + ": " + ec.message());
    }
    state_ = State::finished;
}

}  // namespace ft::gguf
