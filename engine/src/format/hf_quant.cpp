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

// A checkpoint whose scales do not match its weights (invalid_file) and a layout the engine types cannot hold
// (unsupported), each with its message key and arguments (the file first; hf_quant.h lists them).
[[noreturn]] void bad(const Checkpoint& ck, const std::string& what, const char* key, std::vector<std::string> args) {
    const std::string file = path_to_utf8(ck.path());
    args.insert(args.begin(), file);
    throw Error(ErrorCode::invalid_file, file + ": " + what, "the checkpoint's scales do not match its weights; download it again")
        .keyed(key, std::move(args));
}

[[noreturn]] void unsupported(const Checkpoint& ck, const std::string& what, const char* hint, const char* key,
                              std::vector<std::string> args) {
    const std::string file = path_to_utf8(ck.path());
    args.insert(args.begin(), file);
    throw Error(ErrorCode::unsupported, file + ": " + what, hint).keyed(key, std::move(args));
}

[[noreturn]] void missing(const Checkpoint& ck, const std::string& weight, const std::string& scale, const std::string& what) {
    bad(ck, what, "hf_quant_scale_missing", {weight, scale});
}

[[noreturn]] void not_matrix(const Checkpoint& ck, const char* format, const std::string& weight, const std::vector<std::uint64_t>& shape) {
    bad(ck, std::string(format) + " tensor " + weight + " has shape " + shape_str(shape) + ", expected a matrix",
        "hf_quant_not_matrix", {weight, shape_str(shape)});
}

// The NVFP4 scales of `q` (ModelOpt's or compressed-tensors'): group scales F8_E4M3 [.., N, K/16], one F32 second
// scale; rows of whole 64-blocks.
void check_nvfp4(const Checkpoint& ck, QuantizedTensor& q) {
    const auto& wshape = q.weight->info->shape;
    const std::string s2name(q.scale2->info->name);
    if (q.scale2->info->dtype != DType::F32 || q.scale2->info->n_elements != 1) {
        const std::string got = std::string(dtype_name(q.scale2->info->dtype)) + " " + shape_str(q.scale2->info->shape);
        bad(ck, "tensor " + s2name + " is " + got + ", expected one F32 value", "hf_quant_scale_type",
            {s2name, got, "F32 [1]"});
    }
    if (wshape.size() < 2) not_matrix(ck, "NVFP4", q.name, wshape);
    q.type = kernels::DType::FT_NVFP4;
    q.shape = wshape;
    q.shape.back() *= 2;
    const std::uint64_t k = q.shape.back();
    std::vector<std::uint64_t> want(wshape.begin(), wshape.end() - 1);
    want.push_back(k / 16);
    const std::string sname(q.scale->info->name);
    if (k % 16 != 0 || q.scale->info->shape != want)
        bad(ck, "tensor " + sname + " has shape " + shape_str(q.scale->info->shape) + ", expected " + shape_str(want) +
                    " (one E4M3 scale per 16 of the " + std::to_string(k) + " values of a row)",
            "hf_quant_scale_shape", {sname, shape_str(q.scale->info->shape), shape_str(want)});
    if (k % 64 != 0)
        unsupported(ck, "NVFP4 tensor " + q.name + " has rows of " + std::to_string(k) + " values; the engine's NVFP4 blocks hold 64",
                    "convert the BF16 release of the model instead", "hf_quant_row_length",
                    {q.name, "NVFP4", std::to_string(k), "64"});
}

// compressed-tensors' packed weights "<base>.weight_packed": its nvfp4-pack-quantized layout, or an error naming
// the packing the engine does not read (int4/int8 pack-quantized, mxfp4-pack-quantized).
QuantizedTensor compressed_packed(const Checkpoint& ck, const std::string& base, const Checkpoint::Entry* packed) {
    QuantizedTensor q;
    q.name = base + ".weight_packed";
    q.base = base;
    q.weight = packed;
    q.scale = ck.find(base + ".weight_scale");
    q.scale2 = ck.find(base + ".weight_global_scale");
    q.scale2_divides = true;
    const DType pd = packed->info->dtype;
    if (pd != DType::U8 || (q.scale && q.scale->info->dtype != DType::F8_E4M3)) {
        const std::string layout = pd != DType::U8 ? "compressed-tensors pack-quantized (integer weights packed in " +
                                                         std::string(dtype_name(pd)) + ")"
                                                   : "compressed-tensors packed FP4 with " +
                                                         std::string(dtype_name(q.scale->info->dtype)) + " group scales (MXFP4)";
        unsupported(ck, "tensor " + q.name + " is " + layout + ", which the engine does not read",
                    "use the model's NVFP4, FP8 or BF16 release, or a GGUF file", "hf_quant_layout", {q.name, layout});
    }
    if (!q.scale) missing(ck, q.name, base + ".weight_scale", "NVFP4 tensor " + q.name + " has no " + base + ".weight_scale (its group scales)");
    if (!q.scale2)
        missing(ck, q.name, base + ".weight_global_scale",
                "NVFP4 tensor " + q.name + " has no " + base + ".weight_global_scale (the per-tensor scale)");
    check_nvfp4(ck, q);
    return q;
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
                        "the model's config.json is damaged; download it again")
                .keyed("hf_quant_config", {path_to_utf8(dir / "config.json")});
        if (auto m = it->find("quant_method"); m != it->end() && m->is_string()) qc.method = m->get<std::string>();
        if (auto b = it->find("weight_block_size"); b != it->end() && !b->is_null()) {
            if (!b->is_array() || b->size() != 2 || !(*b)[0].is_number_unsigned() || !(*b)[1].is_number_unsigned() ||
                (*b)[0].get<std::uint64_t>() == 0 || (*b)[1].get<std::uint64_t>() == 0)
                throw Error(ErrorCode::invalid_file,
                            path_to_utf8(dir / "config.json") + ": quantization_config.weight_block_size must be two "
                                                                "positive integers, got " + b->dump(),
                            "the model's config.json is damaged; download it again")
                    .keyed("hf_quant_block_size", {path_to_utf8(dir / "config.json"), b->dump()});
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
        if (const Checkpoint::Entry* packed = ck.find(base + ".weight_packed")) return compressed_packed(ck, base, packed);
        return std::nullopt;
    }
    const auto& wshape = w->info->shape;
    QuantizedTensor q;
    q.name = weight_name;
    q.base = base;
    q.weight = w;
    if (w->info->dtype == DType::F8_E4M3) {
        if (wshape.size() < 2) not_matrix(ck, "FP8", weight_name, wshape);
        const Checkpoint::Entry* s = ck.find(base + ".weight_scale_inv");
        const bool inv = s != nullptr;
        if (!s) s = ck.find(base + ".weight_scale");
        if (!s)
            missing(ck, weight_name, base + ".weight_scale_inv",
                    "FP8 tensor " + weight_name + " has no " + base + ".weight_scale_inv (block scales) or .weight_scale");
        const DType sd = s->info->dtype;
        const std::string sname(s->info->name);
        if (sd != DType::F32 && sd != DType::BF16 && sd != DType::F16)
            bad(ck, "tensor " + sname + " is " + std::string(dtype_name(sd)) + ", expected F32 scales", "hf_quant_scale_type",
                {sname, std::string(dtype_name(sd)), "F32"});
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
                bad(ck, "tensor " + sname + " has shape " + shape_str(s->info->shape) + "; " + shape_str(wshape) +
                            " in blocks of " + std::to_string(q.block_rows) + " x " + std::to_string(q.block_cols) +
                            " (quantization_config.weight_block_size) needs " + shape_str(want),
                    "hf_quant_scale_shape", {sname, shape_str(s->info->shape), shape_str(want)});
        }
        if (k % 32 != 0)
            unsupported(ck, "FP8 tensor " + weight_name + " has rows of " + std::to_string(k) +
                                " values; the engine keeps FP8 rows in groups of 32 under one scale",
                        "convert the BF16 release of the model instead", "hf_quant_row_length",
                        {weight_name, "FP8", std::to_string(k), "32"});
        if (q.block_cols % 32 != 0 && q.block_cols < k)
            unsupported(ck, "FP8 tensor " + weight_name + " has scale blocks of " + std::to_string(q.block_cols) +
                                " columns; the engine keeps FP8 rows in groups of 32 under one scale, so the blocks "
                                "must be multiples of 32",
                        "convert the BF16 release of the model instead", "hf_quant_fp8_block",
                        {weight_name, std::to_string(q.block_cols)});
        return q;
    }
    if (w->info->dtype == DType::U8) {
        q.scale = ck.find(base + ".weight_scale");
        q.scale2 = ck.find(base + ".weight_scale_2");
        if (!q.scale || q.scale->info->dtype != DType::F8_E4M3) return std::nullopt;  // not NVFP4: left to the caller's type check
        if (!q.scale2)
            missing(ck, weight_name, base + ".weight_scale_2",
                    "NVFP4 tensor " + weight_name + " has no " + base + ".weight_scale_2 (the per-tensor scale)");
        check_nvfp4(ck, q);
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
    float s2;
    std::memcpy(&s2, q.scale2->data().data(), 4);
    if (q.scale2_divides) s2 = 1.f / s2;
    for (std::uint64_t r = r0; r < r1; ++r)
        for (std::uint64_t c = 0; c < k; c += 64, dst += sizeof(kernels::ref::BlockFtNvfp4)) {
            std::memcpy(dst, &s2, 4);
            std::memcpy(dst + 4, sc + (r * k + c) / 16, 4);
            std::memcpy(dst + 8, wd + (r * k + c) / 2, 32);
        }
}

}  // namespace ft::safetensors
