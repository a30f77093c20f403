// ModelLibrary schema 2 and ModelFacts: migration from a version-1 database, the engine inspector's facts of real
// model files (the tiny Qwen3-MoE of tests/data as safetensors and converted to GGUF by `ft convert`, a synthetic
// model of an architecture the engine describes but cannot run, a truncated file), split GGUF names and missing
// parts, the models-folder scan, removal with and without deleting the files, and the fit estimate's verdicts.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>

#include "ft/error.h"
#include "ft/paths.h"
#include "ft/plan.h"
#include "model/convert_hf.h"
#include "ref/dtype.h"
#include "ft_test.h"
#include "model_facts.h"
#include "model_library.h"

namespace {

const QString kTiny = QStringLiteral(FT_SOURCE_DIR "/tests/data/qwen3-moe-tiny");

bool copy_dir(const QString& from, const QString& to) {
    QDir().mkpath(to);
    for (const QFileInfo& f : QDir(from).entryInfoList(QDir::Files))
        if (!QFile::copy(f.filePath(), to + "/" + f.fileName())) return false;
    return true;
}

void write_file(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY2(f.open(QIODevice::WriteOnly), qPrintable(path));
    f.write(bytes);
}

template <typename Fn>
bool throws(Fn&& fn, ft::ErrorCode code, QString* message = nullptr) {
    try {
        fn();
    } catch (const ft::Error& e) {
        if (message) *message = QString::fromStdString(e.message());
        return e.code() == code;
    }
    return false;
}

}  // namespace

class TestModelLibrary : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_gguf;      // the tiny model converted to GGUF

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_gguf = m_dir.filePath("qwen3-moe-tiny-Q8_0.gguf");
        // The tiny model converted to a real Q8_0 GGUF by the engine's converter (what `ft convert` runs).
        ft::model::ConvertOptions opt;
        opt.out = m_gguf.toStdString();
        opt.type = ft::kernels::DType::Q8_0;
        try {
            ft::model::convert_hf_to_gguf(kTiny.toStdString(), opt);
        } catch (const std::exception& e) {
            QFAIL(e.what());
        }
    }

    void migratesAVersionOneDatabase() {
        const QString db = m_dir.filePath("v1.db");
        const QString folder = m_dir.filePath("v1-model");
        QVERIFY(copy_dir(kTiny, folder));
        {
            QSqlDatabase raw = QSqlDatabase::addDatabase("QSQLITE", "raw1");
            raw.setDatabaseName(db);
            QVERIFY(raw.open());
            QSqlQuery q(raw);
            // Exactly what FreeToken 0.1.0 created (schema 1).
            QVERIFY(q.exec("CREATE TABLE models (id INTEGER PRIMARY KEY AUTOINCREMENT, path TEXT NOT NULL UNIQUE,"
                           " display_name TEXT NOT NULL, format TEXT NOT NULL, size_bytes INTEGER NOT NULL DEFAULT 0,"
                           " added_at TEXT NOT NULL)"));
            QVERIFY(q.exec("INSERT INTO models (path, display_name, format, size_bytes, added_at) VALUES ('" + folder +
                           "', 'old row', 'safetensors', 123, '2026-11-01T10:00:00Z')"));
            QVERIFY(q.exec("PRAGMA user_version = 1"));
            raw.close();
        }
        QSqlDatabase::removeDatabase("raw1");
        {
            ft::ModelLibrary lib(db);
            QCOMPARE(lib.schemaVersion(), 2);
            const auto rows = lib.models();
            QCOMPARE(rows.size(), 1);
            QCOMPARE(rows[0].displayName, QStringLiteral("old row"));
            QCOMPARE(rows[0].origin, QStringLiteral("added"));
            QCOMPARE(QString::fromStdString(rows[0].facts.architecture), QStringLiteral("qwen3_moe"));  // read on first use
            QSqlQuery q(QSqlDatabase::database(lib.connectionName()));
            QVERIFY(q.exec("SELECT facts FROM models"));
            QVERIFY(q.next());
            QVERIFY(q.value(0).toString().contains("qwen3_moe"));   // and kept
            QVERIFY(q.exec("SELECT COUNT(*) FROM downloads"));      // the downloads table exists
        }
        ft::ModelLibrary again(db);
        QCOMPARE(again.schemaVersion(), ft::ModelLibrary::kSchemaVersion);
        QCOMPARE(again.models().size(), 1);
    }

    void readsFactsOfRealModels() {
        const ft::ModelFacts st = ft::read_model_facts(kTiny.toStdString());
        QVERIFY2(st.readable, st.error.c_str());
        QCOMPARE(QString::fromStdString(st.architecture), QStringLiteral("qwen3_moe"));
        QVERIFY(st.runnable);
        QVERIFY(st.n_expert > st.n_expert_used && st.n_expert_used > 0);
        QVERIFY(st.total_params > st.active_params && st.active_params > 0);
        QVERIFY(st.expert_pool_bytes > 0 && st.bytes_per_expert > 0);

        const ft::ModelFacts g = ft::read_model_facts(m_gguf.toStdString());
        QVERIFY2(g.readable, g.error.c_str());
        QCOMPARE(QString::fromStdString(g.architecture), QStringLiteral("qwen3_moe"));
        QVERIFY(g.runnable);
        QCOMPARE(QString::fromStdString(g.quant), QStringLiteral("Q8_0"));
        QCOMPARE(g.total_params, st.total_params);     // the same weights, converted
        QCOMPARE(g.active_params, st.active_params);
        QCOMPARE(g.file_bytes, std::uint64_t(QFileInfo(m_gguf).size()));
        QVERIFY(g.expert_pool_bytes < st.expert_pool_bytes);   // Q8_0 is smaller than the f32/bf16 original
    }

    void saysWhenAnArchitectureCannotRun() {
        // The tiny GGUF with its architecture renamed to one the engine does not know (same length, so the file
        // stays well-formed: every "qwen3moe" key and value changes together).
        QFile in(m_gguf);
        QVERIFY(in.open(QIODevice::ReadOnly));
        QByteArray bytes = in.readAll();
        QVERIFY(bytes.count("qwen3moe") >= 2);
        bytes.replace("qwen3moe", "qwen9moe");
        const QString other = m_dir.filePath("other-arch.gguf");
        write_file(other, bytes);
        const ft::ModelFacts f = ft::read_model_facts(other.toStdString());
        QVERIFY2(f.readable, f.error.c_str());
        QVERIFY(!f.described);
        QVERIFY(!f.runnable);
        QVERIFY2(QString::fromStdString(f.support_note).contains("qwen9moe"), f.support_note.c_str());
        // The note as a key for the app's language, and kept so through the library's stored facts.
        QCOMPARE(QString::fromStdString(f.support_key.key), QStringLiteral("arch_unsupported"));
        QVERIFY(f.support_key.args.size() == 3 && f.support_key.args[1] == "qwen9moe");
        {
            ft::ModelLibrary lib(m_dir.filePath("other-arch.db"));
            lib.add(other);
        }
        const ft::ModelLibrary reopened(m_dir.filePath("other-arch.db"));
        QCOMPARE(QString::fromStdString(reopened.models()[0].facts.support_key.key), QStringLiteral("arch_unsupported"));
        QVERIFY(reopened.models()[0].facts.support_key.args == f.support_key.args);
        QVERIFY(f.total_params > 0);   // what can be read is still shown
    }

    void aTruncatedFileIsAddedWithItsReason() {
        QFile in(m_gguf);
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QString cut = m_dir.filePath("cut.gguf");
        write_file(cut, in.read(in.size() / 3));
        ft::ModelLibrary lib(m_dir.filePath("cut.db"));
        const ft::ModelRecord rec = lib.add(cut);
        QVERIFY(!rec.facts.readable);
        QVERIFY(!rec.facts.runnable);
        QVERIFY2(!rec.facts.error.empty(), "no reason given");
        // A file cut short says so, with its size and the size it needs (for the app's language).
        QCOMPARE(QString::fromStdString(rec.facts.error_key.key), QStringLiteral("file_truncated"));
        QCOMPARE(QString::fromStdString(rec.facts.error_key.args.at(1)), QString::number(QFileInfo(cut).size()));
        const qint64 needed = QString::fromStdString(rec.facts.error_key.args.at(2)).toLongLong();
        QVERIFY2(needed > QFileInfo(cut).size() && needed <= in.size(), rec.facts.error_key.args.at(2).c_str());
        QVERIFY(!lib.models()[0].facts.readable);   // stored as such
    }

    void splitGgufNamesAndMissingParts() {
        std::string stem;
        int part = 0, count = 0;
        QVERIFY(ft::parse_split_gguf_name("Qwen3-235B-A22B-Q4_K_M-00002-of-00005.gguf", stem, part, count));
        QCOMPARE(QString::fromStdString(stem), QStringLiteral("Qwen3-235B-A22B-Q4_K_M"));
        QCOMPARE(part, 2);
        QCOMPARE(count, 5);
        QVERIFY(!ft::parse_split_gguf_name("model.gguf", stem, part, count));
        QVERIFY(!ft::parse_split_gguf_name("m-00003-of-00002.gguf", stem, part, count));
        QVERIFY(!ft::parse_split_gguf_name("m-0001-of-0002.gguf", stem, part, count));

        QVERIFY(QFile::copy(m_gguf, m_dir.filePath("split-00001-of-00002.gguf")));
        const ft::ModelFacts f = ft::read_model_facts(m_dir.filePath("split-00001-of-00002.gguf").toStdString());
        QVERIFY(!f.readable);
        QVERIFY2(QString::fromStdString(f.error).contains("part 2 of 2 is missing"), f.error.c_str());
    }

    // A real split GGUF (the tiny model written as parts of 12 tensors by the converter): its facts and fit are the
    // whole model's — the same as the one-file model's — and the size on disk is that of all parts.
    void splitGgufFactsCountEveryPart() {
        ft::model::ConvertOptions opt;
        opt.out = m_dir.filePath("tiny-split.gguf").toStdString();
        opt.type = ft::kernels::DType::Q8_0;
        opt.split_max_tensors = 12;
        ft::model::ConvertResult r;
        try {
            r = ft::model::convert_hf_to_gguf(kTiny.toStdString(), opt);
        } catch (const std::exception& e) {
            QFAIL(e.what());
        }
        QVERIFY(r.files.size() >= 3);
        const ft::ModelFacts one = ft::read_model_facts(m_gguf.toStdString());
        const ft::ModelFacts split = ft::read_model_facts(r.files.front());
        QVERIFY2(split.readable, split.error.c_str());
        QVERIFY(split.runnable);
        QCOMPARE(split.parts.size(), r.files.size());
        std::uint64_t on_disk = 0;
        for (const auto& f : r.files) on_disk += std::filesystem::file_size(f);
        QCOMPARE(split.file_bytes, on_disk);
        QCOMPARE(split.total_params, one.total_params);
        QCOMPARE(split.active_params, one.active_params);
        QCOMPARE(split.expert_pool_bytes, one.expert_pool_bytes);
        QCOMPARE(split.non_expert_bytes, one.non_expert_bytes);
        QCOMPARE(split.bytes_per_expert, one.bytes_per_expert);
        QCOMPARE(split.quant, one.quant);
        // A later part added by itself shows the whole model too (its parts are found from its name).
        const ft::ModelFacts later = ft::read_model_facts(r.files[1]);
        QCOMPARE(later.total_params, one.total_params);

        // The fit badge: a PC with a small GPU, so the plan depends on the expert pool's size.
        ft::MachineProfile pc;
        pc.gpu_name = "test GPU";
        pc.vram_bytes = 64ull << 20;
        pc.ram_bytes = 8ull << 30;
        pc.pcie_gbps = 20;
        pc.host_gbps = 30;
        pc.cpu_threads = 8;
        const ft::FitPrediction a = ft::predict_fit(m_gguf.toStdString(), pc);
        const ft::FitPrediction b = ft::predict_fit(r.files.front(), pc);
        QVERIFY(a.ram_needed > 0);
        QCOMPARE(b.verdict, a.verdict);
        QCOMPARE(b.ram_needed, a.ram_needed);
        QCOMPARE(b.plan.experts, a.plan.experts);
        QCOMPARE(b.summary, a.summary);
    }

    void scansTheModelsFolder() {
        const QString models = QString::fromStdString(ft::models_dir().string()) + "/scan-test";
        QDir(models).removeRecursively();
        QDir().mkpath(models + "/owner__repo");
        QVERIFY(QFile::copy(m_gguf, models + "/owner__repo/a-Q8_0.gguf"));
        QVERIFY(copy_dir(kTiny, models + "/hf-model"));
        write_file(models + "/owner__repo/b-00002-of-00002.gguf", "GGUF");   // a later part: not a model of its own
        write_file(models + "/notes.txt", "not a model");
        write_file(models + "/owner__repo/c.gguf.part", "GGUF");               // a download in progress
        ft::ModelLibrary lib(m_dir.filePath("scan.db"));
        ft::ScanResult r = lib.scan(models);
        QVERIFY2(r.errors.isEmpty(), qPrintable(r.errors.join('\n')));
        QStringList found;
        for (const auto& m : lib.models()) found << m.path;
        QVERIFY2(r.added == 2, qPrintable(found.join('\n')));
        QCOMPARE(lib.models().size(), 2);
        for (const auto& m : lib.models()) QCOMPARE(m.origin, QStringLiteral("scan"));
        r = lib.scan(models);
        QCOMPARE(r.added, 0);
        QCOMPARE(r.known, 2);
        QVERIFY(!lib.scan(m_dir.filePath("nowhere")).errors.isEmpty());
    }

    void removesWithAndWithoutTheFiles() {
        ft::ModelLibrary lib(m_dir.filePath("remove.db"));
        const QString keep = m_dir.filePath("keep.gguf"), drop = m_dir.filePath("drop.gguf");
        QVERIFY(QFile::copy(m_gguf, keep));
        QVERIFY(QFile::copy(m_gguf, drop));
        const qint64 a = lib.add(keep).id, b = lib.add(drop).id;
        QVERIFY(lib.remove(a));
        QVERIFY(QFile::exists(keep));
        QVERIFY(lib.remove(b, true));
        QVERIFY(!QFile::exists(drop));

        // A folder outside the models folder is never deleted; one inside it (a download) is.
        const QString outside = m_dir.filePath("outside-model");
        QVERIFY(copy_dir(kTiny, outside));
        const qint64 c = lib.add(outside).id;
        QString msg;
        QVERIFY(throws([&] { lib.remove(c, true); }, ft::ErrorCode::invalid_argument, &msg));
        QVERIFY2(msg.contains("outside"), qPrintable(msg));
        QVERIFY(QFileInfo::exists(outside + "/config.json"));
        QCOMPARE(lib.models().size(), 1);
        const QString inside = QString::fromStdString(ft::models_dir().string()) + "/remove-test/model";
        QDir(inside).removeRecursively();
        QVERIFY(copy_dir(kTiny, inside));
        const qint64 d = lib.add(inside).id;
        QVERIFY(lib.remove(d, true));
        QVERIFY(!QFileInfo::exists(inside));
    }

    void fitVerdictsFromTheEnginePredictor() {
        // The engine's predictor on the row's path, as the Models page asks it (ft::predict_fit, ft/plan.h).
        ft::MachineProfile pc;
        pc.ram_bytes = 64ull << 30;
        pc.cpu_threads = 8;
        ft::FitPrediction p = ft::predict_fit(m_gguf.toStdString(), pc);
        QCOMPARE(QString::fromStdString(p.verdict), QStringLiteral("cpu"));
        QVERIFY(p.decode_tok_s_high >= p.decode_tok_s_low && p.decode_tok_s_low > 0);
        pc.ram_bytes = 1 << 20;   // 1 MiB of RAM: nothing fits
        QCOMPARE(QString::fromStdString(ft::predict_fit(m_gguf.toStdString(), pc).verdict), QStringLiteral("no_fit"));
    }
};

FT_TEST_MAIN(TestModelLibrary)
#include "test_model_library.moc"
