// Host memory read bandwidth as this process's worker threads see it: the ceiling of the CPU expert kernels
// (B_H in the q* split).
#pragma once

#include <cstddef>

#include "cpu/worker_pool.h"

namespace ft::bench {

struct HostBandwidth {
    double read_gbs = 0;         // best of the repeats, GB/s (1e9 bytes)
    std::size_t buffer_bytes = 0;
    int threads = 0;
};

// Reads a buffer of `bytes` (filled first, so it is resident) with every thread of the pool, `repeats` times.
HostBandwidth measure_host_read(cpu::WorkerPool& pool, std::size_t bytes = std::size_t(1) << 30, int repeats = 5);

}  // namespace ft::bench
