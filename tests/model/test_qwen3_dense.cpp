// Dense Qwen3 (qwen3: Qwen3ForCausalLM, GGUF "qwen3"), a graph without MoE blocks, before its transformers fixture
// exists: config.json reading (no experts; Qwen3's sliding-window layers), the GGUF keys (none of the expert ones),
// the whole model on the CPU against a reference written here the plain way — every layer's attention computed
// over all positions of the sequence, then the later ones masked to -inf before the softmax; GQA, per-head q/k
// RMSNorm, NeoX RoPE, SwiGLU — for an untied and a tied LM head, `ft convert` to GGUF giving the same logits,
// `ft synth --preset qwen3-dense-tiny` with `ft inspect` / `ft run`, and the planner's and fit predictor's answer for
// a model with no expert (every MoE backend resident; Qwen3-32B on 80 GB and on 16 GB). The dense Qwen3.5 / 3.6
// (qwen3_5) against the Qwen3.5-MoE path on the same weights as a one-expert MoE, its GGUF and presets. Built a
// second time with FT_QWEN3_DENSE_GPU (test_qwen3_dense_gpu, label gpu) for the GPU runner on the dense Qwen3.
#include "memory/planner.h"
#include "model/arch.h"
#include "model/convert_hf.h"
#include "model/model_desc.h"
#include "model/model_tensors.h"
#include "model/weights.h"
#include "synth/synth_tokenizer.h"

#include <QTemporaryDir>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "format/gguf.h"
#include "ft/engine.h"
#include "ft/error.h"
#include "ft/gpu.h"
#include "ft_process.h"
#include "ft_test.h"
#include "golden_fixture.h"

using nlohmann::json;
namespace fs = std::filesystem;
using ft::test::run_ft;

namespace {

constexpr int kVocab = 300, kHidden = 64, kFf = 96, kLayers = 2, kHeads = 4, kKvHeads = 2, kHeadDim = 32;
constexpr double kTheta = 1e6, kEps = 1e-6;

json tiny_config(bool tied) {
    return json{{"architectures", {"Qwen3ForCausalLM"}},
                {"model_type", "qwen3"},
                {"vocab_size", kVocab},
                {"hidden_size", kHidden},
                {"intermediate_size", kFf},
                {"num_hidden_layers", kLayers},
                {"num_attention_heads", kHeads},
                {"num_key_value_heads", kKvHeads},
                {"head_dim", kHeadDim},
                {"hidden_act", "silu"},
                {"rms_norm_eps", kEps},
                {"max_position_embeddings", 4096},
                {"rope_theta", kTheta},
                {"use_sliding_window", false},
                {"sliding_window", nullptr},
                {"max_window_layers", kLayers},
                {"attention_bias", false},
                {"tie_word_embeddings", tied},
                {"eos_token_id", 1}};
}

// A dense Qwen3.5 / 3.6 text config (Qwen3_5ForCausalLM), tiny: three Gated DeltaNet layers and one gated
// attention layer, a dense FFN on each.
json qwen35_dense_config() {
    return json{{"architectures", {"Qwen3_5ForCausalLM"}},
                {"model_type", "qwen3_5_text"},
                {"vocab_size", kVocab},
                {"hidden_size", kHidden},
                {"intermediate_size", kFf},
                {"num_hidden_layers", 4},
                {"num_attention_heads", 4},
                {"num_key_value_heads", 2},
                {"head_dim", 32},
                {"linear_num_key_heads", 2},
                {"linear_num_value_heads", 4},
                {"linear_key_head_dim", 16},
                {"linear_value_head_dim", 16},
                {"linear_conv_kernel_dim", 4},
                {"layer_types", {"linear_attention", "linear_attention", "linear_attention", "full_attention"}},
                {"rms_norm_eps", kEps},
                {"max_position_embeddings", 4096},
                {"rope_parameters", {{"rope_type", "default"}, {"rope_theta", 1e7}, {"partial_rotary_factor", 0.25},
                                     {"mrope_section", {2, 1, 1}}}},
                {"tie_word_embeddings", false},
                {"eos_token_id", 1}};
}

using Tensors = std::map<std::string, std::pair<std::vector<std::uint64_t>, std::vector<float>>>;

void write_safetensors(const fs::path& path, const Tensors& t) {
    json header = json::object();
    std::uint64_t off = 0;
    for (const auto& [name, v] : t) {
        header[name] = {{"dtype", "F32"}, {"shape", v.first}, {"data_offsets", {off, off + v.second.size() * 4}}};
        off += v.second.size() * 4;
    }
    std::string h = header.dump();
    while (h.size() % 8) h.push_back(' ');
    std::ofstream out(path, std::ios::binary);
    const std::uint64_t n = h.size();
    out.write(reinterpret_cast<const char*>(&n), 8);
    out.write(h.data(), std::streamsize(h.size()));
    for (const auto& [name, v] : t) out.write(reinterpret_cast<const char*>(v.second.data()), std::streamsize(v.second.size() * 4));
}

// A Hugging Face folder of the tiny config: every tensor of the table under its Hugging Face name, random values
// (norms near 1); returns the tensors for the reference.
Tensors make_hf_folder(const fs::path& dir, const json& config) {
    fs::create_directories(dir);
    std::ofstream(dir / "config.json") << config.dump(1);
    const auto tok = ft::synth::synth_fit_tokenizer(fs::path(FT_SOURCE_DIR) / "resources/tokenizers/qwen3",
                                                    config["vocab_size"].get<std::uint32_t>(), dir / "tok");
    for (const char* f : {"tokenizer.json", "tokenizer_config.json"})
        if (fs::exists(tok.dir / f)) fs::copy_file(tok.dir / f, dir / f, fs::copy_options::overwrite_existing);
    const ft::model::ModelDesc d = ft::model::desc_from_hf_config(config, "config.json");
    std::mt19937 rng(45);
    std::normal_distribution<float> n01;
    Tensors t;
    for (const ft::model::TensorSpec& s : ft::model::arch_tensors(d)) {
        std::vector<std::uint64_t> shape = s.dims.size() == 1 ? std::vector<std::uint64_t>{s.dims[0]}
                                                              : std::vector<std::uint64_t>{s.dims[1], s.dims[0]};
        if (s.role == ft::model::TensorRole::ssm_conv1d) shape = {s.dims[1], 1, s.dims[0]};  // [channels, 1, kernel]
        std::uint64_t count = 1;
        for (auto n : shape) count *= n;
        std::vector<float> v(static_cast<std::size_t>(count));
        const bool norm = s.is_norm();
        // Embedding rows of unit scale; matrices 1/sqrt(in); the head 3/sqrt(in) so the logits spread.
        const float std = norm ? 0.2f : s.role == ft::model::TensorRole::token_embd ? 1.f
                          : s.role == ft::model::TensorRole::output                  ? 3.f / std::sqrt(float(shape[1]))
                                                                                     : 1.f / std::sqrt(float(shape.back()));
        for (float& x : v) x = (norm ? 1.f : 0.f) + std * n01(rng);
        t[s.hf_names[0]] = {std::move(shape), std::move(v)};
    }
    write_safetensors(dir / "model.safetensors", t);
    return t;
}

std::vector<std::vector<std::int32_t>> sequences() {
    std::mt19937 rng(7);
    std::vector<std::vector<std::int32_t>> seqs(2);
    for (int i = 0; i < 33; ++i) seqs[0].push_back(std::int32_t(rng() % 290));
    for (int i = 0; i < 9; ++i) seqs[1].push_back(std::int32_t(rng() % 290));
    return seqs;
}

ft::LoadOptions load_options(const fs::path& model, ft::Device device = ft::Device::cpu) {
    ft::LoadOptions o;
    o.model = model;
    o.device = device;
    o.n_ctx = 256;
    o.max_sequences = 1;
    return o;
}

std::vector<float> logits_of(const fs::path& model) {
    ft::Engine e;
    e.load_sync(load_options(model));
    return ft::test::engine_logits(e, sequences());
}

// y[rows] = W [rows, cols] · x, in double.
std::vector<double> matvec(const std::vector<float>& w, int rows, int cols, const std::vector<double>& x) {
    std::vector<double> y(std::size_t(rows), 0.0);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) y[std::size_t(r)] += double(w[std::size_t(r) * std::size_t(cols) + std::size_t(c)]) * x[std::size_t(c)];
    return y;
}

void rms(double* x, int n, const std::vector<float>& w) {
    double s = 0;
    for (int i = 0; i < n; ++i) s += x[i] * x[i];
    const double inv = 1.0 / std::sqrt(s / n + kEps);
    for (int i = 0; i < n; ++i) x[i] *= inv * w[std::size_t(i)];
}

// NeoX RoPE on one head: pairs (x[i], x[i + d/2]) turned by pos · theta^(-2i/d).
void rope(double* x, int pos) {
    const int half = kHeadDim / 2;
    for (int i = 0; i < half; ++i) {
        const double a = pos * std::pow(kTheta, -2.0 * i / kHeadDim), c = std::cos(a), s = std::sin(a);
        const double x0 = x[i], x1 = x[i + half];
        x[i] = x0 * c - x1 * s;
        x[i + half] = x0 * s + x1 * c;
    }
}

// The model's logits [T, vocab] for one sequence, the plain way. Each layer's attention scores every query against
// every position of the sequence (future ones included), then sets the later positions to -inf before the softmax.
std::vector<float> reference(const Tensors& t, bool tied, const std::vector<std::int32_t>& seq) {
    auto W = [&t](const std::string& n) -> const std::vector<float>& { return t.at(n).second; };
    const int T = int(seq.size()), E = kHidden, Q = kHeads * kHeadDim, KV = kKvHeads * kHeadDim;
    const std::size_t n = seq.size();
    std::vector<std::vector<double>> x(n, std::vector<double>(static_cast<std::size_t>(E)));
    for (int p = 0; p < T; ++p)
        for (int i = 0; i < E; ++i) x[std::size_t(p)][std::size_t(i)] = W("model.embed_tokens.weight")[std::size_t(seq[std::size_t(p)]) * E + std::size_t(i)];
    for (int il = 0; il < kLayers; ++il) {
        const std::string h = "model.layers." + std::to_string(il) + ".";
        std::vector<std::vector<double>> q(n), k(n), v(n);
        for (int p = 0; p < T; ++p) {
            std::vector<double> xn = x[std::size_t(p)];
            rms(xn.data(), E, W(h + "input_layernorm.weight"));
            q[std::size_t(p)] = matvec(W(h + "self_attn.q_proj.weight"), Q, E, xn);
            k[std::size_t(p)] = matvec(W(h + "self_attn.k_proj.weight"), KV, E, xn);
            v[std::size_t(p)] = matvec(W(h + "self_attn.v_proj.weight"), KV, E, xn);
            for (int hh = 0; hh < kHeads; ++hh) {
                rms(q[std::size_t(p)].data() + hh * kHeadDim, kHeadDim, W(h + "self_attn.q_norm.weight"));
                rope(q[std::size_t(p)].data() + hh * kHeadDim, p);
            }
            for (int hh = 0; hh < kKvHeads; ++hh) {
                rms(k[std::size_t(p)].data() + hh * kHeadDim, kHeadDim, W(h + "self_attn.k_norm.weight"));
                rope(k[std::size_t(p)].data() + hh * kHeadDim, p);
            }
        }
        for (int p = 0; p < T; ++p) {
            std::vector<double> att(std::size_t(Q), 0.0);
            for (int hh = 0; hh < kHeads; ++hh) {
                const int g = hh / (kHeads / kKvHeads);
                std::vector<double> s(n);
                for (int j = 0; j < T; ++j) {
                    double dot = 0;
                    for (int i = 0; i < kHeadDim; ++i) dot += q[std::size_t(p)][std::size_t(hh * kHeadDim + i)] * k[std::size_t(j)][std::size_t(g * kHeadDim + i)];
                    s[std::size_t(j)] = dot / std::sqrt(double(kHeadDim));
                }
                for (int j = p + 1; j < T; ++j) s[std::size_t(j)] = -INFINITY;  // the causal mask
                double mx = -INFINITY, sum = 0;
                for (double z : s) mx = std::max(mx, z);
                for (double& z : s) sum += (z = std::exp(z - mx));
                for (int j = 0; j < T; ++j)
                    for (int i = 0; i < kHeadDim; ++i)
                        att[std::size_t(hh * kHeadDim + i)] += s[std::size_t(j)] / sum * v[std::size_t(j)][std::size_t(g * kHeadDim + i)];
            }
            const auto o = matvec(W(h + "self_attn.o_proj.weight"), E, Q, att);
            for (int i = 0; i < E; ++i) x[std::size_t(p)][std::size_t(i)] += o[std::size_t(i)];
            std::vector<double> xn = x[std::size_t(p)];
            rms(xn.data(), E, W(h + "post_attention_layernorm.weight"));
            const auto gate = matvec(W(h + "mlp.gate_proj.weight"), kFf, E, xn);
            const auto up = matvec(W(h + "mlp.up_proj.weight"), kFf, E, xn);
            std::vector<double> a(static_cast<std::size_t>(kFf));
            for (int i = 0; i < kFf; ++i) a[std::size_t(i)] = gate[std::size_t(i)] / (1 + std::exp(-gate[std::size_t(i)])) * up[std::size_t(i)];
            const auto down = matvec(W(h + "mlp.down_proj.weight"), E, kFf, a);
            for (int i = 0; i < E; ++i) x[std::size_t(p)][std::size_t(i)] += down[std::size_t(i)];
        }
    }
    std::vector<float> out;
    for (int p = 0; p < T; ++p) {
        std::vector<double> xn = x[std::size_t(p)];
        rms(xn.data(), E, W("model.norm.weight"));
        const auto l = matvec(W(tied ? "model.embed_tokens.weight" : "lm_head.weight"), kVocab, E, xn);
        for (double z : l) out.push_back(float(z));
    }
    return out;
}

}  // namespace

class TestQwen3Dense : public QObject {
    Q_OBJECT
    QTemporaryDir tmp;

    std::string path(const char* name) const { return (fs::path(tmp.path().toStdString()) / name).string(); }

    static std::vector<float> reference_logits(const Tensors& t, bool tied) {
        std::vector<float> want;
        for (const auto& s : sequences()) {
            const auto r = reference(t, tied, s);
            want.insert(want.end(), r.begin(), r.end());
        }
        return want;
    }

private slots:
    void initTestCase() { QVERIFY(tmp.isValid()); }

    void configHasNoExperts() {
        const ft::model::ModelDesc d = ft::model::desc_from_hf_config(tiny_config(false), "config.json");
        QCOMPARE(d.arch, ft::model::ArchId::qwen3);
        QCOMPARE(d.moe.n_expert, 0u);
        QCOMPARE(d.n_moe_layers(), 0u);
        QCOMPARE(d.n_ff, std::uint32_t(kFf));
        QVERIFY(d.attn.qk_norm);
        QVERIFY(d.attn.swa_layers.empty());
        QCOMPARE(ft::model::arch_of_hf_model_type("qwen3"), &ft::model::qwen3_arch());
        // No MoE tensor in the table: attention, norms and a dense FFN per layer.
        for (const auto& s : ft::model::arch_tensors(d)) QVERIFY2(!s.is_expert() && s.name.find("ffn_gate_inp") == std::string::npos, s.name.c_str());
        // Qwen3's sliding window: the layers from max_window_layers on.
        json c = tiny_config(false);
        c["use_sliding_window"] = true, c["sliding_window"] = 16, c["max_window_layers"] = 1;
        const auto sw = ft::model::desc_from_hf_config(c, "config.json");
        QCOMPARE(sw.attn.sliding_window, 16u);
        QCOMPARE(sw.attn.swa_layers, (std::vector<bool>{false, true}));
        // An intermediate_size is required: a dense model without it says so.
        c = tiny_config(false);
        c.erase("intermediate_size");
        try {
            ft::model::desc_from_hf_config(c, "config.json");
            QFAIL("accepted");
        } catch (const ft::Error& e) {
            QVERIFY2(std::string(e.what()).find("intermediate_size") != std::string::npos, e.what());
        }
    }

    // llama.cpp's qwen3 files carry no expert keys: we write none and read the description back unchanged; a MoE
    // architecture's file without expert_count is still refused.
    void ggufKeysWithoutExperts() {
        const ft::model::ModelDesc d = ft::model::desc_from_hf_config(tiny_config(false), "config.json");
        ft::gguf::Metadata md;
        ft::model::desc_to_gguf(d, md);
        QCOMPARE(std::string(md.get_string("general.architecture")), std::string("qwen3"));
        for (const auto& kv : md.entries()) QVERIFY2(kv.key.find("expert") == std::string::npos, kv.key.c_str());
        const ft::model::ModelDesc back = ft::model::desc_from_gguf(md);
        QCOMPARE(back.arch, ft::model::ArchId::qwen3);
        QCOMPARE(back.n_ff, d.n_ff);
        QCOMPARE(back.moe.n_expert, 0u);
        QVERIFY(back.attn.qk_norm);
        ft::model::ModelDesc moe = d;
        moe.arch = ft::model::ArchId::qwen3_moe;
        try {
            ft::model::validate(moe);
            QFAIL("a MoE architecture without experts validated");
        } catch (const ft::Error& e) {
            QVERIFY2(std::string(e.what()).find("expert_count") != std::string::npos, e.what());
        }
    }

    void cpuMatchesMaskedReference_data() {
        QTest::addColumn<bool>("tied");
        QTest::newRow("untied head (Qwen3-8B/32B)") << false;
        QTest::newRow("tied head (Qwen3-0.6B-4B)") << true;
    }
    void cpuMatchesMaskedReference() {
        QFETCH(bool, tied);
        const fs::path hf = path(tied ? "hf-tied" : "hf");
        const Tensors t = make_hf_folder(hf, tiny_config(tied));
        const auto got = logits_of(hf);
        const auto want = reference_logits(t, tied);
        QCOMPARE(got.size(), want.size());
        const int positions = int(want.size() / kVocab);
        const auto a = ft::test::compare(got.data(), want.data(), positions, kVocab);
        qInfo("CPU vs reference: min cosine %.9f, max |Δlogit| %.3g, top-1 %d of %d", a.min_cos, a.max_abs, a.top1_same,
              positions);
        QVERIFY(a.min_cos > 0.99999);
        QCOMPARE(a.top1_same, positions);
        // The reference is not trivially close: the logits spread well beyond the difference.
        double spread = 0;
        for (float z : want) spread = std::max(spread, double(std::abs(z)));
        QVERIFY(spread > 1000 * a.max_abs);
    }

    // ft convert: the GGUF (llama.cpp's qwen3 names and keys) gives the folder's logits.
    void convertKeepsTheModel() {
        const fs::path hf = path("hf");
        QVERIFY(fs::exists(hf / "model.safetensors"));  // cpuMatchesMaskedReference made it
        const auto from_hf = logits_of(hf);
        ft::model::ConvertOptions co;
        co.out = path("hf.gguf");
        co.type = ft::kernels::DType::F32;
        ft::model::convert_hf_to_gguf(hf, co);
        const auto r = ft::gguf::Reader::open(co.out);
        QCOMPARE(std::string(r.metadata().get_string("general.architecture")), std::string("qwen3"));
        QVERIFY(r.find_tensor("blk.0.ffn_gate.weight") && r.find_tensor("blk.1.attn_k_norm.weight"));
        QVERIFY(!r.metadata().contains("qwen3.expert_count"));
        const auto from_gguf = logits_of(co.out);
        QCOMPARE(from_gguf.size(), from_hf.size());
        const int positions = int(from_hf.size() / kVocab);
        const auto a = ft::test::compare(from_gguf.data(), from_hf.data(), positions, kVocab);
        qInfo("GGUF vs folder: min cosine %.9f, max |Δlogit| %.3g", a.min_cos, a.max_abs);
        QVERIFY(a.min_cos > 0.999999);
        QCOMPARE(a.top1_same, positions);
    }

    void synthInspectRun() {
        const QString out = QString::fromStdString(path("synth.gguf"));
        const auto r = run_ft({"synth", "--preset", "qwen3-dense-tiny", "--weights", "q8_0", "--seed", "3", "--quiet", "--out", out});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const auto w = ft::model::Weights::open(path("synth.gguf"));
        QCOMPARE(w->desc().arch, ft::model::ArchId::qwen3);
        QCOMPARE(w->expert_bytes(), std::uint64_t(0));
        const auto inspect = run_ft({"inspect", out});
        QVERIFY2(inspect.code == 0, qPrintable(inspect.err));
        QVERIFY2(inspect.out.contains("none (dense: no MoE block)") && !inspect.out.contains("gating"), qPrintable(inspect.out));
        const auto run = run_ft({"run", "--model", out, "--device", "cpu", "--ctx", "128", "--temperature", "0",
                                 "--max-tokens", "6", "--ignore-eos", "--print-ids", "--prompt", "hello"});
        QVERIFY2(run.code == 0, qPrintable(run.err));
        // The CPU MoE benchmark has nothing to measure: it says so instead of reporting 0 GB/s.
        const auto bench = run_ft({"bench", "cpu-moe", "--model", out});
        QVERIFY2(bench.code != 0 && bench.err.contains("no MoE block"), qPrintable(bench.out + bench.err));
        // The same greedy continuation twice in one engine (the cache reused): deterministic.
        ft::Engine e;
        ft::LoadOptions o;
        o.model = path("synth.gguf");
        o.device = ft::Device::cpu;
        o.n_ctx = 128;
        o.max_sequences = 1;
        e.load_sync(o);
        const auto g1 = ft::test::greedy(e, sequences()[1], 6), g2 = ft::test::greedy(e, sequences()[1], 6);
        QCOMPARE(int(g1.size()), 6);
        QCOMPARE(g1, g2);
    }

    // The planner: no expert to place, so every MoE backend is resident (a note says so when one was asked for); the
    // fit predictor: Qwen3-32B (Q4_K, ≈ 19 GB) on the GPU at 80 GB, on the CPU at 16 GB, without dividing by zero.
    void plannerHasNoExperts() {
        const ft::model::Arch* arch = ft::model::arch_of_preset("qwen3-32b");
        QVERIFY(arch && arch->id == ft::model::ArchId::qwen3);
        const auto it = std::find_if(arch->presets.begin(), arch->presets.end(), [](const auto& p) { return p.name == "qwen3-32b"; });
        const ft::model::ModelDesc d = it->desc();
        QCOMPARE(d.n_layer, 64u);
        const auto g = ft::memory::geometry_of(d, 19'000'000'000ull, 0);
        QCOMPARE(g.n_moe_layers, 0);
        for (const char* backend : {"auto", "resident", "offload", "hybrid", "cpu", "static"}) {
            ft::memory::PlanRequest r;
            r.device_total = r.device_free = 80ull << 30;
            r.n_ctx = 8192;
            r.max_sequences = 2;
            r.backend = backend;
            const auto p = ft::memory::plan_memory(g, r);
            QCOMPARE(p.backend, std::string("resident"));
            QCOMPARE(p.expert_slots, 0);
            QCOMPARE(p.experts, std::uint64_t(0));
            QVERIFY(p.kv_tokens >= 8192);
            const bool noted = std::any_of(p.notes.begin(), p.notes.end(), [](const std::string& n) { return n.find("no MoE block") != std::string::npos; });
            QCOMPARE(noted, std::string(backend) != "auto" && std::string(backend) != "resident");
        }
        const auto big = run_ft({"inspect", "--plan", "--preset", "qwen3-32b", "--vram", "80G", "--ram", "128G"});
        QVERIFY2(big.code == 0 && big.out.contains("runs on the GPU"), qPrintable(big.out + big.err));
        const auto small = run_ft({"inspect", "--plan", "--preset", "qwen3-32b", "--vram", "16G", "--ram", "128G"});
        QVERIFY2(small.code == 0 && small.out.contains("CPU only"), qPrintable(small.out + small.err));
        QVERIFY2(!small.out.contains("nan") && !small.out.contains("inf "), qPrintable(small.out));
    }

    // The dense Qwen3.5 / 3.6 (qwen3_5, in the qwen3_5_moe folder): its config, and its model against the Qwen3.5-MoE
    // path, already checked against transformers, on the same weights with one expert chosen top-1 (the softmax of
    // one router logit is 1, so the MoE block is that expert's FFN): the logits agree. Then its GGUF (llama.cpp's
    // qwen35 names, value heads tiled) gives the folder's logits, and ft synth / the fit predictor know the 27B.
    void qwen35DenseEqualsOneExpertMoe() {
        const json dc = qwen35_dense_config();
        const ft::model::ModelDesc d = ft::model::desc_from_hf_config(dc, "config.json");
        QCOMPARE(d.arch, ft::model::ArchId::qwen3_5);
        QCOMPARE(d.moe.n_expert, 0u);
        QCOMPARE(d.n_ff, std::uint32_t(kFf));
        QCOMPARE(d.linear.n_linear(), 3u);
        QCOMPARE(d.rope.n_rot, 8u);
        const fs::path dense = path("q35-dense");
        Tensors t = make_hf_folder(dense, dc);
        // The same weights as a one-expert Qwen3.5-MoE: mlp.gate_proj → mlp.experts.0.gate_proj, …, and a router.
        json mc = dc;
        mc["architectures"] = {"Qwen3_5MoeForCausalLM"};
        mc["model_type"] = "qwen3_5_moe_text";
        mc["num_experts"] = 1, mc["num_experts_per_tok"] = 1, mc["moe_intermediate_size"] = kFf;
        const fs::path moe = path("q35-moe");
        fs::create_directories(moe);
        std::ofstream(moe / "config.json") << mc.dump(1);
        for (const char* f : {"tokenizer.json", "tokenizer_config.json"})
            if (fs::exists(dense / f)) fs::copy_file(dense / f, moe / f);
        Tensors m;
        for (auto& [name, v] : t) {
            std::string n = name;
            for (const char* proj : {"gate_proj", "up_proj", "down_proj"}) {
                const std::string from = std::string("mlp.") + proj, to = std::string("mlp.experts.0.") + proj;
                if (const auto at = n.find(from); at != std::string::npos) n.replace(at, from.size(), to);
            }
            m[n] = v;
        }
        for (int il = 0; il < 4; ++il) m["model.layers." + std::to_string(il) + ".mlp.gate.weight"] = {{1, kHidden}, std::vector<float>(kHidden, 0.1f)};
        write_safetensors(moe / "model.safetensors", m);
        QCOMPARE(ft::model::desc_from_hf_dir(moe).moe.n_expert, 1u);
        const auto a_dense = logits_of(dense), a_moe = logits_of(moe);
        QCOMPARE(a_dense.size(), a_moe.size());
        const int positions = int(a_dense.size() / kVocab);
        const auto a = ft::test::compare(a_dense.data(), a_moe.data(), positions, kVocab);
        qInfo("dense Qwen3.5 vs one-expert Qwen3.5-MoE: min cosine %.9f, max |Δlogit| %.3g", a.min_cos, a.max_abs);
        QVERIFY(a.min_cos > 0.999999);
        QCOMPARE(a.top1_same, positions);
        // Without its FFN the dense model is another model: the comparison sees the FFN.
        for (int il = 0; il < 4; ++il)
            for (float& x : t["model.layers." + std::to_string(il) + ".mlp.down_proj.weight"].second) x = 0;
        const fs::path no_ffn = path("q35-no-ffn");
        make_hf_folder(no_ffn, dc);
        write_safetensors(no_ffn / "model.safetensors", t);
        const auto b = logits_of(no_ffn);
        QVERIFY(ft::test::compare(b.data(), a_moe.data(), positions, kVocab).min_cos < 0.999);
        // ft convert: llama.cpp's qwen35 GGUF (value heads tiled), no expert keys.
        ft::model::ConvertOptions co;
        co.out = path("q35-dense.gguf");
        co.type = ft::kernels::DType::F32;
        ft::model::convert_hf_to_gguf(dense, co);
        const auto r = ft::gguf::Reader::open(co.out);
        QCOMPARE(std::string(r.metadata().get_string("general.architecture")), std::string("qwen35"));
        QVERIFY(!r.metadata().contains("qwen35.expert_count") && r.metadata().contains("qwen35.rope.dimension_sections"));
        QVERIFY(r.find_tensor("blk.0.ssm_out.weight") && r.find_tensor("blk.3.ffn_down.weight"));
        const auto g = logits_of(co.out);
        const auto c = ft::test::compare(g.data(), a_dense.data(), positions, kVocab);
        qInfo("qwen35 GGUF vs folder: min cosine %.9f, max |Δlogit| %.3g", c.min_cos, c.max_abs);
        QVERIFY(c.min_cos > 0.999999);
        QCOMPARE(c.top1_same, positions);
        // ft synth and the fit predictor: the tiny preset runs; Qwen3.6-27B (Q4_K ≈ 16 GB) fits 80 GB resident.
        const QString out = QString::fromStdString(path("q35-synth.gguf"));
        const auto sy = run_ft({"synth", "--preset", "qwen3.5-dense-tiny", "--weights", "q8_0", "--seed", "3", "--quiet", "--out", out});
        QVERIFY2(sy.code == 0, qPrintable(sy.err));
        ft::Engine e;
        e.load_sync(load_options(out.toStdString()));
        QCOMPARE(int(ft::test::greedy(e, sequences()[1], 4).size()), 4);
        const auto plan = run_ft({"inspect", "--plan", "--preset", "qwen3.6-27b", "--vram", "80G", "--ram", "128G"});
        QVERIFY2(plan.code == 0 && plan.out.contains("runs on the GPU"), qPrintable(plan.out + plan.err));
    }

#ifdef FT_QWEN3_DENSE_GPU
    // The GPU runner on the same model (test_qwen3_dense_gpu, on the GPU machine): the exact prefill (f32 GEMMs and
    // attention, f32 KV) against the reference as tightly as the CPU, the default one (BF16 tensor-core products,
    // f16 KV) within BF16's reach, the decode graph's greedy continuation equal to the CPU's, and --moe-backend
    // offload giving the resident plan (no expert cache) and the same logits.
    void gpuMatchesMaskedReference() {
        if (ft::gpu_devices().empty()) QSKIP(qPrintable(QString::fromStdString("no usable GPU: " + ft::gpu_unavailable_reason())));
        const fs::path hf = path("hf-gpu");
        const Tensors t = make_hf_folder(hf, tiny_config(false));
        const auto want = reference_logits(t, false);
        const int positions = int(want.size() / kVocab);
        for (const bool exact : {true, false}) {
            ft::Engine e;
            ft::LoadOptions o = load_options(hf, ft::Device::cuda);
            o.gpu_exact_prefill = exact;
            e.load_sync(o);
            const auto got = ft::test::engine_logits(e, sequences());
            QCOMPARE(got.size(), want.size());
            const auto a = ft::test::compare(got.data(), want.data(), positions, kVocab);
            qInfo("GPU (%s prefill) vs reference: min cosine %.9f, max |Δlogit| %.3g, top-1 %d of %d",
                  exact ? "exact" : "BF16", a.min_cos, a.max_abs, a.top1_same, positions);
            QVERIFY(a.min_cos > (exact ? 0.99999 : 0.999));
            QVERIFY(a.top1_same >= (exact ? positions : positions * 9 / 10));
            QCOMPARE(e.stats().plan.backend, std::string("resident"));
            QCOMPARE(e.stats().plan.expert_slots, 0);
            if (exact) {
                ft::Engine c;
                c.load_sync(load_options(hf));
                QCOMPARE(ft::test::greedy(e, sequences()[0], 12), ft::test::greedy(c, sequences()[0], 12));
            }
        }
        ft::Engine off;
        ft::LoadOptions o = load_options(hf, ft::Device::cuda);
        o.gpu_exact_prefill = true;
        o.moe_backend = "offload";
        off.load_sync(o);
        QCOMPARE(off.stats().plan.backend, std::string("resident"));
        const auto got = ft::test::engine_logits(off, sequences());
        const auto a = ft::test::compare(got.data(), want.data(), positions, kVocab);
        QVERIFY(a.min_cos > 0.99999);
        // No routing to record: refused with the reason.
        ft::Engine rec;
        ft::LoadOptions ro = load_options(hf, ft::Device::cuda);
        ro.record_routing = path("routing.trace");
        try {
            rec.load_sync(ro);
            QFAIL("--record-routing accepted on a dense model");
        } catch (const ft::Error& e) {
            QVERIFY2(std::string(e.what()).find("no MoE block") != std::string::npos, e.what());
        }
    }
#endif
};

#ifdef FT_QWEN3_DENSE_GPU
FT_GPU_TEST_MAIN(TestQwen3Dense)
#else
QTEST_GUILESS_MAIN(TestQwen3Dense)
#endif
#include "test_qwen3_dense.moc"
