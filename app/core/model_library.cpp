#include "model_library.h"

#include <QDir>
#include <QDirIterator>
#include <QSet>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>

#include <atomic>

#include "ft/error.h"
#include "ft/paths.h"
#include "ft/utf8.h"

namespace ft {

namespace {

std::atomic<int> g_connection_counter{0};

// migrations[i] takes the schema from version i to i + 1. Append only; never edit a shipped step.
const QList<QStringList>& migrations() {
    static const QList<QStringList> steps = {
        {
            "CREATE TABLE models ("
            " id INTEGER PRIMARY KEY AUTOINCREMENT,"
            " path TEXT NOT NULL UNIQUE,"
            " display_name TEXT NOT NULL,"
            " format TEXT NOT NULL,"
            " size_bytes INTEGER NOT NULL DEFAULT 0,"
            " added_at TEXT NOT NULL)",
        },
        {
            "ALTER TABLE models ADD COLUMN facts TEXT NOT NULL DEFAULT ''",
            "ALTER TABLE models ADD COLUMN origin TEXT NOT NULL DEFAULT 'added'",
            "CREATE TABLE downloads ("
            " id INTEGER PRIMARY KEY AUTOINCREMENT,"
            " repo TEXT NOT NULL,"
            " label TEXT NOT NULL,"
            " kind TEXT NOT NULL,"
            " folder TEXT NOT NULL,"
            " model_path TEXT NOT NULL,"
            " files TEXT NOT NULL,"
            " state TEXT NOT NULL,"
            " error TEXT NOT NULL DEFAULT '',"
            " created_at TEXT NOT NULL)",
        },
    };
    return steps;
}

[[noreturn]] void throw_sql(const QString& what, const QSqlError& err, const QString& db) {
    throw Error(ErrorCode::io, (what + " in " + db + ": " + err.text()).toStdString(),
                "check that the data folder is writable and the disk is not full");
}

std::string q(const QString& s) { return s.toStdString(); }

QString facts_to_json(const ModelFacts& f) {
    QJsonObject o;
    o["readable"] = f.readable;
    o["error"] = QString::fromStdString(f.error);
    if (!f.error_key.empty()) {
        QJsonArray args;
        for (const std::string& a : f.error_key.args) args.append(QString::fromStdString(a));
        o["errorKey"] = QJsonObject{{"key", QString::fromStdString(f.error_key.key)}, {"args", args}};
    }
    o["architecture"] = QString::fromStdString(f.architecture);
    o["described"] = f.described;
    o["runnable"] = f.runnable;
    o["support_note"] = QString::fromStdString(f.support_note);
    if (!f.support_key.empty()) {
        QJsonArray args;
        for (const std::string& a : f.support_key.args) args.append(QString::fromStdString(a));
        o["supportKey"] = QJsonObject{{"key", QString::fromStdString(f.support_key.key)}, {"args", args}};
    }
    o["name"] = QString::fromStdString(f.name);
    o["quant"] = QString::fromStdString(f.quant);
    // 64-bit counts as strings: JSON numbers are doubles in Qt.
    auto u64 = [&](const char* k, std::uint64_t v) { o[k] = QString::number(v); };
    u64("total_params", f.total_params);
    u64("active_params", f.active_params);
    u64("expert_pool_bytes", f.expert_pool_bytes);
    u64("non_expert_bytes", f.non_expert_bytes);
    u64("bytes_per_expert", f.bytes_per_expert);
    u64("file_bytes", f.file_bytes);
    o["n_layer"] = int(f.n_layer);
    o["n_moe_layers"] = int(f.n_moe_layers);
    o["n_expert"] = int(f.n_expert);
    o["n_expert_used"] = int(f.n_expert_used);
    o["n_embd"] = int(f.n_embd);
    o["n_head_kv"] = int(f.n_head_kv);
    o["head_dim"] = int(f.head_dim);
    QJsonArray parts;
    for (const auto& p : f.parts) parts.append(QString::fromStdString(path_to_utf8(p)));
    o["parts"] = parts;
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

bool facts_from_json(const QString& text, ModelFacts& f) {
    if (text.isEmpty()) return false;
    const QJsonObject o = QJsonDocument::fromJson(text.toUtf8()).object();
    if (o.isEmpty()) return false;
    f.readable = o["readable"].toBool();
    f.error = q(o["error"].toString());
    if (o.contains("errorKey")) {
        const QJsonObject k = o["errorKey"].toObject();
        f.error_key.key = q(k["key"].toString());
        for (const QJsonValue& a : k["args"].toArray()) f.error_key.args.push_back(q(a.toString()));
    }
    f.architecture = q(o["architecture"].toString());
    f.described = o["described"].toBool();
    f.runnable = o["runnable"].toBool();
    f.support_note = q(o["support_note"].toString());
    if (o.contains("supportKey")) {
        const QJsonObject k = o["supportKey"].toObject();
        f.support_key.key = q(k["key"].toString());
        for (const QJsonValue& a : k["args"].toArray()) f.support_key.args.push_back(q(a.toString()));
    }
    f.name = q(o["name"].toString());
    f.quant = q(o["quant"].toString());
    auto u64 = [&](const char* k) { return o[k].toString().toULongLong(); };
    f.total_params = u64("total_params");
    f.active_params = u64("active_params");
    f.expert_pool_bytes = u64("expert_pool_bytes");
    f.non_expert_bytes = u64("non_expert_bytes");
    f.bytes_per_expert = u64("bytes_per_expert");
    f.file_bytes = u64("file_bytes");
    f.n_layer = std::uint32_t(o["n_layer"].toInt());
    f.n_moe_layers = std::uint32_t(o["n_moe_layers"].toInt());
    f.n_expert = std::uint32_t(o["n_expert"].toInt());
    f.n_expert_used = std::uint32_t(o["n_expert_used"].toInt());
    f.n_embd = std::uint32_t(o["n_embd"].toInt());
    f.n_head_kv = std::uint32_t(o["n_head_kv"].toInt());
    f.head_dim = std::uint32_t(o["head_dim"].toInt());
    f.parts.clear();
    for (const auto& p : o["parts"].toArray()) f.parts.push_back(path_from_utf8(p.toString().toStdString()));
    return true;
}

ModelFacts facts_for(const QString& path) { return read_model_facts(ft::path_from_utf8(path.toStdString())); }

// A split GGUF's later parts belong to its first part's row.
bool is_later_split_part(const QString& file_name) {
    std::string stem;
    int part = 0, count = 0;
    return parse_split_gguf_name(file_name.toStdString(), stem, part, count) && part > 1;
}

}  // namespace

ModelLibrary::ModelLibrary(const QString& database_file) {
    m_path = database_file.isEmpty() ? QString::fromStdString(path_to_utf8(data_dir() / "freetoken.db")) : database_file;
    m_connection = QStringLiteral("ft_models_%1").arg(g_connection_counter.fetch_add(1));
    QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", m_connection);
    db.setDatabaseName(m_path);
    if (!db.open()) {
        const QString err = db.lastError().text();
        db = QSqlDatabase();
        QSqlDatabase::removeDatabase(m_connection);
        throw Error(ErrorCode::io, q("cannot open the model library " + m_path + ": " + err),
                    "check that the data folder exists and is writable (set FT_DATA_DIR to use another one)");
    }
    try {
        migrate();
    } catch (...) {
        db.close();
        db = QSqlDatabase();
        QSqlDatabase::removeDatabase(m_connection);
        throw;
    }
}

ModelLibrary::~ModelLibrary() {
    {
        QSqlDatabase db = QSqlDatabase::database(m_connection, false);
        if (db.isValid()) db.close();
    }
    QSqlDatabase::removeDatabase(m_connection);
}

int ModelLibrary::schemaVersion() const {
    QSqlQuery query(QSqlDatabase::database(m_connection));
    if (!query.exec("PRAGMA user_version") || !query.next()) throw_sql("cannot read the schema version", query.lastError(), m_path);
    return query.value(0).toInt();
}

void ModelLibrary::migrate() {
    const int current = schemaVersion();
    if (current > kSchemaVersion) {
        throw Error(ErrorCode::unsupported,
                    q(QStringLiteral("the model library %1 has schema version %2, newer than this FreeToken knows (%3)")
                          .arg(m_path).arg(current).arg(kSchemaVersion)),
                    "update FreeToken, or point FT_DATA_DIR at another folder");
    }
    QSqlDatabase db = QSqlDatabase::database(m_connection);
    for (int v = current; v < kSchemaVersion; ++v) {
        if (!db.transaction()) throw_sql("cannot start a migration", db.lastError(), m_path);
        QSqlQuery query(db);
        for (const QString& sql : migrations()[v]) {
            if (!query.exec(sql)) {
                const QSqlError err = query.lastError();
                db.rollback();
                throw_sql(QStringLiteral("migration %1 -> %2 failed").arg(v).arg(v + 1), err, m_path);
            }
        }
        if (!query.exec(QStringLiteral("PRAGMA user_version = %1").arg(v + 1))) {
            const QSqlError err = query.lastError();
            db.rollback();
            throw_sql("cannot record the schema version", err, m_path);
        }
        if (!db.commit()) throw_sql("cannot commit a migration", db.lastError(), m_path);
    }
}

QList<ModelRecord> ModelLibrary::models() const {
    QSqlQuery query(QSqlDatabase::database(m_connection));
    if (!query.exec("SELECT id, path, display_name, format, size_bytes, added_at, facts, origin FROM models ORDER BY id DESC"))
        throw_sql("cannot list models", query.lastError(), m_path);
    QList<ModelRecord> out;
    QList<int> stale;
    while (query.next()) {
        ModelRecord r;
        r.id = query.value(0).toLongLong();
        r.path = query.value(1).toString();
        r.displayName = query.value(2).toString();
        r.format = query.value(3).toString();
        r.sizeBytes = query.value(4).toLongLong();
        r.addedAt = QDateTime::fromString(query.value(5).toString(), Qt::ISODate);
        r.origin = query.value(7).toString();
        if (!facts_from_json(query.value(6).toString(), r.facts)) stale.append(int(out.size()));
        out.append(r);
    }
    query.finish();
    // Rows from schema 1 (or a failed earlier write) have no facts yet: read them once and keep them.
    for (int i : stale) {
        ModelRecord& r = out[i];
        r.facts = facts_for(r.path);
        storeFacts(r.id, r.facts);
    }
    return out;
}

ModelRecord ModelLibrary::inspect(const QString& raw_path) {
    const QString trimmed = raw_path.trimmed();
    if (trimmed.isEmpty()) throw Error(ErrorCode::invalid_argument, "no path given", "choose a .gguf file or a model folder");
    const QString path = QDir::cleanPath(QFileInfo(trimmed).absoluteFilePath());  // also drops a trailing '/'
    const QFileInfo info(path);
    if (!info.exists())
        throw Error(ErrorCode::not_found, q(path + " does not exist"), "check the path, or pick the file again");
    if (!info.isReadable())
        throw Error(ErrorCode::not_found, q(path + " is not readable"), "check the file permissions");

    ModelRecord r;
    r.path = path;
    if (info.isFile()) {
        if (info.suffix().compare("gguf", Qt::CaseInsensitive) != 0)
            throw Error(ErrorCode::invalid_file, q(path + " is not a .gguf file"),
                        "choose a GGUF model file, or the folder of a Hugging Face model (config.json + .safetensors)");
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            throw Error(ErrorCode::not_found, q(path + " cannot be opened: " + f.errorString()), "check the file permissions");
        if (f.read(4) != "GGUF")
            throw Error(ErrorCode::invalid_file, q(path + " is not a GGUF file (it does not start with the GGUF magic)"),
                        "the download may be incomplete or the file is of another format");
        r.format = "gguf";
        r.displayName = info.completeBaseName();
        r.sizeBytes = info.size();
    } else if (info.isDir()) {
        const QDir dir(path);
        const QStringList weights = dir.entryList({"*.safetensors"}, QDir::Files);
        if (!dir.exists("config.json") || weights.isEmpty()) {
            const bool has_gguf = !dir.entryList({"*.gguf"}, QDir::Files).isEmpty();
            throw Error(ErrorCode::invalid_file,
                        q(path + " is not a Hugging Face model folder (it needs config.json and .safetensors files)"),
                        has_gguf ? "this folder holds .gguf files: add one of them directly"
                                 : "choose a .gguf file or a folder downloaded from Hugging Face");
        }
        r.format = "safetensors";
        r.displayName = info.fileName();
        for (const QFileInfo& f : dir.entryInfoList(QDir::Files)) r.sizeBytes += f.size();
    } else {
        throw Error(ErrorCode::invalid_file, q(path + " is neither a file nor a folder"), "choose a .gguf file or a model folder");
    }
    return r;
}

void ModelLibrary::storeFacts(qint64 id, const ModelFacts& facts) const {
    QSqlQuery query(QSqlDatabase::database(m_connection));
    query.prepare("UPDATE models SET facts = ? WHERE id = ?");
    query.addBindValue(facts_to_json(facts));
    query.addBindValue(id);
    if (!query.exec()) throw_sql("cannot store what the model file contains", query.lastError(), m_path);
}

std::optional<ModelRecord> ModelLibrary::find(qint64 id) const {
    for (const ModelRecord& r : models())
        if (r.id == id) return r;
    return std::nullopt;
}

ModelRecord ModelLibrary::add(const QString& path, const QString& origin) {
    ModelRecord r = inspect(path);
    r.origin = origin;
    r.facts = facts_for(r.path);
    if (r.facts.file_bytes > 0) r.sizeBytes = qint64(r.facts.file_bytes);  // every part of a split model
    if (!r.facts.name.empty() && r.format == "safetensors") r.displayName = QString::fromStdString(r.facts.name);
    QSqlDatabase db = QSqlDatabase::database(m_connection);
    {
        QSqlQuery dup(db);
        dup.prepare("SELECT COUNT(*) FROM models WHERE path = ?");
        dup.addBindValue(r.path);
        if (!dup.exec() || !dup.next()) throw_sql("cannot query the library", dup.lastError(), m_path);
        if (dup.value(0).toInt() > 0)
            throw Error(ErrorCode::invalid_argument, q(r.path + " is already in the library"), "");
    }
    r.addedAt = QDateTime::currentDateTimeUtc();
    QSqlQuery query(db);
    query.prepare("INSERT INTO models (path, display_name, format, size_bytes, added_at, facts, origin)"
                  " VALUES (?, ?, ?, ?, ?, ?, ?)");
    query.addBindValue(r.path);
    query.addBindValue(r.displayName);
    query.addBindValue(r.format);
    query.addBindValue(r.sizeBytes);
    query.addBindValue(r.addedAt.toString(Qt::ISODateWithMs));
    query.addBindValue(facts_to_json(r.facts));
    query.addBindValue(r.origin);
    if (!query.exec()) throw_sql("cannot add " + r.path, query.lastError(), m_path);
    r.id = query.lastInsertId().toLongLong();
    return r;
}

bool ModelLibrary::remove(qint64 id, bool delete_files) {
    if (delete_files) {
        const std::optional<ModelRecord> r = find(id);
        if (!r) return false;
        const QFileInfo info(r->path);
        if (info.isDir()) {
            const QString models = QDir::cleanPath(QString::fromStdString(path_to_utf8(models_dir())));
            const QString dir = QDir::cleanPath(info.absoluteFilePath());
            if (!dir.startsWith(models + "/"))
                throw Error(ErrorCode::invalid_argument,
                            q(dir + " is a folder outside the models folder; FreeToken deletes only folders it downloaded"),
                            q("remove it from the library without deleting, then delete the folder yourself if you want"));
            if (info.exists() && !QDir(dir).removeRecursively())
                throw Error(ErrorCode::io, q("cannot delete the folder " + dir), "check the folder's permissions");
        } else {
            QStringList files;
            for (const auto& p : r->facts.parts) files << QString::fromStdString(path_to_utf8(p));
            if (files.isEmpty()) files << r->path;
            for (const QString& f : files)
                if (QFile::exists(f) && !QFile::remove(f))
                    throw Error(ErrorCode::io, q("cannot delete " + f), "check the file's permissions");
        }
    }
    QSqlQuery query(QSqlDatabase::database(m_connection));
    query.prepare("DELETE FROM models WHERE id = ?");
    query.addBindValue(id);
    if (!query.exec()) throw_sql("cannot remove a model", query.lastError(), m_path);
    return query.numRowsAffected() > 0;
}

ScanResult ModelLibrary::scan(const QString& folder) {
    const QString root = QDir::cleanPath(folder.isEmpty() ? QString::fromStdString(path_to_utf8(models_dir())) : folder);
    ScanResult result;
    if (!QFileInfo(root).isDir()) {
        result.errors << root + " is not a folder";
        return result;
    }
    QSet<QString> known;
    for (const ModelRecord& r : models()) known.insert(r.path);
    const int root_depth = int(root.count('/'));
    QStringList candidates;
    QDirIterator it(root, QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString p = it.next();
        if (p.count('/') - root_depth > 2) continue;  // <models>/<repo>/<file> at most
        const QFileInfo info = it.fileInfo();
        if (info.isFile()) {
            if (info.suffix().compare("gguf", Qt::CaseInsensitive) == 0 && !is_later_split_part(info.fileName()) &&
                !info.fileName().endsWith(".part"))
                candidates << p;
        } else if (info.isDir() && QFileInfo::exists(p + "/config.json") &&
                   !QDir(p).entryList({"*.safetensors"}, QDir::Files).isEmpty()) {
            candidates << p;
        }
    }
    candidates.sort();
    for (const QString& p : candidates) {
        if (known.contains(QDir::cleanPath(QFileInfo(p).absoluteFilePath()))) {
            ++result.known;
            continue;
        }
        try {
            add(p, QStringLiteral("scan"));
            ++result.added;
        } catch (const Error& e) {
            result.errors << QString::fromStdString(e.message());
        }
    }
    return result;
}

}  // namespace ft
