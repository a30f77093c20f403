// ft::Error, per-user paths and the logging setup.
#include <QTemporaryDir>

#include <fstream>
#include <sstream>

#include "ft/error.h"
#include "ft/log.h"
#include "ft/paths.h"
#include "ft/version.h"
#include "ft_test.h"

class TestEngineCore : public QObject {
    Q_OBJECT
private slots:
    void errorCarriesMessageHintAndCode() {
        const ft::Error e(ft::ErrorCode::invalid_file, "model.gguf: truncated at byte 120", "download it again");
        QCOMPARE(e.code(), ft::ErrorCode::invalid_file);
        QCOMPARE(QString::fromStdString(e.message()), QStringLiteral("model.gguf: truncated at byte 120"));
        QCOMPARE(QString::fromStdString(e.hint()), QStringLiteral("download it again"));
        QCOMPARE(QString::fromUtf8(e.what()), QStringLiteral("model.gguf: truncated at byte 120 (download it again)"));
        const ft::Error bare(ft::ErrorCode::io, "cannot open x");
        QCOMPARE(QString::fromUtf8(bare.what()), QStringLiteral("cannot open x"));
        QCOMPARE(QString::fromUtf8(ft::error_code_name(ft::ErrorCode::out_of_memory).data()),
                 QStringLiteral("out of memory"));
    }

    void dataDirFollowsOverrideAndIsCreated() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QByteArray dir = (tmp.path() + "/nested/data").toUtf8();
        qputenv("FT_DATA_DIR", dir);
        QCOMPARE(QString::fromStdString(ft::data_dir().string()), QString::fromUtf8(dir));
        QVERIFY(std::filesystem::is_directory(ft::log_dir()));
        QCOMPARE(ft::log_dir(), ft::data_dir() / "logs");
        QVERIFY(std::filesystem::is_directory(ft::models_dir()));
    }

    void dataDirUnwritableIsAClearError() {
        qputenv("FT_DATA_DIR", "/proc/ft-cannot-exist/data");
        try {
            ft::data_dir();
            QFAIL("expected ft::Error");
        } catch (const ft::Error& e) {
            QCOMPARE(e.code(), ft::ErrorCode::io);
            QVERIFY(std::string(e.what()).find("/proc/ft-cannot-exist/data") != std::string::npos);
            QVERIFY(!e.hint().empty());
        }
    }

    void logInitWritesRotatingFile() {
        QTemporaryDir tmp;
        ft::LogOptions o;
        o.app_name = "unit";
        o.console = false;
        o.dir = tmp.path().toStdString();
        const auto file = ft::log_init(o);
        QCOMPARE(file, std::filesystem::path(tmp.path().toStdString()) / "unit.log");
        spdlog::info("hello from {}", "test");
        spdlog::debug("debug line kept in the file");
        ft::log_shutdown();
        std::ifstream in(file);
        std::stringstream ss;
        ss << in.rdbuf();
        QVERIFY(ss.str().find("hello from test") != std::string::npos);
        QVERIFY(ss.str().find("debug line kept in the file") != std::string::npos);
    }

    void logInitOnUnwritableDirFallsBackToConsole() {
        ft::LogOptions o;
        o.console = true;
        o.console_level = spdlog::level::off;
        o.dir = "/proc/ft-no-such-dir";
        const auto file = ft::log_init(o);
        QVERIFY(file.empty());
        spdlog::info("still works");
        ft::log_shutdown();
    }

    void versionIsTheProjectVersion() {
        QCOMPARE(QString::fromUtf8(ft::version()), QStringLiteral(FT_TEST_PROJECT_VERSION));
        QVERIFY(ft::build_description().find(ft::version()) == 0);
    }
};

FT_TEST_MAIN(TestEngineCore)
#include "test_engine_core.moc"
