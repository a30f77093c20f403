// What a forward pass of a graph needs on a device, declared once: one function per block kind
// (beside the block types of graph.h) and one for the model around the blocks. The step's scratch is a list of named
// buffers with their sizes for a given pass shape (rows, sequences, context); the blocks share the buffers, so each
// buffer is the largest any block asks for. The VRAM planner (memory/planner.cpp) sums this list for its prediction
// and the GPU runner (cuda/gpu_runner.cpp) allocates exactly this list, so the two agree by construction
// (tests/engine/test_block_needs.cpp checks it on every architecture). The KV rows per position and the recurrent
// state per sequence are the graph's KV geometry (finish_graph, from the blocks; exec/runner.h graph_kv_geometry),
// which the planner and both runners read likewise. The weights likewise (block_weights, below).
//
// A new block kind adds its block_needs and block_weights overloads here (graph_needs and graph_weights dispatch with
// std::visit: a kind without one is a compile error) and asks for the buffers its device code uses, by the names
// below, and counts the tensors its device code uploads.
// Pure arithmetic: no CUDA, no state.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

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

// ---- Weights ----
// What a device holds of the graph's weights, declared per block kind like the scratch: the tensors each block's
// device code uploads (cuda/gpu_attention.cpp, gpu_moe.cpp, gpu_runner.cpp), each one allocation as
// cuda/gpu_weights.cpp makes it — a matrix in its stored type, a vector (norm, bias, sink, scale, conv taps) widened
// to f32, an integer table in i32, a block's q/k/v of one type and width as one stack, every allocation at least
// 256 bytes (the VRAM budget's smallest), a tensor two blocks share (a tied LM head) once — and the routed experts of
// each MoE layer, per expert and projection. The planner (memory/planner.cpp geometry_of) sums this for the plan's
// weights and expert slots, the GPU runner checks its upload against it (GpuRunner::upload_weights).
//
// The stored type of each tensor: the views' own (a loaded model), or for a description without a file
// (Weights::shapes: ft inspect --plan, the fit predictor, ft synth presets) a table by GGUF tensor name, the routed
// experts under their stacks' names ("blk.N.ffn_down_exps.weight": llama.cpp's _M recipes give some layers' down
// projections a larger type than the others').
struct WeightTypes {
    std::map<std::string, kernels::DType, std::less<>> by_name;  // empty: the views' own types and row bytes
};

struct WeightNeeds {
    struct Experts {
        int layer = 0, n_expert = 0;
        std::array<std::uint64_t, 3> bytes{};  // one expert's gate, up, down
    };
    std::uint64_t resident = 0;   // uploaded whatever the MoE backend: every tensor but the routed experts
    std::vector<Experts> experts;  // per MoE layer
    std::vector<std::string> untyped;  // tensors a type table was asked for and does not name (counted as 0 bytes)
    // The resident MoE backend's upload of the routed experts: per layer one stack per projection.
    std::uint64_t expert_pool() const;
    // One expert cache slot: each projection's largest over the layers, padded to 256 bytes (its bank's stride).
    std::uint64_t slot_bytes() const;
    // The routed expert bytes one token reads: k experts in every MoE layer.
    std::uint64_t active_expert_bytes(int k) const;
};

// The accumulator the block declarations add their uploads to, with DeviceWeights' rules.
class WeightCount {
public:
    WeightCount(const Weights& w, const WeightTypes* types) : w_(w), types_(types) {}
    void matrix(const TensorView* t);  // as stored, once per tensor
    void vector(const TensorView* t);  // widened to f32, once per tensor
    void table(const TensorView* t);   // in i32 (DeviceWeights::table: not shared)
    // q/k/v as one allocation when of one type and width (else three matrices); their biases as one f32 vector.
    void stacked(const TensorView& q, const TensorView& k, const TensorView& v);
    void stacked_vector(std::initializer_list<const TensorView*> parts);
    void ones(std::int64_t n);         // a vector of ones, grown when a longer one is asked for (the old one kept)
    void experts(const MoeBlock& b);   // the layer's routed experts (their biases: vectors, resident)
    WeightNeeds take() { return std::move(n_); }
    const Weights& weights() const { return w_; }

private:
    std::uint64_t stored_bytes(const TensorView& t, std::string_view name);
    kernels::DType stored_type(const TensorView& t, std::string_view name) const;
    void add(std::uint64_t bytes) { n_.resident += std::max<std::uint64_t>(bytes, 256); }
    const Weights& w_;
    const WeightTypes* types_;
    std::set<const void*> matrices_, vectors_;
    std::int64_t ones_ = 0;
    WeightNeeds n_;
};

void block_weights(const AttentionBlock& b, WeightCount& c);
void block_weights(const MlaAttentionBlock& b, WeightCount& c);
void block_weights(const GatedDeltaNetBlock& b, WeightCount& c);
void block_weights(const CompressedAttentionBlock& b, WeightCount& c);
void block_weights(const FfnBlock& b, WeightCount& c);
void block_weights(const MoeBlock& b, WeightCount& c);

// The whole graph in the runner's upload order: embedding, output norm and head, then per block its norm, mixer and
// body, then the hyper-connection head. w: the Weights the graph was built from (its routed experts; for a type
// table, Weights::shapes of the description). types: nullptr for the views' own.
WeightNeeds graph_weights(const ModelGraph& g, const Weights& w, const WeightTypes* types = nullptr);

// Bytes per KV element the graph's rows are kept in on the GPU: 2 when f16 is asked for and every block's kernels
// take f16 rows (ModelGraph::kv_rows_f32 false), else 4.
int kv_elem_bytes(const ModelGraph& g, bool want_f16);

}  // namespace ft::model
