// A model runner executes the forward pass of a batch of tokens on one device. The engine's scheduler owns the KV
// cache and forms batches; runners know only weights, kernels and the MoE entry point.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "cpu/worker_pool.h"
#include "kv/kv_cache.h"
#include "model/weights.h"
#include "moe/moe_layer.h"

namespace ft::model {

struct BatchToken {
    std::int32_t token = 0;
    std::int32_t pos = 0;   // position in its sequence
    int seq = 0;            // KV cache sequence id
    bool logits = false;    // produce logits for this token
};

class Runner {
public:
    virtual ~Runner() = default;
    // The tokens of one sequence must be contiguous in `batch` and in increasing position order, with KV room
    // already reserved up to their last position. Writes their K/V, and fills `logits` with one row of n_vocab
    // floats per token whose .logits is set, in batch order.
    virtual void forward(std::span<const BatchToken> batch, kv::KvCache& kv, float* logits) = 0;
    // The KV layout this runner needs.
    virtual kv::KvGeometry kv_geometry(int page_size, std::int64_t n_pages) const = 0;
};

// The CPU runner for the model's architecture. Throws ft::Error(unsupported) for an architecture with no forward
// pass yet (the message names it).
std::unique_ptr<Runner> make_cpu_runner(const Weights& weights, cpu::WorkerPool& pool, moe::MoeLayer& moe);

}  // namespace ft::model
