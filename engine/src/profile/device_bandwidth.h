// The GPU's device-to-device copy bandwidth, measured now (the ceiling decode is compared against). 0 when the build
// or the machine has no GPU.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

namespace ft::model {
class Weights;
}

namespace ft::profile {

double device_copy_gbs(int device, std::size_t bytes = std::size_t(1) << 30, int repeats = 10);

// The GPU side of `ft bench bw` on a real model: its host expert store pinned and mapped, a small expert cache,
// and the decode fetch kernel / the prefill DMA run in loops. Throws ft::Error(unsupported) without CUDA.
class FetchBench {
public:
    FetchBench(const model::Weights& w, int gpu);
    ~FetchBench();
    std::string gpu_name() const;
    // Bytes moved and seconds taken; stops early when *stop turns true.
    std::pair<std::uint64_t, double> fetch(double seconds, const std::atomic<bool>* stop);
    double dma_gbs(double seconds);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace ft::profile
