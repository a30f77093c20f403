// The CPU worker pool: persistent threads, one per physical core (cpu_topology.h), pinned to that core's first
// hardware thread. All CPU compute of the engine (prompt processing, decode matvecs, the CPU expert executor) runs
// on one pool so threads never oversubscribe cores.
//
// Two ways to run work:
//   parallel_for(n, fn)   blocking; the calling thread takes tasks too. fn(task, worker) for task in [0, n).
//   launch(n, fn) + wait() asynchronous: returns at once, the workers run the tasks while the caller does other work
//                          (the hybrid MoE decode issues GPU work meanwhile); wait() blocks until all are done.
// Tasks are claimed dynamically (an atomic counter), so uneven tasks still finish together. An exception thrown by
// a task is captured and rethrown (the first one) from parallel_for()/wait(); remaining tasks are skipped.
// One job at a time: parallel_for/launch must not be called while a launched job is unfinished (throws
// ft::Error(internal)). The pool is not reentrant: a task must not call back into its own pool.
// Between jobs an idle worker spins for `spin_us`, then sleeps on the job counter (platform::wait_on_word: a futex, or
// WaitOnAddress on Windows); a job start or a job's end calls into the OS only when a thread sleeps.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ft::cpu {

class WorkerPool {
public:
    struct Options {
        int threads = 0;    // 0: one per physical core available to the process
        bool pin = true;    // pin each worker to its own physical core
        int spin_us = 50;   // how long an idle worker spins before it sleeps (decode issues jobs back to back)
    };
    using TaskFn = std::function<void(std::int64_t task, int worker)>;

    WorkerPool();
    explicit WorkerPool(const Options& options);
    ~WorkerPool();
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    // Number of threads that run tasks in parallel_for (the workers plus the caller).
    int size() const { return static_cast<int>(threads_.size()) + 1; }
    // Pins the calling thread to the one physical core the workers leave free (core 0 of the pool's cores). The
    // thread that calls parallel_for should do this once: unpinned, the OS may run it on a core where a worker is
    // spinning, and every serial step between jobs then waits for a time slice. False where pinning is refused.
    bool pin_caller();
    int pinned_workers() const { return pinned_.load(); }

    void parallel_for(std::int64_t n_tasks, const TaskFn& fn);
    void launch(std::int64_t n_tasks, TaskFn fn);
    void wait();
    bool busy() const { return active_.load(std::memory_order_acquire); }

private:
    void worker_main(int index, int pu);
    void run_tasks(int worker);
    void start_job(std::int64_t n_tasks, TaskFn fn, bool caller_helps);
    void finish_job();

    std::vector<std::thread> threads_;
    Options options_;
    std::mutex mutex_;  // error_
    TaskFn fn_;
    std::atomic<std::uint32_t> generation_{0};  // one more per job (and at stop): what idle workers wait on
    std::atomic<int> workers_asleep_{0};        // workers in wait_on_word(generation_)
    std::atomic<std::int64_t> next_task_{0};
    std::int64_t n_tasks_ = 0;
    std::atomic<std::uint32_t> running_{0};  // workers still inside the current job: what finish_job waits on
    std::atomic<int> caller_asleep_{0};      // finish_job in wait_on_word(running_)
    std::atomic<bool> active_{false};  // a job is in flight
    std::atomic<bool> stop_{false};
    std::atomic<bool> failed_{false};
    std::atomic<int> pinned_{0};
    std::exception_ptr error_;
};

}  // namespace ft::cpu
