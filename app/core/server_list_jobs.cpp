#include "server_list_jobs.h"

#include <QThreadPool>

#include "ft/error.h"

namespace ft {

namespace {

QString describe(const Error& e) {
    QString text = QString::fromStdString(e.message());
    if (!e.hint().empty()) text += QStringLiteral(" — ") + QString::fromStdString(e.hint());
    return text;
}

// The keychain's state as the list's keys show it; asked directly only when no key was read from it.
KeychainAnswer keychain_state(const std::vector<RemoteServer>& servers) {
    for (const RemoteServer& s : servers) {
        if (s.key_place != KeyPlace::keychain) continue;
        if (!s.api_key.empty()) {
            KeychainAnswer ok;
            ok.ok = true;
            return ok;
        }
        // Not found (ok) says nothing of the keychain; a failure does.
        if (!s.key_problem.ok && s.key_problem.problem != KeychainProblem::none) return s.key_problem;
    }
    return keychain_probe();
}

}  // namespace

QThreadPool* server_list_thread() {
    static QThreadPool* pool = [] {
        auto* p = new QThreadPool;  // never deleted: see the header
        p->setMaxThreadCount(1);
        p->setObjectName(QStringLiteral("server-list"));
        return p;
    }();
    return pool;
}

void server_list_load(QObject* context, std::function<void(ServerListRead)> done) {
    const RemoteServerFile list;
    run_server_list_job<ServerListRead>(context, [list] {
        ServerListRead r;
        try {
            r.servers = list.load();
        } catch (const Error& e) {
            r.error = describe(e);
        }
        r.keychain = keychain_state(r.servers);
        return r;
    }, std::move(done));
}

void server_list_find(QObject* context, const QString& url, std::function<void(ServerListRead)> done) {
    const RemoteServerFile list;
    run_server_list_job<ServerListRead>(context, [list, u = url.toStdString()] {
        ServerListRead r;
        try {
            if (auto s = list.find(u)) {
                r.keychain = s->key_problem;
                r.servers.push_back(std::move(*s));
            }
        } catch (const Error& e) {
            r.error = describe(e);
        }
        return r;
    }, std::move(done));
}

void server_list_put(QObject* context, RemoteServer server, std::function<void(ServerListWrite)> done) {
    const RemoteServerFile list;
    run_server_list_job<ServerListWrite>(context, [list, server = std::move(server)] {
        ServerListWrite w;
        try {
            w.place = list.put(server, &w.why);
        } catch (const Error& e) {
            w.error = describe(e);
        }
        return w;
    }, std::move(done));
}

void server_list_remove(QObject* context, const QString& url, std::function<void(ServerListWrite)> done) {
    const RemoteServerFile list;
    run_server_list_job<ServerListWrite>(context, [list, u = url.toStdString()] {
        ServerListWrite w;
        try {
            w.removed = list.remove(u);
        } catch (const Error& e) {
            w.error = describe(e);
        }
        return w;
    }, std::move(done));
}

}  // namespace ft
