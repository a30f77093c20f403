// API keys of remote servers in the OS keychain (app/server keychain.h, RemoteServerFile) against a real Secret
// Service: a D-Bus session bus and gnome-keyring-daemon of the test's own (an unlocked keyring in a temporary home,
// so a developer's keyring is never touched), started when both programs are installed; else those cases are
// skipped, saying so. Without the keychain — turned off, or no session bus — the key goes to the 0600 file and the
// Add dialog's note says why. Keys found in the file move to the keychain, read back before the file forgets them;
// a key in a keychain that does not answer is kept (not dropped) through later saves.
//
// `ft chat --attach` reads the keys the app stored there.
//
// The window while the keychain hangs (its daemon stopped with SIGSTOP: every call waits until it is cancelled): the
// real Main.qml, a server added through the dialog, a chat waiting for its key, and a start of the app, each with the
// event loop's lateness measured (a 10 ms timer) — the keychain is asked off the window's thread, the dialog and the
// chat say what they wait for, and a keychain that times out falls back to the 0600 file (a new key) or says why the
// key is missing (a key that is in it).
#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QThreadPool>
#include <QTimer>

#include <csignal>
#include <functional>

#include <signal.h>

#include "app_harness.h"
#include "chat_session.h"
#include "keychain.h"
#include "log_hub.h"
#include "remote_server_list_model.h"
#include "remote_servers.h"
#include "server_list_jobs.h"

namespace {

QByteArray fileText(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// An OpenAI-compatible server of the test's own on loopback that wants the API key `key`: /v1/models lists "m1",
// /v1/chat/completions streams "Hello there." (each request's Authorization header is kept); a wrong key gets 401.
class KeyedServer : public QTcpServer {
public:
    QList<QByteArray> authorizations;
    QByteArray lastBody;  // the last request's body
    explicit KeyedServer(QByteArray key) : m_key(std::move(key)) {
        connect(this, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* s = nextPendingConnection()) {
                auto* buf = new QByteArray;
                connect(s, &QTcpSocket::readyRead, s, [this, s, buf] {
                    *buf += s->readAll();
                    const qsizetype end = buf->indexOf("\r\n\r\n");
                    if (end < 0) return;
                    const QByteArray head = buf->left(end);
                    qsizetype length = 0;
                    QByteArray auth;
                    for (const QByteArray& line : head.split('\n')) {
                        if (line.toLower().startsWith("content-length:")) length = line.mid(15).trimmed().toLongLong();
                        if (line.toLower().startsWith("authorization:")) auth = line.mid(14).trimmed();
                    }
                    if (buf->size() < end + 4 + length) return;
                    lastBody = buf->mid(end + 4, length);
                    buf->clear();
                    authorizations << auth;
                    QByteArray type = "application/json", body;
                    QByteArray status = "200 OK";
                    if (auth != "Bearer " + m_key) {
                        status = "401 Unauthorized";
                        body = R"({"error":{"message":"Invalid API key","type":"authentication_error"}})";
                    } else if (head.startsWith("GET /v1/models")) {
                        body = R"({"object":"list","data":[{"id":"m1","object":"model","owned_by":"test"},)"
                               R"({"id":"m2","object":"model","owned_by":"test"}]})";
                    } else if (head.startsWith("POST /v1/chat/completions")) {
                        type = "text/event-stream";
                        for (const char* piece : {"Hello", " there", "."}) {
                            const QJsonObject choice{{"index", 0}, {"delta", QJsonObject{{"content", piece}}}, {"finish_reason", QJsonValue::Null}};
                            body += "data: " + QJsonDocument(QJsonObject{{"id", "c1"}, {"object", "chat.completion.chunk"},
                                                                         {"model", "m1"}, {"choices", QJsonArray{choice}}})
                                                   .toJson(QJsonDocument::Compact) + "\n\n";
                        }
                        const QJsonObject last{{"index", 0}, {"delta", QJsonObject{}}, {"finish_reason", "stop"}};
                        body += "data: " + QJsonDocument(QJsonObject{{"id", "c1"}, {"object", "chat.completion.chunk"},
                                                                     {"model", "m1"}, {"choices", QJsonArray{last}}})
                                               .toJson(QJsonDocument::Compact) + "\n\ndata: [DONE]\n\n";
                    } else {
                        status = "404 Not Found";
                        body = "{}";
                    }
                    s->write("HTTP/1.1 " + status + "\r\nContent-Type: " + type + "\r\nConnection: close\r\nContent-Length: " +
                             QByteArray::number(body.size()) + "\r\n\r\n" + body);
                    s->disconnectFromHost();
                });
                connect(s, &QTcpSocket::disconnected, s, [s, buf] {
                    delete buf;
                    s->deleteLater();
                });
            }
        });
    }
    QString url() const { return QStringLiteral("http://127.0.0.1:%1").arg(serverPort()); }

private:
    QByteArray m_key;
};

// The event loop's lateness while `busy()` holds (at most `limitMs`): a 10 ms timer and the longest gap between its
// ticks beyond its interval.
struct Lateness {
    qint64 worstMs = 0, ticks = 0, elapsedMs = 0;
};
Lateness measure_lateness(const std::function<bool()>& busy, int limitMs) {
    Lateness l;
    QElapsedTimer clock;
    clock.start();
    qint64 last = 0;
    QTimer probe;
    probe.setTimerType(Qt::PreciseTimer);
    probe.setInterval(10);
    QObject::connect(&probe, &QTimer::timeout, [&] {
        const qint64 now = clock.elapsed();
        l.worstMs = std::max(l.worstMs, now - last - 10);
        last = now;
        ++l.ticks;
    });
    probe.start();
    while (busy() && clock.elapsed() < limitMs) QTest::qWait(5);
    probe.stop();
    l.elapsedMs = clock.elapsed();
    l.worstMs = std::max(l.worstMs, l.elapsedMs - last - 10);
    return l;
}

}  // namespace

class TestKeychain : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;  // the keyring's home and FT_DATA_DIR
    QProcess m_bus, m_keyring;
    QString m_noKeyring;   // why no Secret Service could be started ("" when it runs)
    QByteArray m_address;

    ft::LogHub m_hub;
    std::unique_ptr<ft::test::UiHarness> m_ui;

    // The keyring daemon stopped (SIGSTOP: the bus still takes every call, no answer comes) or running again.
    void freezeKeyring(bool frozen) { ::kill(pid_t(m_keyring.processId()), frozen ? SIGSTOP : SIGCONT); }
    ft::ui::RemoteServerListModel* servers() const {
        return qobject_cast<ft::ui::RemoteServerListModel*>(m_ui->object("serverModel"));
    }
    ft::ui::ChatSession* session() const { return qobject_cast<ft::ui::ChatSession*>(m_ui->object("chatSession")); }
    bool startApp() {
        m_ui = std::make_unique<ft::test::UiHarness>(&m_hub);
        return m_ui->load() && servers() && session();
    }
    // Models → Add a server…: the address and key typed, Add server pressed (the check and the save go on after).
    bool pressAddServer(const QString& url, const QString& key) {
        m_ui->showPage("models");
        if (!m_ui->click("addServerButton")) return false;
        if (!QTest::qWaitFor([&] { return m_ui->object("addServerDialog")->property("opened").toBool(); }, 5000)) return false;
        m_ui->item("serverUrlField")->setProperty("text", url);
        m_ui->item("serverKeyField")->setProperty("text", key);
        m_ui->settle(50);
        return m_ui->click("addServerConfirm");
    }

    QString dataDir() const { return m_home.filePath("data"); }
    QString listPath() const { return dataDir() + "/servers.json"; }
    std::string file() const { return listPath().toStdString(); }

    void keychainOn() {
        qunsetenv("FT_KEYCHAIN");
        qputenv("DBUS_SESSION_BUS_ADDRESS", m_address);
    }

    void startSecretService() {
        const QString daemon = QStandardPaths::findExecutable("dbus-daemon");
        const QString keyring = QStandardPaths::findExecutable("gnome-keyring-daemon");
        if (daemon.isEmpty() || keyring.isEmpty()) {
            m_noKeyring = "dbus-daemon or gnome-keyring-daemon is not installed (Debian: dbus-daemon, gnome-keyring)";
            return;
        }
        // A session bus without service activation: only our keyring daemon can answer as the Secret Service (with
        // activation, the first call would start another, locked, gnome-keyring of the bus's own).
        QFile config(m_home.filePath("bus.conf"));
        if (!config.open(QIODevice::WriteOnly)) {
            m_noKeyring = "cannot write the bus configuration";
            return;
        }
        config.write("<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\"\n"
                     " \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n"
                     "<busconfig><type>session</type><listen>unix:tmpdir=/tmp</listen><auth>EXTERNAL</auth>"
                     "<policy context=\"default\"><allow send_destination=\"*\" eavesdrop=\"true\"/>"
                     "<allow eavesdrop=\"true\"/><allow own=\"*\"/></policy></busconfig>\n");
        config.close();
        m_bus.start(daemon, {"--config-file=" + config.fileName(), "--nofork", "--nopidfile", "--print-address=1"});
        if (!m_bus.waitForStarted(5000) || !m_bus.waitForReadyRead(5000)) {
            m_noKeyring = "dbus-daemon did not start: " + m_bus.errorString();
            return;
        }
        m_address = m_bus.readLine().trimmed();
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("DBUS_SESSION_BUS_ADDRESS", QString::fromUtf8(m_address));
        env.insert("HOME", m_home.path());
        env.insert("XDG_DATA_HOME", m_home.filePath("share"));
        env.insert("XDG_RUNTIME_DIR", m_home.filePath("run"));
        QDir().mkpath(m_home.filePath("run"));
        m_keyring.setProcessEnvironment(env);
        m_keyring.setProcessChannelMode(QProcess::MergedChannels);
        // --unlock reads the login keyring's password on stdin, creating that keyring (unlocked) when it is new.
        m_keyring.start(keyring, {"--foreground", "--unlock", "--components=secrets"});
        if (!m_keyring.waitForStarted(5000)) {
            m_noKeyring = "gnome-keyring-daemon did not start: " + m_keyring.errorString();
            return;
        }
        m_keyring.write("test-keyring-password");
        m_keyring.closeWriteChannel();
        keychainOn();
        // Ready when the Secret Service answers on the bus.
        for (int i = 0; i < 50; ++i) {
            if (ft::keychain_probe().ok) return;
            QTest::qWait(100);
        }
        m_noKeyring = "gnome-keyring-daemon did not answer as the Secret Service: " +
                      QString::fromStdString(ft::keychain_problem_text(ft::keychain_probe())) + " " +
                      QString::fromUtf8(m_keyring.readAll());
    }

private slots:
    void initTestCase() {
        QVERIFY(m_home.isValid());
        qputenv("FT_DATA_DIR", dataDir().toUtf8());
        QDir().mkpath(dataDir());
        if (QByteArray(ft::keychain_name()).isEmpty()) m_noKeyring = "this build has no keychain support (no libsecret-1-dev)";
        else startSecretService();
        if (!m_noKeyring.isEmpty()) qWarning("keychain cases will be skipped: %s", qPrintable(m_noKeyring));
    }

    void turnedOffTheKeyGoesToThePrivateFile() {
        qputenv("FT_KEYCHAIN", "off");
        QFile::remove(listPath());
        ft::RemoteServerFile list(file());
        ft::KeychainAnswer why;
        ft::RemoteServer s;
        s.url = "http://127.0.0.1:9001";
        s.api_key = "k-file-1";
        QCOMPARE(int(list.put(s, &why)), int(ft::KeyPlace::file));
        QCOMPARE(int(why.problem), int(ft::KeychainProblem::turned_off));
        QVERIFY(fileText(listPath()).contains("k-file-1"));
        QVERIFY(list.private_to_user());
        const auto back = list.find(s.url);
        QVERIFY(back && back->api_key == "k-file-1" && back->key_place == ft::KeyPlace::file);
        // The Add dialog's note says where and why.
        ft::ui::RemoteServerListModel model;
        QTRY_VERIFY(!model.loading());
        QVERIFY(!model.keysInKeychain());
        QVERIFY2(model.keyStorageNote().contains("turned off by FT_KEYCHAIN=off") &&
                     model.keyStorageNote().contains("permissions 0600") && model.keyStorageNote().contains(listPath()),
                 qPrintable(model.keyStorageNote()));
        QCOMPARE(model.index(0).data(ft::ui::RemoteServerListModel::KeyPlaceRole).toString(), QStringLiteral("file"));
    }

    void withoutASessionBusTheKeyGoesToTheFile() {
        qunsetenv("FT_KEYCHAIN");
        qunsetenv("DBUS_SESSION_BUS_ADDRESS");
        const QByteArray runtime = qgetenv("XDG_RUNTIME_DIR");
        qputenv("XDG_RUNTIME_DIR", m_home.filePath("no-bus-here").toUtf8());  // no "bus" socket in it
        const ft::KeychainAnswer a = ft::keychain_probe();
        ft::RemoteServerFile list(file());
        ft::KeychainAnswer why;
        ft::RemoteServer s;
        s.url = "http://127.0.0.1:9002";
        s.api_key = "k-file-2";
        const ft::KeyPlace place = list.put(s, &why);
        ft::ui::RemoteServerListModel model;
        QTRY_VERIFY(!model.loading());
        const QString note = model.keyStorageNote();
        qputenv("XDG_RUNTIME_DIR", runtime);
        if (QByteArray(ft::keychain_name()).isEmpty()) {
            QCOMPARE(int(a.problem), int(ft::KeychainProblem::not_built));
            QVERIFY2(note.contains("no keychain support"), qPrintable(note));
        } else {
            QCOMPARE(int(a.problem), int(ft::KeychainProblem::no_session_bus));
            QCOMPARE(int(why.problem), int(ft::KeychainProblem::no_session_bus));
            QVERIFY2(note.contains("no D-Bus session bus is running"), qPrintable(note));
        }
        QCOMPARE(int(place), int(ft::KeyPlace::file));
        QVERIFY(fileText(listPath()).contains("k-file-2"));
    }

    void keysInTheFileMoveToTheKeychain() {
        if (!m_noKeyring.isEmpty()) QSKIP(qPrintable("no Secret Service: " + m_noKeyring));
        keychainOn();
        // The two keys the cases above left in the file (the list of an earlier version looks the same).
        QVERIFY(fileText(listPath()).contains("k-file-1") && fileText(listPath()).contains("k-file-2"));
        ft::RemoteServerFile list(file());
        const auto servers = list.load();
        QCOMPARE(servers.size(), size_t(2));
        QCOMPARE(servers[0].api_key, std::string("k-file-1"));
        QCOMPARE(servers[1].api_key, std::string("k-file-2"));
        QCOMPARE(int(servers[0].key_place), int(ft::KeyPlace::keychain));
        const QByteArray text = fileText(listPath());
        QVERIFY2(!text.contains("k-file-1") && !text.contains("k-file-2") && text.contains("\"key_in_keychain\": true"),
                 text.constData());
        const ft::KeychainAnswer a = ft::keychain_lookup(file(), "http://127.0.0.1:9001");
        QVERIFY(a.ok && a.found);
        QCOMPARE(a.value, std::string("k-file-1"));
        // Another list (another FT_DATA_DIR) does not see them.
        QVERIFY(!ft::keychain_lookup(file() + ".other", "http://127.0.0.1:9001").found);
    }

    void aNewKeyGoesToTheKeychainAndTheNoteSaysSo() {
        if (!m_noKeyring.isEmpty()) QSKIP(qPrintable("no Secret Service: " + m_noKeyring));
        keychainOn();
        ft::RemoteServerFile list(file());
        ft::RemoteServer s;
        s.url = "https://llm.example.com";
        s.api_key = "k-chain-3";
        ft::KeychainAnswer why;
        QVERIFY2(list.put(s, &why) == ft::KeyPlace::keychain, ft::keychain_problem_text(why).c_str());
        QVERIFY(!fileText(listPath()).contains("k-chain-3"));
        QCOMPARE(list.find(s.url)->api_key, std::string("k-chain-3"));
        ft::ui::RemoteServerListModel model;
        QTRY_VERIFY(!model.loading());
        QVERIFY(model.keysInKeychain());
        QVERIFY2(model.keyStorageNote().contains("system keychain (Secret Service)"), qPrintable(model.keyStorageNote()));
        QCOMPARE(model.index(2).data(ft::ui::RemoteServerListModel::KeyPlaceRole).toString(), QStringLiteral("keychain"));
        QVERIFY(model.index(2).data(ft::ui::RemoteServerListModel::HasKeyRole).toBool());
        QCOMPARE(model.apiKeyFor(QString::fromStdString(s.url)), QStringLiteral("k-chain-3"));
    }

    void aKeyInAKeychainThatDoesNotAnswerIsNotLost() {
        if (!m_noKeyring.isEmpty()) QSKIP(qPrintable("no Secret Service: " + m_noKeyring));
        qputenv("FT_KEYCHAIN", "off");
        ft::RemoteServerFile list(file());
        auto servers = list.load();
        QCOMPARE(servers.size(), size_t(3));
        QCOMPARE(int(servers[2].key_place), int(ft::KeyPlace::keychain));
        QVERIFY(servers[2].api_key.empty());
        QCOMPARE(int(servers[2].key_problem.problem), int(ft::KeychainProblem::turned_off));
        {
            ft::ui::RemoteServerListModel model;  // says where the key is and why it is not there
            QTRY_VERIFY(!model.loading());
            QVERIFY(model.index(2).data(ft::ui::RemoteServerListModel::HasKeyRole).toBool());
        }
        // Another server saved meanwhile (to the file): the keychain entries stay marked, not emptied.
        ft::RemoteServer other;
        other.url = "http://127.0.0.1:9004";
        other.api_key = "k-file-4";
        QCOMPARE(int(list.put(other)), int(ft::KeyPlace::file));
        QVERIFY(fileText(listPath()).contains("k-file-4"));
        keychainOn();
        servers = list.load();  // and k-file-4 moves over now
        QCOMPARE(servers.size(), size_t(4));
        QCOMPARE(servers[2].api_key, std::string("k-chain-3"));
        QCOMPARE(servers[3].api_key, std::string("k-file-4"));
        QVERIFY(!fileText(listPath()).contains("k-file-4"));
    }

    void removingAServerRemovesItsKey() {
        if (!m_noKeyring.isEmpty()) QSKIP(qPrintable("no Secret Service: " + m_noKeyring));
        keychainOn();
        ft::RemoteServerFile list(file());
        QVERIFY(ft::keychain_lookup(file(), "https://llm.example.com").found);
        QVERIFY(list.remove("https://llm.example.com"));
        QVERIFY(!ft::keychain_lookup(file(), "https://llm.example.com").found);
        // A server saved again without a key leaves none behind in the keychain.
        ft::RemoteServer s;
        s.url = "http://127.0.0.1:9001";
        QCOMPARE(int(list.put(s)), int(ft::KeyPlace::none));
        QVERIFY(!ft::keychain_lookup(file(), s.url).found);
        QVERIFY(ft::keychain_lookup(file(), "http://127.0.0.1:9002").found);  // the others are still there
    }

    void ftChatAttachReadsTheKeyFromTheKeychain() {
        // `ft chat --attach` (another process, Qt-free) finds the key the app stored, and says where a refused one
        // came from without printing it.
        if (!m_noKeyring.isEmpty()) QSKIP(qPrintable("no Secret Service: " + m_noKeyring));
        keychainOn();
        KeyedServer server("k-cli-5");
        QVERIFY(server.listen(QHostAddress::LocalHost));
        ft::RemoteServer s;
        s.url = server.url().toStdString();
        s.api_key = "k-cli-5";
        QCOMPARE(int(ft::RemoteServerFile(file()).put(s)), int(ft::KeyPlace::keychain));
        QVERIFY(!fileText(listPath()).contains("k-cli-5"));
        // The server runs on this test's event loop: the process is waited for without blocking it.
        const auto attach = [&](QString* out, QString* err, const QStringList& more = {}) {
            QProcess cli;
            cli.start(QStringLiteral(FT_EXE), QStringList{"chat", "--attach", server.url(), "--max-tokens", "8"} + more);
            cli.write("hi\n");
            cli.closeWriteChannel();
            if (!QTest::qWaitFor([&] { return cli.state() == QProcess::NotRunning; }, 30000)) cli.kill();
            cli.waitForFinished(5000);
            *out = QString::fromUtf8(cli.readAllStandardOutput());
            *err = QString::fromUtf8(cli.readAllStandardError());
            return cli.exitStatus() == QProcess::NormalExit ? cli.exitCode() : -1;
        };
        QString out, err;
        QCOMPARE(attach(&out, &err), 0);
        QVERIFY2(out.contains("Hello there."), qPrintable(out + err));
        QCOMPARE(server.authorizations.last(), QByteArray("Bearer k-cli-5"));
        // The first model by default, the others named; --model chooses.
        QVERIFY2(err.contains("the server also serves m2: choose with --model NAME"), qPrintable(err));
        QCOMPARE(QJsonDocument::fromJson(server.lastBody).object().value("model").toString(), QStringLiteral("m1"));
        QCOMPARE(attach(&out, &err, {"--model", "m2"}), 0);
        QCOMPARE(QJsonDocument::fromJson(server.lastBody).object().value("model").toString(), QStringLiteral("m2"));
        // A stale key in the keychain: refused, and the message names the keychain as its source.
        QVERIFY(ft::keychain_store(file(), s.url, "k-stale-6").ok);
        QCOMPARE(attach(&out, &err), 2);
        QVERIFY2(err.contains("refused the API key (from the key saved for this server in the Secret Service)") &&
                     !err.contains("k-stale-6") && !out.contains("k-stale-6"),
                 qPrintable(err));
        QVERIFY(ft::RemoteServerFile(file()).remove(s.url));
    }

    void theWindowStaysResponsiveWhileTheKeychainHangs() {
        if (!m_noKeyring.isEmpty()) QSKIP(qPrintable("no Secret Service: " + m_noKeyring));
        keychainOn();
        ft::set_keychain_timeout(std::chrono::seconds(3));
        QFile::remove(listPath());
        KeyedServer first("k-window-1"), second("k-window-2");
        QVERIFY(first.listen(QHostAddress::LocalHost) && second.listen(QHostAddress::LocalHost));
        QVERIFY(startApp());
        QTRY_VERIFY(!servers()->loading());
        QVERIFY(servers()->keysInKeychain());

        // 0. The probe itself: a keychain call on the window's thread, as the app made them before, shows as a block
        // of the whole timeout.
        freezeKeyring(true);
        const Lateness blocking = measure_lateness([&, once = true]() mutable {
            if (std::exchange(once, false)) ft::keychain_probe();
            return false;
        }, 10000);
        freezeKeyring(false);
        qInfo("a keychain call on the window's thread: worst event-loop lateness %lld ms", blocking.worstMs);
        QVERIFY2(blocking.worstMs >= 2500, qPrintable(QString::number(blocking.worstMs)));

        // 1. A server added while the keychain hangs: the dialog says it is saving, the window keeps its pace, and
        // after the timeout the key goes to the 0600 file, the note saying why.
        freezeKeyring(true);
        QVERIFY(pressAddServer(first.url(), "k-window-1"));
        QTRY_VERIFY_WITH_TIMEOUT(servers()->saving(), 5000);  // the server answered; its key is being stored
        m_ui->settle(50);
        const QString saying = m_ui->item("addServerChecking")->property("text").toString();
        QVERIFY2(m_ui->item("addServerChecking")->isVisible() && saying.contains("keychain"), qPrintable(saying));
        const Lateness adding = measure_lateness([&] { return servers()->adding(); }, 15000);
        qInfo("add while the keychain hangs: %lld ms, worst event-loop lateness %lld ms over %lld ticks", adding.elapsedMs,
              adding.worstMs, adding.ticks);
        QVERIFY2(!servers()->adding(), "the save did not end within 15 s");
        QVERIFY2(adding.elapsedMs >= 2000, qPrintable(QString::number(adding.elapsedMs)));  // it did wait for the keychain
        QVERIFY2(adding.worstMs < 500, qPrintable(QStringLiteral("the window was blocked for %1 ms").arg(adding.worstMs)));
        QTRY_VERIFY(!m_ui->object("addServerDialog")->property("opened").toBool());
        QCOMPARE(servers()->rowCount(), 1);
        QCOMPARE(servers()->index(0).data(ft::ui::RemoteServerListModel::KeyPlaceRole).toString(), QStringLiteral("file"));
        QVERIFY(!servers()->keysInKeychain());
        const QString note = servers()->keyStorageNote();
        QVERIFY2(note.contains("did not answer within 3 s") && note.contains("permissions 0600"), qPrintable(note));
        QVERIFY(fileText(listPath()).contains("k-window-1"));
        QVERIFY(ft::RemoteServerFile(file()).private_to_user());

        // 2. A chat with a server whose key is in the keychain waits for it without freezing the window, and goes
        // on with the key once the keychain answers.
        freezeKeyring(false);
        QVERIFY(pressAddServer(second.url(), "k-window-2"));
        QTRY_VERIFY_WITH_TIMEOUT(!servers()->adding() && servers()->rowOfUrl(second.url()) >= 0, 10000);
        QCOMPARE(servers()->index(servers()->rowOfUrl(second.url())).data(ft::ui::RemoteServerListModel::KeyPlaceRole).toString(),
                 QStringLiteral("keychain"));
        QVERIFY(!fileText(listPath()).contains("k-window-2"));
        QVERIFY(session()->chatWithServer(second.url(), "m1"));
        session()->newChat();
        QVERIFY(m_ui->showPage("chat"));
        freezeKeyring(true);
        QVERIFY(session()->send("Hello"));
        QVERIFY(session()->waitingForKey());
        const Lateness waiting = measure_lateness([] { return true; }, 1500);
        m_ui->settle(50);
        QVERIFY(session()->waitingForKey());
        QVERIFY(m_ui->item("waitingForKey")->isVisible());
        QVERIFY(m_ui->item("stopButton")->isVisible());
        freezeKeyring(false);
        QTRY_VERIFY_WITH_TIMEOUT(!session()->busy(), 10000);
        qInfo("chat waiting for the key: worst event-loop lateness %lld ms over %lld ticks", waiting.worstMs, waiting.ticks);
        QVERIFY2(waiting.worstMs < 500, qPrintable(QStringLiteral("the window was blocked for %1 ms").arg(waiting.worstMs)));
        ft::MessageRecord r = session()->messages()->messages().last();
        QVERIFY2(r.state == "complete" && r.content == "Hello there.", qPrintable(r.state + " " + r.error + " " + r.content));
        QCOMPARE(second.authorizations.last(), QByteArray("Bearer k-window-2"));

        // 3. Stop while the key is awaited: the wait ends at once.
        freezeKeyring(true);
        QVERIFY(session()->send("Stop me"));
        QVERIFY(session()->waitingForKey());
        QTest::qWait(100);
        session()->stop();
        QVERIFY(!session()->busy());
        QCOMPARE(session()->messages()->messages().last().state, QStringLiteral("partial"));
        freezeKeyring(false);
        QVERIFY(ft::server_list_thread()->waitForDone(10000));  // the abandoned read ends before the next case

        // 4. A keychain that does not answer in time: the reply ends with a message saying why, no request is sent
        // without the key.
        freezeKeyring(true);
        const qsizetype requests = second.authorizations.size();
        QVERIFY(session()->send("Again"));
        const Lateness timingOut = measure_lateness([&] { return session()->busy(); }, 15000);
        qInfo("chat whose key times out: %lld ms, worst event-loop lateness %lld ms", timingOut.elapsedMs, timingOut.worstMs);
        QVERIFY(!session()->busy());
        QVERIFY2(timingOut.worstMs < 500, qPrintable(QStringLiteral("the window was blocked for %1 ms").arg(timingOut.worstMs)));
        r = session()->messages()->messages().last();
        QCOMPARE(r.state, QStringLiteral("error"));
        QVERIFY2(r.error.contains("is in the system keychain") && r.error.contains("did not answer within 3 s") &&
                     r.error.contains(second.url()),
                 qPrintable(r.error));
        QCOMPARE(second.authorizations.size(), requests);

        // 5. The app started while the keychain hangs: the window is up at once, the list says it is reading the keys,
        // the keychain is asked once (one timeout, not one per server), and a row whose key did not come says why.
        m_ui.reset();
        QElapsedTimer started;
        started.start();
        QVERIFY(startApp());
        const qint64 startMs = started.elapsed();
        QVERIFY(servers()->loading());
        QVERIFY(m_ui->showPage("models"));
        bool saidSo = false;  // the Servers card's line about the keychain, once the read takes a while
        QQuickItem* loadingText = m_ui->item("serversLoading");
        QVERIFY(loadingText);
        const Lateness loading = measure_lateness([&] {
            saidSo = saidSo || loadingText->isVisible();
            return servers()->loading();
        }, 20000);
        qInfo("start while the keychain hangs: window in %lld ms, list read in %lld ms more, worst lateness %lld ms",
              startMs, loading.elapsedMs, loading.worstMs);
        QVERIFY(!servers()->loading());
        QVERIFY(saidSo);
        QVERIFY2(loading.worstMs < 500, qPrintable(QStringLiteral("the window was blocked for %1 ms").arg(loading.worstMs)));
        QVERIFY2(loading.elapsedMs < 6000, qPrintable(QString::number(loading.elapsedMs)));  // 3 s once, not per server
        QCOMPARE(servers()->rowCount(), 2);
        const int row = servers()->rowOfUrl(second.url());
        QTRY_COMPARE_WITH_TIMEOUT(servers()->index(row).data(ft::ui::RemoteServerListModel::StatusRole).toString(),
                                  QStringLiteral("error"), 10000);
        const QString why = servers()->index(row).data(ft::ui::RemoteServerListModel::ErrorRole).toString();
        QVERIFY2(why.contains("refused the API key") && why.contains("did not answer within 3 s") && why.contains("Refresh"),
                 qPrintable(why));
        // Unlocked (running again) and Refresh: the key comes, the server answers.
        freezeKeyring(false);
        m_ui->click("refreshServersButton");
        QTRY_COMPARE_WITH_TIMEOUT(servers()->index(servers()->rowOfUrl(second.url())).data(ft::ui::RemoteServerListModel::StatusRole).toString(),
                                  QStringLiteral("ok"), 15000);
        m_ui.reset();
        ft::set_keychain_timeout(std::chrono::seconds(30));
    }

    void cleanupTestCase() {
        if (m_keyring.state() != QProcess::NotRunning) freezeKeyring(false);  // a failed case may have left it stopped
        m_ui.reset();
        for (QProcess* p : {&m_keyring, &m_bus}) {
            if (p->state() == QProcess::NotRunning) continue;
            p->terminate();
            if (!p->waitForFinished(5000)) p->kill();
            p->waitForFinished(2000);
        }
    }
};

QTEST_MAIN(TestKeychain)
#include "test_keychain.moc"
