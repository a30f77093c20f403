// CPU building blocks shared by every block's forward pass: row-parallel linear layers over weights in their stored
// types, bias rows, RMSNorm. All run on the engine's worker pool.
#pragma once

#include <cstdint>
#include <vector>

#include "cpu/worker_pool.h"
#include "model/weights.h"

namespace ft::cpu {

// y[m, w.rows] = x[m, w.cols] · wᵀ (rows of W split across the pool; each weight row is decoded once).
void linear(WorkerPool& pool, const model::TensorView& w, const float* x, std::int64_t m, float* y);

// y[r, :] += b for m rows of b.size() (b empty: nothing).
void add_rows(const std::vector<float>& b, float* y, std::int64_t m);

// y[r, :] = rmsnorm(x[r, :]) * w for n_rows rows of w.size() (y may alias x).
void rms_norm_rows(WorkerPool& pool, const float* x, const std::vector<float>& w, float eps, std::int64_t n_rows,
                   float* y);

// A 1-D weight (norm scale, bias) as f32, or empty for a null view.
inline std::vector<float> f32_or_empty(const model::TensorView* t) { return t ? model::vector_f32(*t) : std::vector<float>{}; }

}  // namespace ft::cpu
