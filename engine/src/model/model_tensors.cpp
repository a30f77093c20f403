#include "model/model_tensors.h"

#include "ft/error.h"

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
        case TensorRole::ffn_exp_probs_b:
            return true;
        default:
            return is_expert_bias();
    }
}

bool TensorSpec::keep_f32() const { return is_norm() || is_vector() || role == TensorRole::ffn_gate_inp; }

bool arch_has_tensor_table(ArchId arch) {
    return arch == ArchId::qwen3_moe || arch == ArchId::gpt_oss || arch == ArchId::glm4_moe || arch == ArchId::deepseek_v3;
}

std::vector<TensorSpec> arch_tensors(const ModelDesc& desc) {
    switch (desc.arch) {
        case ArchId::qwen3_moe: return qwen3_moe_tensors(desc);
        case ArchId::gpt_oss: return gpt_oss_tensors(desc);
        case ArchId::glm4_moe: return glm4_moe_tensors(desc);
        case ArchId::deepseek_v3: return deepseek_v3_tensors(desc);
        default:
            throw Error(ErrorCode::unsupported,
                        desc.source + ": the tensor table of architecture " + std::string(arch_name(desc.arch)) +
                            " is not implemented yet",
                        "tables exist for qwen3_moe, gpt_oss, glm4_moe and deepseek_v3");
    }
}

}  // namespace ft::model
