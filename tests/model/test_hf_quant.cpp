// Quantized Hugging Face checkpoints (format/hf_quant.h): FP8 with 128 x 128 block scales, ModelOpt NVFP4 and
// compressed-tensors' nvfp4-pack-quantized, made from tests/data/qwen3-moe-tiny (and deepseek-v3-tiny) by
// scripts/golden/make_hf_quant_fixture.py (numpy, our own encoders) into a temporary folder at the start of the test.
//   - the engine's rows (FT_FP8 / FT_NVFP4, ref and CPU decoders) equal numpy's decoding of the stored format bit for
//     bit, for every quantized tensor (the fixture's down projections have 64 columns: a partial 128-block);
//   - ft's CPU logits on the quantized checkpoint stay near transformers' golden logits of the BF16 model (bounds
//     from the measured error, see kFp8/kNvfp4), and a checkpoint with its scales inverted fails those bounds;
//     compressed-tensors' input_global_scale (672, not 1) leaves them equal to the F32-decoded twin's: not used;
//   - `ft convert` writes the same rows to GGUF (ft_fp8 / ft_nvfp4) and the GGUF gives the same logits bit for bit,
//     DeepSeek-V3's quantized kv_b_proj included (split in F32);
//   - inspect counts them at the engine type's size and bits per weight;
//   - bad scales and row lengths the types cannot hold are clear errors naming the tensor, with message keys.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cpu/matmul.h"
#include "cpu/matmul_int8.h"
#include "format/gguf.h"
#include "format/hf_quant.h"
#include "format/safetensors.h"
#include "ft/engine.h"
#include "ft/error.h"
#include "ft/utf8.h"
#include "ft_test.h"
#include "golden_fixture.h"
#include "model/convert_hf.h"
#include "model/model_inspect.h"
#include "ref/quant.h"

namespace {

// The BF16 sources: tests/data, or the folder FT_HF_QUANT_DATA names (holding copies of qwen3-moe-tiny and
// deepseek-v3-tiny, e.g. while the tree's are moved away).
const QString kData = qEnvironmentVariableIsEmpty("FT_HF_QUANT_DATA") ? QStringLiteral(FT_SOURCE_DIR "/tests/data")
                                                                     : qEnvironmentVariable("FT_HF_QUANT_DATA");
const QString kBf16 = kData + "/qwen3-moe-tiny";
const QString kDeepSeek = kData + "/deepseek-v3-tiny";
const QString kMaker = QStringLiteral(FT_SOURCE_DIR "/scripts/golden/make_hf_quant_fixture.py");
const QString kPython = QStringLiteral("/usr/bin/python3");

// Bounds on ft's logits against transformers' logits of the BF16 model, over its 156 positions: the smallest cosine
// and the top-1 agreement. The engine's own arithmetic is checked exactly by logitsEqualDequantized; what remains
// here is the formats' rounding (weight NMSE 7.0e-4 for FP8, 9.0e-3 for NVFP4), which this random 4-layer MoE
// amplifies where router scores are near-tied (a flipped expert moves that position's logits; the golden suite's
// Q8_0 check has the same cause and form). Measured: FP8 min cosine 0.948, top-1 141/156; NVFP4 0.911, 102/156.
// The bounds sit below those by a margin for other CPUs' summation order, far above a broken scale (non-finite
// logits, or cosines near 0, top-1 near 0).
struct Bound {
    double min_cos;
    int min_top1;
};
constexpr Bound kFp8{0.90, 130};
constexpr Bound kNvfp4{0.85, 90};
// FT_NVFP4's int8 path against its f32 kernels (nvfp4Int8PathNearF32): measured min cosine 0.999999, top-1 156/156,
// max |diff| 0.017 (AVX512-VNNI, dev machine); a wrong scale or code order in the kernel moves whole rows.
constexpr double kInt8MinCos = 0.9999;
constexpr int kInt8MinTop1 = 150;

// The CPU's int8 dot-product path off (FT_NVFP4 takes it by default: x rounded to int8) while a test compares exact
// logits; restored when the scope ends.
struct HighwayOnly {
    HighwayOnly() { ft::kernels::cpu::set_int8_dot_for_test(ft::kernels::cpu::Int8Dot::none); }
    ~HighwayOnly() { ft::kernels::cpu::reset_int8_dot_for_test(); }
};

std::vector<std::vector<std::int32_t>> golden_seqs(const QString& dir = kBf16) {
    QFile f(dir + "/golden.json");
    if (!f.open(QIODevice::ReadOnly)) qFatal("cannot open golden.json");
    std::vector<std::vector<std::int32_t>> seqs;
    for (const auto& s : QJsonDocument::fromJson(f.readAll()).object()["sequences"].toArray())
        seqs.push_back(ft::test::ints(s.toArray()));
    return seqs;
}

std::vector<float> cpu_logits(const std::filesystem::path& model, const std::vector<std::vector<std::int32_t>>& seqs) {
    ft::LoadOptions o;
    o.model = model;
    o.device = ft::Device::cpu;
    o.n_ctx = 512;
    o.max_sequences = 1;
    ft::Engine e;
    e.load_sync(o);
    return ft::test::engine_logits(e, seqs);
}

// A one-file checkpoint of the given tensors (name → dtype, shape, bytes) with a config.json.
void write_checkpoint(const std::filesystem::path& dir,
                      const std::vector<std::tuple<std::string, std::string, std::vector<std::uint64_t>, std::vector<std::uint8_t>>>& ts,
                      const std::string& config = "{}") {
    std::filesystem::create_directories(dir);
    nlohmann::json h = nlohmann::json::object();
    std::uint64_t off = 0;
    for (const auto& [name, dtype, shape, bytes] : ts) {
        h[name] = {{"dtype", dtype}, {"shape", shape}, {"data_offsets", {off, off + bytes.size()}}};
        off += bytes.size();
    }
    const std::string text = h.dump();
    std::ofstream out(dir / "model.safetensors", std::ios::binary);
    const std::uint64_t n = text.size();
    out.write(reinterpret_cast<const char*>(&n), 8);
    out.write(text.data(), std::streamsize(n));
    for (const auto& t : ts) out.write(reinterpret_cast<const char*>(std::get<3>(t).data()), std::streamsize(std::get<3>(t).size()));
    std::ofstream(dir / "config.json") << config;
}

std::vector<std::uint8_t> f32_bytes(std::vector<float> v) {
    std::vector<std::uint8_t> b(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
}

}  // namespace

class TestHfQuant : public QObject {
    Q_OBJECT
    QTemporaryDir tmp;
    std::vector<std::vector<std::int32_t>> seqs;
    std::vector<float> golden;
    int vocab = 0;

    std::filesystem::path dir(const char* name) const { return std::filesystem::path(tmp.path().toStdString()) / name; }

    void make(const char* name, const char* fmt, bool invert, const char* block = nullptr, const QString& src = kBf16,
              const QStringList& extra = {}) {
        QStringList args{kMaker, src, QString::fromStdString(dir(name).string()), fmt};
        args << extra;
        if (block) args << "--block" << block;
        if (invert) args << "--invert-scale";
        else args << "--dequantized" << QString::fromStdString(dir(name).string() + "_deq");
        QProcess p;
        p.start(kPython, args);
        QVERIFY(p.waitForFinished(120000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    }

    // Every quantized tensor's rows through the engine's types against numpy's decoding, bit for bit.
    void check_rows(const char* name, ft::kernels::DType want_type) {
        const auto d = dir(name);
        const auto ck = ft::safetensors::Checkpoint::open(d);
        const auto qc = ft::safetensors::read_quant_config(d);
        std::ifstream jf(d / "decoded.json");
        const auto list = nlohmann::json::parse(jf);
        QFile bin(QString::fromStdString((d / "decoded.f32").string()));
        QVERIFY(bin.open(QIODevice::ReadOnly));
        const QByteArray all = bin.readAll();
        QVERIFY(list.size() >= 4 * (4 + 3 * 16));  // q, k, v, o and 16 experts' three projections per layer
        std::size_t off = 0, partial = 0, multi = 0, mismatched = 0;
        for (const auto& t : list) {
            const auto q = ft::safetensors::find_quantized(ck, t["name"].get<std::string>(), qc);
            QVERIFY2(q, t["name"].get<std::string>().c_str());
            QCOMPARE(q->type, want_type);
            const std::uint64_t rows = q->rows(), cols = q->cols();
            QCOMPARE(std::vector<std::uint64_t>({rows, cols}), t["shape"].get<std::vector<std::uint64_t>>());
            if (want_type == ft::kernels::DType::FT_FP8) {
                partial += cols % qc.fp8_block_cols != 0 || rows % qc.fp8_block_rows != 0;
                multi += q->scale->info->n_elements > 1;
            }
            const std::size_t rb = *ft::kernels::dtype_bytes(q->type, cols);
            std::vector<std::byte> packed(rb * rows);
            ft::safetensors::repack_rows(*q, 0, rows, packed.data());
            std::vector<float> ref(cols), cpu(cols);
            for (std::uint64_t r = 0; r < rows; ++r, off += cols * 4) {
                QVERIFY(ft::kernels::ref::dequantize_row(q->type, packed.data() + r * rb, ref.data(), std::int64_t(cols)));
                ft::kernels::cpu::dequantize_row(q->type, packed.data() + r * rb, cpu.data(), std::int64_t(cols));
                QVERIFY(off + cols * 4 <= std::size_t(all.size()));
                mismatched += std::memcmp(ref.data(), all.constData() + off, cols * 4) != 0;
                mismatched += std::memcmp(cpu.data(), all.constData() + off, cols * 4) != 0;
            }
        }
        QCOMPARE(off, std::size_t(all.size()));
        QCOMPARE(mismatched, std::size_t(0));
        if (want_type == ft::kernels::DType::FT_FP8) QVERIFY(partial > 0);  // 128 x 128: the down projections' 64 columns
        if (std::string(name) == "fp8_b48x96") QCOMPARE(multi, list.size());    // every matrix: several blocks
    }

    // ft's logits of `model` against `want` (positions × vocab); non-finite logits counted apart (compare's cosine
    // would pass NaN through std::min).
    struct Result {
        ft::test::Agreement a;
        std::size_t non_finite = 0;
    };
    Result agreement(const std::filesystem::path& model, const std::vector<float>& want) {
        const auto got = cpu_logits(model, seqs);
        if (got.size() != want.size()) qFatal("logits of %zu values, expected %zu", got.size(), want.size());
        Result r;
        for (float x : got) r.non_finite += !std::isfinite(x);
        r.a = ft::test::compare(got.data(), want.data(), int(got.size() / std::size_t(vocab)), vocab);
        return r;
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp.isValid());
        if (!QFile::exists(kBf16 + "/model.safetensors"))
            QFAIL(qPrintable(kBf16 + "/model.safetensors is absent (unpacked from model.safetensors.xz at configure time)"));
        QProcess probe;
        probe.start(kPython, {"-c", "import numpy"});
        if (!probe.waitForFinished(30000) || probe.exitCode() != 0)
            QSKIP("skipped: /usr/bin/python3 with numpy is needed to make the quantized fixtures");
        make("fp8", "fp8", false);
        make("nvfp4", "nvfp4", false);
        make("fp8_inv", "fp8", true);
        make("fp8_b48x96", "fp8", false, "48,96");
        make("ds_fp8", "fp8", false, nullptr, kDeepSeek);
        make("ds_nvfp4", "nvfp4", false, nullptr, kDeepSeek);
        make("nvfp4_inv", "nvfp4", true);
        make("nvfp4_ct", "nvfp4-ct", false);
        make("nvfp4_ct_lm", "nvfp4-ct", false, nullptr, kBf16, {"--language-model"});
        seqs = golden_seqs();
        golden = ft::test::read_floats(kBf16 + "/logits.bin");
        QFile f(kBf16 + "/golden.json");
        QVERIFY(f.open(QIODevice::ReadOnly));
        vocab = QJsonDocument::fromJson(f.readAll()).object()["vocab_size"].toInt();
        QVERIFY(vocab > 0);
    }

    void e4m3Values() {
        using ft::kernels::ref::e4m3_to_f32;
        QCOMPARE(e4m3_to_f32(0x00), 0.f);
        QCOMPARE(e4m3_to_f32(0x01), std::ldexp(1.f, -9));   // smallest subnormal
        QCOMPARE(e4m3_to_f32(0x07), 7 * std::ldexp(1.f, -9));
        QCOMPARE(e4m3_to_f32(0x08), std::ldexp(1.f, -6));   // smallest normal
        QCOMPARE(e4m3_to_f32(0x38), 1.f);
        QCOMPARE(e4m3_to_f32(0xB8), -1.f);
        QCOMPARE(e4m3_to_f32(0x7E), 448.f);
        QCOMPARE(e4m3_to_f32(0x77), 240.f);                // exponent 14, mantissa 7
        QVERIFY(std::isnan(e4m3_to_f32(0x7F)) && std::isnan(e4m3_to_f32(0xFF)));
        QCOMPARE(ft::kernels::dtype_bits_per_weight(ft::kernels::DType::FT_FP8), 9.0);
        QCOMPARE(ft::kernels::dtype_bits_per_weight(ft::kernels::DType::FT_NVFP4), 5.0);
    }

    // The engine's own quantizers (ft synth writes ft_fp8 / ft_nvfp4 benchmark files with them): values on the grid
    // come back exactly; Gaussian rows within the formats' error (measured NMSE: see the qInfo lines).
    void quantizers() {
        using ft::kernels::DType;
        std::uint64_t state = 12345;
        auto gauss = [&] {
            double u1 = 0, u2 = 0;
            for (double* u : {&u1, &u2}) {
                state = state * 6364136223846793005ull + 1442695040888963407ull;
                *u = double((state >> 11) + 1) / double(1ull << 53);
            }
            return float(std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2));
        };
        std::vector<float> x(64 * 256);
        for (float& v : x) v = gauss();
        for (const DType t : {DType::FT_FP8, DType::FT_NVFP4}) {
            std::vector<std::byte> q(*ft::kernels::dtype_bytes(t, x.size()));
            std::vector<float> y(x.size());
            QVERIFY(ft::kernels::ref::quantize_row(t, x.data(), q.data(), std::int64_t(x.size())));
            QVERIFY(ft::kernels::ref::dequantize_row(t, q.data(), y.data(), std::int64_t(x.size())));
            double num = 0, den = 0;
            for (std::size_t i = 0; i < x.size(); ++i) num += double(y[i] - x[i]) * (y[i] - x[i]), den += double(x[i]) * x[i];
            qInfo("%s: Gaussian NMSE %.3e", ft::kernels::dtype_info(t).name.data(), num / den);
            QVERIFY(num / den < (t == DType::FT_FP8 ? 1.0e-3 : 1.3e-2));
        }
        // Every finite E4M3 value times a block scale of 1: a block's largest value is 448 (or the grid's own), so the
        // scale is exact and each value returns as it was.
        std::vector<float> on(32 * 8);
        for (int b = 0; b < 8; ++b) {
            on[std::size_t(32 * b)] = 448.f;
            for (int j = 1; j < 32; ++j) on[std::size_t(32 * b + j)] = ft::kernels::ref::e4m3_to_f32(std::uint8_t((b * 31 + j) % 126 | (j & 1) << 7));
        }
        std::vector<std::byte> q(*ft::kernels::dtype_bytes(DType::FT_FP8, on.size()));
        std::vector<float> back(on.size());
        QVERIFY(ft::kernels::ref::quantize_row(DType::FT_FP8, on.data(), q.data(), std::int64_t(on.size())));
        QVERIFY(ft::kernels::ref::dequantize_row(DType::FT_FP8, q.data(), back.data(), std::int64_t(on.size())));
        QCOMPARE(back, on);
    }

    // The CPU decoders (SIMD) against the reference on random blocks: every code, NaN codes included, random scales.
    void cpuDecodersMatchReference() {
        using ft::kernels::DType;
        std::uint64_t state = 99;
        auto next = [&] {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            return std::uint8_t(state >> 56);
        };
        for (const DType t : {DType::FT_FP8, DType::FT_NVFP4}) {
            const std::int64_t n = 64 * 40;
            std::vector<std::uint8_t> q(*ft::kernels::dtype_bytes(t, n));
            for (auto& b : q) b = next();
            const std::size_t bb = ft::kernels::dtype_info(t).block_bytes;
            for (std::size_t i = 0; i < q.size(); i += bb) {  // finite f32 scales of any magnitude below 2^100
                const float d = std::ldexp(float(next() + 1) / 256.f, int(next() % 200) - 100) * (next() & 1 ? -1.f : 1.f);
                std::memcpy(q.data() + i, &d, 4);
            }
            std::vector<float> a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n));
            QVERIFY(ft::kernels::ref::dequantize_row(t, q.data(), a.data(), n));
            ft::kernels::cpu::dequantize_row(t, q.data(), b.data(), n);
            std::size_t nan = 0, differ = 0;
            for (std::size_t i = 0; i < a.size(); ++i) {
                if (std::isnan(a[i]) || std::isnan(b[i])) {
                    nan += std::isnan(a[i]);
                    differ += std::isnan(a[i]) != std::isnan(b[i]);
                } else {
                    differ += std::memcmp(&a[i], &b[i], 4) != 0;
                }
            }
            QCOMPARE(differ, std::size_t(0));
            if (t == DType::FT_FP8) QVERIFY(nan > 0);  // the NaN codes were drawn
        }
    }

    void rowsMatchNumpy() {
        check_rows("fp8", ft::kernels::DType::FT_FP8);
        check_rows("fp8_b48x96", ft::kernels::DType::FT_FP8);
        check_rows("nvfp4", ft::kernels::DType::FT_NVFP4);
        check_rows("nvfp4_ct", ft::kernels::DType::FT_NVFP4);
    }

    // The engine on the quantized folder against the same model with the weights numpy decoded, stored as F32: the
    // same values multiplied the same way (f32 kernels: the int8 path of FT_NVFP4 off), so the logits agree to f32
    // rounding (measured: identical).
    void logitsEqualDequantized() {
        const HighwayOnly f32_kernels;
        for (const char* name : {"fp8", "nvfp4", "fp8_b48x96", "nvfp4_ct"}) {
            const auto want = cpu_logits(dir(name).string() + "_deq", seqs);
            const auto r = agreement(dir(name), want);
            qInfo("%s vs its F32 decoding: min cosine %.9f, top-1 %d/%d, max |diff| %.3g", name, r.a.min_cos,
                  r.a.top1_same, r.a.positions, r.a.max_abs);
            QCOMPARE(r.non_finite, std::size_t(0));
            QVERIFY(r.a.min_cos >= 0.999999);
            QCOMPARE(r.a.top1_same, r.a.positions);
        }
    }

    // DeepSeek-V3's latent attention from quantized kv_b_proj (dequantized to f32, then split into attn_k_b/v_b)
    // and quantized q_a/kv_a/o projections, dense and expert FFNs: the same logits as the F32-decoded twin.
    void deepseekEqualsDequantized() {
        const HighwayOnly f32_kernels;
        const auto ds_seqs = golden_seqs(kDeepSeek);
        for (const char* name : {"ds_fp8", "ds_nvfp4"}) {
            const auto got = cpu_logits(dir(name), ds_seqs), want = cpu_logits(dir(name).string() + "_deq", ds_seqs);
            QCOMPARE(got.size(), want.size());
            QVERIFY(!got.empty());
            std::size_t differ = 0;
            for (std::size_t i = 0; i < got.size(); ++i) differ += !(got[i] == want[i]);
            qInfo("%s: %zu of %zu logits differ from the F32-decoded twin", name, differ, got.size());
            QCOMPARE(differ, std::size_t(0));
        }
    }

    // FT_NVFP4's int8 dot-product path (the default where the CPU has VNNI) against its f32 kernels on the same
    // checkpoints: x rounded to int8 per 32 is the only difference.
    void nvfp4Int8PathNearF32() {
        if (ft::kernels::cpu::int8_dot_selected() == ft::kernels::cpu::Int8Dot::none)
            QSKIP("skipped: this CPU has no int8 dot-product path");
        QVERIFY(ft::kernels::cpu::int8_dot_by_default(ft::kernels::DType::FT_NVFP4));
        for (const char* name : {"nvfp4", "nvfp4_ct"}) {
            std::vector<float> f32;
            {
                const HighwayOnly f32_kernels;
                f32 = cpu_logits(dir(name), seqs);
            }
            const auto r = agreement(dir(name), f32);
            qInfo("%s, int8 path vs f32 kernels: min cosine %.6f, top-1 %d/%d, max |diff| %.4f", name, r.a.min_cos,
                  r.a.top1_same, r.a.positions, r.a.max_abs);
            QCOMPARE(r.non_finite, std::size_t(0));
            QVERIFY(r.a.max_abs > 0);  // the int8 path ran
            QVERIFY(r.a.min_cos >= kInt8MinCos && r.a.top1_same >= kInt8MinTop1);
        }
    }

    void logitsNearGolden_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<double>("min_cos");
        QTest::addColumn<int>("min_top1");
        QTest::addColumn<bool>("wrong");
        QTest::newRow("fp8") << "fp8" << kFp8.min_cos << kFp8.min_top1 << false;
        QTest::newRow("nvfp4") << "nvfp4" << kNvfp4.min_cos << kNvfp4.min_top1 << false;
        QTest::newRow("nvfp4 compressed-tensors") << "nvfp4_ct" << kNvfp4.min_cos << kNvfp4.min_top1 << false;
        QTest::newRow("fp8 scales inverted") << "fp8_inv" << kFp8.min_cos << kFp8.min_top1 << true;
        QTest::newRow("nvfp4 scales inverted") << "nvfp4_inv" << kNvfp4.min_cos << kNvfp4.min_top1 << true;
    }
    void logitsNearGolden() {
        QFETCH(QString, name);
        QFETCH(double, min_cos);
        QFETCH(int, min_top1);
        QFETCH(bool, wrong);
        const auto r = agreement(dir(name.toUtf8().constData()), golden);
        qInfo("%s vs transformers' BF16 logits: min cosine %.6f, top-1 %d/%d, max |diff| %.4f, %zu non-finite",
              qPrintable(name), r.a.min_cos, r.a.top1_same, r.a.positions, r.a.max_abs, r.non_finite);
        const bool within = r.non_finite == 0 && r.a.min_cos >= min_cos && r.a.top1_same >= min_top1;
        QCOMPARE(within, !wrong);
    }

    // ft convert writes the rows as they load (ft_fp8 / ft_nvfp4); the GGUF's logits equal the folder's.
    void convertKeepsRows() {
        for (const char* name : {"fp8", "nvfp4", "nvfp4_ct"}) {
            const auto out = dir(name).string() + ".gguf";
            ft::model::ConvertOptions o;
            o.out = out;
            ft::model::convert_hf_to_gguf(dir(name), o);
            const auto r = ft::gguf::Reader::open(out);
            const auto want = std::string(name) == "fp8" ? ft::kernels::DType::FT_FP8 : ft::kernels::DType::FT_NVFP4;
            const auto* t = r.find_tensor("blk.1.ffn_down_exps.weight");
            QVERIFY(t);
            QCOMPARE(t->type, want);
            QCOMPARE(r.find_tensor("blk.0.attn_q.weight")->type, want);
            QCOMPARE(r.find_tensor("token_embd.weight")->type, ft::kernels::DType::BF16);  // left unquantized
            const std::vector<std::vector<std::int32_t>> one{seqs.at(0)};
            const auto a = cpu_logits(dir(name), one), b = cpu_logits(out, one);
            QCOMPARE(a.size(), b.size());
            QVERIFY(std::memcmp(a.data(), b.data(), a.size() * 4) == 0);
        }
    }

    // DeepSeek-V3 FP8 / NVFP4 through ft convert: the quantized kv_b_proj decoded and split into attn_k_b / attn_v_b
    // in F32 (as the loader splits it), the other quantized projections kept in their type. The GGUF's logits equal,
    // bit for bit, those of the GGUF converted (in F32) from the F32-decoded twin. Against the folder itself they
    // differ by f32 rounding, as the BF16 model's own GGUF does (measured max |diff| 8.6e-6 for BF16, 1.0e-5 for FP8
    // and NVFP4; bound 1e-4): GGUF keeps YaRN's log multiplier as f32, 0.10000000149 against config.json's 0.1 (ft
    // inspect --json of the folder and its GGUF; Qwen3 without YaRN round-trips exactly).
    void convertDeepSeekSplitsKvB() {
        const HighwayOnly f32_kernels;  // FT_NVFP4 against the twin's F32: the same kernels' arithmetic
        const auto ds_seqs = golden_seqs(kDeepSeek);
        for (const char* name : {"ds_fp8", "ds_nvfp4"}) {
            // deepseek-v3-tiny ships no tokenizer (its sequences are token ids); convert writes one into the GGUF, so
            // the folders borrow qwen3-moe-tiny's cut tokenizer of the same 4,160 entries.
            const auto twin = std::filesystem::path(dir(name).string() + "_deq");
            for (const auto& d : {dir(name), twin})
                for (const char* f : {"tokenizer.json", "tokenizer_config.json"})
                    QVERIFY(QFile::copy(kBf16 + "/" + f, QString::fromStdString((d / f).string())));
            ft::model::ConvertOptions o;
            o.out = dir(name).string() + ".gguf";
            ft::model::convert_hf_to_gguf(dir(name), o);
            ft::model::ConvertOptions ot;
            ot.out = twin.string() + ".gguf";
            ot.type = ft::kernels::DType::F32;
            ft::model::convert_hf_to_gguf(twin, ot);
            const auto r = ft::gguf::Reader::open(o.out);
            const auto want = std::string(name) == "ds_fp8" ? ft::kernels::DType::FT_FP8 : ft::kernels::DType::FT_NVFP4;
            for (const char* t : {"blk.0.attn_k_b.weight", "blk.2.attn_v_b.weight"}) {
                QVERIFY2(r.find_tensor(t), t);
                QCOMPARE(r.find_tensor(t)->type, ft::kernels::DType::F32);
            }
            QCOMPARE(r.find_tensor("blk.0.attn_kv_a_mqa.weight")->type, want);
            QCOMPARE(r.find_tensor("blk.1.ffn_down_exps.weight")->type,
                     want == ft::kernels::DType::FT_FP8 ? want : ft::kernels::DType::BF16);  // NVFP4: 32-wide rows stay BF16
            const auto a = cpu_logits(o.out, ds_seqs), b = cpu_logits(ot.out, ds_seqs), c = cpu_logits(dir(name), ds_seqs);
            QCOMPARE(a.size(), b.size());
            QCOMPARE(a.size(), c.size());
            QVERIFY(!a.empty());
            QVERIFY(std::memcmp(a.data(), b.data(), a.size() * 4) == 0);
            double gap = 0;
            for (std::size_t i = 0; i < a.size(); ++i) gap = std::max(gap, double(std::fabs(a[i] - c[i])));
            qInfo("%s: GGUF against the folder: max |diff| %.3g", name, gap);
            QVERIFY(gap < 1e-4);
        }
    }

    // compressed-tensors' weight_packed under Qwen3.5's "model.language_model." prefix: the loader and convert find
    // it there (the same logits as the unprefixed checkpoint, bit for bit; the GGUF keeps ft_nvfp4).
    void packedUnderLanguageModelPrefix() {
        const std::vector<std::vector<std::int32_t>> one{seqs.at(0)};
        const auto want = cpu_logits(dir("nvfp4_ct"), one), got = cpu_logits(dir("nvfp4_ct_lm"), one);
        QCOMPARE(got.size(), want.size());
        QVERIFY(std::memcmp(got.data(), want.data(), got.size() * 4) == 0);
        ft::model::ConvertOptions o;
        o.out = dir("nvfp4_ct_lm").string() + ".gguf";
        ft::model::convert_hf_to_gguf(dir("nvfp4_ct_lm"), o);
        QCOMPARE(ft::gguf::Reader::open(o.out).find_tensor("blk.0.attn_q.weight")->type, ft::kernels::DType::FT_NVFP4);
        const auto conv = cpu_logits(o.out, one);
        QVERIFY(std::memcmp(conv.data(), want.data(), want.size() * 4) == 0);
    }

    void inspectCountsEngineType() {
        const auto j = ft::model::inspect_path(dir("fp8"));
        QVERIFY2(j["types"].contains("ft_fp8"), j["types"].dump().c_str());
        QCOMPARE(j["types"]["ft_fp8"]["bits_per_weight"].get<double>(), 9.0);
        QCOMPARE(j["types"]["ft_fp8"]["tensors"].get<int>(), 4 * (4 + 3 * 16));
        QVERIFY(j["types"].contains("bf16"));
        QVERIFY(!j["types"].contains("f32"));  // the scales are inside ft_fp8's size, not counted again
        for (const char* name : {"nvfp4", "nvfp4_ct"}) {  // ModelOpt's and compressed-tensors' scales inside the size
            const auto n = ft::model::inspect_path(dir(name));
            QCOMPARE(n["types"]["ft_nvfp4"]["bits_per_weight"].get<double>(), 5.0);
            QCOMPARE(n["types"]["ft_nvfp4"]["tensors"].get<int>(), 4 * (4 + 3 * 16));
            QVERIFY2(!n["types"].contains("f32"), n["types"].dump().c_str());  // U8 / F32 tensors would count as f32
        }
    }

    // Each error names the tensor and carries its message key and arguments for the app's translations
    // (test_engine_messages shows those keys in Korean and Chinese).
    void badInput() {
        const std::vector<std::uint8_t> w(64 * 128, 0x38);
        auto expect = [](const std::filesystem::path& d, ft::ErrorCode code, const char* needle, const char* key,
                         std::vector<std::string> args) {
            try {
                const auto ck = ft::safetensors::Checkpoint::open(d);
                ft::safetensors::find_quantized(ck, "a.weight", ft::safetensors::read_quant_config(d));
                QFAIL("no error");
            } catch (const ft::Error& e) {
                QCOMPARE(e.code(), code);
                QVERIFY2(std::string(e.what()).find(needle) != std::string::npos, e.what());
                QCOMPARE(e.key().key, std::string(key));
                const std::string file = ft::path_to_utf8(std::string(key).starts_with("hf_quant_config") ||
                                                                  std::string(key) == "hf_quant_block_size"
                                                              ? d / "config.json"
                                                              : d);
                args.insert(args.begin(), file);
                QCOMPARE(e.key().args, args);
            }
        };
        // Block scales of the wrong shape: [64, 128] in 128 x 128 blocks needs [1, 1].
        write_checkpoint(dir("bad1"), {{"a.weight", "F8_E4M3", {64, 128}, w},
                                       {"a.weight_scale_inv", "F32", {1, 2}, f32_bytes({1, 1})}});
        expect(dir("bad1"), ft::ErrorCode::invalid_file, "a.weight_scale_inv", "hf_quant_scale_shape",
               {"a.weight_scale_inv", "[1, 2]", "[1, 1]"});
        // A row length the 32-column groups cannot hold.
        write_checkpoint(dir("bad2"), {{"a.weight", "F8_E4M3", {128, 48}, std::vector<std::uint8_t>(128 * 48)},
                                       {"a.weight_scale_inv", "F32", {1, 1}, f32_bytes({1})}});
        expect(dir("bad2"), ft::ErrorCode::unsupported, "a.weight", "hf_quant_row_length", {"a.weight", "FP8", "48", "32"});
        // FP8 without any scale.
        write_checkpoint(dir("bad3"), {{"a.weight", "F8_E4M3", {64, 128}, w}});
        expect(dir("bad3"), ft::ErrorCode::invalid_file, "weight_scale_inv", "hf_quant_scale_missing",
               {"a.weight", "a.weight_scale_inv"});
        // NVFP4 group scales of the wrong shape, and rows of 32 values (the engine's blocks hold 64).
        write_checkpoint(dir("bad4"), {{"a.weight", "U8", {4, 64}, std::vector<std::uint8_t>(256)},
                                       {"a.weight_scale", "F8_E4M3", {4, 4}, std::vector<std::uint8_t>(16)},
                                       {"a.weight_scale_2", "F32", {}, f32_bytes({1})}});
        expect(dir("bad4"), ft::ErrorCode::invalid_file, "a.weight_scale", "hf_quant_scale_shape", {"a.weight_scale", "[4, 4]", "[4, 8]"});
        write_checkpoint(dir("bad5"), {{"a.weight", "U8", {4, 16}, std::vector<std::uint8_t>(64)},
                                       {"a.weight_scale", "F8_E4M3", {4, 2}, std::vector<std::uint8_t>(8)},
                                       {"a.weight_scale_2", "F32", {}, f32_bytes({1})}});
        expect(dir("bad5"), ft::ErrorCode::unsupported, "a.weight", "hf_quant_row_length", {"a.weight", "NVFP4", "32", "64"});
        // compressed-tensors: packed FP4 without its global scale; integers packed in I32 (int4 pack-quantized), a
        // layout the engine does not read.
        write_checkpoint(dir("bad6"), {{"a.weight_packed", "U8", {4, 32}, std::vector<std::uint8_t>(128)},
                                       {"a.weight_scale", "F8_E4M3", {4, 4}, std::vector<std::uint8_t>(16)}});
        expect(dir("bad6"), ft::ErrorCode::invalid_file, "weight_global_scale", "hf_quant_scale_missing",
               {"a.weight_packed", "a.weight_global_scale"});
        write_checkpoint(dir("bad6i"), {{"a.weight_packed", "I32", {4, 8}, std::vector<std::uint8_t>(128)},
                                        {"a.weight_scale", "BF16", {4, 1}, std::vector<std::uint8_t>(8)}});
        expect(dir("bad6i"), ft::ErrorCode::unsupported, "weight_packed", "hf_quant_layout",
               {"a.weight_packed", "compressed-tensors pack-quantized (integer weights packed in I32)"});
        // A bad weight_block_size in config.json; a quantization_config that is not an object.
        write_checkpoint(dir("bad7"), {{"a.weight", "F8_E4M3", {64, 128}, w}},
                         R"({"quantization_config": {"quant_method": "fp8", "weight_block_size": [128]}})");
        expect(dir("bad7"), ft::ErrorCode::invalid_file, "weight_block_size", "hf_quant_block_size", {"[128]"});
        write_checkpoint(dir("bad7o"), {{"a.weight", "F8_E4M3", {64, 128}, w}}, R"({"quantization_config": "fp8"})");
        expect(dir("bad7o"), ft::ErrorCode::invalid_file, "quantization_config", "hf_quant_config", {});
        // Scale blocks 48 columns wide (not whole 32-groups); second-level scale of the wrong type; a vector.
        write_checkpoint(dir("bad8"), {{"a.weight", "F8_E4M3", {64, 128}, w},
                                       {"a.weight_scale_inv", "F32", {1, 3}, f32_bytes({1, 1, 1})}},
                         R"({"quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 48]}})");
        expect(dir("bad8"), ft::ErrorCode::unsupported, "a.weight", "hf_quant_fp8_block", {"a.weight", "48"});
        write_checkpoint(dir("bad9"), {{"a.weight", "U8", {4, 32}, std::vector<std::uint8_t>(128)},
                                       {"a.weight_scale", "F8_E4M3", {4, 4}, std::vector<std::uint8_t>(16)},
                                       {"a.weight_scale_2", "BF16", {1}, std::vector<std::uint8_t>(2)}});
        expect(dir("bad9"), ft::ErrorCode::invalid_file, "a.weight_scale_2", "hf_quant_scale_type",
               {"a.weight_scale_2", "BF16 [1]", "F32 [1]"});
        write_checkpoint(dir("bad10"), {{"a.weight", "F8_E4M3", {128}, std::vector<std::uint8_t>(128)},
                                        {"a.weight_scale_inv", "F32", {1}, f32_bytes({1})}});
        expect(dir("bad10"), ft::ErrorCode::invalid_file, "a.weight", "hf_quant_not_matrix", {"a.weight", "[128]"});
    }
};

FT_TEST_MAIN(TestHfQuant)
#include "test_hf_quant.moc"
