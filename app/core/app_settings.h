// AppSettings: the desktop app's user preferences (theme, language, API port), persisted with QSettings in an INI
// file inside the data folder (ft::data_dir()/freetoken.ini by default), so a portable install or a test with
// FT_DATA_DIR never touches the user's real settings. Unknown values are refused (the setter returns false and
// nothing changes). Main-thread object.
#pragma once

#include <QObject>
#include <QSettings>
#include <QString>
#include <QStringList>

#include <memory>

namespace ft {

// What a new chat starts with (Settings → New chats); each chat keeps its own copy once created.
struct ChatDefaults {
    QString systemPrompt;
    double temperature = 0.7;
    double topP = 0.9;
    int maxTokens = 1024;
    qint64 seed = 0;  // 0: a new random seed for each reply
    // The ranges the chat settings accept (temperature 0–2, top-p (0, 1], max tokens 1–1048576, seed ≥ 0).
    bool valid() const;
};

class AppSettings : public QObject {
    Q_OBJECT
    Q_PROPERTY(QString theme READ theme WRITE setTheme NOTIFY themeChanged)
    Q_PROPERTY(QString language READ language WRITE setLanguage NOTIFY languageChanged)
    Q_PROPERTY(int apiPort READ apiPort CONSTANT)
    Q_PROPERTY(QString hubToken READ hubToken WRITE setHubToken NOTIFY hubChanged)
    Q_PROPERTY(QString hubEndpoint READ hubEndpoint WRITE setHubEndpoint NOTIFY hubChanged)
public:
    // `file` empty: ft::data_dir()/freetoken.ini.
    explicit AppSettings(const QString& file = {}, QObject* parent = nullptr);
    ~AppSettings() override;

    static QStringList themes();      // "system", "dark", "light"
    static QStringList languages();   // "en", "ko", "zh_CN"
    static QString systemLanguage();  // the supported language closest to the OS locale ("en" if none)

    QString theme() const { return m_theme; }
    bool setTheme(const QString& theme);
    QString language() const { return m_language; }
    bool setLanguage(const QString& language);
    int apiPort() const { return m_apiPort; }
    // Hugging Face: the access token sent as "Authorization: Bearer" (gated/private repositories), and the server
    // (empty: https://huggingface.co; FT_HF_ENDPOINT overrides it). Read from the file each time, so every
    // AppSettings of the process sees the latest value. setHubEndpoint refuses what is not an http(s) URL.
    QString hubToken() const;
    void setHubToken(const QString& token);
    QString hubEndpoint() const;
    bool setHubEndpoint(const QString& url);

    // The defaults of a new chat. Read from the file each time (every AppSettings of the process sees the latest);
    // setChatDefaults refuses values out of range (returns false, nothing saved).
    ChatDefaults chatDefaults() const;
    bool setChatDefaults(const ChatDefaults& d);

    // The model loaded last (recorded when a load succeeds) and whether a start loads it again (default: yes).
    QString lastModel() const;
    void setLastModel(const QString& path);
    bool reloadLastModel() const;
    void setReloadLastModel(bool on);

    // Whether a new chat takes the sampling the loaded model recommends (its temperature, top-p and top-k, where
    // its file names them) over the defaults above (default: yes).
    bool modelSampling() const;
    void setModelSampling(bool on);

    // Whether the bundled demo model was offered on a first start (added to an empty library and loaded, with the
    // welcome screen). Offered once: a user who removes it does not get it back at the next start.
    bool demoOffered() const;
    void setDemoOffered(bool offered);

    QString filePath() const;
    void sync();

signals:
    void themeChanged();
    void languageChanged();
    void hubChanged();
    void chatDefaultsChanged();
    void reloadLastModelChanged();
    void modelSamplingChanged();

private:
    std::unique_ptr<QSettings> m_settings;
    QString m_theme;
    QString m_language;
    int m_apiPort = 1919;
};

}  // namespace ft
