#include "model/model_tensors.h"

#include "ft/error.h"
#include "model/arch.h"

namespace ft::model {

std::uint64_t TensorSpec::n_elements() const {
    std::uint64_t n = 1;
    for (auto d : dims) n *= d;
    return n;
}

bool TensorSpec::is_norm() const {
    switch (role) {
        case TensorRole::output_norm: case TensorRole::attn_norm: case TensorRole::ffn_norm:
        case TensorRole::attn_q_norm: case TensorRole::attn_k_norm:
        case TensorRole::attn_q_a_norm: case TensorRole::attn_kv_a_norm:
        case TensorRole::nextn_enorm: case TensorRole::nextn_hnorm: case TensorRole::nextn_shared_head_norm:
        case TensorRole::ssm_norm: case TensorRole::attn_comp_norm: case TensorRole::attn_idx_norm:
            return true;
        default:
            return false;
    }
}

bool TensorSpec::is_expert() const {
    return role == TensorRole::ffn_gate_exps || role == TensorRole::ffn_up_exps || role == TensorRole::ffn_down_exps;
}

bool TensorSpec::is_expert_bias() const {
    return role == TensorRole::ffn_gate_exps_bias || role == TensorRole::ffn_up_exps_bias ||
           role == TensorRole::ffn_down_exps_bias;
}

bool TensorSpec::is_vector() const {
    switch (role) {
        case TensorRole::attn_q_bias: case TensorRole::attn_k_bias: case TensorRole::attn_v_bias:
        case TensorRole::attn_output_bias: case TensorRole::attn_sinks: case TensorRole::ffn_gate_inp_bias:
        case TensorRole::ffn_exp_probs_b: case TensorRole::ssm_dt: case TensorRole::ssm_a:
        case TensorRole::ffn_gate_inp_shexp: case TensorRole::ssm_conv1d:
        case TensorRole::hc_attn_base: case TensorRole::hc_attn_scale: case TensorRole::hc_ffn_base:
        case TensorRole::hc_ffn_scale: case TensorRole::hc_head_base: case TensorRole::hc_head_scale:
        case TensorRole::attn_comp_bias: case TensorRole::attn_idx_bias: case TensorRole::attn_idx_norm_bias:
            return true;
        default:
            return is_expert_bias();
    }
}

// The hyper-connection mixers too: transformers keeps them in f32 (_keep_in_fp32_modules_strict), and they are small.
bool TensorSpec::keep_f32() const {
    return is_norm() || is_vector() || role == TensorRole::ffn_gate_inp || role == TensorRole::hc_attn_fn ||
           role == TensorRole::hc_ffn_fn || role == TensorRole::hc_head_fn;
}

std::vector<TensorSpec> moe_ffn_tensors(const ModelDesc& d, std::uint32_t il) {
    using R = TensorRole;
    const std::uint64_t e = d.n_embd, ff = d.moe.n_ff_exp, ne = d.moe.n_expert;
    const std::string b = "blk." + std::to_string(il) + ".", h = "model.layers." + std::to_string(il) + ".";
    const int l = static_cast<int>(il);
    std::vector<TensorSpec> t;
    t.push_back({b + "ffn_gate_inp.weight", {e, ne}, R::ffn_gate_inp, l, {h + "mlp.gate.weight"}});
    if (d.moe.correction_bias)
        t.push_back({b + "exp_probs_b.bias", {ne}, R::ffn_exp_probs_b, l, {h + "mlp.gate.e_score_correction_bias"}});
    auto experts = [&](const char* proj) {
        std::vector<std::string> names;
        names.reserve(ne);
        for (std::uint64_t x = 0; x < ne; ++x) names.push_back(h + "mlp.experts." + std::to_string(x) + "." + proj + ".weight");
        return names;
    };
    t.push_back({b + "ffn_gate_exps.weight", {e, ff, ne}, R::ffn_gate_exps, l, experts("gate_proj")});
    t.push_back({b + "ffn_up_exps.weight", {e, ff, ne}, R::ffn_up_exps, l, experts("up_proj")});
    t.push_back({b + "ffn_down_exps.weight", {ff, e, ne}, R::ffn_down_exps, l, experts("down_proj")});
    if (d.moe.n_shared_expert) {
        const std::uint64_t fs = d.moe.n_ff_shexp;
        t.push_back({b + "ffn_gate_shexp.weight", {e, fs}, R::ffn_gate_shexp, l, {h + "mlp.shared_experts.gate_proj.weight"}});
        t.push_back({b + "ffn_up_shexp.weight", {e, fs}, R::ffn_up_shexp, l, {h + "mlp.shared_experts.up_proj.weight"}});
        t.push_back({b + "ffn_down_shexp.weight", {fs, e}, R::ffn_down_shexp, l, {h + "mlp.shared_experts.down_proj.weight"}});
    }
    return t;
}

std::vector<TensorSpec> dense_ffn_tensors(const ModelDesc& d, std::uint32_t il) {
    using R = TensorRole;
    const std::uint64_t e = d.n_embd, ff = d.n_ff;
    const std::string b = "blk." + std::to_string(il) + ".", h = "model.layers." + std::to_string(il) + ".";
    const int l = static_cast<int>(il);
    return {{b + "ffn_gate.weight", {e, ff}, R::ffn_gate, l, {h + "mlp.gate_proj.weight"}},
            {b + "ffn_up.weight", {e, ff}, R::ffn_up, l, {h + "mlp.up_proj.weight"}},
            {b + "ffn_down.weight", {ff, e}, R::ffn_down, l, {h + "mlp.down_proj.weight"}}};
}

void with_fused_experts(const ModelDesc& d, std::uint32_t il, std::vector<TensorSpec>& ffn) {
    const std::string h = "model.layers." + std::to_string(il) + ".";
    const std::uint32_t ff = d.moe.n_ff_exp;
    for (TensorSpec& s : ffn) {
        if (s.role == TensorRole::ffn_gate_exps || s.role == TensorRole::ffn_up_exps) {
            s.hf_fused = h + "mlp.experts.gate_up_proj";
            s.hf_fused_rows = 2 * ff;
            s.hf_offset = s.role == TensorRole::ffn_up_exps ? ff : 0;
        } else if (s.role == TensorRole::ffn_down_exps) {
            s.hf_fused = h + "mlp.experts.down_proj";
            s.hf_fused_rows = d.n_embd;
        }
    }
}

bool arch_has_tensor_table(ArchId arch) { return arch_of(arch).tensors != nullptr; }

std::vector<TensorSpec> arch_tensors(const ModelDesc& desc) {
    const Arch& a = arch_of(desc.arch);
    if (!a.tensors)
        throw Error(ErrorCode::unsupported,
                    desc.source + ": the tensor table of architecture " + std::string(a.name) + " is not implemented yet",
                    "tables exist for " + runnable_arch_names());
    return a.tensors(desc);
}

}  // namespace ft::model
