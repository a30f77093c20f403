// The registry entries of Qwen3.5 / Qwen3.6-MoE, Qwen3-Next and the dense Qwen3.5 / 3.6 (one table and graph):
// gated attention, Gated DeltaNet linear attention and the gated shared expert beyond the shared hyper-parameters
// (the dense one: a dense FFN on every layer, no MoE block); `ft convert`'s reordering of qwen35moe's and qwen35's
// value heads; the `ft synth` presets.
#include <algorithm>
#include <memory>

#include "format/gguf.h"
#include "ft/error.h"
#include "model/arch.h"
#include "model/gguf_keys.h"
#include "model/hf_fields.h"

namespace ft::model {

std::vector<TensorSpec> qwen3_5_moe_tensors(const ModelDesc& d);
ModelGraph qwen3_5_moe_graph(const Weights& w);

namespace {

// The MoE FFN's keys (Qwen3.5 / 3.6-MoE, Qwen3-Next).
void read_moe(const HfConfig& f, ModelDesc& d) {
    auto& m = d.moe;
    m.n_expert = f.req_u32("num_experts");
    m.n_expert_used = f.req_u32("num_experts_per_tok");
    m.n_ff_exp = f.req_u32("moe_intermediate_size");
    // Qwen3.5's router always renormalises the top-k; Qwen3-Next's follows norm_topk_prob (default true).
    m.norm_topk_prob = d.arch == ArchId::qwen3_5_moe || f.opt_bool("norm_topk_prob", true);
    m.n_ff_shexp = f.opt_u32("shared_expert_intermediate_size", 0);
    m.n_shared_expert = m.n_ff_shexp ? 1 : 0;
    m.shared_gate = m.n_shared_expert != 0;
    if (d.arch == ArchId::qwen3_next) {
        d.n_ff = f.opt_u32("intermediate_size", 0);
        m.moe_every = std::max<std::uint32_t>(1, f.opt_u32("decoder_sparse_step", 1));
        m.dense_layers = f.u32_list("mlp_only_layers");
    }
}

void read_hf(const HfConfig& f, ModelDesc& d) {
    const nlohmann::json& cfg = f.raw();
    auto& at = d.attn;
    at.qk_norm = true;
    at.output_gate = true;
    if (d.arch == ArchId::qwen3_5)
        d.n_ff = f.req_u32("intermediate_size");  // the dense Qwen3.5 / 3.6: a dense FFN on every layer
    else
        read_moe(f, d);
    d.rope.n_rot = static_cast<std::uint32_t>(at.head_dim * f.partial_rotary_factor(0.25));
    // Text positions are one index for all three M-RoPE sections: Qwen3.5's multimodal RoPE is plain NeoX.
    if (const nlohmann::json* rope = f.rope())
        d.rope.sections = HfConfig(*rope, f.source()).u32_list("mrope_section");
    auto& la = d.linear;
    la.n_k_heads = f.req_u32("linear_num_key_heads");
    la.n_v_heads = f.req_u32("linear_num_value_heads");
    la.k_head_dim = f.req_u32("linear_key_head_dim");
    la.v_head_dim = f.req_u32("linear_value_head_dim");
    la.conv_kernel = f.req_u32("linear_conv_kernel_dim");
    if (cfg.contains("layer_types") && cfg["layer_types"].is_array()) {
        for (const auto& t : cfg["layer_types"]) {
            if (!t.is_string() || (t != "linear_attention" && t != "full_attention"))
                f.bad("layer_types", "expected \"linear_attention\" or \"full_attention\", got " + t.dump());
            la.layers.push_back(t == "linear_attention");
        }
    } else {
        const std::uint32_t every = f.opt_u32("full_attention_interval", 4);
        if (every == 0) f.bad("full_attention_interval", "must be positive");
        for (std::uint32_t il = 0; il < d.n_layer; ++il) la.layers.push_back((il + 1) % every != 0);
    }
}

void read_gguf(const GgufKeys& k, ModelDesc& d) {
    auto& m = d.moe;
    d.attn.qk_norm = true;
    d.attn.output_gate = true;
    m.norm_topk_prob = true;
    m.n_shared_expert = m.n_ff_shexp ? 1 : 0;
    m.shared_gate = m.n_shared_expert != 0;
    if (const gguf::Value* v = k.find("rope.dimension_sections"); v && v->is_array())
        for (std::uint64_t x : v->as_u64_array({k.source(), k.key("rope.dimension_sections")}))
            if (x) d.rope.sections.push_back(std::uint32_t(x));
    auto& la = d.linear;
    la.conv_kernel = k.req_u32("ssm.conv_kernel");
    la.k_head_dim = k.req_u32("ssm.state_size");
    la.n_k_heads = k.req_u32("ssm.group_count");
    la.n_v_heads = k.req_u32("ssm.time_step_rank");
    const std::uint32_t inner = k.req_u32("ssm.inner_size");
    if (la.n_v_heads == 0 || inner % la.n_v_heads != 0)
        throw Error(ErrorCode::invalid_file, k.source() + ": " + k.key("ssm.inner_size") + " " + std::to_string(inner) +
                                                 " is not a multiple of the value heads (" + k.key("ssm.time_step_rank") + ")");
    la.v_head_dim = inner / la.n_v_heads;
    // llama.cpp's qwen35moe and qwen35 converters reorder the value heads from grouped to tiled (see LinearAttnDesc).
    la.v_tiled = d.arch != ArchId::qwen3_next;
    if (const gguf::Value* v = k.find("attention.recurrent_layers"); v && v->is_array()) {
        la.layers = k.layer_flags("attention.recurrent_layers", d.n_layer);
    } else {
        const std::uint32_t every = k.opt_u32("full_attention_interval", 4);
        if (every == 0) throw Error(ErrorCode::invalid_file, k.source() + ": " + k.key("full_attention_interval") + " is 0");
        for (std::uint32_t il = 0; il < d.n_layer; ++il) la.layers.push_back((il + 1) % every != 0);
    }
}

void write_linear(const ModelDesc& d, GgufKeyWriter& w) {
    const LinearAttnDesc& la = d.linear;
    w.u32("ssm.conv_kernel", la.conv_kernel);
    w.u32("ssm.state_size", la.k_head_dim);
    w.u32("ssm.group_count", la.n_k_heads);
    w.u32("ssm.time_step_rank", la.n_v_heads);
    w.u32("ssm.inner_size", la.value_dim());
    // llama.cpp's rule: layer il is full attention when (il + 1) % interval == 0; any other pattern per layer.
    std::uint32_t every = 0;
    for (std::uint32_t n = 1; n <= d.n_layer && !every; ++n) {
        bool ok = true;
        for (std::uint32_t il = 0; il < d.n_layer && ok; ++il) ok = la.is_linear(il) == ((il + 1) % n != 0);
        if (ok) every = n;
    }
    if (every) {
        w.u32("full_attention_interval", every);
    } else {
        std::unique_ptr<bool[]> arr(new bool[d.n_layer]);
        for (std::uint32_t il = 0; il < d.n_layer; ++il) arr[il] = la.is_linear(il);
        w.set("attention.recurrent_layers", gguf::Value::bool_array({arr.get(), d.n_layer}));
    }
}

void write_gguf(const ModelDesc& d, GgufKeyWriter& w) {
    const LinearAttnDesc& la = d.linear;
    if (la.any()) write_linear(d, w);
    if (d.arch != ArchId::qwen3_next) {
        // llama.cpp's qwen35moe and qwen35 loaders require the M-RoPE sections (4 entries; Qwen's default 11, 11, 10).
        std::vector<std::uint32_t> sec = d.rope.sections.empty() ? std::vector<std::uint32_t>{11, 11, 10} : d.rope.sections;
        sec.resize(4, 0);
        w.set("rope.dimension_sections", gguf::Value::u32_array(sec));
    }
}

// llama.cpp's qwen35moe and qwen35 files order the value heads of a linear-attention layer tiled (value head j = r·K + g for
// HF's g·R + r, K key heads, R value heads per key head): the tensors indexed by value head, reordered so.
bool convert_rewrites(const ModelDesc& d, const TensorSpec& s) {
    const TensorRole r = s.role;
    return d.linear.n_k_heads != d.linear.n_v_heads &&
           (r == TensorRole::ssm_qkv || r == TensorRole::ssm_gate || r == TensorRole::ssm_beta || r == TensorRole::ssm_alpha ||
            r == TensorRole::ssm_dt || r == TensorRole::ssm_a || r == TensorRole::ssm_conv1d || r == TensorRole::ssm_out);
}

// x holds the tensor in GGUF layout, rows of `cols` floats.
void tile_v_heads(const ModelDesc& d, const TensorSpec& s, std::vector<float>& x) {
    const auto& la = d.linear;
    const std::uint64_t K = la.n_k_heads, R = la.n_v_heads / la.n_k_heads, cols = s.dims[0];
    const std::uint64_t rows = x.size() / cols;
    auto src_head = [&](std::uint64_t j) { return (j % K) * R + j / K; };
    const std::vector<float> in = x;
    if (s.role == TensorRole::ssm_out) {  // columns = value heads × v_head_dim
        const std::uint64_t dv = la.v_head_dim;
        for (std::uint64_t r = 0; r < rows; ++r)
            for (std::uint64_t j = 0; j < K * R; ++j)
                std::copy_n(in.data() + r * cols + src_head(j) * dv, dv, x.data() + r * cols + j * dv);
        return;
    }
    if (s.role == TensorRole::ssm_dt || s.role == TensorRole::ssm_a) {  // one value per head
        for (std::uint64_t j = 0; j < K * R; ++j) x[j] = in[src_head(j)];
        return;
    }
    // Rows: the value part of q|k|v and of the conv's channels starts after q and k; z, beta, alpha are all value rows.
    const bool qkv = s.role == TensorRole::ssm_qkv || s.role == TensorRole::ssm_conv1d;
    const std::uint64_t first = qkv ? 2ull * la.key_dim() : 0;
    const std::uint64_t per = s.role == TensorRole::ssm_beta || s.role == TensorRole::ssm_alpha ? 1 : la.v_head_dim;
    for (std::uint64_t j = 0; j < K * R; ++j)
        std::copy_n(in.data() + (first + src_head(j) * per) * cols, per * cols, x.data() + (first + j * per) * cols);
}

// Every fourth layer full attention (llama.cpp's full_attention_interval 4), RoPE on a quarter of the head, the
// gated shared expert as wide as a routed one.
void synth_fit(ModelDesc& d) {
    d.rope.n_rot = d.attn.head_dim / 4;
    d.linear.layers.clear();
    for (std::uint32_t il = 0; il < d.n_layer; ++il) d.linear.layers.push_back((il + 1) % 4 != 0);
    d.moe.n_ff_shexp = d.moe.n_ff_exp;
}

// Qwen3.6-35B-A3B (Qwen/Qwen3.6-35B-A3B's text_config, the qwen3_5_moe family; 35B, 3B active): 40 layers, every
// fourth gated attention (16/2 heads of 256, RoPE on 64), the others Gated DeltaNet (16 key heads, 32 value heads of
// 128, conv 4); 256 experts top-8 of 512 + 1 gated shared expert of 512; vocab 248320. Qwen3-Next-80B-A3B
// (Qwen/Qwen3-Next-80B-A3B-Instruct config.json; 80B, 3B active): the same layer pattern over 48 layers, 512
// experts top-10 of 512 + 1 gated shared expert; vocab 151936.
ModelDesc qwen3_5_desc(bool next) {
    ModelDesc d;
    d.arch = next ? ArchId::qwen3_next : ArchId::qwen3_5_moe;
    d.n_vocab = next ? 151936 : 248320;
    d.norm_eps = 1e-6;
    d.n_ctx_train = 262144;
    d.rope.type = RopeType::neox;
    d.rope.theta = 1e7;
    auto& at = d.attn;
    at.n_head = 16, at.n_head_kv = 2, at.head_dim = 256, at.v_head_dim = 256;
    at.qk_norm = at.output_gate = true;
    d.rope.n_rot = 64;  // partial_rotary_factor 0.25
    if (!next) d.rope.sections = {11, 11, 10};
    auto& m = d.moe;
    m.gating = Gating::softmax;
    m.norm_topk_prob = true;
    m.n_shared_expert = 1;
    m.shared_gate = true;
    auto& la = d.linear;
    la.n_k_heads = 16, la.k_head_dim = 128, la.v_head_dim = 128, la.conv_kernel = 4;
    if (next) {
        d.n_layer = 48, d.n_embd = 2048;
        la.n_v_heads = 32;
        m.n_expert = 512, m.n_expert_used = 10, m.n_ff_exp = 512, m.n_ff_shexp = 512;
    } else {
        d.n_layer = 40, d.n_embd = 2048;
        la.n_v_heads = 32;
        m.n_expert = 256, m.n_expert_used = 8, m.n_ff_exp = 512, m.n_ff_shexp = 512;
    }
    return d;
}

// The dense Qwen3.6-27B (Qwen/Qwen3.6-27B's model card and text_config; Qwen3.5-27B has the same shape): 64 layers,
// hidden 5120, every fourth gated attention (24/4 heads of 256, RoPE on 64), the others Gated DeltaNet (16 key heads,
// 48 value heads of 128, conv 4), a dense FFN of 17408 on every layer; vocab 248320, untied head.
ModelDesc qwen3_6_27b() {
    ModelDesc d = qwen3_5_desc(false);
    d.arch = ArchId::qwen3_5;
    d.moe = MoeDesc{};
    d.n_layer = 64, d.n_embd = 5120, d.n_ff = 17408;
    d.attn.n_head = 24, d.attn.n_head_kv = 4;
    d.linear.n_v_heads = 48;
    synth_fit(d);
    return d;
}

// tiny: 4 layers (three Gated DeltaNet, one gated attention), hidden 256, FFN 768, 4/2 heads of 64, 4 key / 8 value
// heads of 32.
ModelDesc qwen3_5_dense_tiny() {
    ModelDesc d = qwen3_6_27b();
    d.n_layer = 4, d.n_embd = 256, d.n_ff = 768, d.n_ctx_train = 4096;
    d.attn.n_head = 4, d.attn.n_head_kv = 2, d.attn.head_dim = 64, d.attn.v_head_dim = 64;
    d.linear.n_k_heads = 4, d.linear.n_v_heads = 8, d.linear.k_head_dim = 32, d.linear.v_head_dim = 32;
    synth_fit(d);
    return d;
}

}  // namespace

const Arch& qwen3_5_moe_arch() {
    static const Arch a{
        .id = ArchId::qwen3_5_moe,
        .name = "qwen3_5_moe",
        .gguf_name = "qwen35moe",
        .hf = {{"Qwen3_5MoeForConditionalGeneration", "qwen3_5_moe"}, {"Qwen3_5MoeForCausalLM", "qwen3_5_moe_text"}},
        .read_hf = &read_hf,
        .read_gguf = &read_gguf,
        .write_gguf = &write_gguf,
        .tensors = &qwen3_5_moe_tensors,
        .graph = &qwen3_5_moe_graph,
        .convert_rewrites = &convert_rewrites,
        .convert_rewrite = &tile_v_heads,
        .presets = {{"qwen3.6-35b-a3b", [] { return qwen3_5_desc(false); }}},
        .synth_fit = &synth_fit,
    };
    return a;
}

const Arch& qwen3_next_arch() {
    static const Arch a{
        .id = ArchId::qwen3_next,
        .name = "qwen3_next",
        .gguf_name = "qwen3next",
        .hf = {{"Qwen3NextForCausalLM", "qwen3_next"}},
        .read_hf = &read_hf,
        .read_gguf = &read_gguf,
        .write_gguf = &write_gguf,
        .tensors = &qwen3_5_moe_tensors,
        .graph = &qwen3_5_moe_graph,
        .presets = {{"qwen3-next-80b-a3b", [] { return qwen3_5_desc(true); }}},
        .synth_fit = &synth_fit,
    };
    return a;
}

const Arch& qwen3_5_arch() {
    static const Arch a{
        .id = ArchId::qwen3_5,
        .name = "qwen3_5",
        .gguf_name = "qwen35",
        .hf = {{"Qwen3_5ForConditionalGeneration", "qwen3_5"}, {"Qwen3_5ForCausalLM", "qwen3_5_text"}},
        .moe = false,
        .read_hf = &read_hf,
        .read_gguf = &read_gguf,
        .write_gguf = &write_gguf,
        .tensors = &qwen3_5_moe_tensors,
        .graph = &qwen3_5_moe_graph,
        .convert_rewrites = &convert_rewrites,
        .convert_rewrite = &tile_v_heads,
        .presets = {{"qwen3.6-27b", &qwen3_6_27b}, {"qwen3.5-dense-tiny", &qwen3_5_dense_tiny}},
        .synth_fit = &synth_fit,
    };
    return a;
}

}  // namespace ft::model
