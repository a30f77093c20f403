// Synthetic models of real architectures (`ft synth`): the real hyper-parameters and tokenizer of a model family with
// random weights of sane scale, written as a complete GGUF in llama.cpp's conventions.
//
// Weights: norms ≈ 1 (F32), the router F32, every other matrix N(0, 1/fan_in)-like (std 1/sqrt(fan_in)). Q8_0, Q4_K,
// Q5_K, Q6_K and MXFP4 tensors are generated directly as blocks (random codes under a per-block scale chosen so the
// dequantized values have the wanted std); the other block types (Q4_0, Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, IQ4_NL, IQ4_XS)
// quantize generated values block by block with kernels/ref's quantizers. A counter-based RNG keyed by (seed, tensor,
// block) makes the output deterministic for a seed and independent of the thread count. Tensors stream to the writer
// in chunks (bounded RAM).
//
// Errors: ft::Error(invalid_argument) for a bad preset / override / weight type, the tokenizer's and the writer's
// errors otherwise. Threading: synth_write uses `threads` workers internally; the functions are reentrant.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/model_desc.h"
#include "model/model_tensors.h"
#include "ref/dtype.h"

namespace ft::synth {

struct SynthOverrides {
    std::optional<std::uint32_t> layers, experts, top_k, hidden, expert_ff, heads, kv_heads, head_dim, context;
};

// Presets: the released models' configs, registered by each architecture's folder (model/<arch>/<arch>_arch.cpp,
// where each preset's hyper-parameters are listed); the overrides change sizes and keep the rest. In registry order.
std::vector<std::string> synth_presets();
// The architecture of a preset; nullopt for an unknown name.
std::optional<model::ArchId> synth_preset_arch(const std::string& preset);
model::ModelDesc synth_desc(model::ArchId arch, const std::string& preset, const SynthOverrides& o);
// The weight types of an architecture's released files, `--weights` / `--expert-weights`' defaults: the matrices,
// and the routed experts (nullopt: as the matrices; gpt-oss: MXFP4).
kernels::DType synth_default_weights(model::ArchId arch);
std::optional<kernels::DType> synth_default_expert_weights(model::ArchId arch);

// The weight types `--weights` / `--expert-weights` accept: f32, bf16, q8_0, q4_0, q4_1, q5_0, q5_1, q2_k, q3_k, q4_k,
// q5_k, q6_k, iq4_nl, iq4_xs, mxfp4, tq1_0, tq2_0, iq2_xxs, iq2_xs, iq2_s, iq3_xxs, iq3_s, iq1_s, iq1_m.
bool synth_weight_type_supported(kernels::DType t);

struct SynthTensor {
    model::TensorSpec spec;
    kernels::DType type = kernels::DType::F32;
    float std = 0.f;          // target std of the (dequantized) values; norms: 0 (values ≈ 1)
    std::uint64_t key = 0;    // RNG stream key (from the name)
    std::uint64_t n_bytes = 0;
    std::uint64_t n_units = 0;  // generation units: quant blocks, or 256-element groups for F32/BF16
    std::uint64_t unit_bytes = 0;  // bytes of one full unit (the last F32/BF16 unit may be shorter)
    std::uint64_t n_expert = 0;    // an I32 hash routing table: the ids' range
};

struct SynthPlan {
    model::ModelDesc desc;
    std::uint64_t seed = 1;
    kernels::DType weights = kernels::DType::Q4_K;         // every matrix but the routed experts
    kernels::DType expert_weights = kernels::DType::Q4_K;  // the routed expert stacks
    std::vector<SynthTensor> tensors;
};
// expert_weights: nullopt takes the architecture's default (synth_default_expert_weights: gpt-oss's MXFP4, as its
// released files have them), else `weights`.
// A row that is not a whole number of the type's blocks falls back to Q8_0, then F32 (llama.cpp's quantizer takes
// Q5_0 for Q4_K there, a type the engine does not read): GLM-4.5-Air's down experts (rows of 1408) are Q8_0.
SynthPlan synth_plan(const model::ModelDesc& desc, kernels::DType weights, std::uint64_t seed,
                     std::optional<kernels::DType> expert_weights = std::nullopt);

// Writes units [first, first + count) of tensor `t` into `out` (exactly the bytes the file holds there).
void synth_fill(const SynthTensor& t, std::uint64_t seed, std::uint64_t first, std::uint64_t count, std::byte* out);

struct SynthOptions {
    std::filesystem::path out;
    std::filesystem::path tokenizer_dir;  // holds tokenizer.json (+ tokenizer_config.json)
    unsigned threads = 0;                 // 0: hardware concurrency
    std::size_t chunk_bytes = 32u << 20;  // per buffer (two buffers in flight)
    std::function<void(std::uint64_t done, std::uint64_t total)> progress;  // bytes of tensor data
    // Split into parts of at most this many tensors / bytes (gguf::SplitWriter; 0: no limit, both 0: one file).
    std::uint64_t split_max_tensors = 0;
    std::uint64_t split_max_bytes = 0;
};
struct SynthResult {
    std::vector<std::filesystem::path> files;  // `out`, or the parts in order
    std::uint64_t file_bytes = 0;
    std::uint64_t tensor_bytes = 0;
    double seconds = 0;
};
SynthResult synth_write(const SynthPlan& plan, const SynthOptions& opt);

}  // namespace ft::synth
