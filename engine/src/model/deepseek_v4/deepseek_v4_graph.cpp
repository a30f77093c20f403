// DeepSeek-V4 (DeepseekV4ForCausalLM, GGUF "deepseek4"): per layer the compressed attention block
// (CompressedAttentionBlock: sliding window only, CSA or HCA) and the MoE block (sqrt-softplus router with the
// correction bias, or the hash table in the first layers; SwiGLU clamped, the shared expert too), each mixed in and
// out of the hyper-connection streams by its mixer; the output head's mixer collapses the streams before the final
// norm. Every layer writes its kv rows to its KV-cache layer; the compressed layers take consecutive
// recurrent-state layers for their window rings.
#include <cmath>

#include "model/arch.h"
#include "model/layer_params.h"

namespace ft::model {

namespace {

std::string blk(int il, const char* suffix) { return "blk." + std::to_string(il) + "." + suffix; }

HyperMixRef mixer(const Weights& w, const std::string& prefix) {
    return {&w.get(prefix + "_fn.weight"), &w.get(prefix + "_base.weight"), &w.get(prefix + "_scale.weight")};
}

CompressedAttentionBlock v4_attention(const Weights& w, int il, int rs_layer) {
    const ModelDesc& d = w.desc();
    const V4Desc& v = d.v4;
    CompressedAttentionBlock a;
    a.q_a = {&w.get(blk(il, "attn_q_a.weight")), nullptr};
    a.q_a_norm = norm_of(w, blk(il, "attn_q_a_norm.weight"));
    a.q_b = {&w.get(blk(il, "attn_q_b.weight")), nullptr};
    a.kv = {&w.get(blk(il, "attn_kv.weight")), nullptr};
    a.kv_norm = norm_of(w, blk(il, "attn_kv_a_norm.weight"));
    a.o_a = {&w.get(blk(il, "attn_output_a.weight")), nullptr};
    a.o_b = {&w.get(blk(il, "attn_output_b.weight")), nullptr};
    a.sinks = &w.get(blk(il, "attn_sinks.weight"));
    a.n_head = int(d.attn.n_head);
    a.head_dim = int(d.attn.head_dim);
    a.rope_dim = int(d.rope.n_rot);
    a.o_groups = int(v.o_groups);
    a.o_lora = int(v.o_lora_rank);
    a.window = int(d.attn.sliding_window);
    a.scale = 1.f / std::sqrt(float(a.head_dim));
    a.norm_eps = float(d.norm_eps);
    a.kind = v.kind(std::uint32_t(il));
    a.ratio = int(v.ratio(std::uint32_t(il)));
    RopeDesc compress = v.compress_rope;
    compress.n_rot = d.rope.n_rot;
    a.comp_rope = rope_params(compress, a.head_dim);
    a.rope = a.kind == V4LayerKind::sliding ? rope_params(d.rope, a.head_dim) : a.comp_rope;
    a.kv_layer = il;
    if (a.kind != V4LayerKind::sliding) {
        a.rs_layer = rs_layer;
        a.comp = {{&w.get(blk(il, "attn_comp_kv.weight")), nullptr},
                  {&w.get(blk(il, "attn_comp_gate.weight")), nullptr},
                  &w.get(blk(il, "attn_comp_bias.weight")),
                  norm_of(w, blk(il, "attn_comp_norm.weight")),
                  a.head_dim};
    }
    if (a.kind == V4LayerKind::csa) {
        a.idx = {{&w.get(blk(il, "attn_idx_kv.weight")), nullptr},
                 {&w.get(blk(il, "attn_idx_gate.weight")), nullptr},
                 &w.get(blk(il, "attn_idx_bias.weight")),
                 norm_of(w, blk(il, "attn_idx_norm.weight")),
                 int(v.index_head_dim)};
        a.idx_q_b = {&w.get(blk(il, "attn_idx_q_b.weight")), nullptr};
        a.idx_weights = {&w.get(blk(il, "attn_idx_weights.weight")), nullptr};
        a.idx_heads = int(v.index_n_heads);
        a.idx_topk = int(v.index_topk);
    }
    return a;
}

}  // namespace

ModelGraph deepseek_v4_graph(const Weights& w) {
    const ModelDesc& d = w.desc();
    ModelGraph g;
    g.token_embd = &w.get("token_embd.weight");
    g.hc_mult = int(d.v4.hc_mult);
    g.hc_sinkhorn_iters = int(d.v4.hc_sinkhorn_iters);
    g.hc_eps = float(d.v4.hc_eps);
    int n_rs = 0;
    for (int il = 0; il < int(d.n_layer); ++il) {
        Layer L;
        const bool compressed = d.v4.kind(std::uint32_t(il)) != V4LayerKind::sliding;
        L.blocks.push_back({norm_of(w, blk(il, "attn_norm.weight")), v4_attention(w, il, compressed ? n_rs++ : -1),
                            mixer(w, blk(il, "hc_attn"))});
        MoeBlock m = moe_ffn(w, il);
        m.hash = w.find(blk(il, "ffn_gate_tid2eid.weight"));
        L.blocks.push_back({norm_of(w, blk(il, "ffn_norm.weight")), m, mixer(w, blk(il, "hc_ffn"))});
        g.layers.push_back(std::move(L));
    }
    g.hc_head = mixer(w, "output_hc");
    g.output_norm = norm_of(w, "output_norm.weight");
    g.output = &w.get("output.weight");
    finish_graph(g, w);
    return g;
}

}  // namespace ft::model
