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
    const KeychainAnswer probe = keychain_probe();
    setKeyStorage(probe.ok, probe);
    connect(&m_client, &RemoteClient::modelsListed, this, &RemoteServerListModel::onListed);
    connect(&m_client, &RemoteClient::listFailed, this,
            [this](const QString& url, const QString& message, const QString&) { onListFailed(url, message); });
    load();
    refresh();
}

RemoteServerListModel::~RemoteServerListModel() = default;

void RemoteServerListModel::load() {
    try {
        for (const RemoteServer& s : RemoteServerFile().load()) {
            Row r;
            r.url = QString::fromStdString(s.url);
            r.hasKey = s.key_place != KeyPlace::none;
            r.keyPlace = keyPlaceName(s.key_place);
            if (s.key_place == KeyPlace::keychain && s.api_key.empty())
                r.keyProblem = tr("Its API key is in the system keychain (%1), which did not give it: %2. Unlock the "
                                  "keychain, or add the server again with its key.")
                                   .arg(QString::fromUtf8(keychain_name()), keychainReason(s.key_problem));
            r.plainHttp = is_plain_http_remote(s.url);
            m_rows.append(r);
        }
    } catch (const ft::Error& e) {
        setError(tr("The server list cannot be read: %1").arg(describe(e)));
    }
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
    case KeychainProblem::timed_out: return tr("the keychain did not answer within %1 s").arg(kKeychainTimeoutS);
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
    if (!keychainAnswered) spdlog::info("servers: API keys go to {} ({})", path.toStdString(), keychain_problem_text(why));
    if (note == m_keyNote && keychainAnswered == m_keychainAnswered) return;
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
    const bool justAdded = adding() && url == m_pending.url;
    if (justAdded) {
        const Pending p = std::exchange(m_pending, {});
        emit addingChanged();
        KeyPlace place = KeyPlace::none;
        try {
            KeychainAnswer why;
            RemoteServer server;
            server.url = p.url.toStdString();
            server.api_key = p.key.toStdString();
            server.plain_http_ok = p.plainHttpOk;
            place = RemoteServerFile().put(server, &why);
            if (!p.key.isEmpty()) setKeyStorage(place == KeyPlace::keychain, why);
        } catch (const ft::Error& e) {
            setAddError(tr("The server cannot be saved: %1").arg(describe(e)));
            emit addFailed(m_addError);
            return;
        }
        if (rowOfUrl(url) < 0) {
            beginInsertRows({}, int(m_rows.size()), int(m_rows.size()));
            Row r;
            r.url = url;
            r.plainHttp = p.plainHttpOk;
            m_rows.append(r);
            endInsertRows();
            emit countChanged();
        }
        m_rows[rowOfUrl(url)].hasKey = !p.key.isEmpty();
        m_rows[rowOfUrl(url)].keyPlace = keyPlaceName(place);
        m_rows[rowOfUrl(url)].keyProblem.clear();
        spdlog::info("servers: added {} ({} model(s))", url.toStdString(), models.size());
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
    if (justAdded) emit added(url);
}

void RemoteServerListModel::onListFailed(const QString& url, const QString& message) {
    if (adding() && url == m_pending.url) {
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
    const int row = rowOfUrl(url);
    try {
        RemoteServerFile().remove(url.toStdString());
    } catch (const ft::Error& e) {
        setError(tr("The server cannot be removed: %1").arg(describe(e)));
        return false;
    }
    if (row >= 0) {
        beginRemoveRows({}, row, row);
        m_rows.removeAt(row);
        endRemoveRows();
        emit countChanged();
    }
    return true;
}

void RemoteServerListModel::refresh() {
    for (int i = 0; i < m_rows.size(); ++i) {
        m_rows[i].status = QStringLiteral("checking");
        emit dataChanged(index(i), index(i));
        m_client.listModels(m_rows[i].url, apiKeyFor(m_rows[i].url));
    }
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

QString RemoteServerListModel::apiKeyFor(const QString& url) const {
    try {
        if (const auto s = RemoteServerFile().find(url.toStdString())) return QString::fromStdString(s->api_key);
    } catch (const ft::Error&) {
    }
    return {};
}

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
