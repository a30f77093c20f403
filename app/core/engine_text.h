// The engine's messages in the app's language: the engine gives a user-facing message as a key and its arguments
// (ft::Message, beside the English text); here each key has its translation (ko, zh_CN in translations/). A key
// without one, or a message without a key, is shown in the engine's English.
#pragma once

#include <QCoreApplication>
#include <QString>

class QNetworkReply;

#include "ft/error.h"

namespace ft {

class EngineText {
    Q_DECLARE_TR_FUNCTIONS(EngineText)

public:
    // `english`: the engine's text, shown when the key is empty or unknown.
    static QString text(const Message& m, const QString& english);
    // An engine error: its key translated, else its message and hint ("message — hint").
    static QString error(const Error& e);
    // A network failure's reason: `key` is the QNetworkReply::NetworkError by name (networkErrorKey()); the common
    // ones in the app's language, the rest in Qt's words (`english`: QNetworkReply::errorString()).
    static QString networkReason(const QString& key, const QString& english);
    static QString networkErrorKey(const QNetworkReply* reply);
};

}  // namespace ft
