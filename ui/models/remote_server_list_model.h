// RemoteServerListModel: the Models page's remote servers (servers.json, app/server RemoteServerFile) as a QML list,
// one row per server with the models its /v1/models lists. add() checks a server before keeping it: the address is
// normalized, a plain-http address of another host needs the user's explicit yes (plainHttpWarning() says why), and
// /v1/models must answer; a wrong key, a wrong address or a server that is not OpenAI-compatible sets addError with a
// message naming the problem (RemoteClient) and nothing is saved. The API key goes to the OS keychain, else to the
// list file (RemoteServerFile; keyStorageNote says which, and why not the keychain), never exposed to QML (rows say
// only whether there is one and where).
//
// The list and the keychain are read and written off the window's thread (server_list_jobs.h): the rows come when
// the list has been read (`loading` until then), an added server is kept once its key is stored (`saving` meanwhile),
// so a keychain waiting for an unlock prompt, or not answering at all, never holds up the window.
#pragma once

#include <QAbstractListModel>
#include <QQmlEngine>
#include <QVariantList>

#include <QHash>
#include <QSet>

#include "keychain.h"
#include "remote_client.h"
#include "server_list_jobs.h"

namespace ft::ui {

class RemoteServerListModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)
    Q_PROPERTY(bool adding READ adding NOTIFY addingChanged)    // checking the server, then saving it
    Q_PROPERTY(bool saving READ saving NOTIFY addingChanged)    // saving an added server (its key to the keychain)
    Q_PROPERTY(bool loading READ loading NOTIFY loadingChanged)  // reading the list and its keys
    Q_PROPERTY(QString addError READ addError NOTIFY addErrorChanged)
    Q_PROPERTY(QString lastError READ lastError NOTIFY lastErrorChanged)
    Q_PROPERTY(QString keyStorageNote READ keyStorageNote NOTIFY keyStorageChanged)
    Q_PROPERTY(bool keysInKeychain READ keysInKeychain NOTIFY keyStorageChanged)
public:
    enum Role { UrlRole = Qt::UserRole + 1, HasKeyRole, PlainHttpRole, StatusRole, ErrorRole, ModelsRole, KindRole, KeyPlaceRole };

    explicit RemoteServerListModel(QObject* parent = nullptr);
    ~RemoteServerListModel() override;

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    bool adding() const { return !m_pending.url.isEmpty(); }
    bool saving() const { return m_saving; }
    bool loading() const { return m_loading; }
    QString addError() const { return m_addError; }
    QString lastError() const { return m_lastError; }
    // Where the keys are kept and who can read them (said in the Add dialog): the keychain when it answered when
    // this model was made and at the last add, else the file and why not the keychain.
    QString keyStorageNote() const { return m_keyNote; }
    bool keysInKeychain() const { return m_keychainAnswered; }

    // A message for an address that is plain http to another host ("" when it is https or this PC, or invalid).
    Q_INVOKABLE QString plainHttpWarning(const QString& url) const;
    // Checks and adds the server (replacing one of the same address): added(url) or addFailed(message) follows.
    // `plainHttpAccepted`: the user said yes to plainHttpWarning(). False at once (addError set) for a bad address.
    Q_INVOKABLE bool add(const QString& url, const QString& apiKey, bool plainHttpAccepted = false);
    Q_INVOKABLE bool remove(const QString& url);
    Q_INVOKABLE void refresh();  // reads the list and its keys again, then lists every server's models again
    Q_INVOKABLE int rowOfUrl(const QString& url) const;
    // "freetoken" (a FreeToken server: /v1/stats), "other", or "" (not listed yet).
    Q_INVOKABLE QString kindOf(const QString& url) const;
    Q_INVOKABLE QString apiKeyFor(const QString& url) const;  // as last read from the list (never shown)
    Q_INVOKABLE void clearAddError();
    Q_INVOKABLE void clearError();
    // Why the keychain could not be used, in the app's language.
    static QString keychainReason(const ft::KeychainAnswer& a);

signals:
    void countChanged();
    void addingChanged();
    void loadingChanged();
    void addErrorChanged();
    void lastErrorChanged();
    void added(const QString& url);
    void addFailed(const QString& message);
    void keyStorageChanged();

private:
    struct Row {
        QString url;
        bool hasKey = false;
        bool plainHttp = false;
        QString status = QStringLiteral("checking");  // "checking", "ok", "error"
        QString error;
        QVariantList models;
        QString kind;
        QString keyPlace;    // "keychain", "file", ""
        QString keyProblem;  // the key is in the keychain, which did not give it: why
    };
    struct Pending {
        QString url, key;
        bool plainHttpOk = false;
    };
    void load();
    void onLoaded(const ft::ServerListRead& read);
    void listAll();
    void onSaved(const QVariantList& models, const ft::ServerListWrite& w);
    void onListed(const QString& url, const QVariantList& models);
    void onListFailed(const QString& url, const QString& message);
    void setAddError(const QString& e);
    void setError(const QString& e);
    void setKeyStorage(bool keychainAnswered, const ft::KeychainAnswer& why);

    RemoteClient m_client;
    QList<Row> m_rows;
    Pending m_pending;
    bool m_saving = false, m_loading = false;
    bool m_reloadAfter = false;       // refresh() asked while a read was under way
    QHash<QString, QString> m_keys;   // url → API key, as last read or saved
    QSet<QString> m_removing;         // removed here, their removal not written yet
    QString m_addError, m_lastError;
    QString m_keyNote;
    bool m_keychainAnswered = false;
};

}  // namespace ft::ui
