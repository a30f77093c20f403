// Decode GEMV: weights streamed once from HBM in their stored layout, dequantized in registers, x (f32) staged in
// shared memory. See gemv.cuh for the contract.
//
// Two fast kernels share the per-type units below (one template each for gemv / expert_gemv / expert_gate_up):
// - direct (decode: M·k·4 ≤ 64 KiB, x float4-aligned): no staging; every warp reads x from global memory (L1 hits
//   after the SM's first touch), so a warp's weight loads leave as soon as its row pointers are known. CTA = 8 warps;
//   k is split over 1-8 warps of a row group (interleaved 32-unit steps, partial sums reduced in shared memory) as
//   far as one resident wave allows, so small matrices still fill the GPU. Q4_K/Q5_K sum x per lane instead of
//   staging sub-block sums. One CTA per row group, no persistent loop (x costs nothing to re-read).
// - staged (large M·k, or x not float4-aligned), described next.
// Staged path:
// - CTA = 4 warps. Each warp owns R weight rows (R "virtual" rows: for gate_up, gate and up of R/2 output rows) and
//   sweeps k; x, loaded once per CTA, is reused from registers for the R rows, and each weight load feeds M vectors.
// - A lane's work item ("unit") is a fixed slice of a row: F32 4 elements (one float4), F16/BF16 8 (one uint4),
//   Q8_0 8 (a quarter of a 34-byte block), Q6_K 8 (one 32-bit word of ql, 32 lanes per 210-byte block), Q4_K/Q5_K
//   32 (one 16-byte uint4 of qs, 8 lanes per block). Lane l takes units l, l + 32, … so a warp's loads of one unit
//   step are contiguous in memory (128-bit for F32/F16/BF16/Q4_K/Q5_K; Q8_0 and Q6_K blocks are only 2-byte aligned
//   in GGUF, so they use aligned 32-bit loads and a byte permute).
// - x sits in shared memory as float4 slots, XOR-swizzled per type so that the 8 lanes of each quarter-warp phase of
//   an LDS.128 hit 8 different bank groups (conflict-free). Q4_K/Q5_K also stage the sum of x over each 32-element
//   sub-block (the "min" term needs it), computed once while staging.
// - Integer codes become floats through the exponent trick (byte b → bits 0x4B0000bb = 2^23 + b, minus 2^23: exact,
//   full-rate FP32 pipe instead of the quarter-rate I2F). Dot products accumulate q·x per sub-block and apply the
//   block/sub-block scale once, so the per-element cost is PRMT + FADD + M FFMA.
// - The R·M partial sums are reduced across the warp with a halving butterfly (N-1 shuffles for N values).
// - Grid: row groups (4·R rows) in x, pairs in y. Big matrices launch at most one wave of CTAs (occupancy query), which
//   loop over row groups, so x is staged once per CTA. x larger than the shared-memory tile is processed in k tiles.
// Fallback (misaligned pointers/strides, k not a multiple of the unit): one warp per output row, scalar byte loads.
// The decode-only types (quant_decode.cuh: legacy, IQ, ternary, Q2_K/Q3_K) take it for m > 1, 8 elements per
// quant::decode8. At m = 1 the types with a vector unit (FT_CUDA_VEC_TYPES below: all 17) take the direct-x kernel
// with UnitVec (32 elements per lane, word loads at any alignment, one scale per 16 or 32 elements); x not
// float4-addressable (or a type without a unit) gemv_decode8_kernel (R rows per warp, 8 elements per decode8 step).
#include "cuda/gemv.cuh"
#include "cuda/launch.cuh"
#include "cuda/quant_decode.cuh"

#include <cuda_fp16.h>

#include <algorithm>
#include <atomic>

namespace ft::kernels::cuda {

namespace {

constexpr int kWarps = 4;
constexpr int kThreads = kWarps * 32;
constexpr unsigned kFull = 0xffffffffu;
constexpr int kSmemBudget = 46 * 1024;  // below the 48 KiB default: no opt-in attribute, several CTAs per SM
constexpr int kWarpsD = 8;              // direct-x kernel
constexpr int kThreadsD = kWarpsD * 32;
constexpr std::int64_t kDirectXBytes = 64 * 1024;  // M·k·4 up to this: x read from L1 instead of staged

enum Mode : int { kPlain = 0, kExpert = 1, kGateUp = 2 };

struct KArgs {
    const std::uint8_t* w0;  // matrix (gate for kGateUp)
    const std::uint8_t* w1;  // up (kGateUp)
    std::size_t row_bytes;
    std::size_t stride0, stride1;  // slot strides (expert modes)
    std::int64_t rows, k;
    int m;
    const float* x;
    std::int64_t ldx;
    float* y;
    std::int64_t ldy;
    int accumulate;
    const std::int32_t* ids;
    const std::int32_t* slot_map;
    int x_div;
    float limit;
    const float* b0;       // bias of the output (plain, expert) or of the gate (gate_up); may be null
    const float* b1;       // bias of up (gate_up); may be null
    std::int64_t bstride;  // floats between experts' biases (indexed by the expert id, not the slot)
    const std::int32_t* bias_ids;  // expert ids for the bias rows when ids holds slots (the cache); null: ids
    int kt;            // k tile (elements), multiple of 256 unless it is the whole k
    std::int64_t n_rg; // row groups
    int ks;            // direct kernel: warps per row group (k slices), 1, 2, 4 or 8
};

// ---------------------------------------------------------------- small device helpers

__device__ __forceinline__ std::uint32_t ldg32(const std::uint8_t* p) {
    return __ldg(reinterpret_cast<const unsigned int*>(p));
}
__device__ __forceinline__ std::uint32_t ldg16(const std::uint8_t* p) {
    return __ldg(reinterpret_cast<const unsigned short*>(p));
}
__device__ __forceinline__ uint4 ldg128(const std::uint8_t* p) { return __ldg(reinterpret_cast<const uint4*>(p)); }
__device__ __forceinline__ float h2f(std::uint32_t bits16) { return __half2float(__ushort_as_half((unsigned short)bits16)); }

// Byte `sel` (0..3, may be a run-time value) of w as the float 2^23 + byte (exact).
__device__ __forceinline__ float magic_byte(std::uint32_t w, std::uint32_t sel) {
    return __uint_as_float(__byte_perm(w, 0x4B000000u, 0x7440u | sel));
}
constexpr float kMagic = 8388608.f;        // 2^23
constexpr float kMagicS8 = 8388608.f + 128.f;  // int8 stored as byte ^ 0x80
constexpr float kMagicQ6 = 8388608.f + 32.f;   // Q6_K codes are stored + 32

// A 32-bit word at a 2-byte aligned address: shift = address & 2, sel = shift ? 0x5432 : 0x3210. Reads no byte
// beyond p + 5 (callers keep that inside the block).
__device__ __forceinline__ std::uint32_t ldg32_a2(const std::uint8_t* p, std::uint32_t shift, std::uint32_t sel) {
    const std::uint8_t* b = p - shift;
    const std::uint32_t lo = ldg32(b);
    const std::uint32_t hi = shift ? ldg32(b + 4) : 0u;
    return __byte_perm(lo, hi, sel);
}

__device__ __forceinline__ float dot4(float a0, float a1, float a2, float a3, float4 x, float acc) {
    acc = fmaf(a0, x.x, acc);
    acc = fmaf(a1, x.y, acc);
    acc = fmaf(a2, x.z, acc);
    return fmaf(a3, x.w, acc);
}

// Halving butterfly over the warp: on return lane l holds, in v[0], the warp total of value l / (32 / N).
template <int N, int Off>
__device__ __forceinline__ void warp_reduce(float* v, int lane) {
    if constexpr (Off > 0) {
        if constexpr (N > 1) {
            constexpr int H = N / 2;
            const bool up = (lane & Off) != 0;
#pragma unroll
            for (int i = 0; i < H; ++i) {
                const float send = up ? v[i] : v[i + H];
                const float keep = up ? v[i + H] : v[i];
                v[i] = keep + __shfl_xor_sync(kFull, send, Off);
            }
            warp_reduce<H, Off / 2>(v, lane);
        } else {
            v[0] += __shfl_xor_sync(kFull, v[0], Off);
            warp_reduce<1, Off / 2>(v, lane);
        }
    }
}

__device__ __forceinline__ float with_bias(float v, const float* b, std::int64_t i) { return b ? v + __ldg(b + i) : v; }

__device__ __forceinline__ float swiglu(float g, float u, float limit) {
    if (limit > 0.f) {
        g = fminf(g, limit);
        u = fminf(fmaxf(u, -limit), limit);
        return g / (1.f + expf(-1.702f * g)) * (u + 1.f);
    }
    if (limit < 0.f) {  // DeepSeek-V4: silu(min(g, -limit)) · clamp(u, ±limit)
        g = fminf(g, -limit);
        u = fminf(fmaxf(u, limit), -limit);
    }
    return g / (1.f + expf(-g)) * u;
}

// Q4_K/Q5_K (scale, min) of sub-blocks 2c and 2c+1 from the block header words s0 = scales[0..3], s1 = [4..7],
// s2 = [8..11]: 6-bit values as floats.
__device__ __forceinline__ void k_scales(std::uint32_t s0, std::uint32_t s1, std::uint32_t s2, int c, float& sc0,
                                         float& sc1, float& m0, float& m1) {
    const bool low = c < 2;
    const std::uint32_t scw = low ? (s0 & 0x3F3F3F3Fu) : ((s2 & 0x0F0F0F0Fu) | ((s0 >> 2) & 0x30303030u));
    const std::uint32_t mw = low ? (s1 & 0x3F3F3F3Fu) : (((s2 >> 4) & 0x0F0F0F0Fu) | ((s1 >> 2) & 0x30303030u));
    const std::uint32_t i0 = std::uint32_t(2 * (c & 1));
    sc0 = magic_byte(scw, i0) - kMagic;
    sc1 = magic_byte(scw, i0 + 1) - kMagic;
    m0 = magic_byte(mw, i0) - kMagic;
    m1 = magic_byte(mw, i0 + 1) - kMagic;
}

// x as the units read it. Staged (D = false): the shared-memory tile, float4 slots swizzled per type, row j at
// p + j * stride (stride = the tile), sub-block sums at sum. Direct (D = true): x itself in global memory (L1-cached,
// read by every warp of the SM), float4 f at its plain index, row j at p + min(j, jmax) * stride (stride = ldx; rows
// of the template M beyond m re-read the last real row, their results are never written).
struct XView {
    const float* p;
    const float* sum;
    int stride;
    int jmax;
};

template <bool D>
__device__ __forceinline__ float4 xload(const XView& x, int j, int slot) {
    if constexpr (D) return __ldg(reinterpret_cast<const float4*>(x.p + min(j, x.jmax) * x.stride) + slot);
    else return reinterpret_cast<const float4*>(x.p)[j * (x.stride / 4) + slot];
}

// ---------------------------------------------------------------- per-type units
// Each trait: kUnit (elements per unit), kXsum (stages sub-block sums), swz(f) (shared-memory float4 slot of x
// float4 f, tile-relative), row_off(k0) (bytes of a row before element k0, k0 a multiple of 256 or 0), and
// dot<M, R, D>(rp, u, x, lane, acc): adds unit u (tile-relative) of the R rows rp to acc[j * R + r]. `lane` only
// places the unit inside its block: callers keep u ≡ lane (mod 32).

template <DType T>
struct Unit;

template <>
struct Unit<DType::F32> {
    static constexpr int kUnit = 4;
    static constexpr bool kXsum = false;
    __device__ static int swz(int f) { return f; }
    __device__ static std::size_t row_off(std::int64_t k0) { return std::size_t(k0) * 4; }
    template <int M, int R, bool D>
    __device__ static void dot(const std::uint8_t* const* rp, int u, const XView& xv_, int, float* acc) {
        float4 w[R];
#pragma unroll
        for (int r = 0; r < R; ++r) w[r] = __ldg(reinterpret_cast<const float4*>(rp[r]) + u);
#pragma unroll
        for (int j = 0; j < M; ++j) {
            const float4 xv = xload<D>(xv_, j, u);
#pragma unroll
            for (int r = 0; r < R; ++r) acc[j * R + r] = dot4(w[r].x, w[r].y, w[r].z, w[r].w, xv, acc[j * R + r]);
        }
    }
};

// F16/BF16: unit = one uint4 (8 elements); x float4 f = 2u + s. Slot f ^ ((f >> 3) & 1) spreads the 8 lanes of a
// phase (f = 2l + s, l = 0..7) over 8 bank groups.
template <DType T>
struct UnitHalf {
    static constexpr int kUnit = 8;
    static constexpr bool kXsum = false;
    __device__ static int swz(int f) { return f ^ ((f >> 3) & 1); }
    __device__ static std::size_t row_off(std::int64_t k0) { return std::size_t(k0) * 2; }
    __device__ static void cvt(std::uint32_t w, float& a, float& b) {
        if constexpr (T == DType::BF16) {
            a = __uint_as_float(w << 16);
            b = __uint_as_float(w & 0xFFFF0000u);
        } else {
            const float2 f = __half22float2(*reinterpret_cast<const __half2*>(&w));
            a = f.x;
            b = f.y;
        }
    }
    template <int M, int R, bool D>
    __device__ static void dot(const std::uint8_t* const* rp, int u, const XView& xv_, int, float* acc) {
        uint4 w[R];
#pragma unroll
        for (int r = 0; r < R; ++r) w[r] = ldg128(rp[r] + std::size_t(u) * 16);
#pragma unroll
        for (int s = 0; s < 2; ++s) {
            float f[R][4];
#pragma unroll
            for (int r = 0; r < R; ++r) {
                const std::uint32_t a = s ? w[r].z : w[r].x, b = s ? w[r].w : w[r].y;
                cvt(a, f[r][0], f[r][1]);
                cvt(b, f[r][2], f[r][3]);
            }
            const int slot = D ? 2 * u + s : swz(2 * u + s);
#pragma unroll
            for (int j = 0; j < M; ++j) {
                const float4 xv = xload<D>(xv_, j, slot);
#pragma unroll
                for (int r = 0; r < R; ++r)
                    acc[j * R + r] = dot4(f[r][0], f[r][1], f[r][2], f[r][3], xv, acc[j * R + r]);
            }
        }
    }
};
template <>
struct Unit<DType::F16> : UnitHalf<DType::F16> {};
template <>
struct Unit<DType::BF16> : UnitHalf<DType::BF16> {};

// Q8_0: 34-byte blocks {f16 d; int8 qs[32]}, 2-byte aligned. Unit u = block u/4, bytes qs[8q .. 8q+8), q = u & 3
// (= lane & 3). x float4 f = 2u + s: same swizzle as F16.
template <>
struct Unit<DType::Q8_0> {
    static constexpr int kUnit = 8;
    static constexpr bool kXsum = false;
    __device__ static int swz(int f) { return f ^ ((f >> 3) & 1); }
    __device__ static std::size_t row_off(std::int64_t k0) { return std::size_t(k0 / 32) * 34; }
    template <int M, int R, bool D>
    __device__ static void dot(const std::uint8_t* const* rp, int u, const XView& xv_, int lane, float* acc) {
        const int q = lane & 3;
        float d[R];
        std::uint32_t w[R][2];
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const std::uint8_t* blk = rp[r] + std::size_t(u >> 2) * 34;
            d[r] = h2f(ldg16(blk));
            const std::uint8_t* a = blk + 2 + 8 * q;
            const std::uint32_t shift = std::uint32_t(reinterpret_cast<std::uintptr_t>(a)) & 2u;
            const std::uint8_t* b = a - shift;
            const std::uint32_t w0 = ldg32(b), w1 = ldg32(b + 4), w2 = shift ? ldg16(b + 8) : 0u;
            const std::uint32_t sel = shift ? 0x5432u : 0x3210u;
            w[r][0] = __byte_perm(w0, w1, sel) ^ 0x80808080u;
            w[r][1] = __byte_perm(w1, w2, sel) ^ 0x80808080u;
        }
        float s[M * R];
#pragma unroll
        for (int i = 0; i < M * R; ++i) s[i] = 0.f;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            float f[R][4];
#pragma unroll
            for (int r = 0; r < R; ++r)
#pragma unroll
                for (int b = 0; b < 4; ++b) f[r][b] = magic_byte(w[r][h], b) - kMagicS8;
            const int slot = D ? 2 * u + h : swz(2 * u + h);
#pragma unroll
            for (int j = 0; j < M; ++j) {
                const float4 xv = xload<D>(xv_, j, slot);
#pragma unroll
                for (int r = 0; r < R; ++r) s[j * R + r] = dot4(f[r][0], f[r][1], f[r][2], f[r][3], xv, s[j * R + r]);
            }
        }
#pragma unroll
        for (int j = 0; j < M; ++j)
#pragma unroll
            for (int r = 0; r < R; ++r) acc[j * R + r] = fmaf(d[r], s[j * R + r], acc[j * R + r]);
    }
};

// Q4_K / Q5_K: unit u = block u/8, v = u & 7 (= lane & 7): qs bytes [16v, 16v+16) = chunk c = v/2, half h = v&1:
// low nibbles are elements 64c + 16h + [0,16) (sub-block 2c), high nibbles the same + 32 (sub-block 2c+1).
// x float4 f = 64b + 16c + 4h + word (+8 for high). Slot f ^ ((f >> 4) & 3): the 8 lanes of a phase (c, h) land in
// bank groups 4h + (word ^ c), all different.
template <DType T>
struct UnitK45 {
    static constexpr bool kQ5 = T == DType::Q5_K;
    static constexpr int kUnit = 32;
    static constexpr bool kXsum = true;
    static constexpr int kBlockBytes = kQ5 ? 176 : 144;
    static constexpr int kQsOff = kQ5 ? 48 : 16;
    __device__ static int swz(int f) { return f ^ ((f >> 4) & 3); }
    __device__ static std::size_t row_off(std::int64_t k0) { return std::size_t(k0 / 256) * kBlockBytes; }
    template <int M, int R, bool D>
    __device__ static void dot(const std::uint8_t* const* rp, int u, const XView& xv_, int lane, float* acc) {
        const int v = lane & 7, c = v >> 1, h = v & 1;
        const int b = u >> 3;
        uint4 hdr[R], q[R], qh[R];
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const std::uint8_t* blk = rp[r] + std::size_t(b) * kBlockBytes;
            hdr[r] = ldg128(blk);
            q[r] = ldg128(blk + kQsOff + 16 * v);
            if constexpr (kQ5) qh[r] = ldg128(blk + 16 + 16 * h);
        }
        float dl[R], dh[R], ml[R], mh[R];
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const float2 dd = __half22float2(*reinterpret_cast<const __half2*>(&hdr[r].x));
            float sc0, sc1, m0, m1;
            k_scales(hdr[r].y, hdr[r].z, hdr[r].w, c, sc0, sc1, m0, m1);
            dl[r] = dd.x * sc0;
            // Q4_K high nibbles are used in place (16·q): fold the 1/16 into the scale (exact).
            dh[r] = kQ5 ? dd.x * sc1 : dd.x * sc1 * 0.0625f;
            // A sub-block's 32 elements are split over lanes h = 0 and 1. Staged x: the min term uses the staged sum
            // of x over all 32, so only the h = 0 lane applies it. Direct x: each lane applies it to its own 16.
            ml[r] = (h && !D) ? 0.f : dd.y * m0;
            mh[r] = (h && !D) ? 0.f : dd.y * m1;
        }
        const int base_lo = 64 * b + 16 * c + 4 * h;
#pragma unroll
        for (int half = 0; half < 2; ++half) {
            float s[M * R], px[M];
#pragma unroll
            for (int i = 0; i < M * R; ++i) s[i] = 0.f;
#pragma unroll
            for (int j = 0; j < M; ++j) px[j] = 0.f;
#pragma unroll
            for (int wi = 0; wi < 4; ++wi) {
                float f[R][4];
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    const std::uint32_t qw = wi == 0 ? q[r].x : wi == 1 ? q[r].y : wi == 2 ? q[r].z : q[r].w;
                    std::uint32_t code;
                    if constexpr (kQ5) {
                        const std::uint32_t hw = wi == 0 ? qh[r].x : wi == 1 ? qh[r].y : wi == 2 ? qh[r].z : qh[r].w;
                        const int bit = 2 * c + half;
                        const std::uint32_t lo4 = half ? ((qw >> 4) & 0x0F0F0F0Fu) : (qw & 0x0F0F0F0Fu);
                        code = lo4 | (((hw >> bit) & 0x01010101u) << 4);
                    } else {
                        code = half ? (qw & 0xF0F0F0F0u) : (qw & 0x0F0F0F0Fu);
                    }
#pragma unroll
                    for (int e = 0; e < 4; ++e) f[r][e] = magic_byte(code, e) - kMagic;
                }
                const int slot = (base_lo + 8 * half + wi) ^ (D ? 0 : c);  // staged: swz(f), (f >> 4) & 3 == c
#pragma unroll
                for (int j = 0; j < M; ++j) {
                    const float4 xv = xload<D>(xv_, j, slot);
                    if constexpr (D) px[j] += (xv.x + xv.y) + (xv.z + xv.w);
#pragma unroll
                    for (int r = 0; r < R; ++r)
                        s[j * R + r] = dot4(f[r][0], f[r][1], f[r][2], f[r][3], xv, s[j * R + r]);
                }
            }
#pragma unroll
            for (int j = 0; j < M; ++j) {
                const float xsb = D ? px[j] : xv_.sum[j * (xv_.stride / 32) + 8 * b + 2 * c + half];
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    const float ds = half ? dh[r] : dl[r], dm = half ? mh[r] : ml[r];
                    acc[j * R + r] = fmaf(ds, s[j * R + r], fmaf(-dm, xsb, acc[j * R + r]));
                }
            }
        }
    }
};
template <>
struct Unit<DType::Q4_K> : UnitK45<DType::Q4_K> {};
template <>
struct Unit<DType::Q5_K> : UnitK45<DType::Q5_K> {};

// Q6_K: 210-byte blocks {ql[128], qh[64], int8 scales[16], f16 d}, 2-byte aligned. 32 lanes per block: lane
// (hq = lane/16, ab = (lane/8)&1, v = lane&7) takes ql word 64hq + 32ab + 4v: low nibbles are quarter kq = ab,
// high nibbles kq = ab + 2, elements 128hq + 32kq + 4v + [0,4), with high bits from qh word 32hq + 4v (bits 2kq).
// x float4 f = 64b + 32hq + 8kq + v: consecutive lanes read consecutive float4, no swizzle needed.
template <>
struct Unit<DType::Q6_K> {
    static constexpr int kUnit = 8;
    static constexpr bool kXsum = false;
    __device__ static int swz(int f) { return f; }
    __device__ static std::size_t row_off(std::int64_t k0) { return std::size_t(k0 / 256) * 210; }
    template <int M, int R, bool D>
    __device__ static void dot(const std::uint8_t* const* rp, int u, const XView& xv_, int lane, float* acc) {
        const int hq = lane >> 4, ab = (lane >> 3) & 1, v = lane & 7;
        const int b = u >> 5;
        std::uint32_t ql[R], qh[R];
        float s0[R], s1[R];  // d * scale of the two sub-blocks
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const std::uint8_t* blk = rp[r] + std::size_t(b) * 210;
            const std::uint32_t shift = std::uint32_t(reinterpret_cast<std::uintptr_t>(blk)) & 2u;
            const std::uint32_t sel = shift ? 0x5432u : 0x3210u;
            ql[r] = ldg32_a2(blk + 64 * hq + 32 * ab + 4 * v, shift, sel);
            qh[r] = ldg32_a2(blk + 128 + 32 * hq + 4 * v, shift, sel);
            // Scales of sub-blocks 8hq + 2kq + (v >= 4), kq = ab and ab + 2: bytes of two 16-bit words.
            const std::uint32_t sw0 = ldg16(blk + 192 + 8 * hq + 2 * ab);
            const std::uint32_t sw1 = ldg16(blk + 196 + 8 * hq + 2 * ab);
            const std::uint32_t bsel = v >= 4 ? 1u : 0u;
            const float d = h2f(ldg16(blk + 208));
            s0[r] = d * (magic_byte(sw0 ^ 0x8080u, bsel) - kMagicS8);
            s1[r] = d * (magic_byte(sw1 ^ 0x8080u, bsel) - kMagicS8);
        }
#pragma unroll
        for (int half = 0; half < 2; ++half) {
            const int kq = ab + 2 * half;
            float f[R][4];
#pragma unroll
            for (int r = 0; r < R; ++r) {
                const std::uint32_t lo4 = half ? ((ql[r] >> 4) & 0x0F0F0F0Fu) : (ql[r] & 0x0F0F0F0Fu);
                const std::uint32_t code = lo4 | (((qh[r] >> (2 * kq)) & 0x03030303u) << 4);
#pragma unroll
                for (int e = 0; e < 4; ++e) f[r][e] = magic_byte(code, e) - kMagicQ6;
            }
            const int slot = 64 * b + 32 * hq + 8 * kq + v;
#pragma unroll
            for (int j = 0; j < M; ++j) {
                const float4 xv = xload<D>(xv_, j, slot);
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    const float t = dot4(f[r][0], f[r][1], f[r][2], f[r][3], xv, 0.f);
                    acc[j * R + r] = fmaf(half ? s1[r] : s0[r], t, acc[j * R + r]);
                }
            }
        }
    }
};

// MXFP4: 17-byte blocks {u8 e (E8M0); u8 qs[16]} of 32 elements, byte-aligned (GGUF rows are k/32·17 bytes):
// element j < 16 is the low nibble of qs[j], element j + 16 its high nibble; value = 2^(e-128) · kMxfp4Values[code]
// (the E2M1 grid doubled, ref/quant.h). Unit u = block u/2, h = u & 1 (= lane & 1): qs bytes [8h, 8h+8), i.e.
// elements 8h + [0,8) (low nibbles) and 16 + 8h + [0,8) (high nibbles). The 8 bytes come from aligned 32-bit loads
// (every word loaded overlaps them) and a funnel shift. Codes become signed doubled values through two 8-entry
// byte-permute tables (positive, negative) and a per-byte sign mask. x float4 f = 8b + 4·half + 2h + w; staged slot
// f ^ t(b), t = {0,1,4,5} over b mod 4: a phase's 8 lanes (4 blocks × 2 halves) hit 8 different bank groups.
template <>
struct Unit<DType::MXFP4> {
    static constexpr int kUnit = 16;
    static constexpr bool kXsum = false;
    __device__ static int swz(int f) { return f ^ (((f >> 3) & 1) | ((f >> 2) & 4)); }
    __device__ static std::size_t row_off(std::int64_t k0) { return std::size_t(k0 / 32) * 17; }
    __device__ static float scale(std::uint32_t e) {  // 2^(e-128), as ref::e8m0_to_f32_half
        return __uint_as_float(e < 2 ? (0x00200000u << e) : ((e - 1) << 23));
    }
    // 4 codes (one per byte, 0..15) → the signed doubled values as bytes ^ 0x80 (for kMagicS8).
    __device__ static std::uint32_t values(std::uint32_t code) {
        std::uint32_t sel = code & 0x07070707u;
        sel |= sel >> 4;
        sel = (sel & 0xFFu) | ((sel >> 8) & 0xFF00u);
        const std::uint32_t pos = __byte_perm(0x03020100u, 0x0C080604u, sel);
        const std::uint32_t neg = __byte_perm(0xFDFEFF00u, 0xF4F8FAFCu, sel);
        const std::uint32_t m = ((code >> 3) & 0x01010101u) * 0xFFu;
        return ((pos & ~m) | (neg & m)) ^ 0x80808080u;
    }
    template <int M, int R, bool D>
    __device__ static void dot(const std::uint8_t* const* rp, int u, const XView& xv_, int lane, float* acc) {
        const int h = lane & 1, b = u >> 1;
        float d[R];
        std::uint32_t q[R][2];
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const std::uint8_t* blk = rp[r] + std::size_t(b) * 17;
            d[r] = scale(__ldg(blk));
            const std::uint8_t* a = blk + 1 + 8 * h;
            const std::uint32_t sh = std::uint32_t(reinterpret_cast<std::uintptr_t>(a)) & 3u;
            const std::uint8_t* w = a - sh;
            const std::uint32_t w0 = ldg32(w), w1 = ldg32(w + 4), w2 = sh ? ldg32(w + 8) : 0u;
            q[r][0] = __funnelshift_r(w0, w1, 8 * sh);
            q[r][1] = __funnelshift_r(w1, w2, 8 * sh);
        }
        float s[M * R];
#pragma unroll
        for (int i = 0; i < M * R; ++i) s[i] = 0.f;
#pragma unroll
        for (int half = 0; half < 2; ++half) {
#pragma unroll
            for (int wi = 0; wi < 2; ++wi) {
                float f[R][4];
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    const std::uint32_t code = half ? ((q[r][wi] >> 4) & 0x0F0F0F0Fu) : (q[r][wi] & 0x0F0F0F0Fu);
                    const std::uint32_t v = values(code);
#pragma unroll
                    for (int e = 0; e < 4; ++e) f[r][e] = magic_byte(v, e) - kMagicS8;
                }
                const int fx = 8 * b + 4 * half + 2 * h + wi;
                const int slot = D ? fx : swz(fx);
#pragma unroll
                for (int j = 0; j < M; ++j) {
                    const float4 xv = xload<D>(xv_, j, slot);
#pragma unroll
                    for (int r = 0; r < R; ++r) s[j * R + r] = dot4(f[r][0], f[r][1], f[r][2], f[r][3], xv, s[j * R + r]);
                }
            }
        }
#pragma unroll
        for (int j = 0; j < M; ++j)
#pragma unroll
            for (int r = 0; r < R; ++r) acc[j * R + r] = fmaf(d[r], s[j * R + r], acc[j * R + r]);
    }
};

// Decode-only types with a vector unit (quant_decode.cuh, quant::vec): 32 elements per lane, a unit u = a 32-element
// block (1 per block) or a part of a 256-element super-block (8 lanes per block, v = lane & 7). Each row's unit bytes
// come from aligned 32-bit loads of every word overlapping them and a funnel shift (any alignment: GGUF rows of these
// types are 1- to 8-byte aligned); x in 4 float4 per 16-element part, shared by the R rows. Direct-x kernel only
// (m = 1; k ≤ kGemvMaxK keeps x within kDirectXBytes).
struct DevLoad {
    template <int N>
    __device__ __forceinline__ void get(const std::uint8_t* p, std::uint32_t* out) const {
        constexpr int kW = (N + 3) / 4;
        const std::uint32_t sh = std::uint32_t(reinterpret_cast<std::uintptr_t>(p)) & 3u;
        const unsigned int* a = reinterpret_cast<const unsigned int*>(p - sh);
        std::uint32_t w[kW + 1];
#pragma unroll
        for (int i = 0; i < kW; ++i) w[i] = __ldg(a + i);
        w[kW] = 4 * kW < int(sh) + N ? __ldg(a + kW) : 0u;  // only a word holding bytes of p[0 .. N)
#pragma unroll
        for (int i = 0; i < kW; ++i) out[i] = __funnelshift_r(w[i], w[i + 1], 8 * sh);
    }
};

#define FT_CUDA_VEC_TYPES(X) \
    X(Q4_0, Q4_0)            \
    X(Q5_0, Q5_0)            \
    X(IQ4_NL, Iq4Nl)         \
    X(IQ4_XS, Iq4Xs)         \
    X(Q2_K, Q2_K)            \
    X(Q3_K, Q3_K)            \
    X(IQ2_XXS, Iq2Xxs)       \
    X(IQ3_XXS, Iq3Xxs)       \
    X(Q4_1, Q4_1)            \
    X(Q5_1, Q5_1)            \
    X(TQ2_0, Tq2_0)          \
    X(IQ2_XS, Iq2Xs)         \
    X(IQ2_S, Iq2S)           \
    X(IQ3_S, Iq3S)           \
    X(IQ1_S, Iq1S)           \
    X(IQ1_M, Iq1M)           \
    X(TQ1_0, Tq1_0)

constexpr bool has_vec_unit(DType t) {
#define FT_X(T, V) t == DType::T ||
    return FT_CUDA_VEC_TYPES(FT_X) false;
#undef FT_X
}

template <class V>
struct UnitVec {
    static constexpr int kUnit = 32;
    template <int M, int R, bool D>
    __device__ static void dot(const std::uint8_t* const* rp, int u, const XView& xv_, int lane, float* acc) {
        static_assert(M == 1 && D, "decode-only vector units run in the direct-x kernel at m = 1");
        const int v = V::kPerBlock == 1 ? 0 : (lane & 7);
        const int b = V::kPerBlock == 1 ? u : (u >> 3);
        typename V::W w[R];
#pragma unroll
        for (int r = 0; r < R; ++r) w[r] = V::load(DevLoad{}, rp[r] + std::size_t(b) * V::kBytes, v);
        const int x0 = b * V::kPerBlock * 8;  // float4 of x at the block's first element
        float tot[R], pxs = 0.f;
#pragma unroll
        for (int r = 0; r < R; ++r) tot[r] = 0.f;
#pragma unroll
        for (int part = 0; part < 2; ++part) {
            float4 x[4];
#pragma unroll
            for (int t = 0; t < 4; ++t) x[t] = xload<true>(xv_, 0, x0 + V::xslot(v, part, t));
            float px = 0.f;
            if constexpr (V::kMin) {
#pragma unroll
                for (int t = 0; t < 4; ++t) px += (x[t].x + x[t].y) + (x[t].z + x[t].w);
                pxs += px;
            }
#pragma unroll
            for (int r = 0; r < R; ++r) {
                const float s = V::dot(w[r], part, x);
                if constexpr (V::kGroups == 2) {
                    acc[r] = fmaf(V::scale(w[r], part), s, acc[r]);
                    if constexpr (V::kMin) acc[r] = fmaf(-V::min(w[r], part), px, acc[r]);
                } else {
                    tot[r] += s;
                }
            }
        }
        if constexpr (V::kGroups == 1) {
#pragma unroll
            for (int r = 0; r < R; ++r) {
                acc[r] = fmaf(V::scale(w[r], 0), tot[r], acc[r]);
                if constexpr (V::kMin) acc[r] = fmaf(-V::min(w[r], 0), pxs, acc[r]);
            }
        }
    }
};
#define FT_X(T, V) \
    template <>    \
    struct Unit<DType::T> : UnitVec<quant::vec::V> {};
FT_CUDA_VEC_TYPES(FT_X)
#undef FT_X

// ---------------------------------------------------------------- the fast kernel

// Stages x[j, k0 .. k0 + klen) for j < M (zeros for j >= m) into swizzled float4 slots, plus 32-element sums.
template <DType T, int M>
__device__ void stage_x(float* xs, float* xsum, const float* x, std::int64_t ldx, int m, std::int64_t k0, int klen,
                        int kt, bool vec) {
    using U = Unit<T>;
    const int n4 = klen / 4;
#pragma unroll
    for (int j = 0; j < M; ++j) {
        float4* dst = reinterpret_cast<float4*>(xs + j * kt);
        for (int f = threadIdx.x; f < n4; f += kThreads) {
            float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
            if (j < m) {
                const float* src = x + j * ldx + k0 + 4 * f;
                if (vec) {
                    v = __ldg(reinterpret_cast<const float4*>(src));
                } else {
                    v.x = __ldg(src);
                    v.y = __ldg(src + 1);
                    v.z = __ldg(src + 2);
                    v.w = __ldg(src + 3);
                }
            }
            dst[U::swz(f)] = v;
            if constexpr (U::kXsum) {
                // n4 is a multiple of 64 here: whole warps take part.
                float s = (v.x + v.y) + (v.z + v.w);
                s += __shfl_xor_sync(kFull, s, 1);
                s += __shfl_xor_sync(kFull, s, 2);
                s += __shfl_xor_sync(kFull, s, 4);
                if ((f & 7) == 0) xsum[j * (kt / 32) + (f >> 3)] = s;
            }
        }
    }
}

template <DType T, int M, int R, int kMode>
__global__ void __launch_bounds__(kThreads, 4) gemv_fast_kernel(const KArgs a) {
    using U = Unit<T>;
    constexpr int kOutR = kMode == kGateUp ? R / 2 : R;  // output rows per warp
    extern __shared__ float4 smem4[];
    float* xs = reinterpret_cast<float*>(smem4);
    float* xsum = xs + M * a.kt;
    const XView xv{xs, xsum, a.kt, M - 1};
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    pdl_enter();

    const std::uint8_t* w0 = a.w0;
    const std::uint8_t* w1 = a.w1;
    const float* x = a.x;
    float* y = a.y;
    std::int64_t boff = 0;  // the expert's bias row
    if constexpr (kMode != kPlain) {
        const int p = blockIdx.y;
        const int e = a.ids[p];
        const int slot = e < 0 ? -1 : (a.slot_map ? a.slot_map[e] : e);
        y += std::int64_t(p) * a.ldy;
        boff = std::int64_t(a.bias_ids ? a.bias_ids[p] : e) * a.bstride;
        if (slot < 0) {  // computed elsewhere: zeros (uniform per CTA, before any barrier)
            for (std::int64_t rg = blockIdx.x; rg < a.n_rg; rg += gridDim.x)
                for (int i = threadIdx.x; i < kWarps * kOutR; i += kThreads) {
                    const std::int64_t row = rg * (kWarps * kOutR) + i;
                    if (row < a.rows) y[row] = 0.f;
                }
            return;
        }
        w0 += std::size_t(slot) * a.stride0;
        if constexpr (kMode == kGateUp) w1 += std::size_t(slot) * a.stride1;
        x += std::int64_t(p / a.x_div) * a.ldx;
    }

    const bool vec = ((reinterpret_cast<std::uintptr_t>(x) & 15) == 0) && (a.ldx % 4 == 0);
    const int n_tiles = int((a.k + a.kt - 1) / a.kt);
    if (n_tiles == 1) {
        stage_x<T, M>(xs, xsum, x, a.ldx, a.m, 0, int(a.k), a.kt, vec);
        __syncthreads();
    }
    for (std::int64_t rg = blockIdx.x; rg < a.n_rg; rg += gridDim.x) {
        const std::int64_t out0 = rg * (kWarps * kOutR) + std::int64_t(warp) * kOutR;
        const std::uint8_t* rp[R];
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const std::int64_t orow = std::min(out0 + (kMode == kGateUp ? r / 2 : r), a.rows - 1);
            const std::uint8_t* base = (kMode == kGateUp && (r & 1)) ? w1 : w0;
            rp[r] = base + std::size_t(orow) * a.row_bytes;
        }
        float acc[M * R];
#pragma unroll
        for (int i = 0; i < M * R; ++i) acc[i] = 0.f;
        for (int t = 0; t < n_tiles; ++t) {
            const std::int64_t k0 = std::int64_t(t) * a.kt;
            const int klen = int(std::min<std::int64_t>(a.kt, a.k - k0));
            if (n_tiles > 1) {
                __syncthreads();
                stage_x<T, M>(xs, xsum, x, a.ldx, a.m, k0, klen, a.kt, vec);
                __syncthreads();
            }
            const std::uint8_t* tp[R];
#pragma unroll
            for (int r = 0; r < R; ++r) tp[r] = rp[r] + U::row_off(k0);
            const int n_units = klen / U::kUnit;
            // Two units per trip for small R: both units' weight loads can be in flight (small matrices are
            // latency-bound).
#pragma unroll(R <= 2 && M <= 4 ? 2 : 1)
            for (int u = lane; u < n_units; u += 32) U::template dot<M, R, false>(tp, u, xv, lane, acc);
        }
        warp_reduce<M * R, 16>(acc, lane);
        constexpr int kLanesPer = 32 / (M * R);
        const int idx = lane / kLanesPer;
        if constexpr (kMode == kGateUp) {
            const float other = __shfl_xor_sync(kFull, acc[0], kLanesPer);  // idx ^ 1: up of a gate, gate of an up
            if (lane % kLanesPer == 0 && (idx & 1) == 0) {
                const std::int64_t row = out0 + idx / 2;
                if (row < a.rows)
                    y[row] = swiglu(with_bias(acc[0], a.b0, boff + row), with_bias(other, a.b1, boff + row), a.limit);
            }
        } else {
            if (lane % kLanesPer == 0) {
                const int j = idx / R, r = idx % R;
                const std::int64_t row = out0 + r;
                if (j < a.m && row < a.rows) {
                    float* py = y + std::int64_t(j) * a.ldy + row;
                    const float v = with_bias(acc[0], a.b0, boff + row);
                    *py = a.accumulate ? *py + v : v;
                }
            }
        }
    }
}

// Direct-x kernel (the decode path: M·k·4 bytes of x small enough to live in L1). CTA = 8 warps = (8 / ks) row
// groups × ks k-slices; warp (g, s) takes units lane + 32·(s + ks·i) of the group's R rows (interleaved slices keep
// u ≡ lane mod 32), and the ks partial sums meet in shared memory. No staging and no barrier before the sweep, so
// each warp's first weight loads leave right after ids are read; x comes from L1 (from L2 once per SM).
// sm_86/89 need a few more registers than sm_90 for the K-quants at R = 4: one CTA per SM less there.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
constexpr int kDirectBlocksRelief = 1;
#else
constexpr int kDirectBlocksRelief = 0;
#endif

template <DType T, int M, int R, int kMode, int kMinBlocks>
__global__ void __launch_bounds__(kThreadsD, kMinBlocks > 2 ? kMinBlocks - kDirectBlocksRelief : kMinBlocks)
    gemv_direct_kernel(const KArgs a) {
    using U = Unit<T>;
    constexpr int kOutR = kMode == kGateUp ? R / 2 : R;
    __shared__ float red[kWarpsD][32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int ks = a.ks, groups = kWarpsD / ks;
    const int g = warp / ks, s = warp % ks;
    const std::int64_t cta0 = std::int64_t(blockIdx.x) * groups * kOutR;
    if constexpr (kMode == kPlain) {  // this block's weight rows, while the kernel before may still run
        const std::int64_t r1 = std::min<std::int64_t>(cta0 + groups * kOutR, a.rows);
        if (r1 > cta0) prefetch_l2(a.w0 + std::size_t(cta0) * a.row_bytes, std::size_t(r1 - cta0) * a.row_bytes);
    }
    pdl_enter();

    const std::uint8_t* w0 = a.w0;
    const std::uint8_t* w1 = a.w1;
    const float* x = a.x;
    float* y = a.y;
    std::int64_t boff = 0;  // the expert's bias row
    if constexpr (kMode != kPlain) {
        const int p = blockIdx.y;
        const int e = a.ids[p];
        const int slot = e < 0 ? -1 : (a.slot_map ? a.slot_map[e] : e);
        y += std::int64_t(p) * a.ldy;
        boff = std::int64_t(a.bias_ids ? a.bias_ids[p] : e) * a.bstride;
        if (slot < 0) {  // computed elsewhere: zeros (uniform per CTA, before the barrier)
            for (int i = threadIdx.x; i < groups * kOutR; i += kThreadsD)
                if (cta0 + i < a.rows) y[cta0 + i] = 0.f;
            return;
        }
        w0 += std::size_t(slot) * a.stride0;
        if constexpr (kMode == kGateUp) w1 += std::size_t(slot) * a.stride1;
        x += std::int64_t(p / a.x_div) * a.ldx;
    }
    const XView xv{x, nullptr, int(a.ldx), a.m - 1};
    const std::int64_t out0 = cta0 + std::int64_t(g) * kOutR;
    const std::uint8_t* rp[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const std::int64_t orow = std::min(out0 + (kMode == kGateUp ? r / 2 : r), a.rows - 1);
        const std::uint8_t* base = (kMode == kGateUp && (r & 1)) ? w1 : w0;
        rp[r] = base + std::size_t(orow) * a.row_bytes;
    }
    float acc[M * R];
#pragma unroll
    for (int i = 0; i < M * R; ++i) acc[i] = 0.f;
    const int n_units = int(a.k / U::kUnit);
#pragma unroll(R <= 2 && M <= 2 ? 2 : 1)
    for (int u = lane + 32 * s; u < n_units; u += 32 * ks) U::template dot<M, R, true>(rp, u, xv, lane, acc);
    warp_reduce<M * R, 16>(acc, lane);
    if (ks > 1) {  // ks is uniform: every thread reaches the barrier
        if (s != 0) red[warp][lane] = acc[0];
        __syncthreads();
        if (s != 0) return;
        for (int i = 1; i < ks; ++i) acc[0] += red[warp + i][lane];
    }
    constexpr int kLanesPer = 32 / (M * R);
    const int idx = lane / kLanesPer;
    if constexpr (kMode == kGateUp) {
        const float other = __shfl_xor_sync(kFull, acc[0], kLanesPer);  // idx ^ 1: up of a gate, gate of an up
        if (lane % kLanesPer == 0 && (idx & 1) == 0) {
            const std::int64_t row = out0 + idx / 2;
            if (row < a.rows)
                y[row] = swiglu(with_bias(acc[0], a.b0, boff + row), with_bias(other, a.b1, boff + row), a.limit);
        }
    } else {
        if (lane % kLanesPer == 0) {
            const int j = idx / R, r = idx % R;
            const std::int64_t row = out0 + r;
            if (j < a.m && row < a.rows) {
                float* py = y + std::int64_t(j) * a.ldy + row;
                const float v = with_bias(acc[0], a.b0, boff + row);
                *py = a.accumulate ? *py + v : v;
            }
        }
    }
}

// ---------------------------------------------------------------- generic fallback (any alignment)

__device__ __forceinline__ std::uint32_t lb(const std::uint8_t* p) { return __ldg(p); }
__device__ __forceinline__ std::uint32_t lu16(const std::uint8_t* p) { return lb(p) | (lb(p + 1) << 8); }

template <DType T>
__device__ float elem(const std::uint8_t* row, std::int64_t i) {
    if constexpr (T == DType::F32) {
        const std::uint8_t* p = row + 4 * i;
        return __uint_as_float(lu16(p) | (lu16(p + 2) << 16));
    } else if constexpr (T == DType::F16) {
        return h2f(lu16(row + 2 * i));
    } else if constexpr (T == DType::BF16) {
        return __uint_as_float(lu16(row + 2 * i) << 16);
    } else if constexpr (T == DType::Q8_0) {
        const std::uint8_t* blk = row + (i / 32) * 34;
        return h2f(lu16(blk)) * float(std::int8_t(lb(blk + 2 + i % 32)));
    } else if constexpr (T == DType::Q4_K || T == DType::Q5_K) {
        constexpr bool q5 = T == DType::Q5_K;
        const std::uint8_t* blk = row + (i / 256) * (q5 ? 176 : 144);
        const int e = int(i % 256), j = e / 32, c = e / 64, w = e % 64;
        const std::uint8_t* s = blk + 4;
        std::uint32_t sc, mn;
        if (j < 4) {
            sc = lb(s + j) & 63;
            mn = lb(s + j + 4) & 63;
        } else {
            sc = (lb(s + j + 4) & 0xF) | ((lb(s + j - 4) >> 6) << 4);
            mn = (lb(s + j + 4) >> 4) | ((lb(s + j) >> 6) << 4);
        }
        const std::uint32_t byte = lb(blk + (q5 ? 48 : 16) + 32 * c + w % 32);
        std::uint32_t q = w < 32 ? (byte & 0xF) : (byte >> 4);
        if constexpr (q5) q |= ((lb(blk + 16 + w % 32) >> (2 * c + (w >= 32 ? 1 : 0))) & 1) << 4;
        return h2f(lu16(blk)) * float(sc) * float(q) - h2f(lu16(blk + 2)) * float(mn);
    } else if constexpr (T == DType::MXFP4) {
        const std::uint8_t* blk = row + (i / 32) * 17;
        const int j = int(i % 32);
        const std::uint32_t byte = lb(blk + 1 + (j & 15));
        const int code = int(j < 16 ? (byte & 0xF) : (byte >> 4));
        constexpr float kVal[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};
        return Unit<DType::MXFP4>::scale(lb(blk)) * kVal[code];
    } else {  // Q6_K
        const std::uint8_t* blk = row + (i / 256) * 210;
        const int e = int(i % 256), hq = e / 128, w = e % 128, kq = w / 32, l = w % 32;
        const std::uint32_t lo = lb(blk + 64 * hq + l + 32 * (kq & 1));
        const int q = int((kq < 2 ? (lo & 0xF) : (lo >> 4)) | (((lb(blk + 128 + 32 * hq + l) >> (2 * kq)) & 3) << 4));
        return h2f(lu16(blk + 208)) * float(std::int8_t(lb(blk + 192 + e / 16))) * float(q - 32);
    }
}

template <DType T, int kMode>
__global__ void __launch_bounds__(kThreads) gemv_generic_kernel(const KArgs a) {
    pdl_enter();
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const std::int64_t row = std::int64_t(blockIdx.x) * kWarps + warp;
    const std::uint8_t* w0 = a.w0;
    const std::uint8_t* w1 = a.w1;
    const float* x = a.x;
    float* y = a.y;
    std::int64_t boff = 0;  // the expert's bias row
    if constexpr (kMode != kPlain) {
        const int p = blockIdx.y;
        const int e = a.ids[p];
        const int slot = e < 0 ? -1 : (a.slot_map ? a.slot_map[e] : e);
        y += std::int64_t(p) * a.ldy;
        boff = std::int64_t(a.bias_ids ? a.bias_ids[p] : e) * a.bstride;
        if (slot < 0) {
            if (lane == 0 && row < a.rows) y[row] = 0.f;
            return;
        }
        w0 += std::size_t(slot) * a.stride0;
        if constexpr (kMode == kGateUp) w1 += std::size_t(slot) * a.stride1;
        x += std::int64_t(p / a.x_div) * a.ldx;
    }
    if (row >= a.rows) return;  // no barriers in this kernel
    const std::uint8_t* r0 = w0 + std::size_t(row) * a.row_bytes;
    const std::uint8_t* r1 = kMode == kGateUp ? w1 + std::size_t(row) * a.row_bytes : r0;
    float acc[kGemvMaxM], acc_up = 0.f;
#pragma unroll
    for (int j = 0; j < kGemvMaxM; ++j) acc[j] = 0.f;
    if constexpr (quant::decode_only(T)) {
        // 8 elements per step (one quant::decode8: one scale, consecutive codes), lane l takes groups l, l + 32, ….
        for (std::int64_t i = 8 * std::int64_t(lane); i < a.k; i += 256) {
            float w[8], u[8];
            quant::decode8<T>(r0, i, 8, w);
            if constexpr (kMode == kGateUp) quant::decode8<T>(r1, i, 8, u);
#pragma unroll
            for (int j = 0; j < kGemvMaxM; ++j) {
                if (j >= (kMode == kPlain ? a.m : 1)) break;
                const float* xj = x + j * a.ldx + i;
#pragma unroll
                for (int e = 0; e < 8; ++e) {
                    const float xv = __ldg(xj + e);
                    acc[j] = fmaf(w[e], xv, acc[j]);
                    if constexpr (kMode == kGateUp) acc_up = fmaf(u[e], xv, acc_up);
                }
            }
        }
    } else {
        for (std::int64_t i = lane; i < a.k; i += 32) {
            const float w = elem<T>(r0, i);
            if constexpr (kMode == kGateUp) {
                const float xv = x[i];
                acc[0] = fmaf(w, xv, acc[0]);
                acc_up = fmaf(elem<T>(r1, i), xv, acc_up);
            } else {
#pragma unroll
                for (int j = 0; j < kGemvMaxM; ++j)
                    if (j < a.m) acc[j] = fmaf(w, x[j * a.ldx + i], acc[j]);
            }
        }
    }
    // The braces above are needed: nvcc 13.0 drops the `#pragma unroll` loop that follows an `if constexpr`'s
    // discarded `else for (…)` without braces (the reductions below vanished from the decode-only kernels' PTX).
#pragma unroll
    for (int j = 0; j < kGemvMaxM; ++j) warp_reduce<1, 16>(&acc[j], lane);
    warp_reduce<1, 16>(&acc_up, lane);
    if (lane != 0) return;
    if constexpr (kMode == kGateUp) {
        y[row] = swiglu(with_bias(acc[0], a.b0, boff + row), with_bias(acc_up, a.b1, boff + row), a.limit);
    } else {
        for (int j = 0; j < a.m; ++j) {
            float* py = y + std::int64_t(j) * a.ldy + row;
            const float v = with_bias(acc[j], a.b0, boff + row);
            *py = a.accumulate ? *py + v : v;
        }
    }
}

// ---------------------------------------------------------------- decode-only types, one vector (m = 1)

// R rows per warp (R gate and R up rows for gate_up), 8 elements per quant::decode8 step, lane l taking groups l,
// l + 32, …: x is loaded once per step (two float4 when aligned) for the R rows, and the R rows' loads are independent.
// One row per warp spent most of its time on x, whose 8 scalar loads per step each touched 32 sectors.
template <DType T, int kMode, int R>
__global__ void __launch_bounds__(kThreads) gemv_decode8_kernel(const KArgs a) {
    constexpr int N = kMode == kGateUp ? 2 * R : R;  // values reduced per warp
    pdl_enter();
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const std::int64_t row0 = (std::int64_t(blockIdx.x) * kWarps + warp) * R;
    const std::uint8_t* w0 = a.w0;
    const std::uint8_t* w1 = a.w1;
    const float* x = a.x;
    float* y = a.y;
    std::int64_t boff = 0;
    if constexpr (kMode != kPlain) {
        const int p = blockIdx.y;
        const int e = a.ids[p];
        const int slot = e < 0 ? -1 : (a.slot_map ? a.slot_map[e] : e);
        y += std::int64_t(p) * a.ldy;
        boff = std::int64_t(a.bias_ids ? a.bias_ids[p] : e) * a.bstride;
        if (slot < 0) {
            if (lane < R && row0 + lane < a.rows) y[row0 + lane] = 0.f;
            return;
        }
        w0 += std::size_t(slot) * a.stride0;
        if constexpr (kMode == kGateUp) w1 += std::size_t(slot) * a.stride1;
        x += std::int64_t(p / a.x_div) * a.ldx;
    }
    if (row0 >= a.rows) return;  // whole warps only: no barriers in this kernel
    const std::uint8_t* rp[N];
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const std::int64_t row = row0 + r < a.rows ? row0 + r : a.rows - 1;  // past the end: recompute the last row
        rp[r] = w0 + std::size_t(row) * a.row_bytes;
        if constexpr (kMode == kGateUp) rp[R + r] = w1 + std::size_t(row) * a.row_bytes;
    }
    float acc[N];
#pragma unroll
    for (int r = 0; r < N; ++r) acc[r] = 0.f;
    const bool x16 = (reinterpret_cast<std::uintptr_t>(x) & 15) == 0;
    for (std::int64_t i = 8 * std::int64_t(lane); i < a.k; i += 256) {
        float xv[8];
        if (x16) {
            const float4 lo = __ldg(reinterpret_cast<const float4*>(x + i));
            const float4 hi = __ldg(reinterpret_cast<const float4*>(x + i) + 1);
            xv[0] = lo.x, xv[1] = lo.y, xv[2] = lo.z, xv[3] = lo.w, xv[4] = hi.x, xv[5] = hi.y, xv[6] = hi.z, xv[7] = hi.w;
        } else {
#pragma unroll
            for (int e = 0; e < 8; ++e) xv[e] = __ldg(x + i + e);
        }
#pragma unroll
        for (int r = 0; r < N; ++r) {
            float w[8];
            quant::decode8<T>(rp[r], i, 8, w);
#pragma unroll
            for (int e = 0; e < 8; ++e) acc[r] = fmaf(w[e], xv[e], acc[r]);
        }
    }
    warp_reduce<N, 16>(acc, lane);  // lane l: the total of value l / (32 / N) in acc[0]
    constexpr int kLanes = 32 / N;
    const int idx = lane / kLanes;
    if constexpr (kMode == kGateUp) {
        const float up = __shfl_sync(kFull, acc[0], ((idx + R) % N) * kLanes);
        if (lane % kLanes != 0 || idx >= R) return;
        const std::int64_t row = row0 + idx;
        if (row < a.rows)
            y[row] = swiglu(with_bias(acc[0], a.b0, boff + row), with_bias(up, a.b1, boff + row), a.limit);
    } else {
        if (lane % kLanes != 0) return;
        const std::int64_t row = row0 + idx;
        if (row >= a.rows) return;
        const float v = with_bias(acc[0], a.b0, boff + row);
        y[row] = a.accumulate ? y[row] + v : v;
    }
}

template <DType T, int kMode, int R>
cudaError_t launch_decode8(const KArgs& a, unsigned grid_y, cudaStream_t stream) {
    const std::int64_t grid_x = (a.rows + kWarps * R - 1) / (kWarps * R);
    if (grid_x > 0x7fffffff) return cudaErrorInvalidValue;
    return launch_pdl(gemv_decode8_kernel<T, kMode, R>, dim3(unsigned(grid_x), grid_y), dim3(kThreads), 0, stream, a);
}

// m = 1 (decode): R = 4 rows per warp for tall matrices, 1 below: an expert's 768 rows need every warp in flight
// (H100, 8 pairs of 768×2048 with R = 2: slower than one row per warp for most types; docs/benchmarks.md).
// m = 1 of the types with a vector unit: the direct-x kernel when x is float4-addressable (else dispatch_decode8):
// R = 4 rows per warp from 4,096 rows and for the experts, 2 below (as the fast types).
template <DType T, int M, int R, int kMode>
cudaError_t launch_direct(KArgs a, unsigned grid_y, cudaStream_t stream);

template <DType T, int kMode>
cudaError_t launch_vec(const KArgs& a, unsigned grid_y, cudaStream_t s) {
    if constexpr (kMode != kPlain) return launch_direct<T, 1, 4, kMode>(a, grid_y, s);
    else return a.rows >= 4096 ? launch_direct<T, 1, 4, kMode>(a, grid_y, s) : launch_direct<T, 1, 2, kMode>(a, grid_y, s);
}

template <int kMode>
cudaError_t dispatch_vec(DType t, const KArgs& a, unsigned grid_y, cudaStream_t s) {
    switch (t) {
#define FT_X(T, V) case DType::T: return launch_vec<DType::T, kMode>(a, grid_y, s);
        FT_CUDA_VEC_TYPES(FT_X)
#undef FT_X
        default: return cudaErrorInvalidValue;
    }
}

bool vec_ok(DType t, const KArgs& a) {
    return has_vec_unit(t) && a.k % 32 == 0 && std::int64_t(4) * a.k <= kDirectXBytes && a.ldx % 4 == 0 &&
           reinterpret_cast<std::uintptr_t>(a.x) % 16 == 0;
}

template <int kMode>
cudaError_t dispatch_decode8(DType t, const KArgs& a, unsigned grid_y, cudaStream_t s) {
    if (vec_ok(t, a)) return dispatch_vec<kMode>(t, a, grid_y, s);
    const bool tall = a.rows >= 4096;
    switch (t) {
#define FT_X(T)                                                                                                        \
    case DType::T:                                                                                                     \
        return tall ? launch_decode8<DType::T, kMode, 4>(a, grid_y, s) : launch_decode8<DType::T, kMode, 1>(a, grid_y, s);
        FT_CUDA_DECODE_ONLY_TYPES(FT_X)
#undef FT_X
        default: return cudaErrorInvalidValue;
    }
}

// ---------------------------------------------------------------- host side

int unit_elems(DType t) {
    switch (t) {
        case DType::F32: return 4;
        case DType::Q4_K: case DType::Q5_K: return 32;
        case DType::MXFP4: return 16;
        default: return 8;
    }
}

// Byte alignment the fast path needs of row starts (base, row_bytes, slot strides).
std::size_t fast_align(DType t) {
    if (t == DType::MXFP4) return 1;  // 17-byte blocks: the unit aligns its own loads
    return (t == DType::Q8_0 || t == DType::Q6_K) ? 2 : 16;
}

// Device properties, cached per device (the launchers run at graph capture and in eager prefill).
constexpr int kMaxDevices = 64;

int current_device() {
    int dev = 0;
    return cudaGetDevice(&dev) == cudaSuccess && dev >= 0 ? dev : 0;
}

int sm_count(int dev) {
    static std::atomic<int> cache[kMaxDevices];
    int v = dev < kMaxDevices ? cache[dev].load(std::memory_order_relaxed) : 0;
    if (v > 0) return v;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || v <= 0) {
        cudaGetLastError();  // clear it: the launch reports its own errors
        return 132;
    }
    if (dev < kMaxDevices) cache[dev].store(v, std::memory_order_relaxed);
    return v;
}

// k tile for M vectors: the whole k when it fits the shared-memory budget, else a multiple of 256.
int tile_k(std::int64_t k, int M, bool xsum) {
    const std::int64_t per = std::int64_t(M) * 4 + (xsum ? (std::int64_t(M) * 4 + 31) / 32 : 0);
    std::int64_t cap = kSmemBudget / per;
    if (k <= cap) return int(k);
    return int(std::max<std::int64_t>(256, cap / 256 * 256));
}

std::size_t smem_bytes(int kt, int M, bool xsum) {
    return std::size_t(M) * std::size_t(kt) * 4 + (xsum ? std::size_t(M) * std::size_t((kt + 31) / 32) * 4 : 0);
}

template <DType T, int M, int R, int kMode>
cudaError_t launch_fast(KArgs a, unsigned grid_y, cudaStream_t stream) {
    constexpr bool xsum = Unit<T>::kXsum;
    constexpr int out_r = kMode == kGateUp ? R / 2 : R;
    a.kt = tile_k(a.k, M, xsum);
    a.n_rg = (a.rows + kWarps * out_r - 1) / (kWarps * out_r);
    const std::size_t smem = smem_bytes(a.kt, M, xsum);
    auto* kernel = gemv_fast_kernel<T, M, R, kMode>;
    std::int64_t grid_x = a.n_rg;
    const int dev = current_device();
    const int sms = sm_count(dev);
    if (grid_x * grid_y > std::int64_t(sms) * 4) {
        // One resident wave, looping over row groups: x is staged once per CTA. Occupancy cached per device, taken
        // at the full shared-memory budget (the most a tile uses).
        static std::atomic<int> occ_cache[kMaxDevices];
        int occ = dev < kMaxDevices ? occ_cache[dev].load(std::memory_order_relaxed) : 0;
        if (occ <= 0) {
            const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, kThreads, kSmemBudget);
            if (e != cudaSuccess) return e;
            occ = std::max(occ, 1);
            if (dev < kMaxDevices) occ_cache[dev].store(occ, std::memory_order_relaxed);
        }
        const std::int64_t cap = std::max<std::int64_t>(1, std::int64_t(sms) * occ / grid_y);
        grid_x = std::min(grid_x, cap);
    }
    grid_x = std::min<std::int64_t>(grid_x, 0x7fffffff);
    return launch_pdl(kernel, dim3(unsigned(grid_x), grid_y), dim3(kThreads), smem, stream, a);
}

// Direct-x launch: k slices per row group (ks) doubled while the grid still fits one resident wave of warps
// (occupancy cached per device) and every slice keeps at least one 32-unit step.
template <DType T, int M, int R, int kMode>
cudaError_t launch_direct(KArgs a, unsigned grid_y, cudaStream_t stream) {
    constexpr int out_r = kMode == kGateUp ? R / 2 : R;
    // ≤ 80 registers where nothing spills (Q2_K/IQ2_S's vector units spill there at R = 4, Q3_K's at R = 2 and 4)
    constexpr bool roomy = T == DType::Q5_K || T == DType::Q3_K || (R == 4 && (T == DType::Q2_K || T == DType::IQ2_S));
    constexpr int min_blocks = (M * R <= 4 && !roomy) ? 3 : 2;
    auto* kernel = gemv_direct_kernel<T, M, R, kMode, min_blocks>;
    const int dev = current_device();
    static std::atomic<int> occ_cache[kMaxDevices];
    int occ = dev < kMaxDevices ? occ_cache[dev].load(std::memory_order_relaxed) : 0;
    if (occ <= 0) {
        const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, kThreadsD, 0);
        if (e != cudaSuccess) return e;
        occ = std::max(occ, 1);
        if (dev < kMaxDevices) occ_cache[dev].store(occ, std::memory_order_relaxed);
    }
    const std::int64_t steps = (a.k / Unit<T>::kUnit + 31) / 32;
    const std::int64_t row_warps = (a.rows + out_r - 1) / out_r;
    const std::int64_t resident = std::int64_t(sm_count(dev)) * occ * kWarpsD;
    int ks = 1;
    while (ks < kWarpsD && 2 * ks <= steps && row_warps * grid_y * 2 * ks <= resident) ks *= 2;
    a.ks = ks;
    const std::int64_t rows_per_cta = std::int64_t(kWarpsD / ks) * out_r;
    const std::int64_t grid_x = (a.rows + rows_per_cta - 1) / rows_per_cta;
    if (grid_x > 0x7fffffff) return cudaErrorInvalidValue;
    return launch_pdl(kernel, dim3(unsigned(grid_x), grid_y), dim3(kThreadsD), 0, stream, a);
}

// Direct x when it is float4-addressable and M rows of it fit L1 comfortably; else staged in shared memory.
template <DType T, int M, int R, int kMode>
cudaError_t launch(const KArgs& a, unsigned grid_y, cudaStream_t stream) {
    const bool direct = std::int64_t(M) * a.k * 4 <= kDirectXBytes && a.ldx % 4 == 0 && a.ldx <= (1 << 24) &&
                        reinterpret_cast<std::uintptr_t>(a.x) % 16 == 0;
    // Q4_K/Q5_K with M = 8 spill at R = 2 (and in the direct kernel at any R): staged kernel, one row per warp.
    if constexpr (M == 8 && Unit<T>::kXsum) return launch_fast<T, M, 1, kMode>(a, grid_y, stream);
    else return direct ? launch_direct<T, M, R, kMode>(a, grid_y, stream) : launch_fast<T, M, R, kMode>(a, grid_y, stream);
}

template <DType T, int kMode>
cudaError_t launch_generic(const KArgs& a, unsigned grid_y, cudaStream_t stream) {
    const std::int64_t grid_x = (a.rows + kWarps - 1) / kWarps;
    if (grid_x > 0x7fffffff) return cudaErrorInvalidValue;
    return launch_pdl(gemv_generic_kernel<T, kMode>, dim3(unsigned(grid_x), grid_y), dim3(kThreads), 0, stream, a);
}

template <int kMode>
cudaError_t dispatch_generic(DType t, const KArgs& a, unsigned grid_y, cudaStream_t s) {
    switch (t) {
        case DType::F32: return launch_generic<DType::F32, kMode>(a, grid_y, s);
        case DType::F16: return launch_generic<DType::F16, kMode>(a, grid_y, s);
        case DType::BF16: return launch_generic<DType::BF16, kMode>(a, grid_y, s);
        case DType::Q8_0: return launch_generic<DType::Q8_0, kMode>(a, grid_y, s);
        case DType::Q4_K: return launch_generic<DType::Q4_K, kMode>(a, grid_y, s);
        case DType::Q5_K: return launch_generic<DType::Q5_K, kMode>(a, grid_y, s);
        case DType::Q6_K: return launch_generic<DType::Q6_K, kMode>(a, grid_y, s);
        case DType::MXFP4: return launch_generic<DType::MXFP4, kMode>(a, grid_y, s);
        default: break;
    }
    if constexpr (kMode == kPlain) {  // m > 1 (the expert modes and m = 1 take dispatch_decode8)
        switch (t) {
#define FT_X(T) case DType::T: return launch_generic<DType::T, kMode>(a, grid_y, s);
            FT_CUDA_DECODE_ONLY_TYPES(FT_X)
#undef FT_X
            default: break;
        }
    }
    return cudaErrorInvalidValue;
}

template <DType T>
cudaError_t dispatch_plain_m(const KArgs& a, cudaStream_t s) {
    const bool big = a.rows >= 4096;
    if (a.m == 1) return big ? launch<T, 1, 4, kPlain>(a, 1, s) : launch<T, 1, 2, kPlain>(a, 1, s);
    if (a.m == 2) return big ? launch<T, 2, 4, kPlain>(a, 1, s) : launch<T, 2, 2, kPlain>(a, 1, s);
    if (a.m <= 4) return launch<T, 4, 2, kPlain>(a, 1, s);  // R = 4 spills for the K-quants
    return launch<T, 8, 2, kPlain>(a, 1, s);
}

template <int kMode>
cudaError_t dispatch_fast(DType t, const KArgs& a, unsigned grid_y, cudaStream_t s) {
    if constexpr (kMode == kPlain) {
        switch (t) {
            case DType::F32: return dispatch_plain_m<DType::F32>(a, s);
            case DType::F16: return dispatch_plain_m<DType::F16>(a, s);
            case DType::BF16: return dispatch_plain_m<DType::BF16>(a, s);
            case DType::Q8_0: return dispatch_plain_m<DType::Q8_0>(a, s);
            case DType::Q4_K: return dispatch_plain_m<DType::Q4_K>(a, s);
            case DType::Q5_K: return dispatch_plain_m<DType::Q5_K>(a, s);
            case DType::Q6_K: return dispatch_plain_m<DType::Q6_K>(a, s);
            case DType::MXFP4: return dispatch_plain_m<DType::MXFP4>(a, s);
            default: return cudaErrorInvalidValue;
        }
    } else {
        // Short Q4_K rows (a MoE down projection, k ≤ 1024: one 32-unit step per warp) take 8 rows per warp: one
        // wave of warps with twice the loads in flight each (Qwen3-30B-A3B down, H200: 0.506 → 0.465 ms per step).
        if (kMode == kExpert && t == DType::Q4_K && a.k <= 1024) return launch<DType::Q4_K, 1, 8, kMode>(a, grid_y, s);
        switch (t) {
            case DType::F32: return launch<DType::F32, 1, 4, kMode>(a, grid_y, s);
            case DType::F16: return launch<DType::F16, 1, 4, kMode>(a, grid_y, s);
            case DType::BF16: return launch<DType::BF16, 1, 4, kMode>(a, grid_y, s);
            case DType::Q8_0: return launch<DType::Q8_0, 1, 4, kMode>(a, grid_y, s);
            case DType::Q4_K: return launch<DType::Q4_K, 1, 4, kMode>(a, grid_y, s);
            case DType::Q5_K: return launch<DType::Q5_K, 1, 4, kMode>(a, grid_y, s);
            case DType::Q6_K: return launch<DType::Q6_K, 1, 4, kMode>(a, grid_y, s);
            case DType::MXFP4: return launch<DType::MXFP4, 1, 4, kMode>(a, grid_y, s);
            default: return cudaErrorInvalidValue;
        }
    }
}

bool aligned(const void* p, std::size_t n) { return reinterpret_cast<std::uintptr_t>(p) % n == 0; }

// Shape checks shared by all entry points; returns the type's minimum row bytes in *need.
bool valid_shape(DType t, std::int64_t rows, std::int64_t k, std::size_t row_bytes) {
    if (!gemv_supported(t) || rows < 0 || k <= 0 || k > kGemvMaxK) return false;
    const auto need = dtype_bytes(t, std::uint64_t(k));
    return need && row_bytes >= *need;
}

}  // namespace

bool gemv_supported(DType type) {
    switch (type) {
        case DType::F32: case DType::F16: case DType::BF16: case DType::Q8_0:
        case DType::Q4_K: case DType::Q5_K: case DType::Q6_K: case DType::MXFP4:
            return true;
        default:
            return quant::decode_only(type);
    }
}

bool gemv_decode_only(DType type) { return quant::decode_only(type); }

cudaError_t gemv(const GemvParams& p, cudaStream_t stream) {
    if (!valid_shape(p.type, p.rows, p.k, p.row_bytes) || p.m < 1 || p.m > kGemvMaxM) return cudaErrorInvalidValue;
    const std::int64_t ldx = p.ldx ? p.ldx : p.k, ldy = p.ldy ? p.ldy : p.rows;
    if (ldx < p.k || ldy < p.rows) return cudaErrorInvalidValue;
    if (p.rows == 0) return cudaSuccess;
    if (!p.w || !p.x || !p.y) return cudaErrorInvalidValue;
    KArgs a{};
    a.w0 = static_cast<const std::uint8_t*>(p.w);
    a.w1 = a.w0;
    a.row_bytes = p.row_bytes;
    a.rows = p.rows;
    a.k = p.k;
    a.m = p.m;
    a.x = p.x;
    a.ldx = ldx;
    a.y = p.y;
    a.ldy = ldy;
    a.accumulate = p.accumulate ? 1 : 0;
    a.x_div = 1;
    a.b0 = p.bias;
    const std::size_t al = fast_align(p.type);
    const bool fast = !quant::decode_only(p.type) && p.k % unit_elems(p.type) == 0 && aligned(p.w, al) &&
                      p.row_bytes % al == 0;
    if (quant::decode_only(p.type) && p.m == 1) return dispatch_decode8<kPlain>(p.type, a, 1, stream);
    return fast ? dispatch_fast<kPlain>(p.type, a, 1, stream) : dispatch_generic<kPlain>(p.type, a, 1, stream);
}

namespace {

cudaError_t expert_launch(const ExpertGemvParams& p, const ExpertMatrix* up, float limit, cudaStream_t stream) {
    const ExpertMatrix& g = p.w;
    if (!valid_shape(g.type, g.rows, g.k, g.row_bytes) || p.n_pairs < 0 || p.n_pairs > 65535 || p.x_div < 1)
        return cudaErrorInvalidValue;
    if (up && (up->type != g.type || up->rows != g.rows || up->k != g.k || up->row_bytes != g.row_bytes))
        return cudaErrorInvalidValue;
    if ((!up && p.up_bias) || (p.bias_stride != 0 && p.bias_stride < g.rows) || p.bias_stride < 0)
        return cudaErrorInvalidValue;
    const std::int64_t ldx = p.ldx ? p.ldx : g.k, ldy = p.ldy ? p.ldy : g.rows;
    if (ldx < g.k || ldy < g.rows) return cudaErrorInvalidValue;
    if (p.n_pairs == 0 || g.rows == 0) return cudaSuccess;
    if (!g.base || !p.ids || !p.x || !p.y || (up && !up->base)) return cudaErrorInvalidValue;
    KArgs a{};
    a.w0 = static_cast<const std::uint8_t*>(g.base);
    a.w1 = up ? static_cast<const std::uint8_t*>(up->base) : a.w0;
    a.row_bytes = g.row_bytes;
    a.stride0 = g.slot_stride;
    a.stride1 = up ? up->slot_stride : g.slot_stride;
    a.rows = g.rows;
    a.k = g.k;
    a.m = 1;
    a.x = p.x;
    a.ldx = ldx;
    a.y = p.y;
    a.ldy = ldy;
    a.ids = p.ids;
    a.slot_map = p.slot_map;
    a.x_div = p.x_div;
    a.limit = limit;
    a.b0 = p.bias;
    a.b1 = up ? p.up_bias : nullptr;
    a.bstride = p.bias_stride ? p.bias_stride : g.rows;
    a.bias_ids = p.bias_ids;
    const std::size_t al = fast_align(g.type);
    const bool fast = !quant::decode_only(g.type) && g.k % unit_elems(g.type) == 0 && aligned(a.w0, al) && aligned(a.w1, al) &&
                      g.row_bytes % al == 0 && a.stride0 % al == 0 && a.stride1 % al == 0;
    const unsigned grid_y = unsigned(p.n_pairs);
    if (quant::decode_only(g.type))
        return up ? dispatch_decode8<kGateUp>(g.type, a, grid_y, stream) : dispatch_decode8<kExpert>(g.type, a, grid_y, stream);
    if (up) return fast ? dispatch_fast<kGateUp>(g.type, a, grid_y, stream)
                        : dispatch_generic<kGateUp>(g.type, a, grid_y, stream);
    return fast ? dispatch_fast<kExpert>(g.type, a, grid_y, stream) : dispatch_generic<kExpert>(g.type, a, grid_y, stream);
}

}  // namespace

cudaError_t expert_gemv(const ExpertGemvParams& p, cudaStream_t stream) { return expert_launch(p, nullptr, 0.f, stream); }

cudaError_t expert_gate_up(const ExpertGemvParams& p, const ExpertMatrix& up, float swiglu_limit, cudaStream_t stream) {
    return expert_launch(p, &up, swiglu_limit, stream);
}

}  // namespace ft::kernels::cuda
