// Architecture tensor tables: for a ModelDesc, every tensor of the model with its GGUF name, its shape in GGUF order
// (dims[0] innermost: a Hugging Face [out, in] weight is GGUF [in, out] with the same bytes), its role and its
// Hugging Face source name(s). Each architecture's table lives in its folder (model/<arch>/); model_tensors.cpp holds
// the registry.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/model_desc.h"

namespace ft::model {

enum class TensorRole {
    token_embd, output_norm, output,
    attn_norm, attn_q, attn_k, attn_v, attn_output, attn_q_norm, attn_k_norm,
    ffn_norm, ffn_gate_inp,                    // router
    ffn_gate_exps, ffn_up_exps, ffn_down_exps,  // routed experts, stacked [.., .., n_expert]
    ffn_gate, ffn_up, ffn_down,                // dense FFN
};

struct TensorSpec {
    std::string name;                 // "blk.3.ffn_up_exps.weight"
    std::vector<std::uint64_t> dims;  // GGUF order
    TensorRole role = TensorRole::token_embd;
    int layer = -1;                   // -1 for global tensors
    // Source tensors in a Hugging Face checkpoint. One name: same bytes (row-major [out, in] == GGUF [in, out]).
    // Several (routed experts): each is one expert's [out, in] matrix, stacked along the outermost GGUF dim in order.
    std::vector<std::string> hf_names;

    std::uint64_t n_elements() const;
    bool is_norm() const;         // 1-D scale vectors: always stored F32
    bool is_expert() const;       // routed expert stacks
    bool keep_f32() const;        // norms and the router (llama.cpp never quantizes ffn_gate_inp)
};

// The full tensor list of a model in file order. Throws ft::Error(unsupported) for an architecture whose table is
// not written yet (the message names the architecture).
std::vector<TensorSpec> arch_tensors(const ModelDesc& desc);
bool arch_has_tensor_table(ArchId arch);

// Per-architecture tables (defined in model/<arch>/).
std::vector<TensorSpec> qwen3_moe_tensors(const ModelDesc& desc);

}  // namespace ft::model
