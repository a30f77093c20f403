// `ft convert`: a Hugging Face safetensors folder → one GGUF file (or a split model: parts of at most so many tensors
// or bytes, named and keyed as llama.cpp's gguf-split does) with llama.cpp's tensor names, metadata keys and
// tokenizer keys. Tensor by tensor, row block by row block: memory stays bounded (a few MiB of buffers) whatever the
// model size. Norms and the router stay F32; the other matrices take the requested type (a row that is not a whole
// number of blocks falls back to Q8_0, then F32, as llama.cpp's quantizer does).
//
// Errors: ft::Error naming the file and tensor/field: not_found (missing config/tokenizer/tensor), invalid_file (a
// tensor of the wrong shape), unsupported (architecture without a tensor table, a source dtype other than
// F32/F16/BF16, a target type other than f32/f16/bf16/q8_0/q4_0/q4_k/q5_k/q6_k).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <vector>

#include "ref/dtype.h"

namespace ft::model {

struct ConvertOptions {
    std::filesystem::path out;
    kernels::DType type = kernels::DType::BF16;
    std::function<void(std::uint64_t done, std::uint64_t total)> progress;  // bytes of tensor data written
    // Split the model into parts of at most this many tensors / bytes of tensor data (0: no limit; both 0: one
    // file at `out`). The parts are <out without .gguf>-0000K-of-0000N.gguf.
    std::uint64_t split_max_tensors = 0;
    std::uint64_t split_max_bytes = 0;
};

struct ConvertResult {
    std::vector<std::filesystem::path> files;  // what was written: `out`, or the parts of a split model in order
    std::uint64_t file_bytes = 0;                // all of them
    std::size_t tensors = 0;
    double seconds = 0;
};

ConvertResult convert_hf_to_gguf(const std::filesystem::path& hf_dir, const ConvertOptions& opt);

}  // namespace ft::model
