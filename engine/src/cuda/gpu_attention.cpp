#include "cuda/gpu_attention.h"

#include <spdlog/fmt/fmt.h>

#include "cuda/attention.cuh"
#include "cuda/ops.cuh"
#include "ft/error.h"

namespace ft::gpu {

namespace kc = kernels::cuda;

GpuAttention::GpuAttention(const model::AttentionBlock& b, DeviceWeights& dw) : b_(b) {
    if (b.head_dim % 16 || b.v_head_dim % 16 || b.head_dim > 256 || b.v_head_dim > 256)
        throw Error(ErrorCode::unsupported,
                    fmt::format("GPU attention needs head sizes that are multiples of 16 up to 256 (this model: {} / {})",
                                b.head_dim, b.v_head_dim),
                    "use --device cpu");
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
    float* k = q + qd_;
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
    c.launched(kc::qk_norm_rope(b_.rope, q, ld, b_.n_head, k, ld, b_.n_head_kv, q_norm_, k_norm_, b_.norm_eps, T, c.d_pos,
                                c.stream),
               "q/k norm + rope");
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
    c.launched(kc::kv_write(kw, k, ld, v, ld, c.d_pos, c.d_row, T, kc_, vc_, c.stream), "kv write");
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
    c.mark("attention");
    c.matmul(o_, att, T, c.s.x.get(), true);  // + residual
    if (o_bias_) c.launched(kc::add_bias_f32(c.s.x.get(), E, o_bias_, T, E, c.stream), "output bias");
    c.mark("attention output");
}

}  // namespace ft::gpu
