#include "cpu/worker_pool.h"

#include <spdlog/spdlog.h>

#include <chrono>

#include "cpu/cpu_topology.h"
#include "ft/error.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define FT_CPU_RELAX() _mm_pause()
#else
#define FT_CPU_RELAX() std::this_thread::yield()
#endif

namespace ft::cpu {

WorkerPool::WorkerPool() : WorkerPool(Options{}) {}

WorkerPool::WorkerPool(const Options& options) : options_(options) {
    const auto& topo = cpu_topology();
    const int cores = static_cast<int>(topo.cores.size());
    int n = options.threads > 0 ? options.threads : cores;
    if (n < 1) n = 1;
    if (options.threads > cores && cores > 0) {
        spdlog::warn("{} CPU threads requested but only {} physical cores are available: threads will share cores",
                     options.threads, cores);
    }
    // The caller is thread 0 (it runs tasks in parallel_for); workers take cores 1..n-1 so that, when pinned, the
    // caller's usual core is the one left to it.
    threads_.reserve(static_cast<size_t>(n - 1));
    for (int i = 1; i < n; ++i) {
        int pu = -1;
        if (options.pin && cores > 0 && i < cores) pu = topo.cores[static_cast<size_t>(i)].pus.front();
        threads_.emplace_back([this, i, pu] { worker_main(i, pu); });
    }
    spdlog::debug("worker pool: {} threads ({} physical cores, pinning {})", n, cores, options.pin ? "on" : "off");
}

bool WorkerPool::pin_caller() {
    if (!options_.pin) return false;
    const auto& topo = cpu_topology();
    return !topo.cores.empty() && pin_current_thread(topo.cores.front().pus.front());
}

WorkerPool::~WorkerPool() {
    try {
        if (active_.load()) wait();
    } catch (...) {
    }
    {
        std::lock_guard lock(mutex_);
        stop_.store(true);
        generation_.fetch_add(1);
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
}

void WorkerPool::worker_main(int index, int pu) {
    if (pu >= 0 && pin_current_thread(pu)) pinned_.fetch_add(1);
    std::uint64_t seen = 0;
    for (;;) {
        // Spin briefly for the next job (decode issues jobs back to back), then sleep.
        const auto spin_until = std::chrono::steady_clock::now() + std::chrono::microseconds(options_.spin_us);
        while (generation_.load(std::memory_order_acquire) == seen && std::chrono::steady_clock::now() < spin_until)
            FT_CPU_RELAX();
        if (generation_.load(std::memory_order_acquire) == seen) {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
        }
        seen = generation_.load(std::memory_order_acquire);
        if (stop_.load()) return;
        run_tasks(index);
        if (running_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
            std::lock_guard lock(mutex_);
            done_cv_.notify_all();
        }
    }
}

void WorkerPool::run_tasks(int worker) {
    for (;;) {
        if (failed_.load(std::memory_order_relaxed)) return;
        const std::int64_t task = next_task_.fetch_add(1, std::memory_order_relaxed);
        if (task >= n_tasks_) return;
        try {
            fn_(task, worker);
        } catch (...) {
            std::lock_guard lock(mutex_);
            if (!error_) error_ = std::current_exception();
            failed_.store(true);
        }
    }
}

void WorkerPool::start_job(std::int64_t n_tasks, TaskFn fn, bool caller_helps) {
    if (active_.exchange(true)) {
        throw Error(ErrorCode::internal, "worker pool: a job was started while another is still running");
    }
    (void)caller_helps;
    {
        std::lock_guard lock(mutex_);
        fn_ = std::move(fn);
        n_tasks_ = n_tasks;
        next_task_.store(0, std::memory_order_relaxed);
        failed_.store(false);
        error_ = nullptr;
        running_.store(static_cast<int>(threads_.size()), std::memory_order_release);
        generation_.fetch_add(1, std::memory_order_acq_rel);
    }
    wake_.notify_all();
}

void WorkerPool::finish_job() {
    // Spin a little (jobs are short in decode), then sleep until the last worker is out.
    const auto spin_until = std::chrono::steady_clock::now() + std::chrono::microseconds(options_.spin_us);
    while (running_.load(std::memory_order_acquire) != 0 && std::chrono::steady_clock::now() < spin_until)
        FT_CPU_RELAX();
    if (running_.load(std::memory_order_acquire) != 0) {
        std::unique_lock lock(mutex_);
        done_cv_.wait(lock, [&] { return running_.load(std::memory_order_acquire) == 0; });
    }
    std::exception_ptr err;
    {
        std::lock_guard lock(mutex_);
        err = error_;
        error_ = nullptr;
        fn_ = nullptr;
    }
    active_.store(false, std::memory_order_release);
    if (err) std::rethrow_exception(err);
}

void WorkerPool::parallel_for(std::int64_t n_tasks, const TaskFn& fn) {
    if (n_tasks <= 0) return;
    if (threads_.empty() || n_tasks == 1) {
        if (active_.load()) throw Error(ErrorCode::internal, "worker pool: parallel_for while a job is running");
        for (std::int64_t t = 0; t < n_tasks; ++t) fn(t, 0);
        return;
    }
    start_job(n_tasks, fn, true);
    run_tasks(0);
    finish_job();
}

void WorkerPool::launch(std::int64_t n_tasks, TaskFn fn) {
    if (threads_.empty()) {  // a one-thread pool runs the job now; wait() is then a no-op
        if (active_.load()) throw Error(ErrorCode::internal, "worker pool: launch while a job is running");
        for (std::int64_t t = 0; t < n_tasks; ++t) fn(t, 0);
        return;
    }
    start_job(n_tasks, std::move(fn), false);
}

void WorkerPool::wait() {
    if (!active_.load(std::memory_order_acquire)) return;
    finish_job();
}

}  // namespace ft::cpu
