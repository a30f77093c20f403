#include "model/cpu_attention.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "cpu/attention.h"
#include "cpu/rms_norm.h"
#include "cpu/rope.h"
#include "ft/error.h"
#include "model/cpu_ops.h"
#include "model/layer_params.h"

namespace ft::model {

CpuAttention::CpuAttention(const Weights& w, cpu::WorkerPool& pool) : w_(w), pool_(pool) {
    const ModelDesc& d = w.desc();
    n_head_ = int(d.attn.n_head);
    n_head_kv_ = int(d.attn.n_head_kv);
    head_dim_ = int(d.attn.head_dim);
    v_head_dim_ = int(d.attn.v_head_dim ? d.attn.v_head_dim : d.attn.head_dim);
    eps_ = float(d.norm_eps);
    rope_ = rope_params(d);
    if (head_dim_ > 512 || v_head_dim_ > 512)
        throw Error(ErrorCode::unsupported, "attention head size " + std::to_string(head_dim_) + " is over 512");
    q_norm_.resize(d.n_layer);
    k_norm_.resize(d.n_layer);
    for (std::uint32_t il = 0; il < d.n_layer; ++il) {
        if (const TensorView* t = w.find_layer(int(il), "attn_q_norm.weight")) q_norm_[il] = vector_f32(*t);
        if (const TensorView* t = w.find_layer(int(il), "attn_k_norm.weight")) k_norm_[il] = vector_f32(*t);
    }
}

kv::KvGeometry CpuAttention::kv_geometry(int page_size, std::int64_t n_pages) const {
    kv::KvGeometry g;
    g.n_layer = int(w_.desc().n_layer);
    g.n_head_kv = n_head_kv_;
    g.head_dim = head_dim_;
    g.v_head_dim = v_head_dim_;
    g.page_size = page_size;
    g.n_pages = n_pages;
    return g;
}

void CpuAttention::forward(int il, std::span<const BatchToken> batch, const float* x, kv::KvCache& kv, float* out) {
    const std::int64_t T = std::int64_t(batch.size());
    const std::int64_t qd = std::int64_t(n_head_) * head_dim_, kd = std::int64_t(n_head_kv_) * head_dim_,
                       vd = std::int64_t(n_head_kv_) * v_head_dim_;
    q_.resize(std::size_t(T * qd));
    k_.resize(std::size_t(T * kd));
    v_.resize(std::size_t(T * vd));
    att_.resize(std::size_t(T * n_head_ * v_head_dim_));
    linear(pool_, w_.layer(il, "attn_q.weight"), x, T, q_.data());
    linear(pool_, w_.layer(il, "attn_k.weight"), x, T, k_.data());
    linear(pool_, w_.layer(il, "attn_v.weight"), x, T, v_.data());
    if (!q_norm_[std::size_t(il)].empty())
        kernels::cpu::rms_norm_f32(q_.data(), q_norm_[std::size_t(il)].data(), q_.data(), T * n_head_, head_dim_, eps_);
    if (!k_norm_[std::size_t(il)].empty())
        kernels::cpu::rms_norm_f32(k_.data(), k_norm_[std::size_t(il)].data(), k_.data(), T * n_head_kv_, head_dim_, eps_);
    pos_.resize(std::size_t(T));
    for (std::int64_t t = 0; t < T; ++t) pos_[std::size_t(t)] = batch[std::size_t(t)].pos;
    kernels::cpu::rope_f32(rope_, q_.data(), T, n_head_, pos_.data());
    kernels::cpu::rope_f32(rope_, k_.data(), T, n_head_kv_, pos_.data());
    for (std::int64_t t = 0; t < T; ++t) {
        const BatchToken& b = batch[std::size_t(t)];
        std::memcpy(kv.k_at(il, b.seq, b.pos), k_.data() + t * kd, std::size_t(kd) * sizeof(float));
        std::memcpy(kv.v_at(il, b.seq, b.pos), v_.data() + t * vd, std::size_t(vd) * sizeof(float));
    }
    kernels::AttentionParams ap;
    ap.n_head = n_head_;
    ap.n_head_kv = n_head_kv_;
    ap.head_dim = head_dim_;
    ap.v_head_dim = v_head_dim_;
    ap.page_size = kv.geometry().page_size;
    ap.scale = 1.f / std::sqrt(float(head_dim_));
    // One sequence segment at a time (tokens of a sequence are contiguous in the batch).
    for (std::int64_t s0 = 0; s0 < T;) {
        std::int64_t s1 = s0 + 1;
        while (s1 < T && batch[std::size_t(s1)].seq == batch[std::size_t(s0)].seq) ++s1;
        const kernels::PagedKvView view{kv.k(il), kv.v(il), kv.page_table(batch[std::size_t(s0)].seq).data()};
        const std::int64_t tasks = (s1 - s0) * n_head_;
        const std::int64_t per = std::max<std::int64_t>(1, tasks / (std::int64_t(pool_.size()) * 4));
        pool_.parallel_for((tasks + per - 1) / per, [&](std::int64_t c, int) {
            kernels::cpu::attention_f32(ap, q_.data() + s0 * qd, pos_.data() + s0, view, att_.data() + s0 * n_head_ * v_head_dim_,
                                        c * per, std::min(tasks, (c + 1) * per));
        });
        s0 = s1;
    }
    linear(pool_, w_.layer(il, "attn_output.weight"), att_.data(), T, out);
}

}  // namespace ft::model
