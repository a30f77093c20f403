// Qwen3-MoE forward pass on the CPU: pre-norm decoder layers of GQA attention with per-head q/k RMSNorm and
// NeoX RoPE, then the MoE FFN (or a dense SwiGLU FFN on mlp_only layers), final RMSNorm and LM head.
#include <algorithm>
#include <vector>

#include "cpu/matmul.h"
#include "cpu/swiglu.h"
#include "model/cpu_attention.h"
#include "model/cpu_ops.h"
#include "model/qwen3_moe/qwen3_moe.h"

namespace ft::model {

namespace {

class Qwen3MoeCpu final : public Runner {
public:
    Qwen3MoeCpu(const Weights& w, cpu::WorkerPool& pool, moe::MoeLayer& moe)
        : w_(w), d_(w.desc()), pool_(pool), moe_(moe), attn_(w, pool) {
        for (std::uint32_t il = 0; il < d_.n_layer; ++il) {
            attn_norm_.push_back(vector_f32(w.layer(int(il), "attn_norm.weight")));
            ffn_norm_.push_back(vector_f32(w.layer(int(il), "ffn_norm.weight")));
        }
        out_norm_ = vector_f32(w.get("output_norm.weight"));
    }

    kv::KvGeometry kv_geometry(int page_size, std::int64_t n_pages) const override {
        return attn_.kv_geometry(page_size, n_pages);
    }
    std::string device_name() const override { return "cpu (" + std::to_string(pool_.size()) + " threads)"; }

    void forward(std::span<const BatchToken> batch, kv::KvCache& kv, float* logits) override {
        const std::int64_t T = std::int64_t(batch.size()), E = d_.n_embd;
        x_.resize(std::size_t(T * E));
        xn_.resize(std::size_t(T * E));
        y_.resize(std::size_t(T * E));
        const TensorView& embd = w_.get("token_embd.weight");
        for (std::int64_t t = 0; t < T; ++t)
            kernels::cpu::dequantize_row(embd.type, embd.row(batch[std::size_t(t)].token), x_.data() + t * E, E);
        const float eps = float(d_.norm_eps);
        for (int il = 0; il < int(d_.n_layer); ++il) {
            rms_norm_rows(pool_, x_.data(), attn_norm_[std::size_t(il)], eps, T, xn_.data());
            attn_.forward(il, batch, xn_.data(), kv, y_.data());
            for (std::int64_t i = 0; i < T * E; ++i) x_[std::size_t(i)] += y_[std::size_t(i)];
            rms_norm_rows(pool_, x_.data(), ffn_norm_[std::size_t(il)], eps, T, xn_.data());
            if (d_.layer_is_moe(std::uint32_t(il))) moe_.forward(il, xn_.data(), T, y_.data());
            else dense_ffn(il, T);
            for (std::int64_t i = 0; i < T * E; ++i) x_[std::size_t(i)] += y_[std::size_t(i)];
        }
        // Final norm and LM head for the tokens that want logits.
        std::vector<std::int64_t> rows;
        for (std::int64_t t = 0; t < T; ++t)
            if (batch[std::size_t(t)].logits) rows.push_back(t);
        if (rows.empty()) return;
        xn_.resize(rows.size() * std::size_t(E));
        for (std::size_t i = 0; i < rows.size(); ++i)
            std::copy_n(x_.data() + rows[i] * E, E, xn_.data() + std::int64_t(i) * E);
        rms_norm_rows(pool_, xn_.data(), out_norm_, eps, std::int64_t(rows.size()), xn_.data());
        linear(pool_, w_.get("output.weight"), xn_.data(), std::int64_t(rows.size()), logits);
    }

private:
    void dense_ffn(int il, std::int64_t T) {
        const std::int64_t F = d_.n_ff;
        g_.resize(std::size_t(T * F));
        u_.resize(std::size_t(T * F));
        linear(pool_, w_.layer(il, "ffn_gate.weight"), xn_.data(), T, g_.data());
        linear(pool_, w_.layer(il, "ffn_up.weight"), xn_.data(), T, u_.data());
        kernels::cpu::swiglu_f32(g_.data(), u_.data(), g_.data(), T * F);
        linear(pool_, w_.layer(il, "ffn_down.weight"), g_.data(), T, y_.data());
    }

    const Weights& w_;
    const ModelDesc& d_;
    cpu::WorkerPool& pool_;
    moe::MoeLayer& moe_;
    CpuAttention attn_;
    std::vector<std::vector<float>> attn_norm_, ffn_norm_;
    std::vector<float> out_norm_;
    std::vector<float> x_, xn_, y_, g_, u_;
};

}  // namespace

std::unique_ptr<Runner> make_qwen3_moe_cpu(const Weights& w, cpu::WorkerPool& pool, moe::MoeLayer& moe) {
    return std::make_unique<Qwen3MoeCpu>(w, pool, moe);
}

}  // namespace ft::model
