#include "cpu/cpu_attention.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "cpu/attention.h"
#include "cpu/cpu_ops.h"
#include "cpu/gated_delta.h"
#include "cpu/mla_attention.h"
#include "cpu/rms_norm.h"
#include "cpu/rope.h"
#include "ft/error.h"
#include "ref/mla_attention.h"

namespace ft::cpu {

CpuAttention::CpuAttention(const model::AttentionBlock& b, WorkerPool& pool) : b_(b), pool_(pool) {
    if (b.head_dim > 512 || b.v_head_dim > 512)
        throw Error(ErrorCode::unsupported, "attention head size " + std::to_string(b.head_dim) + " is over 512");
    if (b.output_gate && b.v_head_dim != b.head_dim)
        throw Error(ErrorCode::unsupported, "gated attention with values of another width than the keys");
    q_norm_ = f32_or_empty(b.q_norm);
    k_norm_ = f32_or_empty(b.k_norm);
    const std::size_t qn = b.qk_norm_whole ? std::size_t(b.n_head) * b.head_dim : std::size_t(b.head_dim);
    const std::size_t kn = b.qk_norm_whole ? std::size_t(b.n_head_kv) * b.head_dim : std::size_t(b.head_dim);
    if ((!q_norm_.empty() && q_norm_.size() != qn) || (!k_norm_.empty() && k_norm_.size() != kn))
        throw Error(ErrorCode::invalid_file, "attention q/k norm of " + std::to_string(q_norm_.size()) + " / " +
                                                 std::to_string(k_norm_.size()) + " values where the heads need " +
                                                 std::to_string(qn) + " / " + std::to_string(kn));
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
    if (b_.output_gate) {
        // q's rows are [query | gate] per head: split them.
        s.head_in.resize(std::size_t(T * 2 * qd));
        s.gate.resize(std::size_t(T * qd));
        linear(pool_, *b_.q.w, x, T, s.head_in.data());
        for (std::int64_t t = 0; t < T; ++t)
            for (int h = 0; h < H; ++h) {
                const float* src = s.head_in.data() + (t * H + h) * 2 * D;
                std::copy_n(src, D, s.q.data() + (t * H + h) * D);
                std::copy_n(src + D, D, s.gate.data() + (t * H + h) * D);
            }
    } else {
        linear(pool_, *b_.q.w, x, T, s.q.data());
    }
    linear(pool_, *b_.k.w, x, T, s.k.data());
    linear(pool_, *b_.v.w, x, T, s.v.data());
    add_rows(q_bias_, s.q.data(), T);
    add_rows(k_bias_, s.k.data(), T);
    add_rows(v_bias_, s.v.data(), T);
    // Per head, or (qk_norm_whole) over each token's whole q and k rows.
    const std::int64_t qn = b_.qk_norm_whole ? qd : D, kn = b_.qk_norm_whole ? kd : D;
    if (!q_norm_.empty()) kernels::cpu::rms_norm_f32(s.q.data(), q_norm_.data(), s.q.data(), T * qd / qn, qn, b_.norm_eps);
    if (!k_norm_.empty()) kernels::cpu::rms_norm_f32(s.k.data(), k_norm_.data(), s.k.data(), T * kd / kn, kn, b_.norm_eps);
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
    if (b_.output_gate)
        for (std::int64_t i = 0; i < T * qd; ++i) s.att[std::size_t(i)] *= 1.f / (1.f + std::exp(-s.gate[std::size_t(i)]));
    linear(pool_, *b_.o.w, s.att.data(), T, out);
    add_rows(o_bias_, out, T);
}

CpuMlaAttention::CpuMlaAttention(const model::MlaAttentionBlock& b, WorkerPool& pool) : b_(b), pool_(pool) {
    if (b.q_a_norm.w) q_a_norm_ = model::vector_f32(*b.q_a_norm.w);
    kv_a_norm_ = model::vector_f32(*b.kv_a_norm.w);
    if (b.idx.heads) {
        if (!b.q_a) throw Error(ErrorCode::unsupported, "a sparse-attention indexer without a low-rank query");
        idx_norm_ = model::vector_f32(*b.idx.k_norm);
        idx_bias_ = model::vector_f32(*b.idx.k_norm_bias);
        if (int(idx_norm_.size()) != b.idx.dim || int(idx_bias_.size()) != b.idx.dim)
            throw Error(ErrorCode::invalid_file, "sparse-attention indexer: key norm of the wrong size");
    }
}

void CpuMlaAttention::index(std::span<const exec::BatchToken> batch, const float* x, const float* qr, kv::KvCache& kv,
                            const std::int32_t* pos) {
    const model::MlaAttentionBlock::Indexer& ix = b_.idx;
    const std::int64_t T = std::int64_t(batch.size());
    const int IH = ix.heads, ID = ix.dim, il = b_.kv_layer;
    iq_.resize(std::size_t(T * IH * ID));
    ik_.resize(std::size_t(T * ID));
    iw_.resize(std::size_t(T * IH));
    linear(pool_, *ix.q_b.w, qr, T, iq_.data());
    linear(pool_, *ix.k.w, x, T, ik_.data());
    linear(pool_, *ix.weights.w, x, T, iw_.data());
    for (std::int64_t t = 0; t < T; ++t) {  // LayerNorm (mean and variance, weight and bias)
        float* k = ik_.data() + t * ID;
        double mean = 0, var = 0;
        for (int i = 0; i < ID; ++i) mean += k[i];
        mean /= ID;
        for (int i = 0; i < ID; ++i) var += (k[i] - mean) * (k[i] - mean);
        const float inv = float(1.0 / std::sqrt(var / ID + double(ix.k_norm_eps)));
        for (int i = 0; i < ID; ++i) k[i] = (k[i] - float(mean)) * inv * idx_norm_[std::size_t(i)] + idx_bias_[std::size_t(i)];
    }
    kernels::cpu::rope_f32(ix.rope, iq_.data(), T, IH, pos);
    kernels::cpu::rope_f32(ix.rope, ik_.data(), T, 1, pos);
    for (std::int64_t t = 0; t < T; ++t) {
        const exec::BatchToken& bt = batch[std::size_t(t)];
        std::copy_n(ik_.data() + t * ID, ID, kv.v_at(il, bt.seq, bt.pos));
    }
    // score(j) = Σ_h w_h · relu(q_h · k_j) / sqrt(IH · ID); the best topk of positions 0 .. pos, ties to the earlier.
    // Per sequence segment, every head's q · k of a group of its tokens against the segment's keys is one product
    // S [n, G·IH] = keys [n, ID] · Qᵀ (the tokens' indexer queries as an f32 matrix), at most 16 Mi scores a group.
    const float wscale = 1.f / std::sqrt(float(IH) * float(ID));
    picks_.assign(std::size_t(T), {});
    for (std::int64_t s0 = 0; s0 < T;) {
        std::int64_t s1 = s0 + 1;
        while (s1 < T && batch[std::size_t(s1)].seq == batch[std::size_t(s0)].seq) ++s1;
        const int seq = batch[std::size_t(s0)].seq;
        std::int64_t n = 0;
        for (std::int64_t t = s0; t < s1; ++t) n = std::max<std::int64_t>(n, std::int64_t(pos[t]) + 1);
        if (n <= ix.topk) {
            s0 = s1;
            continue;
        }
        keys_.resize(std::size_t(n * ID));
        for (std::int64_t j = 0; j < n; ++j) std::copy_n(kv.v_at(il, seq, j), ID, keys_.data() + j * ID);
        const std::int64_t G = std::max<std::int64_t>(1, (std::int64_t(16) << 20) / (n * IH));
        for (std::int64_t g0 = s0; g0 < s1; g0 += G) {
            const std::int64_t g1 = std::min(s1, g0 + G), cols = (g1 - g0) * IH;
            model::TensorView qv;
            qv.type = kernels::DType::F32;
            qv.cols = ID;
            qv.rows = cols;
            qv.row_bytes = std::size_t(ID) * sizeof(float);
            qv.data = reinterpret_cast<const std::byte*>(iq_.data() + g0 * IH * ID);
            scores_.resize(std::size_t(n * cols));
            linear(pool_, qv, keys_.data(), n, scores_.data());
            pool_.parallel_for(g1 - g0, [&](std::int64_t i, int) {
                const std::int64_t t = g0 + i, nt = std::int64_t(pos[t]) + 1;
                if (nt <= ix.topk) return;
                const float* w = iw_.data() + t * IH;
                std::vector<float> score(static_cast<std::size_t>(nt));
                for (std::int64_t j = 0; j < nt; ++j) {
                    const float* sj = scores_.data() + j * cols + i * IH;
                    float sc = 0.f;
                    for (int h = 0; h < IH; ++h) sc += w[h] * std::max(0.f, sj[h]);
                    score[std::size_t(j)] = sc * wscale;
                }
                std::vector<std::int32_t>& p = picks_[std::size_t(t)];
                p.resize(std::size_t(nt));
                for (std::int64_t j = 0; j < nt; ++j) p[std::size_t(j)] = std::int32_t(j);
                std::partial_sort(p.begin(), p.begin() + ix.topk, p.end(), [&](std::int32_t a, std::int32_t b) {
                    const float sa = score[std::size_t(a)], sb = score[std::size_t(b)];
                    return sa > sb || (sa == sb && a < b);
                });
                p.resize(std::size_t(ix.topk));
                std::sort(p.begin(), p.end());
            });
        }
        s0 = s1;
    }
}

void CpuMlaAttention::per_head(const model::TensorView& w, int rows, const float* x, std::int64_t ldx, std::int64_t x_head,
                               std::int64_t T, float* y, std::int64_t ldy, std::int64_t y_head, AttentionScratch& s) {
    const std::int64_t in = w.cols;
    s.head_in.resize(std::size_t(T * in));
    s.head_out.resize(std::size_t(T * rows));
    for (int h = 0; h < b_.n_head; ++h) {
        model::TensorView wh = w;
        wh.rows = rows;
        wh.data = w.row(std::int64_t(h) * rows);
        for (std::int64_t t = 0; t < T; ++t)
            std::copy_n(x + t * ldx + std::int64_t(h) * x_head, in, s.head_in.data() + t * in);
        linear(pool_, wh, s.head_in.data(), T, s.head_out.data());
        for (std::int64_t t = 0; t < T; ++t)
            std::copy_n(s.head_out.data() + t * rows, rows, y + t * ldy + std::int64_t(h) * y_head);
    }
}

void CpuMlaAttention::forward(std::span<const exec::BatchToken> batch, const float* x, kv::KvCache& kv, AttentionScratch& s,
                              float* out) {
    const std::int64_t T = std::int64_t(batch.size());
    const int H = b_.n_head, QD = b_.q_dim(), D = b_.kv_dim(), L = b_.kv_lora, V = b_.v_head_dim, il = b_.kv_layer;
    // q [T, H, nope + rope]
    s.q.resize(std::size_t(T * H * QD));
    if (b_.q_a) {
        const std::int64_t r = b_.q_a.w->rows;
        s.k.resize(std::size_t(T * r));
        linear(pool_, *b_.q_a.w, x, T, s.k.data());
        kernels::cpu::rms_norm_f32(s.k.data(), q_a_norm_.data(), s.k.data(), T, r, b_.q_a_norm.eps);
        linear(pool_, *b_.q_b.w, s.k.data(), T, s.q.data());
    } else {
        linear(pool_, *b_.q.w, x, T, s.q.data());
    }
    // [latent | k_pe] [T, D]
    s.v.resize(std::size_t(T * D));
    linear(pool_, *b_.kv_a.w, x, T, s.v.data());
    s.pos.resize(std::size_t(T));
    for (std::int64_t t = 0; t < T; ++t) s.pos[std::size_t(t)] = batch[std::size_t(t)].pos;
    kernels::RopeParams rq = b_.rope, rk = b_.rope;
    rq.head_dim = QD;  // the rope part ends each head
    rk.head_dim = D;
    kernels::cpu::rope_f32(rq, s.q.data() + b_.nope, T, H, s.pos.data());
    kernels::cpu::rope_f32(rk, s.v.data() + L, T, 1, s.pos.data());
    kernels::MlaParams mp;
    mp.n_head = H;
    mp.kv_lora = L;
    mp.rope_dim = b_.rope_dim;
    mp.page_size = kv.geometry().page_size;
    mp.scale = b_.scale;
    for (std::int64_t t = 0; t < T; ++t) {
        const exec::BatchToken& bt = batch[std::size_t(t)];
        kernels::ref::mla_kv_row(mp, s.v.data() + t * D, kv_a_norm_.data(), b_.kv_a_norm.eps, kv.k_at(il, bt.seq, bt.pos));
    }
    if (b_.idx.heads) index(batch, x, s.k.data(), kv, s.pos.data());  // s.k: the normalized low-rank query
    // The absorbed query [T, H, D]: k_b[h] · q_nope, then the rotated q_pe.
    s.att.resize(std::size_t(T * H * D));
    per_head(*b_.k_b, L, s.q.data(), std::int64_t(H) * QD, QD, T, s.att.data(), std::int64_t(H) * D, D, s);
    for (std::int64_t t = 0; t < T; ++t)
        for (int h = 0; h < H; ++h)
            std::copy_n(s.q.data() + (t * H + h) * QD + b_.nope, b_.rope_dim, s.att.data() + (t * H + h) * D + L);
    s.lat.resize(std::size_t(T * H * L));
    // Per sequence segment: its tokens that read every position up to their own (with the indexer, those at
    // positions below its top-k: the segment's first ones) over the paged cache; the others after.
    std::vector<std::int64_t> sparse;
    for (std::int64_t s0 = 0; s0 < T;) {
        std::int64_t s1 = s0 + 1;
        while (s1 < T && batch[std::size_t(s1)].seq == batch[std::size_t(s0)].seq) ++s1;
        std::int64_t sd = s0;
        while (sd < s1 && (picks_.empty() || picks_[std::size_t(sd)].empty())) ++sd;
        for (std::int64_t t = sd; t < s1; ++t) sparse.push_back(t);
        const std::int32_t* table = kv.page_table(batch[std::size_t(s0)].seq).data();
        const std::int64_t tasks = kernels::cpu::mla_attention_tasks(mp, sd - s0);
        pool_.parallel_for(tasks, [&](std::int64_t c, int) {
            kernels::cpu::mla_attention_f32(mp, s.att.data() + s0 * H * D, s.pos.data() + s0, kv.k(il), table,
                                            s.lat.data() + s0 * H * L, c, c + 1);
        });
        s0 = s1;
    }
    // A token with a pick: its picked rows gathered in position order into pages of its own, and the same kernel
    // over them as positions 0 .. topk - 1 (groups of tokens of at most 32 MiB of rows at a time).
    if (!sparse.empty()) {
        const int K = b_.idx.topk, P = mp.page_size;
        const std::int64_t pages = (K + P - 1) / P, rows = pages * P, blocks = kernels::cpu::mla_attention_tasks(mp, 1);
        table_.resize(std::size_t(pages));
        for (std::int64_t i = 0; i < pages; ++i) table_[std::size_t(i)] = std::int32_t(i);
        const std::int32_t last = K - 1;
        const std::int64_t G = std::max<std::int64_t>(1, (std::int64_t(8) << 20) / (rows * D));
        for (std::size_t g0 = 0; g0 < sparse.size(); g0 += std::size_t(G)) {
            const std::int64_t n = std::min<std::int64_t>(G, std::int64_t(sparse.size() - g0));
            gather_.resize(std::size_t(n * rows * D));
            pool_.parallel_for(n, [&](std::int64_t i, int) {
                const exec::BatchToken& bt = batch[std::size_t(sparse[g0 + std::size_t(i)])];
                const std::vector<std::int32_t>& p = picks_[std::size_t(sparse[g0 + std::size_t(i)])];
                for (int k = 0; k < K; ++k)
                    std::copy_n(kv.k_at(il, bt.seq, p[std::size_t(k)]), D, gather_.data() + (i * rows + k) * D);
            });
            pool_.parallel_for(n * blocks, [&](std::int64_t c, int) {
                const std::int64_t i = c / blocks, t = sparse[g0 + std::size_t(i)];
                kernels::cpu::mla_attention_f32(mp, s.att.data() + t * H * D, &last, gather_.data() + i * rows * D,
                                                table_.data(), s.lat.data() + t * H * L, c % blocks, c % blocks + 1);
            });
        }
    }
    // Each head's value: v_b[h] · latent → [T, H · V], then the output projection.
    s.k.resize(std::size_t(T * H * V));
    per_head(*b_.v_b, V, s.lat.data(), std::int64_t(H) * L, L, T, s.k.data(), std::int64_t(H) * V, V, s);
    linear(pool_, *b_.o.w, s.k.data(), T, out);
}

}  // namespace ft::cpu

namespace ft::cpu {

CpuGatedDeltaNet::CpuGatedDeltaNet(const model::GatedDeltaNetBlock& b, WorkerPool& pool) : b_(b), pool_(pool) {
    conv_ = model::vector_f32(*b.conv);
    dt_ = model::vector_f32(*b.dt_bias);
    a_neg_ = model::vector_f32(*b.a_neg);
    norm_ = model::vector_f32(*b.norm);
    if (std::int64_t(conv_.size()) != std::int64_t(b.conv_dim()) * b.conv_kernel || int(dt_.size()) != b.n_v_heads ||
        int(a_neg_.size()) != b.n_v_heads || int(norm_.size()) != b.dv)
        throw Error(ErrorCode::invalid_file, "linear attention: conv, dt, A or norm of the wrong size");
}

void CpuGatedDeltaNet::forward(std::span<const exec::BatchToken> batch, const float* x, kv::KvCache& kv, float* out) {
    const std::int64_t T = std::int64_t(batch.size());
    const int C = b_.conv_dim(), KD = b_.key_dim(), NV = b_.n_v_heads, NK = b_.n_k_heads, DV = b_.dv, K = b_.conv_kernel;
    const std::int64_t VD = b_.value_dim();
    qkv_.resize(std::size_t(T * C));
    qkvc_.resize(std::size_t(T * C));
    z_.resize(std::size_t(T * VD));
    ba_.resize(std::size_t(T * 2 * NV));
    linear(pool_, *b_.qkv.w, x, T, qkv_.data());
    linear(pool_, *b_.z.w, x, T, z_.data());
    // beta = sigmoid(b), g = A · softplus(a + dt): b and a from the fused ba (per key head [b (R) | a (R)]) or from
    // two projections (rows [b | a] here).
    const int R = NV / NK;
    if (b_.ba) {
        linear(pool_, *b_.ba.w, x, T, ba_.data());
    } else {
        tmp_.resize(std::size_t(T * NV));
        linear(pool_, *b_.beta.w, x, T, tmp_.data());
        for (std::int64_t t = 0; t < T; ++t) std::copy_n(tmp_.data() + t * NV, NV, ba_.data() + t * 2 * NV);
        linear(pool_, *b_.alpha.w, x, T, tmp_.data());
        for (std::int64_t t = 0; t < T; ++t) std::copy_n(tmp_.data() + t * NV, NV, ba_.data() + t * 2 * NV + NV);
    }
    beta_.resize(std::size_t(T * NV));
    g_.resize(std::size_t(T * NV));
    kernels::ref::gated_delta_gates_f32(ba_.data(), 2 * NV, T, NV, b_.ba ? R : 0, dt_.data(), a_neg_.data(), beta_.data(),
                                        g_.data());
    kernels::GatedDeltaParams p;
    p.n_heads = NV;
    p.n_k_heads = NK;
    p.dk = b_.dk;
    p.dv = DV;
    p.v_tiled = b_.v_tiled;
    p.ldq = p.ldk = p.ldv = C;
    const std::int64_t conv_floats = std::int64_t(C) * (K - 1), slots = kv.geometry().rs_slots;
    float* pool = kv.state(b_.rs_layer);
    o_.resize(std::size_t(T * VD));
    for (std::int64_t s0 = 0; s0 < T;) {
        std::int64_t s1 = s0 + 1;
        while (s1 < T && batch[std::size_t(s1)].seq == batch[std::size_t(s0)].seq) ++s1;
        const int seq = batch[std::size_t(s0)].seq;
        if (seq < 0 || seq >= slots) throw Error(ErrorCode::internal, "linear attention: a sequence without a state slot");
        float* conv_state = pool + seq * conv_floats;
        float* delta_state = pool + slots * conv_floats + seq * p.state_size();
        if (batch[std::size_t(s0)].pos == 0) {  // a new sequence: no history
            std::fill_n(conv_state, conv_floats, 0.f);
            std::fill_n(delta_state, p.state_size(), 0.f);
        }
        const std::int64_t n = s1 - s0;
        kernels::cpu::causal_conv1d_silu_f32(qkv_.data() + s0 * C, C, n, C, K, conv_.data(), conv_state,
                                             qkvc_.data() + s0 * C, C);
        const float* base = qkvc_.data() + s0 * C;
        pool_.parallel_for(NV, [&](std::int64_t h, int) {
            kernels::cpu::gated_delta_prefill_f32(p, base, base + KD, base + 2 * KD, g_.data() + s0 * NV,
                                                  beta_.data() + s0 * NV, n, delta_state, o_.data() + s0 * VD, int(h),
                                                  int(h) + 1);
        });
        s0 = s1;
    }
    y_.resize(std::size_t(T * VD));
    kernels::cpu::gated_rms_norm_f32(o_.data(), z_.data(), norm_.data(), y_.data(), T * NV, DV, b_.norm_eps);
    linear(pool_, *b_.out.w, y_.data(), T, out);
}

}  // namespace ft::cpu
