// Issue 43, defect 8: the engine's messages the window shows are in the app's language. The engine gives them as a
// key and arguments (ft::Message: ft::Error::key(), RebuildResult::reason_key, gpu_unavailable_message(),
// ModelInfo::device_key) and the app translates them (app/core/engine_text.h). In the real window (offscreen, and
// under Xvfb as test_engine_messages_xvfb) with the real CPU engine: a damaged model file on the Models page (and its
// load error), the engine refusing a KV size, why there is no GPU, and the device the model runs on — in Korean and
// Simplified Chinese, and back in English; then the reasons themselves (not only their frame) in both languages: a
// download cut short, a missing file, an architecture this version does not run, a server address nothing listens
// on, the VRAM too small for a model.
#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include "app_harness.h"
#include "console_model.h"
#include "engine_host.h"
#include "engine_text.h"
#include "ft/gpu.h"
#include "ft/log.h"
#include "ft/plan.h"
#include "log_hub.h"
#include "remote_server_list_model.h"
#include "system_monitor.h"

namespace {

const QString kDemo = QStringLiteral(FT_SOURCE_DIR "/resources/models/freetoken-demo.gguf");

bool has_hangul(const QString& s) {
    for (const QChar c : s)
        if (c.unicode() >= 0xAC00 && c.unicode() <= 0xD7A3) return true;
    return false;
}
bool has_han(const QString& s) {
    for (const QChar c : s)
        if (c.unicode() >= 0x4E00 && c.unicode() <= 0x9FFF) return true;
    return false;
}

}  // namespace

class TestEngineMessages : public QObject {
    Q_OBJECT
    QTemporaryDir m_data;
    ft::LogHub m_hub;
    std::unique_ptr<ft::test::UiHarness> m_ui;
    QString m_model, m_damaged;

    ft::EngineHost* host() { return m_ui->host(); }
    void setLanguage(const QString& l) {
        m_ui->object("settingsModel")->setProperty("language", l);
        m_ui->settle(200);
    }
    bool addServerOpen() { return m_ui->object("addServerDialog")->property("opened").toBool(); }
    // The Add a server dialog filled with `url` and Add server pressed: the error it shows ("" once it closed).
    QString addServer(const QString& url) {
        if (!addServerOpen()) {
            m_ui->showPage("models");
            if (!m_ui->click("addServerButton")) return "no Add a server button";
            if (!QTest::qWaitFor([&] { return addServerOpen(); }, 5000)) return "the dialog did not open";
        }
        m_ui->item("serverUrlField")->setProperty("text", url);
        m_ui->item("serverKeyField")->setProperty("text", QString());
        m_ui->settle(50);
        if (!m_ui->click("addServerConfirm")) return "Add server could not be clicked";
        auto* servers = qobject_cast<ft::ui::RemoteServerListModel*>(m_ui->object("serverModel"));
        if (!servers || !QTest::qWaitFor([&] { return !servers->adding(); }, 15000)) return "the check did not end";
        m_ui->settle(50);
        return addServerOpen() ? m_ui->item("addServerError")->property("text").toString() : QString();
    }
    void closeAddServer() {
        if (addServerOpen()) QMetaObject::invokeMethod(m_ui->object("addServerDialog"), "close");
        m_ui->settle(50);
    }
    // The Models page's problem line of the row of `path`.
    QString problemOf(const QString& path) {
        for (QQuickItem* t : m_ui->items("modelProblem"))
            for (QQuickItem* a = t; a; a = a->parentItem())
                if (a->property("readError").isValid() && a->property("path").toString() == path)
                    return t->property("text").toString();
        return {};
    }

    // Messages by their keys and arguments: each in Korean and Chinese with its arguments, and in English without a
    // key's name (gpu_unusable: its first argument is a nested reason's key, shown in the same language).
    void checkKeyed(const QList<ft::Message>& errors) {
        for (const QString& lang : {QStringLiteral("ko"), QStringLiteral("zh_CN"), QStringLiteral("en")}) {
            setLanguage(lang);
            for (const ft::Message& m : errors) {
                const QString t = ft::EngineText::text(m, QStringLiteral("English fallback"));
                const QString all = QString::fromStdString(m.key) + " " + t;
                QVERIFY2(t != QStringLiteral("English fallback") && !t.contains(QString::fromStdString(m.key)), qPrintable(lang + ": " + all));
                QVERIFY2(lang == "en" ? !has_hangul(t) && !has_han(t) : lang == "ko" ? has_hangul(t) : has_han(t), qPrintable(lang + ": " + all));
                for (std::size_t i = m.key == "gpu_unusable" ? 1 : 0; i < m.args.size(); ++i)
                    QVERIFY2(t.contains(QString::fromStdString(m.args[i])), qPrintable(lang + ": " + all));
                if (m.key == "gpu_unusable")  // the nested reason in the same language, not its key
                    QVERIFY2(!t.contains(QString::fromStdString(m.args[0])), qPrintable(lang + ": " + all));
            }
        }
    }

private slots:
    void initTestCase() {
        QVERIFY(m_data.isValid());
        qputenv("FT_DATA_DIR", m_data.path().toUtf8());
        ft::attach_log_hub(m_hub, "freetoken");
        m_model = m_data.filePath("demo.gguf");
        QVERIFY(QFile::copy(kDemo, m_model));
        // A download cut short: the first MiB of the demo model.
        m_damaged = m_data.filePath("cut-short.gguf");
        QFile in(kDemo), out(m_damaged);
        QVERIFY(in.open(QIODevice::ReadOnly) && out.open(QIODevice::WriteOnly));
        out.write(in.read(1 << 20));
        out.close();
        m_ui = std::make_unique<ft::test::UiHarness>(&m_hub);
        QVERIFY(m_ui->load());
        m_ui->resize(1280, 900);
    }

    // A damaged file on the Models page, then its load error, in each language.
    void damagedFile() {
        QVERIFY(m_ui->showPage("models"));
        QObject* library = m_ui->object("libraryModel");
        QVERIFY(QMetaObject::invokeMethod(library, "addPath", Q_ARG(QString, m_damaged), Q_ARG(QString, QStringLiteral("added"))));
        QTRY_VERIFY_WITH_TIMEOUT(problemOf(m_damaged).contains(QStringLiteral("is incomplete")), 20000);  // cut short
        setLanguage("ko");
        QTRY_VERIFY2(has_hangul(problemOf(m_damaged)) && problemOf(m_damaged).contains(QStringLiteral("cut-short.gguf")),
                     qPrintable(problemOf(m_damaged)));
        host()->load(m_damaged);
        QTRY_COMPARE_WITH_TIMEOUT(host()->state(), QStringLiteral("error"), 20000);
        const QString ko = host()->lastError();
        // "Could not load %1: %2" and the engine's reason, both in Korean (the reason's arguments stay as they are).
        QVERIFY2(ko.count(QStringLiteral("cut-short.gguf")) >= 2 && has_hangul(ko.section(QStringLiteral("cut-short.gguf"), -1)),
                 qPrintable(ko));  // the text after the reason's own file name
        setLanguage("zh_CN");
        QTRY_VERIFY2(has_han(problemOf(m_damaged)), qPrintable(problemOf(m_damaged)));
        setLanguage("en");
        QTRY_VERIFY2(problemOf(m_damaged).contains(QStringLiteral("is incomplete: it has 1.0 MiB")), qPrintable(problemOf(m_damaged)));
        host()->clearError();
    }

    // The engine refuses a KV cache smaller than one context: its reason in the app's language.
    void kvRefusal() {
        host()->load(m_model);
        QTRY_VERIFY_WITH_TIMEOUT(host()->isReady(), 60000);
        QStringList reasons;
        auto c = connect(host(), &ft::EngineHost::rebuildFinished, this,
                         [&](bool accepted, const QString& reason) { reasons << (accepted ? QStringLiteral("accepted") : reason); });
        for (const QString& lang : {"zh_CN", "ko", "en"}) {
            setLanguage(lang);
            host()->rebuildCaches(16, -1);  // far below one context
            QTRY_COMPARE_WITH_TIMEOUT(reasons.size(), lang == "zh_CN" ? 1 : lang == "ko" ? 2 : 3, 10000);
        }
        disconnect(c);
        QVERIFY2(has_han(reasons[0]) && reasons[0].contains(QStringLiteral("16")), qPrintable(reasons[0]));
        QVERIFY2(has_hangul(reasons[1]), qPrintable(reasons[1]));
        QVERIFY2(reasons[2].contains(QStringLiteral("less than one")), qPrintable(reasons[2]));
    }

    // The device the model runs on and why there is no GPU, on the Console, in Korean.
    void deviceAndNoGpu() {
        QVERIFY(m_ui->showPage("console"));
        auto* cm = qobject_cast<ft::ui::ConsoleModel*>(m_ui->object("consoleModel"));
        auto* monitor = qobject_cast<ft::ui::SystemMonitor*>(m_ui->object("systemMonitor"));
        QVERIFY(cm && monitor);
        QTRY_VERIFY(cm->loaded());
        QVERIFY2(cm->device().startsWith(QStringLiteral("CPU (")), qPrintable(cm->device()));
        setLanguage("ko");
        QTRY_VERIFY2(has_hangul(cm->device()), qPrintable(cm->device()));  // "CPU (2 스레드)"
        if (!ft::gpu_devices().empty()) {
            setLanguage("en");
            QSKIP("this machine has a GPU: there is no 'no GPU' reason to translate");
        }
        monitor->refresh();
        QVERIFY2(has_hangul(monitor->gpuNote()), qPrintable(monitor->gpuNote()));
        m_ui->settle();
        m_ui->saveScreenshot("console-ko-engine-messages");
        setLanguage("en");
        monitor->refresh();
        QVERIFY2(!has_hangul(monitor->gpuNote()) && !monitor->gpuNote().isEmpty(), qPrintable(monitor->gpuNote()));
    }

    // Figures in the number format of the app's locale: the sidebar's RAM meter (Theme.gib), a model's size on the
    // Models page (Theme.bytes) and a Console chart's values under the mouse (TimeChart, C++) use its decimal sign.
    // Korean and Chinese write "0.5" as English does; test_engine_messages_en_dk runs this with the system locale
    // en_DK (English with a decimal comma), where toFixed() and QString::number() wrote "0.5" (the C locale's).
    void figuresInTheLocalesNumberFormat() {
        setLanguage("en");
        if (!host()->isReady()) {
            host()->load(m_model);
            QTRY_VERIFY_WITH_TIMEOUT(host()->isReady(), 60000);
        }
        const QString dp = QLocale().decimalPoint();
        if (qgetenv("LC_ALL").startsWith("en_DK")) QCOMPARE(dp, QStringLiteral(","));
        // The sign before a figure's one decimal digit and its unit ("12,3 GiB", "1,2 s ago"; grouped integers as
        // "4.096" in en_DK are not decimals).
        const auto check = [&](const QString& what, const QString& s, const QString& unit) {
            QStringList found;
            const QRegularExpression decimal(QStringLiteral("\\d([.,])\\d ") + QRegularExpression::escape(unit));
            for (auto it = decimal.globalMatch(s); it.hasNext();) found << it.next().captured(1);
            QVERIFY2(!found.isEmpty() && found.count(dp) == found.size(), qPrintable(what + ": " + s + " (decimal sign " + dp + ")"));
        };
        QVERIFY(m_ui->showPage("models"));
        QVERIFY(QMetaObject::invokeMethod(m_ui->object("libraryModel"), "addPath", Q_ARG(QString, m_model),
                                          Q_ARG(QString, QStringLiteral("added"))));  // the demo model's row (17.0 MiB)
        const auto sizes = [&] {
            QStringList out;
            for (QQuickItem* t : m_ui->items("modelSizeText"))
                if (t->property("text").toString().contains("MiB")) out << t->property("text").toString();
            return out;
        };
        QTRY_VERIFY_WITH_TIMEOUT(!sizes().isEmpty(), 20000);
        for (const QString& t : sizes()) check("model size", t, "MiB");
        bool meter = false;
        for (QQuickItem* t : m_ui->items("meterFigure"))
            if (t->isVisible() && t->property("text").toString().contains("GiB")) {
                check("RAM meter", t->property("text").toString(), "GiB");
                meter = true;
            }
        QVERIFY(meter);
        QVERIFY(m_ui->showPage("console"));
        m_ui->resize(1400, 3000);  // the whole Console on screen for the mouse
        QQuickItem* chart = m_ui->item("kvChart");
        QVERIFY(chart);
        QTRY_VERIFY_WITH_TIMEOUT(chart->isVisible() && chart->property("hasData").toBool(), 20000);
        m_ui->settle(1200);  // a point more than a second old: "1.2 s ago"
        const QPoint p = chart->mapToScene(QPointF(chart->width() * 0.98, chart->height() / 2)).toPoint();
        QTest::mouseMove(m_ui->window(), p - QPoint(20, 0));
        QTest::mouseMove(m_ui->window(), p);
        QTRY_VERIFY(!chart->property("hoverText").toString().isEmpty());
        check("chart", chart->property("hoverText").toString(), "s ago");
        QTest::mouseMove(m_ui->window(), QPoint(5, 5));
        m_ui->resize(1280, 900);
        m_ui->settle(50);
    }

    // A reply asked with a sampling setting out of its range (validate_sampling's "sampling_range"): the reason in
    // Chinese, naming the setting and its range; before, "sampling parameter temperature must be in [0, 100]".
    void samplingOutOfRange() {
        QTRY_VERIFY_WITH_TIMEOUT(host()->isReady(), 60000);
        setLanguage("zh_CN");
        QSignalSpy failed(host(), &ft::EngineHost::generationFailed);
        QVERIFY(host()->generateText(QStringLiteral("Hello"), {{"temperature", 150.0}}) > 0);
        QVERIFY(failed.wait(30000));
        const QString zh = failed.first().at(1).toString();
        QVERIFY2(zh.contains(QStringLiteral("temperature")) && zh.contains(QStringLiteral("[0, 100]")) &&
                     has_han(zh.section(QStringLiteral("temperature"), -1)) && !zh.contains(QStringLiteral("must be")),
                 qPrintable(zh));
        host()->clearError();
        setLanguage("en");
    }

    // The CUDA load errors by their keys and arguments (gpu_runtime's check(); none can happen without a GPU).
    void cudaErrorsByTheirKeys() {
        checkKeyed({
            {"cuda_out_of_memory", {"cudaMalloc"}},
            {"gpu_too_old", {"Tesla K80", "3.7", "cudaLaunchKernel"}},
            {"cuda_failed", {"cudaMemcpyAsync", "cudaErrorIllegalAddress", "an illegal memory access was encountered"}},
            {"cublas_failed", {"cublasCreate", "1"}},
            {"gpu_unusable", {"driver_too_old", "12.2", "13.0"}},
            {"gpu_unusable", {"no_driver"}},
        });
    }

    // A quantized Hugging Face checkpoint's load errors (format/hf_quant.h; test_hf_quant makes each from a bad
    // checkpoint and checks these keys and arguments).
    void quantizedCheckpointErrorsByTheirKeys() {
        checkKeyed({
            {"hf_quant_scale_missing", {"/m/fp8", "a.weight", "a.weight_scale_inv"}},
            {"hf_quant_scale_shape", {"/m/fp8", "a.weight_scale_inv", "[1, 2]", "[1, 1]"}},
            {"hf_quant_scale_type", {"/m/fp8", "a.weight_scale_2", "BF16 [1]", "F32 [1]"}},
            {"hf_quant_not_matrix", {"/m/fp8", "a.weight", "[128]"}},
            {"hf_quant_row_length", {"/m/nvfp4", "a.weight", "NVFP4", "32", "64"}},
            {"hf_quant_fp8_block", {"/m/fp8", "a.weight", "48"}},
            {"hf_quant_layout", {"/m/int4", "a.weight_packed", "compressed-tensors pack-quantized (integer weights packed in I32)"}},
            {"hf_quant_block_size", {"/m/fp8/config.json", "[128]"}},
            {"hf_quant_config", {"/m/fp8/config.json"}},
        });
    }

    // A config.json whose rotated part of each head is not what transformers rotates (test_minimax_m2 makes both).
    void rotaryConfigErrorsByTheirKeys() {
        checkKeyed({
            {"hf_rotary_dim", {"/m/minimax/config.json", "4", "0.5", "16", "8"}},
            {"hf_rotary_odd", {"/m/minimax/config.json", "5"}},
        });
    }

    // A request whose prompt does not fit the context (a conversation grown past it): the reason in Korean, with the
    // numbers; then a model file moved away since it was added: its load error in Chinese.
    void promptTooLongAndFileMissing() {
        QTRY_VERIFY_WITH_TIMEOUT(host()->isReady(), 60000);
        const int ctx = host()->contextLength();
        QVERIFY(ctx > 0);
        setLanguage("ko");
        QSignalSpy failed(host(), &ft::EngineHost::generationFailed);
        const quint64 id = host()->generateText(QStringLiteral("a ").repeated(ctx + 64));
        QVERIFY(id > 0);
        QVERIFY(failed.wait(30000));
        const QString ko = failed.first().at(1).toString();
        // "The reply failed: %1" and the reason, in Korean after the context's size too (not only the prefix).
        QVERIFY2(ko.contains(QString::number(ctx)) && has_hangul(ko.section(QString::number(ctx), -1)), qPrintable(ko));
        host()->clearError();
        setLanguage("zh_CN");
        const QString moved = m_data.filePath("moved-away.gguf");
        QVERIFY(QFile::copy(m_model, moved));
        QVERIFY(QFile::remove(moved));  // added once, then moved or deleted
        host()->load(moved);
        QTRY_COMPARE_WITH_TIMEOUT(host()->state(), QStringLiteral("error"), 20000);
        const QString zh = host()->lastError();
        QVERIFY2(zh.count(QStringLiteral("moved-away.gguf")) >= 2 && has_han(zh.section(QStringLiteral("moved-away.gguf"), -1)),
                 qPrintable(zh));  // "Could not load %1: %2", the reason in Chinese after its own file name
        setLanguage("en");
        host()->clearError();
    }

    // The reasons themselves, not only their frame, in the language chosen (before, "무엇무엇을 불러올 수 없습니다"
    // framed the engine's English: "(truncated file: … bytes needed at offset …)", "(Connection refused)"): a download
    // cut short and a file gone, loaded for real; a server address nothing listens on, added through the Add a
    // server dialog; the VRAM too small for a model, as the Models page's fit note gives it.
    void reasonsInTheChosenLanguage() {
        const QString cut = QFileInfo(m_damaged).fileName();
        const QStringList english = {"truncated", "bytes needed", "runs past the end", "not there any more", "moved or deleted",
                                     "Connection refused", "connection refused", "too small", "too little", "not supported",
                                     "does not run"};
        const auto no_english = [&](const QString& s) {
            for (const QString& w : english)
                if (s.contains(w)) return false;
            return true;
        };
        // A model of an architecture this version does not run: the demo model renamed "qwen9moe" (same length: the
        // file stays well-formed), on the Models page.
        const QString otherArch = m_data.filePath("other-arch.gguf");
        {
            QFile in(kDemo), out(otherArch);
            QVERIFY(in.open(QIODevice::ReadOnly) && out.open(QIODevice::WriteOnly));
            QByteArray bytes = in.readAll();
            QVERIFY(bytes.count("qwen3moe") >= 2);
            out.write(bytes.replace("qwen3moe", "qwen9moe"));
        }
        QVERIFY(QMetaObject::invokeMethod(m_ui->object("libraryModel"), "addPath", Q_ARG(QString, otherArch),
                                          Q_ARG(QString, QStringLiteral("added"))));
        for (const QString& lang : {QStringLiteral("ko"), QStringLiteral("zh_CN")}) {
            const auto native = [&](const QString& s) { return lang == "ko" ? has_hangul(s) : has_han(s); };
            const QLocale locale = lang == "ko" ? QLocale(QLocale::Korean, QLocale::SouthKorea) : QLocale(QLocale::Chinese, QLocale::China);
            setLanguage(lang);
            // A download cut short: its name, its real size (in the language's number format) and why, in `lang`.
            host()->load(m_damaged);
            QTRY_COMPARE_WITH_TIMEOUT(host()->state(), QStringLiteral("error"), 20000);
            QString e = host()->lastError();
            const QString size = locale.formattedDataSize(QFileInfo(m_damaged).size(), 1, QLocale::DataSizeIecFormat);
            QVERIFY2(e.count(cut) >= 2 && e.contains(size) && native(e.section(cut, -1)) && no_english(e), qPrintable(lang + ": " + e));
            host()->clearError();
            // The same reason on the Models page's row (added by damagedFile()).
            QTRY_VERIFY2(native(problemOf(m_damaged)) && no_english(problemOf(m_damaged)) && problemOf(m_damaged).contains(cut),
                         qPrintable(lang + ": " + problemOf(m_damaged)));
            QTRY_VERIFY2(native(problemOf(otherArch)) && no_english(problemOf(otherArch)) && problemOf(otherArch).contains("qwen9moe"),
                         qPrintable(lang + ": " + problemOf(otherArch)));
            // A file that is not there.
            const QString gone = m_data.filePath(QStringLiteral("gone-%1.gguf").arg(lang));
            host()->load(gone);
            QTRY_COMPARE_WITH_TIMEOUT(host()->state(), QStringLiteral("error"), 20000);
            e = host()->lastError();
            QVERIFY2(e.count(QFileInfo(gone).fileName()) >= 2 && native(e.section(QFileInfo(gone).fileName(), -1)) && no_english(e),
                     qPrintable(lang + ": " + e));
            host()->clearError();
            // A server address nothing listens on (a port taken and released): the reason is this app's, in `lang`.
            QTcpServer probe;
            QVERIFY(probe.listen(QHostAddress::LocalHost));
            const QString closed = QStringLiteral("http://127.0.0.1:%1").arg(probe.serverPort());
            probe.close();
            e = addServer(closed);
            QVERIFY2(e.contains(closed) && native(e.section(closed, -1)) && no_english(e) &&
                         e.contains(ft::EngineText::networkReason(QStringLiteral("ConnectionRefusedError"), {})),
                     qPrintable(lang + ": " + e));
            // VRAM too small for a 30B-A3B model (the fit predictor's plan at 0.5 GiB, no GPU needed): the Models page's
            // note, with the budget and the smallest one that works.
            ft::MachineProfile pc;
            pc.ram_bytes = 64ull << 30;
            pc.vram_bytes = 1ull << 29;
            const ft::FitPrediction fit = ft::predict_fit_preset("qwen3-30b-a3b", "q4_k", pc);
            QCOMPARE(QString::fromStdString(fit.reason_key.key), QStringLiteral("vram_too_small"));
            e = ft::EngineText::text(fit.reason_key, QString::fromStdString(fit.reason));
            QVERIFY2(e.contains(QStringLiteral("0.50 GiB")) && e.contains(QString::fromStdString(fit.reason_key.args.at(2))) &&
                         native(e) && no_english(e),
                     qPrintable(lang + ": " + e));
        }
        closeAddServer();
        setLanguage("en");
    }

    // A load on the GPU (--device cuda) where there is none, as on this machine ("no NVIDIA driver found …" before,
    // in English inside the Korean frame): the reason and why there is no GPU, both in Korean, then in Chinese.
    void gpuLoadWithoutAGpu() {
        if (!ft::gpu_devices().empty()) QSKIP("this machine has a GPU: a load on it does not fail for want of one");
        const ft::LoadOptions before = host()->loadOptions();
        ft::LoadOptions o = before;
        o.device = ft::Device::cuda;
        host()->setLoadOptions(o);
        const QString name = QFileInfo(m_model).fileName();
        for (const QString& lang : {QStringLiteral("ko"), QStringLiteral("zh_CN")}) {
            const auto native = [&](const QString& s) { return lang == "ko" ? has_hangul(s) : has_han(s); };
            setLanguage(lang);
            host()->load(m_model);
            QTRY_COMPARE_WITH_TIMEOUT(host()->state(), QStringLiteral("error"), 30000);
            const QString e = host()->lastError();
            const QString why = ft::EngineText::text(ft::gpu_unavailable_message(), QString());  // "no_driver" here
            QVERIFY2(!why.isEmpty() && native(why), qPrintable(why));
            QVERIFY2(e.contains(name) && e.contains(why) && native(e.section(name, -1).remove(why)) &&
                         !e.contains(QStringLiteral("no usable GPU")) && !e.contains(QStringLiteral("NVIDIA driver found")),
                     qPrintable(lang + ": " + e));
            host()->clearError();
        }
        host()->setLoadOptions(before);
        setLanguage("en");
    }

    // The Logs page's times in the language's own time format (Korean: "오후 3:04:05.123"; before, "15:04:05.123" in
    // every language), re-formatted on a switch, and the level tags after them however wide they are.
    void logTimesInTheChosenLanguage() {
        QVERIFY(m_ui->showPage("logs"));  // the lines of the loads above
        QTRY_VERIFY(!m_ui->items("logTime").isEmpty());
        const auto check = [&](const QString& lang, const QRegularExpression& re, bool hangul) {
            setLanguage(lang);
            const QList<QQuickItem*> times = m_ui->items("logTime"), tags = m_ui->items("logLevelTag");
            QVERIFY(!times.isEmpty() && times.size() == tags.size());
            for (int i = 0; i < times.size(); ++i) {
                const QString t = times[i]->property("text").toString();
                QVERIFY2(re.match(t).hasMatch() && has_hangul(t) == hangul, qPrintable(lang + ": " + t));
                QVERIFY2(tags[i]->x() >= times[i]->x() + times[i]->property("implicitWidth").toReal(), qPrintable(lang + ": " + t));
            }
        };
        check("ko", QRegularExpression("^(오전|오후) \\d{1,2}:\\d\\d:\\d\\d\\.\\d{3}$"), true);
        check("zh_CN", QRegularExpression("^\\d\\d:\\d\\d:\\d\\d\\.\\d{3}$"), false);
        check("en", QRegularExpression("\\d{1,2}:\\d\\d:\\d\\d\\.\\d{3}"), false);
    }

    void cleanupTestCase() {
        m_ui.reset();
        ft::log_shutdown();
    }
};

QTEST_MAIN(TestEngineMessages)
#include "test_engine_messages.moc"
