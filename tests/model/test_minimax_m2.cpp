// MiniMax-M2 / M2.5 (minimax_m2) before its transformers fixture exists: config.json reading (and the rotary width we
// refuse when MiniMax's rotary_dim and transformers' factor disagree), the tensor table's names, `ft synth --preset
// minimax-m2-tiny`, the CPU attention block — q and k each RMS-normalised over all heads of a token at once, NeoX
// RoPE on half of each head — against a reference written here the plain way (per-head norms instead move the
// output), and a Hugging Face folder under MiniMax's published names, the same weights under transformers' in-memory
// names (mlp.gate, mlp.e_score_correction_bias, 3-D experts) and `ft convert`'s GGUF of it giving the same logits.
// Built again with FT_MINIMAX_M2_GPU (test_minimax_m2_gpu, label gpu) for the GPU runner on that folder.
// Engine internals first: exec/runner.h names a parameter `slots`, which Qt's headers define away.
#include "cpu/cpu_attention.h"
#include "cpu/worker_pool.h"
#include "exec/runner.h"
#include "format/gguf.h"
#include "kv/kv_cache.h"
#include "model/arch.h"
#include "model/convert_hf.h"
#include "model/model_desc.h"
#include "model/model_tensors.h"
#include "model/weights.h"
#include "synth/synth_tokenizer.h"

#include <QTemporaryDir>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

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

using Tensors = std::map<std::string, std::pair<std::vector<std::uint64_t>, std::vector<float>>>;

// A MiniMax-M2-shaped config.json, tiny: 3 layers, 4/2 heads of 16 rotating 8 dims, 8 experts top-2.
json tiny_config() {
    return json{{"architectures", {"MiniMaxM2ForCausalLM"}},
                {"model_type", "minimax_m2"},
                {"vocab_size", 300},
                {"hidden_size", 64},
                {"intermediate_size", 32},
                {"num_hidden_layers", 3},
                {"num_attention_heads", 4},
                {"num_key_value_heads", 2},
                {"head_dim", 16},
                {"num_local_experts", 8},
                {"num_experts_per_tok", 2},
                {"rotary_dim", 8},
                {"rms_norm_eps", 1e-6},
                {"max_position_embeddings", 4096},
                {"rope_parameters", {{"rope_type", "default"}, {"rope_theta", 5000000.0}, {"partial_rotary_factor", 0.5}}},
                {"tie_word_embeddings", false},
                {"eos_token_id", 1}};
}

// An F32 safetensors file of the given tensors.
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

// Every tensor of the tiny config's table under its first Hugging Face name (MiniMax's published ones: per-expert
// block_sparse_moe.experts.E.w1/w2/w3), random values (norms near 1, the correction bias >= 0).
Tensors published_tensors(const json& config) {
    const ft::model::ModelDesc d = ft::model::desc_from_hf_config(config, "config.json");
    std::mt19937 rng(45);
    std::normal_distribution<float> n01;
    Tensors t;
    auto put = [&](const std::string& name, std::vector<std::uint64_t> shape, float mean, float sd) {
        std::uint64_t count = 1;
        for (auto s : shape) count *= s;
        std::vector<float> v(count);
        for (float& x : v) x = mean + sd * n01(rng);
        t[name] = {std::move(shape), std::move(v)};
    };
    for (const ft::model::TensorSpec& s : ft::model::arch_tensors(d)) {
        if (s.is_expert()) {
            for (const std::string& n : s.hf_names) put(n, {s.dims[1], s.dims[0]}, 0.f, 1.f / std::sqrt(float(s.dims[0])));
        } else if (s.role == ft::model::TensorRole::ffn_exp_probs_b) {
            put(s.hf_names[0], {s.dims[0]}, 0.f, 1.f);
            for (float& x : t[s.hf_names[0]].second) x = 0.15f * std::abs(x);
        } else if (s.dims.size() == 1) {
            put(s.hf_names[0], {s.dims[0]}, 1.f, 0.2f);
        } else {
            put(s.hf_names[0], {s.dims[1], s.dims[0]}, 0.f, 1.f / std::sqrt(float(s.dims[0])));
        }
    }
    return t;
}

// The same weights under transformers' in-memory names: mlp.gate.weight, mlp.e_score_correction_bias and the 3-D
// mlp.experts.gate_up_proj [E, 2F, H] (gate rows, then up) / down_proj [E, H, F].
Tensors in_memory_tensors(const Tensors& pub, int layers, int experts) {
    Tensors t;
    for (const auto& [name, v] : pub)
        if (name.find("block_sparse_moe") == std::string::npos) t[name] = v;
    for (int il = 0; il < layers; ++il) {
        const std::string p = "model.layers." + std::to_string(il) + ".", b = p + "block_sparse_moe.";
        t[p + "mlp.gate.weight"] = pub.at(b + "gate.weight");
        t[p + "mlp.e_score_correction_bias"] = pub.at(b + "e_score_correction_bias");
        const auto& w1 = pub.at(b + "experts.0.w1.weight").first;  // [F, H]
        const auto& w2 = pub.at(b + "experts.0.w2.weight").first;  // [H, F]
        std::vector<float> gate_up, down;
        for (int e = 0; e < experts; ++e) {
            const std::string x = b + "experts." + std::to_string(e) + ".";
            for (const char* w : {"w1", "w3"}) {
                const auto& v = pub.at(x + w + ".weight").second;
                gate_up.insert(gate_up.end(), v.begin(), v.end());
            }
            const auto& v = pub.at(x + "w2.weight").second;
            down.insert(down.end(), v.begin(), v.end());
        }
        t[p + "mlp.experts.gate_up_proj"] = {{std::uint64_t(experts), 2 * w1[0], w1[1]}, std::move(gate_up)};
        t[p + "mlp.experts.down_proj"] = {{std::uint64_t(experts), w2[0], w2[1]}, std::move(down)};
    }
    return t;
}

void make_hf_folder(const fs::path& dir, const json& config, const Tensors& t) {
    fs::create_directories(dir);
    std::ofstream(dir / "config.json") << config.dump(1);
    // ft convert embeds a tokenizer: the bundled Qwen3 one cut to the vocabulary, as ft synth does.
    const auto tok = ft::synth::synth_fit_tokenizer(fs::path(FT_SOURCE_DIR) / "resources/tokenizers/qwen3",
                                                    config["vocab_size"].get<std::uint32_t>(), dir / "tok");
    for (const char* f : {"tokenizer.json", "tokenizer_config.json"})
        if (fs::exists(tok.dir / f)) fs::copy_file(tok.dir / f, dir / f, fs::copy_options::overwrite_existing);
    write_safetensors(dir / "model.safetensors", t);
}

std::vector<std::vector<std::int32_t>> sequences() {
    std::mt19937 rng(7);
    std::vector<std::vector<std::int32_t>> seqs(2);
    for (int i = 0; i < 30; ++i) seqs[0].push_back(std::int32_t(rng() % 290));
    for (int i = 0; i < 12; ++i) seqs[1].push_back(std::int32_t(rng() % 290));
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

// y[rows] = W [rows, cols] · x
std::vector<double> matvec(const std::vector<float>& w, std::int64_t rows, std::int64_t cols, const float* x) {
    std::vector<double> y(std::size_t(rows), 0.0);
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t c = 0; c < cols; ++c) y[std::size_t(r)] += double(w[std::size_t(r * cols + c)]) * x[c];
    return y;
}

// RMSNorm of x[0 .. n) in groups of `group` values, weight w[i % w.size()].
void rms(double* x, int n, int group, const std::vector<float>& w, double eps) {
    for (int g0 = 0; g0 < n; g0 += group) {
        double s = 0;
        for (int i = 0; i < group; ++i) s += x[g0 + i] * x[g0 + i];
        const double inv = 1.0 / std::sqrt(s / group + eps);
        for (int i = 0; i < group; ++i) x[g0 + i] *= inv * w[std::size_t(g0 + i) % w.size()];
    }
}

// NeoX RoPE on the first n_rot dims of each head (transformers' rotate_half over that part): dims i and i + n_rot/2
// turn by pos · theta^(-2i / n_rot).
void rope(double* head, int n_rot, double theta, int pos) {
    const int half = n_rot / 2;
    for (int i = 0; i < half; ++i) {
        const double a = pos * std::pow(theta, -2.0 * i / n_rot), c = std::cos(a), s = std::sin(a);
        const double x1 = head[i], x2 = head[i + half];
        head[i] = x1 * c - x2 * s;
        head[i + half] = x2 * c + x1 * s;
    }
}

// The attention block's output [T, n_embd] for tokens at positions 0 .. T-1 of one sequence, the plain way: q, k, v;
// the q and k norms over all heads (`whole`) or, to show the difference matters, per head; RoPE; the causal softmax
// per query head over its KV head; the output projection.
std::vector<float> reference(const ft::model::AttentionBlock& b, const std::vector<float>& x, int T, bool whole) {
    using ft::model::vector_f32;
    const int E = int(b.q.w->cols), H = b.n_head, HKV = b.n_head_kv, D = b.head_dim;
    const auto wq = vector_f32(*b.q.w), wk = vector_f32(*b.k.w), wv = vector_f32(*b.v.w), wo = vector_f32(*b.o.w),
               qn = vector_f32(*b.q_norm), kn = vector_f32(*b.k_norm);
    std::vector<std::vector<double>> q, k, v;
    for (int t = 0; t < T; ++t) {
        const float* xt = x.data() + std::size_t(t) * E;
        q.push_back(matvec(wq, std::int64_t(H) * D, E, xt));
        k.push_back(matvec(wk, std::int64_t(HKV) * D, E, xt));
        v.push_back(matvec(wv, std::int64_t(HKV) * D, E, xt));
        rms(q.back().data(), H * D, whole ? H * D : D, qn, b.norm_eps);
        rms(k.back().data(), HKV * D, whole ? HKV * D : D, kn, b.norm_eps);
        for (int h = 0; h < H; ++h) rope(q.back().data() + h * D, b.rope.n_rot, b.rope.theta, t);
        for (int h = 0; h < HKV; ++h) rope(k.back().data() + h * D, b.rope.n_rot, b.rope.theta, t);
    }
    std::vector<float> att(std::size_t(T) * H * D);
    for (int t = 0; t < T; ++t)
        for (int h = 0; h < H; ++h) {
            const int kh = h / (H / HKV);
            std::vector<double> p(std::size_t(t + 1));
            double mx = -INFINITY, sum = 0;
            for (int j = 0; j <= t; ++j) {
                double s = 0;
                for (int i = 0; i < D; ++i) s += q[std::size_t(t)][std::size_t(h * D + i)] * k[std::size_t(j)][std::size_t(kh * D + i)];
                p[std::size_t(j)] = s / std::sqrt(double(D));
                mx = std::max(mx, p[std::size_t(j)]);
            }
            for (double& l : p) sum += (l = std::exp(l - mx));
            for (int i = 0; i < D; ++i) {
                double o = 0;
                for (int j = 0; j <= t; ++j) o += p[std::size_t(j)] / sum * v[std::size_t(j)][std::size_t(kh * D + i)];
                att[std::size_t((t * H + h) * D + i)] = float(o);
            }
        }
    std::vector<float> out(std::size_t(T) * E);
    for (int t = 0; t < T; ++t) {
        const auto o = matvec(wo, E, std::int64_t(H) * D, att.data() + std::size_t(t) * H * D);
        for (int i = 0; i < E; ++i) out[std::size_t(t * E + i)] = float(o[std::size_t(i)]);
    }
    return out;
}

double max_rel_diff(const std::vector<float>& a, const std::vector<float>& b) {
    double m = 0, scale = 0;
    for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, double(std::abs(a[i] - b[i]))), scale = std::max(scale, double(std::abs(b[i])));
    return m / scale;
}

}  // namespace

class TestMinimaxM2 : public QObject {
    Q_OBJECT
    QTemporaryDir tmp;
    fs::path synth_;

    std::string path(const char* name) const { return (fs::path(tmp.path().toStdString()) / name).string(); }

    // Runs block b on the CPU for x [T, n_embd] at positions 0 .. T-1 of a fresh sequence, in chunks of `chunk`
    // tokens (the later chunks read the earlier ones from the cache).
    std::vector<float> run_block(const ft::model::AttentionBlock& b, const ft::model::ModelGraph& g,
                                 const std::vector<float>& x, int T, int chunk) {
        ft::cpu::WorkerPool pool;
        ft::kv::KvCache kv(ft::exec::graph_kv_geometry(g, 4, 8, 4, 0));
        const int seq = kv.create();
        kv.reserve(seq, T);
        ft::cpu::AttentionScratch s;
        ft::cpu::CpuAttention a(b, pool);
        const std::int64_t E = g.n_embd;
        std::vector<float> out(std::size_t(T * E));
        for (int t0 = 0; t0 < T; t0 += chunk) {
            const int n = std::min(chunk, T - t0);
            std::vector<ft::exec::BatchToken> batch(static_cast<std::size_t>(n));
            for (int i = 0; i < n; ++i) batch[std::size_t(i)].seq = seq, batch[std::size_t(i)].pos = t0 + i;
            a.forward(batch, x.data() + t0 * E, kv, s, out.data() + t0 * E);
        }
        return out;
    }

private slots:
    void initTestCase() { QVERIFY(tmp.isValid()); }

    void configAndTable() {
        const ft::model::ModelDesc d = ft::model::desc_from_hf_config(tiny_config(), "config.json");
        QCOMPARE(d.arch, ft::model::ArchId::minimax_m2);
        QCOMPARE(d.moe.n_expert, 8u);
        QCOMPARE(d.moe.n_expert_used, 2u);
        QCOMPARE(d.moe.n_ff_exp, 32u);
        QCOMPARE(d.moe.n_shared_expert, 0u);
        QCOMPARE(d.moe.gating, ft::model::Gating::sigmoid);
        QVERIFY(d.moe.correction_bias);
        QVERIFY(d.moe.norm_topk_prob);
        QCOMPARE(d.moe.routed_scaling_factor, 1.0);
        QCOMPARE(d.n_moe_layers(), 3u);
        QCOMPARE(d.rope.n_rot, 8u);
        QCOMPARE(d.rope.theta, 5000000.0);
        QCOMPARE(d.rope.type, ft::model::RopeType::neox);
        std::map<std::string, ft::model::TensorSpec> by;
        for (const auto& s : ft::model::arch_tensors(d)) by[s.name] = s;
        QCOMPARE(by.at("blk.1.attn_q_norm.weight").dims, (std::vector<std::uint64_t>{64}));  // 4 heads of 16
        QCOMPARE(by.at("blk.1.attn_k_norm.weight").dims, (std::vector<std::uint64_t>{32}));
        QCOMPARE(by.at("blk.1.ffn_gate_inp.weight").hf_names[0], std::string("model.layers.1.block_sparse_moe.gate.weight"));
        QCOMPARE(by.at("blk.1.ffn_gate_inp.weight").hf_alt, std::string("model.layers.1.mlp.gate.weight"));
        QCOMPARE(by.at("blk.1.exp_probs_b.bias").hf_names[0], std::string("model.layers.1.block_sparse_moe.e_score_correction_bias"));
        QCOMPARE(by.at("blk.1.ffn_up_exps.weight").hf_names[3], std::string("model.layers.1.block_sparse_moe.experts.3.w3.weight"));
        QCOMPARE(by.at("blk.1.ffn_down_exps.weight").hf_fused, std::string("model.layers.1.mlp.experts.down_proj"));
        QVERIFY(!by.count("blk.0.ffn_gate_shexp.weight"));
    }

    void refusesAnotherRotaryWidth_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("says");
        QTest::addColumn<QString>("msg_key");  // and its arguments, for the app's translation (test_engine_messages)
        QTest::addColumn<QStringList>("args");
        QTest::newRow("rotary_dim against the factor") << "rotary_dim" << "4" << "says rotary_dim 4" << "hf_rotary_dim"
                                                       << QStringList{"config.json", "4", "0.5", "16", "8"};
        QTest::newRow("odd rotated width") << "rope_parameters"
                                           << R"({"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.3125})"
                                           << "rotates 5 dimensions" << "hf_rotary_odd" << QStringList{"config.json", "5"};
    }
    void refusesAnotherRotaryWidth() {
        QFETCH(QString, key);
        QFETCH(QString, value);
        QFETCH(QString, says);
        QFETCH(QString, msg_key);
        QFETCH(QStringList, args);
        json c = tiny_config();
        c[key.toStdString()] = json::parse(value.toStdString());
        if (key == "rope_parameters") c.erase("rotary_dim");
        try {
            ft::model::desc_from_hf_config(c, "config.json");
            QFAIL("accepted");
        } catch (const ft::Error& e) {
            const std::string m = std::string(e.what()) + " " + e.hint();
            qInfo("%s", m.c_str());
            QVERIFY2(m.find(says.toStdString()) != std::string::npos, m.c_str());
            QCOMPARE(QString::fromStdString(e.key().key), msg_key);
            QStringList got;
            for (const std::string& a : e.key().args) got << QString::fromStdString(a);
            QCOMPARE(got, args);
        }
    }

    void synthPreset() {
        synth_ = path("tiny.gguf");
        const auto r = run_ft({"synth", "--preset", "minimax-m2-tiny", "--weights", "f32", "--seed", "3", "--quiet",
                               "--out", QString::fromStdString(synth_.string())});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const auto w = ft::model::Weights::open(synth_);
        QCOMPARE(w->desc().arch, ft::model::ArchId::minimax_m2);
        QCOMPARE(w->desc().rope.n_rot, 8u);
        // llama.cpp's keys: its minimax-m2 sizes the experts by feed_forward_length, and reads the gating from the file.
        const auto file = ft::gguf::Reader::open(synth_);
        QCOMPARE(std::string(file.metadata().get_string("general.architecture")), std::string("minimax-m2"));
        QCOMPARE(file.metadata().get_u64("minimax-m2.feed_forward_length"), std::uint64_t(32));
        QCOMPARE(file.metadata().get_u64("minimax-m2.expert_feed_forward_length"), std::uint64_t(32));
        QCOMPARE(file.metadata().get_u64("minimax-m2.expert_gating_func"), std::uint64_t(2));  // sigmoid
        QCOMPARE(file.metadata().get_u64("minimax-m2.rope.dimension_count"), std::uint64_t(8));
        QVERIFY(file.find_tensor("blk.0.exp_probs_b.bias") && file.find_tensor("blk.0.attn_q_norm.weight"));
        QCOMPARE(file.find_tensor("blk.0.attn_q_norm.weight")->dims[0], std::uint64_t(64));
        QCOMPARE(w->desc().moe.gating, ft::model::Gating::sigmoid);
        QVERIFY(w->desc().moe.correction_bias);
        const auto inspect = run_ft({"inspect", QString::fromStdString(synth_.string())});
        QVERIFY2(inspect.out.contains("minimax-m2") && !inspect.out.contains("dense FFN"), qPrintable(inspect.out));
        QCOMPARE(w->desc().n_ff, 0u);
        // The released size plans like any other MoE model.
        const auto plan = run_ft({"inspect", "--plan", "--preset", "minimax-m2.5", "--vram", "24G", "--ram", "256G"});
        QVERIFY2(plan.code == 0, qPrintable(plan.out + plan.err));
        ft::Engine e;
        ft::LoadOptions o;
        o.model = synth_;
        o.device = ft::Device::cpu;
        o.n_ctx = 128;
        o.max_sequences = 1;
        e.load_sync(o);
        const auto gen = ft::test::greedy(e, sequences()[0], 4);
        QCOMPARE(int(gen.size()), 4);
    }

    // The block against the plain reference, in one prefill and in chunks of 5 and 1 (decode through the cache);
    // per-head norms of the same weights give another output, so a runner normalising per head fails.
    void attentionMatchesReference() {
        QVERIFY(!synth_.empty());
        const auto w = ft::model::Weights::open(synth_);
        const ft::model::ModelGraph g = ft::model::build_graph(*w);
        const auto& b = std::get<ft::model::AttentionBlock>(g.layers[1].blocks[0].body);
        QVERIFY(b.qk_norm_whole);
        QCOMPARE(b.rope.n_rot, 8);
        const int T = 19;
        std::mt19937 rng(11);
        std::normal_distribution<float> n01;
        std::vector<float> x(std::size_t(T * g.n_embd));
        for (float& v : x) v = n01(rng);
        const auto want = reference(b, x, T, true);
        const double per_head = max_rel_diff(reference(b, x, T, false), want);
        qInfo("per-head norms move the output by %.3g (relative)", per_head);
        QVERIFY(per_head > 1e-2);
        for (int chunk : {T, 5, 1}) {
            const auto got = run_block(b, g, x, T, chunk);
            const double d = max_rel_diff(got, want);
            qInfo("chunks of %d: max |Δ| / max |want| = %.3g", chunk, d);
            QVERIFY2(d < 1e-4, qPrintable(QString("chunk %1: %2").arg(chunk).arg(d)));
        }
    }

    // A folder under MiniMax's published names, the same weights under transformers' in-memory names, and the GGUF
    // `ft convert` writes of each: the same logits.
    void publishedAndInMemoryNamesAndConvert() {
        const json config = tiny_config();
        const Tensors pub = published_tensors(config);
        const fs::path a = path("published"), b = path("in-memory");
        make_hf_folder(a, config, pub);
        make_hf_folder(b, config, in_memory_tensors(pub, 3, 8));
        const auto from_pub = logits_of(a);
        const auto from_mem = logits_of(b);
        QVERIFY(from_pub == from_mem);
        for (const fs::path& src : {a, b}) {
            ft::model::ConvertOptions co;
            co.out = (src.parent_path() / (src.filename().string() + ".gguf")).string();
            co.type = ft::kernels::DType::F32;
            ft::model::convert_hf_to_gguf(src, co);
            const auto from_gguf = logits_of(co.out);
            QCOMPARE(from_gguf.size(), from_pub.size());
            const auto c = ft::test::compare(from_gguf.data(), from_pub.data(), 42, 300);
            qInfo("%s GGUF vs folder: min cosine %.9f, max |Δlogit| %.3g", src.filename().string().c_str(), c.min_cos,
                  c.max_abs);
            QVERIFY(c.min_cos > 0.99999);
            QCOMPARE(c.top1_same, 42);
        }
    }

#ifdef FT_MINIMAX_M2_GPU
    // The GPU runner (q/k norms by rms_norm_rows_f32 inside the packed q|k|v rows) against the CPU on the published
    // folder: the exact prefill (f32 products and attention, f32 KV) as tightly as two CPU runs, the default one (BF16
    // tensor-core products, f16 KV) within BF16's reach; the decode graph's greedy continuation equal to the CPU's; and
    // every MoE backend (offload, cpu, hybrid, static, with a cache of 12 experts) the resident logits.
    void gpuMatchesCpu() {
        if (ft::gpu_devices().empty()) QSKIP(qPrintable(QString::fromStdString("no usable GPU: " + ft::gpu_unavailable_reason())));
        const fs::path hf = path("published-gpu");
        make_hf_folder(hf, tiny_config(), published_tensors(tiny_config()));
        ft::Engine cpu;
        cpu.load_sync(load_options(hf));
        const auto want = ft::test::engine_logits(cpu, sequences());
        const auto cpu_greedy = ft::test::greedy(cpu, sequences()[0], 12);
        std::vector<float> resident;
        for (const bool exact : {true, false}) {
            ft::Engine e;
            ft::LoadOptions o = load_options(hf, ft::Device::cuda);
            o.gpu_exact_prefill = exact;
            o.moe_backend = "resident";
            e.load_sync(o);
            const auto got = ft::test::engine_logits(e, sequences());
            QCOMPARE(got.size(), want.size());
            const auto a = ft::test::compare(got.data(), want.data(), 42, 300);
            qInfo("GPU (%s prefill) vs CPU: min cosine %.9f, max |Δlogit| %.3g, top-1 %d of 42", exact ? "exact" : "BF16",
                  a.min_cos, a.max_abs, a.top1_same);
            QVERIFY(a.min_cos > (exact ? 0.99999 : 0.999));
            QVERIFY(a.top1_same >= (exact ? 42 : 38));
            if (exact) {
                QCOMPARE(ft::test::greedy(e, sequences()[0], 12), cpu_greedy);
                resident = got;
            }
        }
        for (const char* backend : {"offload", "cpu", "hybrid", "static"}) {
            ft::Engine e;
            ft::LoadOptions o = load_options(hf, ft::Device::cuda);
            o.gpu_exact_prefill = true;
            o.moe_backend = backend;
            o.expert_slots = 12;  // one and a half layers of 8: misses in every layer
            e.load_sync(o);
            const auto got = ft::test::engine_logits(e, sequences());
            const auto a = ft::test::compare(got.data(), resident.data(), 42, 300);
            qInfo("%s vs resident: min cosine %.9f, max |Δlogit| %.3g", backend, a.min_cos, a.max_abs);
            QVERIFY2(a.min_cos > 0.99999, backend);
            QCOMPARE(ft::test::greedy(e, sequences()[0], 12), cpu_greedy);
        }
    }
#endif
};

#ifdef FT_MINIMAX_M2_GPU
FT_GPU_TEST_MAIN(TestMinimaxM2)
#else
QTEST_GUILESS_MAIN(TestMinimaxM2)
#endif
#include "test_minimax_m2.moc"
