// The CPU runner: executes a ModelGraph's blocks (model/graph.h) on the worker pool — embedding, pre-norm residual
// blocks (attention, dense FFN, MoE through moe::MoeLayer plus shared experts) with the residual as one stream or,
// with hyper-connections, several streams mixed in and out of every block — final norm and LM head.
#include <algorithm>
#include <cmath>
#include <memory>
#include <variant>
#include <vector>

#include "cpu/cpu_attention.h"
#include "cpu/compressed_attention.h"
#include "cpu/cpu_ops.h"
#include "cpu/matmul.h"
#include "cpu/swiglu.h"
#include "exec/runner.h"
#include "ft/error.h"
#include "model/block_visit.h"
#include "ref/hyper_connection.h"

namespace ft::exec {

namespace {

using model::Activation;
using model::AttentionBlock;
using model::FfnBlock;
using model::MoeBlock;

// A dense FFN with its biases in f32.
struct CpuFfn {
    const FfnBlock* b = nullptr;
    std::vector<float> gate_bias, up_bias, down_bias;
    CpuFfn() = default;
    explicit CpuFfn(const FfnBlock& f)
        : b(&f), gate_bias(cpu::f32_or_empty(f.gate.b)), up_bias(cpu::f32_or_empty(f.up.b)),
          down_bias(cpu::f32_or_empty(f.down.b)) {}
    // out[T, n_embd] = down(act(gate(x), up(x)))
    void forward(cpu::WorkerPool& pool, const float* x, std::int64_t T, std::vector<float>& g, std::vector<float>& u,
                 float* out) const {
        const std::int64_t F = b->gate.w->rows;
        g.resize(std::size_t(T * F));
        u.resize(std::size_t(T * F));
        cpu::linear(pool, *b->gate.w, x, T, g.data());
        cpu::linear(pool, *b->up.w, x, T, u.data());
        cpu::add_rows(gate_bias, g.data(), T);
        cpu::add_rows(up_bias, u.data(), T);
        kernels::cpu::swiglu_f32(g.data(), u.data(), g.data(), T * F, model::swiglu_limit_arg(b->act, b->limit));
        cpu::linear(pool, *b->down.w, g.data(), T, out);
        cpu::add_rows(down_bias, out, T);
    }
};

// A hyper-connection mixer in f32 (fn as stored: the projection goes through cpu::linear).
struct CpuMixer {
    const model::TensorView* fn = nullptr;
    std::vector<float> base, scale;
    CpuMixer() = default;
    explicit CpuMixer(const model::HyperMixRef& h) : fn(h.fn), base(model::vector_f32(*h.base)), scale(model::vector_f32(*h.scale)) {}
};

// A MoE block: the routed experts go through moe::MoeLayer; its shared experts (b null: none) and their sigmoid gate
// (Qwen; empty: none) in f32.
struct CpuMoe {
    const MoeBlock* b = nullptr;
    CpuFfn shared;
    std::vector<float> shared_gate;
    explicit CpuMoe(const MoeBlock& m)
        : b(&m), shared(m.shared.gate ? CpuFfn(m.shared) : CpuFfn()),
          shared_gate(m.shared_gate ? model::vector_f32(*m.shared_gate) : std::vector<float>()) {}
};

// A block's body, prepared: one alternative per kind of model::BlockBody.
using CpuBody = std::variant<std::unique_ptr<cpu::CpuAttention>, std::unique_ptr<cpu::CpuMlaAttention>,
                             std::unique_ptr<cpu::CpuGatedDeltaNet>, std::unique_ptr<cpu::CpuCompressedAttention>,
                             CpuFfn, CpuMoe>;

// One block, prepared: its norm in f32, its hyper-connection mixer and its body.
struct CpuBlock {
    std::vector<float> norm;
    float eps = 1e-6f;
    CpuMixer hc;
    CpuBody body;
};

class CpuRunner final : public Runner {
public:
    CpuRunner(const ModelGraph& g, const Weights& w, cpu::WorkerPool& pool, moe::MoeLayer& moe, int max_sequences)
        : g_(g), w_(w), pool_(pool), moe_(moe), state_slots_(state_slots(max_sequences)) {
        for (const model::Layer& L : g.layers) {
            auto& out = blocks_.emplace_back();
            for (const model::Block& b : L.blocks) {
                CpuBlock& cb = out.emplace_back();
                cb.norm = model::vector_f32(*b.norm.w);
                cb.eps = b.norm.eps;
                if (b.hc) cb.hc = CpuMixer(b.hc);
                cb.body = std::visit(
                    model::overloaded{
                        [&](const AttentionBlock& a) -> CpuBody { return std::make_unique<cpu::CpuAttention>(a, pool); },
                        [&](const model::MlaAttentionBlock& m) -> CpuBody {
                            return std::make_unique<cpu::CpuMlaAttention>(m, pool);
                        },
                        [&](const model::GatedDeltaNetBlock& d) -> CpuBody {
                            return std::make_unique<cpu::CpuGatedDeltaNet>(d, pool);
                        },
                        [&](const model::CompressedAttentionBlock& c) -> CpuBody {
                            return std::make_unique<cpu::CpuCompressedAttention>(c, g.max_idx_dim, pool);
                        },
                        [](const FfnBlock& f) -> CpuBody { return CpuFfn(f); },
                        [](const MoeBlock& m) -> CpuBody { return CpuMoe(m); },
                    },
                    b.body);
            }
        }
        out_norm_ = model::vector_f32(*g.output_norm.w);
        if (g.hc_mult > 0) {
            if (!g.hc_head) throw Error(ErrorCode::invalid_file, "a model with hyper-connections but no output mixer");
            hc_head_ = CpuMixer(g.hc_head);
            hp_.n = g.hc_mult;
            hp_.sinkhorn_iters = g.hc_sinkhorn_iters;
            hp_.eps = g.hc_eps;
        }
    }

    kv::KvGeometry kv_geometry(int page_size, std::int64_t n_pages) const override {
        return graph_kv_geometry(g_, page_size, n_pages, 4, state_slots_);
    }
    std::string device_name() const override { return "cpu (" + std::to_string(pool_.size()) + " threads)"; }
    Message device_label() const override { return {"device_cpu", {std::to_string(pool_.size())}}; }

    // One path for every model. The residual is the hyper-connection streams (model/graph.h Block): x_ holds
    // n_streams() rows of n_embd per token; a block's input is the streams' mix, its output goes back into them. The
    // plain residual is the one-stream case, which needs no mixer: the block reads x_ through its norm and adds its
    // output to x_.
    void forward(std::span<const BatchToken> batch, kv::KvCache& kv, float* logits) override {
        const std::int64_t T = std::int64_t(batch.size()), E = g_.n_embd, NE = n_streams() * E;
        x_.resize(std::size_t(T * NE));
        xn_.resize(std::size_t(T * E));
        y_.resize(std::size_t(T * E));
        const model::TensorView& embd = *g_.token_embd;
        for (std::int64_t t = 0; t < T; ++t) {
            float* xs = x_.data() + t * NE;
            kernels::cpu::dequantize_row(embd.type, embd.row(batch[std::size_t(t)].token), xs, E);
            for (std::int64_t j = 1; j < n_streams(); ++j) std::copy_n(xs, E, xs + j * E);
        }
        for (const auto& layer : blocks_) {
            for (const CpuBlock& b : layer) {
                block_input(b, T);
                body(b, batch, kv, T);
                block_output(b, T);
            }
        }
        if (g_.hc_mult > 0) collapse_streams(T);
        head(batch, logits);
    }

private:
    // One block's body on xn_ [T, E] into y_.
    void body(const CpuBlock& b, std::span<const BatchToken> batch, kv::KvCache& kv, std::int64_t T) {
        std::visit(model::overloaded{
                       [&](const std::unique_ptr<cpu::CpuAttention>& a) {
                           a->forward(batch, xn_.data(), kv, attn_scratch_, y_.data());
                       },
                       [&](const std::unique_ptr<cpu::CpuMlaAttention>& m) {
                           m->forward(batch, xn_.data(), kv, attn_scratch_, y_.data());
                       },
                       [&](const std::unique_ptr<cpu::CpuGatedDeltaNet>& d) { d->forward(batch, xn_.data(), kv, y_.data()); },
                       [&](const std::unique_ptr<cpu::CpuCompressedAttention>& c) {
                           c->forward(batch, xn_.data(), kv, y_.data());
                       },
                       [&](const CpuFfn& f) { f.forward(pool_, xn_.data(), T, g_buf_, u_buf_, y_.data()); },
                       [&](const CpuMoe& m) { moe(m, batch, T); },
                   },
                   b.body);
    }

    // A MoE block: the routed experts into y_, plus the shared experts (times their gate).
    void moe(const CpuMoe& m, std::span<const BatchToken> batch, std::int64_t T) {
        const std::int64_t E = g_.n_embd;
        tokens_.resize(std::size_t(T));
        for (std::int64_t t = 0; t < T; ++t) tokens_[std::size_t(t)] = batch[std::size_t(t)].token;
        moe_.forward(*m.b, xn_.data(), T, y_.data(), tokens_.data());
        if (!m.shared.b) return;
        shared_.resize(std::size_t(T * E));
        m.shared.forward(pool_, xn_.data(), T, g_buf_, u_buf_, shared_.data());
        for (std::int64_t t = 0; t < T; ++t) {
            float scale = 1.f;
            if (!m.shared_gate.empty()) {  // sigmoid(x · gate)
                double dot = 0;
                for (std::int64_t i = 0; i < E; ++i) dot += double(xn_[std::size_t(t * E + i)]) * m.shared_gate[std::size_t(i)];
                scale = float(1.0 / (1.0 + std::exp(-dot)));
            }
            for (std::int64_t i = t * E; i < (t + 1) * E; ++i) y_[std::size_t(i)] += scale * shared_[std::size_t(i)];
        }
    }

    // mix_ [T, rows] = m.fn · (each token's streams flattened, divided by their RMS; the model's RMSNorm epsilon, as
    // transformers' DeepseekV4UnweightedRMSNorm).
    void mix(const CpuMixer& m, std::int64_t T) {
        const std::int64_t NE = std::int64_t(g_.hc_mult) * g_.n_embd;
        flat_.resize(std::size_t(T * NE));
        for (std::int64_t t = 0; t < T; ++t) {
            const float* xs = x_.data() + t * NE;
            double ss = 0;
            for (std::int64_t i = 0; i < NE; ++i) ss += double(xs[i]) * xs[i];
            const float inv = float(1.0 / std::sqrt(ss / double(NE) + double(g_.output_norm.eps)));
            for (std::int64_t i = 0; i < NE; ++i) flat_[std::size_t(t * NE + i)] = xs[i] * inv;
        }
        mix_.resize(std::size_t(T * m.fn->rows));
        cpu::linear(pool_, *m.fn, flat_.data(), T, mix_.data());
    }

    // Residual streams per token: hc_mult with hyper-connections, else the one plain residual.
    std::int64_t n_streams() const { return std::max(g_.hc_mult, 1); }

    // The block's normed input into xn_ [T, E]: the residual x_ through the block's norm, or with hyper-connections
    // the streams collapsed by the block's mixer (its pre weights; post_ and comb_ kept for block_output), then the
    // norm.
    void block_input(const CpuBlock& b, std::int64_t T) {
        if (g_.hc_mult == 0) {
            cpu::rms_norm_rows(pool_, x_.data(), b.norm, b.eps, T, xn_.data());
            return;
        }
        const std::int64_t E = g_.n_embd, N = g_.hc_mult, NE = N * E;
        pre_.resize(std::size_t(T * N));
        post_.resize(std::size_t(T * N));
        comb_.resize(std::size_t(T * N * N));
        mix(b.hc, T);
        const std::int64_t rows = b.hc.fn->rows;
        for (std::int64_t t = 0; t < T; ++t) {
            kernels::ref::hc_weights(hp_, mix_.data() + t * rows, b.hc.scale.data(), b.hc.base.data(), pre_.data() + t * N,
                                     post_.data() + t * N, comb_.data() + t * N * N);
            kernels::cpu::hc_collapse(int(N), E, pre_.data() + t * N, x_.data() + t * NE, xn_.data() + t * E);
        }
        cpu::rms_norm_rows(pool_, xn_.data(), b.norm, b.eps, T, xn_.data());
    }

    // The block's output y_ [T, E] into the residual: added, or with hyper-connections spread over the streams by
    // the post weights after their comb mix.
    void block_output(const CpuBlock&, std::int64_t T) {
        const std::int64_t E = g_.n_embd;
        if (g_.hc_mult == 0) {
            for (std::int64_t i = 0; i < T * E; ++i) x_[std::size_t(i)] += y_[std::size_t(i)];
            return;
        }
        const std::int64_t N = g_.hc_mult, NE = N * E;
        for (std::int64_t t = 0; t < T; ++t)
            kernels::cpu::hc_expand(int(N), E, post_.data() + t * N, comb_.data() + t * N * N, y_.data() + t * E,
                                    x_.data() + t * NE);
    }

    // Hyper-connections: the output head's mixer collapses the streams into x_'s first T·E values, for head().
    void collapse_streams(std::int64_t T) {
        const std::int64_t E = g_.n_embd, N = g_.hc_mult, NE = N * E;
        pre_.resize(std::size_t(T * N));
        mix(hc_head_, T);
        for (std::int64_t t = 0; t < T; ++t) {
            kernels::ref::hc_head_weights(hp_, mix_.data() + t * N, hc_head_.scale.data(), hc_head_.base.data(), pre_.data());
            kernels::cpu::hc_collapse(int(N), E, pre_.data(), x_.data() + t * NE, xn_.data() + t * E);
        }
        std::copy_n(xn_.data(), T * E, x_.data());
    }

    // Final norm and LM head of x_ [T, E] for the tokens that want logits.
    void head(std::span<const BatchToken> batch, float* logits) {
        const std::int64_t T = std::int64_t(batch.size()), E = g_.n_embd;
        std::vector<std::int64_t> rows;
        for (std::int64_t t = 0; t < T; ++t)
            if (batch[std::size_t(t)].logits) rows.push_back(t);
        if (rows.empty()) return;
        xn_.resize(rows.size() * std::size_t(E));
        for (std::size_t i = 0; i < rows.size(); ++i) std::copy_n(x_.data() + rows[i] * E, E, xn_.data() + std::int64_t(i) * E);
        cpu::rms_norm_rows(pool_, xn_.data(), out_norm_, g_.output_norm.eps, std::int64_t(rows.size()), xn_.data());
        cpu::linear(pool_, *g_.output, xn_.data(), std::int64_t(rows.size()), logits);
    }

    const ModelGraph& g_;
    const Weights& w_;
    cpu::WorkerPool& pool_;
    moe::MoeLayer& moe_;
    int state_slots_ = 0;
    std::vector<std::vector<CpuBlock>> blocks_;
    std::vector<float> out_norm_;
    cpu::AttentionScratch attn_scratch_;
    std::vector<float> x_, xn_, y_, g_buf_, u_buf_, shared_;
    std::vector<std::int32_t> tokens_;
    // hyper-connections
    CpuMixer hc_head_;
    kernels::HyperParams hp_;
    std::vector<float> flat_, mix_, pre_, post_, comb_;
};

}  // namespace

std::unique_ptr<Runner> make_cpu_runner(const ModelGraph& graph, const Weights& weights, cpu::WorkerPool& pool,
                                        moe::MoeLayer& moe, int max_sequences) {
    return std::make_unique<CpuRunner>(graph, weights, pool, moe, max_sequences);
}

}  // namespace ft::exec
