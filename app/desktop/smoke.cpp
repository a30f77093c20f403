#include "smoke.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QObject>
#include <QTimer>
#include <QVariantMap>

#include <cstdio>

#include "engine_host.h"

namespace ft::app {

namespace {

constexpr int kLoadTimeoutMs = 300'000;
constexpr int kGenerateTimeoutMs = 120'000;

void say(const QString& line) {
    std::printf("freetoken --smoke: %s\n", line.toLocal8Bit().constData());
    std::fflush(stdout);
}

int fail(const QString& why) {
    std::fprintf(stderr, "freetoken --smoke: FAILED: %s\n", why.toLocal8Bit().constData());
    return 1;
}

// Runs the event loop until `done` holds or `ms` pass; true if it held.
template <typename Done>
bool wait_until(Done done, int ms) {
    QElapsedTimer t;
    t.start();
    while (!done()) {
        if (t.elapsed() > ms) return false;
        QEventLoop loop;
        QTimer::singleShot(20, &loop, &QEventLoop::quit);
        loop.exec();
    }
    return true;
}

}  // namespace

int run_smoke(QObject* root, ft::EngineHost& host, const QString& model, const std::atomic<int>& qml_warnings) {
    if (!root) return fail("the window did not load");
    if (qml_warnings.load() > 0)
        return fail(QStringLiteral("%1 QML warning(s) while the window loaded (printed above)").arg(qml_warnings.load()));
    say(QStringLiteral("window loaded"));

    QObject* library = root->findChild<QObject*>(QStringLiteral("libraryModel"));
    if (!library || !library->property("available").toBool())
        return fail(QStringLiteral("the model library cannot be opened (Qt's QSQLITE driver): %1")
                        .arg(library ? library->property("lastError").toString() : QStringLiteral("no library model")));
    say(QStringLiteral("model library open: %1").arg(library->property("databasePath").toString()));

    QObject* dialog = root->findChild<QObject*>(QStringLiteral("modelFileDialog"));
    if (!dialog) return fail("the Models page has no file dialog");
    QMetaObject::invokeMethod(dialog, "open");
    const bool shown = wait_until([&] { return dialog->property("visible").toBool(); }, 5000);
    QMetaObject::invokeMethod(dialog, "close");
    if (!shown) return fail("the file dialog did not open (QtQuick.Dialogs, Qt.labs.folderlistmodel)");
    if (qml_warnings.load() > 0)
        return fail(QStringLiteral("%1 QML warning(s) while the file dialog opened").arg(qml_warnings.load()));
    say(QStringLiteral("file dialog opened and closed"));

    if (model.isEmpty() || !QFileInfo(model).exists())
        return fail(model.isEmpty() ? QStringLiteral("no bundled demo model is installed: pass a model path")
                                    : QStringLiteral("%1: no such file").arg(model));
    // A first start has already added and started loading the demo model (StartupModel); else open it as a
    // double-click would.
    if (host.state() == QLatin1String("idle")) {
        QObject* startup = root->findChild<QObject*>(QStringLiteral("startupModel"));
        bool ok = false;
        if (startup) QMetaObject::invokeMethod(startup, "openModel", Q_RETURN_ARG(bool, ok), Q_ARG(QString, model));
        if (!ok)
            return fail(QStringLiteral("the library refused %1: %2").arg(model, library->property("lastError").toString()));
    }
    say(QStringLiteral("loading %1").arg(host.modelPath()));
    if (!wait_until([&] { return host.isReady() || host.state() == QLatin1String("error"); }, kLoadTimeoutMs))
        return fail(QStringLiteral("the model did not load within %1 s").arg(kLoadTimeoutMs / 1000));
    if (!host.isReady()) return fail(QStringLiteral("the model did not load: %1").arg(host.lastError()));
    say(QStringLiteral("model loaded: %1 (%2 rows in the library)")
            .arg(host.modelName()).arg(library->property("count").toInt()));

    QString text;
    bool finished = false;
    QString error;
    GenerationSummary summary;
    QObject guard;
    QObject::connect(&host, &EngineHost::token, &guard, [&](quint64, const QString& t) { text += t; });
    QObject::connect(&host, &EngineHost::generationFinished, &guard, [&](quint64, const GenerationSummary& s) {
        summary = s;
        finished = true;
    });
    QObject::connect(&host, &EngineHost::generationFailed, &guard, [&](quint64, const QString& message) {
        error = message;
        finished = true;
    });
    const quint64 id = host.generateText(QStringLiteral("The capital of France is"),
                                         QVariantMap{{"maxTokens", 8}, {"temperature", 0.0}});
    if (id == 0 && !wait_until([&] { return finished; }, 1000)) return fail("the engine refused the request");
    if (!wait_until([&] { return finished; }, kGenerateTimeoutMs))
        return fail(QStringLiteral("no reply within %1 s").arg(kGenerateTimeoutMs / 1000));
    if (!error.isEmpty()) return fail(QStringLiteral("generation failed: %1").arg(error));
    if (summary.completionTokens <= 0) return fail("the model generated no token");
    say(QStringLiteral("ok: %1 token(s) at %2 tok/s: \"%3\"")
            .arg(summary.completionTokens)
            .arg(summary.decodeTokS, 0, 'f', 1)
            .arg(text.simplified()));
    return 0;
}

}  // namespace ft::app
