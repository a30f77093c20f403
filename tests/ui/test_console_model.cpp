// The Console's view model with the real CPU engine (EngineHost on tests/data/qwen3-moe-tiny): the history fills
// at the host's 8 Hz, the time window selects 1 / 5 / 15 min of it, the cache presets and the slider coupling on
// the CPU plan and on the real planner's plan of a 30B-shaped model at an 8 GiB budget, Apply → the engine's
// verdict (a KV rebuild while a greedy reply streams gives the same tokens as without it; past the budget it is
// refused and nothing changes), the setting remembered per model, an injected fault (a request longer than the
// context) → the banner text and Restart engine → the model serving again. The charts paint from the history and
// show the values under the mouse.
#include <QDir>
#include <QFile>
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

#include "app_settings.h"
#include "console_cache.h"
#include "console_charts.h"
#include "console_model.h"
#include "engine_host.h"
#include "ft/engine.h"
#include "ft_test.h"
#include "memory/planner.h"
#include "model/model_desc.h"
#include "synth/synth_model.h"

using ft::ui::ConsoleModel;

namespace {

const QString kModel = QStringLiteral(FT_SOURCE_DIR "/tests/data/qwen3-moe-tiny");

ft::GenerationRequest greedy(const std::string& prompt, int maxTokens) {
    ft::GenerationRequest r;
    r.prompt_text = prompt;
    r.sampling.temperature = 0;
    r.max_tokens = maxTokens;
    r.ignore_eos = true;
    return r;
}

// The real planner's plan for a Qwen3-30B-A3B-shaped Q4_K model (48 layers × 128 experts, 8 used) at 8 GiB.
ft::MemoryPlan plan_30b_8g() {
    // The graph (block needs, KV geometry) from the synth preset's description; the sizes below as before.
    const std::uint64_t slot = 3ull * 2048 * 768 * 144 / 256;  // gate + up + down in Q4_K (144 bytes per 256 weights)
    ft::memory::ModelGeometry g = ft::memory::geometry_of(
        ft::synth::synth_desc(ft::model::ArchId::qwen3_moe, "qwen3-30b-a3b", {}), 1400ull << 20, slot * 48 * 128);
    g.n_layer = 48;
    g.n_moe_layers = 48;
    g.n_expert = 128;
    g.n_expert_used = 8;
    g.n_embd = 2048;
    g.n_head = 32;
    g.n_head_kv = 4;
    g.head_dim = 128;
    g.v_head_dim = 128;
    g.n_vocab = 151936;
    g.n_ff_exp = 768;
    g.slot_bytes = slot;
    g.expert_pool_bytes = g.slot_bytes * 48 * 128;
    g.non_expert_bytes = 1400ull << 20;
    g.active_expert_bytes = g.slot_bytes * 48 * 8;
    g.active_other_bytes = g.non_expert_bytes;
    ft::memory::PlanRequest r;
    r.device_total = 141ull << 30;
    r.device_free = 140ull << 30;
    r.vram_budget = 8ull << 30;
    r.backend = "hybrid";
    return ft::memory::plan_memory(g, r);
}

}  // namespace

class TestConsoleModel : public QObject {
    Q_OBJECT
    QTemporaryDir m_data;
    std::unique_ptr<ft::EngineHost> m_host;

    bool waitReady(int ms = 60000) {
        QElapsedTimer t;
        t.start();
        while (!m_host->isReady() && t.elapsed() < ms) {
            if (m_host->state() == "error") return false;
            QTest::qWait(20);
        }
        return m_host->isReady();
    }

    // A greedy reply of n tokens; `during` runs once the first tokens arrived. Returns the text.
    QString reply(int n, const std::function<void()>& during = {}) {
        QString text;
        bool done = false, failed = false;
        quint64 id = 0;
        auto c1 = connect(m_host.get(), &ft::EngineHost::token, this, [&](quint64 rid, const QString& t) {
            if (rid == id) text += t;
        });
        auto c2 = connect(m_host.get(), &ft::EngineHost::generationFinished, this,
                          [&](quint64 rid, const ft::GenerationSummary&) { done = done || rid == id; });
        auto c3 = connect(m_host.get(), &ft::EngineHost::generationFailed, this,
                          [&](quint64 rid, const QString&) { failed = failed || rid == id; });
        id = m_host->generate(greedy("The console", n));
        bool ran = false;
        QElapsedTimer t;
        t.start();
        while (!done && !failed && t.elapsed() < 120000) {
            if (!ran && during && text.size() > 8) {
                ran = true;
                during();
            }
            QTest::qWait(5);
        }
        disconnect(c1);
        disconnect(c2);
        disconnect(c3);
        if (!done || failed) return QStringLiteral("<failed>");
        return text;
    }

private slots:
    void initTestCase() {
        QVERIFY(m_data.isValid());
        qputenv("FT_DATA_DIR", m_data.path().toUtf8());
        m_host = std::make_unique<ft::EngineHost>();
        ft::LoadOptions o;
        o.device = ft::Device::cpu;
        o.threads = 2;
        o.n_ctx = 2048;
        o.max_sequences = 2;
        m_host->setLoadOptions(o);
        m_host->load(kModel);
        QVERIFY2(waitReady(), qPrintable(m_host->lastError()));
    }

    void historyFillsFromTheHostAt8Hz() {
        ConsoleModel m;
        QSignalSpy spy(&m, &ConsoleModel::historyChanged);
        m.setHost(m_host.get());
        QCOMPARE(m.host(), m_host.get());
        QTest::qWait(2000);
        // 8 Hz for 2 s: about 16 samples (timer slack allowed, but not a flood and not a trickle).
        QVERIFY2(m.samples() >= 10 && m.samples() <= 20, qPrintable(QString::number(m.samples())));
        QVERIFY(spy.count() >= 10);
        QVERIFY(m.loaded());
        QCOMPARE(m.engineState(), QStringLiteral("ready"));
        QVERIFY(!m.gpu());
        QCOMPARE(m.backend(), QStringLiteral("cpu"));
        QVERIFY(m.modelName().size() > 0);
        QCOMPARE(m.contextLength(), 2048);
        // The CPU engine has no VRAM or expert cache: those series are NaN (the charts say why), KV is real.
        QVERIFY(std::isnan(m.value("vramWeights", 0)));
        QVERIFY(std::isnan(m.value("hitRate", 0)));
        QVERIFY(m.value("kvTotalTokens", m.samples() - 1) >= 2048);
        QVERIFY(std::isnan(m.value("noSuchSeries", 0)));
        // Samples are time-ordered, ~125 ms apart.
        const auto& h = m.history();
        const double span = double(h.newest().t_ms - h.at(0).t_ms) / (h.size() - 1);
        QVERIFY2(span > 90 && span < 250, qPrintable(QString::number(span)));
        // The model card's facts come from the file (the engine's inspector), off the GUI thread.
        QTRY_COMPARE(m.architecture(), QStringLiteral("qwen3_moe"));
        QTRY_COMPARE(m.expertsPerLayer(), 16);
        // While a reply runs: running, decode speed measured, requests counted.
        const double requests = m.requestsTotal();
        bool sawRunning = false;
        const QString text = reply(1200, [&] {
            QTRY_VERIFY(m.engineState() == "running");
            sawRunning = true;
        });
        QVERIFY(text != "<failed>");
        QVERIFY(sawRunning);
        QTRY_VERIFY(m.requestsTotal() >= requests + 1);
        QTRY_VERIFY(m.prefillTokS() > 0);
        bool decodeSeen = false;
        for (int i = 0; i < m.samples(); ++i) decodeSeen = decodeSeen || m.value("decodeTokS", i) > 0;
        QVERIFY(decodeSeen);
        QVERIFY(m.latest().value("kvTotalTokens").toDouble() >= 2048);
    }

    void windowSelectsTheLastMinutes() {
        // Real snapshots of the loaded engine, stamped one second apart over 20 minutes.
        ConsoleModel m;
        const ft::EngineStats st = m_host->latestStats();
        QVERIFY(st.loaded);
        for (int s = 0; s <= 20 * 60; ++s) m.ingest(st, std::int64_t(s) * 1000);
        QCOMPARE(m.samples(), 20 * 60 + 1);
        QSignalSpy spy(&m, &ConsoleModel::windowChanged);
        QCOMPARE(m.windowMinutes(), 5);
        QCOMPARE(m.windowSamples(), 5 * 60 + 1);
        m.setWindowMinutes(1);
        QCOMPARE(m.windowSamples(), 61);
        m.setWindowMinutes(15);
        QCOMPARE(m.windowSamples(), 15 * 60 + 1);
        m.setWindowMinutes(7);  // not offered: refused
        QCOMPARE(m.windowMinutes(), 15);
        QCOMPARE(spy.count(), 2);
        // The ring keeps 15 min at 8 Hz and drops the oldest beyond.
        ConsoleModel full;
        for (int i = 0; i < 15 * 60 * 8 + 100; ++i) full.ingest(st, std::int64_t(i) * 125);
        QCOMPARE(full.samples(), 15 * 60 * 8);
        QCOMPARE(full.history().at(0).t_ms, std::int64_t(100) * 125);
        // Unload: the history goes with the model.
        full.ingest(ft::EngineStats{}, 10'000'000);
        QCOMPARE(full.samples(), 0);
        QVERIFY(!full.loaded());
    }

    void cpuPresetsAndKvOnlySlider() {
        ConsoleModel m;
        m.ingest(m_host->latestStats(), 0);
        QVERIFY(m.cacheConfigAvailable());
        QVERIFY(!m.expertResizable());  // the CPU engine: no expert cache to size
        QVERIFY(m.kvMin() > 0 && m.kvMin() <= m.kvNow() && m.kvNow() <= m.kvMax());
        QVERIFY(m.kvSliderMax() > m.kvMax());
        // No Max speed (the caches do not set the CPU engine's speed), no two alike: Minimum only where it is not
        // one context (Chat).
        const QVariantList presets = m.presets();
        QStringList keys;
        QList<double> kvs;
        for (const QVariant& v : presets) {
            const QVariantMap p = v.toMap();
            keys << p.value("key").toString();
            QVERIFY(!kvs.contains(p.value("kvTokens").toDouble()));
            kvs << p.value("kvTokens").toDouble();
            QVERIFY(p.value("kvTokens").toDouble() >= m.kvMin() && p.value("kvTokens").toDouble() <= m.kvMax());
            QVERIFY(std::fmod(p.value("kvTokens").toDouble(), m.kvPage()) == 0);
        }
        QVERIFY2(keys == (QStringList{"minimum", "chat", "agent"}) || keys == (QStringList{"chat", "agent"}),
                 qPrintable(keys.join(',')));
        QCOMPARE(presets[0].toMap().value("kvTokens").toDouble(), m.kvMin());
        QCOMPARE(presets.last().toMap().value("kvTokens").toDouble(), m.kvMax());
        const QString least = keys.first();
        QVERIFY(m.applyPreset(least));
        QCOMPARE(m.kvTokens(), m.kvMin());
        QCOMPARE(m.presetKey(), least);
        QVERIFY(m.settingDirty() || m.kvMin() == m.kvNow());
        QVERIFY(!m.applyPreset("nonsense"));
        const int n_slots = m.expertSlots();
        m.setExpertSlots(n_slots + 10);  // disabled: nothing moves
        QCOMPARE(m.expertSlots(), n_slots);
        m.setKvTokens(m.kvMin() + 1);  // rounded up to whole pages
        QCOMPARE(std::fmod(m.kvTokens(), m.kvPage()), 0.0);
        m.setKvTokens(1e12);  // clamped to the slider's end (past the budget: it no longer fits)
        QCOMPARE(m.kvTokens(), m.kvSliderMax());
        QVERIFY(!m.settingFits());
        m.revert();
        QCOMPARE(m.kvTokens(), m.kvNow());
        QVERIFY(!m.settingDirty());
        QVERIFY(!m.apply());  // no host: nothing to send
    }

    void gpuPlanPresetsAndCoupling() {
        // The real planner's plan (what a GPU engine reports in stats.plan) through the Console's arithmetic.
        ft::EngineStats st;
        st.loaded = true;
        st.plan = plan_30b_8g();
        const ft::MemoryPlan& p = st.plan;
        QVERIFY(p.gpu);
        QVERIFY2(p.max_expert_slots > p.min_expert_slots, qPrintable(QString::number(p.max_expert_slots)));
        QVERIFY(p.max_kv_tokens > p.min_kv_tokens);
        const ft::ui::CacheGeometry g = ft::ui::cache_geometry(st, 128);
        QVERIFY(g.valid && g.expert_resizable);
        QCOMPARE(g.overlap_slots, 256);
        QVERIFY(g.cache_budget >= p.experts + p.kv);
        QVERIFY(g.cache_budget <= p.budget);
        const auto presets = ft::ui::cache_presets(g);
        QVERIFY(presets.size() >= 2 && presets.size() <= 4);
        for (std::size_t i = 0; i < presets.size(); ++i) {
            const auto& pr = presets[i];
            QVERIFY2(ft::ui::cache_fits(g, pr.kv_tokens, pr.n_slots), pr.key.c_str());
            for (std::size_t j = 0; j < i; ++j)  // no two alike
                QVERIFY(presets[j].kv_tokens != pr.kv_tokens || presets[j].n_slots != pr.n_slots);
        }
        // A preset left out repeats another: Minimum where it is Chat, Max speed where it is an earlier one.
        const auto find = [&](const std::string& key) -> ft::ui::CachePreset {
            for (const auto& pr : presets)
                if (pr.key == key) return pr;
            const int speed_slots = ft::ui::slots_for_kv(g, g.kv_min, g.slots_max);
            const ft::ui::CachePreset want = key == "minimum" ? ft::ui::CachePreset{key, g.kv_min, g.slots_min}
                                             : ft::ui::CachePreset{key, ft::ui::kv_for_slots(g, speed_slots, g.kv_min), speed_slots};
            for (const auto& pr : presets)
                if (pr.kv_tokens == want.kv_tokens && pr.n_slots == want.n_slots) return want;
            return {};
        };
        const auto minimum = find("minimum");
        const auto chat = find("chat");
        const auto agent = find("agent");
        const auto speed = find("speed");
        QVERIFY(!minimum.key.empty() && !chat.key.empty() && !agent.key.empty() && !speed.key.empty());
        QCOMPARE(minimum.kv_tokens, g.kv_min);
        QCOMPARE(minimum.n_slots, g.slots_min);
        QCOMPARE(chat.kv_tokens, std::clamp<std::int64_t>(ft::ui::kv_round(g, p.n_ctx), g.kv_min, g.kv_max));
        QVERIFY(agent.kv_tokens >= chat.kv_tokens);
        if (g.slots_max >= g.overlap_slots) QVERIFY(agent.n_slots >= g.overlap_slots);  // keeps prefill overlap
        QVERIFY(speed.n_slots >= chat.n_slots && speed.n_slots >= agent.n_slots);
        QCOMPARE(speed.kv_tokens >= g.kv_min, true);
        // Each preset leaves no room for one more slot: the budget is used.
        for (const auto& pr : {chat, speed})
            QVERIFY(pr.n_slots == g.slots_max || !ft::ui::cache_fits(g, pr.kv_tokens, pr.n_slots + 1));

        // Coupling in the view model: KV up pushes the expert n_slots down, n_slots up pushes KV down, the sum stays
        // inside the budget; the KV slider may go past it (then the setting no longer fits).
        ConsoleModel m;
        m.ingest(st, 0);
        QVERIFY(m.expertResizable());
        m.setKvTokens(speed.kv_tokens);  // the Max speed setting (its tile, or the one it repeats)
        m.setExpertSlots(speed.n_slots);
        QCOMPARE(m.expertSlots(), speed.n_slots);
        const int slotsBefore = m.expertSlots();
        m.setKvTokens(m.kvMax());
        QVERIFY(m.expertSlots() < slotsBefore);
        QVERIFY(m.settingFits());
        QVERIFY(m.settingBytes() <= m.cacheBudget());
        const double kvBefore = m.kvTokens();
        m.setExpertSlots(m.slotsMax());
        QVERIFY(m.kvTokens() < kvBefore);
        QVERIFY(m.settingFits());
        QVERIFY(m.settingBytes() <= m.cacheBudget());
        const int slotsAtMax = m.expertSlots();
        m.setKvTokens(m.kvSliderMax());  // past the plan's KV limit: slots only give way, the setting no longer fits
        QVERIFY(m.expertSlots() <= slotsAtMax);
        QVERIFY(m.settingBytes() <= m.cacheBudget() || m.expertSlots() == m.slotsMin());
        QVERIFY(!m.settingFits());
        // The prediction: more n_slots never predicts slower (from a measured speed and miss mix).
        st.decode_tok_s = 40;
        st.cache.active = true;
        st.cache.fetched_per_token = 60;
        st.cache.cpu_per_token = 60;
        st.cache.bp_gbps = 50;
        st.cache.bc_gbps = 50;
        st.plan.expert_slots = g.slots_min;
        const ft::ui::CacheGeometry g2 = ft::ui::cache_geometry(st, 128);
        const double lo = ft::ui::predict_decode_tok_s(g2, st, g2.slots_min);
        const double hi = ft::ui::predict_decode_tok_s(g2, st, g2.slots_max);
        QVERIFY(std::abs(lo - 40) < 1e-6);
        QVERIFY2(hi > lo, qPrintable(QString("%1 %2").arg(lo).arg(hi)));
        QVERIFY(ft::ui::predict_decode_tok_s(g2, st, g2.slots_total) < 40 / 0.2 + 1e-6);
    }

    void applyWhileStreamingKeepsTheTokens() {
        ConsoleModel m;
        m.setHost(m_host.get());
        QTRY_VERIFY(m.cacheConfigAvailable());
        const QString baseline = reply(600);
        QVERIFY(baseline != "<failed>");
        const double kvBefore = m.kvNow();
        const double target = std::max(m.kvMin(), kvBefore - 4 * m.kvPage());
        QVERIFY(target != kvBefore);
        QSignalSpy verdict(m_host.get(), &ft::EngineHost::rebuildFinished);
        const QString withRebuild = reply(600, [&] {
            m.setKvTokens(target);
            QVERIFY(m.settingDirty());
            QVERIFY(m.apply());
            QVERIFY(m.applying());
            QVERIFY(!m.apply());  // one at a time
        });
        QTRY_VERIFY(!m.applying());
        QCOMPARE(verdict.count(), 1);
        QVERIFY2(verdict[0][0].toBool(), qPrintable(verdict[0][1].toString()));
        QCOMPARE(m.rebuildStatus(), QStringLiteral("accepted"));
        QCOMPARE(m.kvNow(), target);                   // the engine reports the new plan
        QCOMPARE(m.kvTokens(), target);
        QVERIFY(!m.settingDirty());
        QTRY_COMPARE(m.latest().value("kvTotalTokens").toDouble(), target);  // the KV chart moves with it
        QCOMPARE(withRebuild, baseline);               // cache size changes speed, never output
        // Remembered for this model, in the app's settings file.
        const QVariantMap r = m.remembered();
        QCOMPARE(r.value("kvTokens").toDouble(), target);
        QSettings s(ft::AppSettings().filePath(), QSettings::IniFormat);
        QVERIFY(s.allKeys().join(',').contains("consoleCache/"));

        // Past the budget: the engine refuses, the reason is shown, nothing changes.
        m.setKvTokens(m.kvSliderMax());
        QVERIFY(!m.settingFits());
        QVERIFY(m.apply());
        QTRY_VERIFY(!m.applying());
        QCOMPARE(m.rebuildStatus(), QStringLiteral("rejected"));
        QVERIFY(m.rebuildMessage().size() > 10);
        QCOMPARE(m.kvNow(), target);
        QCOMPARE(m.kvTokens(), target);
        QCOMPARE(m.remembered().value("kvTokens").toDouble(), target);
    }

    void rememberedSettingIsRestoredOnLoad() {
        ConsoleModel m;
        m.setHost(m_host.get());
        QTRY_VERIFY(m.cacheConfigAvailable());
        const double remembered = m.remembered().value("kvTokens").toDouble();
        QVERIFY(remembered > 0);
        m_host->unload();
        QTRY_VERIFY(!m.loaded());
        m_host->load(kModel);
        QVERIFY(waitReady());
        // The fresh load plans its default KV; the Console sends the remembered size back.
        QTRY_VERIFY_WITH_TIMEOUT(m.rebuildStatus() == "restored", 10000);
        QCOMPARE(m.kvNow(), remembered);
    }

    void faultBannerAndRestart() {
        ConsoleModel m;
        m.setHost(m_host.get());
        QTRY_VERIFY(m.loaded());
        // Injected fault: a prompt longer than the context (the engine refuses it with an ft::Error).
        ft::GenerationRequest r;
        r.prompt.assign(5000, 100);
        r.max_tokens = 4;
        m_host->generate(std::move(r));
        QTRY_VERIFY(!m.fault().isEmpty());
        QVERIFY(m.fault().contains("context") || m.fault().contains("2048"));
        m.dismissFault();
        QVERIFY(m.fault().isEmpty());
        // An engine-level fault: a truncated model file. Restart engine brings the last model back.
        QFile src(kModel + "/model.safetensors");
        QVERIFY(src.open(QIODevice::ReadOnly));
        const QString broken = m_data.path() + "/broken";
        QVERIFY(QDir().mkpath(broken));
        for (const char* f : {"config.json", "tokenizer.json", "tokenizer_config.json", "generation_config.json"})
            QVERIFY(QFile::copy(kModel + "/" + f, broken + "/" + f));
        QFile dst(broken + "/model.safetensors");
        QVERIFY(dst.open(QIODevice::WriteOnly));
        dst.write(src.read(src.size() / 3));
        dst.close();
        m_host->load(broken);
        QTRY_VERIFY_WITH_TIMEOUT(!m.fault().isEmpty(), 20000);
        QCOMPARE(m.engineState(), QStringLiteral("error"));
        m_host->load(kModel);  // a good load clears the banner
        QTRY_VERIFY(m.fault().isEmpty());
        QVERIFY(waitReady());
        QSignalSpy reloaded(m_host.get(), &ft::EngineHost::loadFinished);
        m.restartEngine();     // and Restart engine reloads the model that was loaded
        QTRY_VERIFY_WITH_TIMEOUT(reloaded.count() >= 1, 60000);
        QVERIFY(reloaded.last().at(0).toBool());
        QVERIFY(waitReady());
        QTRY_VERIFY(m.loaded());
        QVERIFY(reply(8) != "<failed>");
    }

    void chartsPaintAndHover() {
        ConsoleModel m;
        m.setHost(m_host.get());
        QTRY_VERIFY(m.samples() > 4);
        ft::ui::TimeChart chart;
        chart.setModel(&m);
        chart.setSeries({"kvTotalTokens", "kvUsedTokens"});
        chart.setLabels({"Allocated", "In use"});
        chart.setWidth(400);
        chart.setHeight(100);
        QTRY_VERIFY(chart.hasData());
        QImage img(400, 100, QImage::Format_ARGB32_Premultiplied);
        img.fill(Qt::transparent);
        {
            QPainter p(&img);
            chart.paint(&p);
        }
        int painted = 0;
        for (int y = 0; y < 100; ++y)
            for (int x = 0; x < 400; ++x) painted += qAlpha(img.pixel(x, y)) > 0;
        QVERIFY(painted > 400);
        ft::ui::TimeChart vram;
        vram.setModel(&m);
        vram.setSeries({"vramWeights", "vramKv"});
        QVERIFY(!vram.hasData());  // the CPU engine: nothing to draw, the card says why
        ft::ui::HeatmapChart heat;
        heat.setModel(&m);
        QVERIFY(!heat.hasData());
        QCOMPARE(heat.layers(), 0);
    }
};

QTEST_MAIN(TestConsoleModel)
#include "test_console_model.moc"
