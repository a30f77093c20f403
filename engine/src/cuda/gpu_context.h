// What the GPU runner's blocks share during a forward pass: the stream, the VRAM budget, the linear layer, the
// step's scratch buffers and batch metadata on the device, the KV cache, and the profiler's phase marks.
// The runner (gpu_runner.cpp) owns it; blocks (gpu_attention.cpp, gpu_moe.cpp) read and launch through it.
// Engine-internal; CUDA builds only; one engine thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>

#include <cuda_runtime.h>

#include "cuda/gpu_runtime.h"
#include "exec/runner.h"
#include "kv/kv_cache.h"

namespace ft::gpu {

// Scratch of one forward pass, sized for max_t tokens by the runner from the blocks' declared needs
// (model/block_needs.h; memory/planner.h sums the same list). Buffers no block declares are null.
struct StepScratch {
    std::shared_ptr<float> x, xn;          // [T, n_embd] residual stream and normed input of a block
    std::shared_ptr<float> qkv, att;       // [T, q + k + v], [T, n_head · v_head_dim]
    std::shared_ptr<float> router_logits;  // [T, n_expert]
    std::shared_ptr<float> route_w;        // [T, k]
    std::shared_ptr<std::int32_t> route_ids, order, where, offsets;
    std::shared_ptr<float> xs, ys;         // [T·k, n_embd]: MoE rows gathered / expert outputs
    std::shared_ptr<float> g, u;           // [T·k, n_ff] (or [T, dense FFN width]); prefill: g holds h in BF16
    std::shared_ptr<void> attn_ws;         // decode attention workspace
    std::shared_ptr<void> dense_rows;      // prefill: gathered rows in the GEMM type
    std::shared_ptr<std::int32_t> routing; // [2][n_layer][max_sequences·k]: routing override, then recorded (or null)
    std::shared_ptr<std::int32_t> heads;   // MLA: [max_t · n_head] head index of each (token, head) pair, p % n_head
    std::shared_ptr<float> lin;            // Gated DeltaNet: GpuGatedDeltaNet's regions, max_t rows each
    // Compressed attention: GpuCompressedAttention's regions (max_t rows each), its indexer picks [max_t, topk] +
    // counts [max_t] and scores workspace. Hyper-connections: [streams | flat | mix | post | comb], max_t rows each.
    std::shared_ptr<float> compressed, hc;
    std::shared_ptr<std::int32_t> picks;
    std::shared_ptr<void> pick_scores;
};

struct GpuContext {
    const exec::GpuRunnerOptions& opt;
    VramBudget& vram;
    cudaStream_t stream = nullptr;
    Linear* linear = nullptr;
    StepScratch s;
    std::int64_t n_embd = 0, max_t = 0;
    int n_layer = 0;

    // This forward pass: device metadata (token ids, positions, page-table rows), the host copy of the rows (for
    // per-sequence segments of eager attention), the batch, the KV cache and its page tables.
    const std::int32_t* d_tok = nullptr;
    const std::int32_t* d_pos = nullptr;
    const std::int32_t* d_row = nullptr;
    const std::int32_t* d_slot = nullptr;  // recurrent-state slot (KV sequence id) of each token
    const std::int32_t* host_row = nullptr;
    std::int32_t* d_pages = nullptr;
    int pages_stride = 0, page_size = 16;
    std::span<const exec::BatchToken> batch;
    kv::KvCache* kv = nullptr;

    // The next block's input norm, for a block that can end with it fused (a MoE block's weighted sum: the residual
    // and the norm in one launch); null when it is not fused (the last block, DeepSeek-V4's hyper-connections). A
    // block that wrote xn that way sets xn_ready, and the runner leaves out the next block's norm.
    const float* next_norm = nullptr;
    float next_norm_eps = 0.f;
    bool xn_ready = false;
    // This block's input norm when the block computes it itself (a MoE block's norm fused with its router): xn is
    // not written yet. Null: xn holds the block's input.
    const float* own_norm = nullptr;
    float own_norm_eps = 0.f;

    // Profiling: a timing event at the end of a phase (set by the runner while it profiles a step).
    std::function<void(const char*)> on_mark;
    std::uint64_t launches = 0;

    void mark(const char* phase) const {
        if (on_mark) on_mark(phase);
    }
    void launched(cudaError_t e, const char* what) {
        check(e, what);
        ++launches;
    }
    // y (+)= x · Wᵀ for m rows.
    void matmul(const DeviceMatrix& w, const float* x, std::int64_t m, float* y, bool accumulate = false) {
        linear->run(w, x, m, w.cols, y, w.rows, accumulate);
    }
    // Waits for the stream (the runner's way: blocking on an event while CPU expert workers need the cores).
    std::function<void(const char*)> sync;
};

}  // namespace ft::gpu
