// Writes PNGs of the Models page with a download in progress and of the Chat page with a reply that thinks, from the
// real window, the real app and the real CPU engine, dark and light:
//   ft_app_screenshots <out-dir>   → models-download-<theme>.png, chat-thinking-<theme>.png
// Everything on screen comes from real local data through the app's own paths:
//   * a fresh data folder whose models folder holds the tiny test model (tests/data/qwen3-moe-tiny) as a Hugging
//     Face folder, converted to GGUF by the engine's converter (one file, and split in parts as gguf-split does),
//     and a copy whose chat template opens a think block in the generation prompt (as Qwen3's Thinking-2507
//     templates do); the Models page finds them with its "Scan models folder" button and shows their facts and
//     fit badges from the engine's inspector and predictor;
//   * a Hugging Face download from a local Hub server started here (tests/app/hub_test_server: the Hub API paths
//     and a model file served slowly with Range support), started from the Download dialog;
//   * the thinking model loaded with its row's Load button, a message typed into the composer and sent with
//     Enter, the reply streamed by the engine through the chat path. The tiny model has random weights, so its
//     words are noise; whether it closes its think block before max tokens depends on the sampling seed, so the
//     tool regenerates the reply with seeds 1, 2, … (the chat settings' seed, as a user can) until one reply has
//     both a thought process and an answer, and says which seed it used.
// Renders with whatever platform Qt is given (offscreen or xcb under Xvfb); 1280×800.
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>
#include <functional>

#include "app_harness.h"
#include "chat_session.h"
#include "engine_host.h"
#include "ft/log.h"
#include "hub_test_server.h"
#include "log_hub.h"
#include "message_list_model.h"
#include "model/convert_hf.h"
#include "ref/dtype.h"

namespace {

const QString kTiny = QStringLiteral(FT_SOURCE_DIR "/tests/data/qwen3-moe-tiny");

bool wait_for(const std::function<bool()>& f, int ms) {
    QElapsedTimer t;
    t.start();
    while (!f() && t.elapsed() < ms) QTest::qWait(20);
    return f();
}

int fail(const char* what) {
    std::fprintf(stderr, "ft_app_screenshots: %s\n", what);
    return 1;
}

bool copy_dir(const QString& from, const QString& to) {
    QDir().mkpath(to);
    for (const QString& name : QDir(from).entryList(QDir::Files))
        if (!QFile::copy(from + "/" + name, to + "/" + name)) return false;
    return true;
}

QByteArray read_all(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// The tiny model's chat template with the generation prompt opening a think block, as the Qwen3 Thinking-2507
// templates have it: the reply starts inside the model's reasoning and </think> ends it.
bool make_thinking_copy(const QString& dir) {
    if (!copy_dir(kTiny, dir)) return false;
    QFile f(dir + "/tokenizer_config.json");
    if (!f.open(QIODevice::ReadOnly)) return false;
    QJsonObject cfg = QJsonDocument::fromJson(f.readAll()).object();
    f.close();
    QString tmpl = cfg.value("chat_template").toString();
    const QString from = QStringLiteral("{{- '<|im_start|>assistant\\n' }}\n    {%- if enable_thinking");
    const QString to = QStringLiteral("{{- '<|im_start|>assistant\\n<think>\\n' }}\n    {%- if enable_thinking");
    if (!tmpl.contains(from)) return false;
    tmpl.replace(from, to);
    cfg["chat_template"] = tmpl;
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
    f.write(QJsonDocument(cfg).toJson());
    return true;
}

// The item named `child` in the Models page row whose model name contains `name`.
QQuickItem* in_row(ft::test::UiHarness& ui, const QString& name, const QString& child) {
    for (QQuickItem* n : ui.items("modelName")) {
        if (!n->property("text").toString().contains(name)) continue;
        for (QQuickItem* row = n->parentItem(); row; row = row->parentItem()) {
            QList<QQuickItem*> stack{row};
            while (!stack.isEmpty()) {
                QQuickItem* i = stack.takeLast();
                if (i->objectName() == child) return i;
                stack.append(i->childItems());
            }
        }
    }
    return nullptr;
}

bool click_item(ft::test::UiHarness& ui, QQuickItem* target) {
    if (!target || !target->isVisible() || !target->isEnabled()) return false;
    QTest::mouseClick(ui.window(), Qt::LeftButton, Qt::NoModifier,
                      target->mapToScene(QPointF(target->width() / 2, target->height() / 2)).toPoint());
    ui.settle(50);
    return true;
}

bool grab_both(ft::test::UiHarness& ui, const QString& out, const QString& stem, int& written) {
    QObject* settings = ui.object("settingsModel");
    for (const QString theme : {"dark", "light"}) {
        settings->setProperty("theme", theme);
        ui.settle(600);
        const QString file = QStringLiteral("%1/%2-%3.png").arg(out, stem, theme);
        if (!ui.grab().save(file)) return false;
        std::printf("%s\n", qPrintable(file));
        ++written;
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: ft_app_screenshots <out-dir>\n");
        return 2;
    }
    const QString out = QDir(QString::fromLocal8Bit(argv[1])).absolutePath();
    QDir().mkpath(out);
    QTemporaryDir data;
    if (!data.isValid()) return fail("cannot make a temporary data folder");
    qputenv("FT_DATA_DIR", data.path().toUtf8());
    const QString models = data.path() + "/models";

    // The models folder: the tiny model as a Hugging Face folder, as GGUF (one file, and split in three parts).
    if (!copy_dir(kTiny, models + "/Qwen3-MoE-tiny")) return fail("cannot copy the tiny model");
    if (!make_thinking_copy(models + "/Qwen3-MoE-tiny-Thinking")) return fail("cannot write the thinking copy");
    QByteArray ggufBytes;
    try {
        ft::model::ConvertOptions opt;
        opt.type = ft::kernels::DType::Q8_0;
        opt.out = (models + "/qwen3-moe-tiny-Q8_0.gguf").toStdString();
        ft::model::convert_hf_to_gguf(kTiny.toStdString(), opt);
        opt.type = ft::kernels::DType::BF16;
        opt.out = (models + "/split/qwen3-moe-tiny-BF16.gguf").toStdString();
        QDir().mkpath(models + "/split");
        opt.split_max_tensors = 20;
        ft::model::convert_hf_to_gguf(kTiny.toStdString(), opt);
    } catch (const std::exception& e) {
        return fail(e.what());
    }
    ggufBytes = read_all(models + "/qwen3-moe-tiny-Q8_0.gguf");

    // A local Hub: a GGUF repository whose model file comes slowly (64 KiB every 120 ms), with Range support.
    ft::test::HubTestServer hub;
    if (!hub.isListening()) return fail("the local Hub server did not start");
    qputenv("FT_HF_ENDPOINT", hub.url().toUtf8());
    ft::test::HubTestServer::Repo repo;
    repo.files["qwen3-moe-tiny-Q8_0.gguf"].data = ggufBytes;
    repo.files["qwen3-moe-tiny-Q8_0.gguf"].chunkDelayMs = 120;
    repo.files["README.md"].data = "# Qwen3-MoE tiny (GGUF)\n";
    repo.files["README.md"].lfs = false;
    hub.repos["FreeToken/Qwen3-MoE-tiny-GGUF"] = repo;

    ft::LogHub logs;
    ft::attach_log_hub(logs, "freetoken");
    ft::test::UiHarness ui(&logs);
    ft::LoadOptions o;
    o.device = ft::Device::cpu;
    o.n_ctx = 2048;
    o.max_sequences = 2;
    ui.host()->setLoadOptions(o);
    if (!ui.load()) return fail("Main.qml failed to load");
    ui.resize(1280, 800);
    int written = 0;

    // ---- Models: scan, then a download from the local Hub ----
    if (!ui.showPage("models")) return fail("no Models page");
    if (!ui.click("scanModelsButton")) return fail("no Scan models folder button");
    if (!wait_for([&] { return ui.items("fitBadge").size() >= 4; }, 60000)) return fail("the scan found fewer than 4 models");
    ui.settle(500);
    if (!ui.click("downloadModelButton")) return fail("no Download button");
    QObject* dialog = ui.object("downloadDialog");
    if (!wait_for([&] { return dialog && dialog->property("opened").toBool(); }, 5000)) return fail("the Download dialog did not open");
    QQuickItem* field = ui.item("hubRepoField");
    field->forceActiveFocus();
    for (const QChar c : QStringLiteral("FreeToken/Qwen3-MoE-tiny-GGUF")) QTest::keyClick(ui.window(), c.toLatin1());
    if (!ui.click("hubListButton")) return fail("no List button");
    if (!wait_for([&] { return ui.item("hubDownload_0") && ui.item("hubDownload_0")->isVisible(); }, 20000))
        return fail("the repository's files were not listed");
    ui.settle(300);
    if (!ui.click("hubDownload_0")) return fail("no Download button on the listed file");
    if (!wait_for([&] { return !dialog->property("visible").toBool(); }, 5000)) return fail("the Download dialog stayed open");
    QQuickItem* progress = nullptr;
    if (!wait_for([&] {
            progress = ui.item("downloadProgress");
            return progress && progress->isVisible() && progress->property("value").toDouble() >= 0.3;
        }, 60000))
        return fail("the download did not get going");
    if (!grab_both(ui, out, "models-download", written)) return fail("cannot write the Models PNGs");
    if (!ui.click("cancelDownloadButton")) return fail("no Cancel button on the download");

    // ---- Chat: load the thinking model with its Load button, send a message, a reply that thinks ----
    QQuickItem* load = in_row(ui, QStringLiteral("Thinking"), QStringLiteral("loadModelButton"));
    if (!click_item(ui, load)) return fail("no Load button on the thinking model's row");
    if (!wait_for([&] { return ui.host()->isReady() || ui.host()->state() == "error"; }, 120000) || !ui.host()->isReady())
        return fail("the model did not load");
    if (!ui.showPage("chat")) return fail("no Chat page");
    auto* session = qobject_cast<ft::ui::ChatSession*>(ui.object("chatSession"));
    if (!session) return fail("no chat session");
    // Sampling for the first reply: the chat settings dialog, as a user sets them.
    auto settings = [&](qint64 seed) {
        if (!ui.click("chatSettingsButton")) return false;
        QObject* d = ui.object("chatSettingsDialog");
        if (!wait_for([&] { return d && d->property("opened").toBool(); }, 5000)) return false;
        ui.item("temperatureField")->setProperty("text", "0.9");
        ui.item("maxTokensField")->setProperty("text", "320");
        ui.item("seedField")->setProperty("text", QString::number(seed));
        if (!ui.click("saveChatSettingsButton")) return false;
        return wait_for([&] { return !d->property("opened").toBool(); }, 5000);
    };
    if (!settings(1)) return fail("the chat settings dialog did not work");
    QQuickItem* input = ui.item("chatInput");
    if (!input || !input->isEnabled()) return fail("the composer is disabled");
    input->forceActiveFocus();
    for (const QChar c : QStringLiteral("Why is the sky blue? Think it through first."))
        QTest::keyClick(ui.window(), c.toLatin1());
    QTest::keyClick(ui.window(), Qt::Key_Return);
    auto reply_done = [&] { return wait_for([&] { return !session->busy(); }, 120000); };
    auto good = [&] {
        const auto& msgs = session->messages()->messages();
        if (msgs.isEmpty()) return false;
        const auto& m = msgs.last();
        return m.role == "assistant" && m.reasoning.trimmed().size() >= 60 && m.content.trimmed().size() >= 60;
    };
    if (!wait_for([&] { return session->busy(); }, 5000) && session->messages()->messages().size() < 2)
        return fail("the message was not sent");
    if (!reply_done()) return fail("the reply did not finish");
    qint64 seed = 1;
    while (!good() && seed < 80) {
        ++seed;
        if (!settings(seed)) return fail("the chat settings dialog did not work");
        if (!session->regenerate()) return fail("regenerate refused");
        if (!reply_done()) return fail("the reply did not finish");
    }
    if (!good()) return fail("no seed up to 80 gave a reply that closes its think block");
    std::printf("ft_app_screenshots: the reply with seed %lld thinks and answers\n", static_cast<long long>(seed));
    ui.settle(800);
    if (!grab_both(ui, out, "chat-thinking", written)) return fail("cannot write the Chat PNGs");

    ft::log_shutdown();
    std::printf("ft_app_screenshots: %d PNG(s) in %s\n", written, qPrintable(out));
    return 0;
}
