// Where the bundled demo model is found (ft/paths.h): an installed layout (<prefix>/bin/ft beside
// <prefix>/share/freetoken/models), the source tree's resources/models, the order between them, and what is not a
// match (a missing file, a folder of that name). Also that the source tree really holds the model and that
// executable_path() names this test binary.
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <fstream>

#include "ft/paths.h"
#include "ft_test.h"

namespace fs = std::filesystem;

namespace {

void touch(const fs::path& p, const char* text = "GGUF") {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}

}  // namespace

class TestBundledModel : public QObject {
    Q_OBJECT

private slots:
    void installedLayoutIsFound() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const fs::path prefix = tmp.path().toStdString();
        const fs::path exe = prefix / "bin" / "ft";
        QVERIFY(ft::find_bundled_model(exe, {}).empty());  // nothing there yet
        const fs::path model = prefix / "share" / "freetoken" / "models" / ft::kBundledModelFile;
        touch(model);
        QCOMPARE(ft::find_bundled_model(exe, {}), model);
        // An installed model wins over the source tree's.
        const fs::path src = prefix / "src" / "resources";
        touch(src / "models" / ft::kBundledModelFile);
        QCOMPARE(ft::find_bundled_model(exe, src), model);
    }

    void sourceTreeIsTheFallback() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const fs::path root = tmp.path().toStdString();
        const fs::path exe = root / "build" / "app" / "ft";
        const fs::path src = root / "resources";
        QVERIFY(ft::find_bundled_model(exe, src).empty());
        touch(src / "models" / ft::kBundledModelFile);
        QCOMPARE(ft::find_bundled_model(exe, src), src / "models" / ft::kBundledModelFile);
        const auto dirs = ft::bundled_model_dirs(exe, src);
        QCOMPARE(dirs.size(), std::size_t(2));
        QCOMPARE(dirs[0], (root / "build" / "share" / "freetoken" / "models").lexically_normal());
        QCOMPARE(dirs[1], src / "models");
        QCOMPARE(ft::bundled_model_dirs(exe).size(), std::size_t(1));
        QCOMPARE(ft::bundled_model_dirs({}, src).size(), std::size_t(1));
    }

    void aFolderOfThatNameIsNotAModel() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const fs::path prefix = tmp.path().toStdString();
        fs::create_directories(prefix / "share" / "freetoken" / "models" / ft::kBundledModelFile);
        QVERIFY(ft::find_bundled_model(prefix / "bin" / "ft", {}).empty());
        QVERIFY(ft::find_bundled_model({}, {}).empty());
    }

    // The repository ships the model: the build tree's lookup (ft run/chat without --model) finds a GGUF file.
    void sourceTreeHoldsTheModel() {
        const fs::path src = fs::path(FT_SOURCE_DIR) / "resources";
        const fs::path found = ft::find_bundled_model(fs::path("/nonexistent/bin/ft"), src);
        QCOMPARE(found, src / "models" / ft::kBundledModelFile);
        std::ifstream in(found, std::ios::binary);
        char magic[4] = {};
        in.read(magic, 4);
        QCOMPARE(QByteArray(magic, 4), QByteArray("GGUF"));
        QVERIFY(fs::file_size(found) <= 20'000'000);  // the size the model card promises
    }

    void executablePathIsThisProgram() {
        const fs::path exe = ft::executable_path();
        QVERIFY(!exe.empty());
        QVERIFY(fs::exists(exe));
        QCOMPARE(fs::weakly_canonical(exe), fs::weakly_canonical(QCoreApplication::applicationFilePath().toStdString()));
    }
};

FT_TEST_MAIN(TestBundledModel)
#include "test_bundled_model.moc"
