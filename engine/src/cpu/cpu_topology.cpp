#include "cpu/cpu_topology.h"

#include <hwloc.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <mutex>
#include <thread>

namespace ft::cpu {

namespace {

CpuTopology detect() {
    CpuTopology t;
    t.logical_cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    hwloc_topology_t topo = nullptr;
    if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0) {
        if (topo) hwloc_topology_destroy(topo);
        spdlog::warn("hwloc could not read the CPU topology: assuming {} cores without SMT", t.logical_cpus);
        for (int i = 0; i < t.logical_cpus; ++i) t.cores.push_back({i, {i}, 0});
        return t;
    }
    t.from_hwloc = true;
    // Only PUs this process may use (affinity mask, cgroup cpuset).
    hwloc_bitmap_t allowed = hwloc_bitmap_alloc();
    if (hwloc_get_cpubind(topo, allowed, HWLOC_CPUBIND_PROCESS) != 0)
        hwloc_bitmap_copy(allowed, hwloc_topology_get_allowed_cpuset(topo));
    const int n_cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    for (int i = 0; i < n_cores; ++i) {
        hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, i);
        CpuCore c;
        c.os_index = static_cast<int>(core->os_index);
        int pu = -1;
        while ((pu = hwloc_bitmap_next(core->cpuset, pu)) != -1)
            if (hwloc_bitmap_isset(allowed, static_cast<unsigned>(pu))) c.pus.push_back(pu);
        if (c.pus.empty()) continue;
        if (core->nodeset) {
            const int node = hwloc_bitmap_first(core->nodeset);
            c.numa_node = node < 0 ? 0 : node;
        }
        t.cores.push_back(std::move(c));
    }
    hwloc_bitmap_free(allowed);
    if (t.cores.empty()) {  // odd platforms report no core objects: fall back to PUs
        for (int i = 0; i < t.logical_cpus; ++i) t.cores.push_back({i, {i}, 0});
    }
    t.numa_nodes = std::max(1, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE));
    if (hwloc_obj_t l2 = hwloc_get_obj_by_type(topo, HWLOC_OBJ_L2CACHE, 0); l2 && l2->attr)
        t.l2_bytes = l2->attr->cache.size;
    const int n_l3 = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_L3CACHE);
    for (int i = 0; i < n_l3; ++i)
        if (hwloc_obj_t l3 = hwloc_get_obj_by_type(topo, HWLOC_OBJ_L3CACHE, i); l3 && l3->attr)
            t.l3_bytes += l3->attr->cache.size;
    if (hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0)) {
        if (const char* model = hwloc_obj_get_info_by_name(pkg, "CPUModel")) t.cpu_model = model;
    }
    hwloc_topology_destroy(topo);
    return t;
}

}  // namespace

const CpuTopology& cpu_topology() {
    static std::once_flag once;
    static CpuTopology topo;
    std::call_once(once, [] { topo = detect(); });
    return topo;
}

}  // namespace ft::cpu

namespace ft::cpu {

bool pin_current_thread(int pu) {
    static std::once_flag once;
    static hwloc_topology_t topo = nullptr;
    std::call_once(once, [] {
        if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0) topo = nullptr;
    });
    if (!topo || pu < 0) return false;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    hwloc_bitmap_only(set, static_cast<unsigned>(pu));
    const bool ok = hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_THREAD) == 0;
    hwloc_bitmap_free(set);
    return ok;
}

}  // namespace ft::cpu
