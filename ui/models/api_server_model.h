// ApiServerModel: the Settings page's local API server (app/core ApiServerHost) as a QML type, plus copying a
// snippet to the clipboard.
#pragma once

#include <QClipboard>
#include <QGuiApplication>
#include <QQmlEngine>

#include "api_server_host.h"

namespace ft::ui {

class ApiServerModel : public ft::ApiServerHost {
    Q_OBJECT
    QML_ELEMENT
public:
    explicit ApiServerModel(QObject* parent = nullptr) : ft::ApiServerHost(parent) {}
    Q_INVOKABLE void copy(const QString& text) const { QGuiApplication::clipboard()->setText(text); }
};

}  // namespace ft::ui
