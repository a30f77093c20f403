// Issue 43, defect 5: the Console after a load, in the real window (offscreen, and under Xvfb as
// test_console_load_xvfb) with the real CPU engine on the bundled demo model and the app's default load options
// (automatic context). The Console is opened before the load, as the walkthrough did. Each row is one item of the
// defect: the KV slider's handle where its figure says, the model icon beside the name (not on it), uptime that
// advances while idle, the CPU engine's expert read rate, presets that differ and say what they are for, the KV
// slider saying where one conversation stops, the mapped model counted in RAM, and no previous model's figures
// while the next one loads.
#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include "app_harness.h"
#include "console_model.h"
#include "engine_host.h"
#include "ft/log.h"
#include "log_hub.h"
#include "system_monitor.h"

class TestConsoleLoad : public QObject {
    Q_OBJECT
    QTemporaryDir m_data;
    ft::LogHub m_hub;
    std::unique_ptr<ft::test::UiHarness> m_ui;
    ft::ui::ConsoleModel* m_cm = nullptr;
    QString m_model, m_model2;

    ft::EngineHost* host() { return m_ui->host(); }
    QString text(const QString& name) { return m_ui->item(name) ? m_ui->item(name)->property("text").toString() : QString(); }

    bool waitReady(int ms = 120000) {
        QElapsedTimer t;
        t.start();
        while (!host()->isReady() && t.elapsed() < ms) QTest::qWait(20);
        return host()->isReady();
    }

    // A greedy reply of n tokens to the end.
    bool reply(int n) {
        bool done = false;
        quint64 id = 0;
        auto c = connect(host(), &ft::EngineHost::generationFinished, this,
                         [&](quint64 r, const ft::GenerationSummary&) { done = done || r == id; });
        ft::GenerationRequest r;
        r.prompt_text = "The console shows";
        r.sampling.temperature = 0;
        r.max_tokens = n;
        r.ignore_eos = true;
        id = host()->generate(std::move(r));
        QElapsedTimer t;
        t.start();
        while (!done && t.elapsed() < 120000) QTest::qWait(10);
        disconnect(c);
        return done;
    }

private slots:
    void initTestCase() {
        QVERIFY(m_data.isValid());
        qputenv("FT_DATA_DIR", m_data.path().toUtf8());
        ft::attach_log_hub(m_hub, "freetoken");
        // Two copies of the demo model (a second load replaces the first), in the test's folder.
        const QString demo = QStringLiteral(FT_SOURCE_DIR "/resources/models/freetoken-demo.gguf");
        QVERIFY2(QFileInfo::exists(demo), qPrintable(demo));
        m_model = m_data.filePath("demo-a.gguf");
        m_model2 = m_data.filePath("demo-b.gguf");
        QVERIFY(QFile::copy(demo, m_model));
        QVERIFY(QFile::copy(demo, m_model2));
        m_ui = std::make_unique<ft::test::UiHarness>(&m_hub);
        QVERIFY(m_ui->load());
        m_ui->resize(1280, 2400);
        m_cm = qobject_cast<ft::ui::ConsoleModel*>(m_ui->object("consoleModel"));
        QVERIFY(m_cm);
        // The Console first, then the load (with the app's default options: automatic context).
        QVERIFY(m_ui->showPage("console"));
        m_ui->settle();
        host()->load(m_model);
        QVERIFY(waitReady());
        QTRY_VERIFY(m_cm->cacheConfigAvailable());
        m_ui->settle(300);
    }

    // "The KV slider's thumb sits at 4096 while its label says 16K": the value was set before the range was known.
    void kvHandleWhereTheFigureSays() {
        QQuickItem* control = m_ui->item("kvSliderControl");
        QVERIFY(control);
        QVERIFY(m_cm->kvTokens() > m_cm->kvMin());  // else the clamped and the true position agree
        QCOMPARE(control->property("value").toDouble(), m_cm->kvTokens());
        const double expected = (m_cm->kvTokens() - m_cm->kvMin()) / (m_cm->kvSliderMax() - m_cm->kvMin());
        QVERIFY2(std::abs(control->property("position").toDouble() - expected) < 1e-6,
                 qPrintable(QString::number(control->property("position").toDouble())));
        m_ui->saveScreenshot("console-after-load");
    }

    // The model icon's badge beside the title, not under it.
    void iconBesideTheName() {
        QQuickItem* icon = m_ui->item("consoleModelIcon");
        QQuickItem* name = m_ui->item("consoleModelName");
        QVERIFY(icon && name);
        QCOMPARE(icon->width(), 44.0);
        QCOMPARE(icon->height(), 44.0);
        const double iconRight = icon->mapToScene(QPointF(icon->width(), 0)).x();
        const double nameLeft = name->mapToScene(QPointF(0, 0)).x();
        QVERIFY2(iconRight <= nameLeft, qPrintable(QStringLiteral("%1 > %2").arg(iconRight).arg(nameLeft)));
    }

    // Uptime advances while nothing runs (an idle engine publishes nothing).
    void uptimeAdvancesWhileIdle() {
        QCOMPARE(host()->state(), QStringLiteral("ready"));
        const double u0 = m_cm->uptimeSeconds();
        QTest::qWait(2500);
        QVERIFY2(m_cm->uptimeSeconds() >= u0 + 2, qPrintable(QStringLiteral("%1 → %2").arg(u0).arg(m_cm->uptimeSeconds())));
        QVERIFY(text("consoleStatePill").contains(QStringLiteral("up")));
    }

    // The CPU engine computes every expert: its read rate shows while it decodes, and is 0 once idle.
    void cpuExpertReadRate() {
        double peak = 0;
        auto c = connect(m_cm, &ft::ui::ConsoleModel::statsChanged, this,
                         [&] { peak = std::max(peak, m_cm->latest().value("cpuExpertGbps").toDouble()); });
        QVERIFY(reply(400));
        disconnect(c);
        QVERIFY2(peak > 0, qPrintable(QString::number(peak)));
        QTRY_COMPARE_WITH_TIMEOUT(m_cm->latest().value("cpuExpertGbps").toDouble(), 0.0, 5000);
        QQuickItem* card = m_ui->item("chartCpu");
        QVERIFY(card && card->property("caption").toString().contains(QStringLiteral("CPU engine")));
    }

    // No two presets alike; each says what it is for; no "Max speed" where the caches do not set the speed.
    void presetsDistinctAndDescribed() {
        const QVariantList presets = m_cm->presets();
        QVERIFY(presets.size() >= 2);
        QSet<double> kv;
        for (const QVariant& v : presets) {
            const QVariantMap p = v.toMap();
            const QString key = p.value("key").toString();
            QVERIFY2(!kv.contains(p.value("kvTokens").toDouble()), qPrintable(key));
            kv.insert(p.value("kvTokens").toDouble());
            QQuickItem* tile = m_ui->item("preset_" + key);
            QVERIFY(tile && tile->isVisible());
            QVERIFY2(text("presetDescription_" + key).size() > 10, qPrintable(key));
        }
        QVERIFY(!m_ui->item("preset_speed"));
        QVERIFY(text("presetsTitle").contains(QStringLiteral("KV cache")));
    }

    // The KV slider goes past one conversation's context: the slider marks where a conversation stops, and says why.
    void kvSliderSaysWhereAConversationStops() {
        const int ctx = m_cm->contextLength();
        QVERIFY(ctx > 0);
        QVERIFY(m_cm->kvSliderMax() > ctx);
        QQuickItem* slider = m_ui->item("kvSlider");
        QCOMPARE(slider->property("markValue").toDouble(), double(ctx));
        QVERIFY2(slider->property("markText").toString().contains(QStringLiteral("one conversation")),
                 qPrintable(slider->property("markText").toString()));
        QVERIFY(slider->property("hint").toString().contains(QLocale(QLocale::English).toString(ctx)));
    }

    // The mapped model's pages in RAM are counted as used (the OS calls them cache).
    void ramCountsTheMappedModel() {
        auto* monitor = qobject_cast<ft::ui::SystemMonitor*>(m_ui->object("systemMonitor"));
        QVERIFY(monitor);
        const double size = double(QFileInfo(m_model).size());
        QTRY_VERIFY_WITH_TIMEOUT(monitor->modelMapped() > 0.25 * size, 8000);  // read every 5 s
        QVERIFY2(monitor->modelMapped() > 0.25 * size && monitor->modelMapped() <= 1.01 * size,
                 qPrintable(QStringLiteral("%1 of %2").arg(monitor->modelMapped()).arg(size)));
        QVERIFY(monitor->ramUsed() >= monitor->modelMapped());
        m_ui->settle();
        QVERIFY(m_ui->item("ramCard")->property("caption").toString().contains(QStringLiteral("mapped")));
    }

    // While the next model loads, the card shows none of the previous model's figures; after, it starts from 0.
    void noPreviousFiguresDuringALoad() {
        QVERIFY(m_cm->requestsTotal() >= 1);
        QVERIFY(text("consoleFigure_ttft") != QStringLiteral("—"));
        QStringList during;
        auto c = connect(host(), &ft::EngineHost::stateChanged, this, [&] {
            if (host()->state() == "loading" && during.isEmpty())
                during << text("consoleFigure_requests") << text("consoleFigure_ttft") << text("consoleFigure_tokS");
        });
        host()->load(m_model2);
        QVERIFY(waitReady());
        disconnect(c);
        QCOMPARE(during, (QStringList{"—", "—", "—"}));
        QTRY_COMPARE(text("consoleFigure_requests"), QStringLiteral("0"));
        QCOMPARE(text("consoleFigure_ttft"), QStringLiteral("—"));
    }

    void cleanupTestCase() {
        m_ui.reset();
        ft::log_shutdown();
    }
};

QTEST_MAIN(TestConsoleLoad)
#include "test_console_load.moc"
