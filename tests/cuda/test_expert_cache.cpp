// The expert cache planning kernel (cuda/expert_cache.cuh) against the scalar reference (ref/expert_cache.h): q*
// bit-exact over a grid, and the planning step over random decode traces — every output of every call and the final
// state identical — including a host-mapped CPU list with the hybrid hand-over (copies and flags, before or after
// the victim search), the GPU's clock of that hand-over, and replays of a captured graph with the control block
// changed between them.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ft_test.h"
#include "kernel_check.h"
#include "ref/expert_cache.h"

#ifdef FT_HAVE_CUDA
#include <cuda_runtime.h>

#include "cuda_test.h"

#include "cuda/expert_cache.cuh"
#include "cuda/expert_copy.cuh"

using ft::kernels::ExpertCacheControl;
using ft::kernels::ExpertCacheCounters;
using ft::kernels::ExpertCacheMode;
using ft::kernels::ExpertCachePlanParams;
using ft::kernels::ExpertFetch;


namespace {

using ft::test::bytes_of;
using ft::test::Dev;

// Host-mapped pinned memory (what the CPU list lives in when a CPU thread reads it).
struct Mapped {
    void* h = nullptr;
    void* d = nullptr;
    explicit Mapped(std::size_t bytes) {
        if (cudaHostAlloc(&h, bytes, cudaHostAllocMapped) != cudaSuccess) h = nullptr;
        else if (cudaHostGetDevicePointer(&d, h, 0) != cudaSuccess) d = nullptr;
    }
    ~Mapped() { cudaFreeHost(h); }
    Mapped(const Mapped&) = delete;
    Mapped& operator=(const Mapped&) = delete;
};

constexpr int kGuard = 16;                    // sentinel entries after each call's per-pair outputs
constexpr std::int32_t kSentinel = 0x5eed5eed;

struct HostState {
    int n_layer, n_expert, n_slots;
    std::vector<std::int32_t> residency, slot_owner;
    std::vector<ft::kernels::ExpertStamp> usage, recency;
    std::vector<ExpertCacheCounters> counters;
    std::vector<std::uint32_t> uses;
    HostState(int l, int e, int s)
        : n_layer(l), n_expert(e), n_slots(s), residency(std::size_t(l) * std::size_t(e), -1),
          slot_owner(std::size_t(s), -1), usage(std::size_t(s), 0), recency(std::size_t(l) * std::size_t(e), 0),
          counters(std::size_t(l)), uses(std::size_t(l) * std::size_t(e), 0) {}
    ft::kernels::ExpertCacheState view() {
        return {residency.data(), slot_owner.data(), usage.data(), recency.data(), counters.data(), n_layer, n_expert,
                n_slots, uses.data()};
    }
};

struct DevState {
    Dev residency, slot_owner, usage, recency, counters, uses;
    explicit DevState(const HostState& h)
        : residency(h.residency.size() * 4), slot_owner(h.slot_owner.size() * 4),
          usage(h.usage.size() * sizeof(ft::kernels::ExpertStamp)),
          recency(h.recency.size() * sizeof(ft::kernels::ExpertStamp)), counters(h.counters.size() * sizeof(ExpertCacheCounters)),
          uses(h.uses.size() * 4) {}
    bool ok() const { return residency.p && slot_owner.p && usage.p && recency.p && counters.p && uses.p; }
    ft::kernels::ExpertCacheState view(const HostState& h) const {
        return {residency.as<std::int32_t>(), slot_owner.as<std::int32_t>(), usage.as<ft::kernels::ExpertStamp>(),
                recency.as<ft::kernels::ExpertStamp>(), counters.as<ExpertCacheCounters>(), h.n_layer, h.n_expert, h.n_slots,
                uses.as<std::uint32_t>()};
    }
};

template <class T>
cudaError_t upload(const Dev& d, const std::vector<T>& v) {
    return v.empty() ? cudaSuccess : cudaMemcpy(d.p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice);
}
template <class T>
cudaError_t download(std::vector<T>& v, const Dev& d) {
    return v.empty() ? cudaSuccess : cudaMemcpy(v.data(), d.p, v.size() * sizeof(T), cudaMemcpyDeviceToHost);
}

// The whole host state onto the device (the first error, or cudaSuccess).
cudaError_t upload_state(const DevState& d, const HostState& h) {
    for (cudaError_t e : {upload(d.residency, h.residency), upload(d.slot_owner, h.slot_owner), upload(d.usage, h.usage),
                          upload(d.recency, h.recency), upload(d.counters, h.counters), upload(d.uses, h.uses)})
        if (e != cudaSuccess) return e;
    return cudaSuccess;
}

bool same_counters(const std::vector<ExpertCacheCounters>& a, const std::vector<ExpertCacheCounters>& b) {
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].calls != b[i].calls || a[i].hits != b[i].hits || a[i].misses != b[i].misses ||
            a[i].fetched != b[i].fetched || a[i].cpu != b[i].cpu)
            return false;
    return true;
}

// Routing of one layer for one step: `tokens` tokens, each `top_k` distinct experts from a skewed per-layer
// popularity (so the cache sees reuse), a few pairs unused (-1).
std::vector<std::int32_t> route(std::mt19937& rng, const std::vector<int>& popularity, int tokens, int top_k) {
    std::uniform_real_distribution<double> u(0, 1);
    const int n_expert = int(popularity.size());
    std::vector<std::int32_t> ids;
    for (int t = 0; t < tokens; ++t) {
        std::vector<int> chosen;
        while (int(chosen.size()) < std::min(top_k, n_expert)) {
            const double x = u(rng);
            const int e = popularity[std::size_t(std::min(n_expert - 1, int(x * x * x * n_expert)))];
            if (std::find(chosen.begin(), chosen.end(), e) == chosen.end()) chosen.push_back(e);
        }
        for (int i = 0; i < top_k; ++i) ids.push_back(i < int(chosen.size()) && u(rng) > 0.03 ? chosen[std::size_t(i)] : -1);
    }
    return ids;
}

void random_control(std::mt19937& rng, ExpertCacheControl& c) {
    const int r = int(rng() % 20);
    c.mode = std::int32_t(r < 15 ? ExpertCacheMode::hybrid : r < 17 ? ExpertCacheMode::offload
                                   : r < 19 ? ExpertCacheMode::cpu : ExpertCacheMode::resident);
    const std::uint32_t fracs[] = {0, 1, 65535, 65536, 32768, 27197};
    c.frac_q16 = rng() % 3 == 0 ? fracs[rng() % 6] : std::uint32_t(rng() % 65537);
    c.max_fetch = rng() % 4 == 0 ? std::int32_t(rng() % 9) : -1;
}

}  // namespace
#endif

class TestExpertCache : public QObject {
    Q_OBJECT
private slots:
#ifdef FT_HAVE_CUDA
    void qstarBitExact() {
        std::vector<std::uint32_t> fracs = {0, 1, 2, 32767, 32768, 65535, 65536};
        std::mt19937 rng(7);
        for (int i = 0; i < 200; ++i) fracs.push_back(std::uint32_t(rng() % 65537));
        std::vector<std::int32_t> m, cap;
        std::vector<std::uint32_t> frac;
        for (int mm = 0; mm <= 64; ++mm)
            for (std::uint32_t f : fracs)
                for (int c : {-1, 0, 1, 3, 64}) {
                    m.push_back(mm);
                    frac.push_back(f);
                    cap.push_back(c);
                }
        const int n = int(m.size());
        Dev dm(m.size() * 4), df(frac.size() * 4), dc(cap.size() * 4), dout(m.size() * 4);
        QVERIFY(dm.p && df.p && dc.p && dout.p);
        CHECK_CUDA(upload(dm, m));
        CHECK_CUDA(upload(df, frac));
        CHECK_CUDA(upload(dc, cap));
        CHECK_CUDA(cudaMemset(dout.p, 0xff, m.size() * 4));
        CHECK_CUDA(ft::kernels::cuda::qstar_fetch_counts(dm.as<std::int32_t>(), df.as<std::uint32_t>(),
                                                         dc.as<std::int32_t>(), dout.as<std::int32_t>(), n, nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        std::vector<std::int32_t> got(m.size());
        CHECK_CUDA(download(got, dout));
        for (int i = 0; i < n; ++i) {
            const int want = ft::kernels::ref::qstar_fetch_count(m[std::size_t(i)], frac[std::size_t(i)], cap[std::size_t(i)]);
            if (got[std::size_t(i)] != want)
                QFAIL(qPrintable(QString("m=%1 frac=%2 cap=%3: device %4, host %5")
                                     .arg(m[std::size_t(i)]).arg(frac[std::size_t(i)]).arg(cap[std::size_t(i)])
                                     .arg(got[std::size_t(i)]).arg(want)));
        }
    }

    void planMatchesReference_data() {
        QTest::addColumn<int>("n_layer");
        QTest::addColumn<int>("n_expert");
        QTest::addColumn<int>("n_slots");
        QTest::addColumn<int>("tokens");
        QTest::addColumn<int>("top_k");
        QTest::addColumn<int>("steps");
        QTest::addColumn<bool>("advance_clock");
        QTest::addColumn<bool>("mapped_cpu_list");
        QTest::addColumn<qulonglong>("clock0");  // the clock's start (near 2^32: a 32-bit clock wrapped there)
        QTest::addColumn<int>("pinned");         // slots pinned by a background admission for the whole trace
        // Qwen3-30B-A3B-shaped: 48 layers × 128 experts, top-8; caches from none to every expert.
        for (int tokens : {1, 4})
            for (int cache : {0, 1, 8, 64, 384, 1000, 3000, 48 * 128, 48 * 128 + 100}) {
                const bool advance = (cache / 8 + tokens) % 2 == 0;
                QTest::addRow("48x128 top8 b%d slots %d%s", tokens, cache, advance ? " tick" : "")
                    << 48 << 128 << cache << tokens << 8 << 200 << advance << (cache == 1000) << qulonglong(0) << 0;
            }
        QTest::addRow("48x128 top8 b4 slots 20, mapped (the hand-over after the victim search)")
            << 48 << 128 << 20 << 4 << 8 << 60 << true << true << qulonglong(0) << 0;
        QTest::addRow("4x512 256 pairs 20000 slots")
            << 4 << 512 << 20000 << 32 << 8 << 40 << true << true << qulonglong(0) << 0;
        QTest::addRow("4x512 256 pairs 700 slots")
            << 4 << 512 << 700 << 32 << 8 << 40 << false << false << qulonglong(0) << 0;
        QTest::addRow("58x256 b4 top8 15000 slots")
            << 58 << 256 << 15000 << 4 << 8 << 20 << false << false << qulonglong(0) << 0;
        QTest::addRow("3x4 top2 5 slots") << 3 << 4 << 5 << 4 << 2 << 300 << true << false << qulonglong(0) << 0;
        QTest::addRow("2x1 top1 1 slot") << 2 << 1 << 1 << 3 << 1 << 100 << false << false << qulonglong(0) << 0;
        QTest::addRow("1x64 top8 600 slots") << 1 << 64 << 600 << 2 << 8 << 300 << true << false << qulonglong(0) << 0;
        // Across the 32-bit wrap (and the old pinned sentinel 0xffffffff) with pinned slots among free ones.
        QTest::addRow("48x128 top8 b4 500 slots, clock at 2^32 - 3000, 7 pinned, tick")
            << 48 << 128 << 500 << 4 << 8 << 120 << true << false << qulonglong(0xffffffffull - 3000) << 7;
        QTest::addRow("4x64 top8 b2 100 slots, clock at 2^32 - 50, 3 pinned")
            << 4 << 64 << 100 << 2 << 8 << 100 << false << false << qulonglong(0xffffffffull - 50) << 3;
    }

    void planMatchesReference() {
        QFETCH(int, n_layer);
        QFETCH(int, n_expert);
        QFETCH(int, n_slots);
        QFETCH(int, tokens);
        QFETCH(int, top_k);
        QFETCH(int, steps);
        QFETCH(bool, advance_clock);
        QFETCH(bool, mapped_cpu_list);
        QFETCH(qulonglong, clock0);
        QFETCH(int, pinned);
        if (ft::test::sanitizer_run() && (std::int64_t(n_layer) * steps > 2000 || n_slots > 4000))
            QSKIP("long trace or large pool: skipped under the sanitizer");
        const int n_pairs = tokens * top_k;
        const int stride = n_pairs + kGuard;  // per-layer output row: n_pairs entries, then guards

        HostState ref(n_layer, n_expert, n_slots);
        for (int i = 0; i < pinned && i < n_slots; ++i)  // spread over the pool
            ref.usage[std::size_t(std::int64_t(i) * n_slots / pinned)] = ft::kernels::kExpertSlotPinned;
        DevState dev(ref);
        QVERIFY(dev.ok());
        CHECK_CUDA(upload_state(dev, ref));

        const std::size_t rows = std::size_t(n_layer) * std::size_t(stride);
        Dev d_ids(rows * 4), d_slot(rows * 4), d_fetch(rows * sizeof(ExpertFetch)), d_cpu(rows * 4),
            d_counts(std::size_t(n_layer) * 2 * 4), d_ctl(sizeof(ExpertCacheControl));
        Mapped m_cpu(rows * 4), m_cpu_count(std::size_t(n_layer) * 4);
        QVERIFY(d_ids.p && d_slot.p && d_fetch.p && d_cpu.p && d_counts.p && d_ctl.p);
        QVERIFY(!mapped_cpu_list || (m_cpu.d && m_cpu_count.d));
        std::vector<std::int32_t> sentinel(rows, kSentinel);
        std::vector<ExpertFetch> fetch_sentinel(rows, ExpertFetch{kSentinel, kSentinel});
        CHECK_CUDA(upload(d_slot, sentinel));
        CHECK_CUDA(upload(d_cpu, sentinel));
        CHECK_CUDA(upload(d_fetch, fetch_sentinel));
        if (mapped_cpu_list) std::memcpy(m_cpu.h, sentinel.data(), rows * 4);
        // With a mapped CPU list the calls also hand each layer over as hybrid decode does (ExpertCacheHandoff):
        // input rows, ids, weights and the token count copied to host memory, then done = 0 and ready = 1; early
        // (before the victim search) where every fetch is sure to find a slot.
        constexpr int kRow = 64;
        const std::size_t x_per_layer = std::size_t(tokens) * kRow;
        Dev d_x(std::size_t(n_layer) * x_per_layer * 4), d_w(rows * 4);
        Mapped m_x(std::size_t(n_layer) * x_per_layer * 4), m_w(rows * 4), m_ids(rows * 4), m_word(std::size_t(n_layer) * 4 * 3);
        QVERIFY(d_x.p && d_w.p && m_x.d && m_w.d && m_ids.d && m_word.d);
        const bool early = advance_clock && n_slots >= n_pairs + pinned;  // ExpertCacheHandoff's guarantee
        std::vector<float> xs(std::size_t(n_layer) * x_per_layer), ws(rows);
        auto* words = static_cast<std::uint32_t*>(m_word.h);  // [layer][n_tokens, done, ready]

        std::mt19937 rng(std::uint32_t(1 + n_layer * 7919 + n_expert * 31 + n_slots * 3 + tokens));
        std::vector<std::vector<int>> popularity(static_cast<std::size_t>(n_layer));
        for (auto& pop : popularity) {
            pop.resize(std::size_t(n_expert));
            for (int e = 0; e < n_expert; ++e) pop[std::size_t(e)] = e;
            std::shuffle(pop.begin(), pop.end(), rng);
        }
        ExpertCacheControl ctl;  // the host's copy: with advance_clock the reference ticks it like the device
        ctl.now = clock0 + (advance_clock ? 0 : 1);

        std::vector<std::int32_t> ids(rows, -1), want_slot(rows, kSentinel), want_cpu(rows, kSentinel);
        std::vector<ExpertFetch> want_fetch(rows, ExpertFetch{kSentinel, kSentinel});
        std::vector<std::int32_t> want_counts(std::size_t(n_layer) * 2), got_counts(want_counts.size());
        std::vector<std::int32_t> got_slot(rows), got_cpu(rows);
        std::vector<ExpertFetch> got_fetch(rows);
        for (int step = 0; step < steps; ++step) {
            if (!advance_clock) ctl.now = clock0 + ft::kernels::ExpertStamp(step + 1);
            random_control(rng, ctl);
            CHECK_CUDA(cudaMemcpy(d_ctl.p, &ctl, sizeof ctl, cudaMemcpyHostToDevice));
            for (int l = 0; l < n_layer; ++l) {
                const auto r = route(rng, popularity[std::size_t(l)], tokens, top_k);
                std::copy(r.begin(), r.end(), ids.begin() + std::ptrdiff_t(l) * stride);
            }
            CHECK_CUDA(upload(d_ids, ids));
            if (mapped_cpu_list) {
                std::uniform_real_distribution<float> uf(-1, 1);
                for (float& v : xs) v = uf(rng);
                for (float& v : ws) v = uf(rng);
                CHECK_CUDA(upload(d_x, xs));
                CHECK_CUDA(upload(d_w, ws));
                std::memset(m_x.h, 0, xs.size() * 4);
                std::memset(m_w.h, 0, rows * 4);
                std::memset(m_ids.h, 0xff, rows * 4);
                for (int l = 0; l < n_layer; ++l) {
                    words[3 * l] = 0;
                    words[3 * l + 1] = 1;  // the CPU's answer to the previous step
                    words[3 * l + 2] = 0;
                }
            }
            for (int l = 0; l < n_layer; ++l) {
                const std::size_t off = std::size_t(l) * std::size_t(stride);
                ExpertCachePlanParams p;
                p.state = ref.view();
                p.control = &ctl;
                p.advance_clock = advance_clock;
                p.layer = l;
                p.ids = ids.data() + off;
                p.n_pairs = n_pairs;
                p.slot_of_pair = want_slot.data() + off;
                p.fetch = want_fetch.data() + off;
                p.fetch_count = &want_counts[std::size_t(2 * l)];
                p.cpu_ids = want_cpu.data() + off;
                p.cpu_count = &want_counts[std::size_t(2 * l + 1)];
                QVERIFY(ft::kernels::ref::expert_cache_plan(p));

                ExpertCachePlanParams d = p;
                d.state = dev.view(ref);
                d.control = d_ctl.as<ExpertCacheControl>();
                d.ids = d_ids.as<std::int32_t>() + off;
                d.slot_of_pair = d_slot.as<std::int32_t>() + off;
                d.fetch = d_fetch.as<ExpertFetch>() + off;
                d.fetch_count = d_counts.as<std::int32_t>() + 2 * l;
                d.cpu_ids = mapped_cpu_list ? static_cast<std::int32_t*>(m_cpu.d) + off : d_cpu.as<std::int32_t>() + off;
                d.cpu_count = mapped_cpu_list ? static_cast<std::int32_t*>(m_cpu_count.d) + l
                                              : d_counts.as<std::int32_t>() + 2 * l + 1;
                if (mapped_cpu_list) {
                    ft::kernels::ExpertCacheHandoff& h = d.handoff;
                    h.x = d_x.as<float>() + std::size_t(l) * x_per_layer;
                    h.x_dst = static_cast<float*>(m_x.d) + std::size_t(l) * x_per_layer;
                    h.x_count = std::int64_t(x_per_layer);
                    h.weights = d_w.as<float>() + off;
                    h.weights_dst = static_cast<float*>(m_w.d) + off;
                    h.ids_dst = static_cast<std::int32_t*>(m_ids.d) + off;
                    h.n_tokens_dst = static_cast<std::int32_t*>(m_word.d) + 3 * l;
                    h.n_tokens = tokens;
                    h.done = static_cast<std::uint32_t*>(m_word.d) + 3 * l + 1;
                    h.ready = static_cast<std::uint32_t*>(m_word.d) + 3 * l + 2;
                    h.early = early;
                }
                CHECK_CUDA(ft::kernels::cuda::expert_cache_plan(d, nullptr));
            }
            CHECK_CUDA(cudaDeviceSynchronize());
            CHECK_CUDA(download(got_slot, d_slot));
            CHECK_CUDA(download(got_fetch, d_fetch));
            CHECK_CUDA(download(got_counts, d_counts));
            if (mapped_cpu_list) {
                std::memcpy(got_cpu.data(), m_cpu.h, rows * 4);
                for (int l = 0; l < n_layer; ++l) got_counts[std::size_t(2 * l + 1)] = static_cast<std::int32_t*>(m_cpu_count.h)[l];
            } else {
                CHECK_CUDA(download(got_cpu, d_cpu));
            }
            for (int l = 0; l < n_layer; ++l) {
                const std::size_t off = std::size_t(l) * std::size_t(stride);
                const QString where = QString("step %1 layer %2 mode %3").arg(step).arg(l).arg(ctl.mode);
                bool same = got_counts[std::size_t(2 * l)] == want_counts[std::size_t(2 * l)] &&
                            got_counts[std::size_t(2 * l + 1)] == want_counts[std::size_t(2 * l + 1)];
                for (std::size_t i = off; i < off + std::size_t(stride); ++i)  // guards included: both stay sentinel
                    same = same && got_slot[i] == want_slot[i] && got_cpu[i] == want_cpu[i] &&
                           got_fetch[i].flat_id == want_fetch[i].flat_id && got_fetch[i].slot == want_fetch[i].slot;
                QVERIFY2(same, qPrintable(where + ": outputs differ"));
                if (mapped_cpu_list) {
                    const float* hx = static_cast<const float*>(m_x.h) + std::size_t(l) * x_per_layer;
                    const float* hw = static_cast<const float*>(m_w.h) + off;
                    const std::int32_t* hi = static_cast<const std::int32_t*>(m_ids.h) + off;
                    QVERIFY2(std::equal(hx, hx + x_per_layer, xs.begin() + std::ptrdiff_t(std::size_t(l) * x_per_layer)) &&
                                 std::equal(hw, hw + n_pairs, ws.begin() + std::ptrdiff_t(off)) &&
                                 std::equal(hi, hi + n_pairs, ids.begin() + std::ptrdiff_t(off)),
                             qPrintable(where + ": the hand-over's copies differ"));
                    QVERIFY2(int(words[3 * l]) == tokens && words[3 * l + 1] == 0 && words[3 * l + 2] == 1,
                             qPrintable(where + ": the hand-over's flags"));
                }
            }
            if (step % 25 == 24 || step == steps - 1) {
                HostState got(n_layer, n_expert, n_slots);
                CHECK_CUDA(download(got.residency, dev.residency));
                CHECK_CUDA(download(got.slot_owner, dev.slot_owner));
                CHECK_CUDA(download(got.usage, dev.usage));
                CHECK_CUDA(download(got.recency, dev.recency));
                CHECK_CUDA(download(got.counters, dev.counters));
                CHECK_CUDA(download(got.uses, dev.uses));
                ExpertCacheControl got_ctl;
                CHECK_CUDA(cudaMemcpy(&got_ctl, d_ctl.p, sizeof got_ctl, cudaMemcpyDeviceToHost));
                const QString where = QString("state after step %1").arg(step);
                QVERIFY2(got.residency == ref.residency, qPrintable(where + ": residency"));
                QVERIFY2(got.slot_owner == ref.slot_owner, qPrintable(where + ": slot_owner"));
                QVERIFY2(got.usage == ref.usage, qPrintable(where + ": usage"));
                QVERIFY2(got.recency == ref.recency, qPrintable(where + ": recency"));
                QVERIFY2(same_counters(got.counters, ref.counters), qPrintable(where + ": counters"));
                QVERIFY2(got.uses == ref.uses, qPrintable(where + ": uses"));
                QCOMPARE(got_ctl.now, ctl.now);
                for (int i = 0; i < pinned && i < n_slots; ++i) {
                    const std::size_t sl = std::size_t(std::int64_t(i) * n_slots / pinned);
                    QVERIFY2(got.usage[sl] == ft::kernels::kExpertSlotPinned && got.slot_owner[sl] == -1,
                             qPrintable(where + ": a pinned slot was taken"));
                }
            }
        }
        if (clock0 > 0) QVERIFY(ctl.now > 0xffffffffull);  // the trace did cross the 32-bit boundary
        // The traces must have exercised the interesting paths.
        std::uint64_t hits = 0, fetched = 0, cpu = 0;
        for (const auto& c : ref.counters) {
            hits += c.hits;
            fetched += c.fetched;
            cpu += c.cpu;
        }
        qInfo("hits %llu fetched %llu cpu %llu", (unsigned long long)hits, (unsigned long long)fetched,
              (unsigned long long)cpu);
        QVERIFY(cpu > 0);
        if (n_slots > 0) QVERIFY(fetched > 0);
    }

    // A captured graph of three layers' planning calls, replayed with new routing and a new control block each time.
    void graphReplaysFollowTheControlBlock() {
        const int n_layer = 3, n_expert = 32, n_slots = 24, n_pairs = 16;
        HostState ref(n_layer, n_expert, n_slots);
        DevState dev(ref);
        QVERIFY(dev.ok());
        CHECK_CUDA(upload_state(dev, ref));
        const std::size_t rows = std::size_t(n_layer * n_pairs);
        Dev d_ids(rows * 4), d_slot(rows * 4), d_fetch(rows * sizeof(ExpertFetch)), d_cpu(rows * 4),
            d_counts(std::size_t(n_layer) * 2 * 4), d_ctl(sizeof(ExpertCacheControl));
        QVERIFY(d_ids.p && d_slot.p && d_fetch.p && d_cpu.p && d_counts.p && d_ctl.p);
        ExpertCacheControl ctl;
        ctl.now = 0;
        CHECK_CUDA(cudaMemcpy(d_ctl.p, &ctl, sizeof ctl, cudaMemcpyHostToDevice));

        cudaStream_t stream = nullptr;
        CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        cudaGraph_t graph = nullptr;
        cudaGraphExec_t exec = nullptr;
        CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
        cudaError_t launch = cudaSuccess;
        for (int l = 0; l < n_layer && launch == cudaSuccess; ++l) {
            ExpertCachePlanParams d;
            d.state = dev.view(ref);
            d.control = d_ctl.as<ExpertCacheControl>();
            d.advance_clock = true;
            d.layer = l;
            d.ids = d_ids.as<std::int32_t>() + l * n_pairs;
            d.n_pairs = n_pairs;
            d.slot_of_pair = d_slot.as<std::int32_t>() + l * n_pairs;
            d.fetch = d_fetch.as<ExpertFetch>() + l * n_pairs;
            d.fetch_count = d_counts.as<std::int32_t>() + 2 * l;
            d.cpu_ids = d_cpu.as<std::int32_t>() + l * n_pairs;
            d.cpu_count = d_counts.as<std::int32_t>() + 2 * l + 1;
            launch = ft::kernels::cuda::expert_cache_plan(d, stream);
        }
        const cudaError_t end = cudaStreamEndCapture(stream, &graph);
        CHECK_CUDA(launch);
        CHECK_CUDA(end);
        CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));

        std::mt19937 rng(99);
        std::vector<int> pop(static_cast<std::size_t>(n_expert));
        for (int e = 0; e < n_expert; ++e) pop[std::size_t(e)] = e;
        std::vector<std::int32_t> ids(rows), want_slot(rows), want_cpu(rows), got_slot(rows), got_cpu(rows);
        std::vector<ExpertFetch> want_fetch(rows), got_fetch(rows);
        std::vector<std::int32_t> want_counts(std::size_t(n_layer) * 2), got_counts(want_counts.size());
        bool ok = true;
        for (int replay = 0; replay < 60 && ok; ++replay) {
            random_control(rng, ctl);  // ctl.now is the reference's: the graph ticks the device's copy the same way
            CHECK_CUDA(cudaMemcpy(d_ctl.p, &ctl, sizeof ctl, cudaMemcpyHostToDevice));
            for (int l = 0; l < n_layer; ++l) {
                const auto r = route(rng, pop, 4, 4);
                std::copy(r.begin(), r.end(), ids.begin() + l * n_pairs);
            }
            CHECK_CUDA(upload(d_ids, ids));
            CHECK_CUDA(cudaGraphLaunch(exec, stream));
            for (int l = 0; l < n_layer; ++l) {
                ExpertCachePlanParams p;
                p.state = ref.view();
                p.control = &ctl;
                p.advance_clock = true;
                p.layer = l;
                p.ids = ids.data() + l * n_pairs;
                p.n_pairs = n_pairs;
                p.slot_of_pair = want_slot.data() + l * n_pairs;
                p.fetch = want_fetch.data() + l * n_pairs;
                p.fetch_count = &want_counts[std::size_t(2 * l)];
                p.cpu_ids = want_cpu.data() + l * n_pairs;
                p.cpu_count = &want_counts[std::size_t(2 * l + 1)];
                QVERIFY(ft::kernels::ref::expert_cache_plan(p));
            }
            CHECK_CUDA(cudaStreamSynchronize(stream));
            CHECK_CUDA(download(got_slot, d_slot));
            CHECK_CUDA(download(got_cpu, d_cpu));
            CHECK_CUDA(download(got_fetch, d_fetch));
            CHECK_CUDA(download(got_counts, d_counts));
            ok = got_slot == want_slot && got_cpu == want_cpu && got_counts == want_counts;
            for (std::size_t i = 0; i < rows; ++i)
                ok = ok && got_fetch[i].flat_id == want_fetch[i].flat_id && got_fetch[i].slot == want_fetch[i].slot;
            if (!ok) qWarning("replay %d differs", replay);
        }
        HostState got(n_layer, n_expert, n_slots);
        CHECK_CUDA(download(got.residency, dev.residency));
        CHECK_CUDA(download(got.usage, dev.usage));
        CHECK_CUDA(download(got.recency, dev.recency));
        cudaGraphExecDestroy(exec);
        cudaGraphDestroy(graph);
        cudaStreamDestroy(stream);
        QVERIFY(ok);
        QVERIFY(got.residency == ref.residency && got.usage == ref.usage && got.recency == ref.recency);
    }

    // The emulated host link of `ft bench --pcie-limit`: the stream is held until items × bytes / rate has passed
    // since the start stamp, the item count read on the device (or 1 without a count); bad rates are refused.
    void prefillBindKeepsExpertsCachedElsewhere() {
        // 2 layers × 4 experts, 12 slots; buffer = slots 0..3. Layer 0's expert 1 is cached at slot 10 (outside the
        // buffer), its expert 3 at slot 2 (inside, at another expert's place); layer 1's expert 2 at slot 0.
        HostState h(2, 4, 12);
        auto put = [&](int flat, int slot) {
            h.residency[std::size_t(flat)] = slot;
            h.slot_owner[std::size_t(slot)] = flat;
            h.usage[std::size_t(slot)] = 50;
        };
        put(1, 10);
        put(3, 2);
        put(4 + 2, 0);
        put(4 + 3, 7);
        DevState d(h);
        QVERIFY(d.ok());
        CHECK_CUDA(upload(d.residency, h.residency));
        CHECK_CUDA(upload(d.slot_owner, h.slot_owner));
        CHECK_CUDA(upload(d.usage, h.usage));
        CHECK_CUDA(ft::kernels::cuda::expert_cache_bind_layer(d.view(h), 0, 0, 9, nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        HostState g(2, 4, 12);
        CHECK_CUDA(download(g.residency, d.residency));
        CHECK_CUDA(download(g.slot_owner, d.slot_owner));
        CHECK_CUDA(download(g.usage, d.usage));
        // Layer 0: expert 1 stays at slot 10 (its buffer slot 1 free); experts 0, 2, 3 bound to slots 0, 2, 3.
        QCOMPARE(g.residency[0], 0);
        QCOMPARE(g.residency[1], 10);
        QCOMPARE(g.residency[2], 2);
        QCOMPARE(g.residency[3], 3);
        QCOMPARE(g.slot_owner[10], 1);
        QCOMPARE(g.usage[10], ft::kernels::ExpertStamp(50));
        QCOMPARE(g.slot_owner[1], -1);
        QCOMPARE(g.usage[1], ft::kernels::ExpertStamp(0));
        for (int e : {0, 2, 3}) {
            QCOMPARE(g.slot_owner[std::size_t(e)], e);
            QCOMPARE(g.usage[std::size_t(e)], ft::kernels::ExpertStamp(9));
        }
        // Layer 1: expert 2 lost slot 0 to the buffer; expert 3 keeps slot 7.
        QCOMPARE(g.residency[4 + 2], -1);
        QCOMPARE(g.residency[4 + 3], 7);
        QCOMPARE(g.slot_owner[7], 4 + 3);
    }

    // expert_copy with experts whose size differs by layer (llama.cpp's _M recipes keep some layers' down projection in
    // Q6_K): each fetch copies its own layer's bytes into a slot sized for the largest, and nothing past them.
    void copyTakesEachLayersBytes() {
        namespace kc = ft::kernels::cuda;
        constexpr int n_layer = 3, n_expert = 4, n_slots = 6;
        const std::uint32_t layer_bytes[n_layer] = {1008, 1650, 1232};  // 1650: not a multiple of 16 (byte path)
        constexpr std::size_t stride = 1664;
        Mapped src(std::size_t(n_layer * n_expert) * stride);  // flat f's matrix at f * stride, pinned and mapped
        Dev dst(n_slots * stride), d_tab(n_layer * n_expert * sizeof(void*)), d_lb(sizeof layer_bytes),
            d_fetch(8 * sizeof(ExpertFetch)), d_count(4);
        QVERIFY(src.h && src.d && dst.p && d_tab.p && d_lb.p && d_fetch.p && d_count.p);
        auto* hs = static_cast<std::uint8_t*>(src.h);
        for (std::size_t i = 0; i < std::size_t(n_layer * n_expert) * stride; ++i) hs[i] = std::uint8_t(i * 131 + i / 977);
        std::vector<const std::uint8_t*> tab(n_layer * n_expert);
        for (int f = 0; f < n_layer * n_expert; ++f) tab[std::size_t(f)] = static_cast<const std::uint8_t*>(src.d) + std::size_t(f) * stride;
        CHECK_CUDA(cudaMemcpy(d_tab.p, tab.data(), tab.size() * sizeof(void*), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(d_lb.p, layer_bytes, sizeof layer_bytes, cudaMemcpyHostToDevice));
        // flat 1 (layer 0) → slot 5, flat 6 (layer 1) → slot 0, flat 11 (layer 2) → slot 3, flat 4 (layer 1) → slot 2.
        const std::vector<ExpertFetch> fetch = {{1, 5}, {6, 0}, {11, 3}, {4, 2}};
        const std::int32_t count = std::int32_t(fetch.size());
        CHECK_CUDA(cudaMemcpy(d_fetch.p, fetch.data(), fetch.size() * sizeof(ExpertFetch), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(d_count.p, &count, 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemset(dst.p, 0xA5, n_slots * stride));
        kc::ExpertCopyParams cp;
        cp.banks[0] = {static_cast<const std::uint8_t* const*>(d_tab.p), dst.as<std::uint8_t>(), 1650, stride,
                       d_lb.as<std::uint32_t>(), n_expert};
        cp.n_banks = 1;
        cp.fetch = d_fetch.as<ExpertFetch>();
        cp.fetch_count = d_count.as<std::int32_t>();
        cp.max_fetch = 8;
        CHECK_CUDA(kc::expert_copy(cp, nullptr));
        CHECK_CUDA(cudaDeviceSynchronize());
        std::vector<std::uint8_t> got(n_slots * stride);
        CHECK_CUDA(cudaMemcpy(got.data(), dst.p, got.size(), cudaMemcpyDeviceToHost));
        std::vector<std::uint8_t> want(n_slots * stride, 0xA5);
        for (const ExpertFetch& e : fetch)
            std::memcpy(want.data() + std::size_t(e.slot) * stride, hs + std::size_t(e.flat_id) * stride,
                        layer_bytes[e.flat_id / n_expert]);
        for (std::size_t i = 0; i < want.size(); ++i)
            QVERIFY2(got[i] == want[i], qPrintable(QString("slot %1 byte %2: %3, want %4").arg(i / stride).arg(i % stride)
                                                       .arg(got[i]).arg(want[i])));
        cp.banks[0].n_expert = 0;  // a per-layer table needs the experts per layer
        QCOMPARE(kc::expert_copy(cp, nullptr), cudaErrorInvalidValue);
    }

    void emulatedLinkHoldsTheStream() {
        namespace kc = ft::kernels::cuda;
        Dev buf(256);
        QVERIFY(buf.p);
        auto* t0 = buf.as<std::uint64_t>();
        auto* count = buf.as<std::int32_t>() + 16;
        const std::int32_t n = 40;
        QCOMPARE(cudaMemcpy(count, &n, sizeof n, cudaMemcpyHostToDevice), cudaSuccess);
        cudaEvent_t a, b;
        QCOMPARE(cudaEventCreate(&a), cudaSuccess);
        QCOMPARE(cudaEventCreate(&b), cudaSuccess);
        struct Case {
            const std::int32_t* count;
            double bytes, gbps, want_ms;
        };
        for (const Case c : {Case{count, 1e6, 10.0, 4.0}, Case{nullptr, 2e7, 10.0, 2.0}, Case{count, 1e6, 40.0, 1.0}}) {
            QCOMPARE(cudaEventRecord(a, nullptr), cudaSuccess);
            QCOMPARE(kc::link_clock_start(t0, nullptr), cudaSuccess);
            QCOMPARE(kc::link_throttle(t0, c.count, c.bytes, c.gbps, nullptr), cudaSuccess);
            QCOMPARE(cudaEventRecord(b, nullptr), cudaSuccess);
            QCOMPARE(cudaEventSynchronize(b), cudaSuccess);
            float ms = 0;
            QCOMPARE(cudaEventElapsedTime(&ms, a, b), cudaSuccess);
            qInfo("emulated link: %.0f bytes × %s at %.0f GB/s held the stream %.3f ms (want ≥ %.3f)", c.bytes,
                  c.count ? "40 items" : "1 item", c.gbps, double(ms), c.want_ms);
            QVERIFY2(ms >= 0.98 * c.want_ms && ms < c.want_ms + 5.0, qPrintable(QString::number(double(ms))));
        }
        cudaEventDestroy(a);
        cudaEventDestroy(b);
        QCOMPARE(kc::link_throttle(t0, count, 1e6, 0.0, nullptr), cudaErrorInvalidValue);
        QCOMPARE(kc::link_throttle(nullptr, count, 1e6, 10.0, nullptr), cudaErrorInvalidValue);
        QCOMPARE(kc::link_clock_start(nullptr, nullptr), cudaErrorInvalidValue);
    }

    // The GPU's clock of the hybrid handshake. The planning kernel stamps each hand-over; the kernel that adds the
    // CPU's sum counts the time since its layer's hand-over and stamps itself; the next hand-over of the same step
    // counts the time since that. A hand-over of an earlier layer (a new step) counts no chain.
    void handoffClock() {
        HostState h(4, 8, 2);  // the cpu mode: every miss goes to the CPU list
        DevState dev(h);
        QVERIFY(dev.ok());
        CHECK_CUDA(upload_state(dev, h));
        Dev d_ctl(sizeof(ExpertCacheControl)), d_ids(64), d_out(256), d_clock(sizeof(ft::kernels::HandoffClock)), d_x(64 * 4);
        Mapped m_list(256), m_words(4 * 4 * 2), m_y(64 * 4);
        QVERIFY(d_ctl.p && d_ids.p && d_out.p && d_clock.p && d_x.p && m_list.d && m_words.d && m_y.d);
        ExpertCacheControl ctl;
        ctl.mode = std::int32_t(ExpertCacheMode::cpu);
        CHECK_CUDA(cudaMemcpy(d_ctl.p, &ctl, sizeof ctl, cudaMemcpyHostToDevice));
        CHECK_CUDA(upload(d_ids, std::vector<std::int32_t>{1, 5}));  // two misses for the CPU
        ft::kernels::HandoffClock zero;
        zero.added_layer = -1;
        CHECK_CUDA(cudaMemcpy(d_clock.p, &zero, sizeof zero, cudaMemcpyHostToDevice));
        std::vector<float> x(64, 1.f), y(64);
        for (int i = 0; i < 64; ++i) y[std::size_t(i)] = float(i);
        CHECK_CUDA(upload(d_x, x));
        std::memcpy(m_y.h, y.data(), y.size() * 4);
        auto* words = static_cast<std::uint32_t*>(m_words.h);  // [layer][done, ready]
        for (int l = 0; l < 4; ++l) words[2 * l] = 5, words[2 * l + 1] = 0;
        auto* clock = d_clock.as<ft::kernels::HandoffClock>();
        auto plan = [&](int layer) {
            ExpertCachePlanParams p;
            p.state = dev.view(h);
            p.control = d_ctl.as<ExpertCacheControl>();
            p.layer = layer;
            p.ids = d_ids.as<std::int32_t>();
            p.n_pairs = 2;
            p.slot_of_pair = d_out.as<std::int32_t>();
            p.fetch = d_out.as<ExpertFetch>() + 8;
            p.fetch_count = d_out.as<std::int32_t>() + 40;
            p.cpu_ids = static_cast<std::int32_t*>(m_list.d);
            p.cpu_count = static_cast<std::int32_t*>(m_list.d) + 32;
            p.handoff.done = static_cast<std::uint32_t*>(m_words.d) + 2 * layer;
            p.handoff.ready = static_cast<std::uint32_t*>(m_words.d) + 2 * layer + 1;
            p.handoff.clock = clock;
            return ft::kernels::cuda::expert_cache_plan(p, nullptr);
        };
        auto add = [&](int layer) {
            return ft::kernels::cuda::expert_cache_add_cpu_sum(static_cast<const float*>(m_y.d), d_x.as<float>(), 64, clock,
                                                              layer, nullptr);
        };
        // Layers 0 and 1 handed over and answered, then layer 0 of a new step; 200 µs between operations.
        const std::vector<std::pair<int, bool>> ops = {{0, false}, {0, true}, {1, false}, {1, true}, {0, false}, {0, true}};
        for (const auto& [layer, is_add] : ops) {
            CHECK_CUDA(is_add ? add(layer) : plan(layer));
            CHECK_CUDA(cudaDeviceSynchronize());
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
        ft::kernels::HandoffClock got;
        CHECK_CUDA(cudaMemcpy(&got, d_clock.p, sizeof got, cudaMemcpyDeviceToHost));
        QCOMPARE(got.answers, std::uint64_t(3));
        QCOMPARE(got.chains, std::uint64_t(1));  // layer 0's sum -> layer 1's hand-over only
        QVERIFY2(got.answer_ns >= 3 * 200'000 && got.answer_ns < 3'000'000'000ull, qPrintable(QString::number(got.answer_ns)));
        QVERIFY2(got.chain_ns >= 200'000 && got.chain_ns < 1'000'000'000ull, qPrintable(QString::number(got.chain_ns)));
        QCOMPARE(got.added_layer, 0);
        QVERIFY(got.handed_at[0] > got.handed_at[1] && got.handed_at[1] > 0 && got.handed_at[2] == 0 && got.handed_at[3] == 0);
        QVERIFY(words[0] == 0 && words[1] == 1 && words[2] == 0 && words[3] == 1);  // layers 0, 1: done = 0, ready = 1
        QVERIFY(words[4] == 5 && words[5] == 0 && words[6] == 5 && words[7] == 0);  // layers 2, 3: untouched
        std::vector<float> sum(64);
        CHECK_CUDA(download(sum, d_x));
        for (int i = 0; i < 64; ++i) QCOMPARE(sum[std::size_t(i)], 1.f + 3.f * float(i));  // three adds
        QCOMPARE(ft::kernels::cuda::expert_cache_add_cpu_sum(nullptr, nullptr, 0, clock, ft::kernels::HandoffClock::kMaxLayers,
                                                             nullptr),
                 cudaErrorInvalidValue);
        QCOMPARE(ft::kernels::cuda::expert_cache_add_cpu_sum(nullptr, nullptr, -1, nullptr, 0, nullptr), cudaErrorInvalidValue);
    }

    void rejectsBadParams() {
        HostState h(2, 8, 4);
        DevState dev(h);
        Dev buf(4096);
        QVERIFY(dev.ok() && buf.p);
        ExpertCachePlanParams p;
        p.state = dev.view(h);
        p.control = buf.as<ExpertCacheControl>();
        p.ids = p.slot_of_pair = p.cpu_ids = p.fetch_count = p.cpu_count = buf.as<std::int32_t>() + 64;
        p.fetch = buf.as<ExpertFetch>() + 256;
        p.n_pairs = 257;
        QCOMPARE(ft::kernels::cuda::expert_cache_plan(p, nullptr), cudaErrorInvalidValue);
        p.n_pairs = 8;
        p.layer = 2;
        QCOMPARE(ft::kernels::cuda::expert_cache_plan(p, nullptr), cudaErrorInvalidValue);
        p.layer = 0;
        p.state.n_expert = 513;
        QCOMPARE(ft::kernels::cuda::expert_cache_plan(p, nullptr), cudaErrorInvalidValue);
        p.state.n_expert = 8;
        p.control = nullptr;
        QCOMPARE(ft::kernels::cuda::expert_cache_plan(p, nullptr), cudaErrorInvalidValue);
        QCOMPARE(ft::kernels::cuda::qstar_fetch_counts(nullptr, nullptr, nullptr, nullptr, -1, nullptr),
                 cudaErrorInvalidValue);
        cudaGetLastError();
    }
#else
    void builtWithoutCuda() { QSKIP("built without CUDA"); }
#endif
};

FT_GPU_TEST_MAIN(TestExpertCache)
#include "test_expert_cache.moc"
