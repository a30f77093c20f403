// `ft synth` and `ft inspect`: a synthetic tiny model reloads bit-exactly against a regeneration with the same seed,
// is byte-identical for the same seed (whatever the thread count) and differs for another; every weight type has
// the intended value statistics; its description from GGUF equals the equivalent config.json's; inspect runs on
// it and on every vocab-only GGUF of the peer test data; bad inputs give clear errors. Runs the real binary.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "format/gguf.h"
#include "ft/error.h"
#include "ft_process.h"
#include "ft_test.h"
#include "memory/cpu_rate.h"
#include "model/model_desc.h"
#include "model/model_inspect.h"
#include "model/weights.h"
#include "ref/quant.h"
#include "synth/synth_model.h"

using nlohmann::json;
using ft::kernels::DType;

using ft::test::run_ft;

namespace {


QByteArray read_all(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return f.readAll();
}

std::filesystem::path tokenizer_dir() { return std::filesystem::path(FT_SOURCE_DIR) / "resources/tokenizers/qwen3"; }

// Every tensor of the file equals a fresh regeneration from the plan; names, types and shapes match the plan.
void check_against_plan(const ft::gguf::Reader& r, const ft::synth::SynthPlan& plan) {
    QCOMPARE(r.tensors().size(), plan.tensors.size());
    std::vector<std::byte> buf;
    for (size_t i = 0; i < plan.tensors.size(); ++i) {
        const auto& t = plan.tensors[i];
        const auto& info = r.tensors()[i];
        QCOMPARE(QString::fromStdString(info.name), QString::fromStdString(t.spec.name));
        QCOMPARE(info.type, t.type);
        QCOMPARE(info.n_dims, std::uint32_t(t.spec.dims.size()));
        for (size_t d = 0; d < t.spec.dims.size(); ++d) QCOMPARE(info.dims[d], t.spec.dims[d]);
        buf.assign(t.n_bytes, std::byte{0});
        ft::synth::synth_fill(t, plan.seed, 0, t.n_units, buf.data());
        const auto data = r.tensor_data(info);
        QCOMPARE(data.size(), buf.size());
        QVERIFY2(std::memcmp(data.data(), buf.data(), buf.size()) == 0, qPrintable(QString::fromStdString(t.spec.name)));
    }
}

bool same_desc(const ft::model::ModelDesc& a, const ft::model::ModelDesc& b, QString* why) {
    json ja = ft::model::desc_to_json(a), jb = ft::model::desc_to_json(b);
    ja.erase("name"), jb.erase("name");
    // norm eps travels as f32
    if (std::fabs(ja["norm_eps"].get<double>() - jb["norm_eps"].get<double>()) > 1e-12) return *why = "norm_eps", false;
    ja.erase("norm_eps"), jb.erase("norm_eps");
    if (ja != jb) return *why = QString::fromStdString(ja.dump() + "\n vs \n" + jb.dump()), false;
    return true;
}

}  // namespace

class TestSynth : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString path(const char* name) const { return dir_.filePath(name); }

private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void tinyReloadsBitExact() {
        const auto r = run_ft({"synth", "--preset", "tiny", "--weights", "q4_k", "--seed", "7", "--quiet", "--out", path("a.gguf")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(r.out.contains("wrote"));
        const auto reader = ft::gguf::Reader::open(path("a.gguf").toStdString());
        const auto desc = ft::synth::synth_desc(ft::model::ArchId::qwen3_moe, "tiny", {});
        const auto plan = ft::synth::synth_plan(desc, DType::Q4_K, 7);
        check_against_plan(reader, plan);
        QCOMPARE(reader.metadata().get_u64("freetoken.synth.seed"), 7ull);
        QCOMPARE(reader.metadata().get_u64("general.file_type"), 14ull);
        // Qwen3 tokenizer with the vocab padded to the embedding rows, and the chat template.
        QCOMPARE(reader.metadata().get_strings("tokenizer.ggml.tokens").size(), size_t(151936));
        QCOMPARE(reader.metadata().get_strings("tokenizer.ggml.merges").size(), size_t(151387));
        QCOMPARE(reader.get_u64("tokenizer.ggml.eos_token_id"), 151645ull);
        QVERIFY(reader.get_string("tokenizer.chat_template").find("<|im_start|>") != std::string_view::npos);
        // Experts really are the K-quant type (the tiny preset's rows are whole super-blocks).
        QCOMPARE(reader.tensor("blk.0.ffn_down_exps.weight").type, DType::Q4_K);
        QCOMPARE(reader.tensor("blk.0.ffn_gate_inp.weight").type, DType::F32);
        QCOMPARE(reader.tensor("blk.0.attn_q_norm.weight").type, DType::F32);
    }

    void descriptionFromGgufEqualsConfig() {
        const auto reader = ft::gguf::Reader::open(path("a.gguf").toStdString());
        const auto from_gguf = ft::model::desc_from_gguf(reader.metadata());
        // The config.json of the same model, as transformers would write it.
        const json cfg = {{"architectures", {"Qwen3MoeForCausalLM"}}, {"vocab_size", 151936}, {"hidden_size", 256},
                          {"intermediate_size", 768}, {"moe_intermediate_size", 256}, {"num_hidden_layers", 4},
                          {"num_attention_heads", 4}, {"num_key_value_heads", 2}, {"head_dim", 64},
                          {"max_position_embeddings", 4096}, {"rms_norm_eps", 1e-6}, {"rope_theta", 1e6},
                          {"num_experts", 16}, {"num_experts_per_tok", 4}, {"norm_topk_prob", true},
                          {"decoder_sparse_step", 1}, {"mlp_only_layers", json::array()}, {"tie_word_embeddings", false}};
        const auto from_hf = ft::model::desc_from_hf_config(cfg, "config.json");
        QString why;
        QVERIFY2(same_desc(from_gguf, from_hf, &why), qPrintable(why));
        QVERIFY2(same_desc(from_gguf, ft::synth::synth_desc(ft::model::ArchId::qwen3_moe, "tiny", {}), &why), qPrintable(why));
    }

    // One token through every layer of the tiny Q4_K model (position 0: RoPE is the identity and attention returns
    // v): the residual stream and the logits stay finite and of moderate scale.
    void activationsStayFinite() {
        const auto r = ft::gguf::Reader::open(path("a.gguf").toStdString());
        const auto d = ft::model::desc_from_gguf(r);
        auto deq = [&](const std::string& name) {
            const auto& t = r.tensor(name);
            std::vector<float> v(t.n_elements);
            if (!ft::kernels::ref::dequantize_row(t.type, r.tensor_data(t).data(), v.data(), static_cast<std::int64_t>(v.size())))
                qFatal("cannot dequantize %s", name.c_str());
            return v;
        };
        auto matvec = [](const float* w, const std::vector<float>& x, std::size_t out) {  // w: [out][in]
            std::vector<float> y(out);
            for (std::size_t o = 0; o < out; ++o) {
                double s = 0;
                for (std::size_t i = 0; i < x.size(); ++i) s += double(w[o * x.size() + i]) * x[i];
                y[o] = static_cast<float>(s);
            }
            return y;
        };
        auto rmsnorm = [&](const std::vector<float>& x, const std::vector<float>& w) {
            double ss = 0;
            for (float v : x) ss += double(v) * v;
            const float k = static_cast<float>(1.0 / std::sqrt(ss / x.size() + d.norm_eps));
            std::vector<float> y(x.size());
            for (std::size_t i = 0; i < x.size(); ++i) y[i] = x[i] * k * w[i];
            return y;
        };
        auto rms = [](const std::vector<float>& x) {
            double ss = 0;
            for (float v : x) ss += double(v) * v;
            return std::sqrt(ss / x.size());
        };
        const std::size_t E = d.n_embd, hd = d.attn.head_dim, nh = d.attn.n_head, nkv = d.attn.n_head_kv;
        const std::size_t ff = d.moe.n_ff_exp, ne = d.moe.n_expert;
        // Token 9707 ("Hello"): its embedding row.
        const auto& emb_t = r.tensor("token_embd.weight");
        const std::size_t row_bytes = *ft::kernels::dtype_bytes(emb_t.type, E);
        std::vector<float> x(E);
        QVERIFY(ft::kernels::ref::dequantize_row(emb_t.type, r.tensor_data(emb_t).data() + 9707 * row_bytes, x.data(), std::int64_t(E)));
        for (std::uint32_t il = 0; il < d.n_layer; ++il) {
            const std::string b = "blk." + std::to_string(il) + ".";
            auto h = rmsnorm(x, deq(b + "attn_norm.weight"));
            const auto v = matvec(deq(b + "attn_v.weight").data(), h, nkv * hd);
            std::vector<float> att(nh * hd);
            for (std::size_t hh = 0; hh < nh; ++hh)
                for (std::size_t i = 0; i < hd; ++i) att[hh * hd + i] = v[(hh / (nh / nkv)) * hd + i];
            const auto o = matvec(deq(b + "attn_output.weight").data(), att, E);
            for (std::size_t i = 0; i < E; ++i) x[i] += o[i];
            h = rmsnorm(x, deq(b + "ffn_norm.weight"));
            auto logits = matvec(deq(b + "ffn_gate_inp.weight").data(), h, ne);
            const float mx = *std::max_element(logits.begin(), logits.end());
            std::vector<std::pair<float, std::size_t>> p;
            double z = 0;
            for (std::size_t e = 0; e < ne; ++e) z += std::exp(logits[e] - mx);
            for (std::size_t e = 0; e < ne; ++e) p.push_back({float(std::exp(logits[e] - mx) / z), e});
            std::partial_sort(p.begin(), p.begin() + d.moe.n_expert_used, p.end(), std::greater<>());
            double wsum = 0;
            for (std::size_t k = 0; k < d.moe.n_expert_used; ++k) wsum += p[k].first;
            const auto gate = deq(b + "ffn_gate_exps.weight"), up = deq(b + "ffn_up_exps.weight"), down = deq(b + "ffn_down_exps.weight");
            for (std::size_t k = 0; k < d.moe.n_expert_used; ++k) {
                const std::size_t e = p[k].second;
                const auto g = matvec(gate.data() + e * ff * E, h, ff), u = matvec(up.data() + e * ff * E, h, ff);
                std::vector<float> a(ff);
                for (std::size_t i = 0; i < ff; ++i) a[i] = g[i] / (1.f + std::exp(-g[i])) * u[i];
                const auto y = matvec(down.data() + e * E * ff, a, E);
                for (std::size_t i = 0; i < E; ++i) x[i] += static_cast<float>(p[k].first / wsum) * y[i];
            }
            const double s = rms(x);
            QVERIFY2(std::isfinite(s) && s > 1e-3 && s < 100, qPrintable(QString("layer %1: residual rms %2").arg(il).arg(s)));
        }
        const auto h = rmsnorm(x, deq("output_norm.weight"));
        const auto& out_t = r.tensor("output.weight");
        std::vector<float> w(E);
        double ss = 0;
        for (std::size_t o = 0; o < d.n_vocab; ++o) {
            QVERIFY(ft::kernels::ref::dequantize_row(out_t.type, r.tensor_data(out_t).data() + o * row_bytes, w.data(), std::int64_t(E)));
            double s = 0;
            for (std::size_t i = 0; i < E; ++i) s += double(w[i]) * h[i];
            QVERIFY(std::isfinite(s));
            ss += s * s;
        }
        const double logit_rms = std::sqrt(ss / d.n_vocab);
        qInfo("residual rms after %u layers %.3f, logit rms %.3f", d.n_layer, rms(x), logit_rms);
        QVERIFY2(logit_rms > 0.1 && logit_rms < 20, qPrintable(QString::number(logit_rms)));
    }

    void deterministicForSeed() {
        // Same seed with one generator thread: identical bytes (output does not depend on threading).
        auto r = run_ft({"synth", "--preset", "tiny", "--weights", "q4_k", "--seed", "7", "--threads", "1", "--quiet", "--out", path("b.gguf")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QByteArray a = read_all(path("a.gguf")), b = read_all(path("b.gguf"));
        QVERIFY(!a.isEmpty());
        QVERIFY(a == b);
        r = run_ft({"synth", "--preset", "tiny", "--weights", "q4_k", "--seed", "8", "--quiet", "--out", path("c.gguf")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const auto ra = ft::gguf::Reader::open(path("a.gguf").toStdString());
        const auto rc = ft::gguf::Reader::open(path("c.gguf").toStdString());
        for (const auto& t : ra.tensors()) {
            const auto x = ra.tensor_data(t), y = rc.tensor_data(rc.tensor(t.name));
            QVERIFY2(std::memcmp(x.data(), y.data(), x.size()) != 0, qPrintable(QString::fromStdString(t.name)));
        }
    }

    void weightTypes_data() {
        QTest::addColumn<QString>("type");
        for (const char* t : {"f32", "bf16", "q8_0", "q4_k", "q5_k", "q6_k"}) QTest::newRow(t) << t;
    }
    void weightTypes() {
        QFETCH(QString, type);
        const DType dt = *ft::kernels::dtype_from_name(type.toStdString());
        ft::synth::SynthOverrides o;
        o.layers = 1, o.experts = 4, o.top_k = 2;
        if (dt == DType::F32 || dt == DType::BF16) o.hidden = 64, o.heads = 2, o.kv_heads = 1, o.head_dim = 32, o.expert_ff = 64;
        const auto plan = ft::synth::synth_plan(ft::synth::synth_desc(ft::model::ArchId::qwen3_moe, "tiny", o), dt, 99);
        ft::synth::SynthOptions opt;
        opt.out = (path("w_") + type + ".gguf").toStdString();
        opt.tokenizer_dir = tokenizer_dir();
        opt.chunk_bytes = 1 << 20;  // many chunks per tensor
        ft::synth::synth_write(plan, opt);
        const auto reader = ft::gguf::Reader::open(opt.out);
        check_against_plan(reader, plan);
        // Value statistics of the dequantized weights: mean ≈ 0 and std ≈ 1/sqrt(fan_in); norms ≈ 1.
        for (size_t i = 0; i < plan.tensors.size(); ++i) {
            const auto& t = plan.tensors[i];
            const auto data = reader.tensor_data(reader.tensors()[i]);
            std::vector<float> v(t.spec.n_elements());
            QVERIFY(ft::kernels::ref::dequantize_row(t.type, data.data(), v.data(), static_cast<std::int64_t>(v.size())));
            double s = 0, s2 = 0, lo = 1e30, hi = -1e30;
            for (float x : v) {
                QVERIFY(std::isfinite(x));
                s += x, s2 += double(x) * x, lo = std::min(lo, double(x)), hi = std::max(hi, double(x));
            }
            const double mean = s / v.size(), sd = std::sqrt(std::max(0.0, s2 / v.size() - mean * mean));
            const QString what = QString::fromStdString(t.spec.name) + QString(" mean %1 std %2 want %3").arg(mean).arg(sd).arg(t.std);
            if (t.spec.is_norm()) {
                QVERIFY2(lo >= 0.9 && hi <= 1.1, qPrintable(what));
            } else if (v.size() >= 4096) {
                QVERIFY2(std::fabs(sd - t.std) < 0.08 * t.std, qPrintable(what));
                QVERIFY2(std::fabs(mean) < 0.05 * t.std, qPrintable(what));
            }
        }
    }

    // The block types written through kernels/ref's quantizers, as routed experts (the matrices Q8_0, generated
    // directly, keep the file small): the file equals its plan, the experts' values have the intended statistics,
    // ft inspect reports the type with its bits per weight, and ft run decodes on the CPU.
    void quantizedExpertTypes_data() {
        QTest::addColumn<QString>("type");
        QTest::addColumn<double>("std_tol");  // the dequantized std falls short by about half the type's NMSE
        for (const char* t : {"q4_0", "q4_1", "q5_0", "q5_1", "q3_k", "iq4_nl", "iq4_xs"}) QTest::newRow(t) << t << 0.05;
        QTest::newRow("q2_k") << "q2_k" << 0.08;
        for (const char* t : {"iq3_xxs", "iq3_s"}) QTest::newRow(t) << t << 0.05;
        for (const char* t : {"iq2_xxs", "iq2_xs", "iq2_s"}) QTest::newRow(t) << t << 0.08;
        for (const char* t : {"tq1_0", "tq2_0"}) QTest::newRow(t) << t << 0.09;  // ternary: NMSE ≈ 0.11 on uniform values
        for (const char* t : {"iq1_s", "iq1_m"}) QTest::newRow(t) << t << 0.09;
    }
    void quantizedExpertTypes() {
        QFETCH(QString, type);
        QFETCH(double, std_tol);
        const DType dt = *ft::kernels::dtype_from_name(type.toStdString());
        const QString file = path("qe_") + type + ".gguf";
        auto r = run_ft({"synth", "--preset", "tiny", "--layers", "1", "--experts", "4", "--top-k", "2", "--weights", "q8_0",
                         "--expert-weights", type, "--seed", "5", "--quiet", "--out", file});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        ft::synth::SynthOverrides o;
        o.layers = 1, o.experts = 4, o.top_k = 2;
        const auto plan = ft::synth::synth_plan(ft::synth::synth_desc(ft::model::ArchId::qwen3_moe, "tiny", o), DType::Q8_0, 5, dt);
        const auto reader = ft::gguf::Reader::open(file.toStdString());
        check_against_plan(reader, plan);
        int experts = 0;
        for (const auto& t : plan.tensors) {
            if (!t.spec.is_expert()) continue;
            ++experts;
            QCOMPARE(t.type, dt);
            std::vector<float> v(t.spec.n_elements());
            QVERIFY(ft::kernels::ref::dequantize_row(t.type, reader.tensor_data(reader.tensor(t.spec.name)).data(), v.data(),
                                                     static_cast<std::int64_t>(v.size())));
            double s = 0, s2 = 0;
            for (float x : v) s += x, s2 += double(x) * x;
            const double mean = s / v.size(), sd = std::sqrt(s2 / v.size() - mean * mean);
            const QString what = QString::fromStdString(t.spec.name) + QString(" mean %1 std %2 want %3").arg(mean).arg(sd).arg(t.std);
            QVERIFY2(std::fabs(sd - t.std) < std_tol * t.std, qPrintable(what));
            QVERIFY2(std::fabs(mean) < 0.02 * t.std, qPrintable(what));
        }
        QCOMPARE(experts, 3);
        r = run_ft({"inspect", file, "--json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const json j = json::parse(r.out.toStdString());
        const std::string tname(ft::kernels::dtype_info(dt).name);
        QVERIFY2(j["types"].contains(tname), qPrintable(QString::fromStdString(j["types"].dump())));
        QCOMPARE(j["types"][tname]["tensors"].get<int>(), 3);
        QCOMPARE(j["types"][tname]["bits_per_weight"].get<double>(), ft::kernels::dtype_bits_per_weight(dt));
        // The fit prediction of the file takes the CPU expert kernel's rate for its experts' type: with no stored
        // profile (an empty data folder) and no GPU, 40 GB/s for Q4_K through the per-type table.
        const QByteArray data_dir = qgetenv("FT_DATA_DIR");
        qputenv("FT_DATA_DIR", path("empty-data").toUtf8());
        r = run_ft({"inspect", file, "--plan", "--vram", "0", "--ram", "64G", "--json"});
        data_dir.isNull() ? qunsetenv("FT_DATA_DIR") : qputenv("FT_DATA_DIR", data_dir);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const json fit = json::parse(r.out.toStdString());
        QCOMPARE(fit["machine"]["cpu_expert_rate_source"].get<std::string>(), std::string("default"));
        QCOMPARE(fit["machine"]["cpu_expert_gbps"].get<double>(), 40.0 * ft::memory::cpu_rate_factor(dt));
        r = run_ft({"run", "--model", file, "--device", "cpu", "--ids", "1,2,3", "--max-tokens", "3", "--temperature", "0",
                    "--ctx", "256", "--threads", "1"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("generated 3"), qPrintable(r.err));
    }
    // --weights of one of those types: every matrix quantized by it (rows of 256), llama.cpp's file type.
    void quantizedWeightsFile() {
        const auto r = run_ft({"synth", "--preset", "tiny", "--layers", "1", "--experts", "4", "--top-k", "2", "--weights",
                               "q3_k", "--quiet", "--out", path("q3k.gguf")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const auto reader = ft::gguf::Reader::open(path("q3k.gguf").toStdString());
        QCOMPARE(reader.metadata().get_u64("general.file_type"), 11ull);  // Q3_K_S: all Q3_K
        QCOMPARE(reader.tensor("token_embd.weight").type, DType::Q3_K);
        QCOMPARE(reader.tensor("blk.0.attn_q.weight").type, DType::Q3_K);
        QCOMPARE(reader.tensor("blk.0.ffn_down_exps.weight").type, DType::Q3_K);
        QCOMPARE(reader.tensor("blk.0.ffn_gate_inp.weight").type, DType::F32);
        // The fit prediction of the 30B-shaped preset in Q3_K: RAM for the weights in proportion to the bits per
        // weight (3.4375 against Q4_K's 4.5), plus the same 1 GiB of runtime.
        std::uint64_t ram[2];
        int i = 0;
        for (const char* t : {"q3_k", "q4_k"}) {
            const auto p = run_ft({"inspect", "--plan", "--preset", "qwen3-30b-a3b", "--weights", t, "--vram", "8G", "--ram",
                                   "64G", "--json"});
            QVERIFY2(p.code == 0, qPrintable(p.err));
            ram[i++] = json::parse(p.out.toStdString())["ram_needed"].get<std::uint64_t>() - (1ull << 30);
        }
        const double ratio = double(ram[0]) / double(ram[1]);
        QVERIFY2(ratio > 3.4375 / 4.5 && ratio < 3.4375 / 4.5 * 1.02, qPrintable(QString::number(ratio)));
    }
    // `ft inspect --plan` shows the CPU expert rate it assumed: the 30B-shaped preset in IQ2_XXS (the f32 decoder)
    // reads its experts on the CPU several times slower than in Q4_K (the int8 path), in the text and the JSON.
    void planShowsTheCpuRateByType() {
        const QByteArray data_dir = qgetenv("FT_DATA_DIR");
        qputenv("FT_DATA_DIR", path("empty-data").toUtf8());  // no stored profile
        double gbps[2];
        int i = 0;
        for (const char* t : {"iq2_xxs", "q4_k"}) {
            const auto p = run_ft({"inspect", "--plan", "--preset", "qwen3-30b-a3b", "--weights", t, "--vram", "0", "--ram", "64G"});
            QVERIFY2(p.code == 0, qPrintable(p.err));
            const QRegularExpression line(R"(CPU experts\s+([0-9.]+) GB/s \(default: 40 GB/s for Q4_K)");
            const auto m = line.match(p.out);
            QVERIFY2(m.hasMatch(), qPrintable(p.out));
            gbps[i++] = m.captured(1).toDouble();
        }
        data_dir.isNull() ? qunsetenv("FT_DATA_DIR") : qputenv("FT_DATA_DIR", data_dir);
        QCOMPARE(gbps[1], 40.0);
        QVERIFY2(gbps[0] < 0.5 * gbps[1], qPrintable(QString::number(gbps[0])));
    }

    void inspectSynthFile() {
        auto r = run_ft({"inspect", path("a.gguf"), "--json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j["architecture"].get<std::string>(), std::string("qwen3moe"));
        QCOMPARE(j["description"]["n_layer"].get<int>(), 4);
        QCOMPARE(j["description"]["moe"]["n_expert"].get<int>(), 16);
        QCOMPARE(j["tensor_count"].get<int>(), 51);
        std::uint64_t params = 0, bytes = 0, expert_bytes = 0;
        for (const auto& t : j["tensors"]) {
            std::uint64_t n = 1;
            for (const auto& d : t["shape"]) n *= d.get<std::uint64_t>();
            params += n;
            bytes += t["bytes"].get<std::uint64_t>();
            if (t["name"].get<std::string>().find("_exps") != std::string::npos) expert_bytes += t["bytes"].get<std::uint64_t>();
        }
        QCOMPARE(j["sizes"]["total_params"].get<std::uint64_t>(), params);
        QCOMPARE(j["sizes"]["expert_pool_bytes"].get<std::uint64_t>(), expert_bytes);
        QCOMPARE(j["sizes"]["expert_pool_bytes"].get<std::uint64_t>() + j["sizes"]["non_expert_bytes"].get<std::uint64_t>(), bytes);
        // active = non-expert params + experts × 4/16
        const std::uint64_t expert_params = 4ull * 3 * 256 * 256 * 16;
        QCOMPARE(j["sizes"]["active_params"].get<std::uint64_t>(), params - expert_params + expert_params / 4);
        QCOMPARE(j["tokenizer"]["vocab_size"].get<int>(), 151936);
        QCOMPARE(j["tokenizer"]["pre"].get<std::string>(), std::string("qwen2"));
        QVERIFY(j["tokenizer"]["chat_template"].get<bool>());
        r = run_ft({"inspect", path("a.gguf")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(r.out.contains("expert pool"));
        QVERIFY(r.out.contains("blk.3.ffn_down_exps.weight"));
        QVERIFY(r.out.contains("chat template         yes"));
    }

    void inspectVocabOnlyFiles() {
        const QDir d(QStringLiteral(FT_TESTDATA_DIR "/llama.cpp-vocab"));
        if (!d.exists()) QSKIP("no ../shared/testdata/llama.cpp-vocab (peer conformance data) beside the checkout");
        const auto files = d.entryList({"*.gguf"}, QDir::Files);
        QVERIFY(!files.isEmpty());
        for (const auto& f : files) {
            const auto r = run_ft({"inspect", d.filePath(f), "--json"});
            QVERIFY2(r.code == 0, qPrintable(f + ": " + r.err));
            const json j = json::parse(r.out.toStdString());
            QCOMPARE(j["tensor_count"].get<int>(), 0);
            QVERIFY2(j["tokenizer"]["present"].get<bool>(), qPrintable(f));
            QVERIFY2(j["tokenizer"]["vocab_size"].get<int>() > 1000, qPrintable(f));
            QVERIFY2(!j["architecture"].get<std::string>().empty(), qPrintable(f));
            QVERIFY2(j.contains("description_error"), qPrintable(f));  // none of them is a MoE model we run
            const auto t = run_ft({"inspect", d.filePath(f)});
            QVERIFY2(t.code == 0 && t.out.contains("Tokenizer"), qPrintable(f));
        }
    }

    // The presets of the newer architectures at their real sizes (DeepSeek-V3 671.03B, V2-Lite 15.7B and V4-Flash 284B as published,
    // without the MTP layer): parameter counts and file sizes from the plan
    // (the files themselves are 12 GB to 352 GiB).
    void realPresetSizes() {
        struct Want { const char* preset; ft::model::ArchId arch; std::uint64_t params; DType experts; DType rest; };
        for (const Want& w : {Want{"gpt-oss-20b", ft::model::ArchId::gpt_oss, 20914757184ull, DType::MXFP4, DType::BF16},
                              Want{"gpt-oss-120b", ft::model::ArchId::gpt_oss, 116829156672ull, DType::MXFP4, DType::BF16},
                              Want{"glm-4.5-air", ft::model::ArchId::glm4_moe, 106852251264ull, DType::Q4_K, DType::Q4_K},
                              Want{"deepseek-v3", ft::model::ArchId::deepseek_v3, 671026419200ull, DType::Q4_K, DType::Q4_K},  // 671B
                              Want{"deepseek-v2-lite", ft::model::ArchId::deepseek_v3, 15706484224ull, DType::Q4_K, DType::Q4_K},  // 15.7B
                              Want{"deepseek-v4-flash", ft::model::ArchId::deepseek_v4, 284334567511ull, DType::Q4_K, DType::Q4_K}}) {  // 284B
            QCOMPARE(ft::synth::synth_preset_arch(w.preset), std::optional(w.arch));
            const auto desc = ft::synth::synth_desc(w.arch, w.preset, {});
            const auto plan = ft::synth::synth_plan(desc, w.rest, 1, w.experts == w.rest ? std::optional(w.experts) : std::nullopt);
            std::vector<ft::model::TensorStat> stats;
            std::uint64_t bytes = 0;
            for (const auto& t : plan.tensors) {
                stats.push_back({t.spec.name, t.spec.dims, t.type, t.spec.n_elements(), t.n_bytes});
                bytes += t.n_bytes;
                // GLM-4.5-Air's down experts have rows of 1408 (not whole Q4_K super-blocks): Q8_0.
                if (t.spec.is_expert())
                    QCOMPARE(t.type, t.spec.dims[0] % ft::kernels::dtype_info(w.experts).block_elems == 0 ? w.experts : DType::Q8_0);
                if (t.spec.keep_f32()) QCOMPARE(t.type, DType::F32);
            }
            const auto r = ft::model::measure(&desc, stats);
            QCOMPARE(r.total_params, w.params);
            qInfo("%s: %.2fB params, %.2f GiB", w.preset, r.total_params / 1e9, bytes / 1073741824.0);
        }
        // gpt-oss-20b with MXFP4 experts and BF16 matrices: 13.0 GiB of tensors (MXFP4 blocks of 17 bytes per 32).
        const auto d20 = ft::synth::synth_desc(ft::model::ArchId::gpt_oss, "gpt-oss-20b", {});
        const auto p20 = ft::synth::synth_plan(d20, DType::BF16, 1);
        std::uint64_t expert_bytes = 0;
        for (const auto& t : p20.tensors)
            if (t.spec.is_expert()) expert_bytes += t.n_bytes;
        QCOMPARE(expert_bytes, 24ull * 3 * 32 * 2880 * 2880 / 32 * 17);
        QVERIFY_THROWS_EXCEPTION(ft::Error, ft::synth::synth_desc(ft::model::ArchId::qwen3_moe, "gpt-oss-20b", {}));
    }

    // A small gpt-oss from its preset (overrides shrink it but keep the architecture): llama.cpp's tensor names and
    // types, the description back from GGUF, Weights::open reading the MXFP4 experts in place, ft inspect (--plan).
    void gptOssPresetFile() {
        const auto r = run_ft({"synth", "--preset", "gpt-oss-20b", "--layers", "3", "--experts", "8", "--hidden", "64",
                               "--expert-ff", "96", "--heads", "4", "--kv-heads", "2", "--head-dim", "32", "--seed", "3",
                               "--quiet", "--out", path("oss.gguf")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const auto reader = ft::gguf::Reader::open(path("oss.gguf").toStdString());
        ft::synth::SynthOverrides o;
        o.layers = 3, o.experts = 8, o.hidden = 64, o.expert_ff = 96, o.heads = 4, o.kv_heads = 2, o.head_dim = 32;
        const auto desc = ft::synth::synth_desc(ft::model::ArchId::gpt_oss, "gpt-oss-20b", o);
        check_against_plan(reader, ft::synth::synth_plan(desc, DType::BF16, 3));
        QCOMPARE(std::string(reader.metadata().get_string("general.architecture")), std::string("gpt-oss"));
        QCOMPARE(reader.metadata().get_u64("general.file_type"), 32ull);
        QCOMPARE(reader.tensor("blk.2.ffn_gate_exps.weight").type, DType::MXFP4);
        QCOMPARE(reader.tensor("blk.2.ffn_down_exps.weight").type, DType::MXFP4);
        QCOMPARE(reader.tensor("blk.2.attn_q.weight").type, DType::BF16);
        QCOMPARE(reader.tensor("blk.2.attn_sinks.weight").type, DType::F32);
        QCOMPARE(reader.tensor("blk.2.ffn_up_exps.bias").type, DType::F32);
        QCOMPARE(reader.tensor("blk.2.ffn_gate_inp.bias").type, DType::F32);
        QCOMPARE(reader.metadata().get_strings("tokenizer.ggml.tokens").size(), size_t(201088));
        QString why;
        const auto back = ft::model::desc_from_gguf(reader);
        QVERIFY2(same_desc(back, desc, &why), qPrintable(why));
        QCOMPARE(back.attn.swa_layers, desc.attn.swa_layers);
        QVERIFY(!back.rope.yarn_truncate && back.attn.o_bias && back.moe.expert_bias);
        const auto w = ft::model::Weights::open(path("oss.gguf").toStdString());
        QCOMPARE(w->expert(2, 7).gate.type, DType::MXFP4);
        QCOMPARE(w->expert(2, 7).gate.rows, std::int64_t(96));
        QVERIFY(w->expert(2, 7).has_bias());
        QCOMPARE(w->mapped_files().size(), size_t(1));  // nothing repacked: read in place
        // --weights q8_0 with MXFP4 experts is llama.cpp's MXFP4_MOE file type.
        const auto q = run_ft({"synth", "--preset", "gpt-oss-20b", "--layers", "1", "--experts", "4", "--hidden", "64",
                               "--expert-ff", "64", "--heads", "2", "--kv-heads", "1", "--head-dim", "32", "--weights",
                               "q8_0", "--quiet", "--out", path("oss8.gguf")});
        QVERIFY2(q.code == 0, qPrintable(q.err));
        QCOMPARE(ft::gguf::Reader::open(path("oss8.gguf").toStdString()).metadata().get_u64("general.file_type"), 38ull);

        auto i = run_ft({"inspect", path("oss.gguf"), "--json"});
        QVERIFY2(i.code == 0, qPrintable(i.err));
        const json j = json::parse(i.out.toStdString());
        QCOMPARE(j["architecture"].get<std::string>(), std::string("gpt-oss"));
        QVERIFY(j["description"]["attention"]["sinks"].get<bool>());
        QCOMPARE(j["description"]["moe"]["n_expert"].get<int>(), 8);
        QVERIFY(j["sizes"]["total_params"].get<std::uint64_t>() > 0);
        i = run_ft({"inspect", path("oss.gguf"), "--plan"});
        QVERIFY2(i.code == 0, qPrintable(i.err + i.out));
    }

    // A small GLM-4.5-Air: the MTP layer in the file (block_count = layers + 1), the Qwen3 tokenizer cut to GLM's
    // 151552 rows, Weights::open skipping the MTP layer.
    void glmAirPresetFile() {
        const auto r = run_ft({"synth", "--preset", "glm-4.5-air", "--layers", "3", "--experts", "8", "--top-k", "2",
                               "--hidden", "256", "--expert-ff", "256", "--heads", "4", "--kv-heads", "2", "--head-dim",
                               "64", "--weights", "q8_0", "--expert-weights", "q4_k", "--quiet", "--out", path("glm.gguf")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const auto reader = ft::gguf::Reader::open(path("glm.gguf").toStdString());
        QCOMPARE(std::string(reader.metadata().get_string("general.architecture")), std::string("glm4moe"));
        QCOMPARE(reader.metadata().get_u64("glm4moe.block_count"), 4ull);
        QCOMPARE(reader.metadata().get_u64("glm4moe.nextn_predict_layers"), 1ull);
        QCOMPARE(reader.metadata().get_u64("glm4moe.leading_dense_block_count"), 1ull);
        QCOMPARE(reader.metadata().get_u64("glm4moe.rope.dimension_count"), 32ull);
        QCOMPARE(reader.tensor("blk.0.ffn_gate.weight").type, DType::Q8_0);
        QCOMPARE(reader.tensor("blk.1.ffn_gate_exps.weight").type, DType::Q4_K);
        QCOMPARE(reader.tensor("blk.1.ffn_up_shexp.weight").type, DType::Q8_0);
        QCOMPARE(reader.tensor("blk.1.exp_probs_b.bias").type, DType::F32);
        QCOMPARE(reader.tensor("blk.3.nextn.eh_proj.weight").dims[0], 512ull);
        QVERIFY(reader.find_tensor("blk.3.ffn_down_exps.weight"));
        // 151526 BPE tokens + Qwen3's 26 added ones renumbered after them: <|endoftext|> 151526, <|im_end|> 151528.
        const auto toks = reader.metadata().get_strings("tokenizer.ggml.tokens");
        QCOMPARE(toks.size(), size_t(151552));
        QCOMPARE(std::string(toks[151528]), std::string("<|im_end|>"));
        QCOMPARE(reader.get_u64("tokenizer.ggml.eos_token_id"), 151528ull);
        const auto d = ft::model::desc_from_gguf(reader);
        QCOMPARE(d.n_layer, 3u);
        QVERIFY(d.moe.correction_bias && !d.attn.qk_norm && d.attn.qkv_bias);
        const auto w = ft::model::Weights::open(path("glm.gguf").toStdString());
        QVERIFY(!w->layer_has_experts(0) && w->layer_has_experts(1) && w->layer_has_experts(2));
        QVERIFY(!w->find("blk.3.nextn.eh_proj.weight"));
        const auto i = run_ft({"inspect", path("glm.gguf"), "--json"});
        QVERIFY2(i.code == 0, qPrintable(i.err));
        const json j = json::parse(i.out.toStdString());
        QCOMPARE(j["description"]["n_layer"].get<int>(), 3);
        QCOMPARE(j["description"]["nextn_predict_layers"].get<int>(), 1);
        QCOMPARE(j["description"]["moe"]["n_shared_expert"].get<int>(), 1);
    }

    // A small DeepSeek-V2-Lite: llama.cpp's deepseek2 keys of the latent attention (one KV head of the latent + rope
    // key), the split attn_k_b / attn_v_b, no selection bias (V2's softmax router); the file loads and runs on the CPU.
    void deepseekPresetFile() {
        const auto r = run_ft({"synth", "--preset", "deepseek-v2-lite", "--layers", "3", "--experts", "8", "--top-k", "2",
                               "--hidden", "256", "--expert-ff", "128", "--heads", "4", "--weights", "q8_0", "--quiet", "--out",
                               path("dsl.gguf")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const auto reader = ft::gguf::Reader::open(path("dsl.gguf").toStdString());
        const auto& md = reader.metadata();
        QCOMPARE(std::string(md.get_string("general.architecture")), std::string("deepseek2"));
        QCOMPARE(md.get_u64("deepseek2.attention.head_count_kv"), 1ull);
        QCOMPARE(md.get_u64("deepseek2.attention.key_length"), 576ull);
        QCOMPARE(md.get_u64("deepseek2.attention.value_length"), 512ull);
        QCOMPARE(md.get_u64("deepseek2.attention.key_length_mla"), 192ull);
        QCOMPARE(md.get_u64("deepseek2.attention.value_length_mla"), 128ull);
        QCOMPARE(md.get_u64("deepseek2.attention.kv_lora_rank"), 512ull);
        QVERIFY(!md.find("deepseek2.attention.q_lora_rank"));
        QVERIFY(!md.find("deepseek2.rope.scaling.attn_factor"));  // llama.cpp's DeepSeek convention, not a key
        QCOMPARE(reader.tensor("blk.0.attn_k_b.weight").dims[0], 128ull);  // {nope, kv_lora, heads}
        QCOMPARE(reader.tensor("blk.0.attn_k_b.weight").dims[1], 512ull);
        QCOMPARE(reader.tensor("blk.0.attn_v_b.weight").dims[1], 128ull);  // {kv_lora, v, heads}
        QVERIFY(!reader.find_tensor("blk.0.attn_kv_b.weight"));
        QVERIFY(!reader.find_tensor("blk.1.exp_probs_b.bias"));
        QVERIFY(reader.find_tensor("blk.1.ffn_gate_shexp.weight"));
        const auto d = ft::model::desc_from_gguf(reader);
        QVERIFY(d.attn.is_mla() && !d.moe.correction_bias && d.moe.gating == ft::model::Gating::softmax);
        QCOMPARE(d.attn.qk_nope_head_dim, 128u);
        QCOMPARE(d.attn.qk_rope_head_dim, 64u);
        QVERIFY(std::abs(d.rope.yarn_log_multiplier - 0.0707) < 1e-6);
        const auto run = run_ft({"run", "--model", path("dsl.gguf"), "--device", "cpu", "--ids", "1,2,3,4,5", "--max-tokens",
                                 "4", "--ignore-eos", "--print-ids"});
        QVERIFY2(run.code == 0, qPrintable(run.err));
        const auto i = run_ft({"inspect", path("dsl.gguf"), "--json"});
        QVERIFY2(i.code == 0, qPrintable(i.err));
        const json j = json::parse(i.out.toStdString());
        QVERIFY(j["description"]["attention"].contains("mla"));
    }

    // A small DeepSeek-V4-Flash: our deepseek4 keys (hyper-connections, the per-layer compress ratios, the indexer,
    // the grouped output, hash routing, the compressed branches' YaRN), a valid token → experts table (distinct expert
    // ids, i32); the file loads and runs on the CPU.
    void deepseekV4PresetFile() {
        const auto r = run_ft({"synth", "--preset", "deepseek-v4-flash", "--layers", "5", "--experts", "8", "--top-k", "2",
                               "--hidden", "256", "--expert-ff", "128", "--heads", "8", "--weights", "q8_0", "--quiet", "--out",
                               path("dsv4.gguf")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const auto reader = ft::gguf::Reader::open(path("dsv4.gguf").toStdString());
        const auto& md = reader.metadata();
        QCOMPARE(std::string(md.get_string("general.architecture")), std::string("deepseek4"));
        QCOMPARE(md.get_u64("deepseek4.hyper_connection.count"), 4ull);
        QCOMPARE(md.get_u64("deepseek4.attention.indexer.top_k"), 512ull);
        QCOMPARE(md.get_u64("deepseek4.hash_layer_count"), 3ull);
        const auto d = ft::model::desc_from_gguf(reader);
        QVERIFY(d.v4.any() && d.moe.gating == ft::model::Gating::sqrtsoftplus && d.moe.correction_bias);
        using K = ft::model::V4LayerKind;
        QCOMPARE(d.v4.layers, (std::vector<K>{K::sliding, K::sliding, K::csa, K::hca, K::csa}));
        QCOMPARE(d.v4.compress_rope.scaling, ft::model::RopeScaling::yarn);
        QCOMPARE(d.v4.compress_rope.theta, 160000.0);
        const auto& table = reader.tensor("blk.2.ffn_gate_tid2eid.weight");
        QCOMPARE(table.type, ft::kernels::DType::I32);
        const auto bytes = reader.tensor_data(table);
        for (std::uint64_t tok = 0; tok < table.dims[1]; tok += 997) {
            std::int32_t a = 0, b = 0;
            std::memcpy(&a, bytes.data() + tok * 8, 4);
            std::memcpy(&b, bytes.data() + tok * 8 + 4, 4);
            QVERIFY(a >= 0 && a < 8 && b >= 0 && b < 8 && a != b);
        }
        QVERIFY(!reader.find_tensor("blk.2.exp_probs_b.bias") && reader.find_tensor("blk.3.exp_probs_b.bias"));
        QVERIFY(!reader.find_tensor("blk.0.attn_comp_kv.weight") && reader.find_tensor("blk.2.attn_idx_q_b.weight") &&
                !reader.find_tensor("blk.3.attn_idx_q_b.weight") && reader.find_tensor("blk.3.attn_comp_kv.weight"));
        const auto run = run_ft({"run", "--model", path("dsv4.gguf"), "--device", "cpu", "--ids", "1,2,3,4,5,6,7,8,9",
                                 "--max-tokens", "4", "--ignore-eos", "--print-ids"});
        QVERIFY2(run.code == 0, qPrintable(run.err));
        const auto i = run_ft({"inspect", path("dsv4.gguf"), "--json"});
        QVERIFY2(i.code == 0, qPrintable(i.err));
        const json j = json::parse(i.out.toStdString());
        QVERIFY(j["runs"].get<bool>());
        QCOMPARE(j["description"]["deepseek_v4"]["layers"].size(), std::size_t(5));
    }

    // The fit predictor on a preset too large to write (DeepSeek-V3, 671B): from synth's plan of the file.
    void presetPlan() {
        auto r = run_ft({"inspect", "--plan", "--preset", "deepseek-v3", "--vram", "24G", "--ram", "512G", "--pcie-gbps",
                         "25", "--host-gbps", "60", "--json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        json j = json::parse(r.out.toStdString());
        QCOMPARE(j["verdict"].get<std::string>(), std::string("hybrid"));  // experts from RAM, q* split with the CPU
        const double ram = j["ram_needed"].get<double>() / 1073741824.0;
        QVERIFY2(ram > 340 && ram < 370, qPrintable(QString::number(ram)));  // Q4_K experts, Q4_K/Q8_0 rest
        QVERIFY(j["plan"]["expert_slots"].get<int>() > 0);
        r = run_ft({"inspect", "--plan", "--preset", "deepseek-v3", "--vram", "24G", "--ram", "256G", "--json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(json::parse(r.out.toStdString())["verdict"].get<std::string>(), std::string("no_fit"));
        r = run_ft({"inspect", "--plan", "--preset", "deepseek-v9"});
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("unknown preset"), qPrintable(r.err));
        r = run_ft({"inspect", "--preset", "deepseek-v3"});
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("--plan"), qPrintable(r.err));
    }

    void badInputs() {
        auto r = run_ft({"synth", "--preset", "huge", "--out", path("x.gguf")});
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("--preset"), qPrintable(r.err));
        r = run_ft({"synth", "--weights", "q8_1", "--out", path("x.gguf")});  // a block type with no quantizer here
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("--weights") && r.err.contains("q8_1"), qPrintable(r.err));
        r = run_ft({"synth", "--preset", "tiny"});
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("--out"), qPrintable(r.err));
        r = run_ft({"synth", "--arch", "mamba", "--out", path("x.gguf")});
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("--arch"), qPrintable(r.err));
        r = run_ft({"synth", "--arch", "qwen3_moe", "--preset", "gpt-oss-20b", "--out", path("x.gguf")});
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("--arch") && r.err.contains("gpt_oss"), qPrintable(r.err));
        r = run_ft({"synth", "--preset", "gpt-oss-20b", "--expert-weights", "q9", "--out", path("x.gguf")});
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("--expert-weights"), qPrintable(r.err));
        r = run_ft({"synth", "--top-k", "17", "--out", path("x.gguf")});  // more than 16 experts
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("expert_used_count"), qPrintable(r.err));
        QVERIFY(!QFile::exists(path("x.gguf")));
        r = run_ft({"inspect", path("does-not-exist.gguf")});
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("does-not-exist.gguf"), qPrintable(r.err));
        // A truncated file: the reader's clear error, no crash.
        {
            QFile in(path("a.gguf")), out(path("trunc.gguf"));
            QVERIFY(in.open(QIODevice::ReadOnly) && out.open(QIODevice::WriteOnly));
            out.write(in.read(4096));
        }
        r = run_ft({"inspect", path("trunc.gguf")});
        QVERIFY(r.code != 0 && r.code != -2);
        QVERIFY2(r.err.contains("trunc.gguf"), qPrintable(r.err));
        // A qwen3moe file that misses a required key still inspects, and says which key.
        {
            ft::gguf::Writer w(path("nokey.gguf").toStdString());
            ft::model::desc_to_gguf(ft::synth::synth_desc(ft::model::ArchId::qwen3_moe, "tiny", {}), w.metadata());
            w.metadata().erase("qwen3moe.embedding_length");
            w.write_header();
            w.finish();
        }
        const json j = ft::model::inspect_path(path("nokey.gguf").toStdString());
        QVERIFY2(j["description_error"].get<std::string>().find("qwen3moe.embedding_length") != std::string::npos,
                 j.dump().c_str());
    }
};

FT_TEST_MAIN(TestSynth)
#include "test_synth.moc"
