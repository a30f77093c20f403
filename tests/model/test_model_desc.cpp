// The normalized model description: from config.json and from GGUF keys (equal for equivalent inputs, for every
// architecture), the qwen3_moe tensor table and HF name mapping, parameter counts, tokenizer metadata from the real
// Qwen3 files, and clear errors for bad inputs.
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "format/gguf.h"
#include "ft/error.h"
#include "ft_test.h"
#include "model/model_desc.h"
#include "model/model_tensors.h"
#include "model/tokenizer_meta.h"

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
        QTest::newRow("mixtral") << "mixtral";
        QTest::newRow("olmoe") << "olmoe";
    }
    void ggufEqualsConfig() {
        QFETCH(QString, name);
        const json cfg = name == "qwen3_moe"     ? qwen3_30b_config()
                         : name == "deepseek_v3" ? deepseek_v3_config()
                         : name == "glm4_moe"    ? glm45_air_config()
                         : name == "gpt_oss"     ? gpt_oss_20b_config()
                         : name == "mixtral"     ? mixtral_config()
                                                 : olmoe_config();
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

        const ModelDesc mx = desc_from_hf_config(mixtral_config(), "config.json");
        QCOMPARE(mx.rope.type, RopeType::norm);
        QCOMPARE(mx.moe.n_expert, 8u);
        QCOMPARE(QString::fromUtf8(arch_gguf_name(mx.arch).data()), QStringLiteral("llama"));

        const ModelDesc ol = desc_from_hf_config(olmoe_config(), "config.json");
        QVERIFY(!ol.moe.norm_topk_prob);
        QCOMPARE(ol.moe.n_expert, 64u);
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
        QVERIFY_THROWS_EXCEPTION(ft::Error, arch_tensors(desc_from_hf_config(mixtral_config(), "config.json")));
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
};

FT_TEST_MAIN(TestModelDesc)
#include "test_model_desc.moc"
