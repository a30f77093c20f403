#include "settings_model.h"

#include <QDesktopServices>
#include <QGuiApplication>
#include <QPalette>
#include <QUrl>

#include "ft/paths.h"
#include "ft/utf8.h"
#include "ft/version.h"
#include "qml_setup.h"

namespace ft::ui {

namespace {
QString safe_path(std::filesystem::path (*fn)()) {
    try {
        return QString::fromStdString(ft::path_to_utf8(fn()));
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
}
}  // namespace

SettingsModel::SettingsModel(QObject* parent) : QObject(parent) {
    connect(&m_settings, &AppSettings::themeChanged, this, &SettingsModel::themeChanged);
    connect(&m_settings, &AppSettings::languageChanged, this, &SettingsModel::languageChanged);
    connect(&m_settings, &AppSettings::hubChanged, this, &SettingsModel::hubChanged);
    connect(&m_settings, &AppSettings::chatDefaultsChanged, this, &SettingsModel::chatDefaultsChanged);
    connect(&m_settings, &AppSettings::reloadLastModelChanged, this, &SettingsModel::reloadLastModelChanged);
    connect(&m_settings, &AppSettings::modelSamplingChanged, this, &SettingsModel::modelSamplingChanged);
}

bool SettingsModel::setChatDefaults(const QString& systemPrompt, double temperature, double topP, int maxTokens,
                                    qint64 seed) {
    return m_settings.setChatDefaults(ChatDefaults{systemPrompt, temperature, topP, maxTokens, seed});
}

void SettingsModel::setTheme(const QString& theme) { m_settings.setTheme(theme); }

bool SettingsModel::dark() const {
    if (m_settings.theme() == "dark") return true;
    if (m_settings.theme() == "light") return false;
    // "system": Qt 6.4 has no colour-scheme hint; a dark window palette is what the platform theme reports.
    return QGuiApplication::palette().color(QPalette::Window).lightness() < 128;
}

void SettingsModel::setLanguage(const QString& language) {
    if (!m_settings.setLanguage(language)) return;
    install_language(language);
    if (QQmlEngine* engine = qmlEngine(this)) {
        engine->setUiLanguage(language);
        engine->retranslate();
    }
}

QString SettingsModel::version() const { return QString::fromLatin1(ft::version()); }
QString SettingsModel::buildDescription() const { return QString::fromStdString(ft::build_description()); }
QString SettingsModel::dataDir() const { return safe_path(&ft::data_dir); }
QString SettingsModel::logDir() const { return safe_path(&ft::log_dir); }
QString SettingsModel::modelsDir() const { return safe_path(&ft::models_dir); }

void SettingsModel::openFolder(const QString& path) const { QDesktopServices::openUrl(QUrl::fromLocalFile(path)); }

}  // namespace ft::ui
