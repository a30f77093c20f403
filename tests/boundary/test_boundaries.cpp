// Module boundaries (README, "Layout"; docs/architectures.md), checked on the source tree:
//   engine/ and kernels/ include no Qt header; kernels/ include nothing of the engine (ft/…);
//   ui/ includes no engine internals (engine/src headers) and no kernels;
//   engine/src/model/ (the description of architectures) includes nothing of execution (exec, cpu, cuda, moe, kv,
//   sched, memory, profile, bench, serve); nothing of the engine but bench/ includes bench/ (the benchmarks sit on
//   top: the stored bandwidth profile is its own module, profile/).
// The scanner is tested on planted violations first, so this suite cannot pass by finding nothing.
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>

#include "ft_test.h"

namespace {

struct Violation {
    QString file;
    int line;
    QString text;
};

QStringList source_files(const QString& root) {
    QStringList out;
    QDirIterator it(root, {"*.h", "*.hpp", "*.cpp", "*.cu", "*.cuh", "*.cc"}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) out << it.next();
    out.sort();
    return out;
}

// Every #include in `root` whose target matches `forbidden`.
QList<Violation> scan(const QString& root, const QRegularExpression& forbidden) {
    static const QRegularExpression include_re("^\\s*#\\s*include\\s*[<\"]([^>\"]+)[>\"]");
    QList<Violation> out;
    for (const QString& path : source_files(root)) {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly)) continue;
        int n = 0;
        while (!f.atEnd()) {
            const QString line = QString::fromUtf8(f.readLine());
            ++n;
            const auto m = include_re.match(line);
            if (m.hasMatch() && forbidden.match(m.captured(1)).hasMatch()) out.append({path, n, line.trimmed()});
        }
    }
    return out;
}

// Names of the engine's internal headers (relative to engine/src), e.g. "platform/platform.h".
QStringList engine_internal_headers(const QString& engine_src) {
    QStringList out;
    const QDir base(engine_src);
    for (const QString& p : source_files(engine_src))
        if (p.endsWith(".h") || p.endsWith(".hpp") || p.endsWith(".cuh")) out << base.relativeFilePath(p);
    return out;
}

// The engine's internal headers under the given top folders (relative to engine/src), as an include regex.
QRegularExpression engine_headers_under(const QString& engine_src, const QStringList& dirs) {
    QStringList hs;
    for (const QString& h : engine_internal_headers(engine_src))
        if (dirs.contains(h.section('/', 0, 0))) hs << QRegularExpression::escape(h);
    return QRegularExpression("^(" + (hs.isEmpty() ? QString("$^") : hs.join('|')) + ")$");
}

const QStringList kExecutionDirs = {"exec", "cpu", "cuda", "moe", "kv", "sched", "memory", "profile", "bench", "serve"};

const QRegularExpression kQtInclude("^(Q[A-Z][A-Za-z]*|Qt[A-Za-z]+/.*|q[a-z]+\\.h)$");
const QRegularExpression kEngineInclude("^ft/");

QString describe(const QList<Violation>& v) {
    QString s;
    for (const auto& x : v) s += QString("%1:%2: %3\n").arg(x.file).arg(x.line).arg(x.text);
    return s;
}

void write(const QString& path, const QByteArray& text) {
    QDir().mkpath(QFileInfo(path).path());
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text);
}

}  // namespace

class TestBoundaries : public QObject {
    Q_OBJECT
    const QString src = QStringLiteral(FT_SOURCE_DIR);

private slots:
    void scannerFindsPlantedViolations() {
        QTemporaryDir tmp;
        write(tmp.path() + "/engine/src/a.cpp", "#include <vector>\n  #  include <QString>\n#include \"ft/error.h\"\n");
        write(tmp.path() + "/engine/src/b.h", "#include <QtCore/QObject>\n");
        write(tmp.path() + "/kernels/cpu/k.cpp", "#include \"ft/error.h\"\n#include <cmath>\n");
        write(tmp.path() + "/ui/m.cpp", "#include \"model/qwen3_moe.h\"\n#include \"EngineHost.h\"\n");
        write(tmp.path() + "/engine/src/model/qwen3_moe.h", "#pragma once\n");
        QCOMPARE(scan(tmp.path() + "/engine", kQtInclude).size(), 2);
        QCOMPARE(scan(tmp.path() + "/kernels", kEngineInclude).size(), 1);
        const QStringList internal = engine_internal_headers(tmp.path() + "/engine/src");
        QVERIFY(internal.contains("model/qwen3_moe.h"));
        const auto ui = scan(tmp.path() + "/ui",
                             QRegularExpression("^(" + QRegularExpression::escape(internal.join('|')).replace("\\|", "|") + ")$"));
        QCOMPARE(ui.size(), 1);
        // model/ including an execution header (engine/src/cpu/…), but not a kernels header of the same folder name.
        write(tmp.path() + "/engine/src/cpu/worker_pool.h", "#pragma once\n");
        write(tmp.path() + "/engine/src/model/arch.cpp", "#include \"cpu/worker_pool.h\"\n#include \"cpu/matmul.h\"\n");
        QCOMPARE(scan(tmp.path() + "/engine/src/model", engine_headers_under(tmp.path() + "/engine/src", kExecutionDirs)).size(), 1);
    }

    void engineAndKernelsIncludeNoQt() {
        QVERIFY(QDir(src + "/engine/src").exists());
        QVERIFY(QDir(src + "/kernels").exists());
        const auto v = scan(src + "/engine", kQtInclude) + scan(src + "/kernels", kQtInclude);
        QVERIFY2(v.isEmpty(), qPrintable("Qt included where it must not be:\n" + describe(v)));
    }

    void kernelsIncludeNothingOfTheEngine() {
        const auto v = scan(src + "/kernels", kEngineInclude);
        QVERIFY2(v.isEmpty(), qPrintable("kernels include engine headers:\n" + describe(v)));
    }

    void uiIncludesNoEngineInternalsOrKernels() {
        QStringList forbidden;
        for (const QString& h : engine_internal_headers(src + "/engine/src")) forbidden << QRegularExpression::escape(h);
        for (const char* dir : {"ref", "cpu", "cuda"}) forbidden << QRegularExpression::escape(QString::fromUtf8(dir)) + "/.*";
        forbidden << "engine/src/.*" << "kernels/.*";
        const QRegularExpression re("^(" + forbidden.join('|') + ")$");
        const auto v = scan(src + "/ui", re);
        QVERIFY2(v.isEmpty(), qPrintable("ui includes engine internals:\n" + describe(v)));
    }

    void modelIncludesNothingOfExecution() {
        const auto v = scan(src + "/engine/src/model", engine_headers_under(src + "/engine/src", kExecutionDirs));
        QVERIFY2(v.isEmpty(), qPrintable("model/ (descriptions) includes execution headers:\n" + describe(v)));
    }

    void onlyTheBenchmarksIncludeBench() {
        const QRegularExpression bench = engine_headers_under(src + "/engine/src", {"bench"});
        QList<Violation> v;
        for (const QString& dir : QDir(src + "/engine/src").entryList(QDir::Dirs | QDir::NoDotAndDotDot))
            if (dir != "bench") v += scan(src + "/engine/src/" + dir, bench);
        QVERIFY2(v.isEmpty(), qPrintable("engine code includes the benchmarks:\n" + describe(v)));
    }

    void engineCMakeLinksNoQt() {
        for (const QString& f : {src + "/engine/CMakeLists.txt", src + "/kernels/CMakeLists.txt"}) {
            QFile file(f);
            QVERIFY(file.open(QIODevice::ReadOnly));
            const QString text = QString::fromUtf8(file.readAll());
            QVERIFY2(!text.contains(QRegularExpression("Qt6?::")), qPrintable(f + " links a Qt target"));
        }
    }
};

FT_TEST_MAIN(TestBoundaries)
#include "test_boundaries.moc"
