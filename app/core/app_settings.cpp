#include "app_settings.h"

#include <QLocale>
#include <QUrl>

#include "ft/paths.h"
#include "ft/utf8.h"

namespace ft {

AppSettings::AppSettings(const QString& file, QObject* parent) : QObject(parent) {
    const QString path = file.isEmpty()
        ? QString::fromStdString(ft::path_to_utf8(ft::data_dir() / "freetoken.ini"))
        : file;
    m_settings = std::make_unique<QSettings>(path, QSettings::IniFormat);
    const QString theme = m_settings->value("ui/theme").toString();
    m_theme = themes().contains(theme) ? theme : QStringLiteral("dark");  // the product look by default
    const QString language = m_settings->value("ui/language").toString();
    m_language = languages().contains(language) ? language : systemLanguage();
    bool ok = false;
    const int port = m_settings->value("server/port", 1919).toInt(&ok);
    m_apiPort = ok && port > 0 && port < 65536 ? port : 1919;
}

AppSettings::~AppSettings() { sync(); }

QStringList AppSettings::themes() { return {"system", "dark", "light"}; }
QStringList AppSettings::languages() { return {"en", "ko", "zh_CN"}; }

QString AppSettings::systemLanguage() {
    const QLocale locale = QLocale::system();
    if (locale.language() == QLocale::Korean) return "ko";
    if (locale.language() == QLocale::Chinese) return "zh_CN";
    return "en";
}

bool AppSettings::setTheme(const QString& theme) {
    if (!themes().contains(theme)) return false;
    if (theme == m_theme) return true;
    m_theme = theme;
    m_settings->setValue("ui/theme", theme);
    emit themeChanged();
    return true;
}

bool AppSettings::setLanguage(const QString& language) {
    if (!languages().contains(language)) return false;
    if (language == m_language) return true;
    m_language = language;
    m_settings->setValue("ui/language", language);
    emit languageChanged();
    return true;
}

QString AppSettings::hubToken() const { return m_settings->value("hub/token").toString(); }

void AppSettings::setHubToken(const QString& token) {
    if (token.trimmed() == hubToken()) return;
    m_settings->setValue("hub/token", token.trimmed());
    m_settings->sync();
    emit hubChanged();
}

QString AppSettings::hubEndpoint() const { return m_settings->value("hub/endpoint").toString(); }

bool AppSettings::setHubEndpoint(const QString& url) {
    const QString u = url.trimmed();
    if (!u.isEmpty()) {
        const QUrl parsed(u, QUrl::StrictMode);
        if (!parsed.isValid() || (parsed.scheme() != "http" && parsed.scheme() != "https") || parsed.host().isEmpty())
            return false;
    }
    if (u == hubEndpoint()) return true;
    m_settings->setValue("hub/endpoint", u);
    m_settings->sync();
    emit hubChanged();
    return true;
}

bool ChatDefaults::valid() const {
    return temperature >= 0 && temperature <= 2 && topP > 0 && topP <= 1 && maxTokens >= 1 && maxTokens <= (1 << 20) &&
           seed >= 0;
}

ChatDefaults AppSettings::chatDefaults() const {
    ChatDefaults d;
    const ChatDefaults fallback;
    d.systemPrompt = m_settings->value("chat/systemPrompt").toString();
    d.temperature = m_settings->value("chat/temperature", fallback.temperature).toDouble();
    d.topP = m_settings->value("chat/topP", fallback.topP).toDouble();
    d.maxTokens = m_settings->value("chat/maxTokens", fallback.maxTokens).toInt();
    d.seed = m_settings->value("chat/seed", fallback.seed).toLongLong();
    if (!d.valid()) {  // a hand-edited file: keep the prompt, take the built-in sampling
        const QString prompt = d.systemPrompt;
        d = fallback;
        d.systemPrompt = prompt;
    }
    return d;
}

bool AppSettings::setChatDefaults(const ChatDefaults& d) {
    if (!d.valid()) return false;
    const ChatDefaults old = chatDefaults();
    if (old.systemPrompt == d.systemPrompt && old.temperature == d.temperature && old.topP == d.topP &&
        old.maxTokens == d.maxTokens && old.seed == d.seed)
        return true;
    m_settings->setValue("chat/systemPrompt", d.systemPrompt);
    m_settings->setValue("chat/temperature", d.temperature);
    m_settings->setValue("chat/topP", d.topP);
    m_settings->setValue("chat/maxTokens", d.maxTokens);
    m_settings->setValue("chat/seed", d.seed);
    m_settings->sync();
    emit chatDefaultsChanged();
    return true;
}

QString AppSettings::lastModel() const { return m_settings->value("library/lastModel").toString(); }

void AppSettings::setLastModel(const QString& path) {
    if (path == lastModel()) return;
    m_settings->setValue("library/lastModel", path);
    m_settings->sync();
}

bool AppSettings::modelSampling() const { return m_settings->value("chat/modelSampling", true).toBool(); }

void AppSettings::setModelSampling(bool on) {
    if (on == modelSampling()) return;
    m_settings->setValue("chat/modelSampling", on);
    emit modelSamplingChanged();
}

bool AppSettings::reloadLastModel() const { return m_settings->value("library/reloadLastModel", true).toBool(); }

void AppSettings::setReloadLastModel(bool on) {
    if (on == reloadLastModel()) return;
    m_settings->setValue("library/reloadLastModel", on);
    m_settings->sync();
    emit reloadLastModelChanged();
}

bool AppSettings::demoOffered() const { return m_settings->value("library/demoOffered", false).toBool(); }

void AppSettings::setDemoOffered(bool offered) {
    m_settings->setValue("library/demoOffered", offered);
    m_settings->sync();
}

QString AppSettings::filePath() const { return m_settings->fileName(); }
void AppSettings::sync() { m_settings->sync(); }

}  // namespace ft
