#include "model/arch.h"

#include <algorithm>
#include <cmath>

#include "ft/error.h"
#include "model/block_visit.h"
#include "model/layer_params.h"
#include "ft/utf8.h"

namespace ft::model {

namespace {

std::string blk(int il, const char* suffix) { return "blk." + std::to_string(il) + "." + suffix; }

template <class F>
std::string join_runnable(F&& names) {
    std::string s;
    for (const Arch* a : arch_registry())
        if (a->graph)
            for (std::string_view n : names(*a)) s += (s.empty() ? "" : ", ") + std::string(n);
    return s;
}

}  // namespace

std::span<const Arch* const> arch_registry() {
#define FT_ARCH_POINTER(name) &name##_arch(),
    static const Arch* const registry[] = {FT_ARCHITECTURES(FT_ARCH_POINTER)};
#undef FT_ARCH_POINTER
    return registry;
}

Activation activation(const ModelDesc& d) {
    if (!(d.swiglu_limit > 0)) return Activation::swiglu;
    return d.swiglu_alpha > 0 ? Activation::swiglu_oai : Activation::swiglu_clamp;
}

float swiglu_limit_arg(const ModelDesc& d) { return swiglu_limit_arg(activation(d), float(d.swiglu_limit)); }

const Arch& arch_of(ArchId id) {
    for (const Arch* a : arch_registry())
        if (a->id == id) return *a;
    throw Error(ErrorCode::internal, "architecture without a registry entry: " + std::to_string(int(id)));
}

const Arch* arch_of_hf_class(std::string_view class_name) {
    for (const Arch* a : arch_registry())
        for (const HfClass& c : a->hf)
            if (c.class_name == class_name) return a;
    return nullptr;
}

const Arch* arch_of_hf_model_type(std::string_view model_type) {
    for (const Arch* a : arch_registry())
        for (const HfClass& c : a->hf)
            if (c.model_type == model_type) return a;
    return nullptr;
}

const Arch* arch_of_gguf_name(std::string_view gguf_name) {
    for (const Arch* a : arch_registry())
        if (a->gguf_name == gguf_name) return a;
    return nullptr;
}

const Arch* arch_of_preset(std::string_view preset) {
    for (const Arch* a : arch_registry())
        for (const SynthPreset& p : a->presets)
            if (p.name == preset) return a;
    return nullptr;
}

std::string_view arch_name(ArchId id) { return arch_of(id).name; }
std::string_view arch_gguf_name(ArchId id) { return arch_of(id).gguf_name; }
std::optional<ArchId> arch_from_name(std::string_view s) {
    for (const Arch* a : arch_registry())
        if (s == a->name || s == a->gguf_name) return a->id;
    return std::nullopt;
}

bool arch_runs(ArchId id) { return arch_of(id).graph != nullptr; }

std::optional<std::string> arch_unsupported_reason(ArchId id) {
    if (arch_runs(id)) return std::nullopt;
    return "architecture " + std::string(arch_name(id)) + " is described but has no forward pass yet (supported: " +
           runnable_arch_names() + ")";
}

std::string runnable_arch_names() {
    return join_runnable([](const Arch& a) { return std::vector<std::string_view>{a.name}; });
}

std::string runnable_gguf_names() {
    return join_runnable([](const Arch& a) { return std::vector<std::string_view>{a.gguf_name}; });
}

std::string runnable_hf_classes() {
    return join_runnable([](const Arch& a) {
        std::vector<std::string_view> v;
        for (const HfClass& c : a.hf) v.push_back(c.class_name);
        return v;
    });
}

std::string synth_preset_names() {
    std::string s;
    for (const Arch* a : arch_registry())
        for (const SynthPreset& p : a->presets) s += (s.empty() ? "" : ", ") + std::string(p.name);
    return s;
}

ModelGraph build_graph(const Weights& w) {
    const Arch& a = arch_of(w.desc().arch);
    if (!a.graph)
        throw Error(ErrorCode::unsupported, path_to_utf8(w.path()) + ": " + *arch_unsupported_reason(a.id),
                    "use a model of a supported architecture")
            .keyed("arch_unsupported", {path_to_utf8(w.path()), std::string(a.name), runnable_arch_names()});
    return a.graph(w);
}

ModelGraph pre_norm_decoder(const Weights& w, const char* ffn_norm, const std::function<BlockBody(int il)>& ffn,
                            const std::function<BlockBody(int il)>& attention) {
    ModelGraph g;
    g.token_embd = &w.get("token_embd.weight");
    for (int il = 0; il < int(w.desc().n_layer); ++il) {
        Layer L;
        L.blocks.push_back({norm_of(w, blk(il, "attn_norm.weight")), attention ? attention(il) : BlockBody(gqa_attention(w, il)), {}});
        L.blocks.push_back({norm_of(w, blk(il, ffn_norm)), ffn(il), {}});
        g.layers.push_back(std::move(L));
    }
    g.output_norm = norm_of(w, "output_norm.weight");
    g.output = &w.get("output.weight");
    finish_graph(g, w);
    return g;
}

NormRef norm_of(const Weights& w, const std::string& name) { return {&w.get(name), float(w.desc().norm_eps)}; }

AttentionBlock gqa_attention(const Weights& w, int il) {
    const ModelDesc& d = w.desc();
    AttentionBlock a;
    a.q = {&w.get(blk(il, "attn_q.weight")), w.find(blk(il, "attn_q.bias"))};
    a.k = {&w.get(blk(il, "attn_k.weight")), w.find(blk(il, "attn_k.bias"))};
    a.v = {&w.get(blk(il, "attn_v.weight")), w.find(blk(il, "attn_v.bias"))};
    a.o = {&w.get(blk(il, "attn_output.weight")), w.find(blk(il, "attn_output.bias"))};
    a.q_norm = w.find(blk(il, "attn_q_norm.weight"));
    a.k_norm = w.find(blk(il, "attn_k_norm.weight"));
    a.sinks = w.find(blk(il, "attn_sinks.weight"));
    a.n_head = int(d.attn.n_head);
    a.n_head_kv = int(d.attn.n_head_kv);
    a.head_dim = int(d.attn.head_dim);
    a.v_head_dim = int(d.attn.v_head_dim ? d.attn.v_head_dim : d.attn.head_dim);
    if (d.attn.sliding_window && std::size_t(il) < d.attn.swa_layers.size() && d.attn.swa_layers[std::size_t(il)])
        a.window = int(d.attn.sliding_window);
    a.scale = 1.f / std::sqrt(float(a.head_dim));
    a.norm_eps = float(d.norm_eps);
    a.rope = rope_params(d);
    a.kv_layer = il;
    a.output_gate = d.attn.output_gate;
    return a;
}

GatedDeltaNetBlock gated_delta_net(const Weights& w, int il, int rs_layer) {
    const LinearAttnDesc& la = w.desc().linear;
    GatedDeltaNetBlock g;
    g.qkv = {&w.get(blk(il, "attn_qkv.weight")), nullptr};
    g.z = {&w.get(blk(il, "attn_gate.weight")), nullptr};
    if (const TensorView* ba = w.find(blk(il, "ssm_ba.weight"))) {
        g.ba = {ba, nullptr};
    } else {
        g.beta = {&w.get(blk(il, "ssm_beta.weight")), nullptr};
        g.alpha = {&w.get(blk(il, "ssm_alpha.weight")), nullptr};
    }
    g.conv = &w.get(blk(il, "ssm_conv1d.weight"));
    g.dt_bias = &w.get(blk(il, "ssm_dt.bias"));
    g.a_neg = &w.get(blk(il, "ssm_a"));
    g.norm = &w.get(blk(il, "ssm_norm.weight"));
    g.out = {&w.get(blk(il, "ssm_out.weight")), nullptr};
    g.n_k_heads = int(la.n_k_heads);
    g.n_v_heads = int(la.n_v_heads);
    g.dk = int(la.k_head_dim);
    g.dv = int(la.v_head_dim);
    g.conv_kernel = int(la.conv_kernel);
    g.v_tiled = la.v_tiled;
    g.norm_eps = float(w.desc().norm_eps);
    g.rs_layer = rs_layer;
    return g;
}

MlaAttentionBlock mla_attention(const Weights& w, int il) {
    const ModelDesc& d = w.desc();
    const AttentionDesc& at = d.attn;
    MlaAttentionBlock a;
    if (at.q_lora_rank) {
        a.q_a = {&w.get(blk(il, "attn_q_a.weight")), nullptr};
        a.q_a_norm = norm_of(w, blk(il, "attn_q_a_norm.weight"));
        a.q_b = {&w.get(blk(il, "attn_q_b.weight")), nullptr};
    } else {
        a.q = {&w.get(blk(il, "attn_q.weight")), nullptr};
    }
    a.kv_a = {&w.get(blk(il, "attn_kv_a_mqa.weight")), nullptr};
    a.kv_a_norm = norm_of(w, blk(il, "attn_kv_a_norm.weight"));
    a.k_b = &w.get(blk(il, "attn_k_b.weight"));
    a.v_b = &w.get(blk(il, "attn_v_b.weight"));
    a.o = {&w.get(blk(il, "attn_output.weight")), nullptr};
    a.n_head = int(at.n_head);
    a.nope = int(at.qk_nope_head_dim);
    a.rope_dim = int(at.qk_rope_head_dim);
    a.kv_lora = int(at.kv_lora_rank);
    a.v_head_dim = int(at.v_head_dim);
    a.scale = 1.f / std::sqrt(float(a.q_dim()));
    // YaRN's attention temperature, on the logits (DeepSeek: mscale_all_dim; GGUF yarn_log_multiplier = 0.1 · it).
    if (d.rope.scaling == RopeScaling::yarn && d.rope.factor > 1.0 && d.rope.yarn_log_multiplier > 0) {
        const double m = 1.0 + d.rope.yarn_log_multiplier * std::log(d.rope.factor);
        a.scale = float(double(a.scale) * m * m);
    }
    a.rope = rope_params(d);
    a.rope.n_rot = a.rope_dim;
    a.kv_layer = il;
    return a;
}

FfnBlock dense_ffn(const Weights& w, int il) {
    FfnBlock f;
    f.gate = {&w.get(blk(il, "ffn_gate.weight")), w.find(blk(il, "ffn_gate.bias"))};
    f.up = {&w.get(blk(il, "ffn_up.weight")), w.find(blk(il, "ffn_up.bias"))};
    f.down = {&w.get(blk(il, "ffn_down.weight")), w.find(blk(il, "ffn_down.bias"))};
    f.act = activation(w.desc());
    f.limit = float(w.desc().swiglu_limit);
    return f;
}

MoeBlock moe_ffn(const Weights& w, int il) {
    const ModelDesc& d = w.desc();
    MoeBlock m;
    m.layer = il;
    m.router = {&w.get(blk(il, "ffn_gate_inp.weight")), w.find(blk(il, "ffn_gate_inp.bias"))};
    m.selection_bias = w.find(blk(il, "exp_probs_b.bias"));
    m.route = router_params(d);
    m.limit = float(d.swiglu_limit);
    m.act = activation(d);
    m.expert_biases = w.layer_has_experts(il) && w.expert(il, 0).has_bias();
    if (const TensorView* g = w.find(blk(il, "ffn_gate_shexp.weight"))) {
        m.shared.gate = {g, nullptr};
        m.shared.up = {&w.get(blk(il, "ffn_up_shexp.weight")), nullptr};
        m.shared.down = {&w.get(blk(il, "ffn_down_shexp.weight")), nullptr};
        m.shared_gate = w.find(blk(il, "ffn_gate_inp_shexp.weight"));
        m.shared.act = m.act;  // DeepSeek-V4 clamps its shared expert as its routed ones
        m.shared.limit = m.limit;
    }
    return m;
}

void finish_graph(ModelGraph& g, const Weights& w) {
    const ModelDesc& d = w.desc();
    g.n_embd = d.n_embd;
    g.n_vocab = d.n_vocab;
    g.n_expert = int(d.moe.n_expert);
    g.n_expert_used = int(d.moe.n_expert_used);
    g.n_ff_exp = d.moe.n_ff_exp;
    int kv_layers = 0;
    const AttentionBlock* first = nullptr;
    const CompressedAttentionBlock* compressed = nullptr;
    for (const Layer& L : g.layers)
        for (const Block& b : L.blocks)
            std::visit(overloaded{
                           [&](const AttentionBlock& a) {
                               if (first && (a.n_head_kv != first->n_head_kv || a.head_dim != first->head_dim ||
                                             a.v_head_dim != first->v_head_dim))
                                   throw Error(ErrorCode::unsupported,
                                               path_to_utf8(w.path()) + ": attention layers with different K/V shapes");
                               first = first ? first : &a;
                               kv_layers = std::max(kv_layers, a.kv_layer + 1);
                               g.max_n_head = std::max(g.max_n_head, a.n_head);
                               g.max_n_head_kv = std::max(g.max_n_head_kv, a.n_head_kv);
                               g.max_head_dim = std::max(g.max_head_dim, a.head_dim);
                               g.max_v_head_dim = std::max(g.max_v_head_dim, a.v_head_dim);
                           },
                           [&](const MlaAttentionBlock& m) {
                               kv_layers = std::max(kv_layers, m.kv_layer + 1);
                               g.max_n_head = std::max(g.max_n_head, m.n_head);
                               g.max_n_head_kv = 1;
                               g.max_head_dim = m.kv_dim();
                               g.max_v_head_dim = std::max(g.max_v_head_dim, m.idx.dim);  // the index keys
                           },
                           [&](const GatedDeltaNetBlock& n) {
                               g.n_rs_layers = std::max(g.n_rs_layers, n.rs_layer + 1);
                               const std::int64_t conv = std::int64_t(n.conv_dim()) * (n.conv_kernel - 1);
                               if (g.n_rs_layers > 1 && (n.state_floats() != g.rs_floats || conv != g.rs_conv_floats))
                                   throw Error(ErrorCode::unsupported,
                                               path_to_utf8(w.path()) + ": linear-attention layers of different sizes");
                               g.rs_floats = n.state_floats();
                               g.rs_conv_floats = conv;
                               g.max_linear_value_dim = std::max(g.max_linear_value_dim, n.value_dim());
                           },
                           [&](const CompressedAttentionBlock& c) {
                               compressed = &c;
                               kv_layers = std::max(kv_layers, c.kv_layer + 1);
                               g.max_n_head = std::max(g.max_n_head, c.n_head);
                               g.max_idx_dim = std::max(g.max_idx_dim, c.idx.dim);
                               if (c.rs_layer >= 0) {
                                   g.n_rs_layers = std::max(g.n_rs_layers, c.rs_layer + 1);
                                   g.rs_floats = std::max(g.rs_floats, c.state_floats());
                               }
                           },
                           [&](const FfnBlock& f) { g.max_ffn = std::max(g.max_ffn, f.gate.w->rows); },
                           [&](const MoeBlock& m) {
                               if (m.shared.gate) g.max_ffn = std::max(g.max_ffn, m.shared.gate.w->rows);
                           },
                       },
                       b.body);
    g.n_kv_layers = kv_layers;
    // DeepSeek-V4: one cache row per position of [kv | entry | index key] (CompressedAttentionBlock), the same width
    // in every layer (known once the widest indexer is).
    if (compressed) {
        g.kv_rows_f32 = true;  // its kernels (cuda/compressed_attention.cuh) take f32 rows
        g.max_n_head_kv = 1;
        g.max_head_dim = compressed->row_width(g.max_idx_dim);
        g.max_v_head_dim = 0;
    }
}

bool graph_has_sinks(const ModelGraph& g) {
    for (const Layer& L : g.layers)
        for (const Block& b : L.blocks)
            if (std::visit(overloaded{
                               [](const AttentionBlock& a) { return a.sinks != nullptr; },
                               [](const MlaAttentionBlock&) { return false; },
                               [](const GatedDeltaNetBlock&) { return false; },
                               [](const CompressedAttentionBlock& c) { return c.sinks != nullptr; },
                               [](const FfnBlock&) { return false; },
                               [](const MoeBlock&) { return false; },
                           },
                           b.body))
                return true;
    return false;
}

}  // namespace ft::model
