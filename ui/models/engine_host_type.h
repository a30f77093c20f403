// Makes app/core's EngineHost a QML type of FreeToken.Ui (not creatable: the app's composition root owns the one
// instance and hands it to Main.qml as its `engineHost` property), so view models can take it as a typed property.
#pragma once

#include <QQmlEngine>

#include "engine_host.h"

namespace ft::ui {

struct EngineHostForeign {
    Q_GADGET
    QML_FOREIGN(ft::EngineHost)
    QML_NAMED_ELEMENT(EngineHost)
    QML_UNCREATABLE("EngineHost is created by the application")
};

}  // namespace ft::ui
