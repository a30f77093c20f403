#include "bench/host_bandwidth.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>

#include "cpu/reduce.h"

namespace ft::bench {

HostBandwidth measure_host_read(cpu::WorkerPool& pool, std::size_t bytes, int repeats) {
    const std::size_t n = bytes / sizeof(float);
    std::unique_ptr<float[]> buf(new float[n]);
    constexpr std::size_t kChunk = (4u << 20) / sizeof(float);
    const std::int64_t chunks = std::int64_t((n + kChunk - 1) / kChunk);
    // Fill in parallel so pages land near the threads that read them.
    pool.parallel_for(chunks, [&](std::int64_t c, int) {
        const std::size_t b = std::size_t(c) * kChunk, e = std::min(n, b + kChunk);
        std::fill(buf.get() + b, buf.get() + e, 1.0f);
    });
    HostBandwidth r;
    r.buffer_bytes = n * sizeof(float);
    r.threads = pool.size();
    std::atomic<float> sink{0};
    for (int rep = 0; rep < repeats; ++rep) {
        const auto t0 = std::chrono::steady_clock::now();
        pool.parallel_for(chunks, [&](std::int64_t c, int) {
            const std::size_t b = std::size_t(c) * kChunk, e = std::min(n, b + kChunk);
            sink.fetch_add(kernels::cpu::sum_f32(buf.get() + b, e - b), std::memory_order_relaxed);
        });
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        r.read_gbs = std::max(r.read_gbs, double(r.buffer_bytes) / s / 1e9);
    }
    return r;
}

}  // namespace ft::bench
