// API keys of remote servers in the OS keychain (app/server keychain.h, RemoteServerFile) against a real Secret
// Service: a D-Bus session bus and gnome-keyring-daemon of the test's own (an unlocked keyring in a temporary home,
// so a developer's keyring is never touched), started when both programs are installed; else those cases are
// skipped, saying so. Without the keychain — turned off, or no session bus — the key goes to the 0600 file and the
// Add dialog's note says why. Keys found in the file move to the keychain, read back before the file forgets them;
// a key in a keychain that does not answer is kept (not dropped) through later saves.
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "keychain.h"
#include "remote_server_list_model.h"
#include "remote_servers.h"

namespace {

QByteArray fileText(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

}  // namespace

class TestKeychain : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;  // the keyring's home and FT_DATA_DIR
    QProcess m_bus, m_keyring;
    QString m_noKeyring;   // why no Secret Service could be started ("" when it runs)
    QByteArray m_address;

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

    void cleanupTestCase() {
        for (QProcess* p : {&m_keyring, &m_bus}) {
            if (p->state() == QProcess::NotRunning) continue;
            p->terminate();
            if (!p->waitForFinished(5000)) p->kill();
            p->waitForFinished(2000);
        }
    }
};

QTEST_GUILESS_MAIN(TestKeychain)
#include "test_keychain.moc"
