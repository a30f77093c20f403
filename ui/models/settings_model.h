// SettingsModel: AppSettings for QML, plus what the Settings page shows (folders, version, API port) and live
// language switching (translator swap + QQmlEngine::retranslate(), no restart).
#pragma once

#include <QObject>
#include <QQmlEngine>

#include "app_settings.h"

namespace ft::ui {

class SettingsModel : public QObject {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(QString theme READ theme WRITE setTheme NOTIFY themeChanged)
    Q_PROPERTY(bool dark READ dark NOTIFY themeChanged)
    Q_PROPERTY(QString language READ language WRITE setLanguage NOTIFY languageChanged)
    Q_PROPERTY(int apiPort READ apiPort CONSTANT)
    Q_PROPERTY(QString version READ version CONSTANT)
    Q_PROPERTY(QString buildDescription READ buildDescription CONSTANT)
    Q_PROPERTY(QString dataDir READ dataDir CONSTANT)
    Q_PROPERTY(QString logDir READ logDir CONSTANT)
    Q_PROPERTY(QString modelsDir READ modelsDir CONSTANT)
    Q_PROPERTY(QString settingsFile READ settingsFile CONSTANT)
    Q_PROPERTY(QString hubToken READ hubToken WRITE setHubToken NOTIFY hubChanged)
    Q_PROPERTY(QString hubEndpoint READ hubEndpoint NOTIFY hubChanged)
    Q_PROPERTY(bool hubEndpointFromEnvironment READ hubEndpointFromEnvironment CONSTANT)
    // What a new chat starts with (the Chat page's Ctrl+N / New chat).
    Q_PROPERTY(QString defaultSystemPrompt READ defaultSystemPrompt NOTIFY chatDefaultsChanged)
    Q_PROPERTY(double defaultTemperature READ defaultTemperature NOTIFY chatDefaultsChanged)
    Q_PROPERTY(double defaultTopP READ defaultTopP NOTIFY chatDefaultsChanged)
    Q_PROPERTY(int defaultMaxTokens READ defaultMaxTokens NOTIFY chatDefaultsChanged)
    Q_PROPERTY(qint64 defaultSeed READ defaultSeed NOTIFY chatDefaultsChanged)
    // Whether a start loads the model that was loaded last (if it is still in the library).
    Q_PROPERTY(bool reloadLastModel READ reloadLastModel WRITE setReloadLastModel NOTIFY reloadLastModelChanged)
    Q_PROPERTY(bool modelSampling READ modelSampling WRITE setModelSampling NOTIFY modelSamplingChanged)
public:
    explicit SettingsModel(QObject* parent = nullptr);

    QString theme() const { return m_settings.theme(); }
    void setTheme(const QString& theme);
    bool dark() const;
    QString language() const { return m_settings.language(); }
    void setLanguage(const QString& language);
    int apiPort() const { return m_settings.apiPort(); }
    QString version() const;
    QString buildDescription() const;
    QString dataDir() const;
    QString logDir() const;
    QString modelsDir() const;
    QString settingsFile() const { return m_settings.filePath(); }

    QString hubToken() const { return m_settings.hubToken(); }
    void setHubToken(const QString& token) { m_settings.setHubToken(token); }
    QString hubEndpoint() const { return m_settings.hubEndpoint(); }
    bool hubEndpointFromEnvironment() const { return qEnvironmentVariableIsSet("FT_HF_ENDPOINT"); }
    // False (nothing saved) when `url` is neither empty nor an http(s) address.
    Q_INVOKABLE bool setHubEndpoint(const QString& url) { return m_settings.setHubEndpoint(url); }

    Q_INVOKABLE void openFolder(const QString& path) const;

    bool reloadLastModel() const { return m_settings.reloadLastModel(); }
    void setReloadLastModel(bool on) { m_settings.setReloadLastModel(on); }
    bool modelSampling() const { return m_settings.modelSampling(); }
    void setModelSampling(bool on) { m_settings.setModelSampling(on); }
    QString defaultSystemPrompt() const { return m_settings.chatDefaults().systemPrompt; }
    double defaultTemperature() const { return m_settings.chatDefaults().temperature; }
    double defaultTopP() const { return m_settings.chatDefaults().topP; }
    int defaultMaxTokens() const { return m_settings.chatDefaults().maxTokens; }
    qint64 defaultSeed() const { return m_settings.chatDefaults().seed; }
    // Saves the defaults of new chats; false (nothing saved) when a value is out of range.
    Q_INVOKABLE bool setChatDefaults(const QString& systemPrompt, double temperature, double topP, int maxTokens,
                                     qint64 seed);

signals:
    void themeChanged();
    void languageChanged();
    void hubChanged();
    void chatDefaultsChanged();
    void reloadLastModelChanged();
    void modelSamplingChanged();

private:
    AppSettings m_settings;
};

}  // namespace ft::ui
