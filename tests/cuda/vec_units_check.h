// Host check of the decode GEMV's vector units (kernels/cuda/quant_decode.cuh, quant::vec), compiled by nvcc:
// vec_units_check.cu. Used by test_vec_units.cpp.
#pragma once

#include <string>
#include <vector>

namespace ft::test {

struct VecUnitReport {
    std::string type;        // ggml's name
    long values = 0;         // elements compared
    long covered_twice = 0;  // elements a unit reached more than once, or never
    std::vector<std::string> mismatches;  // the first few, described
    long mismatch_count = 0;
};

// Every vector unit over random valid rows (tests/support/quant_weights.h): each element's scale · code (− min), as
// the unit computes it, against ref::dequantize_row bit for bit. `flip` (a negative control) compares element e with
// element e ^ 1 instead.
std::vector<VecUnitReport> check_vec_units(bool flip);

}  // namespace ft::test
