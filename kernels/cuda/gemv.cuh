// CUDA matrix-vector products for decode, reading weights in their stored (quantized) layout and dequantizing in
// registers. Pure launchers: pointers, sizes, a params struct, a stream; no state, no allocation.
//
// gemv:        y[j, r] = dot(W[r, :], x[j, :]) for r < rows, j < m (m ≤ kGemvMaxM input vectors share one read
//              of W). W rows of k elements at `w + r * row_bytes` (k a whole number of the type's blocks).
// expert_gemv: the grouped form for routed experts, read through a slot table — the interface the VRAM expert
//              cache uses. For pair p < n_pairs: e = ids[p]; e < 0 → y[p, :] = 0 (an entry another device computes);
//              slot = slot_map ? slot_map[e] : e; W_p = base + slot * slot_stride; x row = p / x_div.
//              Resident weights: base = the stacked [n_expert, rows, k] tensor, slot_stride = one expert's bytes,
//              slot_map = nullptr. Cache: base = pool + the matrix's offset in a slot, slot_stride = slot bytes,
//              slot_map = the layer's residency row (flat id → slot).
// expert_gate_up: the same for gate and up of one expert at once, fused with SwiGLU:
//              h[p, :] = swiglu(W_gate_p · x + b_gate, W_up_p · x + b_up) (see ref/swiglu.h for `limit`: > 0 is
//              gpt-oss's clamped form, g·σ(1.702·g)·(u + 1)).
// Biases (optional, F32): gemv adds bias[r] to each output (before `accumulate`'s add); the expert kernels add the
// expert's row bias + ids[p] · bias_stride — indexed by the expert id, never the slot, so biases stay resident
// while the weights move between host, cache slots and CPU. An entry computed elsewhere (id < 0) stays 0.
// Supported types: F32, F16, BF16, Q8_0, Q4_K, Q5_K, Q6_K, MXFP4 (read in place: 17-byte blocks at any byte
// alignment) and the decode-only types of quant_decode.cuh (Q4_0, Q4_1, Q5_0, Q5_1, IQ4_NL, IQ4_XS, Q2_K, Q3_K, TQ1_0,
// TQ2_0, IQ2_XXS/XS/S, IQ3_XXS/S, IQ1_S/M: any alignment; at m = 1, when x is 16-byte aligned and ldx a multiple
// of 4, 32 elements per lane with aligned word loads (gemv.cu's FT_CUDA_VEC_TYPES: all 17), else 8 elements per
// byte-load step). k ≤ kGemvMaxK.
// Fast path: rows (base, row_bytes, slot_stride) 16-byte aligned for F32/F16/BF16/Q4_K/Q5_K, 2-byte aligned for Q8_0
// and Q6_K (GGUF's own alignment), any alignment for MXFP4, and k a multiple of 4 (F32) / 8 (F16, BF16); anything
// else takes a slow but correct per-element path. x and y need only float alignment. A slot_map entry < 0 is treated
// like id < 0.
// Launches are capture-safe (fixed grid for fixed shapes; ids and slot_map are read on the device).
// Errors: cudaErrorInvalidValue for an unsupported type, k too large or not whole blocks, m out of range,
// row_bytes shorter than a row, ldx < k or ldy < rows (when non-zero), x_div < 1, up not shaped like the gate,
// up_bias without up, 0 < bias_stride < rows.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "ref/dtype.h"

namespace ft::kernels::cuda {

constexpr int kGemvMaxM = 8;
constexpr std::int64_t kGemvMaxK = 16384;

struct GemvParams {
    DType type = DType::F32;
    const void* w = nullptr;
    std::size_t row_bytes = 0;
    std::int64_t rows = 0;
    std::int64_t k = 0;
    int m = 1;                 // input vectors
    const float* x = nullptr;  // [m, ldx]
    std::int64_t ldx = 0;      // 0: k
    float* y = nullptr;        // [m, ldy]
    std::int64_t ldy = 0;      // 0: rows
    bool accumulate = false;   // y += W·x instead of y = W·x (residual adds for free)
    const float* bias = nullptr;  // [rows] added to every output vector (optional)
};

bool gemv_supported(DType type);
// The types read through quant::decode8 only (one generic kernel per type and mode; quant_decode.cuh).
bool gemv_decode_only(DType type);
cudaError_t gemv(const GemvParams& p, cudaStream_t stream);

struct ExpertMatrix {
    DType type = DType::F32;
    const void* base = nullptr;
    std::size_t slot_stride = 0;  // bytes between consecutive slots / experts
    std::size_t row_bytes = 0;
    std::int64_t rows = 0;        // output size
    std::int64_t k = 0;           // input size
};

struct ExpertGemvParams {
    ExpertMatrix w;
    const std::int32_t* ids = nullptr;       // [n_pairs] expert id in the layer, or -1
    const std::int32_t* slot_map = nullptr;  // [n_expert] or nullptr (slot = id)
    int n_pairs = 0;
    const float* x = nullptr;
    std::int64_t ldx = 0;  // 0: k
    int x_div = 1;         // pair p reads x row p / x_div
    float* y = nullptr;    // [n_pairs, ldy]
    std::int64_t ldy = 0;  // 0: rows
    // Per-expert F32 biases (gpt-oss), optional: expert e's at bias + e · bias_stride. expert_gemv: bias of the
    // output; expert_gate_up: bias of the gate, up_bias of up (same stride). Both added before the activation.
    const float* bias = nullptr;
    const float* up_bias = nullptr;    // expert_gate_up only
    std::int64_t bias_stride = 0;      // floats; 0: rows (a stacked [n_expert, rows] tensor)
    // The pairs' expert ids for the bias rows when ids holds cache slots (slot_map null) rather than expert ids;
    // null: ids. Read only for pairs computed here (id ≥ 0).
    const std::int32_t* bias_ids = nullptr;
};

cudaError_t expert_gemv(const ExpertGemvParams& p, cudaStream_t stream);
// p.w is the gate matrix; up has the same type and shape at up.base / up.slot_stride. y = h [n_pairs, rows].
cudaError_t expert_gate_up(const ExpertGemvParams& p, const ExpertMatrix& up, float swiglu_limit, cudaStream_t stream);

}  // namespace ft::kernels::cuda
