// GGUF reader and writer: round trips of every value and tensor type, real vocab files, and a table of malformed
// inputs that must each give a clear ft::Error (never a crash or a huge allocation).
#include <QDir>
#include <QTemporaryDir>

#include <bit>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>

#include "format/gguf.h"
#include "format/mapped_file.h"
#include "ft_test.h"
#include "gguf_test_util.h"

using namespace ft::gguf;
using ft::ErrorCode;
using ft::test::Bytes;

namespace {

std::vector<std::byte> random_bytes(std::size_t n, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<std::byte> out(n);
    for (auto& b : out) b = static_cast<std::byte>(rng() & 0xff);
    return out;
}

// All tensor types the dtype table knows.
std::vector<DType> all_dtypes() {
    std::vector<DType> out;
    for (std::uint32_t id = 0; id < 64; ++id)
        if (const auto* info = ft::kernels::dtype_info(id)) out.push_back(info->type);
    return out;
}

// A metadata table with every value type, including empty, nested and big arrays.
Metadata every_value_type() {
    Metadata m;
    m.set("general.architecture", Value::string("qwen3moe"));
    m.set("t.u8", Value::u8(250));
    m.set("t.i8", Value::i8(-120));
    m.set("t.u16", Value::u16(65000));
    m.set("t.i16", Value::i16(-32000));
    m.set("t.u32", Value::u32(4000000000u));
    m.set("t.i32", Value::i32(-2000000000));
    m.set("t.f32", Value::f32(1.0e-6f));
    m.set("t.bool", Value::boolean(true));
    m.set("t.string", Value::string(std::string("utf-8 \xc3\xa4 and a \0 byte", 22)));
    m.set("t.empty_string", Value::string(""));
    m.set("t.u64", Value::u64(0xfedcba9876543210ull));
    m.set("t.i64", Value::i64(-0x123456789abcdefll));
    m.set("t.f64", Value::f64(3.141592653589793));
    const std::uint8_t u8s[] = {0, 1, 255};
    const std::int8_t i8s[] = {-128, 0, 127};
    const std::uint16_t u16s[] = {0, 65535};
    const std::int16_t i16s[] = {-32768, 32767};
    const std::uint32_t u32s[] = {7, 0xffffffffu};
    const std::int32_t i32s[] = {-1, 0, 1, 2147483647};
    const float f32s[] = {-0.0f, 1.5f, 1e30f};
    const bool bools[] = {true, false, true};
    const std::uint64_t u64s[] = {~0ull, 0};
    const std::int64_t i64s[] = {INT64_MIN, INT64_MAX};
    const double f64s[] = {2.5, -1e300};
    m.set("a.u8", Value::u8_array(u8s));
    m.set("a.i8", Value::i8_array(i8s));
    m.set("a.u16", Value::u16_array(u16s));
    m.set("a.i16", Value::i16_array(i16s));
    m.set("a.u32", Value::u32_array(u32s));
    m.set("a.i32", Value::i32_array(i32s));
    m.set("a.f32", Value::f32_array(f32s));
    m.set("a.bool", Value::bool_array(bools));
    m.set("a.u64", Value::u64_array(u64s));
    m.set("a.i64", Value::i64_array(i64s));
    m.set("a.f64", Value::f64_array(f64s));
    m.set("a.string", Value::string_array(std::vector<std::string>{"a", "", "ccc", "\xe2\x82\xac"}));
    m.set("a.empty", Value::i32_array({}));
    m.set("a.empty_strings", Value::string_array(std::vector<std::string>{}));
    m.set("a.nested", Value::array_of_arrays({Value::i32_array(i32s), Value::string_array(std::vector<std::string>{"x"}),
                                               Value::array_of_arrays({Value::f64_array(f64s)})}));
    m.set("a.nested_empty", Value::array_of_arrays({}));
    std::vector<std::string> big;
    for (int i = 0; i < 20000; ++i) big.push_back("tok" + std::to_string(i));
    m.set("tokenizer.ggml.tokens", Value::string_array(std::move(big)));
    return m;
}

}  // namespace

class TestGguf : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;
    std::string path(const char* name) const { return QDir(tmp_.path()).filePath(name).toStdString(); }

    // Writes a small valid file: a few KVs and tensors; returns its bytes.
    std::vector<std::byte> small_valid_file(std::uint32_t alignment = 32) {
        const std::string p = path("small.gguf");
        Writer w(p);
        w.set("general.architecture", Value::string("llama"));
        if (alignment != 32) w.set_alignment(alignment);
        const std::uint32_t ids[] = {1, 2, 3};
        w.set("tokenizer.ggml.token_type", Value::u32_array(ids));
        const std::uint64_t d1[] = {64, 2};
        const std::uint64_t d2[] = {32};
        w.add_tensor("a", DType::Q8_0, d1);
        w.add_tensor("b", DType::F32, d2);
        w.write_header();
        w.write_tensor("a", random_bytes(34 * 4, 1));
        w.write_tensor("b", random_bytes(128, 2));
        w.finish();
        return ft::test::read_file(p);
    }

private slots:
    void initTestCase() { QVERIFY(tmp_.isValid()); }

    void roundTripEveryValueAndTensorType_data() {
        QTest::addColumn<int>("alignment");
        for (int a : {32, 1, 8, 64, 4096}) QTest::addRow("align%d", a) << a;
    }
    void roundTripEveryValueAndTensorType() {
        QFETCH(int, alignment);
        const std::string p = path("roundtrip.gguf");
        const Metadata want = every_value_type();
        std::filesystem::remove(p);
        std::vector<std::vector<std::byte>> data;
        {
            Writer w(p);
            for (const auto& kv : want.entries()) w.set(kv.key, kv.value);
            if (alignment != 32) w.set_alignment(static_cast<std::uint32_t>(alignment));
            std::uint32_t seed = 10;
            for (DType t : all_dtypes()) {
                const auto& info = ft::kernels::dtype_info(t);
                const std::uint64_t dims[] = {info.block_elems * 2ull, 3, 1, 2};
                const std::size_t n_dims = 1 + seed % 4;
                const std::uint64_t bytes = w.add_tensor("blk." + std::string(info.name), t, {dims, n_dims});
                data.push_back(random_bytes(bytes, seed++));
            }
            w.write_header();
            for (std::size_t i = 0; i < data.size(); ++i) {
                // Stream in uneven chunks to exercise the chunked path.
                w.begin_tensor(w.tensors()[i].name);
                std::span<const std::byte> rest = data[i];
                std::size_t chunk = 1;
                while (!rest.empty()) {
                    const std::size_t n = std::min(chunk, rest.size());
                    w.write(rest.first(n));
                    rest = rest.subspan(n);
                    chunk = chunk * 3 + 1;
                }
                w.end_tensor();
            }
            QCOMPARE(std::filesystem::exists(p + ".tmp"), true);
            QCOMPARE(std::filesystem::exists(p), false);
            w.finish();
            QCOMPARE(std::filesystem::file_size(p), w.expected_size());
        }
        QCOMPARE(std::filesystem::exists(p + ".tmp"), false);

        const Reader r = Reader::open(p);
        QCOMPARE(r.version(), 3u);
        QCOMPARE(r.alignment(), std::uint64_t(alignment));
        QCOMPARE(r.data_offset() % alignment, 0u);
        const auto got = r.metadata().entries();
        const std::size_t extra = alignment != 32 ? 1 : 0;  // general.alignment
        QCOMPARE(got.size(), want.size() + extra);
        for (std::size_t i = 0; i < want.size(); ++i) {
            QCOMPARE(QString::fromStdString(got[i].key), QString::fromStdString(want.entries()[i].key));
            QVERIFY2(got[i].value == want.entries()[i].value, got[i].key.c_str());
        }
        if (extra) QCOMPARE(r.get_u64("general.alignment"), std::uint64_t(alignment));

        const auto dtypes = all_dtypes();
        QCOMPARE(r.tensors().size(), dtypes.size());
        for (std::size_t i = 0; i < dtypes.size(); ++i) {
            const TensorInfo& t = r.tensors()[i];
            QCOMPARE(t.type, dtypes[i]);
            QCOMPARE(t.index, i);
            QCOMPARE(&r.tensor(t.name), &t);
            const auto bytes = r.tensor_data(t);
            QCOMPARE(bytes.size(), data[i].size());
            QVERIFY2(std::equal(bytes.begin(), bytes.end(), data[i].begin()), t.name.c_str());
            QCOMPARE(std::uint64_t(bytes.data() - r.bytes().data()) % alignment, 0u);
            QVERIFY(bytes.data() >= r.mapping()->bytes().data());  // a view into the mapping, not a copy
        }
        // Values read from the file view the mapping and outlive nothing they need.
        const Value tokens = r.metadata().get("tokenizer.ggml.tokens");
        QCOMPARE(tokens.array_size(), 20000u);
        QCOMPARE(QString::fromUtf8(tokens.as_strings()[12345].data(), 8), QStringLiteral("tok12345"));
    }

    void typedAccessorsNameTheKey() {
        const std::string p = path("typed.gguf");
        {
            Writer w(p);
            const Metadata m = every_value_type();
            for (const auto& kv : m.entries()) w.set(kv.key, kv.value);
            w.write_header();
            w.finish();
        }
        const Reader r = Reader::open(p);
        QCOMPARE(r.get_u64("t.u8"), 250u);
        QCOMPARE(r.get_i64("t.i8"), -120);
        QCOMPARE(r.get_u64("t.u32"), 4000000000u);
        QCOMPARE(r.get_i64("t.i64"), -0x123456789abcdefll);
        QCOMPARE(r.get_f64("t.f32"), double(1.0e-6f));
        QCOMPARE(r.get_f64("t.i32"), -2000000000.0);
        QCOMPARE(r.get_bool("t.bool"), true);
        QCOMPARE(r.get_string("t.string").size(), 22u);
        QCOMPARE(r.metadata().opt_u64("no.such.key").has_value(), false);
        QCOMPARE(*r.metadata().opt_string("general.architecture"), std::string_view("qwen3moe"));
        const std::vector<std::int32_t> i32s{-1, 0, 1, 2147483647};
        QVERIFY(r.metadata().get_i32_array("a.i32") == i32s);
        QVERIFY(r.metadata().get_i32_array("a.u8") == (std::vector<std::int32_t>{0, 1, 255}));
        QVERIFY(r.metadata().get_f32_array("a.f32") == (std::vector<float>{-0.0f, 1.5f, 1e30f}));
        QCOMPARE(r.metadata().get("a.bool").as_bool_array(), (std::vector<bool>{true, false, true}));
        QCOMPARE(r.metadata().get("a.i64").as_i64_array()[0], INT64_MIN);
        QCOMPARE(r.metadata().get("a.nested").as_arrays().size(), 3u);
        QCOMPARE(r.metadata().get("a.nested").as_arrays()[2].as_arrays()[0].element(1).as_f64(), -1e300);
        QCOMPARE(r.metadata().get_strings("a.string")[3], std::string_view("\xe2\x82\xac"));

        FT_EXPECT_ERROR(r.get_string("t.u32"), ErrorCode::invalid_file, "value has type u32, expected string (t.u32)");
        FT_EXPECT_ERROR(r.get_u64("t.string"), ErrorCode::invalid_file, "typed.gguf: value has type string");
        FT_EXPECT_ERROR(r.get_u64("t.i8"), ErrorCode::invalid_file, "negative");
        FT_EXPECT_ERROR(r.get_i64("t.u64"), ErrorCode::invalid_file, "does not fit");
        FT_EXPECT_ERROR(r.get_bool("t.u8"), ErrorCode::invalid_file, "expected bool (t.u8)");
        FT_EXPECT_ERROR(r.metadata().get_strings("a.i32"), ErrorCode::invalid_file, "array of i32, expected array of string");
        FT_EXPECT_ERROR(r.metadata().get_i32_array("a.u32"), ErrorCode::invalid_file, "does not fit int32");
        FT_EXPECT_ERROR(r.metadata().opt_bool("t.string"), ErrorCode::invalid_file, "(t.string)");
        FT_EXPECT_ERROR(r.get_u64("llama.block_count"), ErrorCode::not_found, "missing key (llama.block_count)");
        FT_EXPECT_ERROR(r.tensor("output.weight"), ErrorCode::not_found, "missing tensor (output.weight)");

        QCOMPARE(QString::fromStdString(r.metadata().get("a.i32").to_display(2)),
                 QStringLiteral("[-1, 0, … (4 items)]"));
        QCOMPARE(QString::fromStdString(r.metadata().get("t.string").to_display(8, 5)), QStringLiteral("\"utf-8…\""));
        QCOMPARE(QString::fromStdString(Value::boolean(false).to_display()), QStringLiteral("false"));
    }

    void valuesOutliveTheReader() {
        const std::string p = path("outlive.gguf");
        {
            Writer w(p);
            w.set("tokenizer.ggml.tokens", Value::string_array(std::vector<std::string>{"hello", "world"}));
            w.set("name", Value::string("qwen"));
            w.write_header();
            w.finish();
        }
        Value tokens, name;
        {
            const Reader r = Reader::open(p);
            tokens = r.metadata().get("tokenizer.ggml.tokens");
            name = r.metadata().get("name");
        }
        QCOMPARE(tokens.as_strings()[1], std::string_view("world"));
        QCOMPARE(name.as_string(), std::string_view("qwen"));
        QCOMPARE(tokens.element(0).as_string(), std::string_view("hello"));

        Metadata m("mem");
        m.set("a", Value::u8(1));
        m.set("b", Value::u8(2));
        m.set("a", Value::u8(3));  // replaced in place
        QCOMPARE(m.entries()[0].key, std::string("a"));
        QCOMPARE(m.get_u64("a"), 3u);
        QVERIFY(m.erase("a"));
        QVERIFY(!m.contains("a"));
        QCOMPARE(m.get_u64("b"), 2u);
        const std::byte three[3] = {};
        FT_EXPECT_ERROR(Value::numeric_array(ValueType::u16, three), ErrorCode::invalid_argument, "not a multiple of 2");
        FT_EXPECT_ERROR(Value::numeric_array(ValueType::string, three), ErrorCode::invalid_argument, "not a fixed-size");
        FT_EXPECT_ERROR(Value::array_of_arrays({Value::u8(1)}), ErrorCode::invalid_argument, "an item has type u8");
        FT_EXPECT_ERROR(Value::u8(1).element(0), ErrorCode::invalid_argument, "not an array");
        FT_EXPECT_ERROR(tokens.element(2), ErrorCode::invalid_argument, "out of range");
        QVERIFY(!(Value::u32(1) == Value::i32(1)));
        QVERIFY(Value::f32(0.5f) == Value::f32(0.5f));
    }

    void writerRejectsMisuseAndLeavesNoPartialFile() {
        const std::string p = path("misuse.gguf");
        const std::uint64_t d[] = {32};
        {
            Writer w(p);
            w.add_tensor("x", DType::F32, d);
            w.add_tensor("y", DType::F32, d);
            FT_EXPECT_ERROR(w.add_tensor("x", DType::F32, d), ErrorCode::invalid_argument, "duplicate tensor");
            const std::uint64_t bad[] = {33};
            FT_EXPECT_ERROR(w.add_tensor("q", DType::Q4_K, bad), ErrorCode::invalid_argument, "block size");
            FT_EXPECT_ERROR(w.add_tensor("z", DType::F32, {}), ErrorCode::invalid_argument, "1 to 4 dimensions");
            FT_EXPECT_ERROR(w.set_alignment(48), ErrorCode::invalid_argument, "power of two");
            FT_EXPECT_ERROR(w.set("general.alignment", Value::u64(64)), ErrorCode::invalid_argument, "u32");
            FT_EXPECT_ERROR(w.begin_tensor("x"), ErrorCode::invalid_argument, "write_header");
            w.write_header();
            FT_EXPECT_ERROR(w.set("k", Value::u8(1)), ErrorCode::invalid_argument, "after write_header");
            FT_EXPECT_ERROR(w.begin_tensor("y"), ErrorCode::invalid_argument, "'x' is next");
            w.begin_tensor("x");
            FT_EXPECT_ERROR(w.write(random_bytes(129, 1)), ErrorCode::invalid_argument, "more than its 128");
            w.write(random_bytes(100, 1));
            FT_EXPECT_ERROR(w.end_tensor(), ErrorCode::invalid_argument, "got 100 bytes, expected 128");
            w.write(random_bytes(28, 1));
            w.end_tensor();
            FT_EXPECT_ERROR(w.finish(), ErrorCode::invalid_argument, "not written, next 'y'");
            QVERIFY(std::filesystem::exists(p + ".tmp"));
        }  // destroyed unfinished
        QVERIFY(!std::filesystem::exists(p + ".tmp"));
        QVERIFY(!std::filesystem::exists(p));
        // Writing into a missing folder is an I/O error naming the file.
        Writer w(path("no/such/dir/out.gguf"));
        FT_EXPECT_ERROR(w.write_header(), ErrorCode::io, "out.gguf.tmp: cannot create");
    }

    // SplitWriter writes gguf-split's layout (parts by tensor count and by size, the keys, the metadata in the first
    // part, each part's own alignment padding); Reader::open_model joins the parts; split names parse.
    void splitModelsWriteAndJoin() {
        std::string stem;
        int part = 0, count = 0;
        QCOMPARE(split_file_name("m", 2, 12), std::string("m-00002-of-00012.gguf"));
        QVERIFY(parse_split_file_name("Qwen3-235B-A22B-Q4_K_M-00002-of-00005.gguf", stem, part, count));
        QCOMPARE(stem, std::string("Qwen3-235B-A22B-Q4_K_M"));
        QCOMPARE(part, 2);
        QCOMPARE(count, 5);
        QVERIFY(parse_split_file_name("x-00001-of-00001.GGUF", stem, part, count));
        QVERIFY(!parse_split_file_name("-00001-of-00002.gguf", stem, part, count));  // no stem
        QVERIFY(!parse_split_file_name("m-00003-of-00002.gguf", stem, part, count));
        QVERIFY(!parse_split_file_name("m-00000-of-00002.gguf", stem, part, count));
        QVERIFY(!parse_split_file_name("m-0001-of-0002.gguf", stem, part, count));
        QVERIFY(!parse_split_file_name("m-00001-of-00002.bin", stem, part, count));

        // Seven tensors of 128 bytes (f32 [32]) and one of 512, at most 3 tensors or 400 bytes a part.
        std::map<std::string, std::vector<std::byte>> data;
        std::string problem;  // what went wrong inside write() (QVERIFY cannot return from a lambda with a value)
        auto write = [&](const std::string& out, SplitOptions o, std::uint32_t alignment) -> std::vector<std::filesystem::path> {
            SplitWriter w(out, o);
            w.metadata().set("general.architecture", Value::string("llama"));
            w.metadata().set("general.name", Value::string("split test"));
            if (alignment) w.set_alignment(alignment);
            const std::uint64_t small[] = {32}, big[] = {32, 4};
            for (int i = 0; i < 8; ++i) {
                const std::string name = "t" + std::to_string(i);
                if (w.add_tensor(name, DType::F32, i == 5 ? std::span<const std::uint64_t>(big) : std::span<const std::uint64_t>(small)) !=
                    std::uint64_t(i == 5 ? 512 : 128))
                    problem += "wrong byte size of " + name + "; ";
                data[name] = random_bytes(i == 5 ? 512 : 128, std::uint32_t(i));
            }
            const std::string dup = ft::test::error_mismatch([&] { w.add_tensor("t0", DType::F32, small); },
                                                             ErrorCode::invalid_argument, "duplicate tensor");
            if (!dup.empty()) problem += dup + "; ";
            w.write_header();
            for (int i = 0; i < 8; ++i) w.write_tensor("t" + std::to_string(i), data["t" + std::to_string(i)]);
            w.finish();
            return w.paths();
        };
        const auto by_count = write(path("bycount.gguf"), {3, 0}, 0);
        QVERIFY2(problem.empty(), problem.c_str());
        QCOMPARE(by_count.size(), std::size_t(3));
        QCOMPARE(by_count[0].filename().string(), std::string("bycount-00001-of-00003.gguf"));
        QCOMPARE(by_count[2].filename().string(), std::string("bycount-00003-of-00003.gguf"));
        QVERIFY(!std::filesystem::exists(path("bycount.gguf")));
        for (std::size_t k = 0; k < 3; ++k) {
            const Reader r = Reader::open(by_count[k]);
            QCOMPARE(r.get_u64(kSplitNoKey), std::uint64_t(k));
            QCOMPARE(r.get_u64(kSplitCountKey), std::uint64_t(3));
            QCOMPARE(r.get_i64(kSplitTensorsKey), std::int64_t(8));
            QCOMPARE(r.find("general.name") != nullptr, k == 0);
            QCOMPARE(r.tensors().size(), std::size_t(k < 2 ? 3 : 2));
        }
        const Reader joined = Reader::open_model(by_count[0]);
        QCOMPARE(joined.tensors().size(), std::size_t(8));
        QCOMPARE(joined.parts().size(), std::size_t(3));
        QCOMPARE(joined.metadata().get_string("general.name"), std::string_view("split test"));
        std::uint64_t sizes = 0;
        for (const auto& p : by_count) sizes += std::filesystem::file_size(p);
        QCOMPARE(joined.parts_size(), sizes);
        for (int i = 0; i < 8; ++i) {
            const std::string name = "t" + std::to_string(i);
            const TensorInfo& t = joined.tensor(name);
            QCOMPARE(t.part, std::uint32_t(i / 3));
            const auto got = joined.tensor_data(t);
            QVERIFY2(got.size() == data[name].size() && std::memcmp(got.data(), data[name].data(), got.size()) == 0, name.c_str());
        }
        // A plain open of the first part sees its own three tensors only.
        QCOMPARE(Reader::open(by_count[0]).tensors().size(), std::size_t(3));

        // By size (400 bytes: three small ones, then the big one alone), with a 64-byte alignment in every part.
        const auto by_size = write(path("bysize.gguf"), {0, 400}, 64);
        QCOMPARE(by_size.size(), std::size_t(4));  // t0-t2 | t3-t4 | t5 (512 > 400, alone) | t6-t7
        QCOMPARE(Reader::open(by_size[2]).tensors().size(), std::size_t(1));
        QCOMPARE(Reader::open(by_size[3]).alignment(), std::uint64_t(64));
        const Reader sized = Reader::open_model(by_size[0]);
        for (int i = 0; i < 8; ++i) {
            const std::string name = "t" + std::to_string(i);
            const auto got = sized.tensor_data(sized.tensor(name));
            QVERIFY(std::memcmp(got.data(), data[name].data(), got.size()) == 0);
        }
        // Without limits: one plain file at the path, no split keys; open_model() is open() then.
        const auto plain = write(path("plain.gguf"), {}, 0);
        QCOMPARE(plain.size(), std::size_t(1));
        QCOMPARE(plain[0].string(), path("plain.gguf"));
        const Reader p = Reader::open_model(plain[0]);
        QVERIFY(!p.find(kSplitCountKey));
        QCOMPARE(p.tensors().size(), std::size_t(8));
        QCOMPARE(p.parts().size(), std::size_t(1));
    }

    void splitModelErrorsNameThePart() {
        SplitWriter w(path("bad.gguf"), {1, 0});
        w.metadata().set("general.architecture", Value::string("llama"));
        const std::uint64_t d[] = {32};
        for (const char* n : {"a", "b", "c"}) w.add_tensor(n, DType::F32, d);
        w.write_header();
        for (const char* n : {"a", "b", "c"}) w.write_tensor(n, random_bytes(128, 3));
        w.finish();
        const auto parts = w.paths();
        QCOMPARE(parts.size(), std::size_t(3));
        // A later part: the error says which part it is and names the first.
        FT_EXPECT_ERROR(Reader::open_model(parts[1]), ErrorCode::invalid_argument, "is part 2 of 3 of a split model");
        try {
            (void)Reader::open_model(parts[2]);
        } catch (const ft::Error& e) {
            QVERIFY2(e.hint().find("bad-00001-of-00003.gguf") != std::string::npos, e.hint().c_str());
        }
        // A missing part.
        std::filesystem::rename(parts[2], path("away.gguf"));
        FT_EXPECT_ERROR(Reader::open_model(parts[0]), ErrorCode::not_found, "part 3 of 3 is missing");
        // A part of another split model in its place (its split.no says 1 of 3: the second part's file).
        std::filesystem::copy_file(parts[1], parts[2]);
        FT_EXPECT_ERROR(Reader::open_model(parts[0]), ErrorCode::invalid_file, "not part 3 of 3 of this model");
        std::filesystem::remove(parts[2]);
        std::filesystem::rename(path("away.gguf"), parts[2]);
        QCOMPARE(Reader::open_model(parts[0]).tensors().size(), std::size_t(3));
        // Renamed parts cannot be found.
        std::filesystem::copy_file(parts[0], path("renamed.gguf"));
        FT_EXPECT_ERROR(Reader::open_model(path("renamed.gguf")), ErrorCode::invalid_file, "does not follow <name>-00001-of-00003.gguf");

        // Two parts holding the same tensor; a tensor count other than split.tensors.count.
        auto part_file = [&](const std::string& out, int no, int n, std::int32_t total, std::vector<const char*> names) {
            Writer pw(out);
            if (no == 0) pw.set("general.architecture", Value::string("llama"));
            pw.set(kSplitNoKey, Value::u16(std::uint16_t(no)));
            pw.set(kSplitCountKey, Value::u16(std::uint16_t(n)));
            pw.set(kSplitTensorsKey, Value::i32(total));
            for (const char* t : names) pw.add_tensor(t, DType::F32, d);
            pw.write_header();
            for (const char* t : names) pw.write_tensor(t, random_bytes(128, 4));
            pw.finish();
        };
        part_file(path("dup-00001-of-00002.gguf"), 0, 2, 2, {"a"});
        part_file(path("dup-00002-of-00002.gguf"), 1, 2, 2, {"a"});
        FT_EXPECT_ERROR(Reader::open_model(path("dup-00001-of-00002.gguf")), ErrorCode::invalid_file,
                        "tensor 'a' is also in an earlier part");
        part_file(path("cnt-00001-of-00002.gguf"), 0, 2, 5, {"a"});
        part_file(path("cnt-00002-of-00002.gguf"), 1, 2, 5, {"b"});
        FT_EXPECT_ERROR(Reader::open_model(path("cnt-00001-of-00002.gguf")), ErrorCode::invalid_file,
                        "hold 2 tensors, split.tensors.count says 5");
        part_file(path("no-00001-of-00002.gguf"), 2, 2, 2, {"a"});
        FT_EXPECT_ERROR(Reader::open_model(path("no-00001-of-00002.gguf")), ErrorCode::invalid_file, "split.no 2 and split.count 2");
    }

    void realVocabFilesParse_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("n_tokens");
        QTest::addColumn<int>("n_merges");  // -1: the file has scores instead
        QTest::addColumn<int>("n_kv");
        // Counts from the files themselves (read with an independent script) and shared/testdata/README.md §1.
        const struct { const char* name; int tokens, merges, kv; } rows[] = {
            {"bert-bge", 30522, -1, 20},        {"deepseek-coder", 32256, 31757, 25},
            {"deepseek-llm", 102400, 99757, 23}, {"falcon", 65024, 64784, 18},
            {"gpt-2", 50257, 50000, 16},         {"gpt-neox", 50432, 50009, 17},
            {"llama-spm", 32000, -1, 22},        {"mpt", 50432, 50009, 17},
            {"phi-3", 32064, -1, 26},            {"refact", 49216, 48891, 18},
            {"starcoder", 49152, 48872, 19},
        };
        for (const auto& r : rows)
            QTest::addRow("%s", r.name) << QString("ggml-vocab-%1.gguf").arg(r.name) << r.tokens << r.merges << r.kv;
    }
    void realVocabFilesParse() {
        QFETCH(QString, file);
        QFETCH(int, n_tokens);
        QFETCH(int, n_merges);
        QFETCH(int, n_kv);
        const std::filesystem::path dir = std::filesystem::path(FT_TESTDATA_DIR) / "llama.cpp-vocab";
        if (!std::filesystem::is_directory(dir)) QSKIP("shared/testdata/llama.cpp-vocab is absent");
        const auto p = dir / file.toStdString();
        if (!std::filesystem::exists(p)) QSKIP("this vocab file is absent from shared/testdata");
        const auto t0 = std::chrono::steady_clock::now();
        const Reader r = Reader::open(p);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        QCOMPARE(r.version(), 3u);
        QCOMPARE(r.tensors().size(), 0u);
        QCOMPARE(int(r.metadata().size()), n_kv);
        const auto tokens = r.metadata().get_strings("tokenizer.ggml.tokens");
        QCOMPARE(int(tokens.size()), n_tokens);
        QCOMPARE(int(r.metadata().get_i32_array("tokenizer.ggml.token_type").size()), n_tokens);
        QVERIFY(!r.get_string("tokenizer.ggml.model").empty());
        const std::string arch(r.get_string("general.architecture"));
        if (auto vs = r.metadata().opt_u64(arch + ".vocab_size")) QCOMPARE(int(*vs), n_tokens);
        if (n_merges >= 0) {
            QCOMPARE(int(r.metadata().get_strings("tokenizer.ggml.merges").size()), n_merges);
        } else if (r.metadata().contains("tokenizer.ggml.scores")) {
            QCOMPARE(int(r.metadata().get_f32_array("tokenizer.ggml.scores").size()), n_tokens);
        }
        // Every token is a view inside the mapping (no per-token copy).
        const auto all = r.bytes();
        for (auto tok : tokens)
            QVERIFY(reinterpret_cast<const std::byte*>(tok.data()) >= all.data() &&
                    reinterpret_cast<const std::byte*>(tok.data() + tok.size()) <= all.data() + all.size());
        qInfo("%s: %d tokens parsed in %.1f ms", qPrintable(file), n_tokens, ms);

        // Copy everything into a new file with the writer and read it back identically.
        const std::string copy = path("vocab-copy.gguf");
        {
            Writer w(copy);
            for (const auto& kv : r.metadata().entries()) w.set(kv.key, kv.value);
            w.write_header();
            w.finish();
        }
        const Reader r2 = Reader::open(copy);
        QCOMPARE(r2.metadata().size(), r.metadata().size());
        for (std::size_t i = 0; i < r.metadata().size(); ++i)
            QVERIFY(r2.metadata().entries()[i].value == r.metadata().entries()[i].value);
        // The original files have no padding after the metadata; ours has none either (no tensors): identical.
        QVERIFY(ft::test::read_file(copy) == ft::test::read_file(p.string()));
    }

    void everyTruncationFails() {
        const auto file = small_valid_file();
        const Reader full = Reader::parse(file, "small.gguf");
        const TensorInfo& last = full.tensors().back();
        const std::size_t needed = full.data_offset() + last.offset + last.n_bytes;
        for (std::size_t n = 0; n < file.size(); ++n) {
            const std::span<const std::byte> prefix(file.data(), n);
            if (n >= needed) {
                Reader::parse(prefix, "cut.gguf");  // only trailing padding is missing: still valid
                continue;
            }
            const std::string mismatch = ft::test::error_mismatch([&] { Reader::parse(prefix, "cut.gguf"); },
                                                                  ErrorCode::invalid_file, "cut.gguf: ");
            QVERIFY2(mismatch.empty(), (std::to_string(n) + " bytes: " + mismatch).c_str());
            // For translating front ends: a cut in the tensor data (a download stopped early) is "file_truncated"
            // {file, its size, the whole file's size}; a cut in the header names at least the bytes it was reading
            // (or, inside a string or an array, "file_damaged" with the English detail).
            try {
                Reader::parse(prefix, "cut.gguf");
            } catch (const ft::Error& e) {
                const ft::Message& k = e.key();
                const std::string at = std::to_string(n) + " bytes: " + k.key;
                if (n == 0) {
                    QVERIFY2(k.key == "file_empty" && k.args == std::vector<std::string>{"cut.gguf"}, at.c_str());
                } else if (n >= full.data_offset()) {
                    QVERIFY2(k.key == "file_truncated", at.c_str());
                    QVERIFY2(k.args == (std::vector<std::string>{"cut.gguf", std::to_string(n), std::to_string(needed)}), at.c_str());
                } else if (k.key == "file_truncated") {
                    QVERIFY2(k.args.size() == 3 && k.args[0] == "cut.gguf" && k.args[1] == std::to_string(n), at.c_str());
                    QVERIFY2(std::stoull(k.args[2]) > n && std::stoull(k.args[2]) <= needed, at.c_str());
                } else {
                    QVERIFY2(k.key == "file_damaged" && k.args.size() == 2 && k.args[0] == "cut.gguf", at.c_str());
                }
            }
        }
    }

    void malformedInputs_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("fragment");
        auto row = [](const char* name, const Bytes& b, const char* fragment) {
            QTest::newRow(name) << QByteArray(reinterpret_cast<const char*>(b.b.data()), qsizetype(b.size()))
                                << QString::fromUtf8(fragment);
        };
        auto one_tensor = [](std::vector<std::uint64_t> dims, std::uint32_t type, std::uint64_t offset,
                             std::size_t data_bytes) {
            Bytes b;
            b.header(3, 1, 0).tensor_info("w", dims, type, offset).pad(32).zeros(data_bytes);
            return b;
        };
        row("empty", Bytes{}, "empty file");
        row("three bytes", Bytes{}.raw("GGU", 3), "truncated file: 3 bytes (magic)");
        row("wrong magic", Bytes{}.raw("GGML", 4).u32(3).u64(0).u64(0), "not a GGUF file: it starts with 'GGML'");
        row("safetensors given", Bytes{}.u64(2).raw("{}", 2), "not a GGUF file");
        row("version 1", Bytes{}.header(1, 0, 0), "GGUF version 1 is not supported (versions 2 and 3 are) (version)");
        row("version 99", Bytes{}.header(99, 0, 0), "unsupported GGUF version 99 (versions 2 and 3 are supported) (version)");
        row("big-endian", Bytes{}.raw("GGUF", 4).u32(0x03000000u).u64(0).u64(0), "big-endian GGUF file");
        row("header cut", Bytes{}.raw("GGUF", 4).u32(3).u32(0), "truncated file: 8 bytes needed at offset 8");
        row("2^60 tensors in 24 bytes", Bytes{}.header(3, 1ull << 60, 0), "tensor count 1152921504606846976 is impossible");
        row("2^60 tensors in 10 bytes", Bytes{}.raw("GGUF", 4).u32(3).u8(0).u8(0), "truncated");
        row("2^62 kvs", Bytes{}.header(3, 0, 1ull << 62), "metadata count 4611686018427387904 is impossible");
        row("key length huge", Bytes{}.header(3, 0, 1).u64(~0ull).zeros(8), "string length 18446744073709551615");
        row("empty key", Bytes{}.header(3, 0, 1).str("").u32(0).u8(1).zeros(8), "empty metadata key (metadata[0].key)");
        row("unknown value type", Bytes{}.header(3, 0, 1).str("k").u32(13).zeros(8), "unknown metadata value type id 13 (k)");
        row("duplicate key", Bytes{}.header(3, 0, 2).kv_u32("k", 1).kv_u32("k", 2), "duplicate metadata key (k)");
        row("string value past end", Bytes{}.header(3, 0, 1).str("k").u32(8).u64(1000).raw("abc", 3),
            "string length 1000 at offset 37 runs past the end");
        row("array count huge", Bytes{}.header(3, 0, 1).str("k").u32(9).u32(5).u64(1ull << 61).zeros(16),
            "array of 2305843009213693952 i32 values runs past the end");
        row("string array count huge", Bytes{}.header(3, 0, 1).str("k").u32(9).u32(8).u64(1ull << 40).zeros(16),
            "array of 1099511627776 strings cannot fit");
        row("array of arrays count huge", Bytes{}.header(3, 0, 1).str("k").u32(9).u32(9).u64(1ull << 40).zeros(16),
            "array of 1099511627776 arrays cannot fit");
        row("array element type unknown", Bytes{}.header(3, 0, 1).str("k").u32(9).u32(77).u64(1).zeros(16),
            "unknown metadata value type id 77");
        {
            Bytes b;
            b.header(3, 0, 1).str("k").u32(9);
            for (int i = 0; i < 12; ++i) b.u32(9).u64(1);
            b.u32(4).u64(0);
            row("arrays nested too deep", b, "arrays nested deeper than 8 levels (k)");
        }
        row("alignment not power of two", Bytes{}.header(3, 0, 1).kv_u32("general.alignment", 48),
            "alignment 48 is not a power of two (general.alignment)");
        row("alignment zero", Bytes{}.header(3, 0, 1).kv_u32("general.alignment", 0), "alignment 0 is not a power of two");
        row("alignment wrong type", Bytes{}.header(3, 0, 1).str("general.alignment").u32(10).u64(32),
            "value has type u64, expected u32 (general.alignment)");
        row("alignment string", Bytes{}.header(3, 0, 1).kv_str("general.alignment", "32"),
            "value has type string, expected u32 (general.alignment)");
        row("n_dims 5", one_tensor({1, 1, 1, 1, 1}, 0, 0, 32), "n_dims 5 is not in 1..4 (tensor 'w'.n_dims)");
        row("n_dims 0", one_tensor({}, 0, 0, 32), "n_dims 0 is not in 1..4");
        row("dims product overflow", one_tensor({1ull << 32, 1ull << 32, 2}, 0, 0, 32),
            "the product of the dimensions overflows 64 bits (tensor 'w'.dims)");
        row("dim over int64", one_tensor({1ull << 63}, 0, 0, 32), "is too large (tensor 'w'.dims)");
        row("byte size overflow", one_tensor({1ull << 62, 2}, 0, 0, 32), "byte size overflows");
        row("unknown tensor type", one_tensor({32}, 77, 0, 128), "unknown tensor type id 77 (tensor 'w'.type)");
        row("removed type Q4_2", one_tensor({32}, 4, 0, 128), "unknown tensor type id 4");
        row("row not whole blocks", one_tensor({33}, 8, 0, 128), "row length 33 is not a multiple of the q8_0 block size 32");
        // The K-quant and IQ super-blocks (256 elements): a row of 128 is not a whole block; a block cut short.
        row("q2_K row not whole blocks", one_tensor({128}, 10, 0, 256), "row length 128 is not a multiple of the q2_K block size 256 (tensor 'w'.dims)");
        row("iq2_xxs row not whole blocks", one_tensor({300, 2}, 16, 0, 256), "row length 300 is not a multiple of the iq2_xxs block size 256");
        row("iq4_nl row not whole blocks", one_tensor({48}, 20, 0, 64), "row length 48 is not a multiple of the iq4_nl block size 32");
        row("iq1_m block truncated", one_tensor({256}, 29, 0, 32), "tensor data [0, +56) runs past the end of the file (data section is 32 bytes) (tensor 'w'.offset)");
        row("q3_K block truncated", one_tensor({256, 2}, 11, 0, 192), "tensor data [0, +220) runs past the end of the file");
        row("unknown type between TQ2_0 and MXFP4", one_tensor({256}, 36, 0, 256), "unknown tensor type id 36 (tensor 'w'.type)");
        row("offset past end", one_tensor({32}, 0, 1024, 128), "runs past the end of the file (data section is 128 bytes) (tensor 'w'.offset)");
        row("data truncated", one_tensor({32}, 0, 0, 100), "runs past the end of the file");
        row("offset overflow", one_tensor({32}, 0, ~0ull << 5, 128), "runs past the end");
        row("misaligned offset", one_tensor({32}, 0, 16, 256), "offset 16 is not a multiple of the alignment 32");
        row("empty tensor name", Bytes{}.header(3, 1, 0).tensor_info("", {32}, 0, 0).pad(32).zeros(128),
            "empty tensor name (tensor[0].name)");
        row("duplicate tensor", Bytes{}.header(3, 2, 0).tensor_info("w", {8}, 0, 0).tensor_info("w", {8}, 0, 32).pad(32).zeros(64),
            "duplicate tensor name (tensor 'w')");
        row("overlapping tensors", Bytes{}.header(3, 2, 0).tensor_info("a", {32}, 0, 0).tensor_info("b", {32}, 0, 64).pad(32).zeros(256),
            "tensors 'a' and 'b' overlap");
        row("data section past end", Bytes{}.header(3, 1, 0).tensor_info("w", {0}, 0, 0),
            "data section would start at");
        row("alignment 64 misaligned offset",
            Bytes{}.header(3, 1, 1).kv_u32("general.alignment", 64).tensor_info("w", {8}, 0, 32).pad(64).zeros(128),
            "offset 32 is not a multiple of the alignment 64");
    }
    void malformedInputs() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, fragment);
        const std::span<const std::byte> s(reinterpret_cast<const std::byte*>(bytes.constData()), std::size_t(bytes.size()));
        const auto t0 = std::chrono::steady_clock::now();
        FT_EXPECT_ERROR(Reader::parse(s, "bad.gguf"), ErrorCode::invalid_file, fragment.toStdString());
        FT_EXPECT_ERROR(Reader::parse(s, "bad.gguf"), ErrorCode::invalid_file, "bad.gguf: ");
        QVERIFY(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(1));
        // The same through a real file and its mapping.
        const std::string p = path("bad.gguf");
        ft::test::write_file(p, s);
        FT_EXPECT_ERROR(Reader::open(p), ErrorCode::invalid_file, fragment.toStdString());
    }

    void validEdgeCases() {
        // Zero-size tensors may share an offset; v2 files read like v3; a vocab-only file needs no padding.
        Bytes b;
        b.header(2, 3, 1).kv_u32("general.alignment", 16).tensor_info("z1", {0, 4}, 0, 0).tensor_info("z2", {0}, 1, 0)
            .tensor_info("w", {4}, 0, 0).pad(16).f32(1).f32(2).f32(3).f32(4);
        const Reader r = Reader::parse(b.span(), "edge.gguf");
        QCOMPARE(r.version(), 2u);
        QCOMPARE(r.alignment(), 16u);
        QCOMPARE(r.tensor("z1").n_bytes, 0u);
        QCOMPARE(r.tensor("w").n_elements, 4u);
        float v[4];
        std::memcpy(v, r.tensor_data(r.tensor("w")).data(), 16);
        QCOMPARE(v[3], 4.0f);
        const Reader empty = Reader::parse(Bytes{}.header(3, 0, 0).span(), "empty.gguf");
        QCOMPARE(empty.tensors().size(), 0u);
        FT_EXPECT_ERROR(Reader::open(path("missing.gguf")), ErrorCode::not_found, "missing.gguf: no such file");
        FT_EXPECT_ERROR(Reader::open(tmp_.path().toStdString()), ErrorCode::io, "not a regular file");
    }
};

FT_TEST_MAIN(TestGguf)
#include "test_gguf.moc"
