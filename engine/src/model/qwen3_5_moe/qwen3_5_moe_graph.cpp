// Qwen3.5 / Qwen3.6-MoE and Qwen3-Next: the pre-norm decoder whose token mixer is Gated DeltaNet linear attention
// (GatedDeltaNetBlock) in the layers the description marks linear and gated full attention (AttentionBlock with
// output_gate, per-head q/k norms, partial NeoX RoPE) in the others; then the MoE FFN with the sigmoid-gated shared
// expert (or a dense FFN on Qwen3-Next's mlp_only_layers). Attention layers take consecutive KV-cache layers and
// linear layers consecutive recurrent-state layers, so the caches hold only the layers that use them.
#include "model/arch.h"

namespace ft::model {

ModelGraph qwen3_5_moe_graph(const Weights& w) {
    const ModelDesc& d = w.desc();
    std::vector<int> kv_layer(d.n_layer, -1), rs_layer(d.n_layer, -1);
    int n_kv = 0, n_rs = 0;
    for (std::uint32_t il = 0; il < d.n_layer; ++il) (d.linear.is_linear(il) ? rs_layer[il] = n_rs++ : kv_layer[il] = n_kv++);
    return pre_norm_decoder(
        w, "post_attention_norm.weight",
        [&w](int il) -> BlockBody {
            if (w.desc().layer_is_moe(std::uint32_t(il)) && w.layer_has_experts(il)) return moe_ffn(w, il);
            return dense_ffn(w, il);
        },
        [&](int il) -> BlockBody {
            if (rs_layer[std::size_t(il)] >= 0) return gated_delta_net(w, il, rs_layer[std::size_t(il)]);
            AttentionBlock a = gqa_attention(w, il);
            a.kv_layer = kv_layer[std::size_t(il)];
            return a;
        });
}

}  // namespace ft::model
