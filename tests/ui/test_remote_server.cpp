// Remote servers as model sources, in the real window: Models → "Add a server…" against a second process, `ft serve`
// on loopback (the bundled demo model, with an API key): a wrong key, a wrong address, a server answering HTML and a
// plain-http address of another host each get a clear message and nothing is saved; then the right key adds it, its
// model is listed and chatted with (nothing loaded in this app's engine); Stop closes the stream (the server's
// /v1/stats shows nothing running); a server killed mid-reply leaves the text that arrived saved, with a clear
// error; a restart of the app finds the history with each reply's model and server, and the server list. The key
// is in no log line and only in the 0600 servers.json (FT_KEYCHAIN=off: the fallback; test_keychain tests the keychain).
//
// Stop and the kill need a reply that is still streaming when they happen: the demo model answers in about 30
// tokens within 0.1 s on CPU, so those two use a second `ft serve` on a random-weight `ft synth --preset tiny`
// model on 1 thread, which writes to its token limit at about 20 tokens/s.
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QRegularExpression>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QSignalSpy>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslKey>
#include <QSslServer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QPointer>

#include <cmath>
#include <functional>

#include "app_harness.h"
#include "chat_session.h"
#include "chat_store.h"
#include "engine_host.h"
#include "ft/log.h"
#include "ft_process.h"
#include "log_hub.h"
#include "remote_client.h"
#include "remote_server_list_model.h"
#include "console_model.h"
#include "remote_stats_model.h"
#include "serve_process.h"

namespace {

const QString kDemo = QStringLiteral(FT_SOURCE_DIR "/resources/models/freetoken-demo.gguf");
const QString kKey = QStringLiteral("k-test-9f3e27c1");

// A server that is not OpenAI-compatible: every request gets a small HTML page.
class HtmlServer : public QTcpServer {
public:
    HtmlServer() {
        connect(this, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* s = nextPendingConnection()) {
                connect(s, &QTcpSocket::readyRead, s, [s] {
                    s->readAll();
                    s->write("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 38\r\nConnection: close\r\n\r\n"
                             "<html><body>Router login</body></html>");
                    s->disconnectFromHost();
                });
                connect(s, &QTcpSocket::disconnected, s, &QObject::deleteLater);
            }
        });
    }
};

// A server of the test's own on loopback: /v1/models lists one model, POST /v1/chat/completions is answered by
// answerChat() (the socket is closed after it), anything else is a 404.
class ScriptedServer : public QTcpServer {
public:
    QByteArray lastChatBody;
    explicit ScriptedServer(const QString& model) : m_model(model) {
        connect(this, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* s = nextPendingConnection()) {
                auto* buf = new QByteArray;
                connect(s, &QTcpSocket::readyRead, s, [this, s, buf] {
                    *buf += s->readAll();
                    const int end = buf->indexOf("\r\n\r\n");
                    if (end < 0) return;
                    const QByteArray head = buf->left(end);
                    qsizetype length = 0;
                    for (const QByteArray& line : head.split('\n'))
                        if (line.toLower().startsWith("content-length:")) length = line.mid(15).trimmed().toLongLong();
                    if (buf->size() < end + 4 + length) return;  // the body is still coming
                    const QByteArray body = buf->mid(end + 4, length);
                    buf->clear();
                    if (head.startsWith("GET /v1/models")) {
                        // max_model_len: the context length as vLLM's /v1/models states it.
                        const QJsonObject model{{"id", m_model}, {"object", "model"}, {"owned_by", "test"}, {"max_model_len", 32768}};
                        const QByteArray json = QJsonDocument(QJsonObject{{"object", "list"}, {"data", QJsonArray{model}}}).toJson(QJsonDocument::Compact);
                        s->write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " +
                                 QByteArray::number(json.size()) + "\r\n\r\n" + json);
                    } else if (head.startsWith("POST /v1/chat/completions")) {
                        lastChatBody = body;
                        answerChat(s);
                        return;  // answerChat closes it
                    } else {
                        s->write("HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}");
                    }
                    s->disconnectFromHost();
                });
                connect(s, &QTcpSocket::disconnected, s, [s, buf] {
                    delete buf;
                    s->deleteLater();
                });
            }
        });
    }

protected:
    virtual void answerChat(QTcpSocket* s) = 0;
    QJsonObject chunk(const QJsonObject& delta, const QJsonValue& finish) const {
        const QJsonObject choice{{"index", 0}, {"delta", delta}, {"finish_reason", finish}};
        return QJsonObject{{"id", "chatcmpl-t1"}, {"object", "chat.completion.chunk"}, {"created", 1},
                           {"model", m_model}, {"choices", QJsonArray{choice}}};
    }
    QJsonObject usageChunk(int prompt, int completion) const {
        return QJsonObject{{"id", "chatcmpl-t1"}, {"object", "chat.completion.chunk"}, {"created", 1}, {"model", m_model},
                           {"choices", QJsonArray{}},
                           {"usage", QJsonObject{{"prompt_tokens", prompt}, {"completion_tokens", completion},
                                                 {"total_tokens", prompt + completion}}}};
    }
    static QByteArray sse(const QList<QJsonObject>& events) {
        QByteArray out = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n";
        for (const QJsonObject& e : events) out += "data: " + QJsonDocument(e).toJson(QJsonDocument::Compact) + "\n\n";
        return out + "data: [DONE]\n\n";
    }

private:
    QString m_model;
};

// The OpenAI API's streaming shape for a tool call (as OpenAI's API reference documents the chunks: the call's id,
// type and name first with empty arguments, the arguments in fragments, then finish_reason "tool_calls", a usage
// chunk and [DONE]): ft serve emits tool calls only when its model writes them, and neither the demo model nor a
// random-weight one does.
class ToolCallServer : public ScriptedServer {
public:
    ToolCallServer() : ScriptedServer(QStringLiteral("tool-model")) {}

protected:
    void answerChat(QTcpSocket* s) override {
        auto call = [](const QJsonObject& function, bool first) {
            QJsonObject c{{"index", 0}, {"function", function}};
            if (first) {
                c["id"] = "call_w1";
                c["type"] = "function";
            }
            return QJsonObject{{"tool_calls", QJsonArray{c}}};
        };
        QJsonObject opening = call(QJsonObject{{"name", "get_weather"}, {"arguments", ""}}, true);
        opening["role"] = "assistant";
        opening["content"] = QJsonValue::Null;
        s->write(sse({chunk(opening, QJsonValue::Null),
                      chunk(call(QJsonObject{{"arguments", "{\"location\":"}}, false), QJsonValue::Null),
                      chunk(call(QJsonObject{{"arguments", " \"Seoul\", \"unit\": \"celsius\"}"}}, false), QJsonValue::Null),
                      chunk(QJsonObject{}, "tool_calls"), usageChunk(14, 11)}));
        s->disconnectFromHost();
    }
};

// A server that is not FreeToken refusing every chat: HTTP `status` with an OpenAI-shaped error `body`.
class RefusingServer : public ScriptedServer {
public:
    int status = 500;
    QByteArray body;
    RefusingServer() : ScriptedServer(QStringLiteral("refusing-model")) {}

protected:
    void answerChat(QTcpSocket* s) override {
        s->write("HTTP/1.1 " + QByteArray::number(status) + " Refused\r\nContent-Type: application/json\r\nConnection: close\r\n"
                 "Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body);
        s->disconnectFromHost();
    }
};

// A server that sends a whole reply of 30 tokens in one write (as a server that buffers its stream does), after
// `delayMs`; with `timings` its last chunk carries llama.cpp's documented timings object (35 tokens predicted in
// 661.064 ms: 52.9 tok/s).
class OneWriteServer : public ScriptedServer {
public:
    int delayMs = 0;
    bool timings = false;
    OneWriteServer() : ScriptedServer(QStringLiteral("buffered-model")) {}

protected:
    void answerChat(QTcpSocket* s) override {
        QList<QJsonObject> events{chunk(QJsonObject{{"role", "assistant"}, {"content", ""}}, QJsonValue::Null)};
        for (const char* piece : {"All", " at", " once", "."}) events << chunk(QJsonObject{{"content", piece}}, QJsonValue::Null);
        events << chunk(QJsonObject{}, "stop");
        QJsonObject usage = usageChunk(9, 30);
        if (timings)
            usage["timings"] = QJsonObject{{"prompt_n", 9}, {"prompt_ms", 30.958}, {"predicted_n", 35}, {"predicted_ms", 661.064}};
        events << usage;
        const QByteArray reply = sse(events);
        QPointer<QTcpSocket> socket(s);
        QTimer::singleShot(delayMs, s, [socket, reply] {
            if (!socket) return;
            socket->write(reply);
            socket->disconnectFromHost();
        });
    }
};

}  // namespace

class TestRemoteServer : public QObject {
    Q_OBJECT
    QTemporaryDir m_data;
    ft::LogHub m_hub;
    std::unique_ptr<ft::test::UiHarness> m_ui;
    ft::test::ServeProcess m_demo;                   // the demo model, with kKey
    std::unique_ptr<ft::test::ServeProcess> m_slow;  // the random-weight tiny model (killed mid-reply)
    QString m_slowUrl;
    HtmlServer m_html;

    ft::ui::ChatSession* session() const { return qobject_cast<ft::ui::ChatSession*>(m_ui->object("chatSession")); }
    ft::ui::RemoteServerListModel* servers() const {
        return qobject_cast<ft::ui::RemoteServerListModel*>(m_ui->object("serverModel"));
    }
    const QList<ft::MessageRecord>& messages() const { return session()->messages()->messages(); }
    bool dialogOpen() const { return m_ui->object("addServerDialog")->property("opened").toBool(); }

    void startApp() {
        m_ui = std::make_unique<ft::test::UiHarness>(&m_hub);
        QVERIFY(m_ui->load());
        QVERIFY(session() && servers());
    }

    bool startServe(ft::test::ServeProcess& s, const QStringList& args) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("FT_DATA_DIR", s.dir.path());  // the server's own data folder, not the app's
        s.proc.setProcessEnvironment(env);
        return s.start(args);
    }

    // Fills the Add a server dialog and presses Add server; returns the error it shows ("" once it closed).
    QString addByDialog(const QString& url, const QString& key, bool acceptPlainHttp = false) {
        if (!dialogOpen()) {
            m_ui->showPage("models");
            if (!m_ui->click("addServerButton")) return "no Add a server button";
            if (!QTest::qWaitFor([&] { return dialogOpen(); }, 5000)) return "the dialog did not open";
        }
        m_ui->item("serverUrlField")->setProperty("text", url);
        m_ui->item("serverKeyField")->setProperty("text", key);
        if (acceptPlainHttp) m_ui->item("plainHttpCheckBox")->setProperty("checked", true);
        m_ui->settle(50);
        if (!m_ui->click("addServerConfirm")) return "Add server could not be clicked";
        if (!QTest::qWaitFor([&] { return !servers()->adding(); }, 15000)) return "the check did not end";
        m_ui->settle(50);
        return dialogOpen() ? m_ui->item("addServerError")->property("text").toString() : QString();
    }

    void type(const QString& text) {
        QQuickItem* input = m_ui->item("chatInput");
        QVERIFY(input && input->isEnabled());
        input->forceActiveFocus();
        for (const QChar c : text) QTest::keyClick(m_ui->window(), c.toLatin1());
        QTest::keyClick(m_ui->window(), Qt::Key_Return);
    }

    void chatWith(const QString& url, const QString& model) {
        QVERIFY(m_ui->showPage("models"));
        bool clicked = false;
        for (QQuickItem* b : m_ui->items("remoteChatButton")) {
            QQuickItem* row = b->parentItem()->parentItem();
            if (row->property("modelData").toMap().value("id").toString() == model && b->isVisible()) {
                QMetaObject::invokeMethod(b, "clicked");
                clicked = true;
            }
        }
        QVERIFY2(clicked, qPrintable("no Chat button for " + model));
        QTRY_COMPARE(m_ui->root()->property("currentPage").toString(), QStringLiteral("chat"));
        QCOMPARE(session()->remoteUrl(), url);
        QCOMPARE(session()->remoteModel(), model);
        session()->newChat();
        m_ui->settle();
    }

    QJsonObject stats(const QString& url, const QString& key = {}) {
        QNetworkAccessManager net;
        QNetworkRequest req(QUrl(url + "/v1/stats"));
        if (!key.isEmpty()) req.setRawHeader("Authorization", "Bearer " + key.toUtf8());
        QNetworkReply* r = net.get(req);
        QSignalSpy done(r, &QNetworkReply::finished);
        done.wait(5000);
        r->deleteLater();
        return QJsonDocument::fromJson(r->readAll()).object();
    }

private slots:
    void initTestCase() {
        QVERIFY(m_data.isValid());
        qputenv("FT_DATA_DIR", m_data.path().toUtf8());
        // Keys in the 0600 file, the fallback (test_keychain tests the keychain; a developer's keyring stays untouched).
        qputenv("FT_KEYCHAIN", "off");
        ft::attach_log_hub(m_hub, "freetoken");
        ft::test::install_warning_capture();
        QVERIFY2(startServe(m_demo, {"--model", kDemo, "--api-key", kKey, "--threads", "1", "--ctx", "4096", "--device", "cpu"}),
                 qPrintable(m_demo.out));
        QVERIFY(m_html.listen(QHostAddress::LocalHost));
        startApp();
        QVERIFY(m_ui->showPage("models"));
        QCOMPARE(servers()->rowCount(), 0);
    }

    void aWrongKeyIsRefusedClearly() {
        const QString e = addByDialog(m_demo.url, "wrong-key");
        QVERIFY2(e.contains("refused the API key") && e.contains("HTTP 401") && e.contains(m_demo.url), qPrintable(e));
        QVERIFY(!e.contains("wrong-key"));
        m_ui->saveScreenshot("models-add-server-wrong-key");
        QCOMPARE(servers()->rowCount(), 0);
        const QString none = addByDialog(m_demo.url, "");
        QVERIFY2(none.contains("refused the API key"), qPrintable(none));
    }

    void aWrongAddressIsRefusedClearly() {
        // A port nothing listens on (taken and released).
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost));
        const QString closed = QStringLiteral("http://127.0.0.1:%1").arg(probe.serverPort());
        probe.close();
        QString e = addByDialog(closed, kKey);
        QVERIFY2(e.startsWith("Cannot reach the server at " + closed) && e.contains("running"), qPrintable(e));
        e = addByDialog("ftp://127.0.0.1:21", kKey);
        QVERIFY2(e.contains("cannot be used") && e.contains("ftp://"), qPrintable(e));
        e = addByDialog("127.0.0.1:8000", kKey);
        QVERIFY2(e.contains("http:// or https://"), qPrintable(e));
        // A path that is not the API: the demo server has no /x/v1/models.
        e = addByDialog(m_demo.url + "/x", kKey);
        QVERIFY2(e.contains("has no /x/v1/models (HTTP 404)") && e.contains("base URL"), qPrintable(e));
        QCOMPARE(servers()->rowCount(), 0);
    }

    void aServerAnsweringHtmlIsRefusedClearly() {
        const QString url = QStringLiteral("http://127.0.0.1:%1").arg(m_html.serverPort());
        const QString e = addByDialog(url, {});
        QVERIFY2(e.contains("not with the JSON an OpenAI-compatible server sends") && e.contains("text/html") &&
                     e.contains("Router login"),
                 qPrintable(e));
        QCOMPARE(servers()->rowCount(), 0);
    }

    void plainHttpToAnotherHostAsks() {
        // 192.0.2.1 (TEST-NET-1) is never this PC: the warning shows and Add stays off until the box is ticked.
        m_ui->item("serverUrlField")->setProperty("text", "http://192.0.2.1:8000");
        m_ui->settle(50);
        QVERIFY(m_ui->item("plainHttpWarning")->isVisible());
        QVERIFY(!m_ui->item("addServerConfirm")->isEnabled());
        m_ui->item("plainHttpCheckBox")->setProperty("checked", true);
        m_ui->settle(50);
        QVERIFY(m_ui->item("addServerConfirm")->isEnabled());
        m_ui->saveScreenshot("models-add-server-plain-http");
        QVERIFY(!servers()->add("http://192.0.2.1:8000", {}, false));  // and the model refuses it without the yes
        QVERIFY(servers()->addError().contains("unencrypted"));
        for (const QString& safe : {m_demo.url, QStringLiteral("https://192.0.2.1"), QStringLiteral("http://localhost:1")})
            QVERIFY2(servers()->plainHttpWarning(safe).isEmpty(), qPrintable(safe));
        m_ui->item("plainHttpCheckBox")->setProperty("checked", false);
        // Where the key will be kept, and why not in the keychain (FT_KEYCHAIN=off here).
        const QString note = m_ui->item("serverKeyNote")->property("text").toString();
        QVERIFY2(note.contains("turned off by FT_KEYCHAIN=off") && note.contains("permissions 0600"), qPrintable(note));
        // The key field hides what is typed (screenshots never show a key).
        QCOMPARE(m_ui->item("serverKeyField")->property("echoMode").toInt(), 2 /* TextInput.Password */);
    }

    void anUntrustedCertificateIsRefused() {
        // A TLS server on loopback with a self-signed certificate (made here by the openssl tool): the app and
        // `ft chat --attach` both refuse it, since certificates are verified.
        QTemporaryDir dir;
        QProcess gen;
        gen.start("openssl", {"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", dir.filePath("key.pem"), "-out",
                              dir.filePath("cert.pem"), "-days", "2", "-subj", "/CN=127.0.0.1", "-addext",
                              "subjectAltName=IP:127.0.0.1"});
        if (!gen.waitForFinished(30000) || gen.exitCode() != 0) QSKIP("no openssl tool to make a test certificate");
        QFile certFile(dir.filePath("cert.pem")), keyFile(dir.filePath("key.pem"));
        QVERIFY(certFile.open(QIODevice::ReadOnly) && keyFile.open(QIODevice::ReadOnly));
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        tls.setLocalCertificate(QSslCertificate(certFile.readAll()));
        tls.setPrivateKey(QSslKey(keyFile.readAll(), QSsl::Rsa));
        QSslServer server;
        server.setSslConfiguration(tls);
        int handshakes = 0;
        connect(&server, &QSslServer::startedEncryptionHandshake, this, [&] { ++handshakes; });
        connect(&server, &QTcpServer::pendingConnectionAvailable, this, [&] {
            while (QTcpSocket* s = server.nextPendingConnection()) {
                connect(s, &QTcpSocket::readyRead, s, [s] {
                    s->readAll();
                    s->write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 37\r\n"
                             "Connection: close\r\n\r\n{\"object\":\"list\",\"data\":[{\"id\":\"m\"}]}");
                    s->disconnectFromHost();
                });
            }
        });
        QVERIFY(server.listen(QHostAddress::LocalHost));
        const QString url = QStringLiteral("https://127.0.0.1:%1").arg(server.serverPort());
        const QString e = addByDialog(url, {});
        QVERIFY2(e.contains("did not pass the TLS check") && e.contains(url), qPrintable(e));
        QVERIFY(handshakes > 0);  // it did speak TLS to this server
        QCOMPARE(servers()->rowCount(), 0);
        QProcess cli;
        cli.setProcessChannelMode(QProcess::MergedChannels);
        cli.start(QStringLiteral(FT_EXE), {"chat", "--attach", url});
        cli.closeWriteChannel();
        QTRY_VERIFY_WITH_TIMEOUT(cli.state() == QProcess::NotRunning, 20000);
        const QString out = QString::fromUtf8(cli.readAll());
        QVERIFY2(cli.exitCode() != 0 && out.contains("did not pass the TLS check: its certificate is not trusted"),
                 qPrintable(out));
    }

    void theRightKeyAddsTheServerAndItsModels() {
        QCOMPARE(addByDialog(m_demo.url + "/v1/", kKey), QString());  // normalized: no /v1, no trailing slash
        QTRY_COMPARE(servers()->rowCount(), 1);
        const QModelIndex i = servers()->index(0);
        QCOMPARE(i.data(ft::ui::RemoteServerListModel::UrlRole).toString(), m_demo.url);
        QCOMPARE(i.data(ft::ui::RemoteServerListModel::StatusRole).toString(), QStringLiteral("ok"));
        QCOMPARE(i.data(ft::ui::RemoteServerListModel::KindRole).toString(), QStringLiteral("freetoken"));
        QVERIFY(i.data(ft::ui::RemoteServerListModel::HasKeyRole).toBool());
        const QVariantList models = i.data(ft::ui::RemoteServerListModel::ModelsRole).toList();
        QCOMPARE(models.size(), 1);
        QCOMPARE(models.first().toMap().value("id").toString(), QStringLiteral("freetoken-demo"));
        QCOMPARE(models.first().toMap().value("contextLength").toInt(), 4096);  // ft serve --ctx 4096
        m_ui->settle();
        QVERIFY(m_ui->item("remoteServersCard")->isVisible());
        QVERIFY(m_ui->item("remoteModelRow") != nullptr);
        // The row's pills sit right of the address, none drawn over it.
        QQuickItem* urlText = m_ui->item("serverUrlText");
        QQuickItem* keyPill = m_ui->item("serverKeyPill");
        QVERIFY(urlText && keyPill && keyPill->isVisible());
        QVERIFY(keyPill->mapToScene({0, 0}).x() >= urlText->mapToScene({0, 0}).x() + urlText->width());
        QCOMPARE(keyPill->width(), keyPill->implicitWidth());  // not elided
        QCOMPARE(keyPill->property("text").toString(), QStringLiteral("API key in a file"));
        m_ui->saveScreenshot("models-remote-server");
        // The key is in servers.json, readable by this user only.
        QFile f(m_data.filePath("servers.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.readAll().contains(kKey.toUtf8()));
        QCOMPARE(f.permissions() & (QFile::ReadGroup | QFile::ReadOther | QFile::WriteGroup | QFile::WriteOther),
                 QFile::Permissions());
    }

    void chatsWithTheServersModel() {
        chatWith(m_demo.url, "freetoken-demo");
        QVERIFY(session()->modelReady());
        QVERIFY(m_ui->root()->findChild<QObject*>("page_chat")->property("subtitle").toString().contains(m_demo.url));
        type("Hello");
        QTRY_VERIFY_WITH_TIMEOUT(!session()->busy(), 60000);
        m_ui->settle();
        const ft::MessageRecord r = messages().last();
        QCOMPARE(r.role, QStringLiteral("assistant"));
        QCOMPARE(r.state, QStringLiteral("complete"));
        QVERIFY(!r.content.trimmed().isEmpty());
        QCOMPARE(r.model, QStringLiteral("freetoken-demo"));
        QCOMPARE(r.server, m_demo.url);
        QVERIFY(r.completionTokens > 0 && r.promptTokens > 0);  // the server's usage
        QVERIFY(r.ttftMs > 0);                                   // measured here
        QCOMPARE(session()->lastFigures().value("server").toString(), m_demo.url);
        // Under the reply: which model on which server wrote it.
        QTRY_VERIFY(m_ui->item("replySource") && m_ui->item("replySource")->isVisible());
        QCOMPARE(m_ui->item("replySource")->property("text").toString(), "freetoken-demo on " + m_demo.url);
        // Nothing of the local engine was loaded.
        QCOMPARE(m_ui->host()->state(), QStringLiteral("idle"));
        // The server did the work.
        QCOMPARE(stats(m_demo.url, kKey).value("requests_total").toInt(), 1);
        m_ui->saveScreenshot("chat-remote-server");
        // The Console shows that server's own /v1/stats (read with the saved key) and what this app measured.
        QVERIFY(m_ui->showPage("console"));
        QVERIFY(m_ui->item("remoteConsoleCard")->isVisible());
        QObject* rs = m_ui->object("remoteStats");
        QTRY_COMPARE_WITH_TIMEOUT(rs->property("kind").toString(), QStringLiteral("freetoken"), 5000);
        QCOMPARE(rs->property("error").toString(), QString());
        const QVariantMap f = rs->property("figures").toMap();
        QCOMPARE(f.value("model").toString(), QStringLiteral("freetoken-demo"));
        QCOMPARE(f.value("requestsTotal").toInt(), 1);
        QCOMPARE(f.value("nCtx").toInt(), 4096);
        m_ui->settle();
        QVERIFY(m_ui->item("remoteDecode")->isVisible());
        QVERIFY(m_ui->item("remoteMeasuredTtft")->property("available").toBool());
        QVERIFY(!m_ui->item("remoteNotKnown")->isVisible());
        m_ui->saveScreenshot("console-remote-freetoken");
    }

    void theConsoleChartsAndSizesTheServersCaches() {
        // A FreeToken server's snapshots drawn by the same charts as a local model's, and its KV cache resized by
        // the Console's slider and Apply through the server's /v1/cache/rebuild (with the saved key).
        QVERIFY(m_ui->showPage("console"));
        auto* cm = qvariant_cast<ft::ui::ConsoleModel*>(m_ui->object("remoteStats")->property("console"));
        QVERIFY(cm);
        QTRY_VERIFY_WITH_TIMEOUT(cm->loaded() && cm->cacheConfigAvailable(), 5000);
        m_ui->settle();
        QVERIFY(m_ui->item("remoteConsoleCharts")->isVisible());
        QVERIFY(m_ui->item("remoteCacheConfigCard")->isVisible());
        QVERIFY(!m_ui->item("consoleCharts")->isVisible());  // nothing is loaded here: the charts are the server's
        QQuickItem* kvChart = m_ui->item("kvChart");  // the first one on screen: the server's
        QVERIFY(kvChart && kvChart->isVisible());
        // The server runs on its CPU (--device cpu): its VRAM and PCIe cards say so in words, of the server (not
        // "the CPU engine", which reads as this PC's), in each language — not an empty chart.
        QVERIFY(!cm->gpu());
        auto serverSays = [&](const char* card) {
            QQuickItem* charts = m_ui->item("remoteConsoleCharts");
            for (QQuickItem* t : m_ui->items("chartEmptyText")) {
                bool inCard = false, inCharts = false;
                for (QQuickItem* a = t; a; a = a->parentItem()) {
                    inCard = inCard || a->objectName() == QLatin1String(card);
                    inCharts = inCharts || a == charts;
                }
                if (inCard && inCharts) return t->isVisible() ? t->property("text").toString() : QStringLiteral("(hidden)");
            }
            return QStringLiteral("(none)");
        };
        QTRY_VERIFY(!m_ui->item("vramChart")->property("hasData").toBool());
        QCOMPARE(serverSays("chartVram"),
                 QStringLiteral("The server has no GPU: it runs its model on its CPU, so it has no VRAM or PCIe traffic to chart."));
        QCOMPARE(serverSays("chartPcie"), serverSays("chartVram"));
        QVERIFY2(serverSays("chartHitRate").startsWith("No expert cache on the server"), qPrintable(serverSays("chartHitRate")));
        QObject* settings = m_ui->object("settingsModel");
        settings->setProperty("language", "ko");
        m_ui->settle(200);
        QVERIFY2(serverSays("chartVram").contains(QStringLiteral("서버")), qPrintable(serverSays("chartVram")));
        settings->setProperty("language", "zh_CN");
        m_ui->settle(200);
        QVERIFY2(serverSays("chartVram").contains(QStringLiteral("服务器")), qPrintable(serverSays("chartVram")));
        settings->setProperty("language", "en");
        m_ui->settle(200);
        QVERIFY(serverSays("chartVram").startsWith("The server has no GPU"));
        QTRY_VERIFY(kvChart->property("hasData").toBool());
        const QJsonObject plan = stats(m_demo.url, kKey).value("plan").toObject();
        const double kvBefore = plan.value("kv_tokens").toDouble();
        QCOMPARE(cm->property("kvNow").toDouble(), kvBefore);
        QCOMPARE(cm->property("latest").toMap().value("kvTotalTokens").toDouble(), kvBefore);
        const double kvAfter = plan.value("n_ctx").toDouble() * 2;  // one context is the least the server takes
        QVERIFY(kvAfter != kvBefore);
        cm->setProperty("kvTokens", kvAfter);
        m_ui->settle();
        QQuickItem* apply = m_ui->item("cacheApplyButton");  // the server's card (the local one is hidden), below the fold
        QVERIFY(apply && apply->isVisible() && apply->isEnabled());
        QVERIFY(QMetaObject::invokeMethod(apply, "clicked"));
        QTRY_COMPARE_WITH_TIMEOUT(cm->property("rebuildStatus").toString(), QStringLiteral("accepted"), 30000);
        QCOMPARE(stats(m_demo.url, kKey).value("plan").toObject().value("kv_tokens").toDouble(), kvAfter);
        QCOMPARE(cm->property("kvNow").toDouble(), kvAfter);  // the verdict came with the plan in force
        m_ui->settle();
        // The server's cache config and charts at the top of the view (for the screenshot; they are below the fold).
        QVERIFY(m_ui->scrollToTop("remoteCacheConfigCard"));
        QVERIFY(m_ui->item("rebuildVerdictText")->property("text").toString().contains(QStringLiteral("Applied")));
        QTRY_COMPARE(cm->property("latest").toMap().value("kvTotalTokens").toDouble(), kvAfter);  // charted too
        m_ui->saveScreenshot("console-remote-live");
        // A key the server refuses: the rebuild is not accepted, and the message says why (the key is not echoed).
        ft::RemoteClient client;
        QSignalSpy verdict(&client, &ft::RemoteClient::cachesRebuilt);
        client.rebuildCaches(m_demo.url, QStringLiteral("not-the-key"), qint64(kvBefore), -1);
        QVERIFY(verdict.wait(10000));
        QCOMPARE(verdict.first().at(1).toBool(), false);
        const QString why = verdict.first().at(2).toString();
        QVERIFY2(why.contains(QStringLiteral("key"), Qt::CaseInsensitive) && !why.contains(QStringLiteral("not-the-key")), qPrintable(why));
        QCOMPARE(stats(m_demo.url, kKey).value("plan").toObject().value("kv_tokens").toDouble(), kvAfter);
    }

    void theConsoleOfAServerThatIsNotFreeTokenSaysWhatIsNotKnown() {
        // A server whose /v1/stats is not FreeToken's snapshot (here: the HTML server) is "other": no figures of
        // its own, and the card says so (the llama-server peer test checks the same against a real server).
        ft::ui::RemoteStatsModel m;
        m.setUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_html.serverPort()));
        m.setActive(true);
        QTRY_VERIFY_WITH_TIMEOUT(!m.kind().isEmpty() || !m.error().isEmpty(), 5000);
        QCOMPARE(m.kind(), QStringLiteral("other"));
        QVERIFY(m.figures().isEmpty());
    }

    void stopClosesTheStream() {
        QTemporaryDir dir;
        const QString model = dir.filePath("tiny.gguf");
        const auto synth = ft::test::run_ft({"synth", "--preset", "tiny", "--out", model, "--quiet"});
        QVERIFY2(synth.code == 0, qPrintable(synth.err));
        m_slow = std::make_unique<ft::test::ServeProcess>();
        QVERIFY2(startServe(*m_slow, {"--model", model, "--threads", "1", "--ctx", "4096", "--name", "tiny-random"}),
                 qPrintable(m_slow->out));
        m_slowUrl = m_slow->url;
        QCOMPARE(addByDialog(m_slowUrl, {}), QString());
        QTRY_COMPARE(servers()->rowCount(), 2);
        QTRY_COMPARE(servers()->index(1).data(ft::ui::RemoteServerListModel::StatusRole).toString(), QStringLiteral("ok"));
        chatWith(m_slowUrl, "tiny-random");
        QVERIFY(session()->saveSettings({}, 0.7, 0.9, 4000, 0));
        type("Write a long story");
        QTRY_VERIFY_WITH_TIMEOUT(!messages().last().content.isEmpty() && messages().last().role == "assistant", 30000);
        QCOMPARE(stats(m_slowUrl).value("running").toInt(), 1);
        QVERIFY(m_ui->click("stopButton"));
        QTRY_VERIFY_WITH_TIMEOUT(!session()->busy(), 10000);
        QCOMPARE(messages().last().state, QStringLiteral("partial"));
        QVERIFY(!messages().last().content.isEmpty());
        // The usage never arrives on a closed stream: the reply's figures say what is known (the tokens that
        // arrived), and "—" for the prompt, not 0.
        QVERIFY(messages().last().completionTokens > 0);
        m_ui->settle();
        QQuickItem* figures = nullptr;
        for (QQuickItem* f : m_ui->items("replyFigures"))
            if (f->isVisible()) figures = f;  // the last reply's (the newest visible)
        QVERIFY(figures);
        const QString shown = figures->property("text").toString();
        QVERIFY2(shown.contains(QStringLiteral("prompt — tokens")) && !shown.contains(QStringLiteral("prompt 0")), qPrintable(shown));
        // The server saw the stream close and stopped generating.
        QTRY_COMPARE_WITH_TIMEOUT(stats(m_slowUrl).value("running").toInt(), 0, 5000);
    }

    void aServerKilledMidReplyLeavesThePartialReplyAndAClearError() {
        type("Another long story");
        QTRY_VERIFY_WITH_TIMEOUT(messages().last().role == "assistant" && messages().last().content.size() > 20, 30000);
        QVERIFY(session()->busy());
        m_slow->proc.kill();  // SIGKILL: no goodbye on the socket
        QVERIFY(m_slow->proc.waitForFinished(5000));
        QTRY_VERIFY_WITH_TIMEOUT(!session()->busy(), 15000);
        m_ui->settle();
        const ft::MessageRecord r = messages().last();
        QCOMPARE(r.state, QStringLiteral("error"));
        QVERIFY(r.content.size() > 20);
        QVERIFY2(r.error.contains("closed the connection before the reply finished") && r.error.contains(m_slowUrl) &&
                     r.error.contains("text that arrived is kept"),
                 qPrintable(r.error));
        QCOMPARE(session()->lastError(), r.error);
        // On disk as shown.
        ft::ChatStore store;
        const auto saved = store.messages(session()->currentId());
        QCOMPARE(saved.last().content, r.content);
        QCOMPARE(saved.last().state, QStringLiteral("error"));
        QCOMPARE(saved.last().server, m_slowUrl);
        m_ui->saveScreenshot("chat-remote-server-died");
        // The Models page says the server no longer answers.
        servers()->refresh();
        QTRY_COMPARE_WITH_TIMEOUT(servers()->index(1).data(ft::ui::RemoteServerListModel::StatusRole).toString(),
                                  QStringLiteral("error"), 15000);
        QVERIFY(servers()->index(1).data(ft::ui::RemoteServerListModel::ErrorRole).toString().startsWith("Cannot reach"));
    }

    void aRestartFindsTheHistoryAndTheServers() {
        const qint64 killedChat = session()->currentId();
        m_ui.reset();
        startApp();
        QTRY_VERIFY(!servers()->loading());  // the list is read off the window's thread
        QCOMPARE(servers()->rowCount(), 2);
        QCOMPARE(servers()->index(0).data(ft::ui::RemoteServerListModel::UrlRole).toString(), m_demo.url);
        QVERIFY(servers()->index(0).data(ft::ui::RemoteServerListModel::HasKeyRole).toBool());
        QTRY_COMPARE_WITH_TIMEOUT(servers()->index(0).data(ft::ui::RemoteServerListModel::StatusRole).toString(),
                                  QStringLiteral("ok"), 15000);  // the saved key still works
        QVERIFY(session()->select(killedChat));
        QCOMPARE(messages().size(), 4);
        QCOMPARE(messages().at(1).state, QStringLiteral("partial"));
        QCOMPARE(messages().at(3).state, QStringLiteral("error"));
        QVERIFY(messages().at(3).content.size() > 20);
        QCOMPARE(messages().at(3).model, QStringLiteral("tiny-random"));
        bool demoChat = false;
        for (int i = 0; i < session()->conversations()->rowCount(); ++i) {
            const qint64 id = session()->conversations()->index(i).data(Qt::UserRole + 1).toLongLong();
            if (!session()->select(id)) continue;
            for (const ft::MessageRecord& m : messages())
                if (m.server == m_demo.url && m.model == "freetoken-demo" && m.state == "complete") demoChat = true;
        }
        QVERIFY(demoChat);
        // Chatting with the demo server again after the restart: the saved key is used.
        chatWith(m_demo.url, "freetoken-demo");
        type("Hi");
        QTRY_VERIFY_WITH_TIMEOUT(!session()->busy(), 60000);
        QCOMPARE(messages().last().state, QStringLiteral("complete"));
    }

    void theKeyIsInNoLogLine() {
        bool sawServerLine = false;
        for (const ft::LogEntry& e : m_hub.snapshot()) {
            QVERIFY2(!e.text.contains(kKey), qPrintable(e.text));
            sawServerLine = sawServerLine || e.text.contains("servers: added " + m_demo.url);
        }
        QVERIFY(sawServerLine);  // the log does name the server
        QVERIFY(!m_demo.log().contains(kKey));
    }

    void reasoningArrivesAsAThoughtProcess() {
        // ft serve on a copy of the tiny test model whose chat template opens a think block (as Qwen3's
        // Thinking-2507 templates do): the server sends what the model writes as reasoning_content, and the app
        // keeps it as the reply's reasoning (the folded "Thought process"), apart from the answer.
        QTemporaryDir dir;
        const QString src = QStringLiteral(FT_SOURCE_DIR "/tests/data/qwen3-moe-tiny");
        for (const char* f : {"config.json", "generation_config.json", "model.safetensors", "tokenizer.json"})
            QVERIFY(QFile::copy(src + "/" + f, dir.filePath(f)));
        QFile cfgFile(src + "/tokenizer_config.json");
        QVERIFY(cfgFile.open(QIODevice::ReadOnly));
        QJsonObject cfg = QJsonDocument::fromJson(cfgFile.readAll()).object();
        QString tmpl = cfg.value("chat_template").toString();
        const QString from = QStringLiteral("{{- '<|im_start|>assistant\\n' }}\n    {%- if enable_thinking");
        QVERIFY(tmpl.contains(from));
        tmpl.replace(from, QStringLiteral("{{- '<|im_start|>assistant\\n<think>\\n' }}\n    {%- if enable_thinking"));
        cfg["chat_template"] = tmpl;
        QFile out(dir.filePath("tokenizer_config.json"));
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QJsonDocument(cfg).toJson());
        out.close();
        ft::test::ServeProcess thinking;
        QVERIFY2(startServe(thinking, {"--model", dir.path(), "--threads", "1", "--ctx", "2048", "--name", "thinker"}),
                 qPrintable(thinking.out));
        QCOMPARE(addByDialog(thinking.url, {}), QString());
        QTRY_VERIFY(servers()->rowOfUrl(thinking.url) >= 0);
        QTRY_COMPARE(servers()->index(servers()->rowOfUrl(thinking.url)).data(ft::ui::RemoteServerListModel::StatusRole).toString(),
                     QStringLiteral("ok"));
        chatWith(thinking.url, "thinker");
        QVERIFY(session()->saveSettings({}, 0.7, 0.9, 24, 0));
        type("Think first");
        QTRY_VERIFY_WITH_TIMEOUT(!session()->busy(), 60000);
        m_ui->settle();
        const ft::MessageRecord r = messages().last();
        QVERIFY2(r.state == "truncated" || r.state == "complete", qPrintable(r.state + " " + r.error));
        QVERIFY2(!r.reasoning.trimmed().isEmpty(), qPrintable(r.content));
        QVERIFY(!r.content.contains("<think>") && !r.reasoning.contains("<think>"));
        QCOMPARE(r.server, thinking.url);
    }

    void toolCallsFromAServerAreShown() {
        // A server that answers with a tool call (streamed in fragments): the reply shows it as a tool-call block
        // with the function's name and its arguments, and the history keeps it.
        ToolCallServer tools;
        QVERIFY(tools.listen(QHostAddress::LocalHost));
        const QString url = QStringLiteral("http://127.0.0.1:%1").arg(tools.serverPort());
        QCOMPARE(addByDialog(url, {}), QString());
        QTRY_VERIFY(servers()->rowOfUrl(url) >= 0);
        // Its context length read from vLLM's field (ft serve's context_length and llama.cpp's meta.n_ctx: above and
        // in test_remote_peer).
        const QVariantList listed = servers()->index(servers()->rowOfUrl(url)).data(ft::ui::RemoteServerListModel::ModelsRole).toList();
        QCOMPARE(listed.size(), 1);
        QCOMPARE(listed.first().toMap().value("contextLength").toInt(), 32768);
        chatWith(url, "tool-model");
        type("Weather in Seoul?");
        QTRY_VERIFY_WITH_TIMEOUT(!session()->busy(), 20000);
        m_ui->settle();
        QVERIFY(QJsonDocument::fromJson(tools.lastChatBody).object().value("stream").toBool());
        const ft::MessageRecord r = messages().last();
        QCOMPARE(r.role, QStringLiteral("assistant"));
        QVERIFY2(r.state == "complete", qPrintable(r.state + " " + r.error));
        QVERIFY2(r.content.contains("```tool-call\nget_weather("), qPrintable(r.content));
        QCOMPARE(r.completionTokens, 11);  // the server's usage
        QCOMPARE(r.promptTokens, 14);
        QVERIFY(r.ttftMs > 0);  // from the call's first fragment (no text comes)
        QQuickItem* block = nullptr;
        std::function<void(QQuickItem*)> find = [&](QQuickItem* i) {
            if (!i->isVisible()) return;
            if (i->property("language").toString() == QLatin1String("tool-call")) block = i;
            for (QQuickItem* c : i->childItems()) find(c);
        };
        find(m_ui->window()->contentItem());
        QVERIFY2(block, "no tool-call block on the Chat page");
        const QString code = block->property("code").toString();
        QVERIFY2(code.startsWith("get_weather(") && code.contains("\"location\": \"Seoul\"") &&
                     code.contains("\"unit\": \"celsius\""),
                 qPrintable(code));
        m_ui->saveScreenshot("chat-remote-tool-call");
    }

    void aReplyThatArrivesAtOnceHasAnHonestSpeed() {
        // The rule, on figures given: streamed replies over their span, all-at-once ones from the request, none
        // under kMinTimedMs.
        QCOMPARE(ft::RemoteClient::measuredTokS(30, 100, 390), 100.0);  // 29 tokens after the first in 290 ms
        QCOMPARE(ft::RemoteClient::measuredTokS(30, 300, 300), 100.0);  // 30 tokens 300 ms after the request
        QCOMPARE(ft::RemoteClient::measuredTokS(30, 5, 5), 0.0);        // too fast to time
        QCOMPARE(ft::RemoteClient::measuredTokS(0, 100, 200), 0.0);
        // A server that sends the whole reply in one write: the speed shown is the tokens over the time from the
        // request (never 0.0), "—" with the reason when that time is too short, the server's own where it gives one.
        OneWriteServer server;
        QVERIFY(server.listen(QHostAddress::LocalHost));
        const QString url = QStringLiteral("http://127.0.0.1:%1").arg(server.serverPort());
        QCOMPARE(addByDialog(url, {}), QString());
        QTRY_VERIFY(servers()->rowOfUrl(url) >= 0);
        chatWith(url, "buffered-model");
        auto lastFigures = [&]() -> QQuickItem* {
            m_ui->settle();
            QQuickItem* shown = nullptr;
            for (QQuickItem* f : m_ui->items("replyFigures"))
                if (f->isVisible()) shown = f;
            return shown;
        };
        auto ask = [&](const QString& text) -> ft::MessageRecord {
            type(text);
            ft::MessageRecord none;
            none.state = QStringLiteral("no answer within 20 s");
            if (!QTest::qWaitFor([&] { return !session()->busy(); }, 20000)) return none;
            return messages().last();
        };

        server.delayMs = 300;
        ft::MessageRecord r = ask("Late");
        QCOMPARE(r.state, QStringLiteral("complete"));
        QCOMPARE(r.completionTokens, 30);
        QVERIFY2(r.ttftMs >= 300, qPrintable(QString::number(r.ttftMs)));
        // 30 tokens over the time from the request to the one write (ttft: the same write).
        QVERIFY2(r.tokensPerSecond > 0 && r.tokensPerSecond <= 100.0 + 1e-9, qPrintable(QString::number(r.tokensPerSecond)));
        QVERIFY2(std::abs(r.tokensPerSecond - 30 * 1000.0 / r.ttftMs) < 0.01 * r.tokensPerSecond,
                 qPrintable(QStringLiteral("%1 tok/s, ttft %2 ms").arg(r.tokensPerSecond).arg(r.ttftMs)));
        QQuickItem* figures = lastFigures();
        QVERIFY(figures);
        QString shown = figures->property("text").toString();
        QVERIFY2(shown.contains(QStringLiteral("· %1 tok/s").arg(r.tokensPerSecond, 0, 'f', 1)), qPrintable(shown));
        QVERIFY(figures->property("rateNote").toString().contains("from the request"));

        // At once, at once after the request: in this window the loopback round trip takes some 50 ms (events,
        // rendering), so it is timed from the request; were it under kMinTimedMs, the rate would be 0 ("—").
        server.delayMs = 0;
        r = ask("Now");
        QCOMPARE(r.state, QStringLiteral("complete"));
        qInfo("at once: %d tokens, first text %.1f ms after the request, %.1f tok/s", r.completionTokens, r.ttftMs,
              r.tokensPerSecond);
        if (r.ttftMs < ft::RemoteClient::kMinTimedMs) QCOMPARE(r.tokensPerSecond, 0.0);
        else QVERIFY2(std::abs(r.tokensPerSecond - 30 * 1000.0 / r.ttftMs) < 0.01 * r.tokensPerSecond,
                      qPrintable(QStringLiteral("%1 tok/s, ttft %2 ms").arg(r.tokensPerSecond).arg(r.ttftMs)));

        // How a reply without a speed (0: not measurable) is shown: "—" and the reason, never "0.0 tok/s". Saved
        // replies, one of a server that came in under kMinTimedMs, one local reply of one token.
        {
            ft::ChatStore store;
            const ft::ConversationRecord c = store.createConversation(QStringLiteral("Too fast to time"));
            auto add = [&](const QString& role, const QString& text, int tokens, const QString& server) {
                ft::MessageRecord m;
                m.conversationId = c.id;
                m.role = role;
                m.content = text;
                m.completionTokens = tokens;
                m.promptTokens = tokens ? 9 : 0;
                m.ttftMs = tokens ? 4 : 0;
                m.model = QStringLiteral("buffered-model");
                m.server = server;
                store.addMessage(m);
            };
            add("user", "Now", 0, {});
            add("assistant", "All at once.", 30, url);
            add("user", "Again", 0, {});
            add("assistant", "Hi", 1, {});
            session()->reload();
            QVERIFY(session()->select(c.id));
        }
        QMap<QString, QString> noteOf;  // the figures line → its tooltip
        m_ui->settle();
        for (QQuickItem* f : m_ui->items("replyFigures"))
            if (f->isVisible()) noteOf.insert(f->property("text").toString(), f->property("rateNote").toString());
        QCOMPARE(noteOf.size(), 2);
        const QString remoteLine = noteOf.firstKey().startsWith("30") ? noteOf.firstKey() : noteOf.lastKey();
        const QString localLine = noteOf.firstKey().startsWith("30") ? noteOf.lastKey() : noteOf.firstKey();
        QVERIFY2(remoteLine.startsWith(QStringLiteral("30 tokens · — tok/s · first token in 4 ms")), qPrintable(remoteLine));
        QVERIFY2(localLine.startsWith(QStringLiteral("1 tokens · — tok/s")), qPrintable(localLine));
        QVERIFY2(noteOf[remoteLine].contains("arrived at once, too fast to time") && noteOf[remoteLine].contains("did not report"),
                 qPrintable(noteOf[remoteLine]));
        QVERIFY2(noteOf[localLine].contains("one token"), qPrintable(noteOf[localLine]));
        chatWith(url, "buffered-model");

        // The server's own timings win over what is measured here.
        server.timings = true;
        r = ask("Timed");
        QCOMPARE(r.state, QStringLiteral("complete"));
        QVERIFY2(std::abs(r.tokensPerSecond - 35 * 1000.0 / 661.064) < 1e-9, qPrintable(QString::number(r.tokensPerSecond)));
        shown = lastFigures()->property("text").toString();
        QVERIFY2(shown.contains(QStringLiteral("· 52.9 tok/s")), qPrintable(shown));
    }

    // A FreeToken server's refusals in the app's language (ft serve sends each error's key and arguments beside the
    // OpenAI fields: "ft_message"): a wrong key in the Add a server dialog; a model it does not serve, a temperature
    // out of range and a prompt longer than its context in a chat; a KV size it refuses. Another server's own words
    // come as they are, marked as the server's. Before, each was the server's English.
    void theServersRefusalsAreInTheAppsLanguage() {
        QObject* settings = m_ui->object("settingsModel");
        settings->setProperty("language", "ko");
        m_ui->settle(200);
        const auto hangul = [](const QString& s) {
            for (const QChar c : s)
                if (c.unicode() >= 0xAC00 && c.unicode() <= 0xD7A3) return true;
            return false;
        };
        QString e = addByDialog(m_demo.url, "wrong-key");
        QVERIFY2(e.contains(m_demo.url) && e.contains("401") && e.contains(QStringLiteral("API 키가 없거나 잘못되었습니다")) &&
                     !e.contains("missing or wrong API key"),
                 qPrintable(e));
        if (dialogOpen()) QMetaObject::invokeMethod(m_ui->object("addServerDialog"), "close");
        m_ui->settle(50);
        ft::RemoteClient client;
        const auto failure = [&](const QString& url, const QString& key, const QString& model, const QString& text,
                                 const QJsonObject& sampling) {
            QSignalSpy failed(&client, &ft::RemoteClient::generationFailed);
            client.chat(url, key, model, QJsonArray{QJsonObject{{"role", "user"}, {"content", text}}}, sampling);
            return failed.wait(30000) ? failed.first().at(1).toString() : QStringLiteral("(no failure)");
        };
        e = failure(m_demo.url, kKey, "no-such-model", "Hi", {});
        QVERIFY2(e.contains(QStringLiteral("\u201cno-such-model\u201d")) && hangul(e.section("no-such-model", -1)) &&
                     !e.contains("does not exist"),
                 qPrintable(e));
        e = failure(m_demo.url, kKey, "freetoken-demo", "Hi", {{"temperature", 7}});
        QVERIFY2(e.contains("temperature") && e.contains("[0.0, 2.0]") && hangul(e.section("temperature", -1)) && !e.contains("must be in"),
                 qPrintable(e));
        e = failure(m_demo.url, kKey, "freetoken-demo", QStringLiteral("a ").repeated(5000), {});
        QVERIFY2(e.contains("4096") && hangul(e.section("4096", -1)) && !e.contains("maximum context length"), qPrintable(e));
        // A KV size below one context, refused by the server's engine ("kv_below_context" in its reason_key).
        QSignalSpy rebuilt(&client, &ft::RemoteClient::cachesRebuilt);
        client.rebuildCaches(m_demo.url, kKey, 16, -1);
        QVERIFY(rebuilt.wait(30000));
        QVERIFY(!rebuilt.first().at(1).toBool());
        const QString reason = rebuilt.first().at(2).toString();
        QVERIFY2(reason.contains("16") && hangul(reason) && !reason.contains("less than one"), qPrintable(reason));
        // Not FreeToken: its own words, marked as its own; a key this version does not know is as good as none.
        RefusingServer other;
        QVERIFY(other.listen(QHostAddress::LocalHost));
        const QString url = QStringLiteral("http://127.0.0.1:%1").arg(other.serverPort());
        other.body = R"({"error":{"message":"upstream exploded","type":"server_error"}})";
        e = failure(url, {}, "refusing-model", "Hi", {});
        QVERIFY2(e.contains(QStringLiteral("HTTP 500")) && e.contains(QStringLiteral("서버의 메시지: \u201cupstream exploded\u201d")), qPrintable(e));
        other.status = 400;
        other.body = R"({"error":{"message":"a newer refusal","ft_message":{"key":"from_the_future","args":["1"]}}})";
        e = failure(url, {}, "refusing-model", "Hi", {});
        QVERIFY2(e.contains(QStringLiteral("서버의 메시지: \u201ca newer refusal\u201d")) && !e.contains("from_the_future"), qPrintable(e));
        settings->setProperty("language", "en");
        m_ui->settle(200);
        e = failure(url, {}, "refusing-model", "Hi", {});
        QVERIFY2(e.contains(QStringLiteral("the server says: \u201ca newer refusal\u201d")), qPrintable(e));
    }

    void noQmlWarnings() {
        QStringList mine;
        for (const QString& w : ft::test::take_warnings())
            if (w.contains(QRegularExpression("AddServerDialog|RemoteServersCard|RemoteConsoleCard|ModelsPage|ConsolePage|Main\\.qml")))
                mine << w;
        QVERIFY2(mine.isEmpty(), qPrintable(mine.join('\n')));
    }

    void cleanupTestCase() { m_ui.reset(); }
};

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    TestRemoteServer t;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&t, argc, argv);
}

#include "test_remote_server.moc"
