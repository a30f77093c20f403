#include "cuda/gemv.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace ft::kernels::cuda {

namespace {

constexpr int kWarpsPerBlock = 8;
constexpr std::int64_t kMaxK = 16384;

__device__ __forceinline__ float warp_sum(float v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

__device__ __forceinline__ float h2f(std::uint16_t h) { return __half2float(__ushort_as_half(h)); }

// ---- per-type row dot products: every lane of the warp takes part, the caller reduces ----

__device__ float dot_f32(const std::uint8_t* row, const float* x, std::int64_t k, int lane) {
    const float* w = reinterpret_cast<const float*>(row);
    float acc = 0.f;
    for (std::int64_t i = lane; i < k; i += 32) acc += w[i] * x[i];
    return acc;
}

__device__ float dot_bf16(const std::uint8_t* row, const float* x, std::int64_t k, int lane) {
    const __nv_bfloat162* w = reinterpret_cast<const __nv_bfloat162*>(row);
    float acc = 0.f;
    for (std::int64_t i = lane; i < k / 2; i += 32) {
        const float2 f = __bfloat1622float2(w[i]);
        acc += f.x * x[2 * i] + f.y * x[2 * i + 1];
    }
    return acc;
}

__device__ float dot_f16(const std::uint8_t* row, const float* x, std::int64_t k, int lane) {
    const __half2* w = reinterpret_cast<const __half2*>(row);
    float acc = 0.f;
    for (std::int64_t i = lane; i < k / 2; i += 32) {
        const float2 f = __half22float2(w[i]);
        acc += f.x * x[2 * i] + f.y * x[2 * i + 1];
    }
    return acc;
}

// Q8_0: 34-byte blocks {f16 d; int8 qs[32]} (2-byte aligned). A lane per block.
__device__ float dot_q8_0(const std::uint8_t* row, const float* x, std::int64_t k, int lane) {
    const std::int64_t nb = k / 32;
    float acc = 0.f;
    for (std::int64_t b = lane; b < nb; b += 32) {
        const std::uint8_t* blk = row + b * 34;
        const float d = h2f(*reinterpret_cast<const std::uint16_t*>(blk));
        const std::int8_t* qs = reinterpret_cast<const std::int8_t*>(blk + 2);
        const float* xb = x + b * 32;
        float s = 0.f;
#pragma unroll
        for (int i = 0; i < 32; ++i) s += float(qs[i]) * xb[i];
        acc += d * s;
    }
    return acc;
}

// Q4_K: 144-byte blocks {f16 d, dmin; u8 scales[12]; u8 qs[128]}. Eight lanes per block, a lane per 32-element
// sub-block: lane j takes chunk j/2 (32 bytes of qs), low nibbles for even j, high for odd j.
__device__ __forceinline__ void q4k_scale_min(const std::uint8_t* s, int j, float& sc, float& m) {
    if (j < 4) {
        sc = float(s[j] & 63);
        m = float(s[j + 4] & 63);
    } else {
        sc = float((s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4));
        m = float((s[j + 4] >> 4) | ((s[j] >> 6) << 4));
    }
}

__device__ float dot_q4_k(const std::uint8_t* row, const float* x, std::int64_t k, int lane) {
    const std::int64_t nb = k / 256;
    const int j = lane & 7;          // sub-block
    const int sub = lane >> 3;       // which of the 4 blocks this warp step covers
    float acc = 0.f;
    for (std::int64_t b = sub; b < nb; b += 4) {
        const std::uint8_t* blk = row + b * 144;
        const float d = h2f(*reinterpret_cast<const std::uint16_t*>(blk));
        const float dmin = h2f(*reinterpret_cast<const std::uint16_t*>(blk + 2));
        float sc, m;
        q4k_scale_min(blk + 4, j, sc, m);
        const uint4* qs4 = reinterpret_cast<const uint4*>(blk + 16 + 32 * (j >> 1));  // 16-byte aligned
        const uint4 q0 = qs4[0], q1 = qs4[1];
        const std::uint32_t words[8] = {q0.x, q0.y, q0.z, q0.w, q1.x, q1.y, q1.z, q1.w};
        const int shift = (j & 1) * 4;
        const float* xb = x + b * 256 + 32 * j;
        float s = 0.f, xs = 0.f;
#pragma unroll
        for (int w = 0; w < 8; ++w) {
#pragma unroll
            for (int byte = 0; byte < 4; ++byte) {
                const float q = float((words[w] >> (8 * byte + shift)) & 0xF);
                const float xv = xb[4 * w + byte];
                s += q * xv;
                xs += xv;
            }
        }
        acc += d * sc * s - dmin * m * xs;
    }
    return acc;
}

template <DType T>
__global__ void gemv_kernel(GemvParams p) {
    extern __shared__ float xs[];
    for (std::int64_t i = threadIdx.x; i < p.k; i += blockDim.x) xs[i] = p.x[i];
    __syncthreads();
    const int lane = threadIdx.x & 31;
    const std::int64_t r = std::int64_t(blockIdx.x) * kWarpsPerBlock + (threadIdx.x >> 5);
    if (r >= p.rows) return;
    const std::uint8_t* row = static_cast<const std::uint8_t*>(p.w) + r * std::int64_t(p.row_bytes);
    float v;
    if constexpr (T == DType::F32) v = dot_f32(row, xs, p.k, lane);
    else if constexpr (T == DType::BF16) v = dot_bf16(row, xs, p.k, lane);
    else if constexpr (T == DType::F16) v = dot_f16(row, xs, p.k, lane);
    else if constexpr (T == DType::Q8_0) v = dot_q8_0(row, xs, p.k, lane);
    else v = dot_q4_k(row, xs, p.k, lane);
    v = warp_sum(v);
    if (lane == 0) p.y[r] = v;
}

template <DType T>
cudaError_t launch(const GemvParams& p, cudaStream_t stream) {
    const unsigned blocks = unsigned((p.rows + kWarpsPerBlock - 1) / kWarpsPerBlock);
    const std::size_t smem = std::size_t(p.k) * sizeof(float);
    if (smem > 48 * 1024) {
        const cudaError_t e = cudaFuncSetAttribute(gemv_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
        if (e != cudaSuccess) return e;
    }
    gemv_kernel<T><<<blocks, kWarpsPerBlock * 32, smem, stream>>>(p);
    return cudaGetLastError();
}

}  // namespace

bool gemv_supported(DType type) {
    return type == DType::F32 || type == DType::F16 || type == DType::BF16 || type == DType::Q8_0 || type == DType::Q4_K;
}

cudaError_t gemv(const GemvParams& p, cudaStream_t stream) {
    if (!gemv_supported(p.type) || p.k <= 0 || p.k > kMaxK || p.rows < 0 || p.k % dtype_info(p.type).block_elems != 0 ||
        (p.type == DType::F16 || p.type == DType::BF16) && p.k % 2 != 0)
        return cudaErrorInvalidValue;
    if (p.rows == 0) return cudaSuccess;
    switch (p.type) {
        case DType::F32: return launch<DType::F32>(p, stream);
        case DType::F16: return launch<DType::F16>(p, stream);
        case DType::BF16: return launch<DType::BF16>(p, stream);
        case DType::Q8_0: return launch<DType::Q8_0>(p, stream);
        case DType::Q4_K: return launch<DType::Q4_K>(p, stream);
        default: return cudaErrorInvalidValue;
    }
}

}  // namespace ft::kernels::cuda
