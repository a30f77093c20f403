// CPU building blocks shared by every architecture's forward pass: row-parallel linear layers over weights in
// their stored types, RMSNorm with weights of any float type. All run on the engine's worker pool.
#pragma once

#include <cstdint>
#include <vector>

#include "cpu/worker_pool.h"
#include "model/weights.h"

namespace ft::model {

// y[m, w.rows] = x[m, w.cols] · wᵀ (rows of W split across the pool; each weight row is decoded once).
void linear(cpu::WorkerPool& pool, const TensorView& w, const float* x, std::int64_t m, float* y);

// A 1-D weight (norm scale, bias) as f32 (copied and converted once at load).
std::vector<float> vector_f32(const TensorView& v);

// y[r, :] = rmsnorm(x[r, :]) * w for n_rows rows of w.size() (y may alias x).
void rms_norm_rows(cpu::WorkerPool& pool, const float* x, const std::vector<float>& w, float eps, std::int64_t n_rows,
                   float* y);

}  // namespace ft::model
