// `ft convert`: a tiny Qwen3-MoE Hugging Face folder written here (config.json, two safetensors shards with an index,
// mixed F32/F16/BF16 sources, one dense layer, the bundled Qwen3 tokenizer files) converts to GGUF, and every tensor
// of the reloaded file equals its source: exactly for f32/bf16, and for q8_0/q4_k exactly the reference quantizer's
// blocks of the source rows (so within that type's error bound). Also `ft inspect` on the folder, and bad folders.
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "format/gguf.h"
#include "ft/engine.h"
#include "ft/error.h"
#include "ft_process.h"
#include "ft_test.h"
#include "model/model_desc.h"
#include "model/model_tensors.h"
#include "ref/quant.h"

using nlohmann::json;
using ft::kernels::DType;
namespace ref = ft::kernels::ref;
namespace fs = std::filesystem;

using ft::test::run_ft;

namespace {


// One source tensor: its values (exactly representable in its dtype) and dtype name.
struct Src {
    std::string dtype;  // "F32", "F16", "BF16"
    std::vector<std::uint64_t> shape;
    std::vector<float> values;
};

std::vector<std::byte> encode(const Src& s) {
    const size_t es = s.dtype == "F32" ? 4 : 2;
    std::vector<std::byte> out(s.values.size() * es);
    for (size_t i = 0; i < s.values.size(); ++i) {
        if (s.dtype == "F32") {
            std::memcpy(out.data() + 4 * i, &s.values[i], 4);
        } else {
            const std::uint16_t h = s.dtype == "F16" ? ref::f32_to_f16(s.values[i]) : ref::f32_to_bf16(s.values[i]);
            std::memcpy(out.data() + 2 * i, &h, 2);
        }
    }
    return out;
}

// A minimal safetensors writer: u64 header length, JSON header (padded with spaces to 8 bytes), data.
void write_safetensors(const fs::path& path, const std::map<std::string, const Src*>& tensors) {
    json header = {{"__metadata__", {{"format", "pt"}}}};
    std::vector<std::byte> data;
    for (const auto& [name, s] : tensors) {
        const auto bytes = encode(*s);
        header[name] = {{"dtype", s->dtype}, {"shape", s->shape}, {"data_offsets", {data.size(), data.size() + bytes.size()}}};
        data.insert(data.end(), bytes.begin(), bytes.end());
    }
    std::string h = header.dump();
    while (h.size() % 8) h += ' ';
    std::ofstream out(path, std::ios::binary);
    const std::uint64_t n = h.size();
    out.write(reinterpret_cast<const char*>(&n), 8);
    out.write(h.data(), static_cast<std::streamsize>(h.size()));
    out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
}

json tiny_config() {
    return {{"architectures", {"Qwen3MoeForCausalLM"}}, {"model_type", "qwen3_moe"}, {"vocab_size", 151936},
            {"hidden_size", 256}, {"intermediate_size", 512}, {"moe_intermediate_size", 256},
            {"num_hidden_layers", 2}, {"num_attention_heads", 4}, {"num_key_value_heads", 2}, {"head_dim", 64},
            {"max_position_embeddings", 2048}, {"rms_norm_eps", 1e-6}, {"rope_theta", 1e6}, {"num_experts", 4},
            {"num_experts_per_tok", 2}, {"norm_topk_prob", true}, {"decoder_sparse_step", 1},
            {"mlp_only_layers", {1}}, {"tie_word_embeddings", true}, {"bos_token_id", 151643},
            {"eos_token_id", 151645}};
}

// Writes the folder; returns the source tensors by HF name.
std::map<std::string, Src> make_hf_folder(const fs::path& dir, const json& config) {
    fs::create_directories(dir);
    std::ofstream(dir / "config.json") << config.dump(2);
    const fs::path tok = fs::path(FT_SOURCE_DIR) / "resources/tokenizers/qwen3";
    fs::copy_file(tok / "tokenizer.json", dir / "tokenizer.json", fs::copy_options::overwrite_existing);
    fs::copy_file(tok / "tokenizer_config.json", dir / "tokenizer_config.json", fs::copy_options::overwrite_existing);

    const auto desc = ft::model::desc_from_hf_config(config, "config.json");
    std::map<std::string, Src> src;
    std::mt19937 rng(1234);
    std::normal_distribution<float> nd(0.f, 1.f);
    for (const auto& spec : ft::model::arch_tensors(desc)) {
        std::vector<std::uint64_t> shape(spec.dims.rbegin(), spec.dims.rend());
        if (spec.hf_names.size() > 1) shape.erase(shape.begin());
        std::uint64_t n = 1;
        for (auto d : shape) n *= d;
        // Dtypes vary by role to cover every source path.
        const std::string dtype = spec.role == ft::model::TensorRole::token_embd ? "BF16"
                                  : (spec.role == ft::model::TensorRole::attn_q || spec.role == ft::model::TensorRole::ffn_down_exps) ? "F16"
                                                                                                                                       : "F32";
        const float scale = spec.is_norm() ? 0.1f : 1.f / std::sqrt(static_cast<float>(spec.dims[0]));
        for (const auto& hn : spec.hf_names) {
            Src s{dtype, shape, std::vector<float>(n)};
            for (auto& v : s.values) {
                v = (spec.is_norm() ? 1.f : 0.f) + scale * nd(rng);
                // Make every value exact in its dtype so that the f32 conversion is exactly the source value.
                if (dtype == "F16") v = ref::f16_to_f32(ref::f32_to_f16(v));
                if (dtype == "BF16") v = ref::bf16_to_f32(ref::f32_to_bf16(v));
            }
            src.emplace(hn, std::move(s));
        }
    }
    // Two shards (embeddings alone in the first) and the index.
    std::map<std::string, const Src*> a, b;
    json weight_map = json::object();
    for (const auto& [name, s] : src) {
        const bool first = name == "model.embed_tokens.weight";
        (first ? a : b)[name] = &s;
        weight_map[name] = first ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors";
    }
    write_safetensors(dir / "model-00001-of-00002.safetensors", a);
    write_safetensors(dir / "model-00002-of-00002.safetensors", b);
    std::ofstream(dir / "model.safetensors.index.json") << json{{"metadata", {{"total_size", 0}}}, {"weight_map", weight_map}}.dump();
    return src;
}

}  // namespace

class TestConvert : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    fs::path hf_;
    std::map<std::string, Src> src_;

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        hf_ = fs::path(tmp_.path().toStdString()) / "tiny-qwen3-moe";
        src_ = make_hf_folder(hf_, tiny_config());
    }

    void convertAndReload_data() {
        QTest::addColumn<QString>("type");
        for (const char* t : {"f32", "bf16", "q8_0", "q4_k"}) QTest::newRow(t) << t;
    }
    void convertAndReload() {
        QFETCH(QString, type);
        const QString out = tmp_.filePath("tiny-" + type + ".gguf");
        const auto r = run_ft({"convert", QString::fromStdString(hf_.string()), "--out", out, "--type", type, "--quiet"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const DType want_type = *ft::kernels::dtype_from_name(type.toStdString());
        const auto reader = ft::gguf::Reader::open(out.toStdString());
        const auto desc = ft::model::desc_from_gguf(reader);
        QCOMPARE(desc.n_layer, 2u);
        QCOMPARE(desc.moe.n_expert, 4u);
        QVERIFY(!desc.layer_is_moe(1));
        QCOMPARE(reader.metadata().get_strings("tokenizer.ggml.tokens").size(), size_t(151936));
        QCOMPARE(reader.get_u64("tokenizer.ggml.bos_token_id"), 151643ull);
        QVERIFY(reader.find("tokenizer.chat_template"));
        QVERIFY(!reader.find_tensor("output.weight"));  // tied

        const auto specs = ft::model::arch_tensors(ft::model::desc_from_hf_config(tiny_config(), "config.json"));
        QCOMPARE(reader.tensors().size(), specs.size());
        std::vector<std::byte> want;
        for (const auto& spec : specs) {
            const auto& info = reader.tensor(spec.name);
            for (size_t d = 0; d < spec.dims.size(); ++d) QCOMPARE(info.dims[d], spec.dims[d]);
            const DType t = spec.keep_f32() ? DType::F32 : want_type;
            QCOMPARE(info.type, t);
            // Expected bytes: each source row through the reference quantizer (identity for f32).
            const std::uint64_t row = spec.dims[0];
            const std::uint64_t row_bytes = *ft::kernels::dtype_bytes(t, row);
            want.clear();
            for (const auto& hn : spec.hf_names) {
                const Src& s = src_.at(hn);
                for (std::uint64_t r0 = 0; r0 < s.values.size(); r0 += row) {
                    const size_t at = want.size();
                    want.resize(at + row_bytes);
                    QVERIFY(ref::quantize_row(t, s.values.data() + r0, want.data() + at, static_cast<std::int64_t>(row)));
                }
            }
            const auto got = reader.tensor_data(info);
            QCOMPARE(got.size(), want.size());
            QVERIFY2(std::memcmp(got.data(), want.data(), want.size()) == 0, qPrintable(QString::fromStdString(spec.name)));
            // And the decoded values are within the type's error of the source (exact for f32; bf16 sources exact).
            if (spec.name == "token_embd.weight" || spec.name == "blk.0.ffn_down_exps.weight" || spec.name == "blk.1.ffn_up.weight") {
                std::vector<float> dec(info.n_elements), orig;
                QVERIFY(ref::dequantize_row(t, got.data(), dec.data(), static_cast<std::int64_t>(dec.size())));
                for (const auto& hn : spec.hf_names) orig.insert(orig.end(), src_.at(hn).values.begin(), src_.at(hn).values.end());
                double num = 0, den = 0;
                for (size_t i = 0; i < dec.size(); ++i) num += double(dec[i] - orig[i]) * (dec[i] - orig[i]), den += double(orig[i]) * orig[i];
                const double nmse = num / den;
                const double bound = t == DType::F32 ? 0 : t == DType::BF16 ? 2e-5 : t == DType::Q8_0 ? 5e-5 : 1.5e-2;
                QVERIFY2(nmse <= bound, qPrintable(QString("%1: nmse %2").arg(QString::fromStdString(spec.name)).arg(nmse)));
            }
        }
    }

    // A split model (llama.cpp's gguf-split layout) written by `ft convert --split-max-tensors`: every part is a
    // GGUF file with split.no / split.count / split.tensors.count, the first holds the metadata, the engine opens
    // it from the first part, and its logits equal the one-file model's bit for bit. Also split by size, `ft
    // inspect` of the first part, and the errors for a missing part and for opening a later part.
    void splitModelLoadsAsOne() {
        const QString tiny = QStringLiteral(FT_SOURCE_DIR "/tests/data/qwen3-moe-tiny");
        const QString one = tmp_.filePath("tiny-one.gguf");
        auto r = run_ft({"convert", tiny, "--out", one, "--type", "q8_0", "--quiet"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QString split = tmp_.filePath("tiny-split.gguf");
        r = run_ft({"convert", tiny, "--out", split, "--type", "q8_0", "--quiet", "--split-max-tensors", "16"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const auto single = ft::gguf::Reader::open(one.toStdString());
        const std::size_t n_tensors = single.tensors().size();
        const int n_parts = int((n_tensors + 15) / 16);
        QVERIFY(n_parts >= 3);
        std::vector<fs::path> parts;
        std::size_t seen = 0;
        for (int k = 1; k <= n_parts; ++k) {
            parts.push_back(fs::path(tmp_.path().toStdString()) / ft::gguf::split_file_name("tiny-split", k, n_parts));
            QVERIFY2(fs::exists(parts.back()), parts.back().string().c_str());
            QVERIFY2(r.out.contains(QString::fromStdString(parts.back().string())), qPrintable(r.out));
            const auto part = ft::gguf::Reader::open(parts.back());  // each part is a GGUF file of its own
            QCOMPARE(part.get_u64("split.no"), std::uint64_t(k - 1));
            QCOMPARE(part.get_u64("split.count"), std::uint64_t(n_parts));
            QCOMPARE(part.get_i64("split.tensors.count"), std::int64_t(n_tensors));
            QCOMPARE(part.metadata().find("split.count")->type(), ft::gguf::ValueType::u16);
            QCOMPARE(part.metadata().find("split.tensors.count")->type(), ft::gguf::ValueType::i32);
            QCOMPARE(part.find("general.architecture") != nullptr, k == 1);  // the metadata is in the first part
            QVERIFY(part.tensors().size() <= 16);
            seen += part.tensors().size();
        }
        QCOMPARE(seen, n_tensors);
        QVERIFY(!fs::exists(split.toStdString()));
        QVERIFY(!fs::exists(fs::path(tmp_.path().toStdString()) / ft::gguf::split_file_name("tiny-split", n_parts + 1, n_parts + 1)));

        // Opened from the first part: the whole model, each tensor's bytes those of the one-file model.
        const auto joined = ft::gguf::Reader::open_model(parts.front());
        QCOMPARE(joined.tensors().size(), n_tensors);
        QCOMPARE(int(joined.parts().size()), n_parts);
        for (const auto& t : single.tensors()) {
            const auto* u = joined.find_tensor(t.name);
            QVERIFY2(u, t.name.c_str());
            const auto a = single.tensor_data(t), b = joined.tensor_data(*u);
            QVERIFY(a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size()) == 0);
        }

        // The engine: the same logits, bit for bit (CPU engine, one thread).
        auto logits = [](const fs::path& model) {
            ft::Engine e;
            ft::LoadOptions o;
            o.model = model;
            o.device = ft::Device::cpu;
            o.threads = 1;
            o.n_ctx = 256;
            o.max_sequences = 1;
            e.load_sync(o);
            const std::vector<std::int32_t> toks = {785, 3974, 1387, 3883, 916, 279, 1567, 556, 13, 4096, 17, 99};  // < 4160
            return e.evaluate_logits(toks);
        };
        const std::vector<float> a = logits(one.toStdString());
        const std::vector<float> b = logits(parts.front());
        QVERIFY(!a.empty());
        QCOMPARE(b.size(), a.size());
        QVERIFY2(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0, "the split model's logits differ");

        // Split by size: parts of at most 1 MiB of tensor data (a larger tensor gets a part of its own).
        const QString by_size = tmp_.filePath("tiny-mib.gguf");
        r = run_ft({"convert", tiny, "--out", by_size, "--type", "q8_0", "--quiet", "--split-max-size", "1M"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const auto first = r.out.split('\n').value(0).trimmed().toStdString();
        const auto sized = ft::gguf::Reader::open_model(first);
        QVERIFY(sized.parts().size() >= 2);
        for (const auto& part : sized.parts()) {
            const auto p = ft::gguf::Reader::open(part.path);
            std::uint64_t bytes = 0;
            for (const auto& t : p.tensors()) bytes += t.n_bytes;
            QVERIFY2(bytes <= (1u << 20) || p.tensors().size() == 1, part.path.string().c_str());
        }
        QCOMPARE(logits(first), a);

        // `ft inspect` of the first part describes the whole model.
        r = run_ft({"inspect", QString::fromStdString(parts.front().string()), "--json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j["tensor_count"].get<std::size_t>(), n_tensors);
        QCOMPARE(j["parts"].size(), std::size_t(n_parts));
        std::uint64_t total = 0;
        for (const auto& p : parts) total += fs::file_size(p);
        QCOMPARE(j["file_bytes"].get<std::uint64_t>(), total);

        // A later part names the first; a missing part is named.
        try {
            logits(parts[1]);
            QFAIL("a later part loaded");
        } catch (const ft::Error& e) {
            QVERIFY2(QString::fromStdString(e.message()).contains("is part 2 of"), e.what());
            QVERIFY2(QString::fromStdString(e.hint()).contains(QString::fromStdString(parts.front().filename().string())), e.hint().c_str());
        }
        fs::rename(parts.back(), parts.back().string() + ".away");
        try {
            logits(parts.front());
            QFAIL("a model with a missing part loaded");
        } catch (const ft::Error& e) {
            QCOMPARE(e.code(), ft::ErrorCode::not_found);
            QVERIFY2(QString::fromStdString(e.message()).contains(QString("part %1 of %1 is missing").arg(n_parts)), e.what());
        }
        fs::rename(parts.back().string() + ".away", parts.back());
    }

    void inspectFolder() {
        const auto r = run_ft({"inspect", QString::fromStdString(hf_.string()), "--json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j["format"].get<std::string>(), std::string("huggingface"));
        QCOMPARE(j["architecture"].get<std::string>(), std::string("qwen3_moe"));
        QCOMPARE(j["safetensors_files"].get<int>(), 2);
        QCOMPARE(j["tensor_count"].get<size_t>(), src_.size());
        std::uint64_t params = 0, expert = 0;
        for (const auto& [name, s] : src_) {
            params += s.values.size();
            if (name.find(".experts.") != std::string::npos) expert += s.values.size();
        }
        QCOMPARE(j["sizes"]["total_params"].get<std::uint64_t>(), params);
        QCOMPARE(j["sizes"]["active_params"].get<std::uint64_t>(), params - expert + expert / 2);  // top-2 of 4
        QVERIFY(j["tokenizer"]["chat_template"].get<bool>());
        QCOMPARE(j["tokenizer"]["eos_token_id"].get<int>(), 151645);
        QCOMPARE(j["tokenizer"]["merges"].get<int>(), 151387);
        const auto t = run_ft({"inspect", QString::fromStdString(hf_.string())});
        QVERIFY2(t.code == 0 && t.out.contains("experts               4, 2 per token"), qPrintable(t.out));
    }

    void badFolders() {
        // A tensor missing from the checkpoint: the error names it; nothing is left under the output name.
        const fs::path bad = fs::path(tmp_.path().toStdString()) / "bad";
        auto src = make_hf_folder(bad, [] {
            json c = tiny_config();
            c["num_hidden_layers"] = 3;
            return c;
        }());
        {  // drop one tensor from the index and its shard

            std::ifstream in(bad / "model.safetensors.index.json");
            json idx = json::parse(in);
            idx["weight_map"].erase("model.layers.2.self_attn.k_proj.weight");
            std::ofstream(bad / "model.safetensors.index.json") << idx.dump();
            std::map<std::string, const Src*> b;
            for (const auto& [name, s] : src)
                if (name != "model.embed_tokens.weight" && name != "model.layers.2.self_attn.k_proj.weight") b[name] = &s;
            write_safetensors(bad / "model-00002-of-00002.safetensors", b);
        }
        const QString out = tmp_.filePath("bad.gguf");
        auto r = run_ft({"convert", QString::fromStdString(bad.string()), "--out", out, "--type", "f32", "--quiet"});
        QVERIFY(r.code != 0 && r.code != -2);
        QVERIFY2(r.err.contains("model.layers.2.self_attn.k_proj.weight"), qPrintable(r.err));
        QVERIFY(!QFile::exists(out));
        // A wrong shape: the error names the tensor and the shapes.
        {
            std::map<std::string, const Src*> b;
            Src wrong{"F32", {64, 256}, std::vector<float>(64 * 256, 0.5f)};
            for (const auto& [name, s] : src)
                if (name != "model.embed_tokens.weight") b[name] = &s;
            b["model.layers.2.self_attn.k_proj.weight"] = &wrong;
            write_safetensors(bad / "model-00002-of-00002.safetensors", b);
            std::ifstream in(bad / "model.safetensors.index.json");
            json idx = json::parse(in);
            idx["weight_map"]["model.layers.2.self_attn.k_proj.weight"] = "model-00002-of-00002.safetensors";
            std::ofstream(bad / "model.safetensors.index.json") << idx.dump();
        }
        r = run_ft({"convert", QString::fromStdString(bad.string()), "--out", out, "--type", "f32", "--quiet"});
        QVERIFY(r.code != 0 && r.code != -2);
        QVERIFY2(r.err.contains("k_proj") && r.err.contains("shape"), qPrintable(r.err));
        // Unknown target type, missing --out, a folder without config.json.
        r = run_ft({"convert", QString::fromStdString(hf_.string()), "--out", out, "--type", "q9_z"});
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("--type"), qPrintable(r.err));
        r = run_ft({"convert", QString::fromStdString(hf_.string())});
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("--out"), qPrintable(r.err));
        r = run_ft({"convert", tmp_.path(), "--out", out});
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("config.json"), qPrintable(r.err));
    }
};

FT_TEST_MAIN(TestConvert)
#include "test_convert.moc"
