// The normalized model description: from config.json and from GGUF keys (equal for equivalent inputs, for every
// architecture), the qwen3_moe tensor table and HF name mapping, parameter counts, tokenizer metadata from the real
// Qwen3 files, and clear errors for bad inputs.
#include <QTemporaryDir>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "format/gguf.h"
#include "ft/error.h"
#include "ft_test.h"
#include "model/arch.h"
#include "model/model_desc.h"
#include "model/layer_params.h"
#include "model/model_tensors.h"
#include "model/tokenizer_meta.h"
#include "ref/rope.h"
#include "synth/synth_model.h"

using nlohmann::json;
using namespace ft::model;

namespace {

json qwen3_30b_config() {
    return json::parse(R"({
      "architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "vocab_size": 151936,
      "hidden_size": 2048, "intermediate_size": 6144, "moe_intermediate_size": 768, "num_hidden_layers": 48,
      "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128, "max_position_embeddings": 40960,
      "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "rope_scaling": null, "num_experts": 128,
      "num_experts_per_tok": 8, "norm_topk_prob": true, "decoder_sparse_step": 1, "mlp_only_layers": [],
      "tie_word_embeddings": false, "use_sliding_window": false, "sliding_window": null, "attention_bias": false,
      "bos_token_id": 151643, "eos_token_id": 151645, "torch_dtype": "bfloat16"})");
}

json deepseek_v3_config() {
    return json::parse(R"({
      "architectures": ["DeepseekV3ForCausalLM"], "vocab_size": 129280, "hidden_size": 7168,
      "intermediate_size": 18432, "moe_intermediate_size": 2048, "num_hidden_layers": 61,
      "num_attention_heads": 128, "num_key_value_heads": 128, "n_shared_experts": 1, "n_routed_experts": 256,
      "routed_scaling_factor": 2.5, "kv_lora_rank": 512, "q_lora_rank": 1536, "qk_rope_head_dim": 64,
      "v_head_dim": 128, "qk_nope_head_dim": 128, "topk_method": "noaux_tc", "n_group": 8, "topk_group": 4,
      "num_experts_per_tok": 8, "moe_layer_freq": 1, "first_k_dense_replace": 3, "norm_topk_prob": true,
      "scoring_func": "sigmoid", "max_position_embeddings": 163840, "rms_norm_eps": 1e-06, "rope_theta": 10000,
      "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0,
                       "original_max_position_embeddings": 4096, "type": "yarn"},
      "tie_word_embeddings": false})");
}

// DeepSeek-V4-Flash's config.json in DeepSeek's own (legacy) field names: compress_ratios per layer (44: the last
// is the MTP layer's), num_hash_layers, a flat YaRN rope_scaling (the compressed branches' only).
json deepseek_v4_flash_config() {
    json ratios = json::array({0, 0});
    for (int i = 0; i < 20; ++i) ratios.push_back(4), ratios.push_back(128);
    ratios.push_back(4);
    ratios.push_back(0);
    return {{"architectures", {"DeepseekV4ForCausalLM"}}, {"vocab_size", 129280}, {"hidden_size", 4096},
            {"moe_intermediate_size", 2048}, {"num_hidden_layers", 43}, {"num_attention_heads", 64},
            {"num_key_value_heads", 1}, {"n_routed_experts", 256}, {"n_shared_experts", 1}, {"num_experts_per_tok", 6},
            {"max_position_embeddings", 1048576}, {"rms_norm_eps", 1e-6}, {"rope_theta", 10000}, {"q_lora_rank", 1024},
            {"qk_rope_head_dim", 64}, {"head_dim", 512}, {"compress_ratios", ratios}, {"sliding_window", 128},
            {"compress_rope_theta", 160000}, {"o_lora_rank", 1024}, {"o_groups", 8}, {"index_n_heads", 64},
            {"index_head_dim", 128}, {"index_topk", 512}, {"num_hash_layers", 3}, {"hc_mult", 4}, {"hc_eps", 1e-6},
            {"hc_sinkhorn_iters", 20}, {"swiglu_limit", 10.0}, {"routed_scaling_factor", 1.5},
            {"scoring_func", "sqrtsoftplus"}, {"topk_method", "noaux_tc"},
            {"rope_scaling", {{"type", "yarn"}, {"factor", 16}, {"original_max_position_embeddings", 65536},
                              {"beta_fast", 32}, {"beta_slow", 1}}}};
}

json glm45_air_config() {
    return json::parse(R"({
      "architectures": ["Glm4MoeForCausalLM"], "vocab_size": 151552, "hidden_size": 4096,
      "intermediate_size": 10944, "moe_intermediate_size": 1408, "num_hidden_layers": 46,
      "num_attention_heads": 96, "num_key_value_heads": 8, "head_dim": 128, "partial_rotary_factor": 0.5,
      "n_shared_experts": 1, "n_routed_experts": 128, "num_experts_per_tok": 8, "first_k_dense_replace": 1,
      "norm_topk_prob": true, "routed_scaling_factor": 1.0, "n_group": 1, "topk_group": 1, "use_qk_norm": false,
      "attention_bias": true, "num_nextn_predict_layers": 1, "rope_theta": 1000000, "rms_norm_eps": 1e-05,
      "max_position_embeddings": 131072, "tie_word_embeddings": false})");
}

json gpt_oss_20b_config() {
    json c = json::parse(R"({
      "architectures": ["GptOssForCausalLM"], "vocab_size": 201088, "hidden_size": 2880,
      "intermediate_size": 2880, "num_hidden_layers": 24, "num_attention_heads": 64, "num_key_value_heads": 8,
      "head_dim": 64, "num_local_experts": 32, "num_experts_per_tok": 4, "sliding_window": 128,
      "rope_theta": 150000, "rope_scaling": {"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0,
      "beta_slow": 1.0, "original_max_position_embeddings": 4096, "truncate": false},
      "rms_norm_eps": 1e-05, "max_position_embeddings": 131072, "swiglu_limit": 7.0, "attention_bias": true,
      "tie_word_embeddings": false})");
    for (int i = 0; i < 24; ++i) c["layer_types"].push_back(i % 2 ? "full_attention" : "sliding_attention");
    return c;
}

json mixtral_config() {
    return json::parse(R"({
      "architectures": ["MixtralForCausalLM"], "vocab_size": 32000, "hidden_size": 4096,
      "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
      "num_local_experts": 8, "num_experts_per_tok": 2, "rope_theta": 1000000.0, "rms_norm_eps": 1e-05,
      "max_position_embeddings": 32768, "sliding_window": null, "tie_word_embeddings": false})");
}

json olmoe_config() {
    return json::parse(R"({
      "architectures": ["OlmoeForCausalLM"], "vocab_size": 50304, "hidden_size": 2048, "intermediate_size": 1024,
      "num_hidden_layers": 16, "num_attention_heads": 16, "num_key_value_heads": 16, "num_experts": 64,
      "num_experts_per_tok": 8, "norm_topk_prob": false, "rope_theta": 10000.0, "rms_norm_eps": 1e-05,
      "max_position_embeddings": 4096, "tie_word_embeddings": false})");
}

// Deep comparison with a relative tolerance for floats (GGUF stores them as f32).
bool same_json(const json& a, const json& b, const std::string& path, QString* why) {
    if (a.is_number() && b.is_number()) {
        const double x = a.get<double>(), y = b.get<double>();
        if (std::fabs(x - y) <= 1e-6 * std::max(1.0, std::fabs(y))) return true;
        *why = QString::fromStdString(path + ": " + a.dump() + " vs " + b.dump());
        return false;
    }
    if (a.type() != b.type()) return *why = QString::fromStdString(path + ": type differs"), false;
    if (a.is_object()) {
        if (a.size() != b.size()) return *why = QString::fromStdString(path + ": key count differs"), false;
        for (const auto& [k, v] : a.items()) {
            if (!b.contains(k)) return *why = QString::fromStdString(path + "." + k + ": missing"), false;
            if (!same_json(v, b[k], path + "." + k, why)) return false;
        }
        return true;
    }
    if (a.is_array()) {
        if (a.size() != b.size()) return *why = QString::fromStdString(path + ": length differs"), false;
        for (size_t i = 0; i < a.size(); ++i)
            if (!same_json(a[i], b[i], path + "[" + std::to_string(i) + "]", why)) return false;
        return true;
    }
    if (a != b) return *why = QString::fromStdString(path + ": " + a.dump() + " vs " + b.dump()), false;
    return true;
}

ModelDesc via_gguf(const ModelDesc& d) {
    ft::gguf::Metadata md("roundtrip.gguf");
    desc_to_gguf(d, md);
    return desc_from_gguf(md);
}

template <class F>
ft::Error expect_error(F&& f) {
    try {
        f();
    } catch (const ft::Error& e) {
        return e;
    }
    return ft::Error(ft::ErrorCode::internal, "no error thrown");
}

std::filesystem::path resources_qwen3() { return std::filesystem::path(FT_SOURCE_DIR) / "resources/tokenizers/qwen3"; }

}  // namespace

class TestModelDesc : public QObject {
    Q_OBJECT
private slots:
    void qwen3FromConfig() {
        const ModelDesc d = desc_from_hf_config(qwen3_30b_config(), "config.json");
        QCOMPARE(d.arch, ArchId::qwen3_moe);
        QCOMPARE(d.n_layer, 48u);
        QCOMPARE(d.n_embd, 2048u);
        QCOMPARE(d.n_vocab, 151936u);
        QCOMPARE(d.attn.n_head, 32u);
        QCOMPARE(d.attn.n_head_kv, 4u);
        QCOMPARE(d.attn.head_dim, 128u);
        QVERIFY(d.attn.qk_norm);
        QCOMPARE(d.moe.n_expert, 128u);
        QCOMPARE(d.moe.n_expert_used, 8u);
        QCOMPARE(d.moe.n_ff_exp, 768u);
        QVERIFY(d.moe.norm_topk_prob);
        QCOMPARE(d.moe.gating, Gating::softmax);
        QCOMPARE(d.rope.theta, 1e6);
        QCOMPARE(d.rope.type, RopeType::neox);
        QCOMPARE(d.n_moe_layers(), 48u);
        QCOMPARE(d.norm_eps, 1e-6);
        QVERIFY(!d.tied_embeddings);
    }

    void ggufEqualsConfig_data() {
        QTest::addColumn<QString>("name");
        QTest::newRow("qwen3_moe") << "qwen3_moe";
        QTest::newRow("deepseek_v3") << "deepseek_v3";
        QTest::newRow("glm4_moe") << "glm4_moe";
        QTest::newRow("gpt_oss") << "gpt_oss";
        QTest::newRow("deepseek_v4") << "deepseek_v4";
    }
    void ggufEqualsConfig() {
        QFETCH(QString, name);
        const json cfg = name == "qwen3_moe"     ? qwen3_30b_config()
                         : name == "deepseek_v3" ? deepseek_v3_config()
                         : name == "glm4_moe"    ? glm45_air_config()
                         : name == "gpt_oss"     ? gpt_oss_20b_config()
                                                 : deepseek_v4_flash_config();
        const ModelDesc hf = desc_from_hf_config(cfg, "config.json");
        QCOMPARE(QString::fromUtf8(arch_name(hf.arch).data()), name);
        const ModelDesc gg = via_gguf(hf);
        QString why;
        QVERIFY2(same_json(desc_to_json(gg), desc_to_json(hf), "desc", &why), qPrintable(why));
        QCOMPARE(gg.attn.swa_layers, hf.attn.swa_layers);
        QCOMPARE(gg.moe.router_bias, hf.moe.router_bias);
        QCOMPARE(gg.swiglu_limit, hf.swiglu_limit);
    }

    void otherArchitecturesDescribed() {
        const ModelDesc ds = desc_from_hf_config(deepseek_v3_config(), "config.json");
        QVERIFY(ds.attn.is_mla());
        QCOMPARE(ds.attn.kv_lora_rank, 512u);
        QCOMPARE(ds.attn.q_lora_rank, 1536u);
        QCOMPARE(ds.attn.head_dim, 192u);
        QCOMPARE(ds.attn.v_head_dim, 128u);
        QCOMPARE(ds.rope.n_rot, 64u);
        QCOMPARE(ds.rope.scaling, RopeScaling::yarn);
        QCOMPARE(ds.rope.factor, 40.0);
        QCOMPARE(ds.rope.original_context, 4096u);
        QVERIFY(std::fabs(ds.rope.yarn_log_multiplier - 0.1) < 1e-12);
        QCOMPARE(ds.moe.gating, Gating::sigmoid);
        QVERIFY(ds.moe.correction_bias);
        QCOMPARE(ds.moe.n_group, 8u);
        QCOMPARE(ds.moe.topk_group, 4u);
        QCOMPARE(ds.moe.routed_scaling_factor, 2.5);
        QCOMPARE(ds.moe.n_shared_expert, 1u);
        QCOMPARE(ds.moe.n_ff_shexp, 2048u);
        QCOMPARE(ds.n_moe_layers(), 58u);  // first 3 dense
        QVERIFY(!ds.layer_is_moe(2) && ds.layer_is_moe(3));

        const ModelDesc glm = desc_from_hf_config(glm45_air_config(), "config.json");
        QCOMPARE(glm.rope.n_rot, 64u);  // partial rotary 0.5 of 128
        QCOMPARE(glm.nextn_predict_layers, 1u);
        QVERIFY(glm.attn.qkv_bias);
        QCOMPARE(glm.n_moe_layers(), 45u);

        const ModelDesc oss = desc_from_hf_config(gpt_oss_20b_config(), "config.json");
        QCOMPARE(oss.moe.gating, Gating::softmax_weight);
        QVERIFY(oss.attn.sinks);
        QCOMPARE(oss.attn.sliding_window, 128u);
        QVERIFY(oss.attn.swa_layers[0] && !oss.attn.swa_layers[1]);
        QCOMPARE(oss.moe.n_ff_exp, 2880u);
    }

    // The registry (arch.h) is the one list of architectures: every entry has its names, hyper-parameter readers,
    // tensor table, graph and presets, and appears in every generated list; its presets round-trip through GGUF.
    void registryGeneratesLists() {
#define FT_COUNT_ARCH(name) +1
        constexpr int listed = 0 FT_ARCHITECTURES(FT_COUNT_ARCH);
#undef FT_COUNT_ARCH
        QCOMPARE(int(arch_registry().size()), listed);
        const std::string names = runnable_arch_names(), gguf = runnable_gguf_names(), hf = runnable_hf_classes(),
                          presets = ft::model::synth_preset_names();
        auto listed_in = [](const std::string& list, std::string_view n) {
            const std::string s = ", " + list + ", ";
            return s.find(", " + std::string(n) + ", ") != std::string::npos;
        };
        for (const Arch* a : arch_registry()) {
            const QByteArray what(a->name.data(), qsizetype(a->name.size()));
            QCOMPARE(&arch_of(a->id), a);
            QVERIFY2(a->read_hf && a->read_gguf && a->tensors && a->graph && !a->hf.empty() && !a->presets.empty(), what);
            QVERIFY2(arch_runs(a->id) && !arch_unsupported_reason(a->id), what);
            QVERIFY2(listed_in(names, a->name) && listed_in(gguf, a->gguf_name), what);
            QCOMPARE(arch_from_name(a->name), std::optional(a->id));
            QCOMPARE(arch_from_name(a->gguf_name), std::optional(a->id));
            QCOMPARE(arch_of_gguf_name(a->gguf_name), a);
            for (const HfClass& c : a->hf) {
                QVERIFY2(listed_in(hf, c.class_name), what);
                QCOMPARE(arch_of_hf_class(c.class_name), a);
                QCOMPARE(arch_of_hf_model_type(c.model_type), a);
            }
            for (const SynthPreset& p : a->presets) {
                QVERIFY2(listed_in(presets, p.name), what);
                QCOMPARE(ft::synth::synth_preset_arch(std::string(p.name)), std::optional(a->id));
                const ModelDesc d = ft::synth::synth_desc(a->id, std::string(p.name), {});
                QCOMPARE(d.arch, a->id);
                QCOMPARE(via_gguf(d).arch, a->id);
                QVERIFY2(!arch_tensors(d).empty(), what);
            }
        }
        QCOMPARE(int(ft::synth::synth_presets().size()), int(std::count(presets.begin(), presets.end(), ',')) + 1);
    }

    // A config or file of an architecture that is not registered (Mixtral and OLMoE are not: nothing runs them)
    // gets an error naming it and where it was read, with the generated list of what is supported.
    void unknownArchitectureListsSupported() {
        for (const json& cfg : {mixtral_config(), olmoe_config()}) {
            const std::string cls = cfg["architectures"][0].get<std::string>();
            auto e = expect_error([&] { desc_from_hf_config(cfg, "dir/config.json"); });
            QCOMPARE(e.code(), ft::ErrorCode::unsupported);
            QVERIFY2(e.message().find("dir/config.json") != std::string::npos && e.message().find(cls) != std::string::npos &&
                         e.message().find("(architectures)") != std::string::npos, e.what());
            QCOMPARE(e.hint(), "supported: " + runnable_hf_classes());
            json by_type = cfg;
            by_type.erase("architectures");
            by_type["model_type"] = cls == "MixtralForCausalLM" ? "mixtral" : "olmoe";
            e = expect_error([&] { desc_from_hf_config(by_type, "dir/config.json"); });
            QCOMPARE(e.code(), ft::ErrorCode::unsupported);
            QVERIFY2(e.message().find("(model_type)") != std::string::npos, e.what());
            QCOMPARE(e.hint(), "supported: " + runnable_hf_classes());
        }
        for (const char* name : {"llama", "olmoe"}) {
            ft::gguf::Metadata md("model.gguf");
            md.set("general.architecture", ft::gguf::Value::string(name));
            md.set(std::string(name) + ".expert_count", ft::gguf::Value::u32(8));
            const auto e = expect_error([&] { desc_from_gguf(md); });
            QCOMPARE(e.code(), ft::ErrorCode::unsupported);
            QVERIFY2(e.message().find(name) != std::string::npos, e.what());
            QCOMPARE(e.hint(), "supported: " + runnable_gguf_names());
        }
        QVERIFY(runnable_hf_classes().find("Mixtral") == std::string::npos);
        QVERIFY(runnable_hf_classes().find("Qwen3MoeForCausalLM") != std::string::npos);
        QVERIFY(runnable_gguf_names().find("deepseek2") != std::string::npos);
    }

    // DeepSeek-V4-Flash from its legacy config: the layer kinds (the 44th ratio, the MTP layer's, dropped), hash
    // routing in 3 layers, the plain clamp, the main rope plain and the compressed one YaRN with cos/sin unscaled.
    void deepseekV4Description() {
        const ModelDesc d = desc_from_hf_config(deepseek_v4_flash_config(), "config.json");
        using K = V4LayerKind;
        QCOMPARE(d.v4.layers.size(), std::size_t(43));
        QCOMPARE(d.v4.layers[0], K::sliding);
        QCOMPARE(d.v4.layers[2], K::csa);
        QCOMPARE(d.v4.layers[3], K::hca);
        QCOMPARE(d.v4.layers[42], K::csa);
        QCOMPARE(d.v4.n_compressed(), 41u);
        QCOMPARE(d.v4.n_hash_layers, 3u);
        QCOMPARE(d.moe.gating, Gating::sqrtsoftplus);
        QVERIFY(d.moe.correction_bias && d.moe.norm_topk_prob);
        QCOMPARE(d.swiglu_limit, 10.0);
        QCOMPARE(d.swiglu_alpha, 0.0);
        QCOMPARE(d.rope.scaling, RopeScaling::none);
        QCOMPARE(d.rope.n_rot, 64u);
        QCOMPARE(d.rope.type, RopeType::norm);
        QCOMPARE(d.v4.compress_rope.scaling, RopeScaling::yarn);
        QCOMPARE(d.v4.compress_rope.theta, 160000.0);
        QCOMPARE(d.v4.compress_rope.original_context, 65536u);
        QVERIFY(std::abs(d.v4.compress_rope.attn_factor * (0.1 * std::log(16.0) + 1.0) - 1.0) < 1e-12);
        json bad = deepseek_v4_flash_config();
        bad["compress_ratios"][5] = 7;
        QCOMPARE(expect_error([&] { desc_from_hf_config(bad, "config.json"); }).code(), ft::ErrorCode::invalid_file);
        bad = deepseek_v4_flash_config();
        bad["o_groups"] = 7;  // does not divide 64 heads
        QCOMPARE(expect_error([&] { desc_from_hf_config(bad, "config.json"); }).code(), ft::ErrorCode::invalid_file);
    }

    void denseLayerPattern() {
        json c = qwen3_30b_config();
        c["mlp_only_layers"] = {0, 5};
        c["num_hidden_layers"] = 8;
        const ModelDesc d = desc_from_hf_config(c, "config.json");
        QCOMPARE(d.n_moe_layers(), 6u);
        QVERIFY(!d.layer_is_moe(0) && d.layer_is_moe(1) && !d.layer_is_moe(5));
        const auto t = arch_tensors(d);
        auto find = [&](const std::string& n) -> const TensorSpec* {
            for (const auto& s : t)
                if (s.name == n) return &s;
            return nullptr;
        };
        QVERIFY(find("blk.0.ffn_gate.weight") && !find("blk.0.ffn_gate_exps.weight"));
        QCOMPARE(find("blk.5.ffn_down.weight")->dims, (std::vector<std::uint64_t>{6144, 2048}));
        QCOMPARE(find("blk.5.ffn_down.weight")->hf_names[0], std::string("model.layers.5.mlp.down_proj.weight"));
        QVERIFY(find("blk.1.ffn_gate_exps.weight"));
    }

    void qwen3TensorTable() {
        const ModelDesc d = desc_from_hf_config(qwen3_30b_config(), "config.json");
        const auto t = arch_tensors(d);
        QCOMPARE(t.size(), size_t(1 + 48 * 12 + 2));
        auto get = [&](const std::string& n) -> const TensorSpec& {
            for (const auto& s : t)
                if (s.name == n) return s;
            qFatal("missing %s", n.c_str());
        };
        using V = std::vector<std::uint64_t>;
        QCOMPARE(get("token_embd.weight").dims, (V{2048, 151936}));
        QCOMPARE(get("output.weight").dims, (V{2048, 151936}));
        QCOMPARE(get("output.weight").hf_names[0], std::string("lm_head.weight"));
        QCOMPARE(get("output_norm.weight").hf_names[0], std::string("model.norm.weight"));
        QCOMPARE(get("blk.0.attn_q.weight").dims, (V{2048, 4096}));
        QCOMPARE(get("blk.0.attn_k.weight").dims, (V{2048, 512}));
        QCOMPARE(get("blk.0.attn_v.weight").dims, (V{2048, 512}));
        QCOMPARE(get("blk.0.attn_output.weight").dims, (V{4096, 2048}));
        QCOMPARE(get("blk.0.attn_q_norm.weight").dims, (V{128}));
        QCOMPARE(get("blk.0.ffn_gate_inp.weight").dims, (V{2048, 128}));
        QCOMPARE(get("blk.0.ffn_gate_exps.weight").dims, (V{2048, 768, 128}));
        QCOMPARE(get("blk.0.ffn_up_exps.weight").dims, (V{2048, 768, 128}));
        QCOMPARE(get("blk.0.ffn_down_exps.weight").dims, (V{768, 2048, 128}));
        QCOMPARE(get("blk.3.attn_q.weight").hf_names[0], std::string("model.layers.3.self_attn.q_proj.weight"));
        QCOMPARE(get("blk.3.attn_k_norm.weight").hf_names[0], std::string("model.layers.3.self_attn.k_norm.weight"));
        QCOMPARE(get("blk.3.ffn_norm.weight").hf_names[0], std::string("model.layers.3.post_attention_layernorm.weight"));
        QCOMPARE(get("blk.3.ffn_gate_inp.weight").hf_names[0], std::string("model.layers.3.mlp.gate.weight"));
        const auto& up = get("blk.3.ffn_up_exps.weight");
        QCOMPARE(up.hf_names.size(), size_t(128));
        QCOMPARE(up.hf_names[5], std::string("model.layers.3.mlp.experts.5.up_proj.weight"));
        QVERIFY(up.is_expert() && !up.keep_f32());
        QVERIFY(get("blk.3.ffn_gate_inp.weight").keep_f32());
        QVERIFY(get("blk.3.attn_norm.weight").is_norm());

        // Parameter counts of the real model: 30.5B total, 3.3B active.
        std::vector<TensorStat> stats;
        for (const auto& s : t) stats.push_back({s.name, s.dims, ft::kernels::DType::BF16, s.n_elements(), s.n_elements() * 2});
        const SizeReport r = measure(&d, stats);
        QCOMPARE(r.total_params, 30532122624ull);
        QCOMPARE(r.active_params, 3353032704ull);
        QCOMPARE(r.expert_pool_bytes, 48ull * 3 * 2048 * 768 * 128 * 2);
        QCOMPARE(r.expert_bytes_per_expert, 3ull * 2048 * 768 * 2);
        QCOMPARE(r.non_expert_bytes + r.expert_pool_bytes, r.total_params * 2);
    }

    // gpt-oss: every field the forward pass needs, from config.json and from GGUF keys alike, and the kernel
    // parameters they turn into (YaRN magnitude as transformers and llama.cpp compute it).
    void gptOssDescription() {
        const ModelDesc d = desc_from_hf_config(gpt_oss_20b_config(), "config.json");
        QVERIFY(d.attn.qkv_bias && d.attn.o_bias && d.attn.sinks && !d.attn.qk_norm);
        QVERIFY(d.moe.router_bias && d.moe.expert_bias && !d.moe.correction_bias && !d.moe.norm_topk_prob);
        QCOMPARE(d.moe.gating, Gating::softmax_weight);
        QCOMPARE(d.swiglu_limit, 7.0);
        QCOMPARE(d.swiglu_alpha, 1.702);
        QCOMPARE(d.attn.head_dim, 64u);
        QCOMPARE(d.rope.n_rot, 64u);
        QCOMPARE(d.rope.theta, 150000.0);
        QCOMPARE(d.rope.scaling, RopeScaling::yarn);
        QCOMPARE(d.rope.factor, 32.0);
        QCOMPARE(d.rope.original_context, 4096u);
        QCOMPARE(d.rope.yarn_beta_fast, 32.0);
        QCOMPARE(d.rope.yarn_beta_slow, 1.0);
        QVERIFY(!d.rope.yarn_truncate);  // rope_scaling.truncate: false
        QCOMPARE(d.rope.attn_factor, 1.0);
        QCOMPARE(d.attn.sliding_window, 128u);
        QCOMPARE(d.attn.swa_layers.size(), size_t(24));
        for (std::uint32_t il = 0; il < 24; ++il) QCOMPARE(bool(d.attn.swa_layers[il]), il % 2 == 0);
        QCOMPARE(d.n_moe_layers(), 24u);

        const auto rp = rope_params(d);
        QCOMPARE(rp.ext_factor, 1.f);
        QCOMPARE(rp.freq_scale, 1.f / 32);
        QCOMPARE(rp.orig_ctx, 4096);
        QVERIFY(!rp.truncate);
        // cos at position 0 is the magnitude: 0.1·ln(32) + 1 = 1.3466 (transformers' attention_factor for yarn
        // without mscale; llama.cpp's yarn_attn_factor · (1 + 0.1·ln(1/freq_scale)) is the same).
        std::vector<float> cs(64);
        ft::kernels::rope_cos_sin(rp, 0, cs.data());
        QVERIFY2(std::fabs(cs[0] - (0.1 * std::log(32.0) + 1.0)) < 1e-6, qPrintable(QString::number(cs[0])));
        // Untruncated ramp ends move the mix of the pairs between them: pair 8 (corr dims 8.09 .. 17.40).
        auto rt = rp;
        rt.truncate = true;
        std::vector<float> a(64), b(64);
        ft::kernels::rope_cos_sin(rp, 1000, a.data());
        ft::kernels::rope_cos_sin(rt, 1000, b.data());
        QVERIFY(std::fabs(a[2 * 12] - b[2 * 12]) > 1e-3);

        // GGUF (llama.cpp's keys; no truncate key: gpt-oss is never truncated).
        const ModelDesc g = via_gguf(d);
        QVERIFY(!g.rope.yarn_truncate && g.attn.o_bias && g.moe.expert_bias);
        QCOMPARE(g.swiglu_alpha, 1.702);
        QCOMPARE(g.attn.swa_layers, d.attn.swa_layers);

        // An explicit HF attention_factor replaces 0.1·ln(factor) + 1.
        json c = gpt_oss_20b_config();
        c["rope_scaling"]["attention_factor"] = 2.0;
        const ModelDesc af = desc_from_hf_config(c, "config.json");
        QVERIFY(std::fabs(af.rope.attn_factor * (0.1 * std::log(32.0) + 1.0) - 2.0) < 1e-12);
        c["rope_scaling"].erase("attention_factor");
        c["rope_scaling"].erase("truncate");
        QVERIFY(desc_from_hf_config(c, "config.json").rope.yarn_truncate);  // transformers' default
        // transformers 5 writes rope_parameters instead of rope_theta / rope_scaling.
        c = gpt_oss_20b_config();
        c["rope_parameters"] = c["rope_scaling"];
        c["rope_parameters"]["rope_theta"] = 150000;
        c.erase("rope_scaling");
        c.erase("rope_theta");
        const ModelDesc t5 = desc_from_hf_config(c, "config.json");
        QCOMPARE(t5.rope.theta, 150000.0);
        QVERIFY(t5.rope.scaling == RopeScaling::yarn && !t5.rope.yarn_truncate);
        // layer_types must name known kinds.
        c = gpt_oss_20b_config();
        c["layer_types"][3] = "chunked_attention";
        QCOMPARE(expect_error([&] { desc_from_hf_config(c, "config.json"); }).code(), ft::ErrorCode::invalid_file);
    }

    // attention.sliding_window_pattern as llama.cpp reads it: absent (period 2), a period, or one bool per layer.
    void gptOssSlidingWindowPattern() {
        const ModelDesc d = desc_from_hf_config(gpt_oss_20b_config(), "config.json");
        ft::gguf::Metadata md("oss.gguf");
        desc_to_gguf(d, md);
        QVERIFY(!md.find("gpt-oss.attention.sliding_window_pattern"));  // llama.cpp's default: not written
        md.set("gpt-oss.attention.sliding_window_pattern", ft::gguf::Value::u32(3));
        ModelDesc p3 = desc_from_gguf(md);
        for (std::uint32_t il = 0; il < 24; ++il) QCOMPARE(bool(p3.attn.swa_layers[il]), il % 3 < 2);
        // A pattern that is no period round-trips as a bool array.
        p3.attn.swa_layers.assign(24, false);
        p3.attn.swa_layers[5] = p3.attn.swa_layers[6] = true;
        const ModelDesc back = via_gguf(p3);
        QCOMPARE(back.attn.swa_layers, p3.attn.swa_layers);
        std::vector<bool> few(7, true);
        std::unique_ptr<bool[]> raw(new bool[7]{true, true, true, true, true, true, true});
        md.set("gpt-oss.attention.sliding_window_pattern", ft::gguf::Value::bool_array({raw.get(), 7}));
        const auto e = expect_error([&] { desc_from_gguf(md); });
        QCOMPARE(e.code(), ft::ErrorCode::invalid_file);
        QVERIFY(e.message().find("sliding_window_pattern") != std::string::npos);
    }

    void glm45Description() {
        const ModelDesc air = desc_from_hf_config(glm45_air_config(), "config.json");
        QCOMPARE(air.n_layer, 46u);
        QCOMPARE(air.nextn_predict_layers, 1u);
        QCOMPARE(air.moe.first_k_dense, 1u);
        QVERIFY(!air.layer_is_moe(0) && air.layer_is_moe(1) && air.layer_is_moe(45));
        QCOMPARE(air.n_ff, 10944u);
        QCOMPARE(air.moe.n_expert, 128u);
        QCOMPARE(air.moe.n_expert_used, 8u);
        QCOMPARE(air.moe.n_ff_exp, 1408u);
        QCOMPARE(air.moe.n_shared_expert, 1u);
        QCOMPARE(air.moe.n_ff_shexp, 1408u);
        QCOMPARE(air.moe.gating, Gating::sigmoid);
        QVERIFY(air.moe.correction_bias && air.moe.norm_topk_prob && !air.moe.router_bias && !air.moe.expert_bias);
        QCOMPARE(air.moe.routed_scaling_factor, 1.0);
        QCOMPARE(air.moe.n_group, 1u);
        QCOMPARE(air.moe.topk_group, 1u);
        QVERIFY(air.attn.qkv_bias && !air.attn.o_bias && !air.attn.qk_norm && !air.attn.sinks);
        QCOMPARE(air.rope.n_rot, 64u);
        QCOMPARE(air.rope.type, RopeType::neox);
        QCOMPARE(air.rope.theta, 1e6);
        QCOMPARE(air.swiglu_limit, 0.0);
        // GGUF: block_count counts the MTP layer (llama.cpp: n_layer = block_count - nextn_predict_layers).
        ft::gguf::Metadata md("air.gguf");
        desc_to_gguf(air, md);
        QCOMPARE(md.get_u64("glm4moe.block_count"), std::uint64_t(47));
        QCOMPARE(md.get_u64("glm4moe.nextn_predict_layers"), std::uint64_t(1));
        QCOMPARE(md.get_u64("glm4moe.rope.dimension_count"), std::uint64_t(64));
        const ModelDesc g = desc_from_gguf(md);
        QCOMPARE(g.n_layer, 46u);
        QCOMPARE(g.n_moe_layers(), 45u);
        md.set("glm4moe.nextn_predict_layers", ft::gguf::Value::u32(47));
        QCOMPARE(expect_error([&] { desc_from_gguf(md); }).code(), ft::ErrorCode::invalid_file);

        // GLM-4.5 / 4.6 / 4.7 (355B): q/k norms, 3 dense layers, routed scaling 2.5.
        json c = glm45_air_config();
        c.update(json::parse(R"({"hidden_size": 5120, "intermediate_size": 12288, "moe_intermediate_size": 1536,
          "num_hidden_layers": 92, "n_routed_experts": 160, "first_k_dense_replace": 3, "routed_scaling_factor": 2.5,
          "use_qk_norm": true, "max_position_embeddings": 202752})"));
        const ModelDesc big = desc_from_hf_config(c, "config.json");
        QVERIFY(big.attn.qk_norm);
        QCOMPARE(big.n_moe_layers(), 89u);
        QCOMPARE(big.moe.routed_scaling_factor, 2.5);
        // GGUF has no key for the q/k norms: the metadata alone says none; desc_from_gguf(Reader) reads the tensors.
        ModelDesc from_keys = via_gguf(big);
        QVERIFY(!from_keys.attn.qk_norm);
        from_keys.attn.qk_norm = true;
        QString why;
        QVERIFY2(same_json(desc_to_json(from_keys), desc_to_json(big), "desc", &why), qPrintable(why));
        // transformers 5's config.json: partial_rotary_factor and rope_theta inside rope_parameters; defaults of
        // Glm4MoeConfig for the fields it leaves out (norm_topk_prob true, one group).
        json t5 = glm45_air_config();
        for (const char* k : {"partial_rotary_factor", "rope_theta", "norm_topk_prob", "n_group", "topk_group"}) t5.erase(k);
        t5["rope_parameters"] = {{"rope_type", "default"}, {"rope_theta", 1000000.0}, {"partial_rotary_factor", 0.5}};
        const ModelDesc d5 = desc_from_hf_config(t5, "config.json");
        QCOMPARE(d5.rope.n_rot, 64u);
        QCOMPARE(d5.rope.theta, 1e6);
        QVERIFY(d5.moe.norm_topk_prob);
        QCOMPARE(d5.moe.n_group, 1u);
        t5["rope_parameters"]["partial_rotary_factor"] = 1.5;
        QCOMPARE(expect_error([&] { desc_from_hf_config(t5, "config.json"); }).code(), ft::ErrorCode::invalid_file);
    }

    // The tensor tables of the two new architectures: llama.cpp's GGUF names and shapes, the HF sources, and the
    // parameter counts of the real models.
    void gptOssTensorTable() {
        const ModelDesc d = desc_from_hf_config(gpt_oss_20b_config(), "config.json");
        const auto t = arch_tensors(d);
        QCOMPARE(t.size(), size_t(1 + 24 * 19 + 2));
        auto get = [&](const std::string& n) -> const TensorSpec& {
            for (const auto& s : t)
                if (s.name == n) return s;
            qFatal("missing %s", n.c_str());
        };
        using V = std::vector<std::uint64_t>;
        QCOMPARE(get("blk.0.attn_q.weight").dims, (V{2880, 4096}));
        QCOMPARE(get("blk.0.attn_q.bias").dims, (V{4096}));
        QCOMPARE(get("blk.0.attn_k.bias").dims, (V{512}));
        QCOMPARE(get("blk.0.attn_output.weight").dims, (V{4096, 2880}));
        QCOMPARE(get("blk.0.attn_output.bias").dims, (V{2880}));
        QCOMPARE(get("blk.0.attn_sinks.weight").dims, (V{64}));
        QCOMPARE(get("blk.0.attn_sinks.weight").hf_names[0], std::string("model.layers.0.self_attn.sinks"));
        QCOMPARE(get("blk.0.post_attention_norm.weight").role, TensorRole::ffn_norm);
        QCOMPARE(get("blk.0.ffn_gate_inp.weight").hf_names[0], std::string("model.layers.0.mlp.router.weight"));
        QCOMPARE(get("blk.0.ffn_gate_inp.bias").dims, (V{32}));
        const auto& gate = get("blk.5.ffn_gate_exps.weight");
        QCOMPARE(gate.dims, (V{2880, 2880, 32}));
        QCOMPARE(gate.hf_names, std::vector<std::string>{"model.layers.5.mlp.experts.gate_up_proj"});
        QVERIFY(gate.hf_layout == HfLayout::moe_fused && gate.hf_offset == 0 && gate.hf_step == 2);
        const auto& up = get("blk.5.ffn_up_exps.weight");
        QVERIFY(up.hf_layout == HfLayout::moe_fused && up.hf_offset == 1 && up.hf_step == 2);
        const auto& down = get("blk.5.ffn_down_exps.weight");
        QVERIFY(down.hf_layout == HfLayout::moe_fused && down.hf_offset == 0 && down.hf_step == 1);
        QCOMPARE(down.hf_names[0], std::string("model.layers.5.mlp.experts.down_proj"));
        const auto& gb = get("blk.5.ffn_gate_exps.bias");
        QCOMPARE(gb.dims, (V{2880, 32}));
        QVERIFY(gb.hf_layout == HfLayout::moe_fused_bias && gb.hf_step == 2 && gb.is_expert_bias() && gb.keep_f32());
        QCOMPARE(get("blk.5.ffn_down_exps.bias").dims, (V{2880, 32}));
        QVERIFY(get("blk.0.attn_sinks.weight").keep_f32() && get("blk.0.attn_q.bias").is_vector());
        QVERIFY(!gate.keep_f32() && gate.is_expert() && !gb.is_expert());

        // 20.91B total (OpenAI's figure); 4.19B active here, where OpenAI's 3.61B leaves out the 0.58B embedding.
        std::vector<TensorStat> stats;
        for (const auto& s : t) stats.push_back({s.name, s.dims, ft::kernels::DType::BF16, s.n_elements(), s.n_elements() * 2});
        const SizeReport r = measure(&d, stats);
        QCOMPARE(r.total_params, 20914757184ull);
        QCOMPARE(r.active_params, 4187440704ull);
        QCOMPARE(r.active_params - 201088ull * 2880, 3608307264ull);
        json c = gpt_oss_20b_config();
        c["num_hidden_layers"] = 36;
        c["num_local_experts"] = 128;
        c["layer_types"] = json::array();
        for (int i = 0; i < 36; ++i) c["layer_types"].push_back(i % 2 ? "full_attention" : "sliding_attention");
        const ModelDesc big = desc_from_hf_config(c, "config.json");
        stats.clear();
        for (const auto& s : arch_tensors(big)) stats.push_back({s.name, s.dims, ft::kernels::DType::BF16, s.n_elements(), s.n_elements() * 2});
        const SizeReport rb = measure(&big, stats);
        QCOMPARE(rb.total_params, 116829156672ull);                    // 116.83B
        QCOMPARE(rb.active_params - 201088ull * 2880, 5132849472ull);  // 5.13B
    }

    void glm45TensorTable() {
        const ModelDesc d = desc_from_hf_config(glm45_air_config(), "config.json");
        const auto t = arch_tensors(d);
        auto find = [&](const std::string& n) -> const TensorSpec* {
            for (const auto& s : t)
                if (s.name == n) return &s;
            return nullptr;
        };
        using V = std::vector<std::uint64_t>;
        // Layer 0 dense; q/k/v biases, no output bias, no q/k norm (Air).
        QCOMPARE(find("blk.0.ffn_gate.weight")->dims, (V{4096, 10944}));
        QCOMPARE(find("blk.0.ffn_down.weight")->hf_names[0], std::string("model.layers.0.mlp.down_proj.weight"));
        QVERIFY(!find("blk.0.ffn_gate_inp.weight") && !find("blk.0.attn_output.bias") && !find("blk.0.attn_q_norm.weight"));
        QCOMPARE(find("blk.0.attn_q.bias")->dims, (V{12288}));
        QCOMPARE(find("blk.0.attn_v.bias")->hf_names[0], std::string("model.layers.0.self_attn.v_proj.bias"));
        QCOMPARE(find("blk.0.post_attention_norm.weight")->role, TensorRole::ffn_norm);
        // MoE layers: router, selection bias, per-expert HF names, the shared expert.
        QCOMPARE(find("blk.1.ffn_gate_inp.weight")->hf_names[0], std::string("model.layers.1.mlp.gate.weight"));
        const TensorSpec* pb = find("blk.1.exp_probs_b.bias");
        QVERIFY(pb && pb->role == TensorRole::ffn_exp_probs_b && pb->keep_f32());
        QCOMPARE(pb->hf_names[0], std::string("model.layers.1.mlp.gate.e_score_correction_bias"));
        const TensorSpec* up = find("blk.45.ffn_up_exps.weight");
        QCOMPARE(up->dims, (V{4096, 1408, 128}));
        QCOMPARE(up->hf_names.size(), size_t(128));
        QCOMPARE(up->hf_names[77], std::string("model.layers.45.mlp.experts.77.up_proj.weight"));
        QCOMPARE(find("blk.1.ffn_down_shexp.weight")->dims, (V{1408, 4096}));
        QCOMPARE(find("blk.1.ffn_gate_shexp.weight")->hf_names[0], std::string("model.layers.1.mlp.shared_experts.gate_proj.weight"));
        // The MTP layer 46: in the table (llama.cpp wants it in the file), unused.
        const TensorSpec* eh = find("blk.46.nextn.eh_proj.weight");
        QVERIFY(eh && eh->unused);
        QCOMPARE(eh->dims, (V{8192, 4096}));
        QCOMPARE(eh->hf_names[0], std::string("model.layers.46.eh_proj.weight"));
        QVERIFY(find("blk.46.ffn_gate_exps.weight")->unused && find("blk.46.nextn.shared_head_norm.weight")->unused);
        QVERIFY(!find("blk.45.ffn_gate_exps.weight")->unused && !find("blk.47.attn_norm.weight"));
        // 106.85B total without the MTP layer (GLM's "106B total, 12B active"); the MTP layer reported apart.
        std::vector<TensorStat> stats;
        for (const auto& s : t) stats.push_back({s.name, s.dims, ft::kernels::DType::BF16, s.n_elements(), s.n_elements() * 2});
        const SizeReport r = measure(&d, stats);
        QCOMPARE(r.total_params, 106852251264ull);
        QCOMPARE(r.unused_params, 2375059584ull);
        QCOMPARE(r.active_params, 13424129664ull);
        QCOMPARE(r.active_params - 2ull * 151552 * 4096, 12182615680ull);  // GLM's 12B leaves out the embeddings
        QCOMPARE(r.expert_bytes_per_expert, 3ull * 4096 * 1408 * 2);
        // 355B with q/k norms: the norms appear.
        json c = glm45_air_config();
        c["use_qk_norm"] = true;
        const auto t2 = arch_tensors(desc_from_hf_config(c, "config.json"));
        QVERIFY(std::any_of(t2.begin(), t2.end(), [](const TensorSpec& s) { return s.name == "blk.3.attn_k_norm.weight"; }));
    }

    void badInputs() {
        {  // missing required GGUF key
            ft::gguf::Metadata md("model.gguf");
            desc_to_gguf(desc_from_hf_config(qwen3_30b_config(), "c"), md);
            md.erase("qwen3moe.block_count");
            const auto e = expect_error([&] { desc_from_gguf(md); });
            QCOMPARE(e.code(), ft::ErrorCode::not_found);
            QVERIFY2(e.message().find("model.gguf") != std::string::npos && e.message().find("qwen3moe.block_count") != std::string::npos,
                     e.what());
        }
        {  // unknown architecture
            ft::gguf::Metadata md("model.gguf");
            md.set("general.architecture", ft::gguf::Value::string("mamba"));
            const auto e = expect_error([&] { desc_from_gguf(md); });
            QCOMPARE(e.code(), ft::ErrorCode::unsupported);
            QVERIFY2(e.message().find("general.architecture") != std::string::npos && e.message().find("mamba") != std::string::npos, e.what());
        }
        {  // dense llama is not a MoE model we describe
            ft::gguf::Metadata md("model.gguf");
            md.set("general.architecture", ft::gguf::Value::string("llama"));
            QCOMPARE(expect_error([&] { desc_from_gguf(md); }).code(), ft::ErrorCode::unsupported);
        }
        {  // wrong value type
            ft::gguf::Metadata md("model.gguf");
            desc_to_gguf(desc_from_hf_config(qwen3_30b_config(), "c"), md);
            md.set("qwen3moe.expert_count", ft::gguf::Value::string("128"));
            const auto e = expect_error([&] { desc_from_gguf(md); });
            QCOMPARE(e.code(), ft::ErrorCode::invalid_file);
            QVERIFY2(e.message().find("qwen3moe.expert_count") != std::string::npos, e.what());
        }
        {  // inconsistent values
            ft::gguf::Metadata md("model.gguf");
            desc_to_gguf(desc_from_hf_config(qwen3_30b_config(), "c"), md);
            md.set("qwen3moe.expert_used_count", ft::gguf::Value::u32(129));
            const auto e = expect_error([&] { desc_from_gguf(md); });
            QCOMPARE(e.code(), ft::ErrorCode::invalid_file);
            QVERIFY2(e.message().find("expert_used_count") != std::string::npos, e.what());
        }
        {  // config.json: missing field, wrong type, unknown class
            json c = qwen3_30b_config();
            c.erase("num_experts");
            auto e = expect_error([&] { desc_from_hf_config(c, "dir/config.json"); });
            QCOMPARE(e.code(), ft::ErrorCode::not_found);
            QVERIFY2(e.message().find("dir/config.json") != std::string::npos && e.message().find("num_experts") != std::string::npos, e.what());
            c = qwen3_30b_config();
            c["hidden_size"] = "2048";
            e = expect_error([&] { desc_from_hf_config(c, "dir/config.json"); });
            QCOMPARE(e.code(), ft::ErrorCode::invalid_file);
            QVERIFY2(e.message().find("hidden_size") != std::string::npos, e.what());
            c = qwen3_30b_config();
            c["architectures"] = {"LlamaForCausalLM"};
            e = expect_error([&] { desc_from_hf_config(c, "dir/config.json"); });
            QCOMPARE(e.code(), ft::ErrorCode::unsupported);
            QVERIFY2(e.message().find("LlamaForCausalLM") != std::string::npos, e.what());
            c = qwen3_30b_config();
            c["num_key_value_heads"] = 5;  // does not divide 32
            QCOMPARE(expect_error([&] { desc_from_hf_config(c, "dir/config.json"); }).code(), ft::ErrorCode::invalid_file);
        }
        {  // a folder without config.json
            const auto e = expect_error([&] { desc_from_hf_dir(std::filesystem::path(FT_BINARY_DIR) / "no-such-model"); });
            QCOMPARE(e.code(), ft::ErrorCode::not_found);
            QVERIFY2(e.message().find("config.json") != std::string::npos, e.what());
        }
    }

    void qwen3TokenizerMetadata() {
        ft::gguf::Metadata md("t.gguf");
        const json cfg = {{"bos_token_id", 151643}, {"eos_token_id", 151645}};
        hf_tokenizer_to_gguf(hf_tokenizer_source(resources_qwen3()), 151936, &cfg, md);
        QCOMPARE(md.get_string("tokenizer.ggml.model"), std::string_view("gpt2"));
        QCOMPARE(md.get_string("tokenizer.ggml.pre"), std::string_view("qwen2"));
        const auto toks = md.get_strings("tokenizer.ggml.tokens");
        QCOMPARE(toks.size(), size_t(151936));
        QCOMPARE(toks[0], std::string_view("!"));
        QCOMPARE(toks[151643], std::string_view("<|endoftext|>"));
        QCOMPARE(toks[151667], std::string_view("<think>"));
        QCOMPARE(toks[151669], std::string_view("[PAD151669]"));
        QCOMPARE(toks[151935], std::string_view("[PAD151935]"));
        const auto types = md.get_i32_array("tokenizer.ggml.token_type");
        QCOMPARE(types.size(), size_t(151936));
        QCOMPARE(types[0], int(TokenType::normal));
        QCOMPARE(types[151643], int(TokenType::control));
        QCOMPARE(types[151667], int(TokenType::user_defined));  // "<think>" is not special in tokenizer.json
        QCOMPARE(types[151700], int(TokenType::unused));
        const auto merges = md.get_strings("tokenizer.ggml.merges");
        QCOMPARE(merges.size(), size_t(151387));
        QCOMPARE(merges[0], std::string_view("\xC4\xA0 \xC4\xA0"));  // "Ġ Ġ"
        QCOMPARE(md.get_u64("tokenizer.ggml.eos_token_id"), 151645ull);
        QCOMPARE(md.get_u64("tokenizer.ggml.padding_token_id"), 151643ull);
        QCOMPARE(md.get_u64("tokenizer.ggml.bos_token_id"), 151643ull);
        QCOMPARE(md.get_bool("tokenizer.ggml.add_bos_token"), false);
        std::ifstream in(resources_qwen3() / "tokenizer_config.json");
        const json tc = json::parse(in);
        QCOMPARE(std::string(md.get_string("tokenizer.chat_template")), tc["chat_template"].get<std::string>());
        const auto s = tokenizer_summary(md);
        QCOMPARE(s.vocab_size, 151936ull);
        QCOMPARE(s.eos_text, std::string("<|im_end|>"));
        QVERIFY(s.chat_template);
        // A vocab size smaller than the tokenizer's ids is an error naming it.
        ft::gguf::Metadata md2("t.gguf");
        const auto e = expect_error([&] { hf_tokenizer_to_gguf(hf_tokenizer_source(resources_qwen3()), 1000, nullptr, md2); });
        QCOMPARE(e.code(), ft::ErrorCode::invalid_file);
        QVERIFY2(e.message().find("vocab_size") != std::string::npos, e.what());
    }

    // generation_config.json's recommended sampling as llama.cpp's general.sampling.* keys (what ft convert writes
    // and the server reads back); do_sample false is greedy; a field of the wrong type names the file.
    void samplingFromGenerationConfig() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::filesystem::path d = dir.path().toStdString();
        auto write = [&](const char* text) { std::ofstream(d / "generation_config.json") << text; };
        ft::gguf::Metadata none("t.gguf");
        hf_sampling_to_gguf(d, none);  // no file: no keys
        QCOMPARE(none.size(), std::size_t(0));
        QVERIFY(!ft::model::sampling_defaults(none).temperature);
        write(R"({"do_sample": true, "temperature": 0.6, "top_p": 0.95, "top_k": 20})");
        ft::gguf::Metadata md("t.gguf");
        hf_sampling_to_gguf(d, md);
        const ft::SamplingDefaults sd = ft::model::sampling_defaults(md);
        QCOMPARE(*sd.temperature, 0.6f);
        QCOMPARE(*sd.top_p, 0.95f);
        QCOMPARE(*sd.top_k, 20);
        write(R"({"do_sample": false, "temperature": 0.7})");
        ft::gguf::Metadata greedy("t.gguf");
        hf_sampling_to_gguf(d, greedy);
        QCOMPARE(*ft::model::sampling_defaults(greedy).temperature, 0.f);
        // A GGUF written by another converter: top_k as a float is read, a temperature that is a string skipped.
        ft::gguf::Metadata other("t.gguf");
        other.set("general.sampling.top_k", ft::gguf::Value::f32(40.f));
        other.set("general.sampling.temp", ft::gguf::Value::string("warm"));
        QCOMPARE(*ft::model::sampling_defaults(other).top_k, 40);
        QVERIFY(!ft::model::sampling_defaults(other).temperature);
        write(R"({"temperature": "warm"})");
        ft::gguf::Metadata bad("t.gguf");
        const auto e = expect_error([&] { hf_sampling_to_gguf(d, bad); });
        QCOMPARE(e.code(), ft::ErrorCode::invalid_file);
        QVERIFY2(e.message().find("generation_config.json: temperature") != std::string::npos, e.what());
    }
};

FT_TEST_MAIN(TestModelDesc)
#include "test_model_desc.moc"
