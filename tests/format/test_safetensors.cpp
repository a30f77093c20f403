// safetensors: a file written here read back bit-exactly, a sharded folder with an index, and malformed headers.
#include <QDir>
#include <QTemporaryDir>

#include <filesystem>
#include <random>

#include <nlohmann/json.hpp>

#include "format/safetensors.h"
#include "ft_test.h"
#include "gguf_test_util.h"

using namespace ft::safetensors;
using ft::ErrorCode;
using nlohmann::json;

namespace {

struct SpecTensor {
    std::string name;
    std::string dtype;
    std::vector<std::uint64_t> shape;
    std::vector<std::byte> data;
};

std::vector<std::byte> random_bytes(std::size_t n, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<std::byte> out(n);
    for (auto& b : out) b = static_cast<std::byte>(rng() & 0xff);
    return out;
}

// Serializes tensors the way the safetensors format specifies (header padded with spaces to 8 bytes).
std::vector<std::byte> make_file(const std::vector<SpecTensor>& tensors, const json& metadata = nullptr) {
    json header = json::object();
    std::uint64_t offset = 0;
    for (const auto& t : tensors) {
        header[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {offset, offset + t.data.size()}}};
        offset += t.data.size();
    }
    if (!metadata.is_null()) header["__metadata__"] = metadata;
    std::string text = header.dump();
    while (text.size() % 8) text += ' ';
    ft::test::Bytes b;
    b.u64(text.size()).raw(text.data(), text.size());
    for (const auto& t : tensors) b.raw(t.data.data(), t.data.size());
    return b.b;
}

std::vector<std::byte> raw_file(std::string_view header_text, std::size_t data_bytes) {
    ft::test::Bytes b;
    b.u64(header_text.size()).raw(header_text.data(), header_text.size()).zeros(data_bytes);
    return b.b;
}

}  // namespace

class TestSafetensors : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    std::filesystem::path dir(const char* name) const {
        const auto p = std::filesystem::path(tmp_.path().toStdString()) / name;
        std::filesystem::create_directories(p);
        return p;
    }

private slots:
    void initTestCase() { QVERIFY(tmp_.isValid()); }

    void roundTripEveryDtype() {
        const std::vector<SpecTensor> tensors = {
            {"model.embed_tokens.weight", "BF16", {16, 8}, random_bytes(16 * 8 * 2, 1)},
            {"model.norm.weight", "F32", {8}, random_bytes(32, 2)},
            {"lm_head.weight", "F16", {16, 8}, random_bytes(256, 3)},
            {"i64", "I64", {3}, random_bytes(24, 4)},
            {"i32", "I32", {2, 2}, random_bytes(16, 5)},
            {"u8", "U8", {5}, random_bytes(5, 6)},
            {"fp8", "F8_E4M3", {4, 4}, random_bytes(16, 7)},
            {"scalar", "F64", {}, random_bytes(8, 8)},
            {"empty", "F32", {0, 4}, {}},
        };
        const auto bytes = make_file(tensors, json{{"format", "pt"}});
        const auto p = dir("single") / "model.safetensors";
        ft::test::write_file(p.string(), bytes);
        const File f = File::open(p);
        QCOMPARE(f.tensors().size(), tensors.size());
        QCOMPARE(f.metadata().at("format"), std::string("pt"));
        for (const auto& want : tensors) {
            const TensorInfo& t = f.tensor(want.name);
            QCOMPARE(dtype_name(t.dtype), std::string_view(want.dtype));
            QVERIFY(t.shape == want.shape);
            const auto got = f.data(t);
            QCOMPARE(got.size(), want.data.size());
            QVERIFY2(std::equal(got.begin(), got.end(), want.data.begin()), want.name.c_str());
        }
        QVERIFY(dtype_supported_for_compute(f.tensor("model.norm.weight").dtype));
        QVERIFY(!dtype_supported_for_compute(f.tensor("fp8").dtype));
        QCOMPARE(*to_kernel_dtype(DType::BF16), ft::kernels::DType::BF16);
        QVERIFY(!to_kernel_dtype(DType::F8_E4M3));
        FT_EXPECT_ERROR(f.tensor("nope"), ErrorCode::not_found, "missing tensor (nope)");

        // The folder loader finds model.safetensors; a path to the file works too.
        for (const auto& path : {p.parent_path(), p}) {
            const Checkpoint c = Checkpoint::open(path);
            QCOMPARE(c.size(), tensors.size());
            const auto e = c.tensor("lm_head.weight");
            QVERIFY(std::equal(e.data().begin(), e.data().end(), tensors[2].data.begin()));
        }
    }

    void shardedFolderWithIndex() {
        const auto d = dir("sharded");
        const std::vector<SpecTensor> s1 = {{"a.weight", "BF16", {4, 4}, random_bytes(32, 11)},
                                            {"b.weight", "F32", {4}, random_bytes(16, 12)}};
        const std::vector<SpecTensor> s2 = {{"c.weight", "F16", {8}, random_bytes(16, 13)}};
        ft::test::write_file((d / "model-00001-of-00002.safetensors").string(), make_file(s1));
        ft::test::write_file((d / "model-00002-of-00002.safetensors").string(), make_file(s2));
        json index = {{"metadata", {{"total_size", 64}}},
                      {"weight_map",
                       {{"a.weight", "model-00001-of-00002.safetensors"},
                        {"b.weight", "model-00001-of-00002.safetensors"},
                        {"c.weight", "model-00002-of-00002.safetensors"}}}};
        const auto write_index = [&](const json& j) {
            const std::string text = j.dump();
            ft::test::write_file((d / "model.safetensors.index.json").string(),
                                 std::as_bytes(std::span<const char>(text.data(), text.size())));
        };
        write_index(index);
        {
            const Checkpoint c = Checkpoint::open(d);
            QCOMPARE(c.files().size(), 2u);
            QCOMPARE(c.size(), 3u);
            QCOMPARE(c.names().front(), std::string_view("a.weight"));
            QCOMPARE(c.index_metadata().at("total_size"), std::string("64"));
            const auto& e = c.tensor("c.weight");
            QVERIFY(e.file->name().find("00002") != std::string::npos);
            QVERIFY(std::equal(e.data().begin(), e.data().end(), s2[0].data.begin()));
            FT_EXPECT_ERROR(c.tensor("d.weight"), ErrorCode::not_found, "missing tensor (d.weight)");
        }
        // A tensor listed in the index but absent from its shard.
        index["weight_map"]["d.weight"] = "model-00002-of-00002.safetensors";
        write_index(index);
        FT_EXPECT_ERROR(Checkpoint::open(d), ErrorCode::not_found,
                        "model-00002-of-00002.safetensors: tensor 'd.weight' listed in model.safetensors.index.json "
                        "is missing from this shard");
        // A shard file missing.
        index["weight_map"]["d.weight"] = "model-00003-of-00003.safetensors";
        write_index(index);
        FT_EXPECT_ERROR(Checkpoint::open(d), ErrorCode::not_found, "model-00003-of-00003.safetensors: no such file");
        // Shard names must stay inside the folder.
        index["weight_map"]["d.weight"] = "../escape.safetensors";
        write_index(index);
        FT_EXPECT_ERROR(Checkpoint::open(d), ErrorCode::invalid_file, "is not a file name inside the folder");
        write_index(json{{"weight_map", 3}});
        FT_EXPECT_ERROR(Checkpoint::open(d), ErrorCode::invalid_file, "missing or non-object weight_map");
        write_index(json::array());
        FT_EXPECT_ERROR(Checkpoint::open(d), ErrorCode::invalid_file, "expected a JSON object");
        const std::string broken = "{\"weight_map\": {";
        ft::test::write_file((d / "model.safetensors.index.json").string(),
                             std::as_bytes(std::span<const char>(broken.data(), broken.size())));
        FT_EXPECT_ERROR(Checkpoint::open(d), ErrorCode::invalid_file, "model.safetensors.index.json: not valid JSON");
    }

    void folderWithoutIndex() {
        const auto d = dir("loose");
        FT_EXPECT_ERROR(Checkpoint::open(d), ErrorCode::not_found, "no model.safetensors.index.json");
        FT_EXPECT_ERROR(Checkpoint::open(d / "nothing"), ErrorCode::not_found, "no such file or folder");
        const std::vector<SpecTensor> t = {{"x", "F32", {1}, random_bytes(4, 1)}};
        ft::test::write_file((d / "one.safetensors").string(), make_file(t));
        QCOMPARE(Checkpoint::open(d).size(), 1u);
        ft::test::write_file((d / "two.safetensors").string(), make_file(t));
        FT_EXPECT_ERROR(Checkpoint::open(d), ErrorCode::invalid_file, "tensor 'x' is also in");
    }

    void malformedHeaders_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("fragment");
        auto row = [](const char* name, const std::vector<std::byte>& b, const char* fragment) {
            QTest::newRow(name) << QByteArray(reinterpret_cast<const char*>(b.data()), qsizetype(b.size()))
                                << QString::fromUtf8(fragment);
        };
        const auto e = [](const std::string& s) { return s; };
        row("empty", {}, "truncated file: 0 bytes");
        row("short", std::vector<std::byte>(7), "shorter than the 8-byte header length");
        {
            ft::test::Bytes b;
            b.u64(1000).raw("{}", 2);
            row("length past EOF", b.b, "header length 1000 runs past the end of the file (10 bytes) (header length)");
        }
        {
            ft::test::Bytes b;
            b.u64(1ull << 62).raw("{}", 2);
            row("huge length", b.b, "header length 4611686018427387904 exceeds the limit");
        }
        row("bad JSON", raw_file("{\"a\": ", 0), "header is not valid JSON");
        row("not an object", raw_file("[1, 2]", 0), "header is a JSON array, expected an object");
        row("entry not object", raw_file(e(R"({"w": 3})"), 0), "entry is a number, expected an object (tensor 'w')");
        row("missing dtype", raw_file(e(R"({"w": {"shape": [1], "data_offsets": [0, 4]}})"), 4),
            "missing or non-string dtype (tensor 'w'.dtype)");
        row("unknown dtype", raw_file(e(R"({"w": {"dtype": "F12", "shape": [1], "data_offsets": [0, 4]}})"), 4),
            "unknown dtype 'F12' (tensor 'w'.dtype)");
        row("shape not array", raw_file(e(R"({"w": {"dtype": "F32", "shape": 1, "data_offsets": [0, 4]}})"), 4),
            "missing or non-array shape");
        row("negative dim", raw_file(e(R"({"w": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}})"), 4),
            "negative value -1 (tensor 'w'.shape)");
        row("float dim", raw_file(e(R"({"w": {"dtype": "F32", "shape": [1.5], "data_offsets": [0, 4]}})"), 4),
            "expected a non-negative integer, got number (tensor 'w'.shape)");
        row("shape overflow",
            raw_file(e(R"({"w": {"dtype": "F32", "shape": [4294967296, 4294967296, 2], "data_offsets": [0, 4]}})"), 4),
            "the product of the shape overflows 64 bits");
        row("offsets wrong arity", raw_file(e(R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0]}})"), 4),
            "data_offsets must be an array [begin, end]");
        row("offsets reversed", raw_file(e(R"({"w": {"dtype": "F32", "shape": [0], "data_offsets": [4, 0]}})"), 4),
            "begin 4 is after end 0");
        row("offsets out of range", raw_file(e(R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})"), 4),
            "end 8 is past the data section (4 bytes) (tensor 'w'.data_offsets)");
        row("offset huge", raw_file(e(R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 18446744073709551615]}})"), 4),
            "is past the data section");
        row("dtype/shape mismatch", raw_file(e(R"({"w": {"dtype": "BF16", "shape": [4], "data_offsets": [0, 4]}})"), 4),
            "shape and dtype give 8 bytes but data_offsets span 4 (tensor 'w'.data_offsets)");
        row("bytes overflow",
            raw_file(e(R"({"w": {"dtype": "F64", "shape": [4611686018427387904], "data_offsets": [0, 4]}})"), 4),
            "more than 2^64 bytes");
        row("overlap",
            raw_file(e(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                          "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})"), 12),
            "tensors 'a' and 'b' overlap");
        row("metadata not object", raw_file(e(R"({"__metadata__": [1]})"), 0), "expected an object of strings (__metadata__)");
        row("metadata value not string", raw_file(e(R"({"__metadata__": {"k": 1}})"), 0),
            "value is a number, expected a string (__metadata__.k)");
        row("empty name", raw_file(e(R"({"": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})"), 4),
            "empty tensor name");
    }
    void malformedHeaders() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, fragment);
        const std::span<const std::byte> s(reinterpret_cast<const std::byte*>(bytes.constData()), std::size_t(bytes.size()));
        FT_EXPECT_ERROR(File::parse(s, "bad.safetensors"), ErrorCode::invalid_file, fragment.toStdString());
        FT_EXPECT_ERROR(File::parse(s, "bad.safetensors"), ErrorCode::invalid_file, "bad.safetensors: ");
        const auto p = dir("bad") / "model.safetensors";
        ft::test::write_file(p.string(), s);
        FT_EXPECT_ERROR(Checkpoint::open(p.parent_path()), ErrorCode::invalid_file, fragment.toStdString());
    }

    void everyTruncationFails() {
        const std::vector<SpecTensor> tensors = {{"a", "F32", {3}, random_bytes(12, 1)},
                                                 {"b", "BF16", {2, 3}, random_bytes(12, 2)}};
        const auto bytes = make_file(tensors);
        for (std::size_t n = 0; n < bytes.size(); ++n) {
            const std::string mismatch = ft::test::error_mismatch(
                [&] { File::parse(std::span(bytes.data(), n), "cut.safetensors"); }, ErrorCode::invalid_file,
                "cut.safetensors: ");
            QVERIFY2(mismatch.empty(), (std::to_string(n) + " bytes: " + mismatch).c_str());
        }
        QCOMPARE(File::parse(bytes, "ok").tensors().size(), 2u);
    }
};

FT_TEST_MAIN(TestSafetensors)
#include "test_safetensors.moc"
