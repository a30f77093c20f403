// Helpers shared by the CUDA kernel tests (include only inside #ifdef FT_HAVE_CUDA): CHECK_CUDA turns a failed CUDA
// call into a test failure naming the call; Dev is a device buffer that frees itself.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#define CHECK_CUDA(expr)                                                                                     \
    do {                                                                                                     \
        const cudaError_t e_ = (expr);                                                                       \
        QVERIFY2(e_ == cudaSuccess, (std::string(#expr) + ": " + cudaGetErrorString(e_)).c_str());          \
    } while (0)

namespace ft::test {

// At least 4 bytes, so zero-size cases still get a valid pointer; p is null when the allocation failed.
struct Dev {
    void* p = nullptr;
    explicit Dev(std::size_t bytes) {
        if (cudaMalloc(&p, std::max<std::size_t>(bytes, 4)) != cudaSuccess) p = nullptr;
    }
    ~Dev() { cudaFree(p); }
    Dev(const Dev&) = delete;
    Dev& operator=(const Dev&) = delete;
    template <class T>
    T* as() const { return static_cast<T*>(p); }
};

template <class T>
std::size_t bytes_of(const std::vector<T>& v) {
    return v.size() * sizeof(T);
}

}  // namespace ft::test
