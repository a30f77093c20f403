// Against a server that is not ours (label `peer`): llama.cpp's llama-server, built from the trimmed source in
// ../shared/peers/llama.cpp (scripts/peer-llama-server.sh builds it outside the repository), serving the bundled
// demo GGUF with an API key. In the real window: a wrong key is a clear message; the right one lists its model with
// the context length it states (meta.n_ctx); a chat streams a complete reply recorded with that model and server,
// nothing loaded in this app's engine; the Console knows it is not a FreeToken server (no /v1/stats), says what is
// not known and shows the TTFT and tok/s measured here. (Stop and a server dying mid-reply are proved against
// ft serve in test_remote_server: this model's replies end in ~0.1 s.)
//
// The binary: FT_LLAMA_SERVER (environment, or the CMake cache variable of the same name). Without it the test is
// skipped (exit 77) and says why.
#include <QApplication>
#include <QFileInfo>
#include <QProcess>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>

#include "app_harness.h"
#include "chat_session.h"
#include "engine_host.h"
#include "ft/log.h"
#include "log_hub.h"
#include "remote_server_list_model.h"
#include "remote_stats_model.h"

namespace {

const QString kDemo = QStringLiteral(FT_SOURCE_DIR "/resources/models/freetoken-demo.gguf");
const QString kKey = QStringLiteral("peer-key-51c0");

QString llama_server() { return qEnvironmentVariable("FT_LLAMA_SERVER"); }

}  // namespace

class TestRemotePeer : public QObject {
    Q_OBJECT
    QTemporaryDir m_data;
    ft::LogHub m_hub;
    std::unique_ptr<ft::test::UiHarness> m_ui;
    QProcess m_server;
    QString m_url;

    ft::ui::ChatSession* session() const { return qobject_cast<ft::ui::ChatSession*>(m_ui->object("chatSession")); }
    ft::ui::RemoteServerListModel* servers() const {
        return qobject_cast<ft::ui::RemoteServerListModel*>(m_ui->object("serverModel"));
    }
    const QList<ft::MessageRecord>& messages() const { return session()->messages()->messages(); }
    bool dialogOpen() const { return m_ui->object("addServerDialog")->property("opened").toBool(); }

    QString addByDialog(const QString& url, const QString& key) {
        if (!dialogOpen()) {
            m_ui->showPage("models");
            m_ui->click("addServerButton");
            if (!QTest::qWaitFor([&] { return dialogOpen(); }, 5000)) return "the dialog did not open";
        }
        m_ui->item("serverUrlField")->setProperty("text", url);
        m_ui->item("serverKeyField")->setProperty("text", key);
        m_ui->settle(50);
        m_ui->click("addServerConfirm");
        if (!QTest::qWaitFor([&] { return !servers()->adding(); }, 15000)) return "the check did not end";
        m_ui->settle(50);
        return dialogOpen() ? m_ui->item("addServerError")->property("text").toString() : QString();
    }

    void send(const QString& text) {
        QQuickItem* input = m_ui->item("chatInput");
        QVERIFY(input && input->isEnabled());
        input->forceActiveFocus();
        for (const QChar c : text) QTest::keyClick(m_ui->window(), c.toLatin1());
        QTest::keyClick(m_ui->window(), Qt::Key_Return);
    }

private slots:
    void initTestCase() {
        QVERIFY(m_data.isValid());
        qputenv("FT_DATA_DIR", m_data.path().toUtf8());
        qputenv("FT_KEYCHAIN", "off");  // the key in the 0600 file; the keyring of whoever runs this stays untouched
        ft::attach_log_hub(m_hub, "freetoken");
        // A free port: taken, released, given to llama-server.
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost));
        const quint16 port = probe.serverPort();
        probe.close();
        m_url = QStringLiteral("http://127.0.0.1:%1").arg(port);
        m_server.setProcessChannelMode(QProcess::MergedChannels);
        m_server.setStandardOutputFile(m_data.filePath("llama-server.log"));
        m_server.start(llama_server(), {"-m", kDemo, "--host", "127.0.0.1", "--port", QString::number(port), "-t", "1",
                                        "-c", "1024", "--alias", "freetoken-demo", "--api-key", kKey});
        QVERIFY2(m_server.waitForStarted(10000), qPrintable(m_server.errorString()));
        const bool up = QTest::qWaitFor([&] {
            QFile f(m_data.filePath("llama-server.log"));
            return f.open(QIODevice::ReadOnly) && f.readAll().contains("listening on");
        }, 60000);
        QFile log(m_data.filePath("llama-server.log"));
        log.open(QIODevice::ReadOnly);
        QVERIFY2(up, qPrintable(QString::fromUtf8(log.readAll().right(2000))));
        m_ui = std::make_unique<ft::test::UiHarness>(&m_hub);
        QVERIFY(m_ui->load());
    }

    void aWrongKeyIsAClearMessage() {
        const QString e = addByDialog(m_url, "wrong");
        QVERIFY2(e.contains("refused the API key (HTTP 401: the server says: \u201cInvalid API Key\u201d)"), qPrintable(e));
    }

    void itsModelIsListedWithItsContext() {
        QCOMPARE(addByDialog(m_url, kKey), QString());
        QTRY_COMPARE(servers()->rowCount(), 1);
        const QModelIndex i = servers()->index(0);
        QCOMPARE(i.data(ft::ui::RemoteServerListModel::KindRole).toString(), QStringLiteral("other"));
        const QVariantList models = i.data(ft::ui::RemoteServerListModel::ModelsRole).toList();
        QCOMPARE(models.size(), 1);
        QCOMPARE(models.first().toMap().value("id").toString(), QStringLiteral("freetoken-demo"));
        QCOMPARE(models.first().toMap().value("contextLength").toInt(), 1024);  // its meta.n_ctx (-c 1024)
    }

    void chatsAndTheConsoleSaysWhatIsNotKnown() {
        QVERIFY(session()->chatWithServer(m_url, "freetoken-demo", 1024));
        QVERIFY(m_ui->showPage("chat"));
        session()->newChat();
        m_ui->settle();
        send("Hello");
        QTRY_VERIFY_WITH_TIMEOUT(!session()->busy(), 60000);
        const ft::MessageRecord r = messages().last();
        QCOMPARE(r.state, QStringLiteral("complete"));
        QVERIFY(!r.content.trimmed().isEmpty());
        QCOMPARE(r.model, QStringLiteral("freetoken-demo"));
        QCOMPARE(r.server, m_url);
        QVERIFY(r.completionTokens > 0 && r.ttftMs > 0);
        QCOMPARE(m_ui->host()->state(), QStringLiteral("idle"));
        QVERIFY(m_ui->showPage("console"));
        QObject* rs = m_ui->object("remoteStats");
        QTRY_COMPARE_WITH_TIMEOUT(rs->property("kind").toString(), QStringLiteral("other"), 5000);
        m_ui->settle();
        QVERIFY(m_ui->item("remoteNotKnown")->isVisible());
        QVERIFY(!m_ui->item("remoteDecode")->isVisible());
        QVERIFY(m_ui->item("remoteMeasuredSpeed")->property("available").toBool());
        m_ui->saveScreenshot("console-remote-llama-server");
    }

    void cleanupTestCase() {
        m_ui.reset();
        m_server.terminate();
        if (!m_server.waitForFinished(10000)) m_server.kill();
    }
};

int main(int argc, char** argv) {
    const QString exe = llama_server();
    if (exe.isEmpty() || !QFileInfo(exe).isExecutable()) {
        std::printf("skipped: no llama-server (set FT_LLAMA_SERVER to a llama-server binary; "
                    "scripts/peer-llama-server.sh builds one from ../shared/peers/llama.cpp, outside the repository)%s\n",
                    exe.isEmpty() ? "" : qPrintable(": " + exe + " is not an executable file"));
        return 77;
    }
    QApplication app(argc, argv);
    TestRemotePeer t;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&t, argc, argv);
}

#include "test_remote_peer.moc"
