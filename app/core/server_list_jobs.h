// The remote server list (servers.json, RemoteServerFile) and its API keys in the OS keychain, read and written off
// the window's thread. A keychain call can wait for up to keychain_timeout() (30 s: an unlock prompt nobody answers, a
// Secret Service that hangs), so the desktop app makes every RemoteServerFile call through these functions: each runs
// on one thread kept for them, in the order they were asked for (a key is stored before a later job reads it back),
// and its answer comes back as a call of `done` on `context`'s thread — or never, if `context` is destroyed first.
// Nothing here throws: a file that cannot be read or written comes back as `error` (in English, as ft::Error words
// it: the message, " — " and its hint).
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QtConcurrent/QtConcurrentRun>

#include <functional>
#include <string>
#include <vector>

#include "keychain.h"
#include "remote_servers.h"

class QThreadPool;

namespace ft {

struct ServerListRead {
    std::vector<RemoteServer> servers;  // load: all; find: the one asked for, or none
    // Whether the keychain answers: the answer of the first key read from it, else of keychain_probe() (load only).
    KeychainAnswer keychain;
    QString error;  // the list could not be read (servers empty)
};

struct ServerListWrite {
    KeyPlace place = KeyPlace::none;  // put: where the key went
    KeychainAnswer why;               // put: the keychain's answer when the key went to the file instead
    bool removed = false;             // remove: the server was in the list
    QString error;                    // the list could not be written (nothing changed)
};

// The one thread these jobs run on (a pool of one, never destroyed: a job still waiting for the keychain when the
// app quits does not hold up its exit).
QThreadPool* server_list_thread();

// Runs `job` on server_list_thread(), then `done(result)` on `context`'s thread while `context` lives.
template <class Result>
void run_server_list_job(QObject* context, std::function<Result()> job, std::function<void(Result)> done) {
    auto* watcher = new QFutureWatcher<Result>(context);  // a child: gone with `context`, and its signal with it
    QObject::connect(watcher, &QFutureWatcherBase::finished, watcher, [watcher, done = std::move(done)] {
        done(watcher->result());
        watcher->deleteLater();
    });
    watcher->setFuture(QtConcurrent::run(server_list_thread(), std::move(job)));
}

// The list is RemoteServerFile() as of the call (FT_DATA_DIR read on the caller's thread).
// load(), with the keychain's state (see ServerListRead::keychain).
void server_list_load(QObject* context, std::function<void(ServerListRead)> done);
// find(url): one server with its key, or none.
void server_list_find(QObject* context, const QString& url, std::function<void(ServerListRead)> done);
void server_list_put(QObject* context, RemoteServer server, std::function<void(ServerListWrite)> done);
void server_list_remove(QObject* context, const QString& url, std::function<void(ServerListWrite)> done);

}  // namespace ft
