// Every GGUF block type llama.cpp's llama-quantize writes, read from real files (shared/testdata/quants, one per
// recipe): rows 0, 1 and the last row of every tensor, dequantized by kernels/ref and by the CPU kernels' decoder,
// must equal gguf-py's dequantization (q-RECIPE.rows.json) bit for bit.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <vector>

#include "cpu/matmul.h"
#include "format/gguf.h"
#include "model/model_inspect.h"
#include "ft_test.h"
#include "ref/quant.h"

using namespace ft::gguf;
using ft::kernels::DType;

namespace {

std::filesystem::path quants_dir() { return std::filesystem::path(FT_TESTDATA_DIR) / "quants"; }

std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }

}  // namespace

class TestQuantFiles : public QObject {
    Q_OBJECT
private slots:
    void rows_match_gguf_py_data() {
        QTest::addColumn<QString>("recipe");
        if (!std::filesystem::is_directory(quants_dir())) {
            QTest::newRow("absent") << QString();
            return;
        }
        std::vector<std::string> names;
        for (const auto& e : std::filesystem::directory_iterator(quants_dir())) {
            const std::string f = e.path().filename().string();
            if (f.starts_with("q-") && f.ends_with(".gguf")) names.push_back(f.substr(2, f.size() - 7));
        }
        std::sort(names.begin(), names.end());
        for (const auto& n : names) QTest::newRow(n.c_str()) << QString::fromStdString(n);
    }
    void rows_match_gguf_py() {
        QFETCH(QString, recipe);
        if (recipe.isEmpty()) QSKIP("shared/testdata/quants is absent");
        const auto base = quants_dir() / ("q-" + recipe.toStdString());
        QFile jf(QString::fromStdString(base.string() + ".rows.json"));
        QVERIFY2(jf.open(QIODevice::ReadOnly), "rows.json missing beside the .gguf");
        // Qt's JSON reader drops the sign of -0.0, which the comparison is bit for bit about: keep it as a string.
        QByteArray raw = jf.readAll();
        raw.replace("-0.0,", "\"-0\",").replace("-0.0]", "\"-0\"]");
        const QJsonObject tensors = QJsonDocument::fromJson(raw).object().value("tensors").toObject();
        QVERIFY(!tensors.isEmpty());
        const Reader r = Reader::open(base.string() + ".gguf");
        std::map<std::string, int> rows_per_type;
        for (auto it = tensors.begin(); it != tensors.end(); ++it) {
            const std::string name = it.key().toStdString();
            const TensorInfo* t = r.find_tensor(name);
            QVERIFY2(t, ("tensor " + name + " missing from the .gguf").c_str());
            const std::string tname(ft::kernels::dtype_info(t->type).name);
            QVERIFY2(ft::kernels::ref::dequant_supported(t->type), (name + ": type " + tname + " not supported").c_str());
            QVERIFY2(ft::kernels::cpu::matmul_supported(t->type), (name + ": " + tname).c_str());
            const std::int64_t cols = std::int64_t(t->dims[0]);
            const std::uint64_t row_bytes = *ft::kernels::dtype_bytes(t->type, std::uint64_t(cols));
            const std::uint64_t n_rows = t->n_elements / std::uint64_t(cols);
            const auto data = r.tensor_data(*t);
            const QJsonObject rows = it.value().toObject().value("rows").toObject();
            QVERIFY(!rows.isEmpty());
            for (auto rit = rows.begin(); rit != rows.end(); ++rit) {
                const std::uint64_t row = rit.key().toULongLong();
                QVERIFY(row < n_rows);
                const QJsonArray want = rit.value().toArray();
                QCOMPARE(want.size(), qsizetype(cols));
                std::vector<float> got(std::size_t(cols), -1.f), simd(std::size_t(cols), -1.f);
                const std::byte* src = data.data() + row * row_bytes;
                QVERIFY(ft::kernels::ref::dequantize_row(t->type, src, got.data(), cols));
                ft::kernels::cpu::dequantize_row(t->type, src, simd.data(), cols);
                for (std::int64_t c = 0; c < cols; ++c) {
                    const float w = want[c].isString() ? -0.f : static_cast<float>(want[c].toDouble());
                    if (bits(got[std::size_t(c)]) != bits(w) || bits(simd[std::size_t(c)]) != bits(w)) {
                        QFAIL(qPrintable(QString("%1 (%2) row %3 col %4: ref %5, cpu %6, gguf-py %7 (f32 bits)")
                                             .arg(it.key(), QString::fromStdString(tname)).arg(row).arg(c)
                                             .arg(bits(got[std::size_t(c)]), 8, 16, QChar('0'))
                                             .arg(bits(simd[std::size_t(c)]), 8, 16, QChar('0'))
                                             .arg(bits(w), 8, 16, QChar('0'))));
                    }
                }
                ++rows_per_type[tname];
            }
        }
        QString summary;
        for (const auto& [t, n] : rows_per_type) summary += QString("%1: %2 rows  ").arg(QString::fromStdString(t)).arg(n);
        qInfo().noquote() << recipe << summary;
    }

    // ft inspect's "types" summary: every block type of every file with its layout's bits per weight (the published
    // figures of each format) and the bytes of its tensors.
    void inspectReportsBitsPerWeight() {
        if (!std::filesystem::is_directory(quants_dir())) QSKIP("shared/testdata/quants is absent");
        const std::map<std::string, double> bpw = {
            {"f32", 32},      {"q8_0", 8.5},     {"q6_K", 6.5625},  {"q5_K", 5.5},    {"q4_K", 4.5},     {"q4_0", 4.5},
            {"q4_1", 5},      {"q5_0", 5.5},     {"q5_1", 6},       {"q3_K", 3.4375}, {"q2_K", 2.625},   {"iq4_nl", 4.5},
            {"iq4_xs", 4.25}, {"iq3_s", 3.4375}, {"iq3_xxs", 3.0625}, {"iq2_s", 2.5625}, {"iq2_xs", 2.3125},
            {"iq2_xxs", 2.0625}, {"iq1_m", 1.75}, {"iq1_s", 1.5625}, {"tq1_0", 1.6875}, {"tq2_0", 2.0625}, {"mxfp4", 4.25},
            {"bf16", 16}};
        std::set<std::string> seen;
        for (const auto& e : std::filesystem::directory_iterator(quants_dir())) {
            if (e.path().extension() != ".gguf") continue;
            const auto j = ft::model::inspect_path(e.path());
            QVERIFY2(j.contains("types"), e.path().filename().string().c_str());
            std::uint64_t tensor_bytes = 0, type_bytes = 0;
            for (const auto& t : j["tensors"]) tensor_bytes += t["bytes"].get<std::uint64_t>();
            for (const auto& [name, t] : j["types"].items()) {
                QVERIFY2(bpw.count(name), name.c_str());
                QCOMPARE(t["bits_per_weight"].get<double>(), bpw.at(name));
                QCOMPARE(double(t["bytes"].get<std::uint64_t>()) * 8, bpw.at(name) * double(t["elements"].get<std::uint64_t>()));
                type_bytes += t["bytes"].get<std::uint64_t>();
                seen.insert(name);
            }
            QCOMPARE(type_bytes, tensor_bytes);
            const auto text = ft::model::inspect_text(j);
            QVERIFY(text.find("bits/weight") != std::string::npos);
        }
        QCOMPARE(seen.size(), bpw.size());  // every type above occurs in some file
    }
};

QTEST_GUILESS_MAIN(TestQuantFiles)
#include "test_quant_files.moc"
