#include "cpu/cpu_attention.h"

#include <algorithm>
#include <cstring>

#include "cpu/attention.h"
#include "cpu/cpu_ops.h"
#include "cpu/rms_norm.h"
#include "cpu/rope.h"
#include "ft/error.h"

namespace ft::cpu {

CpuAttention::CpuAttention(const model::AttentionBlock& b, WorkerPool& pool) : b_(b), pool_(pool) {
    if (b.head_dim > 512 || b.v_head_dim > 512)
        throw Error(ErrorCode::unsupported, "attention head size " + std::to_string(b.head_dim) + " is over 512");
    q_norm_ = f32_or_empty(b.q_norm);
    k_norm_ = f32_or_empty(b.k_norm);
    q_bias_ = f32_or_empty(b.q.b);
    k_bias_ = f32_or_empty(b.k.b);
    v_bias_ = f32_or_empty(b.v.b);
    o_bias_ = f32_or_empty(b.o.b);
    sinks_ = f32_or_empty(b.sinks);
}

void CpuAttention::forward(std::span<const exec::BatchToken> batch, const float* x, kv::KvCache& kv, AttentionScratch& s,
                           float* out) {
    const std::int64_t T = std::int64_t(batch.size());
    const int H = b_.n_head, HKV = b_.n_head_kv, D = b_.head_dim, DV = b_.v_head_dim, il = b_.kv_layer;
    const std::int64_t qd = std::int64_t(H) * D, kd = std::int64_t(HKV) * D, vd = std::int64_t(HKV) * DV;
    s.q.resize(std::size_t(T * qd));
    s.k.resize(std::size_t(T * kd));
    s.v.resize(std::size_t(T * vd));
    s.att.resize(std::size_t(T * H * DV));
    linear(pool_, *b_.q.w, x, T, s.q.data());
    linear(pool_, *b_.k.w, x, T, s.k.data());
    linear(pool_, *b_.v.w, x, T, s.v.data());
    add_rows(q_bias_, s.q.data(), T);
    add_rows(k_bias_, s.k.data(), T);
    add_rows(v_bias_, s.v.data(), T);
    if (!q_norm_.empty()) kernels::cpu::rms_norm_f32(s.q.data(), q_norm_.data(), s.q.data(), T * H, D, b_.norm_eps);
    if (!k_norm_.empty()) kernels::cpu::rms_norm_f32(s.k.data(), k_norm_.data(), s.k.data(), T * HKV, D, b_.norm_eps);
    s.pos.resize(std::size_t(T));
    for (std::int64_t t = 0; t < T; ++t) s.pos[std::size_t(t)] = batch[std::size_t(t)].pos;
    kernels::cpu::rope_f32(b_.rope, s.q.data(), T, H, s.pos.data());
    kernels::cpu::rope_f32(b_.rope, s.k.data(), T, HKV, s.pos.data());
    for (std::int64_t t = 0; t < T; ++t) {
        const exec::BatchToken& bt = batch[std::size_t(t)];
        std::memcpy(kv.k_at(il, bt.seq, bt.pos), s.k.data() + t * kd, std::size_t(kd) * sizeof(float));
        std::memcpy(kv.v_at(il, bt.seq, bt.pos), s.v.data() + t * vd, std::size_t(vd) * sizeof(float));
    }
    kernels::AttentionParams ap;
    ap.n_head = H;
    ap.n_head_kv = HKV;
    ap.head_dim = D;
    ap.v_head_dim = DV;
    ap.page_size = kv.geometry().page_size;
    ap.scale = b_.scale;
    ap.window = b_.window;
    ap.sinks = sinks_.empty() ? nullptr : sinks_.data();
    // One sequence segment at a time (tokens of a sequence are contiguous in the batch).
    for (std::int64_t s0 = 0; s0 < T;) {
        std::int64_t s1 = s0 + 1;
        while (s1 < T && batch[std::size_t(s1)].seq == batch[std::size_t(s0)].seq) ++s1;
        const kernels::PagedKvView view{kv.k(il), kv.v(il), kv.page_table(batch[std::size_t(s0)].seq).data()};
        const std::int64_t tasks = (s1 - s0) * H;
        const std::int64_t per = std::max<std::int64_t>(1, tasks / (std::int64_t(pool_.size()) * 4));
        pool_.parallel_for((tasks + per - 1) / per, [&](std::int64_t c, int) {
            kernels::cpu::attention_f32(ap, s.q.data() + s0 * qd, s.pos.data() + s0, view, s.att.data() + s0 * H * DV, c * per,
                                        std::min(tasks, (c + 1) * per));
        });
        s0 = s1;
    }
    linear(pool_, *b_.o.w, s.att.data(), T, out);
    add_rows(o_bias_, out, T);
}

}  // namespace ft::cpu
