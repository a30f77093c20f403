#include "model/runner.h"

#include "ft/error.h"
#include "model/qwen3_moe/qwen3_moe.h"

namespace ft::model {

std::unique_ptr<Runner> make_cpu_runner(const Weights& weights, cpu::WorkerPool& pool, moe::MoeLayer& moe) {
    switch (weights.desc().arch) {
        case ArchId::qwen3_moe: return make_qwen3_moe_cpu(weights, pool, moe);
        default: break;
    }
    throw Error(ErrorCode::unsupported,
                weights.path().string() + ": architecture " + std::string(arch_name(weights.desc().arch)) +
                    " is described but has no forward pass yet",
                "supported for inference: qwen3_moe");
}

}  // namespace ft::model
