// Hugging Face FP8 / NVFP4 weights → the engine's FT_FP8 / FT_NVFP4 rows (format/hf_quant.h).
#include "format/hf_quant.h"

#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "ft/error.h"
#include "ft/utf8.h"
#include "ref/quant.h"

namespace ft::safetensors {

namespace {

std::string shape_str(const std::vector<std::uint64_t>& d) {
    std::string s = "[";
    for (std::size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
    return s + "]";
}

std::uint64_t product(const std::vector<std::uint64_t>& d, std::size_t n) {
    std::uint64_t p = 1;
    for (std::size_t i = 0; i < n; ++i) p *= d[i];
    return p;
}

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

// A scale value of an F32 / BF16 / F16 tensor (exact in f32).
float scale_at(const Checkpoint::Entry& e, std::uint64_t i) {
    const std::byte* p = e.data().data();
    switch (e.info->dtype) {
        case DType::F32: {
            float f;
            std::memcpy(&f, p + 4 * i, 4);
            return f;
        }
        case DType::BF16: {
            std::uint16_t h;
            std::memcpy(&h, p + 2 * i, 2);
            return kernels::ref::bf16_to_f32(h);
        }
        default: {
            std::uint16_t h;
            std::memcpy(&h, p + 2 * i, 2);
            return kernels::ref::f16_to_f32(h);
        }
    }
}

[[noreturn]] void bad(const Checkpoint& ck, const std::string& what) {
    throw Error(ErrorCode::invalid_file, path_to_utf8(ck.path()) + ": " + what,
                "the checkpoint's scales do not match its weights; download it again");
}

[[noreturn]] void unsupported(const Checkpoint& ck, const std::string& what, const char* hint) {
    throw Error(ErrorCode::unsupported, path_to_utf8(ck.path()) + ": " + what, hint);
}

}  // namespace

std::uint64_t QuantizedTensor::rows() const { return product(shape, shape.size() - 1); }

QuantConfig read_quant_config(const std::filesystem::path& dir) {
    QuantConfig qc;
    auto parse = [](const std::filesystem::path& p) {
        std::ifstream in(p);
        return in ? nlohmann::json::parse(in, nullptr, false) : nlohmann::json();
    };
    const nlohmann::json cfg = parse(dir / "config.json");
    const auto it = cfg.is_object() ? cfg.find("quantization_config") : cfg.end();
    if (cfg.is_object() && it != cfg.end() && !it->is_null()) {
        if (!it->is_object())
            throw Error(ErrorCode::invalid_file, path_to_utf8(dir / "config.json") + ": quantization_config is not an object",
                        "the model's config.json is damaged; download it again");
        if (auto m = it->find("quant_method"); m != it->end() && m->is_string()) qc.method = m->get<std::string>();
        if (auto b = it->find("weight_block_size"); b != it->end() && !b->is_null()) {
            if (!b->is_array() || b->size() != 2 || !(*b)[0].is_number_unsigned() || !(*b)[1].is_number_unsigned() ||
                (*b)[0].get<std::uint64_t>() == 0 || (*b)[1].get<std::uint64_t>() == 0)
                throw Error(ErrorCode::invalid_file,
                            path_to_utf8(dir / "config.json") + ": quantization_config.weight_block_size must be two "
                                                                "positive integers, got " + b->dump(),
                            "the model's config.json is damaged; download it again");
            qc.fp8_block_rows = (*b)[0].get<std::uint32_t>();
            qc.fp8_block_cols = (*b)[1].get<std::uint32_t>();
            qc.fp8_block_given = true;
        }
    } else if (const nlohmann::json mo = parse(dir / "hf_quant_config.json"); mo.is_object()) {
        qc.method = "modelopt";
    }
    return qc;
}

std::optional<QuantizedTensor> find_quantized(const Checkpoint& ck, const std::string& weight_name, const QuantConfig& qc) {
    constexpr std::string_view kSuffix = ".weight";
    if (!weight_name.ends_with(kSuffix)) return std::nullopt;
    const std::string base = weight_name.substr(0, weight_name.size() - kSuffix.size());
    const Checkpoint::Entry* w = ck.find(weight_name);
    if (!w) {
        if (ck.find(base + ".weight_packed"))
            unsupported(ck, "tensor " + base + ".weight_packed is compressed-tensors' packed FP4 (nvfp4-pack-quantized), "
                            "which the engine does not read yet",
                        "use the model's NVIDIA ModelOpt NVFP4, FP8 or BF16 release, or a GGUF file");
        return std::nullopt;
    }
    const auto& wshape = w->info->shape;
    QuantizedTensor q;
    q.name = weight_name;
    q.weight = w;
    if (w->info->dtype == DType::F8_E4M3) {
        if (wshape.size() < 2) bad(ck, "FP8 tensor " + weight_name + " has shape " + shape_str(wshape) + ", expected a matrix");
        const Checkpoint::Entry* s = ck.find(base + ".weight_scale_inv");
        const bool inv = s != nullptr;
        if (!s) s = ck.find(base + ".weight_scale");
        if (!s)
            bad(ck, "FP8 tensor " + weight_name + " has no " + base + ".weight_scale_inv (block scales) or .weight_scale");
        const DType sd = s->info->dtype;
        if (sd != DType::F32 && sd != DType::BF16 && sd != DType::F16)
            bad(ck, "tensor " + std::string(s->info->name) + " is " + std::string(dtype_name(sd)) + ", expected F32 scales");
        q.type = kernels::DType::FT_FP8;
        q.scale = s;
        q.shape = wshape;
        const std::uint64_t n = wshape[wshape.size() - 2], k = wshape.back(), lead = product(wshape, wshape.size() - 2);
        const std::uint64_t sn = s->info->n_elements;
        if (sn == 1) {
            q.block_rows = n, q.block_cols = k;  // one scale for the tensor (and every matrix of a stack)
        } else if (!inv && sn == lead * n) {
            q.block_rows = 1, q.block_cols = k;  // per row
        } else {
            q.block_rows = qc.fp8_block_rows, q.block_cols = qc.fp8_block_cols;
            std::vector<std::uint64_t> want(wshape.begin(), wshape.end() - 2);
            want.push_back(ceil_div(n, q.block_rows));
            want.push_back(ceil_div(k, q.block_cols));
            if (s->info->shape != want)
                bad(ck, "tensor " + std::string(s->info->name) + " has shape " + shape_str(s->info->shape) + "; " +
                            shape_str(wshape) + " in blocks of " + std::to_string(q.block_rows) + " x " +
                            std::to_string(q.block_cols) + " (quantization_config.weight_block_size) needs " + shape_str(want));
        }
        if (k % 32 != 0 || (q.block_cols % 32 != 0 && q.block_cols < k))
            unsupported(ck, "FP8 tensor " + weight_name + " has rows of " + std::to_string(k) + " in scale blocks of " +
                                std::to_string(q.block_cols) + " columns; the engine keeps FP8 rows in groups of 32 "
                                "under one scale, so both must be multiples of 32",
                        "convert the BF16 release of the model instead");
        return q;
    }
    if (w->info->dtype == DType::U8) {
        const Checkpoint::Entry* s = ck.find(base + ".weight_scale");
        const Checkpoint::Entry* s2 = ck.find(base + ".weight_scale_2");
        if (!s || s->info->dtype != DType::F8_E4M3) return std::nullopt;  // not NVFP4: left to the caller's type check
        if (!s2) bad(ck, "NVFP4 tensor " + weight_name + " has no " + base + ".weight_scale_2 (the per-tensor scale)");
        if (s2->info->dtype != DType::F32 || s2->info->n_elements != 1)
            bad(ck, "tensor " + base + ".weight_scale_2 is " + std::string(dtype_name(s2->info->dtype)) + " " +
                        shape_str(s2->info->shape) + ", expected one F32 value");
        if (wshape.size() < 2) bad(ck, "NVFP4 tensor " + weight_name + " has shape " + shape_str(wshape) + ", expected a matrix");
        q.type = kernels::DType::FT_NVFP4;
        q.scale = s;
        q.scale2 = s2;
        q.shape = wshape;
        q.shape.back() *= 2;
        const std::uint64_t k = q.shape.back();
        std::vector<std::uint64_t> want(wshape.begin(), wshape.end() - 1);
        want.push_back(k / 16);
        if (k % 16 != 0 || s->info->shape != want)
            bad(ck, "tensor " + base + ".weight_scale has shape " + shape_str(s->info->shape) + ", expected " +
                        shape_str(want) + " (one E4M3 scale per 16 of the " + std::to_string(k) + " values of a row)");
        if (k % 64 != 0)
            unsupported(ck, "NVFP4 tensor " + weight_name + " has rows of " + std::to_string(k) +
                                " values; the engine's NVFP4 blocks hold 64",
                        "convert the BF16 release of the model instead");
        return q;
    }
    return std::nullopt;
}

void repack_rows(const QuantizedTensor& q, std::uint64_t r0, std::uint64_t r1, std::byte* dst) {
    const std::uint64_t k = q.cols();
    const std::byte* wd = q.weight->data().data();
    if (q.type == kernels::DType::FT_FP8) {
        const std::uint64_t n = q.shape[q.shape.size() - 2];
        const std::uint64_t sk = ceil_div(k, q.block_cols), per_matrix = ceil_div(n, q.block_rows) * sk;
        const bool one = q.scale->info->n_elements == 1;
        for (std::uint64_t r = r0; r < r1; ++r) {
            const std::uint64_t m = r / n, rr = r % n;
            for (std::uint64_t c = 0; c < k; c += 32, dst += sizeof(kernels::ref::BlockFtFp8)) {
                const float d = scale_at(*q.scale, one ? 0 : m * per_matrix + (rr / q.block_rows) * sk + c / q.block_cols);
                std::memcpy(dst, &d, 4);
                std::memcpy(dst + 4, wd + r * k + c, 32);
            }
        }
        return;
    }
    const std::byte* sc = q.scale->data().data();
    std::byte s2[4];
    std::memcpy(s2, q.scale2->data().data(), 4);
    for (std::uint64_t r = r0; r < r1; ++r)
        for (std::uint64_t c = 0; c < k; c += 64, dst += sizeof(kernels::ref::BlockFtNvfp4)) {
            std::memcpy(dst, s2, 4);
            std::memcpy(dst + 4, sc + (r * k + c) / 16, 4);
            std::memcpy(dst + 8, wd + (r * k + c) / 2, 32);
        }
}

}  // namespace ft::safetensors
