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

const char* moe_backend_name(MoeBackend b) {
    switch (b) {
        case MoeBackend::resident: return "resident";
        case MoeBackend::offload: return "offload";
        case MoeBackend::cpu: return "cpu";
        case MoeBackend::hybrid: return "hybrid";
        case MoeBackend::static_layers: return "static";
        case MoeBackend::automatic: return "auto";
    }
    return "?";
}

bool parse_moe_backend(const std::string& s, MoeBackend& out) {
    for (MoeBackend b : {MoeBackend::resident, MoeBackend::offload, MoeBackend::cpu, MoeBackend::hybrid,
                         MoeBackend::static_layers, MoeBackend::automatic})
        if (s == moe_backend_name(b)) {
            out = b;
            return true;
        }
    return false;
}

}  // namespace ft::model
