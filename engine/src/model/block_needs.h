// What a forward pass of a graph needs on a device besides its weights, declared once: one function per block kind
// (beside the block types of graph.h) and one for the model around the blocks. The step's scratch is a list of named
// buffers with their sizes for a given pass shape (rows, sequences, context); the blocks share the buffers, so each
// buffer is the largest any block asks for. The VRAM planner (memory/planner.cpp) sums this list for its prediction
// and the GPU runner (cuda/gpu_runner.cpp) allocates exactly this list, so the two agree by construction
// (tests/engine/test_block_needs.cpp checks it on every architecture). The KV rows per position and the recurrent
// state per sequence are the graph's KV geometry (finish_graph, from the blocks; exec/runner.h graph_kv_geometry),
// which the planner and both runners read likewise.
//
// A new block kind adds its block_needs overload here (graph_needs dispatches with std::visit: a kind without one is
// a compile error) and asks for the buffers its device code uses, by the names below.
// Pure arithmetic: no CUDA, no state.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "model/graph.h"

namespace ft::model {

// Device constants the sizes follow; the GPU runner static_asserts that they match the kernels.
inline constexpr std::int64_t kGemvMaxRows = 8;          // kernels::cuda::kGemvMaxM: up to this many rows, no GEMM tiles
inline constexpr std::int64_t kIndexChunk = 256;         // tokens per indexer pass (GpuCompressedAttention::kIndexChunk)
inline constexpr std::int64_t kMinLogitRows = 256;       // the logits tile's rows (at least max_sequences)

// The passes a device is sized for.
struct StepShape {
    std::int64_t max_tokens = 1;  // rows of one forward pass: a prefill chunk plus the decoding sequences
    int max_sequences = 1;
    int n_ctx = 4096;             // the longest context
    int page_size = 16;           // KV positions per page
    bool bf16_rows = true;        // prefill GEMMs read BF16 rows (false: f32, the exact prefill)
    bool routing_trace = false;   // the routing override / record buffers (decode_bench, --record-routing)
    std::int64_t rows() const { return std::max<std::int64_t>(max_tokens, max_sequences); }
};

// The step's scratch buffers (gpu::StepScratch and the runner's own).
enum class Scratch : int {
    x, xn,                                    // [T, n_embd] residual stream, a block's normed input
    qkv, att,                                 // attention: projections, outputs (MLA: its regions)
    heads,                                    // MLA: int32 head index per (token, head)
    lin,                                      // Gated DeltaNet's regions
    router_logits, route_w,                   // [T, n_expert], [T, k]
    route_ids, order, where, offsets,         // int32 MoE grouping
    xs, ys,                                   // [T·k, n_embd] gathered rows / expert outputs
    gate, up,                                 // [T·k, n_ff_exp] or [T, dense FFN width]
    dense_rows,                               // prefill: gathered rows in BF16 (f32: xs is used)
    logits,                                   // the logits tile [logit rows, n_vocab]
    meta,                                     // int32 batch metadata, 5 arrays of T
    routing,                                  // int32 routing trace [2][n_layer][max_sequences · k]
    pages,                                    // int32 page tables [(max_sequences + 1) · pages per context + 1]
    attn_ws,                                  // decode attention workspace (split-K partials)
    streams,                                  // hyper-connections: [streams | flat | mix | post | comb] per token
    compressed,                               // compressed attention's regions
    picks,                                    // int32 indexer picks [T, topk + 1]
    pick_scores,                              // indexer scores for kIndexChunk tokens
    count_
};
inline constexpr int kScratchKinds = int(Scratch::count_);
// The VRAM budget's label of a buffer ("attention scratch").
const char* scratch_label(Scratch b);

struct ScratchNeeds {
    std::array<std::uint64_t, kScratchKinds> bytes{};  // 0: not allocated
    std::int64_t gemm_k = 0;      // the widest GEMM input (gpu::Linear's BF16 activation tile)
    std::int64_t logit_rows = 0;  // rows of the logits tile
    void need(Scratch b, std::uint64_t n) { bytes[std::size_t(b)] = std::max(bytes[std::size_t(b)], n); }
    void need_f32(Scratch b, std::int64_t n) { need(b, std::uint64_t(std::max<std::int64_t>(n, 1)) * 4); }
    void need_i32(Scratch b, std::int64_t n) { need_f32(b, n); }
    void gemm(std::int64_t k) { gemm_k = std::max(gemm_k, k); }
    std::uint64_t operator[](Scratch b) const { return bytes[std::size_t(b)]; }
    // The whole list as a VRAM budget holds it: each buffer rounded up to 256 bytes.
    std::uint64_t total() const;
};

// Decode attention workspaces (the kernels' split-K partials: cuda/attention.cuh, cuda/mla_attention.cuh).
std::uint64_t attention_decode_workspace_bytes(int n_head, int v_head_dim, int max_sequences, int n_ctx);
std::uint64_t mla_decode_workspace_bytes(int n_head, int kv_lora, int max_sequences, int n_ctx);

// Per token widths (floats) of the regions a block lays out in its scratch buffer; the device code indexes by them.
std::int64_t qkv_width(const AttentionBlock& b);       // [q (with the output gate: query | gate) | k | v]
std::int64_t qkv_width(const MlaAttentionBlock& b);    // [q | absorbed q | compressed KV | low-rank q]
std::int64_t att_width(const MlaAttentionBlock& b);    // [latent outputs | values]
std::int64_t lin_width(const GatedDeltaNetBlock& b);   // [qkv | conv output | z | core output | ba | beta | g]
std::int64_t compressed_width(const CompressedAttentionBlock& b);
std::int64_t streams_width(const ModelGraph& g);       // hyper-connections: [streams | flat | mix | post | comb]

// Per block kind: what one block needs, into n (each buffer at least this). g: the model's sizes a block uses but
// does not hold (n_embd; the routed experts' count, k and width).
void block_needs(const AttentionBlock& b, const ModelGraph& g, const StepShape& s, ScratchNeeds& n);
void block_needs(const MlaAttentionBlock& b, const ModelGraph& g, const StepShape& s, ScratchNeeds& n);
void block_needs(const GatedDeltaNetBlock& b, const ModelGraph& g, const StepShape& s, ScratchNeeds& n);
void block_needs(const CompressedAttentionBlock& b, const ModelGraph& g, const StepShape& s, ScratchNeeds& n);
void block_needs(const FfnBlock& b, const ModelGraph& g, const StepShape& s, ScratchNeeds& n);
void block_needs(const MoeBlock& b, const ModelGraph& g, const StepShape& s, ScratchNeeds& n);

// The whole graph: every block's needs plus the model's own (activations, logits tile, batch metadata, page tables,
// the hyper-connection streams, the routing trace).
ScratchNeeds graph_needs(const ModelGraph& g, const StepShape& s);

// Bytes per KV element the graph's rows are kept in on the GPU: 2 when f16 is asked for and every block's kernels
// take f16 rows (ModelGraph::kv_rows_f32 false), else 4.
int kv_elem_bytes(const ModelGraph& g, bool want_f16);

}  // namespace ft::model
