#include "qml_setup.h"

#include <QCoreApplication>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QLocale>
#include <QQmlApplicationEngine>
#include <QQuickStyle>
#include <QTranslator>
#include <QVariantMap>

#include <vector>

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

static QLocale locale_for(const QString& language) {
    if (language == "ko") return QLocale(QLocale::Korean, QLocale::SouthKorea);
    if (language == "zh_CN") return QLocale(QLocale::Chinese, QLocale::China);
    // English: the system's own formats when it is an English locale (en_GB dates stay British), else US English.
    const QLocale system = QLocale::system();
    return system.language() == QLocale::English ? system : QLocale(QLocale::English, QLocale::UnitedStates);
}

bool install_language(const QString& language) {
    static QTranslator* translator = nullptr;
    static std::vector<QTranslator*> qt_translators;  // Qt's own strings (its dialogs' buttons)
    if (!AppSettings::languages().contains(language)) return false;
    // Dates and numbers follow the chosen language (QLocale() in C++, Qt.locale() in QML).
    QLocale::setDefault(locale_for(language));
    if (translator) {
        QCoreApplication::removeTranslator(translator);
        delete translator;
        translator = nullptr;
    }
    for (QTranslator* q : qt_translators) {
        QCoreApplication::removeTranslator(q);
        delete q;
    }
    qt_translators.clear();
    // Qt's file and folder dialogs and message boxes (qtbase: the buttons, qtdeclarative: Qt Quick Dialogs), embedded
    // from Debian's qt6-translations-l10n where the build found it (ui/CMakeLists.txt); English needs none.
    if (language != "en") {
        for (const char* module : {"qtbase", "qtdeclarative"}) {
            auto* q = new QTranslator(QCoreApplication::instance());
            if (q->load(QStringLiteral(":/i18n/qt/%1_%2.qm").arg(QLatin1String(module), language))) {
                QCoreApplication::installTranslator(q);
                qt_translators.push_back(q);
            } else {
                delete q;
            }
        }
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
        engine.setUiLanguage(settings.language());  // Qt.uiLanguage: QML that formats dates re-evaluates on a switch
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
