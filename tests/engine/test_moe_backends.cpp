// Every expert-offload backend (offload, cpu, hybrid, static) against the resident GPU backend on a tiny golden
// model (16 experts per MoE layer, top-4): teacher-forced logits through decode steps (one token per forward: the
// captured decode graph with the expert cache, the q* split and the CPU handshake) and through prefill (whole-layer
// streaming), at cache sizes from one layer's experts to all of them; greedy continuations identical. A capped host
// store (--pin-budget: part of the experts left unpinned, fetched through the bounce ring) gives bit-identical
// outputs to the fully pinned one. GPU only.
// The model: tests/data/qwen3-moe-tiny, or the fixture folder named by FT_BACKENDS_FIXTURE (CTest runs the same binary
// on gpt-oss-tiny — expert biases, clamped SwiGLU, sinks — and glm4-moe-tiny — a dense first layer, a shared expert,
// the sigmoid router with its selection bias — and deepseek-v3-tiny — latent attention).
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QScopeGuard>
#include <QTemporaryDir>

#include <cmath>
#include <future>

#include "ft/engine.h"

#include "ft_test.h"

namespace {

QString fixture_dir() {
    const QByteArray name = qgetenv("FT_BACKENDS_FIXTURE");
    return QStringLiteral(FT_SOURCE_DIR "/tests/data/") + (name.isEmpty() ? QStringLiteral("qwen3-moe-tiny") : QString(name));
}
const QString kDir = fixture_dir();

// Routed experts per MoE layer and the number of MoE layers, from the fixture's config.json.
struct Shape {
    int experts = 0, moe_layers = 0;
    int total() const { return experts * moe_layers; }
};
Shape fixture_shape() {
    QFile f(kDir + "/config.json");
    if (!f.open(QIODevice::ReadOnly)) qFatal("cannot open config.json");
    const QJsonObject c = QJsonDocument::fromJson(f.readAll()).object();
    Shape s;
    for (const char* key : {"num_experts", "num_local_experts", "n_routed_experts"})
        if (c.contains(key)) s.experts = c[key].toInt();
    s.moe_layers = c["num_hidden_layers"].toInt() - c["first_k_dense_replace"].toInt(0);
    if (s.experts <= 0 || s.moe_layers <= 0) qFatal("config.json: no experts or no MoE layers");
    return s;
}
const Shape kShape = fixture_shape();

std::vector<std::int32_t> golden_prompt() {
    QFile f(kDir + "/golden.json");
    if (!f.open(QIODevice::ReadOnly)) qFatal("cannot open golden.json");
    std::vector<std::int32_t> all;
    for (const auto& s : QJsonDocument::fromJson(f.readAll()).object()["sequences"].toArray())
        for (const auto& t : s.toArray()) all.push_back(t.toInt());
    return all;
}

ft::LoadOptions options(const std::string& backend, int n_slots, int chunk, bool exact = false, int admit = 0) {
    ft::LoadOptions o;
    o.model = kDir.toStdString();
    o.device = ft::Device::cuda;
    o.n_ctx = 512;
    o.max_sequences = 2;
    o.prefill_chunk = chunk;
    o.moe_backend = backend;
    o.expert_slots = n_slots;
    o.hybrid_fraction = 0.5;
    o.threads = 2;
    o.gpu_exact_prefill = exact;
    o.hybrid_admit = admit;
    o.warm_start = false;  // every case starts from an empty cache (warmStartFillsTheCache turns it on)
    return o;
}

double counter(const ft::EngineStats& s, const char* name) {
    for (const auto& [k, v] : s.backend)
        if (k == name) return v;
    return 0;
}

struct Agreement {
    double min_cos = 1, max_abs = 0;
};
Agreement compare(const std::vector<float>& a, const std::vector<float>& b, std::size_t vocab) {
    Agreement r;
    for (std::size_t p = 0; p < a.size() / vocab; ++p) {
        double xy = 0, xx = 0, yy = 0;
        for (std::size_t i = 0; i < vocab; ++i) {
            const double x = a[p * vocab + i], y = b[p * vocab + i];
            xy += x * y;
            xx += x * x;
            yy += y * y;
            r.max_abs = std::max(r.max_abs, std::fabs(x - y));
        }
        r.min_cos = std::min(r.min_cos, xy / std::sqrt(xx * yy));
    }
    return r;
}

std::vector<std::int32_t> greedy(ft::Engine& e, const std::vector<std::int32_t>& prompt, int n) {
    ft::GenerationRequest r;
    r.prompt = prompt;
    r.sampling.temperature = 0;
    r.max_tokens = n;
    r.ignore_eos = true;
    std::vector<std::int32_t> out;
    std::promise<void> done;
    r.on_token = [&](const ft::TokenEvent& ev) { out.push_back(ev.token); };
    r.on_finish = [&](const ft::FinishEvent&) { done.set_value(); };
    r.on_error = [&](const ft::Error& err) {
        qWarning("%s", err.what());
        done.set_value();
    };
    e.submit(std::move(r));
    done.get_future().wait();
    return out;
}

}  // namespace

class TestMoeBackends : public QObject {
    Q_OBJECT
    std::vector<std::int32_t> prompt;
    std::vector<float> ref_decode, ref_prefill, ref_prefill_exact;
    std::vector<std::int32_t> ref_greedy;
    std::size_t vocab = 0;

private slots:
    void initTestCase() {
        prompt = golden_prompt();
        prompt.resize(std::min<std::size_t>(prompt.size(), 96));
        ft::Engine e;
        const auto info = e.load_sync(options("resident", 0, 1));
        vocab = info.n_vocab;
        ref_decode = e.evaluate_logits(prompt);
        ft::Engine p;
        p.load_sync(options("resident", 0, 4096));
        ref_prefill = p.evaluate_logits(prompt);
        ref_greedy = greedy(p, std::vector<std::int32_t>(prompt.begin(), prompt.begin() + 80), 40);
        // The static backend computes its CPU layers' prefill on the CPU in f32: compared with the exact GPU prefill.
        ft::Engine x;
        x.load_sync(options("resident", 0, 4096, true));
        ref_prefill_exact = x.evaluate_logits(prompt);
        const auto a = compare(ref_decode, ref_prefill, vocab);
        qInfo("resident: decode-step vs prefill logits: min cosine %.9f, max |Δ| %.3g", a.min_cos, a.max_abs);
    }

    void matchesResident_data() {
        QTest::addColumn<QString>("backend");
        QTest::addColumn<int>("n_slots");
        // Cache sizes: one layer's experts, 1.5 layers', 2.5 layers' (for 4 MoE layers; 2 for 3), all of them.
        const int L = kShape.experts, all = kShape.total();
        const int big = kShape.moe_layers > 3 ? L * 5 / 2 : L * 2;
        for (const QString& b : {QStringLiteral("offload"), QStringLiteral("hybrid")})
            for (int n_slots : {L, L * 3 / 2, big, all})
                QTest::newRow(qPrintable(QString("%1 %2 slots").arg(b).arg(n_slots))) << b << n_slots;
        QTest::newRow(qPrintable(QString("cpu %1 slots").arg(2 * L))) << QStringLiteral("cpu") << 2 * L;
        QTest::newRow(qPrintable(QString("cpu %1 slots").arg(L))) << QStringLiteral("cpu") << L;
        const int mid = L * 3 / 2;
        QTest::newRow(qPrintable(QString("hybrid %1 slots, host-function sync").arg(mid))) << QStringLiteral("hybrid-hostfunc") << mid;
        QTest::newRow(qPrintable(QString("hybrid %1 slots, background admission").arg(mid))) << QStringLiteral("hybrid-admit") << mid;
        QTest::newRow(qPrintable(QString("hybrid %1 slots, q* refined online").arg(mid))) << QStringLiteral("hybrid-online") << mid;
        QTest::newRow(qPrintable(QString("hybrid %1 slots, q* = 1 (no CPU handshake)").arg(mid))) << QStringLiteral("hybrid-all") << mid;
        QTest::newRow("static 1 layer resident") << QStringLiteral("static") << L;
        QTest::newRow(qPrintable(QString("static %1 layers resident").arg(kShape.moe_layers - 1)))
            << QStringLiteral("static") << all - L;
    }
    void matchesResident() {
        QFETCH(QString, backend);
        QFETCH(int, n_slots);
        // The host-function fallback of the CPU handshake (drivers without stream memory operations).
        const bool hostfunc = backend.endsWith("-hostfunc");
        if (hostfunc) backend.chop(9);
        // Background admission of CPU-computed experts (--hybrid-admit).
        const bool admit = backend.endsWith("-admit");
        if (admit) backend.chop(6);
        // q* from the bandwidth profile, refined online from the steps' fetch and CPU timings (no fixed fraction).
        const bool online = backend.endsWith("-online");
        if (online) backend.chop(7);
        // q* = 1 and no fetch cap: every miss fetched, the CPU handshake left out of the captured graph.
        const bool all_fetched = backend.endsWith("-all");
        if (all_fetched) backend.chop(4);
        // Teacher-forced through decode steps.
        ft::Engine e;
        ft::LoadOptions lo = options(backend.toStdString(), n_slots, 1, false, admit ? 8 : 0);
        lo.host_function_sync = hostfunc;
        if (online) lo.hybrid_fraction = -1;
        if (all_fetched) lo.hybrid_fraction = 1;
        const auto info = e.load_sync(lo);
        qInfo("%s%s", info.device.c_str(), hostfunc ? " (CPU handshake through host-function nodes)" : "");
        const auto got = e.evaluate_logits(prompt);
        const auto a = compare(got, ref_decode, vocab);
        // The online search moves q* while the steps run (after 16 warm-up steps, one candidate per 30): the prompt
        // runs again, up to 12 times, until a live rate is measured (a small model: few fetches per timed step) and
        // the search has measured 3 candidates — each pass's logits still those of the resident model.
        auto measured = [&] {
            const auto s = e.stats();
            return (counter(s, "live_fetch_gbps") > 0 || counter(s, "live_cpu_gbps") > 0) && counter(s, "hybrid_search_windows") >= 3;
        };
        for (int rep = 0; online && rep < 12 && !measured(); ++rep) {
            const auto again = compare(e.evaluate_logits(prompt), ref_decode, vocab);
            QVERIFY2(again.min_cos >= 0.9999, qPrintable(QString("pass %1 (q* %2): %3").arg(rep + 2)
                                                             .arg(counter(e.stats(), "hybrid_fraction"))
                                                             .arg(again.min_cos, 0, 'g', 10)));
        }
        // Then on until the search ends (9-10 windows of 30 steps): below q* = 1 its end brings back the cache it
        // started from (copies between steps); the passes after that must still give the resident model's logits.
        for (int rep = 0; online && rep < 12 && counter(e.stats(), "hybrid_searching") > 0; ++rep) {
            const auto again = compare(e.evaluate_logits(prompt), ref_decode, vocab);
            QVERIFY2(again.min_cos >= 0.9999, qPrintable(QString("until the search ends, pass %1: %2").arg(rep + 1)
                                                             .arg(again.min_cos, 0, 'g', 10)));
        }
        if (online) {
            const auto after = compare(e.evaluate_logits(prompt), ref_decode, vocab);
            QVERIFY2(after.min_cos >= 0.9999, qPrintable(QString("after the search: %1").arg(after.min_cos, 0, 'g', 10)));
            const auto s = e.stats();
            qInfo("search ended: %s, q* %.4f; cache restored %.0f times, %.0f experts copied back",
                  counter(s, "hybrid_searching") > 0 ? "no" : "yes", counter(s, "hybrid_fraction"),
                  counter(s, "expert_cache_restores"), counter(s, "expert_cache_restored"));
            QCOMPARE(counter(s, "hybrid_searching"), 0.0);
            // How many experts come back depends on what the cache held when the search began and on what its
            // windows evicted that was not fetched again (timing: the search starts after the live bandwidths are
            // measured): on an H100 the DeepSeek-V3 fixture's search, ending at q* 0.925, brought back none. That
            // the restore ran, and the logits after it, are what is checked.
            if (counter(s, "hybrid_fraction") < 1) QVERIFY(counter(s, "expert_cache_restores") >= 1);
        } else {
            QCOMPARE(counter(e.stats(), "expert_cache_restores"), 0.0);  // no search, nothing to restore
        }
        const auto st = e.stats();
        const double hits = counter(st, "expert_hits"), misses = counter(st, "expert_misses");
        qInfo("decode steps: min cosine %.9f, max |Δlogit| %.3g; hits %.0f misses %.0f fetched %.0f cpu %.0f, graph replays %.0f",
              a.min_cos, a.max_abs, hits, misses, counter(st, "expert_fetched"), counter(st, "expert_cpu"),
              counter(st, "graph_replays"));
        QVERIFY2(a.min_cos >= 0.9999, qPrintable(QString::number(a.min_cos, 'g', 10)));
        QVERIFY(counter(st, "graph_replays") >= double(prompt.size()));  // every step a replay of the captured graph
        QVERIFY(hits + misses > 0);
        if (backend == "offload") QCOMPARE(counter(st, "expert_cpu"), 0.0);
        if (backend == "cpu") QCOMPARE(counter(st, "expert_fetched"), 0.0);
        if (backend == "hybrid" && n_slots < kShape.total() && !all_fetched) {
            QVERIFY(counter(st, "expert_fetched") > 0);
            QVERIFY(counter(st, "expert_cpu") > 0);
        }
        if (admit) QVERIFY(counter(st, "expert_admitted") > 0);
        else QCOMPARE(counter(st, "expert_admitted"), 0.0);
        if (online) {
            // Both rates measured from the decode steps, and the search measuring candidates from there.
            const double bp = counter(st, "live_fetch_gbps"), bc = counter(st, "live_cpu_gbps"), q = counter(st, "hybrid_fraction");
            qInfo("online q*: live B_P %.2f GB/s, B_C %.2f GB/s (matched %.4f), fraction %.4f after %.0f windows", bp, bc,
                  bp / (bp + bc), q, counter(st, "hybrid_search_windows"));
            // A rate is measured while its side has work: once the search reaches q* = 1 the CPU has none (on
            // deepseek-v3-tiny it gets there before 32 experts' bytes were computed on the CPU).
            QVERIFY(bp > 0 || bc > 0);
            QVERIFY(counter(st, "hybrid_search_windows") >= 3);
            QVERIFY(counter(st, "hybrid_search_seconds") > 0);
            QVERIFY(q >= 0 && q <= 1);
        } else if (all_fetched) {
            QCOMPARE(counter(st, "hybrid_fraction"), 1.0);
            QCOMPARE(counter(st, "expert_cpu"), 0.0);
            QVERIFY(counter(st, "expert_fetched") > 0);
        } else if (backend == "hybrid") {
            QCOMPARE(counter(st, "hybrid_fraction"), 0.5);  // a fraction given stays fixed
            QCOMPARE(counter(st, "live_fetch_gbps"), 0.0);
        }
        // Prefill (whole-layer streaming, or the static backend's CPU layers) and greedy decode.
        const bool exact = backend == "static";
        ft::Engine p;
        p.load_sync(options(backend.toStdString(), n_slots, 4096, exact));
        const auto pre = p.evaluate_logits(prompt);
        const auto b = compare(pre, exact ? ref_prefill_exact : ref_prefill, vocab);
        qInfo("prefill: min cosine %.9f, max |Δlogit| %.3g", b.min_cos, b.max_abs);
        QVERIFY2(b.min_cos >= 0.9999, qPrintable(QString::number(b.min_cos, 'g', 10)));
        if (!exact) QCOMPARE(greedy(p, std::vector<std::int32_t>(prompt.begin(), prompt.begin() + 80), 40), ref_greedy);
    }

    // --pin-budget (the stand-in for the OS's cap on pinned memory): only part of the store is pinned in place, the
    // rest stays in the mapped file and reaches decode's fetches through the pinned bounce ring, prefill streaming and
    // the static backend's uploads through pageable copies. Logits (decode steps and prefill) and greedy continuations
    // must be bit-identical to the same backend with everything pinned; the ring must have carried experts.
    void pinBudgetMatchesFullyPinned_data() {
        QTest::addColumn<QString>("backend");
        QTest::addColumn<int>("n_slots");
        QTest::addColumn<double>("share");  // pin budget / the store's bytes (0: one byte, i.e. nothing pinned)
        const int L = kShape.experts, mid = L * 3 / 2;
        QTest::newRow("offload 1 layer's slots, 25 %") << QStringLiteral("offload") << L << 0.25;
        QTest::newRow("offload 1.5 layers' slots, nothing pinned") << QStringLiteral("offload") << mid << 0.0;
        QTest::newRow("hybrid 1.5 layers' slots, 25 %") << QStringLiteral("hybrid") << mid << 0.25;
        QTest::newRow("hybrid 1 layer's slots, nothing pinned") << QStringLiteral("hybrid") << L << 0.0;
        QTest::newRow("hybrid 1.5 layers' slots, 25 %, host-function sync") << QStringLiteral("hybrid-hostfunc") << mid << 0.25;
        QTest::newRow("cpu 2 layers' slots, 25 %") << QStringLiteral("cpu") << 2 * L << 0.25;
        QTest::newRow("static 2 layers resident, 25 %") << QStringLiteral("static") << 2 * L << 0.25;
        QTest::newRow("offload 1.5 layers' slots, budget above the store") << QStringLiteral("offload") << mid << 2.0;
    }
    void pinBudgetMatchesFullyPinned() {
        try {
            pinBudgetCase();
        } catch (const std::exception& e) {
            QFAIL(e.what());
        }
    }

public:  // the body of pinBudgetMatchesFullyPinned (not a test of its own)
    void pinBudgetCase() {
        QFETCH(QString, backend);
        QFETCH(int, n_slots);
        QFETCH(double, share);
        const bool hostfunc = backend.endsWith("-hostfunc");
        if (hostfunc) backend.chop(9);
        const bool fetches = backend == "offload" || backend == "hybrid";
        const bool exact = backend == "static";  // its CPU layers' prefill is f32 on the CPU: compare like with like
        auto base = options(backend.toStdString(), n_slots, 1, exact);
        base.host_function_sync = hostfunc;  // the fallback handshake, bounce ring included
        // Fully pinned: the reference, and the store's size.
        ft::Engine full;
        full.load_sync(base);
        const auto want = full.evaluate_logits(prompt);
        const auto fs = full.stats();
        const double store = counter(fs, "host_store_bytes");
        QVERIFY(store > 0);
        QVERIFY2(counter(fs, "host_pinned_bytes") >= store, "the fully pinned run did not pin everything");
        QCOMPARE(counter(fs, "host_bounced"), 0.0);
        // Capped.
        ft::LoadOptions o = base;
        o.pin_budget = share > 0 ? std::uint64_t(share * store) : 1;
        ft::Engine e;
        const auto info = e.load_sync(o);
        const auto got = e.evaluate_logits(prompt);
        const auto st = e.stats();
        const double pinned = counter(st, "host_pinned_bytes"), bounced = counter(st, "host_bounce_bytes");
        qInfo("%s, pin budget %llu of %.0f bytes: pinned %.0f, bounced %.0f experts (%.0f bytes), fetched %.0f", info.device.c_str(),
              static_cast<unsigned long long>(o.pin_budget), store, pinned, counter(st, "host_bounced"), bounced,
              counter(st, "expert_fetched"));
        QVERIFY(pinned <= double(o.pin_budget));
        if (share >= 1) {
            QVERIFY2(pinned >= store, "a budget above the store must pin all of it");
            QCOMPARE(bounced, 0.0);
        } else {
            QVERIFY(pinned < store);
            if (share == 0) QCOMPARE(pinned, 0.0);
            if (fetches) QVERIFY2(bounced > 0, "no expert went through the bounce ring");
            else QCOMPARE(bounced, 0.0);  // cpu and static never fetch on the decode path
        }
        const auto a = compare(got, want, vocab);
        qInfo("decode steps vs fully pinned: min cosine %.9f, max |Δlogit| %.3g", a.min_cos, a.max_abs);
        QCOMPARE(a.max_abs, 0.0);
        // Prefill (layer streaming from a partly pinned store) and greedy decode.
        ft::LoadOptions po = options(backend.toStdString(), n_slots, 4096, exact);
        ft::Engine pf;
        pf.load_sync(po);
        const auto want_pre = pf.evaluate_logits(prompt);
        const auto want_greedy = greedy(pf, std::vector<std::int32_t>(prompt.begin(), prompt.begin() + 80), 40);
        po.pin_budget = o.pin_budget;
        ft::Engine pc;
        pc.load_sync(po);
        const auto b = compare(pc.evaluate_logits(prompt), want_pre, vocab);
        qInfo("prefill vs fully pinned: min cosine %.9f, max |Δlogit| %.3g", b.min_cos, b.max_abs);
        QCOMPARE(b.max_abs, 0.0);
        QCOMPARE(greedy(pc, std::vector<std::int32_t>(prompt.begin(), prompt.begin() + 80), 40), want_greedy);
        if (!exact) QCOMPARE(want_greedy, ref_greedy);
        if (fetches && share < 1) QVERIFY(counter(pc.stats(), "host_bounce_bytes") > 0);
    }

private slots:
    void warmStartFillsTheCache() {
        // A first load (nothing stored) fills the cache with an even share of every layer's experts; a session with
        // warm start on stores its expert use at unload, and the next load of the model fills the cache with the most
        // used experts — with the same logits. Warm start off: an empty cache, which misses more than either.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        qputenv("FT_DATA_DIR", dir.path().toUtf8());
        auto restore = qScopeGuard([] { qunsetenv("FT_DATA_DIR"); });
        const int n_cache = kShape.experts * 3 / 2;
        struct Pass {
            double misses = 0, warmed = 0, min_cos = 0;
        };
        auto first_pass = [&](bool warm) {
            ft::Engine e;
            ft::LoadOptions lo = options("offload", n_cache, 1);
            lo.warm_start = warm;
            e.load_sync(lo);
            Pass p;
            p.min_cos = compare(e.evaluate_logits(prompt), ref_decode, vocab).min_cos;
            p.warmed = counter(e.stats(), "expert_cache_warmed");
            p.misses = counter(e.stats(), "expert_misses");
            return p;
        };
        const Pass cold = first_pass(true);  // nothing stored yet: the even share
        QVERIFY(cold.warmed > 0 && cold.warmed <= n_cache);
        QVERIFY(QFile::exists(dir.filePath("experts.sqlite")));
        const Pass warm = first_pass(true);
        const Pass off = first_pass(false);
        qInfo("first pass: %.0f misses from an empty cache, %.0f from an even share of %.0f experts, %.0f with the %.0f "
              "most used", off.misses, cold.misses, cold.warmed, warm.misses, warm.warmed);
        QVERIFY(warm.warmed > 0 && warm.warmed <= n_cache);
        // Which of the two warm starts misses less is not a property of the engine: the fixtures' routers use every
        // expert about as often and the cache (a layer and a half) turns over within the pass (Qwen3-MoE fixture on
        // the H200: 1086 misses either way, 1094 from an empty cache; on the Qwen3.5-MoE fixture on an H100 the most
        // used missed more than the even share). Which experts a stored profile picks: test_expert_popularity.
        QCOMPARE(off.warmed, 0.0);
        QVERIFY(cold.misses < off.misses);
        QVERIFY(warm.misses < off.misses);
        for (const Pass& p : {cold, warm, off}) QVERIFY2(p.min_cos >= 0.9999, qPrintable(QString::number(p.min_cos, 'g', 10)));
    }

    void tooSmallCacheIsAClearError() {
        ft::Engine e;
        try {
            e.load_sync(options("offload", kShape.experts / 2, 1));  // fewer slots than one layer's experts
            QFAIL("loaded with fewer slots than one layer's experts");
        } catch (const ft::Error& err) {
            QVERIFY2(QString(err.what()).contains("at least one layer"), err.what());
        }
    }
};

FT_GPU_TEST_MAIN(TestMoeBackends)
#include "test_moe_backends.moc"
