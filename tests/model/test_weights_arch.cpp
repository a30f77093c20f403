// Weights::open for gpt-oss and GLM-4.5 MoE: the three forms of a gpt-oss checkpoint (GGUF with MXFP4 experts read
// in place; Hugging Face BF16 with fused, transposed, gate/up-interleaved experts; Hugging Face MXFP4 *_blocks /
// *_scales) give the same expert matrices and biases, exactly (the expert values are MXFP4-representable); GLM's
// MTP layer is skipped and its shared expert, selection bias and first dense layer are indexed; missing and
// mis-shaped tensors are errors that name them; Qwen3.5's multimodal checkpoint layout with 3-D experts reads (and
// converts) as its per-expert text-only form.
#include <QTemporaryDir>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "format/gguf.h"
#include "format/safetensors.h"
#include "model/convert_hf.h"
#include "ft/error.h"
#include "ft_test.h"
#include "model/model_desc.h"
#include "model/model_tensors.h"
#include "model/weights.h"
#include "ref/quant.h"

using nlohmann::json;
using ft::kernels::DType;
namespace ref = ft::kernels::ref;
namespace fs = std::filesystem;
using namespace ft::model;

namespace {

// A tensor to write: raw little-endian bytes, a safetensors dtype name and shape.
struct Raw {
    std::string dtype;
    std::vector<std::uint64_t> shape;
    std::vector<std::uint8_t> bytes;
};

Raw bf16(const std::vector<std::uint64_t>& shape, const std::vector<float>& v) {
    Raw r{"BF16", shape, std::vector<std::uint8_t>(v.size() * 2)};
    for (size_t i = 0; i < v.size(); ++i) {
        const std::uint16_t h = ref::f32_to_bf16(v[i]);
        std::memcpy(r.bytes.data() + 2 * i, &h, 2);
    }
    return r;
}
Raw f32(const std::vector<std::uint64_t>& shape, const std::vector<float>& v) {
    Raw r{"F32", shape, std::vector<std::uint8_t>(v.size() * 4)};
    std::memcpy(r.bytes.data(), v.data(), r.bytes.size());
    return r;
}

void write_safetensors(const fs::path& path, const std::map<std::string, Raw>& tensors) {
    json header = {{"__metadata__", {{"format", "pt"}}}};
    std::vector<std::uint8_t> data;
    for (const auto& [name, t] : tensors) {
        header[name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {data.size(), data.size() + t.bytes.size()}}};
        data.insert(data.end(), t.bytes.begin(), t.bytes.end());
    }
    std::string h = header.dump();
    while (h.size() % 8) h += ' ';
    std::ofstream out(path, std::ios::binary);
    const std::uint64_t n = h.size();
    out.write(reinterpret_cast<const char*>(&n), 8);
    out.write(h.data(), std::streamsize(h.size()));
    out.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
}

// Values exactly representable in BF16 (8 significant bits).
std::vector<float> randoms(std::size_t n, std::mt19937& g, float scale) {
    std::normal_distribution<float> nd(0.f, scale);
    std::vector<float> v(n);
    for (auto& x : v) x = ref::bf16_to_f32(ref::f32_to_bf16(nd(g)));
    return v;
}

// One matrix [rows][cols] of MXFP4-representable values: codes and E8M0 exponents per 32 columns.
struct Mx {
    std::int64_t rows = 0, cols = 0;
    std::vector<std::uint8_t> code;  // [rows][cols]
    std::vector<std::uint8_t> e;     // [rows][cols / 32]
    float at(std::int64_t r, std::int64_t c) const {
        return ref::e8m0_to_f32_half(e[std::size_t(r * (cols / 32) + c / 32)]) * ref::kMxfp4Values[code[std::size_t(r * cols + c)]];
    }
    // The GGUF rows (ggml block_mxfp4: element j low nibble of qs[j], j + 16 high nibble).
    std::vector<std::uint8_t> gguf() const {
        std::vector<std::uint8_t> out;
        for (std::int64_t r = 0; r < rows; ++r)
            for (std::int64_t b = 0; b < cols / 32; ++b) {
                out.push_back(e[std::size_t(r * (cols / 32) + b)]);
                for (int j = 0; j < 16; ++j)
                    out.push_back(std::uint8_t(code[std::size_t(r * cols + b * 32 + j)] |
                                               (code[std::size_t(r * cols + b * 32 + j + 16)] << 4)));
            }
        return out;
    }
};
Mx mx_random(std::int64_t rows, std::int64_t cols, std::mt19937& g) {
    Mx m{rows, cols, std::vector<std::uint8_t>(std::size_t(rows * cols)), std::vector<std::uint8_t>(std::size_t(rows * cols / 32))};
    for (auto& c : m.code) c = std::uint8_t(g() % 16);
    for (auto& e : m.e) e = std::uint8_t(120 + g() % 6);
    return m;
}

// A small gpt-oss: 2 layers, hidden 96 (3 MXFP4 blocks), expert FFN 64, 4 experts top-2, 2 heads / 1 KV head of 32.
constexpr std::int64_t H = 96, F = 64, E = 4, L = 2, NH = 2, NKV = 1, HD = 32, VOCAB = 64;

json oss_config() {
    return {{"architectures", {"GptOssForCausalLM"}}, {"model_type", "gpt_oss"}, {"vocab_size", VOCAB},
            {"hidden_size", H}, {"intermediate_size", F}, {"num_hidden_layers", L}, {"num_attention_heads", NH},
            {"num_key_value_heads", NKV}, {"head_dim", HD}, {"num_local_experts", E}, {"num_experts_per_tok", 2},
            {"sliding_window", 8}, {"layer_types", {"sliding_attention", "full_attention"}}, {"rms_norm_eps", 1e-5},
            {"rope_theta", 150000}, {"max_position_embeddings", 131072}, {"swiglu_limit", 7.0}, {"attention_bias", true},
            {"rope_scaling", {{"rope_type", "yarn"}, {"factor", 32.0}, {"beta_fast", 32.0}, {"beta_slow", 1.0},
                              {"original_max_position_embeddings", 4096}, {"truncate", false}}},
            {"tie_word_embeddings", false}};
}

struct OssModel {
    // Canonical experts [layer][expert]: gate/up [F][H], down [H][F]; biases.
    std::vector<std::vector<Mx>> gate, up, down;
    std::vector<std::vector<std::vector<float>>> bg, bu, bd;
    std::map<std::string, Raw> other;  // non-expert tensors by HF name (BF16)
    std::map<std::string, std::vector<float>> other_values;
};

OssModel make_oss(std::uint32_t seed) {
    std::mt19937 g(seed);
    OssModel m;
    auto add = [&](const std::string& name, std::vector<std::uint64_t> shape, float scale) {
        std::size_t n = 1;
        for (auto d : shape) n *= d;
        auto v = randoms(n, g, scale);
        m.other[name] = bf16(shape, v);
        m.other_values[name] = v;
    };
    add("model.embed_tokens.weight", {VOCAB, H}, 1.f);
    add("lm_head.weight", {VOCAB, H}, 0.1f);
    add("model.norm.weight", {H}, 1.f);
    m.gate.resize(L), m.up.resize(L), m.down.resize(L), m.bg.resize(L), m.bu.resize(L), m.bd.resize(L);
    for (int il = 0; il < L; ++il) {
        const std::string p = "model.layers." + std::to_string(il) + ".";
        add(p + "input_layernorm.weight", {H}, 1.f);
        add(p + "post_attention_layernorm.weight", {H}, 1.f);
        add(p + "self_attn.q_proj.weight", {NH * HD, H}, 0.1f);
        add(p + "self_attn.q_proj.bias", {NH * HD}, 0.1f);
        add(p + "self_attn.k_proj.weight", {NKV * HD, H}, 0.1f);
        add(p + "self_attn.k_proj.bias", {NKV * HD}, 0.1f);
        add(p + "self_attn.v_proj.weight", {NKV * HD, H}, 0.1f);
        add(p + "self_attn.v_proj.bias", {NKV * HD}, 0.1f);
        add(p + "self_attn.o_proj.weight", {H, NH * HD}, 0.1f);
        add(p + "self_attn.o_proj.bias", {H}, 0.1f);
        add(p + "self_attn.sinks", {NH}, 1.f);
        add(p + "mlp.router.weight", {E, H}, 0.1f);
        add(p + "mlp.router.bias", {E}, 0.1f);
        for (int e = 0; e < E; ++e) {
            m.gate[il].push_back(mx_random(F, H, g));
            m.up[il].push_back(mx_random(F, H, g));
            m.down[il].push_back(mx_random(H, F, g));
            m.bg[il].push_back(randoms(F, g, 0.3f));
            m.bu[il].push_back(randoms(F, g, 0.3f));
            m.bd[il].push_back(randoms(H, g, 0.3f));
        }
    }
    return m;
}

void write_config(const fs::path& dir, const json& cfg) {
    fs::create_directories(dir);
    std::ofstream(dir / "config.json") << cfg.dump(2);
}

// transformers' BF16 layout: gate_up_proj [E, H, 2F] (gate at even columns), down_proj [E, F, H], fused biases.
void write_oss_hf_bf16(const fs::path& dir, const OssModel& m) {
    write_config(dir, oss_config());
    auto t = m.other;
    for (int il = 0; il < L; ++il) {
        const std::string x = "model.layers." + std::to_string(il) + ".mlp.experts.";
        std::vector<float> gu(std::size_t(E * H * 2 * F)), dn(std::size_t(E * F * H)), gub(std::size_t(E * 2 * F)), db(std::size_t(E * H));
        for (int e = 0; e < E; ++e) {
            for (std::int64_t h = 0; h < H; ++h)
                for (std::int64_t f = 0; f < F; ++f) {
                    gu[std::size_t((e * H + h) * 2 * F + 2 * f)] = m.gate[il][e].at(f, h);
                    gu[std::size_t((e * H + h) * 2 * F + 2 * f + 1)] = m.up[il][e].at(f, h);
                    dn[std::size_t((e * F + f) * H + h)] = m.down[il][e].at(h, f);
                }
            for (std::int64_t f = 0; f < F; ++f) {
                gub[std::size_t(e * 2 * F + 2 * f)] = m.bg[il][e][std::size_t(f)];
                gub[std::size_t(e * 2 * F + 2 * f + 1)] = m.bu[il][e][std::size_t(f)];
            }
            for (std::int64_t h = 0; h < H; ++h) db[std::size_t(e * H + h)] = m.bd[il][e][std::size_t(h)];
        }
        t[x + "gate_up_proj"] = bf16({E, H, 2 * F}, gu);
        t[x + "down_proj"] = bf16({E, F, H}, dn);
        t[x + "gate_up_proj_bias"] = bf16({E, 2 * F}, gub);
        t[x + "down_proj_bias"] = bf16({E, H}, db);
    }
    write_safetensors(dir / "model.safetensors", t);
}

// openai/gpt-oss-*'s MXFP4 layout: *_blocks [E, rows, in/32, 16] (byte j: element 2j low, 2j+1 high nibble),
// *_scales [E, rows, in/32]; gate_up rows interleave gate and up.
void write_oss_hf_mxfp4(const fs::path& dir, const OssModel& m) {
    write_config(dir, oss_config());
    auto t = m.other;
    auto pack = [](const std::vector<const Mx*>& rows_of, std::vector<std::int64_t> row_idx, std::int64_t in,
                   std::vector<std::uint8_t>& blocks, std::vector<std::uint8_t>& scales) {
        for (size_t i = 0; i < rows_of.size(); ++i) {
            const Mx& mx = *rows_of[i];
            const std::int64_t r = row_idx[i];
            for (std::int64_t b = 0; b < in / 32; ++b) {
                scales.push_back(mx.e[std::size_t(r * (in / 32) + b)]);
                for (int j = 0; j < 16; ++j)
                    blocks.push_back(std::uint8_t(mx.code[std::size_t(r * in + b * 32 + 2 * j)] |
                                                  (mx.code[std::size_t(r * in + b * 32 + 2 * j + 1)] << 4)));
            }
        }
    };
    for (int il = 0; il < L; ++il) {
        const std::string x = "model.layers." + std::to_string(il) + ".mlp.experts.";
        std::vector<std::uint8_t> gub, gus, dnb, dns;
        std::vector<float> gubias, dbias;
        for (int e = 0; e < E; ++e) {
            std::vector<const Mx*> src;
            std::vector<std::int64_t> idx;
            for (std::int64_t f = 0; f < F; ++f) {
                src.push_back(&m.gate[il][e]), idx.push_back(f);
                src.push_back(&m.up[il][e]), idx.push_back(f);
                gubias.push_back(m.bg[il][e][std::size_t(f)]);
                gubias.push_back(m.bu[il][e][std::size_t(f)]);
            }
            pack(src, idx, H, gub, gus);
            src.clear(), idx.clear();
            for (std::int64_t h = 0; h < H; ++h) src.push_back(&m.down[il][e]), idx.push_back(h);
            pack(src, idx, F, dnb, dns);
            dbias.insert(dbias.end(), m.bd[il][e].begin(), m.bd[il][e].end());
        }
        t[x + "gate_up_proj_blocks"] = Raw{"U8", {E, 2 * F, H / 32, 16}, gub};
        t[x + "gate_up_proj_scales"] = Raw{"U8", {E, 2 * F, H / 32}, gus};
        t[x + "down_proj_blocks"] = Raw{"U8", {E, H, F / 32, 16}, dnb};
        t[x + "down_proj_scales"] = Raw{"U8", {E, H, F / 32}, dns};
        t[x + "gate_up_proj_bias"] = bf16({E, 2 * F}, gubias);
        t[x + "down_proj_bias"] = bf16({E, H}, dbias);
    }
    write_safetensors(dir / "model.safetensors", t);
}

// llama.cpp's GGUF: MXFP4 expert stacks, F32 vectors, BF16 matrices. `skip` leaves one tensor out, `bad_shape` writes
// one with its outer dim wrong.
void write_oss_gguf(const fs::path& path, const OssModel& m, const std::string& skip = {}, const std::string& bad_shape = {}) {
    const ModelDesc d = desc_from_hf_config(oss_config(), "config.json");
    ft::gguf::Writer w(path);
    desc_to_gguf(d, w.metadata());
    struct Out {
        std::string name;
        DType type;
        std::vector<std::uint64_t> dims;
        std::vector<std::uint8_t> bytes;
    };
    std::vector<Out> outs;
    for (const TensorSpec& s : arch_tensors(d)) {
        if (s.name == skip) continue;
        Out o{s.name, DType::F32, s.dims, {}};
        if (s.name == bad_shape) o.dims.back() += 1;
        const int il = s.layer;
        if (s.is_expert()) {
            o.type = DType::MXFP4;
            for (int e = 0; e < E; ++e) {
                const Mx& mx = s.role == TensorRole::ffn_gate_exps ? m.gate[il][e] : s.role == TensorRole::ffn_up_exps ? m.up[il][e] : m.down[il][e];
                const auto b = mx.gguf();
                o.bytes.insert(o.bytes.end(), b.begin(), b.end());
            }
        } else if (s.is_expert_bias()) {
            std::vector<float> v;
            for (int e = 0; e < E; ++e) {
                const auto& b = s.role == TensorRole::ffn_gate_exps_bias ? m.bg[il][e] : s.role == TensorRole::ffn_up_exps_bias ? m.bu[il][e] : m.bd[il][e];
                v.insert(v.end(), b.begin(), b.end());
            }
            o.bytes.resize(v.size() * 4);
            std::memcpy(o.bytes.data(), v.data(), o.bytes.size());
        } else {
            const auto& v = m.other_values.at(s.hf_names[0]);
            if (s.keep_f32()) {
                o.bytes.resize(v.size() * 4);
                std::memcpy(o.bytes.data(), v.data(), o.bytes.size());
            } else {
                o.type = DType::BF16;
                o.bytes = bf16({}, v).bytes;
            }
        }
        if (s.name == bad_shape) o.bytes.resize(std::size_t(*ft::kernels::dtype_bytes(o.type, [&] {
            std::uint64_t n = 1;
            for (auto x : o.dims) n *= x;
            return n;
        }())));
        outs.push_back(std::move(o));
    }
    for (const auto& o : outs) w.add_tensor(o.name, o.type, o.dims);
    w.write_header();
    for (const auto& o : outs) {
        w.begin_tensor(o.name);
        w.write({reinterpret_cast<const std::byte*>(o.bytes.data()), o.bytes.size()});
        w.end_tensor();
    }
    w.finish();
}

// Every expert view (and bias) of w equals the model's values exactly.
void check_experts(const Weights& w, const OssModel& m, DType want_type) {
    for (int il = 0; il < L; ++il) {
        QVERIFY(w.layer_has_experts(il));
        const TensorView* stacked = w.find_layer(il, "ffn_up_exps.bias");
        QVERIFY(stacked && stacked->type == DType::F32 && stacked->rows == E && stacked->cols == F);
        for (int e = 0; e < E; ++e) {
            const ExpertView& ev = w.expert(il, e);
            const Mx* mats[3] = {&m.gate[il][e], &m.up[il][e], &m.down[il][e]};
            const TensorView* views[3] = {&ev.gate, &ev.up, &ev.down};
            for (int b = 0; b < 3; ++b) {
                const TensorView& v = *views[b];
                QCOMPARE(v.type, want_type);
                QCOMPARE(v.rows, mats[b]->rows);
                QCOMPARE(v.cols, mats[b]->cols);
                std::vector<float> row(std::size_t(v.cols));
                for (std::int64_t r = 0; r < v.rows; ++r) {
                    QVERIFY(ref::dequantize_row(v.type, v.row(r), row.data(), v.cols));
                    for (std::int64_t c = 0; c < v.cols; ++c)
                        if (row[std::size_t(c)] != mats[b]->at(r, c))
                            QFAIL(qPrintable(QString("layer %1 expert %2 matrix %3 [%4, %5] = %6, want %7")
                                                 .arg(il).arg(e).arg(b).arg(r).arg(c).arg(row[std::size_t(c)]).arg(mats[b]->at(r, c))));
                }
            }
            QVERIFY(ev.has_bias());
            const std::vector<float>* biases[3] = {&m.bg[il][e], &m.bu[il][e], &m.bd[il][e]};
            const TensorView* bv[3] = {&ev.gate_bias, &ev.up_bias, &ev.down_bias};
            for (int b = 0; b < 3; ++b) {
                QCOMPARE(bv[b]->type, DType::F32);
                QCOMPARE(bv[b]->rows, std::int64_t(1));
                QCOMPARE(bv[b]->cols, std::int64_t(biases[b]->size()));
                QVERIFY(std::memcmp(bv[b]->data, biases[b]->data(), biases[b]->size() * 4) == 0);
            }
            QCOMPARE(static_cast<const void*>(ev.up_bias.data), static_cast<const void*>(stacked->row(e)));
        }
        // Vectors are F32 whatever the file stores (BF16 in the HF checkpoint).
        const TensorView& sinks = w.layer(il, "attn_sinks.weight");
        QCOMPARE(sinks.type, DType::F32);
        const auto& want = m.other_values.at("model.layers." + std::to_string(il) + ".self_attn.sinks");
        QVERIFY(std::memcmp(sinks.data, want.data(), want.size() * 4) == 0);
        QCOMPARE(w.layer(il, "attn_output.bias").type, DType::F32);
        QCOMPARE(w.layer(il, "ffn_gate_inp.bias").cols, E);
    }
}

// Whether p lies in one of the host ranges the GPU path registers.
bool in_mapped(const Weights& w, const void* p) {
    for (const auto& [base, n] : w.mapped_files())
        if (p >= static_cast<const void*>(base) && p < static_cast<const void*>(base + n)) return true;
    return false;
}

std::string error_of(const std::function<void()>& f, ft::ErrorCode* code = nullptr) {
    try {
        f();
    } catch (const ft::Error& e) {
        if (code) *code = e.code();
        return e.what();
    }
    return "no error";
}

// A small GLM-4.5: 2 decoder layers (layer 0 dense) + 1 MTP layer, 4 experts top-2 + 1 shared, q/k/v biases.
json glm_config() {
    return {{"architectures", {"Glm4MoeForCausalLM"}}, {"vocab_size", VOCAB}, {"hidden_size", 64},
            {"intermediate_size", 96}, {"moe_intermediate_size", 32}, {"num_hidden_layers", 2},
            {"num_attention_heads", 2}, {"num_key_value_heads", 1}, {"head_dim", 32}, {"partial_rotary_factor", 0.5},
            {"n_shared_experts", 1}, {"n_routed_experts", 4}, {"num_experts_per_tok", 2}, {"first_k_dense_replace", 1},
            {"norm_topk_prob", true}, {"routed_scaling_factor", 2.5}, {"n_group", 2}, {"topk_group", 1},
            {"use_qk_norm", true}, {"attention_bias", true}, {"num_nextn_predict_layers", 1}, {"rope_theta", 1000000},
            {"rms_norm_eps", 1e-05}, {"max_position_embeddings", 4096}, {"tie_word_embeddings", false}};
}

}  // namespace

class TestWeightsArch : public QObject {
    Q_OBJECT
private slots:
    void gptOssThreeFormsAgree() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const fs::path root = tmp.path().toStdString();
        const OssModel m = make_oss(11);
        write_oss_hf_bf16(root / "bf16", m);
        write_oss_hf_mxfp4(root / "mxfp4", m);
        write_oss_gguf(root / "oss.gguf", m);

        const auto gg = Weights::open(root / "oss.gguf");
        QCOMPARE(gg->desc().arch, ArchId::gpt_oss);
        check_experts(*gg, m, DType::MXFP4);
        // GGUF experts are read in place: views into the mapping, slices of one stack, rows of 3·17 bytes.
        const auto files = gg->mapped_files();
        QCOMPARE(files.size(), size_t(1 + 0));  // no repacked buffer: biases and vectors are F32 in the file
        QVERIFY(in_mapped(*gg, gg->expert(1, 3).gate.data));
        QCOMPARE(gg->expert(1, 3).gate.row_bytes, size_t(3 * 17));
        QCOMPARE(gg->expert(1, 3).gate.data - gg->expert(1, 0).gate.data, std::ptrdiff_t(3 * F * 3 * 17));

        const auto hb = Weights::open(root / "bf16");
        check_experts(*hb, m, DType::BF16);
        const auto hm = Weights::open(root / "mxfp4");
        check_experts(*hm, m, DType::MXFP4);
        // Repacked tensors live in owned page-aligned buffers that mapped_files() lists (the GPU path pins them).
        for (const auto* w : {hb.get(), hm.get()}) {
            QVERIFY(w->mapped_files().size() > 1);
            QVERIFY(in_mapped(*w, w->expert(0, 2).down.data));
            QVERIFY(in_mapped(*w, w->expert(1, 1).up_bias.data));
            QCOMPARE(reinterpret_cast<std::uintptr_t>(w->mapped_files().back().first) % 4096, std::uintptr_t(0));
        }
        QCOMPARE(hb->expert_bytes(), std::uint64_t(L * E * 3 * F * H * 2));
        QCOMPARE(hm->expert_bytes(), gg->expert_bytes());
    }

    void gptOssBadInputs() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const fs::path root = tmp.path().toStdString();
        const OssModel m = make_oss(12);
        ft::ErrorCode code{};
        write_oss_gguf(root / "missing.gguf", m, "blk.1.attn_sinks.weight");
        std::string e = error_of([&] { Weights::open(root / "missing.gguf"); }, &code);
        QVERIFY2(code == ft::ErrorCode::not_found && e.find("blk.1.attn_sinks.weight") != std::string::npos, e.c_str());
        write_oss_gguf(root / "shape.gguf", m, {}, "blk.0.ffn_down_exps.bias");
        e = error_of([&] { Weights::open(root / "shape.gguf"); }, &code);
        QVERIFY2(code == ft::ErrorCode::invalid_file && e.find("blk.0.ffn_down_exps.bias") != std::string::npos, e.c_str());
        write_oss_gguf(root / "experts.gguf", m, "blk.1.ffn_up_exps.weight");
        e = error_of([&] { Weights::open(root / "experts.gguf"); }, &code);
        QVERIFY2(code == ft::ErrorCode::not_found && e.find("blk.1.ffn_up_exps.weight") != std::string::npos, e.c_str());

        // HF: a fused expert tensor of the wrong shape, and one missing in both forms.
        write_oss_hf_bf16(root / "bad", m);
        json cfg = oss_config();
        cfg["intermediate_size"] = F / 2;
        write_config(root / "bad", cfg);
        e = error_of([&] { Weights::open(root / "bad"); }, &code);
        QVERIFY2(code == ft::ErrorCode::invalid_file && e.find("gate_up_proj") != std::string::npos, e.c_str());
        write_oss_hf_mxfp4(root / "nomx", m);
        fs::remove(root / "nomx" / "model.safetensors");
        auto t = m.other;  // no experts at all
        write_safetensors(root / "nomx" / "model.safetensors", t);
        e = error_of([&] { Weights::open(root / "nomx"); }, &code);
        QVERIFY2(code == ft::ErrorCode::not_found && e.find("_blocks") != std::string::npos, e.c_str());
    }

    void glmLayersSharedExpertAndMtp() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const fs::path dir = fs::path(tmp.path().toStdString()) / "glm";
        write_config(dir, glm_config());
        const ModelDesc d = desc_from_hf_config(glm_config(), "config.json");
        std::mt19937 g(5);
        std::map<std::string, Raw> t;
        std::map<std::string, std::vector<float>> values;
        for (const TensorSpec& s : arch_tensors(d)) {
            std::vector<std::uint64_t> shape(s.dims.rbegin(), s.dims.rend());
            if (s.hf_names.size() > 1) shape.erase(shape.begin());
            std::size_t n = 1;
            for (auto x : shape) n *= x;
            for (const auto& hn : s.hf_names) {
                const auto v = randoms(n, g, 0.5f);
                values[hn] = v;
                // The selection bias is F32 in GLM's checkpoints; everything else BF16.
                t[hn] = s.role == TensorRole::ffn_exp_probs_b ? f32(shape, v) : bf16(shape, v);
            }
        }
        write_safetensors(dir / "model.safetensors", t);
        const auto w = Weights::open(dir);
        QCOMPARE(w->desc().n_layer, 2u);
        QVERIFY(!w->layer_has_experts(0) && w->layer_has_experts(1));
        QVERIFY(w->find_layer(0, "ffn_gate.weight") && !w->find_layer(0, "ffn_gate_inp.weight"));
        QVERIFY(w->find_layer(1, "ffn_gate_shexp.weight") && w->find_layer(1, "ffn_down_shexp.weight"));
        QCOMPARE(w->layer(1, "ffn_down_shexp.weight").rows, std::int64_t(64));
        QCOMPARE(w->layer(1, "attn_q_norm.weight").cols, std::int64_t(32));
        QVERIFY(!w->find_layer(1, "attn_output.bias"));
        const TensorView& pb = w->layer(1, "exp_probs_b.bias");
        QCOMPARE(pb.type, DType::F32);
        QVERIFY(std::memcmp(pb.data, values.at("model.layers.1.mlp.gate.e_score_correction_bias").data(), 4 * 4) == 0);
        const TensorView& qb = w->layer(0, "attn_q.bias");
        QCOMPARE(qb.type, DType::F32);  // BF16 in the file, F32 here
        QCOMPARE(reinterpret_cast<const float*>(qb.data)[5], values.at("model.layers.0.self_attn.q_proj.bias")[5]);
        // Expert 3 of layer 1 is its own HF tensor.
        std::vector<float> row(64);
        QVERIFY(ref::dequantize_row(DType::BF16, w->expert(1, 3).up.row(7), row.data(), 64));
        QCOMPARE(row[9], values.at("model.layers.1.mlp.experts.3.up_proj.weight")[7 * 64 + 9]);
        // The MTP layer (2) is not indexed: not even its attention.
        QVERIFY(!w->find_layer(2, "attn_norm.weight") && !w->find_layer(2, "nextn.eh_proj.weight"));

        // A checkpoint without the MTP tensors loads the same (they are never needed).
        for (auto it = t.begin(); it != t.end();) it = it->first.rfind("model.layers.2.", 0) == 0 ? t.erase(it) : std::next(it);
        write_safetensors(dir / "model.safetensors", t);
        QVERIFY(Weights::open(dir)->layer_has_experts(1));
    }

    // Qwen3.5's released checkpoints: the multimodal wrapper (config under text_config, tensors under
    // model.language_model.) and the routed experts as 3-D tensors (mlp.experts.gate_up_proj [E, 2F, H] with gate
    // then up rows, down_proj [E, H, F]). Built from tests/data/qwen3-5-moe-tiny (per-expert, text-only names): the
    // engine reads the same matrices from both, byte for byte, and `ft convert` writes the same GGUF tensors.
    void qwen35MultimodalAnd3dExperts() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const fs::path src = FT_SOURCE_DIR "/tests/data/qwen3-5-moe-tiny", dir = fs::path(tmp.path().toStdString()) / "mm";
        json text;
        std::ifstream(src / "config.json") >> text;
        json cfg = {{"architectures", {"Qwen3_5MoeForConditionalGeneration"}}, {"model_type", "qwen3_5_moe"},
                    {"text_config", text}, {"vision_config", {{"depth", 2}}}};
        write_config(dir, cfg);
        const auto ck = ft::safetensors::Checkpoint::open(src);
        std::map<std::string, Raw> t;
        auto raw = [&](const std::string& n) {
            const auto* e = ck.find(n);
            const auto b = e->data();
            return Raw{std::string(ft::safetensors::dtype_name(e->info->dtype)), e->info->shape,
                       std::vector<std::uint8_t>(reinterpret_cast<const std::uint8_t*>(b.data()),
                                                 reinterpret_cast<const std::uint8_t*>(b.data()) + b.size())};
        };
        const std::uint64_t E = text["num_experts"], F = text["moe_intermediate_size"], Hd = text["hidden_size"];
        for (auto n : ck.names()) {
            const std::string name(n);
            if (name.find(".mlp.experts.") != std::string::npos) continue;
            const std::string out = name.rfind("model.", 0) == 0 ? "model.language_model." + name.substr(6) : name;
            t[out] = raw(name);
        }
        t["model.visual.blocks.0.attn.qkv.weight"] = bf16({4, 4}, std::vector<float>(16, 0.5f));  // not read
        for (int il = 0; il < int(text["num_hidden_layers"]); ++il) {
            const std::string p = "model.layers." + std::to_string(il) + ".mlp.experts.";
            Raw gu{"BF16", {E, 2 * F, Hd}, {}}, dn{"BF16", {E, Hd, F}, {}};
            for (std::uint64_t x = 0; x < E; ++x) {
                for (const char* m : {"gate_proj", "up_proj"}) {
                    const Raw r = raw(p + std::to_string(x) + "." + m + ".weight");
                    gu.bytes.insert(gu.bytes.end(), r.bytes.begin(), r.bytes.end());
                }
                const Raw r = raw(p + std::to_string(x) + ".down_proj.weight");
                dn.bytes.insert(dn.bytes.end(), r.bytes.begin(), r.bytes.end());
            }
            const std::string q = "model.language_model.layers." + std::to_string(il) + ".mlp.experts.";
            t[q + "gate_up_proj"] = gu;
            t[q + "down_proj"] = dn;
        }
        write_safetensors(dir / "model.safetensors", t);
        const auto a = Weights::open(src), b = Weights::open(dir);
        QCOMPARE(b->desc().arch, ArchId::qwen3_5_moe);
        QCOMPARE(b->desc().linear.n_linear(), 3u);
        for (int il = 0; il < int(a->desc().n_layer); ++il)
            for (int x = 0; x < int(E); ++x)
                for (auto m : {&ExpertView::gate, &ExpertView::up, &ExpertView::down}) {
                    const TensorView &va = a->expert(il, x).*m, &vb = b->expert(il, x).*m;
                    QCOMPARE(vb.rows, va.rows);
                    QVERIFY(std::memcmp(va.data, vb.data, va.bytes()) == 0);
                }
        for (const char* n : {"blk.0.attn_qkv.weight", "blk.3.attn_q.weight", "blk.0.ssm_a", "output_norm.weight"})
            QVERIFY2(std::memcmp(a->get(n).data, b->get(n).data, a->get(n).bytes()) == 0, n);
        // ft convert reads the same layout.
        ft::model::ConvertOptions co;
        co.type = DType::BF16;
        const fs::path tok = FT_SOURCE_DIR "/tests/data/qwen3-moe-tiny";
        for (const char* n : {"tokenizer.json", "tokenizer_config.json"}) fs::create_symlink(tok / n, dir / n);
        co.out = fs::path(tmp.path().toStdString()) / "mm.gguf";
        ft::model::convert_hf_to_gguf(dir, co);
        const auto g = Weights::open(co.out);
        for (int x : {0, int(E) - 1}) {
            const TensorView &va = a->expert(2, x).up, &vg = g->expert(2, x).up;
            QCOMPARE(vg.type, DType::BF16);
            QVERIFY(std::memcmp(va.data, vg.data, va.bytes()) == 0);
        }
    }
};

FT_TEST_MAIN(TestWeightsArch)
#include "test_weights_arch.moc"
