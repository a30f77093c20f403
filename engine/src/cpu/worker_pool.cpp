#include "cpu/worker_pool.h"

#include <spdlog/spdlog.h>

#include <chrono>

#include "cpu/cpu_topology.h"
#include "ft/error.h"
#include "platform/platform.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define FT_CPU_RELAX() _mm_pause()
#else
#define FT_CPU_RELAX() std::this_thread::yield()
#endif

namespace ft::cpu {

namespace {

// Spins until `done()` or `spin_us` have passed; the clock is read once per 64 pauses (a system call under Wine).
template <class Done>
void spin_for(int spin_us, Done done) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(spin_us);
    for (unsigned i = 1; !done(); ++i) {
        FT_CPU_RELAX();
        if (i % 64 == 0 && std::chrono::steady_clock::now() >= until) return;
    }
}

}  // namespace

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
    stop_.store(true);
    generation_.fetch_add(1);
    platform::wake_word_all(generation_);
    for (auto& t : threads_) t.join();
}

void WorkerPool::worker_main(int index, int pu) {
    if (pu >= 0 && pin_current_thread(pu)) pinned_.fetch_add(1);
    std::uint32_t seen = 0;
    for (;;) {
        // Spin briefly for the next job (decode issues jobs back to back), then sleep. The sleeper count and the
        // counter are both sequentially consistent: start_job either sees this worker asleep or this worker sees
        // the new job before it sleeps.
        spin_for(options_.spin_us, [&] { return generation_.load(std::memory_order_acquire) != seen; });
        while (generation_.load() == seen) {
            workers_asleep_.fetch_add(1);
            if (generation_.load() == seen) platform::wait_on_word(generation_, seen);
            workers_asleep_.fetch_sub(1);
        }
        seen = generation_.load(std::memory_order_acquire);
        if (stop_.load()) return;
        run_tasks(index);
        if (running_.fetch_sub(1) == 1 && caller_asleep_.load() != 0) platform::wake_word_all(running_);
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
        error_ = nullptr;
    }
    fn_ = std::move(fn);
    n_tasks_ = n_tasks;
    next_task_.store(0, std::memory_order_relaxed);
    failed_.store(false);
    running_.store(static_cast<std::uint32_t>(threads_.size()));
    generation_.fetch_add(1);  // publishes the job (the workers load it with acquire)
    if (workers_asleep_.load() != 0) platform::wake_word_all(generation_);
}

void WorkerPool::finish_job() {
    // Spin a little (jobs are short in decode), then sleep until the last worker is out (it wakes this thread only
    // when it sees caller_asleep_ set; the same ordering as the workers' sleep above).
    spin_for(options_.spin_us, [&] { return running_.load(std::memory_order_acquire) == 0; });
    if (running_.load() != 0) {
        caller_asleep_.store(1);
        for (std::uint32_t left = running_.load(); left != 0; left = running_.load())
            platform::wait_on_word(running_, left);
        caller_asleep_.store(0);
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
