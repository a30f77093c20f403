// Test-only: K and V rows [n_rows, row_floats] (device) stored at k_dst + at[r] and v_dst + at[r] elements (f32, or
// f16 rounded to nearest) by one kernel that waits delay_ns before its stores and lets the next kernel on the stream launch before it ends (a
// programmatic dependent launch on sm_90+). See late_row_write.cu.
#pragma once

#include <cuda_runtime.h>

namespace ft::test {

cudaError_t late_row_write(const float* k_rows, const float* v_rows, int n_rows, int row_floats, const long long* at,
                           void* k_dst, void* v_dst, bool f16, long long delay_ns, cudaStream_t stream);

}  // namespace ft::test
