// The Windows ft.exe (scripts/cross-mingw.sh) under Wine, against the Linux ft of the same tree: the bundled demo
// model gives the same greedy tokens and the same bytes on standard output; model paths a Windows user has
// (Korean and Chinese folder names, spaces, more than 260 characters, another drive letter) load; the per-user data
// folder is %LOCALAPPDATA%\FreeToken under a Korean user name and FT_DATA_DIR takes a UTF-16 name; `ft.exe serve`
// answers the official OpenAI and Anthropic clients' checks (tests/reference/serve_clients.mjs clients, the Linux
// server test's requests). ft.exe carries the longPathAware manifest and `ft info` reads it back.
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "ft_process.h"
#include "wine_prefix.h"

using ft::test::run_ft;
using ft::test::WinePrefix;
using ft::test::z_path;

namespace {

const QString kFtExe = QStringLiteral(FT_MINGW_DIR "/ft/app/ft.exe");
const QString kDemo = QStringLiteral(FT_SOURCE_DIR "/resources/models/freetoken-demo.gguf");
const QString kUser = QStringLiteral("사용자");  // the Windows user: %LOCALAPPDATA% holds a Korean name

// The golden prompt of the demo model (tests/data/freetoken-demo, transformers' greedy continuation).
struct Golden {
    QString prompt, want;
    int n = 0;
};
Golden golden() {
    QFile f(QStringLiteral(FT_SOURCE_DIR "/tests/data/freetoken-demo/golden.json"));
    if (!f.open(QIODevice::ReadOnly)) return {};
    const auto g = QJsonDocument::fromJson(f.readAll()).object();
    QStringList prompt, want;
    for (const auto& v : g["sequences"].toArray()[g["greedy_prompt_index"].toInt()].toArray()) prompt << QString::number(v.toInt());
    for (const auto& v : g["greedy_new_tokens"].toArray()) want << QString::number(v.toInt());
    return {prompt.join(','), want.join(','), int(want.size())};
}

QString node_exe() { return qEnvironmentVariable("FT_NODE", QStandardPaths::findExecutable(QStringLiteral("node"))); }

}  // namespace

class TestWineFt : public QObject {
    Q_OBJECT
    WinePrefix m_wine;
    Golden m_golden;
    QByteArray m_linux_ids_out;  // Linux ft's stdout for the golden prompt

    QStringList golden_args(const QString& model) const {
        return {"run", "--device", "cpu", "--model", model, "--ids", m_golden.prompt, "--max-tokens",
                QString::number(m_golden.n), "--temperature", "0", "--ignore-eos", "--print-ids"};
    }

private slots:
    void initTestCase() {
        m_golden = golden();
        QVERIFY2(m_golden.n > 0, "tests/data/freetoken-demo/golden.json is missing");
        QString log;
        QVERIFY2(m_wine.create(kUser, log), qPrintable(log));
        qInfo("fresh Wine prefix (wineboot --init) in %.1f s", m_wine.boot_seconds());
        const auto r = run_ft(golden_args(kDemo));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        m_linux_ids_out = r.out.toUtf8();
        QVERIFY2(r.out.trimmed().endsWith(m_golden.want), qPrintable(r.out));
    }

    void version() {
        const auto w = m_wine.run(kFtExe, {"--version"});
        QVERIFY2(w.code == 0, qPrintable(w.text()));
        const auto l = run_ft({"--version"});
        const QString wv = QString::fromUtf8(w.out), lv = l.out;
        QVERIFY2(wv.startsWith(lv.section(' ', 0, 1) + ' ') && wv.contains("CPU only"), qPrintable(wv + " / " + lv));
    }

    // The same token ids, and the same bytes on stdout (text then the --print-ids line, "\n" line ends).
    void demoSameTokensAsLinux() {
        QElapsedTimer t;
        t.start();
        const auto w = m_wine.run(kFtExe, golden_args(z_path(kDemo)));
        QVERIFY2(w.code == 0, qPrintable(w.text()));
        qInfo("ft.exe run under Wine: %lld ms (start, load, %d tokens)", t.elapsed(), m_golden.n);
        QCOMPARE(w.out, m_linux_ids_out);
    }

    // Without --model both find the bundled model; `ft chat` reads the turns from stdin and stops at <|im_end|>.
    void chatSameAsLinux() {
        const QByteArray input = "Hello!\n/quit\n";
        const QStringList args{"chat", "--device", "cpu", "--temperature", "0", "--max-tokens", "64"};
        const auto l = run_ft(args, input);
        QVERIFY2(l.code == 0, qPrintable(l.err));
        const auto w = m_wine.run(kFtExe, args, input, 180000, QStringLiteral(FT_SOURCE_DIR));
        QVERIFY2(w.code == 0, qPrintable(w.text()));
        QVERIFY2(w.err.contains("freetoken-demo"), w.err.constData());
        QVERIFY2(l.out.contains("</think>\n\nHello"), qPrintable(l.out));  // the bundled model's greedy reply (model card)
        QCOMPARE(QString::fromUtf8(w.out), l.out);
    }

    void modelPaths_data() {
        QTest::addColumn<QString>("unix_dir");  // relative to the prefix's C: drive, or "M:" for the mapped drive
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("windows_path");
        QString long_dir = QStringLiteral("long");
        for (int i = 0; long_dir.size() < 280; ++i) long_dir += QStringLiteral("/folder-%1-of-a-deep-tree").arg(i);
        QString long_win = QStringLiteral("C:\\") + QString(long_dir).replace('/', '\\') + QStringLiteral("\\freetoken-demo.gguf");
        QTest::newRow("korean folder") << QStringLiteral("모델") << "freetoken-demo.gguf" << QStringLiteral("C:\\모델\\freetoken-demo.gguf");
        QTest::newRow("chinese folder, spaces, korean file") << QStringLiteral("my models/模型") << QStringLiteral("데모 모델.gguf")
                                                           << QStringLiteral("C:\\my models\\模型\\데모 모델.gguf");
        QTest::newRow("longer than 260 characters") << long_dir << "freetoken-demo.gguf" << long_win;
        QTest::newRow("drive M:") << QStringLiteral("M:/models") << "freetoken-demo.gguf" << QStringLiteral("M:\\models\\freetoken-demo.gguf");
    }
    void modelPaths() {
        QFETCH(QString, unix_dir);
        QFETCH(QString, file);
        QFETCH(QString, windows_path);
        QString dir;
        if (unix_dir.startsWith("M:")) {
            const QString root = m_wine.path() + QStringLiteral("/second-disk");
            QVERIFY(QDir().mkpath(root));
            QVERIFY(m_wine.map_drive('m', root));
            dir = root + unix_dir.mid(2);
        } else {
            dir = m_wine.drive_c() + '/' + unix_dir;
        }
        QVERIFY(QDir().mkpath(dir));
        QFile::remove(dir + '/' + file);
        QVERIFY(QFile::copy(kDemo, dir + '/' + file));
        if (windows_path.startsWith("C:\\long")) QVERIFY2(windows_path.size() > 260, qPrintable(QString::number(windows_path.size())));
        const auto w = m_wine.run(kFtExe, golden_args(windows_path));
        QVERIFY2(w.code == 0, qPrintable(w.text()));
        QCOMPARE(w.out, m_linux_ids_out);
        // A path as a positional argument and in the output (inspect prints the file it read).
        const auto i = m_wine.run(kFtExe, {"inspect", windows_path, "--json"});
        QVERIFY2(i.code == 0, qPrintable(i.text()));
        QVERIFY2(i.out.contains("qwen3_moe") || i.out.contains("qwen3moe"), i.out.left(400).constData());
        // A file that is not there: the clear error, naming the path as given.
        QString missing = windows_path;
        missing.replace(file, QStringLiteral("없는 모델.gguf"));
        const auto e = m_wine.run(kFtExe, {"run", "--device", "cpu", "--model", missing, "--prompt", "x"});
        QVERIFY2(e.code != 0 && QString::fromUtf8(e.err).contains(QStringLiteral("없는 모델.gguf")), qPrintable(e.text()));
    }

    // A split GGUF in a Korean folder under a Korean name: `ft.exe convert --split-max-tensors` names the parts
    // <name>-0000K-of-0000N.gguf and `ft.exe run` finds parts 2..N next to the first. Both join a UTF-8 file name to a
    // folder (path_from_utf8: MinGW's path(std::string) decodes in the C locale, MSVC's in the ANSI code page). The
    // parts are byte for byte the Linux ft's, and give its tokens.
    void splitModelKoreanNames() {
        const QString hf = QStringLiteral(FT_SOURCE_DIR "/tests/data/qwen3-moe-tiny");
        const QStringList convert{"convert", "--type", "f32", "--split-max-tensors", "20", "--quiet"};
        QTemporaryDir linux_dir;
        QVERIFY(linux_dir.isValid());
        const auto l = run_ft(QStringList{"convert", hf, "--out", linux_dir.path() + QStringLiteral("/작은 모델.gguf")} + convert.mid(1));
        QVERIFY2(l.code == 0, qPrintable(l.err));
        const QStringList want = QDir(linux_dir.path()).entryList({QStringLiteral("*.gguf")}, QDir::Files, QDir::Name);
        QVERIFY2(want.size() == 3 && want.first() == QStringLiteral("작은 모델-00001-of-00003.gguf"), qPrintable(want.join(", ")));

        const QString dir = m_wine.drive_c() + QStringLiteral("/분할 모델");
        QVERIFY(QDir().mkpath(dir));
        const auto w = m_wine.run(kFtExe, QStringList{"convert", z_path(hf), "--out", QStringLiteral("C:\\분할 모델\\작은 모델.gguf")} +
                                              convert.mid(1));
        QVERIFY2(w.code == 0, qPrintable(w.text()));
        QCOMPARE(QDir(dir).entryList({QStringLiteral("*")}, QDir::Files, QDir::Name), want);
        for (const auto& part : want) {
            QFile a(linux_dir.path() + '/' + part), b(dir + '/' + part);
            QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
            QVERIFY2(a.readAll() == b.readAll(), qPrintable(part + " differs from the Linux ft's"));
        }

        const QStringList run{"run", "--device", "cpu", "--prompt", "Hello", "--max-tokens", "8", "--temperature", "0",
                              "--ignore-eos", "--print-ids", "--model"};
        const auto lr = run_ft(run + QStringList{linux_dir.path() + '/' + want.first()});
        QVERIFY2(lr.code == 0, qPrintable(lr.err));
        const auto wr = m_wine.run(kFtExe, run + QStringList{QStringLiteral("C:\\분할 모델\\") + want.first()});
        QVERIFY2(wr.code == 0, qPrintable(wr.text()));
        QCOMPARE(QString::fromUtf8(wr.out), lr.out);
        // The fit prediction reads the same parts (ft inspect --plan: the path as a positional argument).
        const auto plan = m_wine.run(kFtExe, {"inspect", "--plan", QStringLiteral("C:\\분할 모델\\") + want.first(), "--json"});
        QVERIFY2(plan.code == 0 && plan.out.contains("\"verdict\""), qPrintable(plan.text()));
    }

    // %LOCALAPPDATA%\FreeToken under the Korean user name: ft.exe says so, and its log file is written there (not
    // under a mis-decoded name); FT_DATA_DIR with Chinese characters replaces it.
    void dataFolders() {
        const auto info = m_wine.run(kFtExe, {"info"});
        QVERIFY2(info.code == 0, qPrintable(info.text()));
        const QString want = QStringLiteral("data folder: C:\\users\\%1\\AppData\\Local\\FreeToken").arg(kUser);
        QVERIFY2(QString::fromUtf8(info.out).contains(want, Qt::CaseInsensitive), qPrintable(QString::fromUtf8(info.out)));
        const QString log = m_wine.local_app_data() + QStringLiteral("/FreeToken/logs/ft.log");
        QVERIFY2(QFileInfo(log).size() > 0, qPrintable(log + " was not written"));
        QStringList users = QDir(m_wine.drive_c() + "/users").entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        users.removeAll(QStringLiteral("Public"));
        QCOMPARE(users, QStringList{kUser});

        const QString custom = m_wine.drive_c() + QStringLiteral("/数据/FreeToken 데이터");
        const auto c = m_wine.run(kFtExe, {"info"}, {}, 120000, {},
                                  {QStringLiteral("FT_DATA_DIR=C:\\数据\\FreeToken 데이터")});
        QVERIFY2(c.code == 0, qPrintable(c.text()));
        QVERIFY2(QString::fromUtf8(c.out).contains(QStringLiteral("data folder: C:\\数据\\FreeToken 데이터")), qPrintable(c.text()));
        QVERIFY2(QFileInfo(custom + "/logs/ft.log").size() > 0, qPrintable(custom + "/logs/ft.log was not written"));
    }

    // The GPU expert store's pin budget defaults to what Windows lets a GPU page-lock, half the RAM (Wine reports
    // this machine's RAM); Linux has no such cap.
    void pinnableMemory() {
        QFile meminfo(QStringLiteral("/proc/meminfo"));
        QVERIFY(meminfo.open(QIODevice::ReadOnly));
        double ram_gib = 0;
        for (const auto& line : meminfo.readAll().split('\n'))
            if (line.startsWith("MemTotal:")) ram_gib = line.mid(9).trimmed().split(' ').first().toDouble() / 1048576.0;
        QVERIFY(ram_gib > 0);
        const auto w = m_wine.run(kFtExe, {"info"});
        QVERIFY2(w.code == 0, qPrintable(w.text()));
        const auto m = QRegularExpression(QStringLiteral("pinnable: +([0-9.]+) GiB of ([0-9.]+) GiB RAM")).match(QString::fromUtf8(w.out));
        QVERIFY2(m.hasMatch(), w.out.constData());
        const double pin = m.captured(1).toDouble(), ram = m.captured(2).toDouble();
        QVERIFY2(qAbs(ram - ram_gib) < 0.1 + 0.02 * ram_gib && qAbs(pin - ram / 2) <= 0.051,
                 qPrintable(QStringLiteral("%1 of %2 GiB, MemTotal %3 GiB").arg(pin).arg(ram).arg(ram_gib)));
        const auto l = run_ft({"info"});
        QVERIFY2(l.out.contains(QStringLiteral("pinnable:    all of")), qPrintable(l.out));
        const auto h = m_wine.run(kFtExe, {"run", "--help"});
        QVERIFY2(QString::fromUtf8(h.out).contains(QStringLiteral("Windows: half the RAM")), h.out.constData());
    }

    // ft.exe's manifest (resources/windows/freetoken.manifest, embedded by windres) declares longPathAware: `ft info`
    // reads it back through Windows' resource API (FindResource: the manifest Windows itself reads at start) and
    // follows the LongPathsEnabled policy, which the test turns off and on. Linux has no such line.
    void longPathManifest() {
        const QString key = QStringLiteral("HKLM\\SYSTEM\\CurrentControlSet\\Control\\FileSystem");
        for (const int on : {0, 1}) {
            const auto r = m_wine.run(QStringLiteral("reg"), {"add", key, "/v", "LongPathsEnabled", "/t", "REG_DWORD", "/d",
                                                              QString::number(on), "/f"});
            QVERIFY2(r.code == 0, qPrintable(r.text()));
            const auto w = m_wine.run(kFtExe, {"info"});
            QVERIFY2(w.code == 0, qPrintable(w.text()));
            const QString want = QStringLiteral("long paths:  longPathAware (manifest), LongPathsEnabled %1").arg(on ? "on" : "off");
            QVERIFY2(QString::fromUtf8(w.out).contains(want), qPrintable(want + " not in:\n" + QString::fromUtf8(w.out)));
        }
        const auto l = run_ft({"info"});
        QVERIFY2(l.code == 0 && !l.out.contains(QStringLiteral("long paths")), qPrintable(l.out));
    }

    // The Linux server test's protocol checks (official openai and @anthropic-ai/sdk clients) against ft.exe serve.
    void serveOfficialClients() {
        const QString modules = QStringLiteral(FT_SOURCE_DIR "/tests/reference/node_modules");
        QString why;
        if (node_exe().isEmpty()) why = QStringLiteral("node is not installed");
        else if (!QFileInfo::exists(modules + "/openai/package.json") || !QFileInfo::exists(modules + "/@anthropic-ai/sdk/package.json"))
            why = QStringLiteral("tests/reference/node_modules lacks openai / @anthropic-ai/sdk (run npm ci in tests/reference)");
        if (!why.isEmpty()) {
            if (qEnvironmentVariableIsSet("FT_REQUIRE_REFERENCE")) QFAIL(qPrintable(why));
            QSKIP(qPrintable(why));
        }
        const QString key = QStringLiteral("wine-key-1");
        const QString log_file = m_wine.path() + QStringLiteral("/serve.log");
        QProcess serve;
        m_wine.start(serve, kFtExe,
                     {"serve", "--port", "0", "--model", z_path(QStringLiteral(FT_SOURCE_DIR "/tests/data/qwen3-moe-tiny")),
                      "--device", "cpu", "--ctx", "1024", "--threads", "2", "--api-key", key},
                     log_file);
        QVERIFY(serve.waitForStarted(10000));
        const QRegularExpression re(QStringLiteral("listening on (http://\\S+)"));
        QString url, text;
        for (int i = 0; i < 600 && url.isEmpty(); ++i) {
            serve.waitForFinished(100);
            QFile f(log_file);
            if (f.open(QIODevice::ReadOnly)) text = QString::fromUtf8(f.readAll());
            if (const auto m = re.match(text); m.hasMatch()) url = m.captured(1);
            else if (serve.state() == QProcess::NotRunning) break;
        }
        QVERIFY2(!url.isEmpty(), qPrintable("ft.exe serve did not start:\n" + text));
        QElapsedTimer t;
        t.start();
        QProcess node;
        node.setProcessChannelMode(QProcess::MergedChannels);
        node.setWorkingDirectory(QStringLiteral(FT_SOURCE_DIR "/tests/reference"));
        node.start(node_exe(), {QStringLiteral(FT_SOURCE_DIR "/tests/reference/serve_clients.mjs"), "clients", url,
                                "qwen3-moe-tiny", key});
        const bool finished = node.waitForFinished(300000);
        const QString out = QString::fromUtf8(node.readAll());
        qInfo().noquote() << out;
        qInfo("serve_clients.mjs clients against ft.exe serve: %lld ms", t.elapsed());
        const auto health = run_ft({"ctl", "health", "--url", url});  // the Linux ft against the Windows server
        serve.terminate();
        if (!serve.waitForFinished(10000)) serve.kill();
        QVERIFY2(finished && node.exitCode() == 0, qPrintable(out + "\nserver log:\n" + text));
        QVERIFY2(health.code == 0 && health.out.startsWith("ok: model qwen3-moe-tiny"), qPrintable(health.out + health.err));
    }
};

FT_WINE_TEST_MAIN(TestWineFt, kFtExe)
#include "test_wine_ft.moc"
