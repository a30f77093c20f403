#include "qml_setup.h"

#include <QCoreApplication>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QQmlApplicationEngine>
#include <QQuickStyle>
#include <QTranslator>
#include <QVariantMap>

#include "app_settings.h"
#include "icon_provider.h"
#include "log_hub.h"

namespace ft::ui {

namespace {

QString first_available(const QStringList& wanted, const QString& fallback) {
    const QStringList families = QFontDatabase::families();
    for (const QString& f : wanted)
        if (families.contains(f, Qt::CaseInsensitive)) return f;
    return fallback;
}

}  // namespace

bool install_language(const QString& language) {
    static QTranslator* translator = nullptr;
    if (!AppSettings::languages().contains(language)) return false;
    if (translator) {
        QCoreApplication::removeTranslator(translator);
        delete translator;
        translator = nullptr;
    }
    // English is the source language; its .qm only adds plural forms, so it may be absent without harm.
    auto* t = new QTranslator(QCoreApplication::instance());
    if (!t->load(QStringLiteral(":/i18n/ft_%1.qm").arg(language))) {
        delete t;
        return language == "en";
    }
    QCoreApplication::installTranslator(t);
    translator = t;
    return true;
}

void prepare_engine(QQmlApplicationEngine& engine, ft::LogHub* hub, QObject* engineHost, const QVariantMap& startup) {
    QQuickStyle::setStyle("Basic");
    // Prefer a modern UI face; Noto Sans CJK also covers Hangul and Hanzi for the translations.
    QFont font(first_available({"Inter", "Segoe UI Variable Text", "Segoe UI", "Noto Sans", "Noto Sans CJK SC",
                                "Cantarell", "DejaVu Sans"},
                               QGuiApplication::font().family()));
    font.setPixelSize(14);
    QGuiApplication::setFont(font);
    engine.addImageProvider("icon", new IconProvider);
    engine.addImportPath("qrc:/qt/qml");
    {
        AppSettings settings;
        install_language(settings.language());
    }
    QVariantMap properties{{"logHub", QVariant::fromValue<QObject*>(hub)},
                           {"engineHost", QVariant::fromValue<QObject*>(engineHost)},
                           {"monoFamily", first_available({"JetBrains Mono", "Cascadia Mono", "Consolas",
                                                           "Noto Sans Mono", "DejaVu Sans Mono"},
                                                          "monospace")}};
    for (const QString& key : {QStringLiteral("openPath"), QStringLiteral("demoModelPath")})
        if (startup.contains(key)) properties.insert(key, startup.value(key).toString());
    engine.setInitialProperties(properties);
}

QUrl main_qml_url() { return QUrl("qrc:/qt/qml/FreeToken/Ui/qml/Main.qml"); }

}  // namespace ft::ui
