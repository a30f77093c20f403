#include "cuda/gpu_moe.h"

#include <functional>
#include <vector>

#include <spdlog/fmt/fmt.h>

#include "cuda/dequant.cuh"
#include "cuda/moe_gemm.cuh"
#include "cuda/ops.cuh"
#include "cuda/rms_norm.cuh"
#include "ft/error.h"

namespace ft::gpu {

namespace kc = kernels::cuda;

namespace {
std::uint64_t bytes_of(const DeviceMatrix& m) { return m.row_bytes * std::size_t(m.rows); }
float limit_of(model::Activation a, float limit) { return model::swiglu_limit_arg(a, limit); }
}  // namespace

// ---- dense FFN ----

GpuFfn::GpuFfn(const model::FfnBlock& b, DeviceWeights& dw)
    : gate_(dw.matrix(*b.gate.w)), up_(dw.matrix(*b.up.w)), down_(dw.matrix(*b.down.w)), gate_bias_(dw.vector(b.gate.b)),
      up_bias_(dw.vector(b.up.b)), down_bias_(dw.vector(b.down.b)), limit_(limit_of(b.act, b.limit)) {}

std::uint64_t GpuFfn::decode_bytes() const { return bytes_of(gate_) + bytes_of(up_) + bytes_of(down_); }

void GpuFfn::forward(GpuContext& c, std::int64_t T, const float* gate_logits) const {
    const std::int64_t F = gate_.rows, E = c.n_embd;
    float* g = c.s.g.get();
    float* u = c.s.u.get();
    c.matmul(gate_, c.s.xn.get(), T, g);
    c.matmul(up_, c.s.xn.get(), T, u);
    if (gate_bias_) c.launched(kc::add_bias_f32(g, F, gate_bias_, T, F, c.stream), "ffn gate bias");
    if (up_bias_) c.launched(kc::add_bias_f32(u, F, up_bias_, T, F, c.stream), "ffn up bias");
    c.launched(kc::swiglu_f32(g, u, g, T * F, limit_, c.stream), "swiglu");
    // down is linear: scaling its input row scales the token's output.
    if (gate_logits) c.launched(kc::scale_rows_sigmoid_f32(g, F, F, gate_logits, T, c.stream), "shared expert gate");
    c.matmul(down_, g, T, c.s.x.get(), true);
    if (down_bias_) c.launched(kc::add_bias_f32(c.s.x.get(), E, down_bias_, T, E, c.stream), "ffn down bias");
}

// ---- MoE ----

GpuMoe::GpuMoe(const model::MoeBlock& b, DeviceWeights& dw, bool resident) : b_(b) {
    if (!(b.route.k > 0 && b.route.k <= 32 && b.route.n_expert <= 1024))
        throw Error(ErrorCode::unsupported, "GPU router: at most 1024 experts and top-32");
    router_ = dw.matrix(*b.router.w);
    router_bias_ = dw.vector(b.router.b);
    route_ = b.route;
    route_.bias = dw.vector(b.selection_bias);
    hash_ = dw.table(b.hash);
    if (resident) experts_ = dw.experts(b.layer);
    if (b.expert_biases) biases_ = dw.expert_biases(b.layer);
    if (b.shared.gate) shared_ = GpuFfn(b.shared, dw);
    if (b.shared_gate) shared_gate_ = dw.matrix(*b.shared_gate);
}

std::uint64_t GpuMoe::decode_bytes() const {
    const std::uint64_t experts = experts_.gate.base ? std::uint64_t(route_.k) * (experts_.gate.slot_stride +
                                                                                   experts_.up.slot_stride +
                                                                                   experts_.down.slot_stride)
                                                     : 0;
    return bytes_of(router_) + experts + (shared_ ? shared_.decode_bytes() : 0);
}

bool GpuMoe::fuses_input_norm(const GpuContext& c, std::int64_t T, const float* norm) const {
    return T <= kFusedNormMaxTokens && !shared_ && router_.type == kernels::DType::F32 && router_.row_bytes % 4 == 0 && norm &&
           kc::rms_norm_router_supported(c.s.x.get(), norm, static_cast<const float*>(router_.data),
                                         std::int64_t(router_.row_bytes / 4), c.n_embd, c.s.xn.get());
}

void GpuMoe::forward(GpuContext& c, std::int64_t T, bool decode, ExpertOffload* offload) const {
    const std::int64_t E = c.n_embd, K = route_.k;
    StepScratch& s = c.s;
    // The shared experts first (they read xn, which the routed paths leave unchanged).
    if (shared_ && shared_gate_.data) {
        // The gate's logit per token into the router's scratch (the router writes it afterwards).
        c.matmul(shared_gate_, s.xn.get(), T, s.router_logits.get());
        shared_.forward(c, T, s.router_logits.get());
    } else if (shared_) {
        shared_.forward(c, T);
    }
    if (c.own_norm)
        c.launched(kc::rms_norm_router_f32(s.x.get(), c.own_norm, c.own_norm_eps, T, E, static_cast<const float*>(router_.data),
                                           std::int64_t(router_.row_bytes / 4), int(router_.rows), s.router_logits.get(),
                                           s.xn.get(), c.stream),
                   "ffn norm + router");
    else
        c.matmul(router_, s.xn.get(), T, s.router_logits.get());
    if (router_bias_)
        c.launched(kc::add_bias_f32(s.router_logits.get(), route_.n_expert, router_bias_, T, route_.n_expert, c.stream),
                   "router bias");
    if (hash_)
        c.launched(kc::moe_route_fixed(route_, s.router_logits.get(), c.d_tok, hash_, T, s.route_ids.get(), s.route_w.get(),
                                       c.stream),
                   "hash router");
    else
        c.launched(kc::moe_route(route_, s.router_logits.get(), T, s.route_ids.get(), s.route_w.get(), c.stream), "router");
    if (decode && (c.opt.routing || c.opt.record_routing)) {
        // Replace the router's choice by the routing source's (its weights stay), and/or keep it for the trace.
        const std::size_t n = std::size_t(T * K), at = std::size_t(b_.layer) * n;
        const std::size_t half = std::size_t(c.n_layer) * std::size_t(c.opt.max_sequences) * std::size_t(K);
        if (c.opt.routing)
            check(cudaMemcpyAsync(s.route_ids.get(), s.routing.get() + at, n * 4, cudaMemcpyDeviceToDevice, c.stream),
                  "routing");
        if (c.opt.record_routing)
            check(cudaMemcpyAsync(s.routing.get() + half + at, s.route_ids.get(), n * 4, cudaMemcpyDeviceToDevice, c.stream),
                  "record routing");
    }
    c.mark("ffn norm + router");
    const float limit = limit_of(b_.act, b_.limit);
    if (offload && (decode || T <= kGroupedMaxTokens)) {
        offload->decode(b_.layer, int(T), s.xn.get(), s.route_ids.get(), s.route_w.get(), s.x.get(), s.g.get(), s.ys.get(),
                        biases_,
                        c.on_mark ? std::function<void(const char*)>([&c](const char* p) { c.mark(p); })
                                  : std::function<void(const char*)>());
        c.mark("experts: add CPU result");
        return;
    }
    if (decode || T <= kGroupedMaxTokens) {
        // Every (token, choice) pair through the grouped expert kernels.
        kc::ExpertGemvParams p;
        p.w = experts_.gate;
        p.ids = s.route_ids.get();
        p.n_pairs = int(T * K);
        p.x = s.xn.get();
        p.ldx = E;
        p.x_div = int(K);
        p.y = s.g.get();
        p.ldy = experts_.gate.rows;
        p.bias = biases_.gate;
        p.up_bias = biases_.up;
        c.launched(kc::expert_gate_up(p, experts_.up, limit, c.stream), "expert gate/up");
        c.mark("experts gate/up");
        kc::ExpertGemvParams dp;
        dp.w = experts_.down;
        dp.ids = s.route_ids.get();
        dp.n_pairs = int(T * K);
        dp.x = s.g.get();
        dp.ldx = experts_.gate.rows;
        dp.x_div = 1;
        dp.y = s.ys.get();
        dp.ldy = E;
        dp.bias = biases_.down;
        c.launched(kc::expert_gemv(dp, c.stream), "expert down");
        c.mark("experts down");
        combine(c, nullptr, T);
        c.mark("moe combine");
        return;
    }
    // Prefill: group pairs by expert, one matrix product per expert over its rows.
    ExpertSet ex = experts_;
    if (offload && !offload->prefill_layer(b_.layer, ex.gate, ex.up, ex.down)) {
        std::vector<std::int32_t> tokens;
        if (b_.hash)
            for (const auto& bt : c.batch) tokens.push_back(bt.token);
        offload->prefill_on_cpu(b_, T, s.xn.get(), s.x.get(), tokens.empty() ? nullptr : tokens.data());  // a static backend's CPU layer
        return;
    }
    const std::int64_t P = T * K;
    const int NE = route_.n_expert;
    c.launched(kc::moe_group(s.route_ids.get(), P, NE, s.offsets.get(), s.order.get(), s.where.get(), c.stream), "moe group");
    if (grouped_gemm_ok(c, ex)) prefill_grouped(c, ex, T, P);
    else prefill_per_expert(c, ex, T, P);
    if (offload) offload->done_with(b_.layer);
}

bool GpuMoe::grouped_gemm_ok(const GpuContext& c, const ExpertSet& ex) const {
    return c.linear->dense_type() == kernels::DType::BF16 && c.n_embd % 8 == 0 && kc::moe_gemm_supported(ex.gate.type, ex.gate.k) &&
           kc::moe_gemm_supported(ex.down.type, ex.down.k) && ex.up.type == ex.gate.type;
}

// Prefill MoE on tensor cores (cuda/moe_gemm.cuh): the rows in expert order converted to BF16, gate and up of every
// expert with SwiGLU in one launch (h in BF16, in the g scratch), down in another, then the weighted sum. The
// experts' row ranges stay on the device: no host sync, the weights are read in their own format.
void GpuMoe::prefill_grouped(GpuContext& c, const ExpertSet& ex, std::int64_t T, std::int64_t P) const {
    const std::int64_t E = c.n_embd, K = route_.k;
    StepScratch& s = c.s;
    c.launched(kc::moe_gather_bf16(s.xn.get(), E, s.order.get(), int(K), P, s.dense_rows.get(), c.stream), "gather rows");
    kc::MoeGemmParams gu;
    gu.w = ex.gate;
    gu.up = ex.up;
    gu.offsets = s.offsets.get();
    gu.n_expert = route_.n_expert;
    gu.n_rows = P;
    gu.x = s.dense_rows.get();
    gu.y = s.g.get();  // BF16 [P, n_ff]
    gu.bias = biases_.gate;
    gu.up_bias = biases_.up;
    gu.swiglu_limit = limit_of(b_.act, b_.limit);
    c.launched(kc::moe_gemm_gate_up(gu, c.stream), "expert gate/up (grouped)");
    kc::MoeGemmParams dn;
    dn.w = ex.down;
    dn.offsets = s.offsets.get();
    dn.n_expert = route_.n_expert;
    dn.n_rows = P;
    dn.x = s.g.get();
    dn.y = s.ys.get();
    dn.bias = biases_.down;
    c.launched(kc::moe_gemm_down(dn, c.stream), "expert down (grouped)");
    combine(c, s.where.get(), T);
}

// Prefill MoE the exact way (f32 GEMMs, or shapes the grouped kernels do not take): the experts' row ranges read
// back to the host, then each active expert dequantized into the GEMM scratch and one cuBLAS call per matrix.
void GpuMoe::prefill_per_expert(GpuContext& c, const ExpertSet& ex, std::int64_t T, std::int64_t P) const {
    const std::int64_t E = c.n_embd, K = route_.k, F = ex.gate.rows;
    const int NE = route_.n_expert;
    StepScratch& s = c.s;
    Linear& lin = *c.linear;
    host_offsets_.resize(std::size_t(NE + 1));
    check(cudaMemcpyAsync(host_offsets_.data(), s.offsets.get(), std::size_t(NE + 1) * sizeof(std::int32_t),
                          cudaMemcpyDeviceToHost, c.stream),
          "read expert offsets");
    c.launched(kc::gather_rows(s.xn.get(), E, s.order.get(), int(K), P, s.xs.get(), c.stream), "gather rows");
    c.sync("moe group");
    if (host_offsets_[std::size_t(NE)] != P)
        throw Error(ErrorCode::internal, fmt::format("MoE grouping counted {} of {} pairs", host_offsets_[std::size_t(NE)], P));
    const kernels::DType dt = lin.dense_type();
    const std::size_t el = dt == kernels::DType::BF16 ? 2 : 4;
    auto expert = [](const kc::ExpertMatrix& m, int e) {
        return DeviceMatrix{m.type, static_cast<const std::uint8_t*>(m.base) + std::size_t(e) * m.slot_stride, m.row_bytes,
                            m.rows, m.k};
    };
    const void* xb = s.xs.get();
    if (dt == kernels::DType::BF16) {
        c.launched(kc::convert_f32(s.xs.get(), P * E, dt, s.dense_rows.get(), c.stream), "convert rows");
        xb = s.dense_rows.get();
    }
    float* g = s.g.get();
    float* u = s.u.get();
    for (int e = 0; e < NE; ++e) {
        const std::int64_t r0 = host_offsets_[std::size_t(e)], n = host_offsets_[std::size_t(e) + 1] - r0;
        if (n == 0) continue;
        const auto* x0 = static_cast<const std::uint8_t*>(xb) + std::size_t(r0 * E) * el;
        lin.gemm_dense(dt, lin.dense_weights(expert(ex.gate, e)), F, E, x0, E, n, g + r0 * F, F, false);
        lin.gemm_dense(dt, lin.dense_weights(expert(ex.up, e)), F, E, x0, E, n, u + r0 * F, F, false);
        if (biases_) {
            c.launched(kc::add_bias_f32(g + r0 * F, F, biases_.gate + std::size_t(e) * std::size_t(F), n, F, c.stream),
                       "expert gate bias");
            c.launched(kc::add_bias_f32(u + r0 * F, F, biases_.up + std::size_t(e) * std::size_t(F), n, F, c.stream),
                       "expert up bias");
        }
    }
    c.launched(kc::swiglu_f32(g, u, g, P * F, limit_of(b_.act, b_.limit), c.stream), "swiglu");
    const void* hb = g;
    if (dt == kernels::DType::BF16) {
        c.launched(kc::convert_f32(g, P * F, dt, s.dense_rows.get(), c.stream), "convert rows");
        hb = s.dense_rows.get();
    }
    for (int e = 0; e < NE; ++e) {
        const std::int64_t r0 = host_offsets_[std::size_t(e)], n = host_offsets_[std::size_t(e) + 1] - r0;
        if (n == 0) continue;
        const auto* h0 = static_cast<const std::uint8_t*>(hb) + std::size_t(r0 * F) * el;
        lin.gemm_dense(dt, lin.dense_weights(expert(ex.down, e)), E, F, h0, F, n, s.ys.get() + r0 * E, E, false);
        if (biases_)
            c.launched(kc::add_bias_f32(s.ys.get() + r0 * E, E, biases_.down + std::size_t(e) * std::size_t(E), n, E, c.stream),
                       "expert down bias");
    }
    combine(c, s.where.get(), T);
}

// The weighted sum of the routed experts' rows into the residual x, with the next block's input norm when the runner
// asks for it (then xn holds that block's input).
void GpuMoe::combine(GpuContext& c, const std::int32_t* where, std::int64_t T) const {
    StepScratch& s = c.s;
    const std::int64_t E = c.n_embd;
    const int K = route_.k;
    if (c.next_norm) {
        c.launched(kc::moe_combine_rms_norm(s.ys.get(), where, s.route_w.get(), T, K, E, s.x.get(), c.next_norm,
                                            c.next_norm_eps, s.xn.get(), c.stream),
                   "moe combine + next norm");
        c.xn_ready = true;
    } else {
        c.launched(kc::moe_combine(s.ys.get(), where, s.route_w.get(), T, K, E, s.x.get(), true, c.stream), "moe combine");
    }
}

}  // namespace ft::gpu
