// GLM-5 (glm_moe_dsa: latent attention with DeepSeek's sparse-attention indexer, GLM's MoE) beside its transformers
// fixture (test_golden_arch): config.json reading (and the indexer layouts we refuse), `ft synth --preset glm-5-tiny`, the CPU
// attention block against a reference written here the plain way — per-head K and V expanded from the latent, the
// indexer's scores, every position it does not pick masked to -inf before the softmax — in prefill and in decode
// after a cached prefill, an indexer keeping at least the context equal to plain latent attention, and `ft convert`
// (rows copied: both rotate adjacent pairs) giving the logits of the Hugging Face folder.
// Engine internals first: exec/runner.h names a parameter `slots`, which Qt's headers define away.
#include "cpu/cpu_attention.h"
#include "cpu/worker_pool.h"
#include "exec/runner.h"
#include "kv/kv_cache.h"
#include "model/arch.h"
#include "model/convert_hf.h"
#include "model/model_desc.h"
#include "model/model_tensors.h"
#include "model/weights.h"
#include "ref/rope.h"
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
#include "ft_process.h"
#include "ft_test.h"
#include "golden_fixture.h"

using nlohmann::json;
namespace fs = std::filesystem;
using ft::test::run_ft;

namespace {

// A GLM-5-shaped config.json, tiny: 3 layers (1 dense), latent attention, an indexer keeping 8 positions.
json tiny_config() {
    return json{{"architectures", {"GlmMoeDsaForCausalLM"}},
                {"model_type", "glm_moe_dsa"},
                {"vocab_size", 300},
                {"hidden_size", 64},
                {"intermediate_size", 96},
                {"moe_intermediate_size", 32},
                {"num_hidden_layers", 3},
                {"num_attention_heads", 4},
                {"num_key_value_heads", 4},
                {"n_shared_experts", 1},
                {"n_routed_experts", 8},
                {"num_experts_per_tok", 2},
                {"routed_scaling_factor", 2.5},
                {"kv_lora_rank", 32},
                {"q_lora_rank", 32},
                {"qk_rope_head_dim", 8},
                {"qk_nope_head_dim", 16},
                {"v_head_dim", 16},
                {"n_group", 1},
                {"topk_group", 1},
                {"norm_topk_prob", true},
                {"first_k_dense_replace", 1},
                {"index_topk", 8},
                {"index_head_dim", 16},
                {"index_n_heads", 16},
                {"rms_norm_eps", 1e-5},
                {"max_position_embeddings", 4096},
                {"rope_parameters", {{"rope_type", "default"}, {"rope_theta", 10000.0}}},
                {"tie_word_embeddings", false},
                {"eos_token_id", 1}};
}

// An F32 safetensors file of the given [out, in] tensors.
void write_safetensors(const fs::path& path, const std::map<std::string, std::pair<std::vector<std::uint64_t>, std::vector<float>>>& t) {
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

// A Hugging Face folder of the tiny config: every tensor of the table under its Hugging Face name (per-expert
// experts, kv_b_proj whole), random values (norms near 1).
void make_hf_folder(const fs::path& dir, const json& config) {
    fs::create_directories(dir);
    std::ofstream(dir / "config.json") << config.dump(1);
    // ft convert embeds a tokenizer: the bundled Qwen3 one cut to the vocabulary, as ft synth does.
    const auto tok = ft::synth::synth_fit_tokenizer(fs::path(FT_SOURCE_DIR) / "resources/tokenizers/qwen3",
                                                    config["vocab_size"].get<std::uint32_t>(), dir / "tok");
    for (const char* f : {"tokenizer.json", "tokenizer_config.json"})
        if (fs::exists(tok.dir / f)) fs::copy_file(tok.dir / f, dir / f, fs::copy_options::overwrite_existing);
    const ft::model::ModelDesc d = ft::model::desc_from_hf_config(config, "config.json");
    std::mt19937 rng(45);
    std::normal_distribution<float> n01;
    std::map<std::string, std::pair<std::vector<std::uint64_t>, std::vector<float>>> t;
    auto put = [&](const std::string& name, std::vector<std::uint64_t> shape, bool norm) {
        if (t.count(name)) return;
        std::uint64_t count = 1;
        for (auto s : shape) count *= s;
        std::vector<float> v(count);
        const float std = norm ? 0.2f : 1.f / std::sqrt(float(shape.back()));
        for (float& x : v) x = (norm ? 1.f : 0.f) + std * n01(rng);
        t[name] = {std::move(shape), std::move(v)};
    };
    for (const ft::model::TensorSpec& s : ft::model::arch_tensors(d)) {
        const bool norm = s.is_norm();
        if (s.hf_layout == ft::model::HfLayout::mla_k_b || s.hf_layout == ft::model::HfLayout::mla_v_b) {
            const std::uint64_t nh = s.dims[2], lora = s.hf_layout == ft::model::HfLayout::mla_k_b ? s.dims[1] : s.dims[0];
            put(s.hf_names[0], {nh * s.hf_step, lora}, false);
        } else if (s.is_expert()) {
            for (const std::string& n : s.hf_names) put(n, {s.dims[1], s.dims[0]}, false);
        } else if (s.dims.size() == 1) {
            put(s.hf_names[0], {s.dims[0]}, norm || s.role == ft::model::TensorRole::ffn_exp_probs_b);
            if (s.role == ft::model::TensorRole::attn_idx_norm_bias)
                for (float& x : t[s.hf_names[0]].second) x -= 1.f;  // a bias around 0
        } else {
            put(s.hf_names[0], {s.dims[1], s.dims[0]}, false);
        }
    }
    write_safetensors(dir / "model.safetensors", t);
}

std::vector<std::vector<std::int32_t>> sequences() {
    std::mt19937 rng(7);
    std::vector<std::vector<std::int32_t>> seqs(2);
    for (int i = 0; i < 30; ++i) seqs[0].push_back(std::int32_t(rng() % 290));
    for (int i = 0; i < 12; ++i) seqs[1].push_back(std::int32_t(rng() % 290));
    return seqs;
}

std::vector<float> logits_of(const fs::path& model) {
    ft::Engine e;
    ft::LoadOptions o;
    o.model = model;
    o.device = ft::Device::cpu;
    o.n_ctx = 256;
    o.max_sequences = 1;
    e.load_sync(o);
    return ft::test::engine_logits(e, sequences());
}

// y[rows] = W [rows, cols] · x
std::vector<float> matvec(const std::vector<float>& w, std::int64_t rows, std::int64_t cols, const float* x) {
    std::vector<float> y(std::size_t(rows), 0.f);
    for (std::int64_t r = 0; r < rows; ++r) {
        double s = 0;
        for (std::int64_t c = 0; c < cols; ++c) s += double(w[std::size_t(r * cols + c)]) * x[c];
        y[std::size_t(r)] = float(s);
    }
    return y;
}

void rms(float* x, int n, const std::vector<float>& w, float eps) {
    double s = 0;
    for (int i = 0; i < n; ++i) s += double(x[i]) * x[i];
    const float inv = float(1.0 / std::sqrt(s / n + eps));
    for (int i = 0; i < n; ++i) x[i] *= inv * w[std::size_t(i)];
}

// The attention block's output [T, n_embd] for tokens at positions 0 .. T-1 of one sequence, the plain way: queries,
// keys and values per head (K and V expanded through k_b / v_b), the causal softmax over the positions the indexer
// keeps (all of them when `sparse` is false or there are no more than topk). Also how many tokens had a pick.
std::vector<float> reference(const ft::model::MlaAttentionBlock& b, const std::vector<float>& x, int T, bool sparse,
                             int* picked_tokens) {
    using ft::model::vector_f32;
    const int E = int(b.kv_a.w->cols), H = b.n_head, NOPE = b.nope, R = b.rope_dim, L = b.kv_lora, V = b.v_head_dim;
    const int QL = int(b.q_a.w->rows), QD = b.q_dim();
    const auto wqa = vector_f32(*b.q_a.w), wqb = vector_f32(*b.q_b.w), wkva = vector_f32(*b.kv_a.w),
               kb = vector_f32(*b.k_b), vb = vector_f32(*b.v_b), wo = vector_f32(*b.o.w), qan = vector_f32(*b.q_a_norm.w),
               kvn = vector_f32(*b.kv_a_norm.w);
    const auto& ix = b.idx;
    const int IH = ix.heads, ID = ix.dim;
    const auto wiq = vector_f32(*ix.q_b.w), wik = vector_f32(*ix.k.w), wiw = vector_f32(*ix.weights.w),
               ikn = vector_f32(*ix.k_norm), ikb = vector_f32(*ix.k_norm_bias);
    std::vector<float> q(std::size_t(T) * H * QD), lat(std::size_t(T) * L), kpe(std::size_t(T) * R), iq(std::size_t(T) * IH * ID),
        ik(std::size_t(T) * ID), iw(std::size_t(T) * IH);
    std::vector<std::int32_t> pos(static_cast<std::size_t>(T));
    for (int t = 0; t < T; ++t) {
        pos[std::size_t(t)] = t;
        const float* xt = x.data() + std::size_t(t) * E;
        auto qr = matvec(wqa, QL, E, xt);
        rms(qr.data(), QL, qan, b.q_a_norm.eps);
        auto qt = matvec(wqb, std::int64_t(H) * QD, QL, qr.data());
        std::copy(qt.begin(), qt.end(), q.begin() + std::ptrdiff_t(t) * H * QD);
        auto kv = matvec(wkva, L + R, E, xt);
        rms(kv.data(), L, kvn, b.kv_a_norm.eps);
        std::copy_n(kv.begin(), L, lat.begin() + std::ptrdiff_t(t) * L);
        std::copy_n(kv.begin() + L, R, kpe.begin() + std::ptrdiff_t(t) * R);
        auto iqt = matvec(wiq, std::int64_t(IH) * ID, QL, qr.data());
        std::copy(iqt.begin(), iqt.end(), iq.begin() + std::ptrdiff_t(t) * IH * ID);
        auto ikt = matvec(wik, ID, E, xt);
        double mean = 0, var = 0;
        for (float v : ikt) mean += v;
        mean /= ID;
        for (float v : ikt) var += (v - mean) * (v - mean);
        for (int i = 0; i < ID; ++i)
            ik[std::size_t(t * ID + i)] = float((ikt[std::size_t(i)] - mean) / std::sqrt(var / ID + ix.k_norm_eps)) * ikn[std::size_t(i)] + ikb[std::size_t(i)];
        auto iwt = matvec(wiw, IH, E, xt);
        std::copy(iwt.begin(), iwt.end(), iw.begin() + std::ptrdiff_t(t) * IH);
    }
    ft::kernels::RopeParams rq = b.rope, rk = b.rope;
    rq.head_dim = R;
    rk.head_dim = R;
    std::vector<float> qpe(std::size_t(T) * H * R);
    for (int t = 0; t < T; ++t)
        for (int h = 0; h < H; ++h) std::copy_n(q.begin() + (std::ptrdiff_t(t) * H + h) * QD + NOPE, R, qpe.begin() + (std::ptrdiff_t(t) * H + h) * R);
    ft::kernels::ref::rope_f32(rq, qpe.data(), T, H, pos.data());
    ft::kernels::ref::rope_f32(rk, kpe.data(), T, 1, pos.data());
    ft::kernels::ref::rope_f32(ix.rope, iq.data(), T, IH, pos.data());
    ft::kernels::ref::rope_f32(ix.rope, ik.data(), T, 1, pos.data());
    // Per head K_nope(j)[i] = Σ_c k_b[h][c][i] · lat_j[c], V(j)[i] = Σ_c v_b[h][i][c] · lat_j[c].
    std::vector<float> att(std::size_t(T) * H * V, 0.f);
    *picked_tokens = 0;
    for (int t = 0; t < T; ++t) {
        std::vector<bool> keep(std::size_t(t + 1), true);
        if (sparse && t + 1 > ix.topk) {
            ++*picked_tokens;
            std::vector<std::pair<double, int>> sc;
            for (int j = 0; j <= t; ++j) {
                double s = 0;
                for (int h = 0; h < IH; ++h) {
                    double dot = 0;
                    for (int i = 0; i < ID; ++i) dot += double(iq[std::size_t((t * IH + h) * ID + i)]) * ik[std::size_t(j * ID + i)];
                    s += iw[std::size_t(t * IH + h)] * std::max(0.0, dot);
                }
                sc.push_back({-s, j});
            }
            std::sort(sc.begin(), sc.end());
            keep.assign(std::size_t(t + 1), false);
            for (int k = 0; k < ix.topk; ++k) keep[std::size_t(sc[std::size_t(k)].second)] = true;
        }
        for (int h = 0; h < H; ++h) {
            std::vector<double> logit(std::size_t(t + 1), -INFINITY);
            double mx = -INFINITY;
            for (int j = 0; j <= t; ++j) {
                if (!keep[std::size_t(j)]) continue;
                double s = 0;
                for (int i = 0; i < NOPE; ++i) {
                    double k = 0;
                    for (int c = 0; c < L; ++c) k += double(kb[std::size_t((h * L + c) * NOPE + i)]) * lat[std::size_t(j * L + c)];
                    s += double(q[std::size_t((t * H + h) * QD + i)]) * k;
                }
                for (int i = 0; i < R; ++i) s += double(qpe[std::size_t((t * H + h) * R + i)]) * kpe[std::size_t(j * R + i)];
                logit[std::size_t(j)] = s * b.scale;
                mx = std::max(mx, logit[std::size_t(j)]);
            }
            double sum = 0;
            for (double& l : logit) sum += (l = std::isinf(l) ? 0.0 : std::exp(l - mx));
            for (int j = 0; j <= t; ++j) {
                if (!keep[std::size_t(j)]) continue;
                const double a = logit[std::size_t(j)] / sum;
                for (int i = 0; i < V; ++i) {
                    double v = 0;
                    for (int c = 0; c < L; ++c) v += double(vb[std::size_t((h * V + i) * L + c)]) * lat[std::size_t(j * L + c)];
                    att[std::size_t((t * H + h) * V + i)] += float(a * v);
                }
            }
        }
    }
    std::vector<float> out(std::size_t(T) * E);
    for (int t = 0; t < T; ++t) {
        auto o = matvec(wo, E, std::int64_t(H) * V, att.data() + std::size_t(t) * H * V);
        std::copy(o.begin(), o.end(), out.begin() + std::ptrdiff_t(t) * E);
    }
    return out;
}

double max_rel_diff(const std::vector<float>& a, const std::vector<float>& b) {
    double m = 0, scale = 0;
    for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, double(std::abs(a[i] - b[i]))), scale = std::max(scale, double(std::abs(b[i])));
    return m / scale;
}

}  // namespace

class TestGlmMoeDsa : public QObject {
    Q_OBJECT
    QTemporaryDir tmp;
    fs::path synth_;

    std::string path(const char* name) const { return (fs::path(tmp.path().toStdString()) / name).string(); }

    // Runs block b on the CPU for x [T, n_embd] at positions 0 .. T-1 of a fresh sequence, in chunks of `chunk`
    // tokens (the later chunks read the earlier ones from the cache).
    std::vector<float> run_block(const ft::model::MlaAttentionBlock& b, const ft::model::ModelGraph& g,
                                 const std::vector<float>& x, int T, int chunk) {
        ft::cpu::WorkerPool pool;
        ft::kv::KvCache kv(ft::exec::graph_kv_geometry(g, 4, 8, 4, 0));  // pages of 4: a pick spans two
        const int seq = kv.create();
        kv.reserve(seq, T);
        ft::cpu::AttentionScratch s;
        ft::cpu::CpuMlaAttention a(b, pool);
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

    void configReadsTheIndexer() {
        const ft::model::ModelDesc d = ft::model::desc_from_hf_config(tiny_config(), "config.json");
        QCOMPARE(d.arch, ft::model::ArchId::glm_moe_dsa);
        QCOMPARE(d.attn.index_n_heads, 16u);
        QCOMPARE(d.attn.index_head_dim, 16u);
        QCOMPARE(d.attn.index_topk, 8u);
        QCOMPARE(d.attn.kv_lora_rank, 32u);
        QCOMPARE(d.attn.head_dim, 24u);
        QCOMPARE(d.rope.type, ft::model::RopeType::norm);  // adjacent pairs, as transformers 5.17 runs it
        QCOMPARE(d.moe.first_k_dense, 1u);
        QCOMPARE(d.moe.gating, ft::model::Gating::sigmoid);
        QVERIFY(d.moe.correction_bias);
        QCOMPARE(d.moe.routed_scaling_factor, 2.5);
        // The tensor table has the indexer of every layer under llama.cpp's names.
        int idx = 0;
        for (const auto& s : ft::model::arch_tensors(d))
            if (s.name.find(".indexer.") != std::string::npos) ++idx;
        QCOMPARE(idx, 3 * 5);
    }

    void refusesWhatItCannotRun_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::newRow("shared indexer layers") << "indexer_types" << R"(["full", "shared", "full"])";
        QTest::newRow("indexer every 2 layers") << "index_topk_freq" << "2";
        QTest::newRow("no low-rank query") << "q_lora_rank" << "0";
        QTest::newRow("indexer narrower than rope") << "index_head_dim" << "4";
        QTest::newRow("dense after sparse") << "mlp_layer_types" << R"(["sparse", "dense", "sparse"])";
        QTest::newRow("attention biases") << "attention_bias" << "true";
    }
    void refusesWhatItCannotRun() {
        QFETCH(QString, key);
        QFETCH(QString, value);
        json c = tiny_config();
        c[key.toStdString()] = json::parse(value.toStdString());
        try {
            ft::model::desc_from_hf_config(c, "config.json");
            QFAIL("accepted");
        } catch (const ft::Error& e) {
            const std::string m = std::string(e.what()) + " " + e.hint();
            qInfo("%s", m.c_str());
            QVERIFY2(m.find(key == "index_head_dim" ? "indexer" : key.toStdString()) != std::string::npos, m.c_str());
        }
    }

    void synthPreset() {
        synth_ = path("tiny.gguf");
        const auto r = run_ft({"synth", "--preset", "glm-5-tiny", "--weights", "f32", "--seed", "3", "--quiet", "--out",
                               QString::fromStdString(synth_.string())});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const auto w = ft::model::Weights::open(synth_);
        QCOMPARE(w->desc().arch, ft::model::ArchId::glm_moe_dsa);
        QCOMPARE(w->desc().attn.index_topk, 8u);
        QCOMPARE(w->desc().rope.type, ft::model::RopeType::norm);  // llama.cpp's glm-dsa
        const auto inspect = run_ft({"inspect", QString::fromStdString(synth_.string())});
        QVERIFY2(inspect.out.contains(R"(sparse indexer        {"head_dim":16,"heads":16,"top_k":8})"), qPrintable(inspect.out));
        // The fit prediction of the released size on an 80 GB card: the GPU with the experts from RAM.
        const auto plan = run_ft({"inspect", "--plan", "--preset", "glm-5", "--vram", "80G", "--ram", "1024G"});
        QVERIFY2(plan.out.contains("runs on the GPU with experts from RAM"), qPrintable(plan.out + plan.err));
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

    // The block against the plain reference: 24 tokens, top-8, so 16 of them read a pick; in one prefill and as
    // prefill chunks of 5 (the later ones scoring the cached index keys, the last a 4-token chunk, and a 1-token
    // decode path through chunks of 1).
    void attentionMatchesMaskedReference() {
        QVERIFY(!synth_.empty());
        const auto w = ft::model::Weights::open(synth_);
        const ft::model::ModelGraph g = ft::model::build_graph(*w);
        const auto& b = std::get<ft::model::MlaAttentionBlock>(g.layers[1].blocks[0].body);
        QCOMPARE(b.idx.topk, 8);
        const int T = 24;
        std::mt19937 rng(11);
        std::normal_distribution<float> n01;
        std::vector<float> x(std::size_t(T * g.n_embd));
        for (float& v : x) v = n01(rng);
        int picked = 0;
        const auto want = reference(b, x, T, true, &picked);
        QCOMPARE(picked, T - 8);
        const auto dense = reference(b, x, T, false, &picked);
        const double sparsity = max_rel_diff(dense, want);
        qInfo("the pick moves the output by %.3g (relative)", sparsity);
        QVERIFY(sparsity > 1e-2);  // the masking matters: a runner ignoring the pick fails
        for (int chunk : {T, 5, 1}) {
            const auto got = run_block(b, g, x, T, chunk);
            const double d = max_rel_diff(got, want);
            qInfo("chunks of %d: max |Δ| / max |want| = %.3g", chunk, d);
            QVERIFY2(d < 1e-4, qPrintable(QString("chunk %1: %2").arg(chunk).arg(d)));
        }
    }

    // An indexer that keeps at least the context picks everything: plain latent attention, to the bit.
    void topkCoveringContextIsPlainMla() {
        const auto w = ft::model::Weights::open(synth_);
        const ft::model::ModelGraph g = ft::model::build_graph(*w);
        ft::model::MlaAttentionBlock wide = std::get<ft::model::MlaAttentionBlock>(g.layers[0].blocks[0].body);
        ft::model::MlaAttentionBlock plain = wide;
        wide.idx.topk = 64;
        plain.idx = {};
        const int T = 20;
        std::mt19937 rng(12);
        std::normal_distribution<float> n01;
        std::vector<float> x(std::size_t(T * g.n_embd));
        for (float& v : x) v = n01(rng);
        QVERIFY(run_block(wide, g, x, T, 7) == run_block(plain, g, x, T, 7));
    }

    // ft convert: the Hugging Face folder and its GGUF (both rotate adjacent pairs: rows copied) give the same
    // logits; a reordering of the rope rows would change every position past the first.
    void convertKeepsTheModel() {
        const fs::path hf = path("hf");
        make_hf_folder(hf, tiny_config());
        const auto from_hf = logits_of(hf);
        ft::model::ConvertOptions co;
        co.out = path("hf.gguf");
        co.type = ft::kernels::DType::F32;
        ft::model::convert_hf_to_gguf(hf, co);
        const auto from_gguf = logits_of(co.out);
        QCOMPARE(from_gguf.size(), from_hf.size());
        const auto a = ft::test::compare(from_gguf.data(), from_hf.data(), 42, 300);
        qInfo("GGUF vs folder: min cosine %.9f, max |Δlogit| %.3g", a.min_cos, a.max_abs);
        QVERIFY(a.min_cos > 0.99999);
        QCOMPARE(a.top1_same, 42);
    }
};

QTEST_GUILESS_MAIN(TestGlmMoeDsa)
#include "test_glm_moe_dsa.moc"
