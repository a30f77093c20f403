// Qwen3-MoE (GGUF "qwen3moe", HF Qwen3MoeForCausalLM): runners per device.
#pragma once

#include <memory>

#include "model/runner.h"

namespace ft::model {

std::unique_ptr<Runner> make_qwen3_moe_cpu(const Weights& w, cpu::WorkerPool& pool, moe::MoeLayer& moe);

}  // namespace ft::model
