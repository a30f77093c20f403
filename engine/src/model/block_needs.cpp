#include "model/block_needs.h"

#include <variant>

#include "model/block_visit.h"

namespace ft::model {

namespace {

std::uint64_t a256(std::uint64_t b) { return std::max<std::uint64_t>(256, (b + 255) / 256 * 256); }

}  // namespace

const char* scratch_label(Scratch b) {
    switch (b) {
        case Scratch::x:
        case Scratch::xn: return "activations";
        case Scratch::qkv:
        case Scratch::att:
        case Scratch::heads: return "attention scratch";
        case Scratch::lin: return "linear attention scratch";
        case Scratch::router_logits:
        case Scratch::route_w:
        case Scratch::route_ids: return "router scratch";
        case Scratch::order:
        case Scratch::where:
        case Scratch::offsets:
        case Scratch::xs:
        case Scratch::ys:
        case Scratch::gate:
        case Scratch::up: return "MoE scratch";
        case Scratch::dense_rows: return "prefill row scratch";
        case Scratch::logits: return "logits";
        case Scratch::meta: return "batch metadata";
        case Scratch::routing: return "routing trace buffers";
        case Scratch::pages: return "page tables";
        case Scratch::attn_ws: return "decode attention workspace";
        case Scratch::streams: return "hyper-connection scratch";
        case Scratch::compressed: return "compressed attention scratch";
        case Scratch::picks:
        case Scratch::pick_scores: return "indexer scratch";
        case Scratch::count_: break;
    }
    return "scratch";
}

std::uint64_t ScratchNeeds::total() const {
    std::uint64_t s = 0;
    for (std::uint64_t b : bytes)
        if (b) s += a256(b);
    return s;
}

std::uint64_t attention_decode_workspace_bytes(int n_head, int v_head_dim, int max_sequences, int n_ctx) {
    // cuda/attention.cu: min(ceil(n_ctx / 64), 128) splits; per (token, head, split) max and sum, then the partial
    // output; the partial outputs start 128-byte aligned.
    if (n_ctx <= 0 || max_sequences <= 0) return 0;
    const std::uint64_t splits = std::uint64_t(std::min<std::int64_t>((std::int64_t(n_ctx) + 63) / 64, 128));
    const std::uint64_t heads = std::uint64_t(max_sequences) * std::uint64_t(n_head) * splits;
    return (heads * 8 + 127) / 128 * 128 + heads * std::uint64_t(v_head_dim) * 4;
}

std::uint64_t mla_decode_workspace_bytes(int n_head, int kv_lora, int max_sequences, int n_ctx) {
    // cuda/mla_attention.cu: 1..32 splits of ≥ 256 positions; per (token, head, split) max and sum (16-byte aligned),
    // then a partial of kv_lora floats.
    if (n_ctx <= 0) return 0;
    const std::uint64_t splits = std::uint64_t(std::clamp<std::int64_t>((std::int64_t(n_ctx) + 255) / 256, 1, 32));
    const std::uint64_t parts = std::uint64_t(max_sequences) * std::uint64_t(n_head) * splits;
    return (parts * 8 + 15) / 16 * 16 + parts * std::uint64_t(kv_lora) * 4;
}

std::int64_t qkv_width(const AttentionBlock& b) {
    const std::int64_t qd = std::int64_t(b.n_head) * b.head_dim;
    return (b.output_gate ? 2 * qd : qd) + std::int64_t(b.n_head_kv) * (b.head_dim + b.v_head_dim);
}

std::int64_t qkv_width(const MlaAttentionBlock& b) {
    const std::int64_t H = b.n_head, q_lora = b.q_a ? b.q_a.w->rows : 0;
    const std::int64_t index = std::int64_t(b.idx.heads) * b.idx.dim + b.idx.dim + b.idx.heads;  // q, key, head weights
    return H * b.q_dim() + H * b.kv_dim() + b.kv_dim() + q_lora + index;
}

std::int64_t att_width(const MlaAttentionBlock& b) { return std::int64_t(b.n_head) * (b.kv_lora + b.v_head_dim); }

std::int64_t lin_width(const GatedDeltaNetBlock& b) {
    return 2 * std::int64_t(b.conv_dim()) + 2 * std::int64_t(b.value_dim()) + 4 * std::int64_t(b.n_v_heads);
}

std::int64_t compressed_width(const CompressedAttentionBlock& b) {
    const std::int64_t D = b.head_dim, HD = std::int64_t(b.n_head) * D, Di = b.idx.dim;
    return b.q_a.w->rows + 2 * HD + 5 * D + 4 * Di + std::int64_t(b.idx_heads) * Di + b.idx_heads +
           std::int64_t(b.o_groups) * b.o_lora;
}

std::int64_t streams_width(const ModelGraph& g) {
    const std::int64_t N = g.hc_mult, NE = N * g.n_embd;
    return N > 0 ? 2 * NE + (2 + N) * N + N + N * N : 0;
}

void block_needs(const AttentionBlock& b, const ModelGraph&, const StepShape& s, ScratchNeeds& n) {
    const std::int64_t T = s.rows();
    n.need_f32(Scratch::qkv, T * qkv_width(b));
    n.need_f32(Scratch::att, T * b.n_head * b.v_head_dim);
    n.need(Scratch::attn_ws, std::max<std::uint64_t>(1, attention_decode_workspace_bytes(b.n_head, b.v_head_dim, s.max_sequences, s.n_ctx)));
    n.gemm(std::max(std::int64_t(b.n_head) * b.head_dim, std::int64_t(b.n_head) * b.v_head_dim));
}

void block_needs(const MlaAttentionBlock& b, const ModelGraph&, const StepShape& s, ScratchNeeds& n) {
    const std::int64_t T = s.rows();
    n.need_f32(Scratch::qkv, T * qkv_width(b));
    n.need_f32(Scratch::att, T * att_width(b));
    n.need_i32(Scratch::heads, T * b.n_head);
    n.need(Scratch::attn_ws, std::max<std::uint64_t>(1, mla_decode_workspace_bytes(b.n_head, b.kv_lora, s.max_sequences, s.n_ctx)));
    n.gemm(std::max(std::int64_t(b.n_head) * b.kv_dim(), att_width(b)));
    if (b.idx.heads) {  // the sparse indexer: the picks, and the scores of every position for kIndexChunk tokens
        n.need_i32(Scratch::picks, T * (std::int64_t(b.idx.topk) + 1));
        n.need_f32(Scratch::pick_scores, std::min(T, kIndexChunk) * std::max<std::int64_t>(1, s.n_ctx));
    }
}

void block_needs(const GatedDeltaNetBlock& b, const ModelGraph&, const StepShape& s, ScratchNeeds& n) {
    n.need_f32(Scratch::lin, s.rows() * lin_width(b));
    n.gemm(b.value_dim());
}

void block_needs(const CompressedAttentionBlock& b, const ModelGraph&, const StepShape& s, ScratchNeeds& n) {
    const std::int64_t T = s.rows();
    const bool csa = b.kind == V4LayerKind::csa;
    n.need_f32(Scratch::compressed, T * compressed_width(b));
    n.need_i32(Scratch::picks, T * ((csa ? std::max(b.idx_topk, 1) : 1) + 1));
    const std::int64_t entries = csa ? std::max<std::int64_t>(1, s.n_ctx / std::max(b.ratio, 1)) : 1;
    n.need_f32(Scratch::pick_scores, std::min(T, kIndexChunk) * entries);
    n.gemm(std::int64_t(b.n_head) * b.row_width(b.idx.dim));
}

void block_needs(const FfnBlock& b, const ModelGraph&, const StepShape& s, ScratchNeeds& n) {
    const std::int64_t width = b.gate.w->rows;
    n.need_f32(Scratch::gate, s.rows() * width);
    n.need_f32(Scratch::up, s.rows() * width);
    n.gemm(width);
}

void block_needs(const MoeBlock& b, const ModelGraph& g, const StepShape& s, ScratchNeeds& n) {
    const std::int64_t T = s.rows(), K = g.n_expert_used, NE = g.n_expert, E = g.n_embd, F = g.n_ff_exp;
    n.need_f32(Scratch::router_logits, T * NE);
    n.need_f32(Scratch::route_w, T * K);
    n.need_i32(Scratch::route_ids, T * K);
    n.need_i32(Scratch::order, T * K);
    n.need_i32(Scratch::where, T * K);
    n.need_i32(Scratch::offsets, NE + 1);
    n.need_f32(Scratch::xs, T * K * E);
    n.need_f32(Scratch::ys, T * K * E);
    n.need_f32(Scratch::gate, T * K * F);
    n.need_f32(Scratch::up, T * K * F);
    // Prefill groups rows by expert for the GEMMs: in BF16 a buffer of their own (f32: xs as it is).
    if (T > kGemvMaxRows && s.bf16_rows) n.need(Scratch::dense_rows, std::uint64_t(T * K * std::max(E, F)) * 2);
    n.gemm(F);
    if (b.shared.gate) block_needs(b.shared, g, s, n);
}

ScratchNeeds graph_needs(const ModelGraph& g, const StepShape& s) {
    ScratchNeeds n;
    const std::int64_t T = s.rows(), E = g.n_embd;
    n.need_f32(Scratch::x, T * E);
    n.need_f32(Scratch::xn, T * E);
    n.gemm(E);
    for (const Layer& L : g.layers)
        for (const Block& b : L.blocks)
            std::visit(overloaded{
                           [&](const AttentionBlock& a) { block_needs(a, g, s, n); },
                           [&](const MlaAttentionBlock& m) { block_needs(m, g, s, n); },
                           [&](const GatedDeltaNetBlock& d) { block_needs(d, g, s, n); },
                           [&](const CompressedAttentionBlock& c) { block_needs(c, g, s, n); },
                           [&](const FfnBlock& f) { block_needs(f, g, s, n); },
                           [&](const MoeBlock& m) { block_needs(m, g, s, n); },
                       },
                       b.body);
    n.logit_rows = std::max<std::int64_t>(s.max_sequences, kMinLogitRows);
    n.need_f32(Scratch::logits, n.logit_rows * g.n_vocab);
    n.need_i32(Scratch::meta, 5 * T);
    if (s.routing_trace)
        n.need_i32(Scratch::routing, 2 * std::int64_t(g.layers.size()) * s.max_sequences * g.n_expert_used);
    const std::int64_t pages_stride = (std::int64_t(s.n_ctx) + s.page_size - 1) / s.page_size;
    n.need_i32(Scratch::pages, (std::int64_t(s.max_sequences) + 1) * pages_stride + 1);
    if (g.hc_mult > 0) {
        n.need_f32(Scratch::streams, T * streams_width(g));
        n.gemm(std::int64_t(g.hc_mult) * E);
    }
    return n;
}

// ---- weights ----

std::uint64_t WeightNeeds::expert_pool() const {
    std::uint64_t s = 0;
    for (const Experts& e : experts)
        for (std::uint64_t b : e.bytes) s += std::max<std::uint64_t>(b * std::uint64_t(e.n_expert), 256);
    return s;
}

std::uint64_t WeightNeeds::slot_bytes() const {
    std::array<std::uint64_t, 3> big{};
    for (const Experts& e : experts)
        for (std::size_t i = 0; i < 3; ++i) big[i] = std::max(big[i], e.bytes[i]);
    return experts.empty() ? 0 : a256(big[0]) + a256(big[1]) + a256(big[2]);
}

std::uint64_t WeightNeeds::active_expert_bytes(int k) const {
    std::uint64_t s = 0;
    for (const Experts& e : experts) s += (e.bytes[0] + e.bytes[1] + e.bytes[2]) * std::uint64_t(k);
    return s;
}

kernels::DType WeightCount::stored_type(const TensorView& t, std::string_view name) const {
    if (!types_) return t.type;
    const auto it = types_->by_name.find(name);
    return it == types_->by_name.end() ? t.type : it->second;
}

std::uint64_t WeightCount::stored_bytes(const TensorView& t, std::string_view name) {
    if (!types_) return t.bytes();
    const auto it = types_->by_name.find(name);
    if (it == types_->by_name.end()) {
        n_.untyped.emplace_back(name);
        return 0;
    }
    return kernels::dtype_bytes(it->second, std::uint64_t(t.rows) * std::uint64_t(t.cols)).value_or(0);
}

void WeightCount::matrix(const TensorView* t) {
    if (!t || !matrices_.insert(t->data ? static_cast<const void*>(t->data) : t).second) return;
    add(stored_bytes(*t, t->name));
}

void WeightCount::vector(const TensorView* t) {
    if (!t || !vectors_.insert(t->data ? static_cast<const void*>(t->data) : t).second) return;
    add(std::uint64_t(t->rows) * std::uint64_t(t->cols) * 4);
}

void WeightCount::table(const TensorView* t) {
    if (t) add(std::uint64_t(t->rows) * std::uint64_t(t->cols) * 4);  // i32 whatever the file's integers (Weights::open)
}

void WeightCount::stacked(const TensorView& q, const TensorView& k, const TensorView& v) {
    const kernels::DType tq = stored_type(q, q.name);
    if (!(tq == stored_type(k, k.name) && tq == stored_type(v, v.name) && q.cols == k.cols && k.cols == v.cols)) {
        matrix(&q);
        matrix(&k);
        matrix(&v);
        return;
    }
    std::uint64_t b = 0;
    for (const TensorView* t : {&q, &k, &v}) {
        matrices_.insert(t->data ? static_cast<const void*>(t->data) : t);
        b += stored_bytes(*t, t->name);
    }
    add(b);
}

void WeightCount::stacked_vector(std::initializer_list<const TensorView*> parts) {
    std::uint64_t n = 0;
    for (const TensorView* t : parts)
        if (t) n += std::uint64_t(t->rows) * std::uint64_t(t->cols);
    if (n) add(n * 4);
}

void WeightCount::ones(std::int64_t n) {
    if (n <= ones_) return;
    add(std::uint64_t(n) * 4);
    ones_ = n;
}

void WeightCount::experts(const MoeBlock& b) {
    if (!w_.layer_has_experts(b.layer)) return;
    WeightNeeds::Experts e;
    e.layer = b.layer;
    e.n_expert = int(w_.desc().moe.n_expert);
    const ExpertView& e0 = w_.expert(b.layer, 0);  // the runner stacks every expert at expert 0's size
    const std::string prefix = "blk." + std::to_string(b.layer) + ".";
    e.bytes = {stored_bytes(e0.gate, prefix + "ffn_gate_exps.weight"), stored_bytes(e0.up, prefix + "ffn_up_exps.weight"),
               stored_bytes(e0.down, prefix + "ffn_down_exps.weight")};
    n_.experts.push_back(e);
    // (A description's graph has no bias data to tell: ModelDesc says.)
    if (b.expert_biases || w_.desc().moe.expert_bias)
        for (const char* bias : {"ffn_gate_exps.bias", "ffn_up_exps.bias", "ffn_down_exps.bias"})
            vector(w_.find_layer(b.layer, bias));
}

void block_weights(const AttentionBlock& b, WeightCount& c) {
    c.stacked(*b.q.w, *b.k.w, *b.v.w);
    c.matrix(b.o.w);
    if (b.q.b || b.k.b || b.v.b) c.stacked_vector({b.q.b, b.k.b, b.v.b});
    c.vector(b.o.b);
    c.vector(b.q_norm);
    c.vector(b.k_norm);
    c.vector(b.sinks);
}

void block_weights(const MlaAttentionBlock& b, WeightCount& c) {
    if (b.q_a) {
        c.matrix(b.q_a.w);
        c.matrix(b.q_b.w);
        c.vector(b.q_a_norm.w);
    } else {
        c.matrix(b.q.w);
    }
    c.matrix(b.kv_a.w);
    c.vector(b.kv_a_norm.w);
    c.matrix(b.k_b);
    c.matrix(b.v_b);
    c.matrix(b.o.w);
    if (b.idx.heads > 0) {  // the sparse indexer
        c.matrix(b.idx.q_b.w);
        c.matrix(b.idx.k.w);
        c.matrix(b.idx.weights.w);
        c.vector(b.idx.k_norm);
        c.vector(b.idx.k_norm_bias);
    }
}

void block_weights(const GatedDeltaNetBlock& b, WeightCount& c) {
    c.matrix(b.qkv.w);
    c.matrix(b.z.w);
    if (b.ba) {
        c.matrix(b.ba.w);
    } else {
        c.matrix(b.beta.w);
        c.matrix(b.alpha.w);
    }
    c.matrix(b.out.w);
    c.vector(b.conv);
    c.vector(b.dt_bias);
    c.vector(b.a_neg);
    c.vector(b.norm);
}

void block_weights(const CompressedAttentionBlock& b, WeightCount& c) {
    for (const LinearRef* m : {&b.q_a, &b.q_b, &b.kv, &b.o_a, &b.o_b}) c.matrix(m->w);
    c.vector(b.q_a_norm.w);
    c.vector(b.kv_norm.w);
    c.vector(b.sinks);
    c.ones(b.head_dim);
    if (b.kind != V4LayerKind::sliding) {
        c.matrix(b.comp.kv.w);
        c.matrix(b.comp.gate.w);
        c.vector(b.comp.bias);
        c.vector(b.comp.norm.w);
    }
    if (b.kind == V4LayerKind::csa) {
        c.matrix(b.idx.kv.w);
        c.matrix(b.idx.gate.w);
        c.vector(b.idx.bias);
        c.vector(b.idx.norm.w);
        c.matrix(b.idx_q_b.w);
        c.matrix(b.idx_weights.w);
    }
}

void block_weights(const FfnBlock& b, WeightCount& c) {
    for (const LinearRef* m : {&b.gate, &b.up, &b.down}) c.matrix(m->w);
    for (const LinearRef* m : {&b.gate, &b.up, &b.down}) c.vector(m->b);
}

void block_weights(const MoeBlock& b, WeightCount& c) {
    c.matrix(b.router.w);
    c.vector(b.router.b);
    c.vector(b.selection_bias);
    c.table(b.hash);
    c.experts(b);
    if (b.shared.gate) block_weights(b.shared, c);
    c.matrix(b.shared_gate);
}

WeightNeeds graph_weights(const ModelGraph& g, const Weights& w, const WeightTypes* types) {
    WeightCount c(w, types);
    c.matrix(g.token_embd);
    c.vector(g.output_norm.w);
    // A tied LM head is the embedding: the same data in a loaded model; a type table without output.weight.
    const bool tied = types && w.desc().tied_embeddings && !types->by_name.contains("output.weight");
    if (!tied) c.matrix(g.output);
    for (const Layer& L : g.layers)
        for (const Block& b : L.blocks) {
            c.vector(b.norm.w);
            if (b.hc) {
                c.matrix(b.hc.fn);
                c.vector(b.hc.base);
                c.vector(b.hc.scale);
            }
            std::visit(overloaded{
                           [&](const AttentionBlock& a) { block_weights(a, c); },
                           [&](const MlaAttentionBlock& m) { block_weights(m, c); },
                           [&](const GatedDeltaNetBlock& d) { block_weights(d, c); },
                           [&](const CompressedAttentionBlock& v) { block_weights(v, c); },
                           [&](const FfnBlock& f) { block_weights(f, c); },
                           [&](const MoeBlock& m) { block_weights(m, c); },
                       },
                       b.body);
        }
    if (g.hc_mult > 0) {
        c.matrix(g.hc_head.fn);
        c.vector(g.hc_head.base);
        c.vector(g.hc_head.scale);
        c.ones(std::int64_t(g.hc_mult) * g.n_embd);
    }
    return c.take();
}

int kv_elem_bytes(const ModelGraph& g, bool want_f16) { return want_f16 && !g.kv_rows_f32 ? 2 : 4; }

}  // namespace ft::model
