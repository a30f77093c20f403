#include "fuzz_seeds.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "format/gguf.h"

namespace ft::fuzz {

namespace {

std::vector<std::byte> pattern(std::size_t n, unsigned seed) {
    std::vector<std::byte> out(n);
    unsigned x = seed * 2654435761u + 1;
    for (auto& b : out) {
        x = x * 1103515245u + 12345u;
        b = static_cast<std::byte>(x >> 24);
    }
    return out;
}

std::vector<std::byte> slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::vector<char> c((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::byte> out(c.size());
    if (!c.empty()) std::memcpy(out.data(), c.data(), c.size());
    return out;
}

using gguf::DType;
using gguf::Value;

struct TensorSpec {
    const char* name;
    DType type;
    std::vector<std::uint64_t> dims;
};

std::vector<std::byte> write_gguf(const std::filesystem::path& scratch, const gguf::Metadata& meta,
                                  const std::vector<TensorSpec>& tensors, std::uint32_t alignment) {
    const auto p = scratch / "seed.gguf";
    {
        gguf::Writer w(p);
        for (const auto& kv : meta.entries()) w.set(kv.key, kv.value);
        if (alignment != gguf::kDefaultAlignment) w.set_alignment(alignment);
        std::vector<std::uint64_t> sizes;
        for (const auto& t : tensors) sizes.push_back(w.add_tensor(t.name, t.type, t.dims));
        w.write_header();
        for (std::size_t i = 0; i < tensors.size(); ++i)
            w.write_tensor(tensors[i].name, pattern(sizes[i], static_cast<unsigned>(i)));
        w.finish();
    }
    auto bytes = slurp(p);
    std::filesystem::remove(p);
    return bytes;
}

}  // namespace

std::vector<Seed> gguf_seeds(const std::filesystem::path& scratch) {
    std::vector<Seed> out;
    {
        // A tiny model-like file: architecture keys and a few tensors of several types.
        gguf::Metadata m;
        m.set("general.architecture", Value::string("qwen3moe"));
        m.set("general.name", Value::string("fuzz"));
        m.set("qwen3moe.block_count", Value::u32(1));
        m.set("qwen3moe.embedding_length", Value::u32(64));
        m.set("qwen3moe.rope.freq_base", Value::f32(1e6f));
        m.set("qwen3moe.expert_count", Value::u32(4));
        m.set("general.file_type", Value::u32(7));
        out.push_back({"seed-model.gguf",
                       write_gguf(scratch, m,
                                  {{"token_embd.weight", DType::Q8_0, {64, 4}},
                                   {"blk.0.attn_norm.weight", DType::F32, {64}},
                                   {"blk.0.ffn_gate_exps.weight", DType::Q4_K, {256, 2, 4}},
                                   {"output_norm.weight", DType::BF16, {64}},
                                   {"output.weight", DType::F16, {64, 4}}},
                                  32)});
    }
    {
        // Vocab-only: the tokenizer arrays a tokenizer reads.
        gguf::Metadata m;
        m.set("general.architecture", Value::string("llama"));
        m.set("tokenizer.ggml.model", Value::string("gpt2"));
        m.set("tokenizer.ggml.pre", Value::string("qwen2"));
        std::vector<std::string> tokens, merges;
        std::vector<std::int32_t> types;
        std::vector<float> scores;
        for (int i = 0; i < 24; ++i) {
            tokens.push_back(std::string(1, static_cast<char>('a' + i)) + (i % 3 ? "\xc4\xa0" : ""));
            types.push_back(i < 2 ? 3 : 1);
            scores.push_back(-static_cast<float>(i));
        }
        for (int i = 0; i < 8; ++i) merges.push_back(std::string(1, static_cast<char>('a' + i)) + " b");
        m.set("tokenizer.ggml.tokens", Value::string_array(std::move(tokens)));
        m.set("tokenizer.ggml.token_type", Value::i32_array(types));
        m.set("tokenizer.ggml.scores", Value::f32_array(scores));
        m.set("tokenizer.ggml.merges", Value::string_array(std::move(merges)));
        m.set("tokenizer.ggml.bos_token_id", Value::u32(0));
        m.set("tokenizer.ggml.add_bos_token", Value::boolean(false));
        m.set("tokenizer.chat_template", Value::string("{% for m in messages %}{{ m.content }}{% endfor %}"));
        out.push_back({"seed-vocab.gguf", write_gguf(scratch, m, {}, 32)});
    }
    {
        // Every value type, nested arrays, alignment 8.
        gguf::Metadata m;
        m.set("u8", Value::u8(1));
        m.set("i8", Value::i8(-1));
        m.set("u16", Value::u16(2));
        m.set("i16", Value::i16(-2));
        m.set("u32", Value::u32(3));
        m.set("i32", Value::i32(-3));
        m.set("f32", Value::f32(0.5f));
        m.set("bool", Value::boolean(true));
        m.set("str", Value::string("s"));
        m.set("u64", Value::u64(4));
        m.set("i64", Value::i64(-4));
        m.set("f64", Value::f64(0.25));
        const std::int16_t i16s[] = {1, -1};
        const double f64s[] = {1.0};
        m.set("nested", Value::array_of_arrays({Value::i16_array(i16s),
                                                Value::array_of_arrays({Value::f64_array(f64s)}),
                                                Value::string_array(std::vector<std::string>{"x", ""})}));
        out.push_back({"seed-values.gguf", write_gguf(scratch, m, {{"t", DType::I32, {3, 1, 1, 2}}}, 8)});
    }
    {
        gguf::Metadata m;
        m.set("general.architecture", Value::string("llama"));
        out.push_back({"seed-mxfp4-align64.gguf",
                       write_gguf(scratch, m, {{"a", DType::MXFP4, {32, 2}}, {"b", DType::Q6_K, {256}},
                                               {"z", DType::F32, {0}}}, 64)});
    }
    {
        // One tensor of each block type llama.cpp's quantize recipes write beyond the K-quants (the harness
        // dequantizes each tensor's first row).
        gguf::Metadata m;
        m.set("general.architecture", Value::string("llama"));
        out.push_back({"seed-quant-types.gguf",
                       write_gguf(scratch, m,
                                  {{"q4_1", DType::Q4_1, {32, 2}}, {"q5_0", DType::Q5_0, {64}}, {"q5_1", DType::Q5_1, {32}},
                                   {"q2_k", DType::Q2_K, {256, 2}}, {"q3_k", DType::Q3_K, {256}},
                                   {"iq4_nl", DType::IQ4_NL, {32}}, {"iq4_xs", DType::IQ4_XS, {256}},
                                   {"tq1_0", DType::TQ1_0, {256}}, {"tq2_0", DType::TQ2_0, {256}},
                                   {"iq2_xxs", DType::IQ2_XXS, {256}}, {"iq2_xs", DType::IQ2_XS, {256}},
                                   {"iq2_s", DType::IQ2_S, {256}}, {"iq3_xxs", DType::IQ3_XXS, {256}},
                                   {"iq3_s", DType::IQ3_S, {256}}, {"iq1_s", DType::IQ1_S, {256}},
                                   {"iq1_m", DType::IQ1_M, {256, 2}}},
                                  32)});
    }
    {
        // The engine's own types for Hugging Face FP8 / NVFP4 weights, as `ft convert` writes them.
        gguf::Metadata m;
        m.set("general.architecture", Value::string("llama"));
        out.push_back({"seed-ft-types.gguf", write_gguf(scratch, m,
                                                        {{"ft_fp8", DType::FT_FP8, {32, 2}},
                                                         {"ft_nvfp4", DType::FT_NVFP4, {64, 2}}},
                                                        32)});
    }
    return out;
}

std::vector<Seed> safetensors_seeds() {
    std::vector<Seed> out;
    auto make = [](const nlohmann::json& header, std::size_t data_bytes) {
        std::string text = header.dump();
        while (text.size() % 8) text += ' ';
        std::vector<std::byte> b(8 + text.size());
        const std::uint64_t n = text.size();
        std::memcpy(b.data(), &n, 8);
        std::memcpy(b.data() + 8, text.data(), text.size());
        const auto data = pattern(data_bytes, 7);
        b.insert(b.end(), data.begin(), data.end());
        return b;
    };
    using nlohmann::json;
    out.push_back({"seed-model.safetensors",
                   make(json{{"__metadata__", {{"format", "pt"}}},
                             {"model.embed_tokens.weight", {{"dtype", "BF16"}, {"shape", {4, 8}}, {"data_offsets", {0, 64}}}},
                             {"model.norm.weight", {{"dtype", "F32"}, {"shape", {8}}, {"data_offsets", {64, 96}}}},
                             {"lm_head.weight", {{"dtype", "F16"}, {"shape", {4, 8}}, {"data_offsets", {96, 160}}}}},
                        160)});
    out.push_back({"seed-dtypes.safetensors",
                   make(json{{"a", {{"dtype", "I64"}, {"shape", {2}}, {"data_offsets", {0, 16}}}},
                             {"b", {{"dtype", "U8"}, {"shape", {3}}, {"data_offsets", {16, 19}}}},
                             {"c", {{"dtype", "F8_E4M3"}, {"shape", {1, 5}}, {"data_offsets", {19, 24}}}},
                             {"d", {{"dtype", "F64"}, {"shape", json::array()}, {"data_offsets", {24, 32}}}},
                             {"e", {{"dtype", "I32"}, {"shape", {0}}, {"data_offsets", {32, 32}}}}},
                        32)});
    out.push_back({"seed-empty.safetensors", make(json::object(), 0)});
    return out;
}

}  // namespace ft::fuzz
