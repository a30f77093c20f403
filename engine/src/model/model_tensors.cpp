#include "model/model_tensors.h"

#include "ft/error.h"

namespace ft::model {

std::uint64_t TensorSpec::n_elements() const {
    std::uint64_t n = 1;
    for (auto d : dims) n *= d;
    return n;
}

bool TensorSpec::is_norm() const {
    return role == TensorRole::output_norm || role == TensorRole::attn_norm || role == TensorRole::ffn_norm ||
           role == TensorRole::attn_q_norm || role == TensorRole::attn_k_norm;
}

bool TensorSpec::is_expert() const {
    return role == TensorRole::ffn_gate_exps || role == TensorRole::ffn_up_exps || role == TensorRole::ffn_down_exps;
}

bool TensorSpec::keep_f32() const { return is_norm() || role == TensorRole::ffn_gate_inp; }

bool arch_has_tensor_table(ArchId arch) { return arch == ArchId::qwen3_moe; }

std::vector<TensorSpec> arch_tensors(const ModelDesc& desc) {
    switch (desc.arch) {
        case ArchId::qwen3_moe: return qwen3_moe_tensors(desc);
        default:
            throw Error(ErrorCode::unsupported,
                        desc.source + ": the tensor table of architecture " + std::string(arch_name(desc.arch)) +
                            " is not implemented yet",
                        "this build writes and converts qwen3_moe only");
    }
}

}  // namespace ft::model
