// Architecture tensor tables: for a ModelDesc, every tensor of the model with its GGUF name, its shape in GGUF order
// (dims[0] innermost: a Hugging Face [out, in] weight is GGUF [in, out] with the same bytes), its role and its
// Hugging Face source name(s). Each architecture's table lives in its folder (model/<arch>/) and is named by its
// registry entry (arch.h); the shared pieces of the tables are here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/model_desc.h"

namespace ft::model {

enum class TensorRole {
    token_embd, output_norm, output,
    attn_norm, attn_q, attn_k, attn_v, attn_output, attn_q_norm, attn_k_norm,
    ffn_norm, ffn_gate_inp,                    // ffn_norm: the norm before the FFN (GGUF "ffn_norm" or, for gpt-oss
                                               // and GLM-4.5, "post_attention_norm"); ffn_gate_inp: the router
    ffn_gate_exps, ffn_up_exps, ffn_down_exps,  // routed experts, stacked [.., .., n_expert]
    ffn_gate, ffn_up, ffn_down,                // dense FFN
    // Biases and per-head vectors (always F32 in files we write; Weights gives them as F32).
    attn_q_bias, attn_k_bias, attn_v_bias, attn_output_bias,  // [n_head·head_dim] … [n_embd]
    attn_sinks,                                // [n_head]: one extra softmax logit per query head (gpt-oss)
    ffn_gate_inp_bias,                         // [n_expert]: router bias added to the logits (gpt-oss)
    ffn_exp_probs_b,                           // [n_expert]: selection-only bias (e_score_correction_bias; GLM)
    ffn_gate_exps_bias, ffn_up_exps_bias,      // [n_ff_exp, n_expert]: routed expert biases (gpt-oss)
    ffn_down_exps_bias,                        // [n_embd, n_expert]
    ffn_gate_shexp, ffn_up_shexp, ffn_down_shexp,  // shared expert(s) as one dense FFN of n_ff_shexp (GLM)
    // Multi-head latent attention (DeepSeek): low-rank q (q_a → q_a_norm → q_b) or attn_q, the shared compressed
    // KV (kv_a_mqa → kv_a_norm on its latent part), and the per-head up-projections of kv_b split as llama.cpp
    // does: k_b [n_head][kv_lora, nope] (transposed, for the absorbed query), v_b [n_head][v, kv_lora].
    attn_q_a, attn_q_a_norm, attn_q_b, attn_kv_a_mqa, attn_kv_a_norm, attn_k_b, attn_v_b,
    // GLM's multi-token-prediction layers (layer >= n_layer): listed so that files keep them, never loaded.
    nextn_eh_proj, nextn_enorm, nextn_hnorm, nextn_shared_head_norm,
    // Gated DeltaNet (Qwen3-Next, Qwen3.5): the mixed q|k|v projection (attn_qkv), the output gate z (attn_gate),
    // beta and alpha (ssm_beta / ssm_alpha, or Qwen3-Next's ssm_ba: per key head [beta (R) | alpha (R)]), the
    // depthwise conv [conv_dim, kernel], dt bias and A (= -exp(A_log)) per value head, the gated norm [v_head_dim],
    // the output projection (ssm_out). The shared expert's gate (ffn_gate_inp_shexp [n_embd]).
    ssm_qkv, ssm_gate, ssm_beta, ssm_alpha, ssm_ba, ssm_conv1d, ssm_dt, ssm_a, ssm_norm, ssm_out, ffn_gate_inp_shexp,
    // DeepSeek-V4: the hyper-connection mixers of each block and of the output (fn [(2+N)·N, N·n_embd], base,
    // scale [3]; the head's fn [N, N·n_embd], base [N], scale [1]), the shared K = V projection (attn_kv, its norm
    // attn_kv_a_norm), the grouped output (attn_output_a [G·o_lora, n_head·head_dim/G], attn_output_b), the
    // compressor (kv, gate, position bias [ratio, width], norm) and the lightning indexer (the same four at its
    // head dim, its q_b from the q rank, the per-head weights), and the hash routing table (tid2eid [n_vocab, k],
    // integers, kept as i32).
    hc_attn_fn, hc_attn_base, hc_attn_scale, hc_ffn_fn, hc_ffn_base, hc_ffn_scale, hc_head_fn, hc_head_base, hc_head_scale,
    attn_kv, attn_output_a, attn_output_b,
    attn_comp_kv, attn_comp_gate, attn_comp_bias, attn_comp_norm,
    attn_idx_kv, attn_idx_gate, attn_idx_bias, attn_idx_norm, attn_idx_q_b, attn_idx_weights,
    // GLM-5's indexer (DeepSeek sparse attention) uses attn_idx_q_b, attn_idx_weights, attn_idx_kv (its key
    // projection) and attn_idx_norm (a LayerNorm) with that norm's bias.
    attn_idx_norm_bias,
    ffn_hash_table,
};

// How a tensor is found in a Hugging Face checkpoint.
enum class HfLayout : std::uint8_t {
    // hf_names[0] holds the same bytes (row-major [out, in] == GGUF [in, out]); several names (routed experts):
    // each is one expert's [out, in] matrix, stacked along the outermost GGUF dim in order.
    direct,
    // gpt-oss's fused experts, hf_names[0] = "<p>" of shape [n_expert, in, n_cols] (HF computes x @ W): this
    // tensor's output rows are columns hf_offset, hf_offset + hf_step, … of each expert (gate_up_proj interleaves
    // gate (offset 0) and up (offset 1) with step 2; down_proj: offset 0, step 1). When "<p>" is absent and
    // "<p>_blocks" / "<p>_scales" are present, it is the MXFP4 form: blocks [n_expert, n_cols, in/32, 16] u8 (byte j
    // of a block holds element 2j in its low nibble, 2j+1 in its high one), scales [n_expert, n_cols, in/32] u8
    // (E8M0: 2^(s-127)), rows n_cols being the outputs (same offset/step).
    moe_fused,
    // gpt-oss's fused expert biases, hf_names[0] of shape [n_expert, n_cols]: elements hf_offset + hf_step·i.
    moe_fused_bias,
    // DeepSeek's kv_b_proj, hf_names[0] of shape [n_head·(nope + v), kv_lora]: head h's rows start at h · hf_step
    // (hf_step = nope + v). mla_k_b: the nope rows of each head transposed into [kv_lora, nope] (GGUF dims {nope,
    // kv_lora, n_head}); mla_v_b: rows hf_offset (= nope) .. + v of each head as they are ({kv_lora, v, n_head}).
    // A GGUF file without attn_k_b / attn_v_b (converted before llama.cpp split kv_b) gives them from its
    // attn_kv_b the same way.
    mla_k_b,
    mla_v_b,
    // Rows gathered from hf_names[0], whose rows form groups of hf_step rows (Qwen3-Next's in_proj_qkvz: one group
    // per key head, [q | k | v | z]): for each (offset, count) of hf_segments in turn, rows offset .. offset + count
    // of every group, groups in order.
    rows,
    // Qwen3.5 / Qwen3-Next zero-centred RMSNorm weights: HF stores w, the norm multiplies by 1 + w (GGUF stores
    // 1 + w, as llama.cpp's converter writes it).
    norm_plus_one,
    // A_log of a linear-attention layer: GGUF's ssm_a is -exp(A_log).
    neg_exp,
};

struct TensorSpec {
    std::string name;                 // "blk.3.ffn_up_exps.weight"
    std::vector<std::uint64_t> dims;  // GGUF order
    TensorRole role = TensorRole::token_embd;
    int layer = -1;                   // -1 for global tensors
    // Source tensors in a Hugging Face checkpoint (see HfLayout).
    std::vector<std::string> hf_names;
    HfLayout hf_layout = HfLayout::direct;
    std::uint32_t hf_offset = 0, hf_step = 1;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> hf_segments{};  // HfLayout::rows
    // Hugging Face routed experts: when the per-expert hf_names are absent, the 3-D form [n_expert, rows, in]
    // under this name (Qwen3.5's mlp.experts.gate_up_proj / down_proj), this tensor's rows starting at hf_offset
    // of each expert's hf_fused_rows rows.
    std::string hf_fused{};
    std::uint32_t hf_fused_rows = 0;
    // A single-name tensor's second Hugging Face name, read when hf_names[0] is absent (MiniMax-M2: the published
    // block_sparse_moe.gate.weight, or transformers' in-memory mlp.gate.weight).
    std::string hf_alt{};
    bool unused = false;              // kept in files (GLM's MTP layers) but never loaded or run

    std::uint64_t n_elements() const;
    bool is_norm() const;         // 1-D scale vectors: always stored F32
    bool is_expert() const;       // routed expert stacks (weights)
    bool is_expert_bias() const;  // routed expert bias stacks
    bool is_vector() const;       // biases, sinks, router/selection biases: stored F32, given as F32
    bool keep_f32() const;        // norms, vectors and the router (llama.cpp never quantizes ffn_gate_inp)
};

// The full tensor list of a model in file order (its architecture's table). Throws ft::Error(unsupported) for an
// architecture whose table is not written yet (the message names the architecture).
std::vector<TensorSpec> arch_tensors(const ModelDesc& desc);
bool arch_has_tensor_table(ArchId arch);

// The FFN tensors of layer il under llama.cpp's names and per-expert Hugging Face names ("model.layers.N.mlp.…"),
// shared by the tables: the MoE FFN (router, the selection bias when desc.moe.correction_bias, the routed experts,
// the shared experts when desc.moe.n_shared_expert) and the dense FFN (n_ff wide).
std::vector<TensorSpec> moe_ffn_tensors(const ModelDesc& desc, std::uint32_t il);
std::vector<TensorSpec> dense_ffn_tensors(const ModelDesc& desc, std::uint32_t il);
// Marks the routed experts of layer il's FFN tensors as also readable from transformers' 3-D form (hf_fused:
// "model.layers.N.mlp.experts.gate_up_proj" [n_expert, 2·n_ff_exp, n_embd] with gate then up, "…down_proj").
void with_fused_experts(const ModelDesc& desc, std::uint32_t il, std::vector<TensorSpec>& ffn);

}  // namespace ft::model
