#include "moe/moe_layer.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "ft/error.h"
#include "cpu/cpu_ops.h"

namespace ft::moe {

MoeLayer::MoeLayer(cpu::WorkerPool& pool, const model::Weights& weights)
    : pool_(pool), w_(weights), vectors_(weights.desc().n_layer), executor_(pool) {}

namespace {
using Clock = std::chrono::steady_clock;
std::uint64_t ns_between(Clock::time_point a, Clock::time_point b) {
    return std::uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count());
}
}  // namespace

void MoeLayer::forward(const model::MoeBlock& b, const float* x, std::int64_t n_tokens, float* out,
                       const std::int32_t* tokens) {
    const auto t0 = Clock::now();
    const int layer = b.layer;
    const std::int64_t n_embd = w_.desc().n_embd;
    const int n_exp = b.route.n_expert, k = b.route.k;
    LayerVectors& lv = vectors_.at(std::size_t(layer));
    if (!lv.ready) {
        lv.router_bias = cpu::f32_or_empty(b.router.b);
        lv.selection_bias = cpu::f32_or_empty(b.selection_bias);
        lv.ready = true;
    }
    // Router logits [T, n_expert] and the top-k of every token.
    logits_.resize(std::size_t(n_tokens * n_exp));
    cpu::linear(pool_, *b.router.w, x, n_tokens, logits_.data());
    cpu::add_rows(lv.router_bias, logits_.data(), n_tokens);
    ids_.resize(std::size_t(n_tokens * k));
    weights_.resize(std::size_t(n_tokens * k));
    kernels::RouterParams p = b.route;
    p.bias = lv.selection_bias.empty() ? nullptr : lv.selection_bias.data();
    if (b.hash) {  // the experts come from the token id; the router still weighs them
        if (!tokens) throw Error(ErrorCode::internal, "hash-routed MoE layer without token ids");
        for (std::int64_t t = 0; t < n_tokens; ++t) {
            const std::int32_t tok = tokens[t];
            if (tok < 0 || tok >= b.hash->rows) throw Error(ErrorCode::invalid_argument, "token id " + std::to_string(tok) + " past the routing table");
            std::memcpy(ids_.data() + t * k, b.hash->row(tok), std::size_t(k) * sizeof(std::int32_t));
            kernels::ref::moe_route_fixed(p, logits_.data() + t * n_exp, ids_.data() + t * k, weights_.data() + t * k);
        }
    } else {
        for (std::int64_t t = 0; t < n_tokens; ++t)
            kernels::ref::moe_route(p, logits_.data() + t * n_exp, ids_.data() + t * k, weights_.data() + t * k);
    }

    const auto t1 = Clock::now();
    // Group token rows by expert: a job per distinct expert, its rows gathered contiguously.
    auto& rows_of = rows_of_;
    rows_of.resize(std::size_t(n_exp));
    for (auto& r : rows_of) r.clear();
    for (std::int64_t i = 0; i < n_tokens * k; ++i) {
        const std::int32_t e = ids_[std::size_t(i)];
        if (e < 0 || e >= n_exp) throw Error(ErrorCode::internal, "router chose expert " + std::to_string(e));
        rows_of[std::size_t(e)].push_back(i);
    }
    xs_.resize(std::size_t(n_tokens * k * n_embd));
    ys_.resize(std::size_t(n_tokens * k * n_embd));
    auto& jobs = jobs_;
    jobs.clear();
    std::int64_t row = 0;
    for (int e = 0; e < n_exp; ++e) {
        const auto& r = rows_of[std::size_t(e)];
        if (r.empty()) continue;
        ExpertJob job;
        job.expert = &w_.expert(layer, e);
        job.x = xs_.data() + row * n_embd;
        job.out = ys_.data() + row * n_embd;
        job.m = std::int64_t(r.size());
        for (std::size_t i = 0; i < r.size(); ++i)
            std::copy_n(x + (r[i] / k) * n_embd, n_embd, xs_.data() + (row + std::int64_t(i)) * n_embd);
        row += job.m;
        jobs.push_back(job);
    }
    const auto t2 = Clock::now();
    executor_.run(jobs, model::swiglu_limit_arg(b.act, b.limit));
    const auto t3 = Clock::now();

    // Weighted sum back into token order (fixed order: experts ascending, as gathered).
    std::fill(out, out + n_tokens * n_embd, 0.f);
    row = 0;
    for (int e = 0; e < n_exp; ++e) {
        for (std::int64_t i : rows_of[std::size_t(e)]) {
            const float wgt = weights_[std::size_t(i)];
            float* o = out + (i / k) * n_embd;
            const float* y = ys_.data() + row * n_embd;
            for (std::int64_t c = 0; c < n_embd; ++c) o[c] += wgt * y[c];
            ++row;
        }
    }
    const auto t4 = Clock::now();
    stats_.calls += 1;
    stats_.ns_router += ns_between(t0, t1);
    stats_.ns_gather += ns_between(t1, t2);
    stats_.ns_experts += ns_between(t2, t3);
    stats_.ns_combine += ns_between(t3, t4);
    stats_.tokens += std::uint64_t(n_tokens);
    stats_.expert_calls += std::uint64_t(n_tokens * k);
    stats_.unique_experts += jobs.size();
}

}  // namespace ft::moe
