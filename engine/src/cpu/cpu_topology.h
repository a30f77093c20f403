// CPU topology through hwloc: physical cores (SMT siblings grouped), caches, NUMA nodes. Decode MoE on the CPU is
// memory-bound, so the worker pool runs one thread per physical core, never two on SMT siblings.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ft::cpu {

struct CpuCore {
    int os_index = -1;            // hwloc's os_index of the core (may be -1 where unknown)
    std::vector<int> pus;         // OS indices of its hardware threads (SMT siblings), first = preferred
    int numa_node = 0;
};

struct CpuTopology {
    std::vector<CpuCore> cores;   // physical cores this process may run on (respects the affinity mask / cgroup)
    int logical_cpus = 0;
    int numa_nodes = 1;
    std::uint64_t l2_bytes = 0;   // per core (0 if unknown)
    std::uint64_t l3_bytes = 0;   // total (0 if unknown)
    std::string cpu_model;
    bool from_hwloc = false;      // false: hwloc failed, cores guessed from std::thread::hardware_concurrency
};

// Never throws: if hwloc cannot read the topology, falls back to one "core" per logical CPU and says so in the log.
const CpuTopology& cpu_topology();

}  // namespace ft::cpu

namespace ft::cpu {

// Binds the calling thread to one hardware thread (OS index). Returns false (and changes nothing) where the OS
// refuses or does not support it; callers carry on unpinned.
bool pin_current_thread(int pu);

}  // namespace ft::cpu
