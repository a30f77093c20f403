// llama.cpp's tokenizer test vectors (testdata/llama.cpp-vocab, README §1): every string of <name>.gguf.inp must
// tokenize to the ids on the same line of <name>.gguf.out — no BOS/EOS, special-token text not parsed.
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include <nlohmann/json.hpp>

#include "format/gguf.h"
#include "ft/error.h"
#include "ft/tokenizer.h"
#include "ft_test.h"

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), {}};
}

// README §1: strings each followed by "\n__ggml_vocab_test__\n"; leftmost match of the full separator.
std::vector<std::string> read_inp(const fs::path& p) {
    const std::string raw = slurp(p);
    const std::string sep = "\n__ggml_vocab_test__\n";
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (pos < raw.size()) {
        const std::size_t f = raw.find(sep, pos);
        if (f == std::string::npos) {
            out.push_back(raw.substr(pos));
            break;
        }
        out.push_back(raw.substr(pos, f - pos));
        pos = f + sep.size();
    }
    return out;
}

std::vector<std::vector<std::int32_t>> read_out(const fs::path& p) {
    std::ifstream f(p);
    std::vector<std::vector<std::int32_t>> out;
    std::string line;
    while (std::getline(f, line)) {
        std::istringstream ss(line);
        std::vector<std::int32_t> ids;
        long long v;
        while (ss >> v) ids.push_back(static_cast<std::int32_t>(v));
        out.push_back(std::move(ids));
    }
    return out;
}

std::string ids_str(const std::vector<std::int32_t>& ids) {
    std::string s;
    for (auto id : ids) s += " " + std::to_string(id);
    return s;
}

// A vocab-only GGUF (as convert_hf_to_gguf.py --vocab-only writes one) from a byte-level BPE tokenizer.json, with
// the given tokenizer.ggml.pre: this checks the GGUF path of the qwen2 / llama-bpe families, whose .gguf files are
// not in testdata (README §1), against the same vectors.
fs::path gguf_from_tokenizer_json(const fs::path& json_path, const std::string& pre, const fs::path& out) {
    using json = nlohmann::json;
    const json j = json::parse(slurp(json_path));
    std::vector<std::string> tokens;
    std::vector<std::int32_t> types;
    for (const auto& [t, id] : j["model"]["vocab"].items()) {
        const auto i = id.get<std::size_t>();
        if (tokens.size() <= i) tokens.resize(i + 1), types.resize(i + 1, 5);
        tokens[i] = t;
        types[i] = 1;
    }
    for (const auto& a : j["added_tokens"]) {
        const auto i = a["id"].get<std::size_t>();
        if (tokens.size() <= i) tokens.resize(i + 1), types.resize(i + 1, 5);
        tokens[i] = a["content"].get<std::string>();
        types[i] = a["special"].get<bool>() ? 3 : 4;
    }
    std::vector<std::string> merges;
    for (const auto& m : j["model"]["merges"])
        merges.push_back(m.is_string() ? m.get<std::string>() : m[0].get<std::string>() + " " + m[1].get<std::string>());
    ft::gguf::Writer w(out);
    w.set("general.architecture", ft::gguf::Value::string("llama"));
    w.set("tokenizer.ggml.model", ft::gguf::Value::string("gpt2"));
    w.set("tokenizer.ggml.pre", ft::gguf::Value::string(pre));
    w.set("tokenizer.ggml.tokens", ft::gguf::Value::string_array(std::move(tokens)));
    w.set("tokenizer.ggml.token_type", ft::gguf::Value::i32_array(types));
    w.set("tokenizer.ggml.merges", ft::gguf::Value::string_array(std::move(merges)));
    w.write_header();
    w.finish();
    return out;
}

}  // namespace

class TestTokenizerVectors : public QObject {
    Q_OBJECT
private slots:
    void vectors_data() {
        QTest::addColumn<QString>("vocab");   // <name> of ggml-vocab-<name>.gguf.{inp,out}
        QTest::addColumn<QString>("source");  // what to load: gguf | hf:<folder> | skip:<reason>
        QTest::newRow("gpt-2") << "gpt-2" << "gguf";
        QTest::newRow("deepseek-llm") << "deepseek-llm" << "gguf";
        QTest::newRow("deepseek-coder") << "deepseek-coder" << "gguf";
        QTest::newRow("falcon") << "falcon" << "gguf";
        QTest::newRow("starcoder") << "starcoder" << "gguf";
        QTest::newRow("refact") << "refact" << "gguf";
        QTest::newRow("mpt") << "mpt" << "gguf";
        QTest::newRow("llama-spm") << "llama-spm" << "gguf";
        QTest::newRow("phi-3") << "phi-3" << "gguf";
        QTest::newRow("qwen2") << "qwen2" << "hf:qwen3";        // README §1: same vocab and merges
        QTest::newRow("llama-bpe") << "llama-bpe" << "hf:llama3_1";
        QTest::newRow("qwen2 via gguf") << "qwen2" << "gguf-from:qwen3:qwen2";
        QTest::newRow("llama-bpe via gguf") << "llama-bpe" << "gguf-from:llama3_1:llama-bpe";
        QTest::newRow("bert-bge") << "bert-bge" << "gguf";
        QTest::newRow("qwen35") << "qwen35"
                                << "skip:no Qwen3.5 vocabulary ships in testdata (its .gguf is >= 4 MiB and was not "
                                   "snapshotted; README §1)";
        QTest::newRow("command-r") << "command-r"
                                   << "skip:no command-r vocabulary ships in testdata (.gguf >= 4 MiB, not "
                                      "snapshotted; README addendum)";
    }

    void vectors() {
        QFETCH(QString, vocab);
        QFETCH(QString, source);
        const fs::path dir = fs::path(FT_TESTDATA_DIR) / "llama.cpp-vocab";
        if (!fs::exists(dir)) QSKIP("testdata/llama.cpp-vocab is absent");
        if (source.startsWith("skip:")) QSKIP(qPrintable(source.mid(5)));
        const std::string name = vocab.toStdString();
        const fs::path base = dir / ("ggml-vocab-" + name + ".gguf");
        fs::path model = base;
        if (source.startsWith("hf:"))
            model = fs::path(FT_TESTDATA_DIR) / "hf-tokenizers" / source.mid(3).toStdString() / "tokenizer.json";
        if (source.startsWith("gguf-from:")) {
            const QStringList parts = source.split(':');
            const fs::path tmp = fs::path(FT_BINARY_DIR) / "test-tokenizer-tmp";
            fs::create_directories(tmp);
            model = gguf_from_tokenizer_json(
                fs::path(FT_TESTDATA_DIR) / "hf-tokenizers" / parts[1].toStdString() / "tokenizer.json",
                parts[2].toStdString(), tmp / (parts[2].toStdString() + ".vocab.gguf"));
        }
        QVERIFY2(fs::exists(model), qPrintable(QString::fromStdString(model.string() + " is missing")));
        const auto inputs = read_inp(fs::path(base.string() + ".inp"));
        const auto expected = read_out(fs::path(base.string() + ".out"));
        QCOMPARE(inputs.size(), expected.size());
        QVERIFY(inputs.size() >= 46);

        const auto tok = std::make_optional(ft::Tokenizer::load(model));
        int passed = 0;
        std::string failures;
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            const auto got = tok->encode(inputs[i]);  // no BOS/EOS, parse_special = false
            if (got == expected[i]) {
                ++passed;
            } else if (failures.size() < 4000) {
                failures += "\n  #" + std::to_string(i) + " \"" + inputs[i].substr(0, 60) + "\"\n    want" +
                            ids_str(expected[i]) + "\n    got " + ids_str(got);
            }
        }
        qInfo("%s: %d/%zu vectors pass", name.c_str(), passed, inputs.size());
        QVERIFY2(passed == static_cast<int>(inputs.size()), failures.c_str());
    }
};

FT_TEST_MAIN(TestTokenizerVectors)
#include "test_tokenizer_vectors.moc"
