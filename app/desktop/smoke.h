// `freetoken --smoke [MODEL]`: the installed app checks itself, for CI and for a user's bug report. With the real
// window (offscreen in CI) it checks that Main.qml loaded without a QML warning, that the model library opens
// (Qt's SQLite driver), that the file dialog opens (QtQuick.Dialogs with Qt.labs.folderlistmodel), then loads
// MODEL (default: the bundled demo model, through the first-start path of StartupModel) and generates a few tokens.
// Prints one line per step and "freetoken --smoke: ok …"; returns 0, or prints "freetoken --smoke: FAILED: <why>"
// and returns 1.
#pragma once

#include <QString>

#include <atomic>

class QObject;

namespace ft {
class EngineHost;
}

namespace ft::app {

// `root`: Main.qml's window; `qml_warnings` counts the QML warnings logged since the app started.
int run_smoke(QObject* root, ft::EngineHost& host, const QString& model, const std::atomic<int>& qml_warnings);

}  // namespace ft::app
