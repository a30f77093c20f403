// The Console in the real window (offscreen, and under Xvfb as test_console_ui_xvfb), driven by clicks, drags and hovers with the real CPU engine on the
// tiny model: the model card, the charts filling (GPU-only ones saying why they are empty), hover values, the time
// window, a preset, the KV slider dragged and applied while a long greedy reply streams (the engine reports the new
// plan; the reply completes with the same text as without the rebuild), the slider pushed past the budget (the
// refusal shown, nothing changed), an injected fault with Restart engine, Chat and Stop. Also measures what the
// Console costs (view model + chart painting, and the whole process) with a full 15 min history at 8 Hz.
#include <QApplication>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

#include <sys/resource.h>

#include <cmath>
#include <cstdio>

#include "app_harness.h"
#include "console_model.h"
#include "engine_host.h"
#include "ft/log.h"
#include "log_hub.h"

namespace {

const QString kModel = QStringLiteral(FT_SOURCE_DIR "/tests/data/qwen3-moe-tiny");

double process_cpu_seconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

ft::GenerationRequest greedy(int maxTokens) {
    ft::GenerationRequest r;
    r.prompt_text = "The console shows";
    r.sampling.temperature = 0;
    r.max_tokens = maxTokens;
    r.ignore_eos = true;
    return r;
}

}  // namespace

class TestConsoleUi : public QObject {
    Q_OBJECT
    QTemporaryDir m_data;
    ft::LogHub m_hub;
    std::unique_ptr<ft::test::UiHarness> m_ui;
    ft::ui::ConsoleModel* m_cm = nullptr;

    ft::EngineHost* host() { return m_ui->host(); }

    bool waitReady(int ms = 60000) {
        QElapsedTimer t;
        t.start();
        while (!host()->isReady() && t.elapsed() < ms) QTest::qWait(20);
        return host()->isReady();
    }

    QPoint center(QQuickItem* i) const {
        return i->mapToScene(QPointF(i->width() / 2, i->height() / 2)).toPoint();
    }

    // Drags the slider's handle to `fraction` (0..1) of its track, as a user does.
    bool drag(const QString& slider, double fraction) {
        QQuickItem* s = m_ui->item(slider);
        if (!s || !s->isVisible() || !s->isEnabled()) return false;
        auto* handle = s->property("handle").value<QQuickItem*>();
        if (!handle) return false;
        const QPoint from = center(handle);
        const double left = s->property("leftPadding").toDouble();
        const double avail = s->property("availableWidth").toDouble();
        const QPoint to = s->mapToScene(QPointF(left + fraction * avail, s->height() / 2)).toPoint();
        QTest::mousePress(m_ui->window(), Qt::LeftButton, Qt::NoModifier, from);
        for (int k = 1; k <= 10; ++k) {
            QTest::mouseMove(m_ui->window(), from + (to - from) * k / 10);
            QTest::qWait(10);
        }
        QTest::mouseRelease(m_ui->window(), Qt::LeftButton, Qt::NoModifier, to);
        m_ui->settle(50);
        return true;
    }

    QString text(const QString& name) { return m_ui->item(name) ? m_ui->item(name)->property("text").toString() : QString(); }

    // Runs a greedy reply to the end; `during` is called once after the first tokens.
    QString reply(int n, const std::function<void()>& during = {}) {
        QString out;
        bool done = false, failed = false;
        quint64 id = 0;
        auto c1 = connect(host(), &ft::EngineHost::token, this, [&](quint64 r, const QString& t) { if (r == id) out += t; });
        auto c2 = connect(host(), &ft::EngineHost::generationFinished, this,
                          [&](quint64 r, const ft::GenerationSummary&) { done = done || r == id; });
        auto c3 = connect(host(), &ft::EngineHost::generationFailed, this,
                          [&](quint64 r, const QString&) { failed = failed || r == id; });
        id = host()->generate(greedy(n));
        bool ran = false;
        QElapsedTimer t;
        t.start();
        while (!done && !failed && t.elapsed() < 180000) {
            if (!ran && during && out.size() > 8) {
                ran = true;
                during();
            }
            QTest::qWait(5);
        }
        disconnect(c1);
        disconnect(c2);
        disconnect(c3);
        return done && !failed ? out : QStringLiteral("<failed>");
    }

private slots:
    void initTestCase() {
        QVERIFY(m_data.isValid());
        qputenv("FT_DATA_DIR", m_data.path().toUtf8());
        ft::attach_log_hub(m_hub, "freetoken");
        m_ui = std::make_unique<ft::test::UiHarness>(&m_hub);
        QVERIFY(m_ui->load());
        m_ui->resize(1400, 3000);  // tall enough that the whole Console is on screen for the mouse
        m_cm = qobject_cast<ft::ui::ConsoleModel*>(m_ui->object("consoleModel"));
        QVERIFY(m_cm);
        ft::LoadOptions o;
        o.device = ft::Device::cpu;
        o.threads = 2;
        o.n_ctx = 2048;
        o.max_sequences = 2;
        host()->setLoadOptions(o);
    }

    void emptyWithoutAModel() {
        QVERIFY(m_ui->showPage("console"));
        QCOMPARE(text("consoleModelName"), QStringLiteral("No model loaded"));
        QVERIFY(!m_ui->item("consoleCharts")->isVisible());
        QVERIFY(!m_ui->item("cacheConfigCard")->isVisible());
        QVERIFY(!m_ui->item("faultBanner")->isVisible());
    }

    void modelCardAndChartsFill() {
        host()->load(kModel);
        QVERIFY(waitReady());
        QTRY_VERIFY(m_cm->samples() > 8);
        m_ui->settle();
        QVERIFY(text("consoleModelName").size() > 0);
        QVERIFY(text("consoleModelName") != "No model loaded");
        QTRY_VERIFY(text("consoleModelFacts").contains("qwen3_moe"));
        QVERIFY(text("consoleModelFacts").contains("ctx 2,048") || text("consoleModelFacts").contains("ctx 2048"));
        QVERIFY(m_ui->item("consoleCharts")->isVisible());
        QVERIFY(m_ui->item("cacheConfigCard")->isVisible());
        // GPU-only charts say why they are empty; the KV chart draws.
        QQuickItem* vramCard = m_ui->item("chartVram");
        bool saysNoGpu = false;
        for (QQuickItem* t : m_ui->items("chartEmptyText"))
            for (QQuickItem* a = t; a; a = a->parentItem())
                if (a == vramCard && t->isVisible() && t->property("text").toString().contains("No GPU")) saysNoGpu = true;
        QVERIFY(saysNoGpu);
        QVERIFY(!m_ui->item("vramChart")->isVisible());
        QTRY_VERIFY(m_ui->item("kvChart")->property("hasData").toBool());
        QVERIFY(m_ui->item("kvChart")->isVisible());
        // The expert slider is disabled with the reason; KV is live.
        QVERIFY(!m_ui->item("expertSliderControl")->isEnabled());
        QVERIFY(m_ui->item("expertSlider")->property("hint").toString().contains("CPU engine"));
        QVERIFY(m_ui->item("kvSliderControl")->isEnabled());
    }

    void hoverShowsValues() {
        QQuickItem* chart = m_ui->item("kvChart");
        QVERIFY(chart && chart->isVisible());
        const QPoint p = chart->mapToScene(QPointF(chart->width() * 0.98, chart->height() / 2)).toPoint();
        QTest::mouseMove(m_ui->window(), p - QPoint(20, 0));
        QTest::mouseMove(m_ui->window(), p);
        m_ui->settle(50);
        QTRY_VERIFY(!chart->property("hoverText").toString().isEmpty());
        const QString hover = chart->property("hoverText").toString();
        QVERIFY2(hover.contains("Allocated") && hover.contains("s ago"), qPrintable(hover));
        bool tipShown = false;
        for (QQuickItem* tip : m_ui->items("chartTip")) tipShown = tipShown || tip->isVisible();
        QVERIFY(tipShown);
        QTest::mouseMove(m_ui->window(), QPoint(5, 5));  // leave: the tip goes
        m_ui->settle(50);
        QTRY_VERIFY(chart->property("hoverText").toString().isEmpty());
    }

    void windowSwitching() {
        QVERIFY(m_ui->click("consoleWindow_1"));
        QCOMPARE(m_cm->windowMinutes(), 1);
        QVERIFY(m_ui->click("consoleWindow_15"));
        QCOMPARE(m_cm->windowMinutes(), 15);
        QVERIFY(m_ui->click("consoleWindow_5"));
        QCOMPARE(m_cm->windowMinutes(), 5);
    }

    void dragApplyWhileStreamingThenPastTheBudget() {
        const QString baseline = reply(1500);
        QVERIFY(baseline != "<failed>");
        const double kvBefore = m_cm->kvNow();
        double applied = -1;
        QString verdict;
        const QString withRebuild = reply(1500, [&] {
            // Drag the KV handle near the start of its track (below the plan's size) while the reply streams.
            QVERIFY(drag("kvSliderControl", 0.05));
            QVERIFY(m_cm->settingDirty());
            QVERIFY(m_cm->kvTokens() < kvBefore);
            applied = m_cm->kvTokens();
            QVERIFY(text("cacheSyncText").contains("Not applied"));
            QVERIFY(m_ui->click("cacheApplyButton"));
            QTRY_VERIFY_WITH_TIMEOUT(!m_cm->applying(), 20000);
            verdict = text("rebuildVerdictText");
        });
        QVERIFY2(m_cm->rebuildStatus() == "accepted", qPrintable(m_cm->rebuildMessage()));
        QVERIFY2(verdict.startsWith("Applied"), qPrintable(verdict));
        QCOMPARE(m_cm->kvNow(), applied);  // the engine reports the new plan
        QTRY_COMPARE(m_cm->latest().value("kvTotalTokens").toDouble(), applied);  // the chart moves with it
        QCOMPARE(withRebuild, baseline);   // and the reply is the same

        // Past the budget: the over-budget stretch, the hint, Apply → the engine's refusal; nothing changes.
        QVERIFY(drag("kvSliderControl", 1.0));
        QCOMPARE(m_cm->kvTokens(), m_cm->kvSliderMax());
        QVERIFY(m_ui->item("kvSliderOverBudget")->isVisible());
        QVERIFY(m_ui->item("kvSlider")->property("hint").toString().contains("Past the budget"));
        QVERIFY(m_ui->click("cacheApplyButton"));
        QTRY_VERIFY(!m_cm->applying());
        QCOMPARE(m_cm->rebuildStatus(), QStringLiteral("rejected"));
        QTRY_VERIFY(text("rebuildVerdictText").startsWith("Rejected"));
        QVERIFY(m_ui->item("rebuildVerdict")->isVisible());
        QCOMPARE(m_cm->kvNow(), applied);
    }

    void presetClick() {
        const QString least = m_cm->presets().value(0).toMap().value("key").toString();  // the smallest KV
        QVERIFY(m_ui->click("preset_" + least));
        QCOMPARE(m_cm->presetKey(), least);
        QCOMPARE(m_cm->kvTokens(), m_cm->kvMin());
        QVERIFY(m_ui->click("cacheRevertButton"));
        QVERIFY(!m_cm->settingDirty());
    }

    void consoleCost() {
        // Worst case: a full 15 min history (real snapshots of this engine, stamped 125 ms apart back in time),
        // the 15 min window shown, the host feeding 8 Hz. Measured: the model's ingest + the charts' paint time,
        // and the whole process's CPU time (scene graph, layout, the idle engine) over the same wall time.
        const ft::EngineStats st = host()->latestStats();
        const std::int64_t now = m_cm->clockMs();
        for (int i = 15 * 60 * 8; i > 0; --i) m_cm->ingest(st, now - std::int64_t(i) * 125);
        QVERIFY(m_ui->click("consoleWindow_15"));
        m_ui->settle(500);
        ft::ui::ConsoleModel::resetCost();
        const double cpu0 = process_cpu_seconds();
        QElapsedTimer wall;
        wall.start();
        QTest::qWait(5000);
        const double seconds = double(wall.nsecsElapsed()) / 1e9;
        const double viewShare = double(ft::ui::ConsoleModel::costNs()) / 1e9 / seconds;
        const double processShare = (process_cpu_seconds() - cpu0) / seconds;
        std::printf("console cost: view model + charts %.2f %% of one core, whole process %.2f %% (15 min window, "
                    "%d samples, offscreen software rendering)\n", 100 * viewShare, 100 * processShare, m_cm->samples());
        QVERIFY2(viewShare < 0.05, qPrintable(QString::number(100 * viewShare)));
        QVERIFY(ft::ui::ConsoleModel::costNs() > 0);  // it did paint
        QVERIFY(m_ui->click("consoleWindow_5"));
    }

    void faultBannerAndRestart() {
        ft::GenerationRequest r;  // injected fault: a prompt longer than the context
        r.prompt.assign(5000, 100);
        r.max_tokens = 4;
        host()->generate(std::move(r));
        QTRY_VERIFY(m_ui->item("faultBanner")->isVisible());
        QVERIFY(text("faultMessage").size() > 10);
        QVERIFY(m_ui->click("faultRestartButton"));
        QTRY_VERIFY(!m_ui->item("faultBanner")->isVisible());
        QVERIFY(waitReady());
        QTRY_VERIFY(m_cm->loaded());
        QVERIFY(m_ui->click("faultDismissButton") == false);  // gone with the banner
    }

    void chatAndStop() {
        QVERIFY(m_ui->click("consoleChatButton"));
        QCOMPARE(m_ui->root()->property("currentPage").toString(), QStringLiteral("chat"));
        QVERIFY(m_ui->showPage("console"));
        QVERIFY(m_ui->click("consoleStopButton"));
        QTRY_COMPARE(host()->state(), QStringLiteral("idle"));
        QTRY_COMPARE(text("consoleModelName"), QStringLiteral("No model loaded"));
        QTRY_VERIFY(!m_ui->item("consoleCharts")->isVisible());
    }
};

QTEST_MAIN(TestConsoleUi)
#include "test_console_ui.moc"
