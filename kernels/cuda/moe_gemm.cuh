// Grouped routed-expert products for prefill, on tensor cores, reading every expert's weights in their stored
// (quantized) format: each block dequantizes its weight tile into shared memory as BF16 and multiplies it with a
// tile of the expert's rows by mma.sync (f32 accumulation). One launch covers every expert of a layer, and the
// row ranges of the experts are read on the device, so nothing waits for the host (capture-safe).
//
// Rows are grouped by expert as moe_group leaves them: rows offsets[e] .. offsets[e+1] of x go through expert e.
//   moe_gemm_gate_up: h[r, :] = swiglu(W_gate_e · x[r] + b_gate_e, W_up_e · x[r] + b_up_e)   (BF16 [P, rows])
//   moe_gemm_down:    y[r, :] = W_e · x[r] + b_e                                             (F32 [P, rows])
// with swiglu as ref/swiglu.h (limit > 0: gpt-oss's clamped form). x is BF16 [P, k] (row stride k); expert e's matrix
// is [rows, k] at w.base + e · w.slot_stride (rows of w.row_bytes). Biases (optional, F32) are [n_expert, rows]. Rows
// of x past offsets[n_expert] are not read; rows of h / y outside every expert's range are not written.
// Supported weight types: F32, F16, BF16, Q8_0, Q4_K, Q5_K, Q6_K, MXFP4 and quant_decode.cuh's decode-only types; k a multiple of 32 (and of the type's
// block), x 16-byte aligned. Errors: cudaErrorInvalidValue for anything else (nothing launched).
// moe_gather_bf16: out[i, :] = bf16(x[order[i] / k, :]) for i < pairs (order[i] < 0: a zero row): the expert-ordered
// rows of the prefill MoE, converted for the products above; cols a multiple of 8, pointers 16-byte aligned.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

#include "cuda/gemv.cuh"

namespace ft::kernels::cuda {

struct MoeGemmParams {
    ExpertMatrix w;                         // gate (gate_up) or the only matrix (down)
    ExpertMatrix up;                        // gate_up: up, shaped and typed like w
    const std::int32_t* offsets = nullptr;  // [n_expert + 1], on the device
    int n_expert = 0;
    std::int64_t n_rows = 0;                // P, the rows of x and of the output (an upper bound of offsets[n_expert])
    const void* x = nullptr;                // BF16 [P, k]
    void* y = nullptr;                      // gate_up: BF16 [P, rows]; down: F32 [P, rows]
    const float* bias = nullptr;            // [n_expert, rows] (gate_up: the gate's)
    const float* up_bias = nullptr;         // gate_up: [n_expert, rows]
    float swiglu_limit = 0;
};

bool moe_gemm_supported(DType type, std::int64_t k);
cudaError_t moe_gemm_gate_up(const MoeGemmParams& p, cudaStream_t stream);
cudaError_t moe_gemm_down(const MoeGemmParams& p, cudaStream_t stream);
cudaError_t moe_gather_bf16(const float* x, std::int64_t cols, const std::int32_t* order, int k, std::int64_t pairs,
                            void* out, cudaStream_t stream);

}  // namespace ft::kernels::cuda
