#include "cuda/gpu_attention.h"

#include <algorithm>
#include <cmath>

#include <spdlog/fmt/fmt.h>

#include "cuda/attention.cuh"
#include "cuda/compressed_attention.cuh"
#include "cuda/hyper_connection.cuh"
#include "cuda/gated_delta.cuh"
#include "cuda/gemv.cuh"
#include "cuda/mla_attention.cuh"
#include "cuda/ops.cuh"
#include "cuda/rms_norm.cuh"
#include "ft/error.h"

namespace ft::gpu {

namespace kc = kernels::cuda;

GpuAttention::GpuAttention(const model::AttentionBlock& b, DeviceWeights& dw) : b_(b) {
    if (b.head_dim % 16 || b.v_head_dim % 16 || b.head_dim > 256 || b.v_head_dim > 256)
        throw Error(ErrorCode::unsupported,
                    fmt::format("GPU attention needs head sizes that are multiples of 16 up to 256 (this model: {} / {})",
                                b.head_dim, b.v_head_dim),
                    "use --device cpu");
    if (b.output_gate && (b.v_head_dim != b.head_dim || 2 * b.n_head * b.head_dim > 24576))
        throw Error(ErrorCode::unsupported, "GPU gated attention: values of another width than the keys, or over 12288 "
                                            "query floats per token", "use --device cpu");
    qd_ = std::int64_t(b.n_head) * b.head_dim;
    kd_ = std::int64_t(b.n_head_kv) * b.head_dim;
    vd_ = std::int64_t(b.n_head_kv) * b.v_head_dim;
    const std::string layer = "blk." + std::to_string(b.kv_layer) + ".";
    qkv_ = dw.stacked(*b.q.w, *b.k.w, *b.v.w, layer + "attn_qkv");
    q_ = dw.matrix(*b.q.w);  // inside the stack when stacked
    k_ = dw.matrix(*b.k.w);
    v_ = dw.matrix(*b.v.w);
    o_ = dw.matrix(*b.o.w);
    qkv_bias_ = dw.stacked_vector({b.q.b, b.k.b, b.v.b}, layer + "attn_qkv.bias");
    o_bias_ = dw.vector(b.o.b);
    q_norm_ = dw.vector(b.q_norm);
    k_norm_ = dw.vector(b.k_norm);
    sinks_ = dw.vector(b.sinks);
}

kernels::AttentionParams GpuAttention::params(int page_size) const {
    kernels::AttentionParams ap;
    ap.n_head = b_.n_head;
    ap.n_head_kv = b_.n_head_kv;
    ap.head_dim = b_.head_dim;
    ap.v_head_dim = b_.v_head_dim;
    ap.page_size = page_size;
    ap.scale = b_.scale;
    ap.window = b_.window;
    ap.sinks = sinks_;
    return ap;
}

std::uint64_t GpuAttention::decode_bytes() const {
    auto bytes = [](const DeviceMatrix& m) { return m.row_bytes * std::size_t(m.rows); };
    return bytes(q_) + bytes(k_) + bytes(v_) + bytes(o_);
}

void GpuAttention::forward(GpuContext& c, std::int64_t T, bool decode) const {
    const std::int64_t E = c.n_embd, ld = qkv_width();
    float* q = c.s.qkv.get();
    float* k = q + (b_.output_gate ? 2 * qd_ : qd_);
    float* v = k + kd_;
    // q, k, v packed per token in qkv [T, q + k + v].
    if (qkv_.data) {
        c.linear->run(qkv_, c.s.xn.get(), T, E, q, ld, false);
    } else {
        c.linear->run(q_, c.s.xn.get(), T, E, q, ld, false);
        c.linear->run(k_, c.s.xn.get(), T, E, k, ld, false);
        c.linear->run(v_, c.s.xn.get(), T, E, v, ld, false);
    }
    if (qkv_bias_) c.launched(kc::add_bias_f32(q, ld, qkv_bias_, T, ld, c.stream), "q/k/v bias");
    if (b_.output_gate) c.launched(kc::split_head_halves(q, ld, T, b_.n_head, b_.head_dim, c.stream), "query / gate split");
    kc::KvWriteParams kw;
    kw.n_head_kv = b_.n_head_kv;
    kw.head_dim = b_.head_dim;
    kw.v_head_dim = b_.v_head_dim;
    kw.page_size = c.page_size;
    kw.page_tables = c.d_pages;
    kw.pages_stride = c.pages_stride;
    kw.type = c.opt.kv_f16 ? kernels::DType::F16 : kernels::DType::F32;
    void* kc_ = c.kv->k_data(b_.kv_layer);
    void* vc_ = c.kv->v_data(b_.kv_layer);
    if (b_.qk_norm_whole) {  // one RMS over each token's whole q and k rows, then RoPE without per-head norms
        if (q_norm_) c.launched(kc::rms_norm_rows_f32(q, ld, q_norm_, q, ld, T, qd_, b_.norm_eps, c.stream), "q norm");
        if (k_norm_) c.launched(kc::rms_norm_rows_f32(k, ld, k_norm_, k, ld, T, kd_, b_.norm_eps, c.stream), "k norm");
    }
    const float* qn = b_.qk_norm_whole ? nullptr : q_norm_;
    const float* kn = b_.qk_norm_whole ? nullptr : k_norm_;
    c.launched(kc::qk_norm_rope_kv_write(b_.rope, q, ld, b_.n_head, k, ld, qn, kn, b_.norm_eps, T, c.d_pos, kw, v, ld,
                                         c.d_row, kc_, vc_, c.stream),
               "q/k norm + rope + kv write");
    const kc::DevicePagedKv view{kc_, vc_, c.d_pages, c.pages_stride, kw.type};
    const kernels::AttentionParams ap = params(c.page_size);
    float* att = c.s.att.get();
    if (decode) {
        c.mark("q/k/v + norms + rope + kv write");
        c.launched(kc::attention_decode(ap, q, ld, T, c.d_pos, c.d_row, c.opt.n_ctx, view, att, c.s.attn_ws.get(), c.stream),
                   "decode attention");
    } else {
        const auto& batch = c.batch;
        for (std::int64_t s0 = 0; s0 < T;) {
            std::int64_t s1 = s0 + 1;
            while (s1 < T && batch[std::size_t(s1)].seq == batch[std::size_t(s0)].seq) ++s1;
            // Exact mode: f32 attention; else tensor cores (f16 operands, f32 softmax and sums).
            const auto attend =
                c.opt.gemm == exec::GemmPrecision::f32 ? kc::attention_prefill_exact : kc::attention_prefill;
            c.launched(attend(ap, q + s0 * ld, ld, s1 - s0, batch[std::size_t(s0)].pos, c.host_row[s0], view,
                              att + s0 * std::int64_t(b_.n_head) * b_.v_head_dim, c.stream),
                       "prefill attention");
            s0 = s1;
        }
    }
    if (b_.output_gate)
        c.launched(kc::mul_sigmoid_f32(att, qd_, q + qd_, ld, T, qd_, c.stream), "attention output gate");
    c.mark("attention");
    c.matmul(o_, att, T, c.s.x.get(), true);  // + residual
    if (o_bias_) c.launched(kc::add_bias_f32(c.s.x.get(), E, o_bias_, T, E, c.stream), "output bias");
    c.mark("attention output");
}

GpuMlaAttention::GpuMlaAttention(const model::MlaAttentionBlock& b, DeviceWeights& dw) : b_(b) {
    if (b.kv_lora % 32 || b.rope_dim % 2 || b.kv_lora > 512 || b.kv_dim() > 640)
        throw Error(ErrorCode::unsupported,
                    fmt::format("GPU latent attention needs a KV rank that is a multiple of 32 up to 512 and a row of at "
                                "most 640 values (this model: {} + {})",
                                b.kv_lora, b.rope_dim),
                    "use --device cpu");
    if (b.idx.heads) {
        if (!b.q_a || std::int64_t(b.idx.heads) * b.idx.dim > 12288)
            throw Error(ErrorCode::unsupported,
                        fmt::format("GPU sparse-attention indexer: {} heads of {} (at most 12288 query values, with a "
                                    "low-rank query)", b.idx.heads, b.idx.dim),
                        "use --device cpu");
        idx_q_b_ = dw.matrix(*b.idx.q_b.w);
        idx_k_ = dw.matrix(*b.idx.k.w);
        idx_w_ = dw.matrix(*b.idx.weights.w);
        idx_norm_ = dw.vector(b.idx.k_norm);
        idx_bias_ = dw.vector(b.idx.k_norm_bias);
    }
    if (b.nope > b.n_head * b.v_head_dim)  // per_head packs a head's q_nope rows into the values' scratch
        throw Error(ErrorCode::unsupported, "GPU latent attention: per-head query width over the heads' value width",
                    "use --device cpu");
    if (b.q_a) {
        q_a_ = dw.matrix(*b.q_a.w);
        q_b_ = dw.matrix(*b.q_b.w);
        q_a_norm_ = dw.vector(b.q_a_norm.w);
        q_lora_ = q_a_.rows;
    } else {
        q_ = dw.matrix(*b.q.w);
    }
    kv_a_ = dw.matrix(*b.kv_a.w);
    kv_a_norm_ = dw.vector(b.kv_a_norm.w);
    k_b_ = dw.matrix(*b.k_b);
    v_b_ = dw.matrix(*b.v_b);
    o_ = dw.matrix(*b.o.w);
}

kernels::MlaParams GpuMlaAttention::params(int page_size) const {
    kernels::MlaParams p;
    p.n_head = b_.n_head;
    p.kv_lora = b_.kv_lora;
    p.rope_dim = b_.rope_dim;
    p.page_size = page_size;
    p.scale = b_.scale;
    return p;
}

std::uint64_t GpuMlaAttention::decode_bytes() const {
    auto bytes = [](const DeviceMatrix& m) { return m.row_bytes * std::size_t(m.rows); };
    return bytes(q_) + bytes(q_a_) + bytes(q_b_) + bytes(kv_a_) + bytes(k_b_) + bytes(v_b_) + bytes(o_) + bytes(idx_q_b_) +
           bytes(idx_k_) + bytes(idx_w_);
}

std::int64_t GpuMlaAttention::qkv_width() const { return model::qkv_width(b_); }

std::int64_t GpuMlaAttention::att_width() const { return model::att_width(b_); }

void GpuMlaAttention::per_head(GpuContext& c, const DeviceMatrix& w, std::int64_t rows, const float* x, std::int64_t ldx,
                               std::int64_t x_head, std::int64_t T, float* y, std::int64_t ldy, std::int64_t y_head,
                               float* tmp) const {
    const std::int64_t H = b_.n_head;
    if (T <= kc::kGemvMaxM && ldx == H * x_head && ldy == H * y_head) {
        // One grouped GEMV over the (token, head) pairs: pair p = t·H + h reads head h's matrix ("expert" h).
        kc::ExpertGemvParams p;
        p.w = {w.type, w.data, std::size_t(rows) * w.row_bytes, w.row_bytes, rows, w.cols};
        p.ids = c.s.heads.get();
        p.n_pairs = int(T * H);
        p.x = x;
        p.ldx = x_head;
        p.y = y;
        p.ldy = y_head;
        c.launched(kc::expert_gemv(p, c.stream), "MLA per-head GEMV");
        return;
    }
    // A GEMM per head on its inputs packed into tmp (one copy; Linear then converts them to BF16 in one launch).
    for (std::int64_t h = 0; h < H; ++h) {
        DeviceMatrix wh = w;
        wh.rows = rows;
        wh.data = static_cast<const std::byte*>(w.data) + std::size_t(h * rows) * w.row_bytes;
        c.launched(cudaMemcpy2DAsync(tmp, std::size_t(w.cols) * 4, x + h * x_head, std::size_t(ldx) * 4, std::size_t(w.cols) * 4,
                                     std::size_t(T), cudaMemcpyDeviceToDevice, c.stream),
                   "MLA head inputs");
        c.linear->run(wh, tmp, T, w.cols, y + h * y_head, ldy, false);
    }
}

// The indexer's pick of every token (ref: cpu::CpuMlaAttention::index): its keys into the V rows of the cache, then
// scores over positions 0 .. pos and the best topk into s.picks ([max_t, topk] ids, then max_t counts).
void GpuMlaAttention::index(GpuContext& c, std::int64_t T, const float* qa, float* iq, float* ik, float* iw) const {
    const model::MlaAttentionBlock::Indexer& x = b_.idx;
    const int IH = x.heads, ID = x.dim;
    const float* xn = c.s.xn.get();
    c.matmul(idx_q_b_, qa, T, iq);
    c.matmul(idx_k_, xn, T, ik);
    c.matmul(idx_w_, xn, T, iw);
    c.launched(kc::layer_norm_f32(ik, idx_norm_, idx_bias_, ik, T, ID, x.k_norm_eps, c.stream), "indexer key norm");
    c.launched(kc::rope_f32(x.rope, iq, T, IH, std::int64_t(IH) * ID, c.d_pos, c.stream), "indexer q rope");
    c.launched(kc::rope_f32(x.rope, ik, T, 1, ID, c.d_pos, c.stream), "indexer key rope");
    const kc::CompressedCache keys{c.kv->v_data(b_.kv_layer), c.d_pages, c.pages_stride, c.page_size, ID,
                                   c.opt.kv_f16 ? kernels::DType::F16 : kernels::DType::F32};
    c.launched(kc::compressed_kv_write(ik, ID, ID, c.d_pos, c.d_row, T, keys, c.stream), "indexer key write");
    std::int32_t* ids = c.s.picks.get();
    std::int32_t* count = ids + c.max_t * std::int64_t(x.topk);
    const float scale = 1.f / std::sqrt(float(IH) * float(ID));
    for (std::int64_t t0 = 0; t0 < T; t0 += model::kIndexChunk) {
        const std::int64_t n = std::min(model::kIndexChunk, T - t0);
        c.launched(kc::compressed_index_topk(iq + t0 * IH * ID, iw + t0 * IH, IH, ID, scale, 1, x.topk, 0, c.d_pos + t0,
                                             c.d_row + t0, n, c.opt.n_ctx, keys, ids + t0 * x.topk, count + t0,
                                             c.s.pick_scores.get(), c.stream),
                   "indexer top-k");
    }
}

void GpuMlaAttention::forward(GpuContext& c, std::int64_t T, bool decode) const {
    const std::int64_t H = b_.n_head, QD = b_.q_dim(), D = b_.kv_dim(), L = b_.kv_lora,
                       V = b_.v_head_dim, M = c.max_t;
    float* q = c.s.qkv.get();      // [T, H, QD]
    float* qabs = q + M * H * QD;  // [T, H, D]
    float* kva = qabs + M * H * D; // [T, D]
    float* qa = kva + M * D;       // [T, q_lora]
    float* iq = qa + M * q_lora_;  // the indexer's [T, IH·ID], [T, ID], [T, IH]
    float* ik = iq + M * b_.idx.heads * b_.idx.dim;
    float* iw = ik + M * b_.idx.dim;
    float* lat = c.s.att.get();    // [T, H, L]
    float* vout = lat + M * H * L; // [T, H·V]
    const float* xn = c.s.xn.get();
    if (q_a_.data) {
        c.matmul(q_a_, xn, T, qa);
        c.launched(kc::rms_norm_f32(qa, q_a_norm_, qa, T, q_lora_, b_.q_a_norm.eps, c.stream), "q_a norm");
        c.matmul(q_b_, qa, T, q);
    } else {
        c.matmul(q_, xn, T, q);
    }
    c.matmul(kv_a_, xn, T, kva);
    kernels::RopeParams rq = b_.rope, rk = b_.rope;
    rq.head_dim = int(QD);  // the rope part ends each head
    rk.head_dim = int(D);
    c.launched(kc::rope_f32(rq, q + b_.nope, T, int(H), H * QD, c.d_pos, c.stream), "q rope");
    c.launched(kc::rope_f32(rk, kva + L, T, 1, D, c.d_pos, c.stream), "k rope");
    const kc::DeviceMlaCache cache{c.kv->k_data(b_.kv_layer), c.d_pages, c.pages_stride,
                                   c.opt.kv_f16 ? kernels::DType::F16 : kernels::DType::F32};
    const kernels::MlaParams mp = params(c.page_size);
    c.launched(kc::mla_kv_write(mp, kva, D, kv_a_norm_, b_.kv_a_norm.eps, c.d_pos, c.d_row, T, cache, c.stream), "latent KV write");
    // The absorbed query: k_b[h] · q_nope into the latent part, the rotated q_pe after it.
    per_head(c, k_b_, L, q, H * QD, QD, T, qabs, H * D, D, vout);  // vout is free until the values
    c.launched(cudaMemcpy2DAsync(qabs + L, std::size_t(D) * 4, q + b_.nope, std::size_t(QD) * 4, std::size_t(b_.rope_dim) * 4,
                                 std::size_t(T * H), cudaMemcpyDeviceToDevice, c.stream),
               "q_pe copy");
    kc::MlaPicks picks;
    if (b_.idx.heads) {
        index(c, T, qa, iq, ik, iw);
        picks = {c.s.picks.get(), c.s.picks.get() + M * std::int64_t(b_.idx.topk), b_.idx.topk};
    }
    if (decode) c.mark(b_.idx.heads ? "q + compressed KV + rope + latent write + indexer" : "q + compressed KV + rope + latent write");
    c.launched(kc::mla_attention(mp, qabs, T, c.d_pos, c.d_row, decode ? c.opt.n_ctx : 0, cache, lat, c.s.attn_ws.get(), c.stream,
                                 picks),
               "latent attention");
    c.mark("attention");
    per_head(c, v_b_, V, lat, H * L, L, T, vout, H * V, V, qabs);  // qabs is free after the attention
    c.matmul(o_, vout, T, c.s.x.get(), true);  // + residual
    c.mark("attention output");
}

}  // namespace ft::gpu

namespace ft::gpu {

GpuGatedDeltaNet::GpuGatedDeltaNet(const model::GatedDeltaNetBlock& b, DeviceWeights& dw) : b_(b) {
    if (b.dk != 32 && b.dk != 64 && b.dk != 128 && b.dk != 256)
        throw Error(ErrorCode::unsupported, fmt::format("GPU linear attention needs a key head size of 32, 64, 128 or 256 "
                                                        "(this model: {})", b.dk), "use --device cpu");
    if (b.conv_kernel < 2 || b.conv_kernel > 8)
        throw Error(ErrorCode::unsupported, fmt::format("GPU linear attention: conv kernel {} (2 to 8)", b.conv_kernel),
                    "use --device cpu");
    qkv_ = dw.matrix(*b.qkv.w);
    z_ = dw.matrix(*b.z.w);
    if (b.ba) {
        ba_ = dw.matrix(*b.ba.w);
    } else {
        beta_ = dw.matrix(*b.beta.w);
        alpha_ = dw.matrix(*b.alpha.w);
    }
    out_ = dw.matrix(*b.out.w);
    conv_ = dw.vector(b.conv);
    dt_ = dw.vector(b.dt_bias);
    a_neg_ = dw.vector(b.a_neg);
    norm_ = dw.vector(b.norm);
}

std::uint64_t GpuGatedDeltaNet::decode_bytes() const {
    auto bytes = [](const DeviceMatrix& m) { return m.row_bytes * std::size_t(m.rows); };
    return bytes(qkv_) + bytes(z_) + bytes(ba_) + bytes(beta_) + bytes(alpha_) + bytes(out_);
}

void GpuGatedDeltaNet::forward(GpuContext& c, std::int64_t T, bool decode) const {
    const std::int64_t E = c.n_embd, C = b_.conv_dim(), KD = b_.key_dim(), VD = b_.value_dim(), M = c.max_t;
    const int NV = b_.n_v_heads, K = b_.conv_kernel;
    float* qkv = c.s.lin.get();
    float* conv = qkv + M * C;
    float* z = conv + M * C;
    float* o = z + M * VD;
    float* ba = o + M * VD;
    float* beta = ba + M * 2 * NV;
    float* g = beta + M * NV;
    c.matmul(qkv_, c.s.xn.get(), T, qkv);
    c.matmul(z_, c.s.xn.get(), T, z);
    if (ba_.data) {
        c.matmul(ba_, c.s.xn.get(), T, ba);
    } else {
        c.linear->run(beta_, c.s.xn.get(), T, E, ba, 2 * NV, false);
        c.linear->run(alpha_, c.s.xn.get(), T, E, ba + NV, 2 * NV, false);
    }
    c.launched(kc::gated_delta_gates(ba, 2 * NV, T, NV, ba_.data ? NV / b_.n_k_heads : 0, dt_, a_neg_, beta, g, c.stream),
               "linear attention gates");
    kernels::GatedDeltaParams p;
    p.n_heads = NV;
    p.n_k_heads = b_.n_k_heads;
    p.dk = b_.dk;
    p.dv = b_.dv;
    p.v_tiled = b_.v_tiled;
    p.ldq = p.ldk = p.ldv = C;
    const std::int64_t conv_floats = C * (K - 1), slots = c.kv->geometry().rs_slots;
    float* conv_pool = c.kv->state(b_.rs_layer);
    float* delta_pool = conv_pool + slots * conv_floats;
    c.launched(kc::gated_delta_reset(c.d_pos, c.d_slot, T, conv_pool, conv_floats, delta_pool, p.state_size(), c.stream),
               "linear attention state reset");
    if (decode) {
        c.launched(kc::causal_conv1d_silu_decode(qkv, C, T, int(C), K, conv_, c.d_slot, conv_pool, conv, C, c.stream),
                   "linear attention conv");
        c.launched(kc::gated_delta_decode(p, conv, conv + KD, conv + 2 * KD, g, beta, T, c.d_slot, delta_pool, o, c.stream),
                   "gated delta rule");
    } else {
        const auto& batch = c.batch;
        for (std::int64_t s0 = 0; s0 < T;) {
            std::int64_t s1 = s0 + 1;
            while (s1 < T && batch[std::size_t(s1)].seq == batch[std::size_t(s0)].seq) ++s1;
            const std::int64_t seq = batch[std::size_t(s0)].seq, n = s1 - s0;
            if (seq < 0 || seq >= slots) throw Error(ErrorCode::internal, "linear attention: a sequence without a state slot");
            c.launched(kc::causal_conv1d_silu_prefill(qkv + s0 * C, C, n, int(C), K, conv_, conv_pool + seq * conv_floats,
                                                      conv + s0 * C, C, c.stream),
                       "linear attention conv");
            c.launched(kc::gated_delta_prefill(p, conv + s0 * C, conv + s0 * C + KD, conv + s0 * C + 2 * KD, g + s0 * NV,
                                               beta + s0 * NV, n, delta_pool + seq * p.state_size(), o + s0 * VD, c.stream),
                       "gated delta rule");
            s0 = s1;
        }
    }
    // The gated norm into the (now free) projection rows, then out_proj into the residual.
    c.launched(kc::gated_rms_norm_f32(o, z, norm_, qkv, T * NV, b_.dv, b_.norm_eps, c.stream), "gated norm");
    c.mark("linear attention");
    c.matmul(out_, qkv, T, c.s.x.get(), true);
    c.mark("linear attention output");
}

}  // namespace ft::gpu

// ---- DeepSeek-V4 ----

namespace ft::gpu {

namespace {
std::uint64_t matrix_bytes(const DeviceMatrix& m) { return m.row_bytes * std::size_t(m.rows); }
}  // namespace

GpuCompressedAttention::GpuCompressedAttention(const model::CompressedAttentionBlock& b, int max_idx_dim, DeviceWeights& dw)
    : b_(b), row_(b.row_width(max_idx_dim)) {
    if (b.head_dim > 1024 || b.idx.dim > 1024 || b.n_head % b.o_groups || std::int64_t(b.idx_heads) * b.idx.dim > 12288)
        throw Error(ErrorCode::unsupported, "compressed attention on the GPU: heads over 1024 values, groups that do not "
                                            "divide the heads, or an indexer of more than 12288 query values");
    q_a_ = dw.matrix(*b.q_a.w);
    q_b_ = dw.matrix(*b.q_b.w);
    kv_ = dw.matrix(*b.kv.w);
    o_a_ = dw.matrix(*b.o_a.w);
    o_b_ = dw.matrix(*b.o_b.w);
    q_a_norm_ = dw.vector(b.q_a_norm.w);
    kv_norm_ = dw.vector(b.kv_norm.w);
    sinks_ = dw.vector(b.sinks);
    ones_ = dw.ones(b.head_dim);
    if (b.kind != model::V4LayerKind::sliding) {
        comp_kv_ = dw.matrix(*b.comp.kv.w);
        comp_gate_ = dw.matrix(*b.comp.gate.w);
        comp_bias_ = dw.vector(b.comp.bias);
        comp_norm_ = dw.vector(b.comp.norm.w);
    }
    if (b.kind == model::V4LayerKind::csa) {
        idx_kv_ = dw.matrix(*b.idx.kv.w);
        idx_gate_ = dw.matrix(*b.idx.gate.w);
        idx_bias_ = dw.vector(b.idx.bias);
        idx_norm_ = dw.vector(b.idx.norm.w);
        idx_q_b_ = dw.matrix(*b.idx_q_b.w);
        idx_w_ = dw.matrix(*b.idx_weights.w);
    }
}

std::uint64_t GpuCompressedAttention::decode_bytes() const {
    return matrix_bytes(q_a_) + matrix_bytes(q_b_) + matrix_bytes(kv_) + matrix_bytes(o_a_) + matrix_bytes(o_b_) +
           matrix_bytes(comp_kv_) + matrix_bytes(comp_gate_) + matrix_bytes(idx_kv_) + matrix_bytes(idx_gate_) +
           matrix_bytes(idx_q_b_) + matrix_bytes(idx_w_);
}

// [qr (q rank) | q (H·D) | kv (D) | ck, cg (2D each) | ik, ig (2Di each) | iq (IH·Di) | iw (IH) | att (H·D) | oa]
std::int64_t GpuCompressedAttention::scratch_width() const { return model::compressed_width(b_); }

void GpuCompressedAttention::forward(GpuContext& c, std::int64_t T, bool decode) const {
    namespace kc = kernels::cuda;
    const int H = b_.n_head, D = b_.head_dim, R = b_.rope_dim, Di = b_.idx.dim, IH = b_.idx_heads;
    const std::int64_t QL = q_a_.rows, HD = std::int64_t(H) * D, E = c.n_embd, MT = c.max_t;
    const bool csa = b_.kind == model::V4LayerKind::csa, compressed = b_.kind != model::V4LayerKind::sliding;
    float* base = c.s.compressed.get();
    auto region = [&](std::int64_t width) {
        float* p = base;
        base += MT * width;
        return p;
    };
    float* qr = region(QL);
    float* q = region(HD);
    float* kv = region(D);
    float* ck = region(2 * D);
    float* cg = region(2 * D);
    float* ik = region(2 * Di);
    float* ig = region(2 * Di);
    float* iq = region(std::int64_t(IH) * Di);
    float* iw = region(IH);
    float* att = region(HD);
    float* oa = region(std::int64_t(b_.o_groups) * b_.o_lora);
    const float* xn = c.s.xn.get();
    kc::CompressedCache cache{static_cast<float*>(c.kv->k_data(b_.kv_layer)), c.d_pages, c.pages_stride, c.page_size, row_};
    // q
    c.matmul(q_a_, xn, T, qr);
    c.launched(kc::rms_norm_f32(qr, q_a_norm_, qr, T, QL, b_.q_a_norm.eps, c.stream), "q_a norm");
    c.matmul(q_b_, qr, T, q);
    c.launched(kc::rms_norm_f32(q, ones_, q, T * H, D, b_.norm_eps, c.stream), "q head norm");
    kernels::RopeParams rq = b_.rope;
    rq.head_dim = D;
    c.launched(kc::interleaved_rope(rq, q, HD, T, H, D, D - R, c.d_pos, 1, c.stream), "q rope");
    // the shared K = V row
    c.matmul(kv_, xn, T, kv);
    c.launched(kc::rms_norm_f32(kv, kv_norm_, kv, T, D, b_.kv_norm.eps, c.stream), "kv norm");
    c.launched(kc::interleaved_rope(rq, kv, D, T, 1, D, D - R, c.d_pos, 1, c.stream), "kv rope");
    c.launched(kc::compressed_kv_write(kv, D, D, c.d_pos, c.d_row, T, cache, c.stream), "kv write");
    std::int32_t* ids = c.s.picks.get();
    std::int32_t* count = ids + MT * std::int64_t(std::max(b_.idx_topk, 1));
    if (compressed) {
        const std::int64_t cw = csa ? 2 * D : D;
        c.linear->run(comp_kv_, xn, T, E, ck, cw, false);
        c.linear->run(comp_gate_, xn, T, E, cg, cw, false);
        kc::CompressorArgs a;
        a.csa = csa;
        a.ratio = b_.ratio;
        a.dim = D;
        a.idx_dim = Di;
        a.rope_dim = R;
        a.ck = ck;
        a.cg = cg;
        a.bias = comp_bias_;
        a.norm = comp_norm_;
        a.eps = b_.comp.norm.eps;
        a.rope = b_.comp_rope;
        a.state = c.kv->state(b_.rs_layer);
        a.state_floats = c.kv->geometry().rs_floats;
        if (csa) {
            c.linear->run(idx_kv_, xn, T, E, ik, 2 * Di, false);
            c.linear->run(idx_gate_, xn, T, E, ig, 2 * Di, false);
            a.ik = ik;
            a.ig = ig;
            a.idx_bias = idx_bias_;
            a.idx_norm = idx_norm_;
        }
        if (decode) {  // one token per sequence: a block each
            c.launched(kc::compressor_update(a, c.d_pos, c.d_slot, c.d_row, 0, 1, T, cache, c.stream), "compressor");
        } else {
            const auto& batch = c.batch;
            for (std::int64_t s0 = 0; s0 < T;) {
                std::int64_t s1 = s0 + 1;
                while (s1 < T && batch[std::size_t(s1)].seq == batch[std::size_t(s0)].seq) ++s1;
                c.launched(kc::compressor_update(a, c.d_pos, c.d_slot, c.d_row, s0, s1 - s0, 1, cache, c.stream), "compressor");
                s0 = s1;
            }
        }
        if (csa) {
            c.matmul(idx_q_b_, qr, T, iq);
            kernels::RopeParams ri = b_.comp_rope;
            ri.head_dim = Di;
            c.launched(kc::interleaved_rope(ri, iq, std::int64_t(IH) * Di, T, IH, Di, Di - R, c.d_pos, 1, c.stream), "indexer q rope");
            c.matmul(idx_w_, xn, T, iw);
            // The reference scales the head weights by 1/sqrt(heads) and the scores by 1/sqrt(dim): one factor.
            const float scale = 1.f / (std::sqrt(float(Di)) * std::sqrt(float(IH)));
            const std::int64_t max_entries = std::max<std::int64_t>(1, c.opt.n_ctx / b_.ratio);
            for (std::int64_t t0 = 0; t0 < T; t0 += kIndexChunk) {
                const std::int64_t n = std::min(kIndexChunk, T - t0);
                c.launched(kc::compressed_index_topk(iq + t0 * IH * Di, iw + t0 * IH, IH, Di, scale, b_.ratio, b_.idx_topk, 2 * D,
                                             c.d_pos + t0, c.d_row + t0, n, max_entries, cache, ids + t0 * b_.idx_topk,
                                             count + t0, c.s.pick_scores.get(), c.stream),
                           "indexer top-k");
            }
        }
    }
    c.mark("compressed attention q/kv + compressor + indexer");
    kc::CompressedAttentionArgs aa;
    aa.n_head = H;
    aa.dim = D;
    aa.window = b_.window;
    aa.ratio = b_.ratio;
    aa.topk = b_.idx_topk;
    aa.csa = csa;
    aa.hca = b_.kind == model::V4LayerKind::hca;
    aa.scale = b_.scale;
    aa.sinks = sinks_;
    aa.ids = csa ? ids : nullptr;
    aa.count = csa ? count : nullptr;
    c.launched(kc::compressed_attention(aa, q, c.d_pos, c.d_row, T, cache, att, c.stream), "compressed attention");
    c.launched(kc::interleaved_rope(rq, att, HD, T, H, D, D - R, c.d_pos, -1, c.stream), "output rope");
    c.mark("attention");
    // The grouped output: group g's heads through rows [g·o_lora, (g+1)·o_lora) of o_a, then o_b into x.
    const int G = b_.o_groups, OL = b_.o_lora;
    const std::int64_t gin = HD / G;
    for (int g = 0; g < G; ++g) {
        DeviceMatrix wg = o_a_;
        wg.rows = OL;
        wg.data = static_cast<const std::uint8_t*>(o_a_.data) + std::size_t(g) * std::size_t(OL) * o_a_.row_bytes;
        c.linear->run(wg, att + g * gin, T, HD, oa + std::int64_t(g) * OL, std::int64_t(G) * OL, false);
    }
    c.matmul(o_b_, oa, T, c.s.x.get(), true);
    c.mark("attention output");
}

}  // namespace ft::gpu
