// app/core: LogHub (ring buffer, spdlog sink, queued delivery across threads), ModelLibrary (SQLite migrations,
// validation, persistence), AppSettings (persistence, refusals), SystemInfo (real figures from this machine).
#include <QFile>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QSignalSpy>
#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QTemporaryDir>
#include <QThread>

#include <spdlog/spdlog.h>

#include <atomic>
#include <thread>

#include "app_settings.h"
#include "ft/error.h"
#include "ft_test.h"
#include "log_hub.h"
#include "model_library.h"
#include "system_info.h"

namespace {

void write_file(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY2(f.open(QIODevice::WriteOnly), qPrintable(path));
    f.write(bytes);
}

// Runs `fn`, expecting an ft::Error of `code`; returns its message ("" if nothing or something else was thrown).
template <typename Fn>
QString expect_error(Fn&& fn, ft::ErrorCode code) {
    try {
        fn();
    } catch (const ft::Error& e) {
        return e.code() == code ? QString::fromStdString(e.message()) : QString();
    }
    return {};
}

// A receiver living in the main thread that records where each entry arrived.
class Receiver : public QObject {
    Q_OBJECT
public:
    std::atomic<int> count{0};
    std::atomic<int> wrongThread{0};
    quint64 lastSeq = 0;
    bool inOrder = true;
public slots:
    void onEntry(const ft::LogEntry& e) {
        if (QThread::currentThread() != thread()) ++wrongThread;
        if (e.seq <= lastSeq) inOrder = false;
        lastSeq = e.seq;
        ++count;
    }
};

}  // namespace

class TestAppCore : public QObject {
    Q_OBJECT

private slots:
    void logHubRingBufferKeepsTheNewest() {
        ft::LogHub hub(3);
        for (int i = 1; i <= 5; ++i) hub.append(2, 1000 + i, QStringLiteral("line %1").arg(i));
        const auto snap = hub.snapshot();
        QCOMPARE(snap.size(), 3);
        QCOMPARE(snap[0].text, QStringLiteral("line 3"));
        QCOMPARE(snap[2].text, QStringLiteral("line 5"));
        QCOMPARE(snap[0].seq, quint64(3));
        QCOMPARE(snap[2].msecs, qint64(1005));
        QCOMPARE(hub.totalAppended(), quint64(5));
        hub.append(42, 0, "clamped");
        QCOMPARE(hub.snapshot().last().level, 5);
    }

    void logHubSinkReceivesSpdlogRecords() {
        auto hub = std::make_unique<ft::LogHub>(10);
        auto logger = std::make_shared<spdlog::logger>("hub-test", hub->sink());
        logger->set_level(spdlog::level::debug);
        logger->warn("expert cache {} slots", 42);
        logger->debug("detail");
        const auto snap = hub->snapshot();
        QCOMPARE(snap.size(), 2);
        QCOMPARE(snap[0].level, 3);
        QCOMPARE(snap[0].text, QStringLiteral("expert cache 42 slots"));
        QCOMPARE(snap[1].level, 1);
        QVERIFY(std::abs(snap[0].msecs - QDateTime::currentMSecsSinceEpoch()) < 60000);
        hub.reset();
        logger->error("after the hub is gone");  // the sink outlives the hub and must drop this safely
    }

    void logHubDeliversAcrossThreadsQueued() {
        ft::LogHub hub(1000);
        Receiver receiver;
        connect(&hub, &ft::LogHub::entryAdded, &receiver, &Receiver::onEntry);  // auto: queued from other threads
        constexpr int kPerThread = 200;
        std::thread a([&] { for (int i = 0; i < kPerThread; ++i) hub.append(2, i, "a"); });
        std::thread b([&] { for (int i = 0; i < kPerThread; ++i) hub.append(3, i, "b"); });
        a.join();
        b.join();
        QCOMPARE(receiver.count.load(), 0);  // nothing ran in the main thread yet: the delivery is queued
        QTRY_COMPARE(receiver.count.load(), 2 * kPerThread);
        QCOMPARE(receiver.wrongThread.load(), 0);
        QCOMPARE(hub.snapshot().size(), 2 * kPerThread);
    }

    void modelLibraryMigratesAndPersists() {
        QTemporaryDir dir;
        const QString db = dir.filePath("lib.db");
        const QString gguf = dir.filePath("Qwen3-30B-A3B-Q4_K_M.gguf");
        write_file(gguf, QByteArray("GGUF") + QByteArray(1020, '\0'));
        qint64 id = 0;
        {
            ft::ModelLibrary lib(db);
            QCOMPARE(lib.schemaVersion(), ft::ModelLibrary::kSchemaVersion);
            QVERIFY(lib.models().isEmpty());
            const ft::ModelRecord r = lib.add(gguf);
            id = r.id;
            QVERIFY(id > 0);
            QCOMPARE(r.format, QStringLiteral("gguf"));
            QCOMPARE(r.displayName, QStringLiteral("Qwen3-30B-A3B-Q4_K_M"));
            QCOMPARE(r.sizeBytes, qint64(1024));
        }
        ft::ModelLibrary again(db);  // reopen: data kept, no migration re-run
        const auto models = again.models();
        QCOMPARE(models.size(), 1);
        QCOMPARE(models[0].id, id);
        QCOMPARE(models[0].path, QFileInfo(gguf).absoluteFilePath());
        QVERIFY(models[0].addedAt.isValid());
        QVERIFY(again.remove(id));
        QVERIFY(!again.remove(id));
        QVERIFY(again.models().isEmpty());
    }

    void modelLibraryMigratesAVersionZeroDatabase() {
        QTemporaryDir dir;
        const QString db = dir.filePath("old.db");
        {
            QSqlDatabase raw = QSqlDatabase::addDatabase("QSQLITE", "raw0");
            raw.setDatabaseName(db);
            QVERIFY(raw.open());
            QSqlQuery q(raw);
            QVERIFY(q.exec("CREATE TABLE unrelated (x INTEGER)"));
            QVERIFY(q.exec("INSERT INTO unrelated VALUES (7)"));
            raw.close();
        }
        QSqlDatabase::removeDatabase("raw0");
        ft::ModelLibrary lib(db);
        QCOMPARE(lib.schemaVersion(), ft::ModelLibrary::kSchemaVersion);
        QVERIFY(lib.models().isEmpty());
    }

    void modelLibraryRefusesANewerSchema() {
        QTemporaryDir dir;
        const QString db = dir.filePath("new.db");
        {
            QSqlDatabase raw = QSqlDatabase::addDatabase("QSQLITE", "raw99");
            raw.setDatabaseName(db);
            QVERIFY(raw.open());
            QSqlQuery q(raw);
            QVERIFY(q.exec("PRAGMA user_version = 99"));
            raw.close();
        }
        QSqlDatabase::removeDatabase("raw99");
        const QString msg = expect_error([&] { ft::ModelLibrary lib(db); }, ft::ErrorCode::unsupported);
        QVERIFY2(msg.contains("99"), qPrintable(msg));
    }

    void modelLibraryRejectsBadPaths() {
        QTemporaryDir dir;
        ft::ModelLibrary lib(dir.filePath("lib.db"));
        const QString missing = dir.filePath("nope.gguf");
        QString msg = expect_error([&] { lib.add(missing); }, ft::ErrorCode::not_found);
        QVERIFY2(msg.contains("nope.gguf"), qPrintable(msg));

        write_file(dir.filePath("fake.gguf"), "NOTGGUF...");
        msg = expect_error([&] { lib.add(dir.filePath("fake.gguf")); }, ft::ErrorCode::invalid_file);
        QVERIFY2(msg.contains("fake.gguf"), qPrintable(msg));

        write_file(dir.filePath("notes.txt"), "GGUF");
        QVERIFY(!expect_error([&] { lib.add(dir.filePath("notes.txt")); }, ft::ErrorCode::invalid_file).isEmpty());

        QDir(dir.path()).mkdir("empty-folder");
        QVERIFY(!expect_error([&] { lib.add(dir.filePath("empty-folder")); }, ft::ErrorCode::invalid_file).isEmpty());
        QVERIFY(!expect_error([&] { lib.add("   "); }, ft::ErrorCode::invalid_argument).isEmpty());
        QVERIFY(lib.models().isEmpty());

#ifndef _WIN32
        write_file(dir.filePath("locked.gguf"), "GGUF");
        QFile::setPermissions(dir.filePath("locked.gguf"), QFileDevice::WriteOwner);
        if (QFileInfo(dir.filePath("locked.gguf")).isReadable()) QSKIP("running as root: permissions are not enforced");
        QVERIFY(!expect_error([&] { lib.add(dir.filePath("locked.gguf")); }, ft::ErrorCode::not_found).isEmpty());
#endif
    }

    void modelLibraryAcceptsAHuggingFaceFolderOnce() {
        QTemporaryDir dir;
        ft::ModelLibrary lib(dir.filePath("lib.db"));
        QDir(dir.path()).mkdir("Qwen3-30B-A3B");
        const QString folder = dir.filePath("Qwen3-30B-A3B");
        write_file(folder + "/config.json", "{}");
        write_file(folder + "/model-00001-of-00002.safetensors", QByteArray(100, 'x'));
        write_file(folder + "/model-00002-of-00002.safetensors", QByteArray(50, 'x'));
        const ft::ModelRecord r = lib.add(folder + "/");
        QCOMPARE(r.format, QStringLiteral("safetensors"));
        QCOMPARE(r.displayName, QStringLiteral("Qwen3-30B-A3B"));
        QCOMPARE(r.sizeBytes, qint64(152));
        const QString msg = expect_error([&] { lib.add(folder); }, ft::ErrorCode::invalid_argument);
        QVERIFY2(msg.contains("already"), qPrintable(msg));
        QCOMPARE(lib.models().size(), 1);
    }

    void appSettingsPersistAndRefuseUnknownValues() {
        QTemporaryDir dir;
        const QString file = dir.filePath("s.ini");
        {
            ft::AppSettings s(file);
            QCOMPARE(s.theme(), QStringLiteral("dark"));
            QVERIFY(ft::AppSettings::languages().contains(s.language()));
            QCOMPARE(s.apiPort(), 1919);
            QSignalSpy themeSpy(&s, &ft::AppSettings::themeChanged);
            QVERIFY(s.setTheme("light"));
            QVERIFY(!s.setTheme("purple"));
            QCOMPARE(s.theme(), QStringLiteral("light"));
            QCOMPARE(themeSpy.count(), 1);
            QVERIFY(s.setLanguage("zh_CN"));
            QVERIFY(!s.setLanguage("xx"));
        }
        ft::AppSettings reread(file);
        QCOMPARE(reread.theme(), QStringLiteral("light"));
        QCOMPARE(reread.language(), QStringLiteral("zh_CN"));
        {
            QSettings raw(file, QSettings::IniFormat);
            raw.setValue("ui/theme", "neon");
            raw.setValue("server/port", 99999);
        }
        ft::AppSettings corrupted(file);
        QCOMPARE(corrupted.theme(), QStringLiteral("dark"));
        QCOMPARE(corrupted.apiPort(), 1919);
    }

    void systemInfoReadsThisMachine() {
        const ft::SystemStatus s = ft::read_system_status();
        QVERIFY(s.ram.totalBytes > (256ull << 20));
        QVERIFY(s.ram.availableBytes <= s.ram.totalBytes);
        QVERIFY(!s.cpuName.isEmpty());
        QVERIFY(s.logicalCores >= 1);
        QVERIFY(!s.simdTarget.isEmpty());
        if (s.gpus.isEmpty()) QVERIFY(!s.gpuUnavailableReason.isEmpty());
        for (const auto& g : s.gpus) {
            QVERIFY(!g.name.isEmpty());
            QVERIFY(g.freeBytes <= g.totalBytes);
        }
    }
};

FT_TEST_MAIN(TestAppCore)
#include "test_app_core.moc"
