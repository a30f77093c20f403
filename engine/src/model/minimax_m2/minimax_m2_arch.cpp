// MiniMax-M2 / M2.1 / M2.5's registry entry: hyper-parameters beyond the shared ones (the MoE, the partial rotary
// part of a head) and the `ft synth` presets.
#include <cmath>
#include <sstream>
#include <string>

#include "ft/error.h"
#include "model/arch.h"
#include "model/gguf_keys.h"
#include "model/hf_fields.h"

namespace ft::model {

std::vector<TensorSpec> minimax_m2_tensors(const ModelDesc& d);
ModelGraph minimax_m2_graph(const Weights& w);

namespace {

// MiniMaxM2Config: every layer MoE (num_local_experts, num_experts_per_tok; the expert FFN is intermediate_size), the
// sigmoid router of MiniMaxM2TopKRouter with the e_score_correction_bias buffer, always renormalised, no routed
// scaling and no shared expert; q/k norms over all heads; NeoX RoPE on int(head_dim · partial_rotary_factor) dims.
void read_hf(const HfConfig& f, ModelDesc& d) {
    auto& m = d.moe;
    m.n_expert = f.has("num_local_experts") || !f.has("num_experts") ? f.req_u32("num_local_experts") : f.req_u32("num_experts");
    m.n_expert_used = f.req_u32("num_experts_per_tok");
    m.n_ff_exp = f.req_u32("intermediate_size");
    d.n_ff = 0;  // no dense FFN layer
    m.gating = Gating::sigmoid;
    m.correction_bias = true;
    m.norm_topk_prob = true;
    d.attn.qk_norm = true;
    const double partial = f.partial_rotary_factor(1.0);
    d.rope.n_rot = static_cast<std::uint32_t>(d.attn.head_dim * partial);  // transformers: int(head_dim * factor)
    // MiniMax's own configs also say rotary_dim; transformers reads only the factor, so the two must agree.
    std::ostringstream factor;
    factor << partial;
    const std::string rot = std::to_string(d.rope.n_rot);
    if (f.has("rotary_dim") && f.req_u32("rotary_dim") != d.rope.n_rot) {
        const std::string said = std::to_string(f.req_u32("rotary_dim")), head = std::to_string(d.attn.head_dim);
        throw Error(ErrorCode::invalid_file,
                    d.source + ": config.json says rotary_dim " + said + ", but partial_rotary_factor " + factor.str() +
                        " of the head size " + head + " rotates " + rot + " dimensions",
                    "set partial_rotary_factor to rotary_dim / head_dim (transformers reads only the factor)")
            .keyed("hf_rotary_dim", {d.source, said, factor.str(), head, rot});
    }
    if (d.rope.n_rot % 2 || d.rope.n_rot == 0)
        throw Error(ErrorCode::invalid_file, d.source + ": partial_rotary_factor " + factor.str() + " rotates " + rot +
                                                 " dimensions of each head; it must be an even number above 0")
            .keyed("hf_rotary_odd", {d.source, rot});
}

// llama.cpp's minimax-m2 graph hard-codes the renormalised top-k with the selection bias (exp_probs_b); its converter
// stores the sigmoid gating (expert_gating_func, read after this).
void read_gguf(const GgufKeys&, ModelDesc& d) {
    d.n_ff = 0;  // feed_forward_length holds the experts' width in llama.cpp's files (write_gguf): no dense FFN
    d.moe.gating = Gating::sigmoid;
    d.moe.correction_bias = true;
    d.moe.norm_topk_prob = true;
    d.attn.qk_norm = true;
}

// llama.cpp's minimax-m2 sizes its expert tensors by feed_forward_length (its converter writes the experts' width
// there as well as in expert_feed_forward_length); the model has no dense FFN of its own.
void write_gguf(const ModelDesc& d, GgufKeyWriter& keys) { keys.u32("feed_forward_length", d.moe.n_ff_exp); }

// The released models rotate half of each head.
void synth_fit(ModelDesc& d) { d.rope.n_rot = d.attn.head_dim / 2; }

ModelDesc minimax_m2_common() {
    ModelDesc d;
    d.arch = ArchId::minimax_m2;
    d.norm_eps = 1e-6;
    d.rope.type = RopeType::neox;
    d.rope.theta = 5e6;
    d.attn.qk_norm = true;
    d.moe.gating = Gating::sigmoid;
    d.moe.correction_bias = true;
    d.moe.norm_topk_prob = true;
    return d;
}

// MiniMax-M2.5 (MiniMaxAI/MiniMax-M2.5 config.json, as MiniMax-M2 and M2.1): 229B-A10B, 62 layers, hidden 3072,
// 48/8 heads of 128 with RoPE on 64 dims (theta 5e6), 256 experts top-8 of 1536, vocab 200064, context 196608.
ModelDesc minimax_m2_5() {
    ModelDesc d = minimax_m2_common();
    d.n_vocab = 200064;
    d.n_layer = 62, d.n_embd = 3072, d.n_ctx_train = 196608;
    d.attn.n_head = 48, d.attn.n_head_kv = 8, d.attn.head_dim = 128;
    d.rope.n_rot = 64;
    d.moe.n_expert = 256, d.moe.n_expert_used = 8, d.moe.n_ff_exp = 1536;
    return d;
}

// tiny: 3 layers, hidden 64, 4/2 heads of 16 (RoPE on 8), 8 experts top-2 of 32, vocab 512.
ModelDesc minimax_m2_tiny() {
    ModelDesc d = minimax_m2_common();
    d.n_vocab = 512;
    d.n_layer = 3, d.n_embd = 64, d.n_ctx_train = 4096;
    d.attn.n_head = 4, d.attn.n_head_kv = 2, d.attn.head_dim = 16;
    d.rope.n_rot = 8;
    d.moe.n_expert = 8, d.moe.n_expert_used = 2, d.moe.n_ff_exp = 32;
    return d;
}

}  // namespace

const Arch& minimax_m2_arch() {
    static const Arch a{
        .id = ArchId::minimax_m2,
        .name = "minimax_m2",
        .gguf_name = "minimax-m2",
        .hf = {{"MiniMaxM2ForCausalLM", "minimax_m2"}},
        .read_hf = &read_hf,
        .read_gguf = &read_gguf,
        .write_gguf = &write_gguf,
        .tensors = &minimax_m2_tensors,
        .graph = &minimax_m2_graph,
        .presets = {{"minimax-m2.5", &minimax_m2_5}, {"minimax-m2-tiny", &minimax_m2_tiny}},
        .synth_fit = &synth_fit,
    };
    return a;
}

}  // namespace ft::model
