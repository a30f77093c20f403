// The architecture registry: what each architecture folder (model/<arch>/) provides. An architecture declares its
// tensor table (GGUF and Hugging Face names, shapes, roles; model_tensors.h) and builds its forward pass as a
// ModelGraph of shared blocks (graph.h). Its hyper-parameters come from GGUF metadata / config.json through
// model_desc.h. Nothing outside model/ names an architecture: the engine asks this registry.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/graph.h"
#include "model/model_desc.h"
#include "model/model_tensors.h"

namespace ft::model {

struct Arch {
    ArchId id;
    std::vector<TensorSpec> (*tensors)(const ModelDesc&) = nullptr;  // null: described only
    ModelGraph (*graph)(const Weights&) = nullptr;                  // null: no forward pass yet
};

// The entry of an architecture (every ArchId has one).
const Arch& arch_of(ArchId id);

// Whether the engine runs models of this architecture (it has a forward pass), and if not, why (one line for the
// UI and `ft inspect`).
bool arch_runs(ArchId id);
std::optional<std::string> arch_unsupported_reason(ArchId id);
// The architectures that run, by our names ("qwen3_moe, gpt_oss, …"), for messages.
std::string runnable_arch_names();

// Per-architecture graph builders (defined in model/<arch>/).
ModelGraph qwen3_moe_graph(const Weights& w);
ModelGraph gpt_oss_graph(const Weights& w);
ModelGraph glm4_moe_graph(const Weights& w);
ModelGraph deepseek_v3_graph(const Weights& w);
ModelGraph qwen3_5_moe_graph(const Weights& w);  // Qwen3.5/3.6-MoE and Qwen3-Next
ModelGraph deepseek_v4_graph(const Weights& w);

// Shared pieces the builders use.
// The common pre-norm decoder: token embedding; per layer the attention block (`attention`, default GQA) under
// "attn_norm", then the FFN block the architecture chooses for the layer under the norm named `ffn_norm`
// ("ffn_norm.weight", "post_attention_norm.weight"); final norm and LM head.
ModelGraph pre_norm_decoder(const Weights& w, const char* ffn_norm, const std::function<BlockBody(int il)>& ffn,
                            const std::function<BlockBody(int il)>& attention = {});
AttentionBlock gqa_attention(const Weights& w, int il);  // q/k/v/o (+ biases, q/k norms, sinks when present)
MlaAttentionBlock mla_attention(const Weights& w, int il);  // DeepSeek's latent attention
GatedDeltaNetBlock gated_delta_net(const Weights& w, int il, int rs_layer);  // linear attention (Qwen3-Next, 3.5)
FfnBlock dense_ffn(const Weights& w, int il);             // ffn_gate/up/down (+ biases when present)
MoeBlock moe_ffn(const Weights& w, int il);               // router, selection bias, routing, activation
NormRef norm_of(const Weights& w, const std::string& name);
// The routed experts' activation, and the kernels' signed limit argument for it (graph.h swiglu_limit_arg).
Activation activation(const ModelDesc& d);
float swiglu_limit_arg(const ModelDesc& d);
// Fills the geometry maxima of a finished graph (graph.h) and checks that the attention blocks share one KV layout.
void finish_graph(ModelGraph& g, const Weights& w);

}  // namespace ft::model
