#include "cuda/expert_offload.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <thread>
#include <type_traits>

#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

#include "cuda/expert_cache.cuh"
#include "cuda/expert_copy.cuh"
#include "cuda/gpu_weights.h"
#include "cuda/ops.cuh"
#include "ft/error.h"
#include "model/arch.h"

namespace ft::gpu {

namespace kc = kernels::cuda;
using kernels::ExpertCacheControl;
using kernels::ExpertCacheCounters;
using kernels::ExpertCacheMode;
using exec::MoeBackend;

namespace {
std::string gib(double b) { return fmt::format("{:.2f} GiB", b / double(1ull << 30)); }
const model::TensorView& mat(const model::ExpertView& v, int b) { return b == 0 ? v.gate : b == 1 ? v.up : v.down; }
constexpr const char* kNames[3] = {"gate", "up", "down"};
}  // namespace

ExpertOffload::ExpertOffload(const model::Weights& w, VramBudget& vram, cudaStream_t stream, const OffloadOptions& o)
    : w_(w), vram_(vram), stream_(stream), o_(o) {
    if (o.backend == MoeBackend::resident || o.backend == MoeBackend::automatic)
        throw Error(ErrorCode::internal, fmt::format("expert offload with the {} backend", exec::moe_backend_name(o.backend)));
    const auto& d = w.desc();
    n_layer_ = int(d.n_layer);
    n_expert_ = int(d.moe.n_expert);
    k_ = int(d.moe.n_expert_used);
    n_embd_ = d.n_embd;
    n_ff_ = d.moe.n_ff_exp;
    if (n_expert_ > kernels::kExpertCacheMaxExperts || o.max_tokens * k_ > kernels::kExpertCacheMaxPairs)
        throw Error(ErrorCode::unsupported, fmt::format("expert offload: at most {} experts and {} routed pairs per step",
                                                        kernels::kExpertCacheMaxExperts, kernels::kExpertCacheMaxPairs));
    int first_moe = -1, n_moe = 0;
    for (int il = 0; il < n_layer_; ++il)
        if (w.layer_has_experts(il)) {
            if (first_moe < 0) first_moe = il;
            ++n_moe;
        }
    if (first_moe < 0) throw Error(ErrorCode::invalid_argument, "expert offload: the model has no routed experts");
    // Each MoE layer's layout; a bank's stride fits its largest matrix.
    layout_.assign(std::size_t(n_layer_), LayerLayout{});
    std::uint64_t all_bytes = 0;
    for (int il = 0; il < n_layer_; ++il) {
        if (!w.layer_has_experts(il)) continue;
        LayerLayout& L = layout_[std::size_t(il)];
        for (int b = 0; b < 3; ++b) {
            const model::TensorView& t = mat(w.expert(il, 0), b);
            if (!gpu_reads(t.type))
                throw Error(ErrorCode::unsupported, fmt::format("layer {}'s expert {} matrices are {}, which the GPU kernels do "
                                                                "not read yet", il, kNames[b], kernels::dtype_info(t.type).name),
                            "use --device cpu");
            if (t.bytes() > 0xffffffffull)
                throw Error(ErrorCode::unsupported, fmt::format("layer {}'s expert {} matrix is {}: the expert cache takes "
                                                                "matrices under 4 GiB", il, kNames[b], gib(double(t.bytes()))));
            L.proto[b].type = t.type;
            L.proto[b].row_bytes = t.row_bytes;
            L.proto[b].rows = t.rows;
            L.proto[b].k = t.cols;
            L.bytes[b] = t.bytes();
            const LayerLayout& F = layout_[std::size_t(first_moe)];
            if (L.proto[b].rows != F.proto[b].rows || L.proto[b].k != F.proto[b].k)
                throw Error(ErrorCode::unsupported,
                            fmt::format("layer {}'s expert {} matrices are {}×{} while layer {}'s are {}×{}: the expert cache "
                                        "takes one expert shape for every layer", il, kNames[b], t.rows, t.cols, first_moe,
                                        F.proto[b].rows, F.proto[b].k),
                            "use --device cpu, or --moe-backend resident");
            mixed_ = mixed_ || L.bytes[b] != F.bytes[b];
            max_bytes_[b] = std::max(max_bytes_[b], L.bytes[b]);
            all_bytes += L.bytes[b];
        }
    }
    mean_expert_bytes_ = all_bytes / std::uint64_t(n_moe);
    for (int b = 0; b < 3; ++b) {
        bank_bytes_[b] = (max_bytes_[b] + 255) / 256 * 256;
        slot_bytes_ += bank_bytes_[b];
    }
    if (mixed_) {
        std::vector<std::uint32_t> lb(std::size_t(3 * n_layer_), 0);
        for (int b = 0; b < 3; ++b)
            for (int il = 0; il < n_layer_; ++il) lb[std::size_t(b * n_layer_ + il)] = std::uint32_t(layout_[std::size_t(il)].bytes[b]);
        d_layer_bytes_ = vram_.alloc(lb.size() * sizeof(std::uint32_t), VramUse::scratch, "expert sizes per layer");
        check(cudaMemcpy(d_layer_bytes_.get(), lb.data(), lb.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice),
              "upload the expert sizes per layer");
    }

    // Slots.
    const std::int64_t all = std::int64_t(n_moe) * n_expert_;
    std::int64_t fit = std::int64_t(o.cache_bytes / slot_bytes_);
    if (o.slots > 0) {
        if (o.slots > fit)
            throw Error(ErrorCode::out_of_memory,
                        fmt::format("{} expert slots need {} but the VRAM budget leaves {}", o.slots,
                                    gib(double(o.slots) * double(slot_bytes_)), gib(double(o.cache_bytes))),
                        "ask for fewer slots or raise --vram-budget");
        fit = o.slots;
    }
    const std::int64_t need_min = o.backend == MoeBackend::static_layers ? 0 : n_expert_;
    if (fit < need_min)
        throw Error(ErrorCode::out_of_memory,
                    fmt::format("the VRAM left for the expert cache ({}) holds {} experts of {}; the {} backend needs at "
                                "least one layer's {} experts ({})",
                                gib(double(o.cache_bytes)), fit, gib(double(slot_bytes_)), exec::moe_backend_name(o.backend),
                                n_expert_, gib(double(slot_bytes_) * n_expert_)),
                    "raise --vram-budget, lower --ctx / --prefill-chunk, or use --moe-backend static or --device cpu");
    switch (o.backend) {
        case MoeBackend::cpu: n_slots_ = int(std::min<std::int64_t>(fit, 2 * std::int64_t(n_expert_))); break;
        case MoeBackend::static_layers: {
            const int n_res = int(std::min<std::int64_t>(n_moe, fit / n_expert_));
            n_slots_ = n_res * n_expert_;
            static_base_.assign(std::size_t(n_layer_), -1);
            // llama.cpp --n-cpu-moe N keeps the first N layers' experts on the CPU: the last n_res layers are resident.
            int placed = 0;
            for (int il = n_layer_ - 1; il >= 0 && placed < n_res; --il)
                if (w.layer_has_experts(il)) static_base_[std::size_t(il)] = (n_res - 1 - placed++) * n_expert_;
            break;
        }
        default: n_slots_ = int(std::min(fit, all)); break;
    }
    // offload sends nothing to the CPU: with at least n_expert slots a miss always finds a victim not used by its own
    // call (a call uses at most n_expert slots, hits and fetches together).

    register_host_store();
    for (int b = 0; b < 3; ++b) {
        banks_[b] = vram_.alloc(std::max<std::size_t>(1, std::size_t(n_slots_)) * bank_bytes_[b], VramUse::experts,
                                "the expert cache");
        if (bounce_) continue;  // the source tables live in the bounce ring's mapped memory
        d_src_[b] = vram_.alloc(host_src_[b].size() * sizeof(void*), VramUse::scratch, "expert source table");
        check(cudaMemcpy(d_src_[b].get(), host_src_[b].data(), host_src_[b].size() * sizeof(void*), cudaMemcpyHostToDevice),
              "upload the expert source table");
    }

    // Cache state.
    const std::size_t n_flat = std::size_t(n_layer_) * std::size_t(n_expert_);
    // [recency: n_flat stamps][usage: slots stamps][residency: n_flat ints][slot_owner: slots ints][uses: n_flat]
    // (stamps first: 8-byte aligned).
    const std::size_t n_slot_entries = std::size_t(std::max(n_slots_, 1));
    constexpr std::size_t kStamp = sizeof(kernels::ExpertStamp);
    const std::size_t state_bytes = (n_flat + n_slot_entries) * (kStamp + sizeof(std::int32_t)) + n_flat * sizeof(std::uint32_t);
    d_state_ = vram_.alloc(state_bytes, VramUse::scratch, "expert cache tables");
    auto* p = static_cast<std::uint8_t*>(d_state_.get());
    state_.recency = reinterpret_cast<kernels::ExpertStamp*>(p);
    state_.usage = reinterpret_cast<kernels::ExpertStamp*>(p + n_flat * kStamp);
    state_.residency = reinterpret_cast<std::int32_t*>(p + (n_flat + n_slot_entries) * kStamp);
    state_.slot_owner = reinterpret_cast<std::int32_t*>(p + (n_flat + n_slot_entries) * kStamp + n_flat * 4);
    state_.uses = reinterpret_cast<std::uint32_t*>(p + (n_flat + n_slot_entries) * (kStamp + sizeof(std::int32_t)));
    check(cudaMemset(state_.uses, 0, n_flat * sizeof(std::uint32_t)), "init expert uses");
    state_.n_layer = n_layer_;
    state_.n_expert = n_expert_;
    state_.n_slots = n_slots_;
    check(cudaMemset(state_.residency, 0xff, n_flat * 4), "init residency");
    check(cudaMemset(state_.recency, 0, n_flat * kStamp), "init recency");
    check(cudaMemset(state_.slot_owner, 0xff, std::size_t(std::max(n_slots_, 1)) * 4), "init slot owners");
    check(cudaMemset(state_.usage, 0, n_slot_entries * kStamp), "init usage");
    d_counters_ = vram_.alloc(std::size_t(n_layer_) * sizeof(ExpertCacheCounters), VramUse::scratch, "expert cache counters");
    check(cudaMemset(d_counters_.get(), 0, std::size_t(n_layer_) * sizeof(ExpertCacheCounters)), "init counters");
    state_.counters = static_cast<ExpertCacheCounters*>(d_counters_.get());

    // Control blocks: one shared clock, or (static) one resident-mode and one cpu-mode block.
    std::vector<ExpertCacheControl> ctl(2);
    ctl[0].now = 1;
    ctl[0].frac_q16 = o.frac_q16;
    ctl[0].max_fetch = o.max_fetch;
    ctl[0].mode = std::int32_t(o.backend == MoeBackend::offload ? ExpertCacheMode::offload
                               : o.backend == MoeBackend::cpu   ? ExpertCacheMode::cpu
                               : o.backend == MoeBackend::hybrid ? ExpertCacheMode::hybrid
                                                                     : ExpertCacheMode::resident);
    ctl[1] = ctl[0];
    ctl[1].mode = std::int32_t(ExpertCacheMode::cpu);
    d_control_ = vram_.alloc(2 * sizeof(ExpertCacheControl), VramUse::scratch, "expert cache control");
    check(cudaMemcpy(d_control_.get(), ctl.data(), 2 * sizeof(ExpertCacheControl), cudaMemcpyHostToDevice), "init control");
    auto* c0 = static_cast<ExpertCacheControl*>(d_control_.get());
    control_of_layer_.assign(std::size_t(n_layer_), c0);
    if (o.backend == MoeBackend::static_layers)
        for (int il = 0; il < n_layer_; ++il)
            if (static_base_[std::size_t(il)] < 0) control_of_layer_[std::size_t(il)] = c0 + 1;

    const int max_pairs = o.max_tokens * k_;
    d_plan_ = vram_.alloc(256 + std::size_t(max_pairs) * (8 + sizeof(kernels::ExpertFetch)), VramUse::scratch, "expert plan");
    auto* q = static_cast<std::uint8_t*>(d_plan_.get());
    fetch_count_ = reinterpret_cast<std::int32_t*>(q);
    cpu_count_scratch_ = reinterpret_cast<std::int32_t*>(q + 4);
    link_t0_ = reinterpret_cast<std::uint64_t*>(q + 16);
    slot_of_pair_ = reinterpret_cast<std::int32_t*>(q + 256);
    cpu_ids_scratch_ = slot_of_pair_ + max_pairs;
    fetch_ = reinterpret_cast<kernels::ExpertFetch*>(q + 256 + std::size_t(max_pairs) * 8);

    // Static: the resident layers' experts go to their slots once.
    if (o.backend == MoeBackend::static_layers) {
        for (int il = 0; il < n_layer_; ++il) {
            const int base = static_base_[std::size_t(il)];
            if (base < 0) continue;
            for (int b = 0; b < 3; ++b)
                for (int e = 0; e < n_expert_; ++e)
                    copy_from_store(static_cast<std::uint8_t*>(banks_[b].get()) + std::size_t(base + e) * bank_bytes_[b],
                                    host_src_[b][std::size_t(il * n_expert_ + e)], mat(w.expert(il, e), b).bytes(), stream_,
                                    "upload resident experts");
        }
        check(cudaStreamSynchronize(stream_), "upload resident experts");
    }

    // CPU side: workers and the handshake (not needed by offload, whose misses always find a slot).
    if (o.backend != MoeBackend::offload) {
        cpu::WorkerPool::Options po;
        po.threads = o.threads;
        // Workers keep spinning through the GPU's part of a layer (attention, router: ~50-100 µs) so the next layer's
        // experts start at once; sleeping and waking per layer cost ~100 µs each on the H200 host.
        po.spin_us = 2000;
        pool_ = std::make_unique<cpu::WorkerPool>(po);
        CpuMoeBridge::Options bo;
        bo.max_tokens = o.max_tokens;
        bo.k = k_;
        bo.n_embd = n_embd_;
        bo.swiglu_limit = model::swiglu_limit_arg(d);
        bo.host_function_sync = o.host_function_sync;
        bridge_ = std::make_unique<CpuMoeBridge>(w, *pool_, bo);
        if (bridge_->uses_memops() && n_layer_ <= kernels::HandoffClock::kMaxLayers) {
            d_clock_ = vram_.alloc(sizeof(kernels::HandoffClock), VramUse::scratch, "CPU handshake clock");
            check(cudaMemset(d_clock_.get(), 0, sizeof(kernels::HandoffClock)), "init handshake clock");
            const std::int32_t none = -1;
            check(cudaMemcpy(&static_cast<kernels::HandoffClock*>(d_clock_.get())->added_layer, &none, sizeof none,
                             cudaMemcpyHostToDevice),
                  "init handshake clock");
        }
        if (o.backend == MoeBackend::static_layers) cpu_moe_ = std::make_unique<moe::MoeLayer>(*pool_, w);
    }

    check(cudaStreamCreateWithFlags(&copy_stream_, cudaStreamNonBlocking), "copy stream");
    // Background admissions copy experts on a side stream outside the bounce ring's handshake: with unpinned experts
    // they are off (an unpinned expert's table entry points at whatever the ring held last).
    if (o.backend == MoeBackend::hybrid && o.hybrid_admit > 0 && bounce_)
        spdlog::warn("--hybrid-admit is off: part of the expert store is not pinned (--pin-budget or the OS's cap)");
    if (o.backend == MoeBackend::hybrid && o.hybrid_admit > 0 && !bounce_) {
        max_admit_ = std::min(o.hybrid_admit, o.max_tokens * k_);
        int lo = 0, hi = 0;
        cudaDeviceGetStreamPriorityRange(&lo, &hi);  // lo: the least urgent
        check(cudaStreamCreateWithPriority(&side_, cudaStreamNonBlocking, lo), "admission stream");
        check(cudaEventCreateWithFlags(&fork_, cudaEventDisableTiming), "event");
        check(cudaEventCreateWithFlags(&join_, cudaEventDisableTiming), "event");
        const std::size_t lists = std::size_t(n_layer_) * std::size_t(max_admit_) * sizeof(kernels::ExpertFetch);
        d_admit_ = vram_.alloc(lists + std::size_t(n_layer_) * 4 + 64, VramUse::scratch, "expert admission lists");
        auto* a = static_cast<std::uint8_t*>(d_admit_.get());
        admit_lists_ = reinterpret_cast<kernels::ExpertFetch*>(a);
        admit_counts_ = reinterpret_cast<std::int32_t*>(a + lists);
        admit_total_ = reinterpret_cast<std::uint64_t*>(a + (lists + std::size_t(n_layer_) * 4 + 7) / 8 * 8);
        check(cudaMemset(a, 0, lists + std::size_t(n_layer_) * 4 + 64), "init admission lists");
    }
    for (int i = 0; i < 2; ++i) {
        check(cudaEventCreateWithFlags(&ready_[i], cudaEventDisableTiming), "event");
        check(cudaEventCreateWithFlags(&release_[i], cudaEventDisableTiming), "event");
    }
    if (o.backend == MoeBackend::hybrid && o.recalibrate) {
        std::vector<int> moe_layers;
        for (int il = 0; il < n_layer_; ++il)
            if (w.layer_has_experts(il)) moe_layers.push_back(il);
        FractionTuner::Sources src;
        src.fetched = [this] {
            std::vector<std::uint64_t> n;
            for (const auto& l : layer_stats()) n.push_back(l.fetched);
            return n;
        };
        src.cpu_bytes = [this] { return bridge_->bytes_read(); };
        src.cpu_busy_seconds = [this] { return bridge_->cpu_busy_seconds(); };
        tuner_ = std::make_unique<FractionTuner>(moe_layers, expert_bytes(), fraction(), std::move(src), FractionTunerOptions{});
    }
    spdlog::info("expert offload: {}", describe());
}

ExpertOffload::~ExpertOffload() {
    if (copy_stream_) cudaStreamSynchronize(copy_stream_);
    cudaStreamSynchronize(stream_);
    bridge_.reset();
    for (int i = 0; i < 2; ++i) {
        if (ready_[i]) cudaEventDestroy(ready_[i]);
        if (release_[i]) cudaEventDestroy(release_[i]);
    }
    if (copy_stream_) cudaStreamDestroy(copy_stream_);
    if (side_) {
        cudaStreamSynchronize(side_);
        cudaStreamDestroy(side_);
    }
    if (fork_) cudaEventDestroy(fork_);
    if (join_) cudaEventDestroy(join_);
    bounce_.reset();  // its thread stops before the registrations go
}

std::string ExpertOffload::describe() const {
    std::string s = fmt::format("{} backend, {} cache slots of {:.2f} MiB{} ({} of {} experts, {}), host store {}",
                                exec::moe_backend_name(o_.backend), n_slots_, double(slot_bytes_) / double(1 << 20),
                                mixed_ ? fmt::format(" (the largest layer's expert; the mean is {:.2f} MiB)",
                                                     double(mean_expert_bytes_) / double(1 << 20))
                                       : std::string(),
                                n_slots_, n_layer_ * n_expert_, gib(double(n_slots_) * double(slot_bytes_)),
                                all_pinned_ ? "pinned in place"
                                            : fmt::format("{} of {} pinned in place{}", gib(double(pinned_bytes_)),
                                                          gib(double(store_bytes_)),
                                                          bounce_ ? fmt::format(", the rest through a bounce ring of {} slots",
                                                                                bounce_->slots())
                                                                  : std::string()));
    if (o_.backend == MoeBackend::hybrid)
        s += fmt::format(", q* fraction {:.3f}{}{}", double(o_.frac_q16) / 65536.0,
                         o_.max_fetch >= 0 ? fmt::format(", max fetch {}", o_.max_fetch) : std::string(),
                         o_.recalibrate ? " (refined online)" : "");
    if (bridge_) s += bridge_->uses_memops() ? ", CPU sync by stream memory operations" : ", CPU sync by host-function nodes";
    if (bounce_) s += bounce_->uses_memops() ? ", bounce ring sync by stream memory operations" : ", bounce ring sync by host-function nodes";
    return s;
}

namespace {

// In-place registrations are rounded out to this granule (and clamped to their file), so no two of them share a page
// on any OS page size up to 64 KiB.
constexpr std::uintptr_t kPinGranule = std::uintptr_t(64) << 10;

// Disjoint, sorted byte ranges [lo, hi) of one mapped file; adding a range merges it with those it overlaps or touches.
class RangeSet {
public:
    std::uint64_t uncovered(std::uintptr_t lo, std::uintptr_t hi) const {
        std::uint64_t covered = 0;
        auto it = m_.upper_bound(lo);
        if (it != m_.begin()) --it;
        for (; it != m_.end() && it->first < hi; ++it)
            if (it->second > lo) covered += std::min(hi, it->second) - std::max(lo, it->first);
        return (hi - lo) - covered;
    }
    void add(std::uintptr_t lo, std::uintptr_t hi) {
        auto it = m_.upper_bound(lo);
        if (it != m_.begin() && std::prev(it)->second >= lo) --it;
        while (it != m_.end() && it->first <= hi) {
            lo = std::min(lo, it->first);
            hi = std::max(hi, it->second);
            it = m_.erase(it);
        }
        m_.emplace(lo, hi);
    }
    const std::map<std::uintptr_t, std::uintptr_t>& ranges() const { return m_; }

private:
    std::map<std::uintptr_t, std::uintptr_t> m_;
};

}  // namespace

// Pins the store in place, as far as the pin budget and the OS allow: the experts in flat order (whole layers first)
// while their pages fit the budget, registered as page ranges of the mapped file(s) (no copy); the first range the
// driver refuses (a cap we did not know of) ends pinning. Unpinned experts stay in the mapping: offload and hybrid
// fetch them through a pinned bounce ring, every other reader copies them with cudaMemcpy (which reads pageable
// memory). Never fails for lack of pinnable memory unless not even the ring can be pinned.
// (The old fallback, copying every expert into cudaHostAlloc memory when registration failed, is gone: under a cap
// it fails as well, and where it succeeds it doubles the host RAM the experts take.)
void ExpertOffload::register_host_store() {
    const auto t0 = std::chrono::steady_clock::now();
    const auto files = w_.mapped_files();
    const std::size_t n_flat = std::size_t(n_layer_) * std::size_t(n_expert_);
    // Each expert's matrices as granule-rounded ranges of their file, merged (file -1: not in a mapped file).
    struct Piece {
        int file = -1;
        std::uintptr_t lo = 0, hi = 0;
    };
    std::vector<std::array<Piece, 3>> pieces(n_flat);
    std::vector<const std::uint8_t*> host[3];
    for (int b = 0; b < 3; ++b) host[b].assign(n_flat, nullptr);
    store_bytes_ = 0;
    for (int il = 0; il < n_layer_; ++il) {
        if (!w_.layer_has_experts(il)) continue;
        for (int e = 0; e < n_expert_; ++e) {
            const std::size_t flat = std::size_t(il * n_expert_ + e);
            for (int b = 0; b < 3; ++b) {
                const model::TensorView& t = mat(w_.expert(il, e), b);
                const auto p = reinterpret_cast<std::uintptr_t>(t.data);
                host[b][flat] = reinterpret_cast<const std::uint8_t*>(t.data);
                store_bytes_ += t.bytes();
                for (std::size_t f = 0; f < files.size(); ++f) {
                    const auto base = reinterpret_cast<std::uintptr_t>(files[f].first);
                    if (p < base || p + t.bytes() > base + files[f].second) continue;
                    const std::uintptr_t end = base + (files[f].second + 4095) / 4096 * 4096;
                    pieces[flat][std::size_t(b)] = {int(f), std::max(base, p / kPinGranule * kPinGranule),
                                                    std::min(end, (p + t.bytes() + kPinGranule - 1) / kPinGranule * kPinGranule)};
                }
            }
        }
    }

    // Choose: experts in flat order while the pages they add fit the budget.
    const std::uint64_t budget = o_.pin_budget > 0 ? o_.pin_budget : std::numeric_limits<std::uint64_t>::max();
    std::vector<RangeSet> chosen(files.size());
    std::uint64_t chosen_bytes = 0;
    for (std::size_t flat = 0; flat < n_flat; ++flat) {
        if (!host[0][flat]) continue;
        auto& pc = pieces[flat];
        if (pc[0].file < 0 || pc[1].file < 0 || pc[2].file < 0) continue;  // not in a mapped file: bounced
        // The expert's own pieces may share pages: count each page once.
        RangeSet own;
        for (const Piece& q : pc)
            if (q.file == pc[0].file) own.add(q.lo, q.hi);
        std::uint64_t add = 0;
        for (const auto& [lo, hi] : own.ranges()) add += chosen[std::size_t(pc[0].file)].uncovered(lo, hi);
        for (const Piece& q : pc)
            if (q.file != pc[0].file) add += chosen[std::size_t(q.file)].uncovered(q.lo, q.hi);
        if (chosen_bytes + add > budget) break;
        chosen_bytes += add;
        for (const Piece& q : pc) chosen[std::size_t(q.file)].add(q.lo, q.hi);
    }

    // Register. The device address of a byte inside range r is dev[r] + (byte - lo[r]).
    std::vector<std::pair<std::uintptr_t, std::uintptr_t>> reg;  // lo, hi
    std::vector<std::uint8_t*> reg_dev;
    std::string refused;
    for (std::size_t f = 0; f < chosen.size() && refused.empty(); ++f)
        for (const auto& [lo, hi] : chosen[f].ranges()) {
            void* p = reinterpret_cast<void*>(lo);
            const cudaError_t e =
                cudaHostRegister(p, hi - lo, cudaHostRegisterMapped | cudaHostRegisterReadOnly | cudaHostRegisterPortable);
            if (e != cudaSuccess) {
                cudaGetLastError();
                refused = fmt::format("the driver refused to pin more than {} ({})", gib(double(pinned_bytes_)),
                                      cudaGetErrorString(e));
                break;
            }
            registered_.ranges.emplace_back(p, hi - lo);
            void* dev = nullptr;
            if (cudaHostGetDevicePointer(&dev, p, 0) != cudaSuccess) {
                cudaGetLastError();
                cudaHostUnregister(p);
                registered_.ranges.pop_back();
                refused = "a pinned range could not be mapped for the GPU";
                break;
            }
            reg.emplace_back(lo, hi);
            reg_dev.push_back(static_cast<std::uint8_t*>(dev));
            pinned_bytes_ += hi - lo;
        }
    if (!refused.empty()) spdlog::warn("expert host store: {}: the rest stays in the mapped file", refused);

    // Which experts are pinned (all three matrices inside registered ranges), and the addresses every reader uses.
    const bool fetches = o_.backend == MoeBackend::offload || o_.backend == MoeBackend::hybrid;
    std::uint64_t unpinned_bytes = 0;
    auto classify = [&] {
        std::vector<std::size_t> order(reg.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return reg[a].first < reg[b].first; });
        auto device_of = [&](const std::uint8_t* h, std::size_t n) -> const std::uint8_t* {
            const auto p = reinterpret_cast<std::uintptr_t>(h);
            auto it = std::upper_bound(order.begin(), order.end(), p, [&](std::uintptr_t v, std::size_t i) { return v < reg[i].first; });
            if (it == order.begin()) return nullptr;
            const std::size_t r = *std::prev(it);
            return p + n <= reg[r].second ? reg_dev[r] + (p - reg[r].first) : nullptr;
        };
        host_pinned_.assign(n_flat, false);
        layer_bounced_.assign(std::size_t(n_layer_), 0);
        unpinned_bytes = 0;
        for (std::size_t flat = 0; flat < n_flat; ++flat) {
            if (!host[0][flat]) continue;
            const std::uint8_t* d[3];
            bool pinned = true;
            for (int b = 0; b < 3; ++b) pinned = (d[b] = device_of(host[b][flat], mat_bytes(flat, b))) != nullptr && pinned;
            host_pinned_[flat] = pinned;
            for (int b = 0; b < 3; ++b) host_src_[b][flat] = pinned ? d[b] : host[b][flat];
            if (!pinned) {
                layer_bounced_[flat / std::size_t(n_expert_)] = 1;
                unpinned_bytes += expert_bytes(int(flat / std::size_t(n_expert_)));
            }
        }
    };
    for (int b = 0; b < 3; ++b) host_src_[b].assign(n_flat, nullptr);
    for (;;) {
        classify();
        if (!fetches || unpinned_bytes == 0) break;
        ExpertBounce::Options bo;
        bo.max_list = o_.max_tokens * k_;
        bo.slots = std::min(bo.max_list, n_expert_);  // a call fetches each expert once
        bo.host_function_sync = o_.host_function_sync;
        for (int b = 0; b < 3; ++b) {
            bo.bytes[b] = max_bytes_[b];
            bo.stride[b] = bank_bytes_[b];
            if (mixed_)
                for (int il = 0; il < n_layer_; ++il) bo.layer_bytes[b].push_back(layout_[std::size_t(il)].bytes[b]);
        }
        bo.n_expert = n_expert_;
        std::vector<bool> pinned_or_absent(host_pinned_);
        for (std::size_t flat = 0; flat < n_flat; ++flat) pinned_or_absent[flat] = pinned_or_absent[flat] || !host[0][flat];
        try {
            bounce_ = std::make_unique<ExpertBounce>(bo, host_src_, pinned_or_absent);
            break;
        } catch (const Error& e) {
            if (e.code() != ErrorCode::out_of_memory || registered_.ranges.empty()) throw;
            // The OS's cap leaves no room for the ring: give back the last range pinned in place and try again.
            spdlog::warn("{}: unpinning {} of the store in place to make room", e.what(), gib(double(registered_.ranges.back().second)));
            cudaHostUnregister(registered_.ranges.back().first);
            pinned_bytes_ -= registered_.ranges.back().second;
            registered_.ranges.pop_back();
            reg.pop_back();
            reg_dev.pop_back();
        }
    }
    pinned_spans_.assign(reg.begin(), reg.end());
    std::sort(pinned_spans_.begin(), pinned_spans_.end());
    all_pinned_ = unpinned_bytes == 0;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (all_pinned_)
        spdlog::info("expert host store: pinned {} of {} in place in {:.2f} s", gib(double(pinned_bytes_)), gib(double(store_bytes_)), s);
    else if (bounce_)
        spdlog::info("expert host store: pinned {} of {} in place; {} staged through a pinned bounce ring of {} slots ({}){} "
                     "in {:.2f} s",
                     gib(double(pinned_bytes_)), gib(double(store_bytes_)), gib(double(unpinned_bytes)), bounce_->slots(),
                     gib(double(bounce_->ring_bytes())), o_.pin_budget > 0 ? fmt::format(", pin budget {}", gib(double(o_.pin_budget))) : "", s);
    else
        spdlog::info("expert host store: pinned {} of {} in place; {} stays in the mapped file (the {} backend reads it "
                     "there or copies it once) in {:.2f} s",
                     gib(double(pinned_bytes_)), gib(double(store_bytes_)), gib(double(unpinned_bytes)),
                     exec::moe_backend_name(o_.backend), s);
}

void ExpertOffload::decode(int il, int T, const float* xn, const std::int32_t* ids, const float* weights, float* x,
                           float* h, float* y, const ExpertBiases& biases, const std::function<void(const char*)>& mark) {
    auto phase = [&](const char* name) {
        if (mark) mark(name);
    };
    const int P = T * k_;
    const bool is_static = o_.backend == MoeBackend::static_layers;
    const int base = is_static ? static_base_[std::size_t(il)] : 0;
    const bool cpu_layer = is_static && base < 0;
    const bool handshake = bridge_ && !(is_static && !cpu_layer) && !fetches_all();
    kernels::ExpertCachePlanParams pp;
    pp.state = state_;
    pp.control = control_of_layer_[std::size_t(il)];
    pp.advance_clock = !is_static;
    pp.layer = il;
    pp.ids = ids;
    pp.n_pairs = P;
    pp.slot_of_pair = slot_of_pair_;
    pp.fetch = fetch_;
    pp.fetch_count = fetch_count_;
    pp.cpu_ids = handshake ? bridge_->cpu_ids_dev(il) : cpu_ids_scratch_;  // offload: never used (a slot is always free)
    pp.cpu_count = handshake ? bridge_->cpu_count_dev(il) : cpu_count_scratch_;
    if (handshake) {
        // The planning kernel copies the CPU's inputs and hands the layer over itself; before its victim search when
        // every fetch is sure to find a slot (with the clock ticking per call, the slots this call uses and those
        // background admission holds leave one for each miss).
        pp.handoff = bridge_->handoff(il, xn, weights, T);
        pp.handoff.early = pp.advance_clock && std::int64_t(n_slots_) >= std::int64_t(P) + std::int64_t(n_layer_) * max_admit_;
        pp.handoff.clock = static_cast<kernels::HandoffClock*>(d_clock_.get());
    }
    check(kc::expert_cache_plan(pp, stream_), "expert cache plan");
    if (handshake) bridge_->submit(il, stream_);
    phase("experts: stage + plan");
    if (bounce_ && layer_bounced_[std::size_t(il)]) bounce_->enqueue(il, fetch_, fetch_count_, P, stream_);  // unpinned misses
    if (!cpu_layer) {
        if (!is_static) {
            kc::ExpertCopyParams cp = copy_params();
            cp.fetch = fetch_;
            cp.fetch_count = fetch_count_;
            cp.max_fetch = P;
            if (tuner_) tuner_->fetch_begin(il, stream_);
            if (o_.link_gbps > 0) check(kc::link_clock_start(link_t0_, stream_), "emulated link");
            check(kc::expert_copy(cp, stream_), "expert fetch");
            if (o_.link_gbps > 0)
                check(kc::link_throttle(link_t0_, fetch_count_, double(expert_bytes(il)), o_.link_gbps, stream_), "emulated link");
            if (tuner_) tuner_->fetch_end(il, stream_);
            phase("experts: PCIe fetch");
        }
        kc::ExpertMatrix m[3];
        for (int b = 0; b < 3; ++b) {
            m[b] = layout_[std::size_t(il)].proto[b];
            m[b].base = static_cast<const std::uint8_t*>(banks_[b].get()) + std::size_t(base) * bank_bytes_[b];
            m[b].slot_stride = bank_bytes_[b];
        }
        kc::ExpertGemvParams g;
        g.w = m[0];
        g.ids = slot_of_pair_;
        g.n_pairs = P;
        g.x = xn;
        g.ldx = n_embd_;
        g.x_div = k_;
        g.y = h;
        g.ldy = n_ff_;
        g.bias = biases.gate;  // by expert id (the router's), while the weights come from the pairs' slots
        g.up_bias = biases.up;
        g.bias_ids = ids;
        check(kc::expert_gate_up(g, m[1], model::swiglu_limit_arg(w_.desc()), stream_), "expert gate/up");
        kc::ExpertGemvParams dn;
        dn.w = m[2];
        dn.ids = slot_of_pair_;
        dn.n_pairs = P;
        dn.x = h;
        dn.ldx = n_ff_;
        dn.x_div = 1;
        dn.y = y;
        dn.ldy = n_embd_;
        dn.bias = biases.down;
        dn.bias_ids = ids;
        check(kc::expert_gemv(dn, stream_), "expert down");
        check(kc::moe_combine(y, nullptr, weights, T, k_, n_embd_, x, true, stream_), "moe combine");
        phase("experts: GPU compute");
    }
    if (max_admit_ > 0 && handshake) {
        // While the CPU still computes: choose slots for the experts it took, then copy them in on the side stream.
        check(kc::expert_cache_admit(state_, pp.control, il, bridge_->cpu_ids_dev(il), bridge_->cpu_count_dev(il), max_admit_,
                                     admit_lists_ + std::size_t(il) * std::size_t(max_admit_), admit_counts_ + il, stream_),
              "expert admission");
        check(cudaEventRecord(fork_, stream_), "fork");
        check(cudaStreamWaitEvent(side_, fork_, 0), "fork");
        kc::ExpertCopyParams cp = copy_params();
        cp.fetch = admit_lists_ + std::size_t(il) * std::size_t(max_admit_);
        cp.fetch_count = admit_counts_ + il;
        cp.max_fetch = max_admit_;
        cp.blocks_per_copy = 8;  // leave SMs and PCIe to the critical path
        check(kc::expert_copy(cp, side_), "background expert fetch");
        forked_ = true;
    }
    if (handshake) {
        bridge_->wait(il, stream_);
        phase("experts: wait for the CPU");
        check(kc::expert_cache_add_cpu_sum(bridge_->y_dev(il), x, std::int64_t(T) * n_embd_,
                                           static_cast<kernels::HandoffClock*>(d_clock_.get()), il, stream_),
              "add the CPU experts");
    }
}

// The three banks as the fetch kernel sees them (host source table → slot pool); the caller sets the list.
kc::ExpertCopyParams ExpertOffload::copy_params() const {
    kc::ExpertCopyParams cp;
    for (int b = 0; b < 3; ++b)
        cp.banks[b] = {bounce_ ? bounce_->table(b) : static_cast<const std::uint8_t* const*>(d_src_[b].get()),
                       static_cast<std::uint8_t*>(banks_[b].get()), max_bytes_[b], bank_bytes_[b],
                       mixed_ ? static_cast<const std::uint32_t*>(d_layer_bytes_.get()) + b * n_layer_ : nullptr, n_expert_};
    cp.n_banks = 3;
    return cp;
}

void ExpertOffload::finish_step() {
    if (!forked_) return;
    check(cudaEventRecord(join_, side_), "join");
    check(cudaStreamWaitEvent(stream_, join_, 0), "join");
    check(kc::expert_cache_commit(state_, control_of_layer_[0], admit_lists_, admit_counts_, n_layer_, max_admit_, admit_total_,
                                  stream_),
          "commit admitted experts");
    forked_ = false;
}

std::uint64_t ExpertOffload::admitted() const {
    if (!admit_total_) return 0;
    std::uint64_t n = 0;
    check(cudaMemcpyAsync(&n, admit_total_, sizeof n, cudaMemcpyDeviceToHost, stream_), "read admissions");
    check(cudaStreamSynchronize(stream_), "read admissions");
    return n;
}

void ExpertOffload::check_health() {
    if (bridge_) bridge_->check_health();
    if (bounce_) bounce_->check_health();
}

bool ExpertOffload::fetches_all() const {
    return o_.backend == MoeBackend::hybrid && o_.frac_q16 >= 65536u && o_.max_fetch < 0 && n_slots_ >= o_.max_tokens * k_;
}

bool ExpertOffload::set_fraction(std::uint32_t frac_q16, int max_fetch) {
    const bool before = fetches_all();
    o_.frac_q16 = frac_q16;
    o_.max_fetch = max_fetch;
    auto* c = static_cast<ExpertCacheControl*>(d_control_.get());
    check(cudaMemcpyAsync(&c->frac_q16, &o_.frac_q16, sizeof(std::uint32_t), cudaMemcpyHostToDevice, stream_), "set q*");
    check(cudaMemcpyAsync(&c->max_fetch, &o_.max_fetch, sizeof(std::int32_t), cudaMemcpyHostToDevice, stream_), "set q*");
    check(cudaStreamSynchronize(stream_), "set q*");
    return fetches_all() != before;
}

bool ExpertOffload::after_step(bool decode, double seconds, int tokens) {
    if (!tuner_) return false;
    bool recapture = false;
    const int moves = tuner_->search().moves();
    if (const auto f = tuner_->after_step(decode, seconds, tokens))
        recapture = set_fraction(std::uint32_t(std::lround(std::clamp(*f, 0.0, 1.0) * 65536.0)), o_.max_fetch);
    const bool searching = tuner_->search().searching();
    if (o_.restore_after_search && o_.backend == MoeBackend::hybrid && max_admit_ == 0 && n_slots_ > 0) {
        if (searching && !was_searching_) snapshot_cache();
        // Each candidate of the search starts from the cache the search started from: a window then measures its
        // fraction, not the cache that the windows before it left.
        else if (searching && tuner_->search().moves() != moves) restore_cache();
        if (!searching && was_searching_ && !fetches_all()) restore_cache();
    }
    was_searching_ = searching;
    return recapture;
}

void ExpertOffload::snapshot_cache() {
    snapshot_owner_.resize(std::size_t(n_slots_));
    snapshot_usage_.resize(std::size_t(n_slots_));
    check(cudaStreamSynchronize(stream_), "expert cache snapshot");
    check(cudaMemcpy(snapshot_owner_.data(), state_.slot_owner, snapshot_owner_.size() * sizeof(std::int32_t),
                     cudaMemcpyDeviceToHost),
          "expert cache snapshot");
    check(cudaMemcpy(snapshot_usage_.data(), state_.usage, snapshot_usage_.size() * sizeof(kernels::ExpertStamp),
                     cudaMemcpyDeviceToHost),
          "expert cache snapshot");
}

int ExpertOffload::restore_cache() {
    if (snapshot_owner_.size() != std::size_t(n_slots_)) return 0;
    const auto t0 = std::chrono::steady_clock::now();
    const std::size_t n_flat = std::size_t(n_layer_) * std::size_t(n_expert_), n_slots = std::size_t(n_slots_);
    using Stamp = kernels::ExpertStamp;
    std::vector<std::int32_t> owner(n_slots), residency(n_flat, -1);
    std::vector<Stamp> usage(n_slots);
    check(cudaStreamSynchronize(stream_), "expert cache restore");
    check(cudaMemcpy(owner.data(), state_.slot_owner, n_slots * sizeof(std::int32_t), cudaMemcpyDeviceToHost),
          "expert cache restore");
    check(cudaMemcpy(usage.data(), state_.usage, n_slots * sizeof(Stamp), cudaMemcpyDeviceToHost), "expert cache restore");
    for (std::size_t i = 0; i < n_slots; ++i)
        if (owner[i] >= 0) residency[std::size_t(owner[i])] = std::int32_t(i);
    std::vector<Stamp> recorded(n_flat, 0);  // 0: not in the snapshot
    std::vector<std::size_t> back;           // snapshot slots whose expert is no longer cached
    for (std::size_t i = 0; i < n_slots; ++i) {
        const std::int32_t f = snapshot_owner_[i];
        if (f < 0 || std::size_t(f) >= n_flat || snapshot_usage_[i] == kernels::kExpertSlotPinned) continue;
        recorded[std::size_t(f)] = std::max<Stamp>(snapshot_usage_[i], 1);
        if (residency[std::size_t(f)] < 0) back.push_back(i);
    }
    // Victims: slots holding an expert the snapshot did not (empty ones first, then least recently used).
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < n_slots; ++i)
        if (usage[i] != kernels::kExpertSlotPinned && (owner[i] < 0 || recorded[std::size_t(owner[i])] == 0)) out.push_back(i);
    std::sort(out.begin(), out.end(), [&](std::size_t a, std::size_t b) {
        const Stamp ua = owner[a] < 0 ? 0 : usage[a], ub = owner[b] < 0 ? 0 : usage[b];
        return ua != ub ? ua < ub : a < b;
    });
    const std::size_t n = std::min(back.size(), out.size());
    for (std::size_t j = 0; j < n; ++j) {
        const std::size_t slot = out[j];
        const auto flat = std::size_t(snapshot_owner_[back[j]]);
        if (owner[slot] >= 0) residency[std::size_t(owner[slot])] = -1;
        owner[slot] = std::int32_t(flat);
        residency[flat] = std::int32_t(slot);
        usage[slot] = recorded[flat];
        for (int b = 0; b < 3; ++b)
            copy_from_store(static_cast<std::uint8_t*>(banks_[b].get()) + slot * bank_bytes_[b], host_src_[b][flat],
                            mat_bytes(flat, b), stream_, "restore the expert cache");
    }
    check(cudaMemcpyAsync(state_.residency, residency.data(), n_flat * sizeof(std::int32_t), cudaMemcpyHostToDevice, stream_),
          "expert cache restore");
    check(cudaMemcpyAsync(state_.slot_owner, owner.data(), n_slots * sizeof(std::int32_t), cudaMemcpyHostToDevice, stream_),
          "expert cache restore");
    check(cudaMemcpyAsync(state_.usage, usage.data(), n_slots * sizeof(Stamp), cudaMemcpyHostToDevice, stream_),
          "expert cache restore");
    check(cudaStreamSynchronize(stream_), "expert cache restore");
    if (o_.link_gbps > 0)  // the emulated link: the copies take at least bytes / link
        std::this_thread::sleep_until(t0 + std::chrono::duration<double>(double(n * expert_bytes()) / (o_.link_gbps * 1e9)));
    restores_.count += 1;
    restores_.experts += n;
    restores_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return int(n);
}

bool ExpertOffload::fraction_searching() const { return tuner_ && tuner_->search().searching(); }
double ExpertOffload::fraction_search_seconds() const { return tuner_ ? tuner_->search().search_seconds() : 0.0; }
int ExpertOffload::fraction_search_windows() const { return tuner_ ? tuner_->search().evaluations() : 0; }
moe::FractionSearch::Duel ExpertOffload::fraction_search_duel() const {
    return tuner_ ? tuner_->search().duel() : moe::FractionSearch::Duel{};
}
std::vector<moe::FractionSearch::Window> ExpertOffload::fraction_search_history() const {
    return tuner_ ? tuner_->search().history() : std::vector<moe::FractionSearch::Window>{};
}

double ExpertOffload::live_fetch_gbps() const { return tuner_ ? tuner_->fetch_gbps() : 0.0; }
double ExpertOffload::live_cpu_gbps() const { return tuner_ ? tuner_->cpu_gbps() : 0.0; }

std::vector<OffloadLayerStats> ExpertOffload::layer_stats() const {
    std::vector<ExpertCacheCounters> c(static_cast<std::size_t>(n_layer_));
    check(cudaMemcpyAsync(c.data(), d_counters_.get(), c.size() * sizeof(ExpertCacheCounters), cudaMemcpyDeviceToHost, stream_),
          "read expert cache counters");
    check(cudaStreamSynchronize(stream_), "read expert cache counters");
    std::vector<OffloadLayerStats> out(c.size());
    for (std::size_t i = 0; i < c.size(); ++i) out[i] = {c[i].calls, c[i].hits, c[i].misses, c[i].fetched, c[i].cpu};
    return out;
}

std::uint64_t ExpertOffload::cpu_expert_bytes() const {
    return (bridge_ ? bridge_->bytes_read() : 0) + (cpu_moe_ ? cpu_moe_->cpu_expert_bytes() : 0);
}

ExpertOffload::CpuSideTimes ExpertOffload::cpu_side_times() const {
    if (!bridge_) return {};
    CpuSideTimes t{bridge_->layers_served(), std::uint64_t(bridge_->cpu_busy_seconds() * 1e9), bridge_->executor_ns(),
                   bridge_->gap_ns(), bridge_->gaps()};
    if (d_clock_) {
        std::uint64_t c[4] = {};  // answer_ns, answers, chain_ns, chains: HandoffClock's first members
        check(cudaMemcpyAsync(c, d_clock_.get(), sizeof c, cudaMemcpyDeviceToHost, stream_), "read handshake clock");
        check(cudaStreamSynchronize(stream_), "read handshake clock");
        t.gpu_answer_ns = c[0], t.gpu_answers = c[1], t.gpu_chain_ns = c[2], t.gpu_chains = c[3];
    }
    return t;
}

std::vector<std::uint32_t> ExpertOffload::expert_uses() const {
    std::vector<std::uint32_t> out(std::size_t(n_layer_) * std::size_t(n_expert_));
    check(cudaMemcpyAsync(out.data(), state_.uses, out.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost, stream_),
          "read expert uses");
    check(cudaStreamSynchronize(stream_), "read expert uses");
    return out;
}

std::vector<std::int32_t> ExpertOffload::hottest() const {
    if (n_slots_ <= 0) return {};
    using Stamp = std::remove_pointer_t<decltype(state_.usage)>;
    std::vector<std::int32_t> owner(static_cast<std::size_t>(n_slots_));
    std::vector<Stamp> usage(static_cast<std::size_t>(n_slots_));
    check(cudaStreamSynchronize(stream_), "expert cache read");
    check(cudaMemcpy(owner.data(), state_.slot_owner, owner.size() * sizeof(std::int32_t), cudaMemcpyDeviceToHost),
          "read slot owners");
    check(cudaMemcpy(usage.data(), state_.usage, usage.size() * sizeof(Stamp), cudaMemcpyDeviceToHost), "read slot usage");
    std::vector<int> order;
    for (int i = 0; i < n_slots_; ++i)
        if (owner[std::size_t(i)] >= 0) order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return usage[std::size_t(a)] > usage[std::size_t(b)]; });
    std::vector<std::int32_t> out;
    out.reserve(order.size());
    for (int i : order) out.push_back(owner[std::size_t(i)]);
    return out;
}

void ExpertOffload::warm(const std::vector<std::int32_t>& flat_ids) {
    if (o_.backend == MoeBackend::static_layers || n_slots_ <= 0 || flat_ids.empty()) return;
    // The hottest go to the last slots: the first 2 × n_expert are the prefill stream buffers.
    const int n = int(std::min<std::size_t>(flat_ids.size(), std::size_t(n_slots_)));
    const std::size_t n_flat = std::size_t(n_layer_) * std::size_t(n_expert_);
    std::vector<std::int32_t> residency(n_flat, -1), owner(std::size_t(n_slots_), -1);
    for (int i = 0; i < n; ++i) {
        const std::int32_t flat = flat_ids[std::size_t(i)];
        if (flat < 0 || std::size_t(flat) >= n_flat) continue;
        const int slot = n_slots_ - 1 - i;
        for (int b = 0; b < 3; ++b)
            copy_from_store(static_cast<std::uint8_t*>(banks_[b].get()) + std::size_t(slot) * bank_bytes_[b],
                            host_src_[b][std::size_t(flat)], mat_bytes(std::size_t(flat), b), stream_, "warm the expert cache");
        residency[std::size_t(flat)] = slot;
        owner[std::size_t(slot)] = flat;
    }
    check(cudaMemcpyAsync(state_.residency, residency.data(), n_flat * sizeof(std::int32_t), cudaMemcpyHostToDevice, stream_),
          "warm residency");
    check(cudaMemcpyAsync(state_.slot_owner, owner.data(), owner.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice, stream_),
          "warm slot owners");
    check(cudaStreamSynchronize(stream_), "warm the expert cache");
}

}  // namespace ft::gpu
