// The one place that prepares a QML engine for FreeToken's UI module, shared by the freetoken executable, the UI
// smoke test and the screenshot tool so all three load exactly the same thing.
#pragma once

#include <QString>
#include <QUrl>
#include <QVariantMap>

class QQmlApplicationEngine;

namespace ft {
class LogHub;
}

namespace ft::ui {

// Controls style, fonts, the icon image provider, the saved language, and the `logHub` and `engineHost` (the app's
// ft::EngineHost, owned by the caller and outliving `engine`; may be null) initial properties of Main.qml.
// `startup` adds Main.qml's `openPath` (a model to open) and `demoModelPath` (the bundled demo model, offered on a
// first start); without them neither happens (the tests' default).
// Call after QApplication exists and before engine.load(main_qml_url()).
void prepare_engine(QQmlApplicationEngine& engine, ft::LogHub* hub, QObject* engineHost = nullptr,
                    const QVariantMap& startup = {});
QUrl main_qml_url();

// Installs the translator for `language` ("en", "ko", "zh_CN"); false if unknown or its .qm is missing.
// Does not retranslate: call QQmlEngine::retranslate() afterwards (SettingsModel does).
bool install_language(const QString& language);

}  // namespace ft::ui
