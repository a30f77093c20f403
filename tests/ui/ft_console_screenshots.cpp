// Writes PNGs of the Console with a model running, from the real window (offscreen), dark and light:
//   ft_console_screenshots <out-dir> [model]   → <out-dir>/console-running-<theme>.png
// Loads the model (default: the tiny test model) on the CPU engine, streams a few replies so the charts fill,
// applies one KV rebuild so the KV chart shows the step, then grabs the whole page (a tall window).
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QTest>

#include <cstdio>

#include "app_harness.h"
#include "console_model.h"
#include "engine_host.h"
#include "ft/log.h"
#include "log_hub.h"

namespace {

bool wait_for(const std::function<bool()>& f, int ms) {
    QElapsedTimer t;
    t.start();
    while (!f() && t.elapsed() < ms) QTest::qWait(20);
    return f();
}

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: ft_console_screenshots <out-dir> [model]\n");
        return 2;
    }
    const QString out = QString::fromLocal8Bit(argv[1]);
    const QString model = argc > 2 ? QString::fromLocal8Bit(argv[2]) : QStringLiteral(FT_SOURCE_DIR "/tests/data/qwen3-moe-tiny");
    QDir().mkpath(out);
    ft::LogHub hub;
    ft::attach_log_hub(hub, "freetoken");
    ft::test::UiHarness ui(&hub);
    if (!ui.load()) {
        std::fprintf(stderr, "ft_console_screenshots: Main.qml failed to load\n");
        return 1;
    }
    ui.resize(1280, 2300);
    ft::EngineHost* host = ui.host();
    ft::LoadOptions o;
    o.device = ft::Device::cpu;
    o.n_ctx = 2048;
    o.max_sequences = 2;
    host->setLoadOptions(o);
    host->load(model);
    if (!wait_for([&] { return host->isReady() || host->state() == "error"; }, 120000) || !host->isReady()) {
        std::fprintf(stderr, "ft_console_screenshots: the model did not load: %s\n", qPrintable(host->lastError()));
        return 1;
    }
    ui.showPage("console");
    auto* cm = qobject_cast<ft::ui::ConsoleModel*>(ui.object("consoleModel"));
    cm->setWindowMinutes(1);
    for (int round = 0; round < 4; ++round) {
        ft::GenerationRequest r;
        r.prompt_text = "The console shows the engine at work";
        r.sampling.temperature = 0.7f;
        r.max_tokens = 400;
        r.ignore_eos = true;
        host->generate(std::move(r));
        wait_for([&] { return host->state() == "generating"; }, 5000);
        if (round == 2) {  // one rebuild: the KV chart steps down
            cm->setKvTokens(cm->kvNow() / 2);
            cm->apply();
        }
        wait_for([&] { return host->state() == "ready"; }, 60000);
        QTest::qWait(1500);
    }
    QObject* settings = ui.object("settingsModel");
    int written = 0;
    for (const QString theme : {"dark", "light"}) {
        settings->setProperty("theme", theme);
        ui.settle(500);
        const QString file = QStringLiteral("%1/console-running-%2.png").arg(out, theme);
        if (!ui.grab().save(file)) {
            std::fprintf(stderr, "ft_console_screenshots: cannot write %s\n", qPrintable(file));
            return 1;
        }
        std::printf("%s\n", qPrintable(file));
        ++written;
    }
    ft::log_shutdown();
    std::printf("ft_console_screenshots: %d PNG(s) in %s\n", written, qPrintable(out));
    return 0;
}
