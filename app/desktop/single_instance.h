// One FreeToken window per user (per data folder): a second start of the app — a second double-click on a .gguf
// file, or the Start-menu/desktop entry again — hands its model path to the app already running, which opens it in
// Models and comes to the front, and exits.
//   The running app listens on a local socket (QLocalServer: a named pipe on Windows, a socket in the temporary
//   folder elsewhere; only this user may connect) whose name is derived from the data folder (ft::data_dir(), which
//   FT_DATA_DIR replaces), so two users, or two FT_DATA_DIR folders, never meet.
//   Protocol: one line "open <absolute path, UTF-8>\n" ("open \n": no file, just show the window), answered "ok\n".
// `freetoken --smoke` neither hands over nor listens.
#pragma once

#include <QObject>
#include <QString>

class QLocalServer;

namespace ft::app {

class SingleInstance : public QObject {
    Q_OBJECT
public:
    enum class HandOver { Handed, NoneRunning, NoAnswer };

    explicit SingleInstance(QObject* parent = nullptr);
    ~SingleInstance() override;

    const QString& name() const { return m_name; }
    // In a second start: sends `path` ("" for none) to the running app. NoneRunning: nobody listens (start as
    // usual). NoAnswer: something listens but did not answer within `timeout_ms`.
    HandOver handOver(const QString& path, int timeout_ms);
    // In the app that runs: listens (a socket file left by an app that crashed is removed first). False with
    // `error` set when it cannot.
    bool listen(QString& error);

    // What a second start says when the running app did not answer within `seconds` (handOver's NoAnswer), in the
    // language installed (ft::ui::install_language): the problem — with `path`, the model that was not opened ("" for
    // none) — and what to do.
    static QString noAnswerText(int seconds, const QString& path);
    static QString noAnswerAdvice();
    // Says both in a message box (a double-click on Windows has no console to print to) and on standard error;
    // returns when the box is closed.
    static void reportNoAnswer(int seconds, const QString& path);

signals:
    void openRequested(const QString& path);  // "" : show the window only

private:
    void onConnection();

    QString m_name;
    QLocalServer* m_server = nullptr;
};

}  // namespace ft::app
