#include "profile/bw_profile.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
#include <sqlite3.h>

#include "model/arch.h"
#include "profile/device_bandwidth.h"
#include "profile/sqlite_db.h"
#include "cpu/cpu_topology.h"
#include "cpu/worker_pool.h"
#include "ft/error.h"
#include "ft/gpu.h"
#include "ft/paths.h"
#include "model/weights.h"
#include "moe/cpu_expert_executor.h"

namespace ft::profile {

namespace {

using Clock = std::chrono::steady_clock;

// Single-token expert FFNs of random experts (8 per call, like one decode MoE layer) on the CPU executor.
class CpuLoop {
public:
    CpuLoop(const model::Weights& w, int threads) : w_(w) {
        cpu::WorkerPool::Options po;
        po.threads = threads;
        pool_ = std::make_unique<cpu::WorkerPool>(po);
        exec_ = std::make_unique<moe::CpuExpertExecutor>(*pool_);
        for (int il = 0; il < int(w.desc().n_layer); ++il)
            if (w.layer_has_experts(il)) layers_.push_back(il);
        const std::int64_t E = w.desc().n_embd;
        x_.resize(std::size_t(E));
        std::mt19937 rng(7);
        std::normal_distribution<float> nd(0.f, 1.f);
        for (auto& v : x_) v = nd(rng);
        out_.resize(8 * std::size_t(E));
    }
    int threads() const { return pool_->size(); }
    void pin_caller() { pool_->pin_caller(); }

    std::pair<std::uint64_t, double> run(double seconds) {
        std::mt19937_64 rng(11);
        const int n_exp = int(w_.desc().moe.n_expert);
        const std::int64_t E = w_.desc().n_embd;
        const std::uint64_t b0 = exec_->bytes_read();
        const auto t0 = Clock::now();
        std::vector<moe::ExpertJob> jobs(8);
        for (;;) {
            const int il = layers_[rng() % layers_.size()];
            for (int j = 0; j < 8; ++j) {
                jobs[std::size_t(j)].expert = &w_.expert(il, int(rng() % std::uint64_t(n_exp)));
                jobs[std::size_t(j)].x = x_.data();
                jobs[std::size_t(j)].m = 1;
                jobs[std::size_t(j)].out = out_.data() + std::int64_t(j) * E;
            }
            exec_->run(jobs, model::swiglu_limit_arg(w_.desc()));
            const double s = std::chrono::duration<double>(Clock::now() - t0).count();
            if (s >= seconds) return {exec_->bytes_read() - b0, s};
        }
    }

private:
    const model::Weights& w_;
    std::unique_ptr<cpu::WorkerPool> pool_;
    std::unique_ptr<moe::CpuExpertExecutor> exec_;
    std::vector<int> layers_;
    std::vector<float> x_, out_;
};

// The profiles' store.
struct Db : SqliteDb {
    Db()
        : SqliteDb("bandwidth.sqlite", "bandwidth profile database",
                   "CREATE TABLE IF NOT EXISTS profiles (gpu TEXT NOT NULL, format TEXT NOT NULL, threads INTEGER NOT NULL, "
                   "pcie_gbs REAL, cpu_gbs REAL, pcie_both_gbs REAL, cpu_both_gbs REAL, dma_gbs REAL, fraction REAL, "
                   "measured_at TEXT, PRIMARY KEY (gpu, format, threads))") {}
};

}  // namespace

std::string expert_format(const model::Weights& w) {
    for (int il = 0; il < int(w.desc().n_layer); ++il) {
        if (!w.layer_has_experts(il)) continue;
        const auto& e = w.expert(il, 0);
        const std::string g(kernels::dtype_info(e.gate.type).name), u(kernels::dtype_info(e.up.type).name),
            dn(kernels::dtype_info(e.down.type).name);
        return g == u && u == dn ? g : g + "/" + u + "/" + dn;
    }
    return "none";
}

BwProfile run_bw_bench(const BwBenchOptions& o) {
    auto w = model::Weights::open(o.model);
    return measure_profile(*w, o.gpu, o.threads, o.seconds);
}

BwProfile measure_profile(const model::Weights& weights, int gpu_index, int threads, double seconds) {
    const model::Weights* w = &weights;
    BwBenchOptions o;
    o.gpu = gpu_index;
    o.threads = threads;
    o.seconds = seconds;
    BwProfile p;
    p.format = expert_format(*w);
    FetchBench gpu(*w, o.gpu);
    p.gpu = gpu.gpu_name();
    CpuLoop cpu(*w, o.threads);
    cpu.pin_caller();
    p.threads = cpu.threads();
    // Warm-up: first touches of the expert pages, the copy kernel's first launch.
    gpu.fetch(0.3, nullptr);
    cpu.run(0.3);
    auto [pb, ps] = gpu.fetch(o.seconds, nullptr);
    p.pcie_gbs = double(pb) / ps / 1e9;
    auto [cb, cs] = cpu.run(o.seconds);
    p.cpu_gbs = double(cb) / cs / 1e9;
    // Both at once: the GPU fetch loop on its own thread for the same time.
    std::pair<std::uint64_t, double> both_gpu{0, 0};
    std::thread t([&] { both_gpu = gpu.fetch(o.seconds, nullptr); });
    auto [cb2, cs2] = cpu.run(o.seconds);
    t.join();
    p.pcie_both_gbs = double(both_gpu.first) / both_gpu.second / 1e9;
    p.cpu_both_gbs = double(cb2) / cs2 / 1e9;
    p.dma_gbs = gpu.dma_gbs(std::min(o.seconds, 1.0));
    p.fraction = p.pcie_both_gbs / (p.pcie_both_gbs + p.cpu_both_gbs);
    p.measured_at = utc_now();
    return p;
}

void store_profile(const BwProfile& p) {
    Db db;
    SqliteStmt st(db,
            "INSERT OR REPLACE INTO profiles (gpu, format, threads, pcie_gbs, cpu_gbs, pcie_both_gbs, cpu_both_gbs, dma_gbs, "
            "fraction, measured_at) VALUES (?,?,?,?,?,?,?,?,?,?)");
    sqlite3_bind_text(st.get(), 1, p.gpu.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st.get(), 2, p.format.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st.get(), 3, p.threads);
    sqlite3_bind_double(st.get(), 4, p.pcie_gbs);
    sqlite3_bind_double(st.get(), 5, p.cpu_gbs);
    sqlite3_bind_double(st.get(), 6, p.pcie_both_gbs);
    sqlite3_bind_double(st.get(), 7, p.cpu_both_gbs);
    sqlite3_bind_double(st.get(), 8, p.dma_gbs);
    sqlite3_bind_double(st.get(), 9, p.fraction);
    sqlite3_bind_text(st.get(), 10, p.measured_at.c_str(), -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st.get()) != SQLITE_DONE)
        throw Error(ErrorCode::io, std::string("cannot store the bandwidth profile: ") + st.error());
}

namespace {
// Columns 0-6 of a profiles row selected as "pcie_gbs, cpu_gbs, pcie_both_gbs, cpu_both_gbs, dma_gbs, fraction,
// measured_at" (both readers below).
BwProfile measured_columns(sqlite3_stmt* st) {
    BwProfile p;
    p.pcie_gbs = sqlite3_column_double(st, 0);
    p.cpu_gbs = sqlite3_column_double(st, 1);
    p.pcie_both_gbs = sqlite3_column_double(st, 2);
    p.cpu_both_gbs = sqlite3_column_double(st, 3);
    p.dma_gbs = sqlite3_column_double(st, 4);
    p.fraction = sqlite3_column_double(st, 5);
    if (const unsigned char* t = sqlite3_column_text(st, 6)) p.measured_at = reinterpret_cast<const char*>(t);
    return p;
}
}  // namespace

std::optional<BwProfile> load_profile(const std::string& gpu, const std::string& format, int threads) {
    Db db;
    SqliteStmt st(db,
            "SELECT pcie_gbs, cpu_gbs, pcie_both_gbs, cpu_both_gbs, dma_gbs, fraction, measured_at FROM profiles "
            "WHERE gpu = ? AND format = ? AND threads = ?");
    sqlite3_bind_text(st.get(), 1, gpu.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st.get(), 2, format.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st.get(), 3, threads);
    if (sqlite3_step(st.get()) != SQLITE_ROW) return std::nullopt;
    BwProfile p = measured_columns(st.get());
    p.gpu = gpu;
    p.format = format;
    p.threads = threads;
    return p;
}

std::optional<BwProfile> newest_profile(const std::string& gpu) {
    auto all = profiles_of(gpu);
    if (all.empty()) return std::nullopt;
    return all.front();
}

std::vector<BwProfile> profiles_of(const std::string& gpu) {
    Db db;
    SqliteStmt st(db,
            "SELECT pcie_gbs, cpu_gbs, pcie_both_gbs, cpu_both_gbs, dma_gbs, fraction, measured_at, format, threads "
            "FROM profiles WHERE gpu = ? ORDER BY measured_at DESC");
    sqlite3_bind_text(st.get(), 1, gpu.c_str(), -1, SQLITE_TRANSIENT);
    std::vector<BwProfile> out;
    while (sqlite3_step(st.get()) == SQLITE_ROW) {
        BwProfile p = measured_columns(st.get());
        p.gpu = gpu;
        if (const unsigned char* t = sqlite3_column_text(st.get(), 7)) p.format = reinterpret_cast<const char*>(t);
        p.threads = sqlite3_column_int(st.get(), 8);
        out.push_back(std::move(p));
    }
    return out;
}

double stored_hybrid_fraction(const std::vector<GpuInfo>& devices, int gpu, const std::string& fmt, int threads) {
    const GpuInfo* dev = nullptr;
    for (const GpuInfo& d : devices)
        if (d.index == gpu) dev = &d;
    if (!dev) {
        spdlog::info("hybrid: no GPU {} ({} found): no bandwidth profile", gpu, devices.size());
        return -1;
    }
    if (threads <= 0) threads = std::max(1, int(cpu::cpu_topology().cores.size()));  // the pool's default size
    try {
        if (auto p = load_profile(dev->name, fmt, threads)) {
            spdlog::info("hybrid: bandwidth profile of {} (GPU {}) / {} / {} threads from {}: fraction {:.3f}", dev->name,
                         gpu, fmt, threads, p->measured_at, p->fraction);
            return p->fraction;
        }
    } catch (const Error& e) {
        spdlog::warn("hybrid: cannot read the bandwidth profile: {}", e.what());
    }
    spdlog::info("hybrid: no bandwidth profile for {} (GPU {}) / {} / {} threads: using 0.5 (run `ft bench bw --gpu {} "
                 "--model …` to measure it)",
                 dev->name, gpu, fmt, threads, gpu);
    return -1;
}

nlohmann::json to_json(const BwProfile& p) {
    return {{"gpu", p.gpu},
            {"format", p.format},
            {"threads", p.threads},
            {"pcie_gbs", p.pcie_gbs},
            {"cpu_gbs", p.cpu_gbs},
            {"pcie_both_gbs", p.pcie_both_gbs},
            {"cpu_both_gbs", p.cpu_both_gbs},
            {"dma_gbs", p.dma_gbs},
            {"fraction", p.fraction},
            {"measured_at", p.measured_at}};
}

}  // namespace ft::profile
