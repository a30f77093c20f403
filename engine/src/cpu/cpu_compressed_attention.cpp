#include <algorithm>
#include <cmath>
#include <cstring>

#include "cpu/cpu_attention.h"
#include "cpu/compressed_attention.h"
#include "cpu/cpu_ops.h"
#include "cpu/rms_norm.h"
#include "cpu/rope.h"
#include "ft/error.h"
#include "ref/compressed_attention.h"

namespace ft::cpu {

using model::CompressedAttentionBlock;
using model::V4LayerKind;

CpuCompressedAttention::CpuCompressedAttention(const CompressedAttentionBlock& b, int max_idx_dim, WorkerPool& pool)
    : b_(b), pool_(pool), row_(b.row_width(max_idx_dim)) {
    q_a_norm_ = model::vector_f32(*b.q_a_norm.w);
    kv_norm_ = model::vector_f32(*b.kv_norm.w);
    sinks_ = model::vector_f32(*b.sinks);
    if (b.kind != V4LayerKind::sliding) {
        comp_bias_ = model::vector_f32(*b.comp.bias);
        comp_norm_ = model::vector_f32(*b.comp.norm.w);
    }
    if (b.kind == V4LayerKind::csa) {
        idx_bias_ = model::vector_f32(*b.idx.bias);
        idx_norm_ = model::vector_f32(*b.idx.norm.w);
    }
    if (b.n_head % b.o_groups != 0 || b.rope_dim > b.head_dim || (b.kind == V4LayerKind::csa && b.rope_dim > b.idx.dim))
        throw Error(ErrorCode::invalid_file, "compressed attention: inconsistent head, group or rope sizes");
}

void CpuCompressedAttention::entry(const CompressedAttentionBlock::Compressor& c, const std::vector<float>& bias,
                                   const std::vector<float>& norm, const float* ring, std::int64_t w, int kv_off,
                                   int gate_off, float* out) {
    const int m = b_.ratio, D = c.dim;
    const bool csa = b_.kind == V4LayerKind::csa;
    const std::int64_t stride = b_.ring_stride(), width = csa ? 2 * D : D;
    const std::int64_t ring_slots = csa ? 2 * m : m;
    // Slots of the window: csa, when w > 0: window w-1's first halves [Ca | Za], then window w's second halves.
    slots_kv_.clear();
    slots_gate_.clear();
    auto add = [&](std::int64_t pos, int half) {
        const float* slot = ring + (pos % ring_slots) * stride;
        const float* bj = bias.data() + (pos % m) * width + half * D;
        for (int i = 0; i < D; ++i) {
            slots_kv_.push_back(slot[kv_off + half * D + i]);
            slots_gate_.push_back(slot[gate_off + half * D + i] + bj[i]);
        }
    };
    if (csa && w > 0)
        for (int j = 0; j < m; ++j) add((w - 1) * m + j, 0);
    for (int j = 0; j < m; ++j) add(w * m + j, csa ? 1 : 0);
    const int n_slots = int(slots_kv_.size() / std::size_t(D));
    kernels::cpu::compress_entry_f32(slots_kv_.data(), slots_gate_.data(), n_slots, D, D, out);
    kernels::cpu::rms_norm_f32(out, norm.data(), out, 1, D, c.norm.eps);
    kernels::RopeParams r = b_.comp_rope;
    r.head_dim = D;
    const std::int32_t at = std::int32_t(w * m);  // the window's first position
    kernels::cpu::rope_f32(r, out + (D - b_.rope_dim), 1, 1, &at);
}

void CpuCompressedAttention::forward(std::span<const exec::BatchToken> batch, const float* x, kv::KvCache& kv, float* out) {
    const std::int64_t T = std::int64_t(batch.size());
    const int H = b_.n_head, D = b_.head_dim, R = b_.rope_dim, il = b_.kv_layer, m = b_.ratio;
    const std::int64_t QL = b_.q_a.w->rows, HD = std::int64_t(H) * D;
    const bool csa = b_.kind == V4LayerKind::csa, compressed = b_.kind != V4LayerKind::sliding;
    pos_.resize(std::size_t(T));
    neg_pos_.resize(std::size_t(T));
    for (std::int64_t t = 0; t < T; ++t) {
        pos_[std::size_t(t)] = batch[std::size_t(t)].pos;
        neg_pos_[std::size_t(t)] = -batch[std::size_t(t)].pos;
    }
    // q: low rank, its norm, q_b, an unweighted RMSNorm per head, RoPE on the trailing dims.
    qr_.resize(std::size_t(T * QL));
    linear(pool_, *b_.q_a.w, x, T, qr_.data());
    kernels::cpu::rms_norm_f32(qr_.data(), q_a_norm_.data(), qr_.data(), T, QL, b_.q_a_norm.eps);
    q_.resize(std::size_t(T * HD));
    linear(pool_, *b_.q_b.w, qr_.data(), T, q_.data());
    for (std::int64_t r = 0; r < T * H; ++r) {
        float* v = q_.data() + r * D;
        double ss = 0;
        for (int i = 0; i < D; ++i) ss += double(v[i]) * v[i];
        const float inv = float(1.0 / std::sqrt(ss / D + double(b_.norm_eps)));
        for (int i = 0; i < D; ++i) v[i] *= inv;
    }
    kernels::RopeParams rq = b_.rope;
    rq.head_dim = D;
    kernels::cpu::rope_f32(rq, q_.data() + (D - R), T, H, pos_.data());
    // The shared K = V row.
    kvr_.resize(std::size_t(T * D));
    linear(pool_, *b_.kv.w, x, T, kvr_.data());
    kernels::cpu::rms_norm_f32(kvr_.data(), kv_norm_.data(), kvr_.data(), T, D, b_.kv_norm.eps);
    kernels::cpu::rope_f32(rq, kvr_.data() + (D - R), T, 1, pos_.data());
    for (std::int64_t t = 0; t < T; ++t) {
        const exec::BatchToken& bt = batch[std::size_t(t)];
        std::memcpy(kv.k_at(il, bt.seq, bt.pos), kvr_.data() + t * D, std::size_t(D) * sizeof(float));
    }
    // The compressor (and the indexer): projections of every token, then per sequence in position order into the
    // ring, an entry whenever a window closes.
    const int Di = b_.idx.dim, IH = b_.idx_heads;
    if (compressed) {
        const std::int64_t cw = csa ? 2 * D : D;
        ck_.resize(std::size_t(T * cw));
        cg_.resize(std::size_t(T * cw));
        linear(pool_, *b_.comp.kv.w, x, T, ck_.data());
        linear(pool_, *b_.comp.gate.w, x, T, cg_.data());
        if (csa) {
            ik_.resize(std::size_t(T * 2 * Di));
            ig_.resize(std::size_t(T * 2 * Di));
            linear(pool_, *b_.idx.kv.w, x, T, ik_.data());
            linear(pool_, *b_.idx.gate.w, x, T, ig_.data());
            iq_.resize(std::size_t(T * IH * Di));
            linear(pool_, *b_.idx_q_b.w, qr_.data(), T, iq_.data());
            kernels::RopeParams ri = b_.comp_rope;
            ri.head_dim = Di;
            kernels::cpu::rope_f32(ri, iq_.data() + (Di - R), T, IH, pos_.data());
            iw_.resize(std::size_t(T * IH));
            linear(pool_, *b_.idx_weights.w, x, T, iw_.data());
            const float ws = 1.f / std::sqrt(float(IH));
            for (float& v : iw_) v *= ws;
        }
        const std::int64_t stride = b_.ring_stride(), ring_slots = csa ? 2 * m : m;
        const std::int64_t rs_floats = kv.geometry().rs_floats;
        for (std::int64_t t = 0; t < T; ++t) {
            const exec::BatchToken& bt = batch[std::size_t(t)];
            if (bt.seq < 0 || bt.seq >= kv.geometry().rs_slots)
                throw Error(ErrorCode::internal, "compressed attention: a sequence without a state slot");
            float* ring = kv.state(b_.rs_layer) + std::int64_t(bt.seq) * rs_floats;
            float* slot = ring + (bt.pos % ring_slots) * stride;
            std::copy_n(ck_.data() + t * cw, cw, slot);
            std::copy_n(cg_.data() + t * cw, cw, slot + cw);
            if (csa) {
                std::copy_n(ik_.data() + t * 2 * Di, 2 * Di, slot + 4 * D);
                std::copy_n(ig_.data() + t * 2 * Di, 2 * Di, slot + 4 * D + 2 * Di);
            }
            if ((bt.pos + 1) % m != 0) continue;
            const std::int64_t w = bt.pos / m;
            float* row = kv.k_at(il, bt.seq, bt.pos);
            entry(b_.comp, comp_bias_, comp_norm_, ring, w, 0, int(cw), row + D);
            if (csa) entry(b_.idx, idx_bias_, idx_norm_, ring, w, int(4 * D), int(4 * D + 2 * Di), row + 2 * D);
        }
    }
    // Attention: per token the window's rows and the entries (hca: every closed one; csa: the indexer's pick).
    att_.resize(std::size_t(T * HD));
    const float idx_scale = csa ? 1.f / std::sqrt(float(Di)) : 0.f;
    pool_.parallel_for(T, [&](std::int64_t t, int) {
        const exec::BatchToken& bt = batch[std::size_t(t)];
        std::vector<const float*> rows;
        const std::int64_t first = std::max<std::int64_t>(0, std::int64_t(bt.pos) - b_.window + 1);
        for (std::int64_t p = first; p <= bt.pos; ++p) rows.push_back(kv.k_at(il, bt.seq, p));
        if (compressed) {
            const int closed = int((std::int64_t(bt.pos) + 1) / m);
            if (csa) {
                std::vector<const float*> keys(static_cast<std::size_t>(closed));
                for (int w = 0; w < closed; ++w) keys[std::size_t(w)] = kv.k_at(il, bt.seq, std::int64_t(w + 1) * m - 1) + 2 * D;
                std::vector<std::int32_t> pick(static_cast<std::size_t>(std::min(closed, b_.idx_topk)));
                const int n = kernels::cpu::index_topk_f32(iq_.data() + t * IH * Di, iw_.data() + t * IH, IH, Di, idx_scale,
                                                          keys.data(), closed, b_.idx_topk, pick.data());
                for (int i = 0; i < n; ++i) rows.push_back(kv.k_at(il, bt.seq, std::int64_t(pick[std::size_t(i)] + 1) * m - 1) + D);
            } else {
                for (int w = 0; w < closed; ++w) rows.push_back(kv.k_at(il, bt.seq, std::int64_t(w + 1) * m - 1) + D);
            }
        }
        kernels::cpu::shared_kv_attention_f32(q_.data() + t * HD, H, D, b_.scale, sinks_.data(), rows.data(),
                                              int(rows.size()), att_.data() + t * HD);
    });
    // The value picked up RoPE on its trailing dims: rotate back at the query's position, then the grouped output.
    kernels::cpu::rope_f32(rq, att_.data() + (D - R), T, H, neg_pos_.data());
    const int G = b_.o_groups, OL = b_.o_lora;
    const std::int64_t gin = HD / G;
    oa_.resize(std::size_t(T * G * OL));
    in_.resize(std::size_t(T * gin));
    tmp_.resize(std::size_t(T * OL));
    for (int g = 0; g < G; ++g) {
        model::TensorView wg = *b_.o_a.w;
        wg.rows = OL;
        wg.data = b_.o_a.w->row(std::int64_t(g) * OL);
        for (std::int64_t t = 0; t < T; ++t) std::copy_n(att_.data() + t * HD + g * gin, gin, in_.data() + t * gin);
        linear(pool_, wg, in_.data(), T, tmp_.data());
        for (std::int64_t t = 0; t < T; ++t) std::copy_n(tmp_.data() + t * OL, OL, oa_.data() + (t * G + g) * OL);
    }
    linear(pool_, *b_.o_b.w, oa_.data(), T, out);
}

}  // namespace ft::cpu
