#include "remote_server_list_model.h"

#include <spdlog/spdlog.h>

#include "ft/error.h"
#include "ft/utf8.h"
#include "remote_servers.h"

namespace ft::ui {

namespace {

QString describe(const ft::Error& e) {
    QString text = QString::fromStdString(e.message());
    if (!e.hint().empty()) text += QStringLiteral(" — ") + QString::fromStdString(e.hint());
    return text;
}

QString keyPlaceName(KeyPlace p) {
    return p == KeyPlace::keychain ? QStringLiteral("keychain") : p == KeyPlace::file ? QStringLiteral("file") : QString();
}

}  // namespace

RemoteServerListModel::RemoteServerListModel(QObject* parent) : QAbstractListModel(parent) {
    m_keyNote = tr("Checking whether the system keychain can keep the API key…");
    connect(&m_client, &RemoteClient::modelsListed, this, &RemoteServerListModel::onListed);
    connect(&m_client, &RemoteClient::listFailed, this,
            [this](const QString& url, const QString& message, const QString&) { onListFailed(url, message); });
    load();
}

RemoteServerListModel::~RemoteServerListModel() = default;

void RemoteServerListModel::load() {
    if (m_loading) {
        m_reloadAfter = true;
        return;
    }
    m_loading = true;
    emit loadingChanged();
    server_list_load(this, [this](ServerListRead read) { onLoaded(read); });
}

void RemoteServerListModel::onLoaded(const ServerListRead& read) {
    if (!read.error.isEmpty()) setError(tr("The server list cannot be read: %1").arg(read.error));
    QSet<QString> listed;
    for (const RemoteServer& s : read.servers) {
        const QString url = QString::fromStdString(s.url);
        if (m_removing.contains(url)) continue;
        listed.insert(url);
        int row = rowOfUrl(url);
        if (row < 0) {
            row = int(m_rows.size());
            beginInsertRows({}, row, row);
            Row r;
            r.url = url;
            m_rows.append(r);
            endInsertRows();
            emit countChanged();
        }
        Row& r = m_rows[row];
        r.hasKey = s.key_place != KeyPlace::none;
        r.keyPlace = keyPlaceName(s.key_place);
        r.keyProblem.clear();
        if (s.key_place == KeyPlace::keychain && s.api_key.empty())
            r.keyProblem = tr("Its API key is in the system keychain (%1), which did not give it: %2. Unlock the "
                              "keychain and press Refresh, or add the server again with its key.")
                               .arg(QString::fromUtf8(keychain_name()), keychainReason(s.key_problem));
        r.plainHttp = is_plain_http_remote(s.url);
        m_keys.insert(url, QString::fromStdString(s.api_key));
        emit dataChanged(index(row), index(row));
    }
    // Servers no longer in the file (removed by another window or by hand).
    if (read.error.isEmpty())
        for (int i = int(m_rows.size()) - 1; i >= 0; --i)
            if (!listed.contains(m_rows[i].url) && !(adding() && m_rows[i].url == m_pending.url)) {
                beginRemoveRows({}, i, i);
                m_keys.remove(m_rows[i].url);
                m_rows.removeAt(i);
                endRemoveRows();
                emit countChanged();
            }
    setKeyStorage(read.keychain.ok, read.keychain);
    m_loading = false;
    emit loadingChanged();
    if (std::exchange(m_reloadAfter, false)) load();
    else listAll();
}

int RemoteServerListModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

QVariant RemoteServerListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= m_rows.size()) return {};
    const Row& r = m_rows.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
    case UrlRole: return r.url;
    case HasKeyRole: return r.hasKey;
    case PlainHttpRole: return r.plainHttp;
    case StatusRole: return r.status;
    case ErrorRole: return r.error;
    case ModelsRole: return r.models;
    case KindRole: return r.kind;
    case KeyPlaceRole: return r.keyPlace;
    default: return {};
    }
}

QHash<int, QByteArray> RemoteServerListModel::roleNames() const {
    return {{UrlRole, "url"},         {HasKeyRole, "hasKey"}, {PlainHttpRole, "plainHttp"}, {StatusRole, "status"},
            {ErrorRole, "error"},     {ModelsRole, "models"}, {KindRole, "kind"},     {KeyPlaceRole, "keyPlace"}};
}

QString RemoteServerListModel::keychainReason(const KeychainAnswer& a) {
    switch (a.problem) {
    case KeychainProblem::not_built: return tr("this build of FreeToken has no keychain support");
    case KeychainProblem::turned_off: return tr("turned off by FT_KEYCHAIN=off");
    case KeychainProblem::no_session_bus: return tr("no D-Bus session bus is running");
    case KeychainProblem::no_service: return tr("no keychain service is running");
    case KeychainProblem::timed_out:
        return tr("the keychain did not answer within %1 s").arg(qint64(keychain_timeout().count()));
    case KeychainProblem::refused:
    case KeychainProblem::none: break;
    }
    return tr("the keychain refused to store or give the key");
}

void RemoteServerListModel::setKeyStorage(bool keychainAnswered, const KeychainAnswer& why) {
    const QString path = QString::fromStdString(ft::path_to_utf8(RemoteServerFile().path()));
    QString note;
    if (keychainAnswered)
        note = tr("The API key is kept in the system keychain (%1), not in FreeToken's files.").arg(QString::fromUtf8(keychain_name()));
    else
#ifdef _WIN32
        note = tr("The Windows Credential Manager cannot be used (%1), so the API key is kept in %2, in your user "
                  "profile, which other users of this PC cannot read.").arg(keychainReason(why), path);
#else
        note = tr("The system keychain cannot be used (%1), so the API key is kept in %2, a file only your user "
                  "account can read (permissions 0600).").arg(keychainReason(why), path);
#endif
    if (note == m_keyNote && keychainAnswered == m_keychainAnswered) return;
    if (!keychainAnswered) spdlog::info("servers: API keys go to {} ({})", path.toStdString(), keychain_problem_text(why));
    m_keyNote = note;
    m_keychainAnswered = keychainAnswered;
    emit keyStorageChanged();
}

QString RemoteServerListModel::plainHttpWarning(const QString& url) const {
    try {
        const std::string u = normalize_server_url(url.toStdString());
        if (!is_plain_http_remote(u)) return {};
        return tr("%1 is plain http to another computer: your messages, the replies and the API key travel "
                  "unencrypted, and anyone on the network path can read them. Use https if the server offers it. "
                  "Add it anyway?").arg(QString::fromStdString(u));
    } catch (const ft::Error&) {
        return {};
    }
}

bool RemoteServerListModel::add(const QString& url, const QString& apiKey, bool plainHttpAccepted) {
    if (adding()) {
        setAddError(tr("A server is being checked; wait for it."));
        return false;
    }
    std::string normalized;
    try {
        normalized = normalize_server_url(url.toStdString());
    } catch (const ft::Error& e) {
        setAddError(tr("This address cannot be used: %1").arg(describe(e)));
        return false;
    }
    const QString key = apiKey.trimmed();
    if (key.contains(QLatin1Char('\n')) || key.contains(QLatin1Char(' '))) {
        setAddError(tr("The API key has spaces or line breaks in it. Paste the key alone."));
        return false;
    }
    if (is_plain_http_remote(normalized) && !plainHttpAccepted) {
        setAddError(plainHttpWarning(url));
        return false;
    }
    setAddError({});
    m_pending = Pending{QString::fromStdString(normalized), key, is_plain_http_remote(normalized)};
    emit addingChanged();
    spdlog::info("servers: checking {}", normalized);  // the address only, never the key
    m_client.listModels(m_pending.url, m_pending.key);
    return true;
}

void RemoteServerListModel::onListed(const QString& url, const QVariantList& models) {
    if (adding() && url == m_pending.url && !m_saving) {
        // The server answered: kept now, its key to the keychain (else the file) off this thread.
        m_saving = true;
        emit addingChanged();
        RemoteServer server;
        server.url = m_pending.url.toStdString();
        server.api_key = m_pending.key.toStdString();
        server.plain_http_ok = m_pending.plainHttpOk;
        m_removing.remove(url);
        server_list_put(this, std::move(server), [this, models](ServerListWrite w) { onSaved(models, w); });
        return;
    }
    const int row = rowOfUrl(url);
    if (row < 0) return;
    Row& r = m_rows[row];
    r.status = QStringLiteral("ok");
    r.error.clear();
    r.models = models;
    r.kind = QStringLiteral("other");
    for (const QVariant& m : models)
        if (m.toMap().value("ownedBy").toString() == QLatin1String("freetoken")) r.kind = QStringLiteral("freetoken");
    emit dataChanged(index(row), index(row));
}

void RemoteServerListModel::onSaved(const QVariantList& models, const ServerListWrite& w) {
    const Pending p = std::exchange(m_pending, {});
    m_saving = false;
    emit addingChanged();
    if (!w.error.isEmpty()) {
        setAddError(tr("The server cannot be saved: %1").arg(w.error));
        emit addFailed(m_addError);
        return;
    }
    if (!p.key.isEmpty()) setKeyStorage(w.place == KeyPlace::keychain, w.why);
    if (w.place == KeyPlace::file && !p.key.isEmpty())
        spdlog::warn("servers: the key of {} went to {} ({})", p.url.toStdString(),
                     ft::path_to_utf8(RemoteServerFile().path()), keychain_problem_text(w.why));
    if (rowOfUrl(p.url) < 0) {
        beginInsertRows({}, int(m_rows.size()), int(m_rows.size()));
        Row r;
        r.url = p.url;
        r.plainHttp = p.plainHttpOk;
        m_rows.append(r);
        endInsertRows();
        emit countChanged();
    }
    Row& r = m_rows[rowOfUrl(p.url)];
    r.hasKey = !p.key.isEmpty();
    r.keyPlace = keyPlaceName(w.place);
    r.keyProblem.clear();
    m_keys.insert(p.url, p.key);
    spdlog::info("servers: added {} ({} model(s))", p.url.toStdString(), models.size());
    onListed(p.url, models);
    emit added(p.url);
}

void RemoteServerListModel::onListFailed(const QString& url, const QString& message) {
    if (adding() && url == m_pending.url && !m_saving) {
        m_pending = {};
        emit addingChanged();
        spdlog::warn("servers: {} was not added: {}", url.toStdString(), message.toStdString());
        setAddError(message);
        emit addFailed(message);
        return;
    }
    const int row = rowOfUrl(url);
    if (row < 0) return;
    m_rows[row].status = QStringLiteral("error");
    m_rows[row].error = m_rows[row].keyProblem.isEmpty() ? message : message + QLatin1Char(' ') + m_rows[row].keyProblem;
    emit dataChanged(index(row), index(row));
}

bool RemoteServerListModel::remove(const QString& url) {
    // Gone from the list at once; the file and the keychain follow off this thread (a keychain that hangs delays
    // only the erasing of the key).
    const int row = rowOfUrl(url);
    if (row >= 0) {
        beginRemoveRows({}, row, row);
        m_rows.removeAt(row);
        endRemoveRows();
        emit countChanged();
    }
    m_keys.remove(url);
    m_removing.insert(url);
    server_list_remove(this, url, [this, url](ServerListWrite w) {
        m_removing.remove(url);
        if (!w.error.isEmpty()) {
            setError(tr("The server cannot be removed: %1").arg(w.error));
            load();  // the rows as the file still has them
        }
    });
    return true;
}

void RemoteServerListModel::refresh() {
    for (int i = 0; i < m_rows.size(); ++i) {
        m_rows[i].status = QStringLiteral("checking");
        emit dataChanged(index(i), index(i));
    }
    load();  // the keys again (the keychain may have been unlocked meanwhile), then every server's models
}

void RemoteServerListModel::listAll() {
    for (const Row& r : m_rows) m_client.listModels(r.url, m_keys.value(r.url));
}

int RemoteServerListModel::rowOfUrl(const QString& url) const {
    for (int i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].url == url) return i;
    return -1;
}

QString RemoteServerListModel::kindOf(const QString& url) const {
    const int row = rowOfUrl(url);
    return row < 0 ? QString() : m_rows[row].kind;
}

QString RemoteServerListModel::apiKeyFor(const QString& url) const { return m_keys.value(url); }

void RemoteServerListModel::setAddError(const QString& e) {
    if (m_addError == e) return;
    m_addError = e;
    emit addErrorChanged();
}

void RemoteServerListModel::clearAddError() { setAddError({}); }

void RemoteServerListModel::setError(const QString& e) {
    if (m_lastError == e) return;
    m_lastError = e;
    emit lastErrorChanged();
}

void RemoteServerListModel::clearError() { setError({}); }

}  // namespace ft::ui
