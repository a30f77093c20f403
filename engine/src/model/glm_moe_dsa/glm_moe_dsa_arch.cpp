// GLM-5 / 5.1's registry entry (transformers' glm_moe_dsa, llama.cpp's "glm-dsa"): DeepSeek's latent attention with
// the sparse-attention indexer and GLM's MoE router beyond the shared hyper-parameters, and the `ft synth` presets.
// RoPE: adjacent pairs (x[2i], x[2i+1]) in the attention and in the indexer, from a Hugging Face folder as from
// llama.cpp's glm-dsa files (transformers 5.17's forward on tests/data/glm-moe-dsa-tiny: rotating halves instead
// takes the logits to cosine 0.47, halves in the indexer alone to 0.50), so `ft convert` copies the rows unchanged.
#include <algorithm>

#include "format/gguf.h"
#include "ft/error.h"
#include "model/arch.h"
#include "model/gguf_keys.h"
#include "model/hf_fields.h"

namespace ft::model {

std::vector<TensorSpec> glm_moe_dsa_tensors(const ModelDesc& d);
ModelGraph glm_moe_dsa_graph(const Weights& w);

namespace {

// The indexer needs the low-rank query (it reads q_a's normalized output) and a rope part inside its head.
void check_indexer(const ModelDesc& d, const std::string& source) {
    const AttentionDesc& at = d.attn;
    auto bad = [&](const std::string& what) {
        throw Error(ErrorCode::invalid_file, source + ": " + what,
                    "check the model's index_n_heads, index_head_dim, index_topk and q_lora_rank");
    };
    if (!at.index_n_heads || !at.index_head_dim || !at.index_topk) bad("the sparse-attention indexer has a zero size");
    if (!at.q_lora_rank) bad("the sparse-attention indexer needs a low-rank query (q_lora_rank is 0)");
    if (at.qk_rope_head_dim > at.index_head_dim || at.qk_rope_head_dim % 2)
        bad("the indexer head (" + std::to_string(at.index_head_dim) + ") is narrower than the rope part (" +
            std::to_string(at.qk_rope_head_dim) + ") or the rope part is odd");
}

void read_hf(const HfConfig& f, ModelDesc& d) {
    auto& m = d.moe;
    auto& at = d.attn;
    auto& r = d.rope;
    const nlohmann::json& cfg = f.raw();
    r.type = RopeType::norm;  // adjacent pairs, in the attention and the indexer (see the top)
    d.n_ff = f.req_u32("intermediate_size");
    m.n_expert = f.req_u32("n_routed_experts");
    m.n_expert_used = f.req_u32("num_experts_per_tok");
    m.n_ff_exp = f.req_u32("moe_intermediate_size");
    m.n_shared_expert = f.opt_u32("n_shared_experts", 1);
    m.n_ff_shexp = m.n_ff_exp * m.n_shared_expert;
    m.first_k_dense = f.opt_u32("first_k_dense_replace", 3);
    if (cfg.contains("mlp_layer_types") && cfg["mlp_layer_types"].is_array()) {
        // "dense" × k then "sparse": the only pattern the shared description holds.
        std::uint32_t dense = 0;
        bool sparse_seen = false;
        for (const auto& t : cfg["mlp_layer_types"]) {
            if (t == "dense") {
                if (sparse_seen) f.bad("mlp_layer_types", "a dense layer after a sparse one is not supported");
                ++dense;
            } else if (t == "sparse") {
                sparse_seen = true;
            } else {
                f.bad("mlp_layer_types", "expected dense or sparse, got " + t.dump());
            }
        }
        m.first_k_dense = std::min(dense, d.n_layer);
    }
    m.norm_topk_prob = f.opt_bool("norm_topk_prob", true);
    m.routed_scaling_factor = f.opt_f64("routed_scaling_factor", 2.5);
    m.n_group = f.opt_u32("n_group", 1);
    m.topk_group = f.opt_u32("topk_group", 1);
    m.gating = Gating::sigmoid;
    m.correction_bias = true;  // e_score_correction_bias: a buffer of every GlmMoeDsaTopkRouter
    if (f.opt_bool("attention_bias", false))  // GLM-5 has none; the latent attention block takes no biases
        f.bad("attention_bias", "biases on the latent attention's projections are not supported");
    at.q_lora_rank = f.opt_u32("q_lora_rank", 2048);
    at.kv_lora_rank = f.req_u32("kv_lora_rank");
    at.qk_nope_head_dim = f.req_u32("qk_nope_head_dim");
    at.qk_rope_head_dim = f.req_u32("qk_rope_head_dim");
    at.v_head_dim = f.req_u32("v_head_dim");
    at.head_dim = at.qk_nope_head_dim + at.qk_rope_head_dim;
    at.n_head_kv = 1;  // one latent row per position
    r.n_rot = at.qk_rope_head_dim;
    at.index_n_heads = f.opt_u32("index_n_heads", 32);
    at.index_head_dim = f.opt_u32("index_head_dim", 128);
    at.index_topk = f.opt_u32("index_topk", 2048);
    // GLM-5.2's "shared" layers reuse the previous layer's pick and carry no indexer: not run yet.
    if (cfg.contains("indexer_types") && cfg["indexer_types"].is_array())
        for (const auto& t : cfg["indexer_types"])
            if (t != "full")
                f.bad("indexer_types", "only \"full\" layers (an indexer in every layer: GLM-5, 5.1) are supported, got " +
                                           t.dump());
    if (f.has("index_topk_pattern") || f.opt_u32("index_topk_freq", 1) > 1)
        f.bad(f.has("index_topk_pattern") ? "index_topk_pattern" : "index_topk_freq",
              "layers that share another layer's indexer pick are not supported");
    d.nextn_predict_layers = f.opt_u32("num_nextn_predict_layers", 0);
    check_indexer(d, f.source());
}

void read_gguf(const GgufKeys& k, ModelDesc& d) {
    auto& at = d.attn;
    d.rope.type = RopeType::norm;  // llama.cpp's glm-dsa rotates adjacent pairs
    d.moe.gating = Gating::sigmoid;
    d.moe.correction_bias = true;
    if (auto kl = k.opt_count("attention.key_length_mla")) at.head_dim = static_cast<std::uint32_t>(*kl);
    if (auto vl = k.opt_count("attention.value_length_mla")) at.v_head_dim = static_cast<std::uint32_t>(*vl);
    at.qk_rope_head_dim = d.rope.n_rot;
    at.qk_nope_head_dim = at.head_dim > d.rope.n_rot ? at.head_dim - d.rope.n_rot : 0;
    at.n_head_kv = 1;
    at.index_n_heads = k.req_u32("attention.indexer.head_count");
    at.index_head_dim = k.req_u32("attention.indexer.key_length");
    at.index_topk = k.req_u32("attention.indexer.top_k");
    if (const gguf::Value* types = k.find("attention.indexer.types"))
        if (!types->is_array() || std::ranges::any_of(types->as_u64_array({k.source(), k.key("attention.indexer.types")}),
                                                      [](std::uint64_t full) { return full == 0; }))
            throw Error(ErrorCode::unsupported,
                        k.source() + ": layers that share another layer's indexer pick (" + k.key("attention.indexer.types") +
                            ") are not supported",
                        "GLM-5 and 5.1 (an indexer in every layer) run; GLM-5.2 does not yet");
    check_indexer(d, k.source());
}

void write_gguf(const ModelDesc& d, GgufKeyWriter& w) {
    w.u32("attention.indexer.head_count", d.attn.index_n_heads);
    w.u32("attention.indexer.key_length", d.attn.index_head_dim);
    w.u32("attention.indexer.top_k", d.attn.index_topk);
}

// The head sizes that follow from the parts an override changes.
void synth_fit(ModelDesc& d) {
    d.attn.head_dim = d.attn.qk_nope_head_dim + d.attn.qk_rope_head_dim;
    d.rope.n_rot = d.attn.qk_rope_head_dim;
}

ModelDesc glm_dsa_base() {
    ModelDesc d;
    d.arch = ArchId::glm_moe_dsa;
    d.norm_eps = 1e-5;
    auto& at = d.attn;
    at.n_head_kv = 1;
    d.rope.type = RopeType::norm;  // as llama.cpp's files (ft synth writes GGUF)
    d.rope.theta = 1e6;
    auto& m = d.moe;
    m.gating = Gating::sigmoid, m.correction_bias = true, m.norm_topk_prob = true;
    m.n_group = 1, m.topk_group = 1;
    return d;
}

// GLM-5 / 5.1 (GlmMoeDsaConfig's defaults, documented as zai-org/GLM-5's; 744B, 40B active): 78 layers (3 dense,
// FFN 12288; the MTP layer is not written), hidden 6144, latent attention (64 heads, q rank 2048, KV rank 512, 192 + 64 rope,
// values 256), an indexer of 32 heads of 128 keeping 2048 positions, 256 experts top-8 of 2048 + 1 shared, sigmoid
// router with correction bias, no groups, routed scaling 2.5, vocab 154880, context 202752. RoPE theta 1e6 is
// GLM-4.5's (the released config.json's value was not checked here).
ModelDesc glm5() {
    ModelDesc d = glm_dsa_base();
    d.n_vocab = 154880, d.n_layer = 78, d.n_embd = 6144, d.n_ff = 12288;
    d.n_ctx_train = 202752;
    auto& at = d.attn;
    at.n_head = 64, at.q_lora_rank = 2048, at.kv_lora_rank = 512;
    at.qk_nope_head_dim = 192, at.qk_rope_head_dim = 64, at.v_head_dim = 256;
    at.head_dim = 256;
    at.index_n_heads = 32, at.index_head_dim = 128, at.index_topk = 2048;
    d.rope.n_rot = 64;
    auto& m = d.moe;
    m.n_expert = 256, m.n_expert_used = 8, m.n_ff_exp = 2048, m.n_shared_expert = 1, m.n_ff_shexp = 2048;
    m.first_k_dense = 3;
    m.routed_scaling_factor = 2.5;
    return d;
}

// A tiny GLM-5-shaped model for tests: 3 layers (1 dense), hidden 64, 4 heads (q rank 32, KV rank 32, 16 + 8
// rope, values 16), an indexer of 16 heads of 16 keeping 8 positions, 8 experts top-2 of 32 + 1 shared, vocab 512.
ModelDesc glm5_tiny() {
    ModelDesc d = glm_dsa_base();
    d.n_vocab = 512, d.n_layer = 3, d.n_embd = 64, d.n_ff = 96, d.n_ctx_train = 4096;
    auto& at = d.attn;
    at.n_head = 4, at.q_lora_rank = 32, at.kv_lora_rank = 32;
    at.qk_nope_head_dim = 16, at.qk_rope_head_dim = 8, at.v_head_dim = 16;
    at.head_dim = 24;
    at.index_n_heads = 16, at.index_head_dim = 16, at.index_topk = 8;
    d.rope.n_rot = 8;
    auto& m = d.moe;
    m.n_expert = 8, m.n_expert_used = 2, m.n_ff_exp = 32, m.n_shared_expert = 1, m.n_ff_shexp = 32;
    m.first_k_dense = 1;
    m.routed_scaling_factor = 2.5;
    return d;
}

}  // namespace

const Arch& glm_moe_dsa_arch() {
    static const Arch a{
        .id = ArchId::glm_moe_dsa,
        .name = "glm_moe_dsa",
        .gguf_name = "glm-dsa",
        .hf = {{"GlmMoeDsaForCausalLM", "glm_moe_dsa"}},
        .read_hf = &read_hf,
        .read_gguf = &read_gguf,
        .write_gguf = &write_gguf,
        .tensors = &glm_moe_dsa_tensors,
        .graph = &glm_moe_dsa_graph,
        .presets = {{"glm-5", &glm5}, {"glm-5-tiny", &glm5_tiny}},
        .synth_fit = &synth_fit,
    };
    return a;
}

}  // namespace ft::model
