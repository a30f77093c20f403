// Test helper for test_chat_store's crash-safety case (not a test itself): the app's real chat path in a process of
// its own. Loads the tiny model in an EngineHost, sends one message through ChatSession (history in FT_DATA_DIR)
// and prints "shown <base64 of the reply text>" each time the message list shows new reply text, so the test knows
// exactly what a user saw when it kills this process with SIGKILL.
#include <QCoreApplication>
#include <QTimer>

#include <cstdio>

#include "chat_session.h"
#include "engine_host.h"

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: chat_reply_writer MODEL\n");
        return 2;
    }
    ft::EngineHost host;
    ft::LoadOptions o;
    o.device = ft::Device::cpu;
    o.threads = 1;
    o.n_ctx = 4096;
    host.setLoadOptions(o);
    ft::ui::ChatSession chat;
    chat.setHost(&host);
    QObject::connect(chat.messages(), &QAbstractItemModel::dataChanged, [&](const QModelIndex& i) {
        if (chat.messages()->roleAt(i.row()) != "assistant") return;
        const QByteArray text = chat.messages()->contentAt(i.row()).toUtf8().toBase64();
        std::printf("shown %s\n", text.constData());
        std::fflush(stdout);
    });
    QObject::connect(&chat, &ft::ui::ChatSession::replyFinished, [&](const QString& state) {
        std::printf("finished %s\n", qPrintable(state));
        std::fflush(stdout);
        app.exit(0);
    });
    QObject::connect(&host, &ft::EngineHost::loadFinished, [&](bool ok, const QString& error) {
        if (!ok) {
            std::fprintf(stderr, "load failed: %s\n", qPrintable(error));
            app.exit(1);
            return;
        }
        chat.saveSettings({}, 0.0, 1.0, 4000, 1);
        if (!chat.send(QStringLiteral("Write a very long story about a lighthouse."))) {
            std::fprintf(stderr, "send failed: %s\n", qPrintable(chat.lastError()));
            app.exit(1);
        }
    });
    host.load(QString::fromLocal8Bit(argv[1]));
    return app.exec();
}
